"""The fix ids of the what-if, shared by the parent (planning) and the child (injecting); no torch here."""

from __future__ import annotations

__all__ = ["INJECTABLE", "NOT_INJECTED", "RECORD_LOSS"]

# Fix ids the child can apply at run time; the value in the fixes dict is True unless noted.
INJECTABLE = frozenset({
    "num_workers",  # int: the DataLoader's worker count
    "pin_memory",
    "persistent_workers",
    "prefetch_factor",  # int: batches loaded ahead per worker
    "cudnn_benchmark",
    "tf32",
    "amp_bf16",
    "set_to_none",
    "fused_optimizer",
    "anomaly_off",
    "channels_last",
    "compile",
})

# Fix ids that exist but are not applied at run time, with the reason.
NOT_INJECTED = {
    "amp_fp16": "fp16 autocast needs loss scaling (torch.amp.GradScaler), which trainprobe cannot add "
                "safely from outside the training loop",
}

RECORD_LOSS = "record_loss"  # not a fix: asks the child to record the loss (baseline trials too)
