"""Measurements in the child process: timing, compile counting, compiled-program analyses.

jax is imported inside functions only, so importing this module costs nothing. Every optional
API is probed: a metric that this JAX version or backend cannot give is None, never an error.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from typing import Any, Callable


@dataclass
class Timing:
    median_s: float
    p25_s: float
    p75_s: float
    min_s: float
    max_s: float
    repeats: int
    warmup: int

    @property
    def spread_s(self) -> float:
        """Interquartile range: robust to the odd slow call (GC, a page fault)."""
        return self.p75_s - self.p25_s

    def to_json(self) -> dict:
        return {"median_s": self.median_s, "p25_s": self.p25_s, "p75_s": self.p75_s,
                "min_s": self.min_s, "max_s": self.max_s, "spread_s": self.spread_s,
                "repeats": self.repeats, "warmup": self.warmup}


def summarize(samples: list[float], warmup: int) -> Timing:
    ordered = sorted(samples)
    if len(ordered) >= 4:
        p25, _, p75 = statistics.quantiles(ordered, n=4, method="inclusive")
    else:
        p25, p75 = ordered[0], ordered[-1]
    return Timing(statistics.median(ordered), p25, p75, ordered[0], ordered[-1], len(ordered), warmup)


def time_calls(call: Callable[[], Any], repeat: int, warmup: int = 1,
               block: Callable[[Any], Any] | None = None,
               prepare: Callable[[], Any] | None = None,
               clock: Callable[[], float] = time.perf_counter,
               min_warmup_s: float = 0.0, max_warmup: int = 200) -> Timing:
    """Median and spread of `repeat` calls after at least `warmup` untimed ones.

    `block` waits for the result (`jax.block_until_ready`), so asynchronous dispatch cannot
    make a call look fast; `prepare` runs untimed before each call (fresh donated inputs).
    Warm-up goes on until `min_warmup_s` has passed (at most `max_warmup` calls): an idle GPU
    runs its first calls at low clocks, which would otherwise land in the samples.
    """
    block = block or (lambda value: value)
    warm_calls, warm_start = 0, clock()
    while warm_calls < warmup or (clock() - warm_start < min_warmup_s and warm_calls < max_warmup):
        if prepare:
            prepare()
        block(call())
        warm_calls += 1
    samples = []
    for _ in range(max(1, repeat)):
        if prepare:
            prepare()
        start = clock()
        block(call())
        samples.append(clock() - start)
    return summarize(samples, warm_calls)


class CompileCounter:
    """Counts XLA backend compilations through `jax.monitoring` duration events.

    Each `backend_compile_duration` event is one executable built (a jit cache miss, or an eager
    op's first use). Listeners cannot be removed through the public API, so one counter is
    registered per process and read by difference.
    """

    _instance: "CompileCounter | None" = None

    def __init__(self) -> None:
        self.compiles = 0
        self.compile_seconds = 0.0
        self.traces = 0
        self.available = False

    @classmethod
    def get(cls) -> "CompileCounter":
        if cls._instance is None:
            cls._instance = cls()
            cls._instance._register()
        return cls._instance

    def _register(self) -> None:
        try:
            import jax.monitoring as monitoring

            monitoring.register_event_duration_secs_listener(self._on_duration)
            self.available = True
        except Exception:
            self.available = False

    def _on_duration(self, event: str, duration: float, **_: Any) -> None:
        if "backend_compile" in event:
            self.compiles += 1
            self.compile_seconds += duration
        elif "jaxpr_trace" in event:
            self.traces += 1

    def snapshot(self) -> tuple[int, float, int]:
        return self.compiles, self.compile_seconds, self.traces


class Counted:
    """`with Counted() as c:` then c.compiles, c.compile_seconds, c.traces (None if unavailable)."""

    def __enter__(self) -> "Counted":
        self._counter = CompileCounter.get()
        self._start = self._counter.snapshot()
        self.compiles = self.compile_seconds = self.traces = None
        return self

    def __exit__(self, *exc: Any) -> None:
        if not self._counter.available:
            return
        end = self._counter.snapshot()
        self.compiles = end[0] - self._start[0]
        self.compile_seconds = end[1] - self._start[1]
        self.traces = end[2] - self._start[2]


def cache_size(function: Any) -> int | None:
    """Entries in a jitted function's C++ dispatch cache (private API: probed)."""
    probe = getattr(function, "_cache_size", None)
    try:
        return int(probe()) if callable(probe) else None
    except Exception:
        return None


def block(value: Any) -> Any:
    import jax

    return jax.block_until_ready(value)


def compiled_for(function: Any, args: list, kwargs: dict):
    """The compiled executable of `function` (jitted as is, else wrapped in `jax.jit`)."""
    import jax

    jitted = function if hasattr(function, "lower") else jax.jit(function)
    return jitted.lower(*args, **kwargs).compile()


def memory_stats(compiled: Any) -> dict:
    """Argument, output, temp, alias and peak bytes from `memory_analysis()`, where supported."""
    try:
        stats = compiled.memory_analysis()
    except Exception:
        stats = None
    if stats is None:
        return {"peak_bytes": None, "alias_bytes": None, "argument_bytes": None,
                "output_bytes": None, "temp_bytes": None}
    if isinstance(stats, (list, tuple)):  # older JAX: one entry per device
        stats = stats[0]
    read = lambda name: getattr(stats, name, None)  # noqa: E731 - tiny local accessor
    argument, output = read("argument_size_in_bytes"), read("output_size_in_bytes")
    temp, alias = read("temp_size_in_bytes"), read("alias_size_in_bytes")
    peak = read("peak_memory_in_bytes")
    if not peak and None not in (argument, output, temp, alias):
        # Live at once: inputs, outputs and scratch; an aliased output reuses its input.
        peak = argument + output + temp - alias
    return {"peak_bytes": peak, "alias_bytes": alias, "argument_bytes": argument,
            "output_bytes": output, "temp_bytes": temp}


def cost_stats(compiled: Any) -> dict:
    """FLOPs and bytes accessed from `cost_analysis()` (a dict, or a list of one in old JAX)."""
    try:
        cost = compiled.cost_analysis()
    except Exception:
        cost = None
    if isinstance(cost, (list, tuple)):
        cost = cost[0] if cost else None
    if not isinstance(cost, dict):
        return {"flops": None, "bytes_accessed": None}
    flops, accessed = cost.get("flops"), cost.get("bytes accessed")
    return {"flops": float(flops) if flops is not None and flops >= 0 else None,
            "bytes_accessed": float(accessed) if accessed is not None and accessed >= 0 else None}


# float32 matrix products on NVIDIA GPUs run in TF32 at JAX's default precision (10-bit mantissa):
# two correct versions of one computation (a matrix-vector product per row against one matrix
# product) differ by about 1e-3 of the operands' magnitude. That error does not shrink with an
# output element that cancels to near zero, so the absolute tolerance scales with the largest
# output: |a - b| <= TF32_RTOL * |b| + TF32_RTOL * max|b|.
TF32_RTOL, TF32_ATOL = 1e-2, 1e-3


def tf32_in_effect() -> bool:
    """True on a GPU whose float32 matmuls may use TF32 (the default matmul precision)."""
    import jax

    try:
        if jax.default_backend() != "gpu":
            return False
        precision = str(jax.config.jax_default_matmul_precision or "").lower()
    except Exception:
        return False
    return precision not in ("highest", "float32", "precision.highest")


def values_agree(expected: Any, actual: Any, rtol: float = 1e-4, atol: float = 1e-5,
                 tf32: bool | None = None) -> bool:
    """Same pytree structure and values close (exact for integers and booleans).

    `tf32` (default: whether TF32 is in effect here) widens the float32 tolerance to TF32's.
    """
    import jax
    import numpy as np

    if tf32 is None:
        tf32 = tf32_in_effect()

    try:
        expected_leaves, expected_tree = jax.tree.flatten(expected)
        actual_leaves, actual_tree = jax.tree.flatten(actual)
    except Exception:
        return False
    if expected_tree != actual_tree:
        return False
    for left, right in zip(expected_leaves, actual_leaves):
        left, right = np.asarray(left), np.asarray(right)
        if left.shape != right.shape:
            return False
        if left.dtype.kind in "biu" and right.dtype.kind in "biu":
            if not np.array_equal(left, right):
                return False
            continue
        tolerance, floor = rtol, atol
        if "bfloat16" in (str(left.dtype), str(right.dtype)):
            tolerance = max(rtol, 1e-2)
        elif tf32 and "float32" in (str(left.dtype), str(right.dtype)):
            finite = np.abs(left[np.isfinite(left)]) if left.size else left
            scale = float(finite.max()) if finite.size else 0.0
            tolerance, floor = max(rtol, TF32_RTOL), max(atol, TF32_ATOL, TF32_RTOL * scale)
        wide = np.complex128 if "c" in (left.dtype.kind, right.dtype.kind) else np.float64
        if not np.allclose(left.astype(wide), right.astype(wide), rtol=tolerance,
                           atol=floor, equal_nan=True):
            return False
    return True
