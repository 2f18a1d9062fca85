"""Fake surname lists for spro/practical-pytorch's char-rnn-classification/train.py.

data.py reads glob('../data/names/*.txt') from the script's folder (the cwd): one file per language, one name a line.
Here RUN/data/names/ gets the 18 file names of the real data set (Arabic.txt ... Vietnamese.txt) with pseudo-names of
3-12 ASCII letters drawn from a per-language letter distribution (so the task is learnable), 100-2000 names a file
(the real files hold 74-9408 names, 20074 in all). The training loop samples a random language, then a random name,
each iteration: the file sizes only change what is sampled, not the cost of a step.
"""
import sys
import string
from pathlib import Path

import numpy as np

LANGUAGES = ["Arabic", "Chinese", "Czech", "Dutch", "English", "French", "German", "Greek", "Irish", "Italian",
             "Japanese", "Korean", "Polish", "Portuguese", "Russian", "Scottish", "Spanish", "Vietnamese"]

if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "data" / "names"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    letters = np.array(list(string.ascii_lowercase))
    for lang in LANGUAGES:
        p = rng.dirichlet(np.full(26, 0.5))
        names = set()
        for _ in range(int(rng.integers(100, 2000))):
            name = "".join(rng.choice(letters, size=int(rng.integers(3, 13)), p=p))
            names.add(name.capitalize())
        (folder / f"{lang}.txt").write_text("\n".join(sorted(names)) + "\n")
