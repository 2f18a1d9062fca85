"""The public surface is what each module's __all__ says, and every name in it exists."""

import importlib
from pathlib import Path

import pytest

# The exact public surface of each module a user, a notebook or a plug-in may import. A change here is
# a change of trainprobe's API: make it on purpose.
SURFACE = {
    "trainprobe": ["Diagnosis", "RunRecord", "__version__", "analyze", "diagnose", "load_ipython_extension", "measure",
                   "render"],
    "trainprobe.api": ["CheckRun", "ClassPage", "CompareResult", "DEFAULT_COMPARE_FOLDER", "DEFAULT_VERIFY_BUDGET",
                       "DiagnoseResult", "TrainprobeError", "analyze", "check", "check_summary", "check_target",
                       "compare", "diagnose", "diagnose_job", "finish", "is_job_command", "job_command", "load_record",
                       "merge", "render", "report",
                       "summary_line", "trace", "verify", "verify_record", "write_outputs"],
    "trainprobe.exits": ["BAD_INPUT", "FAILED_CHECK", "INTERRUPTED", "OK", "PARTIAL", "TIMEOUT", "of_check",
                         "of_class_page", "of_comparison", "of_run", "of_saved", "script_ending"],
    "trainprobe.findings": ["BORDERLINE", "CATEGORIES", "Diagnosis", "Evidence", "Fact", "Finding", "Gain", "RuleDocs",
                            "SEVERITIES", "Trial", "TriedFix", "Verdict", "Verification", "WhatIf"],
    "trainprobe.record": ["Availability", "BatchVariable", "CliFlag", "ConfigEntry", "ConfigFile", "CreationSite", "DiskInfo",
                          "Environment", "FrameworkInfo",
                          "FuncStat", "GpuInfo", "GpuSeries",
                          "DdpSettings", "HostSamples", "Hotspots", "Invocation", "JobSummary", "LoaderSettings",
                          "ModelInfo", "ModuleTime", "OpStat", "OpTime", "Padding", "UnoptimizedGrads",
                          "OptimizerSettings", "Outcome", "ProcessSeries", "ProfilerSummary", "RankSummary", "RunRecord",
                          "SCHEMA_VERSION", "Samples", "SchedulerSettings", "Settings", "Step", "MicroBatch",
                          "MICRO_PARTS", "TimePart",
                          "WorkerStats", "Compute", "ComputePeak", "FlopCount", "OpCount", "Memory", "MemoryCensus",
                          "BlockMemory", "DeviceMemorySteps"],
    "trainprobe.jsonio": ["JsonMixin", "from_dict", "to_dict", "write_json_atomic", "write_bytes_atomic", "write_problem", "write_text_atomic"],
    "trainprobe.display": ["TEMPLATE_FILTERS", "UNKNOWN", "by_unit", "count", "flop_rate", "flops", "in_unit",
                           "is_unknown",
                           "jinja_environment", "nbytes", "number", "painter", "percent", "rate", "ratio",
                           "seconds", "sentence", "share", "use_color", "yes_no"],
    "trainprobe.report": ["MAX_POINTS", "downsample", "json_summary", "render_html", "terminal_summary",
                          "write_html"],
    "trainprobe.engine": ["DOC_SECTIONS", "Rule", "RuleFileError", "apply_rules", "breakdown", "evaluate_rule", "framed", "judge_job", "larger_lever_below",
                          "load_rule_file", "load_rules", "rank_findings"],
    "trainprobe.facts": ["FACT_CATALOG", "FAMILIES", "FactSpec", "UNKNOWN_IN_A_TRACE", "compute_facts",
                         "facts_by_name", "recompute_step_facts"],
    "trainprobe.whatif": ["DEFAULT_BUDGET", "WhatIfUnavailable", "run_whatif"],
    "trainprobe.whatif.fixes": ["Candidate", "Fix", "GENERIC_BY_HAND", "Injector", "PlanContext", "RECORD_LOSS",
                                "REGISTRY", "get"],
    "trainprobe.probe.plugins": ["PluginContext", "PluginSpec", "Plugins", "ProbePlugin", "load_plugins"],
    "trainprobe.probe.launch": ["ForwardedSignals", "ProbeOptions", "ProbeResult", "ProbeStartError", "collect_environment",
                                "default_out_dir", "invocation_for", "kill_tree", "run_probe"],
    "trainprobe.cli": ["cli", "main"],
}

# Modules whose __all__ must at least name things that exist.
MODULES = sorted(set(SURFACE) | {
    "trainprobe.resources", "trainprobe.probe.runner", "trainprobe.probe.clock", "trainprobe.probe.config",
    "trainprobe.probe.events", "trainprobe.probe.settings", "trainprobe.probe.workers",
    "trainprobe.probe.samplers", "trainprobe.machine", "trainprobe.readiness", "trainprobe.probe.redact",
    "trainprobe.probe.sites", "trainprobe.probe.sourcelines", "trainprobe.probe.callgraph",
    "trainprobe.interrupts", "trainprobe.probe.frames", "trainprobe.record_file",
    "trainprobe.api.run", "trainprobe.api.job", "trainprobe.api.saved", "trainprobe.api.comparison",
    "trainprobe.api.readiness",
    "trainprobe.trace.read", "trainprobe.trace.summarize", "trainprobe.trace.record",
    "trainprobe.trace.intervals", "trainprobe.trace.classify", "trainprobe.trace.collect",
    "trainprobe.trace.nesting", "trainprobe.trace.device", "trainprobe.trace.kinds", "trainprobe.trace.flops",
    "trainprobe.trace.work",
    "trainprobe.notebook.read", "trainprobe.notebook.run", "trainprobe.notebook.cells", "trainprobe.notebook.outcome",
    "trainprobe.notebook.live", "trainprobe.notebook.measure", "trainprobe.notebook.magic",
    "trainprobe.notebook.kernel", "trainprobe.notebook.relabel", "trainprobe.notebook.show",
    "trainprobe.notebook.watch",
    "trainprobe.job", "trainprobe.job.launch", "trainprobe.job.assemble",
    "trainprobe.job.build", "trainprobe.job.trainers", "trainprobe.report.job", "trainprobe.facts.job",
    "trainprobe.probe.ranks", "trainprobe.probe.trainers", "trainprobe.probe.outcome", "trainprobe.record_job",
    "trainprobe.figures", "trainprobe.engine.job", "trainprobe.api.job",
})


@pytest.mark.parametrize("name", sorted(SURFACE))
def test_the_public_surface_is_exactly_this(name):
    module = importlib.import_module(name)
    assert sorted(module.__all__) == sorted(SURFACE[name])


@pytest.mark.parametrize("name", MODULES)
def test_all_names_exist(name):
    module = importlib.import_module(name)
    exported = getattr(module, "__all__", None)
    assert exported, f"{name} has no __all__"
    for attr in exported:
        assert hasattr(module, attr), f"{name}.__all__ names {attr}, which does not exist"


def test_a_notebook_needs_only_the_package_root(tmp_path):
    import trainprobe
    from trainprobe.record import Step

    record = trainprobe.RunRecord(steps=(Step(index=0, duration=0.1, phase="steady"),))
    diagnosis = trainprobe.analyze(record)
    assert isinstance(diagnosis, trainprobe.Diagnosis) and diagnosis.fact_values()["steady_steps"] == 1
    assert trainprobe.render(record, diagnosis, tmp_path / "report.html").exists()


def test_record_round_trips_through_json(tmp_path):
    from trainprobe.record import RunRecord, Step, Outcome

    record = RunRecord(steps=(Step(index=0, duration=0.5, data_wait=0.25, phase="steady"),),
                       outcome=Outcome(status="stopped", exit_code=0))
    path = tmp_path / "run.json"
    record.save(path)
    assert RunRecord.load(path) == record


def test_old_records_with_missing_fields_still_load():
    from trainprobe.record import RunRecord

    record = RunRecord.from_dict({"schema_version": 1, "steps": [{"index": 3, "duration": 0.1}], "future": 1})
    assert record.steps[0].index == 3 and record.steps[0].phase == "warmup"


def test_cli_main_returns_an_exit_code(capsys):
    from trainprobe.cli import main

    assert main(["--version"]) == 0
    assert "trainprobe" in capsys.readouterr().out
    assert main(["no-such-command"]) == 2


def test_the_json_fallback_is_a_subset_of_the_json_summary(monkeypatch, tmp_path):
    """When the full --json summary fails, the smaller one keeps the full one's keys and shape."""
    from recorded import RUNS_DIR, diagnosed
    from trainprobe.api.outputs import _summary
    from trainprobe.report import json_summary

    record, diagnosis = diagnosed(RUNS_DIR / "imagefolder_main_process_decode.cpu.run.json")
    full = json_summary(record, diagnosis, tmp_path / "report.html", tmp_path / "run.json")

    def broken(*args, **kwargs):
        raise RuntimeError("a bug in the summary")

    monkeypatch.setattr("trainprobe.report.json_summary", broken)
    small = _summary(record, diagnosis, tmp_path / "run.json", tmp_path / "report.html")
    assert small["findings"], "the run should have findings to compare"

    def within(part, whole, where="summary"):
        assert isinstance(part, type(whole)) or whole is None or part is None, where
        if isinstance(part, dict):
            assert set(part) <= set(whole), f"{where}: {set(part) - set(whole)}"
            for key, value in part.items():
                within(value, whole[key], f"{where}.{key}")
        elif isinstance(part, list):
            for a, b in zip(part, whole):
                within(a, b, f"{where}[]")
        else:
            assert part == whole, where

    within(small, full)


def test_only_the_front_ends_import_the_api_and_only_the_cli_the_commands():
    """api is the only orchestrator: the layers below it never call up into it or into the CLI."""
    import ast

    package = Path(importlib.import_module("trainprobe").__file__).parent
    front_ends = {"cli.py", "__init__.py", "notebook/magic.py", "notebook/measure.py", "notebook/live.py"}
    wrong = []
    for path in sorted(package.rglob("*.py")):
        name = path.relative_to(package).as_posix()
        if name.startswith(("api/", "commands/")) or name in front_ends:
            continue
        depth = len(path.relative_to(package).parts) - 1
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                here = path.relative_to(package).parts[:depth - node.level + 1]
                absolute = module if node.level == 0 else ".".join(p for p in ("trainprobe", *here, module) if p)
                names = [absolute] + [f"{absolute}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            if any(n.startswith(("trainprobe.api", "trainprobe.commands")) for n in names):
                wrong.append(name)
    assert not wrong, f"import trainprobe.api or trainprobe.commands: {sorted(set(wrong))}"
