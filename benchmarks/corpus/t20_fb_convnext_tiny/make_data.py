"""Fake ImageNet-1K folder for facebookresearch/ConvNeXt's main.py (--data_set IMNET, the default).

main.py reads datasets.ImageFolder(DATA_PATH/train) and ImageFolder(DATA_PATH/val) (build_dataset, IMNET: the head
keeps nb_classes 1000). RUN/imagenet-1k/{train,val}/nXXXXXXXX/*.JPEG: N_CLASSES synsets-like folders of seeded smooth
pictures (fakedata.write_jpeg) at ImageNet's typical sizes (500x375, 375x500, 500x333, 500x500; quality 90, tens of
KB each, like the real files): N_TRAIN training and N_VAL validation images.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

N_CLASSES = 10
N_TRAIN = 96    # 6 steps of --batch_size 16 (drop_last)
N_VAL = 16      # one eval batch (1.5 x 16 = 24 > 16), run for the model and for its EMA
SIZES = [(375, 500), (500, 375), (333, 500), (500, 500)]  # (h, w)

if __name__ == "__main__":
    root = Path(sys.argv[1]) / "imagenet-1k"
    rng = np.random.default_rng(0)
    for split, n in (("train", N_TRAIN), ("val", N_VAL)):
        for i in range(n):
            c = i % N_CLASSES
            h, w = SIZES[int(rng.integers(len(SIZES)))]
            write_jpeg(root / split / f"n{1440764 + c * 1000:08d}" / f"{split}_{i:05d}.JPEG", h, w, rng)
