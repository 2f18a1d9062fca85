"""Fashion-MNIST stand-in for fastai/course22p2's nbs/13_resnet.ipynb (run with the corpus-t16-D python:
datasets/pyarrow, Pillow).

- RUN/nbs/fashion_mnist: the notebook's load_dataset("fashion_mnist") runs in the notebook's folder (the recipe's
  cwd), where a local directory of that name comes before the Hub. Laid out as the Hub dataset repository
  (zalando-datasets/fashion_mnist): a README.md whose YAML `configs` names the config fashion_mnist and its data
  files and whose `dataset_info` gives the Hub features in their order (image: Image, label: ClassLabel with the 10
  Fashion-MNIST class names), and fashion_mnist/{train,test}-00000-of-00001.parquet with the image column stored as
  the Hub stores it (a struct of PNG bytes and path), so each row is decoded from PNG by PIL at access time, as with
  the real data. Images: 28x28 greyscale blobs on a noisy ground (fakedata's MNIST-like generator, seeded), labels
  uniform 0-9. 3072 / 1024 rows instead of 60000 / 10000: 3 training batches of 1024 and 1 validation batch (of up to 2048)
  per epoch.
"""
import io
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import _blob_digits  # noqa: E402

SPLITS = {"train": 3072, "test": 1024}
NAMES = ["T - shirt / top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
         "Ankle boot"]

README = "\n".join(
    ["---", "configs:", "- config_name: fashion_mnist", "  data_files:",
     "  - split: train", "    path: fashion_mnist/train-*", "  - split: test", "    path: fashion_mnist/test-*",
     "  default: true",
     "dataset_info:", "  config_name: fashion_mnist", "  features:",
     "  - name: image", "    dtype: image", "  - name: label", "    dtype:", "      class_label:", "        names:"]
    + [f"          '{i}': {n}" for i, n in enumerate(NAMES)] + ["---", ""])


def write_fashion_mnist(folder: Path, seed: int = 0) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq
    from PIL import Image

    (folder / "fashion_mnist").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(README)
    rng = np.random.default_rng(seed)
    for split, n in SPLITS.items():
        images = _blob_digits(n, 28, rng)
        labels = rng.integers(0, 10, n)
        pngs = []
        for im in images:
            buf = io.BytesIO()
            Image.fromarray(im, mode="L").save(buf, format="PNG")
            pngs.append(buf.getvalue())
        image_type = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
        table = pa.table({"image": pa.array([{"bytes": b, "path": None} for b in pngs], image_type),
                          "label": pa.array(labels.tolist(), pa.int64())})
        pq.write_table(table, folder / "fashion_mnist" / f"{split}-00000-of-00001.parquet")


if __name__ == "__main__":
    write_fashion_mnist(Path(sys.argv[1]) / "nbs" / "fashion_mnist")
