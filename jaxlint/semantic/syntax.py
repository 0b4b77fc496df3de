"""Small syntax helpers shared by the model and the analyses it asks: fast iteration over ast child
nodes, and the name a chain of attributes and subscripts starts from."""

from __future__ import annotations

import ast
import collections
from collections.abc import Iterator
import re


# How a notebook's `%timeit f(x)` line is linted (notebook.py masks it so): `__jaxlint_timeit__(lambda: f(x))`.
TIMEIT_MAGIC = "__jaxlint_timeit__"
# How a notebook's `%%time` or `%%timeit` cell magic line is linted: `__jaxlint_timed_cell__("time", 3)`,
# the magic's name and how many lines of the cell follow it (the code it times).
TIMED_CELL_MAGIC = "__jaxlint_timed_cell__"
# Calls that run a callable many times and keep only how long it took (its results are discarded).
TIMER_CALLS = frozenset({"timeit.timeit", "timeit.repeat"})


def timed_lambda(node: ast.AST) -> bool:
    """`node` is a lambda handed to a timer, which discards what it returns: `timeit.timeit(lambda:
    f(x), number=10)`, or a notebook's `%timeit f(x)` as linted. Read from the spelling alone (the
    `timeit` module, or a name imported from it), so it needs no model."""
    if not isinstance(node, ast.Lambda):
        return False
    timer = parent_of(node)
    if isinstance(timer, ast.keyword) and timer.arg == "stmt":
        timer = parent_of(timer)  # `timeit.timeit(stmt=lambda: f(x))`
    elif not isinstance(timer, ast.Call) or node not in timer.args:
        return False
    if not isinstance(timer, ast.Call):
        return False
    function = timer.func
    if isinstance(function, ast.Name):
        return function.id in (TIMEIT_MAGIC, "timeit")
    return (isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name)
            and f"{function.value.id}.{function.attr}" in TIMER_CALLS)


# The attribute the model sets on every node it reads: its parent node.
PARENT = "_jaxlint_parent"


def parent_of(node: ast.AST) -> ast.AST | None:
    return getattr(node, PARENT, None)


def is_within(node: ast.AST, container: ast.AST) -> bool:
    """`node` is `container` or lies inside it (by the parent links the model sets)."""
    current: ast.AST | None = node
    while current is not None:
        if current is container:
            return True
        current = parent_of(current)
    return False


def ancestors(node: ast.AST) -> Iterator[ast.AST]:
    node = parent_of(node)
    while node is not None:
        yield node
        node = parent_of(node)


# Fields that never hold nodes a rule looks at: `ctx` (Load/Store markers) and type-ignore comments.
_SKIPPED_FIELDS = frozenset({"ctx", "type_ignores"})
# Field types of Python's ASDL grammar whose values are never nodes.
_NOT_NODE_TYPES = frozenset({"identifier", "string", "constant", "int"})
# How a field holds nodes: one that is always there, one that may be None (`expr?`), a list (whose
# items may be None: `Dict.keys` of `**x`, `arguments.kw_defaults`), or not known (tested value by value).
_ONE, _OPTIONAL, _LIST, _UNKNOWN = 1, 2, 3, 4


def _child_fields(kind: type) -> tuple[tuple[str, int], ...]:
    """The fields of an ast class that can hold child nodes, in field order, with how they hold them,
    read from the ASDL signature that is the class's docstring (`Attribute(expr value, identifier
    attr, expr_context ctx)`): identifiers, strings, constants and ints are never looked at. A class
    whose docstring does not match its fields keeps every field, tested value by value."""
    signature = re.fullmatch(r"(\w+)\((.*)\)", (kind.__doc__ or "").split("\n", 1)[0].strip())
    declared = [part.split() for part in signature.group(2).split(",")] if signature and signature.group(1) == kind.__name__ else []
    if [pair[-1] for pair in declared] != list(kind._fields) or any(len(pair) != 2 for pair in declared):
        return tuple((name, _UNKNOWN) for name in kind._fields if name not in _SKIPPED_FIELDS)
    fields = []
    for field_type, name in declared:
        if name in _SKIPPED_FIELDS or field_type.rstrip("?*") in _NOT_NODE_TYPES:
            continue
        fields.append((name, _LIST if field_type.endswith("*") else _OPTIONAL if field_type.endswith("?") else _ONE))
    return tuple(fields)


def _generic_children(node: ast.AST) -> list[ast.AST]:
    """Children by reading the fields one by one: for classes whose signature is not known, and for
    nodes built by hand that lack a field."""
    children: list[ast.AST] = []
    for name in node._fields:
        if name in _SKIPPED_FIELDS:
            continue
        value = getattr(node, name, None)
        if value.__class__ is list:
            children.extend([item for item in value if isinstance(item, ast.AST)])
        elif isinstance(value, ast.AST):
            children.append(value)
    return children


def _children_getter(kind: type):
    """A function listing the children of a node of `kind`, written for its fields (`[node.value]`
    for an attribute): one generated line per field instead of a loop that asks each field how it
    holds its nodes. Generated code, as dataclasses and attrs write their `__init__`s."""
    fields = _child_fields(kind)
    if any(shape == _UNKNOWN for _, shape in fields):
        return _generic_children
    if all(shape == _ONE for _, shape in fields):
        body = ["    return [" + ", ".join(f"node.{name}" for name, _ in fields) + "]"]
    else:
        body = ["    children = []"]
        for name, shape in fields:
            if shape == _ONE:
                body.append(f"    children.append(node.{name})")
            elif shape == _OPTIONAL:
                body.append(f"    value = node.{name}")
                body.append("    if value is not None:")
                body.append("        children.append(value)")
            else:
                body.append(f"    value = node.{name}")
                body.append("    children.extend(value if None not in value else [item for item in value if item is not None])")
        body.append("    return children")
    namespace: dict[str, object] = {}
    exec("def children(node):\n" + "\n".join(body), namespace)  # noqa: S102 - code written above from ast's own signatures
    return namespace["children"]


_GETTERS: dict[type, object] = {}


# The attribute where the semantic model's collection pass (model.py) keeps each visited node's child
# list: analyses walk the same subtrees again and again (loop bodies, function bodies, expressions),
# and reading the list back costs a fraction of building it anew. The trees are never changed after
# parsing, so a kept list stays true; it must not be changed by a caller (copy it to pop or extend).
CHILDREN = "_jaxlint_children"


def child_nodes(node: ast.AST) -> list[ast.AST]:
    """Like ast.iter_child_nodes (the same order), minus context markers, as a list: several times
    faster, and called for nearly every node of every file. The list may be shared: never change it."""
    kept = getattr(node, CHILDREN, None)
    if kept is not None:
        return kept
    if node.__class__ in _CHILDLESS:
        return []  # names and constants, the leaves the collection pass keeps no list for: half of all nodes
    return fresh_child_nodes(node)


_CHILDLESS = frozenset({ast.Name, ast.Constant})


def fresh_child_nodes(node: ast.AST) -> list[ast.AST]:
    """`child_nodes`, built anew (a list of the caller's own)."""
    try:
        return _GETTERS[node.__class__](node)
    except KeyError:
        if node.__class__ in _GETTERS:
            raise
        _GETTERS[node.__class__] = _children_getter(node.__class__)
    except AttributeError:  # a node built by hand, without every field
        return _generic_children(node)
    return fresh_child_nodes(node)


def walk(node: ast.AST) -> list[ast.AST]:
    """Like ast.walk (the same breadth-first order), minus context markers, as a list: several times
    faster for the many small subtrees analyses read whole."""
    nodes = [node]
    for current in nodes:  # the list grows while it is read: breadth first
        nodes.extend(child_nodes(current))
    return nodes


def chain_root(node: ast.AST) -> ast.AST:
    """The expression an attribute or subscript chain starts from: `config` for `config["lr"].x`,
    the call for `make()["x"]`."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node


def dotted_name(node: ast.AST) -> str | None:
    """`state`, `self.state`, `trainer.state.params` as a dotted string; None for anything else."""
    if node.__class__ is ast.Name:
        return node.id  # the commonest case, without building a list
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def terminal_name(node: ast.AST) -> str | None:
    """The last name of a plain name or attribute (`f` -> "f", `plt.plot` -> "plot"), else None."""
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return None


def root_name(node: ast.AST) -> str | None:
    """The name an attribute or subscript chain starts from: `config` for `config["lr"].x`."""
    node = chain_root(node)
    return node.id if isinstance(node, ast.Name) else None


def bound_names(target: ast.AST) -> Iterator[str]:
    """The names an assignment target binds: `a`, `a, (b, *c)`."""
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from bound_names(element)
    elif isinstance(target, ast.Starred):
        yield from bound_names(target.value)


def parameter_defaults(arguments: ast.arguments) -> dict[str, ast.expr]:
    """Parameter name -> its default expression, positional and keyword-only, of a `def`'s arguments."""
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = dict(zip([a.arg for a in positional[len(positional) - len(arguments.defaults):]], arguments.defaults))
    defaults.update((a.arg, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None)
    return defaults


def passed_to_parameter(calls, function: ast.AST, name: str, *, skip_self: bool = True) -> list[ast.expr | None] | None:
    """For each of `calls` of the `def` `function`, what it passes to the parameter `name`: by keyword,
    else by position (`obj.method(a)` and `method(self, a)` alike skip a first `self`/`cls`; with
    `skip_self=False` positions count from the first parameter, whatever its name), None where it
    leaves the default. None when a call spreads `*args` or `**kwargs`: what it passes is not known."""
    arguments = function.args
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    index = positional.index(name) if name in positional else None
    if index is not None and skip_self and positional[0] in ("self", "cls"):
        index -= 1
    found: list[ast.expr | None] = []
    for call in calls:
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
            return None
        passed = next((k.value for k in call.keywords if k.arg == name), None)
        if passed is None and index is not None and 0 <= index < len(call.args):
            passed = call.args[index]
        found.append(passed)
    return found


def argument(call: ast.Call, position: int | None, keyword: str | None) -> ast.expr | None:
    if keyword is not None:
        for item in call.keywords:
            if item.arg == keyword:
                return item.value
    if position is not None and position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return call.args[position]
    return None


def passed_arguments(call: ast.Call) -> Iterator[tuple[ast.expr, int | None, str | None]]:
    """(argument, position, None) for each positional argument before any `*args`, then
    (argument, None, keyword) for each named keyword: the arguments a `static_*` or `donate_*`
    option can name (`JitBinding.is_static(position, keyword)`)."""
    for position, value in enumerate(call.args):
        if isinstance(value, ast.Starred):
            break
        yield value, position, None
    for keyword in call.keywords:
        if keyword.arg:
            yield keyword.value, None, keyword.arg


def keyword_options(call: ast.Call) -> dict[str, ast.expr]:
    return {keyword.arg: keyword.value for keyword in call.keywords if keyword.arg}


_OWN_SCOPES = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef})


def returned_values(function: ast.AST, visit=None, *, in_order: bool = False) -> Iterator[ast.expr | None]:
    """The value of each `return` of the `def` `function`'s own body (not of the functions, lambdas
    and classes defined in it), as the walk finds it; None, and nothing after it, at a bare `return`
    or a `yield` (a generator: what a call gives is not the returned values). `visit(node)`, where
    given, sees every other node of the own body, a nested definition itself but not its inside, for
    a caller that reads the body's bindings in the same walk. The walk takes the last statement
    first (most functions end with their one `return`), or with `in_order` the statements in source
    order, outer ones before those nested in them."""
    pending = collections.deque(function.body) if in_order else list(function.body)
    take = pending.popleft if in_order else pending.pop
    while pending:
        child = take()
        kind = child.__class__  # (ast node classes have no subclasses: identity and set tests per node)
        if kind is ast.Return:
            yield child.value
            if child.value is None:
                return
        elif kind is ast.Yield or kind is ast.YieldFrom:
            yield None
            return
        elif visit is not None:
            visit(child)
        if kind not in _OWN_SCOPES:
            pending.extend(child_nodes(child))


def returned_positions(returns: list[ast.expr]) -> list[tuple[int, list[ast.expr]]] | None:
    """The `return` values of a function lined up by tuple position: (position, what every return
    gives there) for each position of a tuple every return spells out with one width, or [(-1,
    returns)] when none is a tuple. None when the returns differ in shape (a tuple beside a single
    value, two widths, a starred element), so no position means one thing."""
    tuples = [r for r in returns if r.__class__ is ast.Tuple]
    if not tuples:
        return [(-1, list(returns))]
    if len(tuples) != len(returns):
        return None
    width = len(tuples[0].elts)
    if any(len(r.elts) != width or any(e.__class__ is ast.Starred for e in r.elts) for r in tuples):
        return None
    return [(position, [r.elts[position] for r in tuples]) for position in range(width)]


def is_main_guard(test: ast.expr) -> bool:
    """`__name__ == "__main__"` (either way round)."""
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    sides = (test.left, test.comparators[0])
    return any(isinstance(side, ast.Name) and side.id == "__name__" for side in sides) and any(
        isinstance(side, ast.Constant) and side.value == "__main__" for side in sides
    )


def top_level_statements(body: list[ast.stmt]):
    """Module-level statements, including those under `if`/`try`/`match` (`if __name__ == "__main__":`,
    a configuration module importing `jax.numpy` in each `case` of its precision setting)."""
    for statement in body:
        if isinstance(statement, ast.If):
            yield from top_level_statements(statement.body)
            yield from top_level_statements(statement.orelse)
        elif isinstance(statement, ast.Try):
            yield from top_level_statements(statement.body)
        elif statement.__class__.__name__ == "Match":
            for case in statement.cases:
                yield from top_level_statements(case.body)
        else:
            yield statement
