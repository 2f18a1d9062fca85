"""Fake churn2 ("Churn Modelling") for yandex-research/tab-ddpm's scripts/pipeline.py.

pipeline.py --config exp/churn2/ddpm_cb_best/config.toml reads real_data_path = "data/churn2/" (relative to the
repository root, the run folder): X_num_{split}.npy (7 numerical columns, float), X_cat_{split}.npy (4 categorical
columns, strings, object dtype), y_{split}.npy (int64 0/1) for split in train/val/test, and info.json, in the
layout of the paper's data.tar (downloaded from Dropbox in the README). The real set's sizes are kept: 6400 / 1600 /
2000 rows. Seeded, generated: bank-customer-like columns (credit score, age, tenure, balance with ~36% zeros,
number of products, estimated salary, a points score), categories Geography (3 values), Gender (2), HasCrCard (2),
IsActiveMember (2), and a ~20% positive target that depends on age, balance and activity.
"""
import json
import sys
from pathlib import Path

import numpy as np

SIZES = {"train": 6400, "val": 1600, "test": 2000}

INFO = {"name": "Churn Modelling", "id": "churn--default", "task_type": "binclass", "n_num_features": 7,
        "n_cat_features": 4, "train_size": 6400, "val_size": 1600, "test_size": 2000}


def rows(n: int, rng: np.random.Generator):
    credit = np.clip(rng.normal(650, 97, n), 350, 850).round()
    age = np.clip(rng.gamma(9.0, 4.3, n), 18, 92).round()
    tenure = rng.integers(0, 11, n).astype(float)
    balance = np.where(rng.random(n) < 0.36, 0.0, np.clip(rng.normal(120000, 30000, n), 0, 250000)).round(2)
    products = rng.choice([1, 2, 3, 4], n, p=[0.5, 0.46, 0.03, 0.01]).astype(float)
    salary = rng.uniform(11, 200000, n).round(2)
    points = rng.integers(119, 1000, n).astype(float)
    x_num = np.stack([credit, age, tenure, balance, products, salary, points], axis=1)
    geo = rng.choice(["France", "Spain", "Germany"], n, p=[0.5, 0.25, 0.25])
    gender = rng.choice(["Male", "Female"], n, p=[0.55, 0.45])
    card = rng.choice(["0", "1"], n, p=[0.3, 0.7])
    active = rng.choice(["0", "1"], n, p=[0.48, 0.52])
    x_cat = np.stack([geo, gender, card, active], axis=1).astype(object)
    logit = -1.6 + 0.06 * (age - 39) + 0.4 * (balance > 0) - 0.9 * (active == "1") + 0.5 * (geo == "Germany")
    y = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64)
    return x_num, x_cat, y


if __name__ == "__main__":
    root = Path(sys.argv[1]) / "data" / "churn2"
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for split, n in SIZES.items():
        x_num, x_cat, y = rows(n, rng)
        np.save(root / f"X_num_{split}.npy", x_num)
        np.save(root / f"X_cat_{split}.npy", x_cat, allow_pickle=True)
        np.save(root / f"y_{split}.npy", y)
    (root / "info.json").write_text(json.dumps(INFO, indent=4))
