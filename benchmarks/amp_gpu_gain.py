"""Measure what mixed precision and TF32 gain on the GPU campaign's float32 language model.

    python benchmarks/amp_gpu_gain.py [--steps 30] [--batch-size 16]

The model of tests/scripts/frameworks/_gpu_lm.py (the four framework items of benchmarks/gpu_campaign.py)
trains three ways side by side in one process, in turn on the same batches: float32 with TF32 off (torch's
default, as the campaign ran it), float32 with TF32 allowed (``torch.set_float32_matmul_precision("high")``)
and bfloat16 autocast with TF32 off. Each step is timed with the GPU drained before and after. Prints each
way's mean step and the speed-ups over float32, with bootstrap intervals over the pairs: the measured
counterpart of the gains `amp-not-used` and `tf32-disabled` estimate on those runs. Needs a CUDA GPU; on a
machine without one it says so and exits 0.
"""

from __future__ import annotations

import copy
import sys
import time
from pathlib import Path

import torch
import torch.nn.functional as F

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests" / "scripts" / "frameworks"))

from side_by_side import arguments, summary  # noqa: E402


def main() -> None:
    args = arguments(steps=30, batch_size=16)
    if not torch.cuda.is_available():
        print("No CUDA GPU on this machine: nothing measured (this benchmark times GPU arithmetic).")
        return
    from _gpu_lm import CausalLM, token_data  # sized for the GPU once CUDA is seen

    torch.manual_seed(0)
    loader = torch.utils.data.DataLoader(token_data(), batch_size=args.batch_size, shuffle=True, drop_last=True)
    base = CausalLM().cuda()
    ways = {"fp32": (base, "highest", None), "tf32": (copy.deepcopy(base), "high", None),
            "bf16": (copy.deepcopy(base), "highest", torch.bfloat16)}
    optimizers = {name: torch.optim.AdamW(model.parameters(), lr=3e-4) for name, (model, _, _) in ways.items()}

    def step(name, inputs, targets):
        model, matmul_precision, autocast_dtype = ways[name]
        torch.set_float32_matmul_precision(matmul_precision)
        torch.cuda.synchronize()
        start = time.perf_counter()
        with torch.autocast("cuda", dtype=autocast_dtype or torch.float32, enabled=autocast_dtype is not None):
            loss = F.cross_entropy(model(inputs).flatten(0, 1), targets.flatten())
        optimizers[name].zero_grad()
        loss.backward()
        optimizers[name].step()
        torch.cuda.synchronize()
        return time.perf_counter() - start

    names = list(ways)
    seconds = {name: [] for name in names}
    index = 0
    while index < args.warmup + args.steps:
        for inputs, targets in loader:
            if index >= args.warmup + args.steps:
                break
            inputs, targets = inputs.cuda(), targets.cuda()
            order = names[index % 3:] + names[:index % 3]  # no way always runs first
            timed = {name: step(name, inputs, targets) for name in order}
            if index >= args.warmup:
                for name in names:
                    seconds[name].append(timed[name])
            index += 1
    print(f"torch {torch.__version__}, {torch.cuda.get_device_name(0)}, {args.steps} steps each, batch "
          f"{args.batch_size}")
    for name in ("tf32", "bf16"):
        slow, fast, speedup, low, high = summary(list(zip(seconds["fp32"], seconds[name])))
        print(f"fp32: {slow * 1e3:.1f} ms a step; {name}: {fast * 1e3:.1f} ms a step; "
              f"speed-up {speedup:.2f}x (95% interval {low:.2f}-{high:.2f})")


if __name__ == "__main__":
    main()
