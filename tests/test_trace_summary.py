"""A trace's events -> the profile summary and steps: on the real GPU traces in tests/data/traces/.

The figures are checked against what must hold whatever the trace (the device's step is split
into parts that add up to it) and against what each trace is known to show (the ResNet-50 run
with 0 workers waits for data, the one with 4 does not).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from trainprobe.trace.collect import collect
from trainprobe.trace.intervals import Timeline, merge, union_length
from trainprobe.trace.nesting import PARENT_IS_ATEN, UNDER_LOADER, UNDER_OPTIMIZER, nest
from trainprobe.trace.read import TraceEvent
from trainprobe.trace.summarize import digest_events
from trainprobe.trace import classify

sys.path.insert(0, os.path.dirname(__file__))
import recorded  # noqa: E402

TRACES = Path(__file__).parent / "data" / "traces"
NO_STEPS = ("a100_alexnet_startup", "b200_eager")  # traces without ProfilerStep ranges
WITH_STEPS = sorted(p for p in TRACES.rglob("*.json.gz") if not p.name.startswith(NO_STEPS))


def _digest(path: Path):
    return recorded.trace_digest(path)


def _event(kind, name, ts, dur, pid=1, tid=1, correlation=None, nbytes=None):
    return TraceEvent(kind, name, float(ts), float(dur), pid, tid, correlation, None, nbytes)


@pytest.mark.parametrize("path", WITH_STEPS, ids=lambda p: p.name.split(".")[0])
def test_the_device_step_adds_up(path):
    """Busy time and idle time by cause are a partition of the steps; busy time by class of busy."""
    d = _digest(path)
    s = d.summary
    assert s.availability.available and s.steps == len(d.steps) > 0
    per_step = sum(x.duration for x in d.steps) / len(d.steps)
    assert s.gpu_busy_per_step + sum(s.gpu_idle_by_cause.values()) == pytest.approx(per_step, rel=1e-6)
    assert sum(s.device_time_by_class.values()) == pytest.approx(s.gpu_busy_per_step, rel=1e-6)
    assert s.gpu_idle_share == pytest.approx(1 - s.gpu_busy_per_step / per_step, abs=1e-9)
    assert all(x.gpu_busy is not None and 0 <= x.gpu_busy <= x.duration + 1e-9 for x in d.steps)
    assert 0 <= s.gpu_idle_at_step_boundaries <= per_step - s.gpu_busy_per_step + 1e-9


def test_the_loader_in_the_main_process_starves_the_gpu():
    zero = _digest(TRACES / "resnet50_v100_workers0.pt.trace.json.gz")
    four = _digest(TRACES / "resnet50_v100_workers4.pt.trace.json.gz")
    assert "_SingleProcessDataLoaderIter" in zero.loader_iterator
    assert "_MultiProcessingDataLoaderIter" in four.loader_iterator
    step0 = zero.summary.wall / zero.summary.steps
    step4 = four.summary.wall / four.summary.steps
    assert zero.summary.gpu_idle_by_cause["data"] / step0 > 0.25
    assert four.summary.gpu_idle_by_cause["data"] / step4 < 0.02
    # The same model on the same GPU: the kernels take about as long either way.
    assert zero.summary.gpu_busy_per_step == pytest.approx(four.summary.gpu_busy_per_step, rel=0.1)
    assert step4 < step0


def test_fp32_on_a_volta_is_off_the_tensor_cores():
    s = _digest(TRACES / "resnet50_v100_workers0.pt.trace.json.gz").summary
    assert s.tensor_core_share == 0.0 and s.half_precision_share == 0.0
    assert s.matmul_conv_share > 0.4  # convolutions: cudnn dgrad/wgrad and implicit sgemm kernels


def test_communication_is_split_into_hidden_and_exposed():
    s = _digest(TRACES / "a100_ddp_rank0_of2.pt.trace.json.gz").summary
    comm = s.kernel_time_by_class["communication"]
    exposed = s.device_time_by_class["communication"]
    assert comm > 0 and 0 < exposed <= comm
    assert s.communication_overlap_share == pytest.approx(1 - exposed / comm, rel=1e-6)
    single = _digest(TRACES / "v100_single_rank.pt.trace.json.gz").summary
    assert single.kernel_time_by_class["communication"] == 0 and single.communication_overlap_share is None


def test_cuda_graph_kernels_waiting_on_other_work_are_dependency_not_launch():
    """A100 rank 0 of 16 replays CUDA graphs (cudaGraphLaunch): their kernels were queued long
    before they ran, so the gaps between them wait for other work, not for the host."""
    s = _digest(TRACES / "a100_rank0_of16.pt.trace.json.gz").summary
    assert s.gpu_idle_by_cause["dependency"] > s.gpu_idle_by_cause["launch"]


def test_a_trace_without_steps_says_why():
    d = _digest(TRACES / "a100_alexnet_startup.pt.trace.json.gz")
    assert not d.summary.availability.available
    assert "ProfilerStep" in d.summary.availability.reason and "prof.step()" in d.summary.availability.reason
    assert d.steps == () and d.summary.top_cuda_ops  # the kernels are still listed


def test_syncs_are_counted_once_with_their_call_site():
    """.item() is aten::item > aten::_local_scalar_dense > cudaMemcpyAsync + cudaStreamSynchronize:
    one sync, at aten::item, not three."""
    events = [
        _event("step", "ProfilerStep#1", 0, 100),
        _event("op", "aten::item", 10, 20),
        _event("op", "aten::_local_scalar_dense", 11, 18),
        _event("runtime", "cudaMemcpyAsync", 12, 2, correlation=7),
        _event("runtime", "cudaStreamSynchronize", 15, 10),
        _event("memcpy", "Memcpy DtoH (Device -> Pageable)", 16, 1, pid=0, tid=7, correlation=7, nbytes=4),
    ]
    s = digest_events(events).summary
    assert s.sync_calls == {"item/tolist": 1.0}
    assert s.sync_sites == {"aten::item": 1.0}
    assert s.sync_time_per_step == pytest.approx(18e-6)


def test_idle_gaps_are_put_down_to_what_the_host_did():
    """Kernel A ends at 20; B is launched at 60 after a 30 µs DataLoader fetch: the GPU waited
    for data 10..40 (clipped to the gap 20..60: 20 µs), for the host's code 40..60, and for the
    launch 60..65; before A (0..5) its launch at 1 was already made: the launch path's latency."""
    events = [
        _event("step", "ProfilerStep#3", 0, 100),
        _event("loader", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 10, 30),
        _event("runtime", "cudaLaunchKernel", 1, 2, correlation=1),
        _event("runtime", "cudaLaunchKernel", 60, 2, correlation=2),
        _event("kernel", "volta_sgemm_128x64_nn", 5, 15, pid=0, tid=7, correlation=1),
        _event("kernel", "volta_sgemm_128x64_nn", 65, 35, pid=0, tid=7, correlation=2),
    ]
    d = digest_events(events)
    idle = {k: v * 1e6 for k, v in d.summary.gpu_idle_by_cause.items()}
    assert idle["data"] == pytest.approx(20.0)
    assert idle["host"] == pytest.approx(20.0)
    assert idle["launch"] == pytest.approx(5.0 + 5.0)
    assert idle["data"] + idle["host"] + idle["launch"] + idle["sync"] + idle["dependency"] \
        == pytest.approx(5.0 + 45.0)  # 0..5 before A (its launch at 1 came first: launch) and 20..65
    assert d.steps[0].index == 3 and d.steps[0].data_wait == pytest.approx(30e-6)


def _nested(events):
    """One thread's events nested, and each event's index by its name."""
    collected = collect(events)
    thread = next(iter(collected.threads.values()))
    return nest(thread, collected.names, frozenset()), {collected.names[thread.name[i]]: i for i in range(len(thread))}


def test_nesting_by_time_gives_parents_self_time_and_inherited_flags():
    events = [
        _event("loader", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 0, 50),
        _event("op", "aten::stack", 5, 20),
        _event("op", "aten::cat", 6, 10),
        _event("annotation", "Optimizer.step#SGD.step", 60, 30),
        _event("op", "aten::add_", 61, 5),
    ]
    nested, by_name = _nested(events)
    stack, cat, add = by_name["aten::stack"], by_name["aten::cat"], by_name["aten::add_"]
    assert nested.parent[cat] == stack
    assert nested.self_time[stack] == pytest.approx(10.0)
    assert nested.flags[cat] & UNDER_LOADER and nested.flags[cat] & PARENT_IS_ATEN
    assert nested.flags[add] & UNDER_OPTIMIZER and not nested.flags[add] & UNDER_LOADER


def test_a_range_that_outlasts_the_one_it_started_in_is_not_its_child():
    """The probe steps the profiler from the optimizer's post-step hook: each ProfilerStep starts inside an
    Optimizer.step range and outlasts it. The next step's ops are the loop's, not the optimizer's (the
    H100 campaign's .item() calls were all filed as the optimizer's, tests/data/runs/gpu/h100/)."""
    events = [
        _event("step", "ProfilerStep#1", 0, 100),
        _event("annotation", "Optimizer.step#AdamW.step", 80, 30),
        _event("op", "aten::_foreach_add_", 82, 5),
        _event("step", "ProfilerStep#2", 100, 100),  # starts at 100, inside the optimizer range (to 110)
        _event("op", "aten::mul", 104, 3),  # still inside both: the hook's own tail
        _event("op", "aten::item", 120, 10),
        _event("op", "aten::_local_scalar_dense", 121, 8),
    ]
    nested, at = _nested(events)
    assert nested.flags[at["aten::_foreach_add_"]] & UNDER_OPTIMIZER
    assert nested.parent[at["ProfilerStep#2"]] == -1 and not nested.flags[at["ProfilerStep#2"]] & UNDER_OPTIMIZER
    assert nested.parent[at["Optimizer.step#AdamW.step"]] == -1  # it crosses ProfilerStep#1's end too
    assert nested.parent[at["aten::item"]] == at["ProfilerStep#2"]
    assert not nested.flags[at["aten::_local_scalar_dense"]] & UNDER_OPTIMIZER
    assert nested.parent[at["aten::_local_scalar_dense"]] == at["aten::item"]


def test_intervals():
    assert merge([(5, 6), (0, 2), (1, 3)]) == [(0, 3), (5, 6)]
    assert union_length([(0, 2), (1, 3), (10, 11)]) == 4
    tl = Timeline([(0, 2), (4, 6), (8, 10)])
    assert tl.covered(1, 9) == pytest.approx(1 + 2 + 1)
    assert tl.gaps(1, 9) == [(2, 4), (6, 8)]
    assert tl.gaps(-1, 0) == [(-1, 0)]
    assert tl.minus(Timeline([(1, 5)])).spans == [(0, 1), (5, 6), (8, 10)]


@pytest.mark.parametrize("name, matmul, tensor_cores, half", [
    ("volta_sgemm_128x64_nn", True, False, False),
    ("void implicit_convolve_sgemm<float, float, 1024, 6, 7, 3, 3, 5, 1, false, true, true>", True, False, False),
    ("void cudnn::detail::dgrad_engine<float, 512, 6, 5, 3, 3, 3, false>(int, int)", True, False, False),
    ("void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_256x64_16x4_nn_align4>", True, True, False),
    ("sm80_xmma_fprop_implicit_gemm_indexed_tf32f32_tf32f32_f32_nhwckrsc_nchw", True, True, False),
    ("ampere_sgemm_32x32_sliced1x4_tn", True, False, False),
    # fp32 without TF32 on an H200 (tests/data/runs/gpu/traces/near_full_card): cuBLAS's xmma kernels
    # that do the math with FFMA on the CUDA cores, not on tensor cores.
    ("sm80_xmma_gemm_f32f32_f32f32_f32_tn_n_tilesize128x128x8_stage3_warpsize2x2x1_ffma_aligna4_alignc4_execute_kernel",
     True, False, False),
    ("volta_h884gemm_64x64_ldg8_nn", True, True, True),
    ("void cudnn::bn_bw_1C11_kernel_new<float, float, float2, 512, true, 1>", False, False, False),
    ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)", False, False, False),
])
def test_kernel_names(name, matmul, tensor_cores, half):
    assert classify.is_matmul_conv(name) is matmul
    if matmul:
        assert classify.on_tensor_cores(name) is tensor_cores
        assert classify.half_precision(name) is half
    assert classify.is_communication(name) is name.startswith("nccl")
