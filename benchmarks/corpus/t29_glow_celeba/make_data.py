"""CelebA stand-in for rosinality/glow-pytorch's train.py PATH.

train.py reads PATH with torchvision.datasets.ImageFolder (README: "input directory should be structured like
PATH/class1/..., even when there are only 1 classes"); the author trained on vanilla (aligned) CelebA, i.e.
img_align_celeba/000001.jpg ... 202599.jpg, RGB JPEGs of 178 x 218 (width x height). We write
RUN/data/celeba/img_align_celeba/NNNNNN.jpg with the same size, format and naming: a seeded, face-like drawing
(background gradient, skin-toned ellipse, hair, eyes, mouth, pixel noise), JPEG quality 90.
SHRUNK: 2,000 images instead of 202,599 (batch 16: 125 steps an epoch, so the run crosses epochs and the
script's DataLoader with 4 workers is made again at each epoch boundary, as with the real set every 12,663 steps).
"""
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

N = 2000
W, H = 178, 218

if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "data" / "celeba" / "img_align_celeba"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(29)
    yy, xx = np.mgrid[0:H, 0:W].astype(np.float32)
    for k in range(1, N + 1):
        c0, c1 = rng.integers(0, 256, 3), rng.integers(0, 256, 3)
        t = (yy / H)[..., None]
        bg = (c0 * (1 - t) + c1 * t).astype(np.uint8)
        img = Image.fromarray(bg, "RGB")
        d = ImageDraw.Draw(img)
        cx, cy = W / 2 + rng.normal(0, 6), H / 2 + 10 + rng.normal(0, 6)
        fw, fh = rng.uniform(38, 50), rng.uniform(52, 66)
        hair = tuple(int(v) for v in rng.integers(10, 140, 3))
        d.ellipse([cx - fw - 8, cy - fh - 18, cx + fw + 8, cy + fh * 0.4], fill=hair)
        skin = tuple(int(v) for v in np.clip(np.array([205, 160, 130]) + rng.normal(0, 25, 3), 0, 255))
        d.ellipse([cx - fw, cy - fh, cx + fw, cy + fh], fill=skin)
        for sx in (-1, 1):
            ex, ey = cx + sx * fw * 0.42, cy - fh * 0.18
            d.ellipse([ex - 7, ey - 4, ex + 7, ey + 4], fill=(240, 240, 240))
            d.ellipse([ex - 3, ey - 3, ex + 3, ey + 3], fill=(40, 30, 20))
        d.arc([cx - 14, cy + fh * 0.35, cx + 14, cy + fh * 0.6], 10, 170, fill=(150, 50, 60), width=3)
        img = img.filter(ImageFilter.GaussianBlur(1.2))
        arr = np.asarray(img).astype(np.int16) + rng.normal(0, 6, (H, W, 3)).astype(np.int16)
        Image.fromarray(np.clip(arr, 0, 255).astype(np.uint8), "RGB").save(folder / f"{k:06d}.jpg", quality=90)
