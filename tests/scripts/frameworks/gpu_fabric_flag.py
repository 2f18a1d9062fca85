"""A language model trained with Lightning Fabric, its precision read from a --precision option left at
"32-true", on a GPU with bfloat16 tensor cores: the fix is the option, on the line that declares it. Sized for
a datacenter GPU (benchmarks/gpu_campaign.py); a tiny model on a CPU.
"""

import argparse

import lightning as L
import torch
import torch.nn as nn
from torch.utils.data import DataLoader

from _gpu_lm import BATCH, CausalLM, token_data


def main():
    parser = argparse.ArgumentParser(description="Language model pretraining with Fabric")
    parser.add_argument("--precision", default="32-true", choices=["32-true", "bf16-mixed", "bf16-true", "16-mixed"])
    parser.add_argument("--epochs", default=4, type=int)
    args = parser.parse_args()
    fabric = L.Fabric(accelerator="auto", devices=1, precision=args.precision)
    fabric.seed_everything(0)
    model = CausalLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    model, optimizer = fabric.setup(model, optimizer)
    loader = fabric.setup_dataloaders(DataLoader(token_data(), batch_size=BATCH, shuffle=True, drop_last=True))
    for epoch in range(args.epochs):
        for inputs, targets in loader:
            loss = nn.functional.cross_entropy(model(inputs).flatten(0, 1), targets.flatten())
            fabric.backward(loss)
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
        fabric.print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
