"""Donation probes at the exit of a traced program (`trace_hook` calls them; they import jax lazily).

For each function jitted in the user's files that ran at least twice without donating: which
arguments an output could replace (same tree, shapes and dtypes; scalars noted, not donated),
`memory_analysis()` of the step as written and with those arguments donated, at the shapes of its
first call (no allocation), and a fair timing of both versions on same-sized buffers.
"""

from __future__ import annotations

import time

PROBE_LIMIT = 6  # jitted functions probed, most-called first: each costs two compilations


def donation_probes(recorder, jax, probes: dict, jit) -> None:
    """For jitted functions called twice or more without donation: memory and time with and without.

    `probes` holds, per function, what its first call saw (the function, its `jit` options, the
    arguments as shapes); `jit` is jax's own, unwrapped, so the probes' calls are not recorded.
    """
    probed = []
    candidates = sorted((info for info in recorder.functions.values() if info["calls"] >= 2 and not info["donates"]),
                        key=lambda info: -info["calls"])
    for info in candidates[:PROBE_LIMIT]:
        probe = probes.get(info["key"])
        if probe is None:
            continue
        try:
            probed.append(probe_donation(jax, jit, info, *probe))
        except Exception as error:
            probed.append({"key": info["key"], "error": f"{type(error).__name__}: {error}"[:300]})
    recorder.at_exit["donation_probes"] = probed


def probe_donation(jax, jit, info, fun, jit_args, jit_kwargs, args, kwargs) -> dict:
    """`memory_analysis()` of the function as written and with the reusable arguments donated."""
    static = set(jit_kwargs.get("static_argnums") or ()) if not isinstance(jit_kwargs.get("static_argnums"), int) \
        else {jit_kwargs["static_argnums"]}
    plain = jit(fun, *jit_args, **jit_kwargs)
    out = plain.eval_shape(*args, **kwargs)
    out_items = list(out) if isinstance(out, tuple) else [out]
    reusable: dict[int, int] = {}
    scalars_only: list[int] = []
    for position, arg in enumerate(args):
        if position in static:
            continue
        leaves = [leaf for leaf in jax.tree.leaves(arg) if isinstance(leaf, jax.ShapeDtypeStruct)]
        if not leaves:
            continue
        for index, item in enumerate(out_items):
            if index not in reusable.values() and _same_structure(jax, arg, item):
                if all(leaf.ndim == 0 for leaf in leaves):
                    scalars_only.append(position)  # a learning rate matching a scalar loss: nothing to save
                else:
                    reusable[position] = index
                break
    result = {"key": info["key"], "name": info["name"], "donatable_argnums": sorted(reusable),
              "scalar_argnums": scalars_only}
    if not reusable:
        return result
    donating = jit(fun, *jit_args, **{**jit_kwargs, "donate_argnums": tuple(sorted(reusable))})
    for label, jitted in (("original", plain), ("donated", donating)):
        compiled = jitted.lower(*args, **kwargs).compile()
        stats = compiled.memory_analysis()
        if isinstance(stats, (list, tuple)):
            stats = stats[0] if stats else None
        if stats is None:
            result[f"peak_bytes_{label}"] = None
            continue
        alias = getattr(stats, "alias_size_in_bytes", 0) or 0
        peak = getattr(stats, "peak_memory_in_bytes", 0) or (
            stats.argument_size_in_bytes + stats.output_size_in_bytes + stats.temp_size_in_bytes - alias)
        result[f"peak_bytes_{label}"] = peak
        result[f"alias_bytes_{label}"] = alias
    result.update(_fair_timing(jax, plain, donating, args, kwargs, reusable, out is not None and isinstance(out, tuple)))
    return result


def _same_structure(jax, left, right) -> bool:
    left_leaves, left_tree = jax.tree.flatten(left)
    right_leaves, right_tree = jax.tree.flatten(right)
    return left_tree == right_tree and all(
        getattr(a, "shape", None) == getattr(b, "shape", None) and getattr(a, "dtype", None) == getattr(b, "dtype", None)
        for a, b in zip(left_leaves, right_leaves))


def _fair_timing(jax, plain, donating, args, kwargs, reusable: dict, tuple_output: bool, steps: int = 20) -> dict:
    """Both versions run `state = f(state, ...)` on the same-sized buffers, warm, blocked at the end.

    The loop feeds each output back as the next input, as a training loop does, so the donating
    version reuses its buffers and neither version pays for fresh input copies in the timed part.
    Skipped when the arguments would not fit twice more in free device memory.
    """
    import jax.numpy as jnp

    arrays = [leaf for leaf in jax.tree.leaves((args, kwargs)) if isinstance(leaf, jax.ShapeDtypeStruct)]
    need = sum(leaf.size * leaf.dtype.itemsize for leaf in arrays)
    stats = jax.devices()[0].memory_stats() or {}
    limit, used = stats.get("bytes_limit"), stats.get("bytes_in_use") or 0
    if (limit and need * 3 > limit - used) or (not limit and need > 2e9):
        return {"timing_skipped": f"arguments of {need / 1e6:.1f} MB do not fit three times in free memory"}

    def concrete(tree):
        return jax.tree.map(lambda leaf: jnp.zeros(leaf.shape, leaf.dtype) if isinstance(leaf, jax.ShapeDtypeStruct)
                            else leaf, tree)

    states = {}
    for label, jitted in (("original", plain), ("donated", donating)):
        current = list(concrete(args))
        for _ in range(3):  # warm: compiled, buffers allocated, clocks up
            current = _steps(jitted, current, concrete(kwargs), reusable, tuple_output, 1)
        states[label] = (jitted, current, concrete(kwargs))
    # Rounds alternate between the versions, so a noisy neighbour or a clock change hits both.
    samples: dict[str, list[float]] = {"original": [], "donated": []}
    rounds = 5
    for _ in range(rounds):
        for label in ("original", "donated"):
            jitted, current, named = states[label]
            started = time.perf_counter()
            current = _steps(jitted, current, named, reusable, tuple_output, max(1, steps // rounds))
            samples[label].append((time.perf_counter() - started) / max(1, steps // rounds))
            states[label] = (jitted, current, named)
    timings = {f"time_per_step_{label}_s": sorted(values)[len(values) // 2] for label, values in samples.items()}
    timings["timed_steps"] = rounds * max(1, steps // rounds)
    return timings


def _steps(jitted, current: list, named: dict, reusable: dict, tuple_output: bool, count: int) -> list:
    """`count` steps of `state = f(state, ...)`, blocked at the end; returns the new arguments."""
    import jax

    out = None
    for _ in range(count):
        out = jitted(*current, **named)
        items = list(out) if tuple_output else [out]
        current = list(current)
        for position, index in reusable.items():
            current[position] = items[index]
    jax.block_until_ready(out)
    return current
