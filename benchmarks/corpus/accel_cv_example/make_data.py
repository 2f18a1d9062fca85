"""Images and "pretrained" weights for accelerate's examples/cv_example.py (run with the corpus venv).

- RUN/images: 37 breeds x 20 = 740 JPEGs named BREED_N.jpg like the Oxford-IIIT Pets images the script
  expects (its label is the name before the last underscore), random smooth pictures of 300-600 x
  300-500 pixels, quality 90;
- RUN/hf_home/hub: timm's "timm/resnet50d.ra2_in1k" in the Hugging Face hub cache layout, holding a
  randomly initialised resnet50d (1000 classes) as model.safetensors, so that
  create_model("resnet50d", pretrained=True) finds it with HF_HUB_OFFLINE=1 and downloads nothing.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_timm, write_jpeg  # noqa: E402

BREEDS = 37
PER_BREED = 20
SNAPSHOT = "0" * 40  # any commit id: the cache's refs/main points at it


def write_images(folder: Path, rng: np.random.Generator) -> None:
    for b in range(BREEDS):
        name = f"breed{b:02d}" if b % 2 else f"Breed{b:02d}"  # both cases, as in Pets (cats upper, dogs lower)
        for i in range(1, PER_BREED + 1):
            write_jpeg(folder / f"{name}_{i}.jpg", int(rng.integers(300, 501)), int(rng.integers(300, 601)), rng)


def write_timm_cache(hub: Path) -> None:
    snap, model = hub_timm(hub.parent, "timm/resnet50d.ra2_in1k", SNAPSHOT)
    cfg = {"architecture": "resnet50d", "num_classes": 1000, "num_features": 2048,
           "pretrained_cfg": dict(model.pretrained_cfg)}
    (snap / "config.json").write_text(json.dumps(cfg, default=str, indent=1))


if __name__ == "__main__":
    run = Path(sys.argv[1])
    write_images(run / "images", np.random.default_rng(0))
    write_timm_cache(run / "hf_home" / "hub")
