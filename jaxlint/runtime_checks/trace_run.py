"""Run the user's own command under the instrumentation of `trace_hook`, keeping its output.

The command inherits this process's stdout and stderr, so the user sees their program as usual;
jaxlint's progress lines go to stderr between them. The instrumentation is switched on through
the environment only: `trace_site/` first on PYTHONPATH (its `sitecustomize` arms the hook in
every Python process the command starts), `JAXLINT_TRACE_DIR` for the per-process trace files
and `JAXLINT_TRACE_ROOTS` for what counts as the user's code. Nothing here imports jax.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

SITE_DIR = Path(__file__).resolve().parent / "trace_site"
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


@dataclass
class TracedRun:
    command: list[str]
    exit_status: int | None
    elapsed_s: float
    documents: list[dict] = field(default_factory=list)
    start_error: str | None = None
    timed_out: bool = False


def traced_environment(trace_dir: str, roots: list[str], base: dict | None = None, probe: bool = True) -> dict:
    environment = dict(os.environ if base is None else base)
    environment["JAXLINT_TRACE_PROBE"] = "1" if probe else "0"
    path = [str(SITE_DIR), str(PACKAGE_ROOT), environment.get("PYTHONPATH", "")]
    environment["PYTHONPATH"] = os.pathsep.join(part for part in path if part)
    environment["JAXLINT_TRACE_DIR"] = trace_dir
    environment["JAXLINT_TRACE_ROOTS"] = os.pathsep.join(roots)
    return environment


def read_documents(trace_dir: str) -> list[dict]:
    documents = []
    for path in sorted(Path(trace_dir).glob("trace-*.json")):
        try:
            documents.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, json.JSONDecodeError):
            continue  # a process killed mid-write leaves nothing usable
    return documents


def progress_line(documents: list[dict], elapsed: float) -> str:
    totals = {"compiles": 0, "compile_s": 0.0, "syncs": 0, "sync_blocked_s": 0.0, "calls": 0}
    for document in documents:
        for key in totals:
            totals[key] += document.get("totals", {}).get(key, 0)
    return (f"jaxlint runtime: {elapsed:.0f} s, {totals['compiles']} compilation(s) ({totals['compile_s']:.2f} s), "
            f"{totals['syncs']} host sync(s) ({totals['sync_blocked_s']:.2f} s blocked), "
            f"{totals['calls']} call(s) of jitted functions")


def run_traced(command: list[str], roots: list[str], progress: Callable[[str], None] | None = None,
               interval_s: float = 5.0, timeout_s: float | None = None, stdout_to_stderr: bool = False,
               probe: bool = True) -> TracedRun:
    """Run `command` to completion (or `timeout_s`); return its status and the trace documents.

    `stdout_to_stderr`: the program's stdout goes to stderr, leaving stdout to a JSON report.
    """
    with tempfile.TemporaryDirectory(prefix="jaxlint-trace-") as trace_dir:
        started = time.perf_counter()
        try:
            process = subprocess.Popen(command, env=traced_environment(trace_dir, roots, probe=probe),
                                       stdout=2 if stdout_to_stderr else None)  # fd 2: our stderr
        except OSError as error:
            return TracedRun(command, None, 0.0, start_error=f"{command[0]}: {error.strerror or error}")
        last_line, next_report, timed_out = "", started + interval_s, False
        try:
            while process.poll() is None:
                time.sleep(0.2)
                now = time.perf_counter()
                if timeout_s is not None and now - started > timeout_s:
                    timed_out = True
                    _stop(process)
                    break
                if progress is not None and now >= next_report:
                    next_report = now + interval_s
                    line = progress_line(read_documents(trace_dir), now - started)
                    if line.split(",", 1)[1] != last_line.split(",", 1)[-1]:
                        progress(line)
                    last_line = line
        except KeyboardInterrupt:
            # The child got the same SIGINT from the terminal; let it finish writing its trace.
            _wait_briefly(process)
        elapsed = time.perf_counter() - started
        return TracedRun(command, process.returncode, elapsed, read_documents(trace_dir), timed_out=timed_out)


def _stop(process: subprocess.Popen) -> None:
    process.send_signal(signal.SIGINT)  # lets the program (and its atexit trace) finish
    if _wait_briefly(process) is None:
        process.kill()
        process.wait()


def _wait_briefly(process: subprocess.Popen, seconds: float = 10.0) -> int | None:
    try:
        return process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return None
