"""What a person (HTML, terminal) or a machine (JSON) reads about a diagnosed run.

``render_html``/``write_html`` build the self-contained report;
``terminal_summary`` is the end of ``trainprobe diagnose``; ``json_summary``
is ``--json``; ``downsample`` keeps long timelines light.
"""

from __future__ import annotations

from .downsample import MAX_POINTS, downsample
from .html import render_html, write_html
from .jsonout import json_summary
from .terminal import terminal_summary

__all__ = ["render_html", "write_html", "terminal_summary", "json_summary",
           "downsample", "MAX_POINTS"]
