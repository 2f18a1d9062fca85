"""What the probe measures agrees with the truth: a hand-timed loop and the script's real settings."""

import json
import statistics
from pathlib import Path

import pytest

from trainprobe.facts import compute_facts, facts_by_name
from trainprobe.facts.window import steady_steps
from probe_helpers import FAST, ONE_RUN, SCRIPTS, diagnose, plain_python


def _median(values):
    return statistics.median(values)


@pytest.mark.slow
def test_step_split_agrees_with_a_hand_timed_loop(tmp_path):
    hand_file = tmp_path / "hand.json"
    _, record = diagnose(tmp_path / "out", "--warmup-steps", "3", "--window", "3",
                         str(SCRIPTS / "handtimed.py"), str(hand_file))
    hand = json.loads(hand_file.read_text())
    steady = steady_steps(record)
    assert len(steady) >= 8
    # The same process and the same steps, timed twice: step i is the script's iteration i (from one
    # next(it) to the next), the first one included.
    pairs = [(s, hand[s.index]) for s in steady if s.index < len(hand)]
    assert len(pairs) >= 8
    for phase in ("data_wait", "backward", "optimizer"):
        agree = []
        for step, by_hand in pairs:
            # The probe's own work at a step's start (closing the last one, window changes) runs inside
            # the script's next(it): the hand timer sees it, the probe leaves it out and reports it as
            # the step's ``probe`` time.
            own = step.probe if phase == "data_wait" else 0.0
            agree.append(getattr(step, phase) == pytest.approx(by_hand[phase] - own, rel=0.05, abs=0.001))
        # Step by step, bar the odd step where this shared machine paused one timer and not the other.
        assert sum(agree) >= 0.9 * len(agree), (phase, agree)
        probe_median = _median([getattr(s, phase) for s, _ in pairs])
        hand_median = _median([h[phase] for _, h in pairs])
        assert probe_median == pytest.approx(hand_median, rel=0.05, abs=0.001), phase
    # The script's "forward" also computes the loss (a function, not a module): the probe counts that as other.
    for step, by_hand in pairs:
        assert step.forward <= by_hand["forward"] + 0.001
        assert step.forward + step.other >= by_hand["forward"] - 0.001
    # the wait is what the slow dataset plants: 16 x 0.5 ms of sleep, off the CPU, and with no
    # worker there is no batch to receive
    assert _median([s.data_wait for s in steady]) >= 0.008
    assert sum(s.data_wait_cpu for s in steady) < 0.5 * sum(s.data_wait for s in steady)
    assert all(s.data_receive == 0.0 for s in steady)
    # and the parts add up to the step
    for s in steady:
        parts = s.data_wait + s.h2d + s.forward + s.backward + s.optimizer + s.eval + s.other
        assert parts == pytest.approx(s.duration, rel=1e-6, abs=1e-6)


@pytest.mark.slow
def test_settings_are_read_from_the_live_objects(tmp_path):
    _, record = diagnose(tmp_path / "out", "--warmup-steps", "3", "--window", "2", str(SCRIPTS / "settings_rich.py"))
    st = record.settings
    assert st.optimizers[0].type == "torch.optim.adamw.AdamW"
    assert st.optimizers[0].fused is True
    assert st.optimizers[0].weight_decay == pytest.approx(0.01)
    assert st.schedulers[0].type.endswith("OneCycleLR")
    assert st.schedulers[0].per_optimizer_step == pytest.approx(1.0, abs=0.05)
    assert st.anomaly_detection is True
    assert st.cudnn_benchmark is True
    assert st.autocast_device == "cpu" and st.autocast_dtype == "bfloat16"
    assert st.autocast_forwards > 0
    assert st.zero_grad_set_to_none_false > 0
    assert st.grad_accumulation == pytest.approx(2.0, abs=0.1)
    assert st.step_boundary == "fetch"
    # Two micro-batches per update: a step (one update) holds both.
    values = facts_by_name(compute_facts(record))
    assert values["grad_accumulation"] == 2 and values["batches_per_step"] == 2
    assert values["updates_per_step"] == 1
    train, val = st.dataloaders
    assert (train.batch_size, train.drop_last, train.used_in_training) == (32, True, True)
    assert train.sampler_type.endswith("RandomSampler")
    assert val.batch_size == 64 and not val.used_in_training
    model = st.models[0]
    assert model.params == 32 * 64 + 64 + 64 * 4 + 4
    assert model.eval_calls_with_grad > 0
    assert any(s.eval > 0 for s in record.steps)  # the validation forwards are timed apart


@pytest.mark.slow
def test_a_loop_without_optimizer_steps_at_backward(tmp_path):
    _, record = diagnose(tmp_path / "out", *FAST, str(SCRIPTS / "handsgd.py"))
    assert record.outcome.status == "stopped"
    assert record.settings.step_boundary == "backward"
    assert record.settings.optimizers == ()
    assert len(steady_steps(record)) >= 5
    assert any("no optimizer.step() and no DataLoader batch were seen (a hand-written update loop)" in n
               for n in record.notes), record.notes


@pytest.mark.slow
def test_anomaly_modes_stack_capture_is_timed_apart_from_forward(tmp_path):
    """With anomaly detection on, the stack captured for every autograd node is the step's
    ``debug`` part, and the run's settings say it was on; without it, no step has any."""
    loop = str(SCRIPTS / "loop.py")
    # loop.py runs until trainprobe stops it once measured (3 epochs ended before the windows: a second run)
    _, on = diagnose(tmp_path / "on", *FAST, loop, "--anomaly")
    _, off = diagnose(tmp_path / "off", *FAST, loop)
    assert on.settings.anomaly_detection and not off.settings.anomaly_detection
    steady = steady_steps(on)
    assert steady and all(s.debug > 0 for s in steady)
    assert all(s.forward > 0 for s in steady)
    for s in steady:  # the parts still add up to the step
        parts = s.data_wait + s.h2d + s.forward + s.backward + s.optimizer + s.eval + s.debug + s.other
        assert parts == pytest.approx(s.duration, rel=1e-6, abs=1e-9)
    assert all(s.debug == 0 for s in off.steps)
    # On only around each step's forward and backward (torchtnt's AutoUnit(detect_anomaly=True), test set 15):
    # off whenever the settings are read, yet on in every step. It read as off, and debug-api-enabled missed it.
    _, per_step = diagnose(tmp_path / "per-step", *FAST, loop, "--anomaly", "per-step")
    assert per_step.settings.anomaly_detection
    assert all(s.debug > 0 for s in steady_steps(per_step))
    # Where the model is called in training: the line autocast would wrap (cpu-bf16-not-used and
    # amp-not-used name it as the line they change, the experts of test set 8 did too).
    called = off.settings.models[0].train_called_at
    path, line = called.rsplit(":", 1)
    assert path == loop, called
    assert "cross_entropy(model(x), y).backward()" in Path(loop).read_text().splitlines()[int(line) - 1], called


@pytest.mark.slow
def test_a_model_traced_by_torch_jit_before_training_runs_as_python_runs_it(tmp_path):
    """weiaicunzai's CIFAR-100 training (test set 8) calls TensorBoard's add_graph, which traces the model
    with torch.jit.trace and checks the trace by running it again: under the probe the two graphs
    differed and the script failed with TracingCheckError before its first step. The hooks now stay
    out of a jit trace as they stay out of Dynamo's."""
    script = str(SCRIPTS / "jit_traced_first.py")
    assert plain_python(script).returncode == 0
    proc, record = diagnose(tmp_path / "out", *ONE_RUN, script)
    assert proc.returncode == 0, proc.stderr
    assert record.outcome.status == "completed", record.outcome
    assert sum(1 for s in record.steps if not s.validation) >= 10


@pytest.mark.slow
def test_a_compiled_model_and_optimizer_step_do_not_recompile_under_the_probe(tmp_path):
    """The hooks must stay out of Dynamo's graphs: traced, they would recompile every step."""
    script = str(SCRIPTS / "compiled.py")

    def dynamo_counts(stdout):
        line = next(line for line in stdout.splitlines() if line.startswith("DYNAMO "))
        graphs, recompiles = map(int, line.split()[1:])
        return graphs, recompiles

    plain = plain_python(script, "3")
    assert plain.returncode == 0, plain.stderr
    # Windows counted in steps, which the 96 steps hold: one run (each compiles), not a second fitted one.
    proc, record = diagnose(tmp_path / "out", "--warmup-steps", "2", "--steps", "10", "--full", script, "3")
    graphs, recompiles = dynamo_counts(proc.stdout)
    plain_graphs, _ = dynamo_counts(plain.stdout)
    assert recompiles == 0
    assert graphs <= plain_graphs + 1  # 96 steps: a graph per step would show
    assert record.outcome.status == "completed"
    assert record.settings.compiled is True
    steady = steady_steps(record)
    assert len(steady) >= 5 and all(s.forward > 0 and s.backward > 0 for s in steady)
    # The optimizer step is compiled too, so its hooks never run: iterations are told apart by their
    # batches, and the record says why rather than calling the loop a hand-written one.
    assert record.settings.step_boundary == "fetch"
    assert any("outside compiled code" in note for note in record.notes), record.notes


_ROOTED = """
import os, signal, sys
import torch
from torch.utils.data import DataLoader, TensorDataset

class Rooted(TensorDataset):
    root = sys.argv[1]  # where a torchvision dataset keeps its files

loader = DataLoader(Rooted(torch.randn(256, 4), torch.randn(256, 1)), batch_size=8)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
for x, y in loader:
    loss = ((model(x) - y) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
if sys.argv[2] == "killed":
    os.kill(os.getpid(), signal.SIGKILL)  # like the kernel's OOM killer: no Python code runs after this
"""


@pytest.mark.slow
@pytest.mark.parametrize("ending", ["ends", "killed"])
def test_torch_facts_are_read_before_the_script_and_data_paths_after_it(tmp_path, ending):
    """The record's torch facts come from the probe's child before the script runs, so a script that
    dies hard still has them; the datasets' roots are read at the end, when the datasets exist."""
    import torch

    script = tmp_path / "rooted.py"
    script.write_text(_ROOTED)
    data = tmp_path / "data"
    data.mkdir()
    _, record = diagnose(tmp_path / "out", *ONE_RUN, str(script), str(data), ending)
    env = record.environment
    assert (env.torch, env.torch_cuda_build, env.cudnn) == (
        torch.__version__, torch.version.cuda, torch.backends.cudnn.version())
    assert env.cuda_available == torch.cuda.is_available() and env.torch_threads and env.torch_interop_threads
    disks = [d.path for d in env.disks]
    if ending == "ends":
        assert record.outcome.status == "completed"
        assert str(data) in disks
    else:
        assert record.outcome.signal == "SIGKILL"
        assert str(data) not in disks  # read at the end, which a killed script never reaches


_LIBRARY = """
import torch


def targets(model, observations):
    # The library's own target computation: eval mode, autograd on (what the test counts).
    model.eval()
    out = model(observations).detach() * 0.9
    model.train()
    return out
"""


@pytest.mark.slow
def test_eval_forwards_with_autograd_are_told_apart_by_who_called_them(tmp_path):
    """A trained model run in eval mode with autograd on by a library's code (an RL library's targets) is counted
    apart from the script's own validation, with the library's module named: the user has no line to wrap."""
    library = tmp_path / "site-packages"
    library.mkdir()
    (library / "rl_targets.py").write_text(_LIBRARY)
    _, record = diagnose(tmp_path / "out", *ONE_RUN, str(SCRIPTS / "library_eval_targets.py"), str(library), "12")
    model = record.settings.models[0]
    assert model.train_calls == 12
    assert model.eval_calls_with_grad == 12 + 3  # every step's targets, and the script's validation of steps 0, 5, 10
    assert model.eval_calls_with_grad_by_library == 12 and model.eval_with_grad_by == "rl_targets"
    values = facts_by_name(compute_facts(record))
    assert values["library_eval_calls_with_grad"] == 12 and values["eval_with_grad_by"] == "rl_targets"
    assert values["eval_with_grad_only_library"] is False  # the script's own validation is there too
