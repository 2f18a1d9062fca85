"""A GAN-like loop that ends after a few iterations: a generator and a discriminator, each with its own
optimizer, on random images from a DataLoader. ``--iterations N`` (default 5) batches, one epoch.

Each iteration: D forward on real and fake, D backward, D step; G forward, G backward, G step."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--iterations", type=int, default=5)
    p.add_argument("--batch-size", type=int, default=32)
    args = p.parse_args()
    torch.manual_seed(0)
    images = torch.randn(args.iterations * args.batch_size, 3, 32, 32)
    loader = DataLoader(TensorDataset(images), batch_size=args.batch_size, shuffle=True)
    netG = nn.Sequential(nn.ConvTranspose2d(64, 64, 4, 1, 0), nn.BatchNorm2d(64), nn.ReLU(),
                         nn.ConvTranspose2d(64, 32, 4, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
                         nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.BatchNorm2d(16), nn.ReLU(),
                         nn.ConvTranspose2d(16, 3, 4, 2, 1), nn.Tanh())
    netD = nn.Sequential(nn.Conv2d(3, 16, 4, 2, 1), nn.LeakyReLU(0.2),
                         nn.Conv2d(16, 32, 4, 2, 1), nn.BatchNorm2d(32), nn.LeakyReLU(0.2),
                         nn.Conv2d(32, 64, 4, 2, 1), nn.BatchNorm2d(64), nn.LeakyReLU(0.2),
                         nn.Conv2d(64, 1, 4, 1, 0), nn.Flatten(), nn.Sigmoid())
    criterion = nn.BCELoss()
    optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    for i, (real,) in enumerate(loader):
        b = real.size(0)
        netD.zero_grad()
        loss_real = criterion(netD(real), torch.ones(b, 1))
        fake = netG(torch.randn(b, 64, 1, 1))
        loss_fake = criterion(netD(fake.detach()), torch.zeros(b, 1))
        (loss_real + loss_fake).backward()
        optD.step()
        netG.zero_grad()
        loss_g = criterion(netD(fake), torch.ones(b, 1))
        loss_g.backward()
        optG.step()
        print(f"[{i}/{len(loader)}] loss_D {(loss_real + loss_fake).item():.3f} loss_G {loss_g.item():.3f}")


if __name__ == "__main__":
    main()
