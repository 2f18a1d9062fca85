"""Fake EuroSAT100 and a stand-in for the SSL4EO-S12 ResNet-18 checkpoint, for torchgeo's docs/tutorials/trainers.ipynb.

The notebook (run from docs/tutorials, the recipe's cwd) builds EuroSAT100DataModule(root=tempfile.gettempdir() +
'/eurosat100', download=True) and ClassificationTask(weights=ResNet18_Weights.SENTINEL2_ALL_MOCO). The recipe sets
TMPDIR=tmp and TORCH_HOME=torch_home (relative to the cwd), so:

* RUN/docs/tutorials/tmp/eurosat100 holds EuroSAT100 as torchgeo lays it out after extraction: the three split lists
  eurosat-100-{train,val,test}.txt (.jpg names, as published) and
  ds/images/remote_sensing/otherDatasets/sentinel_2/tif/<Class>/<Class>_<i>.tif, 13-band 64x64 uint16 GeoTIFFs:
  10 classes x 10 images, 6 train / 2 val / 2 test per class (EuroSAT100's sizes), class-dependent brightness plus
  noise. torchgeo finds the split files and the image folder and downloads nothing.
* RUN/docs/tutorials/torch_home/hub/checkpoints/resnet18_sentinel2_all_moco-59bfdff9.pth is the file name the
  weights' URL maps to in torch.hub's cache, so load_state_dict_from_url loads it instead of downloading: a seeded,
  randomly initialised timm resnet18 (in_chans=13, no classifier head) state dict with the real checkpoint's keys and
  shapes.
"""
import sys
from pathlib import Path

import numpy as np
import rasterio
import timm
import torch
from rasterio.transform import from_origin

CLASSES = ["AnnualCrop", "Forest", "HerbaceousVegetation", "Highway", "Industrial", "Pasture", "PermanentCrop",
           "Residential", "River", "SeaLake"]

if __name__ == "__main__":
    cwd = Path(sys.argv[1]) / "docs" / "tutorials"
    root = cwd / "tmp" / "eurosat100"
    tif = root / "ds" / "images" / "remote_sensing" / "otherDatasets" / "sentinel_2" / "tif"
    rng = np.random.default_rng(0)
    splits = {"train": [], "val": [], "test": []}
    for c, name in enumerate(CLASSES):
        (tif / name).mkdir(parents=True, exist_ok=True)
        base = rng.uniform(500, 3000, size=(13, 1, 1)) + 150 * c
        for i in range(1, 11):
            img = np.clip(base + rng.normal(0, 300, size=(13, 64, 64)), 0, 10000).astype(np.uint16)
            fn = f"{name}_{i}.tif"
            with rasterio.open(tif / name / fn, "w", driver="GTiff", width=64, height=64, count=13, dtype="uint16",
                               crs="EPSG:32631", transform=from_origin(500000 + 640 * i, 5000000 + 640 * c, 10, 10)) as dst:
                dst.write(img)
            split = "train" if i <= 6 else ("val" if i <= 8 else "test")
            splits[split].append(fn.replace(".tif", ".jpg"))
    for split, names in splits.items():
        (root / f"eurosat-100-{split}.txt").write_text("".join(n + "\n" for n in names))
    ckpt = cwd / "torch_home" / "hub" / "checkpoints"
    ckpt.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(0)
    model = timm.create_model("resnet18", in_chans=13, num_classes=0)
    torch.save(model.state_dict(), ckpt / "resnet18_sentinel2_all_moco-59bfdff9.pth")
