"""Carvana stand-in for milesial/Pytorch-UNet train.py: RUN/data/imgs/ID.jpg and RUN/data/masks/ID_mask.gif.

The script's CarvanaDataset pairs ./data/imgs/ID.* with ./data/masks/ID_mask.*; Carvana's car photos are
1918x1280 JPEGs with two-valued GIF masks. We write 50 random smooth 384x256 JPEGs (q90, the same 3:2 shape,
smaller so that a CPU step takes well under a second at the default --scale 0.5) and GIF masks holding one
filled ellipse (values 0/1), seeded.
"""
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

W, H, N = 384, 256, 50

if __name__ == "__main__":
    run = Path(sys.argv[1])
    imgs, masks = run / "data" / "imgs", run / "data" / "masks"
    imgs.mkdir(parents=True, exist_ok=True)
    masks.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    yy, xx = np.mgrid[0:H, 0:W]
    for i in range(N):
        name = f"{i:05d}_{(i % 16) + 1:02d}"  # Carvana-like ids: car_view
        write_jpeg(imgs / f"{name}.jpg", H, W, rng, quality=90)
        cy, cx = rng.uniform(0.35, 0.65) * H, rng.uniform(0.35, 0.65) * W
        ry, rx = rng.uniform(0.2, 0.4) * H, rng.uniform(0.25, 0.45) * W
        mask = (((yy - cy) / ry) ** 2 + ((xx - cx) / rx) ** 2 <= 1).astype(np.uint8)
        Image.fromarray(mask, mode="L").save(masks / f"{name}_mask.gif")
