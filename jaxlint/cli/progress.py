"""What a long run shows on a terminal: a progress bar while files are analysed, then one summary line.

Both go to stderr, so stdout carries only the report (JSON, SARIF and GitHub annotations stay
machine-readable). The bar appears only when stderr is a terminal and `-q` is not given; it is
erased when the run ends. The summary line ("Checked 1,641 files in 3.2 s.") is printed unless `-q`.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from typing import Callable, Iterator


def wants_progress_bar(quiet: bool, stream=None) -> bool:
    stream = stream if stream is not None else sys.stderr
    return not quiet and hasattr(stream, "isatty") and stream.isatty()


@contextmanager
def progress_bar(verb: str, enabled: bool) -> Iterator[Callable[[int], Callable[[], None]] | None]:
    """Yields `start(total) -> advance()` for the runner, or None when no bar is wanted."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn(f"{verb} files"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(file=sys.stderr), transient=True) as progress:

        def start(total: int) -> Callable[[], None]:
            task = progress.add_task(verb, total=total)
            return lambda: progress.advance(task)

        yield start


def run_summary(verb: str, files: int, seconds: float, cached: int = 0) -> str:
    """One line: how many files, how long, and how many came from the cache."""
    plural = "s" if files != 1 else ""
    detail = f" ({cached:,} unchanged, from the cache)" if cached else ""
    return f"{verb} {files:,} file{plural}{detail} in {seconds:.2f} s."
