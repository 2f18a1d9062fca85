"""A generated image folder for rosinality/vq-vae-2-pytorch's train_vqvae.py.

The script reads torchvision's ImageFolder(args.path) with Resize(size) + CenterCrop(size) + ToTensor + Normalize and
trains on batches of 128 (hard-coded as 128 // n_gpu). RUN/images/<class>/NNNNN.jpg: 3840 smooth-noise 128x128 JPEGs
(quality 90) in 4 class folders (the labels are unused), i.e. 30 steps of 128 at --size 32. Each image is decoded and
resized per sample in the DataLoader's 2 workers. RUN/checkpoint and RUN/sample (the script saves into them) come with
the recipe's files (their .gitignore files).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

if __name__ == "__main__":
    run = Path(sys.argv[1])
    rng = np.random.default_rng(0)
    for i in range(3840):
        write_jpeg(run / "images" / f"class{i % 4}" / f"{i:05d}.jpg", 128, 128, rng)
    (run / "checkpoint").mkdir(exist_ok=True)
    (run / "sample").mkdir(exist_ok=True)
