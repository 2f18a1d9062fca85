"""The memory a run may use, as the probe reads it: a data-segment limit set with ulimit -d (what the memory
sample sets itself), a CUDA process held to a fraction of its card, and the free memory at the start within it."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from types import SimpleNamespace

from trainprobe.probe.assemble import free_at_start
from trainprobe.probe.memory import DATA_LIMIT, memory_limit
from trainprobe.record import GpuSeries, Samples

GIB = 2 ** 30


def test_a_data_segment_limit_is_the_limit_and_the_process_memory_is_read():
    code = textwrap.dedent(f"""
        import json, resource
        from trainprobe.probe.memory import memory_limit, process_memory
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        resource.setrlimit(resource.RLIMIT_DATA, ({3 * GIB}, hard))
        print(json.dumps([memory_limit(None, cuda=False), process_memory()]))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    limit, process = json.loads(out.stdout)
    assert limit == {"limit": 3 * GIB, "source": DATA_LIMIT}
    assert 0 < process["resident"] <= process["address_space"] and 0 < process["data"] <= process["address_space"]


def _fake_torch(fraction: float):
    cuda = SimpleNamespace(current_device=lambda: 0, mem_get_info=lambda device: (70 * GIB, 80 * GIB),
                           get_per_process_memory_fraction=lambda device: fraction)
    return SimpleNamespace(cuda=cuda)


def test_a_cuda_process_held_to_a_fraction_of_its_card_may_use_that_fraction():
    assert memory_limit(_fake_torch(1.0), cuda=True) == {"limit": 80 * GIB, "source": "GPU memory"}
    held = memory_limit(_fake_torch(0.2), cuda=True)
    assert held["limit"] == 16 * GIB and "fraction 0.2" in held["source"]


def test_the_free_memory_at_the_start_is_within_the_limit():
    gpu = GpuSeries(index=0, t=(0.0,), mem_used=(2 * GIB,), mem_total=80 * GIB)
    samples = Samples(gpus=(gpu,))
    assert free_at_start(samples, 80 * GIB) == 78 * GIB
    assert free_at_start(samples, 16 * GIB) == 16 * GIB  # set_per_process_memory_fraction(0.2)
