"""How many samples one batch from a DataLoader holds.

The first dimension of a batch's first tensor is the batch size for what ``default_collate`` makes:
``(inputs, targets)``, a dict of stacked tensors. Detection and other variable-size data keep their samples
apart instead, and the first tensor's first dimension there is an image's channels:

- torchvision's detection recipe collates ``tuple(zip(*batch))``: a tuple of images and a tuple of target
  dicts, one per image;
- detectron2's loader hands over one sample dict per fetch (``batch_size=1``, ``collate_fn=itemgetter(0)``)
  and groups them into lists of dicts later (on test set 22's Faster R-CNN the old reading counted 3 samples
  per fetch, the channels of its image, and 6 per step of 2 images).

So a sequence of mappings is a list of records, one per sample, wherever it sits in the batch; and a loader
whose own collate function was replaced cannot hand over more samples per fetch than its batch sampler
gives indices, unless the batch shows a batch dimension of its own (two tensors or more agreeing on it: a
dataset that returns whole batches).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Optional

import torch
from torch.utils.data._utils.collate import default_collate

__all__ = ["batch_samples", "declared_batch"]

# How deep to look for a batch's tensors: batches nest fields a level or two (a dict of inputs in a tuple).
_DEPTH = 3


def _records(items: Any) -> bool:
    return type(items) in (list, tuple) and bool(items) and all(isinstance(i, Mapping) for i in items)


def _per_sample_records(batch: Any, depth: int = 0) -> Optional[int]:
    """The length of the first sequence of mappings in the batch (the batch itself or one of its fields)."""
    if _records(batch):
        return len(batch)
    if depth >= _DEPTH:
        return None
    fields = batch.values() if isinstance(batch, Mapping) else batch if type(batch) in (list, tuple) else ()
    for item in fields:
        if type(item) in (list, tuple, dict) or isinstance(item, Mapping):
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
    if depth >= _DEPTH:
        return
    if isinstance(batch, Mapping):
        for item in batch.values():
            _first_dims(item, out, depth + 1)
    elif isinstance(batch, (list, tuple)):
        for item in batch:
            _first_dims(item, out, depth + 1)


def declared_batch(iterator: Any) -> Optional[int]:
    """Indices per fetch that a loader whose collate function is its own asks of its batch sampler; None
    under ``default_collate`` (its batches carry their size) or without automatic batching."""
    if not getattr(iterator, "_auto_collation", False) or getattr(iterator, "_collate_fn", None) is default_collate:
        return None
    size = getattr(getattr(iterator, "_index_sampler", None), "batch_size", None)
    return size if isinstance(size, int) and size > 0 else None


def batch_samples(batch: Any, declared: Optional[int] = None) -> Optional[int]:
    """Samples in one fetched batch: see the module's docs. ``declared`` is declared_batch()'s answer.
    Unknown (None) for a batch whose own containers fail to be read: the user's fetch must not."""
    try:
        return _samples(batch, declared)
    except Exception:  # a Mapping of the user's whose values() or a tensor subclass whose shape raises
        return None


def _samples(batch: Any, declared: Optional[int]) -> Optional[int]:
    # The common case first and cheaply: a tensor, or (inputs, targets) with a tensor first.
    if type(batch) is torch.Tensor:
        return int(batch.shape[0]) if batch.dim() else None
    if type(batch) in (list, tuple) and batch and type(batch[0]) is torch.Tensor and declared is None:
        return int(batch[0].shape[0]) if batch[0].dim() else None
    records = _per_sample_records(batch)
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
