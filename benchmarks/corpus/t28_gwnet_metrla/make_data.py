"""METR-LA stand-in for nnzhan/Graph-WaveNet's train.py (numpy only, seeded).

train.py reads (relative to the repository root, its defaults):
* data/METR-LA/{train,val,test}.npz: the output of the repository's generate_training_data.py over DCRNN's
  metr-la.h5 (207 loop detectors on Los Angeles highways, speed in mph every 5 minutes, 0 = missing reading):
  arrays x and y of shape (samples, 12, 207, 2), float64, feature 0 the speed and feature 1 the time of day as a
  fraction of a day; x holds the 12 readings up to t (x_offsets -11..0), y the 12 after it (y_offsets 1..12);
  samples are every t of the series, split 70/10/20 in time order (round(0.7 S) / rest / round(0.2 S)),
  written with np.savez_compressed together with x_offsets and y_offsets (shape (12, 1), int64).
  The real series has 34,272 steps (2012-03-01 .. 2012-06-27) -> 23,974 / 3,425 / 6,850 samples; here the same
  layout over a shorter series, N_STEPS 5-minute steps from 2012-03-01 00:00 (see N_STEPS below).
* data/sensor_graph/adj_mx.pkl: DCRNN's pickle (protocol 2) of (sensor_ids: list of 207 str,
  sensor_id_to_ind: dict str -> int, adj_mx: float32 (207, 207)): a thresholded Gaussian kernel of directed
  road distances, exp(-(d / std)^2) with entries under 0.1 set to 0, 1 on the diagonal, not symmetric; the real
  one has 1,722 non-zeros (8.3 a row). Here the sensors lie along a few random 'highways' and distances are
  directed (a random factor each way), giving a similar density.
* ./garage/: the folder the default --save ./garage/metr writes its checkpoints into (not in the repository).

Speeds: each sensor has a free-flow speed of 55-70 mph, morning and evening rush-hour dips of a sensor-specific
depth (deeper on weekdays), an AR(1) fluctuation shared in part with its graph neighbours, clipped to [3, 70];
~8% of readings are 0 (missing), in runs of 1-36 steps, as in the real file.
"""
import os
import pickle
import sys
from pathlib import Path

import numpy as np

SEED = 28
N_NODES = 207
N_STEPS = 572           # 549 samples -> 384 train (6 batches of 64) / 55 val (1 batch) / 110 test (2 batches)
STEPS_PER_DAY = 288


def make_graph(rng):
    ids = [str(v) for v in rng.choice(np.arange(700000, 780000), size=N_NODES, replace=False)]
    # sensors along 6 polyline 'highways' in a 30 x 30 km box
    hw = rng.integers(0, 6, N_NODES)
    starts, dirs = rng.uniform(0, 30, (6, 2)), rng.normal(size=(6, 2))
    dirs /= np.linalg.norm(dirs, axis=1, keepdims=True)
    along = rng.uniform(0, 25, N_NODES)
    pos = starts[hw] + dirs[hw] * along[:, None] + rng.normal(0, 0.3, (N_NODES, 2))
    d = np.linalg.norm(pos[:, None] - pos[None], axis=-1)
    d = d * rng.uniform(1.0, 1.8, d.shape)            # road distance >= straight line, different each way
    d[hw[:, None] != hw[None]] *= 2.5                 # changing highway is a detour
    np.fill_diagonal(d, 0.0)
    std = d[np.isfinite(d)].std()
    adj = np.exp(-np.square(d / (0.065 * std)))
    adj[adj < 0.1] = 0.0
    return ids, {s: i for i, s in enumerate(ids)}, adj.astype(np.float32)


def make_speeds(rng, adj):
    t = np.arange(N_STEPS)
    hour = (t % STEPS_PER_DAY) / 12.0
    weekday = ((t // STEPS_PER_DAY + 3) % 7) < 5     # 2012-03-01 was a Thursday
    free = rng.uniform(55, 70, N_NODES)
    am, pm = rng.uniform(0, 35, N_NODES), rng.uniform(0, 40, N_NODES)
    dip = (am[None] * np.exp(-np.square((hour[:, None] - 8.0) / 1.2))
           + pm[None] * np.exp(-np.square((hour[:, None] - 17.5) / 1.6)))
    dip *= np.where(weekday, 1.0, 0.35)[:, None]
    noise = np.zeros((N_STEPS, N_NODES))
    e = rng.normal(0, 2.0, (N_STEPS, N_NODES))
    w = adj / adj.sum(1, keepdims=True)
    for k in range(1, N_STEPS):
        noise[k] = 0.9 * noise[k - 1] + e[k]
    noise = 0.5 * noise + 0.5 * noise @ w.T
    speed = np.clip(free[None] - dip + noise, 3.0, 70.0)
    # missing readings: runs of zeros, ~8% in all
    missing = np.zeros_like(speed, dtype=bool)
    n_runs = int(0.08 * speed.size / 12)
    for node, start, length in zip(rng.integers(0, N_NODES, n_runs), rng.integers(0, N_STEPS, n_runs),
                                   rng.integers(1, 24, n_runs)):
        missing[start:start + length, node] = True
    speed[missing] = 0.0
    return speed.astype(np.float64)


def seq2seq(speed):
    """generate_graph_seq2seq_io_data(df, x_offsets=-11..0, y_offsets=1..12, add_time_in_day=True)."""
    num_samples, num_nodes = speed.shape
    tod = (np.arange(num_samples) % STEPS_PER_DAY) / STEPS_PER_DAY
    data = np.stack([speed, np.tile(tod[:, None], (1, num_nodes))], axis=-1)
    x_offsets, y_offsets = np.arange(-11, 1), np.arange(1, 13)
    ts = np.arange(abs(x_offsets.min()), num_samples - abs(y_offsets.max()))
    x = data[ts[:, None] + x_offsets[None]]
    y = data[ts[:, None] + y_offsets[None]]
    return x, y, x_offsets, y_offsets


def main(run):
    rng = np.random.default_rng(SEED)
    ids, id_to_ind, adj = make_graph(rng)
    (run / "data" / "sensor_graph").mkdir(parents=True, exist_ok=True)
    with open(run / "data" / "sensor_graph" / "adj_mx.pkl", "wb") as f:
        pickle.dump([ids, id_to_ind, adj], f, protocol=2)
    x, y, x_offsets, y_offsets = seq2seq(make_speeds(rng, adj))
    n = x.shape[0]
    n_test, n_train = round(n * 0.2), round(n * 0.7)
    n_val = n - n_test - n_train
    out = run / "data" / "METR-LA"
    out.mkdir(parents=True, exist_ok=True)
    parts = {"train": slice(0, n_train), "val": slice(n_train, n_train + n_val), "test": slice(n - n_test, n)}
    for cat, sl in parts.items():
        np.savez_compressed(out / f"{cat}.npz", x=x[sl], y=y[sl], x_offsets=x_offsets.reshape(-1, 1),
                            y_offsets=y_offsets.reshape(-1, 1))
        print(cat, "x:", x[sl].shape, "y:", y[sl].shape)
    (run / "garage").mkdir(exist_ok=True)
    print(f"adj_mx: {int((adj > 0).sum())} non-zeros ({(adj > 0).sum() / N_NODES:.1f} a row), "
          f"zero speeds {np.mean(x[..., 0] == 0):.1%}")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
