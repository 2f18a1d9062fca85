"""Gowalla stand-in for gusye1234/LightGCN-PyTorch's code/main.py --dataset gowalla (numpy only, seeded).

dataloader.Loader (code/dataloader.py) reads, relative to code/ (the cwd), ../data/gowalla/:
* train.txt and test.txt: one line per user, "uid item item ...", space-separated ints, no trailing space,
  users 0..U-1 in order, items 0..I-1; n_users / m_items are the largest ids seen + 1. The repository's real files
  (LightGCN's 10-core Gowalla check-ins) have 29,858 users, 40,981 items, 810,128 training and 217,242 test
  interactions (~80/20 per user, every user in both files, at least ~8 training items each, mean 27, long tail).
* s_pre_adj_mat.npz: the normalised adjacency D^-1/2 A D^-1/2 of the user-item bipartite graph
  ((U+I) x (U+I) scipy csr, float32, sp.save_npz), which the repository ships for gowalla and Loader.getSparseGraph
  loads; written here the same way getSparseGraph would build it (which it does, slowly through a dok_matrix,
  ~30 s here, when the file is missing).
* item_list.txt / user_list.txt (org_id remap_id): not read by the code; written for the layout.
The real files are not in the snapshot (LFS/oversized), so all of this is generated.

Here: N_USERS users and N_ITEMS items (the real item/user ratio 1.37), each user with a lognormal number of
interactions (>= 10, long tail; mean ~32 here, ~34 in the real data), items drawn from a Zipf-like popularity mixed with
a user 'home region' (check-ins cluster geographically), 20% of each user's items (at least 1) to test.
"""
import sys
from pathlib import Path

import numpy as np
import scipy.sparse as sp

SEED = 29
N_USERS = 5990          # not a multiple of --testbatch 100: Procedure.Test asserts len(users) // 100 + 1 batches
N_ITEMS = 8200
N_REGIONS = 40


def main(run):
    rng = np.random.default_rng(SEED)
    out = run / "data" / "gowalla"
    out.mkdir(parents=True, exist_ok=True)
    region_of_item = rng.integers(0, N_REGIONS, N_ITEMS)
    pop = 1.0 / np.arange(1, N_ITEMS + 1) ** 0.8
    pop = pop[rng.permutation(N_ITEMS)]
    pop_all = pop / pop.sum()
    by_region = [np.flatnonzero(region_of_item == r) for r in range(N_REGIONS)]
    n_train = n_test = 0
    rows, cols = [], []
    with open(out / "train.txt", "w") as ftr, open(out / "test.txt", "w") as fte:
        for u in range(N_USERS):
            deg = int(min(max(10, rng.lognormal(3.2, 0.75)), 1500))
            home = rng.integers(0, N_REGIONS)
            n_home = int(round(deg * 0.7))
            p_home = pop[by_region[home]] / pop[by_region[home]].sum()
            items = set(rng.choice(by_region[home], size=min(n_home, len(by_region[home])), replace=False, p=p_home).tolist())
            while len(items) < deg:
                items.update(rng.choice(N_ITEMS, size=deg - len(items), p=pop_all).tolist())
            items = np.array(sorted(items))
            rng.shuffle(items)
            k = max(1, int(round(0.2 * len(items))))
            test, train = items[:k], items[k:]
            ftr.write(" ".join(map(str, [u, *train.tolist()])) + "\n")
            fte.write(" ".join(map(str, [u, *test.tolist()])) + "\n")
            n_train += len(train)
            rows += [u] * len(train)
            cols += train.tolist()
            n_test += len(test)
    # Loader.getSparseGraph's adjacency: A = [[0, R], [R^T, 0]], d^-1/2 (0 for empty rows), D^-1/2 A D^-1/2, csr
    R = sp.csr_matrix((np.ones(len(rows), dtype=np.float32), (rows, cols)), shape=(N_USERS, N_ITEMS))
    A = sp.bmat([[None, R], [R.T, None]], format="csr", dtype=np.float32)
    rowsum = np.asarray(A.sum(axis=1)).flatten()
    with np.errstate(divide="ignore"):
        d_inv = np.power(rowsum, -0.5)
    d_inv[np.isinf(d_inv)] = 0.0
    D = sp.diags(d_inv)
    sp.save_npz(out / "s_pre_adj_mat.npz", (D @ A @ D).tocsr().astype(np.float32))
    with open(out / "item_list.txt", "w") as f:
        f.write("org_id remap_id\n" + "".join(f"{1000000 + i * 7} {i}\n" for i in range(N_ITEMS)))
    with open(out / "user_list.txt", "w") as f:
        f.write("org_id remap_id\n" + "".join(f"{u * 3 + 1} {u}\n" for u in range(N_USERS)))
    print(f"gowalla stand-in: {N_USERS} users, {N_ITEMS} items, {n_train} train / {n_test} test interactions")


if __name__ == "__main__":
    main(Path(sys.argv[1]))
