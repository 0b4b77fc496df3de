"""`jaxlint runtime`: confirm findings by running them, and time the fixed versions.

`jaxlint/cli/runtime.py` registers `runtime_command` lazily. Nothing here imports jax: the
static work (targets, fixer) runs in this process, user code only in child processes.

Exit status: 0 when no finding is confirmed, 1 when at least one is, 2 on a usage error.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from jaxlint.runtime_checks.examples import ExamplesError, load_examples
from jaxlint.runtime_checks.runner import CheckResult, check_finding
from jaxlint.runtime_checks.spec import SpecError, parse_spec
from jaxlint.runtime_checks.targets import TargetError, collect_findings, parse_target


def _validate_spec(_ctx, _param, value: str | None) -> str | None:
    if value is not None:
        try:
            parse_spec(value)
        except SpecError as error:
            raise click.BadParameter(str(error)) from None
    return value


@click.command("runtime")
@click.argument("targets", nargs=-1, required=True)
@click.option("--example", "example", callback=_validate_spec, metavar="SPEC",
              help="Example arguments, e.g. \"f32[1024,256], {'w': bf16[8,128]}, 0.5\".")
@click.option("--examples", "examples_file", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="TOML file of example inputs per function.")
@click.option("--compare", "compare", multiple=True, metavar="MODULE:FUNC",
              help="An alternative implementation (e.g. a Pallas kernel) to time on the same inputs.")
@click.option("--repeat", default=20, show_default=True, type=click.IntRange(1, 10_000),
              help="Timed calls per version, after warm-up.")
@click.option("--timeout", default=300.0, show_default=True, type=click.FloatRange(1, None),
              help="Seconds allowed per finding before it is inconclusive.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), metavar="FILE.png",
              help="Write speedups and a roofline to a PNG (needs matplotlib).")
def runtime_command(targets, example, examples_file, compare, repeat, timeout, output_format, plot_path):
    """Run flagged functions in a child process and confirm or refute each finding.

    TARGET is path.py::function, or path.py for every function that has example inputs.
    """
    from rich.console import Console

    errors = Console(stderr=True)
    for alternative in compare:
        if ":" not in alternative:
            raise click.BadParameter(f"{alternative!r} is not MODULE:FUNC", param_hint="--compare")
    try:
        examples = load_examples(examples_file)
        findings, notes = [], []
        for text in targets:
            found, found_notes = collect_findings(parse_target(text), examples, example, list(compare))
            findings += found
            notes += [note for note in found_notes if note not in notes]
    except (ExamplesError, TargetError, SyntaxError) as error:
        errors.print(f"jaxlint runtime: {error}", markup=False, highlight=False)
        sys.exit(2)
    for note in notes:
        errors.print(f"note: {note}; using examples-file codes and `<name>__fixed` fallbacks", markup=False)
    results = _run_all(findings, repeat, timeout, errors)
    if output_format == "json":
        from jaxlint.runtime_checks.report import to_json

        click.echo(to_json(results))
    else:
        from jaxlint.runtime_checks.report import render_text

        console = Console()
        if not console.is_terminal:
            console = Console(width=160)  # piped or redirected: room for the evidence column
        render_text(results, console)
    if plot_path:
        from jaxlint.runtime_checks.report import plot

        errors.print(plot(results, plot_path), markup=False)
    sys.exit(1 if any(result.verdict == "confirmed" for result in results) else 0)


def _run_all(findings, repeat: int, timeout: float, console) -> list[CheckResult]:
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    results = []
    with Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                  TimeElapsedColumn(), console=console, transient=True) as progress:
        task = progress.add_task("checking", total=len(findings))
        for finding in findings:
            progress.update(task, description=f"{Path(finding.filename).name}::{finding.function} {finding.label}")
            results.append(check_finding(finding, repeat, timeout))
            progress.advance(task)
    return results
