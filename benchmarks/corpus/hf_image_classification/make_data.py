"""Images and a small ViT for transformers' examples/pytorch/image-classification/run_image_classification.py.

Run with the transformers 4.49 venv (see recipe.toml).

- RUN/images/{train,validation}/<class>/*.jpg: a stand-in for the "beans" data set the example's README
  uses: 3 classes, 1034 train / 133 validation random smooth 500x500 JPEGs (q90), read by the script's
  `imagefolder` path (--train_dir / --validation_dir);
- RUN/tiny-vit: a randomly initialised ViT of DeiT-tiny's shape (12 layers, hidden 192, 3 heads, FFN 768,
  224x224 images in 16x16 patches, 5.5 M parameters) saved as ViTModel like google/vit-base-patch16-224-in21k
  (the classification head starts new, as it does there), with a ViTImageProcessor config (224, mean/std 0.5).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

CLASSES = ("angular_leaf_spot", "bean_rust", "healthy")
SPLITS = {"train": 1034, "validation": 133}


def write_images(root: Path, rng: np.random.Generator) -> None:
    for split, n in SPLITS.items():
        for i in range(n):
            write_jpeg(root / split / CLASSES[i % len(CLASSES)] / f"{split}_{i}.jpg", 500, 500, rng)


def write_vit(folder: Path) -> None:
    import torch
    from transformers import ViTConfig, ViTImageProcessor, ViTModel

    torch.manual_seed(0)
    config = ViTConfig(hidden_size=192, num_hidden_layers=12, num_attention_heads=3, intermediate_size=768,
                       image_size=224, patch_size=16)
    ViTModel(config, add_pooling_layer=False).save_pretrained(str(folder))
    ViTImageProcessor(size={"height": 224, "width": 224}, image_mean=[0.5] * 3, image_std=[0.5] * 3).save_pretrained(
        str(folder))


if __name__ == "__main__":
    run = Path(sys.argv[1])
    write_images(run / "images", np.random.default_rng(0))
    write_vit(run / "tiny-vit")
