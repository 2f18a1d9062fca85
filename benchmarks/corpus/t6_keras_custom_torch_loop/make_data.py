"""Fake MNIST for keras-team/keras's examples/demo_custom_torch_workflow.py (a Keras model in a hand-written torch loop).

keras.datasets.mnist.load_data() opens $KERAS_HOME/datasets/mnist.npz (the recipe sets KERAS_HOME=keras_home, relative
to the run folder); its sha256 check is bypassed by the recipe's one-line edit. Written here: x_train 16000 x 28 x 28,
x_test 1000 x 28 x 28 uint8 blob+noise images (fakedata's MNIST-like blobs), random uint8 labels 0-9 (the script
feeds them to CrossEntropyLoss as they are, like the real file's uint8 labels). The script trains twice (the
keras.Sequential itself, then wrapped in an nn.Module), each one epoch of 250 steps of 64.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import keras_mnist_npz  # noqa: E402

if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "keras_home" / "datasets"
    folder.mkdir(parents=True, exist_ok=True)
    keras_mnist_npz(folder / "mnist.npz", 16000, 1000)
