"""Yelp Review Polarity and google/electra-small-discriminator stand-ins for simpletransformers'
examples/text_classification/yelp_reviews_polarity/train.py (run with the corpus-t22-C python: pandas, tokenizers,
transformers).

- RUN/examples/text_classification/yelp_reviews_polarity/data/{train,test}.csv: the script reads data/train.csv and
  data/test.csv (pd.read_csv(..., header=None)) from its own folder (the recipe's cwd), the layout of the
  yelp_review_polarity_csv archive that its data_download.sh unpacks: no header, every field quoted, column 0 the
  class (1 = negative, 2 = positive), column 1 the review with its line breaks written as a literal backslash-n
  (which the script replaces with spaces). Reviews of 2-12 paragraphs of pseudo-sentences, 40-320 pseudo-words in
  all (Yelp polarity reviews average ~130-160 words, so most are cut at max_seq_length 128 as the real ones are);
  labels seeded, half each. 1024 / 256 rows instead of 560,000 / 38,000: 8 training steps of 128 per epoch (24 in
  the script's 3 epochs), 4 evaluation batches of 64 per evaluation.
- RUN/hf_home/hub/models--google--electra-small-discriminator: the Hub cache layout (refs/main -> a snapshot), which
  ElectraTokenizerFast / ElectraForSequenceClassification.from_pretrained read with HF_HUB_OFFLINE=1: a randomly
  initialised ELECTRA of electra-small-discriminator's width (embedding 128, hidden 256, 4 heads, FFN 1024, the real
  30522-word embedding and 512 positions) but 4 layers instead of 12 (7.2 M parameters with the classification head, instead of 13.5 M; with all
  12 layers one step of 128 x 128 tokens took ~30 s on this shared 2-core CPU, see the recipe), a vocab.txt (a
  lower-case WordPiece vocabulary of 4000 trained here on the reviews) and a tokenizer_config.json (do_lower_case,
  model_max_length 512). The classification head is made by from_pretrained, as with the real checkpoint.
"""
import csv
import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_wordpiece, pseudo_sentences  # noqa: E402

SPLITS = {"train": 1024, "test": 256}
MODEL = "google/electra-small-discriminator"
SNAPSHOT = "fa8239aadc095e9164941d05878b98afe9b953c3"  # any fixed revision id: the cache's refs/main points at it


def reviews(n: int, rng: np.random.Generator) -> list[str]:
    counts = [max(2, int(w) // 16) for w in rng.integers(40, 321, n)]
    sentences = pseudo_sentences(sum(counts), rng, min_words=8, max_words=24)  # one lexicon for all
    out, at = [], 0
    for c in counts:
        mine, at = sentences[at:at + c], at + c
        paragraphs, i = [], 0
        while i < len(mine):
            k = int(rng.integers(1, 5))
            paragraphs.append(" ".join(mine[i:i + k]))
            i += k
        out.append("\\n\\n".join(paragraphs))  # a literal backslash-n, as in the real CSV
    return out


def write_yelp(folder: Path) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    texts = []
    for split, n in SPLITS.items():
        text = reviews(n, rng)
        labels = np.where(rng.random(n) < 0.5, 1, 2)
        pd.DataFrame({0: labels.astype(str), 1: text}).to_csv(folder / f"{split}.csv", header=False, index=False,
                                                              quoting=csv.QUOTE_ALL)
        texts += [t.replace("\\n", " ") for t in text]
    return texts


def hub_electra(hf_home: Path, text: list[str]) -> Path:
    import torch
    from transformers import ElectraConfig, ElectraModel

    out = hub_wordpiece(hf_home, MODEL, SNAPSHOT, text)
    torch.manual_seed(0)
    config = ElectraConfig(vocab_size=30522, embedding_size=128, hidden_size=256, num_hidden_layers=4,
                           num_attention_heads=4, intermediate_size=1024, max_position_embeddings=512)
    ElectraModel(config).save_pretrained(str(out))
    (out / "tokenizer_config.json").write_text(json.dumps({"do_lower_case": True, "model_max_length": 512}))
    return out


if __name__ == "__main__":
    run = Path(sys.argv[1])
    text = write_yelp(run / "examples" / "text_classification" / "yelp_reviews_polarity" / "data")
    hub_electra(run / "hf_home", text)
