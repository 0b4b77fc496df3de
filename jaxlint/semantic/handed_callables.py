"""The functions a call runs at once, and what it hands each of them.

`lax.cond(p, lambda _: mutate(net, key), lambda _: net, None)` calls one of its two functions where it
stands, with the operands it is given; `jax.debug.callback(report, step, loss)` calls `report(step,
loss)` (on the host, every time it runs); `lax.scan(body, init, xs)` calls `body(init, x)`. What such a
function does (draw from a key it closes over or is handed, read a value on the host) happens at that
call, as if the call were written there: a lambda's body runs at the call, and a named function is
called with the call's arguments in its parameters' places.

`handed(call, qualified_name)` lists them: (the function expression, the call's argument expression for
each of its leading parameters, or None where the call passes something it makes itself, such as a
loop's index or a slice of `xs`), and `alternatives(call, ...)` says the functions are branches, of
which one runs (`lax.cond`, `lax.switch`): what one draws the other does not.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

# qualified name -> (positions of the functions, where their arguments come from):
#   "operands": the call's arguments from that position on (and `operand=`);
#   a tuple: the call's argument at each position for the function's parameters (None: made by the call).
_RUNNERS = {
    "jax.lax.cond": ((1, 2), ("operands", 3)),
    "jax.lax.switch": (("list", 1), ("operands", 2)),
    "jax.lax.fori_loop": ((2,), ("positions", (None, 3))),
    "jax.lax.while_loop": ((0, 1), ("positions", (2,))),
    "jax.lax.scan": ((0,), ("positions", (1, None))),
    "jax.debug.callback": ((0,), ("operands", 1)),
    "jax.pure_callback": ((0,), ("operands", 2)),
    "jax.experimental.pure_callback": ((0,), ("operands", 2)),
    "jax.experimental.io_callback": ((0,), ("operands", 2)),
}
_ALTERNATIVES = frozenset({"jax.lax.cond", "jax.lax.switch"})
# Keywords the callback functions take for themselves, not for the function they call.
_OWN_KEYWORDS = frozenset({"ordered", "partitioned", "sharding", "vectorized", "vmap_method", "result_shape_dtypes"})


@dataclass(frozen=True)
class Handed:
    """One function a call runs where it stands: the expression naming it (a lambda, a name, an
    attribute), and the call's argument for each of its leading parameters (None where the call makes
    that value itself)."""

    function: ast.expr
    arguments: tuple
    keywords: tuple = ()  # (name, expression) the call hands on by keyword (a callback's own keywords excluded)


def runner(call: ast.Call, qualified_name) -> str | None:
    """The qualified name of the call where it runs functions it is handed, else None."""
    if not call.args:
        return None
    qualified = qualified_name(call.func)
    return qualified if qualified in _RUNNERS else None


def handed(call: ast.Call, qualified_name) -> list[Handed]:
    """The functions `call` runs where it stands, each with what it is handed; [] for any other call,
    and where the call unpacks `*args` (which parameter gets what is then unknown)."""
    qualified = runner(call, qualified_name)
    if qualified is None or any(isinstance(a, ast.Starred) for a in call.args):
        return []
    places, (how, where) = _RUNNERS[qualified]
    functions: list[ast.expr] = []
    if places[0] == "list":
        if len(call.args) <= places[1] or not isinstance(call.args[places[1]], (ast.List, ast.Tuple)):
            return []
        functions = list(call.args[places[1]].elts)
        if any(isinstance(e, ast.Starred) for e in functions):
            return []
    else:
        if len(call.args) <= max(places):
            return []  # (the old five-argument `lax.cond`, or functions passed by keyword: not read)
        functions = [call.args[p] for p in places]
    if how == "operands":
        arguments = tuple(call.args[where:])
        operand = next((k.value for k in call.keywords if k.arg == "operand"), None)
        if operand is not None and not arguments:
            arguments = (operand,)
        keywords = tuple((k.arg, k.value) for k in call.keywords if k.arg is not None and k.arg not in _OWN_KEYWORDS and k.arg != "operand")
        if qualified in _ALTERNATIVES:
            keywords = ()
    else:
        arguments = tuple(call.args[p] if p is not None and p < len(call.args) else None for p in where)
        keywords = ()
    return [Handed(f, arguments, keywords) for f in functions if isinstance(f, (ast.Lambda, ast.Name, ast.Attribute))]


def alternatives(call: ast.Call, qualified_name) -> bool:
    """The functions `call` runs are branches of which one runs (`lax.cond`, `lax.switch`)."""
    return runner(call, qualified_name) in _ALTERNATIVES


def run_at(node: ast.Lambda, qualified_name) -> ast.Call | None:
    """The call that runs the lambda where it stands (`lax.cond(p, lambda _: f(key), ...)`), else None."""
    from jaxlint.semantic.model import parent_of

    parent = parent_of(node)
    if isinstance(parent, (ast.List, ast.Tuple)):
        parent = parent_of(parent)
    if not isinstance(parent, ast.Call) or node is parent.func:
        return None
    return parent if any(h.function is node for h in handed(parent, qualified_name)) else None


def as_call(call: ast.Call, each: Handed) -> tuple[ast.Call, list[int | None]]:
    """The call of a named function `call` makes (`report(step, loss)` for `jax.debug.callback(report,
    step, loss)`), and for each of its positional arguments the position of the same expression among
    `call`'s arguments (None for a value the call makes itself). The made call is not part of the tree."""
    filler = lambda: ast.copy_location(ast.Constant(value=None), call)  # noqa: E731
    args = [argument if argument is not None else filler() for argument in each.arguments]
    positions = [next((i for i, a in enumerate(call.args) if a is argument), None) if argument is not None else None for argument in each.arguments]
    made = ast.copy_location(ast.Call(func=each.function, args=args, keywords=[ast.keyword(arg=k, value=v) for k, v in each.keywords]), call)
    return made, positions
