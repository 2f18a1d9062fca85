"""Fake CIFAR-10 for baofff/U-ViT's train.py (U-ViT diffusion on pixels, loop driven by Hugging Face accelerate).

datasets.py builds torchvision.datasets.CIFAR10('assets/datasets/cifar10', download=True) for train and test and
asserts len(train.targets) == 50000, so this writes the full CIFAR-10 sizes in torchvision's pickle format:
RUN/assets/datasets/cifar10/cifar-10-batches-py/data_batch_1..5 (50000 smooth 32x32 RGB images, uint8, random labels
0-9), test_batch (10000) and batches.meta (seeded; fakedata.cifar10_pickles).

train.py also asserts that the FID reference statistics exist (assets/fid_stats/fid_stats_cifar10_train_pytorch.npz,
mu (2048,) and sigma (2048, 2048) of Inception pool features); a stand-in is written (mu = 0, sigma = I, compressed).
The FID evaluation itself never runs in the recipe (see its `changes`).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import cifar10_pickles  # noqa: E402


def main(run: Path) -> None:
    cifar10_pickles(run / "assets" / "datasets" / "cifar10", n_train=50000, n_test=10000, seed=29)
    stats = run / "assets" / "fid_stats"
    stats.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(stats / "fid_stats_cifar10_train_pytorch.npz", mu=np.zeros(2048),
                        sigma=np.eye(2048))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
