"""Verdict logic of the runtime mode: pure functions of the measured metrics."""

from jaxlint.runtime_checks.verdicts import CONFIRMED, INCONCLUSIVE, REFUTED, decide, megabytes, seconds


def timing(median, p25, p75):
    return {"median_s": median, "p25_s": p25, "p75_s": p75}


def timed(original, fixed, **extra):
    return {"time_original_s": original, "time_fixed_s": fixed, "speedup": original / fixed, "agree": True,
            "fixed_by": "fixture", "timing_original": timing(original, original * 0.95, original * 1.05),
            "timing_fixed": timing(fixed, fixed * 0.95, fixed * 1.05), **extra}


def test_tracer_error_confirms_and_mentions_the_fix():
    verdict = decide("JAX101", {"error_original": "TracerBoolConversionError", "fixed_by": "fixture",
                                "agree": True, "speedup": 40.0, "time_fixed_s": 1e-4, "time_original_s": 4e-3})
    assert verdict.verdict == CONFIRMED
    assert "TracerBoolConversionError" in verdict.evidence and "agrees" in verdict.evidence


def test_tracer_rule_refuted_when_jit_succeeds():
    assert decide("JAX102", {"error_original": None}).verdict == REFUTED


def test_unexpected_error_is_inconclusive():
    verdict = decide("JAX102", {"error_original": "ZeroDivisionError", "error_message_original": "boom"})
    assert verdict.verdict == INCONCLUSIVE and "ZeroDivisionError" in verdict.evidence


def test_disagreeing_fix_is_reported_but_the_finding_stands():
    verdict = decide("JAX101", {"error_original": "TracerBoolConversionError", "fixed_by": "fixer", "agree": False})
    assert verdict.verdict == CONFIRMED and "differ" in verdict.evidence


def test_static_hashing():
    confirmed = decide("JAX301", {"error_original": "ValueError", "fixed_by": "fixture", "agree": True,
                                  "error_message_original": "Non-hashable static arguments are not supported",
                                  "compiles_fixed_all_calls": 1})
    assert confirmed.verdict == CONFIRMED and "1 time(s)" in confirmed.evidence
    other = decide("JAX301", {"error_original": "ValueError", "error_message_original": "shapes differ"})
    assert other.verdict == INCONCLUSIVE
    assert decide("JAX301", {"error_original": None}).verdict == REFUTED


def test_timing_thresholds():
    assert decide("JAX402", timed(3.5e-3, 1e-3)).verdict == CONFIRMED
    assert decide("JAX402", timed(1.0e-3, 1e-3)).verdict == REFUTED
    assert decide("JAX402", timed(1.07e-3, 1e-3)).verdict == INCONCLUSIVE


def test_overlapping_spreads_do_not_confirm():
    metrics = timed(1.5e-3, 1e-3)
    metrics["timing_fixed"] = timing(1e-3, 0.5e-3, 1.6e-3)
    assert decide("JAX402", metrics).verdict == INCONCLUSIVE


def test_timing_needs_agreement_and_a_fixed_version():
    assert decide("JAX402", {**timed(3e-3, 1e-3), "agree": False}).verdict == INCONCLUSIVE
    assert decide("JAX402", {**timed(3e-3, 1e-3), "fixed_by": None}).verdict == INCONCLUSIVE
    assert decide("JAX402", {"error_original": "RuntimeError"}).verdict == INCONCLUSIVE


def test_host_sync_guard_confirms_on_gpu_and_cpu_notes_timing_only():
    gpu = decide("JAX201", {**timed(1e-3, 1e-3), "sync_in_loop_original": True, "sync_line_original": 14,
                            "sync_in_loop_fixed": False}, platform="gpu")
    assert gpu.verdict == CONFIRMED and "line 14" in gpu.evidence
    cpu = decide("JAX201", timed(4e-3, 1e-3), platform="cpu")
    assert cpu.verdict == CONFIRMED and "timing only" in cpu.evidence
    assert decide("JAX201", timed(1e-3, 1e-3), platform="gpu").verdict == REFUTED


def test_recompilation_counts_decide():
    counts = {"compiles_original": 21, "compiles_fixed": 1, "compiles_per_call_original": 20.0,
              "compiles_per_call_fixed": 0.0}
    verdict = decide("JAX302", {**timed(1e-3, 1e-3), **counts})
    assert verdict.verdict == CONFIRMED and "21 compilations vs 1" in verdict.evidence
    # A fix that still compiles on every call (once instead of 20 times) is not applied blind.
    verdict = decide("JAX302", {**timed(1e-3, 1e-3), **counts, "compiles_per_call_fixed": 1.0})
    assert verdict.verdict == "fix regressed" and "21 compilations vs 1" in verdict.evidence
    same = {"compiles_original": 1, "compiles_fixed": 1, "compiles_per_call_original": 0.0,
            "compiles_per_call_fixed": 0.0}
    assert decide("JAX302", {**timed(1e-3, 1e-3), **same}).verdict == REFUTED


def test_donation():
    base = {"step_function": "step", "fixed_by": "fixture", "agree": True}
    confirmed = decide("JAX401", {**base, "peak_bytes_original": 402e6, "peak_bytes_fixed": 268e6,
                                  "alias_bytes_fixed": 134e6, "donated_input_deleted_fixed": True})
    assert confirmed.verdict == CONFIRMED and "402.0 MB -> 268.0 MB" in confirmed.evidence
    refuted = decide("JAX401", {**base, "peak_bytes_original": 10e6, "peak_bytes_fixed": 10e6, "alias_bytes_fixed": 0})
    assert refuted.verdict == REFUTED
    unknown = decide("JAX401", {**base, "peak_bytes_original": None, "peak_bytes_fixed": None,
                                "donated_input_deleted_fixed": True})
    assert unknown.verdict == INCONCLUSIVE and "no memory analysis" in unknown.evidence
    assert decide("JAX401", {"step_function": None}).verdict == INCONCLUSIVE


def test_compare():
    assert decide("compare", timed(2e-3, 1e-3)).verdict == CONFIRMED
    assert decide("compare", {**timed(2e-3, 1e-3), "agree": False}).verdict == REFUTED
    failed = decide("compare", {"error_fixed": "LoweringError", "error_message_fixed": "no triton"})
    assert failed.verdict == INCONCLUSIVE and "alternative fails" in failed.evidence


def test_units():
    assert seconds(2.5) == "2.50 s" and seconds(0.0025) == "2.50 ms" and seconds(2.5e-6) == "2.5 us"
    assert megabytes(402_653_184) == "402.7 MB" and megabytes(65_536) == "65.5 kB" and megabytes(None) == "n/a"
