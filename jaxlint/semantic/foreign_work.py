"""Facts of functions in other modules of the project, for a call site's loop: eager device work
(training_loops.eager_work_in) and reads on the host of values they compute (helper_syncs.py).

`from steps import update` then `state = update(state, batch)` in a loop: whether `update` runs a
whole network or optimizer update op by op (training_loops.eager_work_in) is a fact of the module
that defines it, read from a semantic model of that module. The same for a method of an instance
of a project class (`learner = Learner(...)` then `learner.learn(batch)`).

And the other way round: what the modules that import a function pass to one of its parameters
(`parameter_kind_from_callers`: `main.py` calls `chat(Net(...))`, so `model(ids)` in the loop of
`generate(model, ...)`, which `chat` calls, runs a network), read from a model of each importer
that names the function (the reverse-import index of semantic/callers.py), a few per question.

Asked only for calls of project functions in loops a rule looks at, and answered from a model of
the defining module built once per process and run (memoised by path and content digest); the
defining module is recorded as a dependency of the asking file's findings (through its summary).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from jaxlint.semantic import run_memo
from jaxlint.semantic.bindings import bound_values
from jaxlint.semantic.host_code import attribute_constructor, bound_to_calls

# Callee prefixes that are never the project's own code.
_LIBRARY_PREFIXES = ("jax.", "numpy.", "builtins.", "flax.", "equinox.", "optax.", "haiku.", "chex.", "orbax.")
_MAX_REEXPORTS = 5
# Names of calls without which a function runs no whole computation the models know (`apply`,
# `grad`, an optimizer `update`, a module's forward), or reads no value on the host: a function
# (with the module's functions it calls) that calls none of them is not worth a model of its module.
_WORK_NAMES = frozenset({
    "apply", "apply_fn", "apply_gradients", "update", "grad", "value_and_grad", "filter_grad",
    "filter_value_and_grad", "jacrev", "jacfwd", "hessian", "vjp",
})
_MAX_MODULE_BYTES = 400_000
_SYNC_NAMES = frozenset({"float", "int", "bool", "item", "tolist", "asarray", "array", "device_get", "print", "<f-string>"})


@dataclass(frozen=True)
class ForeignWork:
    """A whole computation in another module: its text as written, its line, the file and the helper."""

    text: str
    line: int
    path: str
    helper: str


_models: dict[tuple[str, str], object] = {}
_trees: dict[tuple[str, str], ast.Module | None] = {}
_mentions: dict[tuple, bool] = {}
_active: set[tuple[str, str]] = set()


def imported_eager_work(call: ast.Call, model, eager_work_in) -> ForeignWork | None:
    """The whole computation a call of a project function or method of another module runs eagerly
    on every call, or None (`eager_work_in(scope, model)`: the question, training_loops.eager_work_in)."""
    located = _located_callee(call, model)
    if located is None:
        return None
    summary, name, member = located
    key = ("eager-work", summary.path, summary.digest, name, member)
    return run_memo.answer(key, _eager_work, summary.path, summary.digest, name, member, eager_work_in)


def imported_helper_sync(call: ast.Call, model, helper_sync):
    """The read on the host of a value it computed that a function or method of another project module
    does on every call (helper_syncs.HelperSync), or None (`helper_sync(scope, model)`: the question)."""
    located = _located_callee(call, model)
    if located is None:
        return None
    summary, name, member = located
    if not _compiles_something(summary):
        return None  # its model sees compiled values only from compiled functions of its own
    key = ("helper-sync", summary.path, summary.digest, name, member)
    return run_memo.answer(key, _helper_sync, summary.path, summary.digest, name, member, helper_sync)


def may_be_project_call(call: ast.Call, model) -> bool:
    """A cheap first test: the call may run a function or method of another project module."""
    project = getattr(model, "project", None)
    if project is None:
        return False
    function = call.func
    if isinstance(function, ast.Attribute):
        receiver = function.value
        if isinstance(receiver, ast.Call) or (isinstance(receiver, ast.Name) and receiver.id in bound_to_calls(model)):
            return True
        if isinstance(receiver, ast.Attribute) and attribute_constructor(receiver, model) is not None:
            return True
    if not isinstance(function, (ast.Name, ast.Attribute)):
        return False
    qualified = model.qualified_name(function)
    return qualified is not None and not qualified.startswith(_LIBRARY_PREFIXES) and project.may_hold(qualified.partition(".")[0])


def _compiles_something(summary) -> bool:
    """The module defines a compiled function or method (`@jax.jit`, `step = jax.pmap(f)`)."""
    if any(function.transform is not None for function in summary.functions.values()):
        return True
    return any(method.transform is not None for owner in summary.classes.values() for method in owner.methods.values())


def _located_callee(call: ast.Call, model):
    """(summary of the defining module, top-level name, method or None) of a call of a plain function
    or of a method of an instance of a class of another project module."""
    project = getattr(model, "project", None)
    if project is None:
        return None
    function = call.func
    qualified = model.qualified_name(function) if isinstance(function, (ast.Name, ast.Attribute)) else None
    member = None
    if qualified is None and isinstance(function, ast.Attribute):
        qualified = _constructor_of(function.value, model)
        member = function.attr
    if qualified is None or qualified.startswith(_LIBRARY_PREFIXES) or not project.may_hold(qualified.partition(".")[0]):
        return None
    located = _locate(project, qualified)
    if located is None:
        return None
    summary, name = located
    if member is not None and name not in summary.classes:
        return None
    if member is None and name in summary.functions and summary.functions[name].transform is not None:
        return None  # compiled
    return summary, name, member


def _scope_in(model, name: str, member: str | None):
    node = next((n for n in model.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name), None)
    if node is None:
        return None
    if member is not None:
        return model.class_methods.get(node, {}).get(member) if isinstance(node, ast.ClassDef) else None
    return model.scope_of_node.get(node) if not isinstance(node, ast.ClassDef) else None


def _foreign_scope(path: str, digest: str, name: str, member: str | None, words):
    """(scope, model) of the function or method `name`/`member` of another module, when its text
    mentions one of `words` (the cheap test first) and its module models; else None."""
    if not _function_mentions(path, digest, name, member, words):
        return None
    model = _model_of(path, digest)
    if model is None:
        return None
    scope = _scope_in(model, name, member)
    return None if scope is None else (scope, model)


def _helper_sync(path: str, digest: str, name: str, member: str | None, helper_sync):
    located = _foreign_scope(path, digest, name, member, _SYNC_NAMES)
    if located is None:
        return None
    scope, model = located
    from dataclasses import replace

    found = helper_sync(scope, model)
    if found is None:
        return None
    return replace(found, function=f"{name}.{found.function}" if member else found.function, path=path)


def _constructor_of(node: ast.AST, model) -> str | None:
    """`learner` bound once to `pkg.Learner(...)` (or `pkg.Learner(...)` itself, or `self.learner` only
    ever assigned one): the class's qualified name."""
    if isinstance(node, ast.Call):
        constructor = node.func
    elif isinstance(node, ast.Name) and node.id not in ("self", "cls"):
        if node.id not in bound_to_calls(model):
            return None
        found = bound_values(model, node.id, model.scope_for(node))
        if found is None or len(found[1]) != 1 or not isinstance(found[1][0], ast.Call):
            return None
        constructor = found[1][0].func
    else:
        constructor = attribute_constructor(node, model)  # `self.learner`, only ever `Learner(...)`
        if constructor is None:
            return None
    if not isinstance(constructor, (ast.Name, ast.Attribute)):
        return None
    return model.qualified_name(constructor)


def _locate(project, qualified: str):
    """(summary of the defining module, top-level name there), following re-exports."""
    for _ in range(_MAX_REEXPORTS):
        module_name, _, name = qualified.rpartition(".")
        if not module_name:
            return None
        summary = project.module(module_name)
        if summary is None:
            return None
        if name in summary.reexports:
            qualified = summary.reexports[name]
            continue
        return summary, name
    return None


def _eager_work(path: str, digest: str, name: str, member: str | None, eager_work_in) -> ForeignWork | None:
    key = (path, digest)
    if key in _active:
        return None  # (modules calling each other: none while being worked out)
    # (Traced elsewhere in its module or not: called from here, an undecorated body runs eagerly.)
    located = _foreign_scope(path, digest, name, member, _WORK_NAMES)
    if located is None:
        return None
    scope, model = located
    _active.add(key)
    try:
        found = eager_work_in(scope, model)
    finally:
        _active.discard(key)
    if found is None:
        return None
    helper = f"{name}.{member}" if member else name
    if isinstance(found, ForeignWork):
        return ForeignWork(found.text, found.line, found.path, helper)
    text = ast.unparse(found.func)
    return ForeignWork(text if len(text) <= 60 else text[:57] + "...", found.lineno, path, helper)


def _tree_of(path: str, digest: str) -> ast.Module | None:
    key = (path, digest)
    if key in _trees:
        return _trees[key]
    tree = None
    try:
        data = Path(path).read_bytes()
        if len(data) <= _MAX_MODULE_BYTES:
            tree = ast.parse(data.decode("utf-8-sig"))
    except Exception:  # unreadable, undecodable, unparsable, too deep: no answer
        tree = None
    if len(_trees) > 64:
        _trees.clear()
    _trees[key] = tree
    return tree


def _function_mentions(path: str, digest: str, name: str, member: str | None, names: frozenset[str]) -> bool:
    """The function (or method) calls something named one of `names`, itself or through a function of
    its module it calls (one level): a cheap test before a model of the module is built."""
    key = (path, digest, name, member, names)
    if key not in _mentions:
        if len(_mentions) > 4096:
            _mentions.clear()
        _mentions[key] = _mentions_names(path, digest, name, member, names)
    return _mentions[key]


def _mentions_names(path: str, digest: str, name: str, member: str | None, names: frozenset[str]) -> bool:
    tree = _tree_of(path, digest)
    if tree is None:
        return False
    top = {n.name: n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
    node = top.get(name)
    if member is not None:
        node = next((n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == member), None) if isinstance(node, ast.ClassDef) else None
    if node is None or isinstance(node, ast.ClassDef):
        return False
    called = set()
    for each in ast.walk(node):
        if isinstance(each, ast.Call):
            function = each.func
            called.add(function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None))
        elif isinstance(each, ast.JoinedStr):
            called.add("<f-string>")
    if called & names:
        return True
    methods = top.get(member and name)
    # A name bound to what one of `names` returns (`grad_fn = jax.value_and_grad(loss)` at the top
    # level, `self.grad_fn = jax.grad(loss)` in a method of the class), called here by that name.
    if called & _names_bound_to_calls(tree.body, methods.body if isinstance(methods, ast.ClassDef) else [], names):
        return True
    local = {n.name: n for n in methods.body if isinstance(n, ast.FunctionDef)} if isinstance(methods, ast.ClassDef) else {}
    for callee in called:
        inner = local.get(callee) or top.get(callee)
        if isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef)) and inner is not node:
            for each in ast.walk(inner):
                if isinstance(each, ast.Call) and (each.func.attr if isinstance(each.func, ast.Attribute) else getattr(each.func, "id", None)) in names:
                    return True
                if isinstance(each, ast.JoinedStr) and "<f-string>" in names:
                    return True
    return False


def _names_bound_to_calls(module_body: list[ast.stmt], class_body: list[ast.stmt], names: frozenset[str]) -> set[str]:
    """Names bound at the module's top level, and `self.<name>` attributes bound in the methods of the
    class, to the result of a call of something named one of `names`."""
    bound: set[str] = set()
    assignments = [s for s in module_body if isinstance(s, ast.Assign)]
    for method in class_body:
        if isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assignments.extend(s for s in ast.walk(method) if isinstance(s, ast.Assign))
    for assignment in assignments:
        value = assignment.value
        if not isinstance(value, ast.Call):
            continue
        function = value.func
        if (function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)) not in names:
            continue
        for target in assignment.targets:
            if isinstance(target, ast.Name):
                bound.add(target.id)
            elif isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                bound.add(target.attr)
    return bound


def _model_of(path: str, digest: str):
    key = (path, digest)
    if key in _models:
        return _models[key]
    tree = _tree_of(path, digest)
    model = None
    if tree is not None:
        from jaxlint.semantic.model import SemanticModel

        try:
            # No project view of its own: what it calls in further modules is not followed, so every
            # file an answer depends on is one the asking file's view recorded (the results cache).
            model = SemanticModel(tree, (), None)
        except Exception:  # too deep: no answer
            model = None
    if len(_models) > 32:
        _models.clear()
    _models[key] = model
    return model


# ----- what other modules pass to a parameter ------------------------------------------------------

_MAX_IMPORTERS = 8  # importers modelled per question: a library's many users are not read
# (path, size, mtime) -> ((callee name, ((position or keyword, kind), ...)), ...) of an importer's calls
_passed_kinds: dict[tuple[str, int, int, str], tuple] = {}
_importer_models: dict[tuple[str, int, int], object] = {}


def parameter_kind_from_callers(model, owner, name: str, depth: int = 0) -> str | None:
    """The modelled object kind (`object:<class>`) every visible call of the function `owner` passes
    to its unannotated parameter `name`, or None: the calls of this module (an argument that is a
    parameter of the calling function is asked about in turn, `chat(model)` passing it on to
    `generate(model)`), or, where this module calls the function nowhere, the calls of the other
    modules of the project that import it (one level: each importer's own argument, as its model
    sees it; `main.py: model = Net(...); chat(model, ...)`). Each importer read is a dependency."""
    from jaxlint.semantic import library_models

    if depth > 3 or not owner.is_function or name not in owner.params or owner.param_nodes[name].annotation is not None:
        return None
    if library_models.rebinds(model, owner, name):
        return None  # (`net = compiled_forward_of(net)`: what it holds in the loop is something else)
    position = owner.params.index(name)
    calls = library_models.in_module_callers(model, owner)
    if calls:
        kinds = set()
        for caller, call in calls:
            argument = _argument(call, position, name)
            if argument is None:
                return None
            kind = library_models.value_kind(model, argument, caller)
            if kind is None and isinstance(argument, ast.Name) and argument.id in caller.params:
                kind = parameter_kind_from_callers(model, caller, argument.id, depth + 1)
            kinds.add(kind)
            if len(kinds) > 1 or None in kinds:
                return None
        kind = kinds.pop()
        return kind if kind.startswith("object:") else None
    project = getattr(model, "project", None)
    if project is None or owner.parent is not model.module_scope:
        return None
    return _kind_from_importers(project, owner.name, position, name)


def _argument(call: ast.Call, position: int, name: str) -> ast.expr | None:
    found = next((k.value for k in call.keywords if k.arg == name), None)
    if found is None and position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        found = call.args[position]
    return found


def _kind_from_importers(project, function: str, position: int, name: str) -> str | None:
    from jaxlint.semantic import callers

    target = project.path
    leaf = callers._leaf(target)
    kinds: set[str | None] = set()
    seen = 0
    for importer, _ in callers._importers(project):
        read = callers._read(importer)
        if read is None or function.encode() not in read[2]:
            continue
        seen += 1
        if seen > _MAX_IMPORTERS:
            return None
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
    return kind if kind is not None and kind.startswith("object:") else None


def _passed_kinds_of(project, path: Path, stat, data: bytes, function: str) -> tuple:
    """((module, function, ((position or keyword, object kind or None), ...)) of each call of a function
    named `function` of another module in an importer, its arguments' kinds as the importer's own model
    sees them; the files those kinds were read from) (the importer is modelled once per process)."""
    key = (str(path), stat.st_size, stat.st_mtime_ns, function)
    cached = _passed_kinds.get(key)
    if cached is not None:
        return cached
    from jaxlint.semantic import callers, library_models

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
                if qualified is None or "." not in qualified or qualified.startswith(_LIBRARY_PREFIXES):
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
    leaf = callers._leaf(target)
    seen = 0
    for importer_path, _ in callers._importers(project):
        read = callers._read(importer_path)
        if read is None or function.encode() not in read[2]:
            continue
        seen += 1
        if seen > _MAX_IMPORTERS:
            return False
        key = (str(read[0]), read[1].st_size, read[1].st_mtime_ns)
        importer = _importer_models.get(key)
        if importer is None:
            if len(_importer_models) > 16:
                _importer_models.clear()
            try:
                importer = _importer_models[key] = callers._importer_model(project, *read, ())
            except Exception:  # RecursionError included: an importer we cannot model shows nothing
                importer = _importer_models[key] = None
        if importer is None:
            continue
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
