"""## What it does
Flags operations whose result shape depends on traced values, inside a traced function:
boolean-mask indexing `x[mask]` and `x.at[mask]` with a traced mask, and `jnp.nonzero`,
`jnp.argwhere`, `jnp.flatnonzero`, `jnp.unique` (and `unique_values`/`_counts`/`_inverse`/`_all`),
`jnp.extract`, `jnp.compress`, `x.nonzero()` and one-argument `jnp.where` called without `size=`.

Code inside a `try` that catches the error JAX raises here (`TypeError`, `Exception` or an error class
of `jax.errors`) probes on purpose and has a fallback: it is not flagged. Nor is a function whose every
compiled call sits in such a `try` (`@jax.jit def f` then `try: f(2) except
jax.errors.TracerBoolConversionError: ...`): a lesson that shows the error on purpose.

## Why is this bad?
XLA compiles programs with static shapes. The number of `True` entries of a traced mask is unknown
at trace time, so these raise `NonConcreteBooleanIndexError` or `ConcretizationTypeError` under
`jit`, `vmap` and `lax` bodies. See
https://docs.jax.dev/en/latest/errors.html#jax.errors.NonConcreteBooleanIndexError and "Dynamic
shapes" in https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html.

A mask that is a static NumPy array, integer-array indexing, three-argument `jnp.where`, and calls
with `size=` are fine and are not flagged.

## Example
```python
@jax.jit
def positive_sum(x):
    return x[x > 0].sum()
```

## Use instead
```python
@jax.jit
def positive_sum(x):
    return jnp.where(x > 0, x, 0).sum()
```
or pass `size=` (and `fill_value=`) to `jnp.nonzero`/`jnp.unique`/one-argument `jnp.where` when an
upper bound on the count is known.

## Fix safety
`x[mask].sum()` and `jnp.sum(x[mask])` become `jnp.where(mask, x, 0).sum()` (likewise `.prod()`
with 1); `x[mask] = v` becomes `x = jnp.where(mask, v, x)` and `x.at[mask].set(v)` becomes
`jnp.where(mask, v, x)`. Unsafe: it equals the original only when `mask` has the shape of `x`; a mask over leading
axes broadcasts differently, and the reduction order (so float rounding) may differ. No fix is offered
for other uses, whose result shape really is data-dependent.

## How the runtime mode confirms it
It runs the function under `jax.jit` with the example inputs: the original raises
`NonConcreteBooleanIndexError`; the fixed version compiles and agrees with the original run without
`jit`.
"""

from __future__ import annotations

import ast

from jaxlint import fixes
from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic.arrays import is_traced_boolean
from jaxlint.semantic.model import TRACED, parent_of

_SIZED = frozenset({
    "jax.numpy.nonzero", "jax.numpy.argwhere", "jax.numpy.flatnonzero", "jax.numpy.unique",
    "jax.numpy.unique_values", "jax.numpy.unique_counts", "jax.numpy.unique_inverse", "jax.numpy.unique_all",
    "jax.numpy.extract", "jax.numpy.compress",
})
_REDUCTION_IDENTITY = {"sum": "0", "prod": "1"}


class DynamicShapeInTraced(Rule):
    code = "JAX106"
    name = "dynamic-shape-in-traced"
    summary = "Operation whose result shape depends on traced values"
    raised_when_traced = ("TypeError", "IndexError")
    node_types = (ast.Subscript, ast.Call)
    traced_code_only = True
    fix_availability = "sometimes"

    def check(self, node: ast.AST, context) -> None:
        if not context.is_traced_code(node) or context.model.runs_concretely(context.scope(node)):
            return  # autodiff alone (no jit) sees concrete values
        scope = context.scope(node)
        if isinstance(node, ast.Subscript):
            self._check_mask(node, scope, context)
        else:
            self._check_call(node, scope, context)

    def _check_mask(self, node: ast.Subscript, scope, context) -> None:
        if isinstance(node.ctx, ast.Del):
            return
        indices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        mask = next((index for index in indices if is_traced_boolean(context.model, index, scope)), None)
        if mask is None:
            return
        array = node.value
        at = isinstance(array, ast.Attribute) and array.attr == "at"
        if not at and context.level(array, scope) < TRACED:
            return
        context.report(
            node,
            f"boolean mask `{snippet(context.text(mask))}` in traced function `{scope.name}` gives a result whose shape "
            "depends on the data (NonConcreteBooleanIndexError); use `jnp.where(mask, x, 0)`",
            fix=_mask_fix(node, mask, scope, context) if len(indices) == 1 else None,
        )

    def _check_call(self, node: ast.Call, scope, context) -> None:
        if any(keyword.arg == "size" or keyword.arg is None for keyword in node.keywords):
            return
        qualified = context.qualified_name(node.func)
        if qualified in _SIZED:
            # The condition (extract, compress) or the array (the others) comes first.
            traced = bool(node.args) and context.level(node.args[0], scope) >= TRACED
            function = qualified.rsplit(".", 1)[1]
        elif qualified == "jax.numpy.where" and len(node.args) == 1 and not node.keywords:
            traced = context.level(node.args[0], scope) >= TRACED
            function = "where"
        elif qualified is None and isinstance(node.func, ast.Attribute) and node.func.attr == "nonzero" and not node.args:
            traced = context.level(node.func.value, scope) >= TRACED
            function = "nonzero"
        else:
            return
        if not traced:
            return
        context.report(
            node,
            f"`{function}` of a traced value without `size=` in traced function `{scope.name}` has a data-dependent "
            "shape (ConcretizationTypeError under jit); pass `size=` and `fill_value=`",
        )


def _mask_fix(node: ast.Subscript, mask: ast.AST, scope, context):
    """`x[m].sum()` / `jnp.sum(x[m])` -> `jnp.where(m, x, 0).sum()`; `x[m] = v` -> `x = jnp.where(m, v, x)`;
    `x.at[m].set(v)` -> `jnp.where(m, v, x)`."""
    parent = parent_of(node)
    where, import_edits = fixes.reference(context, "jax.numpy.where")
    if not where:
        return None
    replacement = None
    mask_text = context.text(mask)
    if isinstance(node.ctx, ast.Store):
        if isinstance(parent, ast.Assign) and parent.targets == [node] and isinstance(node.value, ast.Name):
            name = node.value.id
            replacement = (parent, f"{name} = {where}({mask_text}, {context.text(parent.value)}, {name})")
    elif isinstance(node.value, ast.Attribute) and node.value.attr == "at":
        call = parent_of(parent)
        if isinstance(parent, ast.Attribute) and parent.attr == "set" and isinstance(call, ast.Call) and call.func is parent and len(call.args) == 1 and not call.keywords:
            replacement = (call, f"{where}({mask_text}, {context.text(call.args[0])}, {context.text(node.value.value)})")
    elif isinstance(parent, ast.Attribute) and parent.attr in _REDUCTION_IDENTITY:
        call = parent_of(parent)
        if isinstance(call, ast.Call) and call.func is parent and not call.args and not call.keywords:
            identity = _REDUCTION_IDENTITY[parent.attr]
            replacement = (node, f"{where}({context.text(mask)}, {context.text(node.value)}, {identity})")
    elif isinstance(parent, ast.Call) and parent.args and parent.args[0] is node and len(parent.args) == 1 and not parent.keywords:
        function = (context.qualified_name(parent.func) or "").rsplit(".", 1)
        if function[0] == "jax.numpy" and function[1] in _REDUCTION_IDENTITY:
            identity = _REDUCTION_IDENTITY[function[1]]
            replacement = (node, f"{where}({context.text(mask)}, {context.text(node.value)}, {identity})")
    if replacement is None:
        return None
    target, text = replacement
    return context.fix(f"Use `{where}(mask, x, identity)`", [context.replace(target, text), *import_edits], safe=False)


RULE = DynamicShapeInTraced()
