"""The README and docs/ pages: every link between them leads somewhere, and every example output is
what the current code prints (benchmarks/readme_examples.py regenerates them)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_leads_to_a_file(page):
    targets = [t for t in _LINK.findall(page.read_text(encoding="utf-8")) if "://" not in t]
    missing = [t for t in targets if not (page.parent / t).exists()]
    assert not missing, missing


def test_the_readme_stays_a_landing_page():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) < 150
    assert "![" in text and (ROOT / "docs" / "images" / "report.png").exists()
    assert "pip install -e . && trainprobe diagnose sample_scripts/imagefolder_main_process_decode.py" in text
    assert 'pip install -e ".[test]" && python -m pytest -q -p no:cacheprovider' in text


@pytest.mark.slow
def test_every_example_output_is_what_the_code_prints_now():
    proc = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "readme_examples.py"), "--check",
                           "--no-screenshot"], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
