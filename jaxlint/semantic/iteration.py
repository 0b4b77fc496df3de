"""One model of iteration: every construct that runs a body once per item is the same loop.

A `for` statement and each `for` of a comprehension (list, set, dict, generator; also inside
`jnp.stack([...])`, or bound to a name that is stacked later) iterate the same way: a target bound
to each item of an iterable, a body run once per item. What the loop walks is read the same way
whatever the spelling of its iterable:

* the items of a collection, through one-pass wrappers (`enumerate(xs)`, `reversed(xs)`,
  `sorted(xs)`, a progress bar `tqdm(xs)`; `zip` walks its arguments side by side);
* a range of numbers: `range(a, b, s)`, and `jnp.arange(a, b, s)` / `np.arange(a, b, s)` iterated
  like it (on the host, one number per iteration);
* the positions along one axis of an array ("the rows of x"): `range(len(x))`, `range(x.shape[k])`,
  `range(jnp.size(x))`, `range(x.size)`, `range(n)` with `n` bound once to one of these (also
  unpacked, `n, d = x.shape`), give or take a constant (`len(x) - 1`), and `for row in x` itself.
  Walking one row of a matrix (`for j in x[i]`) counts its second axis, not its rows.

* `iterations(node)`: the Iteration(s) a `for` statement or a comprehension runs.
* `counted_while(loop)`: a `while` that counts `j = 0` ... `j += 1` up to `j < n`, as the Iteration
  `for j in range(0, n)` (asked by JAX304: a loop is a loop whatever its syntax).
* `walked(iterable, model)`: the iterable under its one-pass wrappers.
* `same_items(iterable, model)`: the iterable under the wrappers that hand out its own items, one for
  one (`tqdm(xs)`, `reversed(xs)`; not `enumerate`, whose items are pairs, nor `sorted`).
* `range_arguments(iterable, model)`: the bounds of a range of numbers (`range` or `arange`).
* `rows_walked(iterable, scope, model)`: `Rows(array, axis)` when the trip count is the length of
  one axis of an array (axis 0: its rows, the data's leading axis; `SIZE`: every element).
* `rows_known(array, scope, model)`: the rows of an array where the source fixes them, also through
  names, loops over displays and the arguments of every visible call.
* `item_of(array, scope, model)`: the array `x` whose one item `array` is (`row = x[i]`): the rows of
  an item are its table's second axis.
* `list_built_by_iteration(name, use, scope)`: the comprehension a name holds where it is read
  (`ys = [f(x) for x in xs]` before `jnp.array(ys)`), when nothing touches the list in between.
* `walked_by_builtin(call, model)`: the iterable a builtin reduction walks item by item (`sum(x)`,
  `any(x)`, `all(x)`): a loop without the `for`, over an array one item per row.

The model says what a loop walks and how many times; the rules decide what that costs: under trace
every iteration is an unrolled copy, outside it a dispatch per iteration, and a trip count the
source fixes small keeps a rule silent where it says so.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import TYPE_CHECKING

from jaxlint.semantic.bindings import owning_scope
from jaxlint.semantic.syntax import ancestors, walk

if TYPE_CHECKING:  # the model asks this module questions: no import back at run time
    from jaxlint.semantic.model import Scope, SemanticModel

COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)
# A trip count over every element of an array (`jnp.size(x)`, `x.size`), not along one axis.
SIZE = -1

_RANGES = frozenset({"builtins.range", "jax.numpy.arange", "numpy.arange"})
_ONE_PASS = frozenset({
    "builtins.enumerate", "builtins.reversed", "builtins.sorted",
    "tqdm.tqdm", "tqdm.auto.tqdm", "tqdm.notebook.tqdm", "tqdm.std.tqdm",
})
_SAME_ITEMS = _ONE_PASS - {"builtins.enumerate", "builtins.sorted"}
_SIZES = frozenset({"jax.numpy.size", "numpy.size"})
# Builtins that walk their one iterable argument item by item and fold the items in Python, with the
# keywords each takes: over an array, one item per row, each an indexing operation (under trace an
# unrolled copy), then `+` per item for `sum`, a truth test per item for `any`/`all` (`bool()` of a
# tracer raises TracerBoolConversionError), a comparison per item for `max`/`min`/`sorted`.
ITERATING_BUILTINS = {
    "builtins.sum": frozenset({"start"}), "builtins.any": frozenset(), "builtins.all": frozenset(),
    "builtins.max": frozenset({"key", "default"}), "builtins.min": frozenset({"key", "default"}),
    "builtins.sorted": frozenset({"key", "reverse"}),
}
TRUTH_TESTING_BUILTINS = frozenset({"builtins.any", "builtins.all", "builtins.max", "builtins.min", "builtins.sorted"})
_SHAPES = frozenset({"jax.numpy.shape", "numpy.shape"})


@dataclass(frozen=True)
class Iteration:
    """One loop: `owner` is the `for` statement or the comprehension, `target` what each item binds,
    `iterable` what it walks (as written); `generator` is the comprehension's `for` clause."""

    owner: ast.AST
    target: ast.expr
    iterable: ast.expr
    generator: ast.comprehension | None = None

    @property
    def comprehension(self) -> bool:
        return self.generator is not None


@dataclass(frozen=True)
class Rows:
    """A trip count that is the length of axis `axis` of `array` (`SIZE`: its number of elements)."""

    array: ast.expr
    axis: int
    # The count reads `x.shape` or the size of `x`, which only arrays have (`len(x)` measures lists too).
    by_shape: bool = False

    @property
    def leading(self) -> bool:
        """The rows of the array (or, for a 1-D one, its elements): the data's leading axis."""
        return self.axis in (0, SIZE)


def iterations(node: ast.AST) -> list[Iteration]:
    """The loops `node` runs: one for a `for` statement, one per `for` clause of a comprehension."""
    if isinstance(node, (ast.For, ast.AsyncFor)):
        return [Iteration(node, node.target, node.iter)]
    if isinstance(node, COMPREHENSIONS):
        return [Iteration(node, generator.target, generator.iter, generator) for generator in node.generators]
    return []


def counted_while(loop: ast.AST) -> Iteration | None:
    """`j = 0` then `while j < n: ...; j += 1`: the loop `for j in range(0, n)` spelled as a `while`,
    as one Iteration over that range (the range is made here, placed at the loop's test; its bound is
    the test's own expression). Only where the count is plain: the counter bound to an int literal by
    the statement before the loop, compared with `<` by the whole test, raised by one at the body's own
    level and bound nowhere else in the loop, no `break`/`continue` and no `else`. None otherwise."""
    test = loop.test if isinstance(loop, ast.While) else None
    if test is None or loop.orelse or not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Lt):
        return None
    counter = test.left
    if not isinstance(counter, ast.Name):
        return None
    name = counter.id
    steps = [
        statement for statement in loop.body
        if isinstance(statement, ast.AugAssign) and isinstance(statement.op, ast.Add) and isinstance(statement.target, ast.Name)
        and statement.target.id == name and isinstance(statement.value, ast.Constant) and statement.value.value == 1
    ]
    if len(steps) != 1:
        return None
    for node in walk(loop):
        if isinstance(node, (ast.Break, ast.Continue)) or (isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load) and node is not steps[0].target):
            return None
    before = _statement_before(loop)
    if not (isinstance(before, ast.Assign) and len(before.targets) == 1 and isinstance(before.targets[0], ast.Name)
            and before.targets[0].id == name and isinstance(before.value, ast.Constant) and type(before.value.value) is int):
        return None
    made = ast.Call(func=ast.Name(id="range", ctx=ast.Load()), args=[ast.Constant(value=before.value.value), test.comparators[0]], keywords=[])
    ast.copy_location(made, test)
    made.func = ast.copy_location(made.func, test)
    made.args[0] = ast.copy_location(made.args[0], test)
    return Iteration(loop, counter, made)


def _statement_before(statement: ast.stmt) -> ast.stmt | None:
    from jaxlint.semantic.syntax import parent_of

    parent = parent_of(statement)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and statement in block:
            index = block.index(statement)
            return block[index - 1] if index > 0 else None
    return None


def walked_by_builtin(call: ast.AST, model: SemanticModel) -> ast.expr | None:
    """The iterable a builtin reduction walks item by item (`sum(x == c)`, `any(mask)`, `max(scores)`),
    or None: one positional argument that is not unpacked and not a comprehension (a generator is a
    loop of its own, `iterations` reads it), and only the keywords the builtin takes."""
    if not isinstance(call, ast.Call) or len(call.args) != 1 or isinstance(call.args[0], (ast.Starred, *COMPREHENSIONS)):
        return None
    keywords = ITERATING_BUILTINS.get(model.qualified_name(call.func) or "")
    if keywords is None or any(keyword.arg not in keywords for keyword in call.keywords):
        return None
    return call.args[0]


def walked(iterable: ast.expr, model: SemanticModel) -> ast.expr:
    """What a loop over `iterable` walks item by item, under one-pass wrappers (`enumerate(xs)`,
    `reversed(xs)`, `tqdm(xs)`): `xs`."""
    while isinstance(iterable, ast.Call) and iterable.args and model.qualified_name(iterable.func) in _ONE_PASS:
        iterable = iterable.args[0]
    return iterable


def same_items(iterable: ast.expr, model: SemanticModel) -> ast.expr:
    """`xs` under `tqdm(xs)` or `reversed(xs)`: the wrappers whose items are the items of `xs` themselves."""
    while isinstance(iterable, ast.Call) and iterable.args and model.qualified_name(iterable.func) in _SAME_ITEMS:
        iterable = iterable.args[0]
    return iterable


def range_arguments(iterable: ast.expr, model: SemanticModel) -> tuple[ast.expr | None, ast.expr, ast.expr | None] | None:
    """(start, stop, step) of a range of numbers the loop walks: `range(...)`, or `jnp.arange(...)` /
    `np.arange(...)` iterated like it (positional bounds, or `start=`/`stop=`/`step=`); None for
    anything else. A missing start or step is None."""
    iterable = walked(iterable, model)
    if not isinstance(iterable, ast.Call) or model.qualified_name(iterable.func) not in _RANGES:
        return None
    if any(isinstance(argument, ast.Starred) for argument in iterable.args):
        return None
    keywords = {keyword.arg: keyword.value for keyword in iterable.keywords}
    if None in keywords or set(keywords) - {"start", "stop", "step", "dtype"}:
        return None
    if "dtype" in keywords and model.qualified_name(iterable.func) == "builtins.range":
        return None
    positional = list(iterable.args)
    if len(positional) == 1 and not {"stop", "step"} & set(keywords):
        return None if "start" in keywords else (None, positional[0], None)
    names = ("start", "stop", "step")
    bounds = dict(zip(names, positional))
    for name in names:
        if name in keywords:
            if name in bounds:
                return None
            bounds[name] = keywords[name]
    if "stop" not in bounds or len(positional) > 3:
        return None
    return bounds.get("start"), bounds["stop"], bounds.get("step")


def rows_walked(iterable: ast.expr, scope: Scope, model: SemanticModel) -> Rows | None:
    """The array axis whose length is the loop's trip count: `range(len(x))` and its spellings (see
    the module's docstring), `for row in x`, `enumerate(x)`; `for j in x[i]` walks axis 1 of `x`.
    Says nothing of whether `x` is an array: the caller asks the model for its kind."""
    bounds = range_arguments(iterable, model)
    if bounds is not None:
        start, stop, step = bounds
        negative = step is not None and _negative_constant(step)
        if step is not None and not negative and not _positive_constant(step):
            return None
        return length_of(start if negative and start is not None else stop, scope, model)
    items = walked(iterable, model)
    if isinstance(items, ast.Call):
        return None
    if isinstance(items, ast.Subscript) and not isinstance(items.slice, (ast.Slice, ast.Tuple)):
        return Rows(items.value, 1)  # one row of a matrix: its entries along the second axis
    return Rows(items, 0)


def length_of(node: ast.expr | None, scope: Scope, model: SemanticModel, depth: int = 0) -> Rows | None:
    """The array axis `node` is the length of: `len(x)`, `x.shape[k]`, `jnp.shape(x)[k]`,
    `jnp.size(x)`, `x.size`, give or take a constant, or a name bound once to one of these
    (`n = x.shape[0]`, `n, d = x.shape`, `n, = x.shape`)."""
    if node is None or depth > 3:
        return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        if isinstance(node.right, ast.Constant) and isinstance(node.right.value, int):
            return length_of(node.left, scope, model, depth + 1)
        if isinstance(node.left, ast.Constant) and isinstance(node.left.value, int) and isinstance(node.op, ast.Add):
            return length_of(node.right, scope, model, depth + 1)
        return None
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords:
        qualified = model.qualified_name(node.func)
        if qualified == "builtins.len":
            return Rows(node.args[0], 0)
        if qualified in _SIZES:
            return Rows(node.args[0], SIZE, by_shape=True)
        return None
    if isinstance(node, ast.Attribute) and node.attr == "size":
        return Rows(node.value, SIZE, by_shape=True)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, int):
        array = _shape_of(node.value, model)
        return Rows(array, node.slice.value, by_shape=True) if array is not None else None
    if isinstance(node, ast.Name):
        return _bound_length(node, scope, model, depth)
    return None


def _shape_of(node: ast.expr, model: SemanticModel) -> ast.expr | None:
    """`x` of `x.shape` or `jnp.shape(x)`."""
    if isinstance(node, ast.Attribute) and node.attr == "shape":
        return node.value
    if isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords and model.qualified_name(node.func) in _SHAPES:
        return node.args[0]
    return None


def _bound_length(name: ast.Name, scope: Scope, model: SemanticModel, depth: int) -> Rows | None:
    """The axis a name holds the length of, where its scope (or an enclosing one) binds it exactly
    once: `n = len(x)`, or an unpacking of a shape (`n, d = x.shape`)."""
    holder = owning_scope(model, name.id, scope)
    if holder is None or name.id in holder.params:
        return None
    found = [(target, value) for target, value in holder.bindings if name.id in _names_of(target)]
    if len(found) != 1 or found[0][1] is None:
        return None
    target, value = found[0]
    if isinstance(target, ast.Name):
        return length_of(value, holder, model, depth + 1)
    if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
        array = _shape_of(value, model)
        position = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == name.id), None)
        if array is not None and position is not None:
            return Rows(array, position, by_shape=True)
    return None


def item_of(array: ast.expr, scope: Scope, model: SemanticModel) -> ast.expr | None:
    """`x` when `array` is a name bound exactly once to one item of the array `x` (`row = x[i]`,
    `x[i]` itself): its rows are `x`'s second axis, a dimension of the table it was taken from, not
    the data's count. `x` counts as an array where the model says it is one, or where the index is a
    traced value (only an array takes a tracer as an index). None for a slice (`x[1:]`, `x[:, 0]`),
    a key (`batch["obs"]`), or an item of anything else (a list's item is an array of its own rows)."""
    if isinstance(array, ast.Name):
        holder = owning_scope(model, array.id, scope)
        if holder is None or array.id in holder.params or array.id in holder.param_nodes:
            return None
        found = [value for target, value in holder.bindings if array.id in _names_of(target)]
        if len(found) != 1 or not isinstance(found[0], ast.Subscript) or not any(
            isinstance(target, ast.Name) and target.id == array.id and value is found[0] for target, value in holder.bindings
        ):
            return None
        scope, array = holder, found[0]
    if not isinstance(array, ast.Subscript):
        return None
    index = array.slice
    if isinstance(index, (ast.Slice, ast.Tuple)) or isinstance(index, ast.Constant) and not isinstance(index.value, int):
        return None
    from jaxlint.semantic.model import ARRAY, NONE

    if model.level(array.value, scope) != ARRAY and model.level(index, scope) == NONE:
        return None
    return array.value


def _names_of(target: ast.AST) -> set[str]:
    return {node.id for node in walk(target) if isinstance(node, ast.Name)}


def _positive_constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool) and node.value > 0


def _negative_constant(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and _positive_constant(node.operand)
    ) or (isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool) and node.value < 0)


# `jnp` functions that return a Python list of arrays: a loop over one walks its pieces, not elements.
PIECES = frozenset({
    "jax.numpy.split", "jax.numpy.array_split", "jax.numpy.hsplit", "jax.numpy.vsplit", "jax.numpy.dsplit",
    "jax.numpy.unstack", "jax.numpy.meshgrid", "jax.numpy.nonzero", "jax.numpy.where",
})


_SHAPED = frozenset({
    "jax.numpy.zeros", "jax.numpy.ones", "jax.numpy.empty", "jax.numpy.full",
    "numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full",
})
_KEY_SPLITS = frozenset({"jax.random.split"})


def rows_made(array: ast.expr, scope: Scope, model: SemanticModel) -> int | None:
    """How many rows an array has where the call that makes it says so: `jax.random.split(key, n)`
    (n keys; 2 by default), `jnp.zeros((n, ...))` and its kin, `jnp.arange(...)` of known bounds,
    with `n` a constant the source fixes (semantic/constants). None otherwise."""
    if not isinstance(array, ast.Call) or any(isinstance(a, ast.Starred) for a in array.args):
        return None
    qualified = model.qualified_name(array.func)
    evaluator = model.constant_evaluator()
    if qualified in _KEY_SPLITS:
        count = array.args[1] if len(array.args) > 1 else next((k.value for k in array.keywords if k.arg == "num"), None)
        return 2 if count is None else evaluator.int_value(count, scope)
    if qualified in _SHAPED and array.args:
        shape = array.args[0]
        first = shape.elts[0] if isinstance(shape, (ast.Tuple, ast.List)) and shape.elts else shape
        return evaluator.int_value(first, scope)
    bounds = range_arguments(array, model) if qualified != "builtins.range" else None
    if bounds is not None:
        return _range_length(bounds, evaluator, scope)
    return None


def _range_length(bounds, evaluator, scope: Scope) -> int | None:
    """The length of `range(start, stop, step)` for the bounds `range_arguments` gives, each a
    constant the source fixes (an absent bound is None); None where one is not known."""
    values = [None if bound is None else evaluator.int_value(bound, scope) for bound in bounds]
    if any(value is None for value, bound in zip(values, bounds) if bound is not None):
        return None
    start, stop, step = values
    try:
        return len(range(start or 0, stop, 1 if step is None else step))
    except (TypeError, ValueError):
        return None


# Calls that make an array from the Python items they are given, one row per item.
_FROM_ITEMS = frozenset({"jax.numpy.array", "jax.numpy.asarray", "numpy.array", "numpy.asarray"})
# Calls that return an array with the rows of their first argument.
_SAME_ROWS = frozenset({"jax.numpy.flip", "jax.numpy.sort", "jax.numpy.cumsum", "jax.numpy.cumprod", "numpy.flip", "numpy.sort"})


def rows_known(array: ast.expr, scope: Scope, model: SemanticModel, depth: int = 0) -> int | None:
    """How many rows `array` has where the source fixes it: what `rows_made` reads from the call that
    makes it, an array made from a display of items (`jnp.array([0.1, 0.2, 0.5])`: 3 rows; from a
    comprehension over a range of known bounds, one per step), through calls that keep the rows
    (`jnp.flip(x)`), a name bound once to such an array, the target of a loop over a display of them
    (the most rows), and a parameter of a function that every visible call fills with one (the most
    rows over the calls: a walk over its rows runs at most that often). None where any of these is
    not known."""
    if depth > 4:
        return None
    made = rows_made(array, scope, model)
    if made is not None:
        return made
    if isinstance(array, ast.Call) and len(array.args) >= 1 and not any(isinstance(a, ast.Starred) for a in array.args):
        qualified = model.qualified_name(array.func)
        if qualified in _KEY_SPLITS or qualified in _SHAPED:
            # `split(key, len(xs) - 1)`, `zeros((len(xs), d))`: as many rows as another array of known rows, give or take a few.
            count = array.args[1] if qualified in _KEY_SPLITS and len(array.args) > 1 else next((k.value for k in array.keywords if k.arg == "num"), None) if qualified in _KEY_SPLITS else array.args[0]
            if isinstance(count, (ast.Tuple, ast.List)):
                count = count.elts[0] if count.elts else None
            measured = length_of(count, scope, model) if count is not None else None
            if measured is None or measured.axis != 0:
                return None
            known = rows_known(measured.array, scope, model, depth + 1)
            return None if known is None else known + _constant_added(count)
        if qualified in _FROM_ITEMS:
            return _items_in(array.args[0], scope, model)
        if qualified in _SAME_ROWS and not array.keywords and len(array.args) == 1:
            return rows_known(array.args[0], scope, model, depth + 1)
        return None
    if not isinstance(array, ast.Name):
        return None
    holder = owning_scope(model, array.id, scope)
    if holder is None:
        return None
    if array.id in holder.param_nodes:
        passed = model.caller_arguments(holder, array.id) or _entry_arguments(holder, array.id, model)
        if not passed:
            return None
        counts = [rows_known(argument, model.scope_for(call), model, depth + 1) for argument, call in passed]
        return max(counts) if counts and None not in counts else None
    bound = [value for target, value in holder.bindings if array.id in _names_of(target)]
    looped = [iterable for target, iterable in holder.loops if isinstance(target, ast.Name) and target.id == array.id]
    if len(bound) == 1 and not looped and any(isinstance(t, ast.Name) and t.id == array.id for t, _ in holder.bindings):
        return rows_known(bound[0], holder, model, depth + 1)
    if looped and not bound:
        # `for schedule in schedules:` over a display of arrays (every loop binding the name, and every
        # binding of a display's name, if several).
        displays = []
        for items in looped:
            displays += [value for target, value in holder.bindings if isinstance(target, ast.Name) and target.id == items.id] if isinstance(items, ast.Name) else [items]
        if displays and all(isinstance(d, (ast.List, ast.Tuple)) and not any(isinstance(e, ast.Starred) for e in d.elts) for d in displays):
            counts = [rows_known(element, holder, model, depth + 1) for display in displays for element in display.elts]
            return max(counts) if counts and None not in counts else None
    return None


def _constant_added(count: ast.expr) -> int:
    """The constant a length is given or taken (`len(x) - 1`: -1); 0 when none."""
    if isinstance(count, ast.BinOp) and isinstance(count.op, (ast.Add, ast.Sub)) and isinstance(count.right, ast.Constant) and isinstance(count.right.value, int):
        return count.right.value if isinstance(count.op, ast.Add) else -count.right.value
    return 0


def _entry_arguments(function: Scope, param: str, model: SemanticModel) -> list[tuple[ast.expr, ast.Call]] | None:
    """(argument, call) for `param` at every call of a compiled function's entry points where those
    calls are its only uses (`model.entry_calls`: a decorated def redefined in a notebook included,
    each call reaching its own def); None where a call spreads arguments or leaves `param` out."""
    calls = model.entry_calls(function) if not function.has_self and param in function.params else None
    if not calls:
        return None
    position = function.params.index(param)
    passed = []
    for call in calls:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        argument = call.args[position] if position < len(call.args) else next((k.value for k in call.keywords if k.arg == param), None)
        if argument is None:
            return None
        passed.append((argument, call))
    return passed


def _items_in(display: ast.expr, scope: Scope, model: SemanticModel) -> int | None:
    """The number of items of a list or tuple display, or of a comprehension over one range of known bounds."""
    if isinstance(display, (ast.List, ast.Tuple)):
        return None if any(isinstance(e, ast.Starred) for e in display.elts) else len(display.elts)
    if isinstance(display, ast.ListComp) and len(display.generators) == 1 and not display.generators[0].ifs:
        bounds = range_arguments(display.generators[0].iter, model)
        return None if bounds is None else _range_length(bounds, model.constant_evaluator(), scope)
    return None


def list_built_by_iteration(name: ast.Name, use: ast.stmt, scope: Scope) -> ast.ListComp | None:
    """The list comprehension `name` holds at statement `use`: an earlier statement of the same block
    binds it once (`ys = [f(x) for x in xs]`) and no statement between reads or changes it (an
    `append`, a second binding): the list is exactly one item per iteration."""
    from jaxlint.semantic.model import parent_of

    holder = parent_of(use)
    block = next(
        (getattr(holder, field) for field in ("body", "orelse", "finalbody") if use in getattr(holder, field, ())),
        None,
    )
    if block is None:
        return None
    bindings = [value for target, value in scope.bindings if isinstance(target, ast.Name) and target.id == name.id]
    index = block.index(use)
    for statement in reversed(block[:index]):
        if (
            isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)
            and statement.targets[0].id == name.id
        ):
            value = statement.value
            if not isinstance(value, ast.ListComp) or not any(bound is value for bound in bindings):
                return None
            return value
        if any(isinstance(node, ast.Name) and node.id == name.id for node in walk(statement)):
            return None
    return None


# ----- code a loop runs on one pass only -----------------------------------------------------------


def one_pass(node: ast.AST, loop: ast.AST, model: SemanticModel) -> str | None:
    """Which single pass of `loop` runs `node`, when the source shows it runs on at most one: a text
    naming that pass (`n == 1`), else None. The loop variable takes a new value on every pass (`for n
    in range(k)`, the index of `enumerate(xs)`, `for n in (0, 1)` of distinct constants) and the body
    never rebinds it, and `node` lies in the branch taken when it equals a value the loop does not
    change (`if n == 1:`, `x = f(key) if i == 0 else x`, the `else` of `if n != 1:`, an `elif` arm, a
    conjunction holding such a test). Not a test of the items (`if label == 1` of `for label in
    labels`: values may repeat), nor `i % 2 == 0`, nor a loop over constants that repeat.

    A repeat per pass (`for n in range(2): y = f(key)`) needs `node` on at least two passes; code on
    one pass is one use."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return None
    variable = _distinct_variable(loop, model)
    if variable is None:
        return None
    stored = _stored_in(loop)
    if variable in stored:
        return None
    child = node
    for holder in ancestors(node):
        if holder is loop:
            break
        if isinstance(holder, (ast.If, ast.IfExp)) and child is not holder.test:
            taken = _pass_of_test(holder.test, variable, stored)
            if taken is not None:
                equal, value = taken
                in_body = child in holder.body if isinstance(holder, ast.If) else child is holder.body
                if in_body == equal:
                    return f"{variable} == {value}"
        child = holder
    return None


def _distinct_variable(loop: ast.AST, model: SemanticModel) -> str | None:
    """The name of `loop`'s target that holds a different value on every pass, or None."""
    iterable, target = same_items(loop.iter, model), loop.target  # `tqdm(...)`, `reversed(...)`: the same values
    if isinstance(iterable, ast.Call) and model.qualified_name(iterable.func) == "builtins.enumerate":
        start = iterable.keywords
        if isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name) and all(k.arg == "start" for k in start):
            return target.elts[0].id
        return None
    if not isinstance(target, ast.Name):
        return None
    if isinstance(iterable, ast.Call) and model.qualified_name(iterable.func) == "builtins.range":
        return target.id if range_arguments(iterable, model) is not None or len(iterable.args) == 1 else None
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)) and iterable.elts and all(isinstance(e, ast.Constant) for e in iterable.elts):
        values = [repr(e.value) for e in iterable.elts]
        return target.id if len(set(values)) == len(values) else None
    return None


def _stored_in(loop: ast.AST) -> set[str]:
    """Names the loop's body (and `else`) binds."""
    return {
        n.id for statement in (*loop.body, *loop.orelse) for n in walk(statement)
        if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)
    } | {n.name for statement in loop.body for n in walk(statement) if isinstance(n, (ast.FunctionDef, ast.ClassDef))}


def _pass_of_test(test: ast.expr, variable: str, stored: set[str]) -> tuple[bool, str] | None:
    """(True, value) for `variable == value` (or a conjunction holding it: the test holds on that pass at
    most), (False, value) for `variable != value`; None for any other test."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        for part in test.values:
            found = _pass_of_test(part, variable, stored)
            if found is not None and found[0]:
                return found
        return None
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], (ast.Eq, ast.NotEq)):
        return None
    left, right = test.left, test.comparators[0]
    if isinstance(right, ast.Name) and right.id == variable:
        left, right = right, left
    if not (isinstance(left, ast.Name) and left.id == variable) or not _unchanged(right, stored):
        return None
    return isinstance(test.ops[0], ast.Eq), ast.unparse(right)


def _unchanged(value: ast.expr, stored: set[str]) -> bool:
    """A value the loop does not change: constants, names it does not bind, `len` of one, attributes of
    such names, and arithmetic of these."""
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, ast.Name):
        return value.id not in stored
    if isinstance(value, ast.Attribute):
        return _unchanged(value.value, stored) and isinstance(value.value, (ast.Name, ast.Attribute))
    if isinstance(value, ast.BinOp):
        return _unchanged(value.left, stored) and _unchanged(value.right, stored)
    if isinstance(value, ast.UnaryOp):
        return _unchanged(value.operand, stored)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "len" and len(value.args) == 1 and not value.keywords:
        return _unchanged(value.args[0], stored)
    return False

