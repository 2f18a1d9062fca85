"""Pseudo-English input.txt for karpathy/ng-video-lecture's bigram.py (and gpt.py: see t6_ngvideo_gpt).

The script opens ./input.txt (tiny Shakespeare, 1,115,394 characters) and builds its character vocabulary from it.
RUN/input.txt: exactly 1,115,394 characters of fakedata's pseudo_book (paragraphs of pseudo-English sentences
wrapped at ~70 columns), seeded; 45 distinct characters instead of Shakespeare's 65, so the embedding table is
45x45 instead of 65x65 (nothing else depends on the text).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_book  # noqa: E402

CHARS = 1_115_394  # the size of tiny Shakespeare's input.txt

if __name__ == "__main__":
    run = Path(sys.argv[1])
    run.mkdir(parents=True, exist_ok=True)
    text = pseudo_book(CHARS, np.random.default_rng(0))[:CHARS]
    (run / "input.txt").write_text(text, encoding="utf-8")
