"""Each finding names the line it changes, as a linter does (issue 25, item 3).

Test set 26 had the fix at the expert's line on 1 of 5 scripts. The classes of miss tested here, from sets 26-28:
- the batch size written inside a DataLoader call that spans lines (`batch_size=32,` two lines below
  `DataLoader(`): the argument's own line, not the call's first;
- a batch-size flag whose value never reaches the loader, because the loader's call writes a number: the
  advice names that line, never "run with --data.batch_size 256" (a LightningCLI course script);
- a flag declared over several lines (pytorch-flows, set 28): the line that writes its default;
- a block checkpointed in a model's forward (fast-DiT, set 28): the checkpoint(...) call's line;
- a model a helper built (FixMatch's create_model -> build_wideresnet): the line that holds it in the function
  that goes on to train it, not the helper's `return Net(...)`; and where that function moves it to its device
  (FixMatch's `model.to(args.device)`), the move's line, where torch.compile or channels_last go.
"""

from __future__ import annotations

import os
import sys
import textwrap
from dataclasses import replace

import pytest

from trainprobe.facts import compute_facts, facts_by_name
from trainprobe.probe.sourcelines import argument_written
from trainprobe.record import CliFlag, ModelInfo

sys.path.insert(0, os.path.dirname(__file__))
from rule_cases.records import cpu_record, with_settings  # noqa: E402


def test_the_batch_sizes_own_line_is_read_from_the_call(tmp_path):
    path = tmp_path / "data.py"
    path.write_text(textwrap.dedent('''\
        from torch.utils.data import DataLoader
        def make(ds, args):
            return DataLoader(
                Wrapped(ds, 3, 4),
                shuffle=True,
                batch_size=32,
            )
        a = DataLoader(ds, 16, shuffle=True)
        b = DataLoader(ds, batch_size=args.batch_size * args.mu)
        c = Wrapped(ds, 7)
        '''), encoding="utf-8")
    assert argument_written(str(path), 3, "batch_size", 1, "DataLoader") == (6, 32)  # the keyword's line
    assert argument_written(str(path), 4, "batch_size", 1, "DataLoader") == (6, 32)  # from inside the call
    assert argument_written(str(path), 8, "batch_size", 1, "DataLoader") == (8, 16)  # positional
    assert argument_written(str(path), 9, "batch_size", 1, "DataLoader") == (9, None)  # computed: no literal
    assert argument_written(str(path), 10, "batch_size", 1, "DataLoader") is None  # another callee's 2nd argument
    assert argument_written(str(tmp_path / "gone.py"), 3, "batch_size", 1, "DataLoader") is None


def _loader_record(written, flag_value="64"):
    record = cpu_record()
    loader = replace(record.settings.dataloaders[0], batch_size=32, batch_size_at="/run/data.py:160",
                     batch_size_written=written, built_at="/run/data.py:158")
    flags = (CliFlag(options=("--data.batch_size",), dest="data.batch_size", value=flag_value,
                     declared_at="/run/main.py:4"),)
    return with_settings(record, dataloaders=(loader,), cli_flags=flags)


def test_a_flag_that_cannot_reach_a_loader_writing_a_number_is_not_advised():
    facts = facts_by_name(compute_facts(_loader_record(written=32)))
    assert facts["loader_batch_at"] == "/run/data.py:160"
    assert facts["flag_batch_size"] is None and facts["flag_batch_size_at"] is None
    assert facts["flag_batch_size_unread"] == "--data.batch_size"
    assert facts["flag_batch_size_unread_value"] == "64"


def test_a_flag_stays_the_knob_when_the_loader_takes_a_computed_batch():
    facts = facts_by_name(compute_facts(_loader_record(written=None)))  # batch_size=args.batch_size
    assert facts["flag_batch_size"] == "--data.batch_size"
    assert facts["flag_batch_size_unread"] is None
    assert facts["loader_batch_at"] == "/run/data.py:160"


def test_a_flags_line_is_where_its_default_is_written():
    record = _loader_record(written=None)  # batch_size=args.batch_size: the flag is the knob
    flag = replace(record.settings.cli_flags[0], declared_at="/run/main.py:24", default_at="/run/main.py:27")
    facts = facts_by_name(compute_facts(with_settings(record, cli_flags=(flag,))))
    assert facts["flag_batch_size_at"] == "/run/main.py:27"
    older = facts_by_name(compute_facts(record))  # a record made before default_at: the call's line
    assert older["flag_batch_size_at"] == "/run/main.py:4"


def _model_record(built_at, built_via, called_via):
    record = cpu_record()
    model = replace(record.settings.models[0], built_at=built_at, built_via=built_via, train_called_via=called_via)
    return with_settings(record, models=(model,))


def test_a_model_a_helper_built_is_named_where_the_training_function_holds_it():
    # main() (from line 68) calls create_model at 236 -> build_wideresnet at models/w.py:122; main() calls
    # train() (from line 300) at 296, whose line 360 runs the model.
    record = _model_record("/run/models/w.py:122",
                           ("/run/models/w.py:122:120", "/run/train.py:175:170", "/run/train.py:236:68",
                            "/run/train.py:501:1"),
                           ("/run/train.py:360:300", "/run/train.py:296:68", "/run/train.py:501:1"))
    assert facts_by_name(compute_facts(record))["model_at"] == "/run/train.py:236"


def test_a_model_no_training_function_shares_keeps_the_line_that_built_it():
    # A Lightning module's forward is called by Lightning: the script's chain to it is training_step's alone.
    record = _model_record("/run/main.py:30", ("/run/main.py:30:1",), ("/run/model.py:44:40",))
    assert facts_by_name(compute_facts(record))["model_at"] == "/run/main.py:30"
    old = _model_record("/run/main.py:30", (), ())  # a record made before the chain was kept
    assert facts_by_name(compute_facts(old))["model_at"] == "/run/main.py:30"


def _moved_record(moved_via):
    record = _model_record("/run/models/w.py:122",
                           ("/run/models/w.py:122:120", "/run/train.py:236:68", "/run/train.py:501:1"),
                           ("/run/train.py:360:300", "/run/train.py:296:68", "/run/train.py:501:1"))
    model = replace(record.settings.models[0], moved_via=moved_via)
    return with_settings(record, models=(model,))


def test_a_whole_model_change_goes_where_the_script_moved_the_model():
    # FixMatch: main() holds the model at 236 and moves it at 241 (model.to(args.device)).
    facts = facts_by_name(compute_facts(_moved_record(("/run/train.py:241:68", "/run/train.py:501:1"))))
    assert (facts["model_at"], facts["model_wrap_at"]) == ("/run/train.py:236", "/run/train.py:241")
    # main() moving it through a to_device(x) helper of its own (utils.py from line 10): main()'s call of the
    # helper, not the helper's generic `return x.to(device)`.
    via_helper = _moved_record(("/run/utils.py:12:10", "/run/train.py:242:68", "/run/train.py:501:1"))
    assert facts_by_name(compute_facts(via_helper))["model_wrap_at"] == "/run/train.py:242"
    # Never moved by the script's own code (a CPU run; a library moving it): the line that holds it.
    assert facts_by_name(compute_facts(_moved_record(())))["model_wrap_at"] == "/run/train.py:236"
    # Moved only in a function that did not build it (an evaluation helper's model.cpu()): the holding line.
    elsewhere = _moved_record(("/run/evaluate.py:7:3",))
    assert facts_by_name(compute_facts(elsewhere))["model_wrap_at"] == "/run/train.py:236"


@pytest.mark.slow  # one real run: ~8 s
def test_a_real_run_names_the_helpers_caller_and_the_written_batch(tmp_path):
    from probe_helpers import ONE_RUN, SCRIPTS, diagnose

    script = SCRIPTS / "helper_built_model.py"
    proc, record = diagnose(tmp_path / "out", *ONE_RUN, str(script))
    assert proc.returncode == 0, proc.stderr
    lines = script.read_text(encoding="utf-8").splitlines()

    def line(site: str) -> str:
        return lines[int(site.rsplit(":", 1)[1]) - 1].strip()

    facts = facts_by_name(compute_facts(record))
    model = max(record.settings.models, key=lambda m: m.train_calls)
    assert line(model.built_at) == "return Net(width)"  # the innermost line of the script's
    assert line(facts["model_at"]) == "model = create_model(args)"
    assert line(facts["model_wrap_at"]) == "model.to(device)"
    assert line(facts["loader_batch_at"]) == "batch_size=8,"
    assert facts["flag_batch_size"] is None
    assert (facts["flag_batch_size_unread"], facts["flag_batch_size_unread_value"]) == ("--batch-size", "64")


@pytest.mark.slow  # one real run: ~8 s
def test_a_checkpointing_fix_names_the_scripts_checkpoint_call(tmp_path):
    """fast-DiT (test set 28) checkpoints each block in DiT.forward; its expert turns that off at the
    checkpoint(...) line, where checkpointing-with-room named the loop's forward."""
    from probe_helpers import ONE_RUN, SCRIPTS, diagnose

    script = SCRIPTS / "checkpointed.py"
    proc, record = diagnose(tmp_path / "out", *ONE_RUN, str(script))
    assert proc.returncode == 0, proc.stderr
    lines = script.read_text(encoding="utf-8").splitlines()
    facts = facts_by_name(compute_facts(record))
    assert facts["activation_checkpointing"] is True
    at = facts["checkpoint_call_at"]
    assert lines[int(at.rsplit(":", 1)[1]) - 1].strip() == "x = checkpoint(block, x, use_reentrant=False)"

