"""Verdicts: from a finding's measured facts to confirmed / refuted / inconclusive, with evidence.

Pure functions of the metrics the child reported, so every branch is testable without jax.
`confirmed`: the predicted failure or cost showed up. `refuted`: the code ran fine under `jit`,
or the fixed version was not meaningfully better on this device. `inconclusive`: the check could
not decide (crash, timeout, unexpected error, disagreeing fix, noisy timings, missing metrics).
"""

from __future__ import annotations

from dataclasses import dataclass

CONFIRMED, REFUTED, INCONCLUSIVE = "confirmed", "refuted", "inconclusive"

# A fixed version must be at least this much faster to confirm a performance finding, and at
# most REFUTE_BELOW times faster to refute one; in between the difference is within noise.
CONFIRM_SPEEDUP = 1.10
REFUTE_BELOW = 1.05

RULE_NAMES = {
    "JAX101": "tracer-bool-conversion", "JAX102": "tracer-to-python-scalar", "JAX103": "numpy-on-tracer",
    "JAX104": "print-in-traced", "JAX105": "inplace-array-update", "JAX106": "dynamic-shape-in-traced",
    "JAX107": "side-effect-in-traced", "JAX108": "tracer-as-shape", "JAX109": "block-until-ready-in-traced",
    "JAX201": "host-sync-in-loop", "JAX202": "timing-without-sync", "JAX203": "eager-ops-in-loop",
    "JAX301": "unhashable-static-arg", "JAX302": "jit-in-loop", "JAX303": "varying-static-arg",
    "JAX304": "python-loop-in-traced", "JAX305": "captured-large-constant", "JAX306": "grad-through-while-loop",
    "JAX307": "jit-on-method", "JAX401": "missing-donation", "JAX402": "vmap-of-jit",
    "JAX403": "python-loop-batching", "JAX501": "prng-key-reuse", "JAX502": "host-state-in-traced",
    "JAX503": "nan-unsafe-where", "JAX504": "float64-without-x64", "JAX601": "removed-api",
    "JAX602": "deprecated-api", "JAX701": "naive-attention",
}


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
    "JAX307": _rule("TypeError", False, "the invalid-JAX-type error for `self`", ("valid jax type",)),
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
        return _recompilation(metrics)
    if code == "compare":
        return _compare(metrics)
    return _timed(metrics, "the fixed version")


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
    if metrics.get("speedup") and metrics.get("reference") == "the un-jitted original":
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


def _timing_gain(metrics: dict) -> str | None:
    """CONFIRMED / REFUTED from timings alone, or None when they cannot decide."""
    speedup = metrics.get("speedup")
    if speedup is None or metrics.get("agree") is False:
        return None
    separated = True
    original, fixed = metrics.get("timing_original") or {}, metrics.get("timing_fixed") or {}
    if original.get("p25_s") is not None and fixed.get("p75_s") is not None:
        separated = fixed["p75_s"] < original["p25_s"]  # interquartile ranges do not overlap
    if speedup >= CONFIRM_SPEEDUP and separated:
        return CONFIRMED
    if speedup < REFUTE_BELOW:
        return REFUTED
    return None


def _timed(metrics: dict, what: str) -> Verdict:
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
    outcome = _timing_gain(metrics)
    if outcome == CONFIRMED:
        return Verdict(CONFIRMED, f"{what.capitalize()} is faster: {times}.")
    if outcome == REFUTED:
        return Verdict(REFUTED, f"{what.capitalize()} is not meaningfully faster on this device: {times}.")
    return inconclusive(f"The timings do not separate beyond noise: {times}.")


def _host_sync(metrics: dict, platform: str | None) -> Verdict:
    if metrics.get("error_original"):
        return _timed(metrics, "the fixed version")
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
    verdict = _timed(metrics, "the fixed version")
    if platform == "cpu":
        verdict.evidence += " (On CPU the transfer guard cannot see host syncs: timing only.)"
    return verdict


def _recompilation(metrics: dict) -> Verdict:
    per_call_original = metrics.get("compiles_per_call_original")
    per_call_fixed = metrics.get("compiles_per_call_fixed")
    cold_original, cold_fixed = metrics.get("compiles_original"), metrics.get("compiles_fixed")
    base = _timed(metrics, "the fixed version")
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
