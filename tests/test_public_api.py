"""The public surface is what each module's __all__ says, and every name in it exists."""

import importlib

import pytest

# The exact public surface of each module a user, a notebook or a plug-in may import. A change here is
# a change of trainprobe's API: make it on purpose.
SURFACE = {
    "trainprobe": ["Diagnosis", "RunRecord", "__version__", "analyze", "diagnose", "load_ipython_extension", "measure",
                   "render"],
    "trainprobe.api": ["DEFAULT_VERIFY_BUDGET", "DiagnoseResult", "TrainprobeError", "analyze", "check_target",
                       "diagnose", "finish", "load_record", "render", "summary_line", "trace", "verify", "write_outputs"],
    "trainprobe.findings": ["BORDERLINE", "CATEGORIES", "Diagnosis", "Evidence", "Fact", "Finding", "Gain", "RuleDocs",
                            "SEVERITIES", "Trial", "TriedFix", "Verdict", "Verification", "WhatIf"],
    "trainprobe.record": ["Availability", "CliFlag", "CreationSite", "DiskInfo", "Environment", "FrameworkInfo",
                          "FuncStat", "GpuInfo", "GpuSeries",
                          "DdpSettings", "HostSamples", "Hotspots", "Invocation", "JobSummary", "LoaderSettings",
                          "ModelInfo", "ModuleTime", "OpStat", "OpTime",
                          "OptimizerSettings", "Outcome", "ProcessSeries", "ProfilerSummary", "RankSummary", "RunRecord",
                          "SCHEMA_VERSION", "Samples", "SchedulerSettings", "Settings", "Step", "TimePart",
                          "WorkerStats", "Compute", "ComputePeak", "FlopCount", "OpCount", "Memory", "MemoryCensus",
                          "BlockMemory", "DeviceMemorySteps"],
    "trainprobe.jsonio": ["JsonMixin", "from_dict", "to_dict", "write_json_atomic", "write_problem", "write_text_atomic"],
    "trainprobe.display": ["TEMPLATE_FILTERS", "UNKNOWN", "by_unit", "count", "flop_rate", "flops", "in_unit",
                           "is_unknown",
                           "jinja_environment", "nbytes", "number", "painter", "percent", "rate", "ratio",
                           "seconds", "share", "use_color", "yes_no"],
    "trainprobe.report": ["MAX_POINTS", "downsample", "json_summary", "render_html", "terminal_summary",
                          "write_html"],
    "trainprobe.engine": ["DOC_SECTIONS", "Rule", "RuleFileError", "breakdown", "diagnose", "evaluate_rule",
                          "load_rule_file", "load_rules", "rank_findings"],
    "trainprobe.facts": ["FACT_CATALOG", "FAMILIES", "FactSpec", "UNKNOWN_IN_A_TRACE", "compute_facts",
                         "facts_by_name", "recompute_step_facts"],
    "trainprobe.whatif": ["DEFAULT_BUDGET", "WhatIfUnavailable", "run_whatif"],
    "trainprobe.whatif.fixes": ["Candidate", "Fix", "GENERIC_BY_HAND", "Injector", "PlanContext", "RECORD_LOSS",
                                "REGISTRY", "get"],
    "trainprobe.probe.plugins": ["PluginContext", "PluginSpec", "Plugins", "ProbePlugin", "load_plugins"],
    "trainprobe.probe.launch": ["ProbeOptions", "ProbeResult", "ProbeStartError", "default_out_dir", "run_probe"],
    "trainprobe.cli": ["cli", "main"],
}

# Modules whose __all__ must at least name things that exist.
MODULES = sorted(set(SURFACE) | {
    "trainprobe.resources", "trainprobe.probe.runner", "trainprobe.probe.clock", "trainprobe.probe.config",
    "trainprobe.probe.events", "trainprobe.probe.settings", "trainprobe.probe.workers",
    "trainprobe.probe.samplers", "trainprobe.machine", "trainprobe.readiness", "trainprobe.probe.redact",
    "trainprobe.probe.sites", "trainprobe.probe.sourcelines", "trainprobe.probe.callgraph",
    "trainprobe.interrupts", "trainprobe.probe.frames",
    "trainprobe.trace.read", "trainprobe.trace.summarize", "trainprobe.trace.record", "trainprobe.trace.job",
    "trainprobe.trace.intervals", "trainprobe.trace.classify", "trainprobe.trace.collect",
    "trainprobe.trace.nesting", "trainprobe.trace.device", "trainprobe.trace.kinds", "trainprobe.trace.flops",
    "trainprobe.trace.work",
    "trainprobe.notebook.read", "trainprobe.notebook.run", "trainprobe.notebook.cells", "trainprobe.notebook.outcome",
    "trainprobe.notebook.live", "trainprobe.notebook.measure", "trainprobe.notebook.magic",
    "trainprobe.notebook.kernel", "trainprobe.notebook.relabel", "trainprobe.notebook.show",
    "trainprobe.notebook.watch",
    "trainprobe.job", "trainprobe.job.launch", "trainprobe.job.rank", "trainprobe.job.assemble",
    "trainprobe.job.analysis", "trainprobe.job.run", "trainprobe.job.trainers", "trainprobe.job.views",
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
