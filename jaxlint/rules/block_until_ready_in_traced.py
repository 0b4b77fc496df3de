"""## What it does
Flags `.block_until_ready()` called on a traced value inside a traced function.

## Why is this bad?
Inside `jax.jit` (and `vmap`, `grad`, `lax.scan` bodies, ...) a value is an abstract tracer with no
buffer to wait for: the method is not available on traced arrays and raises `AttributeError` ("The
'block_until_ready' method is not available on traced array"). Waiting for a computation belongs to
the caller, outside the compiled function, where it is useful for timing. See
https://docs.jax.dev/en/latest/async_dispatch.html.

`jax.block_until_ready(x)` (the function) passes tracers through and is not flagged, nor is
`.block_until_ready()` outside traced code.

## Example
```python
@jax.jit
def step(x):
    y = jnp.sin(x).block_until_ready()
    return y * 2
```

## Use instead
```python
@jax.jit
def step(x):
    y = jnp.sin(x)
    return y * 2

step(x).block_until_ready()  # wait outside, where timing needs it
```

## Fix safety
The fix deletes the call (`y = t.block_until_ready()` becomes `y = t`; a bare statement is
removed). It is safe: the original raises at trace time, and inside a compiled function ordering is
the compiler's business, so the call has nothing to wait for.

## How the runtime mode confirms it
It runs the function under `jax.jit` with the example inputs: the original raises `AttributeError`;
the fixed version compiles and agrees with the original run without `jit`.
"""

from __future__ import annotations

import ast

from jaxlint.diagnostics import Edit, Position
from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic.model import TRACED, parent_of


class BlockUntilReadyInTraced(Rule):
    code = "JAX109"
    name = "block-until-ready-in-traced"
    summary = "`.block_until_ready()` on a traced value"
    node_types = (ast.Call,)
    traced_code_only = True
    fix_availability = "always"

    def check(self, node: ast.Call, context) -> None:
        function = node.func
        if not (isinstance(function, ast.Attribute) and function.attr == "block_until_ready") or node.args or node.keywords:
            return
        if not context.is_traced_code(node):
            return
        scope = context.scope(node)
        if context.level(function.value, scope) < TRACED:
            return
        context.report(
            node,
            f"`.block_until_ready()` on traced value `{snippet(context.text(function.value))}` in traced function "
            f"`{scope.name}` raises AttributeError; delete it and block on the result outside the function",
            fix=_delete_call(node, context),
        )


def _delete_call(node: ast.Call, context):
    receiver = node.func.value
    statement = parent_of(node)
    if not isinstance(statement, ast.Expr):
        text = context.text(receiver)
        if isinstance(receiver, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant)) or text.startswith("("):
            return context.fix("Delete `.block_until_ready()`", [context.replace(node, text)], safe=True)
        return context.fix("Delete `.block_until_ready()`", [context.replace(node, f"({text})")], safe=True)
    return context.fix("Delete the `.block_until_ready()` statement", [_delete_statement(statement, context)], safe=True)


def _delete_statement(statement: ast.stmt, context) -> Edit:
    """Remove the statement's lines, or leave `pass` where it is alone in its block or shares a line."""
    source = context.source
    owner = parent_of(statement)
    siblings = next(
        (body for field in ("body", "orelse", "finalbody", "handlers") if statement in (body := getattr(owner, field, None) or [])),
        [statement],
    )
    first, last = statement.lineno, statement.end_lineno or statement.lineno
    before = source.line(first)[: source.start(statement).column - 1]
    after = source.line(last)[source.end(statement).column - 1 :]
    alone_on_lines = not before.strip() and (not after.strip() or after.strip().startswith("#"))
    if len(siblings) == 1 or not alone_on_lines or last + 1 > len(source.lines):
        return context.replace(statement, "pass")
    return Edit("", Position(first, 1), Position(last + 1, 1))


RULE = BlockUntilReadyInTraced()
