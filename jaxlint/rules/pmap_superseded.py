"""## What it does
Flags each place `jax.pmap` is applied to a function (`jax.pmap(f)`, `@jax.pmap`,
`@partial(jax.pmap, axis_name=...)`) in code that targets JAX 0.8 or newer (or sets no target), where
the JAX reference documents `jax.shard_map`, or `jax.jit` with shardings, as the way to write it.
A preview rule: select it (`--select JAX603`) when planning a migration.

## Why is this bad?
It is not deprecated: `jax.pmap` runs, warns nothing, and JAX has announced no removal. But its own
reference page opens with "Old way of doing parallel map. Use `jax.shard_map` instead", and notes
that `jax.pmap` works but `jax.shard_map` (or `jax.smap`) is probably what to use: it supports more
efficient autodiff and composes in the multi-controller setting
(https://docs.jax.dev/en/latest/_autosummary/jax.pmap.html). Since JAX 0.8.0, `jax.pmap` is itself
implemented with `jax.jit` and `jax.shard_map`, and the migration guide
(https://docs.jax.dev/en/latest/migrate_pmap.html) recommends that new or important code be migrated
to `jax.shard_map`. `pmap`-era code also carries its habits: a leading device axis on every input,
`jax.device_put_replicated` / `device_put_sharded` (deprecated in 0.8.1, removed in 0.10.0:
JAX602/JAX601) and `[0]` to read one
replica's copy, which `jit` with shardings does not need.

## Example
```python
@partial(jax.pmap, axis_name="batch")
def train_step(state, batch):
    grads = jax.lax.pmean(compute_grads(state, batch), "batch")
    return apply(state, grads)
```

## Use instead
```python
mesh = jax.make_mesh((jax.device_count(),), ("batch",))

@jax.jit
@partial(jax.shard_map, mesh=mesh, in_specs=(P(), P("batch")), out_specs=P())
def train_step(state, batch):
    grads = jax.lax.pmean(compute_grads(state, batch), "batch")
    return apply(state, grads)

batch = jax.device_put(host_batch, NamedSharding(mesh, P("batch")))  # split over the devices
```
Or drop the per-device code: `jax.jit(train_step)` on inputs placed with
`jax.device_put(batch, NamedSharding(mesh, P("batch")))`, and the compiler inserts the collectives.

## Fix safety
No fix: a migration changes the shapes the function sees (no leading device axis), how inputs are
placed, and how results are read back, across the function and every call site.

## How the runtime mode confirms it
It does not: nothing goes wrong at run time. It reports a pmapped step's calls, compiles, donation,
transfers and collectives per device like any other compiled entry point, which is what to compare
before and after a migration.

## Not flagged
Code whose `target-jax-version` is older than 0.8.0 (before `pmap` was rebuilt on `shard_map` and
the migration guide's recommendation); `jax.pmap` named without being applied (`isinstance` checks,
a table of transforms); `flax.nnx.pmap` and `equinox.filter_pmap`, whose documentation makes no
such recommendation.
"""

from __future__ import annotations

import ast

from jaxlint.rules.api_table import parse_version
from jaxlint.rules.base import Rule

_PMAP = "jax.pmap"
# jax 0.8.0 made `jax.pmap` an implementation over `jit` and `shard_map` and published the guide
# recommending `jax.shard_map`; older targets get no finding.
_SUPERSEDED_IN = (0, 8, 0)


class PmapSuperseded(Rule):
    code = "JAX603"
    name = "pmap-superseded"
    summary = "`jax.pmap`, where current JAX documents `jax.shard_map` or `jit` with shardings (not deprecated)"
    node_types = (ast.Call, ast.FunctionDef, ast.AsyncFunctionDef)
    preview = True
    required_text = ("pmap",)

    def check(self, node: ast.AST, context) -> None:
        target = parse_version(getattr(context.settings, "target_jax_version", None))
        if target is not None and target < _SUPERSEDED_IN:
            return
        if isinstance(node, ast.Call):
            applied = _applied_pmap(node, context)
            if applied is not None:
                self._report(applied, context)
            return
        for decorator in node.decorator_list:
            if not isinstance(decorator, ast.Call) and context.qualified_name(decorator) == _PMAP:
                self._report(decorator, context)

    def _report(self, node: ast.expr, context) -> None:
        context.report(
            node,
            "`jax.pmap` is the old way of parallel map: its reference says to use `jax.shard_map` (or `jax.jit` "
            "with shardings) instead; it is not deprecated, so migrate when convenient",
        )


def _applied_pmap(call: ast.Call, context) -> ast.expr | None:
    """The `jax.pmap` reference of `jax.pmap(f, ...)`, `jax.pmap(axis_name=...)` used as a
    decorator factory, or `partial(jax.pmap, ...)`; None for any other call."""
    if context.qualified_name(call.func) == _PMAP:
        return call.func
    if context.qualified_name(call.func) == "functools.partial" and call.args and context.qualified_name(call.args[0]) == _PMAP:
        return call.args[0]
    return None


RULE = PmapSuperseded()
