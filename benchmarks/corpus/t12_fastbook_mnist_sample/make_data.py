"""Fake MNIST_SAMPLE (fastai's 3-vs-7 subset of MNIST) for huangyingw/fastai_fastbook's exercise/cnn_learner.py.

The script calls untar_data(URLs.MNIST_SAMPLE); with FASTAI_HOME=fastai_home (the recipe's env) fastai's config
(relative to the recipe's cwd, exercise) lives in RUN/exercise/fastai_home and its data folder is
RUN/exercise/fastai_home/data, where fastdownload finds an already extracted
mnist_sample folder and downloads nothing. The layout is the real archive's: train/3, train/7, valid/3, valid/7
(28x28 grayscale PNG files: 2-4 bright Gaussian blobs on a noisy ground, fakedata._blob_digits) and labels.csv
(name,label for the training images). N_TRAIN / N_VALID images per class (the real set has 6131+6265 training and
1010+1028 validation images).
"""
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import _blob_digits  # noqa: E402

N_TRAIN = 1600   # per class: 3200 training images, 50 steps of 64
N_VALID = 256    # per class: 512 validation images, 8 batches of 64


if __name__ == "__main__":
    root = Path(sys.argv[1]) / "exercise" / "fastai_home"
    root.mkdir(parents=True, exist_ok=True)
    (root / "config.ini").write_text("[DEFAULT]\ndata = data\narchive = archive\nstorage = tmp\nmodel = models\n")
    base = root / "data" / "mnist_sample"
    rng = np.random.default_rng(0)
    rows = ["name,label"]
    for split, n in (("train", N_TRAIN), ("valid", N_VALID)):
        for label in ("3", "7"):
            folder = base / split / label
            folder.mkdir(parents=True, exist_ok=True)
            for i, img in enumerate(_blob_digits(n, 28, rng)):
                name = f"{split}/{label}/{10000 + i}.png"
                Image.fromarray(img, mode="L").save(base / name)
                if split == "train":
                    rows.append(f"{name},{label}")
    (base / "labels.csv").write_text("\n".join(rows) + "\n")
