"""Measure what freezing the loss network gains on sample_scripts/unfrozen_loss_network.py.

    python benchmarks/unoptimized_gain.py [--steps 40] [--batch-size 8]

Two copies of the sample's autoencoder train side by side in one process, step by step in turn on the same
batches: one as the sample has it (its feature network made after the optimizer and left trainable, so every
backward computes gradients for weights no optimizer holds), one with the feature network frozen (the sample's
--freeze). Prints each one's mean step and the ratio with a bootstrap interval over the pairs: the gain
`gradients-for-unoptimized-weights` estimates.
"""

from __future__ import annotations

import sys
from pathlib import Path

import torch

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "sample_scripts"))

from side_by_side import arguments, interleaved, report, timed_step  # noqa: E402
from unfrozen_loss_network import AutoEncoder  # noqa: E402


def main() -> None:
    args = arguments(steps=40, batch_size=8)

    torch.manual_seed(0)
    images = torch.utils.data.TensorDataset(torch.rand(1024, 3, 24, 24))
    loader = torch.utils.data.DataLoader(images, batch_size=args.batch_size, shuffle=True, drop_last=True)
    planted, frozen = AutoEncoder(freeze=False), AutoEncoder(freeze=True)
    frozen.load_state_dict(planted.state_dict())
    optimizers = [torch.optim.Adam(m.parameters(), lr=1e-3) for m in (planted, frozen)]  # before the networks exist
    pairs = interleaved(timed_step(optimizers[0], lambda batch: planted(batch[0])),
                        timed_step(optimizers[1], lambda batch: frozen(batch[0])), lambda: loader, args.warmup,
                        args.steps)
    report(pairs, args.batch_size, "left trainable", "frozen")


if __name__ == "__main__":
    main()
