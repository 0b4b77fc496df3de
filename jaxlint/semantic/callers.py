"""Callers in other modules: a helper's parameter is traced because another module's traced code
passes it a traced value.

`models/layers.py: def act(x): if x > 0: ...` looks like plain Python on its own; it is traced when
`train.py` calls `layers.act(h)` (or `from .layers import act; act(h)`) inside a jitted step, a lax
body or a helper of one. The model of `layers.py` asks this module for such calls into its
module-level functions that nothing in the module itself traces.

Cost, paid only by a module with such functions and only as far as each step finds something:
- a reverse-import index per directory and process: one byte scan of the import statements of the
  Python files under the directory above the module's top package (the directory from which its
  importers name it); a module no file there names in an import has no callers to find;
- an importer that imports the module's name, calls one of the functions by name and mentions JAX
  is parsed and modelled once per process (a file this run already analysed gives its calls from
  the model built for it). An importer's calls are read from its model before its own callers are
  applied, so what a module sees does not depend on the order files are analysed in: one level of
  callers, never a chain across three modules.

Every importer looked at is recorded as a dependency of the module's findings (the results cache
misses when one changes). A file that starts importing the module is not one of them: the cache
keys only on files that existed as importers when the findings were computed.
"""

from __future__ import annotations

import ast
import os
import re
from dataclasses import dataclass
from pathlib import Path

# Directories with more Python files than this are not scanned for importers (a home directory,
# a monorepo): the scan would cost more than the rare finding it enables.
_MAX_SCANNED_FILES = 5000
_MAX_IMPORTER_BYTES = 1_000_000
_IMPORT = re.compile(rb"\bimport\b")
_WORD = re.compile(rb"[A-Za-z_]\w*")
_JAX_MARKERS = (b"jax", b"flax", b"equinox")


@dataclass(frozen=True)
class ExternalCall:
    """A call from traced code to a function another module defines, as the caller saw it."""

    qualified: str  # the callee as the caller's imports name it: `pkg.models.layers.act`
    positional: tuple[int, ...]  # the level of each positional argument, up to the first `*args`
    keywords: tuple[tuple[str, int], ...]  # (name, level) of each keyword argument
    abstract: bool  # the calling code is traced abstractly (jit, vmap, lax), not by autodiff alone
    differentiated: bool


# (directory) -> {word in an import statement: paths of the files whose imports hold it}
_indexes: dict[str, dict[bytes, list[str]]] = {}
# (path, size, mtime) -> the file's calls from traced code into other modules
_calls: dict[tuple[str, int, int], tuple[ExternalCall, ...]] = {}


def import_index(directory: Path) -> dict[bytes, list[str]]:
    """Words in the import statements of every Python file under `directory`, memoised per process."""
    key = str(directory)
    cached = _indexes.get(key)
    if cached is not None:
        return cached
    from jaxlint.files import DEFAULT_EXCLUDES

    index: dict[bytes, list[str]] = {}
    files: list[str] = []
    for current, directories, names in os.walk(key):
        directories[:] = [d for d in directories if d not in DEFAULT_EXCLUDES and not d.startswith(".") and not d.endswith(".egg-info")]
        files.extend(os.path.join(current, name) for name in names if name.endswith(".py"))
        if len(files) > _MAX_SCANNED_FILES:
            _indexes[key] = {}
            return {}
    for path in files:
        try:
            with open(path, "rb") as stream:
                data = stream.read(_MAX_IMPORTER_BYTES + 1)
        except OSError:
            continue
        if len(data) > _MAX_IMPORTER_BYTES:
            continue
        for word in _import_words(data):
            index.setdefault(word, []).append(path)
    _indexes[key] = index
    return index


def _import_words(data: bytes) -> set[bytes]:
    """The identifiers of a file's `import` and `from ... import` statements (parenthesised ones whole)."""
    words: set[bytes] = set()
    position = 0
    while True:
        match = _IMPORT.search(data, position)
        if match is None:
            return words
        start = data.rfind(b"\n", 0, match.start()) + 1
        end = data.find(b"\n", match.end())
        end = len(data) if end < 0 else end
        statement = data[start:end]
        head = statement.lstrip()
        if head.startswith((b"from ", b"import ")):
            if b"(" in statement and b")" not in statement:
                close = data.find(b")", end)
                end = len(data) if close < 0 else close
                statement = data[start:end]
            words.update(_WORD.findall(statement))
        position = max(end, match.end())


def remember_calls(filename: str, text: str, model) -> None:
    """Keep the calls of a file just analysed, so a module it imports need not model it again."""
    path = os.path.abspath(filename)
    try:
        stat = os.stat(path)
    except OSError:
        return
    if stat.st_size != len(text.encode("utf-8")):
        return  # not the file on disk (stdin, a fix in progress)
    key = (path, stat.st_size, stat.st_mtime_ns)
    if key not in _calls:
        _calls[key] = model.exported_calls()


def calls_into(project, names: set[str], traced_decorators: tuple[str, ...]) -> list[tuple[str, ExternalCall]]:
    """(function name, call) for each call from another module's traced code into one of `names`,
    module-level functions of the file `project` looks from. Records each importer read."""
    target = project.path
    leaf = target.parent.name if target.name == "__init__.py" else target.stem
    importers = import_index(project.top).get(leaf.encode(), [])
    if not importers:
        return []
    from jaxlint.semantic.project import ProjectView, file_digest

    called = re.compile(rb"\b(?:" + b"|".join(re.escape(name.encode()) for name in sorted(names)) + rb")\s*\(")
    found: list[tuple[str, ExternalCall]] = []
    for importer in importers:
        path = Path(importer)
        if path == target:
            continue
        try:
            stat = path.stat()
            data = path.read_bytes()
        except OSError:
            continue
        project.dependencies[str(path)] = file_digest(data)
        if not called.search(data) or not any(marker in data for marker in _JAX_MARKERS):
            continue
        calls = _calls_of(path, stat, data, project.root, traced_decorators)
        if not calls:
            continue
        view = None
        for call in calls:
            module, _, name = call.qualified.rpartition(".")
            if name not in names or module.rpartition(".")[2] != leaf:
                continue
            if view is None:
                view = ProjectView(str(path), project.root, find_callers=False)
            if view._find(module) == target:
                found.append((name, call))
    return found


def _calls_of(path: Path, stat, data: bytes, root, traced_decorators) -> tuple[ExternalCall, ...]:
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    cached = _calls.get(key)
    if cached is not None:
        return cached
    calls: tuple[ExternalCall, ...] = ()
    try:
        text = data.decode("utf-8-sig")
        tree = ast.parse(text)
    except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        tree = None
    if tree is not None:
        from jaxlint.semantic.model import SemanticModel
        from jaxlint.semantic.project import ProjectView

        try:
            model = SemanticModel(tree, traced_decorators, ProjectView(str(path), root, find_callers=False))
            calls = model.exported_calls()
        except Exception:  # RecursionError included: an importer we cannot model contributes nothing
            calls = ()
    _calls[key] = calls
    return calls
