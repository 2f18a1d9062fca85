"""An ODE fitted the way torchdiffeq's demo does it: no DataLoader, a batch of 16 initial states cut from a
tensor by indexing each step, and the model is the right-hand side func(t, y), called by the solver with the
time first (a scalar) and the batch of states second. Plain PyTorch: a fixed-step Euler solver of our own."""

import torch
import torch.nn as nn


class Dynamics(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 50), nn.Tanh(), nn.Linear(50, 2))

    def forward(self, t, y):
        return self.net(y ** 3)


def euler(func, y0, times):
    ys, y = [y0], y0
    for t0, t1 in zip(times[:-1], times[1:]):
        y = y + (t1 - t0) * func(t0, y)
        ys.append(y)
    return torch.stack(ys)


def main():
    torch.manual_seed(0)
    times = torch.linspace(0.0, 1.0, 11)
    true_y = torch.randn(1000, 1, 2)
    func = Dynamics()
    optimizer = torch.optim.RMSprop(func.parameters(), lr=1e-3)
    for _ in range(400):
        index = torch.randint(0, 990, (16,))
        batch_y0 = true_y[index]  # (16, 1, 2): the batch of initial states
        pred = euler(func, batch_y0, times[:10])
        loss = (pred[-1] - true_y[index + 9]).abs().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
