"""Fake pretokenized TinyStories shards for karpathy/llama2.c's train.py (custom 512-token vocabulary).

train.py --vocab_source=custom --vocab_size=512 reads RUN/data/tok512/*.bin through tinystories.PretokDataset:
flat uint16 token streams (np.memmap), shard 0 is the val split and the other shards the train split; the
dataset cuts them into max_seq_len+1 windows in a shuffled order and loops over the shards forever. What
`python tinystories.py pretokenize --vocab_size=512` would write from the real TinyStories: each story is the BOS
token 1 followed by its tokens. Here: seeded pseudo-stories of 60-400 tokens (Zipf-like ids 3..511, a frequent
"full stop" id every ~12 tokens), 3 shards (1 val + 2 train) of ~600k tokens each (~1.2 MB per shard).
"""
import sys
from pathlib import Path

import numpy as np

VOCAB = 512
SHARDS = 3
TOKENS_PER_SHARD = 600_000


def shard(rng: np.random.Generator) -> np.ndarray:
    ranks = np.arange(1, VOCAB - 3 + 1)
    p = 1.0 / ranks ** 1.1
    p /= p.sum()
    out, n = [], 0
    while n < TOKENS_PER_SHARD:
        length = int(rng.integers(60, 400))
        story = rng.choice(VOCAB - 3, size=length, p=p) + 3
        story[rng.random(length) < 1 / 12] = 4  # sentence ends
        out.append(np.concatenate([[1], story]).astype(np.uint16))
        n += length + 1
    return np.concatenate(out)


if __name__ == "__main__":
    folder = Path(sys.argv[1]) / "data" / f"tok{VOCAB}"
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for i in range(SHARDS):
        shard(rng).tofile(folder / f"data{i:02d}.bin")
