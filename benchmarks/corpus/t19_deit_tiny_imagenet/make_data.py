"""Fake ImageNet folder for facebookresearch/deit's main.py (--data-set IMNET, the default).

main.py's build_dataset reads torchvision ImageFolders at DATA/train and DATA/val (and sets nb_classes = 1000
whatever the folders hold). We write RUN/imagenet/{train,val}/nXXXXXXXX/*.JPEG: N_CLASSES synset-like class
folders, N_TRAIN training and N_VAL validation JPEGs (seeded smooth colour fields with fine noise, quality 90) of
ImageNet-like sizes (short side 333-375, long side 400-500, landscape or portrait), so that decoding, the
RandomResizedCrop + RandAugment + RandomErasing pipeline and the val Resize(256)/CenterCrop(224) do real work.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

N_CLASSES = 10
N_TRAIN = 1024   # 4 steps of the published --batch-size 256 (drop_last=True)
N_VAL = 192      # one val batch of int(1.5 * 256) = 384


def _split(root: Path, n: int, rng: np.random.Generator) -> None:
    for i in range(n):
        c = i % N_CLASSES
        short, long = int(rng.integers(333, 376)), int(rng.integers(400, 501))
        h, w = (short, long) if rng.random() < 0.75 else (long, short)
        write_jpeg(root / f"n{1440000 + c:08d}" / f"img_{i:05d}.JPEG", h, w, rng)


if __name__ == "__main__":
    data = Path(sys.argv[1]) / "imagenet"
    _split(data / "train", N_TRAIN, np.random.default_rng(0))
    _split(data / "val", N_VAL, np.random.default_rng(1))
