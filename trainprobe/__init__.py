"""trainprobe: find what holds a PyTorch training run back, and how to fix it."""

__version__ = "0.1.0"

__all__ = ["__version__"]
