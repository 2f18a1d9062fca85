"""Fake data for the sample scripts, so that every sample runs offline.

Nothing here is part of what a sample plants: it only stands in for the
download a real script would do (CIFAR-10, an image folder, a data share).
"""

from __future__ import annotations

import os

import numpy as np

__all__ = ["fake_cifar10", "write_jpeg_folder", "write_npy_files", "fake_sentences"]


def fake_cifar10(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """CIFAR-10-shaped arrays: ``n`` uint8 images (n, 32, 32, 3) and int labels.

    Each class gets its own mean colour, so a model can actually learn something.
    """
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, size=n)
    class_colour = rng.integers(40, 216, size=(10, 1, 1, 3))
    noise = rng.normal(0, 40, size=(n, 32, 32, 3))
    images = np.clip(class_colour[labels] + noise, 0, 255).astype(np.uint8)
    return images, labels.astype(np.int64)


def _photo_like(rng: np.random.Generator, width: int, height: int) -> np.ndarray:
    """A smooth random image (upsampled coarse noise + grain): JPEG sizes like a photo's."""
    from PIL import Image

    coarse = rng.integers(0, 256, size=(height // 64 + 1, width // 64 + 1, 3), dtype=np.uint8)
    smooth = np.asarray(Image.fromarray(coarse).resize((width, height), Image.BICUBIC))
    grain = rng.integers(-12, 13, size=smooth.shape)
    return np.clip(smooth.astype(np.int16) + grain, 0, 255).astype(np.uint8)


def write_jpeg_folder(root: str, n: int, size: tuple[int, int] = (1600, 1200),
                      classes: int = 2, seed: int = 0, quality: int = 90) -> str:
    """An ImageFolder tree ``root/class_k/img_i.jpg`` of ``n`` JPEGs of ``size`` (w, h).

    Only a few distinct images are encoded, then copied byte for byte, so that
    making a folder of full-size photos takes a second, not a minute.
    """
    from PIL import Image

    rng = np.random.default_rng(seed)
    distinct = []
    for _ in range(min(n, 4)):
        path = os.path.join(root, f"_distinct_{len(distinct)}.jpg")
        Image.fromarray(_photo_like(rng, *size)).save(path, quality=quality)
        with open(path, "rb") as f:
            distinct.append(f.read())
        os.remove(path)
    for k in range(classes):
        os.makedirs(os.path.join(root, f"class_{k}"), exist_ok=True)
    for i in range(n):
        path = os.path.join(root, f"class_{i % classes}", f"img_{i:05d}.jpg")
        with open(path, "wb") as f:
            f.write(distinct[i % len(distinct)])
    return root


def write_npy_files(root: str, n: int, shape: tuple[int, ...] = (3, 64, 64),
                    seed: int = 0) -> list[str]:
    """``n`` float32 arrays saved as ``root/sample_i.npy`` (a pre-processed data set on disk)."""
    rng = np.random.default_rng(seed)
    paths = []
    for i in range(n):
        path = os.path.join(root, f"sample_{i:05d}.npy")
        np.save(path, rng.standard_normal(shape, dtype=np.float32))
        paths.append(path)
    return paths


_WORDS = ("the movie was great fun and the acting superb but the plot dragged a little "
          "terrible boring slow awful waste of time loved every minute brilliant cast "
          "would not watch again music score camera work dialogue ending surprise").split()


def fake_sentences(n: int, words: int = 60, seed: int = 0) -> tuple[list[str], list[int]]:
    """``n`` review-like sentences of ``words`` words, with a 0/1 label each."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 2, size=n).tolist()
    picks = rng.integers(0, len(_WORDS), size=(n, words))
    sentences = [" ".join(_WORDS[j] for j in row) for row in picks]
    return sentences, labels
