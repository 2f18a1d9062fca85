"""Generated stand-ins for huggingface/autotrain-advanced's image-classification trainer
(python -m autotrain.trainers.image_classification --training_config training_params.json).

    python make_data.py RUN

- RUN/data/{train,validation}/<class>/*.jpg: an image folder shaped like the `beans` data set (AutoTrain's usual
  image-classification demo): 3 classes (angular_leaf_spot, bean_rust, healthy), 500x500 RGB JPEGs (quality 90,
  ~40-60 KB: smooth colour fields plus noise, fakedata.write_jpeg), N_TRAIN / N_VALID images split evenly over the
  classes (the real beans has 1034 / 133). datasets' load_dataset(folder, split=...) reads it as an "imagefolder"
  with columns image and label. Seeded.
- RUN/training_params.json: the trainer's config (ImageClassificationParams as JSON, what the autotrain CLI writes
  into the project folder before it launches the trainer): the defaults of params.py, with data_path ./data,
  image_column image, target_column label, valid_split validation, the epochs and batch size below.
- RUN/hf_home/hub/models--google--vit-base-patch16-224: the Hub cache layout AutoConfig / AutoModelForImageClassification
  / AutoImageProcessor read with HF_HUB_OFFLINE=1, holding a randomly initialised (seeded) ViT SMALLER than
  vit-base-patch16-224: 6 layers of width 384, 6 heads, MLP 1536 (the real one: 12 x 768, 12 heads, MLP 3072),
  same 224x224 input, patch 16, and its 1000-class ImageNet head (the trainer swaps it for a 3-class head with
  ignore_mismatched_sizes=True); preprocessor_config.json as the real one (ViTImageProcessor, 224x224, mean/std 0.5).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_snapshot, write_jpeg  # noqa: E402

CLASSES = ["angular_leaf_spot", "bean_rust", "healthy"]
N_TRAIN, N_VALID = 80, 24  # 10 steps of 8 per epoch, 3 epochs (beans: 1034 / 133)
SIDE = 500
MODEL = "google/vit-base-patch16-224"
SNAPSHOT = "3f49326eb077187dfe1c2a2bb15fbd74e6ab91e3"  # any fixed revision id: refs/main points at it
CONFIG = {
    "data_path": "./data",
    "model": MODEL,
    "project_name": "autotrain-beans-vit",
    "lr": 5e-5,
    "epochs": 3,
    "batch_size": 8,
    "warmup_ratio": 0.1,
    "gradient_accumulation": 1,
    "optimizer": "adamw_torch",
    "scheduler": "linear",
    "weight_decay": 0.0,
    "max_grad_norm": 1.0,
    "seed": 42,
    "train_split": "train",
    "valid_split": "validation",
    "logging_steps": -1,
    "auto_find_batch_size": False,
    "mixed_precision": None,
    "save_total_limit": 1,
    "push_to_hub": False,
    "eval_strategy": "epoch",
    "image_column": "image",
    "target_column": "label",
    "log": "none",
    "early_stopping_patience": 5,
    "early_stopping_threshold": 0.01,
}


def images(run: Path, rng: np.random.Generator) -> None:
    for split, n in (("train", N_TRAIN), ("validation", N_VALID)):
        for i in range(n):
            cls = CLASSES[i % len(CLASSES)]
            write_jpeg(run / "data" / split / cls / f"{split}.{i:04d}.jpg", SIDE, SIDE, rng, quality=90)


def model(run: Path) -> None:
    import torch
    from transformers import ViTConfig, ViTForImageClassification

    out = hub_snapshot(run / "hf_home", MODEL, SNAPSHOT)
    torch.manual_seed(0)
    config = ViTConfig(hidden_size=384, num_hidden_layers=6, num_attention_heads=6, intermediate_size=1536,
                       image_size=224, patch_size=16, num_labels=1000,
                       id2label={i: f"imagenet_class_{i}" for i in range(1000)},
                       label2id={f"imagenet_class_{i}": i for i in range(1000)})
    ViTForImageClassification(config).save_pretrained(out)
    (out / "preprocessor_config.json").write_text(json.dumps({
        "do_normalize": True, "do_resize": True, "image_processor_type": "ViTImageProcessor",
        "image_mean": [0.5, 0.5, 0.5], "image_std": [0.5, 0.5, 0.5], "resample": 2,
        "size": {"height": 224, "width": 224}}, indent=2))


def main() -> None:
    run = Path(sys.argv[1])
    run.mkdir(parents=True, exist_ok=True)
    images(run, np.random.default_rng(27))
    (run / "training_params.json").write_text(json.dumps(CONFIG, indent=2))
    model(run)


if __name__ == "__main__":
    main()
