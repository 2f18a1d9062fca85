"""enwik8 stand-in for lucidrains/x-transformers train_enwik8.py: RUN/data/enwik8.gz.

The script reads the first 95e6 bytes of ./data/enwik8.gz as uint8 tokens and splits them at 90e6 (train /
validation), so the file must hold more than 90e6 bytes. We write 100e6 bytes (enwik8's size) of
wiki-dump-like XML: <page><title>..</title><id>..</id><revision><text>..</text></revision></page> around
pseudo-word sentences (fakedata.pseudo_sentences). A ~4 MB block of such pages is generated (seeded) and
repeated to 100e6 bytes, then gzipped (level 6); only the byte format matters for the script.
"""
import gzip
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_sentences, pseudo_words  # noqa: E402

TOTAL = 100_000_000
PAGE = """  <page>
    <title>{title}</title>
    <id>{id}</id>
    <revision>
      <id>{rev}</id>
      <timestamp>2006-03-0{day}T12:00:00Z</timestamp>
      <text xml:space="preserve">'''{title}''' {body}

== See also ==
* [[{title}]]
</text>
    </revision>
  </page>
"""

if __name__ == "__main__":
    run = Path(sys.argv[1])
    (run / "data").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    sentences = pseudo_sentences(40_000, rng)  # one call: pseudo_words builds its lexicon once per call
    titles = pseudo_words(6_000, rng)
    pages, size, page_id, at = [], 0, 1, 0
    while size < 4_000_000:
        n = int(rng.integers(5, 60))
        t = (page_id * 3) % 5_990
        title = " ".join(titles[t:t + int(rng.integers(1, 4))]).title()
        body = " ".join(sentences[at % 39_900:at % 39_900 + n])
        at += n
        page = PAGE.format(title=title, id=page_id, rev=int(rng.integers(10**6, 10**8)), day=page_id % 9 + 1, body=body)
        pages.append(page)
        size += len(page.encode())
        page_id += 1
    block = ("<mediawiki xml:lang=\"en\">\n" + "".join(pages)).encode("utf-8")
    data = (block * (TOTAL // len(block) + 1))[:TOTAL]
    with gzip.open(run / "data" / "enwik8.gz", "wb", compresslevel=6) as f:
        f.write(data)
