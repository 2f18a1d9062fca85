"""Stand-in for CoDEx-S (pykeen.datasets.CoDExSmall), the data set of docs/source/examples/training/loss_weights.py.

`get_dataset(dataset="CodexSmall")` looks for $PYKEEN_HOME/datasets/codexsmall/{train,valid,test}.txt and downloads
them from tsafavi/codex on GitHub only when they are missing. The recipe's one-line edit sets PYKEEN_HOME to
./pykeen_home (absolute, from the run folder, where the command runs) before pykeen is imported, and this writes the
three files there, so nothing is downloaded.

Same layout as the real CoDEx-S files: tab-separated `head<TAB>relation<TAB>tail`, Wikidata-style ids (entities
Q..., relations P...), the same 2,034 entities and 42 relations, but SHRUNK to 2,400 training / 200 validation /
200 testing triples (the real set has 32,888 / 1,827 / 1,828) so that the example's 5 epochs take about a minute:
LCWA trains on the unique (head, relation) pairs, here 2,348 = 10 batches per epoch (9 of 256, one of 44) (the real set
gives many more), and every step scores each pair against all 2,034 entities, as with the real set. No duplicates, every
validation/testing entity and relation present in training (as in CoDEx), every entity in training. The
triples are generated and seeded: relation frequencies follow a Zipf law (a few relations such as occupation or
citizenship dominate), heads a mild power law over all entities, and each relation's tails come from its own small
pool of "hub" entities (countries, languages, occupations...) drawn with a power law, so the degree distribution is
heavy-tailed like a Wikidata extract.
"""
import sys
from pathlib import Path

import numpy as np

N_ENT, N_REL = 2034, 42
N_TRAIN, N_VALID, N_TEST = 2400, 200, 200  # SHRUNK from CoDEx-S 32,888 / 1,827 / 1,828


def main(run: Path) -> None:
    rng = np.random.default_rng(26)
    ents = [f"Q{q}" for q in rng.choice(np.arange(1, 3_000_000), size=N_ENT, replace=False)]
    rels = [f"P{p}" for p in rng.choice(np.arange(17, 3000), size=N_REL, replace=False)]
    rel_p = 1.0 / np.arange(1, N_REL + 1) ** 1.1
    rel_p /= rel_p.sum()
    head_p = 1.0 / np.arange(1, N_ENT + 1) ** 0.6
    head_p = rng.permutation(head_p / head_p.sum())
    pools = []  # per relation: a pool of tail entities and their weights
    for r in range(N_REL):
        size = int(rng.integers(20, 600))
        pool = rng.choice(N_ENT, size=size, replace=False)
        w = 1.0 / np.arange(1, size + 1) ** 1.0
        pools.append((pool, w / w.sum()))
    seen: set[tuple[int, int, int]] = set()

    def draw(n_want: int, heads_first: list[int], allowed: set[int] | None) -> list[tuple[int, int, int]]:
        got: list[tuple[int, int, int]] = []
        queue = list(heads_first)  # every entity is a head at least once in training, so training knows all 2,034
        while len(got) < n_want:
            rs = rng.choice(N_REL, size=4096, p=rel_p)
            hs = rng.choice(N_ENT, size=4096, p=head_p)
            for h, r in zip(hs.tolist(), rs.tolist()):
                if queue:
                    h = queue.pop()
                pool, w = pools[r]
                t = int(pool[rng.choice(len(pool), p=w)])
                if t == h or (h, r, t) in seen or (allowed is not None and (h not in allowed or t not in allowed)):
                    continue
                seen.add((h, r, t))
                got.append((h, r, t))
                if len(got) == n_want:
                    break
        return got

    train = draw(N_TRAIN, rng.permutation(N_ENT).tolist(), None)
    known = {e for h, _, t in train for e in (h, t)}
    valid = draw(N_VALID, [], known)
    test = draw(N_TEST, [], known)
    train = [train[i] for i in rng.permutation(N_TRAIN)]
    out = run / "pykeen_home" / "datasets" / "codexsmall"
    out.mkdir(parents=True, exist_ok=True)
    for name, part in (("train.txt", train), ("valid.txt", valid), ("test.txt", test)):
        with open(out / name, "w") as f:
            for h, r, t in part:
                f.write(f"{ents[h]}\t{rels[r]}\t{ents[t]}\n")
        print(f"{out / name}: {len(part)} triples")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
