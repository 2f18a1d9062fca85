"""A coco8-like YOLO detection dataset for ultralytics' `yolo train` (see recipe.toml).

RUN/data.yaml (path: RUN/fakecoco, train: images/train, val: images/val, the 80 COCO class names) and
RUN/fakecoco/{images,labels}/{train,val}: N_TRAIN / N_VAL JPEGs of 640x480 (COCO's usual size, quality 90), a smooth
random colour field with 2-8 filled rectangles of random colour, and for each image a label .txt with one YOLO row
per rectangle: `class x_center y_center width height`, normalised to 0-1. Seeded (numpy default_rng(0)).
"""
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import smooth_image  # noqa: E402

N_TRAIN, N_VAL = 64, 16
H, W = 480, 640

COCO_NAMES = [
    "person", "bicycle", "car", "motorcycle", "airplane", "bus", "train", "truck", "boat", "traffic light",
    "fire hydrant", "stop sign", "parking meter", "bench", "bird", "cat", "dog", "horse", "sheep", "cow",
    "elephant", "bear", "zebra", "giraffe", "backpack", "umbrella", "handbag", "tie", "suitcase", "frisbee",
    "skis", "snowboard", "sports ball", "kite", "baseball bat", "baseball glove", "skateboard", "surfboard",
    "tennis racket", "bottle", "wine glass", "cup", "fork", "knife", "spoon", "bowl", "banana", "apple",
    "sandwich", "orange", "broccoli", "carrot", "hot dog", "pizza", "donut", "cake", "chair", "couch",
    "potted plant", "bed", "dining table", "toilet", "tv", "laptop", "mouse", "remote", "keyboard", "cell phone",
    "microwave", "oven", "toaster", "sink", "refrigerator", "book", "clock", "vase", "scissors", "teddy bear",
    "hair drier", "toothbrush",
]


def write_split(root: Path, split: str, n: int, rng: np.random.Generator) -> None:
    (root / "images" / split).mkdir(parents=True, exist_ok=True)
    (root / "labels" / split).mkdir(parents=True, exist_ok=True)
    for i in range(n):
        img = smooth_image(H, W, rng)
        rows = []
        for _ in range(int(rng.integers(2, 9))):
            bw, bh = int(rng.integers(24, W // 3)), int(rng.integers(24, H // 3))
            x0, y0 = int(rng.integers(0, W - bw)), int(rng.integers(0, H - bh))
            img[y0:y0 + bh, x0:x0 + bw] = rng.integers(0, 256, 3, dtype=np.uint8)
            cls = int(rng.integers(0, len(COCO_NAMES)))
            rows.append(f"{cls} {(x0 + bw / 2) / W:.6f} {(y0 + bh / 2) / H:.6f} {bw / W:.6f} {bh / H:.6f}")
        name = f"{split}_{i:05d}"
        Image.fromarray(img).save(root / "images" / split / f"{name}.jpg", quality=90)
        (root / "labels" / split / f"{name}.txt").write_text("\n".join(rows) + "\n")


if __name__ == "__main__":
    run = Path(sys.argv[1]).resolve()
    root = run / "fakecoco"
    rng = np.random.default_rng(0)
    write_split(root, "train", N_TRAIN, rng)
    write_split(root, "val", N_VAL, rng)
    names = "\n".join(f"  {i}: {n}" for i, n in enumerate(COCO_NAMES))
    (run / "data.yaml").write_text(f"path: {root}\ntrain: images/train\nval: images/val\nnames:\n{names}\n")
