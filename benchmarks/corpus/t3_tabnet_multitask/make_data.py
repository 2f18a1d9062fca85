"""A census-income (UCI Adult) stand-in for dreamquark-ai/tabnet's multi_task_example.ipynb.

The notebook reads RUN/data/census-income.csv with pd.read_csv and no header argument: like the real
adult.data, the file has NO header row, so its first data row becomes the column names and the target column is
' <=50K'. We write 32561 lines (the first one is adult.data's first row, which the notebook needs as its column
names, then 32560 generated rows) with adult.data's layout: 15 comma+space separated fields (age, workclass,
fnlwgt, education, education-num, marital-status, occupation, relationship, race, sex, capital-gain,
capital-loss, hours-per-week, native-country, label), the same category sets and about the same numbers of
distinct values, so the notebook's rule (object column or < 200 distinct values -> categorical) treats every
feature but fnlwgt as categorical, as with the real file (13 categorical features + fnlwgt). The label
(' <=50K' / ' >50K', ~78/22%) depends on a few fields through a seeded logistic draw, so the model has
something to learn.
"""
import sys
from pathlib import Path

import numpy as np

WORKCLASS = ["Private", "Self-emp-not-inc", "Self-emp-inc", "Federal-gov", "Local-gov", "State-gov", "Without-pay",
             "Never-worked", "?"]
EDUCATION = ["Bachelors", "Some-college", "11th", "HS-grad", "Prof-school", "Assoc-acdm", "Assoc-voc", "9th",
             "7th-8th", "12th", "Masters", "1st-4th", "10th", "Doctorate", "5th-6th", "Preschool"]
MARITAL = ["Married-civ-spouse", "Divorced", "Never-married", "Separated", "Widowed", "Married-spouse-absent",
           "Married-AF-spouse"]
OCCUPATION = ["Tech-support", "Craft-repair", "Other-service", "Sales", "Exec-managerial", "Prof-specialty",
              "Handlers-cleaners", "Machine-op-inspct", "Adm-clerical", "Farming-fishing", "Transport-moving",
              "Priv-house-serv", "Protective-serv", "Armed-Forces", "?"]
RELATIONSHIP = ["Wife", "Own-child", "Husband", "Not-in-family", "Other-relative", "Unmarried"]
RACE = ["White", "Asian-Pac-Islander", "Amer-Indian-Eskimo", "Other", "Black"]
SEX = ["Female", "Male"]
COUNTRY = ["United-States", "Cambodia", "England", "Puerto-Rico", "Canada", "Germany", "Outlying-US(Guam-USVI-etc)",
           "India", "Japan", "Greece", "South", "China", "Cuba", "Iran", "Honduras", "Philippines", "Italy", "Poland",
           "Jamaica", "Vietnam", "Mexico", "Portugal", "Ireland", "France", "Dominican-Republic", "Laos", "Ecuador",
           "Taiwan", "Haiti", "Columbia", "Hungary", "Guatemala", "Nicaragua", "Scotland", "Thailand", "Yugoslavia",
           "El-Salvador", "Trinadad&Tobago", "Peru", "Hong", "Holand-Netherlands", "?"]
FIRST_ROW = ("39, State-gov, 77516, Bachelors, 13, Never-married, Adm-clerical, Not-in-family, White, Male, 2174, 0, "
             "40, United-States, <=50K")


def skewed(rng: np.random.Generator, k: int, n: int) -> np.ndarray:
    """n indices into k categories with decreasing (Zipf-like) frequencies."""
    p = 1.0 / np.arange(1, k + 1) ** 1.2
    return rng.choice(k, size=n, p=p / p.sum())


def census_rows(n: int, rng: np.random.Generator) -> list[str]:
    age = np.clip(rng.normal(38.5, 13.6, n).round(), 17, 89).astype(int)           # ~73 distinct
    workclass = skewed(rng, len(WORKCLASS), n)
    fnlwgt = np.clip(rng.lognormal(12.0, 0.5, n).round(), 12285, 1484705).astype(int)  # ~tens of thousands distinct
    edu = skewed(rng, len(EDUCATION), n)
    edu_num = (edu * 7 + rng.integers(0, 3, n)) % 16 + 1                              # 16 distinct
    marital = skewed(rng, len(MARITAL), n)
    occupation = rng.integers(0, len(OCCUPATION), n)
    relationship = skewed(rng, len(RELATIONSHIP), n)
    race = skewed(rng, len(RACE), n)
    sex = (rng.random(n) < 0.67).astype(int)
    gain_values = np.unique(np.round(rng.lognormal(8.3, 1.0, 118)).astype(int))      # ~118 distinct + 0
    gain = np.where(rng.random(n) < 0.92, 0, rng.choice(gain_values, n))
    loss_values = np.unique(np.round(rng.normal(1870, 380, 91)).astype(int))         # ~91 distinct + 0
    loss = np.where(rng.random(n) < 0.953, 0, rng.choice(loss_values, n))
    hours = np.clip(rng.normal(40.4, 12.3, n).round(), 1, 99).astype(int)          # ~94 distinct
    country = skewed(rng, len(COUNTRY), n)
    logit = (-1.9 + 0.04 * (age - 38) + 0.3 * (edu_num - 10) + 1.4 * (marital == 0) + 0.5 * sex
             + 0.03 * (hours - 40) + 2.0 * (gain > 5000) - 0.4 * (occupation == 2))
    rich = rng.random(n) < 1 / (1 + np.exp(-logit))
    rows = []
    for i in range(n):
        rows.append(", ".join([str(age[i]), WORKCLASS[workclass[i]], str(fnlwgt[i]), EDUCATION[edu[i]], str(edu_num[i]),
                               MARITAL[marital[i]], OCCUPATION[occupation[i]], RELATIONSHIP[relationship[i]],
                               RACE[race[i]], SEX[sex[i]], str(gain[i]), str(loss[i]), str(hours[i]),
                               COUNTRY[country[i]], ">50K" if rich[i] else "<=50K"]))
    return rows


if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "data"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    rows = [FIRST_ROW] + census_rows(32560, rng)
    (folder / "census-income.csv").write_text("\n".join(rows) + "\n")
