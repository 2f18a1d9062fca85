"""The measured what-if: each fix trainprobe can apply at run time, measured on the user's own script.

:func:`run_whatif` re-runs short bounded windows of the script, alternating a
baseline and each fix, and returns a :class:`~trainprobe.findings.WhatIf`
with a :class:`~trainprobe.findings.Verification` for every finding. A gain
is reported as measured only when every baseline/fix pair (two at least) was
faster by more than 5 % and faster beyond the run-to-run noise; otherwise the
finding says "no measurable gain here". ``trainprobe.api.verify`` is the
stage that calls it and writes the outputs.

The fixes live one per module in :mod:`.fixes`; the child side is a probe
plug-in (:mod:`.inject`), which the probe loads by name.
"""

from .verify import DEFAULT_BUDGET, WhatIfUnavailable, run_whatif

__all__ = ["run_whatif", "WhatIfUnavailable", "DEFAULT_BUDGET"]
