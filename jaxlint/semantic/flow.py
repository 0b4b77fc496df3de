"""Statement-level questions about one scope: where a statement sits, what a region assigns and reads.

Syntactic and conservative; used by rules that move or insert code (hoisting, wrapping, loop
rewrites). No rule logic here.
"""

from __future__ import annotations

import ast
from typing import Iterator, NamedTuple

from jaxlint.semantic.bindings import bound_values
from jaxlint.semantic.model import FUNCTION_NODES, parent_of
from jaxlint.semantic.reaching import enclosing_statement, reaching_value, statement_list  # noqa: F401 (re-exported)
from jaxlint.semantic.syntax import dotted_name  # noqa: F401 (re-exported: flow is where the rules ask for it)
from jaxlint.semantic.syntax import child_nodes, root_name, walk  # ast.iter_child_nodes and ast.walk minus ctx markers, faster

_DEFINITIONS = frozenset({*FUNCTION_NODES, ast.ClassDef})
_NAMED_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef})

LOOP_NODES = (ast.For, ast.AsyncFor, ast.While)


def enclosing_loops(node: ast.AST) -> Iterator[ast.AST]:
    """Loops (statements and comprehensions) around `node` within its own function, innermost first.

    A node in a loop's `iter` or in a comprehension's first iterable is evaluated once, not per
    iteration, so that loop is not yielded for it.
    """
    child = node
    for ancestor in _ancestors(node):
        if isinstance(ancestor, FUNCTION_NODES) or isinstance(ancestor, ast.ClassDef):
            return
        if isinstance(ancestor, (ast.For, ast.AsyncFor)) and child is not ancestor.iter and child is not ancestor.target:
            if child not in ancestor.orelse:
                yield ancestor
        elif isinstance(ancestor, ast.While) and child not in ancestor.orelse:
            yield ancestor
        elif isinstance(ancestor, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            first = ancestor.generators[0]
            if child is not first and not (child is first.iter):
                yield ancestor
        child = ancestor


def iteration_parts(loop: ast.AST) -> list[ast.AST]:
    """The parts of a loop statement that run on every iteration: a `for`'s target and body, a
    `while`'s test and body. Not a `for`'s iterable, evaluated once before the first iteration (`for
    x, k in zip(xs, split(key, n))` splits once and hands each iteration a key of its own), nor the
    `else` block, run once after the last (as enclosing_loops reads them)."""
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        return [loop.target, *loop.body]
    if isinstance(loop, ast.While):
        return [loop.test, *loop.body]
    return [loop]


def _ancestors(node: ast.AST) -> Iterator[ast.AST]:
    current = parent_of(node)
    while current is not None:
        yield current
        current = parent_of(current)


def target_names(target: ast.AST) -> set[str]:
    return {n.id for n in walk(target) if isinstance(n, ast.Name)}


def assigned_in(region: ast.AST) -> set[str]:
    """Names bound anywhere in `region` (its own scope only: nested functions bind their own)."""
    names: set[str] = set()
    for node in walk_same_scope(region):
        kind = node.__class__  # (ast node classes have no subclasses: identity and set tests per node)
        if kind is ast.Name:
            if node.ctx.__class__ is not ast.Load:
                names.add(node.id)
        elif kind in _NAMED_DEFINITIONS:
            if node is not region:
                names.add(node.name)
        elif kind is ast.Import or kind is ast.ImportFrom:
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif kind is ast.ExceptHandler and node.name:
            names.add(node.name)
    return names


def value_at_read(name: ast.Name, scope, model, *, in_line_order: bool = False) -> tuple[object, ast.AST] | None:
    """The value the read `name` (in `scope`) holds: (the scope that binds the name, the one value of
    its bindings that surely reaches the read), each binding a plain `name = value` (`bindings.bound_values`).
    Which binding reaches: the only one, else `reaching_value`'s nearest binding in the read's block.
    `in_line_order` (the loop counts of semantic/loop_cost): of several bindings, only those of a name
    bound by plain assignments of the module body, read in the module's own code, answer: the last
    one above the read by line, wherever the read sits (a script, a notebook's cells run in order,
    `steps = 30` in the cell above the loop whatever a later cell rebinds). None where none surely
    reaches, or a binding is `name op= value`."""
    found = bound_values(model, name.id, scope)
    if found is None:
        return None
    owner, values = found
    if not in_line_order:
        value = reaching_value(name, values)
        return None if value is None else (owner, value)
    if not values or any(isinstance(value, ast.AugAssign) for value in values):
        return None
    if len(values) == 1:
        return owner, values[0]
    if owner.is_function or scope.is_function:
        return None  # (a function reads a global when called, not where it is defined: order unknown)
    statements = [parent_of(value) for value in values]
    if not all(isinstance(statement, ast.Assign) and isinstance(parent_of(statement), ast.Module) for statement in statements):
        return None
    before = [value for value, statement in zip(values, statements) if statement.lineno < name.lineno]
    return (owner, max(before, key=lambda value: value.lineno)) if before else None


def loaded_names(node: ast.AST) -> set[str]:
    """Names read in `node`, including the free names of lambdas and comprehensions inside it."""
    return {n.id for n in walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def walk_same_scope(region: ast.AST) -> Iterator[ast.AST]:
    """Every node under `region` that runs in the same scope (skips nested function and class bodies)."""
    stack = [region]
    while stack:
        node = stack.pop()
        yield node
        if node is not region and node.__class__ in _DEFINITIONS:
            if node.__class__ is not ast.Lambda:
                stack.extend(node.decorator_list)
            continue
        stack.extend(child_nodes(node))  # (no context markers: no caller looks for them)


class InPlaceChange(NamedTuple):
    """One change `changes_in_place` finds to the object a name holds."""

    name: str  # the name the changed chain starts from: `state` for `state.params["w"] = v`
    node: ast.AST  # the `Attribute` or `Subscript` stored or deleted, or the method `Call`
    kind: str  # "item" (a subscript stored or deleted), "attribute" (an attribute stored or deleted), "method" (a method called)
    direct: bool  # on the name itself (`x[k] = v`, `x.f(...)`), not further down its chain (`x.a[k] = v`, `x.a.f(...)`)
    deleted: bool  # `del x[k]`, `del x.a`
    assigned: bool  # the whole target of an assignment statement (`x.a = v`, `x[k] += v`, `x.a: T = v`), not an element of a tuple target nor a loop's or a `with`'s


_ASSIGNMENTS = frozenset({ast.Assign, ast.AugAssign, ast.AnnAssign})


def changes_in_place(region: ast.AST, names, *, nested: bool) -> Iterator[InPlaceChange]:
    """Where `region` may change in place the object one of `names` holds (any name where `names` is
    None): each item or attribute stored or deleted through a chain that starts from the name
    (`x[k] = v`, `x.a.b = v`, `x[k] += v`, `for x.i in ...`, `del x[k]`), and each method called through
    such a chain (`x.append(v)`, `x.opt.update(g)`, also `x.at[i].set(v)` and `x.sum()`: callers that
    know which methods change their object filter on `node.func.attr` and `direct`). Rebinding the
    name itself (`x = ...`) is not one. `nested`: also inside nested functions and classes (the
    whole subtree), else `region`'s own scope (`walk_same_scope`)."""
    for node in walk(region) if nested else walk_same_scope(region):
        kind = node.__class__
        if kind is ast.Call:
            function = node.func
            if function.__class__ is ast.Attribute:
                name = root_name(function.value)
                if name is not None and (names is None or name in names):
                    yield InPlaceChange(name, node, "method", function.value.__class__ is ast.Name, False, False)
        elif (kind is ast.Attribute or kind is ast.Subscript) and node.ctx.__class__ is not ast.Load:
            name = root_name(node.value)
            if name is not None and (names is None or name in names):
                deleted = node.ctx.__class__ is ast.Del
                yield InPlaceChange(name, node, "attribute" if kind is ast.Attribute else "item", node.value.__class__ is ast.Name,
                                    deleted, parent_of(node).__class__ in _ASSIGNMENTS)


# A loop over at most this many literal cases (`for hand in [h1, h2, h3]`) is a handful of checks,
# not a hot loop. JAX303 takes a range this small as a few compilations on purpose.
FEW_ITERATIONS = 8


def iterates_few_literal_cases(loop: ast.AST, scope=None) -> bool:
    """`for case in (a, b, c):`, `for street in ["flop", "turn"]:`, `for i in range(3):`, or a name
    the scope (or the module) binds once to such a display: a handful of iterations the source spells
    out."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    iterable = loop.iter
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "enumerate" and iterable.args:
        iterable = iterable.args[0]
    if (
        isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range"
        and len(iterable.args) == 1 and isinstance(iterable.args[0], ast.Call)
        and isinstance(iterable.args[0].func, ast.Name) and iterable.args[0].func.id == "len" and len(iterable.args[0].args) == 1
    ):
        iterable = iterable.args[0].args[0]  # `range(len(hyperparams))`: as many as that display has
    iterable = single_binding(iterable, scope)
    if isinstance(iterable, (ast.List, ast.Tuple, ast.Set)):
        return len(iterable.elts) <= FEW_ITERATIONS and not any(isinstance(e, ast.Starred) for e in iterable.elts)
    if isinstance(iterable, ast.Dict):
        return len(iterable.keys) <= FEW_ITERATIONS and None not in iterable.keys
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range":
        bounds = [a.value if isinstance(a, ast.Constant) and isinstance(a.value, int) else None for a in iterable.args]
        if bounds and None not in bounds:
            try:
                return len(range(*bounds)) <= FEW_ITERATIONS
            except (TypeError, ValueError):
                return False
    return False


# A sequence expanded value by value to count its distinct items: longer is not a table the source spells out.
_MAX_DISTINCT_ITEMS = 1000


def distinct_items(iterable: ast.expr, scope, evaluator) -> int | None:
    """How many distinct values a loop over `iterable` binds its item to, where the source shows
    every one: a list or tuple display of constants (`[0.1, 0.3, 1.0, ...]`), or a comprehension
    with one `for` over a `range` the source fixes and no condition, its element arithmetic of the
    counter and constants (`[k / 100 for k in range(1, 100)]`), each evaluated; also a name bound once
    to one of these. None where any value is unknown. `evaluator` is the module's ConstantEvaluator."""
    from jaxlint.semantic.constants import UNKNOWN, literal_value

    iterable = single_binding(iterable, scope)
    if isinstance(iterable, (ast.List, ast.Tuple)):
        if len(iterable.elts) > _MAX_DISTINCT_ITEMS or any(not isinstance(e, ast.Constant) for e in iterable.elts):
            return None
        values = {(type(e.value), e.value) for e in iterable.elts}
        return len(values)
    if not isinstance(iterable, ast.ListComp) or len(iterable.generators) != 1:
        return None
    generator = iterable.generators[0]
    bounds = generator.iter
    if (
        generator.ifs or generator.is_async or not isinstance(generator.target, ast.Name)
        or not (isinstance(bounds, ast.Call) and isinstance(bounds.func, ast.Name) and bounds.func.id == "range")
        or not 1 <= len(bounds.args) <= 3 or bounds.keywords
    ):
        return None
    numbers = [evaluator.int_value(a, scope) for a in bounds.args]
    if None in numbers:
        return None
    try:
        counter = range(*numbers)
    except ValueError:
        return None
    if len(counter) > _MAX_DISTINCT_ITEMS:
        return None
    name = generator.target.id
    seen = set()
    for number in counter:
        value = literal_value(iterable.elt, {name: number})
        if value is UNKNOWN or not isinstance(value, (int, float, str)):
            return None
        seen.add(value)
    return len(seen)


def spells_out_few_iterations(loop: ast.AST, qualified_name, limit: int) -> bool:
    """A `for` over a literal display (`for scale in (0.5, 1.0):`), a constant `range` of fewer than
    `limit` iterations, or an array's axes (`for d in x.shape`, `range(x.ndim)`): a handful the source
    spells out, not a hot loop. `qualified_name` resolves the
    callee (the rule context's or the model's), so a shadowed `range` is not taken for the builtin.
    Each rule passes its own `limit`: what counts as few depends on what one iteration costs."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    iterable = _spelled_out_iterable(loop.iter, qualified_name)
    if isinstance(iterable, (ast.Tuple, ast.List, ast.Set, ast.Dict)):
        return True
    if _over_axes(iterable, qualified_name):
        return _MAX_RANK < limit  # (the axes of an array: as many as its rank, a handful)
    if isinstance(iterable, ast.Call) and qualified_name(iterable.func) == "builtins.range":
        bounds = iterable.args
        if bounds and all(isinstance(a, ast.Constant) and isinstance(a.value, int) for a in bounds):
            try:
                return len(range(*[a.value for a in bounds])) < limit
            except (TypeError, ValueError):
                return True  # `range(0, 10, 0)`: raises before the first iteration
    return False


# The most axes an array is taken to have where a loop walks them (`for d in x.shape`).
_MAX_RANK = 8


def _over_axes(iterable: ast.expr, qualified_name) -> bool:
    """The loop walks an array's axes: `x.shape` (or a slice of it, `x.shape[1:]`), `range(x.ndim)`,
    `range(len(x.shape))`: one iteration per axis."""
    if isinstance(iterable, ast.Subscript) and isinstance(iterable.slice, ast.Slice):
        iterable = iterable.value
    if isinstance(iterable, ast.Attribute) and iterable.attr == "shape":
        return True
    if isinstance(iterable, ast.Call) and qualified_name(iterable.func) == "builtins.range" and len(iterable.args) == 1:
        bound = iterable.args[0]
        if isinstance(bound, ast.Attribute) and bound.attr == "ndim":
            return True
        return (isinstance(bound, ast.Call) and qualified_name(bound.func) == "builtins.len" and len(bound.args) == 1
                and isinstance(bound.args[0], ast.Attribute) and bound.args[0].attr == "shape")
    return False


# Wrappers that iterate their argument once, in some order, adding at most an index: as many iterations.
_ONE_PASS_WRAPPERS = frozenset({"builtins.enumerate", "builtins.reversed", "builtins.sorted"})


def _spelled_out_iterable(iterable: ast.expr, qualified_name) -> ast.expr:
    """What bounds the iteration count: the argument of `enumerate(...)`, `reversed(...)`, `sorted(...)`,
    and for `zip(...)` (which stops at its shortest argument) a literal display or constant `range`
    among its arguments (`for i, axis in enumerate(("x", "y", "z")):` runs three times)."""
    while isinstance(iterable, ast.Call) and iterable.args:
        callee = qualified_name(iterable.func)
        if callee in _ONE_PASS_WRAPPERS:
            iterable = iterable.args[0]
            continue
        if callee == "builtins.zip":
            displays = [a for a in iterable.args if isinstance(a, (ast.Tuple, ast.List, ast.Set, ast.Dict))]
            ranges = [a for a in iterable.args if isinstance(a, ast.Call) and qualified_name(a.func) == "builtins.range"]
            return (displays or ranges or [iterable])[0]
        break
    return iterable


def single_binding(node: ast.expr, scope) -> ast.expr:
    """The value a name is bound to once in its scope or an enclosing one; the node itself otherwise."""
    holder = scope
    while isinstance(node, ast.Name) and holder is not None:
        values = [value for target, value in holder.bindings if isinstance(target, ast.Name) and target.id == node.id]
        if values:
            return values[0] if len(values) == 1 and values[0] is not None else node
        holder = holder.parent
    return node


def leaves_its_loops(node: ast.AST) -> bool:
    """After `node` runs, the code leaves the loops around it: its statement is a `return` or
    `raise`, or a `return`/`raise` follows it in its block or in a block around it inside the loop
    (`if diverged: lr /= 3; return retry(lr)`; `break` the same where one loop encloses it). Such a
    node runs at most once per run of those loops (a retry, a final result), not once per iteration."""
    loops = list(enclosing_loops(node))
    if not loops or any(isinstance(loop, _COMPREHENSIONS) for loop in loops):
        return False
    statement = enclosing_statement(node)
    outermost = loops[-1]
    while statement is not None and statement is not outermost:
        if isinstance(statement, (ast.Return, ast.Raise)):
            return True
        place = statement_list(statement)
        if place is None:
            return False
        block, index = place
        for later in block[index + 1:]:
            if isinstance(later, (ast.Return, ast.Raise)) or (isinstance(later, ast.Break) and len(loops) == 1):
                return True
        holder = parent_of(statement)
        if holder in loops:
            # Leaving the innermost loop's body without an exit: the next iteration runs it again.
            return False
        statement = holder
    return False


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def runs_at_most_once(loop: ast.AST) -> bool:
    """The loop's body ends every iteration with `break`, `return` or `raise` at its top level
    (`for batch in loader: check(batch); break`), or ends the first one so (`for i, batch in
    enumerate(loader): ...; if i == 0: break`): a one-off, not a repeated step."""
    body = getattr(loop, "body", None)
    if not body:
        return False
    if any(isinstance(statement, (ast.Break, ast.Return, ast.Raise)) for statement in body):
        return True
    last = body[-1]
    return (
        isinstance(last, ast.If) and not last.orelse and isinstance(last.body[-1], (ast.Break, ast.Return))
        and _counter_is_first(last.test, loop)
    )


def _counter_is_first(test: ast.expr, loop: ast.AST) -> bool:
    """`i == 0` where `i` counts the loop's iterations from 0 (`enumerate(...)`, `range(n)`)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return False
    name, value = test.left, test.comparators[0]
    if not (isinstance(name, ast.Name) and isinstance(value, ast.Constant) and value.value == 0 and not isinstance(value.value, bool)):
        return False
    iterable, target = getattr(loop, "iter", None), getattr(loop, "target", None)
    if isinstance(target, ast.Name) and target.id == name.id:
        return isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Name) and iterable.func.id == "range" and len(iterable.args) == 1
    if not (isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name) and target.elts[0].id == name.id):
        return False
    # `enumerate(items)`, or a dataset's own `.enumerate()` (tf.data) anywhere in the iterable's chain.
    return any(
        isinstance(call, ast.Call) and not call.keywords and len(call.args) <= (1 if isinstance(call.func, ast.Name) else 0)
        and (isinstance(call.func, ast.Name) and call.func.id == "enumerate" or isinstance(call.func, ast.Attribute) and call.func.attr == "enumerate")
        for call in walk(iterable)
    )


def entries_read(node: ast.AST, function: ast.AST) -> tuple[ast.expr, set[str]] | None:
    """(the mapping, the names bound to its entries) when every loop between `node` and `function`
    is one comprehension over the entries of one mapping (`{k: v.item() for k, v in scalars.items()}`,
    `[float(v) for v in metrics.values()]`): a read of each entry of one value, not a loop over a
    data stream. Whether that is a per-step read depends on where the mapping comes from: the
    entries of one result of a compiled step are that step's result read whole; the named entries of
    a few datasets (`splits.items()`) are a handful of settings."""
    found = None
    parent = parent_of(node)
    while parent is not None and parent is not function:
        kind = parent.__class__
        if kind in (ast.For, ast.AsyncFor, ast.While) or kind in FUNCTION_NODES:
            return None
        if kind in (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp):
            if found is not None or len(parent.generators) != 1 or parent.generators[0].ifs:
                return None
            iterable, target = parent.generators[0].iter, parent.generators[0].target
            if not (iterable.__class__ is ast.Call and iterable.func.__class__ is ast.Attribute
                    and iterable.func.attr in ("items", "values") and not iterable.args and not iterable.keywords):
                return None
            if iterable.func.attr == "items":
                if target.__class__ is not ast.Tuple or len(target.elts) != 2:
                    return None
                target = target.elts[1]
            found = (iterable.func.value, target_names(target))
        parent = parent_of(parent)
    return found


def iterates_mapping(loop: ast.AST) -> bool:
    """`for name in params[module]: ... params[module][name]` or `for k, v in d.items()`: the loop walks a
    mapping's keys (a pytree of parameters, a few named datasets), not an array's rows or a data
    stream. Rows of an array are not used as indices into that array."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    iterable = loop.iter
    if isinstance(iterable, ast.Call) and isinstance(iterable.func, ast.Attribute) and iterable.func.attr in ("items", "keys", "values") and not iterable.args:
        return True
    if not isinstance(loop.target, ast.Name):
        return False
    iterated = ast.dump(iterable)
    return any(
        isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and node.slice.id == loop.target.id
        and ast.dump(node.value) == iterated
        for statement in loop.body for node in walk(statement)
    )


def caught_locally(node: ast.AST, bases: tuple[str, ...], model) -> bool:
    """Whether a `try` around `node` in its own function catches an error derived from one of `bases`
    (builtin exception names such as "TypeError"): a bare `except:`, `Exception`, `BaseException`, one
    of `bases`, or an error class of JAX (`jax.errors.ConcretizationTypeError`, all of which derive
    from TypeError or IndexError). Code that catches the error JAX raises there is probing on purpose
    (`try: n = int(x) except jax.errors.ConcretizationTypeError: n = None`)."""
    wanted = {"builtins.Exception", "builtins.BaseException", *(f"builtins.{base}" for base in bases)}
    child = node
    for ancestor in _ancestors(node):
        if isinstance(ancestor, FUNCTION_NODES) or isinstance(ancestor, (ast.ClassDef, ast.Lambda)):
            return False
        if isinstance(ancestor, (ast.Try, getattr(ast, "TryStar", ast.Try))) and child in ancestor.body:
            for handler in ancestor.handlers:
                caught = handler.type
                if caught is None:
                    return True
                for element in caught.elts if isinstance(caught, ast.Tuple) else [caught]:
                    name = model.qualified_name(element) or dotted_name(element) or ""
                    if name in wanted or name.startswith(("jax.errors.", "jax.core.", "jax._src.")):
                        return True
                    if any(word in name.rsplit(".", 1)[-1] for word in ("Tracer", "Concretization")):
                        return True
        child = ancestor
    return False


def target_elements(target: ast.AST) -> Iterator[ast.AST]:
    """The leaves of an assignment target: `a, (b.c, *d)` gives `a`, `b.c`, `d`."""
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from target_elements(element)
    elif isinstance(target, ast.Starred):
        yield from target_elements(target.value)
    else:
        yield target


def rebinds_handed(statement: ast.AST, call: ast.Call) -> set[str]:
    """The names (dotted: `self.state` too) that `call` is handed and its own `statement` rebinds from
    its result: `state, loss = step(state, batch)` gives {"state"}, as do `step((state, opt), batch)`
    (an element of a tuple argument) and `step(batch, state=state)`. Empty when `call` is not the
    statement's whole value. The one syntactic sign of a call that carries state from one iteration
    to the next, which each question about carried state (is this a training loop, which calls pace
    the steps, is this an opaque state step) then qualifies."""
    if getattr(statement, "value", None) is not call:
        return set()
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
        targets = [statement.target]
    else:
        return set()
    rebound = {dotted_name(element) for target in targets for element in target_elements(target)}
    handed = {
        dotted_name(part) for argument in [*call.args, *(keyword.value for keyword in call.keywords)]
        for part in (argument.elts if isinstance(argument, ast.Tuple) else [argument])
    }
    return (rebound & handed) - {None}


_CONTAINER_REBUILDS = frozenset({"replace", "_replace"})


def fields_replaced(target: ast.AST, value: ast.AST) -> dict[str, str]:
    """`holder = holder.replace(state=new, key=k)` (a flax `struct` or chex dataclass, a NamedTuple's
    `_replace`, `dataclasses.replace(holder, ...)`): the container the statement rebinds is rebuilt with
    fields set to plain names, which is storing them into those fields: {"holder.state": "new",
    "holder.key": "k"}. State carried through a container's field (`new, info = step(holder.state, k)`
    then the rebuild) is carried as `state = step(state)` carries a name."""
    key = dotted_name(target)
    if key is None or not isinstance(value, ast.Call):
        return {}
    function = value.func
    if isinstance(function, ast.Attribute) and function.attr in _CONTAINER_REBUILDS and not value.args:
        rebuilt = dotted_name(function.value)
    elif (
        isinstance(function, ast.Attribute) and function.attr == "replace" and isinstance(function.value, ast.Name)
        and function.value.id == "dataclasses" and len(value.args) == 1
    ):
        rebuilt = dotted_name(value.args[0])
    else:
        return {}
    if rebuilt != key:
        return {}
    return {f"{key}.{keyword.arg}": keyword.value.id for keyword in value.keywords if keyword.arg and isinstance(keyword.value, ast.Name)}


def _unpacked_elements(target: ast.expr) -> list[ast.expr]:
    """The target itself, or the elements of a tuple or list target unpacking a value (no starred element)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [] if any(isinstance(e, ast.Starred) for e in target.elts) else list(target.elts)
    return [target]


def rebound_through_temporaries(statement: ast.stmt, temporaries: set[str]) -> dict[str, str]:
    """`new = step(old)` followed, later in the same block, by `old = new`: {"old": "new"}; also by
    `old, loss = new`, the temporary unpacked (a step's whole result bound to one name first).

    Only a plain `x = temporary` (or `self.x = temporary`, or a container rebuilt with the temporary in
    a field, `holder = holder.replace(x=temporary)`: {"holder.x": ...}) after the statement counts, and only when
    the temporary is not rebound in between."""
    found: dict[str, str] = {}
    located = statement_list(statement)
    if located is None:
        return found
    block, index = located
    names = {name for name in temporaries if "." not in name}
    for later in block[index + 1:]:
        if isinstance(later, ast.Assign) and len(later.targets) == 1 and isinstance(later.value, ast.Name) and later.value.id in names:
            # (`state, loss = results` unpacks the temporary: each element is rebound from it, as by `old = new`)
            for element in _unpacked_elements(later.targets[0]):
                key = dotted_name(element)
                if key is not None and key not in temporaries:
                    found[key] = later.value.id
        if isinstance(later, ast.Assign) and len(later.targets) == 1:
            # `holder = holder.replace(state=new)`: the field is rebound as by `holder.state = new`.
            for key, name in fields_replaced(later.targets[0], later.value).items():
                if name in names and key not in temporaries:
                    found[key] = name
        if isinstance(later, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            stored = later.targets if isinstance(later, ast.Assign) else [later.target]
            for target in stored:
                for element in target_elements(target):
                    if isinstance(element, ast.Name) and element.id in names and not (isinstance(later, ast.Assign) and later.value is not None and isinstance(later.value, ast.Name)):
                        names.discard(element.id)
        elif isinstance(later, (ast.For, ast.While, ast.If, ast.With, ast.Try, ast.FunctionDef, ast.ClassDef)):
            break  # keep to straight-line code
    return found
