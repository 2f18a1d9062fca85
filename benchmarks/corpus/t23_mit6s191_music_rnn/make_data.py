"""Data for aamini/introtodeeplearning's lab1/solutions/PT_Part2_Music_Generation_Solution.ipynb (MIT 6.S191, Lab 1
Part 2, PyTorch: music generation with an LSTM), run with the corpus-t23-E python.

The notebook downloads nothing itself: mdl.lab1.load_training_data() reads the Irish folk song file irish.abc
(817 songs in ABC notation, 197,618 characters) that ships inside the mitdeeplearning package (0.7.5, installed in
the venv from PyPI, as the notebook's `!pip install mitdeeplearning` would). Training draws random 100-character
windows from that text (get_batch), so the data's size does not change a step's cost. So there is nothing to
generate: this only checks that the packaged file is there and makes the notebook's checkpoint folder, and writes
a small matplotlibrc (backend Agg) next to the notebook so that PeriodicPlotter draws off-screen.
"""
import sys
from pathlib import Path

if __name__ == "__main__":
    run = Path(sys.argv[1])
    here = run / "lab1" / "solutions"
    here.mkdir(parents=True, exist_ok=True)
    try:
        import importlib.util
        spec = importlib.util.find_spec("mitdeeplearning")
        abc = Path(spec.origin).parent / "data" / "irish.abc" if spec else None
    except Exception:  # noqa: BLE001
        abc = None
    if abc is None or not abc.is_file():
        raise SystemExit("mitdeeplearning (0.7.5) with its data/irish.abc must be installed in the recipe's venv")
    (here / "training_checkpoints").mkdir(exist_ok=True)
    (here / "matplotlibrc").write_text("backend: Agg\n")
