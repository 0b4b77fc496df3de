"""## What it does
Flags conversions of a traced value to a Python scalar or list inside a traced function:
`float(x)`, `int(x)`, `complex(x)`, `operator.index(x)`, `x.item()` and `x.tolist()`.

Code inside a `try` that catches the error JAX raises here (`TypeError`, `Exception` or an error class
of `jax.errors`) probes on purpose and has a fallback: it is not flagged. Nor is a function whose every
compiled call sits in such a `try` (`@jax.jit def f` then `try: f(2) except
jax.errors.TracerBoolConversionError: ...`): a lesson that shows the error on purpose.

## Why is this bad?
A tracer has no concrete value while JAX traces the function, so converting it to a Python number
raises `ConcretizationTypeError` under `jit` (and under `vmap`/`grad`). Even where it works (outside
`jit`) it forces a device-to-host transfer. See
https://docs.jax.dev/en/latest/errors.html#jax.errors.ConcretizationTypeError.

`int(x.shape[0])`, `float(static_arg)` and conversions of closure constants are fine and are not
flagged. Nor are `int(x)`, `operator.index(x)` and `x.item()` in code only differentiated outside
any jit (`jax.grad(loss)(params)`): autodiff alone lets them read the value (checked on JAX 0.10.2),
while `float(x)` and `complex(x)` of a differentiated value raise there too.

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
Dropping the conversion where the value only flows into JAX operations or the return (directly, or
through a name bound once to it, `v = float(x.sum())`, whose every use does) is offered as a fix; `x.astype(...)` replaces `float`/`int` where a dtype change is meant. Both are unsafe: the
result is now an array rather than a Python scalar, with the array's dtype (`int(x)` of a float
array truncates; `x.astype(jnp.int32)` does the same only for in-range values). No fix is offered
where the value reaches Python (`range`, dict keys, string formatting, `if`), nor a shape, size or
axis argument (`jnp.zeros(int(n))`), which must stay static.

An index is a JAX use too: `x[int(jnp.argmax(x))]` becomes `x[jnp.argmax(x)]` (an integer result
keeps no conversion; a float one becomes `.astype(int)`), as do `x.at[int(i)]` and the start
indices of `lax.dynamic_slice`/`dynamic_update_slice`. Only where the indexed value is provably a
JAX array (a `jnp` result; a parameter annotated `jax.Array`; a name the function hands first to a
`jnp` function, which rejects lists, or reads `.shape`/`.dtype`/`.at` of): a list, tuple or dict
needs the Python int. An integer array index selects what the
Python int did, negative values included; a slice bound (`x[int(i):]`) gets no fix.

## How the runtime mode confirms it
The original raises `ConcretizationTypeError` under `jit` with the example inputs; the fixed version
compiles and agrees with the original run without `jit`.
"""

from __future__ import annotations

import ast

from jaxlint.fixes import scalar_conversion
from jaxlint.rules.base import Rule
from jaxlint.semantic.model import TRACED

CONVERSIONS = {"builtins.float": "float", "builtins.int": "int", "builtins.complex": "complex", "operator.index": "operator.index"}
# Conversions to an integer: not differentiable, so autodiff outside jit lets them read the value.
_INTEGER_CONVERSIONS = frozenset({"builtins.int", "operator.index"})


class TracerToPythonScalar(Rule):
    code = "JAX102"
    name = "tracer-to-python-scalar"
    summary = "Conversion of a traced value to a Python scalar"
    raised_when_traced = ("TypeError",)
    node_types = (ast.Call,)
    traced_code_only = True
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
            if qualified in _INTEGER_CONVERSIONS and context.model.runs_concretely(scope):
                return  # under autodiff alone `int(tracer)` reads the concrete value (jax 0.10.2); `float` raises
            conversion = CONVERSIONS[qualified]
            context.report(
                node,
                f"`{conversion}()` of traced value `{context.text(value)}` in traced function `{scope.name}` raises "
                "ConcretizationTypeError under jit; keep it an array (or `.astype(...)`), or make it static",
                fix=scalar_conversion.conversion_fix(node, value, context),
            )
        elif isinstance(node.func, ast.Attribute) and node.func.attr in ("item", "tolist") and not node.args:
            value = node.func.value
            if context.level(value, scope) < TRACED:
                return
            if node.func.attr == "item" and context.model.runs_concretely(scope):
                return  # under autodiff alone the tracer holds a concrete value, and `.item()` reads it (jax 0.10.2)
            context.report(
                node,
                f"`.{node.func.attr}()` on traced value `{context.text(value)}` in traced function `{scope.name}` raises "
                "ConcretizationTypeError under jit; keep it an array",
                fix=scalar_conversion.conversion_fix(node, value, context) if node.func.attr == "item" else None,
            )


RULE = TracerToPythonScalar()
