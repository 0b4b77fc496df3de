"""The fix engine: every edit builder rules offer as a fix lives here, so a rule module is its
findings plus its documentation.

- `imports`: naming `jax.numpy.where` in the module's own aliases and adding missing imports;
- `control_flow`: `if`/ternary -> `jnp.where`/`lax.cond`, `while` -> `lax.while_loop` (JAX101);
- `host_sync`: device accumulation and break loops run on the device (JAX201);
- `donation`: `donate_argnums` only when the donated value is owned and dead after the call (JAX401);
- `jit_hoist`, `vmap_swap`, `fori_loop`, `inplace_update`: JAX302, JAX402, JAX304, JAX105.

Rules keep calling `fixes.reference(...)` and friends through this package.
"""

from jaxlint.fixes.imports import PREFERRED_ALIASES, asarray_fix, import_edit, names_in_use, needs_parentheses, reference, submodule_reference

__all__ = ["PREFERRED_ALIASES", "asarray_fix", "import_edit", "names_in_use", "needs_parentheses", "reference", "submodule_reference"]
