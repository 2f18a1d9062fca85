"""Time to report: how long `trainprobe diagnose` takes on each sample, and where that time goes.

For each sample script this measures, one after the other (never in
parallel, which would distort both):

* plain: ``python sample.py ARGS`` run to its own end, for scale;
* diagnose: the wall time of ``trainprobe diagnose --json SCRIPT ARGS``, split
  into the script's own start-up (launch to first training step, from the run
  record's ``outcome.startup``: imports, data generation, model build), the
  rest of the script's time under the probe (warm-up, measured and profiled
  windows, until trainprobe stops it), and what follows the script (rule
  engine, report, process exit).

    python benchmarks/time_to_report.py --ci
    python benchmarks/time_to_report.py --samples clean_mlp,slow_storage --markdown --skip-plain
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))
from accuracy import ROOT, load_samples, run_diagnose  # noqa: E402  (same folder)

HEADERS = ["sample", "plain run (to its end)", "diagnose (wall)", "script start-up",
           "script under probe after start-up", "after the script", "start-up share"]


def plain_run(path: Path, args: tuple[str, ...], timeout: float) -> Optional[float]:
    start = time.monotonic()
    try:
        proc = subprocess.run([sys.executable, str(path), *args], capture_output=True, timeout=timeout,
                              cwd=str(ROOT))
    except subprocess.TimeoutExpired:
        return None
    return time.monotonic() - start if proc.returncode == 0 else None


def _s(x: Optional[float]) -> str:
    return "n/a" if x is None else f"{x:.1f} s"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--ci", action="store_true", help="only the samples marked ci=True")
    p.add_argument("--samples", default="", help="comma-separated sample names (default: all)")
    p.add_argument("--skip-plain", action="store_true", help="do not time plain python runs")
    p.add_argument("--markdown", action="store_true")
    p.add_argument("--timeout", type=float, default=300.0)
    args = p.parse_args(argv)

    samples = load_samples()
    if args.samples:
        wanted = {s.strip().removesuffix(".py") for s in args.samples.split(",") if s.strip()}
        samples = [s for s in samples if s.name in wanted]
    elif args.ci:
        samples = [s for s in samples if s.ci]

    rows, totals = [], {"wall": 0.0, "startup": 0.0}
    base = Path(tempfile.mkdtemp(prefix="trainprobe-ttr-"))
    try:
        for s in samples:
            print(f"{s.name} ...", file=sys.stderr, flush=True)
            plain = None if args.skip_plain else plain_run(s.path, s.args, args.timeout)
            r = run_diagnose(s, "cpu", base / s.name, args.timeout)
            after = None if r.duration is None else max(0.0, r.wall - r.duration)
            under = None if r.duration is None or r.startup is None else r.duration - r.startup
            share = None if r.startup is None or not r.wall else r.startup / r.wall
            rows.append([s.name, _s(plain), _s(r.wall) + ("" if r.status in ("stopped", "completed") else f" [{r.status}]"),
                         _s(r.startup), _s(under), _s(after), "n/a" if share is None else f"{100 * share:.0f}%"])
            totals["wall"] += r.wall
            totals["startup"] += r.startup or 0.0
    finally:
        shutil.rmtree(base, ignore_errors=True)

    if args.markdown:
        print("| " + " | ".join(HEADERS) + " |")
        print("|" + "---|" * len(HEADERS))
        for row in rows:
            print("| " + " | ".join(row) + " |")
    else:
        widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(HEADERS)]
        print("  ".join(h.ljust(w) for h, w in zip(HEADERS, widths)))
        for row in rows:
            print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    if rows:
        print(f"\n{len(rows)} samples: diagnose took {totals['wall']:.0f} s in all, "
              f"{totals['startup']:.0f} s of it the scripts' own start-up.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
