"""A generated stand-in for the Yelp "lite" review CSV of joosthub/PyTorchNLPBook's chapter 3 notebook.

The notebook reads RUN/chapters/chapter_3/data/yelp/reviews_with_splits_lite.csv (columns rating, review, split; the
book's 3_5_yelp_dataset_preprocessing_LITE notebook makes it from the Yelp polarity set: 39200 train / 8400 val /
8400 test reviews, lower-cased, punctuation split off as its own token). Ours has the same columns and the same
split sizes: balanced 'negative'/'positive' ratings, each review 40-220 Zipf-drawn pseudo-words with " . " and " , "
tokens, a few rating-linked words so that the perceptron has something to learn. With the notebook's frequency
cutoff of 25 the vocabulary comes out at a few thousand words (the real lite set gives 7356). Each __getitem__ does
a pandas .iloc row lookup and a Python loop over the review's tokens into a vocabulary-sized one-hot vector.
"""
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_words  # noqa: E402

SPLITS = {"train": 39200, "val": 8400, "test": 8400}

if __name__ == "__main__":
    out = Path(sys.argv[1]) / "chapters" / "chapter_3" / "data" / "yelp"
    out.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    n = sum(SPLITS.values())
    lengths = rng.integers(40, 221, n)
    words = pseudo_words(int(lengths.sum()), rng, vocab=12000)
    cue = {"negative": ["awful", "rude", "bland", "never", "worst"], "positive": ["great", "delicious", "friendly", "amazing", "best"]}
    rows, at = [], 0
    splits = [s for s, k in SPLITS.items() for _ in range(k)]
    for i, (length, split) in enumerate(zip(lengths, splits)):
        rating = "negative" if i % 2 == 0 else "positive"
        chunk = words[at:at + length]
        at += length
        for j in range(0, len(chunk), 12):
            if rng.random() < 0.6:
                chunk[j] = cue[rating][int(rng.integers(0, 5))]
        for j in range(9, len(chunk), 11):
            chunk[j] += " ." if j % 2 else " ,"
        rows.append((rating, " ".join(chunk) + " .", split))
    pd.DataFrame(rows, columns=["rating", "review", "split"]).to_csv(out / "reviews_with_splits_lite.csv", index=False)
