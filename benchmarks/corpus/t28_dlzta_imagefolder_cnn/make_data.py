"""Chair-photo stand-in for deeplearningzerotoall/PyTorch's lab-10_4_2_ImageFolder_2.ipynb.

The notebook (run from the repository root) reads two torchvision ImageFolder trees:
  custom_data/train_data/{gray,red}/*.jpeg  -- 128x64 RGB JPEGs (the repository's 328 gray + 223 red chairs, ~1.8 KB
                                               a file, written by lab-10_4_1 from 512x256 originals), read with
                                               ToTensor only (no resize): the training set;
  custom_data/test_data/{gray,red}/*.jpg    -- 2016x1134 phone photos (29 gray + 21 red, ~1.4 MB a file), resized
                                               to 64x128 on the fly: the one test batch.
and torch.save()s the trained weights to ./model/model.pth (the folder must exist).
This writes the same layout, sizes and formats (a blurred grey or red chair-like shape of a seat, a back and legs on a
light textured floor, random pose), more training images than the real 551 (N_GRAY + N_RED, same class ratio) so that
the 7-epoch loop runs long enough to measure; the test set has the real counts and photo size. Seeded.
Usage: python make_data.py RUN
"""
import sys
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

N_GRAY, N_RED = 950, 650             # real: 328 / 223 (about the same ratio)
N_TEST_GRAY, N_TEST_RED = 29, 21     # real counts
TRAIN_W, TRAIN_H = 128, 64
TEST_W, TEST_H = 2016, 1134


def chair(w: int, h: int, red: bool, rng: np.random.Generator, grain: float) -> Image.Image:
    """A light floor with texture and a seat + back + legs drawn in grey or red, blurred like a phone photo."""
    s = min(w, h)
    base = rng.uniform(150, 210)
    coarse = rng.normal(base, 18, (max(2, h // 24), max(2, w // 24), 1)).repeat(3, axis=2)
    floor = np.array(Image.fromarray(np.clip(coarse, 0, 255).astype(np.uint8)).resize((w, h), Image.BILINEAR),
                     dtype=np.float32)
    img = Image.fromarray(np.clip(floor, 0, 255).astype(np.uint8))
    draw = ImageDraw.Draw(img)
    if red:
        colour = tuple(int(c) for c in (rng.uniform(190, 240), rng.uniform(20, 70), rng.uniform(30, 80)))
    else:
        g = rng.uniform(110, 170)
        colour = tuple(int(c) for c in (g, g - rng.uniform(0, 10), g - rng.uniform(0, 12)))
    cx, cy = rng.uniform(0.35, 0.65) * w, rng.uniform(0.4, 0.6) * h
    sw, sh = rng.uniform(0.5, 0.8) * s, rng.uniform(0.45, 0.7) * s
    draw.rectangle([cx - sw / 2, cy - sh / 2, cx + sw / 2, cy + sh / 2], fill=colour)          # seat
    bx = cx - sw / 2 - rng.uniform(0.15, 0.35) * s
    draw.rectangle([bx, cy - sh / 2 - 0.05 * s, bx + 0.18 * s, cy + sh / 2 + 0.05 * s], fill=colour)  # back
    leg = max(1, int(0.04 * s))
    for dy in (-sh / 2, sh / 2):
        draw.line([cx + sw / 2, cy + dy, cx + sw / 2 + rng.uniform(0.15, 0.3) * s, cy + dy], fill=colour, width=leg)
    img = np.asarray(img.filter(ImageFilter.GaussianBlur(radius=max(0.6, s / 90))), dtype=np.float32)
    img += rng.normal(0, grain, (h, w, 1))   # sensor grain / floor texture after the blur
    return Image.fromarray(np.clip(img, 0, 255).astype(np.uint8))


def main(run: Path) -> None:
    rng = np.random.default_rng(2810)
    for split, counts, size, grain, quality, suffix in (
            ("train_data", (N_GRAY, N_RED), (TRAIN_W, TRAIN_H), 5.0, 75, "jpeg"),
            ("test_data", (N_TEST_GRAY, N_TEST_RED), (TEST_W, TEST_H), 10.0, 95, "jpg")):
        k = 0
        for label, (cls, n) in enumerate(zip(("gray", "red"), counts)):
            folder = run / "custom_data" / split / cls
            folder.mkdir(parents=True, exist_ok=True)
            for _ in range(n):
                name = f"{k}_{label}.{suffix}" if split == "train_data" else f"20181118_{175900 + k:06d}.{suffix}"
                chair(*size, red=bool(label), rng=rng, grain=grain).save(folder / name, quality=quality)
                k += 1
    (run / "model").mkdir(exist_ok=True)   # the notebook's torch.save(..., "./model/model.pth")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
