"""Rock-Paper-Scissors stand-in for dvgodoy/PyTorchStepByStep's Chapter06.ipynb.

The notebook calls download_rps() (data_generation/rps.py), which downloads nothing when the folders `rps` and
`rps-test-set` already exist next to the notebook (os.mkdir raises EEXIST and it prints "folder already exists!").
It then reads both with torchvision's ImageFolder: one sub-folder per class (paper, rock, scissors), 300x300 RGB PNG
files (the real set: 840 per class for training = 2520, 124 per class for testing = 372), resized to 28x28 on the fly.
This writes the same layout and format with fewer images (N_TRAIN / N_TEST per class): a smooth coloured blob
("hand") on a near-white ground with mild noise, like the real computer-rendered hands; the labels are the folders.
"""
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import smooth_image  # noqa: E402

N_TRAIN, N_TEST, SIZE = 140, 20, 300
CLASSES = ["paper", "rock", "scissors"]
# plots/chapter6.py's figure1() (cell 8) opens these three real file names
FIRST = {"paper": "paper02-089.png", "rock": "rock06ck02-100.png", "scissors": "testscissors02-006.png"}


def picture(rng: np.random.Generator) -> np.ndarray:
    img = smooth_image(SIZE, SIZE, rng).astype(np.float32)
    yy, xx = np.mgrid[0:SIZE, 0:SIZE]
    cy, cx = rng.uniform(80, 220, 2)
    ry, rx = rng.uniform(50, 110, 2)
    mask = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1.0
    ground = 245 + rng.normal(0, 3, (SIZE, SIZE, 3))
    out = np.where(mask[..., None], img, ground)
    return np.clip(out, 0, 255).astype(np.uint8)


def write(folder: Path, n_per_class: int, rng: np.random.Generator, prefix: str) -> None:
    for cls in CLASSES:
        (folder / cls).mkdir(parents=True, exist_ok=True)
        for i in range(n_per_class):
            name = FIRST[cls] if i == 0 and not prefix else f"{prefix}{cls}01-{i:03d}.png"
            Image.fromarray(picture(rng)).save(folder / cls / name)


if __name__ == "__main__":
    run = Path(sys.argv[1])
    rng = np.random.default_rng(27)
    write(run / "rps", N_TRAIN, rng, "")
    write(run / "rps-test-set", N_TEST, rng, "test")
