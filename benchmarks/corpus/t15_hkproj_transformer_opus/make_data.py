"""Fake opus_books (en-it) for hkproj/pytorch-transformer's train.py.

The script calls datasets.load_dataset("opus_books", "en-it", split="train") from its own folder. A local folder
named opus_books wins over the Hub: RUN/opus_books/README.md declares the config "en-it" (YAML `configs:`) whose
train split is RUN/opus_books/en-it/train.jsonl, rows {"id": "...", "translation": {"en": ..., "it": ...}} like the
real set. N_PAIRS generated sentence pairs (seeded): English-like and Italian-like pseudo-word sentences of 4-40
words from two different vocabularies, with commas and a full stop; the script trains its WordLevel tokenizers on
them (min_frequency=2) and keeps 90% for training.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_sentences  # noqa: E402

N_PAIRS = 320

README = """---
configs:
- config_name: en-it
  data_files:
  - split: train
    path: en-it/train.jsonl
---
# opus_books (generated stand-in, en-it)
"""

if __name__ == "__main__":
    root = Path(sys.argv[1]) / "opus_books"
    (root / "en-it").mkdir(parents=True, exist_ok=True)
    (root / "README.md").write_text(README)
    en = pseudo_sentences(N_PAIRS, np.random.default_rng(0), min_words=4, max_words=40, vocab=12000)
    it = pseudo_sentences(N_PAIRS, np.random.default_rng(1), min_words=4, max_words=40, vocab=15000)
    with open(root / "en-it" / "train.jsonl", "w") as f:
        for i, (a, b) in enumerate(zip(en, it)):
            f.write(json.dumps({"id": str(i), "translation": {"en": a, "it": b}}) + "\n")
