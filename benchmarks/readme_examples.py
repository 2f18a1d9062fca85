"""The example outputs in README.md and docs/*.md, regenerated from the current code, and the screenshot
of a real report at the top of the README.

Each example is a console block between ``<!-- example:NAME -->`` and ``<!-- /example:NAME -->`` in a
Markdown file: the command as a user types it, then what that command prints now. The command runs
for real, on a copy of the recorded data it reads (in a scratch folder laid out like the repository,
so that the paths it prints are the paths shown, and so that `trainprobe report` writes its
diagnosis.json beside the copy, not beside the repository's record). Everything it reads is recorded
data (runs, traces, jobs), and the figures a diagnosis adds (intervals) come from a seeded bootstrap,
so the same code prints the same text: ``--check`` fails when a block no longer matches.

The screenshot is of the report the first example writes, taken by headless Chromium
(``docs/images/report.png``).

    python benchmarks/readme_examples.py                   # rewrite the blocks and the screenshot
    python benchmarks/readme_examples.py --check           # exit 1 when a block differs from the code's output
    python benchmarks/readme_examples.py --no-screenshot   # the blocks only
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCREENSHOT = ROOT / "docs" / "images" / "report.png"
SCREENSHOT_SIZE = (1280, 1000)
# The flags a headless Chromium needs in a container without a display, a sandbox or a network.
CHROMIUM_FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--no-first-run", "--hide-scrollbars", "--force-device-scale-factor=1")


@dataclass(frozen=True)
class Example:
    name: str  # the marker's name
    page: str  # the Markdown file, relative to the repository
    command: str  # as shown, and as run (in the scratch copy)
    reads: tuple[str, ...]  # the repository's files or folders it reads, copied into the scratch folder


EXAMPLES = (
    Example("report", "README.md",
            "trainprobe report tests/data/runs/imagefolder_main_process_decode.cpu.run.json -o report.html",
            ("tests/data/runs/imagefolder_main_process_decode.cpu.run.json",)),
    Example("trace", "docs/trace.md",
            "trainprobe trace tests/data/traces/resnet50_v100_workers0.pt.trace.json.gz -o trace-run",
            ("tests/data/traces/resnet50_v100_workers0.pt.trace.json.gz",)),
    Example("job", "docs/jobs.md",
            "trainprobe report tests/data/jobs/slow_rank/run.json -o job-report.html",
            ("tests/data/jobs/slow_rank",)),
    Example("compare", "docs/compare.md",
            "trainprobe compare tests/data/runs/compare/cifar_resnet_unoptimized.cpu.run.json "
            "tests/data/runs/compare/cifar_resnet_optimized.cpu.run.json --fail-if-slower 10",
            ("tests/data/runs/compare/cifar_resnet_unoptimized.cpu.run.json",
             "tests/data/runs/compare/cifar_resnet_optimized.cpu.run.json")),
)


def _copy(scratch: Path, reads: tuple[str, ...]) -> None:
    for rel in reads:
        source, target = ROOT / rel, scratch / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copy2(source, target)


def run_example(example: Example, scratch: Path) -> str:
    """The console block: ``$ command`` and what it prints (stdout, then stderr), no colour."""
    _copy(scratch, example.reads)
    argv = shlex.split(example.command)
    env = {**os.environ, "NO_COLOR": "1", "PYTHONPATH": os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.run([sys.executable, "-m", "trainprobe", *argv[1:]], cwd=scratch, env=env,
                          capture_output=True, text=True, timeout=300)
    if proc.returncode not in (0, 3):  # 3: compare's gate failed, which an example may show
        raise RuntimeError(f"{example.command} exited {proc.returncode}:\n{proc.stdout}\n{proc.stderr}")
    printed = (proc.stdout + proc.stderr).rstrip("\n")
    return f"```console\n$ {example.command}\n{printed}\n```"


def _block(name: str) -> re.Pattern:
    return re.compile(rf"(<!-- example:{re.escape(name)} -->\n)(.*?)(\n<!-- /example:{re.escape(name)} -->)",
                      re.DOTALL)


def update(text: str, name: str, block: str) -> str:
    pattern = _block(name)
    if not pattern.search(text):
        raise RuntimeError(f"no <!-- example:{name} --> ... <!-- /example:{name} --> block")
    return pattern.sub(lambda m: m.group(1) + block + m.group(3), text, count=1)


def screenshot(report: Path, out: Path) -> None:
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    if chromium is None:
        raise RuntimeError("chromium is not installed (apt-get install chromium); use --no-screenshot")
    out.parent.mkdir(parents=True, exist_ok=True)
    width, height = SCREENSHOT_SIZE
    with tempfile.TemporaryDirectory(prefix="trainprobe-chromium-") as profile:
        proc = subprocess.run([chromium, *CHROMIUM_FLAGS, f"--user-data-dir={profile}",
                               f"--window-size={width},{height}", f"--screenshot={out}", report.as_uri()],
                              capture_output=True, text=True, timeout=120)
    if proc.returncode != 0 or not out.exists():
        raise RuntimeError(f"chromium could not take the screenshot:\n{proc.stderr}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--check", action="store_true", help="compare the blocks with the code's output; change nothing")
    p.add_argument("--no-screenshot", action="store_true", help="leave docs/images/report.png as it is")
    args = p.parse_args(argv)
    stale = []
    with tempfile.TemporaryDirectory(prefix="trainprobe-readme-") as folder:
        scratch = Path(folder)
        pages: dict[str, str] = {}
        for example in EXAMPLES:
            text = pages.setdefault(example.page, (ROOT / example.page).read_text(encoding="utf-8"))
            new = update(text, example.name, run_example(example, scratch))
            if new != text:
                stale.append(f"{example.page}: {example.name}")
            pages[example.page] = new
        if args.check:
            for line in stale:
                print(f"out of date: {line} (run python benchmarks/readme_examples.py)")
            return 1 if stale else 0
        for page, text in pages.items():
            (ROOT / page).write_text(text, encoding="utf-8")
        for line in stale:
            print(f"updated: {line}")
        if not args.no_screenshot:
            screenshot(scratch / "report.html", SCREENSHOT)
            print(f"screenshot: {SCREENSHOT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
