"""Fake ImageNet in ImageFolder layout for microsoft/Swin-Transformer's main.py (--data-path imagenet).

RUN/imagenet/train/<class>/*.JPEG and RUN/imagenet/val/<class>/*.JPEG: N_CLASSES classes (n00000000 ...),
N_TRAIN / N_VAL images per class, smooth random JPEGs of 256x320 (seeded), decoded and augmented by the script's
own timm transform (RandomResizedCrop 224, rand-m9-mstd0.5-inc1, random erasing) and Mixup/CutMix.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

N_CLASSES = 4
N_TRAIN = 16
N_VAL = 4


def main(run_dir: str = ".") -> None:
    rng = np.random.default_rng(0)
    root = Path(run_dir) / "imagenet"
    for split, n in (("train", N_TRAIN), ("val", N_VAL)):
        for c in range(N_CLASSES):
            d = root / split / f"n{c:08d}"
            d.mkdir(parents=True, exist_ok=True)
            for i in range(n):
                write_jpeg(d / f"img_{i:04d}.JPEG", 256, 320, rng)


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
