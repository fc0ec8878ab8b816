"""Result tables transcribed from the papers that the studies reproduce.

Each CSV file here is a tidy (long) transcription of a published table; ``README.md`` in this
folder says how each was read from the papers' text and what could not be recovered. Infinite
losses are written ``inf``; cells lost in the text conversion are left empty (read as NaN).

Examples
--------
>>> t = load_paper_table("vovk_petej_2014_table1")
>>> t.shape
(216, 4)
>>> sorted(t["method"].unique())
['DIR', 'SVA', 'VA', 'W']
>>> bool((t.loc[t["method"] == "DIR", "log_loss"] == float("inf")).all())
True
"""

from __future__ import annotations

from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["PAPER_TABLES", "load_paper_table"]

#: name -> one-line description of each transcribed table.
PAPER_TABLES = {
    "vovk_petej_2014_table1": "Vovk & Petej (2014), Table 1: log loss (MLE), 9 datasets x 6 "
    "classifiers x {W, VA, SVA, DIR}",
    "vovk_petej_2014_table2": "Vovk & Petej (2014), Table 2: RMSE, same layout",
    "vovk_petej_2014_table3": "Vovk & Petej (2014), Table 3: best three methods per dataset and loss",
    "naeini_2014_table2": "Naeini, Cooper & Hauskrecht (2015), Table 2 (a)-(k): AUC, Acc, RMSE, "
    "MCE, ECE per calibrator",
    "johansson_2018_text_claims": "Johansson et al. (2018): the numbers and orderings stated in the "
    "text of section 5 (the tables themselves are not in the available text)",
}


def load_paper_table(name: str) -> pd.DataFrame:
    """Load one transcribed paper table as a pandas DataFrame.

    Parameters
    ----------
    name : str
        One of the keys of :data:`PAPER_TABLES`.

    Returns
    -------
    table : pandas.DataFrame
        The tidy table; value columns are float (``inf`` for infinite losses, NaN for cells lost
        in the text conversion).
    """
    import pandas as pd

    if name not in PAPER_TABLES:
        opts = ", ".join(repr(k) for k in PAPER_TABLES)
        raise ValueError(f"Unknown paper table {name!r}; choose one of {{{opts}}}.")
    with resources.files(__name__).joinpath(f"{name}.csv").open("r", encoding="utf-8") as fh:
        return pd.read_csv(fh)
