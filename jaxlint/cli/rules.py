"""`jaxlint rules` lists every rule; `jaxlint rule CODE` prints one rule's documentation."""

from __future__ import annotations

import sys

import click

from jaxlint.cli.common import CONTEXT_SETTINGS, UsageFailure


@click.command(context_settings=CONTEXT_SETTINGS)
@click.option("--format", "output_format", type=click.Choice(["text", "json", "markdown"]), default="text", show_default=True, help="markdown: every rule's full documentation as one page (docs/rules.md is this output).")
def rules(output_format):
    """List every rule: code, name, whether a fix exists, preview status.

    \b
    `jaxlint rules --format markdown > docs/rules.md` regenerates the rules page.
    """
    from jaxlint.rules import CATALOGUE as ALL_RULES  # with the engine's JAX000 and JAX001

    if output_format == "markdown":
        from jaxlint.rules.documentation import render_rules_page

        click.echo(render_rules_page(ALL_RULES), nl=False)
        return
    if output_format == "json":
        import json

        rows = [
            {"code": rule.code, "name": rule.name, "summary": rule.summary, "fix": rule.fix_availability, "preview": rule.preview, "url": rule.url}
            for rule in ALL_RULES
        ]
        click.echo(json.dumps(rows, indent=2))
        return
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.table import Table

        table = Table("Code", "Name", "Fix", "Preview", "Summary")
        for rule in ALL_RULES:
            table.add_row(rule.code, rule.name, rule.fix_availability, "yes" if rule.preview else "", rule.summary)
        Console().print(table)
        return
    for rule in ALL_RULES:
        preview = "\tpreview" if rule.preview else ""
        click.echo(f"{rule.code}\t{rule.name}\tfix: {rule.fix_availability}{preview}\t{rule.summary}")


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("code")
def rule(code):
    """Explain one rule: what it flags, why, an example, the fix and its safety."""
    from jaxlint.rules import RULES_BY_CODE

    found = RULES_BY_CODE.get(code.strip().upper())
    if found is None:
        raise UsageFailure(f"unknown rule {code!r}; `jaxlint rules` lists them")
    click.echo(f"# {found.name} ({found.code})\n")
    if found.preview:
        click.echo("This rule is in preview: it runs only when selected explicitly.\n")
    click.echo(f"Fix: {found.fix_availability}\n")
    click.echo(found.documentation)
