"""AFHQ stand-in for clovaai/stargan-v2's main.py --mode train (the README's afhq command).

main.py asserts that --train_img_dir and --val_img_dir each hold exactly --num_domains sub-folders (3 for AFHQ:
cat, dog, wild); core/data_loader.py reads them with torchvision ImageFolder (source images), its own
ReferenceDataset (reference image pairs drawn from the same domain folder) and ImageFolder again for the
validation batch. AFHQ's layout: data/afhq/{train,val}/{cat,dog,wild}/flickr_<domain>_NNNNNN.jpg, 512x512 RGB
JPEGs (fakedata.smooth_image: smooth random colour fields with fine noise, seeded, quality 95); the loaders
resize them to --img_size.

SHRUNK: 3 x 64 = 192 training images (AFHQ: 14630, about 4900 a domain) and 3 x 12 = 36 validation images
(AFHQ: 3 x 500); 36 >= the default --val_batch_size 32, so the one validation batch the solver fetches at the
start is full.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

DOMAINS = ["cat", "dog", "wild"]
N_TRAIN, N_VAL = 64, 12   # per domain
SIZE = 512


def main(run: Path) -> None:
    rng = np.random.default_rng(29)
    base = run / "data" / "afhq"
    k = 0
    for split, n in (("train", N_TRAIN), ("val", N_VAL)):
        for d in DOMAINS:
            for _ in range(n):
                k += 1
                write_jpeg(base / split / d / f"flickr_{d}_{k:06d}.jpg", SIZE, SIZE, rng, quality=95)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
