"""Fake MovieLens-100k for catalyst's examples/recsys/multidae.py.

catalyst.contrib.datasets.MovieLens(root=".", download=True) downloads only when MovieLens/processed/training.pt and
test.pt are missing, then always rebuilds them from MovieLens/raw/ml-100k/ua.base and ua.test (tab-separated
user, item, rating, timestamp; u.item and u.genre are read but unused). So this writes small placeholder .pt files
(overwritten by the dataset) and the raw files in ml-100k's shape: 943 users, 1682 items, ratings 1-5, each user
rating 20-300 items (long-tailed, popular items more often), 10 of each user's ratings held out in ua.test
(~100 k ratings in all, like the real set). The train loader then has ceil(943 / 32) = 30 batches of 943-user rows.
"""
import sys
from pathlib import Path

import numpy as np
import torch

N_USERS, N_ITEMS = 943, 1682

if __name__ == "__main__":
    root = Path(sys.argv[1]) / "MovieLens"
    raw, processed = root / "raw" / "ml-100k", root / "processed"
    raw.mkdir(parents=True, exist_ok=True)
    processed.mkdir(parents=True, exist_ok=True)
    for name in ("training.pt", "test.pt"):
        torch.save(torch.zeros(1), processed / name)
    rng = np.random.default_rng(0)
    popularity = 1.0 / np.arange(1, N_ITEMS + 1) ** 0.8
    popularity /= popularity.sum()
    base, test = [], []
    for user in range(1, N_USERS + 1):
        n = int(min(300, 20 + rng.zipf(1.6) * 10))
        items = rng.choice(N_ITEMS, size=n, replace=False, p=popularity) + 1
        if user == N_USERS:
            items[0] = N_ITEMS  # the dataset sizes its matrix by the largest item id seen
        ratings = rng.integers(1, 6, n)
        stamps = 874724710 + rng.integers(0, 10**7, n)
        rows = [f"{user}\t{i}\t{r}\t{t}" for i, r, t in zip(items, ratings, stamps)]
        test += rows[:10]
        base += rows[10:]
    (raw / "ua.base").write_text("\n".join(base) + "\n")
    (raw / "ua.test").write_text("\n".join(test) + "\n")
    (raw / "u.item").write_text("".join(f"{i}|Movie {i} (1995)|01-Jan-1995||http://example.invalid|0|0\n"
                                        for i in range(1, N_ITEMS + 1)), encoding="ISO-8859-1")
    (raw / "u.genre").write_text("unknown|0\nAction|1\nComedy|2\nDrama|3\n\n")
