"""A language model trained through Hugging Face accelerate with mixed precision left off, on a GPU with
bfloat16 tensor cores: the fix is Accelerator(mixed_precision=...). Sized for a datacenter GPU
(benchmarks/gpu_campaign.py); a tiny model on a CPU.
"""

import torch
import torch.nn as nn
from accelerate import Accelerator
from torch.utils.data import DataLoader

from _gpu_lm import BATCH, CausalLM, token_data


def main():
    accelerator = Accelerator()
    torch.manual_seed(0)
    loader = DataLoader(token_data(), batch_size=BATCH, shuffle=True, drop_last=True)
    model = CausalLM()
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-4, weight_decay=0.1)
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for epoch in range(4):
        model.train()
        for inputs, targets in loader:
            loss = nn.functional.cross_entropy(model(inputs).flatten(0, 1), targets.flatten())
            accelerator.backward(loss)
            optimizer.step()
            optimizer.zero_grad()
        accelerator.print(f"epoch {epoch}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
