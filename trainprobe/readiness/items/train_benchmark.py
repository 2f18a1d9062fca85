"""Reference training benchmark: resnet18 on synthetic 64x64 images, images/s (full check)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..item import Benchmark, Item, Requirement, grade_bar, with_note
from ..results import Grade, MachineFacts, Measurement

if TYPE_CHECKING:
    from ..expect import Expectations

__all__ = ["ITEM", "DEFAULT_MIN"]

DEFAULT_MIN = 300.0  # images/s


def _cores(f: MachineFacts) -> tuple[str, ...]:
    """DataLoader workers are sized to the cores this process may use."""
    return ("--cores", str(f.environment.usable_cores)) if f.environment.usable_cores else ()


def grade(m: Measurement, ex: Expectations, f: MachineFacts, req: bool) -> Grade:
    d = m.details
    on_cpu = d.get("device") == "cpu"
    g = grade_bar(m, float(m.value), ex.get("images_per_second"), DEFAULT_MIN, "images/s",
                  "see the GPU item" if on_cpu else "see the other items: GPU throttling, data loading, cores",
                  req, "training runs slowly here" + (" (on the CPU)" if on_cpu else ""))
    desc = (f"{d.get('model')} {d.get('input')} batch {d.get('batch_size')}, {d.get('num_workers')} worker(s), "
            f"{d.get('device')}, median {d.get('step_ms')} ms/step")
    lo, hi = d.get("step_ms_min"), d.get("step_ms_max")
    if lo and hi and hi > 2 * lo:
        desc += f"; steps varied {lo:g}-{hi:g} ms: a busy or shared machine, re-run to confirm"
    return with_note(g, desc)


ITEM = Item("train_benchmark", "Reference training benchmark", grade, order=230,
            benchmark=Benchmark("train", ("--seconds", "6"), timeout=180, unit="images/s", needs_torch=True,
                                extra_args=_cores),
            requirements=(Requirement("images_per_second"),))
