"""A model that keeps its constructor's locals() to rebuild itself later, as imagen-pytorch's Unet does
(``self._locals = locals()``, "self" popped, then ``self.__class__(**self._locals)``), trained a few steps.

Python before 3.13 hands every reader of a running frame's f_locals the dict that locals() returned, refilled:
a profiler that reads the constructor's frame while it builds its children puts "self" back into the kept
dict, and the rebuild fails with "got multiple values for argument 'self'". Under trainprobe it must run as
under python.
"""

import torch
import torch.nn as nn


class Rebuildable(nn.Module):
    def __init__(self, width=32, depth=2):
        super().__init__()
        self._locals = locals()
        self._locals.pop("self", None)
        self._locals.pop("__class__", None)
        # Children built after the snapshot: each child's construction walks up through this frame.
        self.layers = nn.Sequential(*[nn.Linear(width, width) for _ in range(depth)])

    def rebuilt(self, **changes):
        return self.__class__(**{**self._locals, **changes})

    def forward(self, x):
        return self.layers(x)


def main():
    torch.manual_seed(0)
    model = Rebuildable().rebuilt(depth=3)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(12):
        loss = model(torch.randn(16, 32)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"rebuilt with {len(model.layers)} layers, loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
