"""Samples per fetched batch, however the DataLoader collates (probe/samples.py): real loaders, real batches."""

from __future__ import annotations

import operator

import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset

from trainprobe.probe.samples import batch_samples, collation


class _Images(Dataset):
    """Channels-first images with a target dict each: detection data."""

    def __len__(self):
        return 32

    def __getitem__(self, i):
        return {"image": torch.zeros(3, 8, 4), "target": {"label": i % 4}, "file_name": f"{i}.jpg"}


class _WholeBatches(Dataset):
    """A dataset that returns whole batches of 8, unwrapped by collate_fn=itemgetter(0)."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return {"input_ids": torch.zeros(8, 5, dtype=torch.long), "labels": torch.zeros(8, dtype=torch.long)}


def _first(loader):
    iterator = iter(loader)
    return batch_samples(next(iterator), *collation(iterator))


def test_default_collate_batches_count_their_first_dimension():
    data = TensorDataset(torch.zeros(40, 3), torch.zeros(40))
    assert _first(DataLoader(data, batch_size=16)) == 16
    # The last batch is smaller than the declared size: its own first dimension counts.
    assert list(map(lambda b: batch_samples(b), DataLoader(data, batch_size=16)))[-1] == 8


def test_a_dict_of_stacked_tensors_counts_its_rows():
    class Texts(Dataset):
        def __len__(self):
            return 16

        def __getitem__(self, i):
            return {"input_ids": torch.zeros(5, dtype=torch.long), "labels": torch.tensor(1)}

    assert _first(DataLoader(Texts(), batch_size=4)) == 4


def test_detectron2s_one_sample_dict_per_fetch_is_one_sample():
    # Its image's first dimension is 3 channels; the loader asks one index of its sampler per fetch.
    assert _first(DataLoader(_Images(), collate_fn=operator.itemgetter(0))) == 1


def test_torchvisions_detection_collate_counts_images_not_channels():
    assert _first(DataLoader(_Images(), batch_size=4, collate_fn=lambda b: tuple(zip(*[
        (s["image"], s["target"]) for s in b])))) == 4


def test_default_collates_pair_of_dicts_is_two_fields_not_two_samples():
    # A sample of (inputs, targets) dicts: default_collate makes a list of two dicts of 16 stacked rows.
    class Pairs(Dataset):
        def __len__(self):
            return 64

        def __getitem__(self, i):
            return {"x": torch.zeros(3)}, {"y": torch.tensor(1)}

    assert _first(DataLoader(Pairs(), batch_size=16)) == 16


def test_a_list_of_sample_dicts_is_one_sample_each():
    assert _first(DataLoader(_Images(), batch_size=6, collate_fn=list)) == 6


def test_a_dataset_of_whole_batches_keeps_its_batch_dimension():
    # Two tensors agree on 8: the batch has a batch dimension of its own, beyond the sampler's one index.
    assert _first(DataLoader(_WholeBatches(), collate_fn=operator.itemgetter(0))) == 8
    assert _first(DataLoader(_WholeBatches(), batch_size=None)) == 8


def test_nothing_to_count_is_unknown():
    assert batch_samples(torch.tensor(3.0)) is None
    assert batch_samples({"name": "x"}) is None
    assert batch_samples([]) is None


def test_a_batch_that_cannot_be_read_is_unknown_and_does_not_fail_the_fetch():
    from collections.abc import Mapping

    class Hostile(Mapping):
        def __getitem__(self, key):
            raise KeyError(key)

        def __iter__(self):
            raise RuntimeError("a container of the user's that cannot be walked")

        def __len__(self):
            return 1

    assert batch_samples(Hostile()) is None and batch_samples([Hostile(), Hostile()], own_collate=True) == 2
