"""Fake MNIST + a small model config for crowsonkb/k-diffusion's train.py (Karras diffusion, loop driven by accelerate).

train.py reads the dataset named in its JSON config; the run uses config_tiny_mnist.json (written here at the run
folder's top): the repository's configs/config_mnist.json with only the model's width and depth shrunk
(depths [2,4,4] -> [1,1,1], channels [128,128,256] -> [32,32,64], mapping_out 256 -> 64; 19.6 M -> 0.32 M parameters)
so that a CPU run fits the size. Its dataset entry {"type": "mnist", "location": "data"} makes train.py build
torchvision's MNIST('data', train=True, download=True): RUN/data/MNIST/raw holds the four uncompressed idx files
(10000 training + 1000 test 28x28 blob digits, random labels; fakedata.mnist_idx), which download=True finds.
"""
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

CONFIG = {
    "model": {
        "type": "image_v1",
        "input_channels": 1,
        "input_size": [28, 28],
        "patch_size": 1,
        "mapping_out": 64,
        "depths": [1, 1, 1],
        "channels": [32, 32, 64],
        "self_attn_depths": [False, False, True],
        "has_variance": False,
        "loss_config": "karras",
        "loss_weighting": "soft-min-snr",
        "dropout_rate": 0.05,
        "augment_wrapper": True,
        "augment_prob": 0.12,
        "sigma_data": 0.6162,
        "sigma_min": 1e-2,
        "sigma_max": 80,
        "sigma_sample_density": {"type": "cosine-interpolated"},
    },
    "dataset": {"type": "mnist", "location": "data"},
    "optimizer": {"type": "adamw", "lr": 2e-4, "betas": [0.95, 0.999], "eps": 1e-6, "weight_decay": 1e-3},
    "lr_sched": {"type": "constant", "warmup": 0.0},
    "ema_sched": {"type": "inverse", "power": 0.6667, "max_value": 0.9999},
}

if __name__ == "__main__":
    run = Path(sys.argv[1])
    run.mkdir(parents=True, exist_ok=True)
    (run / "config_tiny_mnist.json").write_text(json.dumps(CONFIG, indent=4) + "\n")
    mnist_idx(run / "data" / "MNIST" / "raw", n_train=10000, n_test=1000)
