"""Classes whose methods run under a reverse-mode derivative taken in another module of the project.

A library module defines a physical or network model as a class (`class Surface: def flux(self, x):
...`) and never differentiates anything; a script, an example or a check of the same project builds
the model inside a function it hands to `jax.grad`/`value_and_grad`/`jacrev`/`vjp`:

    def run(theta):
        model = pkg.Surface(); ...; return model.flux(theta)
    jax.jacrev(run)(290.0)

Every method of the class then runs under that derivative, though the library module alone shows
no transform (the same holds for a function of the class's own module). The fact: the class is instantiated (`Surface(...)`, `pkg.sub.Surface(...)`) in the
body of a function (or a function nested in it) that another module of the project hands by name
to a reverse-mode transform, in a module that imports the class's package. Forward-mode transforms
(`jacfwd`, `jvp`) do not count. A class only built elsewhere, or built in a function no gradient is
taken of, is not differentiated. Test modules count: a check that differentiates the model says the
project differentiates it. The project is read from the file's checkout root (pyproject.toml,
setup.py, .git), a bounded number of files, each parsed once per process.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from jaxlint.semantic.project import file_digest, project_root_of
from jaxlint.semantic.reachability import REVERSE_MODE

_REVERSE_NAMES = frozenset(name.rsplit(".", 1)[-1] for name in REVERSE_MODE)
_MAX_FILES = 600
_SKIPPED_FOLDERS = frozenset({"build", "dist", "site-packages", "node_modules", "__pycache__", "docs"})
# [module, {class name differentiated there}] of the module last asked about
_last_module: list = [None, frozenset()]
# root -> [path, ...] of the project's Python files
_project_files: dict[str, list[str]] = {}
# (path, size, mtime) -> (imported words, {class name differentiated there}, digest)
_file_facts: dict[tuple[str, int, int], tuple[frozenset, frozenset, str]] = {}


def class_differentiated_elsewhere(class_node: ast.ClassDef, module: ast.Module, path, project=None) -> bool:
    """Whether this module or another module of the project instantiates the class in a function it
    differentiates in reverse mode (module docstring)."""
    if _last_module[0] is not module:
        _last_module[:] = [module, _tree_facts(module)[1]]
    if class_node.name in _last_module[1]:
        return True
    if path is None or not os.path.isfile(path):
        return False
    here = Path(os.path.abspath(path))
    root = project_root_of(here)
    if root is None:
        return False
    packages = {part for part in here.relative_to(root).with_suffix("").parts if part.isidentifier() and part != "src"}
    for other in _files_of(str(root)):
        if other == str(here):
            continue
        try:
            stat = os.stat(other)
            key = (other, stat.st_size, stat.st_mtime_ns)
            facts = _file_facts.get(key)
            if facts is None:
                with open(other, "rb") as handle:
                    data = handle.read()
                facts = _file_facts[key] = (*_facts(data), file_digest(data))
        except OSError:
            continue
        imported, differentiated, digest = facts
        if class_node.name in differentiated and imported & packages:
            if project is not None and hasattr(project, "dependencies"):
                project.dependencies[other] = digest
            return True
    return False


def _files_of(root: str) -> list[str]:
    found = _project_files.get(root)
    if found is not None:
        return found
    found = []
    for current, directories, names in os.walk(root):
        directories[:] = [d for d in directories if d not in _SKIPPED_FOLDERS and not d.startswith(".") and not d.endswith(".egg-info")]
        found.extend(os.path.join(current, n) for n in names if n.endswith(".py"))
        if len(found) > _MAX_FILES:
            found = []
            break
    _project_files[root] = found
    return found


def _facts(data: bytes) -> tuple[frozenset, frozenset]:
    if not any(word.encode() in data for word in _REVERSE_NAMES):
        return frozenset(), frozenset()
    try:
        tree = ast.parse(data)
    except (SyntaxError, ValueError):
        return frozenset(), frozenset()
    return _tree_facts(tree)


def _tree_facts(tree: ast.Module) -> tuple[frozenset, frozenset]:
    imported = set()
    functions: dict[str, list[ast.AST]] = {}
    differentiated_names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                imported.update(alias.name.split("."))
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.update(node.module.split("."))
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.setdefault(node.name, []).append(node)
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Name):
            function = node.func
            called = function.attr if isinstance(function, ast.Attribute) else function.id if isinstance(function, ast.Name) else None
            if called in _REVERSE_NAMES:
                differentiated_names.add(node.args[0].id)
    classes = set()
    for name in differentiated_names:
        for function in functions.get(name, ()):
            for node in ast.walk(function):
                if isinstance(node, ast.Call):
                    callee = node.func
                    if isinstance(callee, ast.Attribute):
                        classes.add(callee.attr)
                    elif isinstance(callee, ast.Name):
                        classes.add(callee.id)
    return frozenset(imported), frozenset(c for c in classes if c[:1].isupper())
