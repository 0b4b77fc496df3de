"""Whether an expression is known to be a JAX array (not a NumPy array, list, dict or pytree).

Used in and outside traced code: `x = jnp.zeros(3)` makes `x` a JAX array everywhere. Only what
the module shows counts; anything else is "cannot tell".
"""

from __future__ import annotations

import ast

from jaxlint.semantic import jaxapi
from jaxlint.semantic.bindings import attribute_values, bound_values
from jaxlint.semantic.model import ARRAY, Scope, SemanticModel
from jaxlint.semantic.syntax import walk  # ast.walk minus ctx markers, faster

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
        if is_jax_array_call(model, node) or _jitted_call_returns_array(model, node):
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
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self" and scope.has_self:
        return _instance_attribute_is_jax_array(model, node.attr, scope, _seen)
    return False


def _jitted_call_returns_array(model: SemanticModel, call: ast.Call) -> bool:
    """A call of a jitted function whose every `return` is an array (not a tuple, dict or pytree)."""
    binding = model.jit_binding_for_call(call)
    if binding is None or binding.transform != "jax.jit" or binding.function is None:
        return False
    function = binding.function
    returns = function.returns
    if not returns or len(returns) != sum(1 for n in walk(function.node) if isinstance(n, ast.Return)):
        return False  # a bare `return` (None) or one in a nested function we did not record
    return all(model.level(value, function) == ARRAY or is_jax_array(model, value, function) for value in returns)


def _instance_attribute_is_jax_array(model: SemanticModel, attribute: str, scope: Scope, seen: frozenset) -> bool:
    """`self.v` where every assignment to `self.v` in the class gives a JAX array (`self.v = jnp.zeros(n)`)."""
    key = f"self.{attribute}"
    if key in seen:
        return False
    seen = seen | {key}
    values = instance_attribute_values(model, attribute, scope)
    return bool(values) and all(is_jax_array(model, value, model.scope_for(value), seen) for value in values)


def instance_attribute_values(model: SemanticModel, attribute: str, scope: Scope | None) -> list[ast.expr] | None:
    """Every value assigned to `self.<attribute>` in the class of the method holding `scope`; None
    outside a method or where one binding is not a plain assignment."""
    owner = scope.enclosing_method() if scope is not None else None
    if owner is None:
        return None
    return attribute_values(model, owner.class_node, attribute)


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


_BOOLEAN_FUNCTIONS = frozenset({
    "logical_and", "logical_or", "logical_not", "logical_xor", "isnan", "isfinite", "isinf", "isneginf",
    "isposinf", "isclose", "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "isin",
    "signbit", "iscomplex", "isreal",
})
_BOOLEAN_DTYPES = frozenset({"builtins.bool", "jax.numpy.bool_", "jax.numpy.bool", "numpy.bool_", "numpy.bool"})


def is_traced_boolean(model: SemanticModel, node: ast.AST, scope: Scope, depth: int = 0) -> bool:
    """A traced array known to hold booleans: comparisons, logical ops, `isnan`, `.astype(bool)`, ..."""
    if depth > 4 or model.level(node, scope) == 0:
        return False
    if isinstance(node, ast.Compare):
        return not any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Invert):
        return is_traced_boolean(model, node.operand, scope, depth + 1)
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr, ast.BitXor)):
        return is_traced_boolean(model, node.left, scope, depth + 1) and is_traced_boolean(model, node.right, scope, depth + 1)
    if isinstance(node, ast.Call):
        qualified = model.qualified_name(node.func) or ""
        if qualified.startswith("jax.numpy.") and qualified[len("jax.numpy."):] in _BOOLEAN_FUNCTIONS:
            return True
        if isinstance(node.func, ast.Attribute) and node.func.attr == "astype" and len(node.args) == 1:
            return model.qualified_name(node.args[0]) in _BOOLEAN_DTYPES
        return False
    if isinstance(node, ast.Name):
        found = bound_values(model, node.id, scope)
        if found is None:
            return False
        owner, values = found
        return all(not isinstance(value, ast.AugAssign) and is_traced_boolean(model, value, owner, depth + 1) for value in values)
    return False


_HOST_TYPES = frozenset({
    "numpy.ndarray", "numpy.generic", "numpy.number", "numpy.floating", "numpy.integer", "builtins.int",
    "builtins.float", "builtins.bool", "builtins.complex", "builtins.str", "builtins.list", "builtins.tuple",
    "builtins.dict", "numbers.Number", "numbers.Real", "numbers.Integral",
})


def narrowed_to_host(model: SemanticModel, name: ast.Name) -> bool:
    """Inside `if isinstance(name, np.ndarray | int | ...):`, the value is a host value, not a tracer."""
    return any(in_body and all(t in _HOST_TYPES for t in types) for in_body, types in model.isinstance_tests(name))


def static_tree_map(model: SemanticModel, call: ast.Call, scope: Scope) -> bool:
    """`jax.tree.map(f, tree)` where `f` only yields static values (`jnp.shape`, `lambda x: x.shape`,
    a local def returning `x is None`): the result holds no tracers."""
    if model.qualified_name(call.func) not in jaxapi.TREE_MAPS or not call.args:
        return False
    function = call.args[0]
    if model.qualified_name(function) in jaxapi.STATIC_CALLS:
        return True
    if isinstance(function, ast.Lambda):
        body = function.body
        parts = body.elts if isinstance(body, ast.Tuple) else [body]
        return all(
            (isinstance(part, ast.Attribute) and part.attr in jaxapi.STATIC_ATTRIBUTES)
            or (isinstance(part, ast.Call) and model.qualified_name(part.func) in jaxapi.STATIC_CALLS)
            or (isinstance(part, ast.Compare) and all(isinstance(op, (ast.Is, ast.IsNot)) for op in part.ops))
            for part in parts
        )
    resolved = model.resolve_function(function, scope)
    if resolved is None or resolved[0] is None:
        return False
    callee = resolved[0]
    return callee.traced and callee.returns_traced == 0 and bool(callee.returns)
