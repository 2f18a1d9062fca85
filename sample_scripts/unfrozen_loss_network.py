"""An image autoencoder trained with a perceptual loss whose feature network nobody froze.

Planted: the loss compares the reconstruction's and the image's features from a convolutional feature network
(a VGG's role; random and small here, so nothing is downloaded) that the model makes the first time the loss
needs it, after the optimizer was built from the model's parameters. The network's weights keep
requires_grad=True: every backward computes their gradients and adds them to .grad, and no optimizer ever
applies them (muse-maskgit's VQGanVAE does this with its VGG16). ``--freeze`` makes the feature network with
requires_grad_(False): the same loss and the same gradients for the autoencoder, without the feature network's own.
"""

TRAINPROBE_SAMPLE = {
    "plants": "a perceptual loss's feature network left trainable, outside the optimizer",
    "verdict": {"cpu": "compute", "gpu": None},
    "findings": {"cpu": ["gradients-for-unoptimized-weights"], "gpu": ["gradients-for-unoptimized-weights"]},
    "allow": {"cpu": ["cpu-bf16-not-used", "compile-would-fuse"], "gpu": ["small-batch-underused-gpu"]},
    "clean": False,
    "ci": False,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def feature_network():
    layers, width = [], 3
    for out in (32, 64, 64, 128):
        layers += [nn.Conv2d(width, out, 3, padding=1), nn.ReLU()]
        width = out
    return nn.Sequential(*layers)


class AutoEncoder(nn.Module):
    def __init__(self, freeze):
        super().__init__()
        self.encoder = nn.Sequential(nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 8, 3, padding=1))
        self.decoder = nn.Sequential(nn.Conv2d(8, 32, 3, padding=1), nn.ReLU(), nn.Conv2d(32, 3, 3, padding=1))
        self.freeze = freeze
        self._features = None

    @property
    def features(self):
        # PLANTED: made when the loss first needs it (as a pretrained network is loaded lazily), after the
        # optimizer was built, and left trainable unless --freeze.
        if self._features is None:
            self._features = feature_network().to(next(self.parameters()).device)
            if self.freeze:
                self._features.requires_grad_(False)
        return self._features

    def forward(self, images):
        recon = self.decoder(self.encoder(images))
        perceptual = (self.features(recon) - self.features(images)).abs().mean()
        return (recon - images).abs().mean() + 0.1 * perceptual


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--size", type=int, default=24, help="image side, pixels")
    parser.add_argument("--train-size", type=int, default=192)
    parser.add_argument("--freeze", action="store_true", help="freeze the feature network (the fix)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    torch.manual_seed(0)
    images = torch.rand(args.train_size, 3, args.size, args.size)
    loader = DataLoader(TensorDataset(images), batch_size=args.batch_size, shuffle=True, drop_last=True)
    model = AutoEncoder(args.freeze).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)  # built before the feature network exists

    step = 0
    for epoch in range(args.epochs):
        for (batch,) in loader:
            loss = model(batch.to(device, non_blocking=True))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            if step == args.steps:
                print(f"loss {loss.item():.4f}")
                return
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
