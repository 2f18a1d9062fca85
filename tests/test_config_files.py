"""Knobs set in a configuration file: the probe's record of the files a script read (probe/configfiles.py), the
facts that find each knob's key (facts/configkeys.py), the rules' [framework.config] tables, and a real run of a
script configured by a TOML file."""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from trainprobe.engine import apply_rules as diagnose, load_rules
from trainprobe.facts import compute_facts, facts_by_name
from trainprobe.probe.configfiles import MAX_FILES, ConfigWatch, read_config_files, scan_text
from trainprobe.record import ConfigEntry, ConfigFile, FrameworkInfo, LoaderSettings, RunRecord

sys.path.insert(0, os.path.dirname(__file__))
from rule_cases.cases import CASES  # noqa: E402
from rule_cases.records import with_settings  # noqa: E402

RULES, _ = load_rules()


def _keys(text: str, kind: str) -> dict[str, tuple[int, str, bool]]:
    return {e.key: (e.line, e.text, e.section) for e in scan_text(text, kind)}


# -- the scanner ---------------------------------------------------------------------------------------------------

LIGHTNING_YAML = """\
# a LightningCLI config
model:
  class_path: pkg.Model
  init_args:
    batch_size: 32   # the model's own
trainer:
  max_epochs: 100
  callbacks:
    - class_path: lightning.pytorch.callbacks.EarlyStopping
      init_args:
        patience: 3
  precision: 32
notes: |
  num_workers: 9 is text here
data:
  num_workers: 8
"""


def test_yaml_keys_are_placed_by_indentation_and_list_items_and_block_strings_are_skipped():
    keys = _keys(LIGHTNING_YAML, "yaml")
    assert keys["trainer"] == (6, "trainer:", True)
    assert keys["trainer.precision"] == (12, "precision: 32", False)
    assert keys["model.init_args.batch_size"] == (5, "batch_size: 32", False)  # its comment dropped
    assert keys["data.num_workers"] == (16, "num_workers: 8", False)
    assert keys["notes"] == (13, "notes: |", False)
    assert not any("patience" in k for k in keys)  # inside a list item
    assert "num_workers" not in keys and "notes.num_workers" not in keys  # inside a block string


def test_toml_keys_take_their_table_and_arrays_of_tables_and_long_strings_are_skipped():
    text = 'seed = 0\n[train.main]\nbatch_size = 256 # c\nlr = 1e-3\nnote = """\nnum_workers = 9\n"""\n' \
           '[[runs]]\nnum_workers = 7\n[data]\n"num_workers" = 4\n'
    keys = _keys(text, "toml")
    assert keys["seed"][0] == 1 and keys["train.main"] == (2, "[train.main]", True)
    assert keys["train.main.batch_size"] == (3, "batch_size = 256", False)
    assert keys["data.num_workers"][0] == 11
    assert [k for k in keys if k.endswith("num_workers")] == ["data.num_workers"]


def test_json_keys_follow_objects_and_skip_arrays_and_strings():
    text = '{\n  "train": {"batch_size": 8,\n    "handlers": [{"num_workers": 3}],\n    "amp": true},\n' \
           '  "note": "a: \\"b\\", c",\n  "num_workers": 4\n}\n'
    keys = _keys(text, "json")
    assert keys["train"] == (2, '"train":', True)
    assert keys["train.batch_size"] == (2, '"batch_size": 8', False)
    assert keys["train.amp"] == (4, '"amp": true', False)
    assert keys["num_workers"] == (6, '"num_workers": 4', False)
    assert not any(k.endswith("handlers.num_workers") for k in keys)


@pytest.mark.parametrize("text, kind", [("{{{{ [[[ : :", "json"), ("\x00\x01: - - |\n  -", "yaml"),
                                        ("[[[]]] = = =", "toml"), ("", "yaml")])
def test_a_file_the_scanner_cannot_follow_gives_what_it_could_place_and_never_raises(text, kind):
    assert isinstance(scan_text(text, kind), tuple)


# -- the watch -----------------------------------------------------------------------------------------------------

def test_the_watch_keeps_config_files_read_and_leaves_out_writes_artefacts_hidden_folders_and_excluded(tmp_path):
    (tmp_path / ".cache").mkdir()
    (tmp_path / "out").mkdir()
    for name in ("run.yaml", "config.json", ".cache/c.yaml", "out/trainer-config.json", "data.csv", "b.toml"):
        (tmp_path / name).write_text("a: 1\n" if not name.endswith(".toml") else "a = 1\n")
    watch = ConfigWatch(exclude=(str(tmp_path / "out"),))
    watch.start()
    try:
        for name in ("run.yaml", "config.json", ".cache/c.yaml", "out/trainer-config.json", "data.csv"):
            with open(tmp_path / name, encoding="utf-8") as f:
                f.read()
        with open(tmp_path / "written.yaml", "w", encoding="utf-8") as f:
            f.write("b: 2\n")
        with open(tmp_path / "b.toml", "rb") as f:
            f.read()
        with open(tmp_path / "run.yaml", encoding="utf-8") as f:  # a second read is not a second file
            f.read()
    finally:
        watch.stop()
    with open(tmp_path / "written.yaml", encoding="utf-8") as f:  # after stop: not seen
        f.read()
    assert watch.paths == [str(tmp_path / "run.yaml"), str(tmp_path / "b.toml")]
    files = read_config_files(watch.paths + [str(tmp_path / "gone.yaml")])
    assert [(Path(f.path).name, f.format, f.entries[0].key) for f in files] == [("run.yaml", "yaml", "a"),
                                                                                ("b.toml", "toml", "a")]


def test_files_that_are_not_plain_text_files_are_left_out_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)  # a reader would wait for a writer forever
    (tmp_path / "big.json").write_text('{"a": "' + "x" * (300 * 1024) + '"}')
    (tmp_path / "latin.yaml").write_bytes("a: \xe9t\xe9\n".encode("latin-1"))
    (tmp_path / "ok.yaml").write_text("a: 1\n")
    paths = [str(tmp_path / n) for n in ("pipe.yaml", "big.json", "latin.yaml", "gone.toml", "ok.yaml")]
    assert [Path(f.path).name for f in read_config_files(paths)] == ["ok.yaml"]


def test_the_watch_puts_open_back_but_leaves_a_scripts_own_wrapper_in_place(tmp_path):
    import builtins
    import io
    original = builtins.open
    watch = ConfigWatch()
    watch.start()
    assert builtins.open is io.open and builtins.open is not original
    watch.stop()
    assert builtins.open is original and io.open is original
    watch.start()

    def scripts_own(*args, **kwargs):
        return original(*args, **kwargs)

    builtins.open = scripts_own
    try:
        watch.stop()
        assert builtins.open is scripts_own and io.open is original
    finally:
        builtins.open = original
    with pytest.raises(IsADirectoryError):  # an open that fails fails as it would have
        watch.start()
        try:
            open(tmp_path, encoding="utf-8")
        finally:
            watch.stop()


def test_the_watch_keeps_at_most_its_share_of_files(tmp_path):
    watch = ConfigWatch()
    watch.start()
    try:
        for i in range(MAX_FILES + 5):
            path = tmp_path / f"c{i}.json"
            path.write_text("{}")
            with open(path, encoding="utf-8") as f:
                f.read()
    finally:
        watch.stop()
    assert len(watch.paths) == MAX_FILES


# -- the facts -----------------------------------------------------------------------------------------------------

def _record(files, framework=None, args=(), workers=8, batch=32):
    record = RunRecord()
    loader = LoaderSettings(batch_size=batch, num_workers=workers, used_in_training=True)
    record = with_settings(record, config_files=tuple(files), framework=framework, dataloaders=(loader,))
    return replace(record, invocation=replace(record.invocation, cwd="/w", args=tuple(args)))


def _file(name, text, kind="yaml"):
    return ConfigFile(path=f"/w/{name}", format=kind, entries=scan_text(text, kind))


def test_a_knob_is_named_where_its_key_holds_the_value_the_run_used():
    facts = facts_by_name(compute_facts(_record([_file("cfg.yaml", LIGHTNING_YAML)])))
    assert facts["config_workers_at"] == "cfg.yaml:16" and facts["config_workers_now"] == "num_workers: 8"
    assert facts["config_workers_set"] == "num_workers: %s" and facts["config_workers_override"] is None
    assert facts["config_batch_size_at"] == "cfg.yaml:5"
    # the run used 4 workers: the file's 8 is not what set them
    facts = facts_by_name(compute_facts(_record([_file("cfg.yaml", LIGHTNING_YAML)], workers=4)))
    assert facts["config_workers_at"] is None


def test_a_command_line_override_is_named_and_its_value_is_the_one_checked():
    facts = facts_by_name(compute_facts(_record([_file("cfg.yaml", LIGHTNING_YAML)], args=("data.num_workers=4",),
                                                workers=4)))
    assert facts["config_workers_at"] == "cfg.yaml:16" and facts["config_workers_override"] == "data.num_workers=4"


def test_a_hydra_override_of_a_group_files_key_is_named():
    group = ConfigFile(path="/w/configs/loader/default.yaml", format="yaml",
                       entries=scan_text("batch_size: 4\nnum_workers: 8\n", "yaml"))
    facts = facts_by_name(compute_facts(_record([group], args=("loader.num_workers=0",), workers=0, batch=4)))
    assert facts["config_workers_at"] == "configs/loader/default.yaml:2"
    assert facts["config_workers_override"] == "loader.num_workers=0"


def test_keys_of_evaluation_sections_are_not_the_training_loops():
    text = "val:\n  batch_size: 32\ntrain:\n  batch_size: 32\n"
    facts = facts_by_name(compute_facts(_record([_file("cfg.yaml", text)])))
    assert facts["config_batch_size_at"] == "cfg.yaml:4"


def test_lightnings_precision_is_added_under_the_trainer_section_where_the_command_line_builds_the_trainer():
    files = [_file("cfg.yaml", LIGHTNING_YAML.replace("  precision: 32\n", ""))]
    facts = facts_by_name(compute_facts(_record(files, FrameworkInfo(name="lightning"))))
    assert (facts["config_bf16"], facts["config_bf16_at"], facts["config_bf16_under"]) == \
        ("precision: bf16-mixed", "cfg.yaml:6", "trainer:")
    assert facts["config_bf16_now"] is None
    facts = facts_by_name(compute_facts(_record([_file("cfg.yaml", LIGHTNING_YAML)], FrameworkInfo(name="lightning"))))
    assert (facts["config_bf16"], facts["config_bf16_at"], facts["config_bf16_now"]) == \
        ("precision: bf16-mixed", "cfg.yaml:12", "precision: 32")
    # the script builds its Trainer itself: that call is the place, not a section of a file
    files = [_file("cfg.yaml", LIGHTNING_YAML.replace("  precision: 32\n", ""))]
    facts = facts_by_name(compute_facts(_record(files, FrameworkInfo(name="lightning", config_at="/w/train.py:9"))))
    assert facts["config_bf16_at"] is None


def test_a_trainer_yaml_gets_bf16_beside_its_fields_and_a_scripts_own_precision_key_is_left_alone():
    text = "model_name_or_path: m\nper_device_train_batch_size: 1\nlearning_rate: 1.0e-4\n"
    facts = facts_by_name(compute_facts(_record([_file("sft.yaml", text)], FrameworkInfo(name="transformers"))))
    assert (facts["config_bf16"], facts["config_bf16_at"], facts["config_bf16_beside"]) == \
        ("bf16: true", "sft.yaml:2", "per_device_train_batch_size: 1")
    toml = _file("exp.toml", "[train]\nprecision = \"fp32\"\n", "toml")
    assert facts_by_name(compute_facts(_record([toml])))["config_bf16_at"] is None
    accelerate = _file("acc.toml", "[train]\nmixed_precision = \"no\"\n", "toml")
    facts = facts_by_name(compute_facts(_record([accelerate], FrameworkInfo(name="accelerate"))))
    assert facts["config_bf16"] == 'mixed_precision = "bf16"' and facts["config_bf16_at"] == "acc.toml:2"


def test_a_frameworks_key_the_file_lacks_is_added_where_its_other_fields_sit():
    text = "output_dir: out\nper_device_train_batch_size: 1\ntorch_compile_mode: max\n"
    facts = facts_by_name(compute_facts(_record([_file("sft.yaml", text)], FrameworkInfo(name="transformers"),
                                                batch=1)))
    assert (facts["config_compile_at"], facts["config_compile_set"], facts["config_compile_beside"]) == \
        ("sft.yaml:2", "torch_compile: %s", "per_device_train_batch_size: 1")
    assert facts["config_compile_now"] is None and facts["config_batch_size_now"] == "per_device_train_batch_size: 1"
    facts = facts_by_name(compute_facts(_record([_file("cli.yaml", LIGHTNING_YAML)], FrameworkInfo(name="lightning"))))
    assert (facts["config_grad_accumulation_at"], facts["config_grad_accumulation_set"],
            facts["config_grad_accumulation_under"]) == ("cli.yaml:6", "accumulate_grad_batches: %s", "trainer:")
    assert facts["config_compile_at"] is None  # Lightning's Trainer has no such key
    # the script makes TrainingArguments(...) itself: nothing is added to a file
    built = FrameworkInfo(name="transformers", config_at="/w/train.py:9")
    assert facts_by_name(compute_facts(_record([_file("sft.yaml", text)], built, batch=1)))["config_compile_at"] is None
    # the file has the key, with a value the run did not use: it is not where the run's value came from
    text = "per_device_train_batch_size: 1\ndataloader_num_workers: 4\n"
    facts = facts_by_name(compute_facts(_record([_file("sft.yaml", text)], FrameworkInfo(name="transformers"),
                                                workers=0, batch=1)))
    assert facts["config_workers_at"] is None


def test_a_hydra_trainer_group_file_is_the_trainers_section_and_argbind_scopes_are_read():
    group = ConfigFile(path="/w/configs/trainer/default.yaml", format="yaml",
                       entries=scan_text("max_epochs: 10\nprecision: 32\n", "yaml"))
    facts = facts_by_name(compute_facts(_record([group], FrameworkInfo(name="lightning"))))
    assert (facts["config_bf16"], facts["config_bf16_at"]) == ("precision: bf16-mixed", "configs/trainer/default.yaml:2")
    group = replace(group, entries=scan_text("max_epochs: 10\n", "yaml"))
    facts = facts_by_name(compute_facts(_record([group], FrameworkInfo(name="lightning"))))
    assert (facts["config_bf16_at"], facts["config_bf16_beside"]) == ("configs/trainer/default.yaml:1", "max_epochs: 10")
    own = ConfigFile(path="/w/configs/model/net.yaml", format="yaml", entries=scan_text("precision: 32\n", "yaml"))
    assert facts_by_name(compute_facts(_record([own], FrameworkInfo(name="lightning"))))["config_bf16_now"] is None
    argbind = _file("base.yml", "val/DataLoader.num_workers: 8\ntrain/DataLoader.num_workers: 8\n"
                                "DataLoader.batch_size: 32\n")
    facts = facts_by_name(compute_facts(_record([argbind])))
    assert facts["config_workers_at"] == "base.yml:2" and facts["config_batch_size_set"] == "DataLoader.batch_size: %s"


# -- the rules -----------------------------------------------------------------------------------------------------

def _at_work(record):
    return replace(record, invocation=replace(record.invocation, cwd="/work"))


def test_the_bf16_fix_is_the_config_files_line_before_the_frameworks_table_and_the_flag():
    files = (ConfigFile(path="/work/cfg.yaml", format="yaml",
                        entries=scan_text(LIGHTNING_YAML.replace("  precision: 32\n", ""), "yaml")),)
    record = _at_work(with_settings(CASES["cpu-bf16-not-used"].bad(), framework=FrameworkInfo(name="lightning"),
                                    config_files=files))
    finding = next(f for f in diagnose(record).findings if f.id == "cpu-bf16-not-used")
    assert finding.framework == "config" and finding.changes_at == "cfg.yaml:6"
    assert "add `precision: bf16-mixed` under `trainer:` at cfg.yaml:6" in finding.advice
    assert finding.snippet.strip() == "precision: bf16-mixed"
    plain = next(f for f in diagnose(with_settings(record, config_files=())).findings if f.id == "cpu-bf16-not-used")
    assert plain.framework == "lightning"


@pytest.mark.parametrize("rule_id, written", [
    ("dataloader-too-few-workers", "Set `num_workers: "),
    ("worker-handoff-outweighs-batch", "set `num_workers: 0`"),
    ("small-batch-overhead", "set `batch_size = "),
    ("low-mfu-small-batch", "set `batch_size = "),
    ("checkpointing-with-room", "Set `gradient_checkpointing: false`"),
    ("compile-would-fuse", "Set `compile: true`"),
])
def test_each_knobs_fix_is_written_as_the_file_spells_it_at_its_line(rule_id, written):
    record = CASES[rule_id].bad()
    loader = next((d for d in record.settings.dataloaders if d.used_in_training), None) or \
        (record.settings.dataloaders[0] if record.settings.dataloaders else None)
    workers = loader.num_workers if loader is not None else 0
    batch = loader.batch_size if loader is not None and loader.batch_size else 4
    files = (ConfigFile(path="/work/conf/run.yaml", format="yaml", entries=scan_text(
                 f"data:\n  num_workers: {workers}\nmodel:\n  gradient_checkpointing: true\n  compile: false\n", "yaml")),
             ConfigFile(path="/work/conf/train.toml", format="toml",
                        entries=scan_text(f"[train]\nbatch_size = {batch}\n", "toml")))
    record = _at_work(with_settings(record, config_files=files))
    finding = next(f for f in diagnose(record).findings if f.id == rule_id)
    assert finding.framework == "config", finding.advice
    assert written in finding.advice, finding.advice
    assert finding.changes_at in ("conf/run.yaml:2", "conf/run.yaml:4", "conf/run.yaml:5", "conf/train.toml:2")


def test_an_added_key_says_so_and_where():
    files = (ConfigFile(path="/work/sft.yaml", format="yaml",
                        entries=scan_text("per_device_train_batch_size: 4\nlogging_steps: 10\n", "yaml")),)
    record = _at_work(with_settings(CASES["compile-would-fuse"].bad(), config_files=files,
                                    framework=FrameworkInfo(name="transformers")))
    finding = next(f for f in diagnose(record).findings if f.id == "compile-would-fuse")
    assert finding.framework == "config" and finding.changes_at == "sft.yaml:1"
    assert "Set `torch_compile: true` in the run's configuration file, at sft.yaml:1 (a line to add beside " \
           "`per_device_train_batch_size: 4`)" in finding.advice


def test_the_logging_interval_in_a_file_is_the_fix_only_where_a_framework_logs():
    files = (ConfigFile(path="/work/sft.yaml", format="yaml", entries=scan_text("logging_steps: 1\n", "yaml")),)
    record = _at_work(with_settings(CASES["item-sync-in-loop"].bad(), config_files=files,
                                    framework=FrameworkInfo(name="transformers", settings={"logging_steps": "1"})))
    finding = next(f for f in diagnose(record).findings if f.id == "item-sync-in-loop")
    assert finding.framework == "config" and finding.changes_at == "sft.yaml:1"
    assert "set `logging_steps: 200`" in finding.advice
    plain = _at_work(with_settings(CASES["item-sync-in-loop"].bad(), config_files=files))
    assert next(f for f in diagnose(plain).findings if f.id == "item-sync-in-loop").framework != "config"


# -- a real run ----------------------------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_real_run_configured_by_a_toml_file_gets_its_batch_fix_at_the_files_line(tmp_path):
    """tests/scripts/config_driven.py reads run.toml (batch_size = 4), a model card and a hidden JSON, and writes
    its resolved config: only run.toml is the run's configuration."""
    from probe_helpers import SCRIPTS, diagnose as run
    (tmp_path / ".cache").mkdir()
    (tmp_path / "run.toml").write_text('name = "tiny"\n\n[data]\nbatch_size = 4  # tiny\nnum_workers = 0\n\n'
                                       '[train]\nlr = 0.1\nepochs = 1\n')
    (tmp_path / "config.json").write_text('{"num_workers": 9}')
    (tmp_path / ".cache" / "state.json").write_text('{"batch_size": 9}')
    proc, record = run(tmp_path / "out", str(SCRIPTS / "config_driven.py"), "run.toml", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert [Path(f.path).name for f in record.settings.config_files] == ["run.toml"]
    facts = facts_by_name(compute_facts(record))
    assert facts["config_batch_size_at"] == "run.toml:4" and facts["config_batch_size_now"] == "batch_size = 4"
    assert facts["config_workers_at"] == "run.toml:5"
    # Batches of 4: the fixed cost per step, or the low share of the peak, whichever the machine's load lets
    # show (on a quiet VM the first, 186 µs steps; under the load of other work, 27 ms steps, the second).
    batch = [f for f in diagnose(record).findings if f.id in ("small-batch-overhead", "low-mfu-small-batch")]
    assert batch, [f.id for f in diagnose(record).findings]
    assert all(f.changes_at == "run.toml:4" and "set `batch_size = " in f.advice for f in batch)


@pytest.mark.parametrize("name, knob_lines, fix", [
    # anomalib's LightningCLI: the Trainer from ganomaly.yaml, the workers from mvtec.yaml; its expert's bf16 line
    ("t20_anomalib_ganomaly", {"config_workers_at": "examples/configs/data/mvtec.yaml:7",
                               "config_bf16_at": "examples/configs/model/ganomaly.yaml:16"},
     ("cpu-bf16-not-used", "examples/configs/model/ganomaly.yaml:16", "add `precision: bf16-mixed` under `trainer:`")),
    # LLaMA-Factory's YAML, parsed into TrainingArguments
    ("t20_llamafactory_qwen3_lora_sft", {"config_log_interval_at": "examples/train_lora/qwen3_lora_sft.yaml:22",
                                         "config_workers_at": "examples/train_lora/qwen3_lora_sft.yaml:18",
                                         "config_bf16_now": "bf16: true"},
     ("item-sync-in-loop", "examples/train_lora/qwen3_lora_sft.yaml:22", "set `logging_steps: 200`")),
])
def test_real_runs_configured_by_yaml_name_their_files_lines(name, knob_lines, fix):
    """Test set 20's config-driven runs, run again once the probe read config files (a later review, recorded at
    89b7ff3 under the helpers' load): the keys their experts named."""
    import recorded
    record, diagnosis = recorded.diagnosed(recorded.RUNS_DIR / "real_test20" / "review" / f"{name}.cpu.run.json.gz")
    facts = facts_by_name(compute_facts(record))
    assert {k: facts[k] for k in knob_lines} == knob_lines
    finding = next(f for f in diagnosis.findings if f.id == fix[0])
    assert finding.framework == "config" and finding.changes_at == fix[1] and fix[2] in finding.advice


def test_the_report_shows_a_files_line_to_write_as_code_and_escapes_the_rest():
    import recorded
    from trainprobe.display import code_spans
    from trainprobe.report import render_html
    record, diagnosis = recorded.diagnosed(recorded.RUNS_DIR / "real_test20" / "review"
                                           / "t20_anomalib_ganomaly.cpu.run.json.gz")
    html = render_html(record, diagnosis)
    assert "add <code>precision: bf16-mixed</code> under <code>trainer:</code> at" in html
    assert "`precision" not in html
    assert str(code_spans("x < y `a: <b>`")) == "x &lt; y <code>a: &lt;b&gt;</code>"
