"""## What it does
Flags `jnp.stack([f(x) for x in xs])`, and `jnp.array`/`jnp.asarray` of such a list, when `xs` is
known to be an array (a traced array, a device value, a `jnp` result) and `f` is a function JAX can
trace (a function of the module, a jitted function, a JAX function).

Not flagged: comprehensions over Python lists, ranges or unknown iterables (`vmap` maps over an
array's leading axis, not over a list), comprehensions with `if` clauses or several `for`s, and
element expressions that are not a single call using the element, and test code (a `test_*`
function, a `Test*` class, a test module), which builds the per-element loop as the reference that
`vmap` is checked against.

## Why is this bad?
The comprehension calls `f` once per row: outside `jit` that is one dispatch (and, for a jitted `f`,
one cache lookup) per element, inside `jit` one unrolled copy of `f` per element, growing the program
and its compile time. `jax.vmap(f)(xs)` runs one batched computation. See
https://docs.jax.dev/en/latest/automatic-vectorization.html.

## Example
```python
ys = jnp.stack([predict(params, x) for x in xs])
```

## Use instead
```python
ys = jax.vmap(predict, in_axes=(None, 0))(params, xs)
```

## Fix safety
Unsafe: `f` must be written for one element (Python `if` on the element, or a `.item()`, fail under
`vmap`), and `jnp.array` of a list of tuples differs from `vmap` of a function returning a tuple.
Offered when every argument of the call is either the element or an expression that does not use
it, with no keyword arguments.

## How the runtime mode confirms it
It times the comprehension against the `vmap` version on the example inputs and checks they agree.
"""

from __future__ import annotations

import ast

from jaxlint import fixes
from jaxlint.rules.base import Rule
from jaxlint.semantic import carried_state, jaxapi
from jaxlint.semantic.model import ARRAY
from jaxlint.semantic.syntax import walk  # ast.walk minus ctx markers, faster

_STACKERS = frozenset({"jax.numpy.stack", "jax.numpy.array", "jax.numpy.asarray"})


class PythonLoopBatching(Rule):
    code = "JAX403"
    name = "python-loop-batching"
    summary = "Per-element calls stacked into an array instead of `vmap`"
    skips_test_code = True
    node_types = (ast.Call,)
    fix_availability = "sometimes"

    def check(self, node: ast.Call, context) -> None:
        qualified = context.qualified_name(node.func)
        if qualified not in _STACKERS or len(node.args) != 1 or node.keywords:
            return
        comprehension = node.args[0]
        if not isinstance(comprehension, ast.ListComp) or len(comprehension.generators) != 1:
            return
        generator = comprehension.generators[0]
        if generator.ifs or generator.is_async or not isinstance(generator.target, ast.Name):
            return
        element = generator.target.id
        call = comprehension.elt
        if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args):
            return
        if any(isinstance(n, ast.Name) and n.id == element for n in walk(call.func)):
            return
        uses = [a for a in call.args if _uses(a, element)] + [k.value for k in call.keywords if _uses(k.value, element)]
        if len(uses) != 1 or not (isinstance(uses[0], ast.Name) and uses[0].id == element):
            return
        scope = context.scope(node)
        if not _is_array(generator.iter, scope, context) or not _traceable(call.func, scope, context):
            return
        if carried_state.in_test_code(node, str(context.source.filename), context.model):
            return
        callee = context.text(call.func)
        context.report(
            node,
            f"`{context.text(node.func)}` of one `{callee}` call per element of `{context.text(generator.iter)}` runs "
            f"the function once per row; use `jax.vmap({callee})` over the array",
            fix=_fix(node, call, element, generator.iter, context),
        )


def _uses(expression: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in walk(expression))


def _is_array(iterable: ast.expr, scope, context) -> bool:
    if context.is_traced_code(iterable):
        return context.level(iterable, scope) == ARRAY
    if scope.in_traced:
        return False
    return context.model.device_kind(iterable, scope) == "device"


def _traceable(function: ast.expr, scope, context) -> bool:
    model = context.model
    qualified = context.qualified_name(function)
    if qualified is not None:
        return qualified.startswith(jaxapi.ARRAY_NAMESPACES) and qualified not in jaxapi.STATIC_CALLS
    resolved = model.resolve_function(function, scope)
    if resolved is not None and resolved[0] is not None:
        return _vmappable(resolved[0], context, depth=2)
    key = function.id if isinstance(function, ast.Name) else None
    binding = model.jit_binding_for_name(function) if key is not None else None
    if binding is None:
        return False
    return binding.function is None or _vmappable(binding.function, context, depth=2)


_HOST_CONVERSIONS = frozenset({"builtins.float", "builtins.int", "builtins.bool", "builtins.print", "builtins.len"})


def _vmappable(function, context, depth: int) -> bool:
    """No visible per-element Python: branches on local values, host conversions, NumPy calls."""
    local = set(function.local_names)
    for node in walk(function.node):
        if isinstance(node, (ast.If, ast.While, ast.IfExp, ast.Assert)):
            if any(isinstance(n, ast.Name) and n.id in local for n in walk(node.test)):
                return False
        elif isinstance(node, ast.Call):
            qualified = context.qualified_name(node.func) or ""
            if qualified in _HOST_CONVERSIONS or qualified.startswith("numpy."):
                return False
            if isinstance(node.func, ast.Attribute) and node.func.attr in ("item", "tolist", "block_until_ready"):
                return False
            if depth > 0 and qualified == "":
                resolved = context.model.resolve_function(node.func, function)
                if resolved is not None and resolved[0] is not None and resolved[0] is not function:
                    if not _vmappable(resolved[0], context, depth - 1):
                        return False
    return True


def _fix(node: ast.Call, call: ast.Call, element: str, iterable: ast.expr, context):
    if call.keywords:
        return None
    vmap, import_edits = fixes.reference(context, "jax.vmap")
    if not vmap:
        return None
    arguments = []
    axes = []
    for argument in call.args:
        if isinstance(argument, ast.Name) and argument.id == element:
            arguments.append(context.text(iterable))
            axes.append("0")
        else:
            arguments.append(context.text(argument))
            axes.append("None")
    options = "" if all(axis == "0" for axis in axes) else f", in_axes=({', '.join(axes)}{',' if len(axes) == 1 else ''})"
    text = f"{vmap}({context.text(call.func)}{options})({', '.join(arguments)})"
    return context.fix(f"Use `{vmap}({context.text(call.func)})`", [context.replace(node, text), *import_edits], safe=False)


RULE = PythonLoopBatching()
