"""The allocator's page churn: the kernel zeroing a step's freed memory again at every step (allocator-page-churn).

ClimaX (test set 28) and pykeen (test set 26) spent a third of their CPU time in the kernel: glibc's malloc maps
every block of 32 MiB and more with mmap and unmaps it when freed, so each step's activations were faulted in and
zeroed again. Their experts measured MALLOC_MMAP_MAX_=0 as the biggest lever. These tests read the kernel's own
counters (the sampler), check the facts and the verdict built on them, and measure the what-if's mallopt in a real
process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from trainprobe.engine import apply_rules
from trainprobe.facts import compute_facts, facts_by_name
from trainprobe.facts.paging import PAGE_BYTES
from trainprobe.machine import get_libc, get_malloc_env, get_malloc_preload
from trainprobe.probe.samplers.host import _user_system_faults
from trainprobe.whatif.fixes import PlanContext, get

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rule_cases.records import cpu_record, with_kernel_time  # noqa: E402


def test_the_sampler_reads_the_kernels_counters_of_a_process():
    """utime, stime and minflt of this process: touching 64 MiB of fresh memory faults its pages in."""
    before = _user_system_faults(os.getpid())
    assert before is not None
    block = bytearray(64 << 20)  # zeroed by the kernel on first touch: calloc maps fresh pages
    for i in range(0, len(block), PAGE_BYTES):
        block[i] = 1
    after = _user_system_faults(os.getpid())
    assert after[2] - before[2] >= (64 << 20) // PAGE_BYTES // 2  # huge pages would fault fewer: half is plenty
    assert after[0] >= before[0] and after[1] >= before[1]
    assert _user_system_faults(2 ** 22 + 12345) is None  # no such process


def test_facts_of_a_churning_run():
    """40% of 1.7 cores in the kernel over 0.12 s steps, 226,000 faults a second."""
    facts = facts_by_name(compute_facts(with_kernel_time(cpu_record(), 0.40, 226_000)))
    assert facts["main_system_cpu_share"] == pytest.approx(0.40, abs=0.01)
    assert facts["main_page_faults_per_step"] == pytest.approx(226_000 * facts["step_time"], rel=0.05)
    assert facts["main_faulted_bytes_per_step"] == pytest.approx(facts["main_page_faults_per_step"] * PAGE_BYTES)
    assert facts["main_fault_cost"] == pytest.approx(0.40 * 1.70 / 226_000, rel=0.05)
    assert facts["glibc_malloc"] is True
    trim = facts["suggested_malloc_trim_bytes"]
    assert trim >= facts["main_faulted_bytes_per_step"] and trim & (trim - 1) == 0 and trim >= 64 << 20


def test_no_kernel_counters_leave_the_facts_unknown():
    """A record from before the sampler read them (or from another OS): unknown, and the rule stays quiet."""
    facts = facts_by_name(compute_facts(cpu_record()))
    assert facts["main_system_cpu_share"] is None and facts["glibc_malloc"] is None
    assert "allocator-page-churn" not in {f.id for f in apply_rules(cpu_record()).findings}


@pytest.mark.parametrize("change", [
    dict(libc="musl 1.2"),  # another C library: the advice is glibc's
    dict(preload="libtcmalloc.so.4"),  # an allocator that keeps pages is already preloaded
])
def test_no_glibc_malloc_no_finding(change):
    record = with_kernel_time(cpu_record(), 0.40, 226_000, **change)
    assert "allocator-page-churn" not in {f.id for f in apply_rules(record).findings}


def test_kernel_time_that_faults_do_not_explain_is_not_churn():
    """40% in the kernel but only 20,000 faults a second (60 µs of kernel time each): system calls of another kind
    (reads, thread wake-ups), not the allocator."""
    record = with_kernel_time(cpu_record(), 0.40, 20_000)
    assert "allocator-page-churn" not in {f.id for f in apply_rules(record).findings}


def test_the_math_left_beside_the_churn_names_the_verdict():
    """The kernel's share is time inside forward and backward (93% of this step): at 50% of the CPU (35% of the
    step recovered) the math left beside it, 58%, leads by under 30 points, and memory names the run; at 20% (14%
    recovered) the math left, 79%, leads by more, and the run is compute-bound with the churn as its first
    finding."""
    heavy = apply_rules(with_kernel_time(cpu_record(), 0.50, 280_000))
    assert heavy.verdict.category == "memory"
    assert heavy.verdict.primary_finding == "allocator-page-churn"
    light = apply_rules(with_kernel_time(cpu_record(), 0.20, 150_000))
    assert light.findings[0].id == "allocator-page-churn"
    assert light.verdict.category == "compute"


def test_the_advice_names_the_variables_and_the_trim_size():
    record = with_kernel_time(cpu_record(), 0.40, 226_000)
    finding = next(f for f in apply_rules(record).findings if f.id == "allocator-page-churn")
    facts = facts_by_name(compute_facts(record))
    trim = facts["suggested_malloc_trim_bytes"]
    assert "MALLOC_MMAP_MAX_=0" in finding.advice and f"MALLOC_TRIM_THRESHOLD_={trim}" in finding.advice
    assert f"libc.mallopt(-1, {trim})" in finding.snippet
    assert finding.fix_id == "malloc_keep_pages"
    assert finding.gain.seconds_per_step == pytest.approx(0.40 * 0.7 * facts["step_time"], rel=0.01)


def test_the_environment_says_which_allocator_runs():
    assert get_malloc_preload({"LD_PRELOAD": "/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"}) == "libjemalloc.so.2"
    assert get_malloc_preload({"LD_PRELOAD": "/opt/libfoo.so:/lib/libtcmalloc_minimal.so.4"}) == \
        "libtcmalloc_minimal.so.4"
    assert get_malloc_preload({"LD_PRELOAD": "/opt/libfoo.so"}) == "" and get_malloc_preload({}) == ""
    assert get_malloc_env({"MALLOC_MMAP_MAX_": "0", "MALLOCX": "1", "PATH": "/bin",
                           "GLIBC_TUNABLES": "glibc.malloc.trim_threshold=1:glibc.rtld.x=2"}) == \
        ("MALLOC_MMAP_MAX_=0", "glibc.malloc.trim_threshold=1")
    libc = get_libc()
    assert libc is None or isinstance(libc, str)


def test_the_what_if_plans_the_fix_only_for_glibc():
    fix = get("malloc_keep_pages")
    planned = fix.candidates(PlanContext(facts={"glibc_malloc": True, "suggested_malloc_trim_bytes": 1 << 30}))
    assert [c.fixes for c in planned] == [{"malloc_keep_pages": 1 << 30}]
    assert fix.candidates(PlanContext(facts={"glibc_malloc": False, "suggested_malloc_trim_bytes": 1 << 30})) == []


_MEASURE = textwrap.dedent("""
    import json, resource, sys
    import torch
    from trainprobe.whatif.fixes import get

    class Applier:
        done = []
        def applied(self, fix_id, detail):
            self.done.append(detail)

    applier = Applier()
    if sys.argv[1] == "fix":
        get("malloc_keep_pages").injector(1 << 30, applier).install()
    x = torch.randn(2304, 4096)  # 36 MiB: over glibc's mmap limit
    for _ in range(3):
        (x * 2).tanh_()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(10):
        (x * 2).tanh_()
    print(json.dumps({"faults": resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before,
                      "applied": applier.done}))
""")


@pytest.mark.slow  # two Python processes that import torch: ~6 s quiet, 19 s under load
@pytest.mark.skipif(not (get_libc() or "").startswith("glibc"), reason="mallopt is glibc's")
def test_the_what_ifs_mallopt_keeps_the_pages_in_a_real_process():
    """Ten 36 MiB tensors made and freed: without the fix each is faulted in afresh (about 9,000 pages each);
    with mallopt applied by the fix's injector the heap keeps them and the next ones fault nothing in."""
    def run(mode):
        out = subprocess.run([sys.executable, "-c", _MEASURE, mode], capture_output=True, text=True, timeout=120,
                             env={**os.environ, "OMP_NUM_THREADS": "1"})
        assert out.returncode == 0, out.stderr
        return json.loads(out.stdout.strip().splitlines()[-1])

    plain, kept = run("plain"), run("fix")
    assert plain["faults"] >= 10 * (36 << 20) // PAGE_BYTES // 2 and plain["applied"] == []
    assert kept["faults"] <= plain["faults"] / 10
    assert kept["applied"] == ["mallopt(M_MMAP_MAX, 0), mallopt(M_TRIM_THRESHOLD, 1073741824)"]


def _huge_pages_always() -> bool:
    try:
        with open("/sys/kernel/mm/transparent_hugepage/enabled", encoding="ascii") as fh:
            return "[always]" in fh.read()
    except OSError:
        return False


@pytest.mark.slow  # one real run: ~40 s on a quiet 2-core machine
@pytest.mark.skipif(not (get_libc() or "").startswith("glibc"), reason="the churn is glibc malloc's")
@pytest.mark.skipif(_huge_pages_always(), reason="transparent huge pages fault 2 MiB at a time: not counted in pages")
def test_a_real_run_of_the_planted_sample_finds_the_churn(tmp_path):
    """sample_scripts/big_activations_page_churn.py under `trainprobe diagnose`: its 36 MiB activations are faulted
    in again at every step, which the sampler's counters show and the rule names, with the variables to set."""
    from probe_helpers import ONE_RUN, diagnose as run_diagnose

    sample = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "sample_scripts",
                          "big_activations_page_churn.py")
    proc, record = run_diagnose(tmp_path / "out", *ONE_RUN, sample, "--epochs", "1")
    assert proc.returncode == 0, proc.stderr
    main = next(p for p in record.samples.processes if p.role == "main")
    assert len(main.minor_faults) == len(main.t) == len(main.cpu_system) > 2
    facts = facts_by_name(compute_facts(record))
    # Six 36 MiB tensors at least (three activations and their gradients) every step.
    assert facts["main_faulted_bytes_per_step"] >= 6 * (36 << 20) * 0.8
    finding = next(f for f in apply_rules(record).findings if f.id == "allocator-page-churn")
    assert "MALLOC_MMAP_MAX_=0" in finding.advice
