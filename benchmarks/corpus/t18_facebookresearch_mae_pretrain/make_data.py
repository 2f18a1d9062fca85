"""Fake ImageNet train folder for facebookresearch/mae's main_pretrain.py.

The script reads datasets.ImageFolder(os.path.join(--data_path, 'train')) and ignores the labels (self-supervised
MAE pre-training). We write RUN/imagenet/train/<class>/*.JPEG: N_IMAGES generated photo-like JPEGs (seeded, quality
90) in N_CLASSES class folders, each of a random size of 200-400 px a side (ImageNet's train images average about
400x350; these are a little smaller to keep the file writes quick). The recipe passes --data_path imagenet.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

N_IMAGES = 128
N_CLASSES = 4

if __name__ == "__main__":
    root = Path(sys.argv[1]) / "imagenet" / "train"
    rng = np.random.default_rng(0)
    for i in range(N_IMAGES):
        h, w = (int(v) for v in rng.integers(200, 401, size=2))
        write_jpeg(root / f"n{i % N_CLASSES:08d}" / f"img_{i:05d}.JPEG", h, w, rng)
