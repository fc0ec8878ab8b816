"""Static description of every bundled dataset: where it came from and how it is labelled.

The figures (rows, class counts) are not stored here: ``list_datasets`` reads them from the
loaded data, and the tests check them against ``data/SOURCES.md``.
"""

from __future__ import annotations

from typing import Any

UCI = "UCI Machine Learning Repository (CC BY 4.0); cite the donors and Dua & Graff"
WEKA = "data file from the Weka 3.8 source tree (GPL-3.0); underlying data from UCI (CC BY 4.0)"
CE = (
    "MIT (c) 2023 Moffran, calibrated_explanations repository; underlying data from UCI "
    "(CC BY 4.0) or the PROMISE repository"
)

VOVK = "Vovk & Petej 2014 (000_d0bd77ad01cef484)"
NAEINI = "Naeini, Cooper & Hauskrecht 2015 (004_524bdd2b48de3bf8)"
JOHANSSON = "Johansson et al. 2018 (002_8eae935cd9159085)"

# name -> description; "positive" is the original label mapped to 1, "why" says where it comes from
INFO: dict[str, dict[str, Any]] = {
    "australian": dict(
        title="Statlog Australian Credit Approval",
        file="uci/australian.dat",
        positive="1",
        negative="0",
        why="suggested in SOURCES.md (approved = 1, as coded by Statlog)",
        citation="Quinlan; Statlog project",
        licence=UCI,
        papers=(VOVK,),
    ),
    "breast-cancer": dict(
        title="Breast Cancer (Ljubljana)",
        file="weka/breast-cancer.arff",
        positive="recurrence-events",
        negative="no-recurrence-events",
        why="adverse class, suggested in SOURCES.md",
        citation="Zwitter & Soklic, Institute of Oncology, Ljubljana",
        licence=WEKA,
        papers=(VOVK,),
    ),
    "breast-w": dict(
        title="Breast Cancer Wisconsin (original)",
        file="weka/breast-w.arff",
        positive="malignant",
        negative="benign",
        why="adverse class, suggested in SOURCES.md",
        citation="Wolberg & Mangasarian (1990)",
        licence=WEKA,
        papers=(VOVK,),
    ),
    "diabetes": dict(
        title="Pima Indians Diabetes",
        file="weka/diabetes.arff",
        positive="tested_positive",
        negative="tested_negative",
        why="adverse class, suggested in SOURCES.md",
        citation="Smith et al. (1988), NIDDK",
        licence=WEKA,
        papers=(VOVK,),
    ),
    "echocardiogram": dict(
        title="Echocardiogram (alive at one year)",
        file="uci/echocardiogram.data",
        positive="1",
        negative="0",
        why="alive-at-1 = 1, suggested in SOURCES.md",
        citation="Salzberg (Reed Institute)",
        licence=UCI,
        papers=(VOVK,),
    ),
    "hepatitis": dict(
        title="Hepatitis",
        file="weka/hepatitis.arff",
        positive="DIE",
        negative="LIVE",
        why="adverse class, suggested in SOURCES.md",
        citation="G. Gong (CMU)",
        licence=WEKA,
        papers=(VOVK,),
    ),
    "ionosphere": dict(
        title="Ionosphere",
        file="weka/ionosphere.arff",
        positive="b",
        negative="g",
        why="not stated by the paper; our choice: 'b' (bad radar return), the adverse class",
        citation="Sigillito et al. (1989)",
        licence=WEKA,
        papers=(VOVK,),
    ),
    "labor": dict(
        title="Labor Relations",
        file="weka/labor.arff",
        positive="bad",
        negative="good",
        why="not stated by the paper; our choice: 'bad' (the adverse, minority class)",
        citation="Collective Bargaining Review, via Matwin & Ras",
        licence=WEKA,
        papers=(VOVK,),
    ),
    "liver": dict(
        title="Liver Disorders (BUPA)",
        file="uci/bupa.data",
        positive="2",
        negative="1",
        why=(
            "not stated by the paper; our choice: selector = 2, the convention of Weka and of the "
            "Lofstrom liver.csv (the selector field is used as the class, as is customary)"
        ),
        citation="BUPA Medical Research Ltd.",
        licence=UCI,
        papers=(VOVK,),
    ),
    "vote": dict(
        title="Congressional Voting Records (1984)",
        file="weka/vote.arff",
        positive="republican",
        negative="democrat",
        why="not stated by the paper; our choice: 'republican' (second declared value, minority)",
        citation="Schlimmer (1987)",
        licence=WEKA,
        papers=(VOVK,),
    ),
    "adult": dict(
        title="Adult (census income > 50K)",
        file="uci/adult.data + uci/adult.test",
        positive=">50K",
        negative="<=50K",
        why="stated by the paper (predict income over $50K)",
        citation="Kohavi & Becker (1996)",
        licence=UCI,
        papers=(NAEINI,),
    ),
    "spect": dict(
        title="SPECT Heart",
        file="uci/SPECT.train + uci/SPECT.test",
        positive="1",
        negative="0",
        why="stated by the paper: 1 = abnormal (OVERALL_DIAGNOSIS)",
        citation="Kurgan & Cios (2001)",
        licence=UCI,
        papers=(NAEINI,),
    ),
}

# Lofstrom et al. preprocessed sets: stem -> (title, meaning of Y = 1 as inferred in SOURCES.md)
CE_SETS = {
    "colic": ("Horse colic", "surgical lesion (inferred)"),
    "creditA": ("Credit approval (Australian)", "'+' approved"),
    "diabetes": ("Pima Indians diabetes", "tested_positive"),
    "german": ("German credit", "good credit"),
    "haberman": ("Haberman survival", "died within 5 years"),
    "heartC": ("Heart disease, Cleveland", "disease"),
    "heartH": ("Heart disease, Hungarian", "disease"),
    "heartS": ("Statlog heart", "disease"),
    "hepati": ("Hepatitis", "DIE"),
    "iono": ("Ionosphere", "g"),
    "je4042": ("JEdit 4.0-4.2 defects", "defect"),
    "je4243": ("JEdit 4.2-4.3 defects", "defect"),
    "kc1": ("NASA KC1 defects", "defect"),
    "kc2": ("NASA KC2 defects", "defect"),
    "kc3": ("NASA KC3 defects", "defect"),
    "liver": ("Liver disorders (BUPA)", "selector = 2"),
    "pc1req": ("NASA PC1 requirements defects", "defect"),
    "pc4": ("NASA PC4 defects", "defect"),
    "sonar": ("Sonar, mines vs rocks", "mine"),
    "spect": ("SPECT heart", "abnormal"),
    "spectf": ("SPECTF heart", "abnormal"),
    "transfusion": ("Blood transfusion service", "donated"),
    "ttt": ("Tic-tac-toe endgame", "x wins"),
    "vote": ("Congressional voting records", "unexplained (517 rows; UCI has 435)"),
    "wbc": ("Breast cancer Wisconsin (original)", "malignant"),
}

CE_PREFIX = "lofstrom_ce/"

for _stem, (_title, _meaning) in CE_SETS.items():
    INFO[CE_PREFIX + _stem] = dict(
        title=_title + " (preprocessed by Lofstrom et al.)",
        file=f"lofstrom_ce/{_stem}.csv",
        positive="1",
        negative="0",
        why=f"Y = 1 as given in the file; it means: {_meaning}",
        citation="Lofstrom et al., calibrated_explanations (data from UCI / PROMISE)",
        licence=CE,
        papers=(JOHANSSON,),
    )
del _stem, _title, _meaning


def collection_of(name):
    if name.startswith(CE_PREFIX):
        return "lofstrom_ce"
    return "naeini" if name in ("adult", "spect") else "vovk_petej"
