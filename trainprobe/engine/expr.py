"""The rule language: Jinja2 expressions and templates in a sandbox.

Rule files are data, never Python: conditions and gains are Jinja2
*expressions* and messages are Jinja2 *templates*, compiled by a
``SandboxedEnvironment``. On top of the sandbox, every expression is checked
when it is loaded: it may name only catalog facts, ``opt.<option>`` and the
helper functions below, and no attribute or key starting with ``_``.

A fact the record cannot tell is :class:`Missing`: every comparison with it is
false (``!=`` too), arithmetic on it stays missing and it is falsy, so a
condition over missing data does not fire. ``known(x)`` or ``x is defined``
test for it explicitly.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import hashlib
import math
import threading
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

from jinja2 import nodes
from jinja2.exceptions import TemplateAssertionError, TemplateSyntaxError, UndefinedError
from jinja2.meta import find_undeclared_variables
from jinja2.parser import Parser
from jinja2.runtime import Undefined
from jinja2.sandbox import SandboxedEnvironment
from jinja2.utils import consume, missing

from .. import display
from . import textcache

__all__ = ["Missing", "ENV", "HELPERS", "rule_clock", "RULE_FILTERS", "RuleSyntaxError", "compile_expression",
           "compile_template", "Expression", "Template", "time_budget", "keep_checked_texts"]

_MAX_POWER = 64


class Missing(Undefined):
    """A fact the record could not tell: comparisons are false, arithmetic stays missing."""

    __slots__ = ()

    def __init__(self, hint=None, obj=missing, name=None, exc=UndefinedError):  # noqa: D107
        if exc is not UndefinedError:  # the sandbox refusing an unsafe attribute
            raise exc(hint or f"access to attribute {name!r} is not allowed")
        super().__init__(hint, obj, name, exc)

    def _missing(self, *_args: Any, **_kwargs: Any) -> "Missing":
        return self

    def _false(self, _other: Any) -> bool:
        return False

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = _missing
    __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = _missing
    __mod__ = __rmod__ = __pow__ = __rpow__ = __neg__ = __pos__ = _missing
    __lt__ = __le__ = __gt__ = __ge__ = __ne__ = _false

    def __eq__(self, other: Any) -> bool:
        return False

    def __getattr__(self, name: str) -> Any:
        if name[:2] == "__" and name[-2:] == "__":
            raise AttributeError(name)
        return self  # missing.startswith("x") is missing too

    def __call__(self, *_args: Any, **_kwargs: Any) -> "Missing":
        return self

    __hash__ = Undefined.__hash__

    def __str__(self) -> str:
        return display.UNKNOWN

    def __bool__(self) -> bool:
        return False


def _is_missing(value: Any) -> bool:
    return value is None or isinstance(value, Undefined)


def _known(value: Any) -> bool:
    return not _is_missing(value)


def _extreme(pick: Callable) -> Callable:
    def fn(*args: Any) -> Any:
        values = args[0] if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
        if any(_is_missing(v) for v in values):
            return Missing(name="value")
        return pick(values)
    return fn


def _unary(fn: Callable) -> Callable:
    def wrapped(value: Any, *args: Any) -> Any:
        return Missing(name="value") if _is_missing(value) else fn(value, *args)
    return wrapped


def _clamp(value: Any, low: Any, high: Any) -> Any:
    if _is_missing(value):
        return Missing(name="value")
    return max(low, min(high, value))


HELPERS: dict[str, Callable] = {
    "known": _known,
    "min": _extreme(min),
    "max": _extreme(max),
    "abs": _unary(abs),
    "round": _unary(round),
    "ceil": _unary(math.ceil),
    "floor": _unary(math.floor),
    "clamp": _clamp,
}


# The filters rule messages use ({{ data_wait_share|pct }}); the numbers look as they do in the report.
RULE_FILTERS: dict[str, Callable] = {
    "pct": display.share,
    "secs": display.seconds,
    "bytes": display.nbytes,
    "rate": display.rate,
    "times": display.ratio,
    "num": display.number,
    "yesno": display.yes_no,
    "flops": display.flops,
    "flop_rate": display.flop_rate,
}


# A rule's expression computes shares and seconds: no number it needs has more digits than a float
# holds, and no list it needs has a million items. Past these a rule is broken (or hostile), and
# it becomes a rule error instead of taking the tool's time or memory. Intercepted operators are
# also never folded at compile time, so a constant expression cannot hang the rule's loading.
_MAX_DIGITS = 308
_MAX_ITEMS = 1_000_000


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _check_power(left: Any, right: Any) -> None:
    if _is_missing(right) or not _number(right):
        return
    if abs(right) > _MAX_POWER:
        raise ValueError(f"exponent {right} is too large (at most {_MAX_POWER})")
    if _number(left) and abs(left) > 1 and right > 0 and right * math.log10(abs(left)) > _MAX_DIGITS:
        raise ValueError(f"{float(left):.3g} ** {right} would have more than {_MAX_DIGITS} digits")


def _check_repeat(left: Any, right: Any) -> None:
    for seq, times in ((left, right), (right, left)):
        if isinstance(seq, (str, list, tuple)) and isinstance(times, int) and len(seq) * times > _MAX_ITEMS:
            raise ValueError(f"repeating a sequence of {len(seq)} items {times} times is too large "
                             f"(at most {_MAX_ITEMS:,} items)")


# ... and no rule needs a tenth of a second: a rule's expressions and texts share a deadline, checked
# at every operator, attribute, item and call, so a slow (or hostile) rule ends as a rule error. The
# deadline is in this thread's CPU time, not the wall's: on a loaded machine (a user's, or a test suite
# beside other work) a rule waits for a core without spending its budget, and must not fail for it.
# Nor is a garbage collection the rule's time: a full one in a large process (a test session, a notebook's
# kernel holding a model and its records) took 0.1-0.2 s of CPU in a process that had only diagnosed the gallery's
# records, and more in the test suite, where rules that had done nothing wrong failed their budget under load;
# whichever allocation sets it off pays for it. The collector's own callbacks time it, per thread.
_deadline = threading.local()
_collector = threading.local()  # .started: when a collection began in this thread; .spent: the collections' total


def _time_collections(phase: str, _info: dict) -> None:
    now = time.thread_time()
    if phase == "start":
        _collector.started = now
    elif getattr(_collector, "started", None) is not None:
        _collector.spent = getattr(_collector, "spent", 0.0) + now - _collector.started
        _collector.started = None


gc.callbacks.append(_time_collections)


def rule_clock() -> float:
    """Seconds of this thread's CPU time, less what garbage collections in it took: a rule's own time."""
    return time.thread_time() - getattr(_collector, "spent", 0.0)


@contextlib.contextmanager
def time_budget(seconds: float):
    """Expressions and templates evaluated inside share ``seconds`` of this thread's CPU time (rule_clock)."""
    previous = getattr(_deadline, "at", None)
    _deadline.at = rule_clock() + seconds
    try:
        yield
    finally:
        _deadline.at = previous


def _check_time() -> None:
    at = getattr(_deadline, "at", None)
    if at is not None and rule_clock() > at:
        raise TimeoutError("the rule ran past its time budget (it must take well under a second)")


class _RuleEnvironment(SandboxedEnvironment):
    intercepted_binops = frozenset(["**", "*", "+", "-", "/", "//", "%"])

    def call_binop(self, context, operator, left, right):  # noqa: D102
        _check_time()
        if operator == "**":
            _check_power(left, right)
        elif operator == "*":
            _check_repeat(left, right)
        return super().call_binop(context, operator, left, right)

    def getattr(self, obj, attribute):  # noqa: D102
        _check_time()
        return super().getattr(obj, attribute)

    def getitem(self, obj, argument):  # noqa: D102
        _check_time()
        return super().getitem(obj, argument)

    def call(__self, __context, __obj, *args, **kwargs):  # noqa: N805,D102  # jinja's own signature
        _check_time()
        return super().call(__context, __obj, *args, **kwargs)


ENV = _RuleEnvironment(autoescape=False, undefined=Missing, trim_blocks=True,
                       lstrip_blocks=True, keep_trailing_newline=False)
ENV.globals.clear()
ENV.globals.update(HELPERS)
ENV.filters.pop("attr", None)  # rules read facts, not attributes by name
ENV.filters.update(RULE_FILTERS)


@functools.lru_cache(maxsize=1)
def _language() -> str:
    """What decides every check and every compiled expression, for the text cache: this module's own
    code (the checks, the sandbox's operators, the environment's settings), the filters, tests and
    helpers the rules may call, and Jinja's and trainprobe's versions."""
    import jinja2

    from ..version import __version__

    own = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()
    return textcache.language_digest(own, jinja2.__version__, __version__, ",".join(sorted(ENV.filters)),
                                     ",".join(sorted(ENV.tests)), ",".join(sorted(ENV.globals)))


class RuleSyntaxError(ValueError):
    """An expression or template that cannot be used; the message says why."""


def _check_tree(tree: nodes.Node, names: Iterable[str], options: Iterable[str],
                undeclared: set[str]) -> None:
    allowed = set(names) | set(HELPERS) | {"opt"}
    unknown = sorted(undeclared - allowed)
    if unknown:
        raise RuleSyntaxError(f"unknown name{'s' if len(unknown) > 1 else ''}: "
                              f"{', '.join(unknown)} (not a fact, an option or a helper)")
    for node in tree.find_all((nodes.Getattr, nodes.Getitem)):
        key = node.attr if isinstance(node, nodes.Getattr) else getattr(node.arg, "value", None)
        if isinstance(key, str) and key.startswith("_"):
            raise RuleSyntaxError(f"access to {key!r} is not allowed")
        target = node.node
        if isinstance(target, nodes.Name) and target.name == "opt" and key not in set(options):
            raise RuleSyntaxError(f"opt.{key} is not declared in [options]")


class Expression:
    """A compiled, checked expression; ``evaluate(context)`` returns its raw value."""

    def __init__(self, source: str, names: Iterable[str], options: Iterable[str]) -> None:
        self.source = source.strip()
        key = textcache.text_key("expression", self.source, names, options)
        kept = textcache.lookup(_language(), key)
        if kept is None:
            read, code = self._check_and_compile(names, options)
            textcache.keep(key, (read, code))
        else:
            read, code = kept
        # Jinja copies every name it is given into a new context per call: hand it only the names
        # the expression reads (a rule is evaluated again on each resample of the steps).
        self.names = tuple(read)
        self._template = ENV.template_class.from_code(ENV, code, ENV.make_globals(None))
        self._globals = dict(self._template.globals)

    def _check_and_compile(self, names: Iterable[str], options: Iterable[str]) -> tuple[tuple[str, ...], Any]:
        """The names it reads and its code: what jinja2's compile_expression makes (the expression
        assigned to ``result``), as code that the text cache can keep."""
        try:
            parser = Parser(ENV, self.source, state="variable")
            tree = parser.parse_expression()
            if not parser.stream.eos:
                raise TemplateSyntaxError("unexpected text after the expression",
                                          parser.stream.current.lineno)
            template_ast = nodes.Template([nodes.Output([tree], lineno=1)], lineno=1)
            _check_filters_and_tests(template_ast)
            undeclared = _undeclared(template_ast)
        except TemplateSyntaxError as exc:
            raise RuleSyntaxError(f"bad expression {self.source!r}: {exc.message}") from exc
        _check_tree(template_ast, names, options, undeclared)
        # A fresh parse for the code, as jinja2 does: the checked tree stays as the checks left it.
        expr = Parser(ENV, self.source, state="variable").parse_expression()
        expr.set_environment(ENV)
        body = [nodes.Assign(nodes.Name("result", "store"), expr, lineno=1)]
        return tuple(sorted(undeclared)), ENV.compile(nodes.Template(body, lineno=1))

    def evaluate(self, context: dict[str, Any]) -> Any:
        # What jinja2's TemplateExpression.__call__ does, less its generic context set-up (a quarter of
        # a diagnosis's time: each rule is evaluated again on a hundred resamples of the steps).
        template = self._template
        parent = dict(self._globals)
        for name in self.names:
            if name in context:
                parent[name] = context[name]
        run = template.environment.context_class(template.environment, parent, template.name, {})
        consume(template.root_render_func(run))
        return run.vars["result"]


_BINDS = (nodes.Assign, nodes.AssignBlock, nodes.For, nodes.Macro, nodes.CallBlock, nodes.FilterBlock, nodes.With,
          nodes.Import, nodes.FromImport, nodes.Block)


def _undeclared(tree: nodes.Template) -> set[str]:
    """The names a template reads from its context (Jinja's globals, the helpers, left out). Without a tag
    that binds a name ({% set %}, {% for %}...), every name it loads; else Jinja's own analysis, which runs
    its code generator over the template (a third of the time of loading the rule catalog, for the few
    texts that need it)."""
    if any(True for _ in tree.find_all(_BINDS)):
        return find_undeclared_variables(tree)
    return {node.name for node in tree.find_all(nodes.Name) if node.ctx == "load"} - set(ENV.globals)


def _check_filters_and_tests(tree: nodes.Node) -> None:
    """What compiling a template checks beyond its syntax, checked when it is loaded (it is compiled
    later, when first rendered): every filter and test it uses exists, inside an ``if`` too."""
    for node in tree.find_all((nodes.Filter, nodes.Test)):
        known = ENV.filters if isinstance(node, nodes.Filter) else ENV.tests
        if node.name not in known:
            kind = "filter" if isinstance(node, nodes.Filter) else "test"
            raise TemplateAssertionError(f"No {kind} named {node.name!r}.", node.lineno)


class Template:
    """A checked text template; ``render(context)`` returns the text."""

    def __init__(self, source: str, names: Iterable[str], options: Iterable[str]) -> None:
        self.source = source
        key = textcache.text_key("template", source, names, options)
        kept = textcache.lookup(_language(), key)
        if kept is None:
            kept = (self._check(names, options),)
            textcache.keep(key, kept)
        self.names = tuple(kept[0])
        # Compiled to Python when first rendered: a diagnosis renders the texts of the few rules that fire,
        # and compiling all ~600 texts of the catalog took most of a second of every `trainprobe diagnose`.
        self._template: Optional[Any] = None

    def _check(self, names: Iterable[str], options: Iterable[str]) -> tuple[str, ...]:
        """The names the text reads, once it is checked."""
        try:
            tree = ENV.parse(self.source)
            _check_filters_and_tests(tree)
        except TemplateSyntaxError as exc:
            raise RuleSyntaxError(f"bad template (line {exc.lineno} of the text): "
                                  f"{exc.message}") from exc
        undeclared = _undeclared(tree)
        _check_tree(tree, names, options, undeclared)
        return tuple(sorted(undeclared))

    def render(self, context: dict[str, Any]) -> str:
        if self._template is None:
            self._template = ENV.from_string(self.source)
        return self._template.render(**{name: context[name] for name in self.names if name in context}).strip()


def keep_checked_texts() -> None:
    """Save the checks made since the text cache was read (rulefiles calls this once a catalog is loaded)."""
    textcache.save(_language())


def compile_expression(source: str, names: Iterable[str], options: Iterable[str] = ()
                       ) -> Expression:
    return Expression(source, names, options)


def compile_template(source: str, names: Iterable[str], options: Iterable[str] = ()
                     ) -> Optional[Template]:
    return Template(source, names, options) if source else None
