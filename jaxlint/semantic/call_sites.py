"""How the compiled callable that traces a function is called, if at all.

`f_jit = jax.jit(f)` that nothing in the module calls (or hands on) never traces `f` with abstract
values: errors that only tracing raises cannot happen through it. `jaxlint` checks one module at a
time here, so a wrapper is "never called" when its name is never read after the binding.

A function whose every compiled call sits in a `try` that catches the error tracing raises
(`try: f(2) except jax.errors.TracerBoolConversionError: print(...)`) is a demonstration of that
error: its author expects it (`every_compiled_call_expects`). A function traced only by
`jax.make_jaxpr` or `jax.eval_shape` is traced to be looked at, never run on values
(`traced_only_to_inspect`).
"""

from __future__ import annotations

import ast

from jaxlint.semantic import jaxapi
from jaxlint.semantic.bindings import owning_scope
from jaxlint.semantic.flow import caught_locally
from jaxlint.semantic.model import Scope, SemanticModel
from jaxlint.semantic.syntax import parent_of


def traced_only_by_uncalled_wrappers(scope: Scope, model: SemanticModel) -> bool:
    """The outermost traced function around `scope` is traced only through `name = jax.jit(f)` bindings
    whose names are never read: no decorator, no other transform, no call of a wrapper."""
    root = _outermost_traced(scope)
    if root is None or not root.transforms or not root.transforms <= jaxapi.COMPILING:
        return False
    bindings = _bindings_by_function(model).get(id(root), [])
    if not bindings or any(binding.via_decorator for binding in bindings):
        return False
    if any(binding.key.startswith("self.") for binding in bindings):
        return False  # `self._update = jax.jit(update)`: called through its objects, from any module
    wrapped_elsewhere = _transformed_names(model).get(getattr(root.node, "name", None), 0)
    if wrapped_elsewhere != len(bindings):
        return False  # also passed to a transform whose result is not bound to a name (`jax.jit(f)(x)`)
    read = model.__dict__.get("_names_read")
    if read is None:
        read = {node.id for node in model.nodes if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)}
        read |= {node.attr for node in model.nodes if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)}
        model.__dict__["_names_read"] = read
    return not any(binding.key.rpartition(".")[2] in read for binding in bindings)


def every_compiled_call_expects(scope: Scope, model: SemanticModel, bases: tuple[str, ...]) -> bool:
    """Every call of the compiled callables that trace the outermost traced function around `scope`
    sits in a `try` (in its own function) that catches an error derived from one of `bases`
    (flow.caught_locally), and there is at least one such call: `@jax.jit def f` called as `f(2)`,
    `g = jax.jit(f)` called as `g(10, 4)`, or `jax.jit(f)(x)`. The author runs the function to show
    the error JAX raises. A compiled callable handed on anywhere (an argument, a container, a
    return) has calls nobody sees, and proves nothing."""
    root = _outermost_traced(scope)
    node = root.node if root is not None else None
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not root.transforms or not root.transforms <= jaxapi.COMPILING:
        return False
    bindings = _bindings_by_function(model).get(id(root), [])
    if any("." in binding.key for binding in bindings):
        return False  # `self.f = jax.jit(...)`: called through objects, from anywhere
    wrappers = {binding.key for binding in bindings if not binding.via_decorator}
    if any(_compiling_decorator(decorator, model) for decorator in node.decorator_list):
        wrappers.add(node.name)
    ours = {node.name: node.lineno} | {binding.key: _top_statement_line(binding.node) for binding in bindings if not binding.via_decorator}
    calls = []
    for name in (n for n in model.nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)):
        if name.id not in ours:
            continue
        refers = _refers_to(name, ours[name.id], root.parent, model)
        if refers is None:
            return False  # a read whose binding is unclear (rebound, and read inside a function)
        if not refers:
            continue  # a read of another binding of the name (a notebook reuses `f` cell after cell)
        parent = parent_of(name)
        if isinstance(parent, ast.Call) and parent.func is name:
            if name.id in wrappers:
                calls.append(parent)  # a call of the compiled callable (an eager call of `f` itself raises nothing)
            continue
        if isinstance(parent, ast.Call) and parent.args and parent.args[0] is name and model.transform_of(parent.func) is not None:
            outer = parent_of(parent)
            if isinstance(outer, ast.Call) and outer.func is parent:
                calls.append(outer)  # `jax.jit(f)(x)`
                continue
            if isinstance(outer, ast.Assign) and len(outer.targets) == 1 and isinstance(outer.targets[0], ast.Name) and outer.targets[0].id in wrappers:
                continue  # the binding itself
        return False  # handed on: called where this module cannot see
    return bool(calls) and all(caught_locally(call, bases, model) for call in calls)


def _compiling_decorator(decorator: ast.expr, model: SemanticModel) -> bool:
    """`@jax.jit`, `@jit`, `@jax.jit(...)` or `@partial(jax.jit, ...)`: the decorated name is compiled.
    (The module's binding table keeps one binding per name, the last: a notebook redefines `f`.)"""
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if model.transform_of(target) in jaxapi.COMPILING:
        return True
    return isinstance(decorator, ast.Call) and bool(decorator.args) and model.qualified_name(decorator.func) == "functools.partial" and model.transform_of(decorator.args[0]) in jaxapi.COMPILING


def _top_statement_line(node: ast.AST) -> int:
    """The line of the top-level statement around `node` (a decorator, a `jax.jit(f)` call)."""
    current = node
    while parent_of(current) is not None and not isinstance(parent_of(current), ast.Module):
        current = parent_of(current)
    return current.lineno


def _refers_to(name: ast.Name, line: int, home: Scope | None, model: SemanticModel) -> bool | None:
    """Whether the read `name` reads our binding: the function's own name in `home` (the scope that
    defines it) or a wrapper bound by the top-level statement at `line`. At module level that is the
    only binding of the name, or, for a read in module-level code, the nearest binding before it.
    None when the name is rebound and read inside a function (the binding it sees depends on when it
    runs)."""
    scope = model.scope_for(name)
    owner = owning_scope(model, name.id, scope)
    if home is not None and home is not model.module_scope:
        return owner is home  # a function defined in a function: read where its name is visible
    if scope is not model.module_scope and owner not in (None, model.module_scope):
        return False  # a parameter or local of that name
    lines = _module_binding_lines(model).get(name.id, ())
    if len(lines) <= 1:
        return True
    if scope is not model.module_scope:
        return None
    before = [bound for bound in lines if bound <= name.lineno]
    return bool(before) and max(before) == line


def _module_binding_lines(model: SemanticModel) -> dict[str, list[int]]:
    """name -> lines of the top-level statements that bind it (a `def`, a `class`, an assignment,
    an import), indexed once per module."""
    index = model.__dict__.get("_module_binding_lines")
    if index is None:
        index = {}
        for statement in model.tree.body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                names = [statement.name]
            elif isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                names = [n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)]
            elif isinstance(statement, (ast.Import, ast.ImportFrom)):
                names = [(alias.asname or alias.name).partition(".")[0] for alias in statement.names]
            else:
                names = [n.id for n in ast.walk(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)]
            for bound in names:
                index.setdefault(bound, []).append(statement.lineno)
        model.__dict__["_module_binding_lines"] = index
    return index


def traced_only_to_inspect(scope: Scope) -> bool:
    """The outermost traced function around `scope` is traced only by `jax.make_jaxpr`,
    `jax.eval_shape` or `eqx.filter_eval_shape`: its program is built to be printed or its shapes
    read, and never runs on values. Host effects at trace time are all it ever does."""
    root = _outermost_traced(scope)
    return root is not None and bool(root.transforms) and root.transforms <= jaxapi.ABSTRACT_ONLY


def _bindings_by_function(model: SemanticModel) -> dict[int, list]:
    """id(function scope) -> its `jit` bindings, indexed once per module: a scan of every binding per
    traced function made a module of many jitted functions quadratic."""
    index = model.__dict__.get("_jit_bindings_by_function")
    if index is None:
        index = {}
        for binding in model.jit_bindings.values():
            index.setdefault(id(binding.function), []).append(binding)
        model.__dict__["_jit_bindings_by_function"] = index
    return index


def _transformed_names(model: SemanticModel) -> dict[str, int]:
    """How many transform calls (`jax.jit(f)`, `jax.vmap(f)`) take each bare name as their function,
    counted once per module."""
    counts = model.__dict__.get("_transformed_names")
    if counts is None:
        counts = {}
        for call in (c for scope in model.scopes for c in scope.calls):
            if call.args and isinstance(call.args[0], ast.Name) and model.transform_of(call.func) is not None:
                counts[call.args[0].id] = counts.get(call.args[0].id, 0) + 1
        model.__dict__["_transformed_names"] = counts
    return counts


def _outermost_traced(scope: Scope) -> Scope | None:
    found = None
    current: Scope | None = scope
    while current is not None:
        if current.traced:
            found = current
        current = current.parent
    return found

