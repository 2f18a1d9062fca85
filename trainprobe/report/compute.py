"""The report's compute and memory sections: how close the step comes to the hardware, and what fills memory.

Plain view data, as the other sections: every scalar is a fact, formatted here; the tables
join what the record holds per op (the profiled window's time per op, the counted step's FLOPs
and bytes per op) and divide one by the other for the roofline, labelled as such. A section
whose figures are unknown says why.
"""

from __future__ import annotations

from typing import Any, Optional

from .. import display
from ..engine.verdict import near_peak
from ..findings import Diagnosis
from ..record import RunRecord
from .roofline import RoofPoint, roofline_svg

__all__ = ["compute_section", "memory_section", "KIND_COLORS"]

# Compute-bound kinds in blues and purple, memory-bound ones in oranges and browns.
KIND_COLORS = {
    "matmul": "#0b5cad", "conv": "#56b4e9", "attention": "#6a3d9a",
    "elementwise": "#d55e00", "normalization": "#e69f00", "reduction": "#cc79a7", "copy": "#b58900",
    "indexing": "#7f4f24", "other": "#9aa5b1",
}
_MEMORY_BOUND = ("elementwise", "normalization", "reduction", "copy", "indexing")
_TOP_ROWS = 12


def _kinds(record: RunRecord) -> list[dict[str, Any]]:
    kinds: dict[str, float] = dict(getattr(record.profiler, "op_kinds", None) or {})
    total = sum(kinds.values())
    if total <= 0:
        return []
    order = list(KIND_COLORS)
    rows = sorted(kinds.items(), key=lambda kv: (order.index(kv[0]) if kv[0] in order else len(order), kv[0]))
    return [{"kind": k, "share": v / total, "share_text": display.share(v / total), "time": display.seconds(v),
             "color": KIND_COLORS.get(k, "#9aa5b1"), "memory_bound": k in _MEMORY_BOUND}
            for k, v in rows if v > 0]


def _op_rows(record: RunRecord, peak: Optional[float], bandwidth: Optional[float]) -> list[dict[str, Any]]:
    """The profiled window's top ops with the counted step's FLOPs and bytes for each: achieved FLOP/s and
    bytes/s, against the peak and the bandwidth."""
    counted = {op.name: op for op in record.compute.flops.ops}
    rows = []
    for op in getattr(record.profiler, "op_table", ()) or ():
        time = op.time_per_step
        if not time:
            continue
        census = counted.get(op.name)
        flops = op.flops_per_step if op.flops_per_step is not None else (census.flops if census else None)
        nbytes = op.bytes_per_step if op.bytes_per_step is not None else (census.bytes if census else None)
        rate = flops / time if flops else None
        traffic = nbytes / time if nbytes else None
        rows.append({
            "name": op.name, "kind": op.kind, "color": KIND_COLORS.get(op.kind, "#9aa5b1"),
            "time": display.seconds(time), "flops": display.flops(flops) if flops else "—",
            "rate": display.flop_rate(rate) if rate else "—",
            "rate_share": display.share(rate / peak, 1) if rate and peak else "—",
            "bytes": display.nbytes(nbytes) if nbytes else "—",
            "traffic": display.rate(traffic) if traffic else "—",
            "traffic_share": display.share(traffic / bandwidth) if traffic and bandwidth else "—",
            "intensity": (flops / nbytes) if flops and nbytes else None, "raw_rate": rate,
        })
    return rows[:_TOP_ROWS]


def _roofline(facts: dict[str, Any], rows: list[dict[str, Any]]) -> Optional[Any]:
    peak, bandwidth = facts.get("peak_flops_per_s"), facts.get("peak_memory_bandwidth")
    points = [RoofPoint(r["name"], r["intensity"], r["raw_rate"], r["color"]) for r in rows
              if r["intensity"] and r["raw_rate"]]
    step_intensity, achieved = facts.get("arithmetic_intensity"), facts.get("achieved_flops_per_s")
    if step_intensity and achieved:
        points.append(RoofPoint("the whole step", step_intensity, achieved, "#111827", whole_step=True))
    return roofline_svg(points, peak, bandwidth, "roofline of the top ops")


def _modules(record: RunRecord, step_time: Optional[float]) -> list[dict[str, Any]]:
    rows = []
    for m in getattr(record.profiler, "module_times", ()) or ():
        total = (m.forward_per_step or 0.0) + (m.backward_per_step or 0.0)
        rows.append({"name": m.name, "forward": display.seconds(m.forward_per_step),
                     "backward": display.seconds(m.backward_per_step),
                     "share": display.share(total / step_time) if step_time and total else display.UNKNOWN,
                     "bar": min(1.0, total / step_time) if step_time else 0.0, "total": total})
    return sorted(rows, key=lambda r: -r["total"])


def compute_section(record: RunRecord, diagnosis: Diagnosis) -> dict[str, Any]:
    facts = diagnosis.fact_values()
    mfu = facts.get("mfu")
    peak, bandwidth = facts.get("peak_flops_per_s"), facts.get("peak_memory_bandwidth")
    rows = _op_rows(record, peak, bandwidth)
    outside = facts.get("peak_outside_cores")
    summary = [
        ("FLOPs per step", display.flops(facts.get("flops_per_step"))),
        ("FLOPs per sample", display.flops(facts.get("flops_per_sample"))),
        ("Achieved", display.flop_rate(facts.get("achieved_flops_per_s"))),
        ("Peak", f"{display.flop_rate(peak)} {facts.get('peak_dtype') or ''} ({facts.get('peak_source') or 'unknown'}"
                 f"{', ' + str(facts['peak_device']) if facts.get('peak_device') else ''})"),
        ("MFU", display.share(mfu, 1)),
        ("Memory-bound op time", display.share(facts.get("memory_bound_share"))),
        ("FLOPs per byte moved", display.number(facts.get("arithmetic_intensity"))),
        ("Optimizer", f"{facts.get('optimizer_kind') or display.UNKNOWN} · {display.share(facts.get('optimizer_share'))} "
                      "of the step"),
    ]
    unknown = [text for text in (facts.get("flops_unknown_reason"), facts.get("peak_unknown_reason")) if text]
    return {
        "available": facts.get("flops_per_step") is not None or peak is not None,
        "unknown": unknown,
        "summary": summary,
        "mfu": mfu, "mfu_text": display.share(mfu, 1),
        "near_peak": near_peak(facts),  # the verdict's own test: the section agrees with the headline
        "uncounted": facts.get("uncounted_ops"),
        "outside_load": (f"Other programs kept {display.number(outside)} cores busy while the peak was measured: "
                         "it may read low, and the MFU high.") if isinstance(outside, (int, float)) and outside >= 0.5
        else None,
        "kinds": _kinds(record),
        "ops": rows,
        "roofline": _roofline(facts, rows),
        "modules": _modules(record, facts.get("step_time")),
        "census_steps": record.compute.flops.steps,
    }


def _part(label: str, value: Any, color: str, total: Optional[int]) -> Optional[dict[str, Any]]:
    if not isinstance(value, (int, float)) or value <= 0 or not total:
        return None
    return {"label": label, "bytes": display.nbytes(value), "share": value / total, "color": color,
            "text": f"{label}: {display.nbytes(value)} ({display.share(value / total)} of the peak)"}


def memory_section(record: RunRecord, diagnosis: Diagnosis) -> dict[str, Any]:
    facts = diagnosis.fact_values()
    peak = facts.get("memory_step_peak")
    params, grads = facts.get("memory_parameters"), facts.get("memory_gradients")
    state, persistent = facts.get("memory_optimizer_state"), facts.get("memory_persistent")
    held = sum(v for v in (params, grads, state, facts.get("memory_buffers")) if isinstance(v, (int, float)))
    other = persistent - held if isinstance(persistent, (int, float)) and persistent > held else None
    parts = [p for p in (
        _part("parameters", params, "#0b5cad", peak),
        _part("gradients", grads, "#56b4e9", peak),
        _part("optimizer state", state, "#009e73", peak),
        _part("other tensors kept between steps", other, "#9aa5b1", peak),
        _part("activations and temporaries", facts.get("memory_activations"), "#d55e00", peak),
    ) if p]
    free = facts.get("memory_free_at_start")
    figures = [
        ("Step peak", display.nbytes(peak)),
        ("Peak came in", facts.get("memory_peak_phase") or display.UNKNOWN),
        ("Kept for backward", display.nbytes(facts.get("memory_saved_activations"))),
        ("Per sample", f"{display.nbytes(facts.get('memory_activations_per_sample'))} "
                       f"(batch of {display.number(facts.get('memory_batch_samples'))})"),
        ("Free at start", f"{display.nbytes(free)} of {display.nbytes(facts.get('memory_limit'))} "
                          f"({facts.get('memory_limit_source') or 'limit unknown'})"),
        ("Largest batch that fits", display.number(facts.get("memory_largest_batch")) + (
            f" (inputs like the counted {facts.get('memory_counted_input')})"
            if isinstance(facts.get("memory_input_scale"), (int, float)) and facts["memory_input_scale"] > 1.05
            else "")),
        ("Left behind per step", display.nbytes(facts.get("memory_growth_per_step"))),
    ]
    if facts.get("gpu_reserved_peak") is not None:
        figures.append(("GPU allocator: allocated / reserved peak",
                        f"{display.nbytes(facts.get('gpu_allocated_peak'))} / {display.nbytes(facts.get('gpu_reserved_peak'))}"
                        f" ({display.share(facts.get('gpu_reserved_unused_share'))} cached, unused)"))
    if facts.get("checkpoint_blocks"):
        figures.append(("Repeated blocks", f"{facts['checkpoint_blocks']}: keep "
                        f"{display.nbytes(facts.get('checkpoint_saved_activations'))} for backward"))
    figures.extend(_room_figures(facts))
    return {
        "available": peak is not None,
        "reason": facts.get("memory_unknown_reason"),
        "before_first_step": [(label, display.nbytes(facts.get(name))) for label, name in (
            ("Parameters", "memory_parameters"), ("Optimizer state (estimated)", "memory_optimizer_state"),
            ("Memory limit", "memory_limit"), ("Free at start", "memory_free_at_start"),
            ("Failed allocation", "memory_failed_request")) if facts.get(name) is not None],
        "parts": parts,
        "figures": figures,
        "peak_share": facts.get("memory_peak_share"), "peak_share_text": display.share(facts.get("memory_peak_share")),
        "growth_site": facts.get("memory_growth_site"),
        "growth_call_site": facts.get("memory_growth_call_site"),
        "need": _need(facts),
        "savings": _savings(facts),
    }


def _room_figures(facts: dict[str, Any]) -> list[tuple[str, str]]:
    rows = []
    room, overhead = facts.get("memory_room"), facts.get("memory_overhead")
    if room is not None:
        own = f" (after the process's own {display.nbytes(overhead)}, less a tenth)" if overhead is not None else \
            " (less a tenth)"
        rows.append(("Room for the step's tensors", display.nbytes(room) + own))
    scale = facts.get("memory_input_scale")
    if isinstance(scale, (int, float)) and scale > 1.05:
        rows.append(("Largest input seen", f"{facts.get('memory_largest_input')} ({display.ratio(scale)} the counted "
                     f"{facts.get('memory_counted_input')}): needs about "
                     f"{display.nbytes(facts.get('memory_peak_at_largest_input'))} (estimated)"))
    return rows


def _need(facts: dict[str, Any]) -> Optional[dict[str, Any]]:
    """The step's estimated need at the largest input against the room its tensors have (a bar past 100% when
    it does not fit)."""
    need, room = facts.get("memory_peak_at_largest_input"), facts.get("memory_room")
    if not isinstance(need, (int, float)) or not isinstance(room, (int, float)) or room <= 0:
        return None
    share = need / room
    return {"share": share, "width": min(1.0, share), "text": f"{display.nbytes(need)} of {display.nbytes(room)} "
            f"({display.share(share)})", "over": share > 1.0}


_SAVINGS = (("memory_saving_accumulation", "gradient accumulation"), ("memory_saving_checkpointing",
            "activation checkpointing"), ("memory_saving_amp", "mixed precision (up to)"),
            ("memory_saving_optimizer_state", "smaller optimizer state"),
            ("memory_saving_inference_mode", "inference_mode for evaluation"),
            ("memory_saving_set_to_none", "set_to_none gradients (up to)"))


def _savings(facts: dict[str, Any]) -> list[dict[str, Any]]:
    """What each fix would save, largest first, as a share of the step's need (the finding ranks them the same)."""
    need = facts.get("memory_peak_at_largest_input") or facts.get("memory_step_peak")
    rows = [(facts.get(name), label) for name, label in _SAVINGS if isinstance(facts.get(name), (int, float))]
    return [{"label": label, "bytes": display.nbytes(value),
             "share": min(1.0, value / need) if need else 0.0} for value, label in sorted(rows, key=lambda r: -r[0])]
