"""Pseudo-English input.txt for karpathy/ng-video-lecture's gpt.py (the same writer as t6_ngvideo_bigram).

The script opens ./input.txt (tiny Shakespeare, 1,115,394 characters) and builds its character vocabulary from it.
RUN/input.txt: exactly 1,115,394 characters of fakedata's pseudo_book (paragraphs of pseudo-English sentences
wrapped at ~70 columns), seeded; 45 distinct characters instead of Shakespeare's 65, so the token embedding and
lm_head have 45 rows instead of 65 (10.77 M parameters instead of 10.79 M; nothing else depends on the text).
"""
import runpy
import sys
from pathlib import Path

if __name__ == "__main__":  # bigram.py's writer, byte for byte: both scripts read the same input.txt
    runpy.run_path(str(Path(__file__).resolve().parent.parent / "t6_ngvideo_bigram" / "make_data.py"), run_name="__main__")
