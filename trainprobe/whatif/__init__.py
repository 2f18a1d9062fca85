"""The measured what-if: each fix trainprobe can apply at run time, measured on the user's own script.

``verify_result`` (after ``trainprobe diagnose --verify``) and ``verify_record``
(``trainprobe verify run.json``) re-run short bounded windows of the script,
alternating a baseline and each fix, and attach a
:class:`~trainprobe.findings.Verification` to every finding. A gain is
reported as measured only when every baseline/fix pair (two at least) was
faster by more than 5 % and by more than the baseline runs differed among
themselves; otherwise the finding says "no measurable gain here".

The child side (``inject``) is imported by the probe's child process only.
"""

from .verify import DEFAULT_BUDGET, verify_record, verify_result

__all__ = ["verify_result", "verify_record", "DEFAULT_BUDGET"]
