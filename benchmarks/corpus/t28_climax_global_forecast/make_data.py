"""Generated ERA5-like data for microsoft/ClimaX's global forecasting (src/climax/global_forecast/train.py), in the layout that
the repo's src/data_preprocessing/nc2np_equally_era5.py writes from WeatherBench 5.625deg netCDF:

  RUN/5.625deg_npz/{train,val,test}/{YEAR}_{SHARD}.npz   one array per variable, (hours, 1, 32, 64) float32
  RUN/5.625deg_npz/{train,val,test}/climatology.npz      per variable (1, 32, 64): the time mean of that split
  RUN/5.625deg_npz/normalize_mean.npz, normalize_std.npz  per variable (1,): train-split mean / std
  RUN/5.625deg_npz/lat.npy (32,), lon.npy (64,)

The repo's script cuts each 8760-hour year into --num_shards shards (default 8 -> 1095 hours, ~450 MB a shard). Here each
year is cut into 73 shards of 120 hours (as `--num_shards 73` would) and only a few shards are written: train 3 shards of 1979,
val 1 of 2016, test 1 of 2017 (with predict_range 72 each shard gives 120 - 72 = 48 samples: 144 train, 48 val, 48 test).
50 variables as the script stores them (3 constants, 5 surface fields incl. toa_incident_solar_radiation and total_precipitation,
6 pressure-level fields at 7 levels), ~49 MB a shard, ~0.25 GB in all. Values: smooth seeded random fields around realistic
means, slowly varying in time (advected waves), so the forecast target is learnable.

Also writes configs/global_forecast_cpu.yaml: the repo's configs/global_forecast_climax.yaml with the two Trainer keys that
Lightning 2.x removed (`gpus`, `resume_from_checkpoint`) dropped; every other line as in the repo (values we change are
given on the command line in the recipe's args).
"""
import sys
from pathlib import Path

import numpy as np

HOURS_PER_SHARD = 120  # 8760 / 73
LEVELS = [50, 250, 500, 600, 700, 850, 925]
# (mean, spatial amplitude, temporal amplitude) roughly like WeatherBench 5.625deg ERA5
SURFACE = {
    "2m_temperature": (278.0, 20.0, 3.0),
    "10m_u_component_of_wind": (0.0, 5.0, 3.0),
    "10m_v_component_of_wind": (0.0, 4.0, 3.0),
    "toa_incident_solar_radiation": (1.1e6, 9e5, 3e5),
    "total_precipitation": (1e-4, 1e-4, 1e-4),
}
LEVEL_VARS = {
    "geopotential": lambda lev: (9.81 * (16000 - 2300 * np.log(lev / 50 + 1) * 3.2), 1500.0 * lev / 500 + 500, 300.0),
    "u_component_of_wind": lambda lev: (15.0 - lev / 100, 12.0, 5.0),
    "v_component_of_wind": lambda lev: (0.0, 8.0, 5.0),
    "temperature": lambda lev: (210.0 + lev / 12, 12.0, 2.0),
    "relative_humidity": lambda lev: (50.0, 25.0, 10.0),
    "specific_humidity": lambda lev: (1e-3 * lev / 300, 1e-3 * lev / 500, 5e-4),
}


def smooth(rng, h=32, w=64, k=6):
    """A smooth random field: a few low-order Fourier modes."""
    lat = np.linspace(0, np.pi, h)[:, None]
    lon = np.linspace(0, 2 * np.pi, w, endpoint=False)[None, :]
    f = np.zeros((h, w))
    for _ in range(k):
        a, b = rng.integers(1, 4), rng.integers(0, 5)
        f += rng.normal() * np.sin(a * lat + rng.uniform(0, 6.3)) * np.cos(b * lon + rng.uniform(0, 6.3))
    return f / (np.abs(f).max() + 1e-9)


def field(rng, mean, amp, tamp, hours, t0):
    base = smooth(rng)
    wave = smooth(rng)
    t = np.arange(t0, t0 + hours)[:, None, None]
    x = np.empty((hours, 1, 32, 64), dtype=np.float32)
    for i, ti in enumerate(t[:, 0, 0]):
        x[i, 0] = mean + amp * base + tamp * np.roll(wave, int(ti // 12), axis=1) * np.cos(2 * np.pi * ti / 24)
    return x + rng.normal(0, 0.02 * (abs(amp) + 1e-12), x.shape).astype(np.float32)


def main(run: Path) -> None:
    root = run / "5.625deg_npz"
    rng = np.random.default_rng(2023)
    lat = np.linspace(-87.1875, 87.1875, 32)
    lon = np.arange(64) * 5.625
    const = {
        "land_sea_mask": (smooth(rng) > 0.2).astype(np.float32),
        "orography": np.clip(smooth(rng), 0, None).astype(np.float32) * 3000,
        "lattitude": np.repeat(lat[:, None], 64, axis=1).astype(np.float32),
    }
    specs = dict(SURFACE)
    for var, f in LEVEL_VARS.items():
        for lev in LEVELS:
            specs[f"{var}_{lev}"] = f(lev)
    splits = {"train": (1979, 3), "val": (2016, 1), "test": (2017, 1)}
    sums, sqs, count = {}, {}, 0
    for split, (year, n_shards) in splits.items():
        (root / split).mkdir(parents=True, exist_ok=True)
        clim = {}
        for shard in range(n_shards):
            srng = np.random.default_rng([2023, year, shard])
            data = {k: np.repeat(v[None, None], HOURS_PER_SHARD, axis=0) for k, v in const.items()}
            for var, (mean, amp, tamp) in specs.items():
                data[var] = field(srng, mean, amp, tamp, HOURS_PER_SHARD, shard * HOURS_PER_SHARD)
            np.savez(root / split / f"{year}_{shard}.npz", **data)
            for k, v in data.items():
                clim[k] = clim.get(k, 0) + v.mean(axis=0) / n_shards
                if split == "train":
                    sums[k] = sums.get(k, 0) + v.astype(np.float64).sum(axis=(0, 2, 3))
                    sqs[k] = sqs.get(k, 0) + (v.astype(np.float64) ** 2).sum(axis=(0, 2, 3))
            if split == "train":
                count += HOURS_PER_SHARD * 32 * 64
        np.savez(root / split / "climatology.npz", **clim)
    mean = {k: (sums[k] / count).astype(np.float32) for k in sums}
    std = {k: np.sqrt(np.maximum(sqs[k] / count - (sums[k] / count) ** 2, 1e-12)).astype(np.float32) for k in sums}
    np.savez(root / "normalize_mean.npz", **mean)
    np.savez(root / "normalize_std.npz", **std)
    np.save(root / "lat.npy", lat)
    np.save(root / "lon.npy", lon)

    cfg = (run / "configs" / "global_forecast_climax.yaml").read_text().split("\n")
    kept = [line for line in cfg if line.strip() not in ("gpus: null", "resume_from_checkpoint: null")]
    (run / "configs" / "global_forecast_cpu.yaml").write_text("\n".join(kept))
    print(f"wrote {root} and configs/global_forecast_cpu.yaml")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
