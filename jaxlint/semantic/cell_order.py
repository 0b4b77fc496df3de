"""A notebook's code cells are one program, run top to bottom in cell order.

Jupyter's "Run All", `nbconvert --execute`, papermill and the course that hands a notebook out all run
its cells in the order they stand, and a saved notebook's outputs are what that order printed: a name
a cell reads is the one the cells above bound last, and a PRNG key drawn from in one cell and drawn
from again in a later cell repeats its bits exactly as two draws in one cell do. A cell re-run by hand,
out of order, is the reader's experiment, not the program the notebook shows (a cell that wants a
fresh start says so: it rebinds the key, `key = PRNGKey(0)`, and that new binding is followed as any
other). So flows that follow values through module code (key states, JAX501) run over the module's
statements in source order, notebook or script alike.

What a reader acts on is still the cell: a finding stays one per key and cell (`cell_of`), at the
first reuse in that cell, so a key reused down several cells is reported in each cell where it is
reused, as the reader meets it.
"""

from __future__ import annotations

import ast
import re

_CELL_MARKER = re.compile(r"^# @@notebook-cell (\d+)@@$")


def is_notebook(filename) -> bool:
    return str(filename).endswith(".ipynb")


def program_flows(statements: list[ast.stmt]) -> list[list[ast.stmt]]:
    """The module's top-level statements as the flows that run one after another: one flow, in source
    order, for a script and for a notebook alike (the cells are joined in their order)."""
    return [statements]


def cell_starts(model, text: str) -> list[int]:
    """The lines of the joined module at which the notebook's cells start (their marker lines), in
    order; [] for a plain module. Memoised on the model."""
    found = model.__dict__.get("_cell_starts")
    if found is None:
        found = [number for number, line in enumerate(text.splitlines(), start=1) if line.startswith("# @@notebook-cell") and _CELL_MARKER.match(line)]
        model.__dict__["_cell_starts"] = found
    return found


def cell_of(node: ast.AST, model, text: str) -> int:
    """The marker line of the notebook cell that holds `node` (0 for a plain module, or before the
    first cell)."""
    line = getattr(node, "lineno", 0)
    best = 0
    for start in cell_starts(model, text):
        if start >= line:
            break
        best = start
    return best


def _statement_binds(statement: ast.stmt, name: str) -> bool:
    """A top-level statement binds `name` somewhere in it (a `def`, a `class`, an import, an
    assignment, a loop target, also inside its blocks), not counting function and class bodies."""
    from jaxlint.semantic.syntax import bound_names

    pending: list[ast.AST] = [statement]
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            if node.name == name:
                return True
            continue  # (its body binds in its own scope; decorators and defaults rarely bind)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            if any((alias.asname or alias.name).split(".")[0] == name for alias in node.names):
                return True
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.NamedExpr, ast.withitem)):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None) or getattr(node, "optional_vars", None)]
            if any(target is not None and name in bound_names(target) for target in targets):
                return True
        if isinstance(node, ast.comprehension):
            continue  # (its target is the comprehension's own)
        pending.extend(ast.iter_child_nodes(node))
    return False


def reaching_top_binding(model, read: ast.Name) -> ast.stmt | None:
    """The module-level statement whose binding of `read.id` reaches `read`, a read in module code
    (a script's or a notebook's top level, in cell order): the last top-level statement before the
    read's own that binds the name, where that statement binds it on every path (a `def`, a `class`,
    a plain assignment or import at the top level). None where that cannot be told: the read is in
    a function or class body (it runs when called, after whatever binding came last), the statement
    that binds it last binds it only on some paths (under an `if`, a loop, a `try`), or nothing
    above binds it."""
    from jaxlint.semantic.reaching import enclosing_statement

    tree = getattr(model, "tree", None)
    if tree is None or model.scope_for(read) is not model.module_scope:
        return None
    statement = enclosing_statement(read)
    while statement is not None and parent_of_statement(statement) is not tree:
        statement = parent_of_statement(statement)
    if statement is None:
        return None
    index = _top_index(model).get(id(statement))
    if index is None:
        return None
    body = tree.body
    for earlier in range(index - 1, -1, -1):
        candidate = body[earlier]
        if not _statement_binds(candidate, read.id):
            continue
        always = isinstance(candidate, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)) or (
            isinstance(candidate, (ast.Assign, ast.AnnAssign)) and candidate.value is not None
        )
        return candidate if always else None
    return None


def parent_of_statement(node: ast.AST) -> ast.AST | None:
    from jaxlint.semantic.syntax import parent_of

    current = parent_of(node)
    while current is not None and not isinstance(current, (ast.stmt, ast.Module)):
        current = parent_of(current)
    return current


def _top_index(model) -> dict[int, int]:
    found = model.__dict__.get("_top_statement_index")
    if found is None:
        found = {id(statement): index for index, statement in enumerate(model.tree.body)}
        model.__dict__["_top_statement_index"] = found
    return found


def reaches(model, definition: ast.stmt, read: ast.Name) -> bool:
    """Whether the top-level `definition` (a `def`, an assignment) may be what `read` sees: the
    binding reaching the read is that statement, or which one reaches cannot be told."""
    from jaxlint.semantic.bindings import owning_scope

    owner = owning_scope(model, read.id, model.scope_for(read))
    if owner is not None and owner is not model.module_scope:
        return False  # a local of a function (a parameter `f` of `def jacobian(f)`), not the module's name
    found = reaching_top_binding(model, read)
    return found is None or found is definition
