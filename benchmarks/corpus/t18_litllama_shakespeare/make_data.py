"""Tiny Shakespeare stand-in for Lightning-AI/lit-llama's pretrain/shakespeare.py (run with the corpus-t18-C python:
numpy, sentencepiece, lit_llama is not needed).

- RUN/data/shakespeare/{train,val}.bin: what scripts/prepare_shakespeare.py writes (the script reads them with
  np.memmap(dtype=np.uint16)). The same recipe as prepare_shakespeare.py, without the download: a seeded pseudo-English
  book (fakedata.pseudo_book) of ~1,115,000 characters (Tiny Shakespeare's size) split 90/10, a SentencePiece model (unigram,
  the default) of 100 pieces trained on it (lit_llama.Tokenizer.train's settings: vocab_size 100), each part encoded
  (no BOS/EOS, as Tokenizer.encode(..) with its defaults) and written as uint16. Also input.txt and tokenizer.model, as
  prepare_shakespeare.py leaves them. The script only samples random 1025-token windows, so the length of the data
  does not change a step's cost.
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_book  # noqa: E402

CHARS = 1_115_394  # Tiny Shakespeare's length


def write_shakespeare(folder: Path) -> None:
    import sentencepiece as spm

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    data = pseudo_book(CHARS + 10_000, rng)[:CHARS]
    (folder / "input.txt").write_text(data)
    spm.SentencePieceTrainer.Train(input=str(folder / "input.txt"), model_prefix=str(folder / "tokenizer"),
                                   vocab_size=100, num_threads=1, minloglevel=2)
    sp = spm.SentencePieceProcessor(model_file=str(folder / "tokenizer.model"))
    n = len(data)
    for name, part in (("train", data[: int(n * 0.9)]), ("val", data[int(n * 0.9):])):
        ids = np.array(sp.encode(part), dtype=np.uint16)
        ids.tofile(folder / f"{name}.bin")
        print(f"{name} has {len(ids):,} tokens")


if __name__ == "__main__":
    write_shakespeare(Path(sys.argv[1]) / "data" / "shakespeare")
