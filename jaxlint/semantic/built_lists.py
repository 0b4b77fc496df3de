"""What a list holds when a function builds it item by item: `items = []`, then `items.append(x)` in
a loop over a sequence the source fixes.

The list holds one appended value per iteration of the loops around the `append`, each computed with
the loop's target bound to that iteration's item. So a parameter list built layer by layer,

    params = []
    for n_in, n_out in zip(widths[:-1], widths[1:]):
        params.append({"w": normal(size=(n_in, n_out)), "b": zeros(n_out)})

holds the sum over the width pairs of each layer's elements: a size fact as exact as a display of
the same arrays. The items are known only where the source spells the sequence out (`range` of
bounds it fixes, a literal list or tuple, a constant, a slice of one, `zip` and `enumerate` of
those, the argument a helper's caller passes for it) and the loops only append (no `while`, no
`append` under a branch, nothing else changing the list, no other binding of it, the target not
rebound in the body): anything else leaves the size unknown (None), never a guess.

* `appended_items(name, read, scope)`: the `append` calls that fill the list `name` holds at `read`,
  each with the loops around it (outermost first), or None where the list is built otherwise.
* `iteration_values(loop, evaluate)`: the values the loop's target takes, one dict of names per
  iteration, with `evaluate` giving the Python value of an expression (None: unknown).
* `comprehension_values(comprehension, evaluate)`: the same for a list comprehension of one `for`
  (`[layer(m, n, k) for m, n, k in zip(widths[:-1], widths[1:], keys)]`): it holds one element per item.

A sequence may hold items the analysis knows only as keys (`keys = jax.random.split(key, n)`: n keys):
they unpack like any item, and what is built from them is sized by its shape, never by the key.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.model import parent_of
from jaxlint.semantic.syntax import bound_names, walk

# A loop the analysis expands item by item: more items than this is no layer list.
MAX_ITEMS = 1000


def appended_items(name: str, read: ast.AST, scope) -> list[tuple[ast.expr, list[ast.For]]] | None:
    """[(the value appended, the `for` loops around that `append`, outermost first)] when the list
    `name` is bound once in `scope`, to `[]`, and every other use before `read` is an unconditional
    `name.append(value)` statement in `for` loops of the scope, all ending before `read`."""
    node = scope.node
    bindings = [value for target, value in scope.bindings if name in bound_names(target)]
    if len(bindings) != 1 or not (isinstance(bindings[0], ast.List) and not bindings[0].elts):
        return None
    start = bindings[0]
    read_line = getattr(read, "lineno", None)
    if read_line is None:
        return None
    found: list[tuple[ast.expr, list[ast.For]]] = []
    for inner in walk(node):
        if not (isinstance(inner, ast.Name) and inner.id == name) or inner is start:
            continue
        if inner.lineno >= read_line:
            continue  # the read itself, and what follows it
        if isinstance(inner.ctx, ast.Store):
            continue  # the one binding, to `[]`
        attribute = parent_of(inner)
        call = parent_of(attribute)
        statement = parent_of(call)
        if not (
            isinstance(attribute, ast.Attribute) and attribute.attr == "append" and isinstance(call, ast.Call)
            and call.func is attribute and len(call.args) == 1 and not call.keywords
            and not isinstance(call.args[0], ast.Starred) and isinstance(statement, ast.Expr)
        ):
            return None  # read, extended, changed otherwise
        loops = _loops_around(statement, node)
        if loops is None or (loops and getattr(loops[0], "end_lineno", read_line) >= read_line):
            return None
        found.append((call.args[0], loops))
    return found


def _loops_around(statement: ast.stmt, function: ast.AST) -> list[ast.For] | None:
    """The `for` statements around `statement` up to `function`, outermost first; None when another
    construct (a branch, a `while`, a `try`, a `with`) sits between: the append may run any number of
    times."""
    loops: list[ast.For] = []
    child, holder = statement, parent_of(statement)
    while holder is not None and holder is not function:
        if isinstance(holder, ast.For) and child in holder.body:
            loops.append(holder)
        else:
            return None
        child, holder = holder, parent_of(holder)
    return list(reversed(loops)) if holder is function else None


def iteration_values(loop: ast.For, evaluate) -> list[dict[str, object]] | None:
    """One {name: value} per iteration of `loop`, its target unpacked from each item of the sequence
    `evaluate(loop.iter)` gives; None when the sequence or the unpacking is unknown, or when the body
    rebinds a name of the target."""
    items = evaluate(loop.iter)
    if not isinstance(items, (tuple, list)) or len(items) > MAX_ITEMS:
        return None
    names = set(bound_names(loop.target))
    for inner in walk(loop):
        if inner is loop.target:
            continue
        if isinstance(inner, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For)) and inner is not loop:
            targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target]
            if any(names & set(bound_names(target)) for target in targets):
                return None
    return _frames(loop.target, items)


def comprehension_values(comprehension: ast.ListComp, evaluate) -> list[dict[str, object]] | None:
    """One {name: value} per item a list comprehension of one unfiltered `for` builds (`[layer(m, n)
    for m, n in zip(widths[:-1], widths[1:])]`), with `evaluate(sequence)` giving the items of its
    sequence; None when the sequence or the unpacking is unknown, or it filters or nests."""
    if len(comprehension.generators) != 1:
        return None
    generator = comprehension.generators[0]
    if generator.ifs or generator.is_async:
        return None
    items = evaluate(generator.iter)
    if not isinstance(items, (tuple, list)) or len(items) > MAX_ITEMS:
        return None
    return _frames(generator.target, items)


def _frames(target: ast.AST, items) -> list[dict[str, object]] | None:
    """One {name: value} per item bound to `target`; None where one does not unpack."""
    frames = []
    for item in items:
        frame = _unpack(target, item)
        if frame is None:
            return None
        frames.append(frame)
    return frames


def _unpack(target: ast.AST, item) -> dict[str, object] | None:
    if isinstance(target, ast.Name):
        return {target.id: item}
    if isinstance(target, (ast.Tuple, ast.List)) and isinstance(item, (tuple, list)) and len(item) == len(target.elts):
        frame: dict[str, object] = {}
        for element, part in zip(target.elts, item):
            inner = _unpack(element, part)
            if inner is None:
                return None
            frame.update(inner)
        return frame
    return None


def sequence_value(node: ast.AST, evaluate_scalar):
    """The items of a sequence expression as a tuple: `range(...)`, `zip(...)`, `enumerate(...)`, a
    list or tuple display, a slice of a sequence, or what `evaluate_scalar` gives for a name (a
    constant tuple or list); None where unknown."""
    if isinstance(node, (ast.List, ast.Tuple)):
        values = []
        for element in node.elts:
            if isinstance(element, ast.Starred):
                return None
            value = evaluate_scalar(element)
            if value is None:
                return None
            values.append(value)
        return tuple(values)
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Slice):
        inner = sequence_value(node.value, evaluate_scalar)
        bounds = [None if part is None else evaluate_scalar(part) for part in (node.slice.lower, node.slice.upper, node.slice.step)]
        if inner is None or any(b is not None and not _is_int(b) for b in bounds):
            return None
        if any(part is not None and b is None for part, b in zip((node.slice.lower, node.slice.upper, node.slice.step), bounds)):
            return None
        try:
            return tuple(inner[slice(*bounds)])
        except ValueError:
            return None
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        if any(isinstance(a, ast.Starred) for a in node.args):
            return None
        if node.func.id == "range" and 1 <= len(node.args) <= 3:
            bounds = [evaluate_scalar(a) for a in node.args]
            if not all(_is_int(b) for b in bounds):
                return None
            numbers = range(*bounds)
            return tuple(numbers) if len(numbers) <= MAX_ITEMS else None
        if node.func.id == "zip" and node.args:
            parts = [sequence_value(a, evaluate_scalar) for a in node.args]
            return None if None in parts else tuple(zip(*parts))
        if node.func.id == "enumerate" and len(node.args) == 1:
            inner = sequence_value(node.args[0], evaluate_scalar)
            return None if inner is None else tuple(enumerate(inner))
        return None
    value = evaluate_scalar(node)
    return tuple(value) if isinstance(value, (tuple, list)) else None


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def iterations(loops: list[ast.For], evaluate) -> list[dict[str, object]] | None:
    """Every combination of iterations of nested loops (outermost first): one {name: value} each."""
    frames: list[dict[str, object]] = [{}]
    for loop in loops:
        # The inner loop's sequence may read the outer target: evaluate it per outer iteration.
        expanded = []
        for frame in frames:
            inner = iteration_values(loop, lambda node, frame=frame: evaluate(node, frame))
            if inner is None:
                return None
            expanded.extend({**frame, **values} for values in inner)
            if len(expanded) > MAX_ITEMS:
                return None
        frames = expanded
    return frames

