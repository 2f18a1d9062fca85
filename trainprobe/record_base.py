"""The smallest part of the run record, shared by its modules: whether a measurement was made."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .jsonio import JsonMixin

__all__ = ["Availability"]


@dataclass(frozen=True)
class Availability(JsonMixin):
    """Whether a measurement could be made, and if not, why."""

    available: bool = False
    reason: Optional[str] = None
