"""rotten_tomatoes and roberta-base stand-ins for adapter-hub/adapters' notebooks/01_Adapter_Training.ipynb (run with
the corpus-t23-B python: datasets/pyarrow, tokenizers, transformers 4.57.6).

- RUN/notebooks/rotten_tomatoes: the notebook's load_dataset("rotten_tomatoes") runs in the notebook's folder (the
  recipe's cwd), where a local directory of that name comes before the Hub. Laid out as a Hub dataset repository: a
  README.md whose YAML `configs` names the default config and its data files and whose `dataset_info` gives the Hub
  dataset's features (text string, label ClassLabel neg/pos), and data/{train,validation,test}-00000-of-00001.parquet.
  Reviews of 4-40 Zipf pseudo-words (mean ~22, as Rotten Tomatoes' snippets: ~21 words) with commas and a full stop
  (fakedata.pseudo_sentences, seeded), random balanced labels. 640 / 128 / 128 rows instead of 8530 / 1066 / 1066:
  20 training steps of 32 per epoch (120 in the notebook's 6 epochs), 4 evaluation batches. The notebook pads every
  review to 80 tokens, so the reviews' lengths do not change a step's cost.
- RUN/hf_home/hub/models--roberta-base: the Hub cache layout (refs/main -> a snapshot), which RobertaTokenizer /
  RobertaConfig / AutoAdapterModel.from_pretrained read with HF_HUB_OFFLINE=1: a randomly initialised RoBERTa (seeded)
  of BERT-Mini's size (4 layers, hidden 256, 4 heads, FFN 1024, the real 50265-word embedding and 514 positions:
  16.2 M parameters instead of roberta-base's 125 M; config.json + model.safetensors by save_pretrained), and a
  byte-level BPE vocabulary (vocab.json + merges.txt, 8000 entries, RoBERTa's special tokens <s> <pad> </s> <unk> at
  ids 0-3 as in roberta-base) trained here on the reviews.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_snapshot, pseudo_sentences  # noqa: E402

SPLITS = {"train": 640, "validation": 128, "test": 128}
MODEL = "roberta-base"
SNAPSHOT = "e2da8e2f811d1448a5b465c236feacd80ffbac7b"  # any fixed revision id: the cache's refs/main points at it

README = "\n".join(
    ["---", "configs:", "- config_name: default", "  data_files:",
     "  - split: train", "    path: data/train-*", "  - split: validation", "    path: data/validation-*",
     "  - split: test", "    path: data/test-*",
     "dataset_info:", "  features:", "  - name: text", "    dtype: string", "  - name: label",
     "    dtype:", "      class_label:", "        names:", "          '0': neg", "          '1': pos",
     "---", ""])


def write_rotten_tomatoes(folder: Path) -> list[str]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    (folder / "data").mkdir(parents=True, exist_ok=True)
    (folder / "README.md").write_text(README)
    rng = np.random.default_rng(0)
    texts = []
    for split, n in SPLITS.items():
        reviews = [s.lower() for s in pseudo_sentences(n, rng, min_words=4, max_words=40)]
        texts += reviews
        labels = rng.permutation(np.arange(n) % 2)
        pq.write_table(pa.table({"text": pa.array(reviews, pa.string()), "label": pa.array(labels, pa.int64())}),
                       folder / "data" / f"{split}-00000-of-00001.parquet")
    return texts


def hub_roberta(hf_home: Path, text: list[str]) -> Path:
    import torch
    from tokenizers import ByteLevelBPETokenizer
    from transformers import RobertaConfig, RobertaModel

    out = hub_snapshot(hf_home, MODEL, SNAPSHOT)
    (out / "corpus.txt").write_text("\n".join(text) + "\n")
    bpe = ByteLevelBPETokenizer()
    bpe.train([str(out / "corpus.txt")], vocab_size=8000, min_frequency=1, show_progress=False,
              special_tokens=["<s>", "<pad>", "</s>", "<unk>", "<mask>"])
    bpe.save_model(str(out))  # vocab.json, merges.txt
    (out / "corpus.txt").unlink()
    torch.manual_seed(0)
    config = RobertaConfig(vocab_size=50265, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                           intermediate_size=1024, max_position_embeddings=514, type_vocab_size=1, pad_token_id=1,
                           bos_token_id=0, eos_token_id=2, layer_norm_eps=1e-5)
    RobertaModel(config, add_pooling_layer=False).save_pretrained(str(out))
    (out / "tokenizer_config.json").write_text(json.dumps({"model_max_length": 512}))
    return out


if __name__ == "__main__":
    run = Path(sys.argv[1])
    text = write_rotten_tomatoes(run / "notebooks" / "rotten_tomatoes")
    hub_roberta(run / "hf_home", text)
