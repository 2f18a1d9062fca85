"""Grading recorded check results: defaults, --expect files, verdicts and exit codes."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from trainprobe.readiness import CheckResult, Expectations, grade_all, verdict_of
from trainprobe.readiness import items
from trainprobe.readiness.expect import ExpectError, load_expectations, parse_expectations
from trainprobe.readiness.results import FAIL, PASS, SKIP, WARN, Grade
from trainprobe.readiness.peaks import expected_peaks, pcie_bandwidth_gbps
from trainprobe.readiness.render import render_text

DATA = Path(__file__).parent / "data" / "check"
REPO = Path(__file__).resolve().parents[1]


def load(name: str) -> CheckResult:
    return CheckResult.load(DATA / name)


def regrade(r: CheckResult, ex: Expectations | None = None, mode: str | None = None) -> dict[str, Grade]:
    grades = grade_all(r.measurements, ex or Expectations(), r.facts, mode or r.mode)
    return {g.key: g for g in grades}


@pytest.mark.parametrize("name", ["here_quick.json", "here_full.json", "fake_gpu_a100_ready.json",
                                  "fake_gpu_t4_broken.json"])
def test_recorded_results_regrade_to_what_was_saved(name):
    r = load(name)
    grades = grade_all(r.measurements, Expectations(), r.facts, r.mode)
    assert grades == r.grades
    assert verdict_of(grades) == (r.verdict, r.exit_code)


def test_no_gpu_here_is_a_plain_warning_and_gpu_items_are_skipped():
    r = load("here_quick.json")
    g = regrade(r)
    assert g["gpu"].status == WARN
    assert "no NVIDIA GPU visible" in g["gpu"].note and "CPU" in g["gpu"].note
    assert "nvidia-smi" in g["gpu"].fix
    gpu_side = {i.key for i in items.QUICK if i.needs_gpu} | {"gpu", "cudnn", "cuda_driver"}
    for key in gpu_side - {"gpu"}:
        assert g[key].status == SKIP, key
    # items that need no GPU were measured and graded
    for key in {i.key for i in items.QUICK} - gpu_side:
        assert g[key].status in (PASS, WARN), key
    assert r.exit_code == 1 and r.verdict == "warnings"


def test_course_requiring_a_gpu_fails_here():
    r = load("here_quick.json")
    ex = load_expectations(str(REPO / "sample_scripts" / "course-expect.toml"))
    g = regrade(r, ex)
    assert g["gpu"].status == FAIL and g["gpu"].required
    assert g["gpu_memory"].status == FAIL and "required" in g["gpu_memory"].note
    assert g["gpu_features"].status == FAIL  # bf16 required, no GPU
    assert g["cpu_cores"].status == FAIL  # 4 required, 2 here
    # the benchmark is not part of --quick: a warning that says how to measure it
    assert g["train_benchmark"].status == WARN and "--quick" in g["train_benchmark"].note
    assert verdict_of(tuple(g.values())) == ("not_ready", 3)


def test_full_recorded_result_has_benchmarks():
    r = load("here_full.json")
    g = regrade(r)
    for key in ("jpeg_decode", "disk_read", "matmul_cpu", "train_benchmark"):
        m = next(m for m in r.measurements if m.key == key)
        assert m.value is not None and m.value > 0, key
        assert g[key].status in (PASS, WARN), key
    assert g["matmul_gpu"].status == SKIP and g["h2d"].status == SKIP
    assert "cpu" in g["train_benchmark"].note


def test_benchmark_threshold_from_expect_file():
    r = load("here_full.json")
    rate = next(m.value for m in r.measurements if m.key == "train_benchmark")
    low = regrade(r, Expectations(require={"images_per_second": rate / 2}))["train_benchmark"]
    high = regrade(r, Expectations(require={"images_per_second": rate * 2}))["train_benchmark"]
    assert low.status == PASS and low.required
    assert high.status == FAIL and "(course)" in high.threshold


def test_fake_a100_passes_gpu_items():
    g = regrade(load("fake_gpu_a100_ready.json"))
    gpu_side = {i.key for i in items.ITEMS if i.needs_gpu} | {"gpu", "cudnn", "cuda_driver"}
    for key in gpu_side | {"train_benchmark", "torchvision"}:
        assert g[key].status == PASS, (key, g[key])
    assert "80%" in g["matmul_gpu"].note  # bf16 250 of 312 TFLOP/s
    assert "pin_memory=True" in g["h2d"].note  # pageable far below pinned


def test_fake_a100_against_course_expectations():
    r = load("fake_gpu_a100_ready.json")
    g = regrade(r, Expectations(require={"gpu": True, "gpu_memory_gb": 8, "bf16": True, "images_per_second": 500}))
    assert all(g[k].status == PASS for k in ("gpu", "gpu_memory", "gpu_features", "train_benchmark"))
    g = regrade(r, Expectations(require={"gpu_memory_gb": 100}))
    assert g["gpu_memory"].status == FAIL and "100" in g["gpu_memory"].threshold


def test_fake_t4_broken_machine_is_not_ready_and_says_why():
    r = load("fake_gpu_t4_broken.json")
    g = regrade(r)
    assert g["torchvision"].status == FAIL
    assert "torchvision::nms does not exist" in g["torchvision"].note
    assert "pip install" in g["torchvision"].fix and "torchvision" in g["torchvision"].fix
    assert g["cuda_driver"].status == FAIL and "too old" in g["cuda_driver"].note
    assert g["shm"].status == FAIL and "--shm-size" in g["shm"].fix
    assert g["gpu_clocks"].status == WARN and "thermal" in g["gpu_clocks"].note
    assert "power limit" in g["gpu_clocks"].note
    assert g["gpu_pcie"].status == WARN
    assert r.exit_code == 3
    # bf16 required by the course: a T4 (7.5) cannot
    g = regrade(r, Expectations(require={"bf16": True}))
    assert g["gpu_features"].status == FAIL and "bf16" in g["gpu_features"].note


def test_gpu_visible_to_nvml_but_not_torch_fails():
    r = load("fake_gpu_a100_ready.json")
    tf = dataclasses.replace(r.facts.torch, cuda_available=False, devices=(), cuda_build=None)
    facts = dataclasses.replace(r.facts, torch=tf)
    g = {x.key: x for x in grade_all(tuple(items.measure_quick(facts)), Expectations(), facts, "quick")}
    assert g["gpu"].status == FAIL and "torch cannot use it" in g["gpu"].note
    assert g["cuda_driver"].status == FAIL and "CPU-only" in g["cuda_driver"].note


def test_torch_build_without_kernels_for_the_gpu_fails():
    r = load("fake_gpu_t4_broken.json")
    tf = dataclasses.replace(r.facts.torch, arch_list=("sm_80", "sm_86", "sm_90"))
    facts = dataclasses.replace(r.facts, torch=tf)
    g = grade_all((items.measure(items.item("gpu_features"), facts),), Expectations(), facts, "quick")[0]
    assert g.status == FAIL and "7.5" in g.note


def test_unmeasured_item_is_a_warning_or_a_failure_when_required():
    r = load("here_quick.json")
    ram = next(m for m in r.measurements if m.key == "ram")
    lost = dataclasses.replace(ram, value=None, shown=None, reason=None)
    g = grade_all((lost,), Expectations(), r.facts)[0]
    assert (g.status, g.measured, g.note) == (WARN, "unknown", "could not measure: unknown reason")
    g = grade_all((lost,), Expectations(require={"ram_gb": 8}), r.facts)[0]
    assert g.status == FAIL and "could not measure" in g.note


def test_verdicts_and_exit_codes():
    assert verdict_of((Grade(status=PASS), Grade(status=SKIP))) == ("ready", 0)
    assert verdict_of((Grade(status=PASS), Grade(status=WARN))) == ("warnings", 1)
    assert verdict_of((Grade(status=WARN), Grade(status=FAIL))) == ("not_ready", 3)


def test_sample_expect_file_parses():
    ex = load_expectations(str(REPO / "sample_scripts" / "course-expect.toml"))
    assert ex.get("gpu") is True and ex.get("gpu_memory_gb") == 8.0 and ex.get("torch_min") == "2.4"
    assert ex.course == "Deep Learning 101"


@pytest.mark.parametrize("data, message", [
    ({"require": {"gpu_mem": 8}}, "unknown requirement"),
    ({"require": {"gpu": "yes"}}, "true or false"),
    ({"require": {"ram_gb": -1}}, "must be a number"),
    ({"require": {"torch_min": "latest"}}, "version"),
    ({"requires": {}}, "unknown table"),
])
def test_bad_expectations_are_named(data, message):
    with pytest.raises(ExpectError, match=message):
        parse_expectations(data, "course.toml")


def test_expect_file_errors_name_the_file(tmp_path):
    with pytest.raises(ExpectError, match="not found"):
        load_expectations(str(tmp_path / "missing.toml"))
    bad = tmp_path / "bad.toml"
    bad.write_text("[require\ngpu = true\n")
    with pytest.raises(ExpectError, match="bad.toml is not valid TOML"):
        load_expectations(str(bad))


def test_version_bars_accept_ge_prefix():
    ex = parse_expectations({"require": {"torch_min": ">=2.4"}})
    assert ex.get("torch_min") == "2.4"


def test_peak_table_matches_whole_names_only():
    assert expected_peaks("NVIDIA A100-SXM4-80GB")["bf16"] == 312.0
    assert expected_peaks("NVIDIA A10G") is None  # not the A10
    assert expected_peaks("NVIDIA L40") is None  # not the L4
    assert expected_peaks("NVIDIA H100 PCIe")["fp32"] == 51.2
    assert pcie_bandwidth_gbps(4, 16) == pytest.approx(31.5, rel=0.01)
    assert pcie_bandwidth_gbps(None, 16) is None


def test_text_rendering_is_aligned_and_colourless_when_asked():
    r = load("fake_gpu_t4_broken.json")
    text = render_text(r, color=False)
    assert "\033[" not in text
    assert text.rstrip().splitlines()[-1].startswith("Not ready")
    assert "exit code 3" in text
    assert "FAIL  torchvision build" in text
    coloured = render_text(r, color=True)
    assert "\033[31;1mFAIL" in coloured


def test_missing_torch_fails_and_dependent_items_step_aside():
    r = load("here_quick.json")
    from trainprobe.readiness.results import TorchFacts
    from trainprobe.record import Availability
    facts = dataclasses.replace(r.facts, torch=TorchFacts(
        availability=Availability(False, "import torch failed: No module named 'torch'")))
    grades = grade_all(tuple(items.measure_quick(facts)), Expectations(), facts, "quick")
    g = {x.key: x for x in grades}
    assert g["torch"].status == FAIL and "No module named 'torch'" in g["torch"].measured
    assert "pip install torch" in g["torch"].fix
    assert g["torchvision"].status == SKIP and g["cuda_driver"].status == SKIP
    assert verdict_of(grades)[1] == 3
