"""What the modules that import a module do with its functions: what they pass to a parameter, and
whether they call a function from host code. Read from a model of each importer that names the
function, found through the reverse-import index of semantic/callers.py, a few importers per
question, each modelled once per process and recorded as a dependency of the asking file's findings.

`main.py: model = Net(...); chat(model, ...)` and `inference.py: def chat(model, ...): generate(model,
...)`: in the loop of `generate`, `model(ids)` runs a network (`parameter_kind_from_callers`, for
JAX203 through `eager_parameter_call`). `sample(...)` of a library module, called by a script's
timed `main`, runs on the host (`called_from_host_elsewhere`) though nothing in its own module says so.
"""

from __future__ import annotations

import ast
from pathlib import Path

from jaxlint.semantic import library_models, syntax
from jaxlint.semantic.foreign_work import _LIBRARY_PREFIXES as LIBRARY_PREFIXES  # (callees never the project's own)
from jaxlint.semantic.model import Scope, SemanticModel

def eager_parameter_call(call: ast.Call, scope: Scope, model: SemanticModel) -> ast.Call | None:
    """`call` itself when it calls, or calls a method of, an unannotated parameter of the function
    `scope` (`logits = model(ids)`, `net.apply(v, x)`) that every visible caller passes an instance of
    a modelled class whose entry for that call `runs_model` (parameter_kind_from_callers:
    this module's callers, or the importers'); else None."""
    function = call.func
    receiver = function.value if isinstance(function, ast.Attribute) else function
    if not isinstance(receiver, ast.Name) or receiver.id not in scope.params or model.jit_binding_for_call(call) is not None:
        return None
    kind = parameter_kind_from_callers(model, scope, receiver.id)
    if kind is None:
        return None
    if kind.startswith("function:"):
        # A method taken off a modelled object and handed in (`evaluate(state.apply_fn, ...)`), called by name.
        entry = library_models.models().entry(kind[len("function:"):]) if function is receiver else None
    else:
        owner = kind[len("object:"):]
        entry = library_models.models().entry(f"{owner}.{function.attr}" if isinstance(function, ast.Attribute) else f"{owner}.__call__")
    return call if entry is not None and entry.runs_model else None


# ----- what other modules pass to a parameter ------------------------------------------------------

_MAX_IMPORTERS = 8  # importers modelled per question: a library's many users are not read
# (path, size, mtime) -> ((callee name, ((position or keyword, kind), ...)), ...) of an importer's calls
_passed_kinds: dict[tuple[str, int, int, str], tuple] = {}
_importer_models: dict[tuple[str, int, int], object] = {}


# What a caller may hand in that the function calls: an instance of a modelled class (`net(x)`,
# `net.apply(v, x)`), or a method taken off one (`state.apply_fn`, `model.apply`), called by name.
_HANDED_KINDS = ("object:", "function:")


def parameter_kind_from_callers(model, owner, name: str, depth: int = 0) -> str | None:
    """The modelled object kind (`object:<class>`, or `function:<entry>` for a bound method handed in) every visible call of the function `owner` passes
    to its unannotated parameter `name`, or None: the calls of this module (an argument that is a
    parameter of the calling function is asked about in turn, `chat(model)` passing it on to
    `generate(model)`), or, where this module calls the function nowhere, the calls of the other
    modules of the project that import it (one level: each importer's own argument, as its model
    sees it; `main.py: model = Net(...); chat(model, ...)`). Each importer read is a dependency."""
    if depth > 3 or not owner.is_function or name not in owner.params or owner.param_nodes[name].annotation is not None:
        return None
    if library_models.rebinds(model, owner, name):
        return None  # (`net = compiled_forward_of(net)`: what it holds in the loop is something else)
    position = owner.params.index(name)
    calls = library_models.in_module_callers(model, owner)
    if calls:
        kinds = set()
        for caller, call in calls:
            argument = syntax.argument(call, position, name)
            if argument is None:
                return None
            kind = library_models.value_kind(model, argument, caller)
            if kind is None and isinstance(argument, ast.Name) and argument.id in caller.params:
                kind = parameter_kind_from_callers(model, caller, argument.id, depth + 1)
            kinds.add(kind)
            if len(kinds) > 1 or None in kinds:
                return None
        kind = kinds.pop()
        return kind if kind.startswith(_HANDED_KINDS) else None
    project = getattr(model, "project", None)
    if project is None or owner.parent is not model.module_scope:
        return None
    return _kind_from_importers(project, owner.name, position, name)


def _kind_from_importers(project, function: str, position: int, name: str) -> str | None:
    from jaxlint.semantic import callers

    target = project.path
    leaf = callers.module_leaf(target)
    kinds: set[str | None] = set()
    for read in importer_reads_naming(project, function.encode()):
        if read is TOO_MANY:
            return None
        importer = read[0]
        view = None
        found, dependencies = _passed_kinds_of(project, *read, function)
        project.dependencies.update(dependencies)  # (the files the importer's kinds were read from)
        for module, called, arguments in found:
            if module.rpartition(".")[2] != leaf:
                continue
            if view is None:
                view = project.__class__(importer, project.root, find_callers=False)
            if not callers._names_file(view, module, target):
                continue
            kind = dict(arguments).get(name, dict(arguments).get(position))
            kinds.add(kind)
            if len(kinds) > 1 or None in kinds:
                return None
    kind = kinds.pop() if len(kinds) == 1 else None
    return kind if kind is not None and kind.startswith(_HANDED_KINDS) else None


def _passed_kinds_of(project, path: Path, stat, data: bytes, function: str) -> tuple:
    """((module, function, ((position or keyword, object kind or None), ...)) of each call of a function
    named `function` of another module in an importer, its arguments' kinds as the importer's own model
    sees them; the files those kinds were read from) (the importer is modelled once per process)."""
    key = (str(path), stat.st_size, stat.st_mtime_ns, function)
    cached = _passed_kinds.get(key)
    if cached is not None:
        return cached
    from jaxlint.semantic import callers

    found = []
    importer = None
    try:
        importer = _importer_models.get(key[:3])
        if importer is None:
            if len(_importer_models) > 16:
                _importer_models.clear()
            importer = _importer_models[key[:3]] = callers._importer_model(project, path, data, ())
        if importer is not None:
            for call in importer.calls_by_name().get(function, ()):
                scope = importer.scope_for(call)
                qualified = importer.qualified_name(call.func)
                if qualified is None or "." not in qualified or qualified.startswith(LIBRARY_PREFIXES):
                    continue
                module, _, called = qualified.rpartition(".")
                arguments = []
                for index, argument in enumerate(call.args):
                    if isinstance(argument, ast.Starred):
                        break
                    arguments.append((index, library_models.value_kind(importer, argument, scope)))
                arguments.extend((k.arg, library_models.value_kind(importer, k.value, scope)) for k in call.keywords if k.arg)
                found.append((module, called, tuple(arguments)))
    except Exception:  # RecursionError included: an importer we cannot model passes nothing known
        found = []
    if len(_passed_kinds) > 256:
        _passed_kinds.clear()
    dependencies = dict(getattr(getattr(importer, "project", None), "dependencies", {}) or {}) if found else {}
    _passed_kinds[key] = (tuple(found), dependencies)
    return _passed_kinds[key]


# ----- whether other modules call a function from host code -------------------------------------

# (importer path, size, mtime, its function, depth) -> whether that function's importers call it from host code
_host_calls: dict[tuple, bool] = {}


def called_from_host_elsewhere(model, scope, depth: int = 1) -> bool:
    """Some module that imports the module of `scope`, a module-level function, calls it from code that
    runs on the host (host_code.runs_on_host in that module's own model: a script's top level, a
    function that times or fetches; or, `depth` modules further, a module-level function its own
    importers call so): `sample(model, ...)` of a library module, called by a script's `main`. A
    handful of importers are read (reverse-import index), each recorded as a dependency."""
    project = getattr(model, "project", None)
    if project is None or not scope.is_function or scope.parent is not model.module_scope:
        return False
    return _called_from_host(project, scope.name, depth)


def _called_from_host(project, function: str, depth: int) -> bool:
    from jaxlint.semantic import callers
    from jaxlint.semantic.host_code import runs_on_host

    target = project.path
    leaf = callers.module_leaf(target)
    for key, importer in importers_naming(project, function):
        if importer is TOO_MANY:
            return False
        view = None
        for call in importer.calls_by_name().get(function, ()):
            qualified = importer.qualified_name(call.func)
            if qualified is None or "." not in qualified:
                continue
            module = qualified.rpartition(".")[0]
            if module.rpartition(".")[2] != leaf:
                continue
            if view is None:
                view = importer.project
            if not callers._names_file(view, module, target):
                continue
            caller = importer.scope_for(call)
            if caller.in_traced or importer.jit_binding_for_call(call) is not None:
                continue
            if runs_on_host(caller, importer):
                return True
            if depth > 0 and caller.is_function and caller.parent is importer.module_scope:
                memo = (key, caller.name, depth - 1)
                if memo not in _host_calls:
                    _host_calls[memo] = False  # (recursion: not while being worked out)
                    _host_calls[memo] = _called_from_host(importer.project, caller.name, depth - 1)
                    project.dependencies.update(importer.project.dependencies)
                if _host_calls[memo]:
                    return True
    return False


TOO_MANY = object()  # yielded last by the walks below where more importers name the word than are read


def importer_reads_naming(project, word: bytes):
    """`(path, stat, bytes)` of each module of the project that imports this one and whose text holds
    `word`; after `_MAX_IMPORTERS` of them, `TOO_MANY` and no more: a library's many users are not read."""
    from jaxlint.semantic import callers

    seen = 0
    for importer_path, _ in callers._importers(project):
        read = callers._read(importer_path)
        if read is None or word not in read[2]:
            continue
        seen += 1
        if seen > _MAX_IMPORTERS:
            yield TOO_MANY
            return
        yield read


def importer_model(project, read):
    """The semantic model of an importer read by `importer_reads_naming`, built once per process; None
    where it cannot be modelled."""
    from jaxlint.semantic import callers

    key = _model_key(read)
    if key not in _importer_models:
        if len(_importer_models) > 16:
            _importer_models.clear()
        try:
            _importer_models[key] = callers._importer_model(project, read[0], read[2], ())
        except Exception:  # RecursionError included: an importer we cannot model shows nothing
            _importer_models[key] = None
    return _importer_models[key]


def importers_naming(project, function: str):
    """`(key, model)` of each module of the project that imports this one and names `function`, modelled
    once per process (one that cannot be modelled is left out); after `_MAX_IMPORTERS` of them,
    `(None, TOO_MANY)` and no more."""
    for read in importer_reads_naming(project, function.encode()):
        if read is TOO_MANY:
            yield None, TOO_MANY
            return
        importer = importer_model(project, read)
        if importer is not None:
            yield _model_key(read), importer


def _model_key(read) -> tuple[str, int, int]:
    return (str(read[0]), read[1].st_size, read[1].st_mtime_ns)
