"""## What it does
Flags a call of a jitted function, in a `for` loop outside traced code, whose static argument
(`static_argnums`/`static_argnames`) is fed the loop's counter or a value computed from it in the
loop: `for i in range(n): f(x, i)` with `i` static; also the item of a loop over a sequence of more
than eight distinct values the source shows (semantic/flow.py, `distinct_items`): `etas = [k / 100 for k in
range(1, 100)]` then `for eta in etas: f(x, eta)`, or a display of a dozen constants; also through a
`vmap` of the jitted function called on the spot (`jax.vmap(f, in_axes=(0, None))(keys, eta)`: an
unbatched argument is handed on unchanged and stays static).

Not flagged: loops over a literal collection (`for mode in ("train", "eval")`: a few compilations
are intended), small ranges (eight values or fewer, with literal bounds or names of one known
value such as `num_viz = 3`), values with few possible results
(`i % 2`, `i == 0`), loops in traced code, and a value that changes only with an outer loop
while the call runs in an inner one (`for task in range(n): for epoch in ...: f(x, task)`): it
compiles once per task, and the epochs reuse that program. Likewise the index of an inner loop over a
collection the outer loop leaves alone (`for step ...: for i in range(len(datasets)): f(x, i)`): the
same indices come round every step, each compiled once. Nor a counter beside the loop's item when
the item is static too (`for i, (key, env) in enumerate(zip(keys, envs)): train(key, s, env, i)`
with `env` and `i` static), or when the function picks a Python list's item with it (`env =
envs[i]` inside): every iteration compiles for its own item by design.

Test code is not flagged (a `test*` function, a `Test*` class, a test module): a test runs once on
small dummy inputs, so the cost this rule reports reaches no one; every rule whose finding is a cost
or the quality of computed values follows this one policy (semantic/test_code.py).

## Why is this bad?
`jit` compiles one program per distinct value of each static argument: a static argument that takes
a new value every iteration compiles every iteration, which usually costs far more than the step
itself, and fills the compilation cache. See `static_argnums` in
https://docs.jax.dev/en/latest/_autosummary/jax.jit.html and "Marking arguments as static" in
https://docs.jax.dev/en/latest/jit-compilation.html.

## Example
```python
@partial(jax.jit, static_argnames=("step",))
def update(params, step):
    return params * (0.99 ** step)

for step in range(num_steps):
    params = update(params, step=step)
```

## Use instead
```python
@jax.jit
def update(params, step):
    return params * (0.99 ** step)
```
Pass the value as a traced argument (it only feeds arithmetic here), or bucket it into a few
values when it really decides shapes.

## Fix safety
No fix: whether the argument can be traced depends on how the function uses it (as a shape, in a
Python `if`), which the linter does not decide for the user.

## How the runtime mode confirms it
It counts compilations over a few iterations: one per distinct value of the static argument.
"""

from __future__ import annotations

import ast

from jaxlint.rules.base import Rule
from jaxlint.semantic import containers, flow, jaxapi
from jaxlint.semantic.model import passed_arguments
from jaxlint.semantic.syntax import walk  # ast.walk minus ctx markers, faster


class VaryingStaticArg(Rule):
    code = "JAX303"
    name = "varying-static-arg"
    summary = "Static argument of a jitted function fed a per-iteration value"
    skips_test_code = True
    node_types = (ast.Call,)
    # Only a jitted callable with a `static_*` option has static arguments; options of an imported
    # one are in its own module.
    required_text = ("static_arg", "static_broadcasted_arg")
    fires_through_project_imports = True
    fix_availability = "none"

    def check(self, node: ast.Call, context) -> None:
        scope = context.scope(node)
        # `scope.loops` lists the scope's `for` loops and comprehensions: none, and no loop can enclose the call.
        if not (node.args or node.keywords) or scope.in_traced or not scope.loops:
            return
        loops = [loop for loop in flow.enclosing_loops(node) if isinstance(loop, (ast.For, ast.AsyncFor))]
        if not loops:
            return
        binding = context.model.jit_binding_for_call(node) or _batched_binding(node, context)  # the dearest test, last
        if binding is None:
            return
        arguments: list[tuple[ast.expr, str]] = [
            (argument, f"static argument {position}" if keyword is None else f"static argument `{keyword}`")
            for argument, position, keyword in passed_arguments(node)
            if binding.is_static(position, keyword)
        ]
        if not arguments:
            return
        callee = binding.key if binding.key != "<inline>" else "the jitted function"
        for argument, where in arguments:
            varying = _varying_name(argument, loops, context)
            if varying is None:
                continue
            if _element_also_static(argument, arguments, loops[0]):
                continue
            if _selects_python_item(argument, node, binding, context):
                continue
            context.report(
                argument,
                f"{where} of `{callee}` takes a new value (`{varying}`) every iteration: one compilation per value; "
                f"pass it as a traced argument, or bucket it into a few values",
            )


def _batched_binding(call: ast.Call, context):
    """The jitted function a `vmap` of it called on the spot runs (`jax.vmap(sim, in_axes=(0, None))(keys,
    eta)`): `vmap` hands each argument on at its position, and an unbatched one (`None` axis) unchanged,
    so a static argument stays static and compiles once per value as in a direct call."""
    function = call.func
    if not (isinstance(function, ast.Call) and function.args and context.model.transform_of(function.func) in jaxapi.VMAP_LIKE):
        return None
    inner = function.args[0]
    return context.model.jit_binding_for_name(inner) if isinstance(inner, (ast.Name, ast.Attribute)) else None


def _varying_name(argument: ast.expr, loops: list, context) -> str | None:
    if not _many_valued(argument):
        return None
    names = {n.id for n in walk(argument) if isinstance(n, ast.Name)}
    for depth, loop in enumerate(loops):
        counters = _counters(loop, context)
        if counters is None:
            continue
        per_iteration = set(counters)
        # Names computed from the counter in the loop body (`n = 2 ** i`).
        for child in flow.walk_same_scope(loop):
            if isinstance(child, ast.Assign) and len(child.targets) == 1 and isinstance(child.targets[0], ast.Name):
                if _many_valued(child.value) and {n.id for n in walk(child.value) if isinstance(n, ast.Name)} & per_iteration:
                    per_iteration.add(child.targets[0].id)
        found = names & per_iteration
        if found:
            # Varying with an outer loop only (`for task ...: for epoch ...: f(x, task)`): one
            # compilation per outer iteration, which the inner loop's calls reuse.
            if depth > 0 or _repeats_item_indices(loop):
                return None
            return sorted(found)[0]
    return None


def _element_also_static(argument: ast.expr, arguments: list[tuple[ast.expr, str]], loop) -> bool:
    """Another static argument of the call is the loop's item itself (`for i, (key, env) in
    enumerate(zip(keys, envs)): train(key, state, env, i)` with `env` and `i` static), or an item
    taken by the counter (`env = envs[i]`): every iteration compiles for its own item anyway, so
    the counter beside it costs no compilation of its own."""
    items = flow.target_names(loop.target)
    counter = loop.target.elts[0] if isinstance(loop.target, ast.Tuple) and loop.target.elts else loop.target
    if isinstance(counter, ast.Name):
        items.discard(counter.id)
        for child in flow.walk_same_scope(loop):
            if (
                isinstance(child, ast.Assign) and len(child.targets) == 1 and isinstance(child.targets[0], ast.Name)
                and isinstance(child.value, ast.Subscript) and counter.id in flow.loaded_names(child.value.slice)
            ):
                items.add(child.targets[0].id)
    return any(
        other is not argument and isinstance(other, ast.Name) and other.id in items
        for other, _ in arguments
    )


def _selects_python_item(argument: ast.expr, call: ast.Call, binding, context) -> bool:
    """The jitted function uses the parameter as an index into a Python container (`env =
    envs[env_idx]`, `envs` a list): the program differs per value by design, and a traced index
    could not select the item."""
    function = binding.function
    if function is None:
        return False
    if argument in call.args:
        position = call.args.index(argument)
        params = binding.param_names or []
        name = params[position] if position < len(params) else None
    else:
        name = next((keyword.arg for keyword in call.keywords if keyword.value is argument), None)
    if name is None:
        return False
    for node in flow.walk_same_scope(function.node):
        if (
            isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id == name
            and isinstance(node.value, ast.Name) and containers.python_collection(node.value, function, context)
        ):
            return True
    return False


def _repeats_item_indices(loop) -> bool:
    """`for i in range(len(paths))` or `for i, p in enumerate(paths)` inside another loop that leaves
    `paths` alone: the same indices come round every outer iteration, so each compiles once, in the
    first, and is reused after."""
    iterable = loop.iter
    if not (isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and len(iterable.args) == 1):
        return False
    if iterable.func.id == "range":
        length = iterable.args[0]
        if not (isinstance(length, ast.Call) and isinstance(length.func, ast.Name) and length.func.id == "len" and len(length.args) == 1):
            return False
        collection = length.args[0]
    elif iterable.func.id == "enumerate":
        collection = iterable.args[0]
    else:
        return False
    if not isinstance(collection, (ast.Name, ast.Attribute)):
        return False
    read = flow.loaded_names(collection)
    outer = list(flow.enclosing_loops(loop))
    return bool(outer) and not any(read & flow.assigned_in(enclosing) for enclosing in outer)


def _many_valued(expression: ast.expr) -> bool:
    """Arithmetic of names and numbers: `i`, `i + 1`, `2 ** i`, `start + i * stride`."""
    if isinstance(expression, ast.Name):
        return True
    if isinstance(expression, ast.Constant):
        return isinstance(expression.value, (int, float)) and not isinstance(expression.value, bool)
    if isinstance(expression, ast.BinOp) and isinstance(expression.op, (ast.Add, ast.Sub, ast.Mult, ast.Pow, ast.LShift)):
        return _many_valued(expression.left) and _many_valued(expression.right)
    return False


def _counters(loop, context) -> set[str] | None:
    """The loop's counter names when it runs over many integers: `range(n)`, `enumerate(...)`'s index."""
    iterable = loop.iter
    target = loop.target
    if not isinstance(iterable, ast.Call):
        return _varying_items(iterable, target, loop, context) or None
    qualified = context.qualified_name(iterable.func)
    if qualified == "builtins.range" and isinstance(target, ast.Name):
        if iterable.args:
            # Literal bounds, or names with one known value (`num_viz = 3`, a module constant, a config default).
            evaluator = context.model.constant_evaluator()
            scope = context.scope(loop)
            values = [evaluator.int_value(a, scope) for a in iterable.args]
            if all(value is not None for value in values):
                try:
                    if len(range(*values)) <= flow.FEW_ITERATIONS:
                        return None
                except (TypeError, ValueError):
                    return None
        return {target.id}
    if qualified == "builtins.enumerate" and isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name):
        if iterable.args and isinstance(iterable.args[0], (ast.List, ast.Tuple)) and len(iterable.args[0].elts) <= flow.FEW_ITERATIONS:
            return None
        counters = {target.elts[0].id}
        if len(target.elts) == 2 and isinstance(target.elts[1], ast.Name) and len(iterable.args) == 1:
            counters |= _varying_items(iterable.args[0], target.elts[1], loop, context)
        return counters
    return None


def _varying_items(iterable: ast.expr, target: ast.expr, loop, context) -> set[str]:
    """The item name of a loop over a sequence of many distinct values the source shows (`etas = [k / 100
    for k in range(1, 100)]`, a display of a dozen constants: flow.distinct_items): it takes a new value
    every iteration, like a counter. Empty for a few values (a handful of compilations on purpose)."""
    if not isinstance(target, ast.Name):
        return set()
    count = flow.distinct_items(iterable, context.scope(loop), context.model.constant_evaluator())
    return {target.id} if count is not None and count > flow.FEW_ITERATIONS else set()


RULE = VaryingStaticArg()
