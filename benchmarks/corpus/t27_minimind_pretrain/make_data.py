"""Fake pretrain_t2t_mini.jsonl for jingyaogong/minimind's trainer/train_pretrain.py.

The script reads ../dataset/pretrain_t2t_mini.jsonl (relative to trainer/): one JSON object per line,
{"text": "..."}, mostly Chinese with some English and code-switched lines (the real file is 1.2 GB, downloaded
from ModelScope/Hugging Face by hand, absent from the repository). PretrainDataset loads it with
datasets.load_dataset('json'), tokenizes each text in __getitem__ with the repository's own 6400-token BPE
(model/tokenizer.json), truncates to max_seq_len-2 and pads to max_seq_len.

We write RUN/dataset/pretrain_t2t_mini.jsonl: N_SAMPLES seeded lines, 80% pseudo-Chinese (a Zipf-weighted draw of
the Chinese words and characters in the repository's own tokenizer vocabulary, RUN/model/tokenizer.json, which
prepare.py lays out before this runs; with Chinese punctuation), 20% pseudo-English sentences. Lengths are log-normal (median ~300 characters, clipped to 16..1,000), so that like the
real "length-controlled" corpus most texts are shorter than the 340-token window and a minority is truncated.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_words  # noqa: E402

N_SAMPLES = 40


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's byte <-> printable-character map used by byte-level BPE vocabularies."""
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("\xa1"), ord("\xac") + 1)) + list(range(ord("\xae"), ord("\xff") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b); cs.append(256 + n); n += 1
    return dict(zip(bs, map(chr, cs)))

if __name__ == "__main__":
    rng = np.random.default_rng(0)
    # Chinese words/characters of the repository's byte-level BPE vocabulary, in merge order (~ frequency), Zipf-weighted
    vocab = json.loads((Path(sys.argv[1]) / "model" / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    b2u = {c: b for b, c in _bytes_to_unicode().items()}
    pool = []
    for tok, _ in sorted(vocab.items(), key=lambda kv: kv[1]):
        try:
            txt = bytes(b2u[c] for c in tok).decode("utf-8")
        except (KeyError, UnicodeDecodeError):
            continue
        if txt and all("\u4e00" <= c <= "\u9fff" for c in txt):
            pool.append(txt)
    wz = 1.0 / np.arange(1, len(pool) + 1) ** 0.7; wz /= wz.sum()
    zh_words = [pool[int(i)] for i in rng.choice(len(pool), 20000, p=wz)]
    en_words = pseudo_words(4000, rng)
    punct_zh, punct_en = ["，", "。", "、", "；", "？", "！"], [",", ".", ";", "?"]
    out = Path(sys.argv[1]) / "dataset"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "pretrain_t2t_mini.jsonl", "w", encoding="utf-8") as f:
        for _ in range(N_SAMPLES):
            n_chars = int(np.clip(rng.lognormal(np.log(300), 0.6), 16, 1000))
            parts, length = [], 0
            if rng.random() < 0.8:
                while length < n_chars:
                    w = zh_words[int(rng.integers(len(zh_words)))]
                    parts.append(w)
                    length += len(w)
                    if rng.random() < 0.12:
                        parts.append(punct_zh[int(rng.integers(len(punct_zh)))])
                text = "".join(parts) + "。"
            else:
                while length < n_chars:
                    w = en_words[int(rng.integers(len(en_words)))]
                    parts.append(w)
                    length += len(w) + 1
                    if rng.random() < 0.1:
                        parts[-1] += punct_en[int(rng.integers(len(punct_en)))]
                text = " ".join(parts).capitalize() + "."
            f.write(json.dumps({"text": text}, ensure_ascii=False) + "\n")
