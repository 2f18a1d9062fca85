"""Apply rules to facts: each rule that holds becomes a Finding."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Optional

from ..findings import Evidence, Finding, Gain
from ..facts import FACT_CATALOG
from .expr import Missing, rule_clock, time_budget
from .. import display
from ..facts.window import enough_steps
from .rule import Rule, Variant

__all__ = ["fact_context", "evaluate_rule", "evaluate_rules", "gain_text", "with_gain_interval", "pays",
           "RuleRuntimeError"]


class RuleRuntimeError(Exception):
    """A rule's expression or template failed on this record: "path:line: problem"."""


# A rule evaluates in well under a millisecond; the budgets only stop a broken or hostile one. The
# total covers the many evaluations of the stability check, so one slow rule cannot add minutes.
EVALUATION_BUDGET = 0.5  # seconds per evaluation of a rule
RULE_TOTAL_BUDGET = 2.0  # seconds per rule over one diagnosis
# A fix that recovers less than this share of the step it is part of would not pay: whatever its rule's
# severity, it is info (only worth knowing about), so that no warning or critical finding promises less
# than an info one below it. The verdict names a bottleneck from this share on too (engine/verdict.py).
SIGNIFICANT_GAIN = 0.05
MAX_GAIN_SHARE = 0.95  # no fix makes a step free: a gain is at most this share of its step


def _template_line(exc: BaseException) -> Optional[int]:
    """The line of a template's own text where ``exc`` was raised (Jinja maps its frames to it)."""
    tb, line = exc.__traceback__, None
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == "<template>":
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


# One Missing per fact name (it holds nothing but the name): a diagnosis builds this context for
# every resample of the steps.
_MISSING: dict[str, Missing] = {}


def fact_context(facts: dict[str, object]) -> dict[str, Any]:
    """The names an expression sees: every catalog fact, Missing where unknown."""
    if len(_MISSING) != len(FACT_CATALOG):  # the catalog is complete once the fact families are imported
        _MISSING.clear()
        _MISSING.update({name: Missing(name=name) for name in FACT_CATALOG})
    get = facts.get
    return {name: (missing if (value := get(name)) is None else value) for name, missing in _MISSING.items()}


def _number(expression, context: dict[str, Any]) -> Optional[float]:
    """An expression's value as a float; None when missing, not a number or dividing by 0."""
    if expression is None:
        return None
    try:
        value = expression.evaluate(context)
    except ZeroDivisionError:
        return None
    if isinstance(value, (Missing, bool)) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _gain(rule: Rule, context: dict[str, Any], base: Optional[float]) -> Gain:
    """Seconds per step recovered, and the speed-up over the step time they are part of.

    ``base`` is the mean steady step (the ``step_time`` fact), the base of every share:
    a gain of s seconds per step then turns into a speed-up of throughput, base / (base - s)."""
    value = _number(rule.gain, context)
    if value is None:
        return Gain()
    step_time = _number(rule.gain_base, context) if rule.gain_base else base
    seconds = max(0.0, value)
    if step_time:
        seconds = min(seconds, step_time * MAX_GAIN_SHARE)
    speedup = step_time / (step_time - seconds) if step_time and seconds > 0 else None
    gain = Gain(seconds_per_step=seconds, speedup=speedup, base=step_time, per_sample=rule.gain_per == "sample")
    return replace(gain, text=gain_text(gain))


def with_gain_interval(finding: Finding, interval: Optional[tuple[float, float]]) -> Finding:
    """The finding with its gain's 95% interval over resamples of the steady steps, in its text too.

    A gain read from the profiling windows (not from the steady steps) does not move with them: it
    gets no interval rather than a point dressed up as one."""
    seconds = finding.gain.seconds_per_step
    if interval is None or not seconds:
        return finding
    base = finding.gain.base
    if base:  # the point's cap holds for its interval
        interval = (min(interval[0], seconds), min(interval[1], max(seconds, base * MAX_GAIN_SHARE)))
    if interval[1] - interval[0] < 0.02 * seconds:
        return finding
    gain = replace(finding.gain, low=interval[0], high=interval[1])
    return replace(finding, gain=replace(gain, text=gain_text(gain)))


def gain_text(gain: Gain) -> str:
    """"about 1.7× faster steps (56.1 ms less in a 141 ms mean step; 95% interval 50–62 ms)"; for a
    gain per sample (a larger batch) "about 2.5× more samples per second (...)"."""
    seconds = gain.seconds_per_step
    if not seconds:
        return ""
    base = f" in a {display.seconds(gain.base)} mean step" if gain.base else ""
    interval = ""
    if gain.low is not None and gain.high is not None:
        interval = f"; 95% interval {display.seconds(gain.low)}–{display.seconds(gain.high)}"
    if gain.per_sample:
        less = f"{display.seconds(seconds)} less for the samples of one{base.replace(' in a', '')}"
        if gain.speedup and gain.speedup >= 1.05:
            return f"about {display.ratio(gain.speedup)} more samples per second ({less}{interval})"
        return f"about {less}{interval}"
    if gain.speedup and gain.speedup >= 1.05:
        return f"about {display.ratio(gain.speedup)} faster steps ({display.seconds(seconds)} less{base}{interval})"
    detail = f" ({(base + interval).lstrip('; ').strip()})" if base or interval else ""
    return f"about {display.seconds(seconds)} less per step{detail}"


def _severity(rule: Rule, context: dict[str, Any], gain: Gain) -> str:
    severity = next((severity for severity, expression in rule.severity_when
                     if _truthy(expression.evaluate(context))), rule.severity)
    if gain.seconds_per_step is not None and gain.base and not pays(gain):
        return "info"  # the fix would not pay: only worth knowing about
    return severity


def pays(gain: Gain) -> bool:
    """The gain recovers at least SIGNIFICANT_GAIN of its step (False when either is unknown)."""
    return gain.seconds_per_step is not None and bool(gain.base) and \
        gain.seconds_per_step >= SIGNIFICANT_GAIN * gain.base


def _truthy(value: Any) -> bool:
    return bool(value) and not isinstance(value, Missing)


def _evidence(rule: Rule, facts: dict[str, object], context: dict[str, Any]
              ) -> tuple[Evidence, ...]:
    out = []
    for spec in rule.evidence:
        if facts.get(spec.fact) is None:
            continue  # a number this run could not measure is no evidence
        unit = FACT_CATALOG[spec.fact].unit
        threshold = spec.threshold.render(context) if spec.threshold else None
        out.append(Evidence(label=spec.label, value=display.by_unit(facts.get(spec.fact), unit),
                            threshold=threshold or None, fact=spec.fact))
    return tuple(out)


def evaluate_rule(rule: Rule, facts: dict[str, object], render: bool = True,
                  base: Optional[dict[str, Any]] = None, budget: float = EVALUATION_BUDGET) -> Optional[Finding]:
    """The rule's Finding when its condition holds; raises RuleRuntimeError when it breaks.

    ``render=False`` leaves the texts empty: enough to rank findings and name a verdict (the
    stability check does that a hundred times). ``base`` is ``fact_context(facts)`` when the
    caller made it once for many rules."""
    if rule.gpu_only and not facts.get("cuda_used"):
        return None
    if not rule.without_steps and not enough_steps(facts):
        return None  # too few steps to judge from (or none): only settings rules speak
    # The caller's shared context is lent to this rule, not copied (a copy of every fact for each rule
    # and resample was most of the bootstrap's rule time): the names the rule adds are taken out after.
    context = base if base is not None else fact_context(facts)
    try:
        return _evaluate(rule, facts, render, budget, context)
    finally:
        if base is not None:
            for name in _RULE_NAMES:
                context.pop(name, None)
            for name, _ in rule.lets:
                context.pop(name, None)


# The names evaluate_rule adds to a context beside the facts.
_RULE_NAMES = ("opt", "gain_seconds", "speedup", "severity")
# id(rule) -> (the rule, the inputs its condition was false for); the rule is held so its id is not reused.
_QUIET: dict[int, tuple[Rule, set]] = {}


def _evaluate(rule: Rule, facts: dict[str, object], render: bool, budget: float,
              context: dict[str, Any]) -> Optional[Finding]:
    context["opt"] = dict(rule.options)
    key = "let"  # what is being evaluated, so that an error names its line
    if rule.lets:
        started = rule_clock()
        try:
            with time_budget(budget):
                for name, expression in rule.lets:
                    key = f"let {name}"  # its own line in the [let] table (Rule.lines)
                    context[name] = expression.evaluate(context)
        except Exception as exc:  # pylint: disable=broad-except  # one broken rule must not stop others
            raise RuleRuntimeError(_runtime_error(rule, key, exc)) from exc
        budget = max(0.0, budget - (rule_clock() - started))  # the lets and the rest share one budget
    key = "condition"
    # A condition is a pure function of the facts it reads (and the rule's options): inputs it was false
    # for stay false. Most rules are quiet on most runs, and most of their facts do not move between the
    # bootstrap's resamples (types kept in the key: 1, 1.0 and True are equal and not the same input).
    quiet = _QUIET.get(id(rule))
    if quiet is None or quiet[0] is not rule:
        if len(_QUIET) > 1024:
            _QUIET.clear()
        quiet = _QUIET[id(rule)] = (rule, set())
    inputs = tuple((value.__class__, value) for name, value in zip(rule.condition.names,
                                                                  map(context.get, rule.condition.names))
                   if name != "opt")  # the options are the rule's own: the same for every input
    try:
        if inputs in quiet[1]:
            return None
    except TypeError:  # a value that cannot be a key: judge it every time
        inputs = None
    try:
        with time_budget(budget):
            if not _truthy(rule.condition.evaluate(context)):
                if inputs is not None and len(quiet[1]) < 4096:
                    quiet[1].add(inputs)
                return None
            key = "gain"
            gain = _gain(rule, context, facts.get("step_time"))  # type: ignore[arg-type]
            context.update(gain_seconds=gain.seconds_per_step, speedup=gain.speedup)
            key = "severity_when"
            severity = _severity(rule, context, gain)
            context["severity"] = severity
            if not render:
                return Finding(id=rule.id, name=rule.name, category=rule.category, severity=severity, title="",
                               message="", advice="", gain=gain, source=rule.source, after=rule.after)
            key = "framework"
            variant = _variant(rule, context)
            texts = {}
            for key in ("title", "message", "advice", "snippet", "changes", "fix_id"):
                template = getattr(variant, key, None) if key in _VARIANT_TEXTS else None
                template = template or getattr(rule, key)
                texts[key] = template.render(context) if template else ""
            # A library between the script and the framework: say the knob goes through it, unless the probe
            # found the library's own argument that carries it (framework_config_owner_at names that call).
            if variant is not None and variant.name == facts.get("framework") and facts.get("framework_via") \
                    and not facts.get("framework_config_owner_at"):
                texts["advice"] = _through_library(facts, texts["advice"])
            elif variant is None and rule.variants and facts.get("framework_runs_loop") \
                    and texts["changes"].strip() == facts.get("loop_at"):
                texts["advice"] = _in_library_loop(facts, texts["advice"])
            key = "evidence"
            evidence = _evidence(rule, facts, context)
        return Finding(
            id=rule.id, name=rule.name, category=rule.category, severity=severity,
            title=texts["title"], message=texts["message"], advice=texts["advice"], snippet=texts["snippet"],
            evidence=evidence, gain=gain, docs=rule.docs, fix_id=texts["fix_id"] or None, source=rule.source,
            changes_at=texts["changes"].strip(), framework=variant.name if variant is not None else "",
            after=rule.after,
        )
    except Exception as exc:  # pylint: disable=broad-except  # one broken rule must not stop others
        raise RuleRuntimeError(_runtime_error(rule, key, exc)) from exc


_VARIANT_TEXTS = ("advice", "snippet", "changes")
# Frameworks whose objects a command-line parser builds when the script makes no settings call of its own:
# LightningCLI makes the Trainer from --trainer.* options, litgpt's CLI makes Fabric from --precision. Their tables
# name Trainer(...) and Fabric(...), a line such a script does not have; the flag's table ([framework.cli]) comes
# first there, when the script has the flag. (The Trainer's tables name HfArgumentParser's flags themselves.)
_BUILT_FROM_FLAGS = ("lightning", "fabric")


def _variant(rule: Rule, context: dict[str, Any]) -> Optional[Variant]:
    """The rule's fix in the terms of the framework that runs the loop: the run's configuration file where
    it sets the knob ([framework.config]), else the argument of a library's function the script called
    ([framework.library]), else the framework's own [framework.NAME] table, else the script's
    command-line flags ([framework.cli]), each only when its ``when`` holds; None for the plain-PyTorch fix."""
    if not rule.variants:
        return None
    framework = context.get("framework")
    order: tuple[Optional[str], ...] = (framework if isinstance(framework, str) else None, "cli")
    if framework in _BUILT_FROM_FLAGS and not isinstance(context.get("framework_config_at"), str):
        order = order[::-1]  # the script never builds the Trainer itself: its command line is the knob
    # A knob the run read from a file is changed in that file: a DataLoader(...) or a flag's default elsewhere is
    # not what set it (facts/configkeys.py checks the key against the value the run used).
    # Then an argument of the library function the script's line called, which set the knob deep inside the
    # library (facts/code.py loader_batch_param): the user passes it there, whatever framework runs below.
    order = ("config", "library", *order)
    for name in order:
        for variant in rule.variants:
            if variant.name == name and (variant.when is None or _truthy(variant.when.evaluate(context))):
                return variant
    return None


def _through_library(facts: dict[str, object], advice: str) -> str:
    """A framework's fix where a library between the script and the framework builds the framework's objects
    (neuralforecast's models make their own Lightning Trainer): the user reaches the knob through that library."""
    via, name = facts.get("framework_via"), str(facts.get("framework_name") or facts.get("framework"))
    name = name.removeprefix("the ")  # "the Hugging Face Trainer": the sentences below give it its article
    return (f"{via} builds and runs the {name} objects here, not a line of the script: give the setting below "
            f"through {via}'s own arguments (libraries like it often hand extra keyword arguments on to {name}). "
            f"{name}'s own spelling: {advice}")


def _in_library_loop(facts: dict[str, object], advice: str) -> str:
    """A loop fix where a library trainprobe has no table for runs the loop (poutyne, speechbrain, tianshou):
    the plain-PyTorch fix describes code the user does not have, so say whose it is and where the user
    reaches it."""
    library = facts.get("framework")
    return (f"{library} runs this training loop (the script hands it over at {facts.get('loop_at')}), so the "
            f"loop's code is {library}'s, not the script's: a change to it is made through {library}'s own "
            f"arguments or callbacks (how it batches, logs, evaluates or builds its DataLoader). In plain PyTorch "
            f"terms: {advice}")


def _runtime_error(rule: Rule, key: str, exc: BaseException) -> str:
    """"path:line: ..." where line is the failing key's, and the line inside its text for a template."""
    line = rule.line_of(key)
    where = "" if key == "condition" else f" in its {key}"
    inner = _template_line(exc) if key in ("title", "message", "advice", "snippet", "changes", "fix_id") else None
    if inner is not None:
        # A multi-line string starts on the line after its key (''''' then a newline TOML drops).
        line += inner if rule.line_of(key) != rule.line else inner - 1
        where += f" (line {inner} of the text)"
    return f"{rule.source}:{line}: rule {rule.id} failed on this run{where}: {type(exc).__name__}: {exc}"


def evaluate_rules(rules: list[Rule], facts: dict[str, object], render: bool = True,
                   spent: Optional[dict[str, float]] = None) -> tuple[list[Finding], list[str]]:
    """Findings and rule errors. ``spent`` (rule id to seconds) carries each rule's time from one call
    to the next, for the total budget of a diagnosis that evaluates its rules many times."""
    findings, errors = [], []
    base = fact_context(facts)
    spent = {} if spent is None else spent
    for rule in rules:
        if spent.get(rule.id) == math.inf:
            continue  # it failed earlier in this diagnosis, and was said then
        left = RULE_TOTAL_BUDGET - spent.get(rule.id, 0.0)
        started = rule_clock()  # CPU time less garbage collections: see expr.time_budget
        try:
            finding = evaluate_rule(rule, facts, render, base, budget=max(0.0, min(EVALUATION_BUDGET, left)))
        except RuleRuntimeError as exc:
            errors.append(str(exc))
            spent[rule.id] = math.inf
            continue
        spent[rule.id] = spent.get(rule.id, 0.0) + rule_clock() - started
        if finding is not None:
            findings.append(finding)
    return findings, errors
