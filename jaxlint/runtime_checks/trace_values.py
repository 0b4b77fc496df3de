"""What the user's jitted functions returned, for `jaxlint fix --verify` (inside the user's process).

Armed by `JAXLINT_TRACE_VALUES=1` beside the rest of `trace_hook`: for each jitted function of the
user's, a summary of the outputs of its first concrete call (read right away, one read per
function) and of its last call (a reference is kept and read at exit, so the loop is not slowed;
the reference adds no memory to a training loop, whose caller holds the same outputs, and a
donated output that was later deleted is skipped). `compare_values` in the parent decides whether
two runs agree, with a tolerance that fits each output's dtype.

A summary holds, per output leaf, its dtype and shape and either every value (16 or fewer) or
the sum, the sum of magnitudes, the extremes and the first and last eight values, all in float64
(complex values as their magnitudes). Nothing here is written to the user's output, and the reads
are not counted as the program's syncs.
"""

from __future__ import annotations

import math

SMALL = 16  # arrays this small are kept whole
SAMPLE = 8


class ValueLog:
    def __init__(self, recorder, jax) -> None:
        self.recorder = recorder
        self.jax = jax
        self.names: dict[str, str] = {}
        self.calls: dict[str, int] = {}
        self.first: dict[str, list] = {}
        self.latest: dict[str, object] = {}

    def record(self, key: str, name: str, outputs) -> None:
        leaves = self.jax.tree.leaves(outputs)
        if any(isinstance(leaf, self.jax.core.Tracer) for leaf in leaves):
            return  # called while tracing (inside another transform): nothing concrete to compare
        self.names[key] = name
        self.calls[key] = self.calls.get(key, 0) + 1
        if key not in self.first:
            self.first[key] = self._summaries(leaves)
        self.latest[key] = leaves

    def summary(self) -> list[dict]:
        functions = []
        for key, name in self.names.items():
            file, _, _ = key.rpartition(":")[0].rpartition(":")
            functions.append({"key": key, "name": name, "file": file, "calls": self.calls[key],
                              "first": self.first[key], "last": self._summaries(self.latest.get(key, []))})
        return functions

    def _summaries(self, leaves) -> list:
        previous = getattr(self.recorder.in_sync, "active", False)
        self.recorder.in_sync.active = True  # these reads are jaxlint's, not the program's syncs
        try:
            return [summarize(self.jax, leaf) for leaf in leaves]
        finally:
            self.recorder.in_sync.active = previous


def summarize(jax, leaf) -> dict | None:
    import numpy as np

    if isinstance(leaf, jax.Array):
        if leaf.is_deleted():
            return {"deleted": True}
        try:
            host = np.asarray(jax.device_get(leaf))
        except Exception:
            return None  # a sharded array this process cannot read whole
    elif isinstance(leaf, (bool, int, float, complex, np.ndarray, np.generic)):
        host = np.asarray(leaf)
    else:
        return None
    dtype = str(leaf.dtype) if hasattr(leaf, "dtype") else type(leaf).__name__
    summary = {"dtype": dtype, "shape": list(host.shape)}
    if host.dtype.kind == "c":
        host = np.abs(host)
    try:
        flat = host.astype(np.float64).ravel()
    except (TypeError, ValueError):
        return None  # keys, strings, objects: not compared
    if flat.size <= SMALL:
        summary["values"] = [_number(v) for v in flat]
        return summary
    finite = flat[np.isfinite(flat)]
    summary.update({
        "size": int(flat.size), "nonfinite": int(flat.size - finite.size),
        "sum": _number(finite.sum()), "abs_sum": _number(np.abs(finite).sum()),
        "min": _number(finite.min()) if finite.size else None, "max": _number(finite.max()) if finite.size else None,
        "head": [_number(v) for v in flat[:SAMPLE]], "tail": [_number(v) for v in flat[-SAMPLE:]],
    })
    return summary


def _number(value) -> float | str:
    value = float(value)
    if math.isfinite(value):
        return value
    return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")


# ---------------------------------------------------------------------- in the parent: agreement

# Relative tolerance per dtype: a few hundred ulps at the dtype's precision, so reassociated sums
# and fused kernels agree while a changed computation does not.
RELATIVE_TOLERANCE = {"float64": 1e-9, "complex128": 1e-9, "float32": 1e-4, "complex64": 1e-4,
                      "float16": 5e-3, "bfloat16": 2e-2}
EXACT_KINDS = ("int", "uint", "bool")


# On GPUs float32 matrix products run in TF32 by default (10 bits of mantissa), and which kernel
# autotuning picks can change from one process to the next; TPUs multiply float32 in bfloat16 passes.
ACCELERATOR_FLOAT32 = {"gpu": 5e-3, "cuda": 5e-3, "rocm": 5e-3, "tpu": 2e-2}


def tolerance_for(dtype: str, platform: str | None = None) -> float:
    if dtype.startswith(EXACT_KINDS):
        return 0.0
    if dtype in ("float32", "complex64") and platform in ACCELERATOR_FLOAT32:
        return ACCELERATOR_FLOAT32[platform]
    return RELATIVE_TOLERANCE.get(dtype, 1e-4 if "float" in dtype else 0.0)


NOISE_FACTOR = 10.0  # how far past the original's own run-to-run spread a fixed run may stray


def leaf_checks(one: dict | None, two: dict | None, platform: str | None = None) -> tuple[str | None, list[tuple[str, float, float, float]]]:
    """A structural difference of two leaf summaries in words (dtype, shape, non-finite count), or
    None and the numeric checks: (what, before, after, allowed difference)."""
    if one is None or two is None or one.get("deleted") or two.get("deleted"):
        return None, []
    if one["dtype"] != two["dtype"]:
        return f"changed dtype: {one['dtype']} -> {two['dtype']}", []
    if one["shape"] != two["shape"]:
        return f"changed shape: {tuple(one['shape'])} -> {tuple(two['shape'])}", []
    rtol = tolerance_for(one["dtype"], platform)
    checks: list[tuple[str, float, float, float]] = []
    if "values" in one:
        numbers = [abs(v) for v in one["values"] if isinstance(v, float)]
        scale = sum(numbers) / len(numbers) if numbers else 0.0
        return _element_checks("element", one["values"], two["values"], rtol, scale, checks)
    if one.get("nonfinite") != two.get("nonfinite"):
        return f"{one.get('nonfinite')} non-finite values before, {two.get('nonfinite')} after", []
    size = max(one.get("size") or 1, 1)
    scale = max((one.get("abs_sum") or 0.0) / size, 1e-30)
    # A sum of n terms may drift by about sqrt(n) roundings of its terms' typical size.
    checks.append(("sum", one.get("sum"), two.get("sum"), rtol * (one.get("abs_sum") or 0.0) + rtol * scale * math.sqrt(size)))
    for name in ("min", "max"):
        checks.append((name, one.get(name), two.get(name), rtol * max(abs(one.get(name) or 0.0), scale)))
    for name in ("head", "tail"):
        difference, _ = _element_checks(f"{name} element", one.get(name) or [], two.get(name) or [], rtol, scale, checks)
        if difference:
            return difference, []
    return None, checks


def _element_checks(label: str, before: list, after: list, rtol: float, scale: float, checks: list):
    for index, (one, two) in enumerate(zip(before, after)):
        if isinstance(one, str) or isinstance(two, str):
            if one != two:
                return f"{label} {index}: {one} -> {two}", []
            continue
        # An element that is a near-cancelling sum carries the rounding of its terms, which are
        # about the size of the array's typical element, not of the element itself.
        checks.append((f"{label} {index}", one, two, rtol * max(abs(one), abs(two), scale)))
    return None, checks


def noise_units(checks_again: list[tuple[str, float, float, float]]) -> float:
    """How far the original strayed from itself when run again, in units of the allowed difference."""
    worst = 0.0
    for _, one, two, allowed in checks_again:
        if one is None or two is None or isinstance(one, str) or isinstance(two, str):
            continue
        spread = abs(one - two)
        if spread:
            worst = max(worst, spread / allowed if allowed else math.inf)
    return worst


def first_failure(checks: list[tuple[str, float, float, float]], noise: float = 0.0) -> str | None:
    """The first check whose difference exceeds its allowance, widened by the measured noise."""
    widen = max(1.0, NOISE_FACTOR * noise)
    for what, one, two, allowed in checks:
        if one is None or two is None or isinstance(one, str) or isinstance(two, str):
            if one != two:
                return f"{what}: {one} -> {two}"
            continue
        if abs(one - two) > allowed * widen:
            tolerance = f"allowed {allowed * widen:.2g}" + (f", {widen:.0f}x the tolerance for the original's own spread" if widen > 1 else "")
            return f"{what}: {one:.8g} -> {two:.8g} ({tolerance})"
    return None


def compare_summaries(before: list, after: list, what: str, again: list | None = None, platform: str | None = None) -> str | None:
    """None when every leaf agrees, else the first difference in words. `again`: the same
    function's summaries from a second run of the original, whose spread widens the tolerance."""
    if len(before) != len(after):
        return f"{what} returned {len(before)} arrays before and {len(after)} after"
    for index, (one, two) in enumerate(zip(before, after)):
        label = f"{what} output {index}" if len(before) > 1 else f"{what} output"
        structural, checks = leaf_checks(one, two, platform)
        if structural:
            return f"{label} {structural}"
        noise = 0.0
        if again is not None and len(again) == len(before):
            noise = noise_units(leaf_checks(one, again[index], platform)[1])
        failure = first_failure(checks, noise)
        if failure:
            return f"{label} differs: {failure}"
    return None
