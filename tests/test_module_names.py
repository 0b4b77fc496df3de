"""No module of the package binds a module-level name twice.

A constant or function defined again further down a module silently replaces the first one for every
function that reads it, also those written against the first (a second `_PURE_PREFIXES` in
semantic/key_values.py once changed which statements counted as dead and made JAX501 report a
look-alike). Python raises nothing; this test does."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "jaxlint"


def _module_level_bindings(tree: ast.Module) -> dict[str, list[int]]:
    found: dict[str, list[int]] = defaultdict(list)
    for statement in tree.body:
        if isinstance(statement, ast.Assign):
            names = [target.id for target in statement.targets if isinstance(target, ast.Name)]
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value is not None:
            names = [statement.target.id]
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names = [statement.name]
        else:
            names = []
        for name in names:
            found[name].append(statement.lineno)
    return found


def test_no_module_level_name_is_bound_twice():
    rebound = []
    for path in sorted(PACKAGE.rglob("*.py")):
        bindings = _module_level_bindings(ast.parse(path.read_text(encoding="utf-8")))
        rebound += [f"{path.relative_to(PACKAGE.parent)}: {name} at lines {lines}" for name, lines in bindings.items() if len(lines) > 1]
    assert rebound == []


def test_the_check_sees_a_rebinding():
    tree = ast.parse("A = (1,)\ndef f():\n    return A\nA = (2,)\n")
    assert _module_level_bindings(tree)["A"] == [1, 4]
