"""JAX402's fix: `jax.vmap(jax.jit(f), ...)` becomes `jax.jit(jax.vmap(f, ...))`.

At module or class level the expression is swapped where it stands. Inside a function body the
swapped expression would be a new function on every call and recompile each time, so it is defined
once at module level (`f_batched = jax.jit(jax.vmap(f, ...))`, before the top-level statement that
holds the function) and the expression becomes that name; offered only when `f` and the `vmap`
arguments are module-level names bound by then.
"""

from __future__ import annotations

import ast

from jaxlint import fixes
from jaxlint.fixes import hoist


def swap_fix(node: ast.Call, inner: ast.Call, context):
    if inner.keywords or len(inner.args) != 1 or isinstance(inner.args[0], ast.Starred):
        return None
    vmap_arguments = [context.text(argument) for argument in node.args[1:]]
    vmap_arguments += [context.text(keyword) for keyword in node.keywords]
    function = context.text(inner.args[0])
    inside = ", ".join([function, *vmap_arguments])
    replacement = f"{context.text(inner.func)}({context.text(node.func)}({inside}))"
    scope = context.scope(node)
    if not scope.is_function:
        return context.fix("Apply `jit` outside `vmap`", [context.replace(node, replacement)], safe=True)
    top = hoist.top_level_statement(node)
    if top is None:
        return None
    local = hoist.function_locals(scope)
    for name in hoist.loaded_names(node):
        if name in local or not hoist.module_binding_before(name, top, context):
            return None
    name = _batched_name(inner.args[0], top, context)
    edits = [hoist.insert_before(top, f"{name} = {replacement}", context), context.replace(node, name)]
    # Unsafe only in form: the value is the same function, now built once when the module loads.
    return context.fix(f"Apply `jit` outside `vmap`, once, at module level as `{name}`", edits, safe=False)


def _batched_name(function: ast.expr, top: ast.stmt, context) -> str:
    """`predict_batched` for `jit(vmap(predict))`: what the definition computes, not where it was."""
    base = hoist.describe(function) or "fn"
    return hoist.fresh_module_name(f"{base}_batched", context)
