"""## What it does
Flags, in a traced function, a Python `for` loop that JAX unrolls into a long program:
`for i in range(N)` with a literal `N` at or above `python-loop-threshold` (default 100, set in
`[tool.jaxlint]`), and `for row in x` over a traced array.

Not flagged: ranges of a non-literal length (often a small static hyperparameter such as the number
of layers), loops over Python lists or pytrees, and loops outside traced code.

## Why is this bad?
Tracing runs the Python loop, so every iteration becomes a copy of the body in the jaxpr: the
program grows with the trip count and XLA's compile time grows faster than linearly (H100: 1000
steps of a small body take about 40 s to compile). `lax.fori_loop` and `lax.scan` trace the body
once. See "Python control flow + JIT" and "Structured control flow primitives" in
https://docs.jax.dev/en/latest/control-flow.html.

## Example
```python
@jax.jit
def integrate(x, dt):
    for i in range(1000):
        x = x + dt * jnp.sin(x)
    return x
```

## Use instead
```python
@jax.jit
def integrate(x, dt):
    def _loop_body(i, x):
        x = x + dt * jnp.sin(x)
        return x
    x = lax.fori_loop(0, 1000, _loop_body, x, unroll=8)
    return x
```

## Fix safety
The `lax.fori_loop` rewrite is offered for `range` loops whose body only assigns names, whose loop
variable only indexes arrays or feeds `jnp`/`lax` calls, and whose carried names hold arrays before
the loop. It is unsafe: the body must keep each carried value's shape and dtype (a Python float
accumulator or a growing array fails to trace), the loop index becomes a tracer, and a rolled loop
of a tiny body can run slower than the unrolled one (H100: 7-9 ms rolled against 0.19 ms unrolled
for 1000 steps); `unroll=8` recovers most of that. The runtime mode times both.

## How the runtime mode confirms it
It measures compile time and run time of the original and of the `fori_loop` version with the
example inputs and reports both, so the user can pick `unroll`.
"""

from __future__ import annotations

import ast

from jaxlint.fixes import fori_loop
from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic.model import ARRAY


class PythonLoopInTraced(Rule):
    code = "JAX304"
    name = "python-loop-in-traced"
    summary = "Long Python loop unrolled into a traced function"
    node_types = (ast.For,)
    fix_availability = "sometimes"

    def check(self, node: ast.For, context) -> None:
        if not context.is_traced_code(node):
            return
        scope = context.scope(node)
        bounds = _literal_range(node.iter, context)
        threshold = getattr(context.settings, "python_loop_threshold", 100) or 100
        if bounds is not None:
            start, stop, step = bounds
            count = len(range(start, stop, step))
            if count < threshold:
                return
            fix = fori_loop.fori_fix(node, start, stop, step, scope, context)
            context.report(
                node,
                f"this `for` loop unrolls {count} copies of its body into traced function `{scope.name}`: compile "
                f"time grows super-linearly; use `lax.fori_loop` (or `lax.scan`)",
                fix=fix,
                end_node=node.iter,
            )
            return
        if context.level(node.iter, scope) == ARRAY:
            context.report(
                node,
                f"iterating over traced array `{snippet(context.text(node.iter))}` unrolls one copy of the body per row "
                f"into `{scope.name}`; use `lax.scan` or `lax.fori_loop` over the rows",
                end_node=node.iter,
            )


def _literal_range(iterable: ast.expr, context) -> tuple[int, int, int] | None:
    if not isinstance(iterable, ast.Call) or context.qualified_name(iterable.func) != "builtins.range" or iterable.keywords:
        return None
    values = []
    for argument in iterable.args:
        if isinstance(argument, ast.Constant) and isinstance(argument.value, int) and not isinstance(argument.value, bool):
            values.append(argument.value)
        elif isinstance(argument, ast.UnaryOp) and isinstance(argument.op, ast.USub) and isinstance(argument.operand, ast.Constant) and isinstance(argument.operand.value, int):
            values.append(-argument.operand.value)
        else:
            return None
    if not 1 <= len(values) <= 3 or (len(values) == 3 and values[2] == 0):
        return None
    if len(values) == 1:
        return 0, values[0], 1
    return values[0], values[1], values[2] if len(values) == 3 else 1


RULE = PythonLoopInTraced()
