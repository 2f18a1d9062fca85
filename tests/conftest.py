"""Tests marked ``gpu`` need a CUDA GPU: without one they are skipped, and say so."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(config, items):
    gpu_tests = [item for item in items if "gpu" in item.keywords]
    if not gpu_tests:
        return
    import torch

    if torch.cuda.is_available():
        return
    skip = pytest.mark.skip(reason="needs a CUDA GPU (none here); run them where a GPU is lent")
    for item in gpu_tests:
        item.add_marker(skip)
