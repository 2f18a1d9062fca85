"""Stand-in for darts' EnergyDataset (examples/07-NBEATS-examples.ipynb, code cell 7).

- RUN/examples/energy.csv: the notebook's `EnergyDataset().load()` (a download from darts' GitHub data folder,
  checked against an MD5 hash, so a generated file cannot pass through it) is edited to read this local file.
  Same layout as darts' energy.csv (the Kaggle "energy consumption, generation, prices and weather" Spain set):
  a `time` column ("%Y-%m-%d %H:%M:%S", hourly) and the same 28 numeric columns, two of them all-empty as in the
  original. SHRUNK to fit a 1-4 minute run: 2017-03-15 00:00 .. 2017-11-15 23:00 (5,904 rows, 246 days) instead of
  the real 2014-12-31 23:00 .. 2018-12-31 22:00 (35,064 rows, 1,462 days); the notebook's split at 2017-09-01 then
  leaves 171 training days (135 windows of 30+7 = one batch of 135 per epoch, where the real data gives 940 windows =
  batches of 800 + 140) and 75 validation days (39 windows instead of ~450). Values are generated and seeded: for
  each column a level, a yearly cycle, a daily cycle and AR(1) noise, on the scale of the real column (MW or
  EUR/MWh); the column the notebook uses, "generation hydro run-of-river and poundage", ~600-1600 MW with a
  spring peak, has 19 missing hours scattered through it (the notebook fills gaps with MissingValuesFiller).
"""
import sys
from pathlib import Path

import numpy as np
import pandas as pd

COLUMNS = {  # name: (level, yearly amplitude, daily amplitude, noise sd); None = all missing, as in the real file
    "generation biomass": (380, 40, 5, 20),
    "generation fossil brown coal/lignite": (450, 150, 40, 80),
    "generation fossil coal-derived gas": (0, 0, 0, 0),
    "generation fossil gas": (5600, 800, 900, 400),
    "generation fossil hard coal": (4250, 900, 500, 400),
    "generation fossil oil": (300, 20, 30, 15),
    "generation fossil oil shale": (0, 0, 0, 0),
    "generation fossil peat": (0, 0, 0, 0),
    "generation geothermal": (0, 0, 0, 0),
    "generation hydro pumped storage aggregated": None,
    "generation hydro pumped storage consumption": (480, 150, 400, 200),
    "generation hydro run-of-river and poundage": (970, 300, 60, 60),
    "generation hydro water reservoir": (2600, 900, 1000, 300),
    "generation marine": (0, 0, 0, 0),
    "generation nuclear": (6260, 300, 0, 150),
    "generation other": (60, 10, 5, 5),
    "generation other renewable": (85, 8, 3, 4),
    "generation solar": (1430, 500, 1400, 150),
    "generation waste": (270, 20, 10, 10),
    "generation wind offshore": (0, 0, 0, 0),
    "generation wind onshore": (5460, 1200, 600, 1500),
    "forecast solar day ahead": (1440, 500, 1400, 150),
    "forecast wind offshore eday ahead": None,
    "forecast wind onshore day ahead": (5470, 1200, 600, 1500),
    "total load forecast": (28700, 2000, 4000, 600),
    "total load actual": (28700, 2000, 4000, 700),
    "price day ahead": (49.9, 8, 6, 4),
    "price actual": (57.9, 8, 6, 4),
}

run = Path(sys.argv[1])
out = run / "examples"
out.mkdir(parents=True, exist_ok=True)
rng = np.random.default_rng(25)
time = pd.date_range("2014-12-31 23:00:00", "2018-12-31 22:00:00", freq="h")  # the real span; cut below
n = len(time)
doy = time.day_of_year.to_numpy() / 365.25
hod = time.hour.to_numpy() / 24.0
data = {"time": time.strftime("%Y-%m-%d %H:%M:%S")}
for k, (name, spec) in enumerate(COLUMNS.items()):
    if spec is None:
        data[name] = np.full(n, np.nan)
        continue
    level, yearly, daily, sd = spec
    phase = rng.uniform(0, 2 * np.pi)
    e = rng.normal(0, sd, n)
    ar = np.empty(n)
    ar[0] = e[0]
    for i in range(1, n):  # hourly AR(1), slow
        ar[i] = 0.97 * ar[i - 1] + 0.25 * e[i]
    y = level + yearly * np.sin(2 * np.pi * doy + phase) + daily * np.sin(2 * np.pi * (hod - 0.3)) + ar
    if name == "generation hydro run-of-river and poundage":  # spring snow-melt peak, year-to-year level change
        y = level + 350 * np.exp(-((doy - 0.35) ** 2) / 0.01) + yearly * np.sin(2 * np.pi * doy + 1.0) \
            + 120 * np.sin(2 * np.pi * np.arange(n) / (24 * 365.25 * 2.7)) + daily * np.sin(2 * np.pi * hod) + ar
    y = np.round(np.clip(y, 0, None), 1 if level > 100 else 2)
    if name.startswith("generation") and level > 0:
        y[rng.choice(n, 19, replace=False)] = np.nan
    data[name] = y
frame = pd.DataFrame(data)
frame = frame[(time >= "2017-03-15 00:00:00") & (time <= "2017-11-15 23:00:00")]  # the shrink (see above)
frame.to_csv(out / "energy.csv", index=False)
print("wrote", out / "energy.csv", len(frame), "rows x", len(COLUMNS), "columns")
