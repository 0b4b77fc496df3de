"""`jaxlint fix --verify -- COMMAND`: prove each fix on the user's own run before writing it.

The command runs as written, then with fixes applied in a scratch copy of the project (the
current folder), every run under the runtime mode's instrumentation (`trace_hook`, with
`trace_values` recording what the user's jitted functions return). A fix is written only when its
run agrees with the original and is not slower.

Runs, bounded by `max_runs` (the original and the all-fixes run always; the rest only as needed):
1. the command as written (the baseline; a warm-up process first starts jax once, so the
   baseline does not pay for cold file caches alone);
2. all fixes at once;
3. each fix on its own, when the all-fixes run disagrees or is slower (to find which fix is at
   fault), when fixes interact (a donation fix beside any other fix of the same file: hoisting
   or accumulating can make a donated buffer be read after the call), or with `each_fix`;
4. when every fix that passed alone was not yet run together: those fixes together; if that run
   fails, they are added one at a time, best saving first, and a fix whose addition breaks the run
   is rejected.

Agreement (every part must hold): the same exit status; the outputs of every jitted function of
the user's that both runs called (matched by file and name), at its first and at its last call,
with a relative tolerance that fits the dtype (`trace_values.RELATIVE_TOLERANCE`: float32 1e-4 on
a CPU, 5e-3 on a GPU where float32 products run in TF32; dtypes and shapes must be equal); and the
numbers on printed lines that both runs print (lines are matched by their text with the numbers
taken out; a number agrees within the float32 tolerance, or one unit of its last printed digit
where at least four significant digits are printed; integers exactly; lines about time, speed or
memory are not compared). When values differ, the unchanged program is run once more, in the
scratch copy: where it strays from the run as written (GPU kernels need not give the same bits in
two processes, nor in two folders), tolerances widen to ten times that spread
(`trace_values.NOISE_FACTOR`); a deterministic program gets no widening.

Metrics per run: compilations and host syncs (the runtime mode's counts), peak device memory (the
allocator's peak on GPU/TPU, the most bytes of live arrays after a jitted call on CPU), the wall
time of the whole run, and the step a fix affects: the median interval between consecutive calls
of the jitted function called most often from the loop that holds the fix (for a fix outside any
loop, from anywhere: the training step), in both runs.

Not slower: a run is slower when its wall time exceeds the original's by more than 10% and
0.5 s together (`SLOWER_FRACTION`, `SLOWER_SECONDS`): single runs of a program vary by a few
percent, and starting Python and jax alone varies by a few tenths of a second. A run that looks
slower is run once more, and so is the unchanged program in the scratch copy (once for all); the
shorter time of each decides (on a busy machine one run can take half as long again as the next).

Nothing here imports jax: user code runs only in the child processes.
"""

from __future__ import annotations

import difflib
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

SLOWER_FRACTION = 0.10
SLOWER_SECONDS = 0.5
COPY_LIMIT_BYTES = 64 * 1024 * 1024  # larger files are linked into the scratch copy, not copied
SKIPPED_DIRECTORIES = {".git", ".hg", ".svn", "__pycache__", ".jaxlint_cache", ".mypy_cache", ".pytest_cache",
                       ".ruff_cache", ".tox", ".nox", ".venv", "venv", "node_modules", ".ipynb_checkpoints"}
DONATION_CODES = {"JAX401"}


# ---------------------------------------------------------------------- fixes as units

@dataclass
class FixUnit:
    """One applicable fix of the original text: the finding it fixes and where its text starts."""

    index: int
    path: Path
    relative: str
    diagnostic: object
    offset: int  # of the finding's start in the original text

    @property
    def code(self) -> str:
        return self.diagnostic.code

    @property
    def line(self) -> int:
        return self.diagnostic.location.row

    def label(self) -> str:
        return f"{self.code} {self.relative}:{self.line}"


@dataclass
class FixableFile:
    path: Path
    relative: str
    decoded: object  # files.DecodedFile
    data: bytes
    units: list[FixUnit] = field(default_factory=list)


def collect_units(files: Sequence[Path], root: Path, settings, rules, unsafe: bool) -> tuple[list[FixableFile], list[str]]:
    """Every applicable fix of each readable `.py` file under `root`, numbered in file order."""
    from jaxlint.config import per_file_ignored
    from jaxlint.engine import check_source
    from jaxlint.files import SourceReadError, decode_source
    from jaxlint.fixer import is_applicable
    from jaxlint.source import SourceFile

    fixable, notes, index = [], [], 0
    for path in files:
        if path.suffix != ".py":
            continue
        absolute = path.resolve()
        try:
            relative = absolute.relative_to(root).as_posix()
        except ValueError:
            notes.append(f"{path}: outside the current folder (the scratch copy holds only that): not verified")
            continue
        try:
            data = absolute.read_bytes()
            decoded = decode_source(data, str(path))
        except (OSError, SourceReadError) as error:
            notes.append(str(error))
            continue
        ignored = per_file_ignored(settings, path) if settings.per_file_ignores else []
        result = check_source(decoded.text, str(path), settings, rules, ignored_codes=ignored)
        source = SourceFile(str(path), decoded.text)
        entry = FixableFile(absolute, relative, decoded, data)
        for diagnostic in sorted(result.diagnostics, key=lambda d: d.sort_key()):
            if is_applicable(diagnostic, unsafe):
                entry.units.append(FixUnit(index, absolute, relative, diagnostic, source.offset(diagnostic.location)))
                index += 1
        if entry.units:
            fixable.append(entry)
    return fixable, notes


def apply_units(entry: FixableFile, chosen: set[int], settings, rules, unsafe: bool) -> str:
    """The file's text with exactly the fixes in `chosen` (unit indices) applied.

    Like the fixer, rounds of lint and compatible edits until nothing chosen is left to apply; each
    unit is followed through earlier edits by its start offset, and findings that are no unit of the
    original (new ones an edit created) are not applied: what is verified is what is written.
    """
    from jaxlint.config import per_file_ignored
    from jaxlint.engine import check_source
    from jaxlint.fixer import MAX_ITERATIONS, apply_edits, is_applicable, parses, parses_ast, select_compatible
    from jaxlint.source import SourceFile

    text = entry.decoded.text
    filename = str(entry.path)
    ignored = per_file_ignored(settings, entry.path) if settings.per_file_ignores else []
    pending = {unit.offset: unit for unit in entry.units if unit.index in chosen}
    valid = parses if parses(text) else parses_ast
    for _ in range(MAX_ITERATIONS):
        if not pending:
            break
        source = SourceFile(filename, text)
        found = check_source(text, filename, settings, rules, ignored_codes=ignored).diagnostics
        candidates = []
        for diagnostic in found:
            offset = source.offset(diagnostic.location)
            unit = pending.get(offset)
            if unit is not None and diagnostic.code == unit.code and is_applicable(diagnostic, unsafe):
                candidates.append(diagnostic)
        if not candidates:
            break
        chosen_now = [d for d in select_compatible(source, candidates) if valid(apply_edits(source, [d]))]
        new_text = apply_edits(source, chosen_now)
        if not chosen_now or not valid(new_text):
            break
        done = {source.offset(d.location) for d in chosen_now}
        edits = {(source.offset(e.location), source.offset(e.end_location), e.content): None
                 for d in chosen_now for e in d.fix.edits}
        pending = {_shift(offset, edits): unit for offset, unit in pending.items() if offset not in done}
        text = new_text
    return text


def _shift(offset: int, edits) -> int:
    """Where the text at `offset` moves when `edits` ((start, end, content), old offsets) apply."""
    delta = 0
    for start, end, content in edits:
        if start == end == offset or end <= offset and start < offset:
            delta += len(content) - (end - start)
        elif start <= offset < end:
            return start + delta_before(start, edits)
    return offset + delta


def delta_before(point: int, edits) -> int:
    return sum(len(content) - (end - start) for start, end, content in edits if end <= point and start < point)


# ---------------------------------------------------------------------- the scratch copy

class ScratchProject:
    """A copy of the project (the current folder) where fixed variants of the files are run."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.base = Path(tempfile.mkdtemp(prefix="jaxlint-verify-"))
        self.copy = self.base / root.name
        shutil.copytree(root, self.copy, symlinks=True, ignore=self._ignore, copy_function=self._copy_file)

    @staticmethod
    def _ignore(_directory, names) -> set[str]:
        return {name for name in names if name in SKIPPED_DIRECTORIES}

    @staticmethod
    def _copy_file(source, destination):
        if os.path.getsize(source) > COPY_LIMIT_BYTES:
            os.symlink(os.path.abspath(source), destination)
            return destination
        return shutil.copy2(source, destination)

    def write_variant(self, texts: dict[str, bytes]) -> None:
        for relative, data in texts.items():
            target = self.copy / relative
            target.unlink(missing_ok=True)
            target.write_bytes(data)

    def map_argument(self, argument: str) -> str:
        """An absolute path into the project points into the copy instead."""
        if not os.path.isabs(argument):
            return argument
        try:
            relative = Path(argument).resolve().relative_to(self.root)
        except (ValueError, OSError):
            return argument
        return str(self.copy / relative)

    def environment(self) -> dict:
        environment = dict(os.environ)
        if environment.get("PYTHONPATH"):
            environment["PYTHONPATH"] = os.pathsep.join(self.map_argument(os.path.abspath(part)) if part else part
                                                        for part in environment["PYTHONPATH"].split(os.pathsep))
        environment["PYTHONDONTWRITEBYTECODE"] = "1"  # variants of one file may share size and mtime second
        return environment

    def remove(self) -> None:
        shutil.rmtree(self.base, ignore_errors=True)


# ---------------------------------------------------------------------- one run

@dataclass
class RunRecord:
    label: str
    fixes: list[int]
    exit_status: int | None
    wall_s: float
    root: Path
    stdout: str = ""
    stderr_tail: str = ""
    compiles: int | None = None
    syncs: int | None = None
    peak_bytes: int | None = None
    step_times: dict[str, tuple[int, float | None]] = field(default_factory=dict)
    call_sites: dict[str, list[tuple[str, int]]] = field(default_factory=dict)  # jitted name -> (file, line)
    values: list[dict] = field(default_factory=list)
    device: dict | None = None
    executed: dict[str, set[int]] = field(default_factory=dict)
    start_error: str | None = None
    timed_out: bool = False
    agrees: bool | None = None
    disagreement: str | None = None
    compared: str = ""
    repeat: "RunRecord | None" = None  # the same command run again (slower-looking, or values differing)
    values_differ: bool = False  # the disagreement is in values, which the original's own spread may explain

    @property
    def best_wall_s(self) -> float:
        return min(self.wall_s, self.repeat.wall_s) if self.repeat is not None else self.wall_s

    def to_json(self) -> dict:
        return {"label": self.label, "fixes": self.fixes, "exit_status": self.exit_status,
                "wall_s": round(self.wall_s, 3),
                "wall_s_repeated": round(self.repeat.wall_s, 3) if self.repeat is not None else None,
                "compiles": self.compiles, "syncs": self.syncs,
                "peak_bytes": self.peak_bytes,
                "calls": {name: {"calls": calls, "median_interval_s": interval} for name, (calls, interval) in self.step_times.items()},
                "outputs_agree": self.agrees, "disagreement": self.disagreement, "compared": self.compared}


def run_command(command: list[str], cwd: Path, environment: dict, label: str, fixes: list[int],
                progress: Callable[[str], None], timeout_s: float | None, interval_s: float = 5.0) -> RunRecord:
    """Run `command` in `cwd` under the runtime mode's instrumentation, its output kept in files."""
    from jaxlint.runtime_checks.trace_join import merge
    from jaxlint.runtime_checks.trace_run import progress_line, read_documents, traced_environment

    with tempfile.TemporaryDirectory(prefix="jaxlint-verify-trace-") as trace_dir:
        environment = traced_environment(trace_dir, [str(cwd)], base=environment, probe=False)
        environment["JAXLINT_TRACE_VALUES"] = "1"
        out_path, err_path = Path(trace_dir) / "stdout.txt", Path(trace_dir) / "stderr.txt"
        started = time.perf_counter()
        with open(out_path, "wb") as out, open(err_path, "wb") as err:
            try:
                process = subprocess.Popen(command, cwd=cwd, env=environment, stdout=out, stderr=err,
                                           stdin=subprocess.DEVNULL)
            except OSError as error:
                return RunRecord(label, fixes, None, 0.0, cwd, start_error=f"{command[0]}: {error.strerror or error}")
            next_report, timed_out = started + interval_s, False
            try:
                while process.poll() is None:
                    time.sleep(0.1)
                    now = time.perf_counter()
                    if timeout_s is not None and now - started > timeout_s:
                        timed_out = True
                        process.kill()
                        process.wait()
                        break
                    if now >= next_report:
                        next_report = now + interval_s
                        progress("  " + progress_line(read_documents(trace_dir), now - started).split(": ", 1)[1])
            except KeyboardInterrupt:
                process.kill()
                process.wait()
                raise
        wall = time.perf_counter() - started
        record = RunRecord(label, fixes, process.returncode, wall, cwd, timed_out=timed_out)
        record.stdout = out_path.read_text(encoding="utf-8", errors="replace")
        record.stderr_tail = err_path.read_text(encoding="utf-8", errors="replace")[-4000:]
        documents = read_documents(trace_dir)
    trace = merge(documents)
    record.compiles = trace.totals.get("compiles")
    record.syncs = trace.totals.get("syncs")
    record.peak_bytes = _peak_bytes(trace)
    record.step_times = _step_times(trace.timeline)
    for info in trace.functions.values():
        sites = record.call_sites.setdefault(info["name"], [])
        for site in info.get("call_sites", {}):
            file, _, line = site.rpartition(":")
            if line.isdigit():
                sites.append((_relative(file, cwd), int(line)))
    record.device = trace.device
    record.executed = {_relative(name, cwd): rows for name, rows in trace.executed.items()}
    for document in documents:
        for function in (document.get("at_exit") or {}).get("values", []):
            record.values.append({**function, "file": _relative(function["file"], cwd)})
    return record


def _relative(filename: str, root: Path) -> str:
    try:
        return Path(filename).resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return filename


def _peak_bytes(trace) -> int | None:
    """The allocator's peak where the device keeps one (GPU/TPU); else the most bytes of live arrays
    seen after a jitted call (CPU)."""
    peaks = [entry.get("peak_bytes_in_use") for entry in trace.memory if entry.get("peak_bytes_in_use")]
    if peaks:
        return max(peaks)
    return trace.memory_samples.get("allocator_bytes_max") or trace.memory_samples.get("live_array_bytes_max")


def _step_times(timeline: list[dict]) -> dict[str, tuple[int, float | None]]:
    """Per jitted function of the user's: its calls and the median interval between the starts of
    consecutive calls (dispatch, compiles, syncs and host work in between: one step of a loop)."""
    starts: dict[str, list[float]] = {}
    for event in timeline:
        if event.get("kind") == "call":
            starts.setdefault(event["name"], []).append(event["t"])
    return {name: (len(times), statistics.median(b - a for a, b in zip(times, times[1:])) if len(times) >= 3 else None)
            for name, times in starts.items()}


def step_function(baseline: RunRecord, record: RunRecord | None = None, loop: tuple[str, int, int] | None = None) -> str | None:
    """The step a fix affects: of the jitted functions called in the loop that holds the fix
    (`loop`: file, first and last line in the original), the one called most often; without such
    a loop (a module-level fix) or calls in it, the one the whole program calls most often (the
    training step). A function the other run calls too is preferred: a hoisted lambda gets a new
    name, the training step keeps its own."""
    names = list(baseline.step_times)
    if loop is not None:
        file, first, last = loop
        in_loop = [name for name in names
                   if any(site_file == file and first <= line <= last for site_file, line in baseline.call_sites.get(name, ()))]
        names = in_loop or names
    if record is not None:
        names = [name for name in names if name in record.step_times] or names
    return max(names, key=lambda name: baseline.step_times[name][0], default=None)


def enclosing_loop(unit: FixUnit, text: str) -> tuple[str, int, int] | None:
    """The innermost `for` or `while` loop of the original text that holds the fix's line."""
    import ast

    try:
        tree = ast.parse(text)
    except SyntaxError:
        return None
    best = None
    for node in ast.walk(tree):
        if isinstance(node, (ast.For, ast.AsyncFor, ast.While)) and node.lineno <= unit.line <= (node.end_lineno or node.lineno):
            if best is None or node.lineno >= best[1]:
                best = (unit.relative, node.lineno, node.end_lineno or node.lineno)
    return best


# ---------------------------------------------------------------------- agreement

NUMBER = re.compile(r"(?<![\w.])[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|(?<!\w)[-+]?(?:nan|inf)(?!\w)", re.IGNORECASE)
NOT_COMPARED = re.compile(
    r"\b(times?|timing|elapsed|took|duration|secs?|seconds?|ms|us|µs|minutes?|wall|it/s|steps?/s|samples?/s|"
    r"tokens?/s|examples?/s|images?/s|throughput|fps|speed|memory|bytes|[kmgt]i?b)\b|\d\s*(?:s|ms|us)\b|\bat 0x",
    re.IGNORECASE)


def printed_checks(before: str, after: str, rtol: float = 1e-4) -> tuple[str | None, list[tuple[str, float, float, float]]]:
    """The numbers of the lines both outputs print: a difference that no tolerance covers (an
    integer, a nan) in words, else None and the checks (what, before, after, allowed difference)."""
    lines_before = [line for line in before.splitlines() if not NOT_COMPARED.search(line)]
    lines_after = [line for line in after.splitlines() if not NOT_COMPARED.search(line)]
    templates_before = [NUMBER.sub("#", line) for line in lines_before]
    templates_after = [NUMBER.sub("#", line) for line in lines_after]
    matcher = difflib.SequenceMatcher(None, templates_before, templates_after, autojunk=False)
    checks = []
    for block in matcher.get_matching_blocks():
        for offset in range(block.size):
            one, two = lines_before[block.a + offset], lines_after[block.b + offset]
            for first, second in zip(NUMBER.findall(one), NUMBER.findall(two)):
                what = f"printed {first} before and {second} after in {one.strip()!r}"
                allowed = _printed_allowance(first, second, rtol)
                if allowed is None:
                    if first != second:
                        return what, []
                    continue
                checks.append((what, float(first), float(second), allowed))
    return None, checks


def compare_printed(before: str, after: str, again: str | None = None, platform: str | None = None) -> tuple[str | None, int]:
    """The first printed number that differs, in words (None if none), and how many were compared.
    `again`: the original's output of a second run, whose spread widens the tolerance."""
    from jaxlint.runtime_checks.trace_values import first_failure, noise_units, tolerance_for

    rtol = max(1e-4, tolerance_for("float32", platform))  # printed values are mostly float32 results
    structural, checks = printed_checks(before, after, rtol)
    if structural:
        return structural, len(checks) + 1
    noise = noise_units(printed_checks(before, again, rtol)[1]) if again is not None else 0.0
    failure = first_failure(checks, noise)
    return failure, len(checks)


def _printed_allowance(first: str, second: str, rtol: float = 1e-4) -> float | None:
    """How far two printed numbers may differ; None where they must be equal (integers, nan, inf)."""
    if re.fullmatch(r"[-+]?\d+", first) and re.fullmatch(r"[-+]?\d+", second):
        return None
    try:
        one, two = float(first), float(second)
    except ValueError:
        return None
    if not (math.isfinite(one) and math.isfinite(two)):
        return None
    largest = max(abs(one), abs(two))
    unit = max(_last_digit(first), _last_digit(second))
    if unit > 1e-3 * largest:
        unit = 0.0  # fewer than four significant digits: a last-digit step is a real difference
    return max(rtol * largest, unit * 1.000001)


def _last_digit(number: str) -> float:
    mantissa, _, exponent = number.lower().partition("e")
    decimals = len(mantissa.split(".", 1)[1]) if "." in mantissa else 0
    return 10.0 ** (-decimals + (int(exponent) if exponent else 0))


def compare_runs(before: RunRecord, after: RunRecord) -> None:
    """Fill `after.agrees`, `after.disagreement` and `after.compared` against the original (and
    its second run, `before.repeat`, where there is one: its spread widens the tolerances)."""
    from jaxlint.runtime_checks.trace_values import compare_summaries

    after.values_differ = False
    if after.start_error:
        after.agrees, after.disagreement = False, f"could not start: {after.start_error}"
        return
    if after.timed_out:
        after.agrees, after.disagreement = False, "stopped at --timeout"
        return
    if after.exit_status != before.exit_status:
        last = next((line for line in reversed(after.stderr_tail.splitlines()) if line.strip()), "")
        after.agrees = False
        after.disagreement = f"exit status {after.exit_status} (the original: {before.exit_status})" + (f": {last.strip()}" if last else "")
        return
    again = before.repeat
    platform = (before.device or {}).get("platform")
    functions_after = {(f["file"], f["name"]): f for f in after.values}
    functions_again = {(f["file"], f["name"]): f for f in again.values} if again is not None else {}
    compared_functions = 0
    for function in before.values:
        other = functions_after.get((function["file"], function["name"]))
        if other is None:
            continue
        compared_functions += 1
        second = functions_again.get((function["file"], function["name"]))
        for moment in ("first", "last"):
            difference = compare_summaries(function[moment], other[moment], f"`{function['name']}` ({moment} call)",
                                           second[moment] if second is not None else None, platform)
            if difference:
                after.agrees, after.disagreement, after.values_differ = False, difference, True
                return
    difference, numbers = compare_printed(before.stdout, after.stdout, again.stdout if again is not None else None, platform)
    after.compared = f"{compared_functions} jitted function(s), {numbers} printed number(s)"
    if again is not None:
        after.compared += ", tolerances widened by the original's own run-to-run spread"
    if difference:
        after.agrees, after.disagreement, after.values_differ = False, difference, True
        return
    after.agrees = True


def slower(before: RunRecord, after: RunRecord) -> bool:
    return after.best_wall_s > allowed_wall_s(before)


def allowed_wall_s(before: RunRecord) -> float:
    return before.best_wall_s * (1 + SLOWER_FRACTION) + SLOWER_SECONDS


def failure_reason(before: RunRecord, after: RunRecord) -> str:
    if not after.agrees:
        return f"outputs differ: {after.disagreement}"
    runs = " (the shorter of two runs each)" if after.repeat is not None else ""
    return (f"slower: the run took {after.best_wall_s:.2f} s against {before.best_wall_s:.2f} s{runs}, "
            f"allowed up to {allowed_wall_s(before):.2f} s")


# ---------------------------------------------------------------------- the whole verification

@dataclass
class Verification:
    command: list[str]
    units: list[FixUnit]
    runs: list[RunRecord] = field(default_factory=list)
    repeats: list[RunRecord] = field(default_factory=list)  # second runs of a variant that looked slower
    verdicts: dict[int, tuple[str, str]] = field(default_factory=dict)  # unit -> (verdict, reason)
    measured_by: dict[int, RunRecord] = field(default_factory=dict)
    written: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    baseline: RunRecord | None = None
    error: str | None = None
    texts: dict[str, str] = field(default_factory=dict)  # the original text of each fixable file


class Verifier:
    def __init__(self, command: list[str], fixable: list[FixableFile], root: Path, settings, rules, unsafe: bool,
                 max_runs: int, timeout_s: float | None, each_fix: bool, progress: Callable[[str], None],
                 warm_up: bool = True, only_files_that_ran: bool = False) -> None:
        self.command = command
        self.fixable = fixable
        self.root = root
        self.settings, self.rules, self.unsafe = settings, rules, unsafe
        self.max_runs = max_runs
        self.timeout_s = timeout_s
        self.each_fix = each_fix
        self.progress = progress
        self.warm_up = warm_up
        self.only_files_that_ran = only_files_that_ran  # no PATHS given: the files the command runs
        self.units = [unit for entry in fixable for unit in entry.units]
        self.result = Verification(command, self.units, texts={entry.relative: entry.decoded.text for entry in fixable})
        self.scratch: ScratchProject | None = None
        self._texts: dict[tuple[str, frozenset], bytes] = {}

    # -- runs
    def _runs_left(self) -> int:
        return self.max_runs - len(self.result.runs) - len(self.result.repeats)

    def _run(self, label: str, chosen: Sequence[int] | None, keep: bool = True) -> RunRecord:
        number = len(self.result.runs) + len(self.result.repeats) + 1
        self.progress(f"jaxlint fix --verify: run {number} (at most {self.max_runs}): {label}")
        if chosen is None:
            record = run_command(self.command, self.root, dict(os.environ), label, [], self.progress, self.timeout_s)
        else:
            assert self.scratch is not None
            self.scratch.write_variant(self._variant(set(chosen)))
            command = [self.scratch.map_argument(argument) for argument in self.command]
            record = run_command(command, self.scratch.copy, self.scratch.environment(), label, sorted(chosen),
                                 self.progress, self.timeout_s)
            compare_runs(self.result.baseline, record)
        (self.result.runs if keep else self.result.repeats).append(record)
        self.progress(f"  done in {record.wall_s:.1f} s: exit status {record.exit_status}, {record.compiles} compilation(s), "
                      f"{record.syncs} host sync(s)" + ("" if record.agrees is None else
                                                        "; outputs agree" if record.agrees else f"; {record.disagreement}"))
        return record

    def _variant(self, chosen: set[int]) -> dict[str, bytes]:
        from jaxlint.files import encode_source

        texts = {}
        for entry in self.fixable:
            mine = frozenset(unit.index for unit in entry.units if unit.index in chosen)
            key = (entry.relative, mine)
            if key not in self._texts:
                self._texts[key] = (encode_source(entry.decoded, apply_units(entry, set(mine), self.settings, self.rules, self.unsafe))
                                    if mine else entry.data)
            texts[entry.relative] = self._texts[key]
        return texts

    def _warm_up(self) -> None:
        """Start jax once, so that the baseline does not alone pay for cold file caches."""
        self.progress("jaxlint fix --verify: warming up (importing jax once)")
        try:
            subprocess.run([sys.executable, "-c", "import jax, jax.numpy as jnp; jnp.zeros(8).block_until_ready()"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300, check=False)
        except (OSError, subprocess.TimeoutExpired):
            pass

    # -- verdicts
    def _passes(self, record: RunRecord) -> bool:
        """Agrees, and is not slower. A run that looks slower is run once more, and so is the
        original (once for all): the shorter time of each decides, so one noisy run rejects nothing."""
        baseline = self.result.baseline
        if record.values_differ and baseline.repeat is None and self._runs_left() >= 1:
            # Values differ: the unchanged program, run again where the fixed ones run, shows how far
            # it strays from itself. On a GPU the bits can change from one process to the next and
            # with the folder the code sits in (measured on an H200: a bias moment of an Adam step
            # came out -6.2686468e-08 in the user's folder and -6.0496312e-08 in every run of the
            # copy, with or without a fix, while two runs in one folder agreed exactly).
            baseline.repeat = self._run("the command unchanged, in the scratch copy (to measure its own spread)", [], keep=False)
        if record.values_differ and baseline.repeat is not None:
            compare_runs(baseline, record)
        if not record.agrees:
            return False
        if not slower(baseline, record):
            return True
        if record.repeat is None and self._runs_left() >= (1 if baseline.repeat is not None else 2):
            if baseline.repeat is None:
                baseline.repeat = self._run("the command unchanged, in the scratch copy (a run looked slower)", [], keep=False)
            if slower(baseline, record):
                record.repeat = self._run(f"{record.label}, again (it looked slower)", record.fixes, keep=False)
        return not slower(baseline, record)

    def verify(self) -> Verification:
        result = self.result
        if not self.units:
            return result
        if self.warm_up:
            self._warm_up()
        baseline = result.baseline = self._run("the command as written", None)
        if baseline.start_error:
            result.error = f"could not start the command: {baseline.start_error}"
            return self._all("unverified", "the command could not start")
        if baseline.timed_out or baseline.exit_status != 0:
            why = "stopped at --timeout" if baseline.timed_out else f"exited with status {baseline.exit_status}"
            result.error = f"the command as written {why}: there is nothing to compare the fixes against"
            return self._all("unverified", f"the command as written {why}")
        active = []
        entry_text = {entry.relative: entry.decoded.text for entry in self.fixable}
        if self.only_files_that_ran:
            left_out = [unit for unit in self.units if unit.relative not in baseline.executed]
            if left_out:
                result.notes.append(f"{len(left_out)} fix(es) in files the command did not run were left alone "
                                    f"({', '.join(sorted({unit.relative for unit in left_out}))})")
            self.units = result.units = [unit for unit in self.units if unit.relative in baseline.executed]
        for unit in self.units:
            rows = baseline.executed.get(unit.relative)
            if rows is None:
                result.verdicts[unit.index] = ("unverified", "its file did not run under the command")
            elif not _statement_ran(unit, entry_text[unit.relative], rows):
                result.verdicts[unit.index] = ("unverified", f"line {unit.line} did not run under the command")
            else:
                active.append(unit)
        if not active:
            return result
        try:
            self.scratch = ScratchProject(self.root)
        except OSError as error:
            result.error = f"could not copy the project to a scratch folder: {error}"
            return self._all("unverified", "no scratch copy", only=active)
        try:
            self._decide(baseline, active)
        finally:
            self.scratch.remove()
        return result

    def _all(self, verdict: str, reason: str, only=None) -> Verification:
        for unit in only or self.units:
            self.result.verdicts.setdefault(unit.index, (verdict, reason))
        return self.result

    def _decide(self, baseline: RunRecord, active: list[FixUnit]) -> None:
        result = self.result
        together = self._run(f"all {len(active)} fix(es) applied" if len(active) > 1 else f"the fix ({active[0].label()})",
                             [unit.index for unit in active])
        if len(active) == 1:
            self._settle(baseline, active, together, {})
            return
        if self.each_fix or not self._passes(together):
            isolate = list(active)
        else:
            isolate = _interacting(active)
        own: dict[int, RunRecord] = {}
        for unit in isolate:
            if self._runs_left() < 1:
                break
            own[unit.index] = self._run(f"{unit.label()} alone", [unit.index])
        self._settle(baseline, active, together, own)

    def _settle(self, baseline: RunRecord, active: list[FixUnit], together: RunRecord, own: dict[int, RunRecord]) -> None:
        result = self.result
        candidates = []
        for unit in active:
            record = own.get(unit.index) or together
            if unit.relative not in record.executed and record.exit_status == baseline.exit_status:
                # The program imported the file from elsewhere (an editable install of the project,
                # a path on PYTHONPATH outside the current folder): the fixed code never ran.
                result.measured_by[unit.index] = record
                result.verdicts[unit.index] = ("unverified", f"{unit.relative} did not run from the scratch copy (is the "
                                                             "project installed in editable mode, or imported from another "
                                                             "folder?): the fixed code never ran")
                continue
            record = own.get(unit.index)
            if record is not None:
                result.measured_by[unit.index] = record
                if self._passes(record):
                    candidates.append(unit)
                else:
                    result.verdicts[unit.index] = ("rejected", failure_reason(baseline, record))
                continue
            result.measured_by[unit.index] = together
            if len(active) > 1 and _needs_own_run(unit, active, self.each_fix, self._passes(together)):
                result.verdicts[unit.index] = ("unverified", f"not run on its own: --max-runs {self.max_runs} reached")
            elif self._passes(together):
                candidates.append(unit)
            else:
                result.verdicts[unit.index] = ("rejected", failure_reason(baseline, together))
        if not candidates:
            return
        chosen = {unit.index for unit in candidates}
        if chosen == set(together.fixes) and self._passes(together):
            self._accept(candidates, together)
            return
        if len(candidates) == 1 and candidates[0].index in own:
            self._accept(candidates, own[candidates[0].index])
            return
        if chosen == set(together.fixes):
            self._add_one_at_a_time(baseline, candidates, own)  # that joint run already failed
            return
        if self._runs_left() < 1:
            for unit in candidates:
                result.verdicts[unit.index] = ("unverified", "passed on its own, but --max-runs left no run to check it with the other fixes")
            return
        joint = self._run(f"the {len(candidates)} fixes that passed alone, together", sorted(chosen))
        if self._passes(joint):
            self._accept(candidates, joint)
            return
        self._add_one_at_a_time(baseline, candidates, own)

    def _add_one_at_a_time(self, baseline: RunRecord, candidates: list[FixUnit], own: dict[int, RunRecord]) -> None:
        """Fixes that pass alone but not together: keep the best, add the others while runs agree."""
        result = self.result

        def saving(unit: FixUnit) -> float:
            record = own.get(unit.index)
            return baseline.best_wall_s - record.best_wall_s if record is not None else 0.0

        ordered = sorted(candidates, key=saving, reverse=True)
        kept = [ordered[0]]
        last_good = own.get(ordered[0].index)
        for unit in ordered[1:]:
            if self._runs_left() < 1:
                result.verdicts[unit.index] = ("unverified", "interacts with other fixes; --max-runs left no run to check it")
                continue
            trial = self._run(f"{unit.label()} with {', '.join(k.label() for k in kept)}", [k.index for k in [*kept, unit]])
            if self._passes(trial):
                kept.append(unit)
                last_good = trial
            else:
                result.verdicts[unit.index] = ("rejected", f"passes alone, but with {', '.join(k.label() for k in kept)}: "
                                                           f"{failure_reason(baseline, trial)}")
        self._accept(kept, last_good)

    def _accept(self, units: list[FixUnit], record: RunRecord | None) -> None:
        for unit in units:
            reason = "outputs agree and the run is not slower"
            if record is not None and record.compared:
                reason += f" ({record.compared} compared)"
            if len(record.fixes if record else []) > 1 and self.result.measured_by.get(unit.index) is record:
                reason += f"; measured with {len(record.fixes)} fixes applied together"
            self.result.verdicts[unit.index] = ("verified", reason)

    # -- writing
    def write_verified(self) -> list[str]:
        """Write each file's verified fixes (and nothing else), atomically, if the file is unchanged."""
        from jaxlint.files import encode_source, write_atomic

        errors = []
        verified = {index for index, (verdict, _) in self.result.verdicts.items() if verdict == "verified"}
        for entry in self.fixable:
            mine = {unit.index for unit in entry.units if unit.index in verified}
            if not mine:
                continue
            try:
                if entry.path.read_bytes() != entry.data:
                    errors.append(f"{entry.path}: changed while the command ran; not written")
                    continue
                write_atomic(entry.path, encode_source(entry.decoded, apply_units(entry, mine, self.settings, self.rules, self.unsafe)))
                self.result.written.append(entry.relative)
            except (OSError, UnicodeEncodeError) as error:
                errors.append(f"{entry.path}: not written: {getattr(error, 'strerror', None) or error}")
        return errors


def _statement_ran(unit: FixUnit, text: str, rows: set[int]) -> bool:
    """Whether any line of the innermost statement holding the finding ran (a call that spans
    lines reports the line it starts on, or another one of its lines)."""
    import ast

    if unit.line in rows:
        return True
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return True
    span = (1, len(text.splitlines()) or 1)
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt) and node.lineno <= unit.line <= (node.end_lineno or node.lineno):
            if (node.end_lineno or node.lineno) - node.lineno < span[1] - span[0]:
                span = (node.lineno, node.end_lineno or node.lineno)
    return any(span[0] <= row <= span[1] for row in rows)


def _interacting(units: list[FixUnit]) -> list[FixUnit]:
    """A donation fix and every other fix of its file: they are run on their own."""
    files = {unit.relative for unit in units if unit.code in DONATION_CODES}
    return [unit for unit in units if unit.relative in files and len([u for u in units if u.relative == unit.relative]) > 1]


def _needs_own_run(unit: FixUnit, units: list[FixUnit], each_fix: bool, together_passed: bool) -> bool:
    return each_fix or not together_passed or unit in _interacting(units)


# ---------------------------------------------------------------------- the report

def metrics(baseline: RunRecord | None, record: RunRecord | None, loop: tuple[str, int, int] | None = None) -> dict:
    if baseline is None or record is None:
        return {"compiles_before": None, "compiles_after": None, "syncs_before": None, "syncs_after": None,
                "peak_bytes_before": None, "peak_bytes_after": None, "wall_s_before": None, "wall_s_after": None,
                "step_function": None, "step_s_before": None, "step_s_after": None, "outputs_agree": None}
    step = step_function(baseline, record, loop)
    return {"compiles_before": baseline.compiles, "compiles_after": record.compiles,
            "syncs_before": baseline.syncs, "syncs_after": record.syncs,
            "peak_bytes_before": baseline.peak_bytes, "peak_bytes_after": record.peak_bytes,
            "wall_s_before": round(baseline.best_wall_s, 3), "wall_s_after": round(record.best_wall_s, 3),
            "step_function": step, "step_s_before": _interval(baseline, step), "step_s_after": _interval(record, step),
            "outputs_agree": record.agrees}


def _interval(record: RunRecord, name: str | None) -> float | None:
    if name is None:
        return None
    calls = record.step_times.get(name)
    return None if calls is None or calls[1] is None else round(calls[1], 6)


def to_report(verification: Verification) -> dict:
    baseline = verification.baseline
    device = None
    if baseline is not None and baseline.device:
        device = dict(baseline.device)
    fixes = []
    for unit in verification.units:
        verdict, reason = verification.verdicts.get(unit.index, ("unverified", "not run"))
        fixes.append({"code": unit.code, "filename": unit.relative, "line": unit.line, "verdict": verdict,
                      "reason": reason, "message": unit.diagnostic.fix.message,
                      "metrics": metrics(baseline, verification.measured_by.get(unit.index),
                                         enclosing_loop(unit, verification.texts.get(unit.relative, "")))})
    return {"command": verification.command, "device": device, "written": verification.written, "fixes": fixes,
            "runs": [run.to_json() for run in verification.runs],
            "repeated_runs": [run.to_json() for run in verification.repeats],
            "rule": (f"verified: same exit status, jitted outputs within their dtype's tolerance, same printed numbers; "
                     f"and not slower: wall time at most {1 + SLOWER_FRACTION:.2f}x the original's + {SLOWER_SECONDS:g} s"),
            "notes": verification.notes, "error": verification.error}
