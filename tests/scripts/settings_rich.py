"""Exercises what the probe reads: AdamW fused, OneCycleLR per step, anomaly mode,
CPU bf16 autocast, zero_grad(set_to_none=False), gradient accumulation of 2, and a
validation pass in eval mode WITHOUT no_grad every 10 steps."""
import torch
from torch.utils.data import DataLoader, TensorDataset


def main():
    torch.manual_seed(0)
    torch.backends.cudnn.benchmark = True
    torch.autograd.set_detect_anomaly(True)
    train = DataLoader(TensorDataset(torch.randn(2048, 32), torch.randint(0, 4, (2048,))),
                       batch_size=32, shuffle=True, drop_last=True)
    val = DataLoader(TensorDataset(torch.randn(256, 32), torch.randint(0, 4, (256,))), batch_size=64)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 4))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, weight_decay=0.01, fused=True)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1e-2, total_steps=10000)
    loss_fn = torch.nn.CrossEntropyLoss()
    step = 0
    for epoch in range(100):
        model.train()
        for i, (x, y) in enumerate(train):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = loss_fn(model(x), y) / 2
            loss.backward()
            if i % 2 == 1:
                opt.step()
                sched.step()
                opt.zero_grad(set_to_none=False)
                step += 1
                if step % 10 == 0:
                    model.eval()
                    for vx, vy in val:  # forgot torch.no_grad(): builds graphs for nothing
                        loss_fn(model(vx), vy)
                    model.train()


if __name__ == "__main__":
    main()
