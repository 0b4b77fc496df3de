"""What a Python loop's eager work costs per program: dispatches x iterations x runs.

Outside `jit` every JAX operation is dispatched on its own, at tens of microseconds each. That
overhead matters only multiplied out: by the operations of one iteration, by the iterations of the
loop and by how many times the code around the loop runs in a program. This module multiplies them
where the source fixes every factor, and says when the product is nil (under a second in all): a
setup loop over the 19 directions of a lattice, data prepared once over a thousand inputs, thirty
optimizer steps of a demonstration. Where any factor is unknown (a `while` loop, a loop over a data
loader, a function called per step or by other modules) nothing is claimed and the rule reports as
before: a training loop of unknown length is still many iterations.

* `runs_once(scope, model)`: the code around the loop runs once per program: module level or a
  notebook cell, an entry point (`main`, `run`, a function handed to `app.run`), or a function of
  the module that every visible call runs once (called from such code, outside any loop). A function
  nothing visible calls is not known to run once, even where its own loop is a whole run.
* `iterations_per_run(loop, scope, model)`: how many times the loop body runs per run of its
  function, counting the loops around it, a comprehension's `for` clauses as loops like any other
  (semantic/iteration.py): `range` or `jnp.arange` of known bounds (training_loops.iteration_count),
  `range(len(xs))` and `for x in xs` over a literal container or an array built from one
  (`jnp.array([[...], ...])`, its transpose `.T`), evenly spaced points (`np.linspace(a, b, 50)`,
  `np.arange(n)`) and elementwise arithmetic on these (`np.linspace(a, b, 50) / scale`, `.astype(t)`,
  `np.sqrt(...)`, a SciPy distribution's `ppf`/`cdf` of them), bound once
  in the module or the function; a constant key of a table of settings the source writes out and never
  changes (`range(settings["steps"])` with `settings = {"steps": 25, ...}`: `settings_entry`); `zip` of such iterables, as many as its shortest argument whose
  length the source fixes (`zip(positions, angles)` of two arrays built from four-row literals: 4,
  whatever the other arguments are); a `while` counting its iterations to a fixed bound, at most that
  many (`counted_while_bound`: `t = 0`, `t += 1`, `if done or t >= 50: break`; a bound that is a
  parameter counts as its default and what every visible call passes, the largest).
* `runs_per_program(scope, model)`: how many times the scope runs per program where the source fixes
  it: once, or for a function, the sum over its visible calls of the caller's count times the cases of
  the loops around the call, each over a literal list of a handful of cases (four calls from a loop
  over a four-item literal list; called on every iteration of any other loop, a per-step cost: None).
* `nil_cost(loop, dispatches, scope, model)`: the product is under `NIL_SECONDS`.
* `heavy_iteration(loop, model)`: each iteration restores saved state from storage or runs a pass of
  compiled steps (an evaluation per checkpoint, an epoch): a one-off cost per iteration (a compile)
  is paid once per checkpoint or pass, a small share of it.
"""

from __future__ import annotations

import ast

from jaxlint.semantic import iteration
from jaxlint.semantic.flow import FEW_ITERATIONS, enclosing_loops, value_at_read
from jaxlint.semantic.model import Scope, SemanticModel
from jaxlint.semantic.syntax import walk
from jaxlint.semantic.training_loops import ENTRY_POINT_NAMES, _calls_by_callee, framework_entry_point, in_loop, iteration_count, range_length

# Dispatch overhead of one eager operation (Python, argument checks, a kernel launch, a fresh buffer).
DISPATCH_SECONDS = 20e-6
# A whole computation run eagerly (a network's forward pass, a gradient, an optimizer update over
# the parameters) counted as this many operations: a gradient is the forward pass and as many again
# backwards, an optimizer update a dozen per parameter leaf; hundreds even for a small model, so
# that a hundred such steps already count (a demonstration's ten or thirty do not).
WHOLE_COMPUTATION_DISPATCHES = 500
# (Measured for gradients, benchmarks/eager_gradient_cost.py: on an H200, jax 0.11.2, one eager
# gradient costs 6.1 ms plus 0.53 ms per operation of the function, 8.8 ms for a five-operation line
# fit, about these 500 dispatches; on the CPU, jax 0.10.2, 0.17 ms per operation. The accelerator's
# figure is the one kept: a loss that is cheap to differentiate on a laptop is not on the device.)
# A gradient of a jitted function taken outside `jit` (`jax.value_and_grad(jitted_loss)(p, x)`) runs its
# forward and backward passes as compiled calls; what stays eager is the differentiation around them:
# 1.3 to 3.7 ms per call on an H200 for jitted functions of 4 to 202 operations (benchmarks/
# eager_gradient_cost.py, second table), counted as the upper end, 4 ms.
COMPILED_GRADIENT_DISPATCHES = 200
# A gradient taken outside `jit` of a plain function whose body runs a Python loop (a simulation unrolled
# lap by lap, each lap a jitted step) traces and differentiates every lap, forward and back, on every
# call: measured on the CPU (jax 0.10.2), 65 ms per gradient through 50 laps of a small jitted step,
# against 3 ms for the same gradient jitted, about 1.3 ms a lap, counted as this many dispatches a lap.
DIFFERENTIATED_LAP_DISPATCHES = 65
# An `.at[]` update outside `jit` is a scatter with its index handling, several dispatches: measured on
# the CPU (jax 0.10.2), 180 us for `x.at[i].set(v)` against 27 us for an eager multiply, 7 us for a
# small jitted call.
EAGER_UPDATE_DISPATCHES = 7
# A total overhead under a second per program is nil: nobody waits for it, and nothing is gained by
# restructuring the loop for `lax.fori_loop`.
NIL_SECONDS = 1.0

_ARRAY_BUILDERS = frozenset({
    "jax.numpy.array", "jax.numpy.asarray", "numpy.array", "numpy.asarray",
})
_CALLER_DEPTH = 2
# Evenly spaced points (a sweep over a parameter): as many as the call asks for.
_EVENLY_SPACED = frozenset({"numpy.linspace", "jax.numpy.linspace", "numpy.arange", "jax.numpy.arange"})
_LINSPACE_DEFAULT = 50


def runs_once(scope: Scope, model: SemanticModel, depth: int = _CALLER_DEPTH) -> bool:
    """The scope runs once per program: module level (a script, a notebook's cells), an entry point,
    or a function of the module whose every visible call (at least one) sits outside loops in code
    that itself runs once, up to `depth` callers up."""
    if scope.in_traced:
        return False
    if not scope.is_function:
        return True
    if scope.parent is not None and scope.parent.parent is None and ENTRY_POINT_NAMES.match(scope.name):
        return True
    if framework_entry_point(scope, model):
        return True
    # (not `runs_whole_run`: a library's `generate` whose loop calls a compiled step is one whole run
    # per call, but may be called per request; only its callers tell how often it runs)
    if depth <= 0 or isinstance(scope.node, ast.Lambda):
        return False
    calls = _calls_by_callee(model).get(scope, ())
    return bool(calls) and all(
        not in_loop(call) and runs_once(caller, model, depth - 1) for caller, call in calls
    )


def container_length(node: ast.expr, scope: Scope, model: SemanticModel, depth: int = 0) -> int | None:
    """The number of elements a `for` over `node` visits, where the source spells it out: a literal
    list or tuple, an array built from one (`jnp.array([...])`, its first axis; `.T` of a nested
    literal, its inner length), or a name bound once to one of these."""
    if depth > 3:
        return None
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return None if any(isinstance(e, ast.Starred) for e in node.elts) else len(node.elts)
    if isinstance(node, ast.Call) and node.args and model.qualified_name(node.func) in _ARRAY_BUILDERS:
        return container_length(node.args[0], scope, model, depth + 1)
    if isinstance(node, ast.Call) and model.qualified_name(node.func) in _EVENLY_SPACED:
        # `linspace(start, stop, num)`: `num` points (50 where left out); `arange(stop)`: `stop` of them.
        if model.qualified_name(node.func).endswith("linspace"):
            number = next((k.value for k in node.keywords if k.arg == "num"), node.args[2] if len(node.args) > 2 else None)
            if len(node.args) < 2 or any(k.arg not in ("num", "endpoint", "dtype") for k in node.keywords):
                return None
            endpoint = next((k.value for k in node.keywords if k.arg == "endpoint"), None)
            if endpoint is not None:
                return None
            return _LINSPACE_DEFAULT if number is None else count_value(number, scope, model, depth + 1)
        if len(node.args) == 1 and not node.keywords:
            return count_value(node.args[0], scope, model, depth + 1)
        return None
    if isinstance(node, ast.BinOp) and not isinstance(node.op, ast.MatMult):
        # `xs / scale`, `offset + xs`: elementwise with a scalar keeps the number of rows (one side of known
        # length, the other a scalar or of the same length).
        lengths = {container_length(side, scope, model, depth + 1) for side in (node.left, node.right)
                   if not isinstance(side, ast.Constant)} - {None}
        return lengths.pop() if len(lengths) == 1 else None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "astype" and len(node.args) <= 1:
        return container_length(node.func.value, scope, model, depth + 1)  # `.astype(np.float32)`: the same elements
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and _elementwise(model.qualified_name(node.func)):
        return container_length(node.args[0], scope, model, depth + 1)  # `norm.ppf(np.linspace(0.05, 0.95, 15))`: one value per point
    if isinstance(node, ast.Attribute) and node.attr == "T":
        rows = _literal_rows(node.value, scope, model, depth + 1)
        lengths = {container_length(row, scope, model, depth + 1) for row in rows} if rows else set()
        return lengths.pop() if len(lengths) == 1 else None
    if isinstance(node, ast.Name):
        found = value_at_read(node, scope, model, in_line_order=True)
        if found is not None:
            return container_length(found[1], found[0], model, depth + 1)
    return None


# Functions that map an array element by element (one value out per value in): NumPy's elementwise
# functions and a SciPy distribution's quantile, distribution and density functions.
_ELEMENTWISE_NUMPY = frozenset({"exp", "log", "sqrt", "abs", "sin", "cos", "tan", "tanh", "square", "log10", "log2", "exp2", "floor", "ceil", "round"})
_DISTRIBUTION_METHODS = frozenset({"ppf", "cdf", "pdf", "logpdf", "sf", "isf", "logcdf"})


def _elementwise(qualified: str | None) -> bool:
    if qualified is None:
        return False
    module, _, name = qualified.rpartition(".")
    if module in ("numpy", "jax.numpy"):
        return name in _ELEMENTWISE_NUMPY
    return qualified.startswith("scipy.stats.") and name in _DISTRIBUTION_METHODS


def count_value(node: ast.expr, scope: Scope, model: SemanticModel, depth: int = 0) -> int | None:
    """An integer the source fixes where `node` is read: a constant (semantic/constants), a name
    whose reaching binding is one, a parameter whose default and every visible call's argument are
    (the largest), or `len` of a container whose length is spelled out."""
    found = model.constant_evaluator().int_value(node, scope)
    if found is not None or depth > 3:
        return found
    if isinstance(node, ast.Name) and node.id in getattr(scope, "param_nodes", {}):
        # A parameter: as large as its default and what every visible call passes (`simulate(model, T)`
        # with `T = 250` above the call), as `range` bounds are counted (training_loops.iteration_count).
        from jaxlint.semantic.training_loops import _int_in_scope

        return _int_in_scope(node, scope, model)
    if isinstance(node, ast.Call) and len(node.args) == 1 and model.qualified_name(node.func) == "builtins.len":
        return container_length(node.args[0], scope, model)
    if isinstance(node, ast.Name):
        reaching = value_at_read(node, scope, model, in_line_order=True)
        if reaching is not None:
            return count_value(reaching[1], reaching[0], model, depth + 1)
    entry = settings_entry(node, scope, model)
    if entry is not None:
        return count_value(entry[1], entry[0], model, depth + 1)
    return None


# What a read of a settings table may do to it and leave its entries as written.
_READING_METHODS = frozenset({"get", "items", "keys", "values", "copy"})


def settings_entry(node: ast.expr, scope: Scope, model: SemanticModel) -> tuple[Scope, ast.expr] | None:
    """(scope, value) of a constant key read from a table of settings the source writes out and never
    changes: `run_config["n_steps"]` or `run_config.get("n_steps")` where `run_config = {"n_steps": 25,
    ...}` (or `dict(n_steps=25, ...)`) is the one binding that reaches the read, and nothing stores into
    the table, deletes from it or calls a method on it other than a read (`get`, `items`, `keys`,
    `values`, `copy`): the entry holds what the literal wrote. None otherwise (a table updated from the
    command line, `config.update(vars(args))`, or `config["n_steps"] = args.steps`)."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        table, key = node.value, node.slice.value
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
          and len(node.args) == 1 and not node.keywords and isinstance(node.args[0], ast.Constant)):
        table, key = node.func.value, node.args[0].value
    else:
        return None
    if not isinstance(table, ast.Name) or not isinstance(key, (str, int)):
        return None
    reaching = value_at_read(table, scope, model, in_line_order=True)
    if reaching is None:
        return None
    owner, literal = reaching
    entries: dict[object, ast.expr] = {}
    if isinstance(literal, ast.Dict):
        if any(k is None or not isinstance(k, ast.Constant) for k in literal.keys):
            return None  # (`{**defaults, ...}`, computed keys: not all entries are written out)
        entries = {k.value: v for k, v in zip(literal.keys, literal.values)}
    elif (isinstance(literal, ast.Call) and isinstance(literal.func, ast.Name) and literal.func.id == "dict"
          and model.qualified_name(literal.func) == "builtins.dict" and not literal.args
          and all(k.arg is not None for k in literal.keywords)):
        entries = {k.arg: k.value for k in literal.keywords}
    if key not in entries or not _left_as_written(table.id, owner, model):
        return None
    return owner, entries[key]


def _left_as_written(name: str, owner: Scope, model: SemanticModel) -> bool:
    """No code of the scope binding `name`, nor of the functions in it, stores into the table `name`,
    deletes from it, rebinds it with an operator (`|=`) or calls a method on it other than a read."""
    for node in walk(owner.node):
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == name:
            if not isinstance(node.ctx, ast.Load):
                return False
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name:
            if node.attr not in _READING_METHODS or not isinstance(node.ctx, ast.Load):
                return False
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            return False
    return True


def _literal_rows(node: ast.expr, scope: Scope, model: SemanticModel, depth: int) -> list[ast.expr] | None:
    """The rows of a nested literal (`[[...], [...]]`), through an array builder or a name bound once."""
    if depth > 3:
        return None
    if isinstance(node, (ast.List, ast.Tuple)):
        rows = list(node.elts)
        return rows or None
    if isinstance(node, ast.Call) and node.args and model.qualified_name(node.func) in _ARRAY_BUILDERS:
        return _literal_rows(node.args[0], scope, model, depth + 1)
    if isinstance(node, ast.Name):
        found = value_at_read(node, scope, model, in_line_order=True)
        if found is not None:
            return _literal_rows(found[1], found[0], model, depth + 1)
    return None


def loop_iterations(loop: ast.AST, scope: Scope, model: SemanticModel) -> int | None:
    """How many times one run of `loop` runs its body, where the source fixes it (None otherwise): a
    `for` statement, or a comprehension (its `for` clauses multiplied; an `if` clause makes that a
    bound), whatever spells its iterable (semantic/iteration.py)."""
    loops = iteration.iterations(loop)
    if not loops:
        # (a `while` runs until its test fails: unknown, unless it counts its iterations up to a bound)
        return counted_while_bound(loop, scope, model) if isinstance(loop, ast.While) else None
    total = 1
    for each in loops:
        count = _items_walked(each.iterable, scope, model)
        if count is None:
            return None
        total *= count
    return total


def counted_while_bound(loop: ast.While, scope: Scope, model: SemanticModel) -> int | None:
    """At most how many times a `while` runs its body where it counts its iterations up to a bound the
    source fixes, as `range(n)` would: a counter bound to a constant just before the loop (`t = 0`),
    raised by one on every iteration (`t += 1` at the body's own level, its one binding there, no
    `continue` that skips it) and compared with a fixed bound by the loop's test (`while t < 50:`, also
    within an `and`) or by an `if` at the body's own level that breaks out (`if done or t >= 50:
    break`): a demonstration's rollout of fifty steps, an episode cut at a step limit. None otherwise
    (a `while True` until an episode ends, a bound read from a parameter)."""
    if any(node.__class__ is ast.Continue for node in _own_statements(loop.body)):
        return None
    tests = [loop.test]
    for statement in loop.body:
        if isinstance(statement, ast.If) and any(isinstance(inner, ast.Break) for inner in statement.body):
            tests.append(statement.test)
    found: list[int] = []
    for statement in loop.body:
        if not (isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add) and isinstance(statement.target, ast.Name)
                and isinstance(statement.value, ast.Constant) and statement.value.value == 1):
            continue
        name = statement.target.id
        if sum(1 for node in ast.walk(loop) if _binds(node, name)) != 1:
            continue
        start = _start_before(loop, name, scope, model)
        if start is None:
            continue
        for index, test in enumerate(tests):
            # The loop's test holds while it runs (an `and` of conditions); a breaking `if` stops it when
            # its test holds (an `or` of conditions).
            kind = ast.And if index == 0 else ast.Or
            parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, kind) else [test]
            for part in parts:
                bound = _counter_bound(part, name, index == 0, scope, model)
                if bound is not None:
                    found.append(max(bound - start + 1, 0))
    return min(found) if found else None


def _own_statements(body: list[ast.stmt]):
    """The statements of a loop body, into compound statements but not nested loops or definitions."""
    for statement in body:
        yield statement
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for field in ("body", "orelse", "finalbody"):
            yield from _own_statements(getattr(statement, field, None) or [])
        for handler in getattr(statement, "handlers", None) or []:
            yield from _own_statements(handler.body)


def _binds(node: ast.AST, name: str) -> bool:
    if isinstance(node, ast.Name):
        return node.id == name and not isinstance(node.ctx, ast.Load)
    return isinstance(node, (ast.Global, ast.Nonlocal)) and name in node.names


def _start_before(loop: ast.While, name: str, scope: Scope, model: SemanticModel) -> int | None:
    """The constant the statement binding `name` last before the loop, in its block, binds it to."""
    from jaxlint.semantic.reaching import statement_list

    found = statement_list(loop)
    if found is None:
        return None
    block, index = found
    for statement in reversed(block[:index]):
        if not any(_binds(node, name) for node in ast.walk(statement)):
            continue
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            return count_value(statement.value, scope, model)
        return None
    return None


def _counter_bound(test: ast.expr, name: str, holds_while_running: bool, scope: Scope, model: SemanticModel) -> int | None:
    """The largest value of the counter `name` that `test` lets the loop run on (`t < 50` while
    running: 49; `t >= 50` breaking out: 49, the check may come before the increment, so one more
    iteration is counted by the caller)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1):
        return None
    left, op, right = test.left, test.ops[0], test.comparators[0]
    flipped = {ast.Lt: ast.Gt, ast.Gt: ast.Lt, ast.LtE: ast.GtE, ast.GtE: ast.LtE, ast.Eq: ast.Eq}
    if isinstance(right, ast.Name) and right.id == name:
        left, right = right, left
        op = flipped.get(op.__class__, type(None))()
    if not (isinstance(left, ast.Name) and left.id == name):
        return None
    bound = count_value(right, scope, model)
    if bound is None:
        return None
    if holds_while_running:
        return bound - 1 if isinstance(op, ast.Lt) else bound if isinstance(op, ast.LtE) else None
    return bound - 1 if isinstance(op, (ast.GtE, ast.Eq)) else bound if isinstance(op, ast.Gt) else None


def _items_walked(iterable: ast.expr, scope: Scope, model: SemanticModel) -> int | None:
    iterable = iteration.walked(iterable, model)
    found = iteration_count(iterable, scope, model)
    if found is not None:
        return found
    if (isinstance(iterable, ast.Call) and model.qualified_name(iterable.func) == "builtins.zip" and iterable.args
            and not iterable.keywords and not any(isinstance(argument, ast.Starred) for argument in iterable.args)):
        # `zip(positions, angles)` walks its arguments side by side and stops at the shortest: any
        # argument whose length the source fixes bounds the count.
        counts = [count for count in (_items_walked(argument, scope, model) for argument in iterable.args) if count is not None]
        return min(counts) if counts else None
    bounds = iteration.range_arguments(iterable, model)
    if bounds is not None:
        start, stop, step = bounds
        arguments = [stop] if start is None and step is None else [start or ast.Constant(0), stop] + ([step] if step is not None else [])
        return range_length(arguments, lambda argument: count_value(argument, scope, model))
    return container_length(iterable, scope, model)


def iterations_per_run(loop: ast.AST, scope: Scope, model: SemanticModel) -> int | None:
    """Iterations of `loop`'s body per run of its function: its own count times those of the loops
    around it in the same function, comprehensions included (None when any is unknown)."""
    total = loop_iterations(loop, scope, model)
    if total is None:
        return None
    for outer in enclosing_loops(loop):
        count = loop_iterations(outer, scope, model)
        if count is None:
            return None
        total *= count
    return total


def runs_per_program(scope: Scope, model: SemanticModel, depth: int = _CALLER_DEPTH) -> int | None:
    """How many times the scope runs per program where the source fixes it: once (`runs_once`), or, for a
    function of the module, the sum over its visible calls of how often each runs: its caller's own
    count times the cases of the loops around the call there, each a loop over a literal list of a
    handful of cases (`for kind in ["a", "b", "c", "d"]: show(kind)` in a `main` runs `show` four
    times). None where any factor is unknown, or where any loop around a call is another loop (over
    `range(epochs)`, a loader): a function called on every iteration of such a loop is a per-step
    cost, whatever the loop's length."""
    if runs_once(scope, model, depth):
        return 1
    if scope.in_traced or not scope.is_function or depth <= 0 or isinstance(scope.node, ast.Lambda):
        return None
    calls = _calls_by_callee(model).get(scope, ())
    if not calls:
        return None
    total = 0
    for caller, call in calls:
        times = runs_per_program(caller, model, depth - 1)
        if times is None:
            return None
        if in_loop(call):
            loops = list(enclosing_loops(call))
            if not loops:
                return None  # (code a `%timeit` repeats)
            for loop in loops:
                cases = _literal_cases(loop)
                if cases is None:
                    return None  # (a loop of steps, epochs or items: a cost per iteration, whatever its length)
                times *= cases
        total += times
    return total


def _literal_cases(loop: ast.AST) -> int | None:
    """How many cases a `for` over a literal list, tuple or set of a handful of items (`for kind in
    ["simple", "variational"]`) visits: each iteration a different case run once, not a step."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or not isinstance(loop.iter, (ast.List, ast.Tuple, ast.Set)):
        return None
    items = loop.iter.elts
    if any(isinstance(item, ast.Starred) for item in items) or len(items) > FEW_ITERATIONS:
        return None
    return len(items)


def nil_cost(loop: ast.AST, dispatches: int, scope: Scope, model: SemanticModel) -> bool:
    """`dispatches` eager operations per iteration of `loop` cost nothing worth restructuring for:
    the code runs a number of times per program the source fixes (once, or as often as the loops of
    known length around its calls in code run once: `runs_per_program`), its iteration count is
    known, and the product of the three with the dispatch overhead is under `NIL_SECONDS`."""
    iterations = iterations_per_run(loop, scope, model)
    if iterations is None or iterations * dispatches * DISPATCH_SECONDS >= NIL_SECONDS:
        return False
    runs = runs_per_program(scope, model)
    return runs is not None and runs * iterations * dispatches * DISPATCH_SECONDS < NIL_SECONDS


def differentiated_laps(function: Scope, call: ast.Call, model: SemanticModel) -> int | None:
    """How many laps the plain function `function` runs on one call `call` of a gradient of it
    (`jax.value_and_grad(simulate)(u0, target, steps)`) in the Python loops at its body's own level whose
    laps do device work (call compiled code, a JAX operation or a function of the module), where the source fixes each count: a
    literal list, or `range` of literals, constants, or parameters that `call` passes as constants (or
    leaves at constant defaults). None when there is no such loop or a count is unknown."""
    from jaxlint.semantic.syntax import parameter_defaults, passed_to_parameter
    from jaxlint.semantic.training_loops import _int_where_read, loop_body, runs_compiled, under_loop_branch

    node = function.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    evaluator = model.constant_evaluator()
    defaults = parameter_defaults(node.args)
    call_scope = model.scope_for(call)

    def bound(argument: ast.expr) -> int | None:
        if isinstance(argument, ast.Name) and argument.id in function.param_nodes:
            passed = passed_to_parameter([call], node, argument.id, skip_self=False)
            if passed is None:
                return None
            if passed[0] is not None:
                return _int_where_read(passed[0], call_scope, model)
            default = defaults.get(argument.id)
            return None if default is None else evaluator.int_value(default, model.scope_for(node))
        return evaluator.int_value(argument, function)

    total = 0
    for statement in node.body:
        if not isinstance(statement, ast.For):
            continue
        if not any(isinstance(inner, ast.Call) and not under_loop_branch(inner, statement)
                   and ((model.qualified_name(inner.func) or "").startswith("jax.") or runs_compiled(inner, model)
                        or (isinstance(inner.func, ast.Name) and inner.func.id in model.module_scope.defs))
                   for inner in loop_body(statement, nested=True)):
            continue
        iterable = statement.iter
        if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range" \
                and not iterable.keywords and 1 <= len(iterable.args) <= 3:
            count = range_length(iterable.args, bound)
        else:
            count = loop_iterations(statement, function, model)
        if count is None:
            return None
        total += count
    return total or None


# A jitted function of at most this many calls, none a loop, control flow or transform, is small: one
# dispatch of microseconds of work.
_SMALL_COMPILED_CALLS = 20
_SMALL_NAMESPACES = ("jax.numpy.", "jax.nn.", "jax.lax.", "jax.scipy.special.")
_NOT_SMALL = frozenset({f"jax.lax.{name}" for name in (
    "fori_loop", "scan", "while_loop", "cond", "switch", "map", "associative_scan", "custom_root", "custom_linear_solve")})
# Decompositions, solves, transforms and convolutions: work that grows faster than the array.
_HEAVY_NAMESPACES = ("jax.numpy.linalg.", "jax.numpy.fft.", "jax.lax.linalg.", "jax.lax.conv")
_SMALL_BUILTINS = frozenset({"float", "int", "len", "tuple", "list", "range", "abs", "min", "max"})


def beside_small_compiled_calls(loop: ast.AST, model: SemanticModel) -> bool:
    """Every call of compiled code that `loop`'s iteration makes is a small compiled call at its own
    level, none in a loop nested in it: a function of the module, jitted, whose body makes at most
    `_SMALL_COMPILED_CALLS` calls, each an array operation (`jax.numpy`, `jax.nn`, `jax.lax` outside
    its control flow; not a decomposition, solve, transform or convolution) or another small function of the module, with no loop (an integrator's step of
    a few operations). Beside such a call an eager `.at[]` copy of the step's result is no small share
    of the iteration: the scatter costs more than the compiled step. False where there is none, or where
    any is a network, a whole update, a solver or a function the module does not show."""
    from jaxlint.semantic.training_loops import loop_body, runs_compiled

    found = False
    for node in loop_body(loop, nested=True):
        if not isinstance(node, ast.Call) or not runs_compiled(node, model):
            continue
        if any(outer is not loop for outer in _loops_between(node, loop)):
            return False  # (an inner pass of compiled steps: the iteration is the pass)
        callees = _callees(node, model)
        if not callees or not all(_small_function(callee, model, 0) for callee in callees):
            return False
        found = True
    return found


def _loops_between(node: ast.AST, loop: ast.AST):
    from jaxlint.semantic.model import parent_of

    parent = parent_of(node)
    while parent is not None and parent is not loop:
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)):
            yield parent
        parent = parent_of(parent)


def _small_function(node: ast.AST, model: SemanticModel, depth: int) -> bool:
    if not isinstance(node, (ast.FunctionDef, ast.Lambda)) or depth > 2:
        return False
    calls = 0
    for child in walk(node.body if isinstance(node, ast.Lambda) else ast.Module(node.body, [])):
        if isinstance(child, (ast.For, ast.AsyncFor, ast.While, ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp,
                              ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            return False
        if not isinstance(child, ast.Call):
            continue
        calls += 1
        if calls > _SMALL_COMPILED_CALLS:
            return False
        qualified = model.qualified_name(child.func) or ""
        if qualified.startswith(_SMALL_NAMESPACES) and qualified not in _NOT_SMALL and not qualified.startswith(_HEAVY_NAMESPACES):
            continue
        if isinstance(child.func, ast.Name) and child.func.id in _SMALL_BUILTINS and qualified in ("", child.func.id, f"builtins.{child.func.id}"):
            continue
        callees = _callees(child, model)
        if not callees or not all(_small_function(callee, model, depth + 1) for callee in callees):
            return False
    return True


def _callees(call: ast.Call, model: SemanticModel) -> list[ast.AST]:
    """The function definitions `call` may run: the one it resolves to, else, for a name the module defines
    with `def` more than once (a notebook's cells redefining a step), each of them; empty when unknown."""
    resolved = model.resolve_function(call.func, model.scope_for(call))
    if resolved is not None and resolved[0] is not None:
        return [resolved[0].node]
    if not isinstance(call.func, ast.Name) or call.func.id not in model.module_scope.defs:
        return []
    return [node for node in model.module_scope.node.body
            if isinstance(node, ast.FunctionDef) and node.name == call.func.id]


def reads_storage_every_iteration(loop: ast.AST, model: SemanticModel) -> ast.Call | None:
    """A call at the loop's own level, on every iteration (not under a branch), that reads a file or a
    checkpoint from storage before it returns (semantic/storage_reads.py: `pickle.load`, a checkpoint
    restore, a function of the project that does one): the iteration waits for the disk, milliseconds
    at least, beside which a few eager dispatches are nil."""
    from jaxlint.semantic.storage_reads import reads_storage
    from jaxlint.semantic.training_loops import loop_body, under_loop_branch

    scope = model.scope_for(loop)
    for node in loop_body(loop):
        if isinstance(node, ast.Call) and not under_loop_branch(node, loop, try_blocks=True) and reads_storage(node, model, scope):
            return node
    return None


# An inner pass of at least this many compiled steps (or of a number the source does not fix: a data
# loader, a `while`) makes one eager forward pass beside it a small share of the iteration.
_PASS_STEPS = 50


def runs_pass_of_compiled_steps(loop: ast.AST, model: SemanticModel) -> ast.AST | None:
    """A loop nested in `loop`'s body (not under a branch of it) that runs compiled code on each of its
    own iterations (`for batch in loader: state = train_step(state, batch)` with a jitted step) for many
    iterations (a number the source does not fix, or `_PASS_STEPS` or more): each iteration of `loop`
    is a pass of compiled steps, an epoch. What `loop` runs once beside the pass (an eager forward pass
    to log a prediction, a plot) is once per pass, not once per step."""
    from jaxlint.semantic.training_loops import loop_body, one_step_loop, runs_compiled, under_loop_branch

    scope = model.scope_for(loop)
    for inner in loop_body(loop):  # (the loops directly in the body: `with tqdm(loader) as bar: for batch in bar:` too)
        if not isinstance(inner, (ast.For, ast.AsyncFor, ast.While)) or under_loop_branch(inner, loop):
            continue
        steps = loop_iterations(inner, scope, model)
        if (steps is not None and steps < _PASS_STEPS) or one_step_loop(inner, model):
            continue  # (a few steps, or the micro-batches or integrator steps of one step: not a pass)
        if any(isinstance(node, ast.Call) and not under_loop_branch(node, inner) and runs_compiled(node, model)
               for node in loop_body(inner)):
            return inner
    return None


def heavy_iteration(loop: ast.AST, model: SemanticModel) -> ast.AST | None:
    """What makes each iteration of `loop` a whole unit of work, or None: a read of a checkpoint or a
    saved object from storage on every iteration (the loop evaluates or resumes one saved state per
    iteration) or an inner pass of compiled steps (`runs_pass_of_compiled_steps`: an epoch). A compile
    or another one-off cost per iteration is then once per checkpoint or pass, not once per step."""
    return reads_storage_every_iteration(loop, model) or runs_pass_of_compiled_steps(loop, model)


# Methods that change how an array is laid out or typed, not what it holds: one small dispatch (a
# JAX array) or a view (a NumPy one), whatever else the object is.
_LAYOUT_METHODS = frozenset({"reshape", "astype", "transpose", "squeeze", "ravel", "flatten", "swapaxes"})


def light_dispatch(call: ast.Call, scope: Scope, model: SemanticModel) -> bool:
    """`call` dispatches a small device operation or none, not host work worth overlapping: an array's
    layout method (`batch.reshape((steps, size, 1))`, `.astype(jnp.float32)`, `.T`-like transposes) or
    a key drawn from a key holder (`rngs()`, `rngs.dropout()` of an `nnx.Rngs`: one `fold_in`). Beside
    a compiled call that runs many device steps, such a call delays the next dispatch by microseconds."""
    from jaxlint.semantic.library_models import value_kind

    function = call.func
    if isinstance(function, ast.Attribute) and function.attr in _LAYOUT_METHODS:
        return True
    holder = function.value if isinstance(function, ast.Attribute) else function
    return isinstance(holder, ast.Name) and value_kind(model, holder, scope) == "key"


_SELECTION_TESTS = frozenset({
    f"{namespace}.{name}" for namespace in ("jax.numpy", "numpy")
    for name in ("isfinite", "isnan", "isinf", "isclose", "logical_and", "logical_or", "logical_not", "logical_xor",
                 "greater", "greater_equal", "less", "less_equal", "equal", "not_equal", "isin")
})


def rounds_of_selection(loop: ast.AST, model: SemanticModel) -> ast.expr | None:
    """A `while` whose test reads a counter that the iteration steps by the size of a boolean-mask
    selection it makes (`n_left -= accepted.shape[0]`, `found += len(kept)`, `n = n - kept.shape[0]`,
    with `accepted = proposals[jnp.isfinite(log_prob)]` bound in the loop): rejection sampling, round
    by round. Each round's operations work on a whole batch of proposals, the rounds are the requested
    count over what a round accepts, and the loop cannot become a `lax` loop (the selection's size
    decides the shapes that follow). Returns the selection, or None."""
    if not isinstance(loop, ast.While):
        return None
    tested = {node.id for node in ast.walk(loop.test) if isinstance(node, ast.Name)}
    if not tested:
        return None
    selections: dict[str, ast.expr] = {}
    for node in ast.walk(loop):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if _boolean_selection(node.value, loop, model):
                selections[node.targets[0].id] = node.value
    if not selections:
        return None
    for statement in _own_statements(loop.body):
        if isinstance(statement, ast.AugAssign) and isinstance(statement.op, (ast.Add, ast.Sub)):
            target, step = statement.target, statement.value
        elif (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.value, ast.BinOp)
              and isinstance(statement.value.op, (ast.Add, ast.Sub)) and isinstance(statement.value.left, ast.Name)
              and isinstance(statement.targets[0], ast.Name) and statement.value.left.id == statement.targets[0].id):
            target, step = statement.targets[0], statement.value.right
        else:
            continue
        if not (isinstance(target, ast.Name) and target.id in tested):
            continue
        sized = _sized(step, model)
        if sized is not None and sized in selections:
            return selections[sized]
    return None


def _sized(node: ast.expr, model: SemanticModel) -> str | None:
    """`x` of `x.shape[0]` or `len(x)`: the number of rows of a name."""
    if (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
            and isinstance(node.value.value, ast.Name) and isinstance(node.slice, ast.Constant) and node.slice.value == 0):
        return node.value.value.id
    if (isinstance(node, ast.Call) and model.qualified_name(node.func) == "builtins.len" and len(node.args) == 1
            and isinstance(node.args[0], ast.Name)):
        return node.args[0].id
    return None


def _boolean_selection(value: ast.expr, loop: ast.AST, model: SemanticModel, depth: int = 0) -> bool:
    """`value` is `x[mask]` with a boolean mask: a comparison, a test such as `jnp.isfinite(...)`, `~`,
    `&`, `|` of those, or a name the loop binds only to one."""
    return isinstance(value, ast.Subscript) and isinstance(value.ctx, ast.Load) and _boolean(value.slice, loop, model, depth)


def _boolean(node: ast.expr, loop: ast.AST, model: SemanticModel, depth: int) -> bool:
    if depth > 3:
        return False
    if isinstance(node, ast.Compare):
        return not any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return _boolean(node.operand, loop, model, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return _boolean(node.left, loop, model, depth + 1) and _boolean(node.right, loop, model, depth + 1)
    if isinstance(node, ast.Call):
        return model.qualified_name(node.func) in _SELECTION_TESTS
    if isinstance(node, ast.Name):
        bound = [statement.value for statement in ast.walk(loop) if isinstance(statement, ast.Assign)
                 and any(isinstance(target, ast.Name) and target.id == node.id for target in statement.targets)]
        return bool(bound) and all(_boolean(value, loop, model, depth + 1) for value in bound)
    return False
