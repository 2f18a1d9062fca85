"""COCO-2014 stand-in for eriklindernoren/PyTorch-YOLOv3's pytorchyolo/train.py with config/coco.data (run with the
corpus-t17-C python: imgaug, terminaltables, torchsummary, tensorboard).

config/coco.data names data/coco/trainvalno5k.txt (train), data/coco/5k.txt (valid) and data/coco.names (80 classes,
the repository's own file). The repository's data/get_coco_dataset.sh downloads COCO 2014 and writes those lists (one
image path per line); ListDataset finds each image's labels by replacing the last "images" of its path with "labels"
and the extension with .txt, one box per row: `class x_center y_center width height`, relative to the image.

Written here (seeded): RUN/data/coco/images/{train2014,val2014}/COCO_*_%012d.jpg, JPEG quality 90 photographs-like
pictures (fakedata.smooth_image) of COCO's typical sizes (640x480, 480x640, 640x427, 612x612, 500x375), each with
1-8 boxes of random classes 0-79 and sizes 3-60% of the side in RUN/data/coco/labels/..., and the two lists
with paths relative to the run folder (the script runs from there). 256 training / 32 validation images instead of
117k / 5k: with yolov3-tiny.cfg's batch 64 / subdivisions 2 that is 8 mini-batches of 32 (4 optimizer steps) and one
evaluation pass of one batch.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

SIZES = [(480, 640), (640, 480), (427, 640), (612, 612), (375, 500)]  # (h, w)
SPLITS = {"train2014": ("trainvalno5k.txt", 256), "val2014": ("5k.txt", 32)}


def write_coco(run: Path, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    coco = run / "data" / "coco"
    for split, (list_name, n) in SPLITS.items():
        (coco / "labels" / split).mkdir(parents=True, exist_ok=True)
        paths = []
        for i in range(n):
            stem = f"COCO_{split}_{i + 1:012d}"
            h, w = SIZES[int(rng.integers(0, len(SIZES)))]
            write_jpeg(coco / "images" / split / f"{stem}.jpg", h, w, rng)
            rows = []
            for _ in range(int(rng.integers(1, 9))):
                bw, bh = rng.uniform(0.03, 0.6, 2)
                cx, cy = rng.uniform(bw / 2, 1 - bw / 2), rng.uniform(bh / 2, 1 - bh / 2)
                rows.append(f"{int(rng.integers(0, 80))} {cx:.6f} {cy:.6f} {bw:.6f} {bh:.6f}")
            (coco / "labels" / split / f"{stem}.txt").write_text("\n".join(rows) + "\n")
            paths.append(f"data/coco/images/{split}/{stem}.jpg")
        (coco / list_name).write_text("\n".join(paths) + "\n")


if __name__ == "__main__":
    write_coco(Path(sys.argv[1]))
