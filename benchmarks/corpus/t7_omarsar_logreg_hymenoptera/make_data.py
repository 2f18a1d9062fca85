"""Fake hymenoptera (ants/bees) JPEG folders for omarsar/pytorch_notebooks' pytorch_logistic_regression.ipynb.

The notebook mounts Google Drive and reads ImageFolder('gdrive/My Drive/DAIR RESOURCES/TF to PT/datasets/
hymenoptera_data/{train,val}'); here that path is a folder of the run folder (the cwd), the Colab mount lines being
commented out (see recipe.toml). Classes ants/bees; 81 + 81 training and 20 + 20 validation JPEGs of 320x240 (the
real set has 244/153 photos of ~500x375). The notebook plots x[160] of the training batch, so at least 161 training
images are needed. Every training iteration loads ALL of both folders again (one batch = the whole set).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

if __name__ == "__main__":
    root = Path(sys.argv[1]) / "gdrive" / "My Drive" / "DAIR RESOURCES" / "TF to PT" / "datasets" / "hymenoptera_data"
    rng = np.random.default_rng(0)
    for split, n in (("train", 81), ("val", 20)):
        for cls in ("ants", "bees"):
            for i in range(n):
                write_jpeg(root / split / cls / f"{cls}_{i:04d}.jpg", 240, 320, rng)
