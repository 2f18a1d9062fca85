"""trainprobe's version: its own module, so that what the package's root imports never imports it back."""

__version__ = "0.1.0"
