"""enwik8 stand-in for NVIDIA/DeepLearningExamples' PyTorch/LanguageModeling/Transformer-XL/pytorch/train.py
(run with the corpus-t19-G python; needs only numpy here).

- RUN/PyTorch/LanguageModeling/Transformer-XL/data/enwik8/{train,valid,test}.txt: what the repository's getdata.sh
  makes with prep_enwik8.py from the real enwik8 (100 MB of Wikipedia XML, split 90M / 5M / 5M bytes): every byte
  written as its decimal value, separated by spaces, with each newline byte kept as a line break (the script reads the
  files with its word-level Vocab, so every byte value is one token; ~200 distinct tokens as in the real data).
  The bytes are fakedata.wiki_xml (enwik8-like wiki-dump XML around seeded pseudo-word sentences): 200,000 /
  20,000 / 20,000 bytes instead of 90 M / 5 M / 5 M. The script's own corpus cache (cache.pt) is made by the run.
"""
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import wiki_xml  # noqa: E402

SIZES = {"train": 200_000, "valid": 20_000, "test": 20_000}


def prep_enwik8_part(part: bytes) -> str:
    # prep_enwik8.py: ' '.join([str(c) if c != ord('\n') else '\n' for c in part])
    return " ".join(str(c) if c != ord("\n") else "\n" for c in part)


if __name__ == "__main__":
    run = Path(sys.argv[1])
    out = run / "PyTorch" / "LanguageModeling" / "Transformer-XL" / "data" / "enwik8"
    out.mkdir(parents=True, exist_ok=True)
    data = wiki_xml(sum(SIZES.values()) + 4_000_000, seed=0)
    # take the three parts from different places of the generated dump (train from the start)
    at = {"train": 0, "valid": 2_000_000, "test": 3_000_000}
    for name, n in SIZES.items():
        part = data[at[name]:at[name] + n]
        (out / f"{name}.txt").write_text(prep_enwik8_part(part), encoding="utf-8")
        (out / f"{name}.txt.raw").write_bytes(part)
