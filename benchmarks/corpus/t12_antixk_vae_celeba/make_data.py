"""Fake CelebA (aligned JPEG folder) for AntixK/PyTorch-VAE's run.py, and a CPU copy of its configs/vae.yaml.

The script's VAEDataset builds MyCelebA(data_path, split=..., download=False), torchvision's CelebA with the md5
check turned off: it reads RUN/Data/celeba/list_eval_partition.txt, identity_CelebA.txt, list_bbox_celeba.txt,
list_landmarks_align_celeba.txt, list_attr_celeba.txt and decodes RUN/Data/celeba/img_align_celeba/NNNNNN.jpg
(178x218 like the real aligned CelebA) one by one in __getitem__ (then flip, CenterCrop 148, Resize 64, ToTensor).
2048 train / 128 test JPEG pictures (smooth colour fields + noise, quality 90), random attributes: 32 training steps
of 64, 2 validation batches of 64.

RUN/configs/vae_cpu.yaml is configs/vae.yaml as published with two values changed for this machine: gpus: [] (no
GPU here; the published [1] asks for a CUDA device) and max_epochs: 1 (instead of 100).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

N_TRAIN, N_TEST = 2048, 128
ATTRS = ("5_o_Clock_Shadow Arched_Eyebrows Attractive Bags_Under_Eyes Bald Bangs Big_Lips Big_Nose Black_Hair "
         "Blond_Hair Blurry Brown_Hair Bushy_Eyebrows Chubby Double_Chin Eyeglasses Goatee Gray_Hair Heavy_Makeup "
         "High_Cheekbones Male Mouth_Slightly_Open Mustache Narrow_Eyes No_Beard Oval_Face Pale_Skin Pointy_Nose "
         "Receding_Hairline Rosy_Cheeks Sideburns Smiling Straight_Hair Wavy_Hair Wearing_Earrings Wearing_Hat "
         "Wearing_Lipstick Wearing_Necklace Wearing_Necktie Young").split()

CONFIG = """model_params:
  name: 'VanillaVAE'
  in_channels: 3
  latent_dim: 128


data_params:
  data_path: "Data/"
  train_batch_size: 64
  val_batch_size:  64
  patch_size: 64
  num_workers: 4


exp_params:
  LR: 0.005
  weight_decay: 0.0
  scheduler_gamma: 0.95
  kld_weight: 0.00025
  manual_seed: 1265

trainer_params:
  gpus: []
  max_epochs: 1

logging_params:
  save_dir: "logs/"
  name: "VanillaVAE"
"""


def main(run: Path) -> None:
    rng = np.random.default_rng(0)
    root = run / "Data" / "celeba"
    n = N_TRAIN + N_TEST
    names = [f"{i + 1:06d}.jpg" for i in range(n)]
    for name in names:
        write_jpeg(root / "img_align_celeba" / name, 218, 178, rng)
    split = [0] * N_TRAIN + [2] * N_TEST
    (root / "list_eval_partition.txt").write_text("".join(f"{f} {s}\n" for f, s in zip(names, split)))
    (root / "identity_CelebA.txt").write_text("".join(f"{f} {rng.integers(1, 500)}\n" for f in names))
    (root / "list_bbox_celeba.txt").write_text(
        f"{n}\nimage_id x_1 y_1 width height\n" + "".join(f"{f} 95 71 226 313\n" for f in names))
    (root / "list_landmarks_align_celeba.txt").write_text(
        f"{n}\nlefteye_x lefteye_y righteye_x righteye_y nose_x nose_y leftmouth_x leftmouth_y rightmouth_x rightmouth_y\n"
        + "".join(f"{f} 69 109 106 113 77 142 73 152 108 154\n" for f in names))
    attr = rng.choice([-1, 1], size=(n, len(ATTRS)))
    (root / "list_attr_celeba.txt").write_text(
        f"{n}\n" + " ".join(ATTRS) + "\n" + "".join(f"{f} " + " ".join(str(v) for v in row) + "\n"
                                                 for f, row in zip(names, attr)))
    (run / "configs").mkdir(parents=True, exist_ok=True)
    (run / "configs" / "vae_cpu.yaml").write_text(CONFIG)


if __name__ == "__main__":
    main(Path(sys.argv[1]))
