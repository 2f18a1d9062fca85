"""A loss module as torchmetrics' Metric is one: its __getstate__ does not call Module's, and its hash
follows its state, which changes at every call (a module of its own, so that a checkpoint holding it
loads in another process)."""
import torch


class OwnStateLoss(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def forward(self, out, target):
        self.calls += 1
        return torch.nn.functional.cross_entropy(out, target)

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "scratch"}

    def __hash__(self):
        return hash((type(self).__name__, self.calls))
