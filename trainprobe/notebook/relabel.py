"""A live run's record in cell terms: code a kernel compiled under its own file names, renamed.

IPython compiles each cell under a file name of its own (``/tmp/ipykernel_123/456.py``); the kernel's
compiler knows which cell each is (``In[3]``). A record made in the kernel names a hotspot or a
DataLoader's call site by such a file; here they get the cell file names of :mod:`.cells` instead, so
the report and the findings say "cell In[3], line 4", and count the code as the user's.
"""

from __future__ import annotations

import dataclasses
from typing import Mapping, Optional

from ..record import FuncStat, RunRecord

__all__ = ["relabel_cells"]


def _stat(row: FuncStat, mapping: Mapping[str, str]) -> FuncStat:
    cell = mapping.get(row.file)
    return dataclasses.replace(row, file=cell, user_code=True) if cell else row


def _site(site: Optional[str], mapping: Mapping[str, str]) -> Optional[str]:
    if not site:
        return site
    path, sep, line = site.rpartition(":")
    return f"{mapping[path]}:{line}" if sep and path in mapping else site


def relabel_cells(record: RunRecord, mapping: Mapping[str, str]) -> RunRecord:
    """``record`` with every file of ``mapping`` (IPython's name -> a cell file name) renamed."""
    if not mapping:
        return record
    hot = record.hotspots
    hotspots = dataclasses.replace(hot, main=tuple(_stat(r, mapping) for r in hot.main),
                                   workers=tuple(_stat(r, mapping) for r in hot.workers))
    loaders = tuple(dataclasses.replace(d, created_at=_site(d.created_at, mapping))
                    for d in record.settings.dataloaders)
    settings = dataclasses.replace(record.settings, dataloaders=loaders)
    return dataclasses.replace(record, hotspots=hotspots, settings=settings)
