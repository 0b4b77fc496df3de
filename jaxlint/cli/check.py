"""`jaxlint check`: lint files, directories or stdin and report findings in one of four formats.

Exit status: 0 nothing found, 1 findings, 2 usage error, a missing path or nothing readable.
"""

from __future__ import annotations

import sys
from pathlib import Path
from time import perf_counter

import click

from jaxlint.cli.common import (
    CONTEXT_SETTINGS,
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    UsageFailure,
    build_settings,
    enabled_rules,
    error_line,
    selection_options,
)


@click.command(context_settings=CONTEXT_SETTINGS)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@selection_options
@click.option("--format", "output_format", type=click.Choice(["text", "json", "sarif", "github"]), default="text", show_default=True, help="Output format.")
@click.option("--output-file", "-o", type=click.Path(dir_okay=False, writable=True), default=None, help="Write the report to a file instead of stdout.")
@click.option("--statistics", is_flag=True, help="Print a count per rule instead of each finding.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when findings remain.")
@click.option("--quiet", "-q", is_flag=True, help="Print findings only: no summary, no progress bar, no timing line.")
@click.option("--stdin-filename", default=None, metavar="PATH", help="Name to report for code read from stdin (`-`).")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Processes to use (default: all cores).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the results cache (.jaxlint_cache/ or $JAXLINT_CACHE_DIR).")
@click.option("--add-noqa", is_flag=True, help="Add `# noqa: CODE` to every flagged line (merging with a noqa already there), so findings can be cleaned up later.")
@click.option("--report-unused-noqa", is_flag=True, help="Also report `# noqa: JAXnnn` codes that suppress nothing, as JAX001 unused-noqa.")
@click.option("--force-exclude", is_flag=True, help="Apply excludes to files named on the command line too (what pre-commit hooks need).")
@click.option("--profile", is_flag=True, help="After the report, print on stderr the seconds spent per phase (read, parse, semantic model) and per rule, and peak memory. Add --no-cache to time every file.")
# Ruff's habit (`ruff check --fix`): point at the command that fixes instead of "no such option".
@click.option("--fix", "fix_requested", is_flag=True, hidden=True)
@click.option("--unsafe-fixes", "unsafe_fixes_requested", is_flag=True, hidden=True)
@click.option("--diff", "diff_requested", is_flag=True, hidden=True)
def check(paths, config, select, ignore, extend_select, output_format, output_file, statistics, exit_zero, quiet, stdin_filename, jobs, no_cache, add_noqa, report_unused_noqa, force_exclude, profile, fix_requested, unsafe_fixes_requested, diff_requested):
    """Lint Python files and Jupyter notebooks for JAX pitfalls. Never imports or runs the code it reads.

    PATHS are files or directories (default: the current directory); `-` reads stdin.
    Directories are searched for .py, .pyi and .ipynb files, skipping .git, virtualenvs, build,
    node_modules, __pycache__ and the configured excludes. Notebook findings name their cell
    (`nb.ipynb:cell 3:2:5:`, counting all cells from 1) and the row within it.

    \b
    Exit status: 0 no findings, 1 findings (a file that could not be read, decoded or parsed is
    a JAX000 finding), 2 usage error, missing path or internal error.
    Suppress a finding with `# noqa: JAX101` on its line, or a file with `# jaxlint: noqa`.
    `--add-noqa` writes those comments for every current finding; `--report-unused-noqa`
    reports the ones that have become stale (JAX001, fixable with `jaxlint fix`).

    \b
    On a terminal a progress bar shows on stderr while files are analysed; unless -q, a line
    on stderr says how many files were checked and how long it took. stdout holds only the report.
    """
    from jaxlint.cli.progress import progress_bar, run_summary, wants_progress_bar
    from jaxlint.cli.common import unused_noqa_selected
    from jaxlint.runner import RunResult, lint_paths, lint_text

    requested = [name for name, given in (("--fix", fix_requested), ("--unsafe-fixes", unsafe_fixes_requested), ("--diff", diff_requested)) if given]
    if requested:
        command = " ".join(["jaxlint fix", *(option for option in requested if option != "--fix")])
        raise UsageFailure(f"`jaxlint check` does not fix ({', '.join(requested)}): run `{command}` with the same paths")
    started = perf_counter()
    paths = list(paths) or ["."]
    settings = build_settings(paths, config, select, ignore, extend_select)
    rules = enabled_rules(settings)
    if report_unused_noqa or unused_noqa_selected(settings):
        settings.report_unused_noqa = True
        report_unused_noqa = True
    if add_noqa and "-" in paths:
        raise UsageFailure("--add-noqa rewrites files; it cannot be used with stdin (`-`)")
    result = RunResult()
    cache = None
    if paths == ["-"]:
        text, unreadable = _read_stdin(stdin_filename or "-", settings)
        file_result = unreadable if unreadable is not None else lint_text(text, stdin_filename or "-", settings, rules, profile)
        result.files_checked = 1 if unreadable is None else 0
        result.diagnostics.extend(file_result.diagnostics)
        result.errors.extend(file_result.errors)
        result.timings = dict(file_result.timings or {})
    else:
        if not no_cache:
            from jaxlint.cache import ResultCache, cache_directory

            extra = ["JAX001"] if report_unused_noqa else []  # unused-noqa findings change what is cached
            cache = ResultCache(cache_directory(settings), settings, [*(rule.code for rule in rules), *extra])
        with progress_bar("Checking", wants_progress_bar(quiet)) as progress:
            result = lint_paths(
                [Path(p) for p in paths], settings, rules, jobs, cache, force_exclude=force_exclude, profile=profile, progress=progress
            )
    if add_noqa:
        _add_noqa(result, settings, rules)
    for message in result.errors:
        error_line(message)
    nothing_checked = result.files_checked == 0 and bool(result.errors) and not result.diagnostics
    if not (nothing_checked and output_format == "text"):
        _emit(result.diagnostics, output_format, output_file, quiet=quiet, statistics=statistics, rules=rules, errors=len(result.errors))
    cached = cache.hits if paths != ["-"] and cache is not None else 0
    if paths != ["-"] and not result.files_checked and not result.errors and not result.diagnostics and not result.files_unreadable and not force_exclude:
        # Not a silent pass: the paths held nothing to check (empty, or only excluded files).
        # (With --force-exclude, as in pre-commit hooks, an excluded file named is expected.)
        click.echo("jaxlint: warning: no Python files or notebooks found under the given paths; nothing was checked", err=True)
    if not quiet and paths != ["-"] and result.files_checked:
        sys.stdout.flush()
        click.echo(run_summary("Checked", result.files_checked, perf_counter() - started, cached), err=True)
    if profile:
        from jaxlint.profile import profile_table

        names = {rule.code: rule.name for rule in rules}
        table = profile_table(result.timings, names, wall=perf_counter() - started, analysed=result.files_checked - cached, cached=cached)
        sys.stdout.flush()
        click.echo(table, err=True)
    if result.missing_paths or nothing_checked:
        sys.exit(EXIT_ERROR)
    if result.diagnostics and not exit_zero:
        sys.exit(EXIT_FINDINGS)
    if result.errors and not exit_zero:
        sys.exit(EXIT_ERROR)  # an internal error: some of the code was not checked by every rule
    sys.exit(EXIT_CLEAN)


def _add_noqa(result, settings, rules) -> None:
    """Rewrite files so every finding carries a `# noqa`; what cannot (syntax errors) stays in `result`."""
    from jaxlint.runner import add_noqa

    added = add_noqa(result.diagnostics, settings, rules)
    result.errors.extend(added.errors)
    result.diagnostics = added.left
    plural = "s" if added.directives != 1 else ""
    click.echo(f"Added {added.directives} noqa directive{plural} to {added.files} file{'s' if added.files != 1 else ''}.", err=True)


def _read_stdin(filename: str, settings):
    """(text, None), or ("", the FileResult of a JAX000 finding) for binary or undecodable input."""
    from jaxlint.files import SourceReadError, decode_source
    from jaxlint.runner import unreadable_result

    try:
        return decode_source(sys.stdin.buffer.read(), "<stdin>").text, None
    except SourceReadError as error:  # undecodable or binary input: a finding, like such a file
        return "", unreadable_result(filename, SourceReadError(error.reason("<stdin>")), settings)


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
