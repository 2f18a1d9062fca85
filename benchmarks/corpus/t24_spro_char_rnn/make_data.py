"""Fake tiny-shakespeare for spro/char-rnn.pytorch's train.py.

The README has the user download karpathy's tinyshakespeare input.txt (1,115,394 ASCII characters) as
shakespeare.txt and run `python train.py shakespeare.txt`. We write RUN/shakespeare.txt: a pseudo-English book of
the same length (paragraphs of generated sentences wrapped at ~70 columns, all characters in string.printable),
seeded. The script reads it whole and draws random 201-character chunks from it, so only its length and alphabet
matter.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_book  # noqa: E402

N_CHARS = 1_115_394  # tinyshakespeare's length

if __name__ == "__main__":
    text = pseudo_book(N_CHARS + 20_000, np.random.default_rng(0))[:N_CHARS]
    (Path(sys.argv[1]) / "shakespeare.txt").write_text(text)
