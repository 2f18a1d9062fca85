"""Fake enwik8.gz for lucidrains/PaLM-pytorch's train.py.

The script reads ./examples/enwik8_deepspeed/data/enwik8.gz (the Hutter-prize enwik8: 100,000,000 bytes of
Wikipedia XML, gzipped, shipped in the repository through Git LFS, absent from the snapshot), takes its first 95e6
bytes as uint8 tokens, splits 90e6 / 5e6 into train / validation and draws random 1025-byte windows from them.
We write RUN/examples/enwik8_deepspeed/data/enwik8.gz: 100,000,000 bytes of seeded pseudo-English (random 64 KiB
slices of a 4 M-character generated book, with a few XML-like tags between them), gzipped (level 6). Only the length
and the byte alphabet matter to the script.
"""
import gzip
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_book  # noqa: E402

N_BYTES = 100_000_000  # enwik8's length
SLICE = 65_536

if __name__ == "__main__":
    rng = np.random.default_rng(0)
    base = pseudo_book(4_000_000, rng).encode("ascii", "replace")
    base = np.frombuffer(base, dtype=np.uint8)
    parts, total, k = [], 0, 0
    while total < N_BYTES:
        tag = f"\n  <page>\n    <title>Article {k}</title>\n    <text xml:space=\"preserve\">".encode()
        start = int(rng.integers(0, base.size - SLICE))
        chunk = tag + base[start:start + SLICE].tobytes() + b"</text>\n  </page>"
        parts.append(chunk)
        total += len(chunk)
        k += 1
    data = b"".join(parts)[:N_BYTES]
    out = Path(sys.argv[1]) / "examples" / "enwik8_deepspeed" / "data"
    out.mkdir(parents=True, exist_ok=True)
    with gzip.open(out / "enwik8.gz", "wb", compresslevel=6) as f:
        f.write(data)
