"""``trainprobe compare``'s work: read and diagnose the runs, compare them, apply the gate, write the page.

The comparison itself lives in trainprobe/compare/; this module only runs its stages in order and
writes ``compare.html`` and ``comparison.json``, so that the CLI and a notebook get the same result.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

from .outputs import TrainprobeError, analyze

if TYPE_CHECKING:  # the CLI imports the api at start-up without loading the comparison
    from ..compare import Comparison, GateResult

__all__ = ["DEFAULT_COMPARE_FOLDER", "CompareResult", "compare"]

DEFAULT_COMPARE_FOLDER = Path("trainprobe-compare")


@dataclass(frozen=True)
class CompareResult:
    comparison: "Comparison"
    gate: Optional["GateResult"] = None  # --fail-if-slower's verdict; None when no threshold was given
    page: Optional[Path] = None  # compare.html; None when it could not be written
    problems: tuple[str, ...] = ()  # files that could not be written, in words


def _page_folder(out: Path) -> Path:
    if out.exists() and not out.is_dir():
        raise TrainprobeError(f"cannot use {out} as the output folder: it is a file")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise TrainprobeError(f"cannot create output folder {out}: {exc.strerror or exc}") from None
    return out


def compare(runs: Sequence[str | os.PathLike], out: str | os.PathLike = DEFAULT_COMPARE_FOLDER,
            fail_if_slower: Optional[float] = None) -> CompareResult:
    """Compare ``runs`` (run folders or run.json files; the first is the baseline), each diagnosed as
    its own report is, and write ``compare.html`` and ``comparison.json`` into ``out`` (rewritten on
    each compare). With ``fail_if_slower`` (percent) the gate says whether a candidate is slower by
    more than that with confidence. Raises TrainprobeError, before anything is written, for runs
    that cannot be compared or an output folder that cannot be used."""
    from ..compare import CompareError, compare_runs, gate, load_runs, write_page

    folder = _page_folder(Path(out))
    try:
        comparison = compare_runs(load_runs(runs, diagnose=analyze))
    except CompareError as exc:
        raise TrainprobeError(str(exc)) from None
    verdict = gate(comparison, fail_if_slower) if fail_if_slower is not None else None
    page = folder / "compare.html"
    try:
        write_page(comparison, page, verdict)
        comparison.save(folder / "comparison.json", indent=2)
    except OSError as exc:
        return CompareResult(comparison, verdict, None, (f"the comparison page could not be written ({exc})",))
    return CompareResult(comparison, verdict, page)
