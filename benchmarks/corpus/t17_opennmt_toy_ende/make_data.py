"""Fake toy-ende (OpenNMT-py quickstart) for OpenNMT-py's train.py, plus the quickstart's YAML config.

The quickstart downloads toy-ende.tar.gz (10k tokenized en-de sentence pairs, one sentence a line, tokens separated
by spaces), runs `onmt_build_vocab -config toy_en_de.yaml -n_sample 10000` and then `onmt_train -config
toy_en_de.yaml`. We write, seeded:
  RUN/toy-ende/{src,tgt}-train.txt   N_TRAIN pairs of tokenized pseudo-word sentences (4-35 words, two vocabularies,
                                      commas and the full stop split off as tokens, like the toy set's Moses tokens)
  RUN/toy-ende/{src,tgt}-val.txt     N_VALID pairs
  RUN/toy-ende/run/example.vocab.{src,tgt}   what onmt_build_vocab writes: "token<TAB>count", most common first,
                                      counted over all training lines (the quickstart's -n_sample 10000 takes them all)
  RUN/toy_en_de.yaml                 the quickstart's config (steps 1 + 2), CPU (no gpu_ranks), shorter schedule
"""
import sys
from collections import Counter
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import pseudo_sentences  # noqa: E402

N_TRAIN = 2560
N_VALID = 50

CONFIG = """# toy_en_de.yaml (OpenNMT-py docs/source/quickstart.md, steps 1 and 2)

## Where the samples will be written
save_data: toy-ende/run/example
## Where the vocab(s) will be written
src_vocab: toy-ende/run/example.vocab.src
tgt_vocab: toy-ende/run/example.vocab.tgt
# Prevent overwriting existing files in the folder
overwrite: False

# Corpus opts:
data:
    corpus_1:
        path_src: toy-ende/src-train.txt
        path_tgt: toy-ende/tgt-train.txt
    valid:
        path_src: toy-ende/src-val.txt
        path_tgt: toy-ende/tgt-val.txt

# Train on the CPU (the quickstart's `world_size: 1` / `gpu_ranks: [0]` need a GPU)
world_size: 1

# Where to save the checkpoints (quickstart: save_checkpoint_steps 500, train_steps 1000, valid_steps 500)
save_model: toy-ende/run/model
save_checkpoint_steps: 30
train_steps: 60
valid_steps: 30
report_every: 10
# ours: the default bucket_size 262144 makes each of the 2 loader workers read this 2560-line corpus ~100 times
# over before the first batch (>10 min here); 8192 = ~3 passes, as the real 10k-line toy-ende needs ~26
bucket_size: 8192
"""


def tokenized(n, seed, vocab):
    sents = pseudo_sentences(n, np.random.default_rng(seed), min_words=4, max_words=35, vocab=vocab)
    return [s.replace(",", " ,").replace(".", " .") for s in sents]


if __name__ == "__main__":
    run = Path(sys.argv[1])
    data = run / "toy-ende"
    (data / "run").mkdir(parents=True, exist_ok=True)
    src = tokenized(N_TRAIN + N_VALID, 0, 24000)
    tgt = tokenized(N_TRAIN + N_VALID, 1, 24000)
    for side, lines in (("src", src), ("tgt", tgt)):
        (data / f"{side}-train.txt").write_text("\n".join(lines[:N_TRAIN]) + "\n", encoding="utf8")
        (data / f"{side}-val.txt").write_text("\n".join(lines[N_TRAIN:]) + "\n", encoding="utf8")
        counter = Counter(tok for line in lines[:N_TRAIN] for tok in line.split())
        with open(data / "run" / f"example.vocab.{side}", "w", encoding="utf8") as fo:
            for tok, count in counter.most_common():
                fo.write(tok + "\t" + str(count) + "\n")
    (run / "toy_en_de.yaml").write_text(CONFIG)
