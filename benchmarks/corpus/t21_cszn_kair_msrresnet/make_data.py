"""DIV2K-like training images for cszn/KAIR's main_train_psnr.py with options/train_msrresnet_psnr.json
(run with the corpus-t21-B python: numpy, opencv-python-headless).

- RUN/trainsets/trainH/NNNN.png: 96 RGB PNGs at DIV2K's size (2040 wide, 1344-1404 high; DIV2K's 800 training
  images are 2040 x ~1350 PNGs of 2-6 MB), a smooth random colour field plus fine noise (fakedata.smooth_image,
  seeded), ~6 MB each. The option file's "dataroot_H": "trainsets/trainH" with "dataroot_L": null makes DatasetSR
  read each whole image, make its low-resolution version with the repository's MATLAB-style bicubic (imresize_np, 1/4)
  and then crop a 24 x 24 / 96 x 96 pair, as with the real set. 96 images = 3 steps of 32 an epoch.
- The test set (testsets/set5, 5 BMPs) is the repository's own, laid out by the recipe's files (it is only read at
  checkpoint_test, 5000 steps, i.e. never in this run, but DatasetSR asserts it is not empty).
"""
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import smooth_image  # noqa: E402

N_TRAIN = 96

if __name__ == "__main__":
    out = Path(sys.argv[1]) / "trainsets" / "trainH"
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for i in range(N_TRAIN):
        h = int(rng.integers(1344, 1405))
        cv2.imwrite(str(out / f"{i + 1:04d}.png"), smooth_image(h, 2040, rng)[:, :, ::-1], [cv2.IMWRITE_PNG_COMPRESSION, 1])
