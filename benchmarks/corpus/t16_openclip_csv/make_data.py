"""A CC3M-like image-caption CSV for mlfoundations/open_clip's training entry point (src/open_clip_train/main.py,
run with the corpus-t16-B python: pandas, ftfy, regex, timm, webdataset, braceexpand).

RUN/data/train.csv: open_clip's --dataset-type csv format (tab-separated, header `filepath<TAB>title`, the README's
--csv-img-key filepath / --csv-caption-key title defaults); each filepath is relative to RUN (the recipe's cwd):
data/images/NNNNN.jpg. N_IMAGES JPEGs of 320x256 (fakedata.write_jpeg: smooth colour field plus noise, quality 90,
~20-40 KB like a resized web photo) and one caption each of 5-20 pseudo-words (fakedata.pseudo_sentences), seeded.
The script decodes, RandomResizedCrops to 224 and tokenizes them itself (CLIP BPE, context 77).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_sentences, write_jpeg  # noqa: E402

N_IMAGES = 256

if __name__ == "__main__":
    run = Path(sys.argv[1])
    rng = np.random.default_rng(0)
    captions = pseudo_sentences(N_IMAGES, np.random.default_rng(1), min_words=5, max_words=20, vocab=6000)
    rows = ["filepath\ttitle"]
    for i, caption in enumerate(captions):
        rel = f"data/images/{i:05d}.jpg"
        write_jpeg(run / rel, 256, 320, rng)
        rows.append(f"{rel}\t{caption}")
    (run / "data" / "train.csv").write_text("\n".join(rows) + "\n")
