"""Qualified names exactly as the module spells them, without jaxlint's canonical aliases.

`imports.canonical` maps `jax.experimental.pjit.pjit` to `jax.jit` so transform rules see one
name; API-currency rules need to tell the two apart.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.imports import ImportMap


def raw_qualified_name(imports: ImportMap, node: ast.AST) -> str | None:
    """`jax.tree_map` -> `jax.tree_map`; `pjit` (from jax.experimental.pjit import pjit) -> its full name."""
    return imports.spelled_name(node)


def imported_name(node: ast.ImportFrom | ast.Import, alias: ast.alias) -> str | None:
    """The qualified name one alias of an import statement brings in."""
    if isinstance(node, ast.Import):
        return alias.name
    if node.level or not node.module or alias.name == "*":
        return None
    return f"{node.module}.{alias.name}"
