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

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import sst_classes  # noqa: E402

SIZES = {"train": 2000, "dev": 250, "test": 500}


if __name__ == "__main__":
    sst_classes(Path(sys.argv[1]) / "notebooks" / "data" / "classes", SIZES)
