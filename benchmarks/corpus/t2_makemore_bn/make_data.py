"""names.txt for karpathy/nn-zero-to-hero's lectures/makemore/makemore_part3_bn.ipynb (read from the notebook's folder).

makemore's names.txt is 32033 lowercase first names, one a line, 2-15 letters over a-z. We write 32033
pseudo-names of the same shape: 1-4 syllables drawn from a small seeded inventory (every letter a-z occurs, so
the vocabulary is 26 letters + '.' = 27 as in the lecture).
"""
import sys
from pathlib import Path

import numpy as np

ONSETS = ["", "b", "c", "d", "f", "g", "h", "j", "k", "l", "m", "n", "p", "qu", "r", "s", "t", "v", "w", "x", "y",
          "z", "br", "ch", "sh", "th", "st", "tr", "gr", "kl"]
VOWELS = ["a", "e", "i", "o", "u", "y", "ia", "ie", "ee", "ai", "ou", "ae"]
CODAS = ["", "", "", "n", "l", "r", "s", "h", "x", "th", "nn", "ll", "k", "m", "z", "v"]

if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "lectures" / "makemore"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    names = []
    while len(names) < 32033:
        name = "".join(rng.choice(ONSETS) + rng.choice(VOWELS) + rng.choice(CODAS)
                       for _ in range(int(rng.choice([1, 2, 3, 4], p=[0.15, 0.5, 0.28, 0.07]))))
        if 2 <= len(name) <= 15:
            names.append(name)
    assert set("".join(names)) == set("abcdefghijklmnopqrstuvwxyz")
    (folder / "names.txt").write_text("\n".join(names) + "\n")
