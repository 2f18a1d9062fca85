"""IMDB and bert-base-uncased stand-ins for bentrevett/pytorch-sentiment-analysis's "4 - Transformers.ipynb".

Run with the corpus-t12-d python (datasets/pyarrow, tokenizers, transformers; see recipe.toml).

- RUN/imdb: the notebook's datasets.load_dataset("imdb", split=["train", "test"]) runs in the run folder, where a
  local directory named imdb comes before the Hub. It is laid out as the Hub's stanfordnlp/imdb repository is: a
  README.md whose YAML `configs` names the config plain_text and its data files, and
  plain_text/{train,test}-00000-of-00001.parquet with IMDB's columns text (string) and label (ClassLabel neg/pos).
  Reviews are 3-16 pseudo-word sentences of 5-28 words (fakedata.pseudo_sentences; ~150 words on average, IMDB's
  average is ~230) with random balanced labels. 128 train / 32 test rows instead of 25000 / 25000: the notebook's 75/25
  split gives 96 training rows = 12 steps of 8 and 4 validation batches per epoch (3 epochs, 36 steps), 4 test
  batches.
- RUN/hf_home/hub/models--bert-base-uncased: the Hub cache layout (refs/main -> a snapshot), which
  AutoTokenizer/AutoModel.from_pretrained("bert-base-uncased") read with HF_HUB_OFFLINE=1. The snapshot holds a
  config.json of a smaller BERT (BERT-Mini's shape: 4 layers, hidden 256, 4 heads, FFN 1024, 512 positions, the
  real vocabulary size 30522: 11.2 M parameters instead of 110 M; bert-base would take tens of seconds a step on 2
  CPU cores), a tokenizer_config.json (do_lower_case) and a vocab.txt (a lower-case WordPiece vocabulary of 4000
  trained here on the reviews plus ASCII punctuation and digits, since the notebook looks up
  tokenizer.vocab["!"]; the real 30522-entry one is not reproducible offline, the embedding keeps 30522
  rows), and model.safetensors: BertModel(config) randomly initialised (seeded), saved with save_pretrained. config.json
  also says attn_implementation "eager": the notebook's forward asks for output_attentions=True, for which
  transformers 4 (the notebook's time) switched from sdpa to eager attention by itself; transformers 5 does not.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_bert, pseudo_sentences  # noqa: E402

SPLITS = {"train": 128, "test": 32}
MODEL = "bert-base-uncased"
SNAPSHOT = "86b5e0934494bd15c9632b12f734a8a67f723594"  # any fixed revision id: the cache's refs/main points at it
README = """---
configs:
- config_name: plain_text
  data_files:
  - split: train
    path: plain_text/train-*
  - split: test
    path: plain_text/test-*
  default: true
dataset_info:
  config_name: plain_text
  features:
  - name: text
    dtype: string
  - name: label
    dtype:
      class_label:
        names:
          '0': neg
          '1': pos
---
"""


def write_imdb(folder: Path) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder / "plain_text").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(README)
    rng = np.random.default_rng(0)
    text = []
    for split, n in SPLITS.items():
        counts = rng.integers(3, 17, n)
        sentences = pseudo_sentences(int(counts.sum()), rng, min_words=5, max_words=28)
        reviews, at = [], 0
        for c in counts:
            reviews.append(" ".join(sentences[at:at + c]))
            at += c
        labels = rng.permutation(np.arange(n) % 2).astype(np.int64)
        table = pa.table({"text": pa.array(reviews, pa.string()), "label": pa.array(labels, pa.int64())})
        pq.write_table(table, folder / "plain_text" / f"{split}-00000-of-00001.parquet")
        text += reviews
    return text


def write_model(hf_home: Path, text: list[str]) -> None:
    # the notebook looks up tokenizer.vocab["!"]: give the WordPiece trainer ASCII punctuation and digits too
    out = hub_bert(hf_home, MODEL, SNAPSHOT, text + [" ".join("!?.,;:'\"()-/&*%$#@0123456789")],
                   hidden=256, layers=4, heads=4, intermediate=1024)
    (out / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True, "model_max_length": 512,
                                                           "tokenizer_class": "BertTokenizer"}))
    # the notebook calls the model with output_attentions=True: transformers 4 fell back from sdpa to eager
    # attention for that by itself, transformers 5 returns no attentions unless the config asks for eager
    saved = json.loads((out / "config.json").read_text())
    saved["attn_implementation"] = "eager"
    (out / "config.json").write_text(json.dumps(saved, indent=2))


if __name__ == "__main__":
    run = Path(sys.argv[1])
    write_model(run / "hf_home", write_imdb(run / "imdb"))
