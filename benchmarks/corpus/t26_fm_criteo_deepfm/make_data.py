"""Criteo stand-in for rixwew/pytorch-fm's examples/main.py --dataset_name criteo (numpy only).

- RUN/examples/criteo/train.txt: the Kaggle Display Advertising Challenge train.txt format that CriteoDataset parses: one
  impression a line, 40 tab-separated columns: the 0/1 click label, I1..I13 (integer counts, empty when missing,
  heavy-tailed, I2 may be -1..-3) and C1..C26 (8-hex-digit hashed categories, empty when missing). Missing rates and
  the real per-field cardinalities (C3 ~10M, C12 ~8M, C9 3, C20 4 ...) follow the real file; category values are
  drawn with a power law over each field's real vocabulary (the eight fields with >50k values: 60% from a middle
  band of 8000 values seen ~15 times each), so the long tail falls under pytorch-fm's min_threshold=10 like on the
  real data and the embedding table has 72,133 rows (the real file gives ~1.09M); the label is a logistic
  function of a few fields (22.6% positives here,
  Criteo has 25.6%). ROWS lines (seeded) instead of 45,840,617.
- RUN/examples/chkpt/: the script's default --save_dir, where its EarlyStopper torch.save()s the model (it does not create it).
"""
import sys
from pathlib import Path

import numpy as np

ROWS = 200_000
SEED = 26
# C1..C26 distinct values in the real train.txt
CARD = [1460, 583, 10131227, 2202608, 305, 24, 12517, 633, 3, 93145, 5683, 8351593, 3194, 27, 14992, 5461306,
        10, 5652, 2173, 4, 7046547, 18, 15, 286181, 105, 142572]
# missing fraction of C1..C26 and I1..I13 in the real train.txt
C_MISS = [0, 0, .034, .034, 0, .121, 0, 0, 0, .034, 0, .034, 0, 0, 0, .034, 0, 0, .44, .44, .034, 0, 0, .034, .44, .44]
I_MISS = [.45, 0, .215, .217, .026, .223, .043, .0005, .043, .45, .043, .765, .217]
I_MEAN = [3.5, 106, 27, 7.3, 18538, 116, 16, 12.5, 106, .6, 2.7, 1, 8.2]


def main(run: Path) -> None:
    rng = np.random.default_rng(SEED)
    n = ROWS
    cols = []
    logit = np.full(n, -0.2)
    ints = []
    for j in range(13):
        v = np.floor(rng.pareto(1.6, n) * I_MEAN[j] * 0.6).astype(np.int64)
        if j == 1:
            v -= (rng.random(n) < 0.05) * rng.integers(1, 4, n)
        logit += 0.15 * (np.log1p(np.maximum(v, 0)) - 1.0) * (1 if j % 2 else -1)
        s = v.astype(str).astype(object)
        s[rng.random(n) < I_MISS[j]] = ""
        ints.append(s)
    cats = []
    for j, k in enumerate(CARD):
        # power law over the field's vocabulary: the head repeats, the tail is seen once
        r = np.floor(k ** rng.random(n) ** 1.3).astype(np.int64) - 1
        if k > 50_000:  # the big fields: a wide middle of values seen ~10-30 times (they survive min_threshold=10)
            mid = rng.random(n) < 0.6
            r[mid] = 5000 + rng.integers(0, min(k, n) // 25, mid.sum())
        h = (r * 2654435761 + j * 97531) % (1 << 32)
        if j in (0, 5, 13, 19):
            logit += ((h % 7) - 3) * 0.12
        s = np.char.mod("%08x", h).astype(object)
        s[rng.random(n) < C_MISS[j]] = ""
        cats.append(s)
    label = (rng.random(n) < 1 / (1 + np.exp(-logit))).astype(np.int64).astype(str).astype(object)
    table = np.stack([label] + ints + cats, axis=1)
    (run / "examples" / "chkpt").mkdir(parents=True, exist_ok=True)
    out = run / "examples" / "criteo"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "train.txt", "w") as f:
        f.write("\n".join("\t".join(row) for row in table))
        f.write("\n")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
