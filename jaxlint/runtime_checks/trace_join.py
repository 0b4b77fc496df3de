"""Join what a traced run recorded per source line to the static findings of the same files.

Pure functions of the trace documents (`trace_hook`) and the static diagnostics, so every
verdict is testable without jax. Each static finding gets one of:

- `confirmed`: the predicted cost or failure was measured at its line;
- `refuted`: its line ran, and the cost did not show (or stayed under the device's threshold);
- `inconclusive`: its line ran, but this mode has no evidence path for the rule (the function
  mode, `jaxlint runtime file.py::function`, has one for most), or the evidence was incomplete;
- `not run`: its line never executed in this run.

What ran badly at a line no finding covers is a runtime-only finding: repeated host syncs that
stalled, repeated compilations of one function, a rebound jitted call that would use less memory
with donation, JAX's own warnings that a donated buffer could not be used, the same host data
uploaded again on every step (`repeated-upload`), a sharded array read back to the host every step
(`host-gather`), and a compiled step whose all-gather rebuilds a whole sharded argument: the batch
(`gathered-batch`) or parameters it returns replicated (`gathered-parameters`).
"""

from __future__ import annotations

import ast
import re
import statistics
from dataclasses import dataclass, field
from pathlib import Path

from jaxlint.runtime_checks.verdicts import ERROR_RULES, megabytes, seconds

CONFIRMED, REFUTED, INCONCLUSIVE, NOT_RUN = "confirmed", "refuted", "inconclusive", "not run"
_PATH = re.compile(r"(?:[A-Za-z]:)?[\\/](?:[^\s:\\/]+[\\/])*([^\s:\\/]+\.py)")


def short_reason(reason: str | None) -> str | None:
    """JAX's cache-miss explanation with file paths cut to their names, for the evidence sentence."""
    return _PATH.sub(r"\1", reason) if reason else reason


@dataclass(frozen=True)
class Thresholds:
    """When a measured cost counts, scaled to the device the program ran on."""

    platform: str
    ready_sync_s: float  # measured: reading back a value that is already computed
    stall_factor: float  # a sync stalled when it blocked this many times longer than that
    min_stall_s: float  # ... and at least this long
    min_repeats: int = 3  # a per-iteration cost has to repeat
    # Reads that each wait no longer than a read-back still count when together they take this share of
    # the host's time between compiled calls (many small reads per step).
    min_sync_share: float = 0.10
    min_peak_saving: float = 0.05  # donation must lower the peak by this fraction
    min_recompiles: int = 2  # compilations of one function from one line, where a rule predicted them
    # Where no rule did: an eager op reached with two shapes compiles twice, once each, which is
    # normal; a third compilation of the same name from the same line is a pattern.
    min_runtime_only_recompiles: int = 3
    # Transfers: an upload of host data counts as repeated when the same bytes (shape, dtype and
    # checksum) went from the same line before; a read of an array split over devices is a gather.
    # Either must repeat (min_repeats, and for at least half of the line's uploads or of the
    # steps beside it) and move at least this much each time: small scalars sent per step are cheap.
    min_transfer_bytes: int = 64 * 1024

    @property
    def stall_s(self) -> float:
        return max(self.min_stall_s, self.stall_factor * self.ready_sync_s)

    def describe(self) -> str:
        return (f"{self.platform}: a host sync stalls when its median wait is >= {seconds(self.stall_s)} "
                f"({self.stall_factor:g}x the {seconds(self.ready_sync_s)} read-back of a ready value, at least "
                f"{seconds(self.min_stall_s)}) and it repeats >= {self.min_repeats} times, or when a line's repeated "
                f"reads take >= {self.min_sync_share:.0%} of the host time between compiled calls; a recompilation is "
                f">= {self.min_recompiles} compilations of one function from one line (>= "
                f"{self.min_runtime_only_recompiles} where no rule flagged it); donation must lower "
                f"the peak by >= {self.min_peak_saving:.0%}; a repeated upload or host gather moves >= "
                f"{megabytes(self.min_transfer_bytes)} each time, >= {self.min_repeats} times, for at least half "
                f"of the line's uploads or steps; a collective is flagged when a step's all-gather rebuilds a whole "
                f"sharded argument: the batch (each device needs only its shard) or a parameter the step returns "
                f"replicated")


def thresholds_for(platform: str | None, ready_sync_s: float | None) -> Thresholds:
    """On an accelerator any wait for the device idles the host's dispatch pipeline, so a smaller
    multiple of the read-back floor counts; on CPU the "device" shares the host's cores and a
    read-back of a finished value costs tens of microseconds, so the bar is higher."""
    platform = platform or "unknown"
    if platform == "cpu" or platform == "unknown":
        return Thresholds(platform, ready_sync_s or 50e-6, stall_factor=4.0, min_stall_s=100e-6)
    return Thresholds(platform, ready_sync_s or 20e-6, stall_factor=2.0, min_stall_s=50e-6)


@dataclass
class Trace:
    """Several processes' documents merged: per-line counters, executed lines, functions, probes."""

    lines: dict[tuple[str, int], dict] = field(default_factory=dict)
    executed: dict[str, set[int]] = field(default_factory=dict)
    functions: dict[str, dict] = field(default_factory=dict)
    probes: dict[str, dict] = field(default_factory=dict)
    donation_warnings: list[dict] = field(default_factory=list)
    timeline: list[dict] = field(default_factory=list)
    totals: dict = field(default_factory=dict)
    device: dict | None = None
    memory: list[dict] = field(default_factory=list)
    ready_sync_s: float | None = None
    memory_samples: dict = field(default_factory=dict)
    uncaught: list[dict] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    complete: bool = True
    compiled_steps: dict[str, dict] = field(default_factory=dict)

    def files(self) -> list[str]:
        return sorted(set(self.executed) | {file for file, _ in self.lines})


_SUMMED = ("compiles", "compile_s", "traces", "syncs", "sync_blocked_s", "calls", "dispatch_s", "gap_s",
           "built_compiles", "built_compile_s", "h2d_count", "h2d_bytes", "h2d_repeated", "h2d_repeated_bytes",
           "h2d_same_object", "d2h_count", "d2h_bytes", "gathers", "gather_bytes")
_COUNTED = ("compiled", "sync_kinds", "called", "built_compiled", "compiled_built_at", "h2d_kinds")


def merge(documents: list[dict]) -> Trace:
    trace = Trace()
    started = min((doc.get("started") or 0.0 for doc in documents), default=0.0)
    for document in documents:
        trace.complete &= bool(document.get("final"))
        for key, value in (document.get("totals") or {}).items():
            trace.totals[key] = trace.totals.get(key, 0) + value
        for entry in document.get("lines", []):
            key = (entry["file"], entry["line"])
            merged = trace.lines.get(key)
            if merged is None:
                trace.lines[key] = {**entry, **{name: dict(entry.get(name, {})) for name in _COUNTED},
                                    "sync_blocked_samples": list(entry.get("sync_blocked_samples", [])),
                                    "cache_miss_reasons": list(entry.get("cache_miss_reasons", []))}
                continue
            for name in _SUMMED:
                merged[name] = merged.get(name, 0) + entry.get(name, 0)
            merged["gather_devices"] = max(merged.get("gather_devices", 0), entry.get("gather_devices", 0))
            for name in _COUNTED:
                merged.setdefault(name, {})
                for item, count in entry.get(name, {}).items():
                    merged[name][item] = merged[name].get(item, 0) + count
            merged["sync_blocked_samples"] += entry.get("sync_blocked_samples", [])
            merged["cache_miss_reasons"] += [r for r in entry.get("cache_miss_reasons", [])
                                             if r not in merged["cache_miss_reasons"]]
        for name, rows in (document.get("executed") or {}).items():
            trace.executed.setdefault(name, set()).update(rows)
        for info in document.get("functions", []):
            known = trace.functions.setdefault(info["key"], {**info, "calls": 0, "call_sites": {}, "jit_objects": 0,
                                                             "built_at": {}})
            known["calls"] += info.get("calls", 0)
            known["jit_objects"] += info.get("jit_objects", 0)
            for site, count in info.get("call_sites", {}).items():
                known["call_sites"][site] = known["call_sites"].get(site, 0) + count
            for site, count in (info.get("built_at") or {}).items():
                known["built_at"][site] = known["built_at"].get(site, 0) + count
        at_exit = document.get("at_exit") or {}
        for probe in at_exit.get("donation_probes", []):
            trace.probes.setdefault(probe["key"], probe)
        for step in at_exit.get("compiled_steps", []):
            trace.compiled_steps.setdefault(step["key"], step)
        if at_exit.get("device") and trace.device is None:
            trace.device = at_exit["device"]
            trace.memory = at_exit.get("memory") or []
            trace.ready_sync_s = at_exit.get("ready_sync_s")
        samples = at_exit.get("memory_samples") or {}
        for key in ("allocator_bytes_max", "live_array_bytes_max"):
            if samples.get(key) is not None:
                trace.memory_samples[key] = max(trace.memory_samples.get(key) or 0, samples[key])
        if at_exit.get("uncaught"):
            trace.uncaught.append(at_exit["uncaught"])
        for key in ("install_error", "sync_tracking_unavailable", "compile_events_unavailable"):
            if at_exit.get(key):
                trace.notes.append(f"{key.replace('_', ' ')}: {at_exit[key]}")
        trace.notes += at_exit.get("errors", [])
        trace.donation_warnings += document.get("donation_warnings", [])
        offset = (document.get("started") or started) - started
        for event in document.get("timeline", []):
            trace.timeline.append({**event, "t": event["t"] + offset, "pid": document.get("pid")})
    trace.timeline.sort(key=lambda event: event["t"])
    return trace


# ---------------------------------------------------------------------- verdicts per finding

@dataclass
class Judged:
    code: str
    name: str | None
    filename: str
    line: int
    message: str
    verdict: str
    evidence: str
    metrics: dict = field(default_factory=dict)

    def to_json(self) -> dict:
        return {"code": self.code, "name": self.name, "filename": self.filename, "line": self.line,
                "message": self.message, "verdict": self.verdict, "evidence": self.evidence,
                "metrics": self.metrics}


def _stats(trace: Trace, filename: str, row: int) -> dict | None:
    return trace.lines.get((filename, row))


def _ran(trace: Trace, filename: str, row: int) -> bool:
    return row in trace.executed.get(filename, set()) or (filename, row) in trace.lines


def judge_finding(diagnostic, filename: str, trace: Trace, thresholds: Thresholds, source: str | None = None) -> Judged:
    row = diagnostic.location.row
    judged = Judged(diagnostic.code, getattr(diagnostic, "name", None), filename, row, diagnostic.message,
                    INCONCLUSIVE, "")
    if not _ran(trace, filename, row):
        judged.verdict, judged.evidence = NOT_RUN, "This line did not execute in this run."
        return judged
    judge = {"JAX201": _host_sync, "JAX302": _recompiles, "JAX303": _recompiles, "JAX401": _donation}.get(diagnostic.code)
    if judge is not None:
        judge(judged, trace, thresholds)
    elif diagnostic.code in ERROR_RULES:
        _error(judged, trace)
    else:
        stats = _stats(trace, filename, row) or {}
        judged.evidence = (f"The line ran{_activity(stats)}; the command mode has no evidence path for "
                           f"{diagnostic.code}: check it with `jaxlint runtime {Path(filename).name}::FUNCTION`.")
    return judged


def _activity(stats: dict) -> str:
    parts = []
    if stats.get("calls"):
        parts.append(f"{stats['calls']} jitted call(s)")
    if stats.get("compiles"):
        parts.append(f"{stats['compiles']} compilation(s)")
    if stats.get("syncs"):
        parts.append(f"{stats['syncs']} host sync(s)")
    return f" ({', '.join(parts)})" if parts else ""


def stalled(stats: dict, thresholds: Thresholds) -> tuple[bool, float | None]:
    samples = stats.get("sync_blocked_samples") or []
    median = statistics.median(samples) if samples else None
    return (stats.get("syncs", 0) >= thresholds.min_repeats and median is not None
            and median >= thresholds.stall_s), median


def _host_sync(judged: Judged, trace: Trace, thresholds: Thresholds) -> None:
    stats = _stats(trace, judged.filename, judged.line) or {}
    syncs = stats.get("syncs", 0)
    judged.metrics = {"syncs": syncs, "sync_blocked_s": stats.get("sync_blocked_s"),
                      "sync_kinds": stats.get("sync_kinds")}
    if not syncs:
        judged.verdict = REFUTED
        judged.evidence = "The line ran but read no device value back to the host."
        return
    is_stall, median = stalled(stats, thresholds)
    judged.metrics["median_blocked_s"] = median
    kinds = ", ".join(f"{kind} x{count}" for kind, count in stats.get("sync_kinds", {}).items())
    share = stats["sync_blocked_s"] / trace.totals["elapsed_s"] if trace.totals.get("elapsed_s") else None
    share_text = f", {share:.0%} of the run" if share else ""
    what = (f"{syncs} host sync(s) at this line ({kinds}), blocking {seconds(median)} median, "
            f"{seconds(stats['sync_blocked_s'])} in all{share_text}")
    between = _host_time_between_dispatches(trace)
    if is_stall:
        judged.verdict, judged.evidence = CONFIRMED, f"{what}: each waited for the device (threshold {seconds(thresholds.stall_s)})."
    elif (syncs >= thresholds.min_repeats and between
          and stats["sync_blocked_s"] >= thresholds.min_sync_share * between):
        # Many reads of values already computed (indices read one by one) each cost a read-back, and
        # together they are a large part of the host's time between compiled calls: the device idles.
        judged.verdict = CONFIRMED
        judged.evidence = (f"{what}: each read costs about a read-back of a ready value, but together they take "
                           f"{stats['sync_blocked_s'] / between:.0%} of the host time between the program's compiled "
                           f"calls ({seconds(between)}; threshold {thresholds.min_sync_share:.0%}).")
    elif syncs < thresholds.min_repeats:
        judged.verdict, judged.evidence = REFUTED, f"{what}: not once per iteration (fewer than {thresholds.min_repeats})."
    else:
        judged.verdict = REFUTED
        judged.evidence = f"{what}: below the {seconds(thresholds.stall_s)} threshold, the values were already computed."


def _host_time_between_dispatches(trace: Trace) -> float:
    """The host's time between consecutive calls of compiled functions, summed over the program's lines."""
    return sum(stats.get("gap_s") or 0.0 for stats in trace.lines.values())


def _recompiles(judged: Judged, trace: Trace, thresholds: Thresholds) -> None:
    """Compilations at the line, counting those of callables built here and called elsewhere
    (`f = jax.jit(lambda ...)` on this line, `f(x)` on the next)."""
    stats = _stats(trace, judged.filename, judged.line) or {}
    called_here = stats.get("compiled") or {}
    built_here = stats.get("built_compiled") or {}
    compiled = {name: max(called_here.get(name, 0), built_here.get(name, 0)) for name in {*called_here, *built_here}}
    name, count = max(compiled.items(), key=lambda item: item[1], default=(None, 0))
    elsewhere = built_here.get(name, 0) > called_here.get(name, 0)
    compile_s = stats.get("built_compile_s") if elsewhere else stats.get("compile_s")
    judged.metrics = {"compiles": max(stats.get("compiles", 0), stats.get("built_compiles", 0)), "compile_s": compile_s,
                      "compiled": compiled, "cache_miss_reasons": stats.get("cache_miss_reasons", [])}
    if elsewhere:
        judged.metrics["called_at"] = _call_lines(trace, judged.filename, judged.line)
    if count >= thresholds.min_recompiles:
        reason = short_reason((stats.get("cache_miss_reasons") or [None])[-1])
        why = f"; JAX: \"{reason}\"" if reason else ""
        calls = stats.get("calls")
        per_call = f" for {calls} call(s)" if calls and not elsewhere else ""
        where = "at this line"
        if elsewhere:
            lines = judged.metrics["called_at"]
            where = (f"when called at line{'s' if len(lines) > 1 else ''} {', '.join(map(str, lines))} "
                     f"(built at this line)") if lines else "(built at this line, called elsewhere)"
        judged.verdict = CONFIRMED
        judged.evidence = (f"{name} compiled {count} times {where}{per_call}, "
                           f"{seconds(compile_s)} compiling{why}.")
    else:
        judged.verdict = REFUTED
        judged.evidence = f"The line ran and compiled {count or 'nothing'}{' time' if count else ''}: no recompilation."


def _call_lines(trace: Trace, filename: str, row: int) -> list[int]:
    """Lines of `filename` whose compilations came from a callable built at `row`."""
    site = f"{filename}:{row}"
    return sorted(line for (name, line), stats in trace.lines.items()
                  if name == filename and site in (stats.get("compiled_built_at") or {}))


def _donation(judged: Judged, trace: Trace, thresholds: Thresholds) -> None:
    stats = _stats(trace, judged.filename, judged.line) or {}
    called = sorted((stats.get("called") or {}).items(), key=lambda item: -item[1])
    if not called:
        judged.evidence = "The line ran, but no call of a function jitted in your files was seen on it."
        return
    key, calls = called[0]
    probe = trace.probes.get(key)
    name = trace.functions.get(key, {}).get("name", key)
    judged.metrics = {"step_function": name, "calls": calls, **(probe or {})}
    if probe is None:
        judged.evidence = (f"{name} ran {calls} time(s) here but was not probed (called once, already donating, "
                           f"or --no-probe).")
        return
    if probe.get("error"):
        judged.evidence = f"Probing {name} failed: {probe['error']}."
        return
    before, after = probe.get("peak_bytes_original"), probe.get("peak_bytes_donated")
    if probe.get("devices"):
        judged.metrics["devices"] = probe["devices"]
    if not probe.get("donatable_argnums"):
        judged.verdict = REFUTED
        scalars = probe.get("scalar_argnums")
        judged.evidence = (f"The arguments of {name} that an output could replace (position {', '.join(map(str, scalars))}) hold "
                           f"only scalars: "
                           f"donating them saves nothing measurable." if scalars else
                           f"No output of {name} has the shape of an input: donation could not reuse a buffer.")
        return
    if before is None or after is None:
        judged.evidence = f"This backend gives no memory analysis for {name}."
        return
    timing = fair_timing_text(probe)
    argnums = tuple(probe["donatable_argnums"])
    per_device = _per_device(probe)
    memory = (f"memory_analysis() of {name} ({calls} call(s) here): peak {megabytes(before)} -> {megabytes(after)}"
              f"{per_device} with donate_argnums={argnums}, {megabytes(probe.get('alias_bytes_donated'))} aliased")
    if after <= before * (1 - thresholds.min_peak_saving):
        judged.verdict, judged.evidence = CONFIRMED, f"{memory}{timing}."
    else:
        judged.verdict, judged.evidence = REFUTED, f"{memory}: less than {thresholds.min_peak_saving:.0%} lower{timing}."


def _per_device(probe: dict) -> str:
    """`memory_analysis()` of a pmapped or sharded step is one device's program."""
    devices = probe.get("devices") or 1
    if devices <= 1:
        return ""
    via = "pmap" if probe.get("transform") == "pmap" else "sharded over"
    return f" per device ({via} {devices} devices)"


def fair_timing_text(probe: dict) -> str:
    original, donated = probe.get("time_per_step_original_s"), probe.get("time_per_step_donated_s")
    if original is None or donated is None:
        return f"; not timed ({probe['timing_skipped']})" if probe.get("timing_skipped") else ""
    return (f"; per step {seconds(original)} vs {seconds(donated)} donated (warm, outputs fed back as inputs, "
            f"{probe.get('timed_steps')} steps each in alternating rounds, median)")


def _error(judged: Judged, trace: Trace) -> None:
    rule = ERROR_RULES[judged.code]
    for uncaught in trace.uncaught:
        if any(frame["file"] == judged.filename and frame["line"] == judged.line for frame in uncaught["frames"]):
            if uncaught["error"] in rule.errors:
                judged.verdict = CONFIRMED
                judged.evidence = f"The program stopped here with {uncaught['error']}: {uncaught['message'][:200]}"
            else:
                judged.evidence = f"The program stopped here with {uncaught['error']}, not {rule.what}."
            return
    judged.verdict = REFUTED
    judged.evidence = f"The line ran without {rule.what}."


# ---------------------------------------------------------------------- runtime-only findings

def rebinding_positions(source: str | None, row: int) -> set[int] | None:
    """Argument positions of the call on `row` whose names the assignment rebinds (`p, l = f(p, x)`)."""
    if source is None:
        return None
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and node.lineno <= row <= (node.end_lineno or node.lineno) \
                and isinstance(node.value, ast.Call):
            targets = {name.id for target in node.targets for name in ast.walk(target) if isinstance(name, ast.Name)}
            return {i for i, arg in enumerate(node.value.args) if isinstance(arg, ast.Name) and arg.id in targets}
    return set()


def runtime_only(trace: Trace, findings: dict[tuple[str, int], set[str]], thresholds: Thresholds,
                 sources: dict[str, str]) -> list[Judged]:
    """Costs measured at lines where no static finding of the matching rule was reported."""
    found: list[Judged] = []
    # Jitted calls per function: a sync far rarer than the steps beside it is gated (every N steps).
    steps: dict[tuple[str, str], int] = {}
    for (filename, _), stats in trace.lines.items():
        key = (filename, stats.get("function", "?"))
        steps[key] = max(steps.get(key, 0), stats.get("calls", 0))
    for (filename, row), stats in sorted(trace.lines.items()):
        codes = findings.get((filename, row), set())
        is_stall, median = stalled(stats, thresholds)
        gated = stats.get("syncs", 0) * 2 < steps.get((filename, stats.get("function", "?")), 0)
        if is_stall and not gated and "JAX201" not in codes:
            kinds = ", ".join(stats.get("sync_kinds", {}))
            found.append(Judged("runtime", "host-sync-stall", filename, row, f"repeated host syncs ({kinds})",
                                CONFIRMED, f"{stats['syncs']} host sync(s) ({kinds}) blocked {seconds(median)} median, "
                                f"{seconds(stats['sync_blocked_s'])} in all; no static rule flagged this line",
                                {"syncs": stats["syncs"], "sync_blocked_s": stats["sync_blocked_s"]}))
        repeated = {name: count for name, count in (stats.get("compiled") or {}).items()
                    if count >= thresholds.min_runtime_only_recompiles}
        flagged_origin = any(findings.get((site.rpartition(":")[0], int(site.rpartition(":")[2])), set())
                             & {"JAX302", "JAX303"} for site in stats.get("compiled_built_at") or {})
        if repeated and not codes & {"JAX302", "JAX303"} and not flagged_origin:
            name, count = max(repeated.items(), key=lambda item: item[1])
            reason = short_reason((stats.get("cache_miss_reasons") or [None])[-1])
            found.append(Judged("runtime", "recompilation", filename, row, f"{name} recompiled",
                                CONFIRMED, f"{name} compiled {count} times at this line "
                                f"({seconds(stats.get('compile_s'))})" + (f"; JAX: \"{reason}\"" if reason else ""),
                                {"compiled": stats.get("compiled"), "compile_s": stats.get("compile_s")}))
        found += _transfer_findings(filename, row, stats, codes, thresholds, steps.get((filename, stats.get("function", "?")), 0))
    found += collective_findings(trace)
    for key, probe in trace.probes.items():
        before, after = probe.get("peak_bytes_original"), probe.get("peak_bytes_donated")
        if before is None or after is None or after > before * (1 - thresholds.min_peak_saving):
            continue
        for site in trace.functions.get(key, {}).get("call_sites", {}):
            filename, _, row_text = site.rpartition(":")
            row = int(row_text)
            if "JAX401" in findings.get((filename, row), set()):
                continue
            rebound = rebinding_positions(sources.get(filename), row)
            if not rebound or not rebound & set(probe.get("donatable_argnums", [])):
                continue
            found.append(Judged("runtime", "missing-donation", filename, row, f"{probe.get('name')} could donate",
                                CONFIRMED, f"peak {megabytes(before)} -> {megabytes(after)} with donate_argnums="
                                f"{tuple(probe['donatable_argnums'])}{fair_timing_text(probe)}", dict(probe)))
    for uncaught in trace.uncaught:
        frames = uncaught.get("frames") or []
        if not frames:
            continue
        innermost = frames[-1]
        codes = findings.get((innermost["file"], innermost["line"]), set())
        if codes & set(ERROR_RULES):
            continue  # judged as that finding (confirmed when the error class matches)
        found.append(Judged("runtime", "uncaught-error", innermost["file"], innermost["line"],
                            f"{uncaught['error']}: {uncaught['message'][:120]}", CONFIRMED,
                            f"The program stopped here with {uncaught['error']}: {uncaught['message'][:300]}",
                            {"error": uncaught["error"]}))
    for warning in trace.donation_warnings:
        found.append(Judged("runtime", "unusable-donation", str(warning.get("file")), int(warning.get("line") or 0),
                            warning["message"][:120], CONFIRMED, f"JAX warned: {warning['message'][:300]}"))
    return found


def _transfer_findings(filename: str, row: int, stats: dict, codes: set[str], thresholds: Thresholds,
                       steps: int) -> list[Judged]:
    """The same host data uploaded again and again from one line; a split array read back per step."""
    found = []
    count, repeated = stats.get("h2d_count", 0), stats.get("h2d_repeated", 0)
    each = stats.get("h2d_repeated_bytes", 0) / repeated if repeated else 0
    if repeated >= thresholds.min_repeats and repeated * 2 >= count and each >= thresholds.min_transfer_bytes:
        same_object = stats.get("h2d_same_object", 0)
        what = ", ".join(stats.get("h2d_shapes") or []) or "host data"
        how = ", ".join(f"{kind} x{n}" for kind, n in (stats.get("h2d_kinds") or {}).items())
        identity = (f"; the same host array object {same_object} times" if same_object else "")
        found.append(Judged("runtime", "repeated-upload", filename, row, f"the same host data ({what}) is uploaded "
                            f"on every step", CONFIRMED,
                            f"{count} upload(s) of {what} at this line ({how}), {repeated} of them the same bytes as "
                            f"an earlier one ({megabytes(each)} each, {megabytes(stats.get('h2d_repeated_bytes'))} "
                            f"re-sent in all{identity}): place it on the devices once, before the loop",
                            {"h2d_count": count, "h2d_bytes": stats.get("h2d_bytes"), "h2d_repeated": repeated,
                             "h2d_repeated_bytes": stats.get("h2d_repeated_bytes"), "h2d_same_object": same_object,
                             "h2d_kinds": stats.get("h2d_kinds")}))
    gathers = stats.get("gathers", 0)
    each = stats.get("gather_bytes", 0) / gathers if gathers else 0
    if gathers >= thresholds.min_repeats and gathers * 2 >= steps and each >= thresholds.min_transfer_bytes:
        also = " (the same reads are JAX201's host syncs)" if "JAX201" in codes else ""
        found.append(Judged("runtime", "host-gather", filename, row, "a sharded array is gathered to the host "
                            "every step", CONFIRMED,
                            f"{gathers} read(s) of an array split over {stats.get('gather_devices')} devices, "
                            f"{megabytes(each)} each, {megabytes(stats.get('gather_bytes'))} in all{also}: every "
                            f"read gathers all shards to the host; reduce on the devices first, or read every N steps",
                            {"gathers": gathers, "gather_bytes": stats.get("gather_bytes"),
                             "gather_devices": stats.get("gather_devices")}))
    return found


_HLO_DTYPES = {"float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64", "int32": "s32",
               "int64": "s64", "int8": "s8", "uint8": "u8", "uint32": "u32", "bool": "pred", "int16": "s16"}


def collective_findings(trace: Trace) -> list[Judged]:
    """A step that all-gathers a whole sharded argument: the batch, or a parameter it returns replicated."""
    found = []
    for key, step in sorted(trace.compiled_steps.items()):
        if step.get("transform") != "jit" or step.get("error"):
            continue  # pmap's collectives are the user's own (`lax.pmean`, `lax.all_gather`)
        info = trace.functions.get(key, {})
        sites = sorted(info.get("call_sites", {}).items(), key=lambda item: -item[1])
        if not sites:
            continue
        filename, _, row_text = sites[0][0].rpartition(":")
        calls = step.get("calls") or info.get("calls") or 0
        for argument in step.get("arguments", []):
            if not argument.get("sharded"):
                continue
            full = f"{_HLO_DTYPES.get(argument['dtype'], argument['dtype'])}[{','.join(map(str, argument['shape']))}]"
            gathers = [item for item in step.get("collectives", [])
                       if item["kind"] in ("all-gather", "all-to-all") and full in item["result_shapes"]]
            if not gathers:
                continue
            moved = sum(item["operand_bytes"] for item in gathers)
            what = (f"{step['name']} all-gathers argument {argument['position']} ({full}, sharded {argument['spec']}) "
                    f"to its full {megabytes(argument['bytes'])} on every device: {len(gathers)} all-gather(s) of "
                    f"{megabytes(moved)} per device per step, {calls} step(s)")
            metrics = {"step_function": step["name"], "argument": argument, "collectives": gathers,
                       "bytes_per_step": moved, "steps": calls}
            if not argument.get("state"):
                found.append(Judged("runtime", "gathered-batch", filename, int(row_text),
                                    f"{step['name']} gathers a sharded argument whole", CONFIRMED,
                                    f"{what}; a data-parallel step needs only each device's shard of its batch: "
                                    f"keep the computation per row (or constrain the sharding inside the step)",
                                    metrics))
            elif argument.get("output_replicated"):
                found.append(Judged("runtime", "gathered-parameters", filename, int(row_text),
                                    f"{step['name']} gathers sharded parameters and returns them replicated", CONFIRMED,
                                    f"{what}, and returns it replicated: give the step out_shardings equal to the "
                                    f"argument's so it stays sharded (or keep it replicated from the start)",
                                    metrics))
    return found


# ---------------------------------------------------------------------- the whole report

def build_report(command: list[str], exit_status: int | None, elapsed_s: float, trace: Trace,
                 diagnostics_by_file: dict[str, list], sources: dict[str, str], static_notes: list[str]) -> dict:
    trace.totals.setdefault("elapsed_s", elapsed_s)
    platform = (trace.device or {}).get("platform")
    thresholds = thresholds_for(platform, trace.ready_sync_s)
    judged, at_line = [], {}
    for filename, diagnostics in sorted(diagnostics_by_file.items()):
        for diagnostic in diagnostics:
            at_line.setdefault((filename, diagnostic.location.row), set()).add(diagnostic.code)
            judged.append(judge_finding(diagnostic, filename, trace, thresholds))
    extra = runtime_only(trace, at_line, thresholds, sources)
    return {
        "command": command, "exit_status": exit_status, "elapsed_s": elapsed_s, "device": trace.device,
        "thresholds": {"platform": thresholds.platform, "stall_s": thresholds.stall_s,
                       "ready_sync_s": thresholds.ready_sync_s, "min_repeats": thresholds.min_repeats,
                       "min_recompiles": thresholds.min_recompiles, "min_peak_saving": thresholds.min_peak_saving,
                       "text": thresholds.describe()},
        "totals": trace.totals, "memory": trace.memory, "memory_samples": trace.memory_samples,
        "complete": trace.complete,
        "findings": [item.to_json() for item in judged],
        "runtime_only": [item.to_json() for item in extra],
        "lines": [_line_json(stats) for stats in sorted(trace.lines.values(), key=lambda s: (s["file"], s["line"]))],
        "timeline": trace.timeline, "uncaught": trace.uncaught, "notes": trace.notes + static_notes,
        "files": sorted(diagnostics_by_file),
        "entry_points": [_entry_point_json(info) for _, info in sorted(trace.functions.items())],
        "transfers": transfer_lines(trace),
        "compiled_steps": [_step_json(step, trace) for _, step in sorted(trace.compiled_steps.items())],
    }


def transfer_lines(trace: Trace) -> list[dict]:
    """Host-to-device and device-to-host traffic per line of the user's code."""
    keys = ("h2d_count", "h2d_bytes", "h2d_repeated", "h2d_repeated_bytes", "h2d_same_object", "h2d_kinds",
            "h2d_shapes", "d2h_count", "d2h_bytes", "gathers", "gather_bytes", "gather_devices")
    return [{"file": stats["file"], "line": stats["line"], **{key: stats.get(key) for key in keys}}
            for _, stats in sorted(trace.lines.items()) if stats.get("h2d_count") or stats.get("d2h_count")]


def _entry_point_json(info: dict) -> dict:
    """A compiled entry point of the user's (jit, pmap, shard_map, eqx.filter_jit, nnx.jit) and its calls."""
    keys = ("key", "name", "file", "line", "transform", "calls", "call_sites", "built_at", "jit_objects", "devices",
            "donates", "donated_leaves", "donated_deleted")
    return {key: info.get(key) for key in keys} | {"transform": info.get("transform") or "jit"}


def _step_json(step: dict, trace: Trace) -> dict:
    info = trace.functions.get(step["key"], {})
    return {**step, "call_sites": info.get("call_sites", {}), "donates": info.get("donates"),
            "donated_leaves": info.get("donated_leaves"), "donated_deleted": info.get("donated_deleted")}


def _line_json(stats: dict) -> dict:
    samples = stats.get("sync_blocked_samples") or []
    return {key: value for key, value in stats.items() if key != "sync_blocked_samples"} | {
        "median_blocked_s": statistics.median(samples) if samples else None}
