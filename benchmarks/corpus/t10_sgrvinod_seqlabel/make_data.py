"""Fake CoNLL 2003 + GloVe for sgrvinod/a-PyTorch-Tutorial-to-Sequence-Labeling's train.py (LM-LSTM-CRF).

The script reads ./datasets/eng.train and ./datasets/eng.testa (CoNLL 2003 layout: `word POS chunk NER` per line,
a blank line between sentences, -DOCSTART- lines between documents) and ./embeddings/glove.6B.100d.txt (GloVe text
format: `word v1 ... v100`). Written here: 600 train / 200 validation sentences (60 steps of 10, 20 validation
batches; CoNLL has 14,041 / 3,250), 4-28 tokens each (mean ~14, as CoNLL), capitalised pseudo-words drawn with Zipf
frequencies plus punctuation and numbers, NER tags in CoNLL's IOB1 with CoNLL-like frequencies (~83% O); eng.testb
(200 sentences, unused by training). The GloVe file holds 50,000 words (GloVe 6B has 400,000) with random 100-d
vectors: every (lower-cased) word of the three files plus filler words, so expand_vocab adds ~46,000
out-of-corpus rows to the (frozen) embedding as the real file would add ~390,000.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_words  # noqa: E402

TAGS = ["O", "I-PER", "I-ORG", "I-LOC", "I-MISC", "B-MISC", "B-ORG", "B-LOC"]
TAG_P = [0.833, 0.055, 0.049, 0.041, 0.02, 0.001, 0.0005, 0.0005]
PUNCT = [",", ".", "(", ")", "-", '"', ":"]


SEEN: dict = {}  # lower-cased corpus words, in order of appearance


def corpus(path: Path, n_sent: int, rng: np.random.Generator) -> None:
    lines = ["-DOCSTART- -X- -X- O", ""]
    lengths = np.clip(rng.poisson(13, n_sent) + 1, 4, 28)
    words = pseudo_words(int(lengths.sum()), rng)
    at = 0
    for k, n in enumerate(lengths):
        for j in range(n):
            w = words[at]; at += 1
            r = rng.random()
            if r < 0.12:
                w = PUNCT[int(rng.integers(len(PUNCT)))]
            elif r < 0.16:
                w = str(int(rng.integers(0, 2000)))
            elif r < 0.45:
                w = w.capitalize()
            SEEN.setdefault(w.lower(), None)
            tag = TAGS[int(rng.choice(len(TAGS), p=np.array(TAG_P) / sum(TAG_P)))]
            lines.append(f"{w} NNP I-NP {tag}")
        lines.append("")
        if k % 15 == 14:
            lines += ["-DOCSTART- -X- -X- O", ""]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    run = Path(sys.argv[1])
    rng = np.random.default_rng(0)
    corpus(run / "datasets" / "eng.train", 600, rng)
    corpus(run / "datasets" / "eng.testa", 200, rng)
    corpus(run / "datasets" / "eng.testb", 200, rng)
    vocab = list(SEEN)  # every word of the three files (lower-cased, as GloVe 6B is)
    vocab += [f"x{i}" for i in range(50000 - len(vocab))]
    vecs = rng.normal(0, 0.4, (len(vocab), 100))
    (run / "embeddings").mkdir(parents=True, exist_ok=True)
    with open(run / "embeddings" / "glove.6B.100d.txt", "w", encoding="utf-8") as f:
        for w, v in zip(vocab, vecs):
            f.write(w + " " + " ".join(f"{x:.5f}" for x in v) + "\n")
