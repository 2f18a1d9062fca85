"""Fake Cora in pytorch-GAT's own format for gordicaleksa/pytorch-GAT's training_script_cora.py.

utils/constants.py reads RUN/data/cora/ (the repository checks these files in; we generate them instead), three pickles:

- node_features.csr: a scipy.sparse CSR matrix 2708 x 1433 of binary "word present" features (~1.27% dense, as
  Cora: ~18 words a paper), float32;
- node_labels.npy: a pickled numpy int64 array of 2708 labels in 0..6 (despite the name, pickle, not .npy format);
- adjacency_list.dict: a pickled dict {node: [neighbours]} of an undirected random graph with Cora's 5429 edges
  (both directions listed, no self loops; the script adds self edges).

The script saves its final model with utils.get_training_state, which records git.Repo(search_parent_directories=True)
.head.object.hexsha: as in a clone of the repository, the run folder is made a git repository with one (empty) commit.

The script's fixed splits (train 0-139, val 140-639, test 1708-2707) and sizes (1433 features, 7 classes) match.
"""
import pickle
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import scipy.sparse as sp

N_NODES, N_FEATURES, N_CLASSES, N_EDGES = 2708, 1433, 7, 5429


def write(folder: Path, seed: int = 0) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    features = (rng.random((N_NODES, N_FEATURES)) < 0.0127).astype(np.float32)
    features[np.arange(N_NODES), rng.integers(0, N_FEATURES, N_NODES)] = 1.0  # every paper has a word
    labels = rng.integers(0, N_CLASSES, N_NODES).astype(np.int64)
    adjacency = defaultdict(list)
    seen = set()
    while len(seen) < N_EDGES:
        a, b = (int(v) for v in rng.integers(0, N_NODES, 2))
        if a == b or (min(a, b), max(a, b)) in seen:
            continue
        seen.add((min(a, b), max(a, b)))
        adjacency[a].append(b)
        adjacency[b].append(a)
    for name, obj in (("node_features.csr", sp.csr_matrix(features)), ("node_labels.npy", labels),
                      ("adjacency_list.dict", dict(adjacency))):
        with open(folder / name, "wb") as f:
            pickle.dump(obj, f, protocol=pickle.HIGHEST_PROTOCOL)


def git_checkout(run: Path) -> None:
    if not (run / ".git").exists():
        subprocess.run(["git", "init", "-q", str(run)], check=True)
        subprocess.run(["git", "-C", str(run), "-c", "user.name=corpus", "-c", "user.email=corpus@localhost", "commit", "-q",
                        "--allow-empty", "-m", "run folder"], check=True)


if __name__ == "__main__":
    run = Path(sys.argv[1])
    write(run / "data" / "cora")
    git_checkout(run)
