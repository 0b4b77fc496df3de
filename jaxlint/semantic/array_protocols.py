"""Values whose type takes over NumPy's functions: NumPy's dispatch protocols.

NumPy hands a call to the type of its argument where that type implements `__array_ufunc__` (the
ufuncs: `np.abs`, `np.sin`, `np.add`, ...) or `__array_function__` (`np.concatenate`, `np.transpose`,
...): `np.abs(v)` of an xarray `Variable` returns the `Variable` that xarray computes, applying the
ufunc to the data it holds, and a wrapper class of JAX arrays (`class Wrapper(NDArrayOperatorsMixin)`
with an `__array_ufunc__` calling `jnp`) stays in JAX under `jit` and `grad`. NumPy converts nothing
there, so whether the call works under tracing is the type's business, not a
`TracerArrayConversionError` the source shows.

`dispatches_numpy(node, scope, model)`: the value of `node` is of such a type, as the source shows
it where the value is made: a call of xarray's `Variable`, `DataArray` or `Dataset`, of a class that
defines one of the protocols (or takes them from NumPy's `NDArrayOperatorsMixin`), of this module or of
another module of the project, or of a function whose return annotation names such a type (`def
Variable(dims, data) -> xarray.Variable`, read from the project summary of another module:
`FunctionSummary.returns_annotation`); also arithmetic and indexing of such a value, a NumPy
function's result on one (the type's own result), and a name whose binding that reaches the read
is one of these.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.jaxapi import NUMPY_DISPATCHING_TYPES as DISPATCHING_TYPES
from jaxlint.semantic.model import FUNCTION_NODES, parent_of

PROTOCOL_METHODS = frozenset({"__array_ufunc__", "__array_function__"})
PROTOCOL_MIXINS = frozenset({"numpy.lib.mixins.NDArrayOperatorsMixin"})

_DEPTH = 4


def dispatches_numpy(node: ast.AST, scope, model, depth: int = 0) -> bool:
    """Whether `node` is a value of a type that implements NumPy's dispatch protocols (module doc)."""
    if depth > _DEPTH:
        return False
    kind = node.__class__
    if kind is ast.BinOp:
        return dispatches_numpy(node.left, scope, model, depth + 1) or dispatches_numpy(node.right, scope, model, depth + 1)
    if kind is ast.UnaryOp:
        return not isinstance(node.op, ast.Not) and dispatches_numpy(node.operand, scope, model, depth + 1)
    if kind is ast.Subscript:
        return dispatches_numpy(node.value, scope, model, depth + 1)
    if kind is ast.Call:
        return _makes_dispatching(node, scope, model, depth)
    if kind is ast.Name:
        return _bound_to_dispatching(node, scope, model, depth)
    return False


def _makes_dispatching(call: ast.Call, scope, model, depth: int) -> bool:
    qualified = model.qualified_name(call.func)
    if qualified is not None:
        if qualified in DISPATCHING_TYPES:
            return True
        if qualified.startswith("numpy.") and any(dispatches_numpy(a, scope, model, depth + 1) for a in call.args):
            return True  # `np.abs(v)`: the type's own result
    if call.func.__class__ is ast.Name:
        local = _local_definition(call.func, scope, model)
        if local is not None:
            if isinstance(local, ast.ClassDef):
                return _class_dispatches(local, model)
            return _annotation_dispatches(local.returns, model)
    if qualified is None or "." not in qualified or model.project is None:
        return False
    project = model.project
    if not project.may_hold(qualified.partition(".")[0]):
        return False
    owner = project.class_(qualified)
    if owner is not None:
        return bool(owner.defined & PROTOCOL_METHODS) or any(base in PROTOCOL_MIXINS for base in owner.bases)
    function = project.function(qualified)
    if function is not None and function.returns_annotation:
        return function.returns_annotation in DISPATCHING_TYPES or _project_class_dispatches(function.returns_annotation, model)
    return False


def _project_class_dispatches(qualified: str, model) -> bool:
    owner = model.project.class_(qualified) if model.project is not None and model.project.may_hold(qualified.partition(".")[0]) else None
    return owner is not None and (bool(owner.defined & PROTOCOL_METHODS) or any(base in PROTOCOL_MIXINS for base in owner.bases))


def _local_definition(name: ast.Name, scope, model):
    """The class or function of this module a name calls, where the module defines it once."""
    found = [
        node for node in model.tree.body
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name.id
    ]
    return found[0] if len(found) == 1 else None


def _class_dispatches(node: ast.ClassDef, model) -> bool:
    if any(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in PROTOCOL_METHODS for item in node.body):
        return True
    return any(model.qualified_name(base) in PROTOCOL_MIXINS for base in node.bases)


def _annotation_dispatches(annotation: ast.AST | None, model) -> bool:
    if annotation.__class__ not in (ast.Name, ast.Attribute):
        return False
    qualified = model.qualified_name(annotation)
    if qualified in DISPATCHING_TYPES:
        return True
    if annotation.__class__ is ast.Name:
        local = _local_definition(annotation, None, model)
        if isinstance(local, ast.ClassDef):
            return _class_dispatches(local, model)
    return qualified is not None and _project_class_dispatches(qualified, model)


def _bound_to_dispatching(name: ast.Name, scope, model, depth: int) -> bool:
    """The binding of `name` that surely reaches this read makes such a value."""
    from jaxlint.semantic.reaching import reaching_binding

    if parent_of(name) is None:
        return False
    own = model.scope_for(name)
    if own is None or name.id not in own.local_names:
        return False
    reached = reaching_binding(name, own.bindings, own.loops)
    if reached is None:
        return False
    target, value = reached
    if not isinstance(target, ast.Name) or value is None or isinstance(value, FUNCTION_NODES):
        return False
    return dispatches_numpy(value, own, model, depth + 1)
