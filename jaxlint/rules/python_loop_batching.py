"""## What it does
Flags `jnp.stack([f(x) for x in xs])`, and `jnp.array`/`jnp.asarray` of such a list, when `xs` is
known to be an array (a traced array, a device value, a `jnp` result) and `f` is a function JAX can
trace (a function of the module, a jitted function, a JAX function, a lambda, or a JAX transform of
one bound to a name: `g = jax.grad(f)`). Also the same loop spelled otherwise (semantic/iteration.py):
the comprehension bound to a name earlier in the block and stacked later (`ys = [f(x) for x in xs]`
... `jnp.array(ys)`, with nothing touching `ys` in between), the loop written out, `ys = []`, then
`for x in xs: ys.append(f(x))` right before `jnp.array(ys)` (both flagged at the call, no fix), and a comprehension over
the row indices of an array, `f(xs[i]) for i in range(len(xs))` (or `range(xs.shape[0])`, `xs[i, :]`).

Not flagged: comprehensions over Python lists, ranges (but the row indices above) or unknown iterables (`vmap` maps over an
array's leading axis, not over a list), comprehensions with `if` clauses or several `for`s, and
element expressions that are not a single call using the element (or the whole row `xs[i]`), loops
that do more than append, one-off setup over a handful of rows (code that runs once per program:
module level, a notebook cell, an entry point; outside any loop; over at most 16 rows the source
fixes: `jnp.stack([normal(k, shape) for k in split(key, 8)])` before a demo makes eight dispatches
once, microseconds whatever the spelling; a sweep over a grid of tens of points stays flagged), and test code (a `test_*`
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
from jaxlint.semantic import carried_state, iteration, jaxapi, one_off_work
from jaxlint.semantic.model import ARRAY, parent_of
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
        found = per_row_calls(node, context)
        if found is None:
            return
        call, element, iterable, fixable = found
        scope = context.scope(node)
        if not scope.in_traced and one_off_work.one_off_over_few(node, iterable, scope, context.model):
            return  # setup run once over a handful of rows: a few dispatches, nothing `vmap` saves
        callee = context.text(call.func)
        context.report(
            node if fixable else call,
            f"`{context.text(node.func)}` of one `{callee}` call per element of `{context.text(iterable)}` runs "
            f"the function once per row; use `jax.vmap({callee})` over the array",
            fix=_fix(node, call, element, iterable, context) if fixable else None,
        )


def per_row_calls(node: ast.Call, context) -> tuple[ast.Call, ast.expr, ast.expr, bool] | None:
    """(the call, the element it takes, the array, whether the fix applies) when `node` stacks one call
    of a traceable function per row of an array (the rule's finding), else None. JAX304 asks it too: a
    comprehension stacked so is batching, reported here with the `vmap` advice, not twice."""
    qualified = context.qualified_name(node.func)
    if qualified not in _STACKERS or len(node.args) != 1 or node.keywords:
        return None
    collected = node.args[0]
    if isinstance(collected, ast.ListComp):
        if len(collected.generators) != 1:
            return None
        generator = collected.generators[0]
        if generator.ifs or generator.is_async or not isinstance(generator.target, ast.Name):
            return None
        target, call, iterable, fixable = generator.target.id, collected.elt, generator.iter, True
    elif isinstance(collected, ast.Name):
        built = _list_built_by_loop(node, collected, context)
        if built is None:
            return None
        target, call, iterable = built
        fixable = False
    else:
        return None
    if not isinstance(call, ast.Call) or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if any(isinstance(n, ast.Name) and n.id == target for n in walk(call.func)):
        return None
    uses = [a for a in call.args if _uses(a, target)] + [k.value for k in call.keywords if _uses(k.value, target)]
    if len(uses) != 1:
        return None
    element = uses[0]
    scope = context.scope(node)
    if not (isinstance(element, ast.Name) and element.id == target):
        rows = _indexed_rows(iterable, scope, context)
        if rows is None or not _row_of(element, rows, target):
            return None
        iterable = rows  # `f(xs[i]) for i in range(len(xs))`: one call per row of `xs`
    if not _is_array(iterable, scope, context) or not _traceable(call.func, scope, context):
        return None
    if carried_state.in_test_code(node, str(context.source.filename), context.model):
        return None
    return call, element, iterable, fixable


def _list_built_by_loop(node: ast.Call, name: ast.Name, context) -> tuple[str, ast.expr, ast.expr] | None:
    """(item name, element, iterable) of the loop that built the list `name` holds where it is
    stacked: a comprehension bound to it earlier in the block with nothing touching the list in
    between (semantic/iteration.py), or the same loop written out, `acc = []` and `for x in xs:
    acc.append(f(x))` right before."""
    statement = node
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = parent_of(statement)
    if statement is None:
        return None
    comprehension = iteration.list_built_by_iteration(name, statement, context.scope(node))
    if comprehension is not None:
        if len(comprehension.generators) != 1:
            return None
        generator = comprehension.generators[0]
        if generator.ifs or generator.is_async or not isinstance(generator.target, ast.Name):
            return None
        return generator.target.id, comprehension.elt, generator.iter
    loop = _append_loop(node, name.id)
    if loop is None:
        return None
    return loop.target.id, loop.body[0].value.args[0], loop.iter


def _append_loop(node: ast.Call, name: str) -> ast.For | None:
    """`acc = []`, then `for x in xs: acc.append(f(x))`, right before the statement that stacks `acc`:
    the loop, written out, of a list comprehension."""
    statement = node
    while statement is not None and not isinstance(statement, ast.stmt):
        statement = parent_of(statement)
    holder = parent_of(statement) if statement is not None else None
    body = next(
        (getattr(holder, field) for field in ("body", "orelse", "finalbody") if statement in getattr(holder, field, ())),
        None,
    )
    if body is None:
        return None
    index = body.index(statement)
    if index < 2:
        return None
    loop, start = body[index - 1], body[index - 2]
    if not (
        isinstance(start, ast.Assign) and len(start.targets) == 1 and isinstance(start.targets[0], ast.Name)
        and start.targets[0].id == name and isinstance(start.value, ast.List) and not start.value.elts
    ):
        return None
    if not isinstance(loop, ast.For) or loop.orelse or len(loop.body) != 1 or not isinstance(loop.target, ast.Name):
        return None
    appended = loop.body[0]
    if not (isinstance(appended, ast.Expr) and isinstance(appended.value, ast.Call)):
        return None
    call = appended.value
    if not (
        isinstance(call.func, ast.Attribute) and call.func.attr == "append" and isinstance(call.func.value, ast.Name)
        and call.func.value.id == name and len(call.args) == 1 and not call.keywords
    ):
        return None
    return loop


def _indexed_rows(iterable: ast.expr, scope, context) -> ast.Name | None:
    """`xs` of a range over the row indices of `xs` (semantic/iteration.py: `range(len(xs))`,
    `range(xs.shape[0])`, `n = xs.shape[0]` then `range(n)`, ...), counted from 0 by 1."""
    bounds = iteration.range_arguments(iterable, context.model)
    if bounds is None or bounds[0] is not None or bounds[2] is not None or iteration.walked(iterable, context.model) is not iterable:
        return None
    rows = iteration.rows_walked(iterable, scope, context.model)
    if rows is None or rows.axis != 0 or context.qualified_name(iterable.func) != "builtins.range":
        return None
    if isinstance(bounds[1], ast.BinOp):
        return None  # (`range(len(xs) - 1)`: not every row)
    return rows.array if isinstance(rows.array, ast.Name) else None


def _row_of(element: ast.expr, rows: ast.Name, index: str) -> bool:
    """`xs[i]` or `xs[i, :]`: the whole row `i` of `xs`."""
    if not (isinstance(element, ast.Subscript) and isinstance(element.value, ast.Name) and element.value.id == rows.id):
        return False
    key = element.slice
    if isinstance(key, ast.Tuple):
        if not key.elts or not all(
            isinstance(rest, ast.Slice) and rest.lower is None and rest.upper is None and rest.step is None for rest in key.elts[1:]
        ):
            return False
        key = key.elts[0]
    return isinstance(key, ast.Name) and key.id == index


def _uses(expression: ast.expr, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in walk(expression))


def _is_array(iterable: ast.expr, scope, context) -> bool:
    if context.is_traced_code(iterable):
        return context.level(iterable, scope) == ARRAY
    if scope.in_traced:
        return False
    model = context.model
    if model.device_kind(iterable, scope) == "device":
        return True
    if isinstance(iterable, ast.Name):
        # `x = np.linspace(...)`, then `x = jnp.array(x)`: the binding that reaches the loop decides.
        from jaxlint.semantic.flow import value_at_read

        found = value_at_read(iterable, scope, model)
        value = found[1] if found is not None and found[0] is scope else None
        return isinstance(value, ast.expr) and model.device_kind(value, scope) == "device"
    return False


def _traceable(function: ast.expr, scope, context, depth: int = 3) -> bool:
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
        return key is not None and depth > 0 and _bound_to_traceable(function, scope, context, depth)
    return binding.function is None or _vmappable(binding.function, context, depth=2)


def _bound_to_traceable(name: ast.Name, scope, context, depth: int) -> bool:
    """A name bound once to a lambda (`f = lambda x: jnp.sin(x)`) or to a JAX transform of a
    traceable function (`g = jax.grad(f)`, `h = jax.grad(g)`)."""
    from jaxlint.semantic.bindings import bound_values

    found = bound_values(context.model, name.id, scope)
    if found is None or len(found[1]) != 1:
        return False
    owner, (value,) = found
    if isinstance(value, ast.Lambda):
        lambda_scope = context.model.scope_of_node.get(value)
        return lambda_scope is not None and _vmappable(lambda_scope, context, depth=1)
    if isinstance(value, ast.Call) and value.args and context.model.transform_of(value.func) is not None:
        return _traceable(value.args[0], owner, context, depth - 1)
    return False


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


def _fix(node: ast.Call, call: ast.Call, element: ast.expr, iterable: ast.expr, context):
    if call.keywords:
        return None
    vmap, import_edits = fixes.reference(context, "jax.vmap")
    if not vmap:
        return None
    arguments = []
    axes = []
    for argument in call.args:
        if argument is element:
            arguments.append(context.text(iterable))
            axes.append("0")
        else:
            arguments.append(context.text(argument))
            axes.append("None")
    options = "" if all(axis == "0" for axis in axes) else f", in_axes=({', '.join(axes)}{',' if len(axes) == 1 else ''})"
    text = f"{vmap}({context.text(call.func)}{options})({', '.join(arguments)})"
    return context.fix(f"Use `{vmap}({context.text(call.func)})`", [context.replace(node, text), *import_edits], safe=False)


RULE = PythonLoopBatching()
