"""Fake MovieLens-1M for dataflowr/notebooks' Module8/sol/08_collaborative_filtering_1M_sol.ipynb.

The notebook reads data_folder + 'ml-1m/ratings.dat' (UserID::MovieID::Rating::Timestamp) and 'ml-1m/movies.dat'
(MovieID::Title::Genres, ISO-8859-1) and downloads ml-1m.zip only when data_folder/ml-1m.zip is missing, so both the
zip and the extracted folder are written into RUN (the recipe points data_folder at './', the notebook's folder).
Sizes: 6040 users and 3706 rated movies as in the real set (3883 listed), but 100000 ratings instead of 1000209
(Zipf-like user and movie popularity, ratings 1-5 from user and movie offsets): after the notebook's 90/10 and 90/10
splits, 81000 training ratings = 80 steps of 1024 per epoch (the last one 104), 20 epochs (4 fit cells x n_iter=5).
"""
import sys
import zipfile
from pathlib import Path

import numpy as np

N_USERS, N_MOVIES_LISTED, N_MOVIES_RATED, N_RATINGS = 6040, 3883, 3706, 100000
GENRES = ["Action", "Adventure", "Animation", "Children's", "Comedy", "Crime", "Documentary", "Drama", "Fantasy",
          "Film-Noir", "Horror", "Musical", "Mystery", "Romance", "Sci-Fi", "Thriller", "War", "Western"]


def main(run: Path) -> None:
    rng = np.random.default_rng(0)
    syll = ["ka", "lo", "mi", "ra", "ten", "the", "dar", "son", "vel", "qui", "nor", "bel", "ast", "ion", "ce"]
    movie_ids = np.sort(rng.choice(np.arange(1, 3953), size=N_MOVIES_LISTED, replace=False))
    movies = []
    for mid in movie_ids:
        words = [("".join(rng.choice(syll, size=rng.integers(1, 4)))).capitalize() for _ in range(rng.integers(1, 5))]
        genres = "|".join(sorted(set(rng.choice(GENRES, size=rng.integers(1, 4)))))
        movies.append(f"{mid}::{' '.join(words)} ({rng.integers(1919, 2001)})::{genres}")
    rated = movie_ids[np.sort(rng.choice(N_MOVIES_LISTED, size=N_MOVIES_RATED, replace=False))]
    # every user and every rated movie appears at least once, the rest drawn with Zipf-like popularity
    pu = 1.0 / np.arange(1, N_USERS + 1) ** 0.7
    pm = 1.0 / np.arange(1, N_MOVIES_RATED + 1) ** 0.9
    extra = N_RATINGS - N_USERS - N_MOVIES_RATED
    users = np.concatenate([np.arange(1, N_USERS + 1), rng.integers(1, N_USERS + 1, N_MOVIES_RATED),
                            1 + rng.choice(N_USERS, size=extra, p=pu / pu.sum())])
    items = np.concatenate([rng.choice(rated, N_USERS), rated, rated[rng.choice(N_MOVIES_RATED, size=extra, p=pm / pm.sum())]])
    bias_u = rng.normal(0, 0.5, N_USERS + 1)
    bias_m = rng.normal(0, 0.7, 3953)
    ratings = np.clip(np.rint(3.6 + bias_u[users] + bias_m[items] + rng.normal(0, 0.8, N_RATINGS)), 1, 5).astype(int)
    stamps = rng.integers(956703932, 1046454590, N_RATINGS)
    order = np.lexsort((stamps, users))
    lines = "".join(f"{u}::{m}::{r}::{t}\n" for u, m, r, t in zip(users[order], items[order], ratings[order], stamps[order]))
    folder = run / "ml-1m"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ratings.dat").write_text(lines)
    (folder / "movies.dat").write_text("\n".join(movies) + "\n", encoding="ISO-8859-1")
    (folder / "README").write_text("Generated stand-in for MovieLens 1M (seeded); not the real data.\n")
    with zipfile.ZipFile(run / "ml-1m.zip", "w", zipfile.ZIP_DEFLATED) as z:
        for name in ("ratings.dat", "movies.dat", "README"):
            z.write(folder / name, f"ml-1m/{name}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) / "Module8" / "sol")
