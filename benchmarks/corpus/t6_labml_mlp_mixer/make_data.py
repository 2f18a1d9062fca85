"""A Tiny-Shakespeare-sized pseudo-text for labml_nn's transformers/mlp_mixer/experiment.py.

The MLM configs read text 'tiny_shakespeare' = TextFileDataset(lab.get_data_path() / 'tiny_shakespeare.txt', ...),
which downloads the file only when it is missing. labml's project root is the folder holding .labml.yaml (the run
folder), data_path 'data', so the file goes to RUN/data/tiny_shakespeare.txt: 330,000 characters (the real file has
1,115,394; cut to keep one epoch short on 2 CPU cores) of pseudo-English paragraphs (fakedata.pseudo_book), split 90/10
into train/valid by the dataset; the character vocabulary is built from the text. With seq_len 32 and batch 64 an epoch
is 145 training steps and 17 validation steps.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_book  # noqa: E402

if __name__ == "__main__":
    data = Path(sys.argv[1]) / "data"
    data.mkdir(parents=True, exist_ok=True)
    text = pseudo_book(400_000, np.random.default_rng(0))[:330_000]
    (data / "tiny_shakespeare.txt").write_text(text)
