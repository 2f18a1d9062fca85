"""A library's own DataLoader, as fastai's is: it hands torch's loader iterator a stand-in object that points
back to it (``.d``) instead of a torch DataLoader, so DataLoader.__iter__ never runs. The batches take about
4 ms each to make (a sleep per batch), the step's math far less: the loop waits for data.
"""

import itertools
import time

import torch
import torch.nn as nn
from torch.utils.data import IterableDataset
from torch.utils.data.dataloader import _DatasetKind, _SingleProcessDataLoaderIter


class Batches(IterableDataset):
    def __init__(self, owner):
        self.owner = owner

    def __iter__(self):
        for _ in range(self.owner.n_batches):
            time.sleep(0.004)
            yield torch.randn(self.owner.bs, 16), torch.randint(0, 2, (self.owner.bs,))


class StandIn:
    """What torch's iterator reads from a loader, with the library's loader behind it."""

    _dataset_kind = _DatasetKind.Iterable
    _IterableDataset_len_called = None
    _auto_collation = False
    drop_last, generator, prefetch_factor, in_order = False, None, 2, True
    num_workers, pin_memory, pin_memory_device, timeout, persistent_workers = 0, False, "", 0, False
    multiprocessing_context = None

    def __init__(self, owner):
        self.d = owner
        self.dataset = Batches(owner)

    @property
    def _index_sampler(self):  # read once per pass; an iterable dataset ends the pass itself
        return itertools.count()

    @staticmethod
    def collate_fn(batch):
        return batch

    def worker_init_fn(self, worker_id):
        pass


class LibraryLoader:
    def __init__(self, bs, n_batches):
        self.bs, self.n_batches = bs, n_batches
        self.stand_in = StandIn(self)

    def __iter__(self):
        yield from _SingleProcessDataLoaderIter(self.stand_in)


if __name__ == "__main__":
    torch.set_num_threads(1)
    model = nn.Linear(16, 2)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    loader = LibraryLoader(bs=8, n_batches=60)
    steps = 0
    for epoch in range(2):
        for x, y in loader:
            steps += 1
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x), y).backward()
            optimizer.step()
    assert steps == 120, steps
