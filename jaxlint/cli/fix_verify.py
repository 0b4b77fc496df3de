"""`jaxlint fix --verify -- COMMAND`: the command-line side (files, progress, report, exit status).

The runs and the verdicts are `jaxlint.runtime_checks.verify`; nothing here imports jax.
Exit status: 0 every fix verified and written (or nothing to fix), 1 a fix rejected or left
unverified, 2 a usage error, a command that cannot start or that fails as written.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import click

from jaxlint.cli.common import EXIT_CLEAN, EXIT_ERROR, EXIT_FINDINGS, error_line


def verify_fixes(command: list[str], paths: list[str], settings, rules, unsafe: bool, output_format: str,
                 each_fix: bool, max_runs: int, timeout_s: float | None, quiet: bool, paths_given: bool = True) -> int:
    from jaxlint.runner import RunResult, collect_files
    from jaxlint.runtime_checks.verify import Verifier, collect_units, to_report

    def say(line: str) -> None:
        if not quiet:
            click.echo(line, err=True)

    root = Path.cwd().resolve()
    found = RunResult()
    files = collect_files([Path(path) for path in paths], settings, found)
    for message in found.errors:
        error_line(message)
    if found.missing_paths:
        return EXIT_ERROR
    fixable, notes = collect_units(files, root, settings, rules, unsafe)
    verifier = Verifier(command, fixable, root, settings, rules, unsafe, max_runs, timeout_s, each_fix, say,
                        only_files_that_ran=not paths_given)
    count = len(verifier.units)
    if count:
        say(f"jaxlint fix --verify: {count} fix(es) to check against `{shlex.join(command)}` "
            f"(the program's output is kept, not shown)")
    verification = verifier.verify()
    verification.notes += notes
    errors = verifier.write_verified() if verification.error is None else []
    for message in errors:
        error_line(message)
    report = to_report(verification)
    if output_format == "json":
        click.echo(json.dumps(report, indent=2))
    else:
        render_text(report)
    if verification.error:
        error_line(verification.error)
        return EXIT_ERROR
    if errors or any(fix["verdict"] != "verified" for fix in report["fixes"]):
        return EXIT_FINDINGS
    return EXIT_CLEAN


def render_text(report: dict) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    if not console.is_terminal:
        console = Console(width=180)
    device = report.get("device") or {}
    where = f" on {device.get('device_kind')} ({device.get('platform')}), jax {device.get('jax_version')}" if device else ""
    console.print(f"`{shlex.join(report['command'])}`{where}", markup=False, highlight=False)
    if not report["fixes"]:
        console.print("No fixes to verify.", markup=False)
        return
    table = Table(show_lines=False)
    for column in ("fix", "verdict", "compiles", "host syncs", "peak memory", "run", "step", "reason"):
        table.add_column(column, overflow="fold")
    for fix in report["fixes"]:
        m = fix["metrics"]
        table.add_row(f"{fix['code']} {fix['filename']}:{fix['line']}", fix["verdict"],
                      _pair(m["compiles_before"], m["compiles_after"]), _pair(m["syncs_before"], m["syncs_after"]),
                      _pair(m["peak_bytes_before"], m["peak_bytes_after"], _megabytes),
                      _pair(m["wall_s_before"], m["wall_s_after"], lambda s: f"{s:.2f} s"),
                      _pair(m["step_s_before"], m["step_s_after"], _duration), fix["reason"])
    console.print(table)
    for note in report.get("notes") or []:
        console.print(f"note: {note}", markup=False, highlight=False)
    written = report["written"]
    console.print(f"Written: {', '.join(written)}" if written else "Nothing written.", markup=False, highlight=False)
    console.print(f"Rule: {report['rule']}.", markup=False, highlight=False)


def _pair(before, after, show=str) -> str:
    if before is None and after is None:
        return "-"
    left = show(before) if before is not None else "?"
    right = show(after) if after is not None else "?"
    return f"{left} -> {right}"


def _megabytes(value: int) -> str:
    return f"{value / 1e6:.1f} MB"


def _duration(seconds: float) -> str:
    return f"{seconds * 1e3:.2f} ms" if seconds < 1 else f"{seconds:.2f} s"
