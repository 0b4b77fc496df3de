"""Run the engine over many files: discovery, reading, per-file ignores, processes.

Data flows one way: paths -> files -> engine -> diagnostics; reporters and the fixer take it from here.
"""

from __future__ import annotations

import gc
import os
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from time import perf_counter
from typing import Callable, Iterable, Sequence

from jaxlint.config import Settings, per_file_ignored
from jaxlint.diagnostics import Diagnostic
from jaxlint.engine import FileResult, check_source
from jaxlint.files import NOTEBOOK_SUFFIXES, SourceReadError, discover, read_source

# Below this many files a process pool costs more to start than it saves.
PARALLEL_THRESHOLD = 16


def tune_garbage_collector() -> None:
    """Collect cycles rarely while linting many files.

    Parsing and modelling a module allocates hundreds of thousands of objects that all stay alive
    until the module is done; with CPython's default thresholds (700, 10, 10) the collector
    traverses them again and again while they are being built. Mypy uses these thresholds for the
    same reason; here they cut about a fifth of the CPU time of a cold check, for a few MiB more
    per process. Idempotent; worker processes inherit it by fork and set it again when spawned.
    """
    gc.set_threshold(200_000, 30, 30)


@dataclass
class RunResult:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    files_checked: int = 0
    missing_paths: int = 0
    files_unreadable: int = 0  # files that could not be read or decoded (each a JAX000 finding)
    # With profiling on: seconds per phase and per rule code, summed over every analysed file.
    timings: dict[str, float] = field(default_factory=dict)


def lint_text(text: str, filename: str, settings: Settings, rules: Sequence, profile: bool = False, parsed=None) -> FileResult:
    ignored = per_file_ignored(settings, Path(filename)) if settings.per_file_ignores else []
    if filename.lower().endswith(NOTEBOOK_SUFFIXES):
        from jaxlint.notebook import lint_notebook

        started = perf_counter()
        result = lint_notebook(text, filename, settings, rules, ignored_codes=ignored)
        if profile:  # cells are parsed and checked together: one line for the lot
            result.timings = {"notebooks": perf_counter() - started}
        return result
    return check_source(text, filename, settings, rules, ignored_codes=ignored, profile=profile, parsed=parsed)


def lint_file(path: Path, settings: Settings, rules: Sequence, profile: bool = False, parsed: tuple | None = None) -> FileResult:
    """`parsed`: (text, tree) of the file parsed ahead, used when the file still reads as that text."""
    started = perf_counter()
    try:
        decoded = read_source(path)
    except SourceReadError as error:
        return unreadable_result(str(path), error, settings)
    read = perf_counter() - started
    tree = parsed[1] if parsed is not None and parsed[0] == decoded.text else None
    result = lint_text(decoded.text, str(path), settings, rules, profile, parsed=tree)
    if profile:
        result.timings = {**(result.timings or {}), "read": read}
    return result


def unreadable_result(filename: str, error: SourceReadError, settings: Settings) -> FileResult:
    """A file that could not be read or decoded: a JAX000 finding (unless ignored), never a pass.
    Marked unreadable, so it is not cached and is tried again next time."""
    from jaxlint.engine import not_checked_diagnostic, syntax_errors_ignored

    ignored = per_file_ignored(settings, Path(filename)) if settings.per_file_ignores else []
    if syntax_errors_ignored(settings, ignored):
        return FileResult(filename, unreadable=True)
    return FileResult(filename, [not_checked_diagnostic(filename, error.reason(filename))], unreadable=True)


class _ParsedAhead:
    """Modules a process of a run parsed for their summaries (semantic/project.py) while no process
    had taken them yet: the process claims them (processes.claim) and lints them next from that
    parse, instead of parsing them again. On the benchmark corpus, 195 of the 283 summary parses of a
    two-process run."""

    def __init__(self, paths: Sequence[str]) -> None:
        self.index_of = {os.path.abspath(path): index for index, path in enumerate(paths)}
        self.parses: dict[str, tuple] = {}

    def take(self, path: str, text: str, tree) -> bool:
        from jaxlint.processes import claim

        key = os.path.abspath(path)
        index = self.index_of.get(key)
        if index is None or not claim(index):
            return False
        self.parses[key] = (text, tree)
        return True

    def lint(self, path: str, settings: Settings, rules: Sequence, profile: bool) -> FileResult:
        return lint_file(Path(path), settings, rules, profile, parsed=self.parses.pop(os.path.abspath(path), None))


def _start_helper(settings: Settings, codes: list[str], profile: bool, summaries: str, paths: Sequence[str]) -> Callable[[str], FileResult]:
    """Set up a helper process of a run (processes.py) and return what it does with each path."""
    from jaxlint.rules import RULES_BY_CODE
    from jaxlint.semantic import run_memo

    tune_garbage_collector()
    run_memo.start()  # the process ends with the run
    return _share_and_lint(paths, summaries, settings, [RULES_BY_CODE[code] for code in codes], profile)


def _share_and_lint(paths: Sequence[str], summaries: str, settings: Settings, rules: Sequence, profile: bool) -> Callable[[str], FileResult]:
    """Join the run's shared summaries and parses, in any process of it; return how it lints a path."""
    from jaxlint.semantic import shared_summaries

    parsed_ahead = _ParsedAhead(paths)
    shared_summaries.use_directory(summaries)
    shared_summaries.use_parsed_modules(parsed_ahead.take)
    return lambda path: parsed_ahead.lint(path, settings, rules, profile)


def _largest_first(files: Sequence[Path]) -> list[int]:
    """Indexes of `files`, largest file first: handed out in this order, the last files a worker
    takes are small ones, so no worker is left analysing a large file while the other waits."""

    def size(index: int) -> int:
        try:
            return os.stat(files[index]).st_size
        except OSError:
            return 0  # lint_file reports it

    return sorted(range(len(files)), key=size, reverse=True)


def default_jobs() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return max(1, os.cpu_count() or 1)


def collect_files(paths: Iterable[Path], settings: Settings, result: RunResult, force_exclude: bool = False) -> list[Path]:
    files: list[Path] = []
    for item in discover(paths, settings.excludes, settings.root, force_exclude=force_exclude):
        if isinstance(item, SourceReadError):
            if "no such file" in str(item):
                result.errors.append(str(item))
                result.missing_paths += 1
            else:
                # A directory that could not be listed: what it holds was not checked.
                name, _, reason = str(item).partition(": ")
                from jaxlint.engine import not_checked_diagnostic, syntax_errors_ignored

                if not syntax_errors_ignored(settings):
                    result.diagnostics.append(not_checked_diagnostic(name, f"cannot list this directory ({reason})"))
        else:
            files.append(item)
    return files


def lint_files(
    files: Sequence[Path],
    settings: Settings,
    rules: Sequence,
    jobs: int | None = None,
    cache=None,
    *,
    profile: bool = False,
    on_file: Callable[[], None] | None = None,
) -> list[FileResult]:
    """Results in the order of `files`; unchanged files come from `cache` (a ResultCache) when given.

    `on_file` is called once per file as it is done (a progress display); `profile` fills each
    analysed file's `timings`."""
    tune_garbage_collector()
    results: list[FileResult | None] = [None] * len(files)
    pending: list[tuple[int, str | None]] = []
    for index, path in enumerate(files):
        key = None
        if cache is not None:
            try:
                data = path.read_bytes()
            except OSError:
                data = None  # lint_file reports it
            if data is not None:
                ignored = per_file_ignored(settings, path) if settings.per_file_ignores else ()
                key = cache.key(data, ignored)
                cached = cache.load(key, str(path))
                if cached is not None:
                    results[index] = FileResult(str(path), cached)
                    if on_file is not None:
                        on_file()
                    continue
        pending.append((index, key))
    computed = _lint_uncached([files[index] for index, _ in pending], settings, rules, jobs, profile, on_file)
    for (index, key), file_result in zip(pending, computed):
        results[index] = file_result
        # Only clean analyses are cached: an internal error or unreadable file is retried next time.
        if key is not None and not file_result.errors and not file_result.unreadable:
            cache.store(key, file_result.diagnostics, file_result.dependencies)
    return results  # type: ignore[return-value]


def _lint_uncached(
    files: Sequence[Path], settings: Settings, rules: Sequence, jobs: int | None, profile: bool, on_file: Callable[[], None] | None
) -> list[FileResult]:
    jobs = jobs or default_jobs()
    if jobs <= 1 or len(files) < PARALLEL_THRESHOLD:
        from jaxlint.semantic import run_memo

        results = []
        with run_memo.remembering():
            for path in files:
                results.append(lint_file(path, settings, rules, profile))
                if on_file is not None:
                    on_file()
        return results
    from jaxlint.processes import run_in_processes
    from jaxlint.semantic import run_memo, shared_summaries

    order = _largest_first(files)
    paths = [str(files[index]) for index in order]
    results: list[FileResult | None] = [None] * len(files)

    def on_result(position: int, file_result: FileResult) -> None:
        results[order[position]] = file_result
        if on_file is not None:
            on_file()

    # The processes share the summaries of imported modules they build (semantic/shared_summaries.py).
    with tempfile.TemporaryDirectory(prefix="jaxlint-summaries-") as summaries:
        helper_arguments = (settings, [rule.code for rule in rules], profile, summaries, paths)
        lint_path = _share_and_lint(paths, summaries, settings, rules, profile)
        try:
            with run_memo.remembering():
                run_in_processes(paths, jobs, lint_path, on_result, _start_helper, helper_arguments)
        finally:
            shared_summaries.use_directory(None)
            shared_summaries.use_parsed_modules(None)
    return results  # type: ignore[return-value]


def lint_paths(
    paths: Iterable[Path],
    settings: Settings,
    rules: Sequence,
    jobs: int | None = None,
    cache=None,
    force_exclude: bool = False,
    *,
    profile: bool = False,
    progress=None,
) -> RunResult:
    """Lint every file under `paths`. `progress(total)` (optional) returns the per-file callback."""
    result = RunResult()
    files = collect_files(paths, settings, result, force_exclude)
    on_file = progress(len(files)) if progress is not None else None
    timings: defaultdict[str, float] = defaultdict(float)
    for file_result in lint_files(files, settings, rules, jobs, cache, profile=profile, on_file=on_file):
        if file_result.unreadable:
            result.errors.extend(file_result.errors)
            result.diagnostics.extend(file_result.diagnostics)
            result.files_unreadable += 1
            continue
        for name, seconds in (file_result.timings or {}).items():
            timings[name] += seconds
        result.files_checked += 1
        result.diagnostics.extend(file_result.diagnostics)
        result.errors.extend(file_result.errors)
    result.diagnostics.sort(key=Diagnostic.sort_key)
    result.timings = dict(timings)
    return result


@dataclass
class NoqaAdded:
    directives: int = 0  # lines that gained or extended a `# noqa`
    files: int = 0
    left: list[Diagnostic] = field(default_factory=list)  # findings no noqa can silence
    errors: list[str] = field(default_factory=list)


def add_noqa(diagnostics: Sequence[Diagnostic], settings: Settings, rules: Sequence) -> NoqaAdded:
    """Write `# noqa: CODE` for each finding, atomically, touching only files that have findings.

    Each file is read and linted again so the comments match the bytes being rewritten.
    """
    from jaxlint.engine import add_noqa_comments
    from jaxlint.files import encode_source, write_atomic

    outcome = NoqaAdded()
    filenames = sorted({d.filename for d in diagnostics})
    for filename in filenames:
        path = Path(filename)
        try:
            decoded = read_source(path)
        except SourceReadError as error:
            outcome.errors.append(str(error))
            continue
        found = lint_text(decoded.text, filename, settings, rules).diagnostics
        if filename.lower().endswith(NOTEBOOK_SUFFIXES):
            from jaxlint.notebook import add_noqa_to_notebook

            new_text, added, left = add_noqa_to_notebook(decoded.text, found)
        else:
            new_text, added, left = add_noqa_comments(decoded.text, found)
        outcome.left.extend(left)
        if not added or new_text == decoded.text:
            continue
        try:
            write_atomic(path, encode_source(decoded, new_text))
        except (OSError, UnicodeEncodeError) as error:
            outcome.errors.append(f"{path}: not written: {getattr(error, 'strerror', None) or error}")
            outcome.left.extend(d for d in found if d not in left)
            continue
        outcome.directives += added
        outcome.files += 1
    outcome.left.sort(key=Diagnostic.sort_key)
    return outcome
