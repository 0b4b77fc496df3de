"""`jaxlint fix`: apply fixes to files (or stdin), print what was fixed and what remains.

The fixing itself is `jaxlint.fixer.fix_source` on text; this module reads files, runs the fixer
(in worker processes when there are many files), and writes results atomically, keeping encoding,
BOM, line endings and permissions. A file with nothing to change is never opened for writing.
The results cache `check` writes is read here too: a file whose cached findings carry no fix this
run may apply is not analysed again (`--no-cache` turns that off).

Exit status: 0 when no findings remain, 1 when some remain (or, with `--diff`, when something
would change; with `--exit-non-zero-on-fix`, when something was fixed), 2 on usage errors.
"""

from __future__ import annotations

import difflib
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from typing import Callable, Sequence

import click

from jaxlint.cli.common import (
    CONTEXT_SETTINGS,
    EXIT_CLEAN,
    EXIT_ERROR,
    EXIT_FINDINGS,
    build_settings,
    enabled_rules,
    error_line,
    selection_options,
)
from jaxlint.diagnostics import Diagnostic

# Below this many files a process pool costs more to start than it saves (as for `check`).
PARALLEL_THRESHOLD = 16


@dataclass
class FileFix:
    """What fixing one file did. `fixed` is None when the file could not be read."""

    filename: str
    original: str | None = None
    fixed: str | None = None
    applied: list[Diagnostic] = field(default_factory=list)
    remaining: list[Diagnostic] = field(default_factory=list)
    reverted: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    written: bool = False
    from_cache: bool = False  # nothing to fix, known from the cache: the text was not even decoded

    @property
    def changed(self) -> bool:
        return self.fixed is not None and self.fixed != self.original

    @property
    def readable(self) -> bool:
        return self.fixed is not None or self.from_cache


def fix_text(text: str, filename: str, settings, rules: Sequence, unsafe: bool) -> FileFix:
    from jaxlint.config import per_file_ignored
    from jaxlint.fixer import fix_source

    ignored = per_file_ignored(settings, Path(filename)) if settings.per_file_ignores else []
    if filename.lower().endswith(".ipynb"):
        from jaxlint.notebook import fix_notebook

        _, outcome = fix_notebook(text, settings, rules, unsafe, filename=filename, ignored_codes=ignored)
    else:
        outcome = fix_source(text, filename, settings, rules, unsafe=unsafe, ignored_codes=ignored)
    return FileFix(filename, text, outcome.text, outcome.applied, outcome.remaining, outcome.reverted, list(outcome.errors))


def fix_file(path: Path, settings, rules: Sequence, unsafe: bool, write: bool) -> FileFix:
    """Fix one file; write it (atomically) only when `write` and its text changed."""
    from jaxlint.files import SourceReadError, encode_source, read_source, write_atomic

    try:
        decoded = read_source(path)
    except SourceReadError as error:
        return FileFix(str(path), errors=[str(error)])
    result = fix_text(decoded.text, str(path), settings, rules, unsafe)
    if write and result.changed:
        try:
            # No write bit for anyone means "do not touch", even for root (whom os.access lets write).
            if not path.stat().st_mode & 0o222:
                raise PermissionError(str(path))
            write_atomic(path, encode_source(decoded, result.fixed))
            result.written = True
        except UnicodeEncodeError as error:
            result.errors.append(f"{path}: not written: the fixed code cannot be encoded as {decoded.encoding} ({error.reason})")
        except PermissionError:
            result.errors.append(f"{path}: not written: file is read-only (or its directory is); fixes not applied")
        except OSError as error:
            result.errors.append(f"{path}: not written: {error.strerror or error}")
        if not result.written:
            # Report the findings as they stand in the file on disk.
            from jaxlint.runner import lint_text

            result.remaining = lint_text(decoded.text, str(path), settings, rules).diagnostics
            result.applied = []
    return result


# Worker state for process pools, set once per process.
_worker: tuple | None = None


def _initialize_worker(settings, codes: list[str], unsafe: bool, write: bool) -> None:
    from jaxlint.rules import RULES_BY_CODE

    from jaxlint.runner import tune_garbage_collector

    global _worker
    tune_garbage_collector()
    _worker = (settings, [RULES_BY_CODE[code] for code in codes], unsafe, write)


def _fix_in_worker(path: str) -> FileFix:
    assert _worker is not None
    settings, rules, unsafe, write = _worker
    return fix_file(Path(path), settings, rules, unsafe, write)


def fix_files(
    files: Sequence[Path],
    settings,
    rules: Sequence,
    unsafe: bool,
    write: bool,
    jobs: int | None = None,
    cache=None,
    on_file: Callable[[], None] | None = None,
) -> list[FileFix]:
    """Results in the order of `files`. With `cache` (a ResultCache), a file whose cached findings
    have no fix applicable here is answered from it; an unchanged file's findings are stored."""
    from jaxlint.runner import tune_garbage_collector

    tune_garbage_collector()
    results: list[FileFix | None] = [None] * len(files)
    pending: list[tuple[int, str | None]] = []
    for index, path in enumerate(files):
        key, cached = _cached_findings(path, settings, cache)
        if cached is not None and not any(is_applicable(d, unsafe) for d in cached):
            results[index] = FileFix(str(path), remaining=cached, from_cache=True)
            if on_file is not None:
                on_file()
            continue
        pending.append((index, key))
    computed = _fix_uncached([files[index] for index, _ in pending], settings, rules, unsafe, write, jobs, on_file)
    for (index, key), result in zip(pending, computed):
        results[index] = result
        if key is not None and result.fixed is not None and not result.changed and not result.errors and not result.reverted:
            cache.store(key, result.remaining)  # what `check` would find: the fixer's last lint of this text
    return results  # type: ignore[return-value]


def is_applicable(diagnostic: Diagnostic, unsafe: bool) -> bool:
    return diagnostic.fix is not None and (unsafe or diagnostic.fix.is_safe)


def _cached_findings(path: Path, settings, cache) -> tuple[str | None, list[Diagnostic] | None]:
    if cache is None:
        return None, None
    from jaxlint.config import per_file_ignored

    try:
        data = path.read_bytes()
    except OSError:
        return None, None  # fix_file reports it
    ignored = per_file_ignored(settings, path) if settings.per_file_ignores else ()
    key = cache.key(data, ignored)
    return key, cache.load(key, str(path))


def _fix_uncached(files, settings, rules, unsafe: bool, write: bool, jobs: int | None, on_file) -> list[FileFix]:
    from jaxlint.runner import default_jobs

    jobs = jobs or default_jobs()
    if jobs <= 1 or len(files) < PARALLEL_THRESHOLD:
        results = []
        for path in files:
            results.append(fix_file(path, settings, rules, unsafe, write))
            if on_file is not None:
                on_file()
        return results
    import multiprocessing

    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    chunk = max(1, min(16, len(files) // (jobs * 8) or 1))
    initargs = (settings, [rule.code for rule in rules], unsafe, write)
    with context.Pool(jobs, initializer=_initialize_worker, initargs=initargs) as pool:
        results = []
        for result in pool.imap(_fix_in_worker, [str(path) for path in files], chunksize=chunk):
            results.append(result)
            if on_file is not None:
                on_file()
        return results


def unified_diff(result: FileFix) -> str:
    name = result.filename
    lines = difflib.unified_diff(
        (result.original or "").splitlines(keepends=True),
        (result.fixed or "").splitlines(keepends=True),
        fromfile=_diff_name("a", name),
        tofile=_diff_name("b", name),
    )
    text = "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)
    return text


def _diff_name(side: str, name: str) -> str:
    if name == "-":
        name = "<stdin>"
    # `a/` and `b/` prefixes (what `git apply -p1` expects) only make sense for relative paths.
    return name if os.path.isabs(name) else f"{side}/{name}"


def summary_line(fixed: int, remaining: int, would: bool) -> str:
    verb = "Would fix" if would else "Fixed"
    if fixed == 0 and remaining == 0:
        return "No errors found." if not would else "No errors would be fixed."
    if fixed == 0:
        return f"No errors {'would be ' if would else ''}fixed ({remaining} remaining)."
    plural = "s" if fixed != 1 else ""
    return f"{verb} {fixed} error{plural} ({remaining} remaining)."


class FixCommand(click.Command):
    """`jaxlint fix --verify [PATHS] -- COMMAND...`: what follows `--` is the command to run, not paths."""

    def parse_args(self, ctx, args):
        if "--" in args and "--verify" in args[: args.index("--")]:
            split = args.index("--")
            ctx.meta["jaxlint.fix.command"] = list(args[split + 1:])
            args = args[:split]
        return super().parse_args(ctx, args)


@click.command("fix", cls=FixCommand, context_settings=CONTEXT_SETTINGS)
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@selection_options
@click.option("--unsafe-fixes", is_flag=True, help="Also apply fixes that may change behaviour (see each rule's \"Fix safety\").")
@click.option("--diff", "show_diff", is_flag=True, help="Print a unified diff of the fixes and write nothing; exit 1 if anything would change.")
@click.option("--exit-non-zero-on-fix", is_flag=True, help="Exit 1 when any fix was applied, even if no findings remain.")
@click.option("--stdin-filename", default=None, metavar="PATH", help="Name to report for code read from stdin (`-`).")
@click.option("--quiet", "-q", is_flag=True, help="Print only errors and the remaining findings: no summary, no progress bar, no timing line.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=None, help="Processes to use (default: all cores).")
@click.option("--force-exclude", is_flag=True, help="Apply excludes to files named on the command line too (what pre-commit hooks need).")
@click.option("--no-cache", is_flag=True, help="Do not read or write the results cache (.jaxlint_cache/ or $JAXLINT_CACHE_DIR) that `check` shares; by default a file whose cached findings have nothing to fix is skipped.")
@click.option("--verify", is_flag=True, help="Run the command after `--` as written, then with the fixes applied in a scratch copy of the current folder, and write only the fixes whose run agrees and is not slower (see below).")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True, help="With --verify: the report on stdout as a table or as JSON.")
@click.option("--each-fix", is_flag=True, help="With --verify: also run each fix on its own, for every fix's own metrics.")
@click.option("--max-runs", type=click.IntRange(min=2), default=12, show_default=True, help="With --verify: most runs of the command, the original included.")
@click.option("--timeout", "run_timeout", type=click.FloatRange(1, None), default=None, help="With --verify: stop a run after this many seconds (it then counts as failed).")
@click.pass_context
def fix_command(ctx, paths, config, select, ignore, extend_select, unsafe_fixes, show_diff, exit_non_zero_on_fix, stdin_filename, quiet, jobs, force_exclude, no_cache,
                verify, output_format, each_fix, max_runs, run_timeout):
    """Apply jaxlint's fixes. Safe fixes only, unless `--unsafe-fixes`.

    PATHS are files or directories (default: the current directory); `-` reads stdin and writes the
    fixed code to stdout. Files are rewritten atomically, keeping encoding, BOM, line endings and
    permissions; files with nothing to fix are not touched.

    \b
    Exit status: 0 no findings remain, 1 findings remain (with --diff: something would change),
    2 usage or internal error.
    On a terminal a progress bar shows on stderr; unless -q, a last line on stderr says how many
    files were checked and how long it took.

    \b
    jaxlint fix --verify [--unsafe-fixes] [--select ...] [PATHS] -- COMMAND...
    e.g. `jaxlint fix --verify --unsafe-fixes -- python train.py --steps 50`. Runs COMMAND as
    written, then with the fixes of PATHS (under the current folder; default: the files of the
    current folder that the command runs) applied in a scratch copy of the current folder, each run under `jaxlint runtime`'s instrumentation. A fix is written only if
    its run agrees (same exit status; the values the jitted functions return, within their dtype's
    tolerance; the numbers printed) and is not slower (wall time at most 10% + 0.5 s above the
    original's; a run that looks slower is repeated, and the shorter time counts). Fixes are checked together, and each on its own where they interact or the joint
    run fails. Progress goes to stderr, the report (--format text|json) to stdout.
    \b
    Exit status with --verify: 0 every fix verified and written (or nothing to fix), 1 a fix was
    rejected or left unverified (not written), 2 usage error, or the command could not start, or
    it fails as written (nothing to compare against).
    """
    from jaxlint.cli.progress import progress_bar, run_summary, wants_progress_bar
    from jaxlint.runner import RunResult, collect_files

    started = perf_counter()
    paths_given = bool(paths)
    command = ctx.meta.get("jaxlint.fix.command")
    if verify and not command:
        error_line("--verify needs the command to run after `--`: e.g. `jaxlint fix --verify -- python train.py`")
        sys.exit(EXIT_ERROR)
    if not verify and (output_format != "text" or each_fix):
        error_line("--format and --each-fix belong to --verify")
        sys.exit(EXIT_ERROR)

    paths = list(paths) or ["."]
    settings = build_settings(paths, config, select, ignore, extend_select)
    rules = enabled_rules(settings)
    if verify:
        if "-" in paths or show_diff:
            error_line("--verify fixes files: it takes no `-` (stdin) and no --diff")
            sys.exit(EXIT_ERROR)
        from jaxlint.cli.fix_verify import verify_fixes

        sys.exit(verify_fixes(command, paths, settings, rules, unsafe_fixes, output_format, each_fix, max_runs, run_timeout, quiet,
                              paths_given=paths_given))
    if paths == ["-"]:
        sys.exit(_fix_stdin(stdin_filename or "-", settings, rules, unsafe_fixes, show_diff, exit_non_zero_on_fix, quiet))
    if "-" in paths:
        error_line("`-` (stdin) cannot be combined with other paths")
        sys.exit(EXIT_ERROR)
    run = RunResult()
    files = collect_files([Path(p) for p in paths], settings, run, force_exclude=force_exclude)
    cache = None
    if not no_cache:
        from jaxlint.cache import ResultCache, cache_directory

        cache = ResultCache(cache_directory(settings), settings, [rule.code for rule in rules])
    with progress_bar("Fixing", wants_progress_bar(quiet)) as progress:
        on_file = progress(len(files)) if progress is not None else None
        results = fix_files(files, settings, rules, unsafe_fixes, write=not show_diff, jobs=jobs, cache=cache, on_file=on_file)
    for message in run.errors:
        error_line(message)
    readable = [result for result in results if result.readable]
    for result in results:
        for message in result.errors:
            error_line(message)
        for message in result.reverted:
            error_line(message)
    if show_diff:
        for result in readable:
            if result.changed:
                click.echo(unified_diff(result), nl=False)
        sys.stdout.flush()
    remaining = sorted((d for result in readable for d in result.remaining), key=Diagnostic.sort_key)
    applied = [d for result in readable for d in (result.applied if (show_diff or result.written) else [])]
    _report(remaining, applied, quiet, would=show_diff, stream=sys.stderr if show_diff else sys.stdout)
    if not quiet and readable:
        sys.stdout.flush()
        from_cache = sum(1 for result in readable if result.from_cache)
        click.echo(run_summary("Checked", len(readable), perf_counter() - started, from_cache), err=True)
    if run.missing_paths or (not readable and (run.errors or any(r.errors for r in results))):
        sys.exit(EXIT_ERROR)
    if show_diff:
        sys.exit(EXIT_FINDINGS if any(result.changed for result in readable) else EXIT_CLEAN)
    if remaining or (exit_non_zero_on_fix and applied):
        sys.exit(EXIT_FINDINGS)
    if any(result.changed and not result.written for result in readable):
        sys.exit(EXIT_FINDINGS)  # a fix that could not be written leaves its finding in the file
    sys.exit(EXIT_CLEAN)


def _fix_stdin(filename: str, settings, rules, unsafe: bool, show_diff: bool, exit_on_fix: bool, quiet: bool) -> int:
    from jaxlint.files import SourceReadError, decode_source

    data = sys.stdin.buffer.read()
    try:
        decoded = decode_source(data, "<stdin>")
    except SourceReadError as error:
        error_line(str(error))
        sys.stdout.buffer.write(data)  # a filter must not swallow its input
        return EXIT_ERROR
    result = fix_text(decoded.text, filename, settings, rules, unsafe)
    for message in [*result.errors, *result.reverted]:
        error_line(message)
    if show_diff:
        click.echo(unified_diff(result), nl=False)
    else:
        from jaxlint.files import encode_source

        sys.stdout.buffer.write(encode_source(decoded, result.fixed))
        sys.stdout.flush()
    # stdout carries the code, so the report goes to stderr.
    _report(result.remaining, result.applied, quiet, would=show_diff, stream=sys.stderr)
    if show_diff:
        return EXIT_FINDINGS if result.changed else EXIT_CLEAN
    if result.remaining or (exit_on_fix and result.applied):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def _report(remaining: list[Diagnostic], applied: list[Diagnostic], quiet: bool, would: bool, stream) -> None:
    for d in remaining:
        cell = f"cell {d.cell}:" if d.cell is not None else ""
        stream.write(f"{d.filename}:{cell}{d.location.row}:{d.location.column}: {d.code} {d.message}\n")
    if quiet:
        return
    if applied:
        counts = Counter(d.code for d in applied)
        detail = ", ".join(f"{code} x{count}" for code, count in sorted(counts.items()))
        stream.write(f"{'Would apply' if would else 'Applied'}: {detail}\n")
    stream.write(summary_line(len(applied), len(remaining), would) + "\n")
    stream.flush()
