"""Fake ETTh1 (Electricity Transformer Temperature, hourly) for cure-lab/LTSF-Linear's run_longExp.py.

The script reads ROOT_PATH/ETTh1.csv (--root_path ./dataset/ --data_path ETTh1.csv, as the repository's
scripts/EXP-LongForecasting/Linear/etth1.sh) with columns date, HUFL, HULL, MUFL, MULL, LUFL, LULL, OT and cuts
it at fixed rows: train 0-8640, val 8640-11520, test 11520-14400 (12/4/4 months of hours). We write 17420 hourly
rows (the real file's length) from 2016-07-01 00:00: daily and weekly sinusoids + a random walk + noise, seeded.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import ett_csv  # noqa: E402


if __name__ == "__main__":
    ett_csv(Path(sys.argv[1]) / "dataset" / "ETTh1.csv")
