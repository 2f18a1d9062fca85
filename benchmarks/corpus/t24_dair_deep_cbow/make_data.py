"""SST-5 sentence-classification stand-in for dair-ai/ML-Notebooks' notebooks/deep_cbow.ipynb (any python with numpy).

- RUN/notebooks/data/classes/{train,dev,test}.txt: the files that the notebook's (commented-out) download cell would fetch from
  neubig/nn4nlp-code (data/classes, the Stanford Sentiment Treebank's five classes) and copy into ./data/classes,
  in the same format: one sentence a line, `LABEL ||| tokenised sentence`, LABEL 0-4, lower-case-able tokens
  separated by single spaces (punctuation as tokens, as in SST). Sentences of 2-52 Zipf pseudo-words (mean ~19 like
  SST's), a vocabulary drawn from 16,000 pseudo-words (SST's training set has ~16.5k distinct words; with fewer
  sentences fewer of them appear), labels uniform 0-4 (seeded). SIZES rows instead of 8544 / 1101 / 2210.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_words  # noqa: E402

SIZES = {"train": 2000, "dev": 250, "test": 500}
PUNCT = [",", ".", "'s", "--", "n't", "...", "!", "?"]


def sentences(n: int, rng: np.random.Generator) -> list[str]:
    lengths = np.clip(rng.gamma(3.0, 19.0 / 3.0, n).astype(int), 2, 52)
    words = pseudo_words(int(lengths.sum()), rng, vocab=16000)
    out, at = [], 0
    for length in lengths:
        chunk = words[at:at + length]
        at += length
        for j in range(4, len(chunk) - 1, 6):
            chunk[j] = PUNCT[int(rng.integers(0, len(PUNCT)))]
        chunk[-1] = "."
        out.append(" ".join(chunk))
    return out


def main(run: str) -> None:
    folder = Path(run) / "notebooks" / "data" / "classes"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(24)
    for split, n in SIZES.items():
        labels = rng.integers(0, 5, n)
        lines = [f"{label} ||| {text}" for label, text in zip(labels, sentences(n, rng))]
        (folder / f"{split}.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(sys.argv[1])
