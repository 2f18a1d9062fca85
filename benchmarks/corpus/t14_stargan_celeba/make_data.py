"""Fake CelebA for yunjey/stargan's main.py (--dataset CelebA, the default).

The script's CelebA dataset reads RUN/data/celeba/list_attr_celeba.txt (line 1 the image count, line 2 the 40
attribute names, then "FILENAME v1 ... v40" rows of 1/-1), shuffles the rows with random.seed(1234) and keeps the
first 1999 as its test split, the rest for training; images come from RUN/data/celeba/images (the default
--celeba_image_dir / --attr_path). We write 2639 aligned-CelebA-sized (178 wide x 218 high) smooth-noise JPEGs and
random attributes: 640 training images (40 batches of 16 per pass over the loader), 1999 test rows.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

ATTRS = ("5_o_Clock_Shadow Arched_Eyebrows Attractive Bags_Under_Eyes Bald Bangs Big_Lips Big_Nose Black_Hair "
         "Blond_Hair Blurry Brown_Hair Bushy_Eyebrows Chubby Double_Chin Eyeglasses Goatee Gray_Hair Heavy_Makeup "
         "High_Cheekbones Male Mouth_Slightly_Open Mustache Narrow_Eyes No_Beard Oval_Face Pale_Skin Pointy_Nose "
         "Receding_Hairline Rosy_Cheeks Sideburns Smiling Straight_Hair Wavy_Hair Wearing_Earrings Wearing_Hat "
         "Wearing_Lipstick Wearing_Necklace Wearing_Necktie Young").split()

if __name__ == "__main__":
    root = Path(sys.argv[1]) / "data" / "celeba"
    n = 1999 + 640
    rng = np.random.default_rng(0)
    rows = []
    for i in range(1, n + 1):
        name = f"{i:06d}.jpg"
        write_jpeg(root / "images" / name, 218, 178, rng)
        values = rng.choice(["-1", "1"], size=len(ATTRS))
        rows.append(name + " " + " ".join(f"{v:>2}" for v in values))
    (root / "list_attr_celeba.txt").write_text(f"{n}\n" + " ".join(ATTRS) + "\n" + "\n".join(rows) + "\n")
