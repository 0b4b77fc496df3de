"""## What it does
Flags JAX APIs that still run but warn and are scheduled for removal:
`jax.experimental.shard_map.shard_map` (use `jax.shard_map`: `mesh`, `in_specs` and `out_specs` are
keyword-only there, and `check_rep` became `check_vma`), `jax.experimental.pjit.pjit` (use
`jax.jit`), `with mesh:` on a `Mesh` (use `with jax.set_mesh(mesh):`), `jax.host_id` /
`host_count` / `host_ids` (use `jax.process_index` / `process_count`), and
`jax.jit(..., device=...)` / `backend=...` (given as a value, or as a name every binding of which
is one: `backend = "gpu" if c else "cpu"`; a parameter that may be None, for which JAX does not
warn, is not flagged). The entries come from the same data table as JAX601
(`jaxlint/rules/api_table.py`), with the version that deprecated each one.

With `target-jax-version` set, an API is reported here only when that version already deprecates
it (and under JAX601 when that version has removed it); the fix uses only names that version has.

## Why is this bad?
Each call emits a `DeprecationWarning` today and will fail once JAX removes it. See
https://docs.jax.dev/en/latest/changelog.html: jax 0.8.0 ("`jax.experimental.shard_map.shard_map`
is deprecated; going forward use `jax.shard_map`", "`jax.experimental.pjit.pjit` is deprecated;
going forward use `jax.jit`") and jax 0.10.1 ("`with mesh:` context manager has been deprecated.
Please use `with jax.set_mesh(mesh):` instead").

## Example
```python
from jax.experimental.pjit import pjit
from jax.experimental.shard_map import shard_map as shmap
import jax.experimental.shard_map as esm

step = pjit(train_step)
index = jax.host_id()
g = esm.shard_map(f, mesh, P("x"), P("x"), check_rep=False)
```

## Use instead
```python
from jax import jit as pjit

step = pjit(train_step)
index = jax.process_index()
g = jax.shard_map(f, mesh=mesh, in_specs=P("x"), out_specs=P("x"), check_vma=False)
```

## Fix safety
Renames are safe: `pjit` -> `jax.jit` (imported under the old local name; not for a project that
supports a JAX older than 0.10.2 in a module using raw `PartitionSpec`s, whose mesh `jit` of the 0.4
series did not take from `with mesh:`), `jax.host_id` ->
`jax.process_index`, `jax.host_count` -> `jax.process_count`. Signature changes are unsafe:
`shard_map(f, mesh, in_specs, out_specs, check_rep=c)` becomes the keyword form of
`jax.shard_map` (refused for `auto=` and other options the new API lacks), and `with mesh:`
becomes `with jax.set_mesh(mesh):`, which also sets the mesh for sharding-in-types, not only the
legacy resource environment. `jit(device=...)` has no fix: the inputs must be placed instead.

## How the runtime mode confirms it
It runs the original under `warnings.catch_warnings(record=True)`: a `DeprecationWarning` is
recorded; the fixed code records none and computes the same values.
"""

from __future__ import annotations

from jaxlint.rules.api_currency import ApiCurrencyRule


class DeprecatedApi(ApiCurrencyRule):
    code = "JAX602"
    name = "deprecated-api"
    summary = "A JAX API that still runs but is deprecated (at the target JAX version)"
    status = "deprecated"


RULE = DeprecatedApi()
