"""What a function or method of another module of the project returns, read wherever it is called.

A value's kind (an `nnx.Module` or `eqx.Module` instance, a flax `TrainState`, an optimizer, an
instance of a project class) is decided where the value is made. Real code makes it in one module
and uses it in another: `model, opt, step = init_state(cfg)` with `init_state` in `utils/`, `state =
trainer.make_state(rng)` with the trainer's class elsewhere. The project summary of the defining
module (semantic/project.py, `FunctionSummary.returned_calls`) records, once per file, what every
`return` of each function and method gives at each position of the returned tuple: the callable whose
call it is (`Transformer(...)`, `train_state.TrainState.create(...)`, `optax.adam(lr)`, another
project function), written in the return or bound once to a local name that the return reads. The
asking module then reads that callable's kind through its own library models and project view
(`library_models.value_kind`, `_unpacked_kind`; `SemanticModel.instance_class`), so a kind known
where a value is made is known where it is called, whatever module that is.

Precise by construction: a position is summarised only where every `return` of the function is a
tuple of one width (or every one a single value) and every one gives a call of the same callable
there; a name counts only when it is bound once in the function by a plain assignment and is not a
parameter. A generator, a decorated function (other than `staticmethod`/`classmethod`), a bare
`return` or a return of anything else leaves the position unknown; except that a function under one
decorator whose library model says what its calls return (`@optimizers.optimizer`: an optimizer
maker) returns that (library_models.decorated_calls).
"""

from __future__ import annotations

import ast

from jaxlint.semantic.syntax import bound_names, returned_positions, returned_values

_DEFINITIONS = frozenset({ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef})
# Marks a callable whose result the function unpacked and returns a part of: not an instance of the
# callable's class, but an array when the callable computes arrays.
PART = "[]"

# How many project functions deep `return make_model(cfg)` chains are followed.
MAX_CHAIN = 4


# ----- the summary, built once per file (project.summarise_light) ---------------------------------

def returned_calls(light, node: ast.AST, references: dict[str, str] | None) -> tuple[tuple[int, int, str], ...]:
    """(position, width, callable) for each position of the returned tuple at which every `return` of
    `node` gives a call of one callable: position -1 and width 0 for the whole return. The callable is
    qualified through the module's imports, `references` (its relative imports and its own defs and
    classes, the latter as `.Name`)."""
    values: dict[str, ast.expr] = {}
    parts: dict[str, ast.Call] = {}  # names bound once by unpacking what one call returns
    counts: dict[str, int] = {}
    arguments = node.args
    for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg):
        if arg is not None:
            counts[arg.arg] = 2  # a parameter: what the caller passes

    def record(child: ast.AST) -> None:  # the names each statement binds, in the walk of the returns
        kind = child.__class__
        if kind in _DEFINITIONS:
            if kind is not ast.Lambda:
                counts[child.name] = 2
        elif kind is ast.Assign or kind is ast.AnnAssign:
            targets = child.targets if kind is ast.Assign else [child.target]
            if len(targets) == 1 and targets[0].__class__ is ast.Name and child.value is not None:
                name = targets[0].id
                counts[name] = counts.get(name, 0) + 1
                values[name] = child.value
            elif len(targets) == 1 and targets[0].__class__ in (ast.Tuple, ast.List) and child.value.__class__ is ast.Call:
                # `(state, carry), outputs = jax.lax.scan(...)`: each name holds a part of what the call returns
                for name in bound_names(targets[0]):
                    counts[name] = counts.get(name, 0) + 1
                    parts[name] = child.value
            else:
                for target in targets:
                    for name in bound_names(target):
                        counts[name] = 2
        elif kind in (ast.AugAssign, ast.For, ast.AsyncFor, ast.NamedExpr):
            for name in bound_names(child.target):
                counts[name] = 2
        elif kind is ast.With or kind is ast.AsyncWith:
            for item in child.items:
                if item.optional_vars is not None:
                    for name in bound_names(item.optional_vars):
                        counts[name] = 2
        elif kind is ast.ExceptHandler and child.name:
            counts[child.name] = 2
        elif kind is ast.Global or kind is ast.Nonlocal:
            for name in child.names:
                counts[name] = 2
        elif kind is ast.Delete:
            for target in child.targets:
                for name in bound_names(target):
                    counts[name] = 2

    returns = list(returned_values(node, record))
    if returns and returns[-1] is None:
        return ()  # a generator, or a bare `return`
    positions = returned_positions(returns) if returns else None
    if not positions:
        return ()
    width = len(positions) if positions[0][0] >= 0 else 0
    found = []
    for position, elements in positions:
        callables = set()
        for element in elements:
            suffix = ""
            if element.__class__ is ast.Name and counts.get(element.id) == 1:
                if element.id in parts:
                    element, suffix = parts[element.id], PART
                else:
                    element = values[element.id]
            callee = _callable(light, element.func, references) if element.__class__ is ast.Call else None
            if callee is not None:
                callee += suffix
            if callee is None:
                break
            callables.add(callee)
        else:
            if len(callables) == 1:
                found.append((position, width, callables.pop()))
    return tuple(found)


def _callable(light, function: ast.expr, references: dict[str, str] | None) -> str | None:
    qualified = light.qualified_name(function)
    if qualified is not None:
        return qualified
    parts = []
    while function.__class__ is ast.Attribute:
        parts.append(function.attr)
        function = function.value
    if function.__class__ is not ast.Name or not references or function.id not in references:
        return None
    return ".".join([references[function.id], *reversed(parts)])


# ----- the questions, asked by the module that calls ---------------------------------------------

def project_call_class(model, call: ast.Call, scope, position: int = -1, width: int = 0):
    """The project class (a ClassSummary) whose instance a call of a project function or method of
    another module returns at `position`: `agent = make_agent(cfg)` with `return Agent(cfg)` there."""
    found = project_call_class_name(model, call, scope, position, width)
    return model.project.class_(found) if found is not None else None


def project_call_class_name(model, call: ast.Call, scope, position: int = -1, width: int = 0) -> str | None:
    """The qualified name of that class (project_call_class), the name the module's project view
    resolves; None when not known."""
    found = returned_callable(model, call, scope, position, width)
    for _ in range(MAX_CHAIN):
        if found is None or not model.project.may_hold(found.partition(".")[0]):
            return None
        if model.project.class_(found) is not None:
            return found
        found = function_returned(model, found)
    return None


def returned_callable(model, call: ast.Call, scope, position: int = -1, width: int = 0) -> str | None:
    """The qualified callable a call of a project function or method of another module returns a call of
    at `position` of the tuple of `width` it returns (-1, 0: the whole), from that function's summary
    (`Transformer` for `model, opt = init_state(cfg)` at 0); None when the summary does not say. The
    caller reads the callable's kind (library_models: a modelled class or a library entry's result)."""
    project = model.project
    if project is None or not model.imports_from_project:
        return None
    function = call.func
    if function.__class__ is ast.Attribute:
        receiver = function.value
        owner = None
        if receiver.__class__ is ast.Name and receiver.id not in ("self", "cls"):
            owner = model.instance_class(receiver)
        elif receiver.__class__ is ast.Attribute and receiver.value.__class__ is ast.Name and receiver.value.id == "self":
            owner = model.self_attribute_class(receiver)
        if owner is not None:
            if isinstance(owner, ast.ClassDef):
                return None  # a class of this module: its methods are read from the module itself
            return _method_returned(project, owner, function.attr, position, width)
    if function.__class__ not in (ast.Name, ast.Attribute):
        return None
    qualified = model.qualified_name(function)
    if qualified is None or "." not in qualified or not project.may_hold(qualified.partition(".")[0]):
        return None
    return function_returned(model, qualified, position, width)


def function_returned(model, qualified: str, position: int = -1, width: int = 0) -> str | None:
    """What the project function (or static method) `qualified` returns a call of at `position`."""
    project = model.project
    if not project.may_hold(qualified.partition(".")[0]):
        return None
    found = located_function(project, qualified)
    return _pick(found[0], found[1], position, width) if found is not None else None


def located_function(project, qualified: str):
    """(summary, dotted name of its module) of the project function `qualified`, or of the method
    `pkg.mod.Class.method` called on its class (`Factory.build(...)`, a static or class method)."""
    located = project._locate(qualified)
    if located is not None:
        summary, name, module_name = located
        function = summary.functions.get(name)
        return (function, module_name) if function is not None else None
    owner_name, _, method = qualified.rpartition(".")
    located = project._locate(owner_name) if "." in owner_name else None
    if located is None:
        return None
    summary, name, module_name = located
    owner = summary.classes.get(name)
    function = owner.methods.get(method) if owner is not None else None
    return (function, module_name) if function is not None else None


def _method_returned(project, owner, method: str, position: int, width: int) -> str | None:
    function = owner.methods.get(method)
    if function is None or not function.returned_calls:
        return None
    home = project.home_of_class(owner)
    module_name = next((dotted for dotted, summary in project._module_cache.items() if summary is home), None)
    return _pick(function, module_name, position, width) if module_name is not None else None


def returns_arrays(calls: tuple[tuple[int, int, str], ...]) -> bool:
    """Every position of what a function returns is made by a JAX array function (`jnp.*`, `lax.*`,
    `jax.random.*`, ...), called in the return, bound to a name once, or unpacked from its result
    (`(state, carry), outputs = jax.lax.scan(...)`, `return state, carry, outputs`)."""
    from jaxlint.semantic import jaxapi

    if not calls:
        return False
    width = calls[0][1]
    if len(calls) != max(width, 1):
        return False
    return all(callee.removesuffix(PART).startswith(jaxapi.ARRAY_NAMESPACES) for _, _, callee in calls)


def _pick(function, module_name: str, position: int, width: int) -> str | None:
    for at, wide, callee in function.returned_calls:
        if at == position and wide == width and not callee.endswith(PART):
            return f"{module_name}{callee}" if callee.startswith(".") else callee
    return None
