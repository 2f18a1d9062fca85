"""Data for facebookresearch/dlrm's dlrm_s_pytorch.py with --data-generation=random: nothing to write.

The script makes its own input at run time (dlrm_data_pytorch.RandomDataset, seeded by --numpy-rand-seed, default
123, reset at index 0): each batch of 128 has 13 uniform dense features, and for each of the 26 embedding tables 1-10
uniform random indices per sample (generate_dist_input_batch, a Python loop over tables x samples with np.unique),
and random 0/1 click targets. There is no file to read and no weight to download; this script only makes sure the run
folder exists, so that the recipe keeps the corpus's shape.
"""
import sys
from pathlib import Path

if __name__ == "__main__":
    Path(sys.argv[1]).mkdir(parents=True, exist_ok=True)
