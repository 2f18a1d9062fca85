"""CelebA stand-in for 1Konny/Beta-VAE's main.py (--dataset celeba).

dataset.py's return_data reads --dset_dir (default ./data) + 'CelebA' with torchvision's ImageFolder (one
sub-folder, as CelebA's img_align_celeba/ unpacks) and Resize((64, 64)) + ToTensor. We write RUN/data/CelebA/
img_align_celeba/000001.jpg ... as CelebA's aligned images are: 178 wide x 218 high RGB JPEGs (smooth random
colour pictures with fine noise, seeded). SHRUNK: 6400 images (CelebA has 202599), 100 batches of 64 an epoch.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "data" / "CelebA" / "img_align_celeba"
    rng = np.random.default_rng(27)
    for i in range(1, 6401):
        write_jpeg(folder / f"{i:06d}.jpg", 218, 178, rng, quality=90)
