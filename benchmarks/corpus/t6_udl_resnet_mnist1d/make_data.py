"""MNIST-1D for udlbook's Notebooks/Chap11/11_2_Residual_Networks.ipynb.

The notebook calls mnist1d.data.get_dataset(args, path='./mnist1d_data.pkl', download=False, regenerate=False): with
no file there it rebuilds the data set with mnist1d's own generator (make_dataset, seed 42 in the default args) and
pickles it to that path. Here the same generator writes RUN/Notebooks/Chap11/mnist1d_data.pkl ahead of the run (the
notebook's folder; the run's cwd), so the notebook only loads it: 4000 training / 1000 test sequences of length 40,
10 classes (the defaults of get_dataset_args). Run with the t6-a venv's python (mnist1d 0.0.2.post1).
"""
import sys
from pathlib import Path

from mnist1d.data import get_dataset_args, make_dataset
from mnist1d.utils import to_pickle

if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "Notebooks" / "Chap11"
    folder.mkdir(parents=True, exist_ok=True)
    to_pickle(make_dataset(get_dataset_args()), str(folder / "mnist1d_data.pkl"))
