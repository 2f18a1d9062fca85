"""Fake pizza_steak_sushi JPEG folders for mrdbourke/pytorch-deep-learning's going_modular/going_modular/train.py.

train.py reads ImageFolder("data/pizza_steak_sushi/train") and ("data/pizza_steak_sushi/test") relative to the
folder it runs in. The course's download (a 10% Food-101 subset) has 75 train / 25 test images per class, JPEGs whose
longer side is 512 px; here 4x as many (300 / 100 per class: 900 train, 300 test) so that the 5 epochs of the
script last long enough to time (29 training steps of 32 an epoch instead of 8), with the same kind of images:
photo-like smooth colour fields + noise, longer side 512, the other side 288-512, JPEG quality 90.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

CLASSES = ("pizza", "steak", "sushi")

if __name__ == "__main__":
    root = Path(sys.argv[1]) / "data" / "pizza_steak_sushi"
    rng = np.random.default_rng(0)
    for split, per_class in (("train", 300), ("test", 100)):
        for cls in CLASSES:
            for i in range(per_class):
                short = int(rng.integers(288, 513))
                h, w = (512, short) if rng.random() < 0.4 else (short, 512)
                write_jpeg(root / split / cls / f"{i:05d}.jpg", h, w, rng)
