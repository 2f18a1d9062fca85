"""A flower-folder stand-in and a tiny UNet config for diffusers' examples/unconditional_image_generation/train_unconditional.py.

- RUN/flowers/*.jpg: 320 smooth-noise JPEGs of 256x256 (fakedata.write_jpeg, seeded), no metadata.jsonl: the
  script's --train_data_dir goes to load_dataset("imagefolder", data_dir=...), which reads a plain image folder
  (one "image" column; the labels column is absent because the images sit in one folder without class
  sub-folders). The README's data sets (huggan/flowers-102-categories, huggan/pokemon) are photographs of a few
  hundred pixels a side that the script resizes to --resolution; 256x256 keeps the JPEG decode + Resize cost per
  image of that kind. 320 images / batch 16 = 20 steps an epoch.
- RUN/tiny_unet/config.json: a UNet2DModel config for --model_config_name_or_path (the script then builds
  UNet2DModel.from_config, randomly initialised: nothing is downloaded). Without that flag the script builds its
  default 6-level UNet (128..512 channels, ~114 M parameters), far too heavy for this CPU; ours keeps the same
  block kinds (ResNet DownBlock2D/UpBlock2D with one attention level, layers_per_block 2, GroupNorm 32) at
  3 levels of 32/64/64 channels for 32x32 inputs: 1.6 M parameters.
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

CONFIG = {
    "_class_name": "UNet2DModel",
    "sample_size": 32,
    "in_channels": 3,
    "out_channels": 3,
    "layers_per_block": 2,
    "block_out_channels": [32, 64, 64],
    "down_block_types": ["DownBlock2D", "AttnDownBlock2D", "DownBlock2D"],
    "up_block_types": ["UpBlock2D", "AttnUpBlock2D", "UpBlock2D"],
}

if __name__ == "__main__":
    run = Path(sys.argv[1])
    rng = np.random.default_rng(0)
    for i in range(320):
        write_jpeg(run / "flowers" / f"image_{i:05d}.jpg", 256, 256, rng)
    (run / "tiny_unet").mkdir(parents=True, exist_ok=True)
    (run / "tiny_unet" / "config.json").write_text(json.dumps(CONFIG, indent=2) + "\n")
