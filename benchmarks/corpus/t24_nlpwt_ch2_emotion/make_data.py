"""emotion and distilbert-base-uncased stand-ins for nlp-with-transformers/notebooks' 02_classification.ipynb
(run with the corpus-t24-B python: datasets/pyarrow, tokenizers, transformers).

- RUN/emotion: the notebook's load_dataset("emotion") runs in the notebook's folder (the recipe's cwd), where a local
  directory of that name comes before the Hub. Laid out as a Hub dataset repository: a README.md whose YAML `configs`
  names the default config and its data files and whose `dataset_info` gives the Hub dataset's features (text
  string, label ClassLabel sadness/joy/love/anger/fear/surprise), and data/{train,validation,test}-00000-of-00001.parquet.
  Tweets of 2-66 lower-case Zipf pseudo-words (fakedata.pseudo_sentences, seeded; the real set's range, but uniform lengths: mean ~34 words against the real ~19),
  labels drawn with the real set's class frequencies. 640 / 128 / 128 rows instead of 16000 / 2000 / 2000: 10
  training steps of 64 per epoch (20 in 2 epochs), 2 evaluation batches.
- RUN/train.txt: the file the notebook's `!wget {dataset_url}` fetched (text;label lines, the 640 training tweets)
  for its load_dataset("csv", data_files="train.txt", sep=";") cells.
- RUN/hf_home/hub/models--distilbert-base-uncased: the Hub cache layout that AutoTokenizer / AutoModel /
  AutoModelForSequenceClassification.from_pretrained read with HF_HUB_OFFLINE=1: a randomly initialised DistilBERT
  with DistilBERT's 6 layers but BERT-Mini's width (dim 256, 4 heads, FFN 1024, the real 30522-word embedding and
  512 positions: 12.6 M parameters instead of 66 M; config.json, model.safetensors), a vocab.txt (lower-case
  WordPiece vocabulary of 4000 trained here on the tweets; fakedata.hub_wordpiece) and a tokenizer_config.json.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_wordpiece, pseudo_sentences  # noqa: E402

SPLITS = {"train": 640, "validation": 128, "test": 128}
MODEL = "distilbert-base-uncased"
SNAPSHOT = "12040accade4e8a0f71eabdb258fecc2e7e948be"  # any fixed revision id: the cache's refs/main points at it
LABELS = ["sadness", "joy", "love", "anger", "fear", "surprise"]
FREQ = [0.29, 0.335, 0.08, 0.135, 0.12, 0.04]  # the real train split's class shares

README = "\n".join(
    ["---", "configs:", "- config_name: split", "  default: true", "  data_files:",
     "  - split: train", "    path: data/train-*", "  - split: validation", "    path: data/validation-*",
     "  - split: test", "    path: data/test-*",
     "dataset_info:", "  config_name: split", "  features:",
     "  - name: text", "    dtype: string", "  - name: label", "    dtype:", "      class_label:", "        names:"]
    + [f"          '{i}': {name}" for i, name in enumerate(LABELS)] + ["---", ""])


def write_emotion(folder: Path) -> dict:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(README)
    rng = np.random.default_rng(0)
    out = {}
    for split, n in SPLITS.items():
        tweets = [t.lower().replace(",", "").rstrip(".") for t in pseudo_sentences(n, rng, min_words=2, max_words=66)]
        labels = rng.choice(len(LABELS), size=n, p=FREQ).astype(np.int64)
        out[split] = (tweets, labels)
        pq.write_table(pa.table({"text": pa.array(tweets, pa.string()), "label": pa.array(labels, pa.int64())}),
                       folder / "data" / f"{split}-00000-of-00001.parquet")
    return out


if __name__ == "__main__":
    import torch
    from transformers import DistilBertConfig, DistilBertModel

    run = Path(sys.argv[1])
    data = write_emotion(run / "emotion")
    tweets, labels = data["train"]
    (run / "train.txt").write_text("".join(f"{t};{LABELS[y]}\n" for t, y in zip(tweets, labels)))
    text = [t for tw, _ in data.values() for t in tw]
    out = hub_wordpiece(run / "hf_home", MODEL, SNAPSHOT, text)
    torch.manual_seed(0)
    config = DistilBertConfig(vocab_size=30522, dim=256, n_layers=6, n_heads=4, hidden_dim=1024,
                              max_position_embeddings=512)
    DistilBertModel(config).save_pretrained(str(out))
    (out / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True, "model_max_length": 512}))
