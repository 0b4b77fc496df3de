"""## What it does
Flags a traced value used where Python needs a concrete integer or shape, inside a traced function:
`range(t)`, the shape of `jnp.zeros`/`ones`/`empty`/`full` (and of NumPy's: `np.ones(shape=(t,))`), `jnp.arange(t)`, `jnp.linspace(...,
num=t)`, `jnp.eye(t)`, `x.reshape(t, ...)`, `jnp.reshape`/`broadcast_to`/`tile`/`repeat` sizes,
`lax.dynamic_slice` sizes, slice bounds `x[:t]` / `x[t:t + 2]`, and a Python list or tuple indexed by
a traced value (`choices[t]`). A function traced only through `f_jit = jax.jit(f)` wrappers that
nothing in the module calls or passes on is never traced with abstract values: not flagged.

Code inside a `try` that catches the error JAX raises here (`TypeError`, `Exception` or an error class
of `jax.errors`) probes on purpose and has a fallback: it is not flagged. Nor is a function whose every
compiled call sits in such a `try` (`@jax.jit def f` then `try: f(2) except
jax.errors.TracerBoolConversionError: ...`): a lesson that shows the error on purpose.

## Why is this bad?
Shapes are static in XLA: they must be known when the function is traced. A tracer has no concrete
value, so these raise a `TypeError` under `jit` (`Shapes must be 1D sequences of concrete values`
from array constructors and `reshape`, `ConcretizationTypeError` from `arange` or `repeat`),
`TracerIntegerConversionError`, or `IndexError: Slice entries must be static integers`. See
https://docs.jax.dev/en/latest/errors.html#jax.errors.ConcretizationTypeError and
https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerIntegerConversionError.

Shapes computed from `x.shape`, `x.ndim`, `len(x)`, literals, closure constants and arguments listed
in `static_argnums`/`static_argnames` are static and are not flagged, as long as Python or NumPy
computes them: in a function compiled itself, a `jax.numpy` operation is staged into the program and
gives a tracer even of static inputs (`x.reshape(jnp.array(x.shape).prod())` is flagged; under `grad`
or `vmap` alone, or inside `jax.ensure_compile_time_eval()`, it stays concrete); a function's own jit keeps its
static arguments static however else it is transformed (`jax.vmap(partial(beam_search, model))`), and
a default no call passes stays a Python value under `vmap` too.

## Example
```python
@jax.jit
def head(x, n):
    return x[:n]

@jax.jit
def pick(i):
    return [1.0, 2.0, 4.0][i]
```

## Use instead
```python
@functools.partial(jax.jit, static_argnames=("n",))
def head(x, n):
    return x[:n]

@jax.jit
def pick(i):
    return jnp.asarray([1.0, 2.0, 4.0])[i]
```
For a traced start with a static size use `lax.dynamic_slice(x, (start,), (size,))`.

## Fix safety
A Python list or tuple of numbers indexed by a traced value becomes `jnp.asarray(lst)[t]`: safe, the
original always raises and the array holds the same numbers (in JAX's default dtype). Otherwise no
fix is offered; the message suggests `static_argnames`, since only the caller knows whether the value
can be static.

## How the runtime mode confirms it
It runs the function under `jax.jit` with the example inputs: the original raises
`ConcretizationTypeError`/`TracerIntegerConversionError`/`IndexError`; the fixed version (or the
one with the argument made static) compiles and agrees with the original run without `jit`.
"""

from __future__ import annotations

import ast

from jaxlint import fixes
from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic import jaxapi
from jaxlint.semantic.bindings import bound_values
from jaxlint.semantic.model import TRACED, argument, parent_of

# Function -> the (position, keyword) of each argument that must be a static int or shape.
_SHAPE_ARGUMENTS = {
    "jax.numpy.zeros": ((0, "shape"),), "jax.numpy.ones": ((0, "shape"),), "jax.numpy.empty": ((0, "shape"),),
    "jax.numpy.full": ((0, "shape"),), "jax.numpy.arange": ((0, "start"), (1, "stop"), (2, "step")),
    "jax.numpy.linspace": ((2, "num"),), "jax.numpy.logspace": ((2, "num"),), "jax.numpy.geomspace": ((2, "num"),),
    "jax.numpy.eye": ((0, "N"), (1, "M")), "jax.numpy.identity": ((0, "n"),), "jax.numpy.tri": ((0, "N"), (1, "M")),
    "jax.numpy.reshape": ((1, "shape"), (None, "newshape")), "jax.numpy.broadcast_to": ((1, "shape"),),
    "jax.numpy.tile": ((1, "reps"),), "jax.lax.dynamic_slice": ((2, "slice_sizes"),),
    "jax.lax.broadcast": ((1, "sizes"),), "jax.lax.iota": ((1, "size"),), "jax.lax.full": ((0, "shape"),),
    # A shape is a shape whichever library builds the array: NumPy asks the tracer for an int too.
    "numpy.zeros": ((0, "shape"),), "numpy.ones": ((0, "shape"),), "numpy.empty": ((0, "shape"),),
    "numpy.full": ((0, "shape"),), "numpy.eye": ((0, "N"), (1, "M")), "numpy.identity": ((0, "n"),),
}


class TracerAsShape(Rule):
    code = "JAX108"
    name = "tracer-as-shape"
    summary = "Traced value used as a shape, size, slice bound or list index"
    raised_when_traced = ("TypeError", "IndexError")
    node_types = (ast.Call, ast.Subscript)
    traced_code_only = True
    fix_availability = "sometimes"

    def check(self, node: ast.AST, context) -> None:
        if not context.is_traced_code(node) or context.model.runs_concretely(context.scope(node)):
            return  # autodiff alone (no jit) sees concrete values
        scope = context.scope(node)
        if isinstance(node, ast.Subscript):
            self._check_subscript(node, scope, context)
            return
        qualified = context.qualified_name(node.func)
        culprit = None
        if qualified == "builtins.range":
            culprit = next((arg for arg in node.args if _traced(arg, scope, context)), None)
            what = "`range()`"
        elif qualified in _SHAPE_ARGUMENTS:
            for position, keyword in _SHAPE_ARGUMENTS[qualified]:
                value = argument(node, position, keyword)
                if value is not None and _traced(value, scope, context):
                    culprit = value
                    break
            what = f"the shape of `{context.text(node.func)}`"
        elif qualified == "jax.numpy.repeat" and not any(k.arg == "total_repeat_length" for k in node.keywords):
            value = argument(node, 1, "repeats")
            culprit = value if value is not None and _traced(value, scope, context) else None
            what = "`repeats` of `jnp.repeat` (without `total_repeat_length=`)"
        elif qualified is None and isinstance(node.func, ast.Attribute) and node.func.attr == "reshape":
            if context.level(node.func.value, scope) >= TRACED:
                culprit = next((arg for arg in node.args if _traced(arg, scope, context)), None)
            what = "the shape of `.reshape()`"
        if culprit is None:
            return
        if not any(isinstance(n, ast.Name) and context.level(n, scope) and not _static_attribute_of(n) for n in ast.walk(culprit)):
            # Built from static values only, by a `jnp` operation the compiled function stages.
            advice = "a `jnp` operation under `jit` is traced even of static inputs: compute it with Python or NumPy (`math.prod(x.shape)`)"
        else:
            advice = "make it static with `static_argnames` or derive it from `x.shape`"
        context.report(
            node,
            f"traced value `{snippet(context.text(culprit))}` used as {what} in traced function `{scope.name}`: shapes must "
            f"be static (tracing raises a TypeError); {advice}",
        )

    def _check_subscript(self, node: ast.Subscript, scope, context) -> None:
        indices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        for index in indices:
            if isinstance(index, ast.Slice):
                bound = next((part for part in (index.lower, index.upper, index.step) if part is not None and _traced(part, scope, context)), None)
                if bound is not None:
                    context.report(
                        node,
                        f"traced value `{snippet(context.text(bound))}` used as a slice bound in traced function `{scope.name}`: "
                        "slice bounds must be static (IndexError); use `lax.dynamic_slice` or make it static with `static_argnames`",
                    )
                    return
        if not isinstance(node.ctx, ast.Load) or isinstance(node.slice, (ast.Tuple, ast.Slice)):
            return
        if not _traced(node.slice, scope, context):
            return
        elements = _python_sequence(node.value, scope, context)
        if elements is None:
            return
        fix = fixes.asarray_fix(context, node.value, "Use `{name}(...)[...]`") if _numeric(elements) else None
        context.report(
            node,
            f"Python sequence `{snippet(context.text(node.value))}` indexed by traced value `{snippet(context.text(node.slice))}` "
            f"in traced function `{scope.name}` raises TracerIntegerConversionError; index `jnp.asarray(...)` or use `lax.switch`",
            fix=fix,
        )


def _static_attribute_of(name: ast.Name) -> bool:
    """`x` in `x.shape`, `x.ndim`: only a static attribute of the value is read."""
    parent = parent_of(name)
    return isinstance(parent, ast.Attribute) and parent.attr in jaxapi.STATIC_ATTRIBUTES


def _traced(node: ast.AST, scope, context) -> bool:
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(_traced(element, scope, context) for element in node.elts)
    if isinstance(node, ast.Starred):
        return _traced(node.value, scope, context)
    if context.level(node, scope) < TRACED:
        return False
    return not _optional_parameter(node, scope)


def _optional_parameter(node: ast.AST, scope) -> bool:
    """A parameter with a default: callers that omit it leave it a static Python value."""
    if not isinstance(node, ast.Name) or node.id not in scope.param_nodes:
        return False
    arguments = scope.node.args
    positional = [*arguments.posonlyargs, *arguments.args]
    with_defaults = {arg.arg for arg in positional[len(positional) - len(arguments.defaults):]}
    with_defaults |= {arg.arg for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults) if default is not None}
    return node.id in with_defaults


def _python_sequence(node: ast.AST, scope, context) -> list[ast.expr] | None:
    """The elements of a list/tuple literal, directly or through a name bound only to one."""
    if isinstance(node, (ast.List, ast.Tuple)):
        return node.elts
    if isinstance(node, ast.Name):
        found = bound_values(context.model, node.id, scope)
        if found is None or len(found[1]) != 1:
            return None
        value = found[1][0]
        if isinstance(value, (ast.List, ast.Tuple)):
            return value.elts
    return None


def _numeric(elements: list[ast.expr]) -> bool:
    def number(node: ast.AST) -> bool:
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            node = node.operand
        if isinstance(node, (ast.List, ast.Tuple)):
            return bool(node.elts) and all(number(element) for element in node.elts)
        return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)
    if not elements or not all(number(element) for element in elements):
        return False
    lengths = {len(element.elts) if isinstance(element, (ast.List, ast.Tuple)) else -1 for element in elements}
    return len(lengths) == 1


RULE = TracerAsShape()
