"""Fake PASCAL VOC 2012 segmentation set for VainF/DeepLabV3Plus-Pytorch's main.py.

main.py reads --data_root (we pass ./datasets/data, its default) + VOCdevkit/VOC2012/: JPEGImages/NAME.jpg,
SegmentationClass/NAME.png (palette PNG, class ids 0..20 and 255 on object borders, like VOC) and
ImageSets/Segmentation/{train,val}.txt. N_TRAIN + N_VAL generated images of VOC's typical sizes (500 x 333..500,
seeded): smooth RGB JPEGs (fakedata.smooth_image) with a few filled ellipses of random classes whose masks carry
a 255 border band.
"""
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import smooth_image  # noqa: E402

N_TRAIN = 160
N_VAL = 4


def palette():
    cmap = []
    for i in range(256):
        r = g = b = 0
        c = i
        for j in range(8):
            r |= ((c >> 0) & 1) << (7 - j)
            g |= ((c >> 1) & 1) << (7 - j)
            b |= ((c >> 2) & 1) << (7 - j)
            c >>= 3
        cmap += [r, g, b]
    return cmap


def sample(rng, h, w):
    img = smooth_image(h, w, rng).astype(np.float32)
    mask = np.zeros((h, w), np.uint8)
    yy, xx = np.mgrid[0:h, 0:w]
    for _ in range(rng.integers(1, 4)):
        cls = int(rng.integers(1, 21))
        cy, cx = rng.uniform(0.2, 0.8) * h, rng.uniform(0.2, 0.8) * w
        ry, rx = rng.uniform(0.1, 0.35) * h, rng.uniform(0.1, 0.35) * w
        d = ((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2
        mask[d <= 1.08] = 255
        mask[d <= 0.92] = cls
        col = rng.uniform(0, 255, 3).astype(np.float32)
        img[d <= 1.0] = 0.5 * img[d <= 1.0] + 0.5 * col
    return img.clip(0, 255).astype(np.uint8), mask


if __name__ == "__main__":
    root = Path(sys.argv[1]) / "datasets" / "data" / "VOCdevkit" / "VOC2012"
    for sub in ("JPEGImages", "SegmentationClass", "ImageSets/Segmentation"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    pal = palette()
    names = {"train": [], "val": []}
    for k in range(N_TRAIN + N_VAL):
        split = "train" if k < N_TRAIN else "val"
        name = f"2012_{k:06d}"
        h, w = (int(rng.integers(333, 501)), 500) if rng.random() < 0.7 else (500, int(rng.integers(333, 501)))
        img, mask = sample(rng, h, w)
        Image.fromarray(img).save(root / "JPEGImages" / f"{name}.jpg", quality=90)
        m = Image.fromarray(mask, mode="P")
        m.putpalette(pal)
        m.save(root / "SegmentationClass" / f"{name}.png")
        names[split].append(name)
    for split, lst in names.items():
        (root / "ImageSets" / "Segmentation" / f"{split}.txt").write_text("\n".join(lst) + "\n")
