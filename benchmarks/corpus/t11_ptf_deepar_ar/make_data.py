"""No data files for pytorch-forecasting's examples/ar.py: the script generates its own data set in memory
(pytorch_forecasting.data.examples.generate_ar_data(seasonality=10.0, timesteps=400, n_series=100), seeded by
the library), so nothing is downloaded. This only makes sure the run folder's examples/ exists (the script writes
training.pkl, validation.pkl and lightning_logs/ into its working directory)."""
import sys
from pathlib import Path

if __name__ == "__main__":
    (Path(sys.argv[1]) / "examples").mkdir(parents=True, exist_ok=True)
