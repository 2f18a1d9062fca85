"""Fake MNIST + a stand-in for TensorFlow 1.x's MNIST tutorial loader, for wiseodd/generative-models'
VAE/vanilla_vae/vae_pytorch.py.

The script does `from tensorflow.examples.tutorials.mnist import input_data` and
`input_data.read_data_sets('../../MNIST_data', one_hot=True)`, then `mnist.train.next_batch(64)` every step. That
module existed only in TensorFlow 1.x (gone from 2.x; TF 1.x has no wheel for Python 3.11), so this writes:

* RUN/MNIST_data/{train,t10k}-{images-idx3,labels-idx1}-ubyte.gz: 60000 train / 1000 test 28x28 blob+noise images,
  random labels (the gzipped idx files TF's loader reads);
* RUN/VAE/vanilla_vae/tensorflow/examples/tutorials/mnist/input_data.py (+ empty __init__.py files): a numpy port of
  TF 1.x's contrib/learn/python/learn/datasets/mnist.py -- read the gz idx files, hold out the first 5000 training
  images as validation, images as float32 [0, 1] rows of 784, one-hot labels, and DataSet.next_batch shuffling at the
  first call and at each epoch end, joining the epoch's tail with the next epoch's head -- so the script's data path
  is what it was: numpy slicing of an in-memory array in the main process. It shadows any installed tensorflow only
  for this script (its folder is first on sys.path).
"""
import gzip
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import mnist_idx  # noqa: E402

INPUT_DATA = '''"""Stand-in for tensorflow.examples.tutorials.mnist.input_data (TF 1.x), numpy only (benchmarks/corpus)."""
import collections
import gzip
import os

import numpy as np

Datasets = collections.namedtuple("Datasets", ["train", "validation", "test"])


def _read32(f):
    return int(np.frombuffer(f.read(4), dtype=np.dtype(np.uint32).newbyteorder(">"))[0])


def extract_images(f):
    with gzip.GzipFile(fileobj=f) as bytestream:
        if _read32(bytestream) != 2051:
            raise ValueError("Invalid magic number in MNIST image file: %s" % f.name)
        num_images, rows, cols = _read32(bytestream), _read32(bytestream), _read32(bytestream)
        data = np.frombuffer(bytestream.read(rows * cols * num_images), dtype=np.uint8)
        return data.reshape(num_images, rows, cols, 1)


def dense_to_one_hot(labels_dense, num_classes):
    num_labels = labels_dense.shape[0]
    index_offset = np.arange(num_labels) * num_classes
    labels_one_hot = np.zeros((num_labels, num_classes))
    labels_one_hot.flat[index_offset + labels_dense.ravel()] = 1
    return labels_one_hot


def extract_labels(f, one_hot=False, num_classes=10):
    with gzip.GzipFile(fileobj=f) as bytestream:
        if _read32(bytestream) != 2049:
            raise ValueError("Invalid magic number in MNIST label file: %s" % f.name)
        num_items = _read32(bytestream)
        labels = np.frombuffer(bytestream.read(num_items), dtype=np.uint8)
        return dense_to_one_hot(labels, num_classes) if one_hot else labels


class DataSet(object):
    def __init__(self, images, labels, dtype=np.float32, reshape=True, seed=None):
        np.random.seed(seed)
        self._num_examples = images.shape[0]
        if reshape:
            images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
        if dtype == np.float32:
            images = images.astype(np.float32)
            images = np.multiply(images, 1.0 / 255.0)
        self._images = images
        self._labels = labels
        self._epochs_completed = 0
        self._index_in_epoch = 0

    @property
    def images(self):
        return self._images

    @property
    def labels(self):
        return self._labels

    @property
    def num_examples(self):
        return self._num_examples

    @property
    def epochs_completed(self):
        return self._epochs_completed

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        start = self._index_in_epoch
        if self._epochs_completed == 0 and start == 0 and shuffle:
            perm0 = np.arange(self._num_examples)
            np.random.shuffle(perm0)
            self._images = self.images[perm0]
            self._labels = self.labels[perm0]
        if start + batch_size > self._num_examples:
            self._epochs_completed += 1
            rest_num_examples = self._num_examples - start
            images_rest_part = self._images[start:self._num_examples]
            labels_rest_part = self._labels[start:self._num_examples]
            if shuffle:
                perm = np.arange(self._num_examples)
                np.random.shuffle(perm)
                self._images = self.images[perm]
                self._labels = self.labels[perm]
            start = 0
            self._index_in_epoch = batch_size - rest_num_examples
            end = self._index_in_epoch
            images_new_part = self._images[start:end]
            labels_new_part = self._labels[start:end]
            return (np.concatenate((images_rest_part, images_new_part), axis=0),
                    np.concatenate((labels_rest_part, labels_new_part), axis=0))
        self._index_in_epoch += batch_size
        end = self._index_in_epoch
        return self._images[start:end], self._labels[start:end]


def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype=np.float32, reshape=True,
                   validation_size=5000, seed=None, source_url=None):
    def load(name, fn):
        with open(os.path.join(train_dir, name), "rb") as f:
            return fn(f)

    train_images = load("train-images-idx3-ubyte.gz", extract_images)
    train_labels = load("train-labels-idx1-ubyte.gz", lambda f: extract_labels(f, one_hot=one_hot))
    test_images = load("t10k-images-idx3-ubyte.gz", extract_images)
    test_labels = load("t10k-labels-idx1-ubyte.gz", lambda f: extract_labels(f, one_hot=one_hot))
    validation_images, validation_labels = train_images[:validation_size], train_labels[:validation_size]
    train_images, train_labels = train_images[validation_size:], train_labels[validation_size:]
    options = dict(dtype=dtype, reshape=reshape, seed=seed)
    return Datasets(train=DataSet(train_images, train_labels, **options),
                    validation=DataSet(validation_images, validation_labels, **options),
                    test=DataSet(test_images, test_labels, **options))
'''

if __name__ == "__main__":
    run = Path(sys.argv[1])
    data = run / "MNIST_data"
    mnist_idx(data, n_train=60000, n_test=1000)
    for raw in sorted(data.glob("*-ubyte")):
        with open(raw, "rb") as src, gzip.GzipFile(str(raw) + ".gz", "wb", mtime=0) as dst:
            shutil.copyfileobj(src, dst)
        raw.unlink()
    pkg = run / "VAE" / "vanilla_vae" / "tensorflow"
    for sub in ("", "examples", "examples/tutorials", "examples/tutorials/mnist"):
        (pkg / sub).mkdir(parents=True, exist_ok=True)
        (pkg / sub / "__init__.py").write_text("")
    (pkg / "examples" / "tutorials" / "mnist" / "input_data.py").write_text(INPUT_DATA)
