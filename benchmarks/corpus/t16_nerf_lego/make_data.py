"""Fake NeRF-synthetic 'lego' scene (Blender format) for yenchenlin/nerf-pytorch's run_nerf.py.

configs/lego.txt reads ./data/nerf_synthetic/lego: transforms_{train,val,test}.json (camera_angle_x and one
frame per view: file_path "./<split>/r_<i>" and a 4x4 camera-to-world transform_matrix) and the RGBA PNGs
<split>/r_<i>.png, 800x800 like the real set (the config's half_res makes them 400x400 at load time).
Views: N_TRAIN / N_VAL / N_TEST (the real set has 100 / 100 / 200; run_nerf.py keeps every 8th val/test view).
Cameras sit on a sphere of radius 4.03 around the origin looking at it, as in the real scene; each image is a
smooth random colour field with a soft round object mask as its alpha channel (transparent background). Seeded.
"""
import json
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import smooth_image  # noqa: E402

N_TRAIN, N_VAL, N_TEST = 24, 16, 16
SIZE = 800
CAMERA_ANGLE_X = 0.6911112070083618  # the real lego scene's


def look_at(eye: np.ndarray) -> list:
    """4x4 camera-to-world matrix (OpenGL convention: the camera looks down its -z) for a camera at eye."""
    forward = -eye / np.linalg.norm(eye)
    right = np.cross(forward, [0.0, 0.0, 1.0])
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    m = np.eye(4)
    m[:3, 0], m[:3, 1], m[:3, 2], m[:3, 3] = right, up, -forward, eye
    return m.tolist()


def rgba(rng: np.random.Generator) -> np.ndarray:
    rgb = smooth_image(SIZE, SIZE, rng)
    yy, xx = np.mgrid[0:SIZE, 0:SIZE].astype(np.float32)
    cy, cx = rng.uniform(0.4, 0.6, 2) * SIZE
    r = rng.uniform(0.2, 0.3) * SIZE
    d = np.sqrt((yy - cy) ** 2 + (xx - cx) ** 2)
    alpha = np.clip((r - d) / 20.0 + 0.5, 0, 1) * 255
    return np.dstack([rgb, alpha.astype(np.uint8)])


if __name__ == "__main__":
    root = Path(sys.argv[1]) / "data" / "nerf_synthetic" / "lego"
    rng = np.random.default_rng(0)
    for split, n in (("train", N_TRAIN), ("val", N_VAL), ("test", N_TEST)):
        (root / split).mkdir(parents=True, exist_ok=True)
        frames = []
        for i in range(n):
            theta, phi = rng.uniform(-np.pi, np.pi), rng.uniform(0.1, 1.3)
            eye = 4.03 * np.array([np.cos(phi) * np.cos(theta), np.cos(phi) * np.sin(theta), np.sin(phi)])
            Image.fromarray(rgba(rng), "RGBA").save(root / split / f"r_{i}.png")
            frames.append({"file_path": f"./{split}/r_{i}", "rotation": 0.012566370614359171,
                           "transform_matrix": look_at(eye)})
        with open(root / f"transforms_{split}.json", "w") as f:
            json.dump({"camera_angle_x": CAMERA_ANGLE_X, "frames": frames}, f, indent=4)
