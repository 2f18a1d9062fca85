"""Lay out the run folder of a test-set script from its recipe: their files, our data, a run.sh.

    python benchmarks/corpus/prepare.py NAME [NAME...] --runs /work/corpus-test [--mirrors /work/.mirror]

For each NAME this reads benchmarks/corpus/NAME/recipe.toml and makes RUNS/NAME/:

* the script's files, taken with ``git show COMMIT:PATH`` from a fetched mirror of the source
  repository (MIRRORS/owner+name/repo, as the search tool's ``fetch`` leaves it); a file whose
  repository is not mirrored (transformers is too large to fetch) must already be in place, read at
  the recipe's commit, and is reported when it is missing;
* the recipe's ``edits``, each on the line it names, so that no line number moves;
* the data, by running the recipe's make_data.py with the recipe's interpreter;
* ``run.sh OUT``: the recipe's command under ``trainprobe diagnose --json -q -o OUT`` (what
  ``benchmarks/accuracy.py --set real_test --corpus RUNS`` runs). TRAINPROBE_ROOT, when set, is put
  on PYTHONPATH so that a checkout's trainprobe is the one that runs.

Nothing here runs trainprobe, and nothing of theirs is written inside this repository.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
MIRRORS = Path("/work/.mirror")  # where the search tool's fetch leaves repositories
PATH_VARIABLES = ("HF_HOME", "TIKTOKEN_CACHE_DIR")  # env values that name a folder inside the run folder


def load_recipe(name: str) -> dict:
    with open(HERE / name / "recipe.toml", "rb") as f:
        return tomllib.load(f)


def _git_dir(mirrors: Path, source: str) -> Path:
    git_dir = mirrors / source.replace("/", "+") / "repo"
    # some fetches leave a clone with a working copy rather than a bare mirror
    return git_dir / ".git" if (git_dir / ".git").is_dir() else git_dir


def git_show(mirrors: Path, source: str, commit: str, path: str) -> bytes | None:
    """A file at its commit in a fetched mirror; None when the repository is not mirrored here or lacks it
    (benchmarks/accuracy.py reads a notebook's cells so too)."""
    git_dir = _git_dir(mirrors, source)
    if not git_dir.is_dir():
        return None
    done = subprocess.run(["git", f"--git-dir={git_dir}", "show", f"{commit}:{path}"], capture_output=True)
    return done.stdout if done.returncode == 0 else None


def _tree_files(mirrors: Path, source: str, commit: str, path: str) -> list[str]:
    """The files under ``path`` when it is a folder at ``commit`` (a package: Swin's models/), else []."""
    git_dir = _git_dir(mirrors, source)
    if not git_dir.is_dir():
        return []
    kind = subprocess.run(["git", f"--git-dir={git_dir}", "cat-file", "-t", f"{commit}:{path}"], capture_output=True,
                          text=True)
    if kind.stdout.strip() != "tree":
        return []
    listed = subprocess.run(["git", f"--git-dir={git_dir}", "ls-tree", "-r", "--name-only", commit, "--", path],
                            capture_output=True, text=True)
    return listed.stdout.split()


def place_files(recipe: dict, run: Path, mirrors: Path) -> list[str]:
    """Their files into the run folder, a folder named in ``files`` with every file under it (it was written
    out as git's listing of the tree before: test set 21's Swin ran without its models package); returns the
    ones that could not be placed."""
    wanted = [(recipe["source"], recipe["commit"], path, to) for to, path in recipe["files"].items()]
    wanted += [(e["source"], e["commit"], e["path"], e["to"]) for e in recipe.get("extra_files", [])]
    expanded = []
    for source, commit, path, to in wanted:
        inside = _tree_files(mirrors, source, commit, path.rstrip("/"))
        expanded += [(source, commit, f, to.rstrip("/") + f[len(path.rstrip("/")):]) for f in inside] or \
            [(source, commit, path, to)]
    missing = []
    for source, commit, path, to in expanded:
        target = run / to
        data = git_show(mirrors, source, commit, path)
        if data is None:
            if not target.exists():
                missing.append(f"{to} ({source} {path}@{commit[:7]}: not mirrored; place it by hand)")
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
    return missing


def apply_edits(recipe: dict, run: Path) -> None:
    """Each edit touches one line: `after` gets `append` added to its end; `cell_line` is replaced in a notebook."""
    for edit in recipe.get("edits", []):
        path = run / edit["file"]
        if "cell_line" in edit:
            notebook = json.loads(path.read_text(encoding="utf-8"))
            hits = 0
            for cell in notebook["cells"]:
                for i, line in enumerate(cell["source"]):
                    if line.rstrip("\n") == edit["cell_line"]:
                        cell["source"][i] = line.replace(edit["cell_line"], edit["replace"])
                        hits += 1
            if hits != 1:
                raise SystemExit(f"{path}: expected one line {edit['cell_line']!r}, found {hits}")
            path.write_text(json.dumps(notebook, indent=1), encoding="utf-8")
            continue
        lines = path.read_text(encoding="utf-8").split("\n")
        hits = [i for i, line in enumerate(lines) if line == edit["after"]]
        if len(hits) != 1:
            raise SystemExit(f"{path}: expected one line {edit['after']!r}, found {len(hits)}")
        lines[hits[0]] += edit["append"]
        path.write_text("\n".join(lines), encoding="utf-8")


def environment(recipe: dict, run: Path) -> dict[str, str]:
    env = {}
    for key, value in recipe.get("env", {}).items():
        if key in PATH_VARIABLES:
            (run / value).mkdir(parents=True, exist_ok=True)
            value = str(run / value)
        env[key] = value
    return env


def run_script(recipe: dict, run: Path) -> str:
    """The text of run.sh: cd to the recipe's folder and diagnose the script into $1."""
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in environment(recipe, run).items())
    args = " ".join(shlex.quote(a) for a in recipe.get("args", []))
    command = (f"{env + ' ' if env else ''}{shlex.quote(recipe['python'])} -m trainprobe diagnose --json -q "
               f"-o \"$out\" {shlex.quote(recipe['script'])}{' -- ' + args if args else ''}")
    return ("#!/usr/bin/env bash\n"
            f"# {recipe['name']}: {recipe['source']} @ {recipe['commit'][:7]} (benchmarks/corpus/{recipe['name']})\n"
            "set -e\n"
            'out="$(realpath -m "${1:?usage: run.sh OUT_DIR}")"\n'
            f"cd {shlex.quote(str(run / recipe.get('cwd', '.')))}\n"
            'if [ -n "$TRAINPROBE_ROOT" ]; then export PYTHONPATH="$TRAINPROBE_ROOT${PYTHONPATH:+:$PYTHONPATH}"; fi\n'
            f"{command}\n")


def prepare(name: str, runs: Path, mirrors: Path) -> list[str]:
    recipe = load_recipe(name)
    run = runs / name
    run.mkdir(parents=True, exist_ok=True)
    missing = place_files(recipe, run, mirrors)
    if missing:
        return missing
    apply_edits(recipe, run)
    if recipe.get("make_data"):
        subprocess.run([recipe["python"], str(HERE / name / recipe["make_data"]), str(run)], check=True)
    script = run / "run.sh"
    script.write_text(run_script(recipe, run))
    script.chmod(0o755)
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="+", help="recipe folders under benchmarks/corpus")
    parser.add_argument("--runs", type=Path, required=True, help="where the run folders go (outside the repository)")
    parser.add_argument("--mirrors", type=Path, default=MIRRORS, help="fetched repositories")
    args = parser.parse_args(argv)
    status = 0
    for name in args.names:
        missing = prepare(name, args.runs.resolve(), args.mirrors)
        for item in missing:
            print(f"{name}: missing {item}", file=sys.stderr)
            status = 1
        if not missing:
            print(f"{name}: ready, {args.runs.resolve() / name / 'run.sh'} OUT_DIR")
    return status


if __name__ == "__main__":
    sys.exit(main())
