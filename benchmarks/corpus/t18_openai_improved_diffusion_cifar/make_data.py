"""CIFAR-10 image folder stand-in for openai/improved-diffusion's scripts/image_train.py (run with the
corpus-t18-F python: mpi4py + the mpich wheel, blobfile).

- RUN/cifar_train: what the repository's datasets/cifar10.py dumps from torchvision's CIFAR-10 (one 32x32 RGB PNG
  per image, named CLASS_NNNNN.png, e.g. plane_00000.png), but 256 generated pictures instead of 50000: smooth random
  colour fields plus fine noise (fakedata.smooth_image, seeded), class names cycling through CIFAR's ten.
  With --batch_size 4 that is 64 batches per loader pass, more than the 21 steps the recipe runs, so the loader's
  worker is never restarted mid-run (as with the real 50000 images).
"""
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import smooth_image  # noqa: E402

CLASSES = ("plane", "car", "bird", "cat", "deer", "dog", "frog", "horse", "ship", "truck")
N_IMAGES = 256


def main(run: str) -> None:
    out = Path(run) / "cifar_train"
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(18)
    for i in range(N_IMAGES):
        img = smooth_image(32, 32, rng)
        Image.fromarray(img).save(out / f"{CLASSES[i % 10]}_{i:05d}.png")


if __name__ == "__main__":
    main(sys.argv[1])
