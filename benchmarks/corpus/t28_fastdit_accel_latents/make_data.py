"""Fake pre-extracted ImageNet-256 latents + a stand-in VAE for chuanyangjin/fast-DiT's train.py (DiT training,
loop driven by Hugging Face accelerate).

train.py trains on features that extract_features.py wrote with the SD VAE: one .npy file per image,
FEATURES/imagenet256_features/<i>.npy (float32, shape (1, 4, 32, 32): a 256x256 image's latent times 0.18215) and
FEATURES/imagenet256_labels/<i>.npy (int64, shape (1,): the ImageNet class, 0..999). This writes N of each pair under
RUN/features (seeded: smooth-ish unit-variance latents, labels uniform over the 1000 classes).

train.py also loads AutoencoderKL.from_pretrained("stabilityai/sd-vae-ft-ema") (default --vae ema) and moves it to the
device, although the training loop never uses it. It is written into the Hub cache under RUN/hf_home (HF_HOME, with
HF_HUB_OFFLINE=1) with the real model's config (block_out_channels [128, 256, 512, 512], 2 layers a block, 4 latent
channels: 83.7 M parameters, 335 MB of fp32 safetensors) and random weights (seeded).
"""
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import hub_snapshot  # noqa: E402

N_IMAGES = 320
NUM_CLASSES = 1000

VAE_CONFIG = {  # stabilityai/sd-vae-ft-ema's config.json
    "_class_name": "AutoencoderKL",
    "_diffusers_version": "0.4.2",
    "act_fn": "silu",
    "block_out_channels": [128, 256, 512, 512],
    "down_block_types": ["DownEncoderBlock2D"] * 4,
    "in_channels": 3,
    "latent_channels": 4,
    "layers_per_block": 2,
    "norm_num_groups": 32,
    "out_channels": 3,
    "sample_size": 256,
    "up_block_types": ["UpDecoderBlock2D"] * 4,
}


def latents(n: int, rng: np.random.Generator) -> np.ndarray:
    """n latents (n, 1, 4, 32, 32), float32, about unit variance, with some spatial correlation like a VAE's."""
    x = rng.standard_normal((n, 1, 4, 34, 34)).astype(np.float32)
    x = (x[..., :-2, :-2] + x[..., 1:-1, 1:-1] + x[..., 2:, 2:] + x[..., 1:-1, :-2] + x[..., :-2, 1:-1]) / np.sqrt(5)
    return np.ascontiguousarray(x, dtype=np.float32)


def features(root: Path, n: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    fdir, ldir = root / "imagenet256_features", root / "imagenet256_labels"
    fdir.mkdir(parents=True, exist_ok=True)
    ldir.mkdir(parents=True, exist_ok=True)
    xs = latents(n, rng)
    ys = rng.integers(0, NUM_CLASSES, size=(n, 1), dtype=np.int64)
    for i in range(n):  # as extract_features.py names them: {train_steps}.npy
        np.save(fdir / f"{i}.npy", xs[i])
        np.save(ldir / f"{i}.npy", ys[i])


def stand_in_vae(hf_home: Path) -> None:
    import torch
    from diffusers.models import AutoencoderKL

    out = hub_snapshot(hf_home, "stabilityai/sd-vae-ft-ema", "f04b2c4b98319346dad8c65879f680b1997b204a")
    torch.manual_seed(0)
    cfg = {k: v for k, v in VAE_CONFIG.items() if not k.startswith("_")}
    AutoencoderKL(**cfg).save_pretrained(str(out), safe_serialization=True)


if __name__ == "__main__":
    run = Path(sys.argv[1])
    run.mkdir(parents=True, exist_ok=True)
    features(run / "features", N_IMAGES)
    stand_in_vae(run / "hf_home")
