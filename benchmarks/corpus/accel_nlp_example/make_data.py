"""Data and a small BERT for accelerate's examples/nlp_example.py, all local (run with the corpus venv).

The script loads "bert-base-cased" and "nyu-mll/glue" (config "mrpc") by name; a folder of that name in
the working folder is what transformers and datasets open first, so we write:

- RUN/bert-base-cased: a cased WordPiece tokenizer trained here on our own text (about 8000 tokens) and
  a randomly initialised BERT of bert-mini's shape (4 layers, hidden 256, 4 heads, FFN 1024), saved as
  BertForPreTraining like the real checkpoint (the classifier head starts new, as it does there);
- RUN/nyu-mll/glue: MRPC's splits as parquet (3668 / 408 / 1725 pairs of pseudo-English sentences,
  sentence1, sentence2, label, idx) and a README whose YAML declares the "mrpc" config.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_sentences  # noqa: E402

SPLITS = {"train": 3668, "validation": 408, "test": 1725}
README = """---
configs:
- config_name: mrpc
  data_files:
  - split: train
    path: mrpc/train-*
  - split: validation
    path: mrpc/validation-*
  - split: test
    path: mrpc/test-*
---
Generated stand-in for GLUE MRPC (random pseudo-English pairs).
"""


def paraphrase(sentence: str, rng: np.random.Generator) -> str:
    """Drop and swap a few words, so pairs overlap like MRPC's near-paraphrases."""
    words = sentence.rstrip(".").split()
    keep = [w for w in words if rng.random() > 0.15] or words
    i, j = rng.integers(0, len(keep), 2)
    keep[i], keep[j] = keep[j], keep[i]
    return " ".join(keep).capitalize() + "."


def write_glue(root: Path, rng: np.random.Generator) -> list[str]:
    import pandas as pd

    folder = root / "nyu-mll" / "glue"
    (folder / "mrpc").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(README)
    texts = []
    for split, n in SPLITS.items():
        first = pseudo_sentences(n, rng, min_words=10, max_words=34)
        second = [paraphrase(s, rng) if rng.random() < 0.7 else t
                  for s, t in zip(first, pseudo_sentences(n, rng, min_words=10, max_words=34))]
        frame = pd.DataFrame({"sentence1": first, "sentence2": second,
                              "label": rng.integers(0, 2, n).astype("int64"), "idx": np.arange(n, dtype="int32")})
        frame.to_parquet(folder / "mrpc" / f"{split}-00000-of-00001.parquet", index=False)
        texts += first + second
    return texts


def write_bert(folder: Path, texts: list[str]) -> None:
    from tokenizers import BertWordPieceTokenizer
    from transformers import BertConfig, BertForPreTraining, BertTokenizerFast

    folder.mkdir(parents=True, exist_ok=True)
    wordpiece = BertWordPieceTokenizer(lowercase=False, strip_accents=False)
    wordpiece.train_from_iterator(texts, vocab_size=8000, min_frequency=1)
    wordpiece.save_model(str(folder))
    tokenizer = BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=False, model_max_length=512)
    tokenizer.save_pretrained(str(folder))
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                        intermediate_size=1024, max_position_embeddings=512)
    BertForPreTraining(config).save_pretrained(str(folder))


if __name__ == "__main__":
    run = Path(sys.argv[1])
    generator = np.random.default_rng(0)
    write_bert(run / "bert-base-cased", write_glue(run, generator))
