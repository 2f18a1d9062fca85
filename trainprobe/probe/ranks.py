"""In each rank of a job: where its record goes, and how long its collectives take (a probe plug-in).

torchrun starts every rank as trainprobe's child (``--no-python python -c BOOTSTRAP``); the
child finds its rank in torchrun's environment (``RANK``) and writes under ``rank<RANK>/``.
Collectives are timed from the rank's side, entry to exit: the Python-level calls of
``torch.distributed`` (all-reduce, broadcast, barrier, ...) and DDP's gradient all-reduce, through
a communication hook that does what DDP's default does (average the bucket with an all-reduce)
and notes when each bucket was ready and when its all-reduce finished. A rank that arrives early
waits inside the collective; comparing the same call across ranks splits its time into waiting
and transfer (facts/job.py).

The timing is :class:`RankProbe`, a plug-in (probe/plugins.py) that the job's launcher names in
the ranks' config (``RANK_PLUGIN``): the probe knows it only by that name.
"""

from __future__ import annotations

import functools
import os
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Callable, Optional

from .plugins import PluginContext, ProbePlugin

__all__ = ["for_this_rank", "RankProbe", "RANK_PLUGIN", "COLLECTIVES"]

RANK_PLUGIN = "trainprobe.probe.ranks:RankProbe"

# torch.distributed's collectives timed where the script calls them (synchronous calls: the call's
# duration is the collective's; with async_op=True only the call is timed).
COLLECTIVES = (
    "all_reduce", "broadcast", "barrier", "all_gather", "all_gather_into_tensor", "reduce_scatter",
    "reduce_scatter_tensor", "reduce", "gather", "scatter", "all_to_all", "all_to_all_single",
    "all_gather_object", "broadcast_object_list", "gather_object", "scatter_object_list",
)

_inside = threading.local()


def this_rank() -> int:
    try:
        return int(os.environ.get("RANK", "0"))
    except ValueError:
        return 0


def for_this_rank(config):
    """The child's config for this rank: its own folder ``rank<RANK>`` and event stream."""
    out = Path(config.out_dir) / f"rank{this_rank()}"
    out.mkdir(parents=True, exist_ok=True)
    return replace(config, out_dir=str(out), events_path=str(out / "events.jsonl"))


class RankProbe(ProbePlugin):
    """Times this rank's collectives and reads DDP's settings; never fails the script."""

    def __init__(self, options: Optional[dict] = None) -> None:
        super().__init__()

    def install(self, context: PluginContext) -> None:
        super().install(context)
        try:
            install_job_probes(context)
        except Exception as exc:  # pylint: disable=broad-except  # time less rather than fail the rank
            context.note(f"trainprobe could not time this rank's collectives ({type(exc).__name__}: {exc})")


def install_job_probes(context: PluginContext) -> None:
    """Time the collectives and read DDP's settings in this rank. Each collective is noted with the step
    index and the step phase the loop is in, so that its waiting is taken out of the phase it
    lengthened."""
    sink = context  # emit(kind, **fields)

    def where() -> tuple:
        return (context.position()[0], context.phase() or "other")

    env = os.environ
    sink.emit("rank", rank=this_rank(), local_rank=_int(env.get("LOCAL_RANK")),
              world_size=_int(env.get("WORLD_SIZE")), node_rank=_int(env.get("GROUP_RANK")),
              pid=os.getpid())
    try:
        import torch.distributed as dist
        from torch.distributed import distributed_c10d as c10d
    except Exception:  # a torch without distributed: nothing to time
        return
    t0 = context.t0

    def note(kind: str, start: float, end: float, nbytes: Optional[int], at: Optional[tuple] = None) -> None:
        step, phase = at or where()
        sink.emit("collective", k=kind, t=round(start - t0, 6), d=round(end - start, 6), b=nbytes, s=step,
                  p=phase)

    note.where = where  # type: ignore[attr-defined]
    for name in COLLECTIVES:
        original = getattr(c10d, name, None)
        if original is None or getattr(original, "_trainprobe", False):
            continue
        timed = _timed(name, original, note)
        setattr(c10d, name, timed)
        if getattr(dist, name, None) is original:
            setattr(dist, name, timed)
    _patch_ddp(sink, note)


def _int(value: Optional[str]) -> Optional[int]:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def _where(note: Callable) -> tuple:
    try:
        return note.where()  # type: ignore[attr-defined]
    except Exception:
        return (-1, None)


def _nbytes(args: tuple, kwargs: dict) -> Optional[int]:
    tensor = args[0] if args else kwargs.get("tensor")
    try:
        return int(tensor.numel() * tensor.element_size())
    except Exception:
        return None


def _timed(name: str, original: Callable, note: Callable) -> Callable:
    @functools.wraps(original)
    def collective(*args, **kwargs):
        if getattr(_inside, "busy", False):  # a collective built on another (all_gather_object): once
            return original(*args, **kwargs)
        _inside.busy = True
        start = time.monotonic()
        at = _where(note)
        try:
            return original(*args, **kwargs)
        finally:
            _inside.busy = False
            try:
                note(name, start, time.monotonic(), _nbytes(args, kwargs), at)
            except Exception:
                pass

    collective._trainprobe = True  # type: ignore[attr-defined]
    return collective


def _patch_ddp(sink, note: Callable) -> None:
    try:
        from torch.nn.parallel import DistributedDataParallel as DDP
    except Exception:
        return
    if getattr(DDP.__init__, "_trainprobe", False):
        return
    init = DDP.__init__
    post_forward = getattr(DDP, "_post_forward", None)
    costs = {"time": 0.0, "calls": 0}

    @functools.wraps(init)
    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        try:
            _emit_ddp(sink, self, costs)
            self.register_forward_pre_hook(_hook_once(note))
        except Exception:
            pass

    __init__._trainprobe = True  # type: ignore[attr-defined]
    DDP.__init__ = __init__
    if post_forward is not None:
        @functools.wraps(post_forward)
        def _post_forward(self, output):
            start = time.monotonic()
            try:
                return post_forward(self, output)
            finally:
                costs["time"] += time.monotonic() - start
                costs["calls"] += 1
                if costs["calls"] in (2, 5) or costs["calls"] % 10 == 0:  # the last one read stands
                    try:
                        _emit_ddp(sink, self, costs)
                    except Exception:
                        pass

        DDP._post_forward = _post_forward


def _hook_once(note: Callable) -> Callable:
    """A forward pre-hook that, at the first forward, times DDP's gradient all-reduce with a comm hook,
    unless the script registered its own (it is then left alone and only explicit calls are timed)."""
    done = []

    def pre_forward(module, inputs):
        if done:
            return None
        done.append(True)
        if getattr(module, "_comm_hooks", None) or getattr(module, "_use_python_reducer", False):
            return None
        try:
            module.register_comm_hook(None, _comm_hook(note))
        except Exception:
            pass
        return None

    return pre_forward


def _comm_hook(note: Callable) -> Callable:
    import torch.distributed as dist
    from torch.distributed import distributed_c10d as c10d

    all_reduce = getattr(c10d.all_reduce, "__wrapped__", c10d.all_reduce)

    def timed_allreduce(state, bucket):
        start = time.monotonic()
        step = _where(note)[0]
        tensor = bucket.buffer()
        group = state if state is not None else dist.group.WORLD
        tensor.div_(group.size())  # DDP's default: the mean of the ranks' gradients
        nbytes = int(tensor.numel() * tensor.element_size())

        def done(fut):
            try:
                note("ddp_all_reduce", start, time.monotonic(), nbytes, (step, "backward"))
            except Exception:
                pass
            return fut.value()[0]

        return all_reduce(tensor, group=group, async_op=True).get_future().then(done)

    return timed_allreduce


def _emit_ddp(sink, ddp, costs: dict) -> None:
    import torch.distributed as dist

    backend = None
    try:
        backend = str(dist.get_backend(getattr(ddp, "process_group", None)))
    except Exception:
        pass
    unused = None
    try:
        data = ddp._get_ddp_logging_data()
        unused = data.get("unused_parameter_size")
    except Exception:
        pass
    cap = getattr(ddp, "bucket_bytes_cap", None)
    sink.emit("ddp", backend=backend, bucket_cap_mb=cap / 2**20 if cap else None,
              gradient_as_bucket_view=getattr(ddp, "gradient_as_bucket_view", None),
              static_graph=getattr(ddp, "static_graph", None),
              find_unused_parameters=getattr(ddp, "find_unused_parameters", None),
              broadcast_buffers=getattr(ddp, "broadcast_buffers", None),
              parameters=sum(1 for p in ddp.parameters() if p.requires_grad),
              unused_parameter_bytes=unused,
              post_forward_time=costs["time"] / costs["calls"] if costs["calls"] else None,
              post_forward_calls=costs["calls"])
