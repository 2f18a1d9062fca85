"""GLUE MRPC, the glue metric and google/bert_uncased_L-4_H-256_A-4 stand-ins for huggingface/peft's
examples/sequence_classification/peft_no_lora_accelerate.py (run with the corpus-t12-b python: datasets/pyarrow,
tokenizers, transformers).

- RUN/examples/sequence_classification/glue: the script's load_dataset("glue", "mrpc") runs in the script's folder
  (the recipe's cwd), where a local directory named glue comes before the Hub. Laid out as the Hub's nyu-mll/glue
  repository: a README.md whose YAML `configs` names the config mrpc and its data files, and
  mrpc/{train,validation,test}-00000-of-00001.parquet with GLUE MRPC's columns sentence1, sentence2 (string), label
  (ClassLabel not_equivalent/equivalent) and idx (int32). Pairs of Zipf pseudo-word sentences of 10-35 words
  (fakedata.pseudo_sentences; MRPC's news sentences average ~22 words), the second sentence a shuffled, partly
  replaced copy of the first, random labels (68% equivalent, as in MRPC). 320 train / 136 validation / 136 test rows instead of MRPC's
  3668 / 408 / 1725: 40 training steps of 8 and 17 evaluation batches of 8 per epoch.
- RUN/hf_home/modules/evaluate_modules/metrics/evaluate-metric--glue/<hash>/glue.py is the Hub's glue metric
  (placed by prepare.py from huggingface/evaluate's metrics/glue/glue.py, see the recipe's extra_files): with
  HF_HOME=hf_home and HF_HUB_OFFLINE=1, evaluate.load("glue", "mrpc") falls back to this cached copy. This script
  only adds the package __init__.py files of that module cache.
- RUN/hf_home/hub/models--google--bert_uncased_L-4_H-256_A-4: the Hub cache layout (refs/main -> a snapshot), which
  AutoTokenizer / AutoModelForSequenceClassification.from_pretrained read with HF_HUB_OFFLINE=1. The snapshot holds
  config.json with the real model's shape (BERT, 4 layers, hidden 256, 4 heads, FFN 1024, 512 positions, vocabulary
  30522: 11.2 M parameters), a vocab.txt (a lower-case WordPiece vocabulary of 4000 trained here on the sentences;
  the embedding keeps 30522 rows) and model.safetensors: BertModel(config) randomly initialised (seeded), saved with
  save_pretrained (the classification head is made by from_pretrained, as with the real checkpoint).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_bert, pseudo_sentences  # noqa: E402

SPLITS = {"train": 320, "validation": 136, "test": 136}
MODEL = "google/bert_uncased_L-4_H-256_A-4"
SNAPSHOT = "5a2d8d6f3f6e2c7b3e0d1c9a8b7f6e5d4c3b2a19"  # any fixed revision id: the cache's refs/main points at it
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
dataset_info:
- config_name: mrpc
  features:
  - name: sentence1
    dtype: string
  - name: sentence2
    dtype: string
  - name: label
    dtype:
      class_label:
        names:
          '0': not_equivalent
          '1': equivalent
  - name: idx
    dtype: int32
---
"""


def write_glue(folder: Path) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder / "mrpc").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(README)
    rng = np.random.default_rng(0)
    text = []
    for split, n in SPLITS.items():
        first = pseudo_sentences(n, rng, min_words=10, max_words=35)
        fillers = pseudo_sentences(n, rng, min_words=10, max_words=35)
        second = []
        for a, b in zip(first, fillers):
            words, other = a.split(" "), b.split(" ")
            for j in range(len(words)):
                if rng.random() < 0.3:
                    words[j] = other[j % len(other)]
            if len(words) > 4:
                k = int(rng.integers(0, len(words) - 3))
                words[k:k + 3] = words[k:k + 3][::-1]
            second.append(" ".join(words))
        labels = (rng.random(n) < 0.68).astype(np.int64)
        table = pa.table({"sentence1": pa.array(first, pa.string()), "sentence2": pa.array(second, pa.string()),
                          "label": pa.array(labels, pa.int64()),
                          "idx": pa.array(np.arange(n, dtype=np.int32), pa.int32())})
        pq.write_table(table, folder / "mrpc" / f"{split}-00000-of-00001.parquet")
        text += first + second
    return text


def write_model(hf_home: Path, text: list[str]) -> None:
    hub_bert(hf_home, MODEL, SNAPSHOT, text, hidden=256, layers=4, heads=4, intermediate=1024)


def metric_cache(hf_home: Path) -> None:
    modules = hf_home / "modules"
    for d in (modules, modules / "evaluate_modules", modules / "evaluate_modules" / "metrics"):
        d.mkdir(parents=True, exist_ok=True)
        (d / "__init__.py").touch()
    if not list((modules / "evaluate_modules" / "metrics" / "evaluate-metric--glue").glob("*/glue.py")):
        raise SystemExit("the glue metric (recipe extra_files) is missing")


if __name__ == "__main__":
    run = Path(sys.argv[1])
    write_model(run / "hf_home", write_glue(run / "examples" / "sequence_classification" / "glue"))
    metric_cache(run / "hf_home")
