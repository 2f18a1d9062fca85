"""enwik8 stand-in for lucidrains/x-transformers train_enwik8.py: RUN/data/enwik8.gz.

The script reads the first 95e6 bytes of ./data/enwik8.gz as uint8 tokens and splits them at 90e6 (train /
validation), so the file must hold more than 90e6 bytes. We write 100e6 bytes (enwik8's size) of
wiki-dump-like XML: <page><title>..</title><id>..</id><revision><text>..</text></revision></page> around
pseudo-word sentences (fakedata.wiki_xml). A ~4 MB block of such pages is generated (seeded) and
repeated to 100e6 bytes, then gzipped (level 6); only the byte format matters for the script.
"""
import gzip
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import wiki_xml  # noqa: E402

TOTAL = 100_000_000

if __name__ == "__main__":
    run = Path(sys.argv[1])
    (run / "data").mkdir(parents=True, exist_ok=True)
    with gzip.open(run / "data" / "enwik8.gz", "wb", compresslevel=6) as f:
        f.write(wiki_xml(TOTAL))
