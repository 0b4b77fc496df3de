"""Function mode: device-scaled thresholds, "fix regressed", TF32-aware agreement, --size, guidance."""

from __future__ import annotations

import pytest

from jaxlint.cli import run
from jaxlint.runtime_checks.spec import parse_spec, scale_spec
from jaxlint.runtime_checks.verdicts import (
    CONFIRMED, FIX_REGRESSED, INCONCLUSIVE, REFUTED, decide, describe_thresholds, speedup_thresholds,
)


def timed(speedup: float, **extra) -> dict:
    original = 1e-3 * speedup
    return {"fixed_by": "fixer", "agree": True, "time_original_s": original, "time_fixed_s": 1e-3,
            "speedup": speedup, "timing_original": {"p25_s": original * 0.99, "p75_s": original * 1.01},
            "timing_fixed": {"p25_s": 0.99e-3, "p75_s": 1.01e-3}, "compiles_per_call_original": 0.0,
            "compiles_per_call_fixed": 0.0, **extra}


def test_speedup_thresholds_depend_on_the_device():
    assert speedup_thresholds("cpu")[0] > speedup_thresholds("gpu")[0]
    # 1.15x: a gain on a GPU, within a shared CPU's noise.
    assert decide("JAX402", timed(1.15), "gpu").verdict == CONFIRMED
    assert decide("JAX402", timed(1.15), "cpu").verdict == INCONCLUSIVE
    # A clear gain confirms on both; none refutes on both.
    assert decide("JAX402", timed(2.7), "cpu").verdict == CONFIRMED
    assert decide("JAX402", timed(1.0), "cpu").verdict == REFUTED
    assert "cpu: a fix >= 1.25x" in describe_thresholds("cpu")
    assert "gpu: a fix >= 1.1x" in describe_thresholds("gpu")


def test_fix_that_recompiles_per_call_is_never_confirmed():
    verdict = decide("JAX201", timed(5.0, compiles_per_call_fixed=1.0), "gpu")
    assert verdict.verdict == FIX_REGRESSED
    assert "compiles 1.0 times per call" in verdict.evidence
    recompile = timed(20.0, compiles_per_call_original=20.0, compiles_per_call_fixed=1.0,
                      compiles_original=20, compiles_fixed=1)
    assert decide("JAX302", recompile, "gpu").verdict == FIX_REGRESSED
    recompile.update(compiles_per_call_fixed=0.0)
    assert decide("JAX302", recompile, "gpu").verdict == CONFIRMED
    # A per-call compile the original already had, kept by a rename, is not the fix's doing.
    inherited = timed(1.0, compiles_per_call_original=1.0, compiles_per_call_fixed=1.0,
                      deprecation_warnings_original=["DeprecationWarning: pjit"], deprecation_warnings_fixed=[])
    assert decide("JAX602", inherited, "gpu").verdict == CONFIRMED


def test_fix_that_fails_on_a_donated_buffer_is_never_confirmed():
    metrics = timed(2.0, error_fixed="RuntimeError",
                    error_message_fixed="Array has been deleted with shape=float32[8].")
    assert decide("JAX401", {**metrics, "step_function": "step"}, "gpu").verdict == FIX_REGRESSED
    assert decide("JAX201", metrics, "gpu").verdict == FIX_REGRESSED
    # Another failure of the fixed version stays what it was (not a regression of this kind).
    other = timed(2.0, error_fixed="TypeError", error_message_fixed="unsupported operand")
    assert decide("JAX201", other, "gpu").verdict == INCONCLUSIVE
    # Without a fixed version there is nothing to regress.
    assert decide("JAX201", {**timed(5.0, compiles_per_call_fixed=3.0), "fixed_by": None}, "gpu").verdict != FIX_REGRESSED


def test_size_scales_large_dimensions_only():
    assert scale_spec("f32[1024,256], {'w': bf16[8,3]}, 0.5, i32[]", 0.25) == "f32[256,64], {'w': bf16[2,3]}, 0.5, i32[]"
    assert scale_spec("f32[1024, 4], axes=(0, 1)", 4) == "f32[4096,4], axes=(0, 1)"
    assert scale_spec("f32[64]", 1) == "f32[64]"
    parse_spec(scale_spec("[f32[64]] * 8, key[]", 0.5))  # still a valid SPEC


def test_tf32_tolerance_is_applied_only_when_asked_or_on_gpu():
    np = pytest.importorskip("numpy")
    from jaxlint.runtime_checks.measure import tf32_in_effect, values_agree

    reference = np.linspace(1.0, 2.0, 64, dtype=np.float32)
    tf32_like = reference * np.float32(1 + 2e-3)  # TF32-sized relative error
    assert not values_agree(reference, tf32_like, tf32=False)
    assert values_agree(reference, tf32_like, tf32=True)
    assert not values_agree(reference, reference * np.float32(1.05), tf32=True)
    # A row-by-row matrix-vector product against one matrix product with TF32-rounded operands:
    # an element that cancels to near zero keeps the operands' absolute error.
    rng = np.random.default_rng(0)
    weights = rng.standard_normal((32, 32)).astype(np.float32)
    rows = rng.standard_normal((64, 32)).astype(np.float32)

    def to_tf32(array):
        return (array.view(np.uint32) & np.uint32(0xFFFFE000)).view(np.float32)

    exact = np.tanh(rows @ weights.T)
    in_tf32 = np.tanh(to_tf32(rows) @ to_tf32(weights).T)
    assert values_agree(exact, in_tf32, tf32=True)
    assert not values_agree(exact, in_tf32, tf32=False)
    assert not values_agree(exact, in_tf32 + np.float32(0.05), tf32=True)  # a real difference still shows
    # Integers stay exact; the CPU never uses TF32.
    assert not values_agree(np.arange(4), np.arange(4) + 1, tf32=True)
    assert tf32_in_effect() is False


def test_guidance_when_a_target_has_no_examples(capsys):
    status = run(["runtime", "fixtures/demo/demo.py"])
    err = capsys.readouterr().err
    assert status == 0
    assert "no example inputs" in err
    assert "jaxlint runtime -- python fixtures/demo/demo.py" in err
    assert "clip_gradient" in err
