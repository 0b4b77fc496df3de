"""Which binding of a name reaches a read: straight-line reaching definitions inside one scope.

Deliberately small and conservative: it answers only where one binding surely reaches (the only
one, or the nearest before the read in the same block with nothing in between, and no later binding
that a loop around the read carries back to it); otherwise None, "cannot tell". The model asks it
to make a name's value flow-sensitive; rules that move code ask it through semantic/flow.py.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.syntax import is_within, parent_of

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.Module)


def enclosing_statement(node: ast.AST) -> ast.stmt | None:
    """The innermost statement containing `node` (the node itself when it is one)."""
    current: ast.AST | None = node
    while current is not None and not isinstance(current, ast.stmt):
        current = parent_of(current)
    return current


def statement_list(statement: ast.stmt) -> tuple[list[ast.stmt], int] | None:
    """The body list a statement sits in and its index there."""
    parent = parent_of(statement)
    if parent is None:
        return None
    for field in ("body", "orelse", "finalbody", "handlers"):
        block = getattr(parent, field, None)
        if isinstance(block, list):
            for index, item in enumerate(block):
                if item is statement:
                    return block, index
    return None


def reaching_value(name: ast.Name, values: list) -> ast.AST | None:
    """The one value of `values` (every binding of the name in its scope) that reaches this read: the
    only binding, or the nearest binding in the same block before the read's statement, with no other
    binding between the two (a script or notebook rebinding a name cell after cell; a function that
    reuses a name for a later, different value). A binding at or after the read inside a loop that
    also runs the read reaches it on the next iteration: then nothing is sure."""
    if len(values) == 1:
        return None if isinstance(values[0], ast.AugAssign) else values[0]
    use = enclosing_statement(name)
    place = statement_list(use) if use is not None else None
    if place is None:
        return None
    block, index = place
    loops = _loops_around(use)
    nearest = None
    for value in values:
        statement = enclosing_statement(value)
        if statement is None or isinstance(value, ast.AugAssign):
            return None
        if statement.lineno >= use.lineno:
            if loops and any(loop in loops for loop in _loops_around(statement)) or statement in loops:
                return None  # carried round a loop back to the read
            continue
        where = statement_list(statement)
        if where is None or where[0] is not block or where[1] >= index:
            if nearest is None or statement.lineno > nearest[0].lineno:
                nearest = (statement, None)  # a binding in a nested block: which one reaches is unclear
            continue
        if nearest is None or statement.lineno > nearest[0].lineno:
            nearest = (statement, value)
    return nearest[1] if nearest is not None else None


def _loops_around(statement: ast.AST) -> list[ast.AST]:
    """The loops of the same scope that contain `statement`, innermost first."""
    found = []
    current = parent_of(statement)
    while current is not None and not isinstance(current, _SCOPES):
        if isinstance(current, _LOOPS):
            found.append(current)
        current = parent_of(current)
    return found


def reaching_binding(name: ast.Name, bindings, loops=()) -> tuple[ast.AST, ast.AST] | None:
    """(target, value) of the one binding of a scope that surely reaches this read of `name`
    (reaching_value's terms), among `bindings` (a scope's (target, value) pairs, a whole unpacking
    target included: `x, stats = run(x, stats)`) and `loops` (its (target, iterable) pairs). None
    when none surely does, when the one that does binds no value jaxlint sees (`with ... as`, an
    import) or is a loop's target: the read's value is then the name's value from every binding."""
    from jaxlint.semantic.syntax import bound_names

    pairs = []
    for target, value in bindings:
        if name.id in bound_names(target):
            if value is None:
                return None
            pairs.append((target, value))
    looped = [iterable for target, iterable in loops if name.id in bound_names(target)]
    if not pairs:
        return None
    reached = reaching_value(name, [value for _, value in pairs] + looped)
    if reached is None or isinstance(reached, ast.AugAssign) or any(reached is iterable for iterable in looped):
        return None
    return next((target, value) for target, value in pairs if value is reached)


def reaching_value_outside(name: ast.Name, values: list) -> ast.AST | None:
    """reaching_value, else the value that surely reaches the compound statement holding the read
    (a loop, an `if`, a `with`), climbing outwards, where no binding of the name lies inside that
    statement: `env = Env(cfg); env = Wrapper(env)` before `for ...: env.step(...)`. None as soon as a
    binding sits inside the statement climbed to (rebound in the loop, or in an arm of the `if`)."""
    reached = reaching_value(name, values)
    if reached is not None:
        return reached
    statements = [enclosing_statement(value) for value in values]
    current = enclosing_statement(name)
    while current is not None:
        parent = parent_of(current)
        if parent is None or isinstance(parent, _SCOPES):
            return None
        outer = enclosing_statement(parent)
        if outer is None or any(statement is None or is_within(statement, outer) for statement in statements):
            return None
        reached = reaching_value(outer, values)
        if reached is not None:
            return reached
        current = outer
    return None
