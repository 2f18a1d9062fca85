"""Data for the t2_ddpm_trainer recipe: RUN/images/*.jpg and our driver RUN/train_ddpm.py.

The README's Trainer example reads every jpg/jpeg/png/tiff under a folder ('path/to/your/images'; at least 100
images). We write 1000 random smooth 96x96 JPEGs (q90; face-crop sized, resized to 32 by the Trainer's
Dataset) into RUN/images, seeded, and copy our driver (train_ddpm.py, next to this file) into RUN.
"""
import shutil
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from fakedata import write_jpeg  # noqa: E402

if __name__ == "__main__":
    run = Path(sys.argv[1])
    (run / "images").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for i in range(1000):
        write_jpeg(run / "images" / f"{i:06d}.jpg", 96, 96, rng, quality=90)
    shutil.copyfile(HERE / "train_ddpm.py", run / "train_ddpm.py")
