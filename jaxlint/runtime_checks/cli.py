"""`jaxlint runtime`: confirm findings by running them, and time the fixed versions.

Two forms, both dispatched by `runtime_main` (which `jaxlint/cli/runtime.py` calls lazily with the
raw arguments, `--` included):

- `jaxlint runtime [OPTIONS] -- COMMAND...` runs the user's own command (`python train.py`,
  `pytest tests/x.py`) under instrumentation and joins what ran to the static findings of the
  same files (`command_mode`; no example inputs needed);
- `jaxlint runtime [OPTIONS] TARGET...` runs flagged functions with example inputs
  (`runtime_command`).

Nothing here imports jax: the static work (targets, fixer) runs in this process, user code only
in child processes.

Exit status (as `jaxlint runtime --help` says): with `-- COMMAND`, the command's own status
when it failed (128+N when a signal N ended it), so `jaxlint runtime -- pytest` fails CI where
pytest does; otherwise 0 when no finding is confirmed, 1 when at least one is (or, for a command,
a runtime-only finding was measured), 2 on a usage error or a command that could not start.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import click

from jaxlint.runtime_checks.examples import ExamplesError, load_examples
from jaxlint.runtime_checks.runner import CheckResult, check_finding
from jaxlint.runtime_checks.spec import SCALED_FROM, SpecError, parse_spec, scale_spec
from jaxlint.runtime_checks.targets import TargetError, collect_findings, parse_target

INSTALL_HINT = "install the runtime extra: `pip install -e '.[runtime]'` in a checkout, or `pip install 'jaxlint[runtime]'`"


def jax_missing_note() -> str | None:
    """None when this Python can import jax; else what to install."""
    import importlib.util

    if importlib.util.find_spec("jax") is not None:
        return None
    return f"jax is not installed in this Python ({sys.executable}); {INSTALL_HINT}"


def command_exit_status(command_status: int | None, found: bool, stopped_by_timeout: bool = False) -> int:
    """The command's failure first (a CI job must fail where the command did), then the findings.

    A command that `--timeout` stopped did not fail on its own: its findings decide."""
    if command_status is not None and command_status != 0 and not stopped_by_timeout:
        return 128 - command_status if command_status < 0 else command_status
    return 1 if found else 0


def runtime_main(argv: list[str]):
    """Dispatch on `--`: a command to run under instrumentation, or function TARGETs."""
    if "--" in argv:
        split = argv.index("--")
        options, command = argv[:split], argv[split + 1:]
        if not command:
            raise click.UsageError("nothing to run after `--`: e.g. `jaxlint runtime -- python train.py`")
        return command_mode.main(args=options, obj=command, prog_name="jaxlint runtime [OPTIONS] --",
                                 standalone_mode=False)
    return runtime_command.main(args=list(argv), prog_name="jaxlint runtime", standalone_mode=False)


@click.command("runtime-command")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="The report on stdout, after the command's own output (with json, the command's stdout goes to stderr).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False), metavar="FILE.html",
              help="Also write an HTML report: timeline of compilations and syncs, findings, donation bars.")
@click.option("--json-file", "json_path", type=click.Path(dir_okay=False), metavar="FILE.json",
              help="Also write the JSON report to a file.")
@click.option("--root", "roots", multiple=True, type=click.Path(file_okay=False, exists=True),
              help="Folders holding your code (default: the current folder); frames elsewhere are libraries.")
@click.option("--timeout", type=click.FloatRange(1, None), default=None,
              help="Stop the command after this many seconds (SIGINT, then SIGKILL).")
@click.option("--progress-interval", type=click.FloatRange(0.5, None), default=5.0, show_default=True,
              help="Seconds between progress lines on stderr.")
@click.option("--probe/--no-probe", "probe", default=True, show_default=True,
              help="At the program's exit, compile each repeatedly called jitted function with and without "
                   "donation and time both (two extra compilations each).")
@click.pass_obj
def command_mode(command, output_format, html_path, json_path, roots, timeout, progress_interval, probe):
    """Run COMMAND under instrumentation and check the static findings of the files it ran.

    Exit status: the command's own non-zero status when it failed (128+N when signal N ended it;
    not when --timeout stopped it); otherwise 1 when a finding is confirmed or a runtime-only
    finding was measured, 0 when not; 2 when the command could not start.
    """
    from rich.console import Console

    from jaxlint.runtime_checks.trace_join import build_report, merge
    from jaxlint.runtime_checks.trace_report import render_text, to_json, write_html
    from jaxlint.runtime_checks.trace_run import run_traced

    say = lambda line: click.echo(line, err=True)  # noqa: E731 - one unwrapped line between the program's own
    say(f"jaxlint runtime: running {shlex.join(command)} (its output follows)")
    run = run_traced(list(command), [str(Path(root).resolve()) for root in roots] or [str(Path.cwd().resolve())],
                     progress=say, interval_s=progress_interval, timeout_s=timeout,
                     stdout_to_stderr=output_format == "json", probe=probe)
    if run.start_error:
        say(f"jaxlint runtime: could not start the command: {run.start_error}")
        sys.exit(2)
    trace = merge(run.documents)
    if not run.documents:
        trace.notes.append("no trace was recorded: the command ran no Python process that imported jax "
                           "(or it was killed before writing one)")
    for uncaught in trace.uncaught:
        if uncaught.get("error") == "ModuleNotFoundError" and "'jax" in uncaught.get("message", ""):
            trace.notes.append(f"the command could not import jax ({uncaught['message'][:80]}); {INSTALL_HINT}")
            break
    if run.timed_out:
        trace.notes.append(f"the command was stopped after --timeout {timeout:g} s")
    diagnostics, sources, notes = _static_findings(trace.files())
    report = build_report(list(command), run.exit_status, run.elapsed_s, trace, diagnostics, sources, notes)
    if output_format == "json":
        click.echo(to_json(report))
    else:
        console = Console()
        if not console.is_terminal:
            console = Console(width=160)
        render_text(report, console)
    if json_path:
        Path(json_path).write_text(to_json(report), encoding="utf-8")
    if html_path:
        say(write_html(report, html_path))
    found = any(f["verdict"] == "confirmed" for f in report["findings"]) or bool(report["runtime_only"])
    status = command_exit_status(run.exit_status, found, run.timed_out)
    if status != (1 if found else 0):
        say(f"jaxlint runtime: exiting with the command's status {status}")
    sys.exit(status)


def _static_findings(files: list[str]) -> tuple[dict, dict, list[str]]:
    """`jaxlint check` of every file of the user's that ran, with its source (for the join)."""
    from jaxlint.runtime_checks.targets import static_diagnostics

    diagnostics, sources, notes = {}, {}, []
    for filename in files:
        path = Path(filename)
        if path.suffix != ".py" or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            notes.append(f"{filename}: not read ({error})")
            continue
        found, note = static_diagnostics(text, filename)
        if note and note not in notes:
            notes.append(note)
        sources[filename] = text
        diagnostics[filename] = found
    return diagnostics, sources, notes


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
@click.option("--size", "size", default=1.0, show_default=True, type=click.FloatRange(min=0, min_open=True),
              help=f"Multiply every example array dimension of {SCALED_FROM} or more by this factor "
                   "(0.25 for a quick check on a CPU, 4 for a large accelerator).")
@click.option("--repeat", default=20, show_default=True, type=click.IntRange(1, 10_000),
              help="Timed calls per version, after warm-up.")
@click.option("--timeout", default=300.0, show_default=True, type=click.FloatRange(1, None),
              help="Seconds allowed per finding before it is inconclusive.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.option("--plot", "plot_path", type=click.Path(dir_okay=False), metavar="FILE.png",
              help="Write speedups and a roofline to a PNG (needs matplotlib).")
def runtime_command(targets, example, examples_file, compare, size, repeat, timeout, output_format, plot_path):
    """Run flagged functions in a child process and confirm or refute each finding.

    TARGET is path.py::function, or path.py for every function that has example inputs.

    To check a whole program instead, with no example inputs: `jaxlint runtime [OPTIONS] -- COMMAND`,
    e.g. `jaxlint runtime --html report.html -- python train.py --steps 50` or
    `jaxlint runtime -- pytest tests/test_train.py`. Its options: --format text|json, --html FILE,
    --json-file FILE, --root DIR (your code; default: the current folder), --timeout SECONDS,
    --progress-interval SECONDS, --no-probe (skip the donation and compiled-step probes at exit).
    It records every compiled entry point (jax.jit, jax.pmap, jax.shard_map, eqx.filter_jit,
    nnx.jit), host<->device transfers per line and each compiled step's collectives; run it on
    several CPU devices with XLA_FLAGS=--xla_force_host_platform_device_count=N.

    Exit status: 0 when no finding is confirmed; 1 when at least one is (with -- COMMAND, also
    when a runtime-only finding was measured); 2 on a usage error, a command that could not
    start, or no jax to run with; with -- COMMAND, the command's own non-zero status when it
    failed (128+N when signal N ended it, unless --timeout stopped it), whatever was found.
    """
    from rich.console import Console

    errors = Console(stderr=True)
    missing = jax_missing_note()
    if missing:
        click.echo(f"jaxlint runtime: {missing}", err=True)
        sys.exit(2)
    for alternative in compare:
        if ":" not in alternative:
            raise click.BadParameter(f"{alternative!r} is not MODULE:FUNC", param_hint="--compare")
    try:
        examples = load_examples(examples_file)
        findings, notes = [], []
        for text in targets:
            target = parse_target(text)
            found, found_notes = collect_findings(target, examples, example, list(compare))
            if not found:
                click.echo(no_examples_guidance(target), err=True)
            findings += found
            notes += [note for note in found_notes if note not in notes]
    except (ExamplesError, TargetError, SyntaxError) as error:
        errors.print(f"jaxlint runtime: {error}", markup=False, highlight=False)
        sys.exit(2)
    for note in notes:
        errors.print(f"note: {note}; using examples-file codes and `<name>__fixed` fallbacks", markup=False)
    for finding in findings:
        if finding.spec is not None:
            finding.spec = scale_spec(finding.spec, size)
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
    sys.exit(1 if any(result.verdict in ("confirmed", "fix regressed") for result in results) else 0)


def no_examples_guidance(target) -> str:
    """What to do when a TARGET has nothing to run: which functions have findings, and the options."""
    import ast

    from jaxlint.runtime_checks.targets import function_spans, static_diagnostics

    text = target.path.read_text(encoding="utf-8")
    spans = function_spans(ast.parse(text))
    diagnostics, _ = static_diagnostics(text, str(target.path))
    flagged = sorted({name for d in diagnostics for name, (start, end) in spans.items()
                      if start <= d.location.row <= end})
    where = f"{target.path}::{target.function}" if target.function else str(target.path)
    lines = [f"jaxlint runtime: nothing to run for {where}: no example inputs"
             + (f" (functions with findings: {', '.join(flagged)})" if flagged else "") + ". Either:",
             f"  - run your program as it is, no examples needed: jaxlint runtime -- python {target.path}",
             f"  - or give inputs: jaxlint runtime {target.path}::{(flagged or ['FUNCTION'])[0]} --example "
             "\"f32[1024,256], 0.5\" (one SPEC per argument; `jaxlint runtime --help`),",
             "    an examples file (--examples FILE.toml), or jaxtyping annotations with literal sizes."]
    return "\n".join(lines)


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
