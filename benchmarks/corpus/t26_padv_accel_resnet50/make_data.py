"""An ImageNet-shaped ImageFolder for priyammaz/PyTorch-Adventures' "Huggingface Accelerate" train.py (ResNet50).

The README has the user download ImageNet (Google's TPU set-up layout: ROOT/train/<wnid>/*.JPEG and
ROOT/validation/<wnid>/*.JPEG) and pass ROOT as --path_to_data. We write RUN/imagenet/ in that layout: 10 classes
named like ImageNet wnids, 48 training and 8 validation JPEGs per class (480 + 80), random smooth pictures of
ImageNet-like sizes (short side 333-500, long side 375-500, either orientation; quality 90, ~40-80 KB each), seeded.
Also RUN/work_dir/ResNet50 (--working_directory/--experiment_name). The script's datasets.ImageFolder reads them; RandomResizedCrop/Resize+CenterCrop bring them to --img_size.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

CLASSES = 10
TRAIN_PER_CLASS = 48
VAL_PER_CLASS = 8


def write_split(folder: Path, per_class: int, rng: np.random.Generator) -> None:
    for c in range(CLASSES):
        wnid = f"n{1440764 + 37 * c:08d}"
        for i in range(per_class):
            long_side, short_side = int(rng.integers(375, 501)), int(rng.integers(333, 376))
            h, w = (short_side, long_side) if rng.random() < 0.75 else (long_side, short_side)
            write_jpeg(folder / wnid / f"{wnid}_{i:05d}.JPEG", h, w, rng)


if __name__ == "__main__":
    run = Path(sys.argv[1])
    rng = np.random.default_rng(26)
    write_split(run / "imagenet" / "train", TRAIN_PER_CLASS, rng)
    write_split(run / "imagenet" / "validation", VAL_PER_CLASS, rng)
    # the README has the user create the working directory; the script's LocalLogger also needs the
    # experiment folder inside it (work_dir/ResNet50) before the first epoch ends
    (run / "work_dir" / "ResNet50").mkdir(parents=True, exist_ok=True)
