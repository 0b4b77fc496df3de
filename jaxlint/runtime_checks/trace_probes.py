"""Probes at the exit of a traced program (`trace_hook` calls them; they import jax lazily).

For each entry point (`jit`, `pmap`, `shard_map`) in the user's files that ran at least twice:
its compiled program at its steady-state arguments, with the collectives of its HLO, its
arguments' shardings and one device's memory (`compiled_steps`). For each of them (`jit`,
`pmap`) that ran without donating: which
arguments an output could replace (same tree, shapes and dtypes; scalars noted, not donated),
`memory_analysis()` of the step as written and with those arguments donated, at the shapes of its
first call (no allocation), and a fair timing of both versions on same-sized buffers.
"""

from __future__ import annotations

import time

PROBE_LIMIT = 6  # jitted functions probed, most-called first: each costs two compilations


DONATING_TRANSFORMS = ("jit", "pmap")  # take `donate_argnums`, so the probe can compile a donating twin
COMPILED_TRANSFORMS = ("jit", "pmap", "shard_map")  # whose compiled program (HLO, memory) the probes can read


def donation_probes(recorder, jax, probes: dict, jit, transforms: dict | None = None) -> None:
    """For each entry point called twice or more: its compiled program's collectives, arguments
    and memory (`compiled_steps`); and where it does not donate: memory and time with and without
    donation (`donation_probes`).

    `probes` holds, per function, what its first call saw (the function, its transform's options,
    the arguments as shapes); `jit` and `transforms` are jax's own, unwrapped, so the probes'
    calls are not recorded.
    """
    transforms = {"jit": jit, **(transforms or {})}
    probed, steps = [], []
    candidates = sorted((info for info in recorder.functions.values() if info["calls"] >= 2),
                        key=lambda info: -info["calls"])
    for info in candidates[:PROBE_LIMIT]:
        probe = probes.get(info["key"])
        transform = info.get("transform", "jit")
        if probe is None:
            continue
        if transform not in COMPILED_TRANSFORMS:
            if not info["donates"]:
                probed.append({"key": info["key"], "name": info["name"], "transform": transform,
                               "error": f"functions transformed by {transform} are not probed"})
            continue
        try:
            build = _builder(jax, transforms, transform)
            step, plain_compiled, reusable, scalars_only, out = _compiled_step(jax, build, info, *probe)
            steps.append(step)
        except Exception as error:
            steps.append({"key": info["key"], "name": info["name"], "transform": transform,
                          "error": f"{type(error).__name__}: {error}"[:300]})
            if not info["donates"]:
                probed.append({"key": info["key"], "error": f"{type(error).__name__}: {error}"[:300]})
            continue
        if info["donates"] or transform not in DONATING_TRANSFORMS:
            continue
        try:
            probed.append(probe_donation(jax, build, info, *probe, plain_compiled=plain_compiled,
                                         reusable=reusable, scalars_only=scalars_only, out=out))
        except Exception as error:
            probed.append({"key": info["key"], "error": f"{type(error).__name__}: {error}"[:300]})
    recorder.at_exit["donation_probes"] = probed
    recorder.at_exit["compiled_steps"] = steps


def _builder(jax, transforms: dict, transform: str):
    """`build(fun, args, kwargs)`: the entry point as the program built it, from jax's own transforms."""
    if transform == "shard_map":
        def build(fun, args, kwargs):
            return transforms["jit"](transforms["shard_map"](fun, *args, **kwargs))
        return build
    original = transforms[transform]
    return lambda fun, args, kwargs: original(fun, *args, **kwargs)


def _static_positions(jit_kwargs: dict) -> set[int]:
    static = jit_kwargs.get("static_argnums", jit_kwargs.get("static_broadcasted_argnums")) or ()
    return {static} if isinstance(static, int) else set(static)


def _reusable(jax, args, out, static: set[int]) -> tuple[dict[int, int], list[int]]:
    """Argument positions an output could replace (same tree, shapes, dtypes) -> that output's index;
    and the positions that match an output but hold only scalars."""
    out_items = list(out) if isinstance(out, tuple) else [out]
    reusable: dict[int, int] = {}
    scalars_only: list[int] = []
    for position, arg in enumerate(args):
        if position in static:
            continue
        leaves = [leaf for leaf in jax.tree.leaves(arg) if hasattr(leaf, "shape") and hasattr(leaf, "dtype")]
        if not leaves:
            continue
        for index, item in enumerate(out_items):
            if index not in reusable.values() and _same_structure(jax, arg, item):
                if all(len(leaf.shape) == 0 for leaf in leaves):
                    scalars_only.append(position)  # a learning rate matching a scalar loss: nothing to save
                else:
                    reusable[position] = index
                break
    return reusable, scalars_only


def _compiled_step(jax, build, info, fun, jit_args, jit_kwargs, args, kwargs):
    """Compile the entry point as written at its first call's shapes: its collectives (per device
    program), its arguments' shardings and which of them it returns updated, its memory."""
    from jaxlint.runtime_checks.hlo import collective_summary, collectives

    plain = build(fun, jit_args, jit_kwargs)
    compiled = plain.lower(*args, **kwargs).compile()
    out = jax.eval_shape(plain, *args, **kwargs)
    reusable, scalars_only = _reusable(jax, args, out, _static_positions(jit_kwargs))
    found = collectives(compiled.as_text() or "")
    out_items = list(out) if isinstance(out, tuple) else [out]
    output_shardings = None
    if info.get("transform") == "jit":
        try:
            output_shardings = compiled.output_shardings
        except Exception:
            output_shardings = None
    arguments = []
    for position, arg in enumerate(args):
        state_of = reusable.get(position)
        out_leaves = jax.tree.leaves(output_shardings[state_of]) \
            if output_shardings is not None and state_of is not None and isinstance(output_shardings, (tuple, list)) \
            and len(output_shardings) == len(out_items) else []
        for index, leaf in enumerate(jax.tree.leaves(arg)):
            if not (hasattr(leaf, "shape") and hasattr(leaf, "dtype")):
                continue
            sharding = getattr(leaf, "sharding", None)
            sharded = sharding is not None and len(getattr(sharding, "device_set", ())) > 1 \
                and not getattr(sharding, "is_fully_replicated", True)
            entry = {"position": position, "leaf": index, "shape": list(leaf.shape), "dtype": str(leaf.dtype),
                     "bytes": int(_size(leaf.shape) * jax.numpy.dtype(leaf.dtype).itemsize), "sharded": sharded,
                     "spec": str(getattr(sharding, "spec", "")) if sharding is not None else None,
                     "state": state_of is not None, "host": not isinstance(leaf, jax.ShapeDtypeStruct)}
            if index < len(out_leaves):
                entry["output_replicated"] = bool(getattr(out_leaves[index], "is_fully_replicated", False))
            arguments.append(entry)
    step = {"key": info["key"], "name": info["name"], "transform": info.get("transform", "jit"),
            "calls": info["calls"], "devices": info.get("devices") or None, "collectives": found,
            "collective_summary": collective_summary(found), "arguments": arguments[:64],
            "memory": _memory(compiled)}
    return step, compiled, reusable, scalars_only, out


def _size(shape) -> int:
    size = 1
    for dim in shape:
        size *= int(dim)
    return size


def _memory(compiled) -> dict | None:
    """`memory_analysis()` of one device's program: what each device holds for one step."""
    stats = compiled.memory_analysis()
    if isinstance(stats, (list, tuple)):
        stats = stats[0] if stats else None
    if stats is None:
        return None
    alias = getattr(stats, "alias_size_in_bytes", 0) or 0
    peak = getattr(stats, "peak_memory_in_bytes", 0) or (
        stats.argument_size_in_bytes + stats.output_size_in_bytes + stats.temp_size_in_bytes - alias)
    return {"peak_bytes": peak, "alias_bytes": alias, "argument_bytes": stats.argument_size_in_bytes,
            "output_bytes": stats.output_size_in_bytes, "temp_bytes": stats.temp_size_in_bytes}


def probe_donation(jax, build, info, fun, jit_args, jit_kwargs, args, kwargs, plain_compiled=None,
                   reusable=None, scalars_only=None, out=None) -> dict:
    """`memory_analysis()` of the function as written and with the reusable arguments donated.

    For `pmap` and a sharded `jit` the analysis is of one device's program: the bytes per device.
    """
    plain = build(fun, jit_args, jit_kwargs)
    if reusable is None:
        out = jax.eval_shape(plain, *args, **kwargs)
        reusable, scalars_only = _reusable(jax, args, out, _static_positions(jit_kwargs))
    result = {"key": info["key"], "name": info["name"], "donatable_argnums": sorted(reusable),
              "scalar_argnums": scalars_only or [], "transform": info.get("transform", "jit"),
              "devices": info.get("devices") or None}
    if not reusable:
        return result
    donating = build(fun, jit_args, {**jit_kwargs, "donate_argnums": tuple(sorted(reusable))})
    for label, jitted in (("original", plain), ("donated", donating)):
        compiled = plain_compiled if label == "original" and plain_compiled is not None \
            else jitted.lower(*args, **kwargs).compile()
        memory = _memory(compiled)
        if memory is None:
            result[f"peak_bytes_{label}"] = None
            continue
        result[f"peak_bytes_{label}"] = memory["peak_bytes"]
        result[f"alias_bytes_{label}"] = memory["alias_bytes"]
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
        def zeros(leaf):
            array = jnp.zeros(leaf.shape, leaf.dtype)
            sharding = getattr(leaf, "sharding", None)
            return jax.device_put(array, sharding) if sharding is not None else array  # as the program placed it

        return jax.tree.map(lambda leaf: zeros(leaf) if isinstance(leaf, jax.ShapeDtypeStruct) else leaf, tree)

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
