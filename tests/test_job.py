"""Whole jobs (trainprobe/job/): torchrun's options, the ranks side by side, the straggler and why.

The fast tests read real 2-rank gloo jobs recorded under tests/data/jobs (see its README); the
slow ones launch jobs through torchrun on this machine: two ranks, two "nodes" with a c10d
rendezvous on 127.0.0.1 merged with `trainprobe merge`, and a rank that crashes.
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from trainprobe.api import load_record
from trainprobe.cli import main
from trainprobe.job.analysis import analyze_job
from trainprobe.job.assemble import Collective, RankRun, load_rank, rank_folders
from trainprobe.job.launch import TorchrunError, check_cores, is_torchrun_command, job_plan, split_torchrun
from trainprobe.job.views import job_section, terminal_lines
from trainprobe.probe.config import WindowPlan
from trainprobe.record import SCHEMA_VERSION, RunRecord

HERE = Path(__file__).parent
JOBS = HERE / "data" / "jobs"
SCRIPT = HERE / "scripts" / "ddp_job.py"


def _ranks(name: str) -> list[RankRun]:
    return [load_rank(folder, rank) for rank, folder in rank_folders(JOBS / name)]


# --- the record: schema 2, and version 1 still loads ----------------------------------------------

def test_a_version_1_record_still_loads_and_a_job_record_round_trips(tmp_path):
    old = load_record(HERE / "data" / "runs" / "schema" / "clean_mlp.v1.run.json")
    assert old.schema_version == 1 and old.job is None and old.steps
    job = load_record(JOBS / "slow_rank" / "run.json")
    assert SCHEMA_VERSION == 2 and job.schema_version == 2
    job.save(tmp_path / "run.json")
    assert RunRecord.load(tmp_path / "run.json") == job


# --- torchrun's options ------------------------------------------------------------------------------

def test_torchrun_options_and_the_target_are_split_by_torchrun_s_own_parser():
    options, target = split_torchrun(["--nproc-per-node", "2", "--nnodes=1", "--rdzv-backend", "c10d",
                                      "train.py", "--lr", "0.1", "-m", "x"])
    assert options == ("--nproc-per-node", "2", "--nnodes=1", "--rdzv-backend", "c10d")
    assert target == ("train.py", "--lr", "0.1", "-m", "x")
    options, target = split_torchrun(["--nproc-per-node", "2", "-m", "pkg.train", "--epochs", "1"])
    assert options == ("--nproc-per-node", "2") and target == ("-m", "pkg.train", "--epochs", "1")


def test_unknown_options_and_no_python_are_refused_with_a_reason():
    with pytest.raises(TorchrunError, match="trainprobe's own options"):
        split_torchrun(["--nproc-per-node", "2", "-o", "out", "train.py"])
    with pytest.raises(TorchrunError, match="--no-python"):
        split_torchrun(["--nproc-per-node", "2", "--no-python", "train.py"])


def test_a_torchrun_command_line_is_recognized():
    assert is_torchrun_command(["torchrun", "--nproc-per-node", "2", "t.py"]) == 1
    assert is_torchrun_command(["python", "-m", "torch.distributed.run", "t.py"]) == 3
    assert is_torchrun_command(["train.py", "torchrun"]) == 0


def test_more_ranks_than_cores_gets_a_clear_message():
    with pytest.raises(TorchrunError, match="more ranks than this machine has cores"):
        check_cores(["--nproc-per-node", "512"])
    check_cores(["--nproc-per-node", "1"])


def test_every_rank_follows_a_plan_counted_in_steps():
    plan = job_plan(WindowPlan())
    assert plan.max_seconds is None and plan.steps == 20
    assert plan.profile_max_steps == plan.profile_min_steps and plan.profile_seconds == 0
    assert plan.cprofile_max_steps == plan.cprofile_min_steps and plan.warmup_max_seconds >= 1e9
    assert json.loads(json.dumps(plan.to_dict()))["warmup_max_seconds"] is not None  # no infinity in JSON


# --- collectives: waiting and transfer ---------------------------------------------------------------

def test_the_same_call_s_shortest_duration_is_the_transfer_and_the_rest_is_waiting():
    def run(rank, durations):
        calls = tuple(Collective("all_reduce", i * 0.1, d, 4, i, "other") for i, d in enumerate(durations))
        steps = load_record(JOBS / "find_unused" / "rank0" / "run.json").steps
        from dataclasses import replace
        record = RunRecord(steps=tuple(replace(s, index=i, phase="steady", validation=False)
                                       for i, s in enumerate(steps[:3])))
        return RankRun(rank, Path(f"rank{rank}"), record, calls)

    rows, job = analyze_job([run(0, [0.010, 0.012, 0.011]), run(1, [0.002, 0.002, 0.003])])
    by_rank = {r.rank: r for r in rows}
    assert by_rank[1].collective_wait == pytest.approx(0.0)
    assert by_rank[0].collective_wait == pytest.approx((0.008 + 0.010 + 0.008) / 3)
    assert by_rank[0].collective_transfer == pytest.approx((0.002 + 0.002 + 0.003) / 3)


# --- recorded real jobs ----------------------------------------------------------------------------

def test_the_slow_rank_is_the_straggler_and_its_cause_is_input():
    rows, job = analyze_job(_ranks("slow_rank"))
    assert job.straggler == 1 and job.straggler_cause == "data_wait"
    assert job.backend == "gloo" and job.world_size == 2 and job.distributed_sampler is True
    fast, slow = rows
    assert fast.collective_wait > 0.03 > slow.collective_wait  # rank 0 waits ~41 ms a step for rank 1
    assert slow.phases["data_wait"] > 0.03 > fast.phases["data_wait"]
    assert all(r.step_time and r.steps >= 25 for r in rows)
    assert "rank 1" in job.straggler_why and "waiting for data" in job.straggler_why


def test_work_on_rank_0_alone_is_its_loop_s_own_code():
    rows, job = analyze_job(_ranks("rank0_work"))
    assert job.straggler == 0 and job.straggler_cause == "other"
    assert job.rank0_extra == pytest.approx(0.03, abs=0.006)  # the planted 30 ms sleep


def test_find_unused_parameters_is_read_and_its_cost_measured_on_a_balanced_job():
    _, job = analyze_job(_ranks("find_unused"))
    assert job.straggler is None  # the ranks wait for each other in turn: nobody is the straggler
    ddp = job.ddp
    assert ddp.find_unused_parameters is True and ddp.unused_parameter_bytes == 0
    assert ddp.post_forward_time and ddp.post_forward_time > 0
    assert ddp.bucket_cap_mb == 25 and ddp.static_graph is False and ddp.broadcast_buffers is True


def test_a_missing_distributed_sampler_is_seen():
    _, job = analyze_job(_ranks("no_sampler"))
    assert job.distributed_sampler is False


def test_a_crashed_rank_is_named_with_its_error_and_every_rank_keeps_its_figures():
    rows, job = analyze_job(_ranks("crash"))
    assert job.failed_rank == 1 and job.failed_error.startswith("ValueError: planted failure on rank 1")
    assert all(r.status == "failed" and r.steps >= 12 and r.step_time for r in rows)


def test_the_job_record_shows_every_rank_side_by_side():
    record = load_record(JOBS / "slow_rank" / "run.json")
    lines = terminal_lines(record)
    assert lines[0].startswith("  rank 0: step ") and "collectives" in lines[0]
    assert lines[1].endswith("← straggler") and lines[2].startswith("  straggler: rank 1 spends")
    section = job_section(record)
    assert section["job"] and len(section["rows"]) == 2 and "data wait" in section["phases"]
    assert ("find_unused_parameters", "False") in section["ddp"] and ("backend", "gloo") in section["ddp"]


def test_merge_refuses_a_folder_without_ranks(tmp_path, capsys):
    assert main(["merge", str(tmp_path)]) == 2
    assert "holds no rank<N>/ folders" in capsys.readouterr().err


# --- real jobs through torchrun (slow) --------------------------------------------------------------

_FAST = ["--warmup-steps", "2", "--steps", "8", "--no-profile", "-q"]


def _job_json(out: Path) -> dict:
    return json.loads((out / "run.json").read_text())


@pytest.mark.slow
def test_a_two_rank_job_names_the_slow_rank_and_input(tmp_path, capsys):
    out = tmp_path / "job"
    code = main(["diagnose", "-o", str(out), "--timeout", "120", *_FAST, "--nproc-per-node", "2",
                 str(SCRIPT), "--slow-rank", "1", "--slow-ms", "60"])
    assert code == 0
    record = load_record(out / "run.json")
    assert record.job.straggler == 1 and record.job.straggler_cause == "data_wait"
    assert [r.rank for r in record.ranks] == [0, 1] and all(r.step_time for r in record.ranks)
    summary = json.loads((out / "summary.json").read_text())
    assert summary["verdict"]["category"] == "input" and "rank 1" in summary["verdict"]["headline"]
    assert (out / "rank0" / "run.json").exists() and (out / "rank1" / "run.json").exists()
    assert "← straggler" in capsys.readouterr().out


@pytest.mark.slow
def test_a_crashed_rank_ends_the_job_and_is_named(tmp_path):
    out = tmp_path / "job"
    start = time.monotonic()
    code = main(["diagnose", "-o", str(out), "--timeout", "60", *_FAST, "--nproc-per-node", "2",
                 str(SCRIPT), "--crash-rank", "1", "--crash-step", "4"])
    assert code == 1 and time.monotonic() - start < 60
    job = _job_json(out)
    assert job["job"]["failed_rank"] == 1 and job["job"]["failed_error"].startswith("ValueError")
    assert job["outcome"]["status"] == "failed" and all(r["steps"] >= 4 for r in job["ranks"])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.mark.slow
def test_two_nodes_on_localhost_are_merged_into_one_job(tmp_path):
    rendezvous = ["--nproc-per-node", "1", "--nnodes", "2", "--rdzv-backend", "c10d",
                  "--rdzv-endpoint", f"127.0.0.1:{_free_port()}", "--rdzv-id", "merge-test"]
    nodes = [tmp_path / "node0", tmp_path / "node1"]
    procs = [subprocess.Popen([sys.executable, "-m", "trainprobe", "diagnose", "-o", str(node), "--timeout", "120",
                               *_FAST, *rendezvous, str(SCRIPT), "--slow-rank", "1", "--slow-ms", "60"],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for node in nodes]
    assert [p.wait(timeout=150) for p in procs] == [0, 0]
    assert sorted(len(rank_folders(n)) for n in nodes) == [1, 1]
    assert main(["merge", str(nodes[0]), str(nodes[1]), "-o", str(tmp_path / "merged")]) == 0
    record = load_record(tmp_path / "merged" / "run.json")
    assert [r.rank for r in record.ranks] == [0, 1] and len(record.job.nodes) == 2
    assert record.job.straggler == 1 and record.job.straggler_cause == "data_wait"


@pytest.mark.slow
def test_a_hogwild_script_is_diagnosed_from_its_trainers(tmp_path):
    out = tmp_path / "run"
    assert main(["diagnose", "-q", "-o", str(out), "--timeout", "120", str(HERE / "scripts" / "hogwild.py"),
                 "--steps", "40"]) == 0
    record = load_record(out / "run.json")
    assert record.job.launcher == "torch.multiprocessing" and [r.rank for r in record.ranks] == [0, 1]
    assert all(r.steps >= 30 and r.phases["other"] > 0.008 for r in record.ranks)  # the planted 10 ms
    assert json.loads((out / "summary.json").read_text())["verdict"]["category"] == "host"
    trainers = {p.pid for p in record.samples.processes if p.role == "trainer"}
    assert len(trainers) == 2 and (out / "main" / "run.json").exists()


def test_the_first_failure_is_the_rank_that_went_first_even_without_a_word():
    from types import SimpleNamespace as NS
    from trainprobe.job.assemble import _first_failure

    killed = NS(outcome=None, started=True, script_ended=None)  # SIGKILL: no outcome, last seen at 10.0 s
    broke = NS(outcome={"status": "failed", "exception_type": "RuntimeError"}, started=True)  # its peer vanished
    assert _first_failure({0: broke, 1: killed}, {0: 10.3, 1: 10.0}) == (1, "killed by a signal")
    raised = NS(outcome={"status": "failed", "exception_type": "ValueError"}, started=True)
    assert _first_failure({0: broke, 1: raised}, {0: 10.3, 1: 10.1}) == (1, "ValueError")


@pytest.mark.parametrize("name, lead", [("slow_rank", "rank 1 holds the job back (input)"), ("crash", "rank 1 failed")])
def test_a_saved_job_record_reads_the_same_through_trainprobe_report(name, lead):
    """The job's framing of the verdict comes from the record alone: `trainprobe report` on a job's
    run.json leads with the straggler or the failed rank, as the run itself did."""
    from trainprobe.api import analyze

    assert analyze(load_record(JOBS / name / "run.json")).verdict.headline.startswith(lead)
