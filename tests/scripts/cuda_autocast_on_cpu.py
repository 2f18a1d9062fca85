"""A transformer trained with mixed precision written for a GPU, ``with torch.cuda.amp.autocast():`` around
the forward and the loss, as many papers' code is (MAE's engine_pretrain.py, test set 18), run on a CPU: torch
turns that autocast off with a warning, and the model runs in float32. The fix is that line, made for the
device the run has.
"""

import torch
import torch.nn as nn


def main():
    torch.manual_seed(0)
    layer = nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0, batch_first=True)
    model = nn.Sequential(nn.TransformerEncoder(layer, 2), nn.Linear(256, 10))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    data = torch.randn(32, 64, 256)
    targets = torch.randint(0, 10, (32,))
    for step in range(40):
        with torch.cuda.amp.autocast():
            loss = nn.functional.cross_entropy(model(data).mean(dim=1), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
