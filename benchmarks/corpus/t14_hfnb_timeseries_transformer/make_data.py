"""Monash tourism_monthly stand-in for huggingface/notebooks' examples/time-series-transformers.ipynb (run with the
corpus-t14-A python: datasets/pyarrow).

- RUN/examples/monash_tsf: the notebook's load_dataset("monash_tsf", "tourism_monthly") runs in the notebook's folder
  (the recipe's cwd), where a local directory named monash_tsf comes before the Hub. Laid out as a Hub dataset
  repository: a README.md whose YAML `configs` names the config tourism_monthly and its data files, and
  tourism_monthly/{train,validation,test}-00000-of-00001.parquet with the columns of the Hub's monash_tsf:
  start (timestamp[s]), target (list of float32), feat_static_cat (list of uint64: the series' index),
  feat_dynamic_real (list of list of float32, null) and item_id (string "T1".."T366").
  366 monthly series (as in tourism_monthly), full lengths 91-333 months (the real set's range), each a positive
  level * trend * yearly seasonality * noise (seeded); as in monash_tsf, test holds the whole series, validation
  drops the last 24 months and train the last 48 (prediction_length 24: the notebook asserts
  len(train) + 24 == len(validation)).
- RUN/hf_home/modules/evaluate_modules/metrics/evaluate-metric--{mase,smape}/<hash>/*.py are the Hub's metrics
  (placed by prepare.py from huggingface/evaluate, see the recipe's extra_files): with HF_HOME=hf_home and
  HF_HUB_OFFLINE=1, evaluate.load("evaluate-metric/mase") falls back to these cached copies. This script only adds
  the package __init__.py files of that module cache.
"""
import sys
from pathlib import Path

import numpy as np

N_SERIES = 366
PRED = 24
README = """---
configs:
- config_name: tourism_monthly
  data_files:
  - split: train
    path: tourism_monthly/train-*
  - split: test
    path: tourism_monthly/test-*
  - split: validation
    path: tourism_monthly/validation-*
---
"""


def write_monash(folder: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder / "tourism_monthly").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(README)
    rng = np.random.default_rng(0)
    starts, fulls = [], []
    for i in range(N_SERIES):
        n = int(rng.integers(91, 334))
        year = int(rng.integers(1979, 2008 - n // 12 + 1))
        starts.append(np.datetime64(f"{year}-{int(rng.integers(1, 13)):02d}-01T00:00:00", "s"))
        t = np.arange(n)
        level = float(rng.lognormal(8.0, 1.2))
        trend = 1.0 + float(rng.normal(0.002, 0.003)) * t
        season = 1.0 + float(rng.uniform(0.1, 0.5)) * np.sin(2 * np.pi * (t + rng.integers(0, 12)) / 12)
        noise = rng.lognormal(0.0, 0.08, n)
        fulls.append(np.maximum(level * trend * season * noise, 1.0).astype(np.float32))
    for split, cut in (("train", 2 * PRED), ("validation", PRED), ("test", 0)):
        targets = [f[: len(f) - cut] for f in fulls]
        table = pa.table({
            "start": pa.array(starts, pa.timestamp("s")),
            "target": pa.array([x.tolist() for x in targets], pa.list_(pa.float32())),
            "feat_static_cat": pa.array([[i] for i in range(N_SERIES)], pa.list_(pa.uint64())),
            "feat_dynamic_real": pa.array([None] * N_SERIES, pa.list_(pa.list_(pa.float32()))),
            "item_id": pa.array([f"T{i + 1}" for i in range(N_SERIES)], pa.string()),
        })
        pq.write_table(table, folder / "tourism_monthly" / f"{split}-00000-of-00001.parquet")


def metric_cache(hf_home: Path) -> None:
    modules = hf_home / "modules"
    for d in (modules, modules / "evaluate_modules", modules / "evaluate_modules" / "metrics"):
        d.mkdir(parents=True, exist_ok=True)
        (d / "__init__.py").touch()
    for name in ("mase", "smape"):
        if not list((modules / "evaluate_modules" / "metrics" / f"evaluate-metric--{name}").glob(f"*/{name}.py")):
            raise SystemExit(f"the {name} metric (recipe extra_files) is missing")


if __name__ == "__main__":
    run = Path(sys.argv[1])
    write_monash(run / "examples" / "monash_tsf")
    metric_cache(run / "hf_home")
