"""The quick loop's sample of a breadth test.

A test run over every rule, or every framework's table, checks the same code path once per case;
the quick loop (``pytest -m "not slow"``, kept under a minute) runs every ``every``-th case, chosen by
position so that the sample is the same on every machine, and the full suite (CI) runs them all.
"""

from __future__ import annotations

import pytest

__all__ = ["every_nth_quick"]


def every_nth_quick(cases: list, every: int) -> list:
    """``cases`` (values or tuples of values, as ``parametrize`` takes them) with all but every
    ``every``-th marked slow."""
    def slow(case):
        return pytest.param(*(case if isinstance(case, tuple) else (case,)), marks=pytest.mark.slow)
    return [case if i % every == 0 else slow(case) for i, case in enumerate(cases)]
