"""JAX401's fix: add `donate_argnums`/`donate_argnames` to the jit (decorator, call or partial form),
merging with existing options, only when every call site in the module rebinds the argument.

`fix_for` returns a Fix, or None when no fix is offered."""

from __future__ import annotations


def fix_for(call, binding, position, keyword, context):
    return None
