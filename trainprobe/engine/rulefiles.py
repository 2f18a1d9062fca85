"""Find rule files, parse them and check them; a broken file is reported, never fatal.

Rules that must agree on thresholds (where one rule's ground ends and another's begins) name a
shared option set instead of copying it: ``options_from = "NAME"`` reads ``shared/NAME.toml``
beside the rule files, and the rule's own ``[options]`` override it. A folder passed with
``--rules`` may hold its own ``shared/NAME.toml``, which replaces the built-in set for every rule
that names it, as a rule file replaces the built-in rule of the same id.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from ..findings import CATEGORIES, SEVERITIES, RuleDocs
from ..facts import FACT_CATALOG
from ..resources import rules_dir
from .expr import HELPERS, RuleSyntaxError, compile_expression, compile_template, keep_checked_texts
from .rule import (DOC_SECTIONS, GAIN_PER, OPTIONAL_KEYS, REQUIRED_KEYS, SEVERITY_NAMES, TEMPLATE_NAMES,
                   VARIANT_KEYS, VARIANTS, EvidenceSpec, Rule, Variant)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

__all__ = ["load_rules", "load_rule_file", "RuleFileError", "rule_files", "SharedOptions", "shared_option_sets",
           "SHARED_DIR"]

_ID = re.compile(r"^[a-z0-9][a-z0-9-]*$")
_LET_NAME = re.compile(r"^[a-z][a-z0-9_]*$")
_HEADER = re.compile(r"^\s*\[\[?[\w.\- \"]+\]\]?\s*(#.*)?$")  # [table] or [[array]]


class RuleFileError(Exception):
    """A rule file that cannot be used: ``str()`` is "path:line: problem"."""

    def __init__(self, path: Path, line: int, problem: str) -> None:
        super().__init__(f"{path}:{line}: {problem}")
        self.path, self.line, self.problem = path, line, problem


def _key_line(text: str, key: str, table: Optional[str] = None) -> int:
    """The line where ``key`` (inside ``[table]`` when given) is set, 1-based; 1 when not found."""
    lines = text.splitlines()
    start = 0
    if table:
        for i, line in enumerate(lines):
            if re.match(rf"^\s*\[+\s*{re.escape(table)}\s*\]+", line):
                start = i
                if key is None:
                    return i + 1
                break
    pattern = re.compile(rf"^\s*\"?{re.escape(key)}\"?\s*=") if key else None
    for i in range(start + 1 if table else 0, len(lines)):
        if _HEADER.match(lines[i]):
            break  # top-level keys come before the first table; a table ends at the next
        if pattern and pattern.match(lines[i]):
            return i + 1
    return start + 1 if table else 1


def _toml_line(exc: tomllib.TOMLDecodeError) -> int:
    match = re.search(r"line (\d+)", str(exc))
    return int(match.group(1)) if match else 1


def _read_toml(path: Path) -> tuple[str, dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise RuleFileError(path, 1, f"cannot read the file: {exc}") from exc
    try:
        return text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RuleFileError(path, _toml_line(exc), f"not valid TOML: {exc}") from exc


SHARED_DIR = "shared"  # beside the rule files: NAME.toml, an option set rules name with options_from
_SHARED_KEYS = ("about", "options")


@dataclass(frozen=True)
class SharedOptions:
    """An option set several rules read (``options_from``), from ``shared/NAME.toml``."""

    name: str
    options: Mapping[str, Any]
    source: str  # the file


def _load_shared(path: Path) -> SharedOptions:
    text, data = _read_toml(path)
    for key in data:
        if key not in _SHARED_KEYS:
            raise RuleFileError(path, _key_line(text, key),
                                f"unknown key {key!r} in a shared option set (known: {', '.join(_SHARED_KEYS)})")
    options = data.get("options")
    if not isinstance(options, dict) or not options:
        raise RuleFileError(path, _key_line(text, None, "options"), "a shared option set needs an [options] table")
    if not _ID.match(path.stem):
        raise RuleFileError(path, 1, "a shared option set's file name must be lowercase words joined by '-'")
    return SharedOptions(name=path.stem, options=dict(options), source=str(path))


def shared_option_sets(folders: Sequence[Path]) -> tuple[dict[str, SharedOptions], list[str]]:
    """Each folder's ``shared/*.toml`` by name; a later folder's set replaces an earlier one (a user's
    ``--rules`` folder replaces a built-in set, and with it the thresholds of every rule naming it).
    Errors are "path:line: problem"."""
    sets: dict[str, SharedOptions] = {}
    errors: list[str] = []
    for folder in folders:
        for path in sorted((Path(folder) / SHARED_DIR).glob("*.toml")):
            try:
                shared = _load_shared(path)
            except RuleFileError as exc:
                errors.append(str(exc))
                continue
            sets[shared.name] = shared
    return sets, errors


class _Builder:
    """Turns one parsed file into a Rule, raising RuleFileError at the first problem."""

    def __init__(self, path: Path, text: str, data: dict[str, Any],
                 shared: Optional[Mapping[str, SharedOptions]] = None) -> None:
        self.path, self.text, self.data = path, text, data
        options = data.get("options", {})
        own = options if isinstance(options, dict) else {}
        from_set = self._shared(shared or {})
        self.options = {**from_set, **own}  # the rule's own values override the set's
        self.shared_options = tuple(name for name in from_set if name not in own)
        self.facts = tuple(FACT_CATALOG)

    def _shared(self, shared: Mapping[str, SharedOptions]) -> dict[str, Any]:
        name = self.data.get("options_from")
        if name is None:
            return {}
        if not isinstance(name, str) or name not in shared:
            known = ", ".join(sorted(shared)) or "none"
            self.fail(f"options_from: unknown shared option set {name!r} (known: {known}; a set is "
                      f"{SHARED_DIR}/NAME.toml beside the rule files)", "options_from")
        return dict(shared[name].options)

    def fail(self, problem: str, key: Optional[str] = None, table: Optional[str] = None):
        raise RuleFileError(self.path, _key_line(self.text, key, table) if key or table else 1,
                            problem)

    def text_value(self, key: str, table: Optional[str] = None) -> str:
        source = self.data.get(table, {}) if table else self.data
        value = source.get(key, "")
        if not isinstance(value, str):
            self.fail(f"{key} must be a string", key, table)
        return value

    def expression(self, key: str, source: Any, table: Optional[str] = None, names: tuple[str, ...] = ()):
        if not isinstance(source, str):
            self.fail(f"{key} must be a string holding an expression", key, table)
        try:
            return compile_expression(source, self.facts + names, self.options)
        except RuleSyntaxError as exc:
            self.fail(f"{key}: {exc}", key, table)
        return None

    def template(self, key: str, table: Optional[str] = None):
        try:
            return compile_template(self.text_value(key, table),
                                    self.facts + TEMPLATE_NAMES, self.options)
        except RuleSyntaxError as exc:
            self.fail(f"{key}: {exc}", key, table)
        return None

    def when(self, source: Any, table: str):
        """A framework table's ``when``: an expression over the facts, the options and the severity."""
        if not isinstance(source, str):
            self.fail("when must be a string holding an expression", "when", table)
        try:
            return compile_expression(source, self.facts + ("severity",), self.options)
        except RuleSyntaxError as exc:
            self.fail(f"when: {exc}", "when", table)
        return None

    def variants(self) -> tuple[Variant, ...]:
        """The [framework.NAME] tables: the fix as each framework spells it."""
        tables = self.data.get("framework", {})
        if not isinstance(tables, dict):
            self.fail("framework must hold tables: [framework.lightning]", "framework")
        out = []
        for name, table in tables.items():
            where = f"framework.{name}"
            if name not in VARIANTS:
                self.fail(f"unknown framework {name!r} (one of {', '.join(VARIANTS)})", None, where)
            if not isinstance(table, dict) or not table:
                self.fail(f"[{where}] must be a table with advice, snippet, changes or when", None, where)
            for key in table:
                if key not in VARIANT_KEYS:
                    self.fail(f"[{where}]: unknown key {key!r} (known: {', '.join(VARIANT_KEYS)})", key, where)
            # Each table's keys compile like the top-level ones (the TOML table path is "framework.NAME").
            scoped = _Builder(self.path, self.text, {where: table, "options": self.options})  # options merged
            scoped.facts = self.facts  # with the rule's [let] names
            out.append(Variant(
                name=name,
                advice=scoped.template("advice", where) if "advice" in table else None,
                snippet=scoped.template("snippet", where) if "snippet" in table else None,
                changes=scoped.template("changes", where) if "changes" in table else None,
                when=scoped.when(table["when"], where) if "when" in table else None))
        return tuple(out)

    def check_keys(self) -> None:
        for key in self.data:
            if key not in REQUIRED_KEYS + OPTIONAL_KEYS:
                self.fail(f"unknown key {key!r} (known: {', '.join(REQUIRED_KEYS + OPTIONAL_KEYS)})",
                          key)
        for key in REQUIRED_KEYS:
            if key not in self.data:
                self.fail(f"missing required key {key!r}")
        rule_id = self.data["id"]
        if not isinstance(rule_id, str) or not _ID.match(rule_id):
            self.fail("id must be lowercase words joined by '-'", "id")
        if self.data["category"] not in CATEGORIES:
            self.fail(f"unknown category {self.data['category']!r} "
                      f"(one of {', '.join(CATEGORIES)})", "category")
        if self.data["severity"] not in SEVERITIES:
            self.fail(f"unknown severity {self.data['severity']!r} "
                      f"(one of {', '.join(SEVERITIES)})", "severity")
        if not isinstance(self.data.get("options", {}), dict):
            self.fail("options must be a table: [options]", "options")
        if self.data.get("gain_per", "step") not in GAIN_PER:
            self.fail(f"unknown gain_per {self.data['gain_per']!r} (one of {', '.join(GAIN_PER)})", "gain_per")

    def docs(self) -> RuleDocs:
        docs = self.data["docs"]
        if not isinstance(docs, dict):
            self.fail("docs must be a table: [docs]", "docs")
        for section in DOC_SECTIONS:
            value = docs.get(section)
            wrong_type = (not isinstance(value, list) or not all(isinstance(v, str) for v in value)
                          ) if section == "references" else not isinstance(value, str)
            if not value or wrong_type:
                self.fail(f"docs section {section!r} is missing or empty"
                          + (" (a list of links)" if section == "references" else ""),
                          section if section in docs else None, "docs")
        return RuleDocs(what=docs["what"].strip(), why=docs["why"].strip(),
                        evidence=docs["evidence"].strip(), fix=docs["fix"].strip(),
                        options=docs["options"].strip(),
                        references=tuple(str(r) for r in docs["references"]))

    def severity_when(self) -> tuple:
        table = self.data.get("severity_when", {})
        if not isinstance(table, dict):
            self.fail("severity_when must be a table: [severity_when]", "severity_when")
        out = []
        for severity in reversed(SEVERITIES):  # critical first
            if severity in table:
                out.append((severity, self.expression(severity, table[severity],
                                                      "severity_when", SEVERITY_NAMES)))
        unknown = set(table) - set(SEVERITIES)
        if unknown:
            self.fail(f"severity_when: unknown severity {sorted(unknown)[0]!r}",
                      sorted(unknown)[0], "severity_when")
        return tuple(out)

    def lets(self) -> tuple:
        """The [let] table, in order: each name compiled over the facts, the options and the lets before it;
        then every other key may read them (self.facts grows by each)."""
        table = self.data.get("let", {})
        if not isinstance(table, dict):
            self.fail("let must be a table: [let]", "let")
        out = []
        reserved = set(self.facts) | set(TEMPLATE_NAMES) | set(SEVERITY_NAMES) | {"severity", "opt"} | set(HELPERS)
        for name, source in table.items():
            if not _LET_NAME.match(name) or name in reserved:
                self.fail(f"let: {name!r} must be a new lowercase name (not a fact, an option or a helper)",
                          name, "let")
            out.append((name, self.expression(name, source, "let")))
            self.facts = self.facts + (name,)
        return tuple(out)

    def after(self) -> Optional[str]:
        value = self.data.get("after")
        if value is None:
            return None
        if not isinstance(value, str) or not _ID.match(value) or value == self.data.get("id"):
            self.fail("after must name another rule's id (the rule whose fix comes first)", "after")
        return value

    def evidence(self) -> tuple[EvidenceSpec, ...]:
        items = self.data.get("evidence", [])
        if not isinstance(items, list):
            self.fail("evidence must be an array of tables: [[evidence]]", "evidence")
        out = []
        for item in items:
            fact = item.get("fact") if isinstance(item, dict) else None
            if fact not in FACT_CATALOG:
                self.fail(f"evidence: unknown fact {fact!r}", "fact", "evidence")
            threshold = None
            if item.get("threshold"):
                try:
                    threshold = compile_template(str(item["threshold"]), self.facts,
                                                 self.options)
                except RuleSyntaxError as exc:
                    self.fail(f"evidence threshold: {exc}", "threshold", "evidence")
            out.append(EvidenceSpec(fact=fact, label=str(item.get("label") or fact),
                                    threshold=threshold))
        return tuple(out)

    def key_lines(self) -> dict[str, int]:
        """Each evaluated key's line, and for a text the line its first character is on ("key:text"):
        the next one for a multi-line string, whose newline after the quotes TOML drops."""
        lines = {}
        text_lines = self.text.splitlines()
        for key in _EVALUATED_KEYS:
            if key not in self.data:
                continue
            line = _key_line(self.text, None, key) if key in ("severity_when", "let") else _key_line(self.text, key)
            lines[key] = line
            rest = text_lines[line - 1].split("=", 1)[-1].strip() if line <= len(text_lines) else ""
            lines[f"{key}:text"] = line + 1 if rest in ("'''", '"""') else line
        for name in self.data.get("let", {}) if isinstance(self.data.get("let"), dict) else ():
            lines[f"let {name}"] = _key_line(self.text, name, "let")  # a let that fails on a run names its line
        return lines

    def build(self) -> Rule:
        self.check_keys()
        d = self.data
        lets = self.lets()  # first: the keys below may read them
        gain = d.get("gain")
        return Rule(
            id=d["id"], name=str(d["name"]), category=d["category"], severity=d["severity"],
            condition=self.expression("condition", self.text_value("condition")),
            title=self.template("title"), message=self.template("message"),
            advice=self.template("advice"), docs=self.docs(), source=str(self.path),
            snippet=self.template("snippet") if d.get("snippet") else None,
            changes=self.template("changes") if d.get("changes") else None,
            variants=self.variants(),
            gain=self.expression("gain", self.text_value("gain")) if gain else None,
            gain_base=(self.expression("gain_base", self.text_value("gain_base"))
                       if d.get("gain_base") else None),
            gain_per=str(d.get("gain_per", "step")),
            fix_id=self.template("fix_id") if d.get("fix_id") else None, severity_when=self.severity_when(),
            options=dict(self.options), options_from=d.get("options_from"), shared_options=self.shared_options,
            evidence=self.evidence(),
            gpu_only=bool(d.get("gpu_only", False)),
            without_steps=bool(d.get("without_steps", False)), after=self.after(), lets=lets,
            line=_key_line(self.text, "condition"),
            lines=self.key_lines(),
        )


# The keys evaluated on each run, whose errors name their own line.
_EVALUATED_KEYS = ("condition", "title", "message", "advice", "snippet", "changes", "gain", "gain_base", "fix_id",
                   "severity_when", "let")

# Compiling a rule's templates takes milliseconds; a process that diagnoses many records
# (tests, `trainprobe report` over a folder) reuses them while the file and the shared option
# sets it may read are unchanged.
_CACHE: dict[tuple[str, int, int, str], Rule] = {}


def load_rule_file(path: Path, shared: Optional[Mapping[str, SharedOptions]] = None) -> Rule:
    """Parse and check one rule file; raises RuleFileError ("path:line: problem"). ``shared``: the
    option sets ``options_from`` may name (default: the built-in ones, then its own folder's; a
    broken one is left out, and load_rules reports it)."""
    path = Path(path)
    if shared is None:
        shared, _ = shared_option_sets(_builtin_folders() + [path.parent])
    try:
        stat = path.stat()
    except OSError as exc:
        raise RuleFileError(path, 1, f"cannot read the file: {exc}") from exc
    key = (str(path.resolve()), stat.st_mtime_ns, stat.st_size,
           repr(sorted((name, sorted(s.options.items())) for name, s in shared.items())))
    if key not in _CACHE:
        _CACHE[key] = _load_rule_file(path, shared)
    return _CACHE[key]


def _load_rule_file(path: Path, shared: Mapping[str, SharedOptions]) -> Rule:
    text, data = _read_toml(path)
    try:
        rule = _Builder(path, text, data, shared).build()
    except RuleFileError:
        raise
    except Exception as exc:  # pylint: disable=broad-except  # a value of an odd type, say
        raise RuleFileError(path, 1, f"cannot use this rule: {type(exc).__name__}: {exc}") from exc
    if path.stem != rule.id:
        raise RuleFileError(path, _key_line(text, "id"),
                            f"id {rule.id!r} does not match the file name {path.name!r}")
    return rule


def rule_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.toml") if p.is_file())


def _builtin_folders() -> list[Path]:
    try:
        return [rules_dir()]
    except FileNotFoundError:
        return []


def load_rules(extra_dirs: Sequence[Path] = ()) -> tuple[list[Rule], list[str]]:
    """The built-in rules, then each extra folder's; a later rule with the same id replaces
    an earlier one (so a user can tune a built-in rule), and a later shared option set with the
    same name replaces an earlier one (for every rule that names it). Errors are "path:line: problem".

    Parsed once per state of the files: compiling some fifty files' expressions and templates takes
    about 0.4 s, and `report`, `compare`, `merge` and a job diagnose many runs. A file added, removed
    or changed (its size or modification time) is read again."""
    errors: list[str] = []
    folders: list[Path] = []
    try:
        folders.append(rules_dir())
    except FileNotFoundError as exc:
        errors.append(f"{exc}")
    for folder in extra_dirs:
        folder = Path(folder)
        if not folder.is_dir():
            errors.append(f"{folder}:0: not a folder of rule files")
            continue
        folders.append(folder)
    rules, file_errors = _parsed(tuple(folders), _signature(folders))
    return list(rules), errors + list(file_errors)


def _signature(folders: Sequence[Path]) -> tuple:
    """What the rule files are now: each file's path, size and modification time."""
    out = []
    for folder in folders:
        for path in [*rule_files(folder), *sorted((folder / SHARED_DIR).glob("*.toml"))]:
            try:
                stat = path.stat()
            except OSError:
                continue
            out.append((str(path), stat.st_size, stat.st_mtime_ns))
    return tuple(out)


@lru_cache(maxsize=16)
def _parsed(folders: tuple[Path, ...], _files: tuple) -> tuple[tuple[Rule, ...], tuple[str, ...]]:
    rules: dict[str, Rule] = {}
    errors: list[str] = []
    shared, shared_errors = shared_option_sets(folders)
    errors += shared_errors
    for folder in folders:
        for path in rule_files(folder):
            try:
                rule = load_rule_file(path, shared)
            except RuleFileError as exc:
                errors.append(str(exc))
                continue
            rules[rule.id] = rule
    keep_checked_texts()
    return tuple(rules.values()), tuple(errors)
