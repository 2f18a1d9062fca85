"""Sentence pairs, a tokenizer and a tiny randomly initialised BERT for sentence-transformers'
examples/sentence_transformer/training/sts/training_stsbenchmark.py.

Run with the corpus-t8-a python (transformers 4.49, tokenizers, datasets; see recipe.toml).

- RUN/sentence-transformers/stsb/{train,validation,test}.csv: the script's load_dataset("sentence-transformers/stsb",
  split=...) opens this local folder (a local directory of that name comes before the Hub; the file names give the
  splits), with the real set's columns sentence1, sentence2, score (a float in [0, 1]): 640 / 100 / 100 pairs of
  Zipf pseudo-word sentences (fakedata's pseudo_sentences, 5-22 words, like STS-B's short captions and headlines),
  random scores. The real train split has 5749 pairs; 640 make 40 steps of 16 per epoch, 4 epochs = 160 steps, so
  the script's eval_steps=100 / save_steps=100 evaluation (EmbeddingSimilarityEvaluator on the 100 dev pairs +
  eval loss) and checkpoint come once, at step 100.
- RUN/data/tiny-bert: the model named on the command line (sys.argv[1]): a BERT WordPiece tokenizer (vocabulary
  4000, lower-case) trained here on the sentences and saved as BertTokenizerFast, and a BertModel built from a
  BertConfig (4 layers, hidden 256, 4 heads, FFN 1024, 128 positions: BERT-mini's shape with a small vocabulary,
  4.2 M parameters), randomly initialised (seeded) and saved with save_pretrained; SentenceTransformer(path) adds
  mean pooling to it as it does to distilbert-base-uncased.
"""
import csv
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_sentences  # noqa: E402

SPLITS = {"train": 640, "validation": 100, "test": 100}


def write_pairs(folder: Path) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    text = []
    for split, n in SPLITS.items():
        s1 = pseudo_sentences(n, rng, min_words=5, max_words=22)
        s2 = pseudo_sentences(n, rng, min_words=5, max_words=22)
        scores = np.round(rng.uniform(0, 1, n), 2)
        with open(folder / f"{split}.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["sentence1", "sentence2", "score"])
            w.writerows(zip(s1, s2, (float(x) for x in scores)))
        text += s1 + s2
    return text


def write_model(out: Path, text: list[str]) -> None:
    import torch
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertConfig, BertModel, BertTokenizerFast

    out.mkdir(parents=True, exist_ok=True)
    (out / "corpus.txt").write_text("\n".join(text) + "\n")
    wordpiece = BertWordPieceTokenizer(lowercase=True)
    wordpiece.train([str(out / "corpus.txt")], vocab_size=4000, min_frequency=2, show_progress=False)
    wordpiece.save_model(str(out))  # vocab.txt
    (out / "corpus.txt").unlink()
    BertTokenizerFast(vocab_file=str(out / "vocab.txt"), do_lower_case=True, model_max_length=128).save_pretrained(
        str(out))
    torch.manual_seed(0)
    config = BertConfig(vocab_size=4000, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                        intermediate_size=1024, max_position_embeddings=128)
    BertModel(config).save_pretrained(str(out))


if __name__ == "__main__":
    run = Path(sys.argv[1])
    write_model(run / "data" / "tiny-bert", write_pairs(run / "sentence-transformers" / "stsb"))
