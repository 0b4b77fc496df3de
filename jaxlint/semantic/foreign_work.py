"""Facts of functions in other modules of the project, for a call site's loop: eager device work
(training_loops.eager_work_in) and reads on the host of values they compute (helper_syncs.py).

`from steps import update` then `state = update(state, batch)` in a loop: whether `update` runs a
whole network or optimizer update op by op (training_loops.eager_work_in) is a fact of the module
that defines it, read from a semantic model of that module. The same for a method of an instance
of a project class (`learner = Learner(...)` then `learner.learn(batch)`).

Asked only for calls of project functions in loops a rule looks at, and answered from a model of
the defining module built once per process and run (memoised by path and content digest); the
defining module is recorded as a dependency of the asking file's findings (through its summary).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from jaxlint.semantic import run_memo

# Callee prefixes that are never the project's own code.
_LIBRARY_PREFIXES = ("jax.", "numpy.", "builtins.", "flax.", "equinox.", "optax.", "haiku.", "chex.", "orbax.")
_MAX_REEXPORTS = 5
# A module with none of these words runs no whole computation the models know (`apply`, `grad`,
# an optimizer `update`): not worth a model.
_WORK_WORDS = (b"apply", b"grad", b"update")
_MAX_MODULE_BYTES = 400_000
# A module with none of these words reads no value on the host.
_SYNC_WORDS = (b"float(", b"int(", b"bool(", b".item(", b".tolist(", b"asarray(", b"array(", b"device_get(", b"print(", b"f\"", b"f'")


@dataclass(frozen=True)
class ForeignWork:
    """A whole computation in another module: its text as written, its line, the file and the helper."""

    text: str
    line: int
    path: str
    helper: str


_models: dict[tuple[str, str], object] = {}
_active: set[tuple[str, str]] = set()


def imported_eager_work(call: ast.Call, model) -> ForeignWork | None:
    """The whole computation a call of a project function or method of another module runs eagerly
    on every call, or None."""
    located = _located_callee(call, model)
    if located is None:
        return None
    summary, name, member = located
    key = ("eager-work", summary.path, summary.digest, name, member)
    return run_memo.answer(key, _eager_work, summary.path, summary.digest, name, member)


def imported_helper_sync(call: ast.Call, model):
    """The read on the host of a value it computed that a function or method of another project module
    does on every call (helper_syncs.HelperSync), or None."""
    located = _located_callee(call, model)
    if located is None:
        return None
    summary, name, member = located
    key = ("helper-sync", summary.path, summary.digest, name, member)
    return run_memo.answer(key, _helper_sync, summary.path, summary.digest, name, member)


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


def _helper_sync(path: str, digest: str, name: str, member: str | None):
    model = _model_of(path, digest, _SYNC_WORDS)
    if model is None:
        return None
    scope = _scope_in(model, name, member)
    if scope is None:
        return None
    from dataclasses import replace

    from jaxlint.semantic.helper_syncs import helper_sync

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
        from jaxlint.semantic.bindings import bound_values

        found = bound_values(model, node.id, model.scope_for(node))
        if found is None or len(found[1]) != 1 or not isinstance(found[1][0], ast.Call):
            return None
        constructor = found[1][0].func
    else:
        from jaxlint.semantic.host_code import attribute_constructor

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


def _eager_work(path: str, digest: str, name: str, member: str | None) -> ForeignWork | None:
    key = (path, digest)
    if key in _active:
        return None  # (modules calling each other: none while being worked out)
    model = _model_of(path, digest, _WORK_WORDS)
    if model is None:
        return None
    scope = _scope_in(model, name, member)
    if scope is None:
        return None  # (traced elsewhere in its module or not: called from here, an undecorated body runs eagerly)
    from jaxlint.semantic.training_loops import eager_work_in

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


def _model_of(path: str, digest: str, words: tuple[bytes, ...]):
    """A model of the module, when its text holds one of `words` (else None: nothing to find)."""
    key = (path, digest)
    if key in _models:
        return _models[key]
    try:
        data = Path(path).read_bytes()
    except OSError:
        return None
    if len(data) > _MAX_MODULE_BYTES or not any(word in data for word in words):
        return None
    from jaxlint.semantic.model import SemanticModel

    try:
        # No project view of its own: what it calls in further modules is not followed, so every
        # file an answer depends on is one the asking file's view recorded (the results cache).
        model = SemanticModel(ast.parse(data.decode("utf-8-sig")), (), None)
    except Exception:  # undecodable, unparsable, too deep: no answer
        model = None
    if len(_models) > 32:
        _models.clear()
    _models[key] = model
    return model
