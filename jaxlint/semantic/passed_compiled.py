"""Callables a function is handed: a parameter that every visible caller fills with compiled code.

`def time_it(fn, *args): start = time.time(); out = fn(*args); return out, time.time() - start` shows
nothing about `fn` on its own. What `fn(*args)` runs is what the callers pass: `time_it(jax.lax.scan,
step, state, batches)` in another module hands it a `lax` loop, which traces and compiles the whole
loop into one program and dispatches it like a jitted call, returning before the device has run it;
`fit(params, data, update)` with `update` a `@jax.jit` function hands it a compiled step. A call of
the parameter is then a compiled call: asynchronous device work, as if the callee were named there.

`passed_compiled(name, scope, model)` answers for the parameter `name` read in `scope` (a function of
the module or a nested one) with the text of what the callers pass (`jax.lax.scan`,
`mse_update`), or None where they do not all pass compiled code. A caller's argument is compiled code
when it is:

- a compiled callable or a wrapper of one (semantic/compiled_wrappers.wraps_compiled: a jitted name,
  `jax.jit(f)`, `jax.vmap` or `functools.partial` of one, a name bound only to such values);
- a `lax` loop or `lax.map` itself (`jax.lax.scan`, handed as a value, not called);
- a function of the caller's module whose every `return` gives compiled code (a factory: `return
  jax.jit(step)`, or a nested `def` whose body only returns a call of a compiled callable, a thin
  forwarding closure: `def call(x, c): return _fwd(params, x, c)`), called, or a name bound to that call;
- a parameter of the calling function, asked about in turn (`fit(update)` handing its own `update`
  on to `epoch(update)`), a few callers deep.

The callers are the calls of the function by name in its own module; where the module calls it
nowhere (a helper module's function), the calls in the modules of the project that import it (the
reverse-import index of semantic/callers.py, a few importers, each modelled once per process and
recorded as a dependency of the findings). Every caller seen must pass compiled code, and at least one
must be seen: a parameter some caller fills with a plain Python function, or one nothing calls, is not
known. A parameter the function binds again is not the one the callers pass.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.bindings import bound_values, owning_scope
from jaxlint.semantic.syntax import walk

_MAX_DEPTH = 6  # steps followed: parameters handed on, names, factories and the closures they return
# A `lax` loop handed as a value: calling it compiles the loop into one program, dispatched at once.
_COMPILED_LOOPS = frozenset({"jax.lax.scan", "jax.lax.fori_loop", "jax.lax.while_loop", "jax.lax.map"})


def passed_compiled(name: str, scope, model, depth: int = 0) -> str | None:
    """The text of the compiled callable every visible caller passes for the parameter `name` (read in
    `scope`), or None (module docstring)."""
    if depth > _MAX_DEPTH:
        return None
    owner = owning_scope(model, name, scope)
    if owner is None or not owner.is_function or name not in owner.param_nodes:
        return None
    if any(isinstance(node, ast.Name) and node.id == name for target, _ in owner.bindings for node in walk(target)):
        return None  # rebound inside: what it holds there is not what the callers pass
    cache = model.__dict__.setdefault("_passed_compiled", {})
    key = (id(owner.node), name)
    if key in cache:
        return cache[key]
    cache[key] = None  # (recursion: nothing while being worked out)
    found = _from_callers(name, owner, model, depth)
    cache[key] = found
    return found


def _from_callers(name: str, owner, model, depth: int) -> str | None:
    passed = model.caller_arguments(owner, name, closed=False, skip_self=True)
    if passed:
        texts = [compiled_value(argument, model.scope_for(call), model, depth + 1) for argument, call in passed]
        return texts[0] if all(texts) else None
    if passed is None and model.calls_by_name().get(getattr(owner.node, "name", ""), ()):
        return None  # called here, but the calls do not tell (spread arguments, the parameter left out)
    project = getattr(model, "project", None)
    if project is None or owner.parent is not model.module_scope or owner.class_node is not None:
        return None
    return _from_importers(project, owner, name, depth)


def compiled_value(value: ast.expr, scope, model, depth: int = 0) -> str | None:
    """The text of `value` (read in `scope`) where calling it runs compiled code, else None."""
    from jaxlint.semantic.compiled_wrappers import wraps_compiled

    if depth > _MAX_DEPTH:
        return None
    text = ast.unparse(value)
    if model.qualified_name(value) in _COMPILED_LOOPS:
        return text
    if wraps_compiled(value, scope, model):
        return text
    if isinstance(value, ast.Call) and _factory_of_compiled(value, scope, model, depth):
        return text
    if isinstance(value, ast.Name):
        found = bound_values(model, value.id, scope)
        if found is not None:
            owner, values = found
            if values and all(not isinstance(v, ast.AugAssign) and compiled_value(v, owner, model, depth + 1) for v in values):
                return text
            return None
        if _forwards_to_compiled(value, scope, model, depth):
            return text
        return passed_compiled(value.id, scope, model, depth + 1)
    return None


def _factory_of_compiled(call: ast.Call, scope, model, depth: int) -> bool:
    """`make_step(cfg)`: a function of the module, called by name, whose every `return` gives compiled
    code (read in the factory's own scope: a nested jitted `def`, `jax.jit(step)`, a forwarding closure)."""
    if not isinstance(call.func, ast.Name):
        return False
    resolved = model.resolve_function(call.func, scope)
    if resolved is None or resolved[0] is None or resolved[1] or resolved[2]:
        return False
    factory = resolved[0]
    if not isinstance(factory.node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not factory.returns:
        return False
    return all(value is not None and compiled_value(value, factory, model, depth + 1) for value in factory.returns)


def _forwards_to_compiled(name: ast.Name, scope, model, depth: int) -> bool:
    """`name` is a `def` (of the module or nested) whose body, past a docstring, is only `return g(...)`
    with `g` compiled code: calling it dispatches that program and returns."""
    resolved = model.resolve_function(name, scope)
    if resolved is None or resolved[0] is None or resolved[1] or resolved[2]:
        return False
    function = resolved[0]
    node = function.node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list:
        return False
    body = node.body[1:] if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant) else node.body
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
        return False
    inner = body[0].value.func
    return isinstance(inner, (ast.Name, ast.Attribute)) and compiled_value(inner, function, model, depth + 1) is not None


def _from_importers(project, owner, name: str, depth: int) -> str | None:
    """What the calls of the module-level function `owner` in the project's other modules pass for
    `name`: one text where every such call passes compiled code (as its own module's model reads it)."""
    from jaxlint.semantic import callers, importer_facts, syntax

    function = owner.name
    target = project.path
    leaf = callers.module_leaf(target)
    position = owner.params.index(name) if name in owner.params else None
    texts: list[str | None] = []
    for _, importer in importer_facts.importers_naming(project, function):
        if importer is importer_facts.TOO_MANY:
            return None
        for call in importer.calls_by_name().get(function, ()):
            qualified = importer.qualified_name(call.func)
            if qualified is None or "." not in qualified:
                continue
            if not _names_function(importer.project, qualified, function, leaf, target):
                continue
            argument = syntax.argument(call, position, name)
            if argument is None:
                return None  # left to a default, or spread: not known
            try:
                texts.append(compiled_value(argument, importer.scope_for(call), importer, depth + 1))
            except Exception:  # RecursionError included: an argument we cannot read is not known
                return None
            if texts[-1] is None:
                return None
        project.dependencies.update(getattr(importer.project, "dependencies", {}) or {})
    return texts[0] if texts else None


def _names_function(view, qualified: str, function: str, leaf: str, target) -> bool:
    """The importer's `qualified` callee is the function `function` of the file `target`: named from
    its own module, or through a package that re-exports it (`from pkg.utils import time_it`, with
    `pkg/utils/__init__.py` importing it from `pkg/utils/time_it.py`)."""
    from pathlib import Path

    from jaxlint.semantic import callers

    module = qualified.rpartition(".")[0]
    if module.rpartition(".")[2] == leaf and callers._names_file(view, module, target):
        return True
    from jaxlint.semantic.project import _rerooted

    for _ in range(3):
        module, _, name = qualified.rpartition(".")
        if not module:
            return False
        if name == function and view.module_path(module) == Path(target):
            return True
        summary = view.module(module)
        if summary is None or name not in summary.reexports:
            return False
        qualified = _rerooted(summary.reexports[name], summary, module)
    return False
