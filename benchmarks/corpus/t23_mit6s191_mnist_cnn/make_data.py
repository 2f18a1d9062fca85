"""MNIST stand-in for aamini/introtodeeplearning's lab2/solutions/PT_Part1_MNIST_Solution.ipynb (MIT 6.S191 Lab 2
Part 1, PyTorch), run with the corpus-t23-E python.

- RUN/lab2/solutions/data/MNIST/raw: torchvision's MNIST raw files (uncompressed idx), which
  datasets.MNIST(root='./data', download=True) finds before downloading (fakedata.mnist_idx: blob "digits" with
  MNIST-like statistics, random labels, seeded), as many as the real MNIST: 60,000 training / 10,000 test images,
  938 steps of 64 per epoch (the fully connected model's 5 epochs = 4,690 steps, the CNN's 7 epochs = 6,566 steps),
  157 test batches. Each item is still decoded the way torchvision does it (uint8 tensor -> PIL Image -> ToTensor).
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

if __name__ == "__main__":
    run = Path(sys.argv[1])
    mnist_idx(run / "lab2" / "solutions" / "data" / "MNIST" / "raw", n_train=60000, n_test=10000, seed=0)
