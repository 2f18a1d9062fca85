"""Census-Income (KDD) stand-in for torch-rechub's examples/ranking/run_census.py (numpy + pandas only).

run_census.py reads ./data/census-income/census_income_{train,val,test}_sample.csv (relative to examples/ranking),
i.e. the output of the repository's data/census-income/preprocess_census.py: 41 comma-separated columns with a header,
in the order below; the 32 categorical feature columns label-encoded (0..k-1, k = the real number of distinct values of
that column in census-income.data + .test), the 7 continuous ones min-max scaled to [0, 1] and rounded to 4
decimals, 'income' 0/1 (>50k; ~6.2% positives in the real data, ~6.7% here) and 'marital status' 0/1 (never married, ~43%). The repository
ships 80/20/20-row samples under these names; here the files have the real data set's sizes: 199,523 training rows
(census-income.data) and the 99,762 rows of census-income.test split 1:1 into validation and test (49,881 each),
as preprocess_census.py does. Values are drawn (seeded) from skewed distributions over each column's real
vocabulary; the labels are a logistic function of a few columns.
"""
import sys
from pathlib import Path

import numpy as np
import pandas as pd

SEED = 27
N_TRAIN, N_VAL, N_TEST = 199_523, 49_881, 49_881
# (column, kind, cardinality for categorical columns); kind: c = categorical, d = continuous, l = label
COLS = [
    ("age", "d", 0), ("class of worker", "c", 9), ("industry code", "c", 52), ("occupation code", "c", 47),
    ("education", "c", 17), ("wage per hour", "d", 0), ("enrolled in edu inst last wk", "c", 3),
    ("marital status", "l", 0), ("major industry code", "c", 24), ("major occupation code", "c", 15),
    ("race", "c", 5), ("hispanic origin", "c", 10), ("sex", "c", 2), ("member of a labor union", "c", 3),
    ("reason for unemployment", "c", 6), ("full or part time employment stat", "c", 8), ("capital gains", "d", 0),
    ("capital losses", "d", 0), ("divdends from stocks", "d", 0), ("tax filer status", "c", 6),
    ("region of previous residence", "c", 6), ("state of previous residence", "c", 51),
    ("detailed household and family stat", "c", 38), ("detailed household summary in household", "c", 8),
    ("migration code-change in msa", "c", 10), ("migration code-change in reg", "c", 9),
    ("migration code-move within reg", "c", 10), ("live in this house 1 year ago", "c", 3),
    ("migration prev res in sunbelt", "c", 4), ("num persons worked for employer", "d", 0),
    ("family members under 18", "c", 5), ("country of birth father", "c", 43), ("country of birth mother", "c", 43),
    ("country of birth self", "c", 43), ("citizenship", "c", 5), ("own business or self employed", "c", 3),
    ("fill inc questionnaire for veterans admin", "c", 3), ("veterans benefits", "c", 3),
    ("weeks worked in year", "d", 0), ("year", "c", 2), ("income", "l", 0),
]


def make(rng: np.random.Generator, n: int) -> pd.DataFrame:
    out = {}
    logit_inc = np.full(n, -2.4)
    logit_mar = np.full(n, -0.3)
    for name, kind, k in COLS:
        if kind == "c":
            # skewed over the vocabulary: a few values dominate, as in the real columns
            p = 1.0 / np.arange(1, k + 1) ** 1.2
            v = rng.choice(k, size=n, p=p / p.sum())
            if name in ("education", "major occupation code", "sex"):
                logit_inc += ((v % 5) - 2) * 0.35
            out[name] = v
        elif kind == "d":
            if name == "age":
                v = rng.beta(2.0, 3.0, n)
                logit_inc += (v - 0.4) * 3
                logit_mar += (0.3 - v) * 6
            elif name in ("weeks worked in year",):
                v = np.where(rng.random(n) < 0.48, 0.0, np.where(rng.random(n) < 0.8, 1.0, rng.random(n)))
                logit_inc += v
            elif name == "num persons worked for employer":
                v = rng.integers(0, 7, n) / 6.0
            else:  # wage, capital gains/losses, dividends: mostly 0, heavy tail
                v = np.where(rng.random(n) < 0.9, 0.0, np.minimum(rng.pareto(3.0, n) * 0.02, 1.0))
            out[name] = np.round(v, 4)
        else:
            out[name] = np.zeros(n, dtype=np.int64)
    out["income"] = (rng.random(n) < 1 / (1 + np.exp(-logit_inc))).astype(np.int64)
    out["marital status"] = (rng.random(n) < 1 / (1 + np.exp(-logit_mar))).astype(np.int64)
    return pd.DataFrame({name: out[name] for name, _, _ in COLS})


def main(run: Path) -> None:
    rng = np.random.default_rng(SEED)
    d = run / "examples" / "ranking" / "data" / "census-income"
    d.mkdir(parents=True, exist_ok=True)
    for split, n in (("train", N_TRAIN), ("val", N_VAL), ("test", N_TEST)):
        df = make(rng, n)
        df.to_csv(d / f"census_income_{split}_sample.csv", index=False)
        print(split, df.shape, "income+ %.3f" % df["income"].mean(), "never married %.3f" % df["marital status"].mean())


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("."))
