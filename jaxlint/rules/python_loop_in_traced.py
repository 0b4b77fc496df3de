"""## What it does
Flags, in a traced function, a Python loop that JAX unrolls into a long program. A loop is any
iteration construct (semantic/iteration.py): a `for` statement or the `for` of a comprehension
(`[f(r) for r in x]`, `sum(g(r) for r in x)`), over `range(...)` or `jnp.arange(...)` alike, a
`while` that counts (`j = 0` just before, `while j < n:`, `j += 1` at the body's own level, no
`break`/`continue`: read as `for j in range(0, n)`; a `while` with any other test or exit is not a
count and is left alone), and a
builtin `sum` over a traced array (`sum(senders == -1)`: Python indexes the array row by row and adds
the rows, a loop without the `for`; not over a Python list or tuple of arrays, a pytree's leaves, a
shape, or a call of unknown kind, which may return a list; `any`/`all`/`max`/`min`/`sorted` over a
traced array raise at the first row, JAX101 reports them). A traced function is one JAX101 names as
traced, the forward pass of a Flax linen or Haiku module of a model library included (its inputs'
lengths are the data's: `for t in range(x.shape[1])` over a sequence unrolls per step).
`for i in range(N)` with `N` at or above `python-loop-threshold` (default 100, set in
`[tool.jaxlint]`) where the source fixes `N` (a literal, a module constant, a configuration default:
a dataclass's field, an argparse `default=`, also of the object a function of the module returns,
`args = parse_args()`), and a walk over the rows of a traced array: `for row in x` (`x` known to be an array: annotated so,
computed in the function, or a parameter every call of the function in the module fills with a device
array, `summarize(jnp.asarray(data))`), or a range over
its length however it is spelled (`range(len(x))`, `range(x.shape[0])`, `range(jnp.size(x))`,
`n = x.shape[0]` or `n, d = x.shape` then `range(n)`, give or take a constant, also reversed). Shorter loops of known length count their
body: a nest around a gradient computation from 8 unrolled forward and backward passes, and one around
a whole network's forward pass (`module.apply(params, ...)`, as the library models say) from 32; a
loop over a Python list whose length the source fixes (`np.split(idx, n)`, bound in the traced
function or passed by every call) counts the same way around a gradient computation.

A loop of known count whose body is only known array operations (arithmetic, comparisons, indexing,
`jnp`/`lax`/`numpy` calls that carry no body of their own, `.at[...]` updates) is sized: `count x
operations` below 1000 (semantic/unrolled_size.py) makes a program that compiles in about a second
(CPU, jax 0.10.2: 600 equations 0.9 s, 6000 equations 12 s), and is not flagged (`for _ in range(100):
x = x + x * x`); a body that calls anything else (a function of the project, a network), or holds a
loop of its own, has no size the source shows and is judged by its count.

Not flagged: ranges of a non-literal length (often a small static hyperparameter such as the number
of layers), walks over an array whose rows the source fixes below the threshold
(`for k in jax.random.split(key, 4)`, `jnp.zeros((3, d))`, `jnp.array([1., 2., 3.])`, also through a
name bound to one, a loop over a display of them, and a parameter that every call of the function
fills with one: semantic/iteration.rows_known; such a loop is judged by its body as a `range` of that
length is), walks along a later axis of an array (`range(x.shape[1])`, the entries of one row
`for j in x[i]`, the rows of one item of a table, `entry = table[i]` then `range(entry.shape[0])`: a dimension the program's structure fixes, such as features or neighbours, not the
number of data rows), except a walk the body steps through as a sequence: it reads the array's slices
at the counter along that axis (`x[:, t]`) and carries a value from step to step through a call (`h, c =
cell((h, c), x[:, t])`, a recurrence), which makes that axis time, as long as the data is (flagged), `zip` with a value that holds nothing traced (`zip(self.sets, keys)`: as many
iterations as that host value has items), loops over Python lists (also the starred target of an unpacking, `key, *subkeys =
split(key, n)`, which Python makes a list, a list extended by a display, `items += [...]`, and a
name under `if isinstance(x, (list, tuple)):`, a sequence there whatever its annotation says) or pytrees (also `zip(keys, leaves)` with the leaves of
`tree_flatten`: one iteration per leaf, and `zip(nodes, keys)` beside a dict, list or dict view:
one iteration per item), loops outside traced code, loops whose body branches in Python on a traced value (`if x[i] > 0:`:
tracing raises at the first iteration, nothing unrolls, JAX101 reports the branch), and loops in a function only `vmap` or autodiff
trace outside any `jit` (`jax.vmap(train)(keys)` at top level runs op by op: no program is compiled,
so the loop costs time per iteration but no compile time).
Test code is not flagged (a `test*` function, a `Test*` class, a test module: `*_test.py`,
`conftest.py`, test helpers, or a `test_*.py` written as a test): a test compiles its function once,
and that compile time is the test's own; every rule whose finding is a cost or the quality of
computed values follows this one policy (semantic/test_code.py).

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
from jaxlint.semantic import containers, flow, iteration, unrolled_size
from jaxlint.semantic.bindings import bound_values
from jaxlint.semantic.jaxapi import ARRAY_SEQUENCE_CALLS
from jaxlint.semantic.model import ARRAY, NONE

UNROLL = 8


class PythonLoopInTraced(Rule):
    code = "JAX304"
    name = "python-loop-in-traced"
    summary = "Long Python loop unrolled into a traced function"
    skips_test_code = True
    node_types = (ast.For, ast.While, *iteration.COMPREHENSIONS, ast.Call)
    traced_code_only = True
    fix_availability = "sometimes"

    def check(self, node: ast.AST, context) -> None:
        if isinstance(node, ast.Call) and iteration.walked_by_builtin(node, context.model) is None:
            return
        counted = iteration.counted_while(node) if isinstance(node, ast.While) else None
        if isinstance(node, ast.While) and counted is None:
            return
        if not context.is_traced_code(node) or context.model.runs_concretely(context.scope(node)):
            return  # autodiff alone (no jit) sees concrete values
        if context.model.runs_uncompiled(context.scope(node)):
            return  # `jax.vmap(f)(xs)` outside jit runs op by op: the loop is never unrolled into a program
        scope = context.scope(node)
        threshold = getattr(context.settings, "python_loop_threshold", 100) or 100
        if isinstance(node, ast.Call):
            self._check_builtin_walk(node, scope, threshold, context)
            return
        if _branches_on_traced_value(node, scope, context):
            return  # tracing stops at the first iteration's branch (JAX101): the loop never unrolls
        if _enclosing_loop_reported(node, scope, threshold, context):
            return  # the loop nest is reported once, at its outermost loop that reaches the threshold
        if _stacked_per_row(node, context):
            return  # `jnp.stack([f(x) for x in xs])`: batching, reported by JAX403 with the `vmap` advice
        for loop in [counted] if counted is not None else iteration.iterations(node):
            if self._check_iteration(loop, scope, threshold, context):
                return  # one finding per comprehension, at its first `for` that unrolls

    def _check_builtin_walk(self, call: ast.Call, scope, threshold: int, context) -> None:
        """`sum(x == c)` over a traced array: Python's `sum` walks the array row by row, one indexing
        operation and one `+` per row unrolled into the program. (`any`/`all`/`max`/`min`/`sorted` test
        or compare each row: tracing raises at the first one, JAX101 reports it; nothing unrolls.)"""
        qualified = context.qualified_name(call.func)
        if qualified in iteration.TRUTH_TESTING_BUILTINS:
            return
        walked = iteration.walked_by_builtin(call, context.model)
        if walked is None or not traced_array_walked(walked, call, scope, context):
            return
        made = iteration.rows_made(walked, scope, context.model)
        if made is not None and made < threshold:
            return  # `sum(jax.random.split(key, 4))`: as many rows as the source fixes, a few
        name = qualified.removeprefix("builtins.")
        context.report(
            call,
            f"builtin `{name}` over traced array `{snippet(context.text(walked))}` walks it row by row: one indexing "
            f"operation and one `+` per row unrolled into `{scope.name}`: the program grows with the array's length; use "
            f"`jnp.{name}({snippet(context.text(walked))}, axis=0)`",
        )

    def _check_iteration(self, loop: iteration.Iteration, scope, threshold: int, context) -> bool:
        node, iterable = loop.owner, loop.iterable
        kind = "comprehension" if loop.comprehension else "`while` loop" if isinstance(node, ast.While) else "`for` loop"
        bounds = _literal_range(iterable, context)
        items = _list_length(iterable, scope, context) if bounds is None else None
        if items is not None:
            # A Python list of a known length (`np.split(idx, n)`): one iteration per item on purpose, so
            # only a nest of whole gradient steps or network passes is reported, not the length alone.
            grad_steps = _grad_steps(node, scope, items, context)
            if grad_steps is not None:
                context.report(
                    node,
                    f"this {kind} over a list of {items} items unrolls {grad_steps} gradient steps (forward and "
                    f"backward pass each) into traced function `{scope.name}`: the program and its compile time grow "
                    f"with every step; stack the items and use `lax.scan` over them",
                    end_node=iterable,
                )
                return True
        if bounds is not None:
            start, stop, step = bounds
            count = len(range(start, stop, step))
            grad_steps = _grad_steps(node, scope, count, context)
            passes = _network_passes(node, scope, count, context) if grad_steps is None and count < threshold else None
            if count < threshold and grad_steps is None and passes is None:
                return False
            if grad_steps is None and _small_program(node, count, context):
                return False  # `range(100)` of a few elementwise operations: the whole program compiles in about a second
            if passes is not None:
                context.report(
                    node,
                    f"this {kind} unrolls {passes} forward passes of a network into traced function `{scope.name}`: "
                    f"the program and its compile time grow with every pass; use `lax.scan` over the steps",
                    end_node=iterable,
                )
                return True
            if count >= threshold:
                literal = bounds == _literal_range(iterable, context, constants=False)
                fix = fori_loop.fori_fix(node, start, stop, step, scope, context) if literal and not loop.comprehension and _counts_with_range(iterable, context) else None
                context.report(
                    node,
                    f"this {kind} unrolls {count} copies of its body into traced function `{scope.name}`: compile "
                    f"time grows super-linearly; use `lax.fori_loop` (or `lax.scan`)",
                    fix=fix,
                    end_node=iterable,
                )
            else:
                context.report(
                    node,
                    f"these nested {'loops' if loop.comprehension else '`for` loops'} unroll {grad_steps} gradient steps (forward and backward pass each) into "
                    f"traced function `{scope.name}`: the program and its compile time grow with every step; use "
                    f"`lax.scan` (or `lax.fori_loop`) over the steps",
                    end_node=iterable,
                )
            return True
        if containers.narrowed_to_sequence(iterable, node):
            return False  # under `if isinstance(x, (list, tuple)):` the loop walks a Python sequence's items
        known = _rows_at_most(iterable, scope, context)
        if known is not None and known < threshold:
            # The rows of an array the source fixes (`jnp.array([1., 2., 3.])`, at every call): a short
            # loop of known length, judged by what its body unrolls, as a `range` of that length is.
            grad_steps = _grad_steps(node, scope, known, context)
            passes = _network_passes(node, scope, known, context) if grad_steps is None else None
            if grad_steps is None and passes is None:
                return False
            what = f"{grad_steps} gradient steps (forward and backward pass each)" if grad_steps is not None else f"{passes} forward passes of a network"
            context.report(
                node,
                f"this {kind} over the {known} rows of `{snippet(context.text(iteration.walked(iterable, context.model)))}` unrolls "
                f"{what} into traced function `{scope.name}`: the program and its compile time grow with every step; use `lax.scan` over the steps",
                end_node=iterable,
            )
            return True
        sized = _data_sized(iterable, scope, context)
        if sized is not None:
            context.report(
                node,
                f"{kind} over `{snippet(context.text(iterable))}` unrolls one copy of its body per row of traced "
                f"array `{snippet(context.text(sized))}` into `{scope.name}`, and every new length compiles again; use "
                f"`lax.scan` or `lax.fori_loop`",
                end_node=iterable,
            )
            return True
        rows = iteration.rows_walked(iterable, scope, context.model)
        if rows is not None and rows.axis == 0 and iteration.item_of(rows.array, scope, context.model) is not None:
            # The rows of one item of a table (`row = table[i]`): a later axis of the table. A walk that
            # steps through them as a sequence (`h = cell(h, row[t])`) is time, as long as the data is.
            stepped = _sequence_walk(node, iterable, rows, scope, context) if not loop.comprehension else None
            if stepped is not None:
                context.report(
                    node,
                    f"`for` loop over `{snippet(context.text(iterable))}` steps through the rows of "
                    f"`{snippet(context.text(rows.array))}`, carrying `{stepped}` from step to step, and unrolls one copy of its "
                    f"body per step into `{scope.name}`: every new sequence length compiles again; use `lax.scan` over them",
                    end_node=iterable,
                )
                return True
            return False
        if rows is not None and not rows.leading:
            stepped = _sequence_walk(node, iterable, rows, scope, context) if not loop.comprehension else None
            if stepped is not None:
                context.report(
                    node,
                    f"`for` loop over `{snippet(context.text(iterable))}` steps through axis {rows.axis} of traced array "
                    f"`{snippet(context.text(rows.array))}`, carrying `{stepped}` from step to step, and unrolls one copy of its "
                    f"body per step into `{scope.name}`: every new sequence length compiles again; use `lax.scan` over that axis",
                    end_node=iterable,
                )
                return True
            return False  # one row of a matrix (`for j in x[i]`): its few entries along an axis the program fixes
        made = iteration.rows_made(iteration.walked(iterable, context.model), scope, context.model)
        if made is not None and made < threshold:
            return False  # `for k in jax.random.split(key, 4)`: as many rows as the source fixes, a few
        if (
            (context.level(iterable, scope) == ARRAY or _callers_pass_arrays(iterable, scope, threshold, context))
            and not flow.iterates_mapping(node)
            and not _list_at_every_call(iterable, scope, context) and not containers.python_collection(iterable, scope, context)
        ):
            context.report(
                node,
                f"{kind} over traced array `{snippet(context.text(iterable))}` unrolls one copy of its body per row "
                f"into `{scope.name}`; use {'`jax.vmap` or `lax.scan`' if loop.comprehension else '`lax.scan` or `lax.fori_loop`'} over the rows",
                end_node=iterable,
            )
            return True
        return False


def traced_array_walked(walked: ast.expr, call: ast.Call, scope, context) -> bool:
    """What a builtin walks (`sum(x == c)`) is a traced array, not a Python container of arrays: an
    expression computed on arrays (a comparison, arithmetic, a `jnp` call, an item or attribute of
    an array) or a name of one, never a display, a pytree's leaves, a list every call passes, or a
    call of unknown kind (a helper may return a list)."""
    if context.level(walked, scope) != ARRAY:
        return False
    if isinstance(walked, (ast.Compare, ast.BinOp, ast.UnaryOp)):
        return True
    if isinstance(walked, ast.Call):
        qualified = context.qualified_name(walked.func) or ""
        return qualified.startswith(("jax.numpy.", "jax.lax.", "jax.nn.", "jax.random.")) and qualified not in ARRAY_SEQUENCE_CALLS
    if isinstance(walked, (ast.Name, ast.Attribute, ast.Subscript)):
        return not (
            containers.python_collection(walked, scope, context) or _leaves_list(walked, scope, context)
            or _list_at_every_call(walked, scope, context) or containers.narrowed_to_sequence(walked, call)
        )
    return False


def _stacked_per_row(node: ast.AST, context) -> bool:
    """The comprehension is the list a `jnp.stack`/`jnp.array` call stacks, one traceable call per row
    of an array (python_loop_batching.per_row_calls: JAX403's finding)."""
    from jaxlint.rules.python_loop_batching import per_row_calls
    from jaxlint.semantic.model import parent_of

    stacker = parent_of(node)
    return isinstance(node, ast.ListComp) and isinstance(stacker, ast.Call) and per_row_calls(stacker, context) is not None


def _branches_on_traced_value(loop: ast.For, scope, context) -> bool:
    """The loop body tests a traced value in a Python `if`/`while` (`if col[i] != 0:`): tracing raises
    at the first iteration, so no program is built and nothing unrolls; JAX101 reports the branch."""
    for child in flow.walk_same_scope(loop):
        if isinstance(child, (ast.If, ast.While)) and child is not loop and context.level(child.test, scope) == ARRAY:
            return True
    return False


def _list_at_every_call(iterable: ast.expr, scope, context) -> bool:
    """`for idx in idxes` over a parameter that every call of the jitted function fills with a Python
    list (`update_epoch(state, [idx[i:i + n] for i in ...])`, or a name bound to one): the loop walks
    the list's few entries at trace time, whatever the annotation says."""
    if not isinstance(iterable, ast.Name) or iterable.id not in scope.params:
        return False
    calls = context.model.entry_calls(scope)
    if not calls:
        return False
    position = scope.params.index(iterable.id)
    for call in calls:
        argument = call.args[position] if position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args) else None
        if argument is None:
            argument = next((k.value for k in call.keywords if k.arg == iterable.id), None)
        if not containers.python_list(argument, context.model.scope_for(call)):
            return False
    return True


_LEAVES = frozenset({"jax.tree_util.tree_leaves", "jax.tree.leaves", "jax.tree_util.tree_flatten", "jax.tree.flatten"})


def _leaves_list(argument: ast.expr, scope, context) -> bool:
    """A Python list of a pytree's leaves (`tree_leaves(params)`, or `flat` of `flat, treedef =
    tree_flatten(params)`), or a list display."""
    if containers.python_list(argument, scope):
        return True
    if isinstance(argument, ast.Call):
        return context.qualified_name(argument.func) in ("jax.tree_util.tree_leaves", "jax.tree.leaves")
    if not isinstance(argument, ast.Name):
        return False
    for target, value in scope.bindings:
        if not isinstance(value, ast.Call) or context.qualified_name(value.func) not in _LEAVES:
            continue
        if isinstance(target, ast.Name) and target.id == argument.id and not context.qualified_name(value.func).endswith("flatten"):
            return True
        if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name) and target.elts[0].id == argument.id:
            return True  # `flat, treedef = tree_flatten(params)`
    return False


# Annotations of a Python container: a parameter so annotated holds items, not an array.
# A loop nest around a gradient computation is reported from this many unrolled steps on: each
# step is a whole forward and backward pass, so a few already make a large program.
GRAD_STEP_THRESHOLD = 8


def _literal_range(iterable: ast.expr, context, constants: bool = True) -> tuple[int, int, int] | None:
    """(start, stop, step) of the range of numbers a loop walks (`range(...)`, `jnp.arange(...)`, also
    `reversed(...)` of one: semantic/iteration.py) whose bounds are known: literals, or with
    `constants`, module constants and configuration defaults."""
    if isinstance(iterable, ast.Call) and context.qualified_name(iterable.func) == "builtins.reversed" and len(iterable.args) == 1:
        iterable = iterable.args[0]
    if not isinstance(iterable, ast.Call) or context.qualified_name(iterable.func) not in _RANGES:
        return None
    arguments = iteration.range_arguments(iterable, context.model)
    if arguments is None:
        return None
    evaluator = context.model.constant_evaluator()
    scope = context.scope(iterable)
    values = []
    for argument in arguments:
        if argument is None:
            values.append(None)
        elif isinstance(argument, ast.Constant) and isinstance(argument.value, int) and not isinstance(argument.value, bool):
            values.append(argument.value)
        elif isinstance(argument, ast.UnaryOp) and isinstance(argument.op, ast.USub) and isinstance(argument.operand, ast.Constant) and isinstance(argument.operand.value, int):
            values.append(-argument.operand.value)
        elif constants and (value := evaluator.int_value(argument, scope)) is not None:
            values.append(value)
        else:
            return None
    start, stop, step = values
    if step == 0:
        return None
    return (0 if start is None else start, stop, 1 if step is None else step)


_RANGES = frozenset({"builtins.range", "jax.numpy.arange", "numpy.arange"})


def _counts_with_range(iterable: ast.expr, context) -> bool:
    """A `for` over `range(...)` (the `fori_loop` rewrite keeps the index a Python-like integer)."""
    if isinstance(iterable, ast.Call) and context.qualified_name(iterable.func) == "builtins.reversed" and len(iterable.args) == 1:
        iterable = iterable.args[0]
    return isinstance(iterable, ast.Call) and context.qualified_name(iterable.func) == "builtins.range"


_SPLITS = frozenset({"numpy.split", "numpy.array_split", "jax.numpy.split", "jax.numpy.array_split"})


def _list_length(iterable: ast.expr, scope, context) -> int | None:
    """The length of the Python list a loop walks, when the source fixes it: a name bound once to
    `np.split(x, n)` (n sections, n known), or a parameter of the traced function that every call
    fills with such a list (the smallest length)."""
    if not isinstance(iterable, ast.Name):
        return None
    if iterable.id in scope.params:
        calls = context.model.entry_calls(scope)
        if not calls:
            return None
        position = scope.params.index(iterable.id)
        lengths = []
        for call in calls:
            if any(isinstance(a, ast.Starred) for a in call.args):
                return None
            passed = call.args[position] if position < len(call.args) else next((k.value for k in call.keywords if k.arg == iterable.id), None)
            length = _split_length(passed, context.model.scope_for(call), context) if passed is not None else None
            if length is None:
                return None
            lengths.append(length)
        return min(lengths)
    return _split_length(iterable, scope, context)


def _split_length(value: ast.expr, scope, context) -> int | None:
    from jaxlint.semantic.bindings import bound_values

    if isinstance(value, ast.Name):
        found = bound_values(context.model, value.id, scope)
        if found is None or len(found[1]) != 1 or not isinstance(found[1][0], ast.Call):
            return None
        scope, value = found[0], found[1][0]
    if not (isinstance(value, ast.Call) and context.qualified_name(value.func) in _SPLITS and len(value.args) == 2):
        return None
    sections = context.model.constant_evaluator().int_value(value.args[1], scope)
    return sections if sections is not None and sections > 0 else None


def _trip_count(loop: ast.AST, context) -> int | None:
    """Iterations of a `for` statement, or of a comprehension (all its `for` clauses), over ranges of
    known bounds."""
    total = 1
    for each in iteration.iterations(loop):
        bounds = _literal_range(each.iterable, context)
        if bounds is None:
            return None
        total *= len(range(*bounds))
    return total if iteration.iterations(loop) else None


def _grad_steps(loop: ast.For, scope, count: int, context) -> int | None:
    """Total gradient computations a loop nest unrolls, when at least GRAD_STEP_THRESHOLD: the trip
    counts of the loops around each gradient call multiplied, every count known."""
    return _most_unrolled(loop, count, context, GRAD_STEP_THRESHOLD, lambda call: _is_gradient_call(call, scope, context))


# A loop nest around a whole network's forward pass (`module.apply(params, ...)`) is reported from this
# many unrolled passes on: each copy is a whole network in the program.
NETWORK_PASS_THRESHOLD = 32


def _network_passes(loop: ast.For, scope, count: int, context) -> int | None:
    """Total forward passes of a network a loop nest unrolls, when at least NETWORK_PASS_THRESHOLD:
    the trip counts of the loops around each call the library models say runs a whole network
    (`module.apply(...)`), every count known."""
    from jaxlint.semantic import library_models

    def runs_network(call: ast.Call) -> bool:
        entry = library_models.call_model(context.model, call)
        return entry is not None and entry.runs_model

    return _most_unrolled(loop, count, context, NETWORK_PASS_THRESHOLD, runs_network)


def _most_unrolled(loop: ast.For, count: int, context, threshold: int, counts_call) -> int | None:
    """The most copies of one call `counts_call` accepts that the loop nest unrolls (`count`
    iterations of `loop` times the trip counts of the loops between it and the call, every count
    known), when at least `threshold`."""
    best = None
    for call in flow.walk_same_scope(loop):
        if not isinstance(call, ast.Call) or not counts_call(call):
            continue
        total = count
        for inner in flow.enclosing_loops(call):
            if inner is loop:
                break
            inner_count = _trip_count(inner, context)
            if inner_count is None:
                total = None
                break
            total *= inner_count
        if total is not None and total >= threshold and (best is None or total > best):
            best = total
    return best


def _is_gradient_call(call: ast.Call, scope, context) -> bool:
    """`jax.grad(f)(x)`, or a call of a name bound once to `jax.grad(...)`/`jax.value_and_grad(...)`."""
    from jaxlint.semantic.bindings import bound_values

    function = call.func
    if isinstance(function, ast.Name):
        found = bound_values(context.model, function.id, scope)
        if found is None or len(found[1]) != 1:
            return False
        function = found[1][0]
    return isinstance(function, ast.Call) and context.qualified_name(function.func) in _GRADIENTS


_GRADIENTS = frozenset({"jax.grad", "jax.value_and_grad", "equinox.filter_grad", "equinox.filter_value_and_grad"})


def _enclosing_loop_reported(loop: ast.For, scope, threshold: int, context) -> bool:
    for outer in flow.enclosing_loops(loop):
        if not isinstance(outer, (ast.For, *iteration.COMPREHENSIONS)) or context.scope(outer) is not scope:
            return False
        count = _trip_count(outer, context)
        if count is not None and (
            count >= threshold or _grad_steps(outer, scope, count, context) is not None
            or _network_passes(outer, scope, count, context) is not None
        ):
            return True
        if any(_data_sized(loop.iterable, scope, context) is not None for loop in iteration.iterations(outer)):
            return True  # the outer loop walks a traced array's rows: the nest is reported there
    return False


def _data_sized(iterable: ast.expr, scope, context) -> ast.expr | None:
    """The traced array whose rows a loop counts (semantic/iteration.py): a range over its length
    (`range(len(x))`, `range(x.shape[0])`, `range(jnp.size(x))`, `n = x.shape[0]` then `range(n)`),
    `enumerate(x)` or `zip(x, y)`. Its length along a later axis (`x.shape[1]`) is not counted: a
    dimension the program's structure fixes (features, neighbours, coordinates), not the data's."""
    if not isinstance(iterable, ast.Call) or iterable.keywords and iteration.range_arguments(iterable, context.model) is None:
        return None
    qualified = context.qualified_name(iterable.func)
    if qualified == "builtins.reversed" and len(iterable.args) == 1:
        return _data_sized(iterable.args[0], scope, context)
    if iteration.range_arguments(iterable, context.model) is not None:
        rows = iteration.rows_walked(iterable, scope, context.model)
        if rows is None or not rows.leading:
            return None
        if rows.axis == 0 and iteration.item_of(rows.array, scope, context.model) is not None:
            return None  # `row = table[i]`, `range(row.shape[0])`: the table's second axis (judged with a later axis, below)
        level = context.level(rows.array, scope)
        # `x.shape`, `jnp.size(x)` say `x` is an array; `len(x)` also measures lists: only a traced array counts.
        return rows.array if level == ARRAY or (rows.by_shape and level and not containers.python_collection(rows.array, scope, context)) else None
    if qualified in ("builtins.zip", "builtins.enumerate") and iterable.args:
        if qualified == "builtins.zip" and any(
            _leaves_list(argument, scope, context) or containers.python_collection(argument, scope, context) for argument in iterable.args
        ):
            # `zip(keys, leaves)`, `zip(nodes, keys)` with a dict of nodes: one iteration per leaf or
            # item of a Python collection, a count set by the program, not by the data.
            return None
        if qualified == "builtins.enumerate" and containers.python_collection(iterable.args[0], scope, context):
            return None  # `enumerate(subkeys)` over a Python list: one iteration per item the program made
        if qualified == "builtins.zip" and any(_host_value(argument, scope, context) for argument in iterable.args):
            return None  # `zip(self.sets, keys)`: as many iterations as the host value has items, a count the program sets
        for argument in iterable.args[:1] if qualified == "builtins.enumerate" else iterable.args:
            if context.level(argument, scope) == ARRAY:
                return argument
    return None


def _sequence_walk(loop: ast.AST, iterable: ast.expr, rows: iteration.Rows, scope, context) -> str | None:
    """A range over a later axis of a traced array (`range(x.shape[1])`, `t_len = x.shape[1]`) that the
    body steps through as a sequence: it reads the array's slices at the loop's counter along that axis
    (`x[:, t]`, `out.at[:, t].set(...)`) and carries a value from one step to the next through a call
    (`h, c = cell((h, c), x[:, t])`: a recurrence, the next step needs this one's result). Such an axis
    is time, not features: its length is the data's. The carried name, or None. A loop over the
    entries of one row (`for j in x[i]`), or over a later axis with no recurrence (a column at a time,
    each on its own), is a dimension the program's structure fixes."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.target, ast.Name):
        return None
    if iteration.range_arguments(iterable, context.model) is None:
        return None
    if not (context.level(rows.array, scope) == ARRAY or (rows.by_shape and context.level(rows.array, scope))):
        return None
    counter = loop.target.id
    if rows.axis == 0:
        walked_name = flow.dotted_name(rows.array)
        indexes = lambda node: _indexes_rows(node, counter, walked_name)  # noqa: E731
    else:
        indexes = lambda node: _indexes_axis(node, counter, rows.axis)  # noqa: E731
    if not any(indexes(node) for statement in loop.body for node in flow.walk_same_scope(statement)):
        return None
    for statement in loop.body:  # (the loop's own level: a recurrence on every step)
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and isinstance(statement.value, ast.Call):
            carried = flow.rebinds_handed(statement, statement.value)
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            named = [flow.dotted_name(e) for target in targets for e in flow.target_elements(target) if flow.dotted_name(e) in carried]
            if named:
                return named[0]
    return None


def _small_program(loop: ast.AST, count: int, context) -> bool:
    """The unrolled loop makes a program that compiles in about a second: every operation of its body
    is a known array operation (semantic/unrolled_size.py) and `count` copies of them stay below
    `SMALL_PROGRAM` operations."""
    operations = unrolled_size.operations_per_iteration(loop, context.model)
    return operations is not None and count * operations < unrolled_size.SMALL_PROGRAM


def _rows_at_most(iterable: ast.expr, scope, context) -> int | None:
    """How many rows the array a loop walks has (`for r in x`, `range(len(x))`, `range(x.shape[0])`)
    where the source fixes them (semantic/iteration.rows_known: also at every call of the function)."""
    if isinstance(iterable, ast.Call) and context.qualified_name(iterable.func) in ("builtins.zip", "builtins.enumerate") and iterable.args:
        # `zip` stops at its shortest argument: one of known rows bounds it.
        known = [_rows_at_most(argument, scope, context) for argument in iterable.args[:1] if context.qualified_name(iterable.func) == "builtins.enumerate"] or [
            _rows_at_most(argument, scope, context) for argument in iterable.args
        ]
        known = [count for count in known if count is not None]
        return min(known) if known else None
    rows = iteration.rows_walked(iterable, scope, context.model)
    if rows is None or rows.axis != 0:
        return None
    return iteration.rows_known(rows.array, scope, context.model)


def _indexes_rows(node: ast.AST, counter: str, name: str | None) -> bool:
    """`x[t]`, `x[t, :]`, `x[t:t + 1]` of the walked array `name` with `t` the counter in its first index."""
    if name is None or not isinstance(node, ast.Subscript) or flow.dotted_name(node.value) != name:
        return False
    first = node.slice.elts[0] if isinstance(node.slice, ast.Tuple) and node.slice.elts else node.slice
    return any(isinstance(n, ast.Name) and n.id == counter for n in ast.walk(first))


def _indexes_axis(node: ast.AST, counter: str, axis: int) -> bool:
    """`x[:, t]`, `x[:, t:t + 1]`, `x[:, t, :]` with `t` the counter at position `axis` after full slices."""
    if not isinstance(node, ast.Subscript) or not isinstance(node.slice, ast.Tuple) or len(node.slice.elts) <= axis:
        return False
    leading = node.slice.elts[:axis]
    if not all(isinstance(e, ast.Slice) and e.lower is None and e.upper is None and e.step is None for e in leading):
        return False
    return any(isinstance(n, ast.Name) and n.id == counter for n in ast.walk(node.slice.elts[axis]))


def _callers_pass_arrays(iterable: ast.expr, scope, threshold: int, context) -> bool:
    """`for row in x` with `x` a parameter of the traced function that every visible call of it in this
    module fills with a device array (`encode(jnp.ones((n, d)))`, a name bound to one), none with rows the
    call that makes it fixes below the threshold: the loop walks that array's rows, not a Python list."""
    if not isinstance(iterable, ast.Name) or iterable.id not in scope.param_nodes:
        return False
    model = context.model
    passed = model.caller_arguments(scope, iterable.id)
    if not passed:
        return False
    for argument, call in passed:
        caller = model.scope_for(call)
        if isinstance(argument, ast.Name):
            found = bound_values(model, argument.id, caller)  # (a name bound once to the array: `data = jnp.asarray(raw)`)
            if found is None or len(found[1]) != 1:
                return False
            caller, argument = found[0], found[1][0]
        if not _makes_array(argument, context):
            return False  # (a jitted call's result, a device_put: a pytree, perhaps a list of arrays)
        made = iteration.rows_made(argument, caller, model)
        if made is not None and made < threshold:
            return False
    return True


def _makes_array(value: ast.expr, context) -> bool:
    """A call that makes one array (`jnp.asarray(x)`, `jnp.ones((n, d))`, `jax.random.normal(k, s)`), not a
    sequence of them (`jnp.split`)."""
    if not isinstance(value, ast.Call):
        return False
    qualified = context.qualified_name(value.func) or ""
    return qualified.startswith(("jax.numpy.", "jax.random.")) and qualified not in ARRAY_SEQUENCE_CALLS


def _host_value(argument: ast.expr, scope, context) -> bool:
    """An argument of `zip` that holds no traced value (an attribute of `self`, a static argument),
    other than a range of numbers (which counts along with the arrays zipped with it)."""
    if iteration.range_arguments(argument, context.model) is not None:
        return False
    return not isinstance(argument, ast.Constant) and context.level(argument, scope) == NONE


RULE = PythonLoopInTraced()
