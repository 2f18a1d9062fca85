"""Fake Keras datasets for fchollet/deep-learning-with-python-notebooks' chapter04_classification-and-regression.ipynb
(3rd edition, Keras 3, run on the PyTorch backend).

keras.datasets.* open $KERAS_HOME/datasets/<file> (the recipe sets KERAS_HOME=keras_home, relative to the run folder);
their hash checks are bypassed by the recipe's edit of the KERAS_BACKEND line. Written here (seeded):
- imdb.npz: x_train / x_test object arrays of word-id lists (Zipf ids 1..11999, lengths 40-400, mean ~220, like IMDB),
  y_train / y_test 0/1: N_IMDB_TRAIN train, N_IMDB_TEST test (the notebook holds out x_train[:10000] for validation;
  the recipe's edits make that x_train[:2500], so the training split must exceed 2500);
- imdb_word_index.json / reuters_word_index.json: 12000 pseudo-words -> rank (only used to decode one review / newswire);
- reuters.npz: x object array of word-id lists (lengths 20-300), y in 0..45; load_data keeps 80% for training
  (the notebook holds out 1000 of them for validation);
- california_housing.npz: x (N_HOUSING x 8 float32, housing-like columns), y (prices 15000-500000): the notebook's
  version="small" keeps the first 600 rows, so with 200 rows it gets 160 train / 40 test (the real small version:
  480 / 120).
"""
import json
import sys
from pathlib import Path

import numpy as np

N_IMDB_TRAIN, N_IMDB_TEST = 3000, 1000
N_REUTERS = 2000
N_HOUSING = 200
SYLLABLES = ["ka", "ro", "mi", "ten", "sa", "lo", "ver", "an", "di", "po", "re", "ul", "the", "and", "of",
             "it", "es", "ma", "no", "wi", "gar", "bel", "st", "ion", "er", "in", "ou", "pre", "con", "ly"]


def _object_array(seqs):
    out = np.empty(len(seqs), dtype=object)
    for i, s in enumerate(seqs):
        out[i] = s  # plain Python lists of ints (what keras' restricted unpickler accepts)
    return out


def _sequences(n, rng, lo, hi, vocab=11999):
    lengths = rng.integers(lo, hi + 1, n)
    ids = np.minimum(rng.zipf(1.25, int(lengths.sum())), vocab)
    out, at = [], 0
    for length in lengths:
        out.append([int(w) for w in ids[at:at + length]])
        at += length
    return out


def _word_index(rng, n=12000):
    words, seen = [], set()
    while len(words) < n:
        w = "".join(rng.choice(SYLLABLES, size=rng.integers(2, 5)))
        if w not in seen:
            seen.add(w)
            words.append(w)
    return {w: i + 1 for i, w in enumerate(words)}


if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "keras_home" / "datasets"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    np.savez(folder / "imdb.npz",
             x_train=_object_array(_sequences(N_IMDB_TRAIN, rng, 40, 400)),
             y_train=rng.integers(0, 2, N_IMDB_TRAIN).astype(np.int64),
             x_test=_object_array(_sequences(N_IMDB_TEST, rng, 40, 400)),
             y_test=rng.integers(0, 2, N_IMDB_TEST).astype(np.int64))
    np.savez(folder / "reuters.npz", x=_object_array(_sequences(N_REUTERS, rng, 20, 300)),
             y=rng.integers(0, 46, N_REUTERS).astype(np.int64))
    index = _word_index(rng)
    (folder / "imdb_word_index.json").write_text(json.dumps(index))
    (folder / "reuters_word_index.json").write_text(json.dumps(index))
    n = N_HOUSING
    x = np.stack([rng.uniform(0.5, 15, n), rng.integers(1, 52, n), rng.uniform(2, 10, n), rng.uniform(0.8, 2, n),
                  rng.integers(3, 5000, n), rng.uniform(1, 6, n), rng.uniform(32.5, 42, n), rng.uniform(-124, -114, n)],
                 axis=1).astype(np.float32)
    y = np.clip(40000 * x[:, 0] + rng.normal(0, 40000, n), 15000, 500000).astype(np.float32)
    np.savez(folder / "california_housing.npz", x=x, y=y)
