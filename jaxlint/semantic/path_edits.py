"""The folders a file puts on Python's module path before it imports: `sys.path` edits.

Research scripts often reach a sibling folder of the repository this way:

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))
    sys.path.append(str(Path(__file__).resolve().parents[1] / "envs"))
    sys.path.append("../src")
    from agents.ddpg import Agent

A Python process started the way the file is run (`python train.py` from the file's own folder) then
loads `agents` from the named folder. This module evaluates the path expression of each
`sys.path.insert`/`append`/`extend` call (and `sys.path += [...]`) written anywhere in the module to
a folder, when it is built only from `__file__`, string literals, `os.getcwd()` (the file's folder,
where the script is run from), `os.pardir`/`os.curdir`, the `os.path` functions that combine them
(`dirname`, `join`, `abspath`, `realpath`, `normpath`) and `pathlib.Path` steps (`.parent`,
`.parents[n]`, `.resolve()`, `/ "name"`), through module-level names bound once. Anything else
(an environment variable, a command-line argument, a home folder) adds no folder: an import it
would reach stays unresolved. An absolute folder of the author's machine
(`sys.path.append('/home/me/repo/models/conv/')`) is that folder of this checkout when its tail,
two parts or more, names a folder below one of the file's ancestors (within the project root):
the code was written in a copy of the same repository.

The result is in Python's order: `insert` folders come before the file's own folder, `append` and
`extend` folders after the folders the project view already searches; the first folder holding the
module wins, as it does for Python.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

from jaxlint.semantic.syntax import dotted_name

# `os.path` functions that keep a path's meaning (the model has absolute folders already).
_SAME_PATH = frozenset({"abspath", "realpath", "normpath", "expanduser", "fspath"})
_PATH_STEPS = frozenset({"resolve", "absolute", "expanduser"})
_PATH_MODULE_SPELLINGS = frozenset({"os.path", "osp", "op", "path", "posixpath"})


def path_edit_folders(tree: ast.Module, filename: Path, root: Path | None = None) -> tuple[list[Path], list[Path]]:
    """(folders put in front of the module path, folders added at its end) by the file's `sys.path`
    edits, each an existing folder; both empty for a module that edits nothing. `root`, when known,
    bounds where an absolute folder of the author's machine is looked for by its tail."""
    edits = [node for node in ast.walk(tree) if _is_path_edit(node)]
    if not edits:
        return [], []
    evaluator = _PathEvaluator(tree, filename, root)
    front: list[Path] = []
    back: list[Path] = []
    for node in edits:
        if isinstance(node, ast.AugAssign):
            values, into = _listed(node.value), back
        else:
            method = node.func.attr
            if method == "insert" and len(node.args) == 2:
                values, into = [node.args[1]], front
            elif method == "append" and len(node.args) == 1:
                values, into = [node.args[0]], back
            elif method == "extend" and len(node.args) == 1:
                values, into = _listed(node.args[0]), back
            else:
                continue
        for value in values:
            folder = evaluator.folder(value)
            if folder is not None and folder.is_dir() and folder not in into:
                into.append(folder)
    # A later `insert(0, ...)` goes before an earlier one.
    return list(reversed(front)), back


def _is_sys_path(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "path" and isinstance(node.value, ast.Name) and node.value.id == "sys"


def _is_path_edit(node: ast.AST) -> bool:
    if isinstance(node, ast.Call):
        func = node.func
        return isinstance(func, ast.Attribute) and func.attr in ("insert", "append", "extend") and _is_sys_path(func.value)
    return isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add) and _is_sys_path(node.target)


def _listed(node: ast.AST) -> list[ast.AST]:
    return list(node.elts) if isinstance(node, (ast.List, ast.Tuple)) else []


class _PathEvaluator:
    """Evaluates a path expression of one module to an absolute folder, or None when it is not
    built from `__file__`, literals and the path functions above."""

    def __init__(self, tree: ast.Module, filename: Path, root: Path | None = None) -> None:
        self.file = Path(os.path.abspath(filename))
        self.root = Path(os.path.abspath(root)) if root is not None else None
        self.bindings: dict[str, ast.AST | None] = {}
        for statement in tree.body:
            if isinstance(statement, ast.Assign):
                targets = statement.targets
            elif isinstance(statement, (ast.AnnAssign, ast.AugAssign)):
                targets = [statement.target]
            else:
                continue
            for target in targets:
                if isinstance(target, ast.Name):
                    once = target.id not in self.bindings and not isinstance(statement, ast.AugAssign)
                    self.bindings[target.id] = statement.value if once else None
        # Bare `dirname(...)` / `join(...)` count only when imported from `os.path`.
        self.from_os_path = {
            alias.asname or alias.name: alias.name
            for statement in tree.body
            if isinstance(statement, ast.ImportFrom) and statement.module in ("os.path", "posixpath") and not statement.level
            for alias in statement.names
        }
        self.active: set[str] = set()

    def folder(self, node: ast.AST) -> Path | None:
        value = self._absolute(node)
        return None if value is None or value == self.file else value

    def _value(self, node: ast.AST) -> Path | str | None:
        """A Path (absolute) or a relative str piece, or None."""
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            return node.value
        if isinstance(node, ast.Name):
            if node.id == "__file__":
                return self.file
            bound = self.bindings.get(node.id)
            if bound is None or node.id in self.active:
                return None
            self.active.add(node.id)
            try:
                return self._value(bound)
            finally:
                self.active.discard(node.id)
        if isinstance(node, ast.Attribute):
            spelled = dotted_name(node)
            if spelled in ("os.pardir", "os.curdir"):
                return ".." if spelled == "os.pardir" else "."
            if node.attr == "parent":
                base = self._absolute(node.value)
                return base.parent if base is not None else None
            return None
        if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute) and node.value.attr == "parents":
            base = self._absolute(node.value.value)
            index = node.slice
            if base is not None and isinstance(index, ast.Constant) and isinstance(index.value, int) and 0 <= index.value < len(base.parents):
                return base.parents[index.value]
            return None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Div, ast.Add)):
            left = self._value(node.left)
            right = self._value(node.right)
            if left is None or not isinstance(right, str):
                return None
            if isinstance(node.op, ast.Div):
                return self._joined(left, right)
            if isinstance(left, str):
                return left + right
            return self._joined(left, right.lstrip("/")) if right.startswith("/") else None
        if isinstance(node, ast.JoinedStr):
            return None
        if isinstance(node, ast.Call):
            return self._call(node)
        return None

    def _call(self, node: ast.Call) -> Path | str | None:
        func = node.func
        if node.keywords:
            return None
        if isinstance(func, ast.Attribute) and func.attr in _PATH_STEPS and not node.args:
            return self._absolute(func.value)
        if isinstance(func, ast.Attribute) and func.attr == "joinpath":
            return self._joined_all(self._absolute(func.value), node.args)
        spelled = dotted_name(func)
        if spelled is None:
            return None
        module, _, name = spelled.rpartition(".")
        if not module:
            if name in self.from_os_path:
                module, name = "os.path", self.from_os_path[name]
            elif name in ("Path", "PurePath", "str"):
                module = "pathlib" if name != "str" else ""
        if name in ("getcwd", "cwd") and not node.args and spelled in ("os.getcwd", "Path.cwd", "pathlib.Path.cwd"):
            return self.file.parent
        if name == "str" and not module or spelled in ("os.fspath",):
            return self._value(node.args[0]) if len(node.args) == 1 else None
        if name in ("Path", "PurePath") and module in ("pathlib", ""):
            if not node.args:
                return None
            return self._joined_all(self._absolute(node.args[0]), node.args[1:])
        if module in _PATH_MODULE_SPELLINGS or module == "os.path":
            if name in _SAME_PATH and len(node.args) == 1:
                return self._absolute(node.args[0])
            if name == "dirname" and len(node.args) == 1:
                base = self._absolute(node.args[0])
                return base.parent if base is not None else None
            if name == "join" and node.args:
                return self._joined_all(self._absolute(node.args[0]), node.args[1:])
            return None
        return None

    def _absolute(self, node: ast.AST) -> Path | None:
        """The expression as an absolute path: a relative literal is taken from the file's folder,
        where a script is run from."""
        value = self._value(node)
        if isinstance(value, str):
            if value.startswith("~"):
                return None  # a folder of one machine, not of the project
            if os.path.isabs(value):
                return self._project_tail(value)
            return Path(os.path.normpath(self.file.parent / value))
        return value

    def _project_tail(self, spelled: str) -> Path | None:
        """An absolute folder of the author's machine (`/home/me/repo/src/models/`) whose tail names a
        folder of this checkout: the checkout's folder, the longest tail of at least two parts found
        below one of the file's ancestor folders (the nearest first), within the project root when it
        is known, never the file system's top two levels. None otherwise: a single name matches too
        much by chance."""
        parts = [part for part in Path(os.path.normpath(spelled)).parts[1:] if part]
        ancestors = [folder for folder in self.file.parents if len(folder.parts) > 2]
        if self.root is not None:
            ancestors = [folder for folder in ancestors if folder == self.root or self.root in folder.parents]
        for start in range(len(parts) - 1):
            tail = Path(*parts[start:])
            for ancestor in ancestors:
                candidate = ancestor / tail
                if candidate.is_dir():
                    return candidate
        return None

    def _joined_all(self, value: Path | str | None, pieces: list[ast.expr]) -> Path | str | None:
        """`value` joined with each piece in turn (`os.path.join(a, "b", "c")`, `Path(a, "b")`,
        `p.joinpath("b", "c")`); None where the start or any piece is not spelled out."""
        for piece in pieces:
            piece_value = self._value(piece)
            if value is None or not isinstance(piece_value, str):
                return None
            value = self._joined(value, piece_value)
        return value

    @staticmethod
    def _joined(base: Path | str, piece: str) -> Path | str | None:
        if os.path.isabs(piece):
            return None
        if isinstance(base, str):
            return os.path.join(base, piece)
        return Path(os.path.normpath(base / piece))
