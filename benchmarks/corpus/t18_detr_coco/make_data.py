"""Fake COCO 2017 detection set for facebookresearch/detr's main.py (--coco_path coco).

main.py reads RUN/coco/{train2017,val2017}/*.jpg and RUN/coco/annotations/instances_{train,val}2017.json
(torchvision CocoDetection + pycocotools). We write N_TRAIN / N_VAL generated JPEGs of COCO's most common size
(640x480, some 480x640) and a COCO-format annotation file: the 80 COCO "things" categories with their real ids
(1..90 with gaps), 1-8 boxes per image (bbox [x, y, w, h], area, iscrowd 0, a 4-corner polygon segmentation),
seeded. The script's transforms resize every picture to 480-800 pixels on the short side (max 1333), as for the
real set, so the step's cost does not depend on our image size.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

N_TRAIN = 16   # 8 steps of batch 2
N_VAL = 4      # 2 evaluation batches of 2

# the 80 COCO thing ids (1..90 with the 10 unused ids left out)
COCO_IDS = [i for i in range(1, 91) if i not in (12, 26, 29, 30, 45, 66, 68, 69, 71, 83)]


def write_split(root: Path, split: str, n: int, first_id: int, rng: np.random.Generator) -> None:
    images, annotations = [], []
    ann_id = first_id * 100
    for k in range(n):
        img_id = first_id + k
        h, w = (480, 640) if rng.random() < 0.8 else (640, 480)
        name = f"{img_id:012d}.jpg"
        write_jpeg(root / split / name, h, w, rng)
        images.append({"id": img_id, "file_name": name, "height": h, "width": w})
        for _ in range(int(rng.integers(1, 9))):
            bw, bh = float(rng.uniform(20, w / 2)), float(rng.uniform(20, h / 2))
            x, y = float(rng.uniform(0, w - bw)), float(rng.uniform(0, h - bh))
            ann_id += 1
            annotations.append({
                "id": ann_id, "image_id": img_id, "category_id": int(rng.choice(COCO_IDS)),
                "bbox": [round(x, 2), round(y, 2), round(bw, 2), round(bh, 2)], "area": round(bw * bh, 2),
                "iscrowd": 0, "segmentation": [[x, y, x + bw, y, x + bw, y + bh, x, y + bh]],
            })
    cats = [{"id": c, "name": f"class{c}", "supercategory": "thing"} for c in COCO_IDS]
    (root / "annotations").mkdir(parents=True, exist_ok=True)
    with open(root / "annotations" / f"instances_{split}.json", "w") as f:
        json.dump({"info": {"description": "generated stand-in for COCO 2017"}, "licenses": [],
                   "images": images, "annotations": annotations, "categories": cats}, f)


if __name__ == "__main__":
    root = Path(sys.argv[1]) / "coco"
    rng = np.random.default_rng(0)
    write_split(root, "train2017", N_TRAIN, 1, rng)
    write_split(root, "val2017", N_VAL, 100001, rng)
