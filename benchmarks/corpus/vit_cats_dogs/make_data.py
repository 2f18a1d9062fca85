"""Kaggle "Dogs vs. Cats" stand-in for vit-pytorch's examples/cats_and_dogs.ipynb.

The notebook unzips ./train.zip and ./test.zip (from its own folder) into ./data and globs
data/train/*.jpg and data/test/*.jpg; a training image's label is the name before the first dot.
We write the two zips: train/cat.N.jpg and train/dog.N.jpg (1000 each) and test/N.jpg (200), random
smooth JPEGs of 250-500 x 250-500 pixels at quality 85 (Kaggle's photos are mostly of that size).
"""
import io
import sys
import zipfile
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import smooth_image  # noqa: E402


def jpeg_bytes(rng: np.random.Generator) -> bytes:
    buf = io.BytesIO()
    Image.fromarray(smooth_image(int(rng.integers(250, 501)), int(rng.integers(250, 501)), rng)).save(
        buf, format="JPEG", quality=85)
    return buf.getvalue()


if __name__ == "__main__":
    run = Path(sys.argv[1])
    run.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    with zipfile.ZipFile(run / "train.zip", "w", zipfile.ZIP_STORED) as z:
        for kind in ("cat", "dog"):
            for i in range(1000):
                z.writestr(f"train/{kind}.{i}.jpg", jpeg_bytes(rng))
    with zipfile.ZipFile(run / "test.zip", "w", zipfile.ZIP_STORED) as z:
        for i in range(1, 201):
            z.writestr(f"test/{i}.jpg", jpeg_bytes(rng))
