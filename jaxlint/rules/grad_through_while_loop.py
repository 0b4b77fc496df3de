"""## What it does
Flags `lax.while_loop`, and `lax.fori_loop` with a traced (non-literal, non-static) bound, in a
function that `jax.grad`, `value_and_grad`, `jacrev`, `hessian` or `vjp` differentiates (directly, or
through helpers of the same module it calls), when the loop carries a value computed from the
differentiated arguments.

Not flagged: `fori_loop` with literal or static bounds (`x.shape[0]`, a static argument), which JAX
lowers to a `scan`; loops whose carry does not depend on the differentiated arguments or goes through
`lax.stop_gradient`; forward-mode only (`jvp`, `jacfwd`); loops in a function with a custom
derivative (`@jax.custom_jvp`, `@jax.custom_vjp`), whose rule reverse mode uses instead.

## Why is this bad?
`while_loop` has no transpose rule: its trip count is only known at run time, so reverse-mode
autodiff cannot store the residuals. Tracing the gradient raises `ValueError: Reverse-mode
differentiation does not work for lax.while_loop or lax.fori_loop with dynamic start/stop values`.
See the differentiation table in https://docs.jax.dev/en/latest/control-flow.html#summary and
https://docs.jax.dev/en/latest/_autosummary/jax.lax.fori_loop.html.

## Example
```python
def loss(x, n):
    return lax.fori_loop(0, n, lambda i, y: jnp.sin(y), x).sum()

jax.jit(jax.grad(loss))(x, 10)  # n is traced
```

## Use instead
```python
def loss(x, n):
    y, _ = lax.scan(lambda y, _: (jnp.sin(y), None), x, length=n)
    return y.sum()

jax.jit(jax.grad(loss), static_argnums=1)(x, 10)
```
or give `fori_loop` static bounds; for a true `while` with a known maximum trip count, a masked
`scan` over that maximum.

## Fix safety
No fix: which bound is meant to be static, and what maximum trip count a `scan` should use, are the
user's choice.

## How the runtime mode confirms it
It traces the gradient with the example inputs and reports the `ValueError` above.
"""

from __future__ import annotations

import ast

from jaxlint.rules.base import Rule
from jaxlint.semantic.model import NONE, argument
from jaxlint.semantic.reachability import reverse_mode_scopes


class GradThroughWhileLoop(Rule):
    code = "JAX306"
    name = "grad-through-while-loop"
    summary = "Reverse-mode differentiation through `while_loop` or a dynamic `fori_loop`"
    node_types = (ast.Call,)
    traced_code_only = True
    fix_availability = "none"

    def check(self, node: ast.Call, context) -> None:
        qualified = context.qualified_name(node.func)
        if qualified not in ("jax.lax.while_loop", "jax.lax.fori_loop") or not context.is_traced_code(node):
            return
        scope = context.scope(node)
        if not scope.differentiated or id(scope) not in reverse_mode_scopes(context.model):
            return
        if _under_custom_derivative(scope):
            return  # differentiation uses the custom rule, not the loop
        if qualified == "jax.lax.while_loop":
            carry = argument(node, 2, "init_val")
            what = "`lax.while_loop`"
        else:
            lower, upper = argument(node, 0, "lower"), argument(node, 1, "upper")
            if lower is None or upper is None:
                return
            if not (context.level(lower, scope) > NONE or context.level(upper, scope) > NONE):
                return
            carry = argument(node, 3, "init_val")
            what = "`lax.fori_loop` with traced bounds"
        if carry is None or context.level(carry, scope) == NONE or _stopped(carry, context):
            return
        context.report(
            node,
            f"{what} in `{scope.name}`, which is reverse-differentiated, raises `ValueError: Reverse-mode "
            f"differentiation does not work for lax.while_loop`; use static bounds or `lax.scan(..., length=N)`",
            end_node=node.func,
        )


_CUSTOM_DERIVATIVES = frozenset({"jax.custom_jvp", "jax.custom_vjp"})


def _under_custom_derivative(scope) -> bool:
    """The loop runs in a function with a custom derivative (`@jax.custom_jvp`), or nested in one."""
    current = scope
    while current is not None:
        if current.transforms & _CUSTOM_DERIVATIVES:
            return True
        current = current.parent
    return False


def _stopped(carry: ast.expr, context) -> bool:
    return isinstance(carry, ast.Call) and context.qualified_name(carry.func) == "jax.lax.stop_gradient"


RULE = GradThroughWhileLoop()
