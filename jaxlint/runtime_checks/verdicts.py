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
    "JAX101": "tracer-bool-conversion", "JAX102": "tracer-to-python-scalar",
    "JAX201": "host-sync-in-loop", "JAX301": "unhashable-static-arg", "JAX302": "jit-in-loop",
    "JAX401": "missing-donation", "JAX402": "vmap-of-jit",
}

EXPECTED_ERRORS = {
    "JAX101": {"TracerBoolConversionError", "ConcretizationTypeError"},
    "JAX102": {"ConcretizationTypeError", "TracerIntegerConversionError",
               "TracerArrayConversionError", "TracerBoolConversionError"},
    "JAX301": {"ValueError", "TypeError"},
}


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
    if code in ("JAX101", "JAX102"):
        return _tracing_error(code, metrics)
    if code == "JAX301":
        return _static_hashing(metrics)
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
    if metrics.get("agree") is False:
        return "the fixed version compiles but its values differ from the un-jitted original"
    parts = ["the fixed version compiles"]
    if metrics.get("agree"):
        parts.append("agrees with the un-jitted original")
    if metrics.get("speedup"):
        parts.append(f"runs {ratio(metrics['speedup'])} faster than the Python-level fallback "
                     f"({seconds(metrics.get('time_fixed_s'))} vs {seconds(metrics.get('time_original_s'))})")
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


def _tracing_error(code: str, metrics: dict) -> Verdict:
    error = metrics.get("error_original")
    if error is None:
        return Verdict(REFUTED, "The original compiles and runs under jit: the value is not traced here.")
    if error not in EXPECTED_ERRORS[code]:
        return inconclusive(f"Under jit the original fails with {error}, not a tracer conversion error: "
                            f"{metrics.get('error_message_original')}")
    return Verdict(CONFIRMED, f"Under jit the original raises {error}; {_fixed_summary(metrics)}.")


def _static_hashing(metrics: dict) -> Verdict:
    error = metrics.get("error_original")
    message = (metrics.get("error_message_original") or "").lower()
    if error is None:
        return Verdict(REFUTED, "The original call compiles: the static argument is hashable.")
    if error not in EXPECTED_ERRORS["JAX301"] or "hash" not in message:
        return inconclusive(f"The original fails with {error}, not the non-hashable static argument "
                            f"error: {metrics.get('error_message_original')}")
    compiles = metrics.get("compiles_fixed_all_calls")
    once = f"; the fixed call compiles {compiles} time(s) over all calls with equal values" if compiles is not None else ""
    return Verdict(CONFIRMED, f"The original raises {error} (non-hashable static argument){once}; "
                              f"{_fixed_summary(metrics)}.")


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
