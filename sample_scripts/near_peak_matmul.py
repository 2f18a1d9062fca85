"""A loop that is almost nothing but large matrix products: near the hardware's limit.

Four wide bias-free linear layers on a large batch, trained with plain SGD. Nearly all of a step
is matmuls big enough to run at close to the machine's peak (on a CPU about three quarters of a
measured fp32 matmul, on a GPU bf16 under autocast with TF32 allowed): there is no loop overhead,
no data to wait for and almost no element-wise work to fuse. The right answer is that the step is
near what the hardware can do; a finding that promised a speed-up from compiling or from the loop
would be false. It also checks the peak table: on a GPU this loop must come out near the
datasheet's peak, or the table is wrong. Expectations written before trainprobe was run on it.
"""

TRAINPROBE_SAMPLE = {
    "plants": "nothing to fix: large matmuls at close to the peak (the near-peak control)",
    "verdict": {"cpu": "compute", "gpu": "compute"},
    "findings": {"cpu": [], "gpu": []},
    "allow": {"cpu": [], "gpu": []},
    "clean": True,
    "ci": False,
    "args": [],
}

import argparse

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=100)
    parser.add_argument("--width", type=int, default=None, help="default: 2048 on a CPU, 8192 on a GPU")
    parser.add_argument("--batch-size", type=int, default=None, help="default: 1024 on a CPU, 8192 on a GPU")
    parser.add_argument("--steps", type=int, default=0, help="stop after this many steps (0: all)")
    args = parser.parse_args()

    device = "cuda" if torch.cuda.is_available() else "cpu"
    use_gpu = device == "cuda"
    width = args.width or (8192 if use_gpu else 2048)
    batch = args.batch_size or (8192 if use_gpu else 1024)
    torch.set_float32_matmul_precision("high")  # TF32 where the GPU has it
    # A few batches, reused: the point is the math, not the data.
    data = TensorDataset(torch.randn(4 * batch, width), torch.randn(4 * batch, width))
    loader = DataLoader(data, batch_size=batch, shuffle=False, drop_last=True)
    if use_gpu:
        # The batches made once and kept on the device. Collated and copied every step, 512 MiB of
        # them took 97% of a 591 ms step on an H200 (benchmarks/gpu_campaign.py, 2026-11-26): the
        # loop was input-bound, not near the peak.
        loader = [(x.to(device), target.to(device)) for x, target in loader]
    model = nn.Sequential(*[nn.Linear(width, width, bias=False) for _ in range(4)]).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-4, foreach=True)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=50, gamma=0.5)

    step = 0
    for epoch in range(args.epochs):
        for x, target in loader:
            x, target = x.to(device, non_blocking=True), target.to(device, non_blocking=True)
            with torch.autocast(device, dtype=torch.bfloat16, enabled=use_gpu):
                loss = (model(x) - target).pow(2).mean()
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            scheduler.step()
            step += 1
            if step == args.steps:
                return


if __name__ == "__main__":
    main()
