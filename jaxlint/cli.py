"""The `jaxlint` command line: check, fix, rules, rule, runtime.

Exit codes: 0 nothing found (or everything fixed), 1 findings remain, 2 usage or internal error.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Sequence

import click

from jaxlint import __version__
from jaxlint.config import ConfigError, Settings, load_settings, resolve_enabled, validate_selectors

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


class UsageFailure(Exception):
    """A problem with what the user asked for; printed as one line, exit code 2."""


def _split(values: Sequence[str]) -> list[str]:
    return [part.strip() for value in values for part in value.split(",") if part.strip()]


def error_line(message: str) -> None:
    click.echo(f"jaxlint: error: {message}", err=True)


def build_settings(paths: Sequence[str], config: str | None, select, ignore, extend_select) -> Settings:
    from jaxlint.rules import ALL_RULES

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


def enabled_rules(settings: Settings):
    from jaxlint.rules import ALL_RULES

    return resolve_enabled(settings, ALL_RULES)


def selection_options(function):
    function = click.option("--extend-select", multiple=True, metavar="CODES", help="Add rules to the selection (comma-separated codes or prefixes).")(function)
    function = click.option("--ignore", multiple=True, metavar="CODES", help="Turn off rules, e.g. `--ignore JAX201`.")(function)
    function = click.option("--select", multiple=True, metavar="CODES", help="Only these rules: codes or prefixes such as JAX1 (comma-separated).")(function)
    function = click.option("--config", type=click.Path(dir_okay=False), default=None, help="Read settings from this pyproject.toml instead of the nearest one.")(function)
    return function


@click.group(context_settings=CONTEXT_SETTINGS)
@click.version_option(__version__, "-V", "--version", prog_name="jaxlint")
def main() -> None:
    """jaxlint finds JAX pitfalls before they run, fixes them where it is provably safe, and proves
    them on the accelerator.

    \b
    Examples:
      jaxlint check src/                  # lint a tree (reads [tool.jaxlint] from pyproject.toml)
      jaxlint check --select JAX1 f.py    # only the tracing-error rules
      jaxlint fix --diff src/             # show the safe fixes without writing
      jaxlint rule JAX201                 # explain a rule
      jaxlint runtime f.py::step --example "f32[1024,256]"
    """


@main.command(context_settings=CONTEXT_SETTINGS)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@selection_options
@click.option("--format", "output_format", type=click.Choice(["text", "json", "sarif", "github"]), default="text", show_default=True, help="Output format.")
@click.option("--output-file", "-o", type=click.Path(dir_okay=False, writable=True), default=None, help="Write the report to a file instead of stdout.")
@click.option("--statistics", is_flag=True, help="Print a count per rule instead of each finding.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--quiet", "-q", is_flag=True, help="Print findings only, no summary line.")
@click.option("--stdin-filename", default=None, metavar="PATH", help="Name to report for code read from stdin (`-`).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Processes to use (default: all cores).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the results cache (.jaxlint_cache/ or $JAXLINT_CACHE_DIR).")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` to every flagged line (merging with a noqa already there), so findings can be cleaned up later.")
@click.option("--report-unused-noqa", is_flag=True, help="Also report `# noqa: JAXnnn` codes that suppress nothing, as JAX001 unused-noqa.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes to files named on the command line too (what pre-commit hooks need).")
def check(paths, config, select, ignore, extend_select, output_format, output_file, statistics, exit_zero, quiet, stdin_filename, jobs, no_cache, add_noqa, report_unused_noqa, force_exclude):
    """Lint Python files and Jupyter notebooks for JAX pitfalls. Never imports or runs the code it reads.

    PATHS are files or directories (default: the current directory); `-` reads stdin.
    Directories are searched for .py, .pyi and .ipynb files, skipping .git, virtualenvs, build,
    node_modules, __pycache__ and the configured excludes. Notebook findings name their cell
    (`nb.ipynb:cell 3:2:5:`, counting all cells from 1) and the row within it.

    \b
    Exit status: 0 no findings, 1 findings, 2 usage or internal error.
    Suppress a finding with `# noqa: JAX101` on its line, or a file with `# jaxlint: noqa`.
    `--add-noqa` writes those comments for every current finding; `--report-unused-noqa`
    reports the ones that have become stale (JAX001, fixable with `jaxlint fix`).
    """
    from jaxlint.runner import RunResult, lint_paths, lint_text

    paths = list(paths) or ["."]
    settings = build_settings(paths, config, select, ignore, extend_select)
    rules = enabled_rules(settings)
    if report_unused_noqa:
        settings.report_unused_noqa = True
    if add_noqa and "-" in paths:
        raise UsageFailure("--add-noqa rewrites files; it cannot be used with stdin (`-`)")
    result = RunResult()
    if paths == ["-"]:
        text = _read_stdin()
        file_result = lint_text(text, stdin_filename or "-", settings, rules)
        result.files_checked = 1
        result.diagnostics.extend(file_result.diagnostics)
        result.errors.extend(file_result.errors)
    else:
        cache = None
        if not no_cache:
            from jaxlint.cache import ResultCache, cache_directory

            extra = ["JAX001"] if report_unused_noqa else []  # unused-noqa findings change what is cached
            cache = ResultCache(cache_directory(settings), settings, [*(rule.code for rule in rules), *extra])
        result = lint_paths([Path(p) for p in paths], settings, rules, jobs, cache, force_exclude=force_exclude)
    if add_noqa:
        _add_noqa(result, settings, rules)
    for message in result.errors:
        error_line(message)
    nothing_checked = result.files_checked == 0 and bool(result.errors)
    if not (nothing_checked and output_format == "text"):
        _emit(result.diagnostics, output_format, output_file, quiet=quiet, statistics=statistics, rules=rules)
    if result.missing_paths or nothing_checked:
        sys.exit(EXIT_ERROR)
    if result.diagnostics and not exit_zero:
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


def _add_noqa(result, settings, rules) -> None:
    """Rewrite files so every finding carries a `# noqa`; what cannot (syntax errors) stays in `result`."""
    from jaxlint.runner import add_noqa

    added = add_noqa(result.diagnostics, settings, rules)
    result.errors.extend(added.errors)
    result.diagnostics = added.left
    plural = "s" if added.directives != 1 else ""
    click.echo(f"Added {added.directives} noqa directive{plural} to {added.files} file{'s' if added.files != 1 else ''}.", err=True)


def _read_stdin() -> str:
    from jaxlint.files import SourceReadError, decode_source

    try:
        return decode_source(sys.stdin.buffer.read(), "<stdin>").text
    except SourceReadError as error:  # undecodable or binary input: the user's problem, one line
        raise UsageFailure(str(error)) from None


def _emit(diagnostics, output_format: str, output_file: str | None, **options) -> None:
    from jaxlint.reporters import reporter_for

    report = reporter_for(output_format)
    if output_file:
        try:
            stream = open(output_file, "w", encoding="utf-8")
        except OSError as error:  # a missing directory or no permission: say which file, no traceback
            raise UsageFailure(f"{output_file}: cannot write the report ({error.strerror or error})") from None
        with stream:
            report(diagnostics, stream, color=False, show_statistics=options.pop("statistics", False), **options)
    else:
        report(diagnostics, sys.stdout, show_statistics=options.pop("statistics", False), **options)


@main.command(context_settings=CONTEXT_SETTINGS)
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
def rules(output_format):
    """List every rule: code, name, whether a fix exists, preview status."""
    from jaxlint.rules import ALL_RULES

    if output_format == "json":
        import json

        rows = [
            {"code": rule.code, "name": rule.name, "summary": rule.summary, "fix": rule.fix_availability, "preview": rule.preview}
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


@main.command(context_settings=CONTEXT_SETTINGS)
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


def _register_optional_commands() -> None:
    """Commands that live in their own modules; a missing one must not break `check`."""
    try:
        from jaxlint.fix_command import fix_command

        main.add_command(fix_command)
    except ImportError:
        pass
    main.add_command(server)
    main.add_command(_LazyRuntime(name="runtime", help="Run flagged functions on the accelerator to confirm findings (needs jax).", context_settings={"ignore_unknown_options": True, "allow_extra_args": True, "help_option_names": []}))


@click.command(context_settings=CONTEXT_SETTINGS)
def server():
    """Run the language server over stdio, for editors: findings as you type, fixes as quick fixes.

    Needs pygls: `pip install 'jaxlint[server]'`. Settings come from each document's nearest
    pyproject.toml.
    """
    # Imported here so that `check` and `fix` never load pygls.
    try:
        from jaxlint.server import start
    except ImportError as error:
        raise UsageFailure(f"the language server needs pygls ({error}); install it with `pip install 'jaxlint[server]'`") from None
    start()


class _LazyRuntime(click.Command):
    """`jaxlint runtime` imports the runtime mode (and jax) only when it is invoked."""

    def parse_args(self, ctx, args):
        ctx.meta["jaxlint.runtime.argv"] = list(args)  # click's parser drops `--`; the runtime mode needs it
        return super().parse_args(ctx, args)

    def invoke(self, ctx):
        try:
            from jaxlint.runtime_checks.cli import runtime_main
        except ImportError as error:
            raise UsageFailure(f"the runtime mode is unavailable ({error}); install it with `pip install -e '.[runtime]'`") from None
        return runtime_main(ctx.meta.get("jaxlint.runtime.argv", [*ctx.args]))


_register_optional_commands()


def run(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return the exit code; no traceback ever reaches the user."""
    try:
        main.main(args=list(argv) if argv is not None else None, prog_name="jaxlint", standalone_mode=False)
        return EXIT_CLEAN
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else (EXIT_CLEAN if exit_.code is None else EXIT_ERROR)
    except click.exceptions.Exit as exit_:
        return exit_.exit_code
    except click.ClickException as error:
        error.show()
        return EXIT_ERROR
    except click.exceptions.Abort:
        error_line("aborted")
        return EXIT_ERROR
    except (ConfigError, UsageFailure) as error:
        error_line(str(error))
        return EXIT_ERROR
    except KeyboardInterrupt:
        error_line("interrupted")
        return 130
    except BrokenPipeError:
        return EXIT_CLEAN
    except Exception as error:  # a bug of ours: say so in one line, never a traceback
        error_line(f"internal error: {error.__class__.__name__}: {error} (please report it; set JAXLINT_DEBUG=1 for details)")
        import os

        if os.environ.get("JAXLINT_DEBUG"):
            import traceback

            traceback.print_exc()
        return EXIT_ERROR


def entry_point() -> None:
    sys.exit(run())


if __name__ == "__main__":
    entry_point()
