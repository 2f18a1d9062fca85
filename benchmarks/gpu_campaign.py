"""The GPU campaign: the GPU gallery under trainprobe in one command, for the sessions that get a GPU.

    python benchmarks/gpu_campaign.py [--out DIR] [--seconds-per-run S] [--dry-run]

Runs each item below with ``trainprobe diagnose --json`` (its own folder under ``--out``: the run
record, the profiler window's trace ``profile.pt.trace.json.gz``, the report), then prints one
table: verdict, step time, achieved FLOP/s, the peak it is held against and MFU, and the
findings. The whole campaign fits in about 9 minutes with ``--seconds-per-run 20`` (each run is bounded by it; 22 runs, of at
most 35 s by default).
Afterwards commit the folder's ``*/run.json`` gzipped (``gzip -9 -n``: the repository must stay under the
device tool's 64 MiB, see tests/data/runs/gpu/README.md) and ``*/profile.pt.trace.json.gz`` under
``tests/data/runs/gpu/``, and put the table in the README with the commit and the GPU.

On a machine without a CUDA GPU it says so, prints what it would run (a dry run, checked by
tests/test_gpu_campaign.py) and exits 0. It never changes the machine's settings.

The near-peak loop must come out near the datasheet's peak for its dtype (bf16 with TF32 allowed);
if it does not, the peak table (trainprobe/readiness/peaks.py) or the FLOP count is wrong.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAMPLES = ROOT / "sample_scripts"


@dataclass(frozen=True)
class Item:
    name: str
    script: str  # under sample_scripts/
    args: tuple[str, ...]
    shows: str  # what it is for


ITEMS = (
    Item("amp_off", "fp32_without_amp.py", (), "fp32 matmuls without autocast, TF32 off: amp-not-used, tf32-disabled"),
    Item("pageable_copies", "cpu_tensors_in_loop.py", (), "tensors made on the CPU and copied from pageable memory"),
    Item("item_syncs", "item_every_step.py", (), ".item() syncs in the loop"),
    Item("tiny_kernels", "tiny_batch_launch_bound.py", (), "batch 4 on a tiny MLP: launch-bound"),
    Item("uncompiled_convnet", "course_resnet_cifar.py", (), "the course's uncompiled fp32 ResNet: MFU, AMP, compile"),
    Item("near_peak", "near_peak_matmul.py", (), "large bf16 matmuls: must come out near the datasheet peak"),
    Item("clean_mlp", "clean_mlp.py", (), "the clean control: bf16, TF32, fused AdamW"),
    Item("channels_last", "amp_without_channels_last.py", (), "convolutions under AMP in NCHW"),
    # Memory: a real CUDA out-of-memory (GPT-2-small held to 16 GB of the card dies at its long batch; the
    # finding should name accumulation with numbers), a card run near full, a leak, room for a 4x batch.
    Item("cuda_oom", "transformer_out_of_memory.py", (), "a real CUDA OOM at the long batch: the fix that fits"),
    Item("near_full_card", "transformer_out_of_memory.py",
         ("--long-share", "0", "--gpu-memory-gb", "80", "--batch-size", "224"),
         "a card run at 90-97% of its memory (tune --batch-size on the card)"),
    Item("memory_leak", "leaking_metrics.py", (), "logits kept every step: memory-grows-each-step"),
    Item("room_for_4x", "big_model_small_batch.py", (), "a small batch on a card with room: the batch that fits"),
    # Framework-driven loops on a GPU (tests/scripts/frameworks/, our own small scripts): the fixes in the
    # framework's own terms where a GPU makes them apply (bf16=True, Accelerator(mixed_precision=...), --amp).
    Item("hf_trainer", "../tests/scripts/frameworks/hf_trainer_tokenize.py", (),
         "a Hugging Face Trainer fine-tune tokenizing in __getitem__: TrainingArguments' terms"),
    Item("accelerate_loop", "../tests/scripts/frameworks/accelerate_loop.py", (),
         "an accelerate loop with mixed precision left off: Accelerator(mixed_precision=...)"),
    Item("cli_flags", "../tests/scripts/frameworks/cli_flags.py", (),
         "a reference-style script with --amp and -j flags left off: the flags"),
    # A float32 language model sized to be compute-bound on a datacenter GPU, driven by each framework: mixed
    # precision is the biggest lever, and the fix is the framework's own setting at the line that makes it.
    Item("lightning_fp32", "../tests/scripts/frameworks/gpu_lightning_fp32.py", (),
         "Lightning's Trainer at precision 32-true on bf16 tensor cores: Trainer(precision=...)"),
    Item("accelerate_fp32", "../tests/scripts/frameworks/gpu_accelerate_fp32.py", (),
         "accelerate with mixed precision off on bf16 tensor cores: Accelerator(mixed_precision=...)"),
    Item("fabric_flag", "../tests/scripts/frameworks/gpu_fabric_flag.py", (),
         "Fabric's precision from a --precision option left at 32-true: the option's line"),
    Item("hf_trainer_fp32", "../tests/scripts/frameworks/gpu_hf_trainer_fp32.py", (),
         "a GPT-2-shaped model under the Trainer with bf16 off: TrainingArguments(bf16=True)"),
    # The attention and padding rules, made on a CPU, as a GPU runs them: the fused kernels take dropout there
    # (no math path), while returned weights and padded tokens cost the same work.
    Item("attention_dropout", "attention_dropout_math_path.py", (),
         "attention dropout in SDPA: a CUDA fused kernel takes it, so no math-path finding"),
    Item("attention_weights", "attention_weights_returned.py", (),
         "nn.MultiheadAttention with need_weights left True: attention-weights-returned"),
    Item("fixed_padding", "fixed_length_padding.py", (), "texts padded to max_length=256: fixed-length-padding"),
)


def cuda_gpu() -> str | None:
    """The GPU's name, or None without a usable CUDA device."""
    try:
        import torch

        if torch.cuda.is_available():
            return torch.cuda.get_device_name(0)
    except Exception:  # pylint: disable=broad-except
        return None
    return None


def command(item: Item, out: Path, seconds: float) -> list[str]:
    return [sys.executable, "-m", "trainprobe", "diagnose", "--json", "-o", str(out / item.name),
            "--max-seconds", f"{seconds:g}", str(SAMPLES / item.script), *item.args]


def _summary(stdout: str) -> dict:
    """The --json summary: the last line of stdout."""
    for line in reversed(stdout.strip().splitlines()):
        try:
            return json.loads(line)
        except ValueError:
            continue
    return {}


def _row(item: Item, summary: dict, wall: float) -> str:
    verdict = summary.get("verdict", {})
    compute = summary.get("compute", {})
    step = verdict.get("step_time_s")
    mfu = compute.get("mfu")
    peak = compute.get("peak_flops_per_s")
    achieved = compute.get("achieved_flops_per_s")
    found = ", ".join(f["id"] for f in summary.get("findings", []) if f.get("severity") != "info") or "-"
    return (f"| {item.name} | {verdict.get('category', 'failed')} | "
            f"{step * 1e3:.1f} ms | " if step else f"| {item.name} | {verdict.get('category', 'failed')} | - | ") + (
        f"{achieved / 1e12:.1f} TFLOP/s | " if achieved else "- | ") + (
        f"{peak / 1e12:.0f} TFLOP/s {compute.get('peak_dtype') or ''} | " if peak else "- | ") + (
        f"{mfu:.1%} | " if mfu is not None else "- | ") + f"{found} | {wall:.0f} s |"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("gpu-campaign"))
    parser.add_argument("--seconds-per-run", type=float, default=35.0)
    parser.add_argument("--dry-run", action="store_true", help="print what would run, run nothing")
    parser.add_argument("--only", default="", help="comma-separated item names, run in that order (default: all)")
    args = parser.parse_args(argv)
    items = _chosen(args.only)
    args.out = args.out.resolve()  # the runs start in sample_scripts/, the folders are made here
    gpu = cuda_gpu()
    if gpu is None or args.dry_run:
        if gpu is None:
            print("No CUDA GPU on this machine: a dry run. On a GPU this campaign would run:")
        else:
            print(f"Dry run on {gpu}. The campaign would run:")
        for item in items:
            print(f"  {item.name:20s} {' '.join(command(item, args.out, args.seconds_per_run)[2:])}")
            print(f"  {'':20s} ({item.shows})")
        print(f"{len(items)} runs of at most {args.seconds_per_run:g} s each, into {args.out}/")
        return 0
    args.out.mkdir(parents=True, exist_ok=True)
    print(f"GPU: {gpu}")
    print("| run | verdict | step | achieved | peak | MFU | findings above info | wall |")
    print("|---|---|---|---|---|---|---|---|")
    results = {}
    for item in items:
        started = time.monotonic()
        folder = args.out / item.name
        folder.mkdir(parents=True, exist_ok=True)
        # One run that hangs or dies must not cost the others: a device lease is minutes long.
        try:
            proc = subprocess.run(command(item, args.out, args.seconds_per_run), cwd=str(SAMPLES),
                                  capture_output=True, text=True, timeout=args.seconds_per_run * 3 + 120)
            exit_code, stdout, stderr = proc.returncode, proc.stdout, proc.stderr
        except subprocess.TimeoutExpired as timed_out:
            exit_code, stdout, stderr = None, _text(timed_out.stdout), _text(timed_out.stderr) + "\n[campaign: timed out]"
        (folder / "campaign-stdout.txt").write_text(stdout)
        (folder / "campaign-stderr.txt").write_text(stderr)
        summary = _summary(stdout)
        wall = time.monotonic() - started
        results[item.name] = {"exit_code": exit_code, "summary": summary, "wall_s": wall}
        print(_row(item, summary, wall), flush=True)
        # Written after every run, so a lease that ends mid-campaign still leaves the runs so far.
        (args.out / "campaign.json").write_text(json.dumps({"gpu": gpu, "results": results}, indent=1))
    return 0


def _chosen(only: str) -> tuple[Item, ...]:
    """The items ``--only`` names, in its order (a lease may end mid-campaign: the most wanted first)."""
    if not only:
        return ITEMS
    by_name = {item.name: item for item in ITEMS}
    unknown = [name for name in only.split(",") if name not in by_name]
    if unknown:
        raise SystemExit(f"unknown campaign item(s): {', '.join(unknown)}; known: {', '.join(by_name)}")
    return tuple(by_name[name] for name in only.split(","))


def _text(output: bytes | str | None) -> str:
    if output is None:
        return ""
    return output.decode(errors="replace") if isinstance(output, bytes) else output


if __name__ == "__main__":
    sys.exit(main())
