"""Nothing to write for locuslab/TCN's TCN/adding_problem/add_test.py.

The adding problem's data is synthetic and made by the script itself at start (utils.data_generator: uniform
random numbers plus a two-hot mask per sequence, target = the sum of the two marked numbers, seeded by --seed
through torch.manual_seed; positions from numpy's unseeded global RNG). This file only checks the run folder.
"""
import sys
from pathlib import Path

if __name__ == "__main__":
    run = Path(sys.argv[1])
    for name in ("TCN/adding_problem/add_test.py", "TCN/adding_problem/model.py", "TCN/adding_problem/utils.py",
                 "TCN/tcn.py"):
        if not (run / name).is_file():
            raise SystemExit(f"{run / name} is missing")
