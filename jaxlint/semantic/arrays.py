"""Whether an expression is known to be a JAX array (not a NumPy array, list, dict or pytree).

Used in and outside traced code: `x = jnp.zeros(3)` makes `x` a JAX array everywhere. Only what
the module shows counts; anything else is "cannot tell".
"""

from __future__ import annotations

import ast

from jaxlint.semantic import jaxapi
from jaxlint.semantic.bindings import bound_values
from jaxlint.semantic.model import ARRAY, Scope, SemanticModel

# jax.numpy functions that return a tuple or list of arrays, or something other than an array.
NON_ARRAY_RESULTS = frozenset({
    "split", "array_split", "hsplit", "vsplit", "dsplit", "unstack", "meshgrid", "nonzero", "unravel_index",
    "tril_indices", "triu_indices", "diag_indices", "diag_indices_from", "tril_indices_from", "triu_indices_from",
    "mask_indices", "indices", "broadcast_arrays", "atleast_1d", "atleast_2d", "atleast_3d", "histogram",
    "histogram2d", "histogramdd", "unique", "unique_all", "unique_counts", "unique_inverse", "modf", "frexp",
    "divmod", "gradient", "ix_", "where", "shape", "ndim", "size", "dtype", "result_type", "iinfo", "finfo",
    "issubdtype", "isdtype", "isscalar", "can_cast", "promote_types", "broadcast_shapes", "polydiv", "vectorize",
    "frompyfunc", "piecewise", "from_dlpack", "printoptions", "get_printoptions", "set_printoptions",
})
# jax.numpy.linalg functions that return one array (the others return tuples).
LINALG_ARRAY_RESULTS = frozenset({
    "norm", "inv", "pinv", "det", "solve", "cholesky", "matrix_power", "matrix_rank", "cond", "eigvalsh",
    "eigvals", "matrix_norm", "vector_norm", "tensorinv", "tensorsolve", "multi_dot", "cross", "outer",
    "matmul", "trace", "diagonal", "matrix_transpose", "vecdot", "svdvals", "tensordot",
})
_ARRAY_PREFIXES = ("jax.numpy.", "jax.random.", "jax.nn.")
_UPDATE_METHODS = frozenset({"set", "add", "subtract", "multiply", "mul", "divide", "power", "min", "max", "apply"})


def is_jax_array_call(model: SemanticModel, call: ast.Call) -> bool:
    qualified = model.qualified_name(call.func)
    if qualified is None or not qualified.startswith(_ARRAY_PREFIXES):
        return False
    if qualified.startswith("jax.numpy.linalg."):
        return qualified[len("jax.numpy.linalg."):] in LINALG_ARRAY_RESULTS
    if qualified.startswith("jax.numpy.") and qualified.count(".") == 2:
        return qualified[len("jax.numpy."):] not in NON_ARRAY_RESULTS and qualified[len("jax.numpy.")].islower()
    if qualified.startswith("jax.random."):
        return qualified not in ("jax.random.key_impl", "jax.random.default_prng_impl")
    return qualified.startswith("jax.nn.") and qualified.count(".") == 2 and qualified[len("jax.nn."):] not in ("initializers",)


def is_jax_array(model: SemanticModel, node: ast.AST, scope: Scope, _seen: frozenset = frozenset()) -> bool:
    """True only when every way `node` can be computed yields a JAX array."""
    if isinstance(node, ast.Call):
        if is_jax_array_call(model, node):
            return True
        function = node.func
        if isinstance(function, ast.Attribute):
            owner = function.value
            if function.attr in _UPDATE_METHODS and isinstance(owner, ast.Subscript) and isinstance(owner.value, ast.Attribute) and owner.value.attr == "at":
                return is_jax_array(model, owner.value.value, scope, _seen)
            if function.attr in jaxapi.ARRAY_METHODS and function.attr not in ("nonzero", "get", "set", "add", "apply"):
                return is_jax_array(model, owner, scope, _seen)
        return False
    if isinstance(node, ast.Name):
        return _name_is_jax_array(model, node.id, scope, _seen)
    if isinstance(node, ast.BinOp):
        operands = (node.left, node.right)
        if any(isinstance(o, (ast.List, ast.Tuple, ast.ListComp, ast.JoinedStr, ast.Dict, ast.Set)) for o in operands):
            return False
        if any(isinstance(o, ast.Constant) and not isinstance(o.value, (int, float, complex)) for o in operands):
            return False
        return any(is_jax_array(model, o, scope, _seen) for o in operands)
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        return is_jax_array(model, node.operand, scope, _seen)
    if isinstance(node, ast.IfExp):
        return is_jax_array(model, node.body, scope, _seen) and is_jax_array(model, node.orelse, scope, _seen)
    if isinstance(node, ast.Attribute) and node.attr in ("T", "mT", "real", "imag"):
        return is_jax_array(model, node.value, scope, _seen)
    return False


def _name_is_jax_array(model: SemanticModel, name: str, scope: Scope, seen: frozenset) -> bool:
    if name in seen:
        return False
    seen = seen | {name}
    owner = scope
    while owner is not None and name not in owner.local_names:
        owner = owner.parent
    if owner is not None and name in owner.param_nodes:
        # A parameter is a JAX array only where tracing says so: annotated `jax.Array`, or a scalar default.
        if not (owner.in_traced and owner.traced_params.get(name) == ARRAY):
            return False
        values = parameter_rebindings(name, owner)
        return values is not None and all(is_jax_array(model, value, owner, seen) for value in values)
    found = bound_values(model, name, scope)
    if found is None:
        return False
    owner, values = found
    plain = [value for value in values if not isinstance(value, ast.AugAssign)]
    return bool(plain) and all(is_jax_array(model, value, owner, seen) for value in plain)


def parameter_rebindings(name: str, owner: Scope) -> list[ast.expr] | None:
    """Values a parameter is re-bound to in its function; None when a binding is not plain."""
    values = []
    for target, value in owner.bindings:
        if isinstance(target, ast.Name):
            if target.id == name and not isinstance(value, ast.AugAssign):
                if value is None:
                    return None
                values.append(value)
        elif name in _loop_names(target):
            return None
    if any(name in _loop_names(target) for target, _ in owner.loops):
        return None
    return values


def _loop_names(target: ast.AST) -> set[str]:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*(_loop_names(element) for element in target.elts)) if target.elts else set()
    if isinstance(target, ast.Starred):
        return _loop_names(target.value)
    return set()
