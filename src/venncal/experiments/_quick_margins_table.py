"""Quick mode's calibrated multipliers: written by ``python -m venncal.experiments.quick_margins``
from 400 random three-draw subsets (seed 12345) of each committed full run; do not edit by hand.

``{study: {check statement with its numbers masked: k}}``.
"""

MARGINS: dict[str, dict[str, float]] = {
    "johansson-2018": {
        "Table #: out-of-bag calibration gives better estimates than a calibration set for every technique (section #): mean |estimate - accuracy| RF-oob # vs RF-cal #, Platt-oob # vs Platt-cal #, Iso-oob # vs Iso-cal #, VP-oob # vs VP-cal #, VAP-oob # vs VAP-cal # (paired over the datasets)": 0.89,
        "Table #: the Venn predictor is the best calibrated (section #): smallest mean |estimate - accuracy| VP-oob #, the best other setup VAP-oob # (paired over # datasets)": 1.44,
        "every out-of-bag setup is more accurate on average than every calibration-set setup (least accurate out-of-bag: RF-oob; most accurate on a calibration set: VP-cal; margin #, paired standard error #: within noise)": 0.94,
    },
    "naeini-2014": {
        "ABB has lower ECE than IsoReg on Circular: # vs # (# +- #) (# standard errors, # draws)": 2.34,
        "ABB has lower ECE than IsoReg on XOR: # vs # (# +- #) (# standard errors, # draws)": 1.78,
        "ABB has lower ECE than Platt on Circular: # vs # (# +- #) (# standard errors, # draws)": 2.08,
        "ABB has lower ECE than Platt on XOR: # vs # (# +- #) (# standard errors, # draws)": 1.65,
        "ABB performs as well as or better than IsoReg and Platt on Adult (section #): AUC and RMSE within # (NB: AUC vs IsoReg # +- #; RMSE vs IsoReg # +- #; AUC vs Platt # +- #; RMSE vs Platt # +- #; SVM: AUC vs IsoReg # +- #; RMSE vs IsoReg # +- #; AUC vs Platt # +- #; RMSE vs Platt # +- #; LR: AUC vs IsoReg # +- #; RMSE vs IsoReg # +- #; AUC vs Platt # +- #; RMSE vs Platt # +- #; # draws)": 1.8,
        "ACP (#) performs well with LR on XOR (section #): it beats IsoReg (AUC # vs # (# +- #); RMSE # vs # (# +- #)) and Platt (AUC # vs # (# +- #); RMSE # vs # (# +- #)); # standard errors, # draws": 1.06,
        "SBB and ABB perform as well as or better than ACP on XOR (section #; the paper's table has ACP ahead of both in AUC and RMSE): AUC and RMSE within #: SBB AUC vs ACP # +- #; RMSE vs ACP # +- #; ABB AUC vs ACP # +- #; RMSE vs ACP # +- #; # draws": 5.85,
        "SBB has lower ECE than Platt on XOR: # vs # (# +- #) (# standard errors, # draws)": 0.14,
        "[design] LR's score does not rank the classes on XOR, a target of the design: AUC # within # of # (paper #; # draws)": 20.71,
        "[design] No calibrator of the score beats the ceiling on Circular: the closest, ABB, has AUC # against # (tolerance # for the binning; # draws)": 5.57,
        "[design] No calibrator of the score beats the ceiling on XOR: the closest, ABB, has AUC # against # (tolerance # for the binning; # draws)": 3.36,
    },
}
