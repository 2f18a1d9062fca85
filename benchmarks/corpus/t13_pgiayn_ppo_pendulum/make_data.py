"""No data to make for MrSyee/pg-is-all-you-need's 02.PPO.ipynb: it trains on gymnasium's Pendulum-v1, which is simulated
in-process (no download). Kept so that prepare.py has a make_data step like the other recipes."""
import sys
from pathlib import Path

if __name__ == "__main__":
    Path(sys.argv[1]).mkdir(parents=True, exist_ok=True)
