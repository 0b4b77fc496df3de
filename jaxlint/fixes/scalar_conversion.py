"""JAX102's fix: keep a converted traced value an array (`float(x)` dropped, or `.astype(kind)`),
where the value only flows into JAX operations or the return, directly or through a name bound
once to it whose every use does."""

from __future__ import annotations

import ast

from jaxlint.semantic.model import parent_of

# Where a converted value can go and still be a JAX array afterwards.
_ARRAY_CONSUMERS = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.", "jax.random.")


def conversion_fix(node: ast.Call, value: ast.AST, context):
    """Keep the value an array where it only flows into JAX operations or the return.

    `.item()` and `float()` of a value that is already floating point are dropped; otherwise the
    conversion becomes `.astype(float|int|complex)`, JAX's default dtype of that kind, because the
    dtype change is what the conversion meant (`int()` truncates toward zero, as `astype` does).
    """
    if not _flows_only_into_jax(node, context, conversion=node):
        return None
    text = context.text(value)
    atomic = isinstance(value, (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.Constant))
    qualified = context.qualified_name(node.func) if not isinstance(node.func, ast.Attribute) else None
    kind = {"builtins.float": "float", "builtins.int": "int", "builtins.complex": "complex", "operator.index": "int"}.get(qualified or "")
    if kind is None or (kind == "float" and _already_floating(value, context)) or (kind == "int" and _already_integer(value, context)):
        if not atomic:
            text = f"({text})"
        return context.fix("Drop the conversion and keep the array", [context.replace(node, text)], safe=False)
    if not atomic:
        text = f"({text})"
    return context.fix(f"Use `.astype({kind})` and keep the array", [context.replace(node, f"{text}.astype({kind})")], safe=False)


_FLOATING_FUNCTIONS = {
    "mean", "exp", "log", "log1p", "expm1", "sqrt", "sin", "cos", "tan", "tanh", "sigmoid", "softmax", "log_softmax",
    "std", "var", "linalg.norm", "logsumexp", "average", "nanmean", "erf", "relu", "gelu", "softplus",
}


def _already_floating(value: ast.AST, context) -> bool:
    """Whether `value` is certainly floating point (so `float()` of it changes nothing but the container)."""
    if isinstance(value, ast.BinOp) and isinstance(value.op, ast.Div):
        return True
    if isinstance(value, ast.Call):
        qualified = context.qualified_name(value.func) or ""
        for prefix in ("jax.numpy.", "jax.nn.", "jax.scipy.special.", "jax.lax."):
            if qualified.startswith(prefix) and qualified[len(prefix):] in _FLOATING_FUNCTIONS:
                return True
        if isinstance(value.func, ast.Attribute) and value.func.attr in ("mean", "std", "var") and not qualified:
            return True
    return False


# Integer-valued results: `int()` of them changes only the container, so an index keeps them as is.
_INTEGER_FUNCTIONS = frozenset({
    "jax.numpy.argmax", "jax.numpy.argmin", "jax.numpy.nanargmax", "jax.numpy.nanargmin", "jax.numpy.searchsorted",
    "jax.numpy.count_nonzero", "jax.random.randint", "jax.random.categorical",
})
# Arguments that must be static (shapes, sizes, counts): an array there fails under jit just as
# `int(tracer)` did, so no fix. The first positional argument of the others is an array operand.
_STATIC_ARGUMENTS = {
    "jax.numpy.zeros": (0,), "jax.numpy.ones": (0,), "jax.numpy.empty": (0,), "jax.numpy.full": (0,),
    "jax.numpy.arange": (0, 1, 2), "jax.numpy.linspace": (2,), "jax.numpy.logspace": (2,), "jax.numpy.geomspace": (2,),
    "jax.numpy.eye": (0, 1, 2), "jax.numpy.identity": (0,), "jax.numpy.tri": (0, 1, 2), "jax.numpy.reshape": (1,),
    "jax.numpy.broadcast_to": (1,), "jax.numpy.tile": (1,), "jax.numpy.repeat": (1, 2), "jax.numpy.split": (1, 2),
    "jax.numpy.expand_dims": (1,), "jax.numpy.squeeze": (1,), "jax.numpy.transpose": (1,), "jax.numpy.moveaxis": (1, 2),
    "jax.numpy.swapaxes": (1, 2), "jax.numpy.sum": (1,), "jax.numpy.mean": (1,), "jax.numpy.max": (1,), "jax.numpy.min": (1,),
    "jax.numpy.argmax": (1,), "jax.numpy.argmin": (1,), "jax.numpy.take": (2,), "jax.numpy.concatenate": (1,),
    "jax.numpy.stack": (1,), "jax.nn.one_hot": (1,), "jax.lax.dynamic_slice": (2,), "jax.lax.dynamic_slice_in_dim": (2, 3),
    "jax.lax.dynamic_index_in_dim": (2, 3), "jax.lax.dynamic_update_slice_in_dim": (3,), "jax.lax.broadcast": (1,),
    "jax.lax.iota": (0, 1), "jax.lax.full": (0,), "jax.random.split": (1,), "jax.random.fold_in": (),
}
# Where a tuple or list of start indices may hold arrays: (function, position, keyword).
_START_INDICES = {"jax.lax.dynamic_slice": (1, "start_indices"), "jax.lax.dynamic_update_slice": (2, "start_indices")}
# `jax.numpy` functions reject lists, tuples and dicts (jax 0.2.20 on), except those built to take
# sequences: a name passed first to any other is an array.
_SEQUENCE_FUNCTIONS = frozenset({
    "array", "asarray", "stack", "concatenate", "hstack", "vstack", "dstack", "column_stack", "block", "concat",
    "broadcast_arrays", "meshgrid", "ix_", "einsum", "select", "piecewise", "result_type", "shape", "size", "ndim",
    # Shapes, sizes and dtypes first: a tuple or a number there.
    "zeros", "ones", "empty", "full", "eye", "identity", "tri", "arange", "linspace", "logspace", "geomspace",
    "indices", "tril_indices", "triu_indices", "diag_indices", "dtype", "iinfo", "finfo", "issubdtype",
    "promote_types", "can_cast", "isdtype",
})
# Attributes lists, tuples and dicts lack: a name read with one of these is an array.
_ARRAY_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "at", "astype", "T", "reshape", "block_until_ready"})
_ARRAY_ANNOTATIONS = frozenset({"jax.Array", "jax.numpy.ndarray", "chex.Array", "jaxtyping.Array"})


def _already_integer(value: ast.AST, context) -> bool:
    if not isinstance(value, ast.Call):
        return False
    if context.qualified_name(value.func) in _INTEGER_FUNCTIONS:
        return True
    return isinstance(value.func, ast.Attribute) and value.func.attr in ("argmax", "argmin") and not context.qualified_name(value.func)


def _flows_only_into_jax(node: ast.AST, context, depth: int = 0, conversion: ast.Call | None = None) -> bool:
    parent = parent_of(node)
    if isinstance(parent, ast.Return):
        return True
    if isinstance(parent, ast.Assign) and parent.value is node and depth < 3:
        return _bound_name_flows_only_into_jax(parent, context, depth, conversion)
    if isinstance(parent, ast.BinOp):
        return _flows_only_into_jax(parent, context, depth, conversion)
    if isinstance(parent, ast.Subscript) and parent.slice is node:
        return _indexes_an_array(parent, context, conversion)
    if isinstance(parent, ast.Tuple) and node in parent.elts:
        holder = parent_of(parent)
        if isinstance(holder, ast.Subscript) and holder.slice is parent:
            return _indexes_an_array(holder, context, conversion)
        if isinstance(holder, ast.Call):
            start = _START_INDICES.get(context.qualified_name(holder.func) or "")
            return start is not None and (
                len(holder.args) > start[0] and holder.args[start[0]] is parent
                or any(k.arg == start[1] and k.value is parent for k in holder.keywords)
            )
        return False
    if isinstance(parent, ast.Call) and node in parent.args:
        qualified = context.qualified_name(parent.func)
        if qualified is None or not qualified.startswith(_ARRAY_CONSUMERS):
            return False
        return parent.args.index(node) not in _STATIC_ARGUMENTS.get(qualified, ())
    return False


def _indexes_an_array(subscript: ast.Subscript, context, conversion: ast.Call | None = None) -> bool:
    """`x[i]` reads (or `x.at[i]` updates) a JAX array, where an integer array index selects what
    the Python int did: not a list, tuple or dict, which need Python ints."""
    indexed = subscript.value
    if isinstance(indexed, ast.Attribute) and indexed.attr == "at":
        return True
    if not isinstance(subscript.ctx, ast.Load):
        return False
    if isinstance(subscript.slice, ast.Tuple) and any(isinstance(e, ast.Slice) and (e.lower or e.upper or e.step) for e in subscript.slice.elts):
        return False  # bounds beside the index: a slice of static size is another fix
    from jaxlint.semantic.arrays import is_jax_array  # the fixes package loads before the model's helpers

    scope = context.scope(subscript)
    if is_jax_array(context.model, indexed, scope):
        return True
    if not isinstance(indexed, ast.Name) or not scope.is_function:
        return False
    name = indexed.id
    if name in scope.param_nodes and _annotated_as_array(scope.param_nodes[name], context) and parameter_unbound(name, subscript, scope):
        return True
    # `x[int(jnp.argmax(x))]`, `peak = jnp.max(x, axis=0)` ... `x[:, int(...)]`, `x.shape[0]`: the
    # function uses `x` as only an array can be used, with no rebinding of `x` in between.
    for node in ast.walk(scope.node):
        if not (isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load)) or node is indexed:
            continue
        parent = parent_of(node)
        array_use = isinstance(parent, ast.Attribute) and parent.attr in _ARRAY_ATTRIBUTES
        if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node:
            qualified = context.qualified_name(parent.func) or ""
            array_use = qualified.startswith("jax.numpy.") and qualified.count(".") == 2 and qualified[len("jax.numpy."):] not in _SEQUENCE_FUNCTIONS
        if array_use and context.scope(node) is scope and not _rebound_between(name, node, subscript, scope):
            return True
    return False


def _annotated_as_array(parameter: ast.AST, context) -> bool:
    annotation = getattr(parameter, "annotation", None)
    return annotation is not None and context.qualified_name(annotation) in _ARRAY_ANNOTATIONS


def parameter_unbound(name: str, subscript: ast.AST, scope) -> bool:
    """The parameter is never rebound in its function (so the annotation still describes it)."""
    return not any(isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) for n in ast.walk(scope.node))


def _rebound_between(name: str, first: ast.AST, second: ast.AST, scope) -> bool:
    low, high = sorted([(first.lineno, first.col_offset), (second.lineno, second.col_offset)])
    return any(
        isinstance(n, ast.Name) and n.id == name and not isinstance(n.ctx, ast.Load) and low < (n.lineno, n.col_offset) < high
        for n in ast.walk(scope.node)
    )


def _bound_name_flows_only_into_jax(assign: ast.Assign, context, depth: int, conversion: ast.Call | None = None) -> bool:
    """`v = float(...)`: `v` is bound only here in its function, and every read of it comes after
    this line and flows only into JAX operations or the return."""
    if len(assign.targets) != 1 or not isinstance(assign.targets[0], ast.Name):
        return False
    name = assign.targets[0].id
    scope = context.scope(assign)
    if not scope.is_function or name in scope.param_nodes or name in scope.declared_free:
        return False
    stores, loads = [], []
    for n in ast.walk(scope.node):
        if isinstance(n, ast.Name) and n.id == name:
            (loads if isinstance(n.ctx, ast.Load) else stores).append(n)
    if stores != [assign.targets[0]] or not loads:
        return False
    end = (assign.end_lineno, assign.end_col_offset)
    for n in loads:
        if context.scope(n) is not scope:
            return False  # read by a nested function or comprehension: not followed
        if (n.lineno, n.col_offset) <= end or not _flows_only_into_jax(n, context, depth + 1, conversion):
            return False
    return True
