"""A measured result outranks an estimate: after the what-if, the gains it measured replace the
estimates they tested, and the ranking and the verdict follow them.

A finding whose fix the what-if measured (``Verification.status`` ``measured``: faster beyond the
run-to-run noise) gets the measured speed-up as its gain. One whose fix the what-if refuted gets no
gain, with its estimate kept in the text for comparison: over two pairs or more, a median speed-up
under the what-if's bar (``GAIN_THRESHOLD``), or every pair below the estimate. Findings the what-if
could not try, tried only once, or measured too noisily to tell (a wide interval around a large
median) keep their estimates. An information finding measured to pay is a warning (it was
information only because its gain was an estimate). The findings are ranked again (engine/verdict.py: by the gain in
samples per second) and the verdict made again from them, so the headline names the lever that was
measured to pay, or, when every tried fix was disproved, the next finding or the class of the step.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from .. import display
from ..findings import Diagnosis, Finding, Gain, Verification
from ..whatif.fixes import REGISTRY
from ..whatif.trials import GAIN_THRESHOLD
from .evaluate import pays
from .stability import Stability
from .verdict import make_verdict, rank_findings, with_stability

__all__ = ["measured_gain", "with_measured_gains"]


def _disproved(estimate: Gain, v: Verification) -> bool:
    """Whether a what-if without a measured gain refutes the estimate: over two pairs or more, its
    median is no gain at all, or every pair came out below what the estimate promised. A wide
    interval around a large median (a noisy machine) refutes nothing."""
    if v.n < 2 or v.speedup is None:
        return False
    if v.speedup < GAIN_THRESHOLD:
        return True
    return estimate.speedup is not None and v.high is not None and v.high < estimate.speedup


def measured_gain(finding: Finding, step_time: Optional[float]) -> Optional[Gain]:
    """The gain the what-if measured for ``finding``'s fix, or None when it measured none."""
    v = finding.verification
    if v is None or v.status not in ("measured", "no_gain") or not v.speedup:
        return None
    estimate = finding.gain
    if v.status == "no_gain" and not _disproved(estimate, v):
        return None  # too little, or too noisy, to overrule the estimate either way
    fix = REGISTRY.get(finding.fix_id or "")
    per_sample = estimate.per_sample or bool(fix is not None and fix.per_sample)  # a larger batch's
    base = estimate.base or step_time
    what = "more samples per second" if per_sample else "faster steps"
    was = f"; the estimate was {estimate.text}" if estimate.text and not estimate.measured else ""
    if v.status == "measured":
        seconds = base * (1.0 - 1.0 / v.speedup) if base else None
        return Gain(seconds_per_step=seconds, speedup=v.speedup, base=base, per_sample=per_sample, measured=True,
                    text=f"measured with --verify: {display.ratio(v.speedup)} {what} ({v.span}){was}")
    return Gain(seconds_per_step=0.0, speedup=None, base=base, per_sample=per_sample, measured=True,
                text=f"no measurable gain with --verify: {display.ratio(v.speedup)} ({v.span}){was}")


def _severity(finding: Finding, gain: Gain) -> str:
    """An information finding whose fix was measured to pay (at least SIGNIFICANT_GAIN of the step) is a
    warning: it was information because its gain was only an estimate (cpu-bf16-not-used, a fix shown
    as another's follow-up keeps its place)."""
    if finding.severity == "info" and not finding.after and gain.measured and gain.speedup and pays(gain):
        return "warning"
    return finding.severity


def with_measured_gains(diagnosis: Diagnosis) -> Diagnosis:
    """``diagnosis`` (with the what-if's verifications on its findings) with measured gains in place of
    the estimates they tested, ranked again, and its verdict made again from that ranking. The
    verdict's firmness over resamples of the steps is kept when its class stays the same."""
    facts = diagnosis.fact_values()
    step_time = facts.get("step_time")
    changed = False
    findings = []
    for f in diagnosis.findings:
        gain = measured_gain(f, step_time if isinstance(step_time, (int, float)) else None)
        if gain is not None and gain != f.gain:
            f, changed = replace(f, gain=gain, severity=_severity(f, gain)), True
        findings.append(f)
    if not changed:
        return diagnosis
    ranked = rank_findings(findings)
    old = diagnosis.verdict
    if old.category == "unknown":
        return replace(diagnosis, findings=tuple(ranked))
    verdict = make_verdict(facts, ranked)
    if verdict.category == old.category and old.agreement is not None:
        verdict = with_stability(verdict, Stability(agreement=old.agreement, alternative=old.alternative,
                                                    share_low=old.share_low, share_high=old.share_high), facts)
    return replace(diagnosis, findings=tuple(ranked), verdict=verdict)
