"""A hand-written SGD loop: no optimizer object, so steps end at backward()."""
import torch

w = torch.randn(64, 8, requires_grad=True)
for i in range(100000):
    x = torch.randn(128, 64)
    loss = (x @ w).pow(2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.01 * w.grad
        w.grad = None
