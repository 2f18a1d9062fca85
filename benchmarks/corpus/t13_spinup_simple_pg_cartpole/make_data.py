"""No data to make for openai/spinningup's pg_math/1_simple_pg.py: it trains on gym's CartPole-v0, which is simulated
in-process (no download). Kept so that prepare.py has a make_data step like the other recipes."""
import sys
from pathlib import Path

if __name__ == "__main__":
    Path(sys.argv[1]).mkdir(parents=True, exist_ok=True)
