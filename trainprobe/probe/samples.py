"""How many samples one batch from a DataLoader holds.

The first dimension of a batch's first tensor is the batch size for what ``default_collate`` makes:
``(inputs, targets)``, a dict of stacked tensors. Detection and other variable-size data keep their samples
apart instead, and the first tensor's first dimension there is an image's channels:

- torchvision's detection recipe collates ``tuple(zip(*batch))``: a tuple of images and a tuple of target
  dicts, one per image;
- detectron2's loader hands over one sample dict per fetch (``batch_size=1``, ``collate_fn=itemgetter(0)``)
  and groups them into lists of dicts later (on test set 22's Faster R-CNN the old reading counted 3 samples
  per fetch, the channels of its image, and 6 per step of 2 images).

So, where the loader collates with a function of its own, a sequence of mappings is a list of records, one per
sample, wherever it sits in the batch (``default_collate`` never makes one: it turns a sample's pair of dicts into
a list of two dicts of stacked tensors, which are fields); and such a loader cannot hand over more samples per fetch
than its batch sampler gives indices, unless the batch shows a batch dimension of its own (two tensors or more
agreeing on it: a dataset that returns whole batches).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import torch
from torch.utils.data._utils.collate import default_collate

__all__ = ["batch_samples", "collation"]

# How deep to look for a batch's tensors: batches nest fields a level or two (a dict of inputs in a tuple).
_DEPTH = 3


def _fields(batch: Any) -> Any:
    """What a batch holds one level down: a mapping's values, a sequence's items (nothing for a leaf)."""
    if isinstance(batch, Mapping):
        return batch.values()
    return batch if isinstance(batch, (list, tuple)) else ()


def _per_sample_records(batch: Any, depth: int = 0) -> Optional[int]:
    """The length of the first sequence of mappings in the batch (the batch itself or one of its fields). A
    plain list or tuple only: a namedtuple of mappings is a batch's named fields."""
    if type(batch) in (list, tuple) and batch and all(isinstance(i, Mapping) for i in batch):
        return len(batch)
    if depth >= _DEPTH:
        return None
    for item in _fields(batch):
        found = _per_sample_records(item, depth + 1)
        if found is not None:
            return found
    return None


def _first_dims(batch: Any, out: list[int], depth: int = 0) -> None:
    """First dimensions of the batch's tensors, in order, to the depth a batch nests its fields."""
    if isinstance(batch, torch.Tensor):
        if batch.dim():
            out.append(int(batch.shape[0]))
        return
    if depth < _DEPTH:
        for item in _fields(batch):
            _first_dims(item, out, depth + 1)


def collation(iterator: Any) -> tuple[bool, Optional[int]]:
    """How a loader's iterator makes its batches: whether with a collate function other than
    ``default_collate`` (automatic batching off included: ``default_convert`` hands the dataset's items over as
    they are), and then, under automatic batching, the indices per fetch its batch sampler gives."""
    own = getattr(iterator, "_collate_fn", default_collate) is not default_collate
    if not own or not getattr(iterator, "_auto_collation", False):
        return own, None
    size = getattr(getattr(iterator, "_index_sampler", None), "batch_size", None)
    return own, size if isinstance(size, int) and size > 0 else None


def batch_samples(batch: Any, own_collate: bool = False, declared: Optional[int] = None) -> Optional[int]:
    """Samples in one fetched batch: see the module's docs. ``own_collate`` and ``declared`` are collation()'s
    answer. Unknown (None) for a batch whose own containers fail to be read: the user's fetch must not."""
    try:
        return _samples(batch, own_collate, declared)
    except Exception:  # a Mapping of the user's whose values() or a tensor subclass whose shape raises
        return None


def _samples(batch: Any, own_collate: bool, declared: Optional[int]) -> Optional[int]:
    # The common case first and cheaply: a tensor, or (inputs, targets) with a tensor first.
    if type(batch) is torch.Tensor:
        return int(batch.shape[0]) if batch.dim() else None
    if type(batch) in (list, tuple) and batch and type(batch[0]) is torch.Tensor and declared is None:
        return int(batch[0].shape[0]) if batch[0].dim() else None
    records = _per_sample_records(batch) if own_collate else None
    if records is not None:
        return records
    dims: list[int] = []
    _first_dims(batch, dims)
    if not dims:
        return None
    read = dims[0]
    if declared is not None and read > declared and dims.count(read) < 2:
        return declared
    return read
