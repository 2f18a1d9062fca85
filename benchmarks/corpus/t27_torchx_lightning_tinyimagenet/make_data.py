"""Fake Tiny ImageNet for pytorch/torchx's Lightning example app (torchx/examples/apps/lightning/train.py).

With --data_path naming a folder, the app uses it as is (data.download_data) and TinyImageNetDataModule builds
torchvision ImageFolder datasets from DATA/train, DATA/val and DATA/test. Real Tiny ImageNet (after the repo's
datapreproc app) is 64x64 RGB JPEGs in 200 class folders (wnid names). We write that layout, seeded:
200 classes x 8 images = 1600 JPEGs per split (train, val, test; 4800 in all, ~2-3 KB each), smooth random
pictures. The app's --num_samples caps each split's length (first N in ImageFolder order), so every split holds at
least the N the recipe passes (1600).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

N_CLASSES, PER_CLASS = 200, 8

if __name__ == "__main__":
    root = Path(sys.argv[1]) / "tiny-imagenet"
    rng = np.random.default_rng(0)
    wnids = [f"n{1440000 + 37 * i:08d}" for i in range(N_CLASSES)]
    for split in ("train", "val", "test"):
        for wnid in wnids:
            for j in range(PER_CLASS):
                write_jpeg(root / split / wnid / f"{wnid}_{j}.JPEG", 64, 64, rng)
