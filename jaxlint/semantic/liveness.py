"""May `name` be read after this statement, before it is rebound?

One syntactic, conservative liveness query for one scope (a function, class or module body). Rules
ask it before they delete a value: donating a buffer is only sound when nothing reads the name
again. "Live" is the safe answer, so every choice below leans towards it:

- Execution is followed forward through the statement's block, then through the rest of each
  enclosing block, up to the end of the scope. Code after the scope (a caller) is not seen.
- An assignment reads its value (and the parts of its targets: `x[i] = v` reads `x` and `i`) before
  it stores its targets: `x = f(x)` and `x += 1` read `x`. An assignment that stores the bare name
  ends liveness on its path.
- A compound statement (`if`, `for`, `while`, `with`, `try`, `match`) is a read when any of its
  clauses reads the name before rebinding it there, and does not end liveness: a rebinding inside a
  branch (or a loop body, which may run zero times) leaves the path around it live. The exception is
  an `if` with an `else` whose two branches both rebind the name before reading it (`if n > 1: view
  = first(state)` / `else: view = state`): one of them runs, so liveness ends there.
- Leaving a block, the clauses of the enclosing statement written after it count as paths too (an
  `if`'s `else`, a `try`'s handlers and `finally`, a loop's `else`); which clause ran is not tracked.
- A loop around the statement wraps around to its top: the `while` test, the `for` iterable (its
  iterator still holds it) and target (a rebinding), then the way back down to the statement: each
  block's statements before it and the headers of the statements around it.
- A read inside a nested function, lambda or class body counts as a read (it may run at any later
  time), whatever that body binds itself.
- No reasoning about `return`, `break`, `raise` or constant conditions: code after them still counts.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.flow import LOOP_NODES, target_elements
from jaxlint.semantic.model import FUNCTION_NODES, parent_of
from jaxlint.semantic.syntax import walk  # ast.walk minus ctx markers, faster

_SCOPES = (*FUNCTION_NODES, ast.ClassDef, ast.Module)
_READ, _STORE = "read", "store"


def read_after(name: str, statement: ast.stmt, *, until_rebound: bool = True, rerun_reads: bool = True) -> bool:
    """Whether `name` may be read after `statement` runs, in `statement`'s scope (see the module docstring).

    until_rebound: an assignment to `name` ends liveness on its path (a later read sees another value).
      False asks whether the name is read again at all, whatever it holds then: the donation fix asks
      that, since an edit applied without review wants more certainty than a finding.
    rerun_reads: when a loop comes round to `statement` again, `statement`'s own reads count. False
      counts only the code around it: carried_state asks that of a call that passes `name` itself
      ("does anything else still read what this call passes?").
    """
    query = _Query(name, until_rebound)
    current: ast.AST = statement
    while True:
        parent = parent_of(current)
        located = _block_of(current, parent) if parent is not None else None
        if located is None:
            return False
        field, block = located
        effect = query.scan(block[_index(block, current) + 1:])
        if effect is not None:
            return effect is _READ
        if isinstance(parent, _SCOPES):
            return False
        if query.fields_read(parent, after=field, before=None):
            return True
        if isinstance(parent, LOOP_NODES) and field == "body" and query.next_iteration_reads(parent, statement, rerun_reads):
            return True
        current = parent


class _Query:
    def __init__(self, name: str, until_rebound: bool) -> None:
        self.name = name
        self.until_rebound = until_rebound

    def scan(self, statements: list) -> str | None:
        """Run `statements` in order: the first that reads `name`, or rebinds it, decides."""
        for statement in statements:
            effect = self.effect(statement)
            if effect is not None:
                return effect
        return None

    def effect(self, statement: ast.stmt) -> str | None:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return _READ if self.reads(statement) else None
        if isinstance(statement, ast.If) and statement.orelse and not self.reads(statement.test):
            # Both branches run one or the other: rebinding in each, before any read, ends liveness.
            branches = (self.scan(statement.body), self.scan(statement.orelse))
            if _READ in branches:
                return _READ
            return self.rebound() if branches == (_STORE, _STORE) else None
        if any(isinstance(part, list) and part and isinstance(part[0], ast.stmt) for _, part in ast.iter_fields(statement)):
            return _READ if self.fields_read(statement, None, None) else None
        if self.reads(statement):
            return _READ
        if isinstance(statement, ast.AugAssign):
            return _READ if self.stores(statement.target) else None
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            if any(self.stores(target) for target in targets):
                return self.rebound()
        return None

    def rebound(self) -> str | None:
        return _STORE if self.until_rebound else None

    def fields_read(self, compound: ast.AST, after: str | None, before: str | None) -> bool:
        """Whether the clauses and headers of `compound` (those written after field `after` and
        before field `before`, when given) read `name` on some path."""
        fields = [field for field, _ in ast.iter_fields(compound)]
        first = fields.index(after) + 1 if after is not None else 0
        last = fields.index(before) if before is not None else len(fields)
        target_rebinds = False
        for field in fields[first:last]:
            part = getattr(compound, field)
            if isinstance(compound, (ast.For, ast.AsyncFor)) and field == "target":
                target_rebinds = self.until_rebound and self.stores(part) and not self.reads(part)
                continue
            if target_rebinds and field == "body":
                continue  # the body runs with the target's new value
            if isinstance(part, list) and part and isinstance(part[0], ast.stmt):
                if self.scan(part) is _READ:  # a rebinding in this clause leaves the paths around it live
                    return True
            elif isinstance(part, list):
                # Handlers and match cases have bodies of their own; `with` items, decorators do not.
                if any(self.fields_read(item, None, None) if hasattr(item, "body") else self.reads(item) for item in part):
                    return True
            elif isinstance(part, ast.AST) and self.reads(part):
                return True
        return False

    def next_iteration_reads(self, loop: ast.AST, statement: ast.stmt, rerun_reads: bool) -> bool:
        """The way from the top of `loop` back down to `statement` reads `name` before rebinding it."""
        chain = []
        child: ast.AST = statement
        while child is not loop:
            chain.append((parent_of(child), child))
            child = parent_of(child)
        for compound, child in reversed(chain):
            field, block = _block_of(child, compound)
            if isinstance(compound, (ast.For, ast.AsyncFor)):
                if self.reads(compound.iter):
                    return True
                if self.until_rebound and field == "body" and self.stores(compound.target):
                    return False
            elif self.fields_read(compound, None, field):
                return True
            effect = self.scan(block[: _index(block, child)])
            if effect is not None:
                return effect is _READ
        return rerun_reads and self.reads(statement)

    def reads(self, node: ast.AST) -> bool:
        return any(isinstance(n, ast.Name) and n.id == self.name and isinstance(n.ctx, ast.Load) for n in walk(node))

    def stores(self, target: ast.AST) -> bool:
        """`target` (an assignment or `for` target) rebinds the bare name."""
        return any(isinstance(leaf, ast.Name) and leaf.id == self.name for leaf in target_elements(target))


def _block_of(statement: ast.AST, parent: ast.AST) -> tuple[str, list] | None:
    """(field, list) of `parent` that holds `statement`: a block, or the handlers or cases of a `try` or `match`."""
    for field, part in ast.iter_fields(parent):
        if isinstance(part, list) and any(item is statement for item in part):
            return field, part
    return None


def _index(block: list, statement: ast.AST) -> int:
    return next(index for index, item in enumerate(block) if item is statement)
