"""Fake MNIST PNG folders for explainingai-code/DDPM-Pytorch's tools/train_ddpm.py.

The script's MnistDataset lists RUN/data/train/images/<digit>/*.png (the layout the repository's README asks for)
and reads each PNG with PIL + ToTensor. N_IMAGES generated 28x28 grayscale digits (fakedata's blob+noise MNIST-like
images, seeded, labels 0-9 as folder names) are written there as PNG. It also writes RUN/config/t17.yaml: the
repository's config/default.yaml (read from the run folder) unchanged except num_epochs 1 (instead of 40), passed as --config config/t17.yaml.
"""
import re
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import _blob_digits  # noqa: E402

N_IMAGES = 256   # 4 steps of the published batch 64

# The repository's own config (placed in RUN/config/default.yaml before this runs), with one epoch instead of 40:
# read from the run folder, so that none of their file is kept here.
EPOCHS = re.compile(r"^(\s*num_epochs\s*:\s*)\d+", re.M)

if __name__ == "__main__":
    run = Path(sys.argv[1])
    rng = np.random.default_rng(0)
    images = _blob_digits(N_IMAGES, 28, rng)
    labels = rng.integers(0, 10, N_IMAGES)
    root = run / "data" / "train" / "images"
    for d in range(10):
        (root / str(d)).mkdir(parents=True, exist_ok=True)
    for i, (img, lab) in enumerate(zip(images, labels)):
        Image.fromarray(img, mode="L").save(root / str(lab) / f"{i}.png")
    (run / "config").mkdir(parents=True, exist_ok=True)
    default = (run / "config" / "default.yaml").read_text()
    config, count = EPOCHS.subn(r"\g<1>1", default)
    assert count == 1, "config/default.yaml has no single num_epochs line"
    (run / "config" / "t17.yaml").write_text(config)
