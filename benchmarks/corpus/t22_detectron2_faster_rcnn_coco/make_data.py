"""COCO 2017 stand-in for detectron2's tools/train_net.py (run with the corpus-t22-D python: detectron2 installed).

tools/train_net.py trains on the builtin dataset names of the config (DATASETS.TRAIN ("coco_2017_train",), TEST
("coco_2017_val",)); detectron2 registers them at import, pointing at $DETECTRON2_DATASETS (default ./datasets, from
the recipe's cwd). So RUN/datasets/coco gets the real layout:
  annotations/instances_train2017.json, annotations/instances_val2017.json (COCO detection format: images,
  annotations with bbox [x, y, w, h], area, iscrowd 0, category_id; categories = the 80 real COCO thing categories
  with their real ids 1..90, so the builtin metadata's id mapping matches), train2017/*.jpg, val2017/*.jpg.
Images: N_TRAIN / N_VAL photographs-like JPEGs (fakedata.smooth_image, quality 90) of COCO's usual size, 640x480 or
480x640 (the real set's median is 640x480), each with 1-12 boxes (COCO averages ~7 objects an image) of random
classes, drawn as filled tinted rectangles so the boxes have something to see. Seeded.
"""
import json
import sys
from pathlib import Path

import numpy as np
from PIL import Image

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from fakedata import smooth_image  # noqa: E402

N_TRAIN, N_VAL = 64, 8

# the 80 COCO thing categories (id, name), as in detectron2/data/datasets/builtin_meta.py
COCO = [(1, "person"), (2, "bicycle"), (3, "car"), (4, "motorcycle"), (5, "airplane"), (6, "bus"), (7, "train"),
        (8, "truck"), (9, "boat"), (10, "traffic light"), (11, "fire hydrant"), (13, "stop sign"),
        (14, "parking meter"), (15, "bench"), (16, "bird"), (17, "cat"), (18, "dog"), (19, "horse"), (20, "sheep"),
        (21, "cow"), (22, "elephant"), (23, "bear"), (24, "zebra"), (25, "giraffe"), (27, "backpack"),
        (28, "umbrella"), (31, "handbag"), (32, "tie"), (33, "suitcase"), (34, "frisbee"), (35, "skis"),
        (36, "snowboard"), (37, "sports ball"), (38, "kite"), (39, "baseball bat"), (40, "baseball glove"),
        (41, "skateboard"), (42, "surfboard"), (43, "tennis racket"), (44, "bottle"), (46, "wine glass"),
        (47, "cup"), (48, "fork"), (49, "knife"), (50, "spoon"), (51, "bowl"), (52, "banana"), (53, "apple"),
        (54, "sandwich"), (55, "orange"), (56, "broccoli"), (57, "carrot"), (58, "hot dog"), (59, "pizza"),
        (60, "donut"), (61, "cake"), (62, "chair"), (63, "couch"), (64, "potted plant"), (65, "bed"),
        (67, "dining table"), (70, "toilet"), (72, "tv"), (73, "laptop"), (74, "mouse"), (75, "remote"),
        (76, "keyboard"), (77, "cell phone"), (78, "microwave"), (79, "oven"), (80, "toaster"), (81, "sink"),
        (82, "refrigerator"), (84, "book"), (85, "clock"), (86, "vase"), (87, "scissors"), (88, "teddy bear"),
        (89, "hair drier"), (90, "toothbrush")]


def write_split(root: Path, split: str, n: int, rng: np.random.Generator, first_id: int) -> None:
    folder = root / f"{split}2017"
    folder.mkdir(parents=True, exist_ok=True)
    images, annotations = [], []
    for k in range(n):
        image_id = first_id + k
        h, w = (480, 640) if rng.random() < 0.75 else (640, 480)
        pixels = smooth_image(h, w, rng).astype(np.int16)
        for _ in range(int(rng.integers(1, 13))):
            bw, bh = rng.uniform(16, w * 0.6), rng.uniform(16, h * 0.6)
            x, y = rng.uniform(0, w - bw), rng.uniform(0, h - bh)
            tint = rng.integers(-90, 90, 3)
            pixels[int(y):int(y + bh), int(x):int(x + bw)] += tint
            annotations.append({"id": len(annotations) + 1 + first_id * 100, "image_id": image_id,
                                "category_id": int(COCO[int(rng.integers(0, 80))][0]),
                                "bbox": [round(x, 2), round(y, 2), round(bw, 2), round(bh, 2)],
                                "area": round(bw * bh, 2), "iscrowd": 0})
        name = f"{image_id:012d}.jpg"
        Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8)).save(folder / name, quality=90)
        images.append({"id": image_id, "file_name": name, "height": h, "width": w})
    categories = [{"id": i, "name": name, "supercategory": "thing"} for i, name in COCO]
    (root / "annotations").mkdir(parents=True, exist_ok=True)
    with open(root / "annotations" / f"instances_{split}2017.json", "w") as f:
        json.dump({"info": {"description": "generated COCO stand-in"}, "licenses": [], "images": images,
                   "annotations": annotations, "categories": categories}, f)


def imagenet_r50_stand_in(run: Path, cache: Path) -> None:
    """A randomly initialised ResNet-50 (the config's backbone, built by detectron2 from the run's config), whose
    FrozenBN statistics are set from its own activations on two of our images (data-dependent init: each FrozenBN
    normalises its input; the last one of each residual branch scales by 0.2) so that training from it does not
    diverge as it does from bare random weights (FrozenBN is the identity then: NaN boxes at iteration ~6). Saved in
    detectron2's model-zoo pkl format (numpy arrays under the model's own names) where iopath's cache keeps
    detectron2://ImageNetPretrained/MSRA/R-50.pkl, so the config's MODEL.WEIGHTS is read offline (FVCORE_CACHE)."""
    import pickle

    import torch
    from detectron2.config import get_cfg
    from detectron2.layers import FrozenBatchNorm2d
    from detectron2.modeling import build_backbone

    torch.manual_seed(0)
    cfg = get_cfg()
    cfg.merge_from_file(str(run / "configs" / "COCO-Detection" / "faster_rcnn_R_50_FPN_1x.yaml"))
    cfg.MODEL.DEVICE = "cpu"
    net = build_backbone(cfg).bottom_up.eval()

    def calibrate(name):
        def hook(module, inputs):
            x = inputs[0].detach()
            module.running_mean.copy_(x.mean(dim=(0, 2, 3)))
            module.running_var.copy_(x.var(dim=(0, 2, 3)) + 1e-3)
            module.weight.fill_(0.2 if name.endswith("conv3.norm") else 1.0)
            module.bias.zero_()
        return hook

    handles = [m.register_forward_pre_hook(calibrate(n)) for n, m in net.named_modules()
               if isinstance(m, FrozenBatchNorm2d)]
    rng = np.random.default_rng(2)
    pixels = np.stack([smooth_image(480, 640, rng) for _ in range(2)])[..., ::-1].astype(np.float32)  # BGR
    x = torch.from_numpy(pixels.copy()).permute(0, 3, 1, 2) - torch.tensor(cfg.MODEL.PIXEL_MEAN).view(1, 3, 1, 1)
    with torch.no_grad():
        net(x / torch.tensor(cfg.MODEL.PIXEL_STD).view(1, 3, 1, 1))
    for h in handles:
        h.remove()
    state = {"backbone.bottom_up." + k: v.numpy() for k, v in net.state_dict().items()}
    out = cache / "detectron2" / "ImageNetPretrained" / "MSRA"
    out.mkdir(parents=True, exist_ok=True)
    with open(out / "R-50.pkl", "wb") as f:
        pickle.dump({"model": state, "__author__": "generated stand-in (random init, data-dependent FrozenBN stats)"}, f)


if __name__ == "__main__":
    run = Path(sys.argv[1])
    root = run / "datasets" / "coco"
    write_split(root, "train", N_TRAIN, np.random.default_rng(0), 1)
    write_split(root, "val", N_VAL, np.random.default_rng(1), 100001)
    imagenet_r50_stand_in(run, run / "fvcore_cache")
