"""Fake 104-flowers JPEGs and a stand-in timm resnet18 checkpoint for tez's examples/image/flower_classification.py.

The script globs INPUT_PATH="data/" + jpeg-192x192/{train,val}/<class name>/*.jpeg (the Kaggle "104 flowers:
garden of eden" layout) and maps each folder name through its CLASSES dict (104 names), so the folders must carry
those exact names. We write 960 train / 128 val / 64 test 192x192 smooth-noise JPEGs (quality 90) spread over the
104 class names (seeded): 30 training steps of 32, 4 validation batches of 32. data/models/ is made for the
EarlyStopping checkpoint.

timm.create_model("resnet18", pretrained=True) reads timm/resnet18.a1_in1k from the Hugging Face Hub; we place a
randomly initialised (seeded) resnet18 state dict as model.safetensors in the hub cache under RUN/hf_home, which
timm reads with HF_HOME=hf_home HF_HUB_OFFLINE=1 (the recipe's env): no download, no edit.
"""
import re
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_timm, write_jpeg  # noqa: E402

SNAPSHOT = "0123456789abcdef0123456789abcdef01234567"


def class_names(script: Path) -> list[str]:
    text = script.read_text(encoding="utf-8")
    block = text[text.index("CLASSES = {"):text.index("}", text.index("CLASSES = {"))]
    return re.findall(r'^\s+"(.*)": \d+,$', block, flags=re.M)


def fake_resnet18(hf_home: Path) -> None:
    hub_timm(hf_home, "timm/resnet18.a1_in1k", SNAPSHOT)


if __name__ == "__main__":
    run = Path(sys.argv[1])
    names = class_names(run / "flower_classification.py")
    assert len(names) == 104, len(names)
    rng = np.random.default_rng(0)
    root = run / "data" / "jpeg-192x192"
    for split, n in (("train", 960), ("val", 128)):
        for i in range(n):
            write_jpeg(root / split / names[i % len(names)] / f"{i:05d}.jpeg", 192, 192, rng)
    for i in range(64):
        write_jpeg(root / "test" / f"{i:05d}.jpeg", 192, 192, rng)
    (run / "data" / "models").mkdir(parents=True, exist_ok=True)
    fake_resnet18(run / "hf_home")
