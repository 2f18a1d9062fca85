"""`python -m parity_pkg.mod`: the same report as parity.py, for -m."""
import json
import os
import sys

if __name__ == "__main__":
    print("PARITY " + json.dumps({"name": __name__, "argv": sys.argv, "path0": sys.path[0], "cwd": os.getcwd()}))
