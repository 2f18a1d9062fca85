"""Generated training data and a stand-in Hub config for chronos-forecasting's scripts/training/train.py.

* RUN/scripts/training/data/tsmixup-data.arrow and kernelsynth-data.arrow: GluonTS arrow files (ArrowWriter, lz4,
  as the repository's scripts/README.md writes them), 300 and 100 series of 600-2000 hourly points each: a random
  mix of daily/weekly sines, a trend, a random walk and noise (seeded). The config's own paths
  (/home/ubuntu/...) are replaced on the command line.
* RUN/scripts/training/hf_home/hub/models--google--t5-efficient-tiny: only config.json, the published config of
  google/t5-efficient-tiny (4+4 layers, d_model 256, d_ff 1024, 4 heads). The config sets random_init: true, so the
  script calls AutoConfig.from_pretrained and never loads weights; HF_HUB_OFFLINE=1 makes it read this cache.
"""
import json
import sys
from pathlib import Path

import numpy as np
from gluonts.dataset.arrow import ArrowWriter


def series(n: int, rng: np.random.Generator) -> list[np.ndarray]:
    out = []
    for _ in range(n):
        length = int(rng.integers(600, 2001))
        t = np.arange(length, dtype=np.float64)
        y = rng.normal(0, 1) * np.sin(2 * np.pi * t / 24 + rng.uniform(0, 6.3))
        y += rng.normal(0, 0.5) * np.sin(2 * np.pi * t / 168 + rng.uniform(0, 6.3))
        y += rng.normal(0, 0.002) * t + np.cumsum(rng.normal(0, 0.05, length)) + rng.normal(0, 0.2, length)
        out.append((10 * rng.uniform(0.1, 5) + y * rng.uniform(0.5, 20)).astype(np.float32))
    return out


def main(run: Path) -> None:
    rng = np.random.default_rng(0)
    data = run / "scripts" / "training" / "data"
    data.mkdir(parents=True, exist_ok=True)
    start = np.datetime64("2000-01-01 00:00", "s")
    for name, n in (("tsmixup-data.arrow", 300), ("kernelsynth-data.arrow", 100)):
        ArrowWriter(compression="lz4").write_to_file([{"start": start, "target": ts} for ts in series(n, rng)],
                                                     path=data / name)
    repo = run / "scripts" / "training" / "hf_home" / "hub" / "models--google--t5-efficient-tiny"
    snap = repo / "snapshots" / "3441d7e8bf3f89841f366d39452b95200416e4a9"
    snap.mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(exist_ok=True)
    (repo / "refs" / "main").write_text(snap.name)
    config = {
        "architectures": ["T5ForConditionalGeneration"], "d_ff": 1024, "d_kv": 64, "d_model": 256,
        "decoder_start_token_id": 0, "dropout_rate": 0.1, "eos_token_id": 1, "feed_forward_proj": "relu",
        "initializer_factor": 1.0, "is_encoder_decoder": True, "layer_norm_epsilon": 1e-06, "model_type": "t5",
        "num_decoder_layers": 4, "num_heads": 4, "num_layers": 4, "pad_token_id": 0,
        "relative_attention_num_buckets": 32, "torch_dtype": "float32", "transformers_version": "4.17.0.dev0",
        "use_cache": True, "vocab_size": 32128,
    }
    (snap / "config.json").write_text(json.dumps(config, indent=2))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
