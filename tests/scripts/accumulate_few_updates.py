"""A fine-tune's shape in miniature: a few optimizer updates, each over many micro-batches.

``--updates N`` (default 3) updates of ``--accumulate K`` (default 16) micro-batches of ``--batch-size``
(default 32) rows each, from a DataLoader over random features; the model is a stack of wide linear
layers, so each micro-batch is matrix products (compute). With ``--fetch-ahead`` each update first takes
all its micro-batches from the loader and then runs them, as the Hugging Face Trainer does; otherwise the
loop fetches one micro-batch, runs its forward and backward, and fetches the next."""
import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--updates", type=int, default=3)
    p.add_argument("--accumulate", type=int, default=16)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--fetch-ahead", action="store_true")
    args = p.parse_args()
    torch.manual_seed(0)
    rows = args.updates * args.accumulate * args.batch_size
    data = TensorDataset(torch.randn(rows, args.width), torch.randint(0, 10, (rows,)))
    loader = DataLoader(data, batch_size=args.batch_size)
    model = nn.Sequential(nn.Linear(args.width, args.width), nn.ReLU(), nn.Linear(args.width, args.width),
                          nn.ReLU(), nn.Linear(args.width, 10))
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    batches = iter(loader)
    for update in range(args.updates):
        if args.fetch_ahead:
            micro_batches = [next(batches) for _ in range(args.accumulate)]
        else:
            micro_batches = (next(batches) for _ in range(args.accumulate))
        for x, y in micro_batches:
            loss = nn.functional.cross_entropy(model(x), y) / args.accumulate
            loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        print(f"update {update} loss {loss.item() * args.accumulate:.3f}")


if __name__ == "__main__":
    main()
