"""Generated data for lucidrains/muse-maskgit-pytorch's README example (VQGanVAETrainer on a folder of images).

The repository has no training script: its README's first example ("First train your VAE") is the script. prepare.py
places README.md (with the recipe's one-line edits) and the muse_maskgit_pytorch package from the pinned commit;
this file then
* copies that README's first ```python block, line for line and unchanged, into RUN/train_vae.py
  (train_vae.py line N = README.md line N + 19);
* writes RUN/images/: N_IMAGES generated 256x256 RGB JPEGs (smooth colour fields + noise, seeded), which the
  trainer's ImageDataset finds with Path(folder).glob('**/*.jpg');
* writes RUN/torch_home/hub/checkpoints/vgg16-397923af.pth: a randomly initialised torchvision VGG16 state dict
  (seeded), so that VQGanVAE's perceptual loss, torchvision.models.vgg16(pretrained=True), finds it in the cache
  (TORCH_HOME=torch_home) instead of downloading the ImageNet weights (528 MB).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import write_jpeg  # noqa: E402

N_IMAGES = 200
SIZE = 256

if __name__ == "__main__":
    run = Path(sys.argv[1])
    lines = (run / "README.md").read_text(encoding="utf-8").split("\n")
    start = lines.index("First train your VAE - `VQGanVAE`") + 2
    assert lines[start] == "```python", lines[start]
    end = lines.index("```", start + 1)
    (run / "train_vae.py").write_text("\n".join(lines[start + 1:end]) + "\n", encoding="utf-8")

    rng = np.random.default_rng(0)
    for i in range(N_IMAGES):
        write_jpeg(run / "images" / f"{i:05d}.jpg", SIZE, SIZE, rng)

    import torch
    import torchvision
    torch.manual_seed(0)
    ckpt = run / "torch_home" / "hub" / "checkpoints" / "vgg16-397923af.pth"
    ckpt.parent.mkdir(parents=True, exist_ok=True)
    torch.save(torchvision.models.vgg16().state_dict(), ckpt)
