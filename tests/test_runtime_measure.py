"""Measurement helpers of the runtime mode: timing harness, compile counting, HLO, memory, cost."""

import jax
import jax.numpy as jnp
import pytest

from jaxlint.runtime_checks import measure
from jaxlint.runtime_checks.hlo import hlo_statistics, parse_computations

SAMPLE_HLO = """HloModule jit_f, is_scheduled=true

%fused_computation (param_0.2: f32[64,64]) -> f32[64,64] {
  %param_0.2 = f32[64,64]{1,0} parameter(0)
  %sin.0 = f32[64,64]{1,0} sine(%param_0.2)
  ROOT %t = f32[64,64]{0,1} transpose(%sin.0), dimensions={1,0}
}

%add_reducer (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %add = f32[] add(%a, %b)
}

%body (p: (s32[], f32[64,64])) -> (s32[], f32[64,64]) {
  %p = (s32[], f32[64,64]{1,0}) parameter(0)
  %x = f32[64,64]{1,0} get-tuple-element(%p), index=1
  %c = f32[64,64]{1,0} copy(%x)
  %i = s32[] get-tuple-element(%p), index=0
  ROOT %r = (s32[], f32[64,64]{1,0}) tuple(%i, %c)
}

%cond (p.1: (s32[], f32[64,64])) -> pred[] {
  %p.1 = (s32[], f32[64,64]{1,0}) parameter(0)
  ROOT %lt = pred[] constant(false)
}

ENTRY %main.1 (x.1: f32[64,64]) -> (f32[], f32[64,64]) {
  %x.1 = f32[64,64]{1,0} parameter(0), metadata={op_name="x"}
  %f = f32[64,64]{1,0} fusion(%x.1), kind=kLoop, calls=%fused_computation
  %zero = f32[] constant(0)
  %sum = f32[] reduce(%f, %zero), dimensions={0,1}, to_apply=%add_reducer
  %init = (s32[], f32[64,64]{1,0}) tuple(%zero, %f)
  %w = (s32[], f32[64,64]{1,0}) while(%init), condition=%cond, body=%body
  %cb = f32[] custom-call(%sum), custom_call_target="xla_ffi_python_cpu_callback"
  %ds = f32[8,64]{1,0} dynamic-slice(%f, %zero, %zero), dynamic_slice_sizes={8,64}
  ROOT %out = (f32[], f32[64,64]{1,0}) tuple(%cb, %f)
}
"""


def test_hlo_text_statistics():
    assert set(parse_computations(SAMPLE_HLO)) == {"fused_computation", "add_reducer", "body", "cond", "main.1"}
    stats = hlo_statistics(SAMPLE_HLO)
    assert stats["ops"] == {"copy": 1, "custom-call": 1, "dynamic-slice": 1, "fusion": 1, "reduce": 1, "while": 1}
    assert stats["fusions"] == 1 and stats["fused_ops"] == 3  # sine, transpose, reducer add
    assert stats["copies"] == 1 and stats["transposes"] == 1 and stats["while_loops"] == 1
    assert stats["custom_calls"] == 1 and stats["host_callbacks"] == 1 and stats["dynamic_slices"] == 1


def test_hlo_of_real_compiled_programs():
    def loop(x):
        return jax.lax.fori_loop(0, 10, lambda i, v: jnp.sin(v) * 2.0, x)

    x = jnp.ones((32, 32))
    stats = hlo_statistics(jax.jit(loop).lower(x).compile().as_text())
    assert stats["while_loops"] == 1 and stats["fusions"] + stats["fused_ops"] >= 1

    def with_callback(x):
        return jax.pure_callback(lambda v: v, jax.ShapeDtypeStruct(x.shape, x.dtype), x) + 1

    stats = hlo_statistics(jax.jit(with_callback).lower(x).compile().as_text())
    assert stats["host_callbacks"] == 1 and stats["custom_calls"] >= 1


def test_timing_harness_with_a_fake_clock():
    ticks = iter(range(100))
    calls, prepared, blocked = [], [], []
    timing = measure.time_calls(lambda: calls.append(1) or "value", repeat=5, warmup=2,
                                block=blocked.append, prepare=lambda: prepared.append(1),
                                clock=lambda: float(next(ticks)))
    assert len(calls) == 7 and len(prepared) == 7 and blocked == ["value"] * 7  # warm-up runs too
    assert timing.repeats == 5 and timing.warmup == 2
    assert timing.median_s == 1.0 and timing.spread_s == 0.0 and timing.min_s == timing.max_s == 1.0


def test_warmup_lasts_at_least_the_minimum_time():
    now = [0.0]

    def clock():
        now[0] += 0.1
        return now[0]

    calls = []
    timing = measure.time_calls(lambda: calls.append(1), repeat=3, warmup=1, clock=clock, min_warmup_s=1.0)
    assert timing.warmup >= 4 and len(calls) == timing.warmup + 3
    capped = measure.time_calls(lambda: None, repeat=1, warmup=1, clock=lambda: 0.0, min_warmup_s=1.0, max_warmup=5)
    assert capped.warmup == 5


def test_summary_statistics():
    timing = measure.summarize([5.0, 1.0, 2.0, 3.0, 4.0], warmup=1)
    assert timing.median_s == 3.0 and timing.p25_s == 2.0 and timing.p75_s == 4.0
    assert timing.to_json()["spread_s"] == 2.0
    assert measure.summarize([2.0], warmup=0).spread_s == 0.0


def test_compile_counting():
    x = jnp.ones((8,))
    step = jax.jit(lambda v: v * 3.0 + 1.0)
    with measure.Counted() as cold:
        step(x).block_until_ready()
    with measure.Counted() as warm:
        step(x).block_until_ready()
    assert cold.compiles == 1 and warm.compiles == 0 and cold.compile_seconds > 0
    assert measure.cache_size(step) == 1
    with measure.Counted() as looped:
        for _ in range(4):
            x = jax.jit(lambda v: v * 0.5)(x)  # a fresh callable per iteration: JAX302  # noqa: JAX302,JAX401 (deliberate: counts recompiles)
    assert looped.compiles == 4
    assert measure.cache_size(object()) is None


def test_memory_analysis_shows_donation():
    def update(params):
        return params * 0.9

    params = jnp.ones((256, 256))
    plain = measure.memory_stats(jax.jit(update).lower(params).compile())
    donated = measure.memory_stats(jax.jit(update, donate_argnums=0).lower(params).compile())
    if plain["peak_bytes"] is None:
        pytest.skip("this backend gives no memory analysis")
    assert plain["alias_bytes"] == 0 and donated["alias_bytes"] == 256 * 256 * 4
    assert donated["peak_bytes"] < plain["peak_bytes"]


def test_memory_and_cost_degrade_to_null():
    class NoAnalysis:
        def memory_analysis(self):
            raise NotImplementedError

        def cost_analysis(self):
            return None

    assert measure.memory_stats(NoAnalysis())["peak_bytes"] is None
    assert measure.cost_stats(NoAnalysis()) == {"flops": None, "bytes_accessed": None}


def test_cost_analysis_counts_flops():
    a = jnp.ones((64, 32))
    cost = measure.cost_stats(measure.compiled_for(lambda x: x @ x.T, [a], {}))
    assert cost["flops"] == pytest.approx(2 * 64 * 64 * 32, rel=0.1) and cost["bytes_accessed"] > 0


def test_values_agree():
    assert measure.values_agree({"a": jnp.ones(3)}, {"a": jnp.ones(3) + 1e-7})
    assert not measure.values_agree({"a": jnp.ones(3)}, {"b": jnp.ones(3)})
    assert not measure.values_agree(jnp.ones(3), jnp.ones(4))
    assert not measure.values_agree(jnp.arange(3), jnp.arange(3) + 1)
    assert measure.values_agree(1.0, jnp.float32(1.0)) and measure.values_agree(jnp.nan, jnp.nan)
