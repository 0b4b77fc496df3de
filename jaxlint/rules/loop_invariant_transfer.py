"""## What it does
Flags a host-to-device transfer of the same host data on every iteration of a Python loop:
`jnp.asarray(x)`, `jnp.array(x)` or `jax.device_put(x, ...)` inside a `for`/`while` loop, where `x`
is a NumPy array (bound only from `numpy` calls, or array methods such as `.reshape`/`.astype` on
them, before the loop) that the loop neither rebinds nor changes in place, and every other argument
(a sharding, a device, a dtype) is just as unchanged.

## Why is this bad?
Each call copies the whole host array to the device again: the bytes cross PCIe (or the host-device
link) every step although they are the same bytes as last time. With a sharded `device_put` the
host array is also split and sent to every device on every step. In a training loop this is often
the largest avoidable transfer of the step, and the device waits for it: see "Controlling data and
computation placement on devices" in https://docs.jax.dev/en/latest/faq.html and
https://docs.jax.dev/en/latest/sharded-computation.html (data is placed once with `device_put`,
then the jitted step runs on it).

## Example
```python
import jax
import jax.numpy as jnp
import numpy as np

features = np.load("features.npy")
for step in range(1000):
    params = train_step(params, jnp.asarray(features))
```

## Use instead
```python
features_on_device = jnp.asarray(features)
for step in range(1000):
    params = train_step(params, features_on_device)
```
With shardings: `batch = jax.device_put(host_batch, sharding)` once, before the loop.

## Fix safety
Unsafe (applied with `--unsafe-fixes`): the call moves to a new line just before the loop, as
`features_on_device = jnp.asarray(features)` (the host array's name with `_on_device`; `host_`,
`_np` and `_host` dropped), and the loop reads that name. The values are the same: the rule has
shown that the loop neither rebinds nor changes the host array or any other argument. What
changes: when the loop runs no iteration, the program now makes one transfer it did not make
before (and holds that device memory until the function returns); an error the transfer raises now
raises before the loop. The fix is offered only where every name the call reads is bound before the
loop, and where the device array is never donated (it now lives across iterations, and a donated
buffer is deleted after the first step): it may only reach a jitted callable that provably does not
donate that argument, a `jax.numpy`/`jax.lax`/`jax.nn` function or an operator, directly or through
the one name the loop binds it to. Anything else (an unknown call, which might donate it, a list it
is appended to, a `yield`) gets no fix.

## How the runtime mode confirms it
It counts host-to-device transfers per source line: the flagged line uploads the same bytes on
every step.

## Not flagged
An array the loop rebinds (`x = next(batches)`), changes in place (`x[i] = ...`, `x += 1`,
`np.copyto(x, ...)`, a method call on it, or any call it is passed to, which might change it), a
function parameter or attribute whose origin is unknown (it may already be on the device, where
`jnp.asarray` costs nothing), a loop over a short literal list or a small constant `range`, and
code inside a function or lambda defined in the loop. Nor a loop of a known handful of iterations
(32 or fewer, loops around it counted: `range(6)`, a literal list of curves bound before it) in code
that runs once per program (module level, a notebook cell, an entry point, a function every visible
call runs once): a few dozen copies per program are nil, whatever the array's size. Test code is
not flagged either: a test runs once.

A `device_put` of state that is already placed (the output of the jitted step) is JAX205's; `pmap`
itself, where current JAX documents `jax.shard_map` or `jit` with shardings, is JAX603's (preview).
"""

from __future__ import annotations

import ast

from jaxlint.fixes import transfer_hoist
from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic import flow, loop_cost
from jaxlint.semantic.model import FUNCTION_NODES, parent_of

_TRANSFERS = {
    "jax.numpy.asarray": "jnp.asarray",
    "jax.numpy.array": "jnp.array",
    "jax.device_put": "jax.device_put",
}
_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SMALL_RANGE = 4
# Copies per program below which the repeated transfer is nil, however large the array: a few dozen
# copies of even a 100 MB array take a fraction of a second over PCIe.
_FEW_TRANSFERS = 32
# NumPy calls that make something other than an array (a random generator), and array methods that
# return a new array (`np.arange(32).reshape(4, 8)`): `.tolist()`, `.item()` leave arrays behind.
_NOT_ARRAYS = ("numpy.random.default_rng", "numpy.random.RandomState")
# What a NumPy `Generator` or `RandomState` returns host arrays from.
_GENERATOR_DRAWS = frozenset({
    "standard_normal", "normal", "uniform", "integers", "random", "choice", "permutation", "binomial",
    "poisson", "exponential", "beta", "gamma", "multivariate_normal", "randn", "rand", "randint",
})
_ARRAY_METHODS = frozenset({"reshape", "astype", "copy", "transpose", "ravel", "flatten", "squeeze", "swapaxes", "clip", "round"})


class LoopInvariantTransfer(Rule):
    code = "JAX204"
    name = "loop-invariant-transfer"
    summary = "The same host array converted or placed on the device on every iteration of a loop"
    fix_availability = "sometimes"
    skips_test_code = True
    node_types = (ast.Call,)
    required_text = ("device_put", "asarray", "array(")

    def check(self, node: ast.AST, context) -> None:
        assert isinstance(node, ast.Call)
        qualified = context.qualified_name(node.func)
        if qualified not in _TRANSFERS or not node.args or not isinstance(node.args[0], ast.Name):
            return
        scope = context.scope(node)
        if scope.in_traced:
            return  # under jit a NumPy array is a constant of the compiled program, not a transfer
        loop = _innermost_loop(node, scope.node)
        if loop is None or flow.spells_out_few_iterations(loop, context.qualified_name, _SMALL_RANGE):
            return
        if _few_transfers_per_program(loop, scope, context.model):
            return
        data = node.args[0].id
        stored, used_otherwise = _names_changed_in(loop, node)
        others = [*node.args[1:], *(keyword.value for keyword in node.keywords)]
        if data in stored or data in used_otherwise or not all(_invariant(value, stored) for value in others):
            return
        if not _host_array_before(data, loop, scope, context):
            return
        call = f"{_TRANSFERS[qualified]}({snippet(context.text(node.args[0]))}{', ...' if others else ''})"
        context.report(
            node,
            f"`{call}` copies the same host array to the device on every iteration of this loop "
            f"(`{data}` is a NumPy array the loop does not change); transfer it once before the loop",
            fix=transfer_hoist.hoist_transfer_fix(node, loop, data, context),
        )


def _few_transfers_per_program(loop: ast.AST, scope, model) -> bool:
    """The code around the loop runs once per program and the loop body runs a known handful of
    times (`for panel in range(6)`, a curve per item of a literal list, loops around it counted):
    at most `_FEW_TRANSFERS` copies per program, nil next to a run (semantic/loop_cost.py)."""
    iterations = loop_cost.iterations_per_run(loop, scope, model)
    return iterations is not None and iterations <= _FEW_TRANSFERS and loop_cost.runs_once(scope, model)


def _innermost_loop(node: ast.AST, scope_node: ast.AST) -> ast.AST | None:
    """The loop whose body (not its header) holds `node`, within its own function."""
    child, parent = node, parent_of(node)
    while parent is not None and parent is not scope_node:
        if isinstance(parent, (*FUNCTION_NODES, ast.ClassDef)) or isinstance(parent, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return None
        if isinstance(parent, _LOOPS) and child in parent.body:
            return parent
        child, parent = parent, parent_of(parent)
    return None


def _walk_loop(loop: ast.AST):
    """Every node of the loop (header included), not entering functions, lambdas or classes defined in it."""
    stack = [loop]
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if not isinstance(child, (*FUNCTION_NODES, ast.ClassDef)):
                stack.append(child)


def _names_changed_in(loop: ast.AST, transfer: ast.Call) -> tuple[set[str], set[str]]:
    """(names the loop rebinds or may change in place, names the loop hands to anything but `transfer`).

    In place: a subscript or attribute store (`x[i] = v`, `x.flat = v`), an augmented assignment,
    `del`, a method call on the name. Handed on: an argument of any other call, which might change it."""
    stored: set[str] = set()
    handed: set[str] = set()
    for node in _walk_loop(loop):
        if isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            stored.add(node.id)
        elif isinstance(node, (ast.Subscript, ast.Attribute)) and isinstance(node.ctx, (ast.Store, ast.Del)):
            base = node.value
            while isinstance(base, (ast.Subscript, ast.Attribute)):
                base = base.value
            if isinstance(base, ast.Name):
                stored.add(base.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            stored.update(node.names)
        elif isinstance(node, ast.Call) and node is not transfer:
            if isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name):
                stored.add(node.func.value.id)  # `x.fill(0)`, `x.sort()`: may change it in place
            for argument in [*node.args, *(keyword.value for keyword in node.keywords)]:
                if isinstance(argument, ast.Starred):
                    argument = argument.value
                if isinstance(argument, ast.Name):
                    handed.add(argument.id)
    return stored, handed


def _invariant(value: ast.AST, stored: set[str]) -> bool:
    """An argument that is the same on every iteration: a constant, or names and attributes of names
    that the loop does not rebind (`sharding`, `mesh.devices`, `jnp.float32`)."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Attribute):
        return _invariant(value.value, stored)
    return isinstance(value, ast.Name) and value.id not in stored


def _host_array_before(name: str, loop: ast.AST, scope, context) -> bool:
    """Every binding of `name` in its scope is a `numpy` call that ends before the loop starts."""
    bindings = [(target, value) for target, value in scope.bindings if isinstance(target, ast.Name) and target.id == name]
    if not bindings or name in _parameters(scope.node):
        return False
    for target, value in bindings:
        if not isinstance(value, ast.Call) or not isinstance(parent_of(target), ast.Assign):
            return False
        if not _numpy_array(value, scope, context):
            return False
        if (value.end_lineno or value.lineno) >= loop.lineno:
            return False
    return True


def _numpy_array(value: ast.expr, scope, context) -> bool:
    """A NumPy array made on the host: a `numpy` call (not a random generator's constructor), a draw
    from a NumPy random generator (`rng.standard_normal(...)` with `rng = np.random.default_rng(0)`),
    or an array method that returns a new array (`.reshape`, `.astype`, ...) called on one."""
    if not isinstance(value, ast.Call):
        return False
    qualified = context.qualified_name(value.func)
    if qualified is not None:
        return qualified.startswith("numpy.") and not qualified.startswith(_NOT_ARRAYS)
    function = value.func
    if not isinstance(function, ast.Attribute):
        return False
    if function.attr in _GENERATOR_DRAWS and isinstance(function.value, ast.Name):
        return _numpy_generator(function.value.id, scope, context)
    return function.attr in _ARRAY_METHODS and _numpy_array(function.value, scope, context)


def _numpy_generator(name: str, scope, context) -> bool:
    """`name` is bound once, in the nearest scope that binds it, to `np.random.default_rng(...)` or
    `np.random.RandomState(...)`."""
    while scope is not None:
        values = [value for target, value in scope.bindings if isinstance(target, ast.Name) and target.id == name]
        if values or name in scope.local_names or name in scope.all_params():
            if len(values) != 1 or not isinstance(values[0], ast.Call) or name in scope.all_params():
                return False
            return (context.qualified_name(values[0].func) or "").startswith(_NOT_ARRAYS)
        scope = scope.parent
    return False


def _parameters(function: ast.AST) -> set[str]:
    arguments = getattr(function, "args", None)
    if not isinstance(arguments, ast.arguments):
        return set()
    every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
    return {argument.arg for argument in every if argument is not None}


RULE = LoopInvariantTransfer()
