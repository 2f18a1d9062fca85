"""An image folder for lucidrains/DALLE-pytorch's train_vae.py (run with the corpus-t20-H python: numpy, Pillow).

- RUN/images/<class>/NNNN.jpg: train_vae.py reads --image_folder with torchvision's ImageFolder (one subfolder per
  class; the labels are ignored), converts to RGB, Resize(128) + CenterCrop(128), ToTensor. The README points it at
  "your folder of images" (the DALL-E examples use photographs such as CUB-200 birds, ~500x375 JPEGs): here 128
  JPEGs (quality 90) of 500x375 / 375x500 smooth colour fields with noise (fakedata.smooth_image, seeded) in 4
  subfolders: 16 steps of batch 8 per epoch.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

N_IMAGES = 128
CLASSES = ["birds", "flowers", "landscapes", "clothing"]

if __name__ == "__main__":
    run = Path(sys.argv[1])
    rng = np.random.default_rng(0)
    for i in range(N_IMAGES):
        h, w = (375, 500) if rng.random() < 0.7 else (500, 375)
        write_jpeg(run / "images" / CLASSES[i % len(CLASSES)] / f"{i:04d}.jpg", h, w, rng)
