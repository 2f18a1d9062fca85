"""Fake MNIST-as-PNG-files for wuhonglei/dh_ai's week7 handwritten-digit train.py.

The script reads torchvision's ImageFolder('./mnist_images/train') from its own folder, laid out as the repository's
download_data.py writes it: mnist_images/train/<digit>/<16 hex chars>.png, one 28x28 8-bit grayscale PNG per image
(here generated, seeded: blob digits with noise, the MNIST-like pictures of fakedata, labels = folder). 4000 training
images (400 per digit) = 63 steps of 64 per epoch (the last one 32), 10 epochs; a small test folder as download_data.py also writes
(unused by train.py).
"""
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import _blob_digits  # noqa: E402

HERE = "week7-误差反向传播算法/手写数字识别"


def write_split(root: Path, per_digit: int, rng: np.random.Generator) -> None:
    for digit in range(10):
        folder = root / str(digit)
        folder.mkdir(parents=True, exist_ok=True)
        for img in _blob_digits(per_digit, 28, rng):
            Image.fromarray(img).save(folder / (rng.bytes(8).hex() + ".png"))


if __name__ == "__main__":
    rng = np.random.default_rng(0)
    images = Path(sys.argv[1]) / HERE / "mnist_images"
    write_split(images / "train", 400, rng)
    write_split(images / "test", 100, rng)
