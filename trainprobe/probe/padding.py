"""How much of the training batches is padding: read from their attention masks.

A text batch is a grid of rows x length token slots; a tokenizer called with ``padding="max_length"``
(or with ``padding=True`` over the whole dataset at once) fills every row to the same length, and the
model computes on the padding as on real tokens. Its attention mask says which slots are real. The
first training batches are read (``_MAX_BATCHES``: the tally costs a few small tensor ops a batch, and
the later batches are drawn from the same data), and with them what padding each batch only to its own
longest sample would keep: the work a dynamic padding (a collator that pads per batch) would save.

A mask is found by its name in a mapping batch (``attention_mask``, ``input_mask``: a Hugging Face
``BatchEncoding``, a dict from ``datasets``); failing that, a mapping batch's ``labels`` padded with -100
(the ignore index Hugging Face's seq2seq collators pad targets with) give one, where every row is its real
tokens then -100s: a speech or vision encoder-decoder's batch has no text mask on the inputs, and its labels
padded to 448 tokens are what its decoder computes on (distil-whisper, test set 19). Labels that also mask
a prompt (-100 before the answer) are not a run from one end, and not taken. Or it is found in a tuple
batch as the first 2-d integer tensor of zeros and ones after a token-id tensor of the same shape whose rows
are all a run of ones from one end (``TensorDataset(input_ids, attention_mask, labels)``). Token-type ids
come after the mask in those layouts; a tensor that is not a run from one end in every row is not taken for
a mask.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any, Iterable, Optional

import torch

from ..record import Padding
from .sourcelines import calls_in

__all__ = ["PaddingTally", "padding_call"]

_MASK_KEYS = ("attention_mask", "input_mask")
LABELS = "labels"  # where padded targets are found (their -100s), when no mask is
_IGNORE_INDEX = -100
_MAX_BATCHES = 64
# Batches without any mask before the tally gives up: a loader of images never has one.
_MAX_MISSES = 8
_INTEGER = (torch.int64, torch.int32, torch.int16, torch.int8, torch.uint8, torch.bool)


def _grid(tensor: Any) -> bool:
    return (isinstance(tensor, torch.Tensor) and tensor.dim() == 2 and tensor.dtype in _INTEGER
            and tensor.device.type == "cpu" and tensor.shape[0] > 0 and tensor.shape[1] > 1)


def _run_from_an_end(mask: torch.Tensor) -> bool:
    """Every row is ones then zeros (padding on the right) or zeros then ones (on the left), with a one."""
    if mask.dtype != torch.bool and (int(mask.min()) < 0 or int(mask.max()) != 1):
        return False  # checked before the narrowing cast below, which would wrap token ids (256 -> 0)
    values = mask.to(torch.int8)
    if not bool(values.sum(dim=1).gt(0).all()):
        return False
    steps = values[:, 1:] - values[:, :-1]
    return bool(steps.le(0).all()) or bool(steps.ge(0).all())


def find_mask(batch: Any) -> Optional[tuple[str, torch.Tensor]]:
    """The batch's attention mask and where it was found, or None."""
    if isinstance(batch, Mapping):
        for key in _MASK_KEYS:
            mask = batch.get(key)
            if _grid(mask) and _run_from_an_end(mask):
                return key, mask
        labels = batch.get(LABELS)
        if _grid(labels) and labels.dtype != torch.bool:
            real = labels.ne(_IGNORE_INDEX)
            if bool(real.logical_not().any()) and _run_from_an_end(real):
                return LABELS, real
        return None
    if isinstance(batch, (list, tuple)):
        ids: Optional[torch.Tensor] = None
        for index, item in enumerate(batch):
            if not _grid(item):
                continue
            if ids is None:
                ids = item
            elif item.shape == ids.shape and _run_from_an_end(item):
                return f"batch[{index}]", item
    return None


class PaddingTally:
    """The first training batches' padding, summed. ``note`` never raises: a batch it cannot read is skipped."""

    def __init__(self) -> None:
        self.batches = 0
        self.misses = 0
        self.slots = 0
        self.tokens = 0
        self.longest = 0
        self.length = 0
        self.mask = ""

    @property
    def done(self) -> bool:
        return self.batches >= _MAX_BATCHES or (self.batches == 0 and self.misses >= _MAX_MISSES)

    def note(self, batch: Any) -> None:
        try:
            found = find_mask(batch)
        except Exception:  # pylint: disable=broad-except  # an odd batch type: the tally is a courtesy
            found = None
        if found is None:
            self.misses += 1
            return
        name, mask = found
        real = mask.to(torch.int64).sum(dim=1)
        rows, length = mask.shape
        self.batches += 1
        self.slots += rows * length
        self.tokens += int(real.sum())
        self.longest += rows * int(real.max())
        self.length = max(self.length, length)
        self.mask = self.mask or name

    def result(self, set_at: Optional[str]) -> Optional[Padding]:
        if not self.batches:
            return None
        return Padding(batches=self.batches, slots=self.slots, tokens=self.tokens, longest=self.longest,
                       length=self.length, mask=self.mask, set_at=set_at)


def _asks_for_padding(call: ast.Call) -> tuple[int, int]:
    """2 for padding="max_length" (or pad_to_max_length=True), 1 for a tokenizer's other padding=True or
    padding="longest" (over a whole data set at once it pads every text to the longest), else 0: a number is a
    convolution's padding, not a tokenizer's. A collator's target_padding="max_length" (distil-whisper's) and
    other keywords ending in _padding count as padding=. With the rank, the keyword's line: the line a user
    edits, inside a call written over several (FastChat's tokenizer call, distil-whisper's collator in test
    set 19, whose experts named the padding= line)."""
    best, line = 0, call.lineno
    for keyword in call.keywords:
        value = keyword.value
        constant = value.value if isinstance(value, ast.Constant) else None
        name = keyword.arg or ""
        rank = 0
        if (name == "padding" or name.endswith("_padding")) and (constant is True or isinstance(constant, str)):
            rank = 2 if constant == "max_length" else 1
        elif keyword.arg == "pad_to_max_length" and constant is True:
            rank = 2
        if rank > best:
            best, line = rank, getattr(keyword, "lineno", call.lineno)
    return best, line


def padding_call(paths: Iterable[str]) -> Optional[str]:
    """The script's call that asks a tokenizer for padding, as "path:line" of its padding keyword:
    padding="max_length" first, else any other padding= keyword; None when no file of ``paths`` has one (or
    none can be read)."""
    found = [(-rank, path, line) for path, node in calls_in(paths, "pad")
             for rank, line in (_asks_for_padding(node),) if rank]
    if not found:
        return None
    _, path, line = min(found)
    return f"{path}:{line}"
