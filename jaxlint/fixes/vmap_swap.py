"""JAX402's fix: `jax.vmap(jax.jit(f), ...)` becomes `jax.jit(jax.vmap(f, ...))`."""

from __future__ import annotations

import ast


def swap_fix(node: ast.Call, inner: ast.Call, context):
    if inner.keywords or len(inner.args) != 1 or isinstance(inner.args[0], ast.Starred):
        return None
    if context.scope(node).is_function:
        # Inside a function, `jax.jit(jax.vmap(f))` is a new function on every call, so it would
        # recompile each time; only a module-level (or class-level) definition is swapped.
        return None
    vmap_arguments = [context.text(argument) for argument in node.args[1:]]
    vmap_arguments += [context.text(keyword) for keyword in node.keywords]
    function = context.text(inner.args[0])
    inside = ", ".join([function, *vmap_arguments])
    replacement = f"{context.text(inner.func)}({context.text(node.func)}({inside}))"
    return context.fix("Apply `jit` outside `vmap`", [context.replace(node, replacement)], safe=True)
