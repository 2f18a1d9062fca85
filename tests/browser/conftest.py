import sys
from pathlib import Path

# report_fakes.py lives in tests/, one folder up.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
