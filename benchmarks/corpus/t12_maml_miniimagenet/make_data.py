"""Fake mini-ImageNet for dragen1860/MAML-Pytorch's miniimagenet_train.py.

MiniImagenet(root, mode) reads ROOT/<mode>.csv (header `filename,label`, rows like `n0153282900000005.jpg,n01532829`) and
opens ROOT/images/<filename> with PIL for every image of every episode (label = the file name's first 9 characters).
The recipe points root at RUN/miniimagenet/. Ravi & Larochelle's images.zip holds the ImageNet pictures at their own
size (cbfinn/maml's proc_images.py resizes them to 84x84 itself; this loader does it per image with Resize((84, 84))),
so ours are 500x375 JPEGs (ImageNet's most common size): 64 train classes x 20 images and 20 test classes x 16 images
(k_shot 1 + k_query 15 = 16 images of a class per episode), smooth-noise pictures, seeded.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402


def split(root: Path, mode: str, n_classes: int, per_class: int, first_wnid: int, rng: np.random.Generator) -> None:
    rows = ["filename,label"]
    for c in range(n_classes):
        wnid = "n%08d" % (first_wnid + c * 7919)
        for j in range(per_class):
            name = "%s%08d.jpg" % (wnid, j + 1)
            write_jpeg(root / "images" / name, 375, 500, rng)
            rows.append("%s,%s" % (name, wnid))
    (root / ("%s.csv" % mode)).write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    root = Path(sys.argv[1]) / "miniimagenet"
    rng = np.random.default_rng(0)
    split(root, "train", 64, 20, 1000000, rng)
    split(root, "test", 20, 16, 5000000, rng)
