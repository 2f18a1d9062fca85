"""A rule's fix in a framework's terms ([framework.NAME] tables) and the line it changes (`changes`)."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from trainprobe.engine import apply_rules as diagnose, load_rules
from trainprobe.record import CliFlag, FrameworkInfo

sys.path.insert(0, os.path.dirname(__file__))
from rule_cases.cases import CASES  # noqa: E402
from rule_cases.records import cpu_record, with_loader, with_settings, with_steps  # noqa: E402
from breadth import every_nth_quick  # noqa: E402

RULE = '''
id = "{id}"
name = "A test rule"
category = "input"
severity = "warning"
condition = "data_wait_share > 0.1"
title = "waits"
message = "It waits."
advice = "Set num_workers=2."
changes = "{{{{ loader_at if known(loader_at) else '' }}}}"
{tables}
[docs]
what = "w"
why = "y"
evidence = "e"
fix = "f"
options = "o"
references = ["https://example.org"]
'''

VARIANTS = '''
[framework.transformers]
advice = "Set TrainingArguments(dataloader_num_workers=2)."
changes = "{{ framework_config_at }}"

[framework.cli]
when = "known(flag_workers) and severity != 'info'"
advice = "Run with {{ flag_workers }} 2."
'''


def _rule(tmp_path: Path, tables: str = VARIANTS, rule_id: str = "waits-test"):
    (tmp_path / f"{rule_id}.toml").write_text(RULE.format(id=rule_id, tables=tables), encoding="utf-8")
    rules, errors = load_rules([tmp_path])
    return next((r for r in rules if r.id == rule_id), None), errors


def _waiting(**settings):
    record = with_loader(with_steps(cpu_record(), data_wait=0.05), built_at="/work/train.py:30")
    return replace(record, invocation=replace(record.invocation, cwd="/work"),
                   settings=replace(record.settings, **settings))


def _finding(tmp_path, record, tables: str = VARIANTS):
    rule, errors = _rule(tmp_path, tables)
    assert errors == []
    from trainprobe.engine.evaluate import evaluate_rule
    from trainprobe.facts import compute_facts, facts_by_name
    return evaluate_rule(rule, facts_by_name(compute_facts(record)))


def test_plain_pytorch_advice_names_the_loaders_line(tmp_path):
    finding = _finding(tmp_path, _waiting(framework=FrameworkInfo(name="")))
    assert finding.framework == "" and finding.advice == "Set num_workers=2."
    assert finding.changes_at == "train.py:30"


def test_a_loader_a_library_rebuilt_names_the_scripts_loader_line(tmp_path):
    """Opacus' make_private built the loader that fed training (at the script's line 40, which takes no
    num_workers); the script's own DataLoader(...) at line 30 is where the fix goes."""
    record = _waiting(framework=FrameworkInfo(name=""))
    record = with_loader(record, built_at="/work/train.py:40", built_by="opacus.data_loader",
                         rebuilt_from_at="/work/train.py:30")
    assert _finding(tmp_path, record).changes_at == "train.py:30"


def test_a_framework_table_replaces_the_advice_and_the_line(tmp_path):
    fw = FrameworkInfo(name="transformers", config_call="TrainingArguments", config_at="/work/train.py:12")
    finding = _finding(tmp_path, _waiting(framework=fw))
    assert finding.framework == "transformers"
    assert finding.advice == "Set TrainingArguments(dataloader_num_workers=2)."
    assert finding.changes_at == "train.py:12"


def test_the_scripts_own_flags_are_tried_when_the_framework_has_no_table(tmp_path):
    flags = (CliFlag(options=("-j", "--workers"), dest="workers", value="0"),)
    for fw in (FrameworkInfo(name=""), FrameworkInfo(name="timm")):
        finding = _finding(tmp_path, _waiting(framework=fw, cli_flags=flags))
        assert finding.framework == "cli" and finding.advice == "Run with --workers 2."
        assert finding.changes_at == "train.py:30"  # the table has no line of its own: the rule's


def test_a_table_whose_when_is_false_leaves_the_plain_advice(tmp_path):
    flags = (CliFlag(options=("--lr",), dest="lr", value="0.1"),)  # no flag for the workers
    finding = _finding(tmp_path, _waiting(framework=FrameworkInfo(name=""), cli_flags=flags))
    assert finding.framework == "" and finding.advice == "Set num_workers=2."


def test_an_unknown_framework_table_is_an_error_with_its_line(tmp_path):
    tables = "[framework.tensorflow]\nadvice = \"x\"\n"
    rule, errors = _rule(tmp_path, tables)
    line = RULE.format(id="waits-test", tables=tables).splitlines().index("[framework.tensorflow]") + 1
    assert rule is None and len(errors) == 1
    assert "unknown framework 'tensorflow'" in errors[0] and f":{line}:" in errors[0]


def test_a_framework_tables_unknown_key_and_bad_when_are_errors(tmp_path):
    _, errors = _rule(tmp_path, "[framework.lightning]\nadvise = \"x\"\n")
    assert "unknown key 'advise'" in errors[0]
    _, errors = _rule(tmp_path, "[framework.lightning]\nwhen = \"no_such_fact > 1\"\n")
    assert "unknown name: no_such_fact" in errors[0]


# --- the built-in rules, on the rule cases with a framework driving the loop --------------------

def _with_framework(record, name, **info):
    return with_settings(record, framework=FrameworkInfo(name=name, **info))


@pytest.mark.parametrize("name, spelled, setting", [
    ("transformers", "TrainingArguments(bf16=True)", "bf16=True"),
    ("lightning", 'Trainer(precision="bf16-mixed")', 'precision="bf16-mixed"'),
    ("accelerate", 'mixed_precision="bf16"', 'mixed_precision="bf16"'),
])
def test_amp_advice_in_each_frameworks_terms(name, spelled, setting):
    record = _with_framework(CASES["amp-not-used"].bad(), name, config_at="/work/train.py:9")
    record = replace(record, invocation=replace(record.invocation, cwd="/work"))
    finding = next(f for f in diagnose(record).findings if f.id == "amp-not-used")
    assert finding.framework == name and spelled in finding.advice and setting in finding.snippet
    assert finding.changes_at == "train.py:9"


def test_amp_advice_as_a_command_line_flag():
    record = with_settings(CASES["amp-not-used"].bad(), framework=FrameworkInfo(name=""),
                           cli_flags=(CliFlag(options=("--amp",), dest="amp", value="False"),))
    finding = next(f for f in diagnose(record).findings if f.id == "amp-not-used")
    assert finding.framework == "cli" and "Run with --amp" in finding.advice


@pytest.mark.parametrize("rule_id, flag, said", [
    ("compile-would-fuse", CliFlag(options=("--torch-compile", "--no-torch-compile"), dest="torch_compile",
                                   value="False"), "(the script's command line has it: --torch-compile)"),
    ("amp-not-used", CliFlag(options=("--bf16",), dest="bf16", value="False"),
     "(the script's command line has it: --bf16)"),
])
def test_a_trainer_setting_the_script_takes_from_its_command_line_names_the_flag(rule_id, flag, said):
    """chronos-forecasting's train.py (test set 14) builds TrainingArguments(torch_compile=torch_compile, ...) from
    its typer command line: the Trainer's spelling is at that line, and the flag is what the user types."""
    record = with_settings(CASES[rule_id].bad(), framework=FrameworkInfo(name="transformers", config_at="/w/train.py:661"),
                           cli_flags=(flag,))
    finding = next(f for f in diagnose(record).findings if f.id == rule_id)
    assert finding.framework == "transformers" and said in finding.advice
    plain = next(f for f in diagnose(with_settings(record, cli_flags=())).findings if f.id == rule_id)
    assert "command line" not in plain.advice


@pytest.mark.parametrize("rule_id, name, spelled", [
    ("optimizer-not-fused", "transformers", 'optim="adamw_torch_fused"'),
    ("optimizer-not-fused", "lightning", "configure_optimizers"),
    ("dataloader-pin-memory-off", "transformers", "dataloader_pin_memory=True"),
    ("dataloader-workers-restart-each-epoch", "transformers", "dataloader_persistent_workers=True"),
    ("dataloader-workers-restart-each-epoch", "lightning", "train_dataloader"),
    ("dataloader-too-few-workers", "transformers", "TrainingArguments(dataloader_num_workers=6"),
    ("dataloader-too-few-workers", "lightning", "num_workers=6"),
    ("no-lr-schedule", "lightning", '"interval": "step"'),
    ("debug-api-enabled", "lightning", "detect_anomaly=False"),
    ("debug-api-enabled", "torchtnt", "detect_anomaly=None"),  # pytorch/tnt's MNIST example (test set 15)
    # Lightning Fabric (litgpt, test set 15): its constructor's precision, and compiling before fabric.setup
    ("cpu-bf16-not-used", "fabric", 'Fabric(..., precision="bf16-mixed")'),
    ("amp-not-used", "fabric", 'Fabric(..., precision="bf16-mixed")'),
    ("compile-would-fuse", "fabric", "model = torch.compile(model), then model, optimizer = fabric.setup("),
])
def test_other_fixes_in_framework_terms(rule_id, name, spelled):
    finding = next(f for f in diagnose(_with_framework(CASES[rule_id].bad(), name)).findings if f.id == rule_id)
    assert finding.framework == name
    assert spelled in finding.advice + finding.snippet


# The compute, batch and worker fixes that got their framework tables with issue 25's third round.
_ADDED = ("cpu-bf16-not-used", "compile-would-fuse", "low-mfu-small-batch", "optimizer-share-high",
          "dataloader-workers-waiting", "storage-bound-input", "worker-handoff-outweighs-batch")
_KNOBS = {"transformers": ("TrainingArguments(",), "accelerate": ("Accelerator(", "accelerator.prepare"),
          "lightning": ("Trainer(", "train_dataloader", "configure_optimizers", "trainer.fit"), "cli": ("un with --",),  # "Run with --workers 2", "... run with --batch-size 64"
          "fabric": ("Fabric(", "fabric.setup("),
          "skorch": ("to your net (NeuralNetClassifier(...)", "AccelerateMixin", "skorch's own"),
          "stable_baselines3": ("in your PPO(...)", "Stable-Baselines3"),
          "ignite": ("create_supervised_trainer", "Events.ITERATION_"),
          "keras": ("model.compile(", "keras.config.set_dtype_policy", "model.fit("),
          "fastai": ("learn.to_bf16()", "learn.to_fp16()", "where you build the DataLoaders", "learn.fit_one_cycle")}
_CLI_FLAGS = tuple(CliFlag(options=(option,), dest=dest, value="0") for option, dest in (
    ("--workers", "workers"), ("--batch-size", "batch_size"), ("--bf16", "bf16"), ("--compile", "compile")))


@pytest.mark.parametrize("rule_id, name", every_nth_quick([(r.id, v.name) for r in load_rules()[0] if r.id in _ADDED
                                                           for v in r.variants if v.name not in ("config", "library")],
                                                          4))
def test_each_added_framework_table_speaks_its_frameworks_terms_at_its_line(rule_id, name):
    """(The configuration file's tables have their own tests: tests/test_config_files.py; a library argument's,
    which a record must carry rather than a framework, tests/test_library_batch_argument.py.)"""
    record = CASES[rule_id].bad()
    if name == "cli":
        record = with_settings(record, framework=FrameworkInfo(name=""), cli_flags=_CLI_FLAGS)
    else:
        record = _with_framework(record, name, config_at="/work/train.py:9", entry_at="/work/train.py:50")
    record = replace(record, invocation=replace(record.invocation, cwd="/work"))
    finding = next(f for f in diagnose(record).findings if f.id == rule_id)
    assert finding.framework == name, finding.advice
    assert any(knob in finding.advice for knob in _KNOBS[name]), finding.advice
    if name in ("transformers",) or (name == "lightning" and rule_id == "cpu-bf16-not-used"):
        assert finding.changes_at == "train.py:9"


# The libraries that run the loop for the user without a Trainer class of their own got their tables with issue
# 25's fifth round: each names the knob as that library spells it, at the call that holds its settings.
_LIBRARIES = ("skorch", "stable_baselines3", "ignite", "keras")


@pytest.mark.parametrize("rule_id, name", every_nth_quick([(r.id, v.name) for r in load_rules()[0] for v in r.variants
                                                           if v.name in _LIBRARIES and r.id in CASES], 4))
def test_each_librarys_table_names_its_knob_at_its_settings_line(rule_id, name):
    calls = {"skorch": "NeuralNetClassifier", "stable_baselines3": "PPO", "ignite": "create_supervised_trainer",
             "keras": "compile"}
    record = _with_framework(CASES[rule_id].bad(), name, config_at="/work/train.py:9", entry_at="/work/train.py:50")
    record = with_settings(record, framework=replace(record.settings.framework, config_call=calls[name]))
    record = replace(record, invocation=replace(record.invocation, cwd="/work"))
    finding = next(f for f in diagnose(record).findings if f.id == rule_id)
    assert finding.framework == name, finding.advice
    assert any(knob in finding.advice for knob in _KNOBS[name]), finding.advice
    # the net's, the algorithm's or the trainer's call; Keras's batch size is model.fit's (the loop's entry)
    assert finding.changes_at == ("train.py:50" if (name, rule_id) == ("keras", "small-batch-overhead") else "train.py:9")
    assert "for inputs, targets in train_loader" not in finding.snippet


@pytest.mark.parametrize("name, spelled", [
    ("transformers", ("TrainingArguments(per_device_train_batch_size=4, gradient_accumulation_steps=2)",
                      "TrainingArguments(bf16=True)", "TrainingArguments(gradient_checkpointing=True)")),
    ("lightning", ("Trainer(accumulate_grad_batches=2) and a batch_size of 4 in train_dataloader",
                   'Trainer(precision="bf16-mixed")')),
    ("accelerate", ("Accelerator(gradient_accumulation_steps=2)", 'Accelerator(mixed_precision="bf16")')),
    ("", ()),
])
def test_the_ranked_memory_fixes_are_spelled_in_the_frameworks_settings(name, spelled):
    """The out-of-memory sample's record (its breakdown measured): each ranked fix keeps its measured saving and
    gains the framework's setting; plain PyTorch keeps the plain list."""
    import recorded
    record = _with_framework(recorded.load(recorded.RUNS_DIR / "transformer_out_of_memory.cpu.run.json"), name,
                             config_at="/work/train.py:9")
    record = replace(record, invocation=replace(record.invocation, cwd="/work"))
    finding = next(f for f in diagnose(record).findings if f.id == "memory-near-limit")
    assert finding.framework == name
    assert all(words in finding.advice for words in spelled), finding.advice
    assert "(1) gradient accumulation: batches of 4 with 2 accumulation steps" in finding.advice
    if name:
        assert finding.changes_at == "train.py:9"
    else:
        assert "TrainingArguments" not in finding.advice and "Trainer(" not in finding.advice
        assert finding.changes_at.endswith("transformer_out_of_memory.py:160")


def test_a_plain_run_keeps_the_plain_pytorch_advice():
    finding = next(f for f in diagnose(_with_framework(CASES["amp-not-used"].bad(), "")).findings
                   if f.id == "amp-not-used")
    assert finding.framework == "" and "torch.autocast" in finding.advice


def test_the_report_and_the_terminal_put_the_line_before_the_fix():
    from trainprobe.report import render_html, terminal_summary
    record = _with_framework(CASES["amp-not-used"].bad(), "lightning", config_at="/work/train.py:9")
    record = replace(record, invocation=replace(record.invocation, cwd="/work"))
    diagnosis = diagnose(record)
    text = terminal_summary(record, diagnosis, None, color=False, top=10)
    assert '→ train.py:9: Pass Trainer(precision="bf16-mixed")' in text
    html = render_html(record, diagnosis)
    assert '<strong>Fix at <code class="where">train.py:9</code> <span class="muted small">(Lightning)</span>:' in html


def test_the_docs_count_each_frameworks_tables():
    """docs/how-it-works.md says how many rules speak each framework's terms: the count is the rule files'."""
    from pathlib import Path
    text = (Path(__file__).resolve().parent.parent / "docs" / "how-it-works.md").read_text(encoding="utf-8")
    counts: dict[str, int] = {}
    for rule in load_rules()[0]:
        for variant in rule.variants:
            counts[variant.name] = counts.get(variant.name, 0) + 1
    rows = {"transformers": "| Hugging Face `Trainer` |", "lightning": "| Lightning |", "accelerate": "| accelerate |",
            "skorch": "| skorch |", "keras": "| Keras 3 (PyTorch backend) |", "stable_baselines3": "| Stable-Baselines3 |", "ignite": "| Ignite |",
            "torchtnt": "| torchtnt |", "fabric": "| Lightning Fabric |", "cli": "| the script's flags |",
            "config": "| the run's configuration file |"}
    for name, start in rows.items():
        row = next(line for line in text.splitlines() if line.startswith(start))
        assert row.split("|")[3].strip().split()[0] == str(counts[name]), (name, counts[name], row)


# fastai got its tables with issue 25's ninth round. Its settings live in three places, and each fix points
# to its own: precision on the Learner (learn.to_bf16()), workers and batch size where the DataLoaders are
# built (the loader's line, as in plain PyTorch), the schedule at the fit call.
@pytest.mark.parametrize("rule_id, knob, line", [
    ("cpu-bf16-not-used", "learn.to_bf16()", "train.py:9"),
    ("amp-not-used", "learn.to_", "train.py:9"),
    ("dataloader-too-few-workers", "num_workers=", None),
    ("small-batch-overhead", "bs=", None),
    ("no-lr-schedule", "learn.fit_one_cycle(", "train.py:50"),
])
def test_fastais_tables_name_its_knob_at_the_line_that_holds_it(rule_id, knob, line):
    record = _with_framework(CASES[rule_id].bad(), "fastai", config_at="/work/train.py:9", entry_at="/work/train.py:50",
                             config_call="Learner")
    record = replace(record, invocation=replace(record.invocation, cwd="/work"))
    plain = next(f for f in diagnose(CASES[rule_id].bad()).findings if f.id == rule_id)
    finding = next(f for f in diagnose(record).findings if f.id == rule_id)
    assert finding.framework == "fastai"
    assert knob in finding.advice + finding.snippet, finding.advice
    assert "for inputs, targets in train_loader" not in finding.snippet
    if line is not None:
        assert finding.changes_at == line
    else:  # the DataLoaders' own line, as the plain fix has it
        assert finding.changes_at == plain.changes_at
