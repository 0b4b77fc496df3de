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


def _statement_binds(model, statement: ast.stmt, name: str) -> bool:
    """A top-level statement binds `name` somewhere in it (a `def`, a `class`, an import, an
    assignment, a loop target, also inside its blocks), not counting function and class bodies."""
    found = model.__dict__.setdefault("_cell_order_statement_names", {})
    names = found.get(id(statement))
    if names is None:
        names = found[id(statement)] = _names_bound_in(statement)
    return name in names


def _names_bound_in(statement: ast.stmt) -> frozenset[str]:
    """Every name a top-level statement binds (as `_statement_binds` asks), read in one walk."""
    from jaxlint.semantic.syntax import bound_names

    names: set[str] = set()
    pending: list[ast.AST] = [statement]
    while pending:
        node = pending.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            continue  # (its body binds in its own scope; decorators and defaults rarely bind)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
            continue
        if isinstance(node, ast.Lambda):
            continue
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.NamedExpr, ast.withitem)):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None) or getattr(node, "optional_vars", None)]
            for target in targets:
                if target is not None:
                    names.update(bound_names(target))
        if isinstance(node, ast.comprehension):
            continue  # (its target is the comprehension's own)
        pending.extend(ast.iter_child_nodes(node))
    return frozenset(names)


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
        if not _statement_binds(model, candidate, read.id):
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


def _always_binds(statement: ast.stmt) -> bool:
    """A top-level statement that binds its names on every path: a `def`, a `class`, an import, a plain
    assignment (not one under an `if`, a loop or a `try`)."""
    return isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom)) or (
        isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None
    )


def top_binding_count(model, name: str) -> int:
    """How many top-level statements bind `name` (memoised per module and name)."""
    counts = model.__dict__.get("_cell_order_binding_counts")
    if counts is None:
        counts = model.__dict__["_cell_order_binding_counts"] = {}
        for statement in model.tree.body:
            for bound in _names_bound_in(statement):
                counts[bound] = counts.get(bound, 0) + 1
    return counts.get(name, 0)


def _binding_before(model, name: str, index: int) -> ast.stmt | None:
    """The top-level statement binding `name` last before the statement at `index` (the module's end
    where `index` is the body's length), where it binds it on every path; None otherwise."""
    body = model.tree.body
    for earlier in range(min(index, len(body)) - 1, -1, -1):
        candidate = body[earlier]
        if _statement_binds(model, candidate, name):
            return candidate if _always_binds(candidate) else None
    return None


def _name_reads(model) -> dict[str, list[ast.Name]]:
    """name -> every read (load) of it in the module, indexed once per module."""
    found = model.__dict__.get("_cell_order_name_reads")
    if found is None:
        found = {}
        for node in model.nodes:
            if node.__class__ is ast.Name and node.ctx.__class__ is ast.Load:
                found.setdefault(node.id, []).append(node)
        model.__dict__["_cell_order_name_reads"] = found
    return found


def _top_statement(model, node: ast.AST) -> ast.stmt | None:
    tree = model.tree
    statement = parent_of_statement(node)
    while statement is not None and parent_of_statement(statement) is not tree:
        statement = parent_of_statement(statement)
    return statement if statement is not None and id(statement) in _top_index(model) else None


_RUN_DEPTH = 4


def _run_points(model, function: ast.stmt, depth: int, seen: set[int]) -> list[int] | None:
    """The indices of the top-level statements during which the module-level `function` runs: those
    that call it by name (the read of its name there reaching this `def`), and those during which a
    module-level function that calls it runs. [] where nothing in the module calls it (another module
    or a command line does, after the module ran). None where it cannot be told: its name is handed
    on rather than called, read in a class body, or followed too far."""
    from jaxlint.semantic.bindings import owning_scope
    from jaxlint.semantic.syntax import parent_of

    if depth > _RUN_DEPTH or id(function) in seen:
        return None
    seen = seen | {id(function)}
    points: list[int] = []
    for read in _name_reads(model).get(function.name, ()):
        parent = parent_of(read)
        if not (isinstance(parent, ast.Call) and parent.func is read):
            return None  # handed on (`jax.jit(f)`, `callbacks=[f]`): where it runs is not known here
        scope = model.scope_for(read)
        if scope is model.module_scope:
            statement = _top_statement(model, read)
            if statement is None:
                return None
            reaching = reaching_top_binding(model, read)
            if reaching is None:
                return None
            if reaching is not function:
                continue  # a call of another binding of the name
            points.append(_top_index(model)[id(statement)])
            continue
        if owning_scope(model, read.id, scope) is not model.module_scope:
            continue  # a local of that name
        caller = _top_statement(model, read)
        if caller is function:
            continue  # (a recursive call runs while the function already runs)
        if not isinstance(caller, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None  # a method or a class body: runs when an instance is used
        inner = _run_points(model, caller, depth + 1, seen)
        if inner is None:
            return None
        # (the runs of the caller during which its read of the name is this `def`)
        points.extend(point for point in (inner or [len(model.tree.body)]) if _binding_before(model, function.name, point) is function)
    return points


def reaching_top_bindings(model, read: ast.Name) -> list[ast.stmt] | None:
    """The module-level statements whose binding of `read.id` a read of the module's name may see, in
    run order: a script's top level and a notebook's cells run top to bottom (the cells in their order),
    so a read in module code sees the binding above it (`reaching_top_binding`), and a read in the body
    of a module-level function sees the binding that stands when the function runs: the one reaching
    each top-level statement that calls it (directly or through other module-level functions), or the
    module's last binding where nothing in the module calls it (it runs after the module ran). A
    notebook that defines `accuracy` in one cell, runs a training function calling it, and redefines
    `accuracy` for another model in a later cell before running the function again has both. None
    where it cannot be told: the name is a local there, a binding on the way is conditional, or the
    function is handed on rather than called."""
    from jaxlint.semantic.bindings import owning_scope

    tree = getattr(model, "tree", None)
    if tree is None or not isinstance(read, ast.Name):
        return None
    scope = model.scope_for(read)
    if scope is None or owning_scope(model, read.id, scope) is not model.module_scope:
        return None
    if scope is model.module_scope:
        found = reaching_top_binding(model, read)
        return [found] if found is not None else None
    function = _top_statement(model, read)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    points = _run_points(model, function, 0, set())
    if points is None:
        return None
    found: list[ast.stmt] = []
    for point in sorted(set(points)) or [len(tree.body)]:
        if point < len(tree.body):
            statement = tree.body[point]
            if not isinstance(statement, (ast.Expr, ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Return)) and _statement_binds(model, statement, read.id):
                return None  # the statement that runs it also binds the name somewhere inside
        binding = _binding_before(model, read.id, point)
        if binding is None:
            return None
        if binding not in found:
            found.append(binding)
    return found
