"""A stand-in for The Mysterious Island (Gutenberg's 1268-0.txt) for rasbt/machine-learning-book's ch15/ch15_part3.py.

RUN/1268-0.txt: ~1,170,000 characters (the real file is 1,171,600 bytes) of pseudo-English paragraphs (fakedata's
pseudo_book, wrapped at ~70 columns), between a Gutenberg-like header holding 'THE MYSTERIOUS ISLAND' and a
trailer holding 'End of the Project Gutenberg' (the script keeps the text between those two markers). The script
cuts it into ~1.17 M overlapping 41-character chunks (one per position) and draws batches of 64 from them; only the
size matters (the character set is smaller than the novel's ~80: letters, comma, full stop, space, newline).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_book  # noqa: E402


def write_text(path: Path, chars: int = 1_170_000) -> None:
    rng = np.random.default_rng(0)
    text = pseudo_book(chars, rng)
    header = "The Project Gutenberg eBook of The Mysterious Island, by Jules Verne\n\n\n\nTHE MYSTERIOUS ISLAND\n\n"
    trailer = "\n\nEnd of the Project Gutenberg EBook of The Mysterious Island, by Jules Verne\n"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(header + text[:chars] + trailer, encoding="utf8")


if __name__ == "__main__":
    write_text(Path(sys.argv[1]) / "1268-0.txt")
