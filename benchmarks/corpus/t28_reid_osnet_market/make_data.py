"""Market-1501 stand-in for KaiyangZhou/deep-person-reid's scripts/main.py (torchreid's Market1501 dataset).

torchreid reads ROOT/market1501/Market-1501-v15.09.15/{bounding_box_train,query,bounding_box_test}/*.jpg and takes the
person id and camera from each file name, Market-1501's own pattern PPPP_cCsS_FFFFFF_NN.jpg (regex ([-\\d]+)_c(\\d)):
pid 0001-1501 (0000 = distractor, -1 = junk, both only in the gallery), camera 1-6. The folder exists, so
Dataset.download_dataset never touches the network. Images are 128x64 (H x W) RGB JPEGs, Market-1501's crop size
(fakedata.smooth_image: smooth random colour fields with fine noise, seeded); torchreid resizes them to 256x128.

SHRUNK: the training set keeps Market-1501's 751 training identities (so the classifier is 512 x 751 as on the real
data) but holds 768 images (Market-1501: 12936), i.e. 6 steps of batch 128 with drop_last; the test side holds 100
query images and 200 gallery images (+20 distractors pid 0000 and 10 junk pid -1) of 100 other identities
(Market-1501: 3368 query / 15913 gallery of 750 identities).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

N_TRAIN_IDS, N_TRAIN = 751, 768
N_TEST_IDS, N_QUERY, N_GALLERY, N_DISTRACT, N_JUNK = 100, 100, 200, 20, 10
H, W = 128, 64


def name(pid: int, cam: int, seq: int, frame: int, k: int) -> str:
    p = "-1" if pid == -1 else f"{pid:04d}"
    return f"{p}_c{cam}s{seq}_{frame:06d}_{k:02d}.jpg"


def main(run: Path) -> None:
    rng = np.random.default_rng(28)
    base = run / "reid-data" / "market1501" / "Market-1501-v15.09.15"
    # disjoint identities: train 0001-0751, test 0752-0851 (Market-1501 also keeps train and test identities apart)
    train_pids = list(range(1, N_TRAIN_IDS + 1))
    test_pids = list(range(N_TRAIN_IDS + 1, N_TRAIN_IDS + 1 + N_TEST_IDS))
    frame = 0
    for i in range(N_TRAIN):
        pid = train_pids[i % N_TRAIN_IDS]
        cam = int(rng.integers(1, 7))
        frame += 1
        write_jpeg(base / "bounding_box_train" / name(pid, cam, 1, frame, 1), H, W, rng, quality=95)
    for i in range(N_QUERY):
        pid = test_pids[i % N_TEST_IDS]
        frame += 1
        write_jpeg(base / "query" / name(pid, 1 + i % 3, 1, frame, 0), H, W, rng, quality=95)
    for i in range(N_GALLERY):
        pid = test_pids[i % N_TEST_IDS]
        frame += 1
        write_jpeg(base / "bounding_box_test" / name(pid, 1 + i % 6, 1, frame, 1), H, W, rng, quality=95)
    for i in range(N_DISTRACT):
        frame += 1
        write_jpeg(base / "bounding_box_test" / name(0, 1 + i % 6, 1, frame, 1), H, W, rng, quality=95)
    for i in range(N_JUNK):
        frame += 1
        write_jpeg(base / "bounding_box_test" / name(-1, 1 + i % 6, 1, frame, 1), H, W, rng, quality=95)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
