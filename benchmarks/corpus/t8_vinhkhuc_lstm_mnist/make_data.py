"""Fake MNIST for vinhkhuc/PyTorch-Mini-Tutorials' 6_lstm.py.

data_util.load_mnist reads the four gzip'd idx files from RUN/datasets/mnist/ (it downloads only when one is
missing) and reshapes them to exactly 60000 train / 10000 test images, so the full sizes are needed: fakedata's
mnist_idx writes the uncompressed idx files (blob+noise 28x28 digits, random labels) to a temporary folder and they
are gzip'd here under the names the script expects. An epoch is 60000 // 100 = 600 steps.
"""
import gzip
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    out = Path(sys.argv[1]) / "datasets" / "mnist"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        mnist_idx(tmp, n_train=60000, n_test=10000)
        for raw in sorted(Path(tmp).iterdir()):
            with open(raw, "rb") as src, gzip.GzipFile(out / (raw.name + ".gz"), "wb", mtime=0) as dst:
                shutil.copyfileobj(src, dst)
