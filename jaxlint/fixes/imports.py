"""The import manager of every fix: name `jax.numpy.where` through the module's own aliases, and add
a missing import after the module's imports (identical import edits from several fixes coalesce)."""

from __future__ import annotations

import ast

from jaxlint.diagnostics import Edit, Position

# Submodules `import jax` loads: naming them through the `jax` alias needs no import of their own.
_LOADED_WITH_JAX = frozenset({"jax", "jax.numpy", "jax.lax", "jax.random", "jax.nn", "jax.tree", "jax.tree_util", "jax.sharding"})
# The conventional alias a fix introduces when the module has no binding for the module yet.
PREFERRED_ALIASES = {"jax.numpy": "jnp", "jax.lax": "lax", "jax": "jax", "functools": "functools", "jax.random": "jrandom"}


def reference(context, qualified: str) -> tuple[str, list[Edit]]:
    """An expression naming `qualified` in this module, plus the import edit it needs, if any.

    `reference(ctx, "jax.numpy.where")` gives `jnp.where` when the module has `import jax.numpy as
    jnp`, `jax.numpy.where` when it only has `import jax`, and otherwise adds `import jax.numpy as jnp`.
    """
    imports = context.model.imports
    existing = imports.local_name_for(qualified)
    if existing is not None:
        return existing, []
    module, _, attribute = qualified.rpartition(".")
    alias = PREFERRED_ALIASES.get(module, module.rsplit(".", 1)[-1])
    taken = imports.locally_bound | set(imports.aliases)
    if alias in taken:
        alias = None
    statement = f"import {module} as {alias}\n" if alias and alias != module else f"import {module}\n"
    name = alias or module
    if not alias and module.split(".")[0] in taken and module.split(".")[0] not in imports.aliases:
        return "", []  # the top-level name is shadowed; give up rather than guess
    return f"{name}.{attribute}", [import_edit(context, statement)]


def import_edit(context, statement: str) -> Edit:
    """Insert an import after the module's last top-level import (after the docstring otherwise)."""
    tree = context.model.tree
    anchor_row = 0
    for index, node in enumerate(tree.body):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            anchor_row = node.end_lineno or node.lineno
        elif index == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            anchor_row = node.end_lineno or node.lineno
        elif anchor_row:
            break
    lines = context.source.lines
    if anchor_row >= len(lines):
        # The import is on the last line and the file has no final newline.
        end = Position(len(lines), len(lines[-1]) + 1)
        return Edit("\n" + statement.rstrip("\n"), end, end)
    position = Position(anchor_row + 1, 1)
    return Edit(statement, position, position)


def needs_parentheses(node: ast.AST) -> bool:
    """Whether an expression must be wrapped when it becomes an operand."""
    return not isinstance(node, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant, ast.List, ast.Tuple, ast.Dict, ast.Set))


def asarray_fix(context, sequence: ast.AST, message: str):
    """Wrap a host sequence in `jnp.asarray(...)` so a tracer can index it; None if no name is free."""
    name, import_edits = reference(context, "jax.numpy.asarray")
    if not name:
        return None
    return context.fix(message.format(name=name), [context.replace(sequence, f"{name}({context.text(sequence)})"), *import_edits], safe=True)


def submodule_reference(context, qualified: str) -> tuple[str, list[Edit]]:
    """Like `reference`, but imports submodules that `import jax` does not load (`jax.extend.backend`)."""
    module, _, attribute = qualified.rpartition(".")
    if module in _LOADED_WITH_JAX or not module.startswith("jax"):
        return reference(context, qualified)
    imports = context.model.imports
    for name, imported in imports.aliases.items():
        if imported == qualified:
            return name, []
        if imported == module:
            return f"{name}.{attribute}", []
    if "jax" in imports.locally_bound and "jax" not in imports.aliases:
        return "", []
    return qualified, [import_edit(context, f"import {module}\n")]


def names_in_use(context) -> frozenset[str]:
    """Every identifier the module reads or binds, so a generated helper name shadows none of them.
    Built once per module from the model's node list (a fix needs it per finding)."""
    model = context.model
    names = getattr(model, "_jaxlint_fix_names", None)
    if names is None:
        used = set(model.bound_names)
        for node in model.nodes:
            kind = node.__class__
            if kind is ast.Name:
                used.add(node.id)
            elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
                used.add(node.name)
            elif kind is ast.arg:
                used.add(node.arg)
            elif kind is ast.alias:
                used.add((node.asname or node.name).split(".")[0])
        names = model._jaxlint_fix_names = frozenset(used)
    return names
