"""Where the compute time goes (trace/kinds.py, trace/work.py, trace/flops.py), on real traces.

The four inference traces recorded with shapes were read first by a throwaway script that links each
kernel to its op by "External id" (not by time nesting) and counts FLOPs from the launching ops'
Input Dims; its figures are in their expect files, written before trainprobe computed any of them.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import tomllib
from pathlib import Path

import pytest

from trainprobe.trace.collect import collect
from trainprobe.trace.flops import op_flops
from trainprobe.trace.kinds import KINDS, MEMORY_BOUND, kernel_kind, op_kind
from trainprobe.trace.read import TraceReader
from trainprobe.trace.summarize import digest

sys.path.insert(0, os.path.dirname(__file__))
import recorded  # noqa: E402

TRACES = recorded.TRACES_DIR
INFERENCE = ("h100_timesformer_inference_bf16", "h100_bert_small_inference_batch1", "h100_vit_nsfw_inference_batch4")
ALL_TRACES = sorted(TRACES.rglob("*.pt.trace.json.gz")) + sorted((recorded.RUNS_DIR / "live").glob("*/*.json.gz"))


def _expect(name: str) -> dict:
    return tomllib.loads((TRACES / f"{name}.expect.toml").read_text())["measured"]


def _summary(name: str):
    return recorded.trace_digest(TRACES / f"{name}.pt.trace.json.gz").summary


@pytest.mark.parametrize("name", INFERENCE)
def test_the_split_of_kernel_time_agrees_with_the_independent_analysis(name):
    """Matmul and memory-bound shares of the kernel time within a point; each kind within two."""
    s, expected = _summary(name), _expect(name)
    total = sum(s.op_kinds.values())
    assert total == pytest.approx(expected["kernel_time_ms"] * 1e-3, rel=2e-3)
    assert s.op_kinds["matmul"] / total == pytest.approx(expected["matmul_share_of_kernel_time"], abs=0.01)
    assert s.memory_bound_share == pytest.approx(expected["memory_bound_share_of_kernel_time"], abs=0.01)
    for kind, ms in expected["kind_ms"].items():
        assert s.op_kinds.get(kind, 0.0) / total == pytest.approx(ms * 1e-3 / total, abs=0.02), kind


def test_the_b200_split_where_kernel_names_decide():
    """vLLM's custom ops are no aten op: their kernels go by name. The independent script's name table
    was cruder (it put a KV-cache write and an fp8 quantization, whose names mention flash/flashinfer,
    to attention, and the MoE finalize kernel, a CUTLASS-typed reduction, to matmul), so only the
    matmul share is held to it, within 3 points, and the total exactly."""
    s, expected = _summary("b200_eager"), _expect("b200_eager")
    total = sum(s.op_kinds.values())
    comm = expected["kind_ms"]["communication"]
    assert total == pytest.approx((expected["kernel_time_ms"] - comm) * 1e-3, rel=2e-3)
    assert "communication" not in s.op_kinds
    assert s.op_kinds["matmul"] / total == pytest.approx(
        expected["matmul_share_of_non_communication_kernel_time"], abs=0.03)


@pytest.mark.parametrize("name", INFERENCE + ("b200_eager",))
def test_flops_from_shapes_agree_with_the_independent_count(name):
    s, expected = _summary(name), _expect(name)
    want = expected.get("shape_flops_per_step", expected.get("shape_flops_whole_trace"))
    assert s.shape_flops_per_step == pytest.approx(want, rel=1e-3)
    by_row = {row.name: row.flops_per_step for row in s.op_table if row.flops_per_step}
    for op, flops in expected.get("flops_by_op", {}).items():
        row = "aten::convolution" if op == "aten::_convolution" else op  # a convolution's row is its outermost op
        assert by_row[row] == pytest.approx(flops, rel=1e-3), op


def test_timesformer_runs_at_a_few_percent_of_the_h100_bf16_peak():
    """The figures of issue 24: busy 99% of the kernel span, about 6% of 989.4 TFLOP/s, GEMM a third."""
    s, expected = _summary("h100_timesformer_inference_bf16"), _expect("h100_timesformer_inference_bf16")
    achieved = s.shape_flops_per_step / (expected["kernel_span_ms"] * 1e-3)
    assert achieved / 989.4e12 == pytest.approx(expected["share_of_bf16_dense_peak"], abs=0.002)
    assert 0.30 < s.op_kinds["matmul"] / sum(s.op_kinds.values()) < 0.37


@pytest.mark.parametrize("path", ALL_TRACES, ids=lambda p: f"{p.parent.name}/{p.name.split('.')[0]}")
def test_the_kinds_add_up_on_every_trace(path):
    """On a GPU the kinds partition the compute kernels' time (kernel_time_by_class, counted apart);
    on a CPU the loop's op time. The op table is the top of the same rows."""
    d = recorded.trace_digest(path)
    s = d.summary
    assert set(s.op_kinds) <= set(KINDS)
    total = sum(s.op_kinds.values())
    if not s.availability.available:
        assert s.steps == 0 and any("whole trace" in note for note in d.notes)
        return
    if s.kernel_time_by_class:
        assert total == pytest.approx(s.kernel_time_by_class["compute"], rel=1e-6)
    else:
        assert total == pytest.approx(s.loop_op_time_per_step, rel=1e-6)
    assert s.memory_bound_share == pytest.approx(sum(s.op_kinds.get(k, 0.0) for k in MEMORY_BOUND) / total)
    times = [row.time_per_step for row in s.op_table]
    assert times == sorted(times, reverse=True) and len(times) <= 15 and sum(times) <= total * (1 + 1e-9)
    assert all(row.kind in KINDS for row in s.op_table)


def test_old_traces_with_shapes_but_no_conv_geometry_leave_flops_unknown():
    """The 2021 ResNet-50 traces record Input Dims but not a convolution's stride and padding: a total of
    the matmuls alone would pass for the model's FLOPs, so it is left unknown and the note says why."""
    d = recorded.trace_digest(TRACES / "resnet50_v100_workers0.pt.trace.json.gz")
    assert d.summary.shape_flops_per_step is None
    assert any("aten::convolution" in note and "Concrete Inputs" in note for note in d.notes)
    assert _summary("a100_ddp_rank0_of2").shape_flops_per_step is None  # no shapes at all


def test_op_kinds_table():
    kinds = {"aten::addmm": "matmul", "aten::linear": "matmul", "aten::mkldnn_rnn_layer_backward": "matmul",
             "aten::convolution_backward": "conv", "aten::_flash_attention_forward": "attention",
             "aten::native_layer_norm": "normalization", "aten::_softmax": "normalization",
             "aten::sum": "reduction", "aten::copy_": "copy", "aten::cat": "copy", "aten::embedding": "indexing",
             "aten::index_select": "indexing", "aten::add_": "elementwise", "aten::_foreach_addcdiv_": "elementwise",
             "aten::_fused_adamw_": "elementwise", "aten::threshold_backward": "elementwise", "aten::view": "other",
             "aten::empty": "other", "vllm::moe_forward": None}
    assert {name: op_kind(name) for name in kinds} == kinds


def test_kernel_kinds_by_name():
    kinds = {
        "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64": "matmul",
        "nvjet_tst_64x64_64x16_2x1_2cta_v_bz_bias_TNT": "matmul",
        "volta_sgemm_128x32_nt": "matmul",
        "sm80_xmma_fprop_implicit_gemm_tf32f32_tf32f32_f32_nhwckrsc_nhwc": "conv",
        "volta_scudnn_128x64_relu_interior_nn_v1": "conv",
        "void pytorch_flash::flash_fwd_kernel<pytorch_flash::Flash_fwd_kernel_traits<64, 128, 128, 4>>": "attention",
        "fmhaSm100aKernel_QkvE4m3OBfloat16H64PagedKvCausalP16VarSeqQ128Kv128PersistentContext": "attention",
        "void at::native::(anonymous namespace)::cunn_SoftMaxForward<8, c10::BFloat16, float>": "normalization",
        "std::enable_if<vllm::_typeConvert<c10::BFloat16>::exists, void>::type vllm::fused_add_rms_norm_kernel":
            "normalization",
        "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MeanOps<float>>>": "reduction",
        "void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctor_add<float>>": "elementwise",
        "void vllm::rotary_embedding_kernel<c10::BFloat16, true>": "elementwise",
        "void at::native::(anonymous namespace)::indexSelectLargeIndex<float, long>": "indexing",
        "void at::native::(anonymous namespace)::CatArrayBatchedCopy_contig<OpaqueType<2u>>": "copy",
        "ncclDevKernel_AllGather_RING_LL(ncclDevKernelArgsStorage<4096ul>)": "communication",
    }
    assert {name: kernel_kind(name) for name in kinds} == kinds


def test_attention_and_conv_flops_follow_torch_flop_counter():
    """Each formula against torch.utils.flop_counter's own function, on the shapes the profiler writes."""
    from torch.utils import flop_counter as fc

    q, k = [2, 8, 128, 64], [2, 8, 256, 64]
    bf16 = "c10::BFloat16"
    fwd = op_flops("aten::_scaled_dot_product_flash_attention", ([q, k, k], [bf16] * 3, None))
    assert fwd[0] == fc.sdpa_flop_count(q, k, k)
    unpacked = [2, 128, 8, 64], [2, 256, 8, 64]  # (batch, seq, heads, dim) in the unpacked op
    assert op_flops("aten::_flash_attention_forward", ([unpacked[0], unpacked[1], unpacked[1]], [bf16] * 3,
                                                       None))[0] == fc.sdpa_flop_count(q, k, k)
    bwd = op_flops("aten::_scaled_dot_product_flash_attention_backward", ([q, q, k, k, q], [bf16] * 5, None))
    assert bwd[0] == fc.sdpa_backward_flop_count(q, q, k, k)
    x, w = [4, 3, 32, 32], [16, 3, 5, 5]
    conv = op_flops("aten::convolution", ([x, w, [16]], ["float"] * 3,
                                          ["", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1"]))
    out = [4, 16, 15, 15]
    assert conv[0] == fc.conv_flop_count(x, w, out)
    assert conv[1] == (4 * 3 * 32 * 32 + 16 * 3 * 5 * 5 + 16 + 4 * 16 * 15 * 15) * 4


def _profile(tmp_path: Path, step, steps: int = 2, shapes: bool = True):
    """A real CPU profile of ``step`` run ``steps`` times, exported and digested as `trainprobe trace` would."""
    import torch

    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=shapes,
                                schedule=torch.profiler.schedule(wait=0, warmup=1, active=steps, repeat=1)) as prof:
        for _ in range(steps + 1):  # a warm-up step, then the recorded ones (ProfilerStep#N ranges)
            step()
            prof.step()
    path = tmp_path / "profile.pt.trace.json.gz"
    prof.export_chrome_trace(str(path))
    return digest(collect(TraceReader(path).events()), str(path))


@pytest.mark.slow
def test_flops_from_a_live_profile_match_torch_flop_counter(tmp_path):
    """A training step of a small convnet with a linear, a batched matmul and explicit attention: the
    FLOPs counted from the profile's shapes equal FlopCounterMode's count of the same step."""
    import torch
    from torch import nn
    from torch.utils.flop_counter import FlopCounterMode

    torch.manual_seed(0)
    conv, proj = nn.Conv2d(3, 8, 3, padding=1, stride=2), nn.Linear(64, 32)
    params = list(conv.parameters()) + list(proj.parameters())
    optimizer = torch.optim.SGD(params, lr=0.01)
    x = torch.randn(4, 3, 16, 16)

    def step():
        h = conv(x).flatten(2)  # 4 x 8 x 64
        h = proj(h)  # 4 x 8 x 32
        scores = torch.softmax(h @ h.transpose(1, 2) / 4.0, dim=-1)
        loss = (scores @ h).square().mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

    with FlopCounterMode(display=False) as counter:
        step()
    d = _profile(tmp_path, step)
    assert d.summary.shape_flops_per_step == pytest.approx(counter.get_total_flops(), rel=1e-9)


@pytest.mark.slow
@pytest.mark.parametrize("flags, kind", [({"foreach": False}, "for-loop"), ({"foreach": True}, "foreach"),
                                         ({"fused": True}, "fused")])
def test_the_optimizers_kind_from_its_ops(tmp_path, flags, kind):
    import torch

    model = torch.nn.Linear(8, 2)
    optimizer = torch.optim.AdamW(model.parameters(), **flags)
    x = torch.randn(4, 8)

    def step():
        model(x).sum().backward()
        optimizer.step()
        optimizer.zero_grad()

    assert _profile(tmp_path, step, shapes=False).summary.optimizer_kind == kind


def test_a_trace_without_optimizer_ranges_has_no_optimizer_kind():
    assert _summary("h100_bert_small_inference_batch1").optimizer_kind is None


@pytest.mark.slow
def test_optimizer_kind_on_recorded_traces_matches_their_ops():
    """Read apart: which aten ops a trace holds at all (foreach ops anywhere make a foreach optimizer
    likely; none, a for-loop one)."""
    for name in ("resnet50_v100_workers0", "a100_ddp_rank0_of2", "v100_single_rank"):
        with gzip.open(TRACES / f"{name}.pt.trace.json.gz", "rt") as fh:
            names = {e.get("name", "") for e in json.load(fh)["traceEvents"]}
        foreach = any(n.startswith("aten::_foreach_") for n in names)
        assert _summary(name).optimizer_kind == ("foreach" if foreach else "for-loop"), name


def _independent_kinds(path: Path) -> dict[str, float]:
    """Self CPU time per kind, per step, of the aten ops in a CPU trace's ProfilerStep ranges, counted here
    with json and a stack (not trainprobe's reader or nesting); kinds from the one table."""
    with gzip.open(path, "rt") as fh:
        events = [e for e in json.load(fh)["traceEvents"] if e.get("ph") == "X"]
    steps = [(e["ts"], e["ts"] + e["dur"]) for e in events if e["name"].startswith("ProfilerStep#")]
    by_thread: dict = {}
    for e in events:
        if e.get("cat") in ("cpu_op", "user_annotation"):
            by_thread.setdefault(e["tid"], []).append(e)
    out: dict[str, float] = {}
    for items in by_thread.values():
        items.sort(key=lambda e: (e["ts"], -e["dur"]))
        own = {id(e): e["dur"] for e in items}
        stack: list = []
        for e in items:
            while stack and stack[-1]["ts"] + stack[-1]["dur"] <= e["ts"] + 0.01:
                stack.pop()
            if stack:
                own[id(stack[-1])] -= e["dur"]
            stack.append(e)
        for e in items:
            if e["cat"] == "cpu_op" and e["name"].startswith("aten::") and any(a <= e["ts"] < b for a, b in steps):
                kind = op_kind(e["name"])
                out[kind] = out.get(kind, 0.0) + max(own[id(e)], 0.0) * 1e-6 / len(steps)
    return out


@pytest.mark.slow
def test_a_live_cpu_run_splits_its_time_by_kind_and_by_module(tmp_path):
    """An embedding, an LSTM, a layer norm and a linear head, trained with a foreach AdamW: every child
    gets forward and backward time (backward through the autograd sequence numbers), the LSTM the most;
    the kinds agree with a count made apart from the run's own trace file; the modules' forward time is
    the forward phase's op time less the model's own code."""
    from trainprobe.api import diagnose
    from trainprobe.probe.config import WindowPlan

    script = Path(__file__).parent / "scripts" / "kinds_model.py"
    plan = WindowPlan(warmup_steps=3, steady_min_steps=3, steady_seconds=0.5, profile_min_steps=3,
                      profile_seconds=0.2, cprofile_min_steps=1, cprofile_seconds=0.1, max_seconds=60.0)
    result = diagnose([str(script), "foreach", "200"], tmp_path, plan=plan)
    s = result.record.profiler
    assert s.availability.available and s.source == "live" and s.optimizer_kind == "foreach"
    modules = {m.name: m for m in s.module_times}
    assert set(modules) == {"embed", "encoder", "norm", "head"}
    assert all(m.forward_per_step > 0 and m.backward_per_step > 0 for m in modules.values())
    assert max(modules.values(), key=lambda m: m.forward_per_step + m.backward_per_step).name == "encoder"
    forward = sum(m.forward_per_step for m in modules.values())
    assert 0.8 * s.op_time_by_phase["forward"] <= forward <= s.op_time_by_phase["forward"] * (1 + 1e-9)
    backward = sum(m.backward_per_step for m in modules.values())
    assert 0.5 * s.op_time_by_phase["backward"] <= backward <= s.op_time_by_phase["backward"] * (1 + 1e-9)
    independent = _independent_kinds(Path(s.trace_path))
    total = sum(s.op_kinds.values())
    assert total == pytest.approx(sum(independent.values()), rel=0.01)
    for kind in set(independent) | set(s.op_kinds):
        assert s.op_kinds.get(kind, 0.0) / total == pytest.approx(independent.get(kind, 0.0) / total, abs=0.01), kind
    assert {"matmul", "indexing", "normalization", "elementwise"} <= set(s.op_kinds)
    assert s.shape_flops_per_step is None  # live runs record no shapes: FLOPs come from the lead's counter
