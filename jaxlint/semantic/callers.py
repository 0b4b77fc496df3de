"""Callers in other modules: a helper's parameter is traced because another module's traced code
passes it a traced value.

`models/layers.py: def act(x): if x > 0: ...` looks like plain Python on its own; it is traced when
`train.py` calls `layers.act(h)` (or `from .layers import act; act(h)`) inside a jitted step, a lax
body or a helper of one. The model of `layers.py` asks this module for such calls into its
module-level functions that nothing in the module itself traces.

Opt-in (`cross-module-callers = true` in `[tool.jaxlint]`): on 15 real projects (1640 files) it
found nothing the per-module analysis did not, for 10-20% more CPU on a cold check of them all (each
worker process builds its own index and models the importers it needs; about 50 importers there). Steps, each only as far as
the previous one found something:
- a reverse-import index per directory and process: one byte scan of the import statements of the
  Python files under the directory above the module's top package (the directory from which its
  importers name it), with, per file, the names it calls inside functions that look traced
  (decorated with or passed to a transform, or called from one). Tests are not callers;
- the module's candidates: module-level functions nothing here traces, called that way by some
  importer through its imports, that need a Python value of a parameter (a branch, `float`, NumPy,
  a shape);
- each such importer is parsed and modelled once per process (a file this run already analysed
  gives its calls from the model built for it). An importer's calls are read from its model before
  its own callers are applied, so what a module sees does not depend on the order files are
  analysed in: one level of callers, never a chain across three modules.

Every importer of the module is recorded as a dependency of its findings (the results cache misses
when one changes). A file that starts importing the module is not one of them: the cache keys only
on files that were importers when the findings were computed.
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
# What follows `import` on its line, or a whole parenthesised list; the module of `from m import`.
_IMPORTED = re.compile(rb"import\b(?:[ \t]*\([^)]*\)|[^\n]*)")
_FROM = re.compile(rb"from[ \t]+([\w.]+)[ \t]+import\b")
_WORD = re.compile(rb"[A-Za-z_]\w*")
_DEF = re.compile(rb"\bdef[ \t]+(\w+)")
_CALLED = re.compile(rb"(?:(\w+)\.)?(\w+)[ \t]*\(")
# Words that name a transform or a lax body: a function decorated with one, or passed to one, may be traced.
_TRANSFORMS = (
    rb"jit|pjit|pmap|vmap|grad|value_and_grad|jacfwd|jacrev|hessian|vjp|jvp|checkpoint|remat|custom_vjp|"
    rb"custom_jvp|shard_map|scan|fori_loop|while_loop|cond|switch|associative_scan|filter_jit|filter_grad|"
    rb"filter_value_and_grad|filter_vmap|filter_pmap"
)
_TRANSFORM_WORD = re.compile(rb"\b(?:" + _TRANSFORMS + rb")\b")
# `jax.jit(step`, `lax.scan(body`, `jax.jit(partial(step` : the name of the function passed.
_PASSED = re.compile(rb"\b(?:" + _TRANSFORMS + rb")[ \t]*\([ \t\n]*(?:(?:functools\.)?partial[ \t]*\([ \t\n]*)?(?:self\.)?(\w+)")
_JAX_MARKERS = (b"jax", b"flax", b"equinox")
# Tests are not callers: they call helpers in ways real code does not (expecting the very error).
_TEST_DIRECTORIES = frozenset({"tests", "test", "testing"})


def _is_test(name: str) -> bool:
    return name.startswith("test_") or name.endswith("_test.py") or name == "conftest.py"


@dataclass(frozen=True)
class _FileFacts:
    """What the reverse-import index keeps of one file: cheap, textual, a superset of the truth."""

    stamp: tuple[int, int]  # size and modification time when read
    digest: str
    imported: frozenset[str]  # the words of its import statements
    # Calls inside functions that look traced (decorated with or passed to a transform, or called
    # from one), as `name` or `qualifier.name`: only these can be calls from traced code.
    traced_calls: frozenset[str]


# directory -> {word in an import statement: paths of the files whose imports hold it}
_indexes: dict[str, dict[bytes, list[str]]] = {}
_facts: dict[str, _FileFacts] = {}
# (path, size, mtime) -> the file's calls from traced code into other modules
_calls: dict[tuple[str, int, int], tuple] = {}  # of model.ExternalCall


def import_index(directory: Path, file_digest) -> dict[bytes, list[str]]:
    """Words in the import statements of every Python file under `directory`, memoised per process;
    each file's textual facts are kept beside it."""
    key = str(directory)
    cached = _indexes.get(key)
    if cached is not None:
        return cached
    from jaxlint.files import DEFAULT_EXCLUDES

    index: dict[bytes, list[str]] = {}
    files: list[str] = []
    for current, directories, names in os.walk(key):
        directories[:] = [d for d in directories if d not in DEFAULT_EXCLUDES and not d.startswith(".") and not d.endswith(".egg-info")]
        if _TEST_DIRECTORIES.isdisjoint(Path(current).relative_to(key).parts):
            files.extend(os.path.join(current, name) for name in names if name.endswith(".py") and not _is_test(name))
        if len(files) > _MAX_SCANNED_FILES:
            _indexes[key] = {}
            return {}
    for path in files:
        facts = _read_facts(path, file_digest)
        if facts is not None:
            for word in facts.imported:
                index.setdefault(word.encode(), []).append(path)
    _indexes[key] = index
    return index


def _read_facts(path: str, file_digest) -> _FileFacts | None:
    try:
        with open(path, "rb") as stream:
            stat = os.fstat(stream.fileno())
            data = stream.read(_MAX_IMPORTER_BYTES + 1)
    except OSError:
        return None
    if len(data) > _MAX_IMPORTER_BYTES:
        return None
    words = set(_WORD.findall(b"\n".join(_IMPORTED.findall(data)) + b"\n" + b"\n".join(_FROM.findall(data))))
    facts = _FileFacts((stat.st_size, stat.st_mtime_ns), file_digest(data), frozenset(word.decode() for word in words), _traced_calls(data))
    _facts[path] = facts
    return facts


def _current_facts(path: str, file_digest) -> _FileFacts | None:
    """A file's facts, read again when it changed since (a language server lives long)."""
    facts = _facts.get(path)
    try:
        stat = os.stat(path)
    except OSError:
        return None
    if facts is None or facts.stamp != (stat.st_size, stat.st_mtime_ns):
        facts = _read_facts(path, file_digest)
    return facts


def _traced_calls(data: bytes) -> frozenset[str]:
    """Names called in the bodies of functions that look traced, and of the functions they call."""
    if not any(marker in data for marker in _JAX_MARKERS) or not _TRANSFORM_WORD.search(data):
        return frozenset()
    defs: dict[bytes, list[tuple[int, int]]] = {}
    for match in _DEF.finditer(data):
        line = data.rfind(b"\n", 0, match.start()) + 1
        prefix = data[line : match.start()]
        if prefix.strip() not in (b"", b"async"):
            continue
        defs.setdefault(match.group(1), []).append((line, len(prefix) - len(prefix.lstrip())))
    traced = {match.group(1) for match in _PASSED.finditer(data)} & set(defs)
    for name, places in defs.items():
        for line, _ in places:
            above = data[data.rfind(b"\n\n", 0, line) + 1 : line]
            if b"@" in above and _TRANSFORM_WORD.search(above):
                traced.add(name)
    called: set[str] = set()
    pending = list(traced)
    seen = set(traced)
    depth = {name: 0 for name in traced}
    while pending:
        name = pending.pop()
        for line, indent in defs.get(name, ()):
            body = _body(data, line, indent)
            for qualifier, callee in _CALLED.findall(body):
                called.add(f"{qualifier.decode()}.{callee.decode()}" if qualifier else callee.decode())
                if not qualifier and callee in defs and callee not in seen and depth[name] < 1:
                    seen.add(callee)
                    depth[callee] = depth[name] + 1
                    pending.append(callee)
    return frozenset(called)


_DEDENTS: dict[int, re.Pattern] = {}


def _body(data: bytes, line: int, indent: int) -> bytes:
    """The text of the `def` starting at `line`: up to the next line indented no deeper (a superset
    but for strings that start at the margin)."""
    dedent = _DEDENTS.get(indent)
    if dedent is None:
        dedent = _DEDENTS[indent] = re.compile(rb"\n[ \t]{0,%d}(?=[^ \t\r\n#)\]}])" % indent)
    match = dedent.search(data, data.find(b"\n", line) if data.find(b"\n", line) >= 0 else len(data))
    return data[line : match.start() if match else len(data)]


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


def called_from_traced_code(project, names: set[str]) -> set[str]:
    """Those of `names` that some importer of the module calls, by its text, inside a function that
    looks traced. Records every importer of the module as a dependency of its findings."""
    importers = import_index(project.top, project.file_digest).get(module_leaf(project.path).encode(), [])
    called: set[str] = set()
    for importer in importers:
        facts = _current_facts(importer, project.file_digest) if importer != str(project.path) else None
        if facts is None:
            continue
        project.dependencies[importer] = facts.digest
        called |= _imported_calls(facts, names)
    return called


def _imported_calls(facts: _FileFacts, names: set[str]) -> set[str]:
    """Those of `names` a file calls in traced-looking code through its imports: `act(h)` after
    `from .layers import act`, `layers.act(h)` after `from . import layers`."""
    called = set()
    for call in facts.traced_calls:
        qualifier, _, name = call.rpartition(".")
        if name in names and (qualifier or name) in facts.imported:
            called.add(name)
    return called


def module_leaf(path: Path) -> str:
    """The last part of the dotted name other modules import `path` by."""
    return path.parent.name if path.name == "__init__.py" else path.stem


def calls_into(project, names: set[str], traced_decorators: tuple[str, ...]) -> list:
    """(function name, call) for each call from another module's traced code into one of `names`,
    module-level functions of the file `project` looks from. Records each importer read."""
    target = project.path
    leaf = module_leaf(target)
    found = []
    for importer, facts in _importers(project):
        if not _imported_calls(facts, names):
            continue
        read = _read(importer)
        if read is None:
            continue
        calls = _calls_of(project, *read, traced_decorators)
        view = None
        for call in calls:
            module, _, name = call.qualified.rpartition(".")
            if name not in names or module.rpartition(".")[2] != leaf:
                continue
            if view is None:
                view = project.__class__(importer, project.root, find_callers=False)
            if view.module_path(module) == target:
                found.append((name, call))
    return found


def _importers(project):
    """(path, facts) of each other module of the project whose imports may name the file `project`
    looks from (the reverse-import index), each recorded as a dependency of the findings."""
    target = str(project.path)
    for importer in import_index(project.top, project.file_digest).get(module_leaf(project.path).encode(), []):
        if importer == target:
            continue
        facts = _current_facts(importer, project.file_digest)
        if facts is None:
            continue
        project.dependencies[importer] = facts.digest
        yield importer, facts


def _read(importer: str) -> tuple | None:
    """(path, stat, bytes) of an importer, or None when it cannot be read."""
    path = Path(importer)
    try:
        return path, path.stat(), path.read_bytes()
    except OSError:
        return None


def _importer_model(project, path: Path, data: bytes, traced_decorators):
    """The semantic model of an importer (seen from its own place in the project), or None when it
    does not decode or parse. Building it may raise: callers treat that as nothing found."""
    try:
        tree = ast.parse(data.decode("utf-8-sig"))
    except (UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    from jaxlint.semantic.model import SemanticModel

    return SemanticModel(tree, traced_decorators, project.__class__(str(path), project.root, find_callers=False))


def _calls_of(project, path: Path, stat, data: bytes, traced_decorators) -> tuple:
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    cached = _calls.get(key)
    if cached is not None:
        return cached
    try:
        model = _importer_model(project, path, data, traced_decorators)
        calls = model.exported_calls() if model is not None else ()
    except Exception:  # RecursionError included: an importer we cannot model contributes nothing
        calls = ()
    _calls[key] = calls
    return calls


# (path, size, mtime) -> ((qualified callee, whether the call may run repeatedly), ...) of a file's calls
_call_sites: dict[tuple[str, int, int], tuple] = {}


def calls_per_step_into(project, name: str, traced_decorators: tuple[str, ...], depth: int = 1) -> bool | None:
    """How the other modules of the project (tests aside) call the module-level function `name` of
    the file `project` looks from: None when none is seen to, True when some call may run repeatedly
    (in a loop, in traced code, or in a function not shown to run once), False when every call runs
    once (module-level code outside loops, an entry point, or a function whose own loop is a whole
    run: semantic/training_loops.runs_once_per_program). A call outside the loops of a module-level
    function of the importer that its own module never calls is once when that function is an
    initialiser by its role (`initialize_from_checkpoint`, `restore_state`: training_loops.setup_by_role,
    once per object or run), else when that function's callers elsewhere are, up
    to `depth` more modules (`rendezvous()` at the end of `train()`, which a program's `main` calls
    once). Importers are found through the reverse-import index; only those whose text names `name`
    are modelled, once per process, and each is recorded as a dependency of the findings."""
    target = project.path
    leaf = module_leaf(target)
    found = False
    for importer, _ in _importers(project):
        read = _read(importer)
        if read is None or name.encode() not in read[2]:
            continue
        view = None
        for qualified, repeated in _call_sites_of(project, *read, traced_decorators):
            module, _, called = qualified.rpartition(".")
            if called != name or module.rpartition(".")[2] != leaf:
                continue
            if view is None:
                view = project.__class__(importer, project.root, find_callers=False)
            if not _names_file(view, module, target):
                continue
            if isinstance(repeated, str):
                # Called in `repeated`, a function of the importer its module never calls: it runs once
                # when its own callers in other modules do.
                if depth <= 0:
                    return True
                outer = view.calls_per_step_into(repeated, traced_decorators, depth - 1)
                project.dependencies.update(view.dependencies)
                if outer is not False:
                    return True
            elif repeated:
                return True
            found = True
    return False if found else None


def _names_file(view, module: str, target: Path) -> bool:
    """The dotted module an importer names is the file `target`: as its imports resolve, or, for a
    package whose name is also an installed library's (the index does not look there), by path."""
    found = view.module_path(module)
    if found is not None:
        return found == target
    parts = tuple(module.split("."))
    own = target.parent.parts if target.name == "__init__.py" else (*target.parent.parts, target.stem)
    return own[-len(parts):] == parts


def _call_sites_of(project, path: Path, stat, data: bytes, traced_decorators) -> tuple:
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    cached = _call_sites.get(key)
    if cached is not None:
        return cached
    sites: list = []
    from jaxlint.semantic.flow import enclosing_loops
    from jaxlint.semantic.training_loops import runs_once_per_program, setup_by_role

    try:
        model = _importer_model(project, path, data, traced_decorators)
        if model is not None:
            once: dict[int, bool] = {}
            for scope in model.scopes:
                for call in scope.calls:
                    qualified = model.qualified_name(call.func)
                    if qualified is None or "." not in qualified:
                        continue
                    if id(scope) not in once:
                        once[id(scope)] = runs_once_per_program(scope, model)
                    repeated: bool | str = not once[id(scope)] or any(True for _ in enclosing_loops(call))
                    if (
                        repeated and once[id(scope)] is False and scope.is_function and scope.parent is model.module_scope and not scope.in_traced
                        and not any(True for _ in enclosing_loops(call)) and not model.calls_by_name().get(scope.name)
                    ):
                        # An initialiser by its role (`initialize_from_checkpoint`, `restore_state`) that its
                        # module never calls runs once per object or run: so does a call outside its loops.
                        # Otherwise: once if this function's callers elsewhere run once.
                        repeated = False if setup_by_role(scope) else scope.name
                    sites.append((qualified, repeated))
    except Exception:  # RecursionError included: an importer we cannot model shows no call site
        sites = []
    _call_sites[key] = tuple(sites)
    return _call_sites[key]
