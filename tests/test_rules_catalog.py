"""The rule catalog: every rule documented, triggered by its bad record and not by its good one.

Rule cases are in ``rule_cases/`` (records built from the dataclasses, fakes of
hardware). Recorded real runs of the sample scripts, when the probe has saved
them under ``tests/data/runs/``, are diagnosed against what each sample script
says it plants (its ``TRAINPROBE_SAMPLE`` dictionary).
"""

from __future__ import annotations

import ast
import os
import re
import sys
import tomllib
from dataclasses import replace
from pathlib import Path

import pytest

from trainprobe.cli import main
from trainprobe.findings import SEVERITIES
from trainprobe.engine import DOC_SECTIONS, apply_rules as diagnose, judge_job, load_rules
from trainprobe.record import RunRecord
from trainprobe.record_job import JobRecord
from trainprobe.resources import rules_dir
from trainprobe.whatif.fixes import REGISTRY as FIX_REGISTRY

sys.path.insert(0, os.path.dirname(__file__))
from rule_cases.cases import CASES, CPU_CASES  # noqa: E402
from rule_cases.records import cpu_record, gpu_record, with_settings  # noqa: E402
import recorded  # noqa: E402
from breadth import every_nth_quick  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
RULES, ERRORS = load_rules()
BY_ID = {r.id: r for r in RULES}
RULE_FILES = sorted(rules_dir().glob("*.toml"))
# Every list below is derived from rules/ and the what-if's registry, never kept by hand.
RULE_IDS = {p.stem for p in RULE_FILES}
FIX_IDS = set(FIX_REGISTRY)
GPU_RULES = {r.id for r in RULES if r.gpu_only}
NO_STEP_RULES = {r.id for r in RULES if r.without_steps}  # settings and the machine: no step needed


def test_the_catalog_loads_cleanly():
    assert ERRORS == []


def test_each_rule_file_holds_the_rule_it_is_named_after():
    assert set(BY_ID) == RULE_IDS
    for rule in RULES:
        assert Path(rule.source).stem == rule.id


@pytest.mark.parametrize("path", RULE_FILES, ids=lambda p: p.stem)
def test_every_rule_file_has_all_doc_sections(path):
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    docs = data["docs"]
    for section in DOC_SECTIONS:
        assert docs.get(section), f"{path.name}: docs.{section} is empty"
    assert all(ref.startswith("https://") for ref in docs["references"])
    for option in data.get("options", {}):
        assert f"`{option}`" in docs["options"], f"{path.name}: option {option} undocumented"
        assert f"`{option}`" in docs["evidence"] or f"`{option}`" in docs["options"]


@pytest.mark.parametrize("rule_id", sorted(RULE_IDS))
def test_rule_fields(rule_id):
    rule = BY_ID[rule_id]
    assert rule.severity in SEVERITIES
    assert rule.name and not rule.name.endswith(".")
    if rule.fix_id is not None:
        named = re.findall(r"'([a-z0-9_]+)'", rule.fix_id.source) if "{" in rule.fix_id.source \
            else [rule.fix_id.source]
        assert named and set(named) <= FIX_IDS, f"{rule_id}: fix_id names a fix that has no module"


@pytest.mark.parametrize("rule_id", sorted(RULE_IDS))
def test_every_rule_has_a_case(rule_id):
    assert rule_id in CASES


# The cases that read a large real GPU trace (about a second each the first time) run in the full suite only,
# so that the quick loop stays under a minute.
_LARGE_TRACE_CASES = {"blocking-pageable-copies", "exposed-communication", "gpu-idle-between-steps"}
_CASE_IDS = [pytest.param(r, marks=pytest.mark.slow) if r in _LARGE_TRACE_CASES else r for r in sorted(CASES)]


@pytest.mark.parametrize("rule_id", _CASE_IDS)
def test_bad_record_triggers_the_rule(rule_id):
    case = CASES[rule_id]
    result = recorded.diagnosis_of(case.bad())
    assert result.rule_errors == ()
    found = {f.id: f for f in result.findings}
    assert rule_id in found, f"{rule_id} did not fire; findings: {sorted(found)}"
    finding = found[rule_id]
    assert finding.severity == case.severity
    assert finding.message and finding.advice and finding.title
    for text in (finding.title, finding.message, finding.advice, finding.snippet):
        assert "unknown" not in text, text  # every number in the message is known
    assert finding.evidence and finding.evidence[0].value != "unknown"
    if finding.fix_id is not None:
        assert finding.fix_id in FIX_IDS
    assert finding.docs.what


@pytest.mark.parametrize("rule_id", _CASE_IDS)
def test_good_record_does_not_trigger_the_rule(rule_id):
    result = recorded.diagnosis_of(CASES[rule_id].good())
    assert rule_id not in {f.id for f in result.findings}


@pytest.mark.parametrize("rule_id", sorted(CPU_CASES))
def test_cpu_pattern_of_the_rule(rule_id):
    case = CPU_CASES[rule_id]
    bad = {f.id: f for f in diagnose(case.bad()).findings}
    assert rule_id in bad and bad[rule_id].severity == case.severity
    assert "unknown" not in bad[rule_id].message
    assert rule_id not in {f.id for f in diagnose(case.good()).findings}


@pytest.mark.parametrize("rule_id", every_nth_quick(sorted(GPU_RULES), 4))
def test_gpu_rules_stay_quiet_on_a_cpu_only_run(rule_id):
    bad = CASES[rule_id].bad()
    cpu_only = with_settings(bad, cuda_used=False, devices_used=("cpu",))
    assert rule_id not in {f.id for f in diagnose(cpu_only).findings}


def test_gpu_habits_are_info_on_a_cpu_only_run():
    from rule_cases.cases import _item_cpu
    finding = next(f for f in diagnose(_item_cpu(2.0)).findings if f.id == "item-sync-in-loop")
    assert finding.severity == "info"
    assert "on a GPU" in finding.message


@pytest.mark.parametrize("rule_id", sorted(CASES))
def test_a_run_without_steps_gets_only_findings_that_make_sense(rule_id):
    bad = CASES[rule_id].bad()
    if isinstance(bad, JobRecord):  # a job whose ranks all ended before their first step
        result = judge_job(replace(bad, ranks=tuple(replace(r, record=replace(r.record, steps=())) for r in bad.ranks)))
    else:
        result = diagnose(replace(bad, steps=()))
    assert result.verdict.category == "unknown"
    assert {f.id for f in result.findings} <= NO_STEP_RULES


@pytest.mark.parametrize("record", [gpu_record, cpu_record], ids=["gpu", "cpu"])
def test_a_clean_run_gets_nothing_above_info(record):
    result = diagnose(record())
    assert [f.id for f in result.findings if f.severity != "info"] == []
    assert result.verdict.category == "compute"


def test_the_example_from_the_issue():
    """A GPU waiting 64% of the step, 8 cores usable, num_workers=0 -> 6 workers, ~2.5-3x."""
    finding = next(f for f in diagnose(CASES["dataloader-too-few-workers"].bad()).findings
                   if f.id == "dataloader-too-few-workers")
    assert finding.title == "the GPU waits for data 64% of every step"
    assert "num_workers=6 (8 cores usable" in finding.advice
    assert "num_workers=6" in finding.snippet and "batch_size=256" in finding.snippet
    assert 2.5 <= finding.gain.speedup <= 3.0
    assert finding.fix_id == "num_workers"


# --- the CLI ----------------------------------------------------------------------------------

def test_rules_list(capsys):
    assert main(["rules", "list"]) == 0
    out = capsys.readouterr().out
    for rule_id in RULE_IDS:
        assert rule_id in out
    assert f"{len(RULE_IDS)} rules." in out


def test_rules_explain(capsys):
    assert main(["rules", "explain", "dataloader-too-few-workers"]) == 0
    out = capsys.readouterr().out
    for heading in ("What it does", "Why it matters", "Evidence", "What to do", "Options",
                    "References", "Condition"):
        assert f"\n{heading}\n" in out
    assert out.startswith("dataloader-too-few-workers: DataLoader with too few workers\n")
    assert "min_wait_share = 0.1" in out


def test_rules_explain_unknown_id(capsys):
    assert main(["rules", "explain", "dataloader-too-few"]) == 2
    err = capsys.readouterr().err
    assert "no rule 'dataloader-too-few'" in err and "dataloader-too-few-workers" in err


def test_rules_with_a_user_folder(tmp_path, capsys):
    (tmp_path / "tiny-batches.toml").write_text((ROOT / "rules" / "README.md").read_text(
        encoding="utf-8").split("```toml\n", 1)[1].split("```", 1)[0], encoding="utf-8")
    assert main(["rules", "check", str(tmp_path)]) == 0
    assert main(["rules", "list", "--rules", str(tmp_path)]) == 0
    assert "tiny-batches" in capsys.readouterr().out
    assert main(["rules", "explain", "tiny-batches", "--rules", str(tmp_path)]) == 0
    small = replace(cpu_record(), steps=tuple(replace(s, samples=8) for s in cpu_record().steps))
    assert "tiny-batches" in {f.id for f in diagnose(small, [tmp_path]).findings}
    assert "tiny-batches" not in {f.id for f in diagnose(cpu_record(), [tmp_path]).findings}


def test_an_edited_rule_file_is_read_again(tmp_path):
    """Rules are parsed once per state of their files (load_rules' cache): an edit, an added file and a broken
    file are seen by the next load in the same process."""
    from trainprobe.engine import load_rules
    example = (ROOT / "rules" / "README.md").read_text(encoding="utf-8").split("```toml\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "tiny-batches.toml"
    path.write_text(example, encoding="utf-8")
    first = next(r for r in load_rules([tmp_path])[0] if r.id == "tiny-batches")
    path.write_text(example.replace('severity = "info"', 'severity = "critical"'), encoding="utf-8")
    again = next(r for r in load_rules([tmp_path])[0] if r.id == "tiny-batches")
    assert (first.severity, again.severity) == ("info", "critical")
    (tmp_path / "broken.toml").write_text('id = "broken"\n', encoding="utf-8")
    assert any("broken.toml:1: missing required key" in e for e in load_rules([tmp_path])[1])


def test_rules_check_reports_errors(tmp_path, capsys):
    (tmp_path / "broken.toml").write_text('id = "broken"\n', encoding="utf-8")
    assert main(["rules", "check", str(tmp_path)]) == 1
    assert f"{tmp_path / 'broken.toml'}:1: missing required key" in capsys.readouterr().err


def test_the_rules_readme_lists_every_fact_as_the_catalog_says():
    readme = (ROOT / "rules" / "README.md").read_text(encoding="utf-8")
    from trainprobe.engine.docs import fact_catalog_markdown
    section = readme.split("<!-- facts:start", 1)[1].split("-->", 1)[1].split("<!-- facts:end -->")[0]
    assert section.strip() == fact_catalog_markdown().strip(), \
        "regenerate the Facts section of rules/README.md with `trainprobe rules facts --markdown`"


def test_rules_facts_lists_the_catalog(capsys):
    assert main(["rules", "facts"]) == 0
    out = capsys.readouterr().out
    assert "data_wait_share (share)" in out and "[gpu]" in out


# --- recorded real runs of the sample scripts --------------------------------------------------

# Real runs of the sample scripts, recorded by benchmarks/accuracy.py on a 2-core machine
# without a GPU (tests/data/runs/README.md says which run and how).
RUNS = recorded.GALLERY_RUNS


def _sample_meta(record: RunRecord):
    script = record.invocation.script
    if not script:
        return None
    path = ROOT / "sample_scripts" / Path(script).name
    if not path.exists():
        return None
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "TRAINPROBE_SAMPLE":
            return ast.literal_eval(node.value)
    return None


# Known misses on the development samples, kept failing on purpose (strict: the test fails once they
# pass, and the entry must go). Each is counted in benchmarks/accuracy.py's precision as well.
KNOWN_MISSES = {
    # Re-recorded on a quiet machine (2026-11-25): the loop's handoff of each in-memory batch (1.25 ms)
    # costs more than making it (0.68 ms), and the loop's own Python is 11% of a 4.6 ms step; both
    # fire as warnings beside the planted restart. num_workers=0 may well be the better fix here (it
    # removes the restarts too), but that is for a measured review, not for this change to decide.
    "workers_restart_each_epoch.cpu.run.json": "worker-handoff-outweighs-batch and host-overhead-in-loop "
                                                "fire as warnings beside the planted restart",
}


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.xfail(reason=KNOWN_MISSES[p.name], strict=True))
                                  if p.name in KNOWN_MISSES else p for p in RUNS], ids=lambda p: p.name)
def test_recorded_run_names_the_planted_bottleneck(path):
    record = recorded.load(path)
    meta = _sample_meta(record)
    if meta is None:
        pytest.skip(f"{path.name} is not a run of a sample script")
    kind = "gpu" if record.settings.cuda_used else "cpu"
    result = recorded.diagnosed(path)[1]
    assert result.rule_errors == ()
    found = {f.id: f for f in result.findings}
    for rule_id in meta["findings"][kind]:
        assert rule_id in found, f"{rule_id} expected; got {sorted(found)}"
    expected_verdict = meta["verdict"][kind]
    if expected_verdict:
        assert result.verdict.category == expected_verdict, result.verdict.headline
    allowed = set(meta["findings"][kind]) | set(meta.get("allow", {}).get(kind, []))
    loud = {i for i, f in found.items() if f.severity != "info"}
    assert loud <= allowed, f"unexpected findings above info: {sorted(loud - allowed)}"
    if meta.get("clean"):
        assert not loud


def _network_share(machine_busy: float, read_share: float = 0.05):
    """Workers blocked in fetch with no I/O wait, as over NFS (rule_cases.cases.waiting_workers)."""
    from rule_cases.cases import waiting_workers
    return waiting_workers(read_share, machine_busy)


def test_storage_seen_from_blocked_workers_without_iowait():
    found = {f.id for f in diagnose(_network_share(30.0)).findings}
    assert "storage-bound-input" in found
    assert "dataloader-prefetch-starved" not in found


def test_blocked_workers_that_read_no_file_are_not_called_storage():
    assert "storage-bound-input" not in {f.id for f in diagnose(_network_share(30.0, read_share=0.0)).findings}


def test_blocked_workers_on_a_saturated_machine_are_not_called_storage():
    assert "storage-bound-input" not in {f.id for f in diagnose(_network_share(99.0)).findings}


# --- advice never takes away what the process measurably uses ----------------------------------
# ...unless it trades the cores for DataLoader workers, and prices the trade in its gain
# (dataloader-too-few-workers on a CPU-only run: step_with_suggested_workers).

def _thread_advice(records):
    from trainprobe.engine.evaluate import evaluate_rules
    from trainprobe.facts import compute_facts, facts_by_name

    for record in records:
        values = facts_by_name(compute_facts(record))
        for finding in evaluate_rules(RULES, values)[0]:
            for text in (finding.advice, finding.snippet):
                flag = values.get("flag_workers")
                if "num_workers=" in text or (flag and f"with {flag} " in text):
                    continue  # a trade of cores for workers (a flag-driven script's: "Run with --workers 1")
                for n in re.findall(r"set_num_threads\((\d+)\)", text):
                    yield finding.id, int(n), values


@pytest.mark.parametrize("source", ["rule cases",  # every recorded run, the GPU's too: the slow set
                                    pytest.param("recorded runs", marks=pytest.mark.slow)])
def test_no_advice_takes_away_cores_the_training_process_used(source):
    if source == "rule cases":
        records = [c.bad() for c in CASES.values()] + [c.good() for c in CASES.values()]
    else:
        records = [recorded.load(p) for p in recorded.ALL_RUNS]
    seen = 0
    for rule_id, threads, values in _thread_advice(records):
        seen += 1
        used = values["main_cpu_cores"]
        assert used is None or threads >= used - 0.25, (rule_id, threads, used)
    if source == "rule cases":
        assert seen  # the oversubscription case does advise a thread count


# --- the loop's own code: Python, or torch ops called outside the model's forward -----------------

def _other_is(ops_seconds: float):
    """A CPU step whose loop code takes 60 ms; ``ops_seconds`` of it in torch ops (profiled)."""
    from rule_cases.cases import _host
    from rule_cases.records import with_profiler
    return with_profiler(_host(0.06), op_time_by_phase={"other": ops_seconds, "forward": 0.03})


def test_python_in_the_loop_is_host_overhead_and_names_its_function():
    result = diagnose(_other_is(0.002))
    finding = next(f for f in result.findings if f.id == "host-overhead-in-loop")
    assert "log_metrics()" in finding.title and "train.py:42 log_metrics" in finding.message
    assert result.verdict.category == "host"


def test_a_model_run_through_forward_directly_is_compute_not_host_overhead():
    """A layer called as layer.forward(x) (the hooks cannot see it) does its math in the loop's code:
    the profiler attributes those ops to no phase, and they are compute."""
    result = diagnose(_other_is(0.055))
    assert "host-overhead-in-loop" not in {f.id for f in result.findings}
    assert result.verdict.category == "compute"
    assert result.verdict.breakdown["compute"] > result.verdict.breakdown["host"]


def test_memory_bound_work_that_compile_would_fuse_is_a_warning_on_a_gpu_and_information_on_a_cpu():
    """On a GPU the memory-bound share predicts what fusing saves; on a CPU it did not (the rule's
    cpu_min_memory_bound_share note), so there the same op mix is worth trying, not a diagnosis."""
    from rule_cases.records import gpu_record, with_profiler, with_settings

    kinds = {"conv": 0.040, "matmul": 0.004, "elementwise": 0.030, "normalization": 0.016, "reduction": 0.004}
    found = {}
    for name, record in (("gpu", gpu_record()), ("cpu", CASES["compile-would-fuse"].bad())):
        record = with_settings(with_profiler(record, op_kinds=kinds, memory_bound_share=0.5), compiled=False)
        found[name] = {f.id: f.severity for f in recorded.diagnosis_of(record).findings}
    assert found == {"gpu": found["gpu"] | {"compile-would-fuse": "warning"},
                     "cpu": found["cpu"] | {"compile-would-fuse": "info"}}
