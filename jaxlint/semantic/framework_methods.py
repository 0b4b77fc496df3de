"""Methods a framework runs inside the step that transforms them, wherever that step is written.

A Flax linen `Module`'s `__call__` (and any `@nn.compact` method) runs only inside `init`/`apply`,
and a Haiku `hk.Module`'s methods only inside a function `hk.transform` made pure: that is the model's
forward pass, and the training code calls it inside its jitted, differentiated step. A module file
that defines such classes and runs none of them itself (no `init`/`apply`, no `hk.transform`) is a
library of models for that step: its forward passes are traced code, as if the step were written
beside them (a Python loop over the sequence unrolls, `if` on an activation needs a concrete value,
`print` shows a tracer).

What the forward pass is handed is not seen here, so only its inputs count as tracers: the
positional parameters with no default that the body shows to be arrays (annotated so, or it reads
their shape, slices them, hands them to `jax.numpy`/`lax`/a layer/a submodule); a size handed to
`np.arange`, or a list of token groups concatenated and walked, is not shown to be one. A parameter with a default (`train: bool = True`, an optional
`mask=None` or cache), one annotated as a Python scalar (`deterministic: bool`), and one the method
tests as a bare truth value (`if train:`, `not deterministic`) is an option of the call, not an input.

A NumPyro model, a function that draws sample sites (`numpyro.sample`), runs only under NumPyro's
inference, which traces it: MCMC kernels compile the chain, `Predictive` maps the model over its
samples with `lax.map`/`vmap`, `SVI.run` compiles its steps. Its sample values are tracers; its
parameters are not (MCMC hands the model's arguments over as constants by default, `Predictive`
closes over them). A model the module calls itself (`with seed(...): model()`) is left as it is.

Not traced this way: a module whose own code runs the models (`model.apply(...)` or `hk.transform`
in the file: a notebook or script, whose own calls say whether they are jitted; the same-module
analysis reads them), Flax NNX and Equinox modules (called directly, often eagerly), and `setup` or
`__init__` (building submodules, with Python values).
"""

from __future__ import annotations

import ast

from jaxlint.semantic.bindings import FUNCTION_NODES



# The transform name a forward pass is traced by (compiled: not one of jaxapi.EAGER_TRACING).
FORWARD_PASS = "framework.forward_pass"
_LINEN = "linen"
_HAIKU = "haiku"
_BASES = {
    "flax.linen.Module": _LINEN,
    "flax.linen.module.Module": _LINEN,
    "haiku.Module": _HAIKU,
    "haiku._src.module.Module": _HAIKU,
}
# Calls of a module's own code that run models: the file says itself how they are run.
_RUNNING_ATTRIBUTES = frozenset({"apply", "init", "init_with_output"})
_HAIKU_TRANSFORMS = frozenset({
    "haiku.transform", "haiku.transform_with_state", "haiku.multi_transform", "haiku.multi_transform_with_state",
    "haiku.without_apply_rng",
})
# NumPyro's sample sites: inside a model, a traced value.
SAMPLE_SITES = frozenset({"numpyro.sample", "numpyro.primitives.sample"})
# The transform name a NumPyro model is traced by.
PROBABILISTIC_MODEL = "numpyro.model"
_COMPACT = frozenset({"flax.linen.compact", "flax.linen.module.compact"})
_TRUTH_TESTS = (ast.If, ast.While, ast.IfExp, ast.Assert)
_ARRAY_ATTRIBUTES = frozenset({
    "shape", "ndim", "dtype", "T", "at", "reshape", "astype", "transpose", "squeeze", "swapaxes", "ravel", "flatten",
})
_ARRAY_FUNCTIONS = ("jax.numpy.", "jax.nn.", "jax.lax.", "flax.linen.", "haiku.")


def forward_passes(model) -> list:
    """(method scope, {parameter: level}) for each forward-pass method of this module's linen and
    Haiku classes, where the module runs none of its models itself; [] otherwise."""
    body = getattr(model.tree, "body", ())
    classes = [node for node in body if isinstance(node, ast.ClassDef)]
    if not classes:
        return []
    kinds: dict[str, str] = {}
    for _ in range(2):  # a class deriving from one defined below it
        for node in classes:
            if node.name not in kinds:
                kind = _framework(model, node, kinds)
                if kind is not None:
                    kinds[node.name] = kind
    if not kinds or _runs_models(model, {node for node in classes if node.name in kinds}):
        return []
    found = []
    for node in classes:
        kind = kinds.get(node.name)
        if kind is None:
            continue
        for name, scope in model.class_methods.get(node, {}).items():
            if scope is None or not _forward_method(model, kind, name, scope):
                continue
            found.append((scope, _inputs(model, scope)))
    return found


def probabilistic_models(model) -> list:
    """The module-level functions of this module that draw NumPyro sample sites and that no code of
    the module calls by name."""
    candidates = {}
    for node in getattr(model.tree, "body", ()):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and not node.decorator_list:
            scope = model.module_scope.defs.get(node.name)
            if scope is not None and scope.node is node and not scope.traced:
                candidates[node.name] = scope
    if not candidates:
        return []
    found = []
    for name, scope in candidates.items():
        if not any(model.qualified_name(call.func) in SAMPLE_SITES for call in scope.calls):
            continue
        if any(isinstance(call.func, ast.Name) for call in model.calls_by_name().get(name, ())):
            continue
        found.append(scope)
    return found


def _framework(model, node: ast.ClassDef, kinds: dict[str, str]) -> str | None:
    for base in node.bases:
        if isinstance(base, ast.Name) and base.id in kinds:
            return kinds[base.id]
        qualified = model.qualified_name(base)
        if qualified is None:
            continue
        if qualified in _BASES:
            return _BASES[qualified]
        project = model.project
        top = qualified.partition(".")[0]
        if project is None or top in ("flax", "haiku", "jax", "equinox") or not project.may_hold(top):
            continue
        summary = project.class_(qualified)  # `class MultiCrop(Model)`, `Model` a linen class of the project
        for outer in summary.bases if summary is not None else ():
            if outer in _BASES:
                return _BASES[outer]
    return None


def _runs_models(model, framework_classes: set) -> bool:
    """The module runs models itself: an `init`/`apply` call, or a Haiku transform, outside the
    framework classes (a forward pass applying another network, `actor.apply(params, x)`, is part of
    the forward pass)."""
    for scope in model.scopes:
        owner = scope
        while owner is not None and owner.class_node is None:
            owner = owner.parent
        if owner is not None and owner.class_node in framework_classes:
            continue
        for call in scope.calls:
            function = call.func
            if isinstance(function, ast.Attribute) and function.attr in _RUNNING_ATTRIBUTES:
                return True
            if model.qualified_name(function) in _HAIKU_TRANSFORMS:
                return True
        for decorator in getattr(scope.node, "decorator_list", ()):
            if model.qualified_name(decorator) in _HAIKU_TRANSFORMS:
                return True
    return False


def _forward_method(model, kind: str, name: str, scope) -> bool:
    if not scope.has_self or name in ("__init__", "setup") or scope.traced:
        return False
    if name == "__call__":
        return True
    if kind == _LINEN:
        return any(model.qualified_name(d) in _COMPACT for d in getattr(scope.node, "decorator_list", ()))
    return not name.startswith("_")  # a Haiku module's public methods run inside the transform


def _inputs(model, scope) -> dict[str, int]:
    """The parameters that are the forward pass's inputs, each at its level."""
    node = scope.node
    arguments = node.args
    positional = [*arguments.posonlyargs, *arguments.args][1:]  # after self
    defaulted = {arg.arg for arg in positional[len(positional) - len(arguments.defaults):]} if arguments.defaults else set()
    tested = _truth_tested(node)
    used = _used_as_arrays(model, node, model.class_methods.get(scope.class_node, {}))
    inputs = {}
    for arg in positional:
        name = arg.arg
        if name in tested or name in defaulted or model._annotated_python_scalar(scope, name):
            continue
        if name not in used and not model._annotated_array(scope, name):
            continue  # `qlen` handed to `np.arange`, a list of token groups: not shown to be an array
        inputs[name] = model._param_level(scope, name)
    return inputs


def _used_as_arrays(model, function: ast.AST, methods) -> set[str]:
    """Names the function's own body uses as arrays: reads an array attribute of (`x.shape`, `x.T`,
    `x.reshape(...)`), slices (`x[:, t]`, `x[..., 0]`), or hands to a `jax.numpy`/`jax.nn`/`lax`
    function, a submodule (`self.encoder(x)`, not a method of the class) or a library layer made in
    place (`nn.Dense(4)(x)`)."""
    used: set[str] = set()
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, tuple(FUNCTION_NODES)):
            continue
        stack.extend(ast.iter_child_nodes(node))
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr in _ARRAY_ATTRIBUTES:
            used.add(node.value.id)
        elif isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and _array_index(node.slice):
            used.add(node.value.id)
        elif isinstance(node, ast.Call) and _array_callee(model, node.func, methods):
            used.update(arg.id for arg in node.args if isinstance(arg, ast.Name))
    return used


def _array_index(index: ast.expr) -> bool:
    elements = index.elts if isinstance(index, ast.Tuple) else [index]
    return any(isinstance(e, ast.Slice) or (isinstance(e, ast.Constant) and (e.value is Ellipsis or e.value is None)) for e in elements)


def _array_callee(model, function: ast.expr, methods) -> bool:
    if isinstance(function, ast.Call):
        # `nn.Dense(4)(x)`, `hk.Linear(4)(x)`: a library layer made and applied in place.
        return (model.qualified_name(function.func) or "").startswith(("flax.linen.", "haiku."))
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id == "self":
        return function.attr not in methods  # `self.encoder(x)`: a submodule (not a method of the class)
    qualified = model.qualified_name(function) or ""
    return qualified.startswith(_ARRAY_FUNCTIONS)


def _truth_tested(function: ast.AST) -> set[str]:
    """Names the function's own body tests as bare truth values (`if train:`, `not deterministic`,
    `a and b`): Python flags of its caller."""
    tested: set[str] = set()
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, tuple(FUNCTION_NODES)):
            continue
        operands: list = []
        if isinstance(node, _TRUTH_TESTS):
            operands = [node.test]
        elif isinstance(node, ast.BoolOp):
            operands = node.values
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            operands = [node.operand]
        tested.update(operand.id for operand in operands if isinstance(operand, ast.Name))
        stack.extend(ast.iter_child_nodes(node))
    return tested
