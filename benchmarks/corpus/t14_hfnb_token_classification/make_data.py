"""CoNLL-2003, the seqeval metric and distilbert-base-uncased stand-ins for huggingface/notebooks'
examples/token_classification.ipynb (run with the corpus-t14-A python: datasets/pyarrow, tokenizers, transformers).

- RUN/examples/conll2003: the notebook's load_dataset("conll2003") runs in the notebook's folder (the recipe's cwd),
  where a local directory named conll2003 comes before the Hub. Laid out as a Hub dataset repository: a README.md
  whose YAML `configs` names the data files and whose `dataset_info` gives the Hub's conll2003 features (id string,
  tokens list of strings, pos_tags / chunk_tags / ner_tags lists of ClassLabel with CoNLL-2003's 47 / 23 / 9 names),
  and data/{train,validation,test}-00000-of-00001.parquet. Sentences of 4-30 capitalised / lower-case Zipf
  pseudo-words (fakedata.pseudo_words; CoNLL-2003 averages ~14 tokens), ~80% of tokens O and entity spans of 1-3
  words tagged B-/I- PER/ORG/LOC/MISC, random POS and chunk tags (seeded). 960 train / 240 validation / 240 test
  sentences instead of 14041 / 3250 / 3453: 60 training steps of 16 per epoch, 15 evaluation batches.
- RUN/hf_home/hub/models--distilbert-base-uncased: the Hub cache layout (refs/main -> a snapshot), which
  AutoTokenizer / AutoModelForTokenClassification.from_pretrained read with HF_HUB_OFFLINE=1: config.json of a
  DistilBERT of BERT-Mini's size (4 layers, dim 256, 4 heads, FFN 1024, the real 30522-word vocabulary and 512
  positions: 11.2 M parameters instead of distilbert-base's 66 M), model.safetensors (DistilBertModel(config)
  randomly initialised, seeded, save_pretrained; the token-classification head is made by from_pretrained, as with
  the real checkpoint), a vocab.txt (a lower-case WordPiece vocabulary of 4000 trained here on the sentences) and a
  tokenizer_config.json (do_lower_case, model_max_length 512).
- RUN/hf_home/modules/evaluate_modules/metrics/evaluate-metric--seqeval/<hash>/seqeval.py is the Hub's seqeval metric
  (placed by prepare.py from huggingface/evaluate, see the recipe's extra_files): with HF_HOME=hf_home and
  HF_HUB_OFFLINE=1, evaluate.load("seqeval") falls back to this cached copy. This script only adds the package
  __init__.py files of that module cache.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_wordpiece, pseudo_words  # noqa: E402

SPLITS = {"train": 960, "validation": 240, "test": 240}
MODEL = "distilbert-base-uncased"
SNAPSHOT = "12040accade4e8a0f71eabdb258fecc2e7e948be"  # any fixed revision id: the cache's refs/main points at it
POS = ['"', "''", "#", "$", "(", ")", ",", ".", ":", "``", "CC", "CD", "DT", "EX", "FW", "IN", "JJ", "JJR", "JJS",
       "LS", "MD", "NN", "NNP", "NNPS", "NNS", "NN|SYM", "PDT", "POS", "PRP", "PRP$", "RB", "RBR", "RBS", "RP", "SYM",
       "TO", "UH", "VB", "VBD", "VBG", "VBN", "VBP", "VBZ", "WDT", "WP", "WP$", "WRB"]
CHUNK = ["O", "B-ADJP", "I-ADJP", "B-ADVP", "I-ADVP", "B-CONJP", "I-CONJP", "B-INTJ", "I-INTJ", "B-LST", "I-LST",
         "B-NP", "I-NP", "B-PP", "I-PP", "B-PRT", "I-PRT", "B-SBAR", "I-SBAR", "B-UCP", "I-UCP", "B-VP", "I-VP"]
NER = ["O", "B-PER", "I-PER", "B-ORG", "I-ORG", "B-LOC", "I-LOC", "B-MISC", "I-MISC"]


def _class_label(name: str, names: list[str]) -> str:
    lines = [f"  - name: {name}", "    sequence:", "      class_label:", "        names:"]
    lines += [f"          '{i}': {json.dumps(n)}" for i, n in enumerate(names)]
    return "\n".join(lines)


README = "\n".join([
    "---", "configs:", "- config_name: default", "  data_files:",
    "  - split: train", "    path: data/train-*", "  - split: validation", "    path: data/validation-*",
    "  - split: test", "    path: data/test-*",
    "dataset_info:", "  features:", "  - name: id", "    dtype: string", "  - name: tokens", "    sequence: string",
    _class_label("pos_tags", POS), _class_label("chunk_tags", CHUNK), _class_label("ner_tags", NER), "---", ""])


def write_conll(folder: Path) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(README)
    rng = np.random.default_rng(0)
    text = []
    for split, n in SPLITS.items():
        lengths = rng.integers(4, 31, n)
        words = pseudo_words(int(lengths.sum()), rng)
        tokens, pos, chunk, ner, at = [], [], [], [], 0
        for length in lengths:
            sent = words[at:at + length]
            at += length
            tags = [0] * length
            j = 0
            while j < length:
                if rng.random() < 0.12:
                    kind = int(rng.integers(0, 4))
                    span = int(min(rng.integers(1, 4), length - j))
                    for k in range(span):
                        tags[j + k] = 1 + 2 * kind + (1 if k else 0)
                        sent[j + k] = sent[j + k].capitalize()
                    j += span
                else:
                    j += 1
            sent[0] = sent[0].capitalize()
            tokens.append(sent + ["."])
            ner.append(tags + [0])
            pos.append(rng.integers(0, len(POS), length + 1).tolist())
            chunk.append(rng.integers(0, len(CHUNK), length + 1).tolist())
            text.append(" ".join(sent) + " .")
        table = pa.table({"id": pa.array([str(i) for i in range(n)], pa.string()),
                          "tokens": pa.array(tokens, pa.list_(pa.string())),
                          "pos_tags": pa.array(pos, pa.list_(pa.int64())),
                          "chunk_tags": pa.array(chunk, pa.list_(pa.int64())),
                          "ner_tags": pa.array(ner, pa.list_(pa.int64()))})
        pq.write_table(table, folder / "data" / f"{split}-00000-of-00001.parquet")
    return text


def write_model(hf_home: Path, text: list[str]) -> None:
    import torch
    from transformers import DistilBertConfig, DistilBertModel

    out = hub_wordpiece(hf_home, MODEL, SNAPSHOT, text)
    (out / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True, "model_max_length": 512}))
    torch.manual_seed(0)
    config = DistilBertConfig(vocab_size=30522, dim=256, n_layers=4, n_heads=4, hidden_dim=1024,
                              max_position_embeddings=512)
    DistilBertModel(config).save_pretrained(str(out))


def metric_cache(hf_home: Path) -> None:
    modules = hf_home / "modules"
    for d in (modules, modules / "evaluate_modules", modules / "evaluate_modules" / "metrics"):
        d.mkdir(parents=True, exist_ok=True)
        (d / "__init__.py").touch()
    if not list((modules / "evaluate_modules" / "metrics" / "evaluate-metric--seqeval").glob("*/seqeval.py")):
        raise SystemExit("the seqeval metric (recipe extra_files) is missing")


if __name__ == "__main__":
    run = Path(sys.argv[1])
    write_model(run / "hf_home", write_conll(run / "examples" / "conll2003"))
    metric_cache(run / "hf_home")
