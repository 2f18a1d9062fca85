"""Stand-in for ourownstory/neural_prophet's tutorial01 data (docs/source/tutorials/tutorial01.ipynb).

- RUN/docs/source/tutorials/tutorial01.csv: the notebook's pd.read_csv(URL of neuralprophet-data's
  kaggle-energy/datasets/tutorial01.csv) is edited to read this local file (same columns `ds`, `y`): a daily
  series of 1461 days (2015-01-01 .. 2018-12-31, the length of the Kaggle "energy consumption, generation, prices
  and weather" daily price series), generated and seeded: a slow trend with two changepoints, a yearly and a weekly
  cycle, and AR(1) noise, y around 40-80 like the published electricity price (EUR/MWh).
"""
import sys
from pathlib import Path

import numpy as np
import pandas as pd

run = Path(sys.argv[1])
out = run / "docs" / "source" / "tutorials"
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(24)
ds = pd.date_range("2015-01-01", "2018-12-31", freq="D")
t = np.arange(len(ds), dtype=float)
trend = 60 + 0.004 * t - 0.012 * np.clip(t - 500, 0, None) + 0.02 * np.clip(t - 1100, 0, None)
yearly = 8 * np.sin(2 * np.pi * t / 365.25) + 3 * np.cos(4 * np.pi * t / 365.25)
weekly = np.where(ds.dayofweek >= 5, -6.0, 1.5)
noise = np.zeros(len(t))
e = rng.normal(0, 2.5, len(t))
for i in range(1, len(t)):
    noise[i] = 0.7 * noise[i - 1] + e[i]
y = np.round(trend + yearly + weekly + noise, 2)
pd.DataFrame({"ds": ds.strftime("%Y-%m-%d"), "y": y}).to_csv(out / "tutorial01.csv", index=False)
print("wrote", out / "tutorial01.csv", len(ds), "rows")
