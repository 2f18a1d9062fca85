"""Fake MNIST for keras-team/keras's examples/demo_mnist_convnet.py (Keras 3 on the PyTorch backend).

keras.datasets.mnist.load_data() opens $KERAS_HOME/datasets/mnist.npz (the recipe sets KERAS_HOME=keras_home, relative
to the run folder); its sha256 check is bypassed by the recipe's one-line edit. Written here: x_train 8000 x 28 x 28,
x_test 1000 x 28 x 28 uint8 blob+noise images (fakedata's MNIST-like blobs), random uint8 labels 0-9. The script keeps
10% of x_train for validation (validation_split=0.1): 7200 training images, 57 steps of 128 per epoch (the last one of 32), 3 epochs.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import keras_mnist_npz  # noqa: E402

if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "keras_home" / "datasets"
    folder.mkdir(parents=True, exist_ok=True)
    keras_mnist_npz(folder / "mnist.npz", 8000, 1000)
