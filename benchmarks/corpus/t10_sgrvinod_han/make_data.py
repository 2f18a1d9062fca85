"""Fake Yahoo Answers data for sgrvinod/a-PyTorch-Tutorial-to-Text-Classification's train.py (HAN).

Writes what the repository's create_input_files.py (sentence_limit=15, word_limit=20, min_word_count=5) and
train_word2vec_model (skip-gram, 200-d) would leave in the data folder, under RUN/han_data (the recipe's edit
points data_folder there):

* word_map.json: <pad>=0, 200,000 words, <unk> (an estimate of Yahoo Answers' vocabulary at min count 5 after
  truncation to 15 sentences x 20 words; the real file is not published);
* TRAIN_data.pth.tar: a torch.save'd dict of Python lists, as create_input_files writes it: docs (each 15 x 20 word
  ids, zero-padded), labels (0..9), sentences_per_document, words_per_sentence (zero-padded to 15). 1280 documents
  = 20 steps of 64 per epoch. Sentences per document 1 + Poisson(5) (at most 15), words per sentence Poisson(13)
  (1..20), word ids Zipf-distributed over the vocabulary;
* word2vec_model: a gensim KeyedVectors of 200-d random unit vectors for all 200,000 words, saved with
  KeyedVectors.save as train_word2vec_model does (gensim 4 format).
"""
import json
import sys
from pathlib import Path

import numpy as np
import torch

N_DOCS = 1280
VOCAB = 200_000
SENT_LIMIT, WORD_LIMIT = 15, 20


if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "han_data"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    words = [f"w{i}" for i in range(VOCAB)]
    word_map = {"<pad>": 0}
    for w in words:
        word_map[w] = len(word_map)
    word_map["<unk>"] = len(word_map)
    (folder / "word_map.json").write_text(json.dumps(word_map))

    docs, labels, spd, wps = [], [], [], []
    for _ in range(N_DOCS):
        n_sent = int(min(1 + rng.poisson(5), SENT_LIMIT))
        lens = np.clip(rng.poisson(13, n_sent), 1, WORD_LIMIT).tolist()
        doc = []
        for n in lens:
            ids = np.minimum(rng.zipf(1.2, n), VOCAB + 1).tolist()  # 1..VOCAB+1 (VOCAB+1 = <unk>)
            doc.append(ids + [0] * (WORD_LIMIT - n))
        doc += [[0] * WORD_LIMIT] * (SENT_LIMIT - n_sent)
        docs.append(doc)
        labels.append(int(rng.integers(0, 10)))
        spd.append(n_sent)
        wps.append(lens + [0] * (SENT_LIMIT - n_sent))
    torch.save({"docs": docs, "labels": labels, "sentences_per_document": spd, "words_per_sentence": wps},
               folder / "TRAIN_data.pth.tar")

    from gensim.models import KeyedVectors
    vectors = rng.standard_normal((VOCAB, 200)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    kv = KeyedVectors(vector_size=200)
    kv.add_vectors(words, vectors)
    kv.save(str(folder / "word2vec_model"))
