"""May `name` be read after this statement, before it is rebound?

One syntactic, conservative liveness query for one scope (a function, lambda, class or module body).
Rules ask it before they delete a value: donating a buffer is only sound when nothing reads the
name again. "Live" is the safe answer, so every choice below leans towards it:

- Execution is followed forward through the statement's block, then through the rest of each
  enclosing block, up to the end of the scope. Code after the scope (a caller) is not seen.
- An assignment reads its value (and the parts of its targets: `x[i] = v` reads `x` and `i`) before
  it stores its targets: `x = f(x)` and `x += 1` read `x`. Only an assignment at the top level of a
  block that stores the bare name ends liveness.
- A compound statement (`if`, `for`, `while`, `with`, `try`, `match`, `def`, `class`) counts as a
  read when it reads the name anywhere inside it, and never ends liveness: a rebinding inside a
  branch (or a loop body, which may run zero times) leaves the other path live.
- Leaving a block, the clauses of the enclosing statement that come after it count as reads when
  they read the name (an `if`'s `else`, a `try`'s handlers and `finally`, a loop's `else`); which
  clause ran is not tracked.
- A loop around the statement wraps around to its top: the `while` test, the `for` iterable (its
  iterator still holds it), then the loop body from its first statement up to and including the
  one that holds `statement`, which runs again. A `for` target that stores the name rebinds it.
- A read in a nested function or lambda counts as a read (it may run at any later time), unless
  the caller asks for reads of this scope only.
- No reasoning about `return`, `break`, `raise` or constant conditions: code after them still counts.
"""

from __future__ import annotations

import ast
from typing import Iterator

from jaxlint.semantic.model import FUNCTION_NODES, parent_of

_LOOPS = (ast.For, ast.AsyncFor, ast.While)
_SCOPES = (*FUNCTION_NODES, ast.ClassDef, ast.Module)
_READ, _STORE = "read", "store"


def read_after(
    name: str, statement: ast.stmt, *, until_rebound: bool = True, nested_functions: bool = True, rerun_reads: bool = True,
) -> bool:
    """Whether `name` may be read after `statement` runs (see the module docstring for how).

    until_rebound: stop at an assignment that rebinds `name` (the value read later is another one).
      False asks whether the name is read again at all, whatever it holds then: callers that cannot
      tell which value a later read sees use it.
    nested_functions: count reads inside nested functions and lambdas. False counts only reads that
      run in this scope's own frame.
    rerun_reads: when a loop comes round to `statement` again, its own reads count. False counts
      only other statements' reads (and the parts of an enclosing statement written before it).
    """
    current: ast.AST = statement
    while True:
        parent = parent_of(current)
        located = _block_of(current, parent) if parent is not None else None
        if located is None:
            return False
        field, block = located
        effect = _scan(block[_index(block, current) + 1:], name, until_rebound, nested_functions)
        if effect is not None:
            return effect is _READ
        if isinstance(parent, _SCOPES):
            return False
        if _later_clauses_read(parent, field, name, nested_functions):
            return True
        if isinstance(parent, _LOOPS) and field == "body" and _next_iteration_reads(parent, current, statement, name, until_rebound, nested_functions, rerun_reads):
            return True
        current = parent


def _scan(statements: list[ast.stmt], name: str, until_rebound: bool, nested_functions: bool) -> str | None:
    """The first statement in `statements` that reads or (at top level) rebinds `name` decides."""
    for later in statements:
        effect = _effect(later, name, nested_functions)
        if effect is _READ or effect is _STORE and until_rebound:
            return effect
    return None


def _effect(statement: ast.stmt, name: str, nested_functions: bool) -> str | None:
    if _reads(statement, name, nested_functions):
        return _READ
    if isinstance(statement, ast.AugAssign):
        return _READ if isinstance(statement.target, ast.Name) and statement.target.id == name else None
    if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        if any(isinstance(element, ast.Name) and element.id == name for target in targets for element in _target_leaves(target)):
            return _STORE
    return None


def _target_leaves(target: ast.AST) -> Iterator[ast.AST]:
    if isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_leaves(element)
    elif isinstance(target, ast.Starred):
        yield from _target_leaves(target.value)
    else:
        yield target


def _reads(node: ast.AST, name: str, nested_functions: bool) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name and isinstance(n.ctx, ast.Load) for n in _walk(node, nested_functions))


def _walk(node: ast.AST, nested_functions: bool) -> Iterator[ast.AST]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        if not nested_functions and isinstance(current, (*FUNCTION_NODES, ast.ClassDef)):
            # Only what runs in this frame: decorators (defaults and bases are not followed either).
            stack.extend(getattr(current, "decorator_list", ()))
            continue
        stack.extend(ast.iter_child_nodes(current))


_CLAUSES = ("body", "handlers", "orelse", "finalbody", "cases")


def _block_of(statement: ast.AST, parent: ast.AST) -> tuple[str, list] | None:
    """(field, statement list) of `parent` that holds `statement`; handlers and cases hold bodies."""
    for field in _CLAUSES:
        block = getattr(parent, field, None)
        if isinstance(block, list) and any(item is statement for item in block):
            return field, block
    return None


def _index(block: list, statement: ast.AST) -> int:
    return next(index for index, item in enumerate(block) if item is statement)


def _later_clauses_read(parent: ast.AST, field: str, name: str, nested_functions: bool) -> bool:
    """The clauses of `parent` written after the one just left read `name`."""
    later = _CLAUSES[_CLAUSES.index(field) + 1:]
    return any(
        _reads(item, name, nested_functions)
        for clause in later for item in (getattr(parent, clause, None) or ())
    )


def _next_iteration_reads(
    loop: ast.AST, holder: ast.stmt, statement: ast.stmt, name: str, until_rebound: bool, nested_functions: bool, rerun_reads: bool,
) -> bool:
    """The next iteration of `loop` reads `name` before rebinding it, up to `statement` (`holder`,
    the statement of the loop body that holds it, is cut at its start)."""
    header = loop.test if isinstance(loop, ast.While) else loop.iter
    if _reads(header, name, nested_functions):
        return True
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        if _reads(loop.target, name, nested_functions):
            return True
        if until_rebound and any(isinstance(n, ast.Name) and n.id == name for n in _target_leaves(loop.target)):
            return False
    effect = _scan(loop.body[: _index(loop.body, holder)], name, until_rebound, nested_functions)
    if effect is not None:
        return effect is _READ
    if holder is statement:
        return rerun_reads and _reads(statement, name, nested_functions)
    start = (statement.lineno, statement.col_offset)
    return any(
        isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load) and (node.lineno, node.col_offset) < start
        for node in _walk(holder, nested_functions)
    ) or rerun_reads and _reads(statement, name, nested_functions)
