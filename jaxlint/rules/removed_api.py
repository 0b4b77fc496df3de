"""## What it does
Flags JAX APIs that current JAX no longer has: the top-level `jax.tree_*` aliases
(`jax.tree_map`, `tree_leaves`, `tree_flatten`, `tree_unflatten`, `tree_structure`,
`tree_transpose`, `tree_multimap`), `jax.xla_computation`, `jax.partial`, `jax.ops.index_update`
and friends, `jax.numpy.DeviceArray`, `jax.experimental.host_callback`,
`jax.experimental.maps.xmap`, `jax.experimental.optimizers`, `jax.device_put_replicated` /
`device_put_sharded`, `jax.experimental.enable_x64`, `jax.clear_backends`, `jnp.fix`,
`pjit(in_axis_resources=...)`, `jax.random.shuffle`, `jax.xla`/`jax.pxla`, `jaxlib.xla_extension`,
`jax.lib.xla_bridge`, `jax.util`, `jax.linear_util`, `jax.experimental.optix`/`loops`/`PartitionSpec`,
`compilation_cache.initialize_cache`, `optax.additive_weight_decay`, and more. The list, with the version that deprecated and removed
each API and its replacement, is one data table (`jaxlint/rules/api_table.py`) shared with JAX602.
Imports are flagged where they are written (`from jax import tree_map`), uses where they are spelled
out (`jax.tree_map(f, t)`). An API is the same whatever the spelling that reaches it:
- a call through a name an import binds (`index_update(x, i, y)` after `from jax.ops import
  index_update`, `hcb.id_tap(...)` after `from jax.experimental import host_callback as hcb`) is
  flagged as well as the import where no other name replaces the API: each call must be rewritten.
  Where one does (`from jax import tree_map`, `from jax.api import vmap`) only the import is;
- the import of a module path that is gone though the attribute lives (`import jax.config as
  config`; `from jax import config` is current), and removed attributes of the config object however
  it was imported (`config.enable_omnistaging()`, `config.FLAGS`);
- attributes JAX arrays no longer have (`x.device_buffer`, `x.device_buffers`, `x.to_py()`): on a
  value the model knows is a JAX array (`x = jnp.argsort(v)`, or narrowed by `isinstance(x,
  jax.Array)`); `device_buffer(s)`, which only JAX arrays ever had, also on a receiver of unknown kind
  unless the module gives some object an attribute of that name;
- config options `jax.config.update` no longer knows (`"jax_array"`: it raises `Unrecognized config
  option`), and the five-argument `lax.cond(pred, x, true_fun, y, false_fun)` (a function in the last
  place: an operand is never one).
Code inside a compatibility shim (`try: ... except ImportError:`, `if hasattr(jax, ...)`, a branch on
the JAX version) is left alone, and so are calls through a name whose import is in one.

Not flagged: a current API (`jax.tree_util.tree_map`, `jax.config.update("jax_enable_x64", ...)`);
a function of the program's own that shares a removed name (`def shuffle(...)`, Python's
`random.shuffle`); `to_py()` on a receiver the model cannot type; `self.device_buffer`.

With `target-jax-version = "0.4.20"` in `[tool.jaxlint]`, an API counts as removed only when it is
gone in that version, and the fix uses only what that version has (`jax.tree_util.tree_map`
instead of `jax.tree.map`, which arrived in 0.4.25).

## Why is this bad?
The code fails on current JAX with `AttributeError` or `ImportError`. See the JAX changelog,
https://docs.jax.dev/en/latest/changelog.html, for example jax 0.6.0 ("From `jax`:
`jax.tree_flatten`, `jax.tree_map`, ... Replacements can be found in `jax.tree` or
`jax.tree_util`") and jax 0.4.34 ("`jax.xla_computation` is deleted").

## Example
```python
import jax
import jax.numpy as jnp

params = jax.tree_map(lambda p: p * 0.9, params)
y = jnp.fix(x)
```

## Use instead
```python
params = jax.tree.map(lambda p: p * 0.9, params)
y = jnp.trunc(x)
```

## Fix safety
Exact renames are safe: `jax.tree_map` -> `jax.tree.map`, `jax.partial` -> `functools.partial`,
`jnp.fix` -> `jnp.trunc`, `jax.clear_backends` -> `jax.extend.backend.clear_backends`,
`jax.numpy.DeviceArray` -> `jax.Array`, `jax.experimental.optimizers` ->
`jax.example_libraries.optimizers`, `in_axis_resources=` -> `in_shardings=`. The fix keeps the
module's aliases (`jnp.fix` becomes `jnp.trunc`), and rewrites `from jax import tree_map` into
`from jax.tree import map as tree_map`, so the uses stay as they are. `jax.clear_backends` is not
replaced by `jax.clear_caches`: that only clears compilation caches. Structural replacements
(`jax.ops.index_update(x, i, y)` -> `x.at[i].set(y)`, `xla_computation` -> the AOT API,
`device_put_replicated` -> `device_put` with a sharding) are described in the message, not fixed.

## How the runtime mode confirms it
Importing or calling the original on jax 0.10.2 raises `AttributeError`/`ImportError`; the fixed
module imports and computes the values of a reference written with the new API.
"""

from __future__ import annotations

from jaxlint.rules.api_currency import ApiCurrencyRule


class RemovedApi(ApiCurrencyRule):
    code = "JAX601"
    name = "removed-api"
    summary = "An API that current JAX (or the target JAX version) no longer has"
    status = "removed"


RULE = RemovedApi()
