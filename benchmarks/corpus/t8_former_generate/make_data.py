"""enwik8 stand-in for pbloem/former's experiments/generate.py: RUN/data/enwik8.gz.

The script (its enwik8() loader) reads up to 100e6 bytes of the file given by -D as uint8 tokens and splits them at
90e6 (train) and 95e6 (validation, the text it evaluates on without --final): the file must hold more than 90e6 bytes,
and whatever lies past 90e6 is the validation text, which the LAST step compresses character by character in full
(util.compute_compression). So we write 90e6 + 3000 bytes: 90e6 of training text and a 3000-byte validation tail
(needs at least --context bytes for the sample seed). The bytes are wiki-dump-like XML, as enwik8:
<page><title>..</title><id>..</id><revision><text>..</text></revision></page> around pseudo-word sentences
(fakedata.wiki_xml), gzipped (level 1).
"""
import gzip
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import wiki_xml  # noqa: E402

TOTAL = 90_000_000 + 3_000

if __name__ == "__main__":
    run = Path(sys.argv[1])
    (run / "data").mkdir(parents=True, exist_ok=True)
    with gzip.open(run / "data" / "enwik8.gz", "wb", compresslevel=1) as f:
        f.write(wiki_xml(TOTAL))
