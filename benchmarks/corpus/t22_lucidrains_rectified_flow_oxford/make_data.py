"""nelorth/oxford-flowers stand-in for lucidrains/rectified-flow-pytorch's train_oxford.py (run with the corpus-t22-E
python: datasets/pyarrow, pillow).

train_oxford.py calls datasets.load_dataset('nelorth/oxford-flowers')['train'] from the run folder (the recipe's cwd),
where a local directory of that relative path comes before the Hub (HF_HUB_OFFLINE / HF_DATASETS_OFFLINE are set so
nothing is looked up). It is laid out as the Hub dataset repository is: a README.md whose YAML `configs` names the
default config's train/test data files and whose `dataset_info` gives the Hub dataset's features (image: Image,
label: ClassLabel of 102 flower classes), and data/{train,test}-00000-of-00001.parquet written by datasets itself
(each image a JPEG's bytes, decoded by PIL on every __getitem__ as with the real set). The pictures are seeded
smooth colour fields plus noise (fakedata.smooth_image) saved as JPEG quality 90 at the real set's sizes: short side
500 px, long side 500-750 px, portrait or landscape. N_TRAIN / N_TEST rows instead of 7169 / 1020: the script's
DataLoader (batch 16, drop_last, shuffle) cycles over them, so the row count does not change a step's cost.
"""
import io
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import smooth_image  # noqa: E402

N_TRAIN, N_TEST = 160, 32
N_CLASSES = 102

README = """---
configs:
- config_name: default
  data_files:
  - split: train
    path: data/train-*
  - split: test
    path: data/test-*
dataset_info:
  features:
  - name: image
    dtype: image
  - name: label
    dtype:
      class_label:
        names:
""" + "".join(f"          '{i}': '{i}'\n" for i in range(N_CLASSES)) + """---
# oxford-flowers (generated stand-in)
"""


def jpeg_bytes(rng: np.random.Generator) -> bytes:
    from PIL import Image

    long_side = int(rng.integers(500, 751))
    h, w = (500, long_side) if rng.random() < 0.6 else (long_side, 500)
    buf = io.BytesIO()
    Image.fromarray(smooth_image(h, w, rng)).save(buf, format="JPEG", quality=90)
    return buf.getvalue()


if __name__ == "__main__":
    from datasets import ClassLabel, Dataset, Features, Image

    root = Path(sys.argv[1]) / "nelorth" / "oxford-flowers"
    (root / "data").mkdir(parents=True, exist_ok=True)
    (root / "README.md").write_text(README)
    features = Features({"image": Image(), "label": ClassLabel(names=[str(i) for i in range(N_CLASSES)])})
    rng = np.random.default_rng(0)
    for split, n in (("train", N_TRAIN), ("test", N_TEST)):
        rows = {"image": [{"bytes": jpeg_bytes(rng), "path": None} for _ in range(n)],
                "label": [int(x) for x in rng.integers(0, N_CLASSES, n)]}
        Dataset.from_dict(rows, features=features).to_parquet(str(root / "data" / f"{split}-00000-of-00001.parquet"))
