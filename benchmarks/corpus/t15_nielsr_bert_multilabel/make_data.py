"""SemEval-2018 Task 1 (subtask5.english) and bert-base-uncased stand-ins for NielsRogge/Transformers-Tutorials'
BERT/Fine_tuning_BERT_(and_friends)_for_multi_label_text_classification.ipynb (run with the corpus-t15-D python:
datasets/pyarrow, tokenizers, transformers).

- RUN/BERT/sem_eval_2018_task_1: the notebook's load_dataset("sem_eval_2018_task_1", "subtask5.english") runs in
  the notebook's folder (the recipe's cwd), where a local directory of that name comes before the Hub. Laid out as a
  Hub dataset repository: a README.md whose YAML `configs` names the config subtask5.english and its data files and
  whose `dataset_info` gives the Hub dataset's features in its order (ID string, Tweet string, then the 11 emotion
  columns anger ... trust as bool), and data/{train,validation,test}-00000-of-00001.parquet. Tweets of 5-30 Zipf
  pseudo-words with commas and a full stop, some with an @mention and 1-3 hashtags (fakedata.pseudo_sentences,
  seeded); each emotion True with probability 0.1-0.4 (seeded). 256 / 64 / 64 rows instead of 6838 / 886 / 3259:
  32 training steps of 8 per epoch (160 in 5 epochs), 8 evaluation batches. The notebook pads every tweet to 128
  tokens, so the tweets' lengths do not change a step's cost.
- RUN/hf_home/hub/models--bert-base-uncased: the Hub cache layout (refs/main -> a snapshot), which AutoTokenizer /
  AutoModelForSequenceClassification.from_pretrained read with HF_HUB_OFFLINE=1: a randomly initialised BERT of
  BERT-Mini's size (4 layers, hidden 256, 4 heads, FFN 1024, the real 30522-word embedding and 512 positions:
  11.2 M parameters instead of bert-base's 110 M; fakedata.hub_bert: config.json, model.safetensors; the
  classification head is made by from_pretrained, as with the real checkpoint), a vocab.txt (a lower-case WordPiece
  vocabulary of 4000 trained here on the tweets) and a tokenizer_config.json (do_lower_case, model_max_length 512).
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_bert, pseudo_sentences, pseudo_words  # noqa: E402

SPLITS = {"train": 256, "validation": 64, "test": 64}
MODEL = "bert-base-uncased"
SNAPSHOT = "86b5e0934494bd15c9632b12f734a8a67f723594"  # any fixed revision id: the cache's refs/main points at it
EMOTIONS = ["anger", "anticipation", "disgust", "fear", "joy", "love", "optimism", "pessimism", "sadness",
            "surprise", "trust"]

README = "\n".join(
    ["---", "configs:", "- config_name: subtask5.english", "  data_files:",
     "  - split: train", "    path: data/train-*", "  - split: test", "    path: data/test-*",
     "  - split: validation", "    path: data/validation-*",
     "dataset_info:", "  config_name: subtask5.english", "  features:",
     "  - name: ID", "    dtype: string", "  - name: Tweet", "    dtype: string"]
    + [line for e in EMOTIONS for line in (f"  - name: {e}", "    dtype: bool")] + ["---", ""])


def write_semeval(folder: Path) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(README)
    rng = np.random.default_rng(0)
    tags = pseudo_words(400, rng)
    texts = []
    for split, n in SPLITS.items():
        tweets = pseudo_sentences(n, rng, min_words=5, max_words=30)
        for i in range(n):
            if rng.random() < 0.3:
                tweets[i] = "@" + tags[int(rng.integers(0, 400))] + " " + tweets[i]
            k = int(rng.integers(0, 4))
            if k:
                tweets[i] += " " + " ".join("#" + tags[int(j)] for j in rng.integers(0, 400, k))
        texts += tweets
        prob = rng.uniform(0.1, 0.4, len(EMOTIONS))
        columns = {"ID": pa.array([f"2018-En-{split[:2]}{i:05d}" for i in range(n)], pa.string()),
                   "Tweet": pa.array(tweets, pa.string())}
        for e, p in zip(EMOTIONS, prob):
            columns[e] = pa.array((rng.random(n) < p).tolist(), pa.bool_())
        pq.write_table(pa.table(columns), folder / "data" / f"{split}-00000-of-00001.parquet")
    return texts


if __name__ == "__main__":
    run = Path(sys.argv[1])
    text = write_semeval(run / "BERT" / "sem_eval_2018_task_1")
    out = hub_bert(run / "hf_home", MODEL, SNAPSHOT, text, hidden=256, layers=4, heads=4, intermediate=1024)
    (out / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True, "model_max_length": 512}))
