"""Verdicts: from a finding's measured facts to confirmed / refuted / inconclusive, with evidence.

Pure functions of the metrics the child reported, so every branch is testable without jax.
`confirmed`: the predicted failure or cost showed up. `refuted`: the code ran fine under `jit`,
or the fixed version was not meaningfully better on this device. `inconclusive`: the check could
not decide (crash, timeout, unexpected error, disagreeing fix, noisy timings, missing metrics).
"""

from __future__ import annotations

from dataclasses import dataclass

CONFIRMED, REFUTED, INCONCLUSIVE = "confirmed", "refuted", "inconclusive"
# The finding may be real, but the fixed version is worse in a way a user applying it blind must
# not meet: it compiles again on every call, or it fails on a donated (deleted) buffer.
FIX_REGRESSED = "fix regressed"

# A fixed version must be at least this much faster to confirm a performance finding, and at
# most REFUTE_BELOW times faster to refute one; in between the difference is within noise.
CONFIRM_SPEEDUP = 1.10
REFUTE_BELOW = 1.05
# Per platform: on a CPU the "device" shares cores with the Python host (and, on a shared
# machine, with other processes), so timings spread more and a larger gain is needed.
SPEEDUP_THRESHOLDS = {"cpu": (1.25, 1.10)}
# Steady-state compilations per call of the fixed version at or above which it recompiles per call.
RECOMPILES_PER_CALL = 0.5
RECOMPILE_RULES = frozenset({"JAX302", "JAX303", "JAX402"})


def speedup_thresholds(platform: str | None) -> tuple[float, float]:
    return SPEEDUP_THRESHOLDS.get(platform or "", (CONFIRM_SPEEDUP, REFUTE_BELOW))


def describe_thresholds(platform: str | None) -> str:
    confirm, refute = speedup_thresholds(platform)
    return (f"{platform or 'unknown device'}: a fix >= {confirm:g}x faster (interquartile ranges apart) confirms, "
            f"< {refute:g}x refutes; a fix compiling >= {RECOMPILES_PER_CALL:g} times per call after warm-up, "
            f"or failing on a donated buffer, is '{FIX_REGRESSED}'")


@dataclass(frozen=True)
class ErrorRule:
    """A rule whose original raises: the exception class names that confirm it, and how to run it.

    `under_jit`: the original is called through `jax.jit` (a traced-function finding); otherwise
    it is called as it is (a driver, a method call, or an error raised without `jit`).
    `message`: lower-case fragments of which one must appear in the error message (None: any).
    `what`: the failure in words, for the evidence.
    """

    errors: frozenset
    under_jit: bool
    what: str
    message: tuple | None = None


def _rule(errors: str, under_jit: bool, what: str, message: tuple | None = None) -> ErrorRule:
    return ErrorRule(frozenset(errors.split()), under_jit, what, message)


# The one table of the "error under jit" evidence path: the child runs the original (under
# `jit` where marked), expects one of these errors, then checks that the fixed version runs and
# agrees with a reference (the un-jitted original, a `<name>__reference`, or the original on
# NumPy inputs).
ERROR_RULES: dict[str, ErrorRule] = {
    "JAX101": _rule("TracerBoolConversionError ConcretizationTypeError", True, "a tracer conversion error"),
    "JAX102": _rule("ConcretizationTypeError TracerIntegerConversionError TracerArrayConversionError "
                    "TracerBoolConversionError", True, "a tracer conversion error"),
    "JAX103": _rule("TracerArrayConversionError ConcretizationTypeError", True, "a NumPy conversion of a tracer"),
    "JAX105": _rule("TypeError", False, "the immutable-array TypeError", ("immutable", "does not support item assignment")),
    "JAX106": _rule("NonConcreteBooleanIndexError ConcretizationTypeError", True, "a data-dependent shape error"),
    "JAX108": _rule("ConcretizationTypeError TracerIntegerConversionError TypeError IndexError", True,
                    "a tracer used where a Python int or shape is needed"),
    "JAX109": _rule("AttributeError", True, "an AttributeError on the tracer", ("block_until_ready",)),
    "JAX301": _rule("ValueError TypeError", False, "the non-hashable static argument error", ("hash",)),
    "JAX306": _rule("ValueError", False, "the reverse-mode while_loop error", ("while_loop", "reverse-mode")),
    "JAX307": _rule("TypeError", False, "the invalid-JAX-type error for `self`",
                    ("valid jax type", "at path self", "as an abstract array")),
    "JAX601": _rule("AttributeError ImportError ModuleNotFoundError", False, "the error of a removed API"),
}

EXPECTED_ERRORS = {code: set(rule.errors) for code, rule in ERROR_RULES.items()}


@dataclass
class Verdict:
    verdict: str
    evidence: str


def seconds(value: float | None) -> str:
    if value is None:
        return "n/a"
    if value >= 1:
        return f"{value:.2f} s"
    if value >= 1e-3:
        return f"{value * 1e3:.2f} ms"
    return f"{value * 1e6:.1f} us"


def megabytes(value: float | None) -> str:
    if value is None:
        return "n/a"
    if abs(value) >= 1e6:
        return f"{value / 1e6:.1f} MB"
    return f"{value / 1e3:.1f} kB"


def ratio(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}x"


def decide(code: str, metrics: dict, platform: str | None = None) -> Verdict:
    """The verdict for one finding; `platform` is the child's jax.default_backend()."""
    verdict = _decide(code, metrics, platform)
    regression = fix_regression(metrics, code)
    if regression is not None and code != "compare":
        return Verdict(FIX_REGRESSED, f"{regression}; the finding: {verdict.verdict}: {verdict.evidence}")
    return verdict


def fix_regression(metrics: dict, code: str = "") -> str | None:
    """Why the fixed version must not be applied blind, or None."""
    if metrics.get("fixed_by") is None:
        return None
    message = (metrics.get("error_message_fixed") or "").lower()
    if metrics.get("error_fixed") and ("donat" in message or "has been deleted" in message):
        return f"The fixed version fails on a donated buffer ({metrics['error_fixed']}: {metrics.get('error_message_fixed')})"
    per_call = metrics.get("compiles_per_call_fixed")
    original = metrics.get("compiles_per_call_original") or 0.0
    # A recompiling fix is the fix's fault when it compiles more per call than the original, or
    # when removing recompilation was the fix's whole purpose. A per-call `jit` that the original
    # already had and a rename keeps (`pjit` -> `jit`) is not.
    if per_call is not None and per_call >= RECOMPILES_PER_CALL and (per_call > original or code in RECOMPILE_RULES):
        return (f"The fixed version compiles {per_call:.1f} times per call after warm-up (the original "
                f"{original:.1f}): it recompiles on every call")
    return None


def _decide(code: str, metrics: dict, platform: str | None) -> Verdict:
    if code in ERROR_RULES:
        return _error_rule(code, metrics)
    special = {
        "JAX104": _trace_time_print, "JAX107": _leaked_tracer, "JAX202": _unsynced_interval,
        "JAX303": _per_value_compiles, "JAX304": _compile_time, "JAX305": _embedded_constant,
        "JAX501": _key_reuse, "JAX502": _frozen_host_state, "JAX503": _nan_gradient,
        "JAX504": _truncated_dtype, "JAX602": _deprecation_warning,
    }
    if code in special:
        return special[code](metrics)
    if code == "JAX201":
        return _host_sync(metrics, platform)
    if code == "JAX401":
        return _donation(metrics)
    if code == "JAX302":
        return _recompilation(metrics, platform)
    if code == "compare":
        return _compare(metrics)
    return _timed(metrics, "the fixed version", platform)


def inconclusive(reason: str) -> Verdict:
    return Verdict(INCONCLUSIVE, reason)


def _fixed_summary(metrics: dict) -> str:
    if metrics.get("fixed_by") is None:
        return "no fixed version was available to compare"
    if metrics.get("error_fixed"):
        return f"the fixed version fails too ({metrics['error_fixed']}: {metrics.get('error_message_fixed')})"
    reference = metrics.get("reference") or "the un-jitted original"
    if metrics.get("agree") is False:
        return f"the fixed version runs but its values differ from {reference}"
    parts = ["the fixed version runs"]
    if metrics.get("agree"):
        parts.append(f"agrees with {reference}")
    if metrics.get("speedup") and reference == "the un-jitted original":
        parts.append(f"runs {ratio(metrics['speedup'])} faster than the Python-level fallback "
                     f"({seconds(metrics.get('time_fixed_s'))} vs {seconds(metrics.get('time_original_s'))})")
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


def _error_rule(code: str, metrics: dict) -> Verdict:
    """The error-under-jit path (ERROR_RULES): the expected error, then the fixed version."""
    rule = ERROR_RULES[code]
    error = metrics.get("error_original")
    where = "Under jit the original" if rule.under_jit else "The original"
    if error is None:
        if rule.under_jit:
            return Verdict(REFUTED, "The original compiles and runs under jit: the value is not traced here.")
        return Verdict(REFUTED, f"The original runs without error: no {rule.what} on these inputs.")
    message = (metrics.get("error_message_original") or "").lower()
    if error not in rule.errors or (rule.message and not any(part in message for part in rule.message)):
        return inconclusive(f"{where} fails with {error}, not {rule.what}: {metrics.get('error_message_original')}")
    extra = ""
    if code == "JAX301" and metrics.get("compiles_fixed_all_calls") is not None:
        extra = f"; the fixed call compiles {metrics['compiles_fixed_all_calls']} time(s) over all calls with equal values"
    if metrics.get("error_at_import"):
        where = "Importing the original module"
    return Verdict(CONFIRMED, f"{where} raises {error} ({rule.what}){extra}; {_fixed_summary(metrics)}.")


def _timing_gain(metrics: dict, platform: str | None = None) -> str | None:
    """CONFIRMED / REFUTED from timings alone, or None when they cannot decide."""
    speedup = metrics.get("speedup")
    if speedup is None or metrics.get("agree") is False:
        return None
    separated = True
    original, fixed = metrics.get("timing_original") or {}, metrics.get("timing_fixed") or {}
    if original.get("p25_s") is not None and fixed.get("p75_s") is not None:
        separated = fixed["p75_s"] < original["p25_s"]  # interquartile ranges do not overlap
    confirm, refute = speedup_thresholds(platform)
    if speedup >= confirm and separated:
        return CONFIRMED
    if speedup < refute:
        return REFUTED
    return None


def _timed(metrics: dict, what: str, platform: str | None = None) -> Verdict:
    if metrics.get("error_original"):
        return inconclusive(f"The original fails: {metrics['error_original']}: {metrics.get('error_message_original')}")
    if metrics.get("fixed_by") is None and what == "the fixed version":
        return inconclusive("No fixed version was available to time against the original.")
    if metrics.get("error_fixed"):
        return inconclusive(f"{what.capitalize()} fails: {metrics['error_fixed']}: {metrics.get('error_message_fixed')}")
    if metrics.get("agree") is False:
        return inconclusive(f"{what.capitalize()} computes different values from the original.")
    times = (f"{seconds(metrics.get('time_original_s'))} vs {seconds(metrics.get('time_fixed_s'))} per call "
             f"({ratio(metrics.get('speedup'))})")
    outcome = _timing_gain(metrics, platform)
    if outcome == CONFIRMED:
        return Verdict(CONFIRMED, f"{what.capitalize()} is faster: {times}.")
    if outcome == REFUTED:
        return Verdict(REFUTED, f"{what.capitalize()} is not meaningfully faster on this device: {times}.")
    return inconclusive(f"The timings do not separate beyond noise: {times}.")


def _host_sync(metrics: dict, platform: str | None) -> Verdict:
    if metrics.get("error_original"):
        return _timed(metrics, "the fixed version", platform)
    line = metrics.get("sync_line_original")
    if metrics.get("sync_in_loop_original"):
        if metrics.get("sync_in_loop_fixed") is False:
            fixed = "the fixed version does not sync inside a loop"
        elif metrics.get("sync_in_loop_fixed"):
            fixed = f"the fixed version still syncs inside a loop (line {metrics.get('sync_line_fixed')})"
        else:
            fixed = "no fixed version was checked"
        return Verdict(CONFIRMED, f"transfer_guard_device_to_host('disallow') stops the original at line {line}, "
                                  f"inside the loop; {fixed}; per call {seconds(metrics.get('time_original_s'))} vs "
                                  f"{seconds(metrics.get('time_fixed_s'))} ({ratio(metrics.get('speedup'))}).")
    verdict = _timed(metrics, "the fixed version", platform)
    if platform == "cpu":
        verdict.evidence += " (On CPU the transfer guard cannot see host syncs: timing only.)"
    return verdict


def _recompilation(metrics: dict, platform: str | None = None) -> Verdict:
    per_call_original = metrics.get("compiles_per_call_original")
    per_call_fixed = metrics.get("compiles_per_call_fixed")
    cold_original, cold_fixed = metrics.get("compiles_original"), metrics.get("compiles_fixed")
    base = _timed(metrics, "the fixed version", platform)
    if base.verdict == INCONCLUSIVE and (metrics.get("error_original") or metrics.get("error_fixed")
                                         or metrics.get("agree") is False or metrics.get("fixed_by") is None):
        return base
    if None in (per_call_original, per_call_fixed, cold_original, cold_fixed):
        return base
    counts = (f"{cold_original} compilations vs {cold_fixed} on the first call, "
              f"{per_call_original:.1f} vs {per_call_fixed:.1f} per later call")
    if per_call_original > per_call_fixed or cold_original > cold_fixed:
        return Verdict(CONFIRMED, f"The original recompiles: {counts}; per call "
                                  f"{seconds(metrics.get('time_original_s'))} vs {seconds(metrics.get('time_fixed_s'))} "
                                  f"({ratio(metrics.get('speedup'))}).")
    return Verdict(base.verdict, f"No extra compilations ({counts}); {base.evidence}")


def _donation(metrics: dict) -> Verdict:
    if metrics.get("step_function") is None:
        return inconclusive(metrics.get("error_message_original") or "No jitted step call was found to analyse.")
    if metrics.get("fixed_by") is None or metrics.get("peak_bytes_fixed") is None and metrics.get("donated_input_deleted_fixed") is None:
        return inconclusive("No donating version of the step was available to compare.")
    if metrics.get("agree") is False:
        return inconclusive("The donating step computes different values.")
    peak_original, peak_fixed = metrics.get("peak_bytes_original"), metrics.get("peak_bytes_fixed")
    alias = metrics.get("alias_bytes_fixed")
    deleted = metrics.get("donated_input_deleted_fixed")
    step = metrics["step_function"]
    if peak_original is None or peak_fixed is None:
        if deleted:
            return inconclusive(f"Donating to {step} deletes its input, but this backend gives no memory analysis.")
        return inconclusive(f"This backend gives no memory analysis for {step}.")
    memory = f"peak {megabytes(peak_original)} -> {megabytes(peak_fixed)}, aliased {megabytes(alias)}"
    if peak_fixed < peak_original and (alias or 0) > 0:
        consumed = "; the donated input is deleted after the call" if deleted else ""
        return Verdict(CONFIRMED, f"memory_analysis() of {step}: {memory}{consumed}.")
    why = ("the output reuses the input, but XLA's scratch space keeps the peak" if (alias or 0) > 0
           else "no output can reuse the donated input")
    return Verdict(REFUTED, f"Donation does not lower the peak memory of {step}: {memory} ({why}).")


def _compare(metrics: dict) -> Verdict:
    if metrics.get("error_original"):
        return inconclusive(f"The original fails: {metrics['error_original']}: {metrics.get('error_message_original')}")
    if metrics.get("error_fixed"):
        return inconclusive(f"The alternative fails: {metrics['error_fixed']}: {metrics.get('error_message_fixed')}")
    times = (f"{seconds(metrics.get('time_original_s'))} (original) vs {seconds(metrics.get('time_fixed_s'))} "
             f"(alternative), {ratio(metrics.get('speedup'))}")
    if metrics.get("agree") is False:
        return Verdict(REFUTED, f"The alternative computes different values; {times}.")
    if metrics.get("agree") is None:
        return inconclusive(f"The outputs could not be compared; {times}.")
    return Verdict(CONFIRMED, f"The alternative agrees with the original; {times}.")


# ---------------------------------------------------------------- the rest of the catalogue

def _setup_failed(metrics: dict) -> Verdict | None:
    if metrics.get("error_original"):
        return inconclusive(f"The original fails: {metrics['error_original']}: {metrics.get('error_message_original')}")
    return None


def _fixed_note(metrics: dict, what: str) -> str:
    """A clause on the fixed version for evidence sentences ('' when there is none)."""
    if metrics.get("fixed_by") is None:
        return ""
    if metrics.get("error_fixed"):
        return f"; the fixed version fails ({metrics['error_fixed']}: {metrics.get('error_message_fixed')})"
    agree = {True: ", and its values agree", False: ", but its values differ", None: ""}[metrics.get("agree")]
    return f"; {what}{agree}"


def _trace_time_print(metrics: dict) -> Verdict:
    """JAX104: the original prints a tracer once, at trace time, and nothing on later calls."""
    failed = _setup_failed(metrics)
    if failed:
        return failed
    lines = metrics.get("stdout_lines_original") or []
    tracer = metrics.get("stdout_tracer_original")
    fixed_lines = metrics.get("stdout_lines_fixed")
    fixed = ""
    if fixed_lines is not None:
        fixed = _fixed_note(metrics, f"the fixed version prints {fixed_lines} line(s) per call "
                                     f"({'a tracer' if metrics.get('stdout_tracer_fixed') else 'values'})")
    if tracer or (len(lines) > 1 and lines[0] > 0 and not any(lines[1:])):
        shown = f": {metrics.get('stdout_sample_original')!r}" if metrics.get("stdout_sample_original") else ""
        return Verdict(CONFIRMED, f"Over {len(lines)} calls under jit the original printed {lines} line(s) per call, "
                                  f"{'a tracer repr at trace time' if tracer else 'only while tracing'}{shown}{fixed}.")
    if lines and all(count > 0 for count in lines):
        return Verdict(REFUTED, f"The original prints on every call ({lines} lines): the printed value is not traced.")
    return inconclusive(f"The original printed {lines} line(s) per call: no print was observed.")


def _leaked_tracer(metrics: dict) -> Verdict:
    """JAX107: module state changed only while tracing, and holds a tracer that cannot be used."""
    failed = _setup_failed(metrics)
    if failed:
        return failed
    leaked = metrics.get("leaked_tracers") or []
    first, later = metrics.get("state_changed_first_call") or [], metrics.get("state_changed_later_calls")
    if leaked:
        use = metrics.get("leaked_tracer_error")
        using = f"; using it raises {use}" if use else ""
        return Verdict(CONFIRMED, f"Under jit the side effect ran while tracing: module state {', '.join(first) or '?'} "
                                  f"changed on the first call, {'not' if not later else 'also'} on later calls, and "
                                  f"{', '.join(leaked)} now holds a leaked tracer{using}.")
    if first and later == []:
        return Verdict(CONFIRMED, f"Under jit module state {', '.join(first)} changed on the first call only (at "
                                  f"trace time): later calls do not run the side effect.")
    if first and later:
        return Verdict(REFUTED, f"Module state {', '.join(first)} changes on every call and holds no tracer.")
    return inconclusive("No module-level state changed or holds a tracer after two calls under jit; writes to "
                        "`self` attributes or closure variables are not visible to this check.")


def _unsynced_interval(metrics: dict) -> Verdict:
    """JAX202: the interval the code measures, against the call's time with the result blocked on."""
    failed = _setup_failed(metrics)
    if failed:
        return failed
    measured, blocked = metrics.get("measured_interval_original_s"), metrics.get("time_original_s")
    if measured is None or not blocked:
        return inconclusive("No time stamps were taken by the original (no `time.time`/`perf_counter` call seen).")
    fixed = metrics.get("measured_interval_fixed_s")
    fixed_text = f"; the fixed version's interval reads {seconds(fixed)}" if fixed is not None else ""
    fraction = measured / blocked
    text = (f"the interval as written reads {seconds(measured)}, while the call takes {seconds(blocked)} with its "
            f"result blocked on ({fraction:.0%}){fixed_text}")
    if fraction * CONFIRM_SPEEDUP < 1:
        return Verdict(CONFIRMED, f"The timing measures dispatch, not the work: {text}.")
    if fraction * REFUTE_BELOW >= 1:
        return Verdict(REFUTED, f"On this device the work had finished before the end stamp: {text}.")
    return inconclusive(f"The intervals do not separate beyond noise: {text}.")


def _per_value_compiles(metrics: dict) -> Verdict:
    """JAX303: one compilation per distinct value of the static argument."""
    failed = _setup_failed(metrics)
    if failed:
        return failed
    compiles, values = metrics.get("compiles_original"), metrics.get("static_values_original")
    calls, callee = metrics.get("callee_calls_original"), metrics.get("callee")
    if compiles is None or values is None:
        return inconclusive("Compilations or static argument values could not be counted.")
    cache = metrics.get("cache_size_original")
    cache_text = f", cache size {cache}" if cache is not None else ""
    fixed = _fixed_note(metrics, f"the fixed version compiles {metrics.get('compiles_fixed')} time(s)")
    counts = f"{compiles} compilation(s) for {values} distinct static value(s) over {calls} call(s) of {callee}{cache_text}"
    if values > 1 and compiles >= values:
        return Verdict(CONFIRMED, f"The original compiles once per value: {counts}{fixed}.")
    if values <= 1:
        return Verdict(REFUTED, f"The static argument took one value on this run: {counts}{fixed}.")
    return inconclusive(f"Fewer compilations than values: {counts}{fixed}.")


def _compile_time(metrics: dict) -> Verdict:
    """JAX304: compile time of the unrolled loop against the rolled one; run times reported."""
    base = _timed(metrics, "the fixed version")
    if metrics.get("error_original") or metrics.get("error_fixed") or metrics.get("fixed_by") is None:
        return base
    original, fixed = metrics.get("compile_time_original_s"), metrics.get("compile_time_fixed_s")
    if not original or not fixed:
        return base
    text = (f"compile {seconds(original)} vs {seconds(fixed)} ({ratio(original / fixed)}); run "
            f"{seconds(metrics.get('time_original_s'))} vs {seconds(metrics.get('time_fixed_s'))} per call "
            f"({ratio(metrics.get('speedup'))}, pick `unroll` if the rolled loop runs slower)")
    if metrics.get("agree") is False:
        return inconclusive(f"The fixed version computes different values; {text}.")
    if original >= 1.5 * fixed:
        return Verdict(CONFIRMED, f"The unrolled loop compiles slower: {text}.")
    if original < REFUTE_BELOW * fixed:
        return Verdict(REFUTED, f"The unrolled loop does not compile slower here: {text}.")
    return inconclusive(f"The compile times do not separate: {text}.")


def _embedded_constant(metrics: dict) -> Verdict:
    """JAX305: constant bytes in the compiled HLO, as written and with the array as an argument."""
    failed = _setup_failed(metrics)
    if failed:
        return failed
    captured = metrics.get("captured_arrays")
    original, fixed = metrics.get("hlo_constant_bytes_original"), metrics.get("hlo_constant_bytes_fixed")
    if not captured:
        return inconclusive("No module-level array is read by the function: nothing to pass as an argument.")
    if original is None or fixed is None:
        return inconclusive("The compiled programs could not be compared.")
    captured_bytes = metrics.get("captured_bytes") or 0
    text = (f"the compiled program embeds {megabytes(original)} of constants ({', '.join(captured)}: "
            f"{megabytes(captured_bytes)}), {megabytes(fixed)} with them passed as arguments; compile "
            f"{seconds(metrics.get('compile_time_original_s'))} vs {seconds(metrics.get('compile_time_fixed_s'))}")
    if metrics.get("agree") is False:
        return inconclusive(f"Passing the arrays as arguments changes the values; {text}.")
    if original - fixed >= captured_bytes / 2 > 0:
        return Verdict(CONFIRMED, f"The captured array is a compile-time constant: {text}.")
    return Verdict(REFUTED, f"The captured array is not embedded (XLA folded or dropped it): {text}.")


def _key_reuse(metrics: dict) -> Verdict:
    """JAX501: two samplers drew from the same key, and their draws are the same numbers."""
    failed = _setup_failed(metrics)
    if failed:
        return failed
    draws, reused = metrics.get("sampler_draws_original"), metrics.get("reused_key_draws_original")
    if draws is None:
        return inconclusive("The samplers' keys could not be recorded.")
    fixed = _fixed_note(metrics, f"the fixed version reuses a key in {metrics.get('reused_key_draws_fixed')} "
                                 f"of {metrics.get('sampler_draws_fixed')} draws") if metrics.get("sampler_draws_fixed") is not None else ""
    if reused:
        same = metrics.get("reused_draws_identical_prefix")
        correlation = metrics.get("reused_draws_correlation")
        shown = (" and start with the same values" if same else "") + (
            f" (correlation {correlation:.3f})" if correlation is not None else "")
        return Verdict(CONFIRMED, f"{reused} of {draws} sampler calls drew from a key already used{shown}{fixed}.")
    return Verdict(REFUTED, f"No key was passed to two samplers on this run ({draws} draws){fixed}.")


def _frozen_host_state(metrics: dict) -> Verdict:
    """JAX502: the jitted output does not change between calls; the un-jitted one does."""
    failed = _setup_failed(metrics)
    if failed:
        return failed
    frozen, varies = metrics.get("identical_under_jit"), metrics.get("varies_without_jit")
    if frozen is None or varies is None:
        return inconclusive("The function could not be called twice both ways.")
    if frozen and varies:
        return Verdict(CONFIRMED, "Called twice under jit with the same inputs the output is identical, while the "
                                  "un-jitted function's output changes: the host value was frozen at trace time.")
    if not frozen:
        return Verdict(REFUTED, "The jitted output changes between calls: the value is not frozen at trace time.")
    return inconclusive("The output is the same on both calls with and without jit: the host state did not change "
                        "between the calls on this run.")


def _nan_gradient(metrics: dict) -> Verdict:
    """JAX503: NaN in the original gradient; the fixed gradient finite and the values the same."""
    failed = _setup_failed(metrics)
    if failed:
        return failed
    nans, fixed_nans = metrics.get("grad_nan_original"), metrics.get("grad_nan_fixed")
    if nans is None:
        return inconclusive(f"The gradient could not be taken: {metrics.get('grad_error_original')}.")
    size = metrics.get("grad_size")
    fixed = ""
    if fixed_nans is not None:
        fixed = _fixed_note(metrics, f"the fixed gradient has {fixed_nans} NaN")
    elif metrics.get("error_fixed"):
        fixed = _fixed_note(metrics, "")
    if nans > 0:
        return Verdict(CONFIRMED, f"jax.grad of the original has {nans} NaN of {size} entries at the example "
                                  f"inputs{fixed}.")
    return Verdict(REFUTED, f"jax.grad of the original is finite at the example inputs (the unsafe arm is not "
                            f"reached there){fixed}.")


def _truncated_dtype(metrics: dict) -> Verdict:
    """JAX504: without x64 the 64-bit request comes back 32-bit."""
    failed = _setup_failed(metrics)
    if failed:
        return failed
    dtypes = metrics.get("result_dtypes_original") or []
    warned = metrics.get("dtype_warnings_original") or []
    if metrics.get("x64_enabled"):
        return Verdict(REFUTED, f"64-bit mode is on in this program: results are {', '.join(dtypes)}.")
    wide = [dtype for dtype in dtypes if dtype.endswith("64") and dtype != "complex64"]
    warning = f"; JAX warned: {warned[0]!r}" if warned else ""
    if warned or (dtypes and not wide):
        return Verdict(CONFIRMED, f"64-bit mode is off: the results are {', '.join(dtypes) or 'n/a'}{warning}.")
    return inconclusive(f"64-bit mode is off and the results are {', '.join(dtypes)}: no truncation was seen.")


def _deprecation_warning(metrics: dict) -> Verdict:
    """JAX602: a DeprecationWarning when the original is imported or called; none for the fixed one."""
    failed = _setup_failed(metrics)
    if failed:
        return failed
    warned = metrics.get("deprecation_warnings_original") or []
    fixed_warned = metrics.get("deprecation_warnings_fixed")
    fixed = ""
    if fixed_warned is not None:
        fixed = _fixed_note(metrics, f"the fixed version records {len(fixed_warned)} deprecation warning(s)")
    if warned:
        return Verdict(CONFIRMED, f"The original records {len(warned)} deprecation warning(s): {warned[0]!r}{fixed}.")
    return Verdict(REFUTED, f"No deprecation warning was recorded when the original was imported and called "
                            f"(this JAX version may not warn yet){fixed}.")
