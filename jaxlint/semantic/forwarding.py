"""Thin wrappers of compiled callables: a function or method whose body only returns a call of a jitted
or pmapped callable on its own parameters (`def update(self, state, batch): return self._step(state,
batch)`). A call of the wrapper is, for what the compiled program does with its arguments (donation,
static positions), a call of the compiled callable with the arguments moved to their places there.

Only this module's wrappers are read (from the semantic model); the compiled callable may be a
decorated function, a module-level `f = jax.jit(g)`, or `self._step = jax.jit(...)` set in `__init__`.
"""

from __future__ import annotations

import ast
import dataclasses

from jaxlint.semantic.flow import dotted_name, target_elements
from jaxlint.semantic.jit_bindings import JitBinding


@dataclasses.dataclass
class ForwardedBinding(JitBinding):
    """The compiled callable a wrapper forwards to, seen from a call of the wrapper: `positions` maps the
    wrapper's positional parameters (self excluded) to the compiled call's argument positions."""

    positions: dict = dataclasses.field(default_factory=dict)
    keywords: dict = dataclasses.field(default_factory=dict)  # wrapper parameter name -> position there
    wrapper: str = ""
    inner: JitBinding | None = None

    def _moved(self, position: int | None, keyword: str | None) -> int | None:
        if keyword is not None:
            return self.keywords.get(keyword)
        return self.positions.get(position)

    def is_static(self, position: int | None, keyword: str | None) -> bool | None:
        moved = self._moved(position, keyword)
        return None if moved is None else self.inner.is_static(moved, None)

    def is_donated(self, position: int | None, keyword: str | None) -> bool | None:
        moved = self._moved(position, keyword)
        return None if moved is None else self.inner.is_donated(moved, None)

    def argnum(self, position: int) -> int:
        moved = self.positions.get(position)
        return self.inner.argnum(moved) if moved is not None else position


def forwarded_binding(call: ast.Call, model) -> ForwardedBinding | None:
    """The compiled callable a call of a thin wrapper of this module runs, with positions moved; None
    when the callee is not such a wrapper."""
    if not isinstance(call.func, (ast.Name, ast.Attribute)):
        return None
    resolved = model.resolve_function(call.func, model.scope_for(call))
    if resolved is None or resolved[1] or resolved[2]:
        return None
    wrapper = resolved[0]
    if wrapper is None or not wrapper.is_function or isinstance(wrapper.node, ast.Lambda) or wrapper.in_traced:
        return None
    cache = model.__dict__.setdefault("_forwarded_bindings", {})
    key = id(wrapper.node)
    if key not in cache:
        cache[key] = _wrapper_binding(wrapper, model)
    found = cache[key]
    if found is None:
        return None
    via_self = isinstance(call.func, ast.Attribute)
    if wrapper.has_self and not via_self:
        return None  # `Class.update(obj, ...)`: positions shift; not followed
    return found


def _wrapper_binding(wrapper, model) -> ForwardedBinding | None:
    node = wrapper.node
    if node.decorator_list:
        return None
    body = [statement for statement in node.body if not (isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
        return None
    inner_call = body[0].value
    inner = model.jit_binding_for_call(inner_call)
    if inner is None or inner.key == "<inline>" or isinstance(inner, ForwardedBinding):
        return None
    arguments = node.args
    if arguments.vararg is not None or arguments.kwarg is not None:
        return None
    params = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    if wrapper.has_self and params:
        params = params[1:]
    passed: dict[str, int] = {}
    for position, argument in enumerate(inner_call.args):
        if isinstance(argument, ast.Starred):
            return None
        if isinstance(argument, ast.Name) and argument.id in params and argument.id not in passed:
            passed[argument.id] = position
    if not passed:
        return None
    positions = {index: passed[name] for index, name in enumerate(params) if name in passed}
    return ForwardedBinding(
        key=f"{node.name}", transform=inner.transform, node=inner.node, options=inner.options, function=inner.function,
        bound_positional=inner.bound_positional, via_decorator=inner.via_decorator, owner=inner.owner,
        external_params=inner.external_params, external_has_self=inner.external_has_self, built_by_factory=inner.built_by_factory,
        positions=positions, keywords=dict(passed), wrapper=node.name, inner=inner,
    )


# ----- wrappers of another module (project.py's light summaries) -------------------------------------------


@dataclasses.dataclass
class CompiledForward:
    """What a wrapper of another module forwards to: the compiled callable's name, transform, options
    (as written), parameters (self excluded) and whether `self` counts in its argnums; `positions`:
    the wrapper's positional parameter i lands at the compiled call's position `positions[i]` (None: not passed)."""

    name: str
    transform: str
    options: dict
    params: list | None
    has_self: bool
    via_decorator: bool
    positions: tuple


def compiled_targets(tree_body, light, compiling) -> tuple[dict, dict]:
    """(module-level name -> (transform, options, params, via_decorator), {class name: {attribute or
    method -> (transform, options, params, via_decorator)}}) for the compiled callables a module binds:
    decorated functions and methods, `f = jax.jit(g)`, and `self.attr = jax.jit(...)` in `__init__`."""
    from jaxlint.semantic.model import keyword_options

    module: dict[str, tuple] = {}
    classes: dict[str, dict[str, tuple]] = {}
    defs = {s.name: s for s in tree_body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}

    def decorated(node, has_self):
        for decorator in node.decorator_list:
            use = light.decorator_transform(decorator)
            if use is not None and use.qualified in compiling:
                params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
                return use.qualified, dict(use.options), params[1:] if has_self and params else params, True
        return None

    for statement in tree_body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            found = decorated(statement, False)
            if found is not None:
                module[statement.name] = found
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            value = statement.value
            if isinstance(value, ast.Call) and value.args and light.transform_of(value.func) in compiling:
                target = defs.get(value.args[0].id) if isinstance(value.args[0], ast.Name) else None
                params = [a.arg for a in (*target.args.posonlyargs, *target.args.args)] if target is not None else None
                module[statement.targets[0].id] = (light.transform_of(value.func), keyword_options(value), params, False)
        elif isinstance(statement, ast.ClassDef):
            members: dict[str, tuple] = {}
            for item in statement.body:
                if not isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    continue
                static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in item.decorator_list)
                found = decorated(item, not static)
                if found is not None:
                    members[item.name] = found
                if item.name == "__init__":
                    for node in ast.walk(item):
                        if (
                            isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)
                            and isinstance(node.targets[0].value, ast.Name) and node.targets[0].value.id == "self"
                            and isinstance(node.value, ast.Call) and node.value.args and light.transform_of(node.value.func) in compiling
                        ):
                            wrapped = node.value.args[0]
                            target = defs.get(wrapped.id) if isinstance(wrapped, ast.Name) else None
                            params = [a.arg for a in (*target.args.posonlyargs, *target.args.args)] if target is not None else None
                            members[node.targets[0].attr] = (light.transform_of(node.value.func), keyword_options(node.value), params, False)
            if members:
                classes[statement.name] = members
    return module, classes


def summarise_compiled_forward(node: ast.AST, has_self: bool, class_name: str | None, module: dict, classes: dict) -> CompiledForward | None:
    """The compiled callable a function or method of another module only forwards to (`return _step(state,
    batch)`, `return self._update(state, batch)`), with its parameters' positions there."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list:
        return None
    if node.args.vararg is not None or node.args.kwarg is not None:
        return None
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return) or not isinstance(body[0].value, ast.Call):
        return None
    call = body[0].value
    function = call.func
    target = None
    if isinstance(function, ast.Name):
        target = module.get(function.id)
        name = function.id
    elif has_self and class_name is not None and isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id == "self":
        target = classes.get(class_name, {}).get(function.attr)
        name = f"{class_name}.{function.attr}"
    if target is None:
        return None
    transform, options, params, via_decorator = target
    own = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    if has_self and own:
        own = own[1:]
    passed: dict[str, int] = {}
    for position, argument in enumerate(call.args):
        if isinstance(argument, ast.Starred):
            return None
        if isinstance(argument, ast.Name) and argument.id in own and argument.id not in passed:
            passed[argument.id] = position
    if not passed:
        return None
    method = isinstance(function, ast.Attribute) and via_decorator
    return CompiledForward(name, transform, options, params, method, via_decorator, tuple(passed.get(p) for p in own))


def imported_forwarded_binding(call: ast.Call, model) -> ForwardedBinding | None:
    """`agent.update(state, batch)` / `other.update(state, batch)` where that function or method of
    another project module only forwards to a compiled callable (its summary's `compiled_forward`)."""
    project = getattr(model, "project", None)
    if project is None:
        return None
    function = call.func
    summary = None
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id not in ("self", "cls"):
        owner = model.instance_class(function.value)
        if owner is not None and not isinstance(owner, ast.ClassDef):
            summary = project.method_of(owner, function.attr)
    if summary is None:
        qualified = model.qualified_name(function)
        if qualified is None or "." not in qualified or qualified.startswith(("jax.", "numpy.", "builtins.", "flax.", "equinox.", "optax.")):
            return None
        summary = project.function(qualified)
    forward = getattr(summary, "compiled_forward", None) if summary is not None else None
    if forward is None:
        return None
    inner = JitBinding(forward.name, forward.transform, function, forward.options, None, via_decorator=forward.via_decorator,
                       external_params=list(forward.params) if forward.params is not None else None, external_has_self=forward.has_self)
    positions = {index: moved for index, moved in enumerate(forward.positions) if moved is not None}
    keywords = {name: positions[index] for index, name in enumerate(summary.params) if index in positions}
    return ForwardedBinding(
        key=summary.name, transform=forward.transform, node=function, options=forward.options, function=None,
        via_decorator=forward.via_decorator, external_params=inner.external_params, external_has_self=forward.has_self,
        positions=positions, keywords=keywords, wrapper=summary.name, inner=inner,
    )


# ----- a compiled callable handed in as an argument ------------------------------------------------------


@dataclasses.dataclass
class HandedInBinding(ForwardedBinding):
    """The compiled callable a function's parameter holds, where every call of that function in this
    module passes the same one (`run(state, step_fn)` called as `run(state, jax.pmap(step))` or with a
    name bound to it): a call of the parameter is a call of that callable, positions unchanged.
    `wrapper` names the receiving function, `parameter` the parameter."""

    parameter: str = ""


def handed_in_binding(call: ast.Call, model) -> HandedInBinding | None:
    """`state = step_fn(state, batch)` inside `def train(state, step_fn)`, where each call of `train`
    in this module hands `step_fn` the same compiled callable (a name bound to `jax.jit(...)`/`pmap`
    or to a factory's result): the binding that callable has, seen
    through the parameter. None when the callee is no parameter, the function rebinds it, a call passes
    something else or nothing there, or the calls disagree."""
    func = call.func
    if not isinstance(func, ast.Name):
        return None
    scope = model.scope_for(call)
    if scope is None or not scope.is_function or isinstance(scope.node, ast.Lambda) or scope.has_self:
        return None
    parameter = func.id
    if parameter not in scope.params and parameter not in scope.keyword_params:
        return None
    if any(parameter in {dotted_name(e) for e in target_elements(target)} for target, _ in scope.bindings):
        return None  # rebound in the function: not only what the caller passes
    cache = model.__dict__.setdefault("_handed_in_bindings", {})
    key = (id(scope.node), parameter)
    if key not in cache:
        cache[key] = _handed_in(scope, parameter, model)
    return cache[key]


def _handed_in(scope, parameter: str, model) -> HandedInBinding | None:
    from jaxlint.semantic.carried_state import _passed_to_parameter

    found = []
    for caller in model.calls_by_name().get(scope.name, ()):
        if not isinstance(caller.func, ast.Name) or model.resolve_function(caller.func, model.scope_for(caller)) is None:
            return None
        if model.resolve_function(caller.func, model.scope_for(caller))[0] is not scope:
            return None
        if parameter in scope.params:
            argument = _passed_to_parameter(caller, parameter, scope)
        else:  # keyword-only
            argument = next((k.value for k in caller.keywords if k.arg == parameter), None)
        if argument is None:
            return None
        if not isinstance(argument, (ast.Name, ast.Attribute)):
            return None
        inner = model.jit_binding_for_name(argument)
        if inner is None or isinstance(inner, ForwardedBinding):
            return None
        found.append(inner)
    if not found:
        return None
    first = found[0]
    if any((b.node is not first.node or b.transform != first.transform) for b in found[1:]):
        return None  # different callables handed in: what the parameter runs is not one thing
    positions = {index: index for index in range(64)}
    return HandedInBinding(
        key=parameter, transform=first.transform, node=first.node, options=first.options, function=first.function,
        bound_positional=first.bound_positional, via_decorator=first.via_decorator, owner=first.owner,
        external_params=first.external_params, external_has_self=first.external_has_self, built_by_factory=first.built_by_factory,
        positions=positions, keywords={}, wrapper=scope.name, inner=first, parameter=parameter,
    )

