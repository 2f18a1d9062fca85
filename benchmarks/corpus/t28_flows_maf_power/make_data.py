"""UCI household power stand-in for ikostrikov/pytorch-flows' main.py --dataset POWER.

datasets/power.py loads datasets.root + 'power/data.npy' (root = 'data/', relative to the cwd): the MAF repository's
preprocessed array, float64, 8 columns (global active power, global reactive power, voltage, global intensity,
sub-metering 1-3, minute of the day); power.py drops columns 3 and 1, adds noise, splits 81/9/10 and normalises,
so the model sees 6 dimensions. We write RUN/data/power/data.npy with the same dtype and 8 columns, values drawn
(seeded) to look like the real ones (skewed positive powers, voltage around 240, mostly-zero sub-meterings, time).
SHRUNK: 250,000 rows instead of 2,049,280 (train 202,500 = 2025 batches of 100 an epoch).
"""
import sys
from pathlib import Path

import numpy as np

N = 250_000

if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "data" / "power"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(28)
    minute = rng.integers(0, 1440, N).astype(np.float64)
    daily = 1.0 + 0.8 * np.sin((minute / 1440.0 - 0.3) * 2 * np.pi)
    active = rng.lognormal(mean=-0.2, sigma=0.8, size=N) * daily
    reactive = np.abs(rng.normal(0.12, 0.1, N))
    voltage = rng.normal(240.8, 3.2, N) - 0.8 * active
    intensity = active * 4.2 + rng.normal(0, 0.2, N)
    sub1 = np.where(rng.random(N) < 0.08, rng.integers(1, 80, N), 0).astype(np.float64)
    sub2 = np.where(rng.random(N) < 0.25, rng.integers(1, 80, N), 0).astype(np.float64)
    sub3 = np.where(rng.random(N) < 0.55, rng.integers(1, 31, N), 0).astype(np.float64)
    data = np.stack([active, reactive, voltage, np.abs(intensity), sub1, sub2, sub3, minute], axis=1)
    np.save(folder / "data.npy", data)
