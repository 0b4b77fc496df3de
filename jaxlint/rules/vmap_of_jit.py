"""## What it does
Flags `jax.vmap(jax.jit(f), ...)`, and `jax.vmap(g)` where `g` is a jitted function, outside
traced code, where it is built or called repeatedly: in a loop, in a function called in a loop, or
bound to a name that is called in a loop. Built and called once (a test, a one-off evaluation), the
cost is paid once and nothing is flagged; nor is a batched function compiled right after
(`g = jax.vmap(f)` then `g = jax.jit(g)`, also under a branch).

## Why is this bad?
`vmap` of a jitted function is not itself compiled: every call re-runs the batching transform in
Python, dispatches the batched computation op by op, and goes through the inner `jit`'s cache
lookup. `jit(vmap(f))` traces and batches once, then runs one compiled, fused program per call.
Inside traced code the order does not matter (the inner `jit` is inlined), so that is not flagged.
See "JIT compiling" in https://docs.jax.dev/en/latest/jit-compilation.html and
https://docs.jax.dev/en/latest/automatic-vectorization.html.

## Example
```python
batched = jax.vmap(jax.jit(predict), in_axes=(None, 0))
```

## Use instead
```python
batched = jax.jit(jax.vmap(predict, in_axes=(None, 0)))
```

## Fix safety
Swapping the transforms is safe when the inner `jit` has no options and the expression is at
module or class level: the same function computes the same values, `vmap` arguments are kept.
Inside a function body `jax.jit(jax.vmap(f))` would be a new function on every call and recompile
every time, so the fix (unsafe there) defines it once at module level, before the function, and
uses that name; offered only when `f` and the `vmap` arguments are module-level names bound by then.
When the inner `jit` has options (`static_argnums`,
`donate_argnums`, ...) their positions may not carry over to the batched function, so no fix is
offered.

## How the runtime mode confirms it
It counts compilations (one for both) and times a call of each form on the example inputs
(H100: 3.5x for eager `vmap(jit(f))`, 1.3-1.6x typical).
"""

from __future__ import annotations

import ast

from jaxlint.fixes import vmap_swap
from jaxlint.rules.base import Rule
from jaxlint.semantic import jaxapi
from jaxlint.semantic.model import parent_of
from jaxlint.semantic.training_loops import bound_value_called_repeatedly, function_called_in_loop, in_loop, runs_training_loop


class VmapOfJit(Rule):
    code = "JAX402"
    name = "vmap-of-jit"
    summary = "`vmap` applied to a jitted function outside traced code"
    node_types = (ast.Call,)
    fix_availability = "sometimes"
    # `jax.vmap` is spelled `vmap` where it is imported or used, unless a project module re-exports it
    # under another name (`from utils import *`).
    required_text = ("vmap",)
    fires_through_project_imports = True

    def check(self, node: ast.Call, context) -> None:
        if context.qualified_name(node.func) != "jax.vmap" or not node.args:
            return
        if isinstance(node.args[0], ast.Starred) or context.scope(node).in_traced:
            return
        inner = node.args[0]
        model = context.model
        if not _built_or_called_repeatedly(node, model):
            return  # built and called once (a test, a one-off evaluation): the cost is paid once
        if _rewrapped_in_jit(node, model):
            return  # `g = jax.vmap(f)` then `g = jax.jit(g)`: the batched function is compiled as a whole
        parent = parent_of(node)
        if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node and model.transform_of(parent.func) in jaxapi.COMPILING:
            return  # `jax.jit(jax.vmap(f))`, also `jax.jit(jax.vmap(jax.jit(f)))`: the outer `jit` compiles it as a whole
        if isinstance(inner, ast.Call) and model.transform_of(inner.func) == "jax.jit" and inner.args:
            context.report(
                node,
                "`vmap` of `jit` is not compiled as a whole: every call batches in Python and dispatches op by op; "
                "use `jax.jit(jax.vmap(f, ...))`",
                fix=vmap_swap.swap_fix(node, inner, context),
            )
            return
        binding = model.jit_binding_for_name(inner) if isinstance(inner, ast.Name) else None
        if binding is not None and binding.transform == "jax.jit":
            context.report(
                node,
                f"`vmap` of jitted `{inner.id}` is not compiled as a whole: every call batches in Python; "
                f"wrap the batched function in `jax.jit` instead",
            )


def _rewrapped_in_jit(vmapped: ast.Call, model) -> bool:
    """The name the `vmap` is bound to is compiled next: `g = jax.jit(g)` later in the same scope (also
    under a branch, `if use_jit: g = jax.jit(g)`: the other path has no `jit` inside either)."""
    statement = parent_of(vmapped)
    if not (isinstance(statement, ast.Assign) and statement.value is vmapped and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name)):
        return False
    name = statement.targets[0].id
    scope = model.scope_for(vmapped)
    for target, value in scope.bindings:
        if (
            isinstance(target, ast.Name) and target.id == name and isinstance(value, ast.Call) and value.args
            and isinstance(value.args[0], ast.Name) and value.args[0].id == name
            and model.transform_of(value.func) in jaxapi.COMPILING
            and (value.lineno, value.col_offset) > (vmapped.lineno, vmapped.col_offset)
        ):
            return True
    return False


def _built_or_called_repeatedly(vmapped: ast.Call, model) -> bool:
    """The `vmap(jit(f))` is built in a loop or in a function called in one, or the callable it makes is
    called there (`batched = vmap(jit(f))` at module level, `batched(x)` in the training loop)."""
    if in_loop(vmapped):
        return True
    scope = model.scope_for(vmapped)
    if function_called_in_loop(scope, model) and not runs_training_loop(scope, model):
        # (A function that runs a whole training or benchmark run per call, called once per
        # configuration, builds its `vmap` once per run: nothing repeats that matters.)
        return True
    parent = parent_of(vmapped)
    if isinstance(parent, ast.Call) and parent.func is vmapped:
        return False  # built and called on the spot, once
    return bound_value_called_repeatedly(vmapped, model)


RULE = VmapOfJit()
