"""What every `jaxlint` command shares: exit codes, option sets, settings from options, one-line errors.

Command modules import from here and never from each other or from the `jaxlint.cli` package, so
the command line has no import cycles.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

import click

from jaxlint.config import Settings, load_settings, resolve_enabled, validate_selectors

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class UsageFailure(Exception):
    """A problem with what the user asked for; printed as one line, exit code 2."""


def _split(values: Sequence[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def error_line(message: str) -> None:
    click.echo(f"jaxlint: error: {message}", err=True)


def build_settings(paths: Sequence[str], config: str | None, select, ignore, extend_select) -> Settings:
    from jaxlint.rules import CATALOGUE as ALL_RULES  # the engine's JAX000 and JAX001 are selectable too

    start = Path(paths[0]) if paths and paths[0] != "-" else Path.cwd()
    if not start.exists():
        start = Path.cwd()
    settings = load_settings(start, Path(config) if config else None)
    codes = [rule.code for rule in ALL_RULES]
    origin = str(settings.config_file) if settings.config_file else "configuration"
    for selectors in (settings.select or [], settings.ignore, settings.extend_select):
        validate_selectors(selectors, codes, origin)
    select, ignore, extend_select = _split(select), _split(ignore), _split(extend_select)
    for option, selectors in (("--select", select), ("--ignore", ignore), ("--extend-select", extend_select)):
        validate_selectors(selectors, codes, option)
    if select:
        settings.select = select
    settings.ignore = [*settings.ignore, *ignore]
    settings.extend_select = [*settings.extend_select, *extend_select]
    return settings


def unused_noqa_selected(settings: Settings) -> bool:
    """JAX001 runs when a selection names it (`--extend-select JAX001`), like `--report-unused-noqa`:
    it is off by default, so a broad selector ("ALL", "JAX", "JAX0") does not switch it on."""
    from jaxlint.config import selector_matches
    from jaxlint.engine import UNUSED_NOQA_CODE

    def named(selectors) -> bool:
        return any(selector.strip().upper() not in ("ALL", "JAX", "JAX0", "JAX00") and selector_matches(selector, UNUSED_NOQA_CODE) for selector in selectors or ())

    chosen = named(settings.select) or named(settings.extend_select)
    return chosen and not any(selector_matches(selector, UNUSED_NOQA_CODE) for selector in settings.ignore)


def enabled_rules(settings: Settings):
    from jaxlint.rules import ALL_RULES

    return resolve_enabled(settings, ALL_RULES)


def selection_options(function):
    function = click.option("--extend-select", multiple=True, metavar="CODES", help="Add rules to the selection (comma-separated codes or prefixes).")(function)
    function = click.option("--ignore", multiple=True, metavar="CODES", help="Turn off rules, e.g. `--ignore JAX201`.")(function)
    function = click.option("--select", multiple=True, metavar="CODES", help="Only these rules: codes or prefixes such as JAX1 (comma-separated).")(function)
    function = click.option("--config", type=click.Path(dir_okay=False), default=None, help="Read settings from this pyproject.toml instead of the nearest one.")(function)
    return function
