"""CoLA and google/bert_uncased_L-2_H-128_A-2 stand-ins for graviraja/MLOps-Basics' week_0_project_setup/train.py.

Run with the corpus-t9-a python (datasets/pyarrow, tokenizers, transformers; see recipe.toml).

- RUN/week_0_project_setup/glue: the DataModule's load_dataset("glue", "cola") runs in the script's folder, where a
  local directory named glue comes before the Hub. It is laid out as the Hub's nyu-mll/glue repository is: a
  README.md whose YAML `configs` names the config cola and its data files, and cola/{train,validation,test}-00000-
  of-00001.parquet with GLUE CoLA's columns sentence (string), label (ClassLabel unacceptable/acceptable) and idx
  (int32). Sentences are Zipf pseudo-word sentences of 3-20 words (fakedata.pseudo_sentences; CoLA's are short
  single sentences, ~9 words on average), random labels (70% acceptable, as in CoLA). 384 train / 128 validation /
  128 test rows instead of 8551 / 1043 / 1063: 12 training steps of 32 and 4 validation batches per epoch.
- RUN/hf_home/hub/models--google--bert_uncased_L-2_H-128_A-2: the Hub cache layout (refs/main -> a snapshot), which
  AutoTokenizer/AutoModel.from_pretrained read with HF_HUB_OFFLINE=1. The snapshot holds config.json with the real
  model's shape (BERT, 2 layers, hidden 128, 2 heads, FFN 512, 512 positions, vocabulary 30522: 4.4 M parameters),
  a vocab.txt (a lower-case WordPiece vocabulary of 4000 trained here on the sentences: the real 30522-entry one is
  not reproducible offline; the embedding keeps 30522 rows, so the model and its Adam update have the real size),
  and model.safetensors: BertModel(config) randomly initialised (seeded), saved with save_pretrained.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_bert, pseudo_sentences  # noqa: E402

SPLITS = {"train": 384, "validation": 128, "test": 128}
MODEL = "google/bert_uncased_L-2_H-128_A-2"
SNAPSHOT = "30b0a37ccaaa32f332884b96992754e246e48c5f"  # any fixed revision id: the cache's refs/main points at it
README = """---
configs:
- config_name: cola
  data_files:
  - split: train
    path: cola/train-*
  - split: validation
    path: cola/validation-*
  - split: test
    path: cola/test-*
dataset_info:
- config_name: cola
  features:
  - name: sentence
    dtype: string
  - name: label
    dtype:
      class_label:
        names:
          '0': unacceptable
          '1': acceptable
  - name: idx
    dtype: int32
---
"""


def write_glue(folder: Path) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder / "cola").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(README)
    rng = np.random.default_rng(0)
    text = []
    for split, n in SPLITS.items():
        sentences = pseudo_sentences(n, rng, min_words=3, max_words=20)
        labels = (rng.random(n) < 0.7).astype(np.int64) if split != "test" else np.full(n, -1, np.int64)
        table = pa.table({"sentence": pa.array(sentences, pa.string()), "label": pa.array(labels, pa.int64()),
                          "idx": pa.array(np.arange(n, dtype=np.int32), pa.int32())})
        pq.write_table(table, folder / "cola" / f"{split}-00000-of-00001.parquet")
        text += sentences
    return text


def write_model(hf_home: Path, text: list[str]) -> None:
    hub_bert(hf_home, MODEL, SNAPSHOT, text, hidden=128, layers=2, heads=2, intermediate=512)


if __name__ == "__main__":
    run = Path(sys.argv[1])
    write_model(run / "hf_home", write_glue(run / "week_0_project_setup" / "glue"))
