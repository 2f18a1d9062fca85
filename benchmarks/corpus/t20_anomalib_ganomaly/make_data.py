"""MVTec AD `bottle` stand-in for openvinotoolkit/anomalib's `anomalib train --config` run (Ganomaly on MVTecAD).

- RUN/datasets/MVTecAD/bottle: the layout anomalib.data.MVTecAD reads (its prepare_data finds the category folder
  and downloads nothing): train/good/000.png ..., test/good/*.png, test/broken_large/*.png and
  ground_truth/broken_large/*_mask.png. 384 x 384 RGB PNGs (fakedata.smooth_image: a smooth colour field plus
  fine noise, seeded; ~0.3 MB each) instead of the real 900 x 900: a 900 x 900 batch of 32 decodes to 311 MB of
  float32 (the dataset reads full-size images; anomalib resizes to 256 x 256 per batch in the main process), too much
  with 8 workers x prefetch 2 on this shared machine. A test "defect" is a bright blob painted on the image, and its
  mask (L mode, 0/255) marks that blob.
  128 train / 16 good test / 16 broken_large test images instead of 209 / 20 / 63 (4 training steps of 32 per epoch;
  the validation set is the test set, val_split_mode same_as_test).
"""
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import smooth_image  # noqa: E402

SIZE = 384
N_TRAIN, N_GOOD, N_BAD = 128, 16, 16


def write_bottle(root: Path, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    for sub in ("train/good", "test/good", "test/broken_large", "ground_truth/broken_large"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for i in range(N_TRAIN):
        Image.fromarray(smooth_image(SIZE, SIZE, rng)).save(root / "train/good" / f"{i:03d}.png")
    for i in range(N_GOOD):
        Image.fromarray(smooth_image(SIZE, SIZE, rng)).save(root / "test/good" / f"{i:03d}.png")
    yy, xx = np.mgrid[0:SIZE, 0:SIZE]
    for i in range(N_BAD):
        img = smooth_image(SIZE, SIZE, rng)
        cy, cx = rng.integers(80, SIZE - 80, 2)
        r = int(rng.integers(20, 60))
        blob = (yy - cy) ** 2 + (xx - cx) ** 2 < r * r
        img[blob] = np.clip(img[blob].astype(int) + 90, 0, 255).astype(np.uint8)
        Image.fromarray(img).save(root / "test/broken_large" / f"{i:03d}.png")
        Image.fromarray((blob * 255).astype(np.uint8), mode="L").save(
            root / "ground_truth/broken_large" / f"{i:03d}_mask.png")


if __name__ == "__main__":
    write_bottle(Path(sys.argv[1]) / "datasets" / "MVTecAD" / "bottle")
