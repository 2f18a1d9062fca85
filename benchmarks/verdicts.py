"""Every recorded run, job and trace, diagnosed: its verdict and findings, one JSON line each.

Run before and after a change that must not move a verdict (a refactor) and compare the two files:

    python benchmarks/verdicts.py > before.jsonl
    ... change ...
    python benchmarks/verdicts.py > after.jsonl
    python benchmarks/verdicts.py --compare before.jsonl after.jsonl

Records are judged as ``trainprobe report`` judges them (a job's run.json as its job); each job folder is joined again from its
ranks (``trainprobe merge``); each trace, and the folder of two ranks' traces, is read again
(``trainprobe trace``). A line holds the verdict's category, its primary finding, its headline,
and every finding's id and severity.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data"


def _line(kind: str, name: str, diagnosis) -> dict:
    verdict = diagnosis.verdict
    return {"kind": kind, "name": name, "category": verdict.category, "primary": verdict.primary_finding,
            "headline": verdict.headline,
            "findings": sorted(f"{f.id}:{f.severity}" for f in diagnosis.findings)}


def _records(seen_sets: bool = False):
    for path in sorted((*(DATA / "runs").rglob("*.json"), *(DATA / "runs").rglob("*run.json.gz"))):  # gpu/: gzipped
        # Not real_test*/, the test sets: benchmarks/accuracy.py scores a held-out set once a session's
        # rules are final, and no other figure may look at it. --seen-test-sets takes in the sets whose
        # held-out run is done, to see what a class fix moves on them.
        held_out = not seen_sets and any(part.startswith("real_test") for part in path.parts)
        if path.name.removesuffix(".gz").endswith("run.json") and "whatif" not in path.name and not held_out:
            yield path
    for path in sorted((DATA / "jobs").glob("*/run.json")):
        yield path


def snapshot(out, seen_sets: bool = False) -> None:
    from trainprobe import api

    for path in _records(seen_sets):
        try:
            record = api.load_record(path)
        except api.TrainprobeError as exc:
            print(json.dumps({"kind": "record", "name": str(path.relative_to(ROOT)), "error": str(exc)}), file=out)
            continue
        print(json.dumps(_line("record", str(path.relative_to(ROOT)), _saved(api, record, path))), file=out,
              flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for folder in sorted(p.parent for p in (DATA / "jobs").glob("*/run.json")):
            result = _merge(folder, Path(tmp) / f"merge-{folder.name}")
            print(json.dumps(_line("merge", str(folder.relative_to(ROOT)), result.diagnosis)), file=out, flush=True)
        traces = sorted((DATA / "traces").glob("*.pt.trace.json.gz")) + [DATA / "traces" / "two_ranks_of128"]
        for trace in traces:
            result = api.trace([str(trace)], Path(tmp) / f"trace-{trace.name}")
            print(json.dumps(_line("trace", str(trace.relative_to(ROOT)), result.diagnosis)), file=out, flush=True)


def _saved(api, record, path: Path):
    """What `trainprobe report` on a saved record judges: the record, or the job it belongs to (a job's
    run.json, from the version that reads jobs as job records on)."""
    from trainprobe.api import job as jobs

    beside = getattr(jobs, "job_beside", None)
    job = beside(record, path) if beside is not None else None
    return jobs.judge(job) if job is not None else api.analyze(record)


def _merge(folder: Path, out: Path):
    from trainprobe import api

    merge = getattr(api, "merge", None)
    if merge is not None:
        return merge([folder], out)
    from trainprobe.job import merge_job  # before api.merge existed

    return merge_job([folder], out)


def compare(before: Path, after: Path) -> int:
    def load(path):
        return {(d["kind"], d["name"]): d for d in map(json.loads, path.read_text().splitlines()) if d}

    a, b = load(before), load(after)
    moved = 0
    for key in sorted(set(a) | set(b)):
        x, y = a.get(key), b.get(key)
        if x is None or y is None:
            print(f"{key}: only in {'after' if x is None else 'before'}")
            moved += 1
            continue
        for field in ("category", "primary", "findings", "error"):
            if x.get(field) != y.get(field):
                print(f"{key}: {field} {x.get(field)} -> {y.get(field)}")
                moved += 1
        if x.get("headline") != y.get("headline"):
            print(f"{key}: headline (wording)\n    before: {x.get('headline')}\n    after:  {y.get('headline')}")
    print(f"{len(a)} before, {len(b)} after: {moved} verdict or finding change(s)")
    return 1 if moved else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--compare", nargs=2, type=Path, metavar=("BEFORE", "AFTER"))
    parser.add_argument("--seen-test-sets", action="store_true",
                        help="also the tests/data/runs/real_test*/ records (only sets already scored held out)")
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    snapshot(sys.stdout, args.seen_test_sets)
    return 0


if __name__ == "__main__":
    sys.exit(main())
