"""``trainprobe rules``: list the rules, explain one, check a folder of rules, list the facts."""

from __future__ import annotations

import difflib
from pathlib import Path

import click

from ..engine import load_rules
from ..exits import OK, PARTIAL
from ..engine.docs import fact_catalog_markdown, fact_catalog_text, rule_docs_text, rule_list_text

__all__ = ["COMMANDS", "rules"]

_RULES_OPTION = click.option(
    "--rules", "rule_dirs", multiple=True,
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="A folder of extra rule files (*.toml); may be given more than once.")


def _load(rule_dirs: tuple[Path, ...]):
    rules, errors = load_rules(rule_dirs)
    for error in errors:
        click.echo(f"rule error: {error}", err=True)
    return rules, errors


@click.group()
def rules() -> None:
    """The rules trainprobe applies to a run, and the facts they read."""


@rules.command("list")
@_RULES_OPTION
def list_rules(rule_dirs: tuple[Path, ...]) -> int:
    """List every rule: id, category, severity and name."""
    found, _ = _load(rule_dirs)
    click.echo(rule_list_text(found))
    return 0


@rules.command("explain")
@click.argument("rule_id")
@_RULES_OPTION
def explain(rule_id: str, rule_dirs: tuple[Path, ...]) -> int:
    """Show the documentation of rule RULE_ID."""
    found, _ = _load(rule_dirs)
    by_id = {r.id: r for r in found}
    if rule_id not in by_id:
        close = difflib.get_close_matches(rule_id, list(by_id), n=3)
        hint = f" Did you mean: {', '.join(close)}?" if close else ""
        raise click.UsageError(
            f"no rule {rule_id!r}.{hint} `trainprobe rules list` shows them all.")
    click.echo(rule_docs_text(by_id[rule_id]), nl=False)
    return 0


@rules.command("check")
@click.argument("folders", nargs=-1, required=True,
                type=click.Path(exists=True, file_okay=False, path_type=Path))
def check(folders: tuple[Path, ...]) -> int:
    """Load the rule files in FOLDERS and report every problem (exit status 1 if any)."""
    found, errors = _load(folders)
    names = {str(p.resolve()) for p in folders}
    mine = [r for r in found if str(Path(r.source).parent.resolve()) in names]
    click.echo(f"{len(mine)} rule(s) loaded from {', '.join(map(str, folders))}; "
               f"{len(errors)} error(s).")
    return PARTIAL if errors else OK


@rules.command("facts")
@click.option("--markdown", is_flag=True, help="Markdown tables (the Facts section of rules/README.md).")
def facts(markdown: bool) -> int:
    """List the facts rule conditions can use, with their units and meaning."""
    click.echo(fact_catalog_markdown() if markdown else fact_catalog_text(), nl=False)
    return 0


COMMANDS = [rules]
