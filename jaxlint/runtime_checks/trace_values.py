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


def tolerance_for(dtype: str) -> float:
    if dtype.startswith(EXACT_KINDS):
        return 0.0
    return RELATIVE_TOLERANCE.get(dtype, 1e-4 if "float" in dtype else 0.0)


def compare_summaries(before: list, after: list, what: str) -> str | None:
    """None when every leaf agrees, else the first difference in words."""
    if len(before) != len(after):
        return f"{what} returned {len(before)} arrays before and {len(after)} after"
    for index, (one, two) in enumerate(zip(before, after)):
        if one is None or two is None or one.get("deleted") or two.get("deleted"):
            continue
        label = f"{what} output {index}" if len(before) > 1 else f"{what} output"
        if one["dtype"] != two["dtype"]:
            return f"{label} changed dtype: {one['dtype']} -> {two['dtype']}"
        if one["shape"] != two["shape"]:
            return f"{label} changed shape: {tuple(one['shape'])} -> {tuple(two['shape'])}"
        rtol = tolerance_for(one["dtype"])
        if "values" in one:
            scale = max((abs(v) for v in one["values"] if isinstance(v, float)), default=0.0)
            difference = _first_difference(one["values"], two["values"], rtol, scale)
            if difference:
                return f"{label} differs: {difference}"
            continue
        if one.get("nonfinite") != two.get("nonfinite"):
            return f"{label}: {one.get('nonfinite')} non-finite values before, {two.get('nonfinite')} after"
        scale = max((one.get("abs_sum") or 0.0) / max(one.get("size") or 1, 1), 1e-30)
        # A sum of n terms may drift by about sqrt(n) roundings of its terms' typical size.
        sum_allowed = rtol * (one.get("abs_sum") or 0.0) + rtol * scale * math.sqrt(one.get("size") or 1)
        if not _close(one.get("sum"), two.get("sum"), sum_allowed):
            return f"{label} differs: sum {one.get('sum'):.6g} -> {two.get('sum'):.6g} (tolerance {sum_allowed:.2g})"
        for field in ("min", "max"):
            if not _close(one.get(field), two.get(field), rtol * max(abs(one.get(field) or 0.0), scale)):
                return f"{label} differs: {field} {one.get(field)} -> {two.get(field)}"
        for field in ("head", "tail"):
            difference = _first_difference(one.get(field) or [], two.get(field) or [], rtol, scale)
            if difference:
                return f"{label} differs: {difference}"
    return None


def _first_difference(before: list, after: list, rtol: float, scale: float) -> str | None:
    for index, (one, two) in enumerate(zip(before, after)):
        if isinstance(one, str) or isinstance(two, str):
            if one != two:
                return f"element {index}: {one} -> {two}"
            continue
        if not _close(one, two, rtol * max(abs(one), abs(two), scale * 1e-3)):
            return f"element {index}: {one:.8g} -> {two:.8g} (relative tolerance {rtol:g})"
    return None


def _close(one, two, allowed: float) -> bool:
    if one is None or two is None:
        return one == two
    if isinstance(one, str) or isinstance(two, str):
        return one == two
    return abs(one - two) <= allowed
