"""A fake ETTh2 for thuml/Time-Series-Library's run.py (long-term forecasting, --data ETTh2).

The script reads --root_path ./dataset/ETT-small/ + --data_path ETTh2.csv with pandas (only when the file is
missing would it fall back to datasets.load_dataset from the Hugging Face hub). Dataset_ETT_hour cuts fixed
borders (train rows 0-8640, val 8544-11520, test 11424-14400), so the file has the real ETTh2's 17420 hourly rows:
date + HUFL, HULL, MUFL, MULL, LUFL, LULL, OT (daily/weekly sinusoids + random walk + noise, seeded).
With seq_len 96 / pred_len 96 that is 8449 training windows (265 steps of 32), 2785 val and 2785 test windows.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import ett_csv  # noqa: E402

if __name__ == "__main__":
    ett_csv(Path(sys.argv[1]) / "dataset" / "ETT-small" / "ETTh2.csv", rows=17420, freq="h")
