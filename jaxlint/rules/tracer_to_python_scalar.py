"""## What it does
Flags conversions of a traced value to a Python scalar or list inside a traced function:
`float(x)`, `int(x)`, `complex(x)`, `operator.index(x)`, `x.item()` and `x.tolist()`.

## Why is this bad?
A tracer has no concrete value while JAX traces the function, so converting it to a Python number
raises `ConcretizationTypeError` under `jit` (and under `vmap`/`grad`). Even where it works (outside
`jit`) it forces a device-to-host transfer. See
https://docs.jax.dev/en/latest/errors.html#jax.errors.ConcretizationTypeError.

`int(x.shape[0])`, `float(static_arg)` and conversions of closure constants are fine and are not
flagged.

## Example
```python
@jax.jit
def scale(x, factor):
    return x * float(factor)
```

## Use instead
```python
@jax.jit
def scale(x, factor):
    return x * factor
```
Use `x.astype(jnp.float32)` when a dtype change is meant, or mark the argument static
(`static_argnames=("factor",)`) when it really is a Python number.

## Fix safety
Dropping the conversion where the value only flows into JAX operations or the return is offered as
a fix; `x.astype(...)` replaces `float`/`int` where a dtype change is meant. Both are unsafe: the
result is now an array rather than a Python scalar, with the array's dtype (`int(x)` of a float
array truncates; `x.astype(jnp.int32)` does the same only for in-range values). No fix is offered
where the value reaches Python (`range`, dict keys, string formatting, `if`).

## How the runtime mode confirms it
The original raises `ConcretizationTypeError` under `jit` with the example inputs; the fixed version
compiles and agrees with the original run without `jit`.
"""

from __future__ import annotations

import ast

from jaxlint.rules.base import Rule
from jaxlint.semantic.model import TRACED, parent_of

CONVERSIONS = {"builtins.float": "float", "builtins.int": "int", "builtins.complex": "complex", "operator.index": "operator.index"}
# Where a converted value can go and still be a JAX array afterwards.
_ARRAY_CONSUMERS = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.", "jax.random.")


class TracerToPythonScalar(Rule):
    code = "JAX102"
    name = "tracer-to-python-scalar"
    summary = "Conversion of a traced value to a Python scalar"
    node_types = (ast.Call,)
    fix_availability = "sometimes"

    def check(self, node: ast.Call, context) -> None:
        if not context.is_traced_code(node):
            return
        scope = context.scope(node)
        qualified = context.qualified_name(node.func)
        if qualified in CONVERSIONS and len(node.args) == 1 and not node.keywords:
            value = node.args[0]
            if context.level(value, scope) < TRACED:
                return
            conversion = CONVERSIONS[qualified]
            context.report(
                node,
                f"`{conversion}()` of traced value `{context.text(value)}` in traced function `{scope.name}` raises "
                "ConcretizationTypeError under jit; keep it an array (or `.astype(...)`), or make it static",
                fix=self._fix(node, value, context),
            )
        elif isinstance(node.func, ast.Attribute) and node.func.attr in ("item", "tolist") and not node.args:
            value = node.func.value
            if context.level(value, scope) < TRACED:
                return
            context.report(
                node,
                f"`.{node.func.attr}()` on traced value `{context.text(value)}` in traced function `{scope.name}` raises "
                "ConcretizationTypeError under jit; keep it an array",
                fix=self._fix(node, value, context) if node.func.attr == "item" else None,
            )

    def _fix(self, node: ast.Call, value: ast.AST, context):
        """Keep the value an array where it only flows into JAX operations or the return.

        `.item()` and `float()` of a value that is already floating point are dropped; otherwise the
        conversion becomes `.astype(float|int|complex)`, JAX's default dtype of that kind, because the
        dtype change is what the conversion meant (`int()` truncates toward zero, as `astype` does).
        """
        if not _flows_only_into_jax(node, context):
            return None
        text = context.text(value)
        atomic = isinstance(value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant))
        qualified = context.qualified_name(node.func) if not isinstance(node.func, ast.Attribute) else None
        kind = {"builtins.float": "float", "builtins.int": "int", "builtins.complex": "complex", "operator.index": "int"}.get(qualified or "")
        if kind is None or (kind == "float" and _already_floating(value, context)):
            if not atomic:
                text = f"({text})"
            return context.fix("Drop the conversion and keep the array", [context.replace(node, text)], safe=False)
        if not atomic:
            text = f"({text})"
        return context.fix(f"Use `.astype({kind})` and keep the array", [context.replace(node, f"{text}.astype({kind})")], safe=False)


_FLOATING_FUNCTIONS = {
    "mean", "exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "tanh", "sigmoid", "softmax", "log_softmax",
    "std", "var", "linalg.norm", "logsumexp", "average", "nanmean", "erf", "relu", "gelu", "softplus",
}


def _already_floating(value: ast.AST, context) -> bool:
    """Whether `value` is certainly floating point (so `float()` of it changes nothing but the container)."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Div):
        return True
    if isinstance(value, ast.Call):
        qualified = context.qualified_name(value.func) or ""
        for prefix in ("jax.numpy.", "jax.nn.", "jax.scipy.special.", "jax.lax."):
            if qualified.startswith(prefix) and qualified[len(prefix):] in _FLOATING_FUNCTIONS:
                return True
        if isinstance(value.func, ast.Attribute) and value.func.attr in ("mean", "std", "var") and not qualified:
            return True
    return False


def _flows_only_into_jax(node: ast.AST, context) -> bool:
    parent = parent_of(node)
    if isinstance(parent, ast.Return):
        return True
    if isinstance(parent, ast.BinOp):
        return _flows_only_into_jax(parent, context)
    if isinstance(parent, ast.Call) and node in parent.args:
        qualified = context.qualified_name(parent.func)
        return qualified is not None and qualified.startswith(_ARRAY_CONSUMERS)
    return False


RULE = TracerToPythonScalar()
