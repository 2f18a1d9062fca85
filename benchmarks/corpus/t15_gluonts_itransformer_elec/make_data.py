"""Fake `electricity_nips` for gluonts' examples/iTransformer.ipynb.

The notebook calls get_dataset("electricity_nips", regenerate=False); the recipe's edit on that line adds
path=Path("datasets"), so gluonts reads RUN/datasets/electricity_nips (metadata.json, train/, test/) instead of
downloading into ~/.gluonts. Written with gluonts' own TrainDatasets.save (JSON lines), in the layout of the real
set but 128 hourly series instead of 370 (feat_static_cat = series index, cardinality 128, prediction_length 24;
the iTransformer attends over the series, so 370 made one step ~20x a quiet budget); test = 7 rolling
evaluation dates x 128 series, each 24 h longer than the last (the notebook's MultivariateGrouper groups them into
7 multivariate entries). Series are 1200 hourly points instead of the real ~5800 (daily + weekly seasonality, a
level per series, gamma noise; seeded).
"""
import sys
from pathlib import Path

import numpy as np

from gluonts.dataset.common import MetaData, TrainDatasets
from gluonts.dataset.jsonl import JsonLinesWriter

N_SERIES, TRAIN_LEN, PRED, ROLLING = 128, 1200, 24, 7
START = "2014-03-19 09:00"


def series(rng, length):
    t = np.arange(length)
    level = rng.lognormal(5.0, 1.0, size=(N_SERIES, 1))
    phase = rng.uniform(0, 2 * np.pi, size=(N_SERIES, 1))
    daily = 1 + 0.4 * np.sin(2 * np.pi * t / 24 + phase)
    weekly = 1 + 0.15 * np.sin(2 * np.pi * t / 168 + phase / 2)
    noise = rng.gamma(20.0, 1 / 20.0, size=(N_SERIES, length))
    return np.round(level * daily * weekly * noise, 3).astype(np.float32)


def main(run: Path) -> None:
    rng = np.random.default_rng(0)
    full = series(rng, TRAIN_LEN + PRED * ROLLING)
    train = [{"start": START, "target": full[i, :TRAIN_LEN].tolist(), "feat_static_cat": [i], "item_id": i}
             for i in range(N_SERIES)]
    test = [{"start": START, "target": full[i, :TRAIN_LEN + PRED * (k + 1)].tolist(),
             "feat_static_cat": [i], "item_id": k * N_SERIES + i}
            for k in range(ROLLING) for i in range(N_SERIES)]
    meta = MetaData(freq="H", prediction_length=PRED,
                    feat_static_cat=[{"name": "feat_static_cat_0", "cardinality": str(N_SERIES)}])
    TrainDatasets(metadata=meta, train=train, test=test).save(
        str(run / "datasets" / "electricity_nips"), writer=JsonLinesWriter(), overwrite=True)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
