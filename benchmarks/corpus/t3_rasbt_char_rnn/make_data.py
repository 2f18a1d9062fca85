"""A stand-in for A Tale of Two Cities (Gutenberg's 98-0.txt) for rasbt/deeplearning-models'
pytorch_ipynb/rnn/char_rnn-charlesdickens.ipynb.

RUN/pytorch_ipynb/rnn/98-0.txt: ~800,000 characters (the real file is 804,335 bytes, 776,058 characters after the
notebook's unidecode and space squeezing) of pseudo-English paragraphs from fakedata's pseudo_book, ASCII only,
so every character is in string.printable (the notebook's char_to_tensor looks each one up there). Only the size
matters: the notebook draws random 201-character portions from it.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_book  # noqa: E402


def write_text(path: Path, chars: int = 800_000) -> None:
    rng = np.random.default_rng(0)
    text = pseudo_book(chars, rng)  # wrapped at ~70 columns like the Gutenberg text
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text[:chars] + "\n", encoding="ascii")


if __name__ == "__main__":
    write_text(Path(sys.argv[1]) / "pytorch_ipynb" / "rnn" / "98-0.txt")
