"""Fake ixi_tiny for TorchIO-project/torchio-notebooks' TorchIO_tutorial.ipynb.

The notebook reads ./ixi_tiny/image/*.nii.gz and ./ixi_tiny/label/*.nii.gz (the same sorted names in both) and only
downloads the zip when ./ixi_tiny is missing. The real set is 566 T1-weighted head MRIs with brain masks, all
83 x 44 x 55 voxels (int16 images, uint8 labels). Here N_SUBJECTS generated subjects (seeded) of the same shape:
a noisy ellipsoidal "head" with a brighter "brain" ellipsoid inside, a smooth bias field and a uint8 brain mask.
The voxel spacing (2.3, 5.45, 3.5) mm is our guess, chosen so that the notebook's Resample(4) gives about the
48 x 60 x 48 that its CropOrPad asks for.
"""
import sys
from pathlib import Path

import nibabel as nib
import numpy as np

N_SUBJECTS = 48   # ours: 43 training subjects = 3 whole-image steps of 16 and 7 patch steps of 32 (the real set has 566)
SHAPE = (83, 44, 55)
SPACING = (2.3, 5.45, 3.5)

if __name__ == "__main__":
    root = Path(sys.argv[1]) / "ixi_tiny"
    (root / "image").mkdir(parents=True, exist_ok=True)
    (root / "label").mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    affine = np.diag(list(SPACING) + [1.0])
    grid = np.stack(np.meshgrid(*[np.linspace(-1, 1, n, dtype=np.float32) for n in SHAPE], indexing="ij"))
    sites = ["Guys", "HH", "IOP"]
    for i in range(N_SUBJECTS):
        c = rng.uniform(-0.08, 0.08, 3).astype(np.float32)[:, None, None, None]
        r_head = rng.uniform(0.80, 0.95, 3).astype(np.float32)[:, None, None, None]
        r_brain = r_head * rng.uniform(0.70, 0.82)
        d_head = (((grid - c) / r_head) ** 2).sum(0)
        d_brain = (((grid - c) / r_brain) ** 2).sum(0)
        brain = d_brain < 1
        img = np.where(d_head < 1, 300.0, 0.0) + np.where(brain, rng.uniform(500, 900), 0.0)
        bias = 1 + 0.2 * (grid * rng.uniform(-1, 1, 3).astype(np.float32)[:, None, None, None]).sum(0)
        img = img * bias * rng.uniform(0.7, 1.6) + np.abs(rng.normal(0, 25, SHAPE))
        name = f"IXI{i:03d}-{sites[i % 3]}-{1000 + i}"
        nib.save(nib.Nifti1Image(img.astype(np.int16), affine), root / "image" / f"{name}_image.nii.gz")
        nib.save(nib.Nifti1Image(brain.astype(np.uint8), affine), root / "label" / f"{name}_label.nii.gz")
