"""A generated image folder for martinarjovsky/WassersteinGAN's main.py (--dataset folder --dataroot data).

torchvision's ImageFolder wants ROOT/CLASS/*.jpg: RUN/data/bedroom/ gets N_IMAGES seeded JPEGs of 256x342
(LSUN bedroom's usual size: short side 256), smooth colour fields plus noise (fakedata.write_jpeg), which the
script scales to 64 (short side), center-crops to 64x64 and normalizes.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

N_IMAGES = 2560  # 40 batches of 64 per epoch

if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "data" / "bedroom"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for i in range(N_IMAGES):
        write_jpeg(folder / f"{i:05d}.jpg", 256, 342, rng, quality=75)
