"""Study reports: Markdown and CSV tables, PNG figures and one self-contained HTML page.

A study returns a :class:`StudyResult` (tables as pandas DataFrames, matplotlib figures, notes in
Markdown); :func:`write_report` turns it into files in an output folder:

* ``results.csv``: the tidy per-cell results the tables were built from;
* ``<table>.csv`` and ``<table>.md`` for every table;
* ``<figure>.png`` for every figure;
* ``report.md``: the notes, tables and figure links in one Markdown document;
* ``report.html``: the same as one HTML file with the figures embedded as base64 PNG, readable
  offline and attachable to an e-mail.

This module is in the experiments layer: it writes files but never prints.
"""

from __future__ import annotations

import base64
import datetime as _dt
import html
import io
import math
import platform
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from venncal._files import write_bytes, write_csv, write_text
from venncal.experiments.claims import as_check, summary_counts, verdict

if TYPE_CHECKING:
    import os

    import pandas as pd
    from matplotlib.figure import Figure

    from venncal.experiments.claims import Check

__all__ = ["StudyResult", "format_value", "to_markdown", "report_files", "write_report"]


@dataclass
class StudyResult:
    """What a study produced.

    Attributes
    ----------
    name : str
        The study's command-line name, e.g. ``"vovk-petej-2014"``.
    title : str
        One-line title (paper and what is reproduced).
    mode : str
        ``"quick"``, ``"full"`` or ``"custom"``.
    tables : dict of str -> pandas.DataFrame
        Named result tables; the first one is the headline printed by ``venncal reproduce``.
    figures : dict of str -> matplotlib.figure.Figure
        Named figures.
    notes : list of str
        Markdown paragraphs shown before the tables (setup, deviations from the paper, checks).
    raw : pandas.DataFrame or None
        The tidy per-cell results the tables summarise.
    config : dict
        The study's parameters (sizes, repetitions, seeds), written to the report.
    wall_time : float
        Seconds spent computing, filled in by the study.
    checks : dict of str -> Check or bool
        The claims of the paper checked on these results (statement ->
        :class:`venncal.experiments.claims.Check`, or a bare truth value).
    digits : int
        Decimals shown for numbers in the Markdown, HTML and terminal tables.
    """

    name: str
    title: str
    mode: str
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, Figure] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    raw: pd.DataFrame | None = None
    config: dict[str, Any] = field(default_factory=dict)
    wall_time: float = float("nan")
    checks: dict[str, Check | bool] = field(default_factory=dict)
    digits: int = 3

    @property
    def headline(self) -> pd.DataFrame | None:
        """The first table (the one printed on the terminal)."""
        return next(iter(self.tables.values())) if self.tables else None


def format_value(value: object, digits: int = 3) -> str:
    """Format one table cell: numbers to ``digits`` decimals, infinities as ``inf``.

    Examples
    --------
    >>> format_value(0.12345), format_value(float("inf")), format_value(float("nan"))
    ('0.123', 'inf', '')
    >>> format_value(12), format_value("VA")
    ('12', 'VA')
    """
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else "no"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if math.isnan(v):
            return ""
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return f"{v:.{digits}f}"
    return str(value)


def _safe_name(name):
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", str(name)).strip("_") or "table"


def _cells(df, digits):
    index_names = [n if n is not None else "" for n in df.index.names]
    show_index = not (len(index_names) == 1 and index_names[0] == "" and _is_range(df.index))
    header = []
    if show_index:
        header += [str(n) for n in index_names]
    header += [" / ".join(map(str, c)) if isinstance(c, tuple) else str(c) for c in df.columns]
    rows = []
    for idx, row in zip(df.index, df.itertuples(index=False, name=None), strict=True):
        cells = []
        if show_index:
            cells += [str(i) for i in (idx if isinstance(idx, tuple) else (idx,))]
        cells += [format_value(v, digits) for v in row]
        rows.append(cells)
    return header, rows


def _is_range(index):
    return index.dtype.kind in "iu" and np.array_equal(np.asarray(index), np.arange(len(index)))


def to_markdown(df: pd.DataFrame, digits: int = 3) -> str:
    """Render a DataFrame as a GitHub Markdown table (no extra dependency).

    Examples
    --------
    >>> import pandas as pd
    >>> print(to_markdown(pd.DataFrame({"VA": [0.3333], "DIR": [float("inf")]}, index=["Echo"])))
    |  | VA | DIR |
    |---|---|---|
    | Echo | 0.333 | inf |
    """
    header, rows = _cells(df, digits)
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(lines)


def to_text(df: pd.DataFrame, digits: int = 3) -> str:
    """Render a DataFrame as an aligned plain-text table for the terminal."""
    header, rows = _cells(df, digits)
    widths = [
        max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)
    ]
    n_left = len(header) - df.shape[1]  # index columns are left-aligned

    def fmt(cells):
        return "  ".join(
            c.ljust(w) if i < n_left else c.rjust(w)
            for i, (c, w) in enumerate(zip(cells, widths, strict=True))
        )

    return "\n".join([fmt(header), fmt(["-" * w for w in widths])] + [fmt(r) for r in rows])


def _to_html_table(df, digits):
    """One table as HTML, inside a ``table-scroll`` box that scrolls sideways when it is wide."""
    header, rows = _cells(df, digits)
    out = [
        "<div class='table-scroll'><table>",
        "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in header) + "</tr></thead>",
        "<tbody>",
    ]
    for r in rows:
        out.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in r) + "</tr>")
    out.append("</tbody></table></div>")
    return "\n".join(out)


_CODE_SPAN = re.compile(r"(`+)(.+?)(?<!`)\1(?!`)", re.DOTALL)
_LINK = re.compile(r"\[([^\]\n]+)\]\(([^()\s]+)\)")
_SAFE_URL = re.compile(r"^(?:https?://|mailto:|#|[A-Za-z0-9_.~/-])", re.IGNORECASE)


def _emphasis_to_html(text):
    """**bold**, *italic* and [text](url) in text that holds no code span; escapes the rest."""
    out, pos = [], 0
    for m in _LINK.finditer(text):
        out.append(_emphasis_to_html_plain(text[pos : m.start()]))
        label, url = m.group(1), m.group(2)
        if _SAFE_URL.match(url):
            href = html.escape(url, quote=True)
            out.append(f"<a href='{href}'>{_emphasis_to_html_plain(label)}</a>")
        else:
            out.append(_emphasis_to_html_plain(m.group(0)))
        pos = m.end()
    out.append(_emphasis_to_html_plain(text[pos:]))
    return "".join(out)


def _emphasis_to_html_plain(text):
    esc = html.escape(text, quote=False)
    esc = re.sub(r"\*\*(?=\S)(.+?)(?<=\S)\*\*", r"<strong>\1</strong>", esc)
    return re.sub(r"(?<![*\w])\*(?=[^\s*])([^*]+?)(?<=[^\s*])\*(?![*\w])", r"<em>\1</em>", esc)


def _inline_to_html(text):
    """Convert the inline Markdown of one line or paragraph to HTML, escaping everything else.

    Code spans (one or more backticks) are escaped and shown verbatim; outside them, ``**bold**``,
    ``*italic*`` and ``[text](url)`` links (relative or http(s) addresses only) are converted.

    Examples
    --------
    >>> _inline_to_html("Study `vovk-petej-2014`, mode `quick`")
    'Study <code>vovk-petej-2014</code>, mode <code>quick</code>'
    >>> _inline_to_html("`a<b> **c**` and **x & y** or *z*")
    '<code>a&lt;b&gt; **c**</code> and <strong>x &amp; y</strong> or <em>z</em>'
    >>> _inline_to_html("``x`y`` [CSV](t.csv) [bad](javascript:alert(1)) 2 * 3 * 4")
    "<code>x`y</code> <a href='t.csv'>CSV</a> [bad](javascript:alert(1)) 2 * 3 * 4"
    """
    out, pos = [], 0
    for m in _CODE_SPAN.finditer(text):
        out.append(_emphasis_to_html(text[pos : m.start()]))
        code = m.group(2)
        if code.startswith(" ") and code.endswith(" ") and code.strip():
            code = code[1:-1]
        out.append(f"<code>{html.escape(code)}</code>")
        pos = m.end()
    out.append(_emphasis_to_html(text[pos:]))
    return "".join(out)


def _markdown_to_html(text):
    """The Markdown of the notes as HTML: paragraphs, ``#`` headings, bullet lists, inline markup.

    Examples
    --------
    >>> print(_markdown_to_html("Uses `n_splits`.\\n\\n- one **a**\\n- two <b>"))
    <p>Uses <code>n_splits</code>.</p>
    <ul><li>one <strong>a</strong></li><li>two &lt;b&gt;</li></ul>
    """
    blocks = []
    for block in re.split(r"\n\s*\n", str(text).strip()):
        lines = [line for line in block.splitlines() if line.strip()]
        if not lines:
            continue
        heading = re.match(r"^(#{1,6})\s+(.*)$", lines[0])
        if len(lines) == 1 and heading:
            level = len(heading.group(1))
            blocks.append(f"<h{level}>{_inline_to_html(heading.group(2))}</h{level}>")
        elif all(line.lstrip().startswith(("- ", "* ")) for line in lines):
            items = "".join(f"<li>{_inline_to_html(line.lstrip()[2:])}</li>" for line in lines)
            blocks.append(f"<ul>{items}</ul>")
        else:
            blocks.append(
                "<p>" + _inline_to_html(" ".join(line.strip() for line in lines)) + "</p>"
            )
    return "\n".join(blocks)


_CSS = """
body { font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; max-width: 1100px;
       margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
p, li { overflow-wrap: anywhere; }
.table-scroll { overflow-x: auto; max-width: 100%; margin: 1em 0; }
table { border-collapse: collapse; font-size: 0.85em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
td { white-space: nowrap; }
th { background: #f3f3f3; }
td:first-child, th:first-child { text-align: left; }
code { background: #f3f3f3; padding: 0 0.2em; }
img { max-width: 100%; }
.pass { color: #1a7f37; } .fail { color: #cf222e; }
"""
#: the style sheet on one line, as the page carries it
_STYLE = " ".join(line.strip() for line in _CSS.strip().splitlines())


def is_alarm(mark):
    """Whether a verdict (from :func:`venncal.experiments.claims.verdict`) is shown as a failure.

    Examples
    --------
    >>> is_alarm("not shown"), is_alarm("inconclusive at this size"), is_alarm("contradicted")
    (True, False, True)
    """
    return mark in ("FAILED", "contradicted", "not shown", "design NOT met") or mark.endswith(
        "(not refuted here)"
    )


def _checks_intro(result):
    counts = summary_counts(result.checks, result.mode)
    tally = ", ".join(f"{n} {v}" for v, n in counts.items())
    if result.mode == "quick":
        return (
            f"Quick mode ({tally}): each claim is judged with the draw-to-draw standard error "
            "of the quantities involved: *confirmed* or *contradicted* when the run is past "
            "the claim's threshold by more than k standard errors (Student's 97.5% quantile, "
            "at least 2, raised where resampled three-draw subsets of the committed full run "
            "needed more so that quick mode never reverses the full verdict), *inconclusive at "
            "this size* otherwise. Full mode gives the full run's verdicts."
        )
    kinds = {as_check(v).kind for v in result.checks.values()}
    text = (
        f"{tally}. Three verdicts: *passed* (confirmed), *contradicted* (the run is past the "
        "claim's threshold on the other side by more than two standard errors, or the rule "
        "has no noise) and *not shown* (neither); each check's rule is stated in its line"
    )
    if "design" in kinds:
        text += "; *design* checks test what a simulated design was built to do, not a claim"
    if "contradicted" in kinds:
        text += "; a claim the paper's own table contradicts is reported as such"
    return text + "."


def _figure_png(fig, dpi):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, bbox_inches="tight")
    return buf.getvalue()


def report_files(result: StudyResult) -> list[str]:
    """Names of the files :func:`write_report` writes for ``result`` (in its output folder).

    Examples
    --------
    >>> import pandas as pd
    >>> report_files(StudyResult("s", "T", "quick", tables={"Log loss": pd.DataFrame()}))
    ['Log_loss.csv', 'Log_loss.md', 'report.md', 'report.html']
    """
    names = ["results.csv"] if result.raw is not None else []
    for name in result.tables:
        names += [f"{_safe_name(name)}.csv", f"{_safe_name(name)}.md"]
    names += [f"{_safe_name(name)}.png" for name in result.figures]
    return names + ["report.md", "report.html"]


def write_report(
    result: StudyResult,
    out_dir: str | os.PathLike[str],
    *,
    digits: int | None = None,
    dpi: int = 110,
) -> dict[str, Path]:
    """Write a study's tables, figures, Markdown report and self-contained HTML page.

    Parameters
    ----------
    result : StudyResult
    out_dir : str or path-like
        Created if missing; files of the same names are replaced, each atomically (a reader or
        a crash sees the old file or the complete new one).
    digits : int, default=None
        Decimals shown in Markdown/HTML tables (CSV files keep full precision); default
        ``result.digits``.
    dpi : int, default=110
        Resolution of the PNG figures.

    Returns
    -------
    paths : dict of str -> pathlib.Path
        ``"markdown"``, ``"html"`` and ``"results"`` plus one entry per table and figure.
    """
    digits = result.digits if digits is None else digits
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{platform.machine()}, {platform.system()}, Python {platform.python_version()}"

    if result.raw is not None:
        paths["results"] = out / "results.csv"
        write_csv(result.raw, paths["results"], index=False)

    md = [f"# {result.title}", ""]
    md.append(
        f"Study `{result.name}`, mode `{result.mode}`; wall time {result.wall_time:.1f} s; "
        f"written {stamp} on {machine}."
    )
    md.append("")
    html_body = [f"<h1>{html.escape(result.title)}</h1>", _markdown_to_html(md[2])]
    if result.config:
        cfg = ", ".join(f"`{k}={v}`" for k, v in result.config.items())
        md += [f"Configuration: {cfg}.", ""]
        html_body.append(_markdown_to_html(f"Configuration: {cfg}."))
    for note in result.notes:
        md += [note.strip(), ""]
        html_body.append(_markdown_to_html(note))
    if result.checks:
        md += ["## Checks of the paper's claims", ""]
        html_body.append("<h2>Checks of the paper's claims</h2>")
        intro = _checks_intro(result)
        md += [intro, ""]
        html_body.append(_markdown_to_html(intro))
        html_body.append("<ul>")
        for claim, value in result.checks.items():
            mark = verdict(value, result.mode)
            md.append(f"- {claim}: **{mark}**")
            cls = "fail" if is_alarm(mark) else "pass"
            html_body.append(
                f"<li>{_inline_to_html(claim)}: <strong class='{cls}'>{mark}</strong></li>"
            )
        md.append("")
        html_body.append("</ul>")

    for name, table in result.tables.items():
        stem = _safe_name(name)
        csv_path, md_path = out / f"{stem}.csv", out / f"{stem}.md"
        write_csv(table, csv_path)
        text = to_markdown(table, digits)
        write_text(md_path, text + "\n")
        paths[f"table:{name}"] = csv_path
        md += [f"## {name}", "", text, "", f"([CSV]({csv_path.name}))", ""]
        html_body += [f"<h2>{html.escape(name)}</h2>", _to_html_table(table, digits)]

    for name, fig in result.figures.items():
        stem = _safe_name(name)
        png = _figure_png(fig, dpi)
        png_path = out / f"{stem}.png"
        write_bytes(png_path, png)
        paths[f"figure:{name}"] = png_path
        md += [f"## Figure: {name}", "", f"![{name}]({png_path.name})", ""]
        b64 = base64.b64encode(png).decode("ascii")
        html_body += [
            f"<h2>Figure: {html.escape(name)}</h2>",
            f"<img alt='{html.escape(name)}' src='data:image/png;base64,{b64}'>",
        ]

    paths["markdown"] = out / "report.md"
    write_text(paths["markdown"], "\n".join(md).rstrip() + "\n")
    page = (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<title>{html.escape(result.title)}</title><style>{_STYLE}</style></head>\n<body>\n"
        + "\n".join(html_body)
        + "\n</body></html>\n"
    )
    paths["html"] = out / "report.html"
    write_text(paths["html"], page)
    return paths
