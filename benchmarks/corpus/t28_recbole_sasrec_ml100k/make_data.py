"""MovieLens-100K stand-in for RecBole's run_recbole.py --model=SASRec --dataset=ml-100k (numpy only).

RecBole reads RUN/dataset/ml-gen/ml-gen.inter (data_path 'dataset/' relative to the working folder, the dataset
name as folder and file stem): a tab-separated atomic file with the header
'user_id:token<TAB>item_id:token<TAB>rating:float<TAB>timestamp:float' and one interaction a line, the format of the
file the repository ships (943 users, 1,682 items, 100,000 ratings, >= 20 ratings a user). SASRec loads only that
file (load_col inter). Here it is smaller so that one run fits the corpus size: 100 users with 20-260 ratings each
(geometric-like, mean ~100; ~10k interactions), 1,682 items with Zipf-like popularity, ratings 1-5, timestamps
increasing per user in the real data's range (Sep 1997 - Apr 1998). The repository's ml-100k.item/.user files are not
needed (SASRec loads the .inter file only) and are not written.

RecBole reads the shipped MovieLens file for the name 'ml-100k' from inside its package
(recbole/dataset_example/ml-100k, hard-wired in Config._set_default_parameters), so the generated data set has its own
name, 'ml-gen', and, as RecBole's docs do for a custom data set, a dataset config file RUN/ml-gen.yaml that names its
columns (the same settings as recbole/properties/dataset/ml-100k.yaml: the four columns loaded, ids and timestamp
fields); the recipe passes it with --config_files.
"""
import sys
from pathlib import Path

import numpy as np

SEED = 28
N_USERS, N_ITEMS = 100, 1682


def main(run):
    rng = np.random.default_rng(SEED)
    out = Path(run) / "dataset" / "ml-gen"
    out.mkdir(parents=True, exist_ok=True)
    pop = 1.0 / np.arange(1, N_ITEMS + 1) ** 0.9
    pop /= pop.sum()
    item_ids = rng.permutation(N_ITEMS) + 1
    lines = ["user_id:token\titem_id:token\trating:float\ttimestamp:float"]
    n = 0
    for u in rng.permutation(N_USERS) + 1:
        k = int(min(260, 20 + rng.geometric(1 / 80.0)))
        items = rng.choice(item_ids, size=k, replace=False, p=pop)
        ratings = rng.choice(5, size=k, p=[0.06, 0.11, 0.27, 0.34, 0.22]) + 1
        t0 = rng.integers(874724710, 893286638 - 3_000_000)
        ts = np.sort(t0 + rng.integers(0, 3_000_000, size=k))
        for i, r, t in zip(items, ratings, ts):
            lines.append(f"{u}\t{i}\t{r}\t{t}")
        n += k
    (out / "ml-gen.inter").write_text("\n".join(lines) + "\n")
    (Path(run) / "ml-gen.yaml").write_text(
        "# dataset config for the generated MovieLens-100K stand-in (as recbole/properties/dataset/ml-100k.yaml)\n"
        "USER_ID_FIELD: user_id\nITEM_ID_FIELD: item_id\nRATING_FIELD: rating\nTIME_FIELD: timestamp\n"
        "load_col:\n    inter: [user_id, item_id, rating, timestamp]\n"
    )
    print(f"wrote {out / 'ml-gen.inter'}: {N_USERS} users, {N_ITEMS} items, {n} interactions")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else ".")
