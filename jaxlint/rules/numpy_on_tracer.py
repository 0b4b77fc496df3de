"""## What it does
Flags NumPy and `math` functions applied to traced values inside a traced function: `np.sin(x)`,
`np.asarray(x)`, `np.concatenate([x, y])`, `np.float32(x)`, `math.exp(x)`, and a NumPy array
indexed by a traced value (`table[i]` where `table = np.array(...)`). A function is traced where a
transform reaches it, also through a name the module binds more than once: the name means the
function whose binding stands when the transforming code runs (`g = partial(f, a=1)`, then `g = h`,
then a loop calling `@jax.jit def step(x): return jax.grad(g)(x)` traces `h`: semantic/cell_order.py).

Code inside a `try` that catches the error JAX raises here (`TypeError`, `Exception` or an error class
of `jax.errors`) probes on purpose and has a fallback: it is not flagged. Nor is a function whose every
compiled call sits in such a `try` (`@jax.jit def f` then `try: f(2) except
jax.errors.TracerBoolConversionError: ...`): a lesson that shows the error on purpose. Nor is the NumPy arm of a
backend switch: an `if`/`elif` chain on host values (`if backend == "numpy": ... elif backend ==
"jax": ...`) another arm of which computes with `jax`, while this one calls no `jax` function; the
traced run takes the `jax` arm.

## Why is this bad?
NumPy works on concrete host buffers. A tracer has none, so NumPy's conversion calls its
`__array__` and JAX raises `TracerArrayConversionError`; `math` functions call `__float__` and raise
`ConcretizationTypeError`. See
https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerArrayConversionError and
"Pure functions" / "🔪 NumPy vs jax.numpy" in
https://docs.jax.dev/en/latest/notebooks/Common_Gotchas_in_JAX.html.

NumPy on static values is fine and is not flagged: `np.prod(x.shape)`, `np.sqrt(x.shape[-1])`,
`np.zeros(3)` of a closure constant, and code outside traced functions. Reductions that NumPy
forwards to the array's own method (`np.sum(x)`, `np.mean(x)`, `np.max(x)`, `np.reshape(x, s)`,
`np.transpose(x)`, ...) happen to work on tracers and are not flagged either. Nor is NumPy applied to a
value whose type implements NumPy's dispatch protocols (`__array_ufunc__`, `__array_function__`): an
xarray `Variable`, `DataArray` or `Dataset`, an instance of a class defining them (or taking them from
`NDArrayOperatorsMixin`), the result of a function annotated to return one (`def Variable(dims, data)
-> xarray.Variable`, also in another module of the project), and arithmetic or indexing of such a
value. NumPy hands the call to the type, which computes with the data it holds (a wrapper of JAX
arrays stays in JAX under `jit` and `grad`), so no conversion the source shows raises
(semantic/array_protocols.py).

## Example
```python
@jax.jit
def features(x):
    return np.concatenate([np.sin(x), np.cos(x)])
```

## Use instead
```python
@jax.jit
def features(x):
    return jnp.concatenate([jnp.sin(x), jnp.cos(x)])
```

## Fix safety
The fix replaces the function with its `jax.numpy` counterpart (`math.*` with `jnp.*`, `math.erf`
and `math.lgamma` with `jax.scipy.special.erf`/`gammaln`) where JAX has it with the same signature
and the call uses only keywords both accept; a NumPy array indexed by a tracer becomes
`jnp.asarray(table)[i]`. It is safe: the original always raises under tracing, and the
replacement computes the same values (in JAX's default precision). `math.floor`/`ceil`/`trunc`
(Python ints versus float arrays), functions whose result has a data-dependent shape
(`np.nonzero`, `np.unique`, ...), calls with NumPy-only keywords such as `out=`, and a result bound
to a name the function then changes in place (`l = np.array(l)` then `l[i] = ...`: a `jax.numpy`
array is immutable), and a conversion made 64-bit on purpose (`np.float64(x)`, `dtype=np.int64`,
`np.array(x).astype(np.int64)`: without `jax_enable_x64` the `jax.numpy` spelling silently gives 32
bits) get no fix.

## How the runtime mode confirms it
It runs the function under `jax.jit` with the example inputs: the original raises
`TracerArrayConversionError` (or `ConcretizationTypeError`); the fixed version compiles and agrees
with the original run on NumPy inputs without `jit`.
"""

from __future__ import annotations

import ast

from jaxlint import fixes
from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic import array_protocols
from jaxlint.semantic.arrays import narrowed_to_host
from jaxlint.semantic.bindings import bound_values
from jaxlint.semantic.model import FUNCTION_NODES, TRACED, parent_of
from jaxlint.semantic.syntax import walk

# NumPy functions that convert their arguments with `__array__` (so raise on a tracer) and exist in
# jax.numpy with the same meaning, with the keywords both accept. Checked on numpy 2 and jax 0.10.2.
_SAME_IN_JNP = {
    name: frozenset(keywords.split())
    for name, keywords in {
        "abs": "", "absolute": "", "acos": "", "acosh": "", "angle": "deg", "arccos": "", "arccosh": "",
        "arcsin": "", "arcsinh": "", "arctan": "", "arctanh": "", "array": "dtype copy ndmin", "asarray": "dtype copy",
        "asin": "", "asinh": "", "atan": "", "atanh": "", "atleast_1d": "", "atleast_2d": "", "atleast_3d": "",
        "average": "axis weights returned keepdims", "bitwise_count": "", "bitwise_invert": "", "bitwise_not": "",
        "block": "", "broadcast_arrays": "", "cbrt": "", "ceil": "", "column_stack": "", "concat": "axis",
        "concatenate": "axis dtype", "conj": "", "conjugate": "", "copy": "", "corrcoef": "rowvar dtype",
        "cos": "", "cosh": "", "count_nonzero": "axis keepdims", "cov": "rowvar bias ddof fweights aweights dtype",
        "cumulative_prod": "axis dtype include_initial", "cumulative_sum": "axis dtype include_initial",
        "deg2rad": "", "degrees": "", "diag": "k", "diagflat": "k", "diagonal": "offset axis1 axis2",
        "diff": "n axis prepend append", "dstack": "", "ediff1d": "to_end to_begin", "empty_like": "dtype shape",
        "exp": "", "exp2": "", "expm1": "", "fabs": "", "fliplr": "", "flipud": "", "floor": "", "hstack": "dtype",
        "i0": "", "invert": "", "isfinite": "", "isinf": "", "isnan": "", "isneginf": "", "isposinf": "",
        "log": "", "log10": "", "log1p": "", "log2": "", "logical_not": "", "matrix_transpose": "",
        "median": "axis keepdims", "nan_to_num": "copy nan posinf neginf", "nanargmax": "axis keepdims",
        "nanargmin": "axis keepdims", "nancumprod": "axis dtype", "nancumsum": "axis dtype",
        "nanmax": "axis keepdims initial where", "nanmean": "axis dtype keepdims where",
        "nanmedian": "axis keepdims", "nanmin": "axis keepdims initial where",
        "nanprod": "axis dtype keepdims initial where", "nanstd": "axis dtype ddof keepdims where",
        "nansum": "axis dtype keepdims initial where", "nanvar": "axis dtype ddof keepdims where",
        "negative": "", "ones_like": "dtype shape", "polyder": "m", "polyint": "m k", "positive": "",
        "ptp": "axis keepdims", "rad2deg": "", "radians": "", "ravel": "", "reciprocal": "", "rint": "",
        "rot90": "k axes", "sign": "", "signbit": "", "sin": "", "sinc": "", "sinh": "", "sort": "axis stable",
        "sort_complex": "", "sqrt": "", "square": "", "stack": "axis dtype", "tan": "", "tanh": "",
        "trace": "offset axis1 axis2 dtype", "trapezoid": "x dx axis", "tril": "k", "triu": "k", "trunc": "",
        "unwrap": "discont axis period", "vander": "N increasing", "vstack": "dtype", "zeros_like": "dtype shape",
        "add": "", "append": "axis", "arctan2": "", "atan2": "", "bitwise_and": "", "bitwise_left_shift": "",
        "bitwise_or": "", "bitwise_right_shift": "", "bitwise_xor": "", "broadcast_to": "", "convolve": "mode",
        "copysign": "", "correlate": "mode", "cross": "axisa axisb axisc axis", "digitize": "right", "divide": "",
        "divmod": "", "dot": "", "einsum": "optimize", "equal": "", "expand_dims": "axis", "float_power": "",
        "floor_divide": "", "fmax": "", "fmin": "", "fmod": "", "full_like": "dtype shape", "gcd": "",
        "greater": "", "greater_equal": "", "heaviside": "", "hypot": "", "inner": "",
        "isclose": "rtol atol equal_nan", "isin": "assume_unique invert", "kron": "", "lcm": "", "ldexp": "",
        "left_shift": "", "less": "", "less_equal": "", "logaddexp": "", "logaddexp2": "", "logical_and": "",
        "logical_or": "", "logical_xor": "", "matmul": "", "matvec": "", "maximum": "", "minimum": "", "mod": "",
        "multiply": "", "nanpercentile": "axis method keepdims", "nanquantile": "axis method keepdims",
        "nextafter": "", "not_equal": "", "outer": "", "percentile": "axis method keepdims",
        "polyadd": "", "polymul": "", "polysub": "", "polyval": "", "pow": "", "power": "",
        "quantile": "axis method keepdims", "remainder": "", "right_shift": "", "roll": "shift axis",
        "select": "default", "subtract": "", "tensordot": "axes", "tile": "reps", "true_divide": "", "vdot": "",
        "vecdot": "axis", "vecmat": "", "interp": "left right period", "searchsorted": "side sorter",
        "frexp": "", "modf": "", "packbits": "axis bitorder", "unpackbits": "axis count bitorder",
        "float16": "", "float32": "", "float64": "", "int8": "", "int16": "", "int32": "", "int64": "",
        "uint8": "", "uint16": "", "uint32": "", "uint64": "", "bool_": "", "complex64": "", "complex128": "",
    }.items()
}
# NumPy functions that raise on a tracer but whose jax.numpy version needs a static `size=` under
# jit (JAX106) or differs: flagged, no fix.
_NO_JNP_FIX = frozenset({
    "argwhere", "flatnonzero", "nonzero", "unique", "unique_all", "unique_counts", "unique_inverse",
    "unique_values", "where", "bincount", "allclose", "array_equal", "pad", "histogram", "gradient",
    "linspace", "arange", "full", "meshgrid", "delete", "insert", "extract", "intersect1d", "union1d",
    "setdiff1d", "setxor1d", "trim_zeros", "roots", "array_split", "split", "array2string", "save", "savez",
})
# math function -> (jax replacement or None); all raise ConcretizationTypeError on a tracer.
_MATH = {
    "acos": "jax.numpy.arccos", "acosh": "jax.numpy.arccosh", "asin": "jax.numpy.arcsin",
    "asinh": "jax.numpy.arcsinh", "atan": "jax.numpy.arctan", "atanh": "jax.numpy.arctanh",
    "cbrt": "jax.numpy.cbrt", "cos": "jax.numpy.cos", "cosh": "jax.numpy.cosh", "degrees": "jax.numpy.degrees",
    "exp": "jax.numpy.exp", "exp2": "jax.numpy.exp2", "expm1": "jax.numpy.expm1", "fabs": "jax.numpy.fabs",
    "isfinite": "jax.numpy.isfinite", "isinf": "jax.numpy.isinf", "isnan": "jax.numpy.isnan",
    "log": "jax.numpy.log", "log10": "jax.numpy.log10", "log1p": "jax.numpy.log1p", "log2": "jax.numpy.log2",
    "radians": "jax.numpy.radians", "sin": "jax.numpy.sin", "sinh": "jax.numpy.sinh", "sqrt": "jax.numpy.sqrt",
    "tan": "jax.numpy.tan", "tanh": "jax.numpy.tanh", "erf": "jax.scipy.special.erf",
    "erfc": "jax.scipy.special.erfc", "lgamma": "jax.scipy.special.gammaln", "gamma": "jax.scipy.special.gamma",
    "atan2": "jax.numpy.arctan2", "hypot": "jax.numpy.hypot", "copysign": "jax.numpy.copysign",
    "pow": "jax.numpy.power", "fmod": "jax.numpy.fmod",
    "floor": None, "ceil": None, "trunc": None, "frexp": None, "modf": None, "ldexp": None, "factorial": None,
    "isclose": None, "fsum": None, "remainder": None,
}
# NumPy calls that build a host array; such a value indexed by a tracer raises.
_NUMPY_ARRAY_BUILDERS = frozenset({
    "array", "asarray", "arange", "zeros", "ones", "full", "empty", "linspace", "logspace", "eye", "identity",
    "stack", "concatenate", "load", "tril", "triu", "diag",
})


class NumpyOnTracer(Rule):
    code = "JAX103"
    name = "numpy-on-tracer"
    summary = "NumPy or `math` function applied to a traced value"
    raised_when_traced = ("TypeError",)
    node_types = (ast.Call, ast.Subscript)
    traced_code_only = True
    fix_availability = "sometimes"

    def check(self, node: ast.AST, context) -> None:
        if isinstance(node, ast.Subscript):
            self._check_indexing(node, context)
            return
        qualified = context.qualified_name(node.func)
        if qualified is None or not qualified.startswith(("numpy.", "math.")):
            return
        module, _, function = qualified.partition(".")
        if module == "numpy" and function not in _SAME_IN_JNP and function not in _NO_JNP_FIX:
            return
        if module == "math" and function not in _MATH:
            return
        if not context.is_traced_code(node):
            return
        scope = context.scope(node)
        traced = next((arg for arg in _arguments(node) if _traced(arg, scope, context)), None)
        if traced is None or _in_numpy_arm_of_backend_switch(node, scope, context):
            return
        replacement = _replacement(node, module, function)
        called = f"{'np' if module == 'numpy' else 'math'}.{function}"
        fix = None
        if replacement is not None and not _result_mutated(node, scope) and not _made_64_bit(node, function, context):
            name, import_edits = fixes.reference(context, replacement)
            if name:
                fix = context.fix(f"Use `{name}`", [context.replace(node.func, name), *import_edits], safe=True)
        error = "TracerArrayConversionError" if module == "numpy" else "ConcretizationTypeError"
        advice = f"use `{_display(replacement)}`" if replacement else "use the `jax.numpy` equivalent"
        context.report(
            node,
            f"`{called}` applied to traced value `{snippet(context.text(traced))}` in traced function `{scope.name}` "
            f"raises {error}; {advice}",
            fix=fix,
        )

    def _check_indexing(self, node: ast.Subscript, context) -> None:
        if not isinstance(node.ctx, ast.Load) or not isinstance(node.value, ast.Name):
            return
        indices = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
        if any(isinstance(index, ast.Slice) for index in indices):
            return  # traced slice bounds are JAX108's
        if not context.is_traced_code(node):
            return
        scope = context.scope(node)
        traced = next((index for index in indices if _traced(index, scope, context)), None)
        if traced is None or not _is_numpy_array(node.value, scope, context):
            return
        table = node.value.id
        fix = fixes.asarray_fix(context, node.value, f"Use `{{name}}({table})`")
        context.report(
            node,
            f"NumPy array `{table}` indexed by traced value `{snippet(context.text(traced))}` in traced function "
            f"`{scope.name}` raises TracerArrayConversionError; index `jnp.asarray({table})` instead",
            fix=fix,
        )


# ndarray methods that change the array in place: a `jax.numpy` result has none of them.
_IN_PLACE_METHODS = frozenset({"sort", "fill", "resize", "put", "itemset", "partition", "setfield", "setflags"})


def _result_mutated(call: ast.Call, scope) -> bool:
    """The call's result is bound to a name the function then changes in place (`l = np.array(l)`
    then `l[i] = ...`, `l[i] += ...`, `l.sort()`): a `jax.numpy` array is immutable, so the
    replacement would raise where the NumPy copy did not. No fix there."""
    statement = parent_of(call)
    if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
        return False
    name = statement.targets[0].id
    for node in walk(scope.node):
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, (ast.Store, ast.Del)):
            inner = node.value
            while isinstance(inner, ast.Subscript):
                inner = inner.value
            if isinstance(inner, ast.Name) and inner.id == name:
                return True
        elif (
            isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _IN_PLACE_METHODS
            and isinstance(node.func.value, ast.Name) and node.func.value.id == name
        ):
            return True
    return False


_SIXTY_FOUR_BIT = frozenset({"float64", "int64", "uint64", "complex128", "double", "longlong", "ulonglong", "cdouble"})


def _made_64_bit(call: ast.Call, function: str, context) -> bool:
    """The NumPy result is 64-bit on purpose: `np.float64(x)`, `np.array(x, dtype=np.int64)`,
    `np.array(x).astype(np.int64)` (a summed-area table that overflows int32). Without
    `jax_enable_x64` the `jax.numpy` spelling silently gives 32 bits, where the original failed loudly."""
    if function in _SIXTY_FOUR_BIT:
        return True
    dtypes = [keyword.value for keyword in call.keywords if keyword.arg == "dtype"]
    parent = parent_of(call)
    if isinstance(parent, ast.Attribute) and parent.attr == "astype" and isinstance(parent_of(parent), ast.Call):
        cast = parent_of(parent)
        dtypes += [*cast.args[:1], *(keyword.value for keyword in cast.keywords if keyword.arg == "dtype")]
    return any(_names_64_bit_dtype(dtype, context) for dtype in dtypes)


def _names_64_bit_dtype(dtype: ast.expr, context) -> bool:
    if isinstance(dtype, ast.Constant) and isinstance(dtype.value, str):
        return dtype.value in _SIXTY_FOUR_BIT or dtype.value in ("f8", "i8", "u8", "c16")
    qualified = context.qualified_name(dtype) or ""
    return qualified.rpartition(".")[2] in _SIXTY_FOUR_BIT and qualified.startswith(("numpy.", "jax.numpy."))


def _traced(node: ast.AST, scope, context) -> bool:
    if isinstance(node, ast.Name) and narrowed_to_host(context.model, node):
        return False
    if context.level(node, scope) < TRACED:
        return False
    # A value whose type takes over NumPy's functions (an xarray object, a wrapper class with
    # `__array_ufunc__`): NumPy converts nothing, the type computes (semantic/array_protocols.py).
    return not array_protocols.dispatches_numpy(node, scope, context.model)


def _in_numpy_arm_of_backend_switch(node: ast.AST, scope, context) -> bool:
    """`node` lies in an arm of an `if`/`elif` chain whose tests are host values, the arm calls no
    `jax` function, and another arm of the chain does: the chain picks a backend, and a traced run
    takes the `jax` arm."""
    child, parent = node, parent_of(node)
    while parent is not None and not isinstance(parent, FUNCTION_NODES):
        if isinstance(parent, ast.If) and child is not parent.test:
            top = parent
            while isinstance(parent_of(top), ast.If) and parent_of(top).orelse == [top]:
                top = parent_of(top)
            tests, arms = [], []
            link = top
            while True:
                tests.append(link.test)
                arms.append(link.body)
                if len(link.orelse) == 1 and isinstance(link.orelse[0], ast.If):
                    link = link.orelse[0]
                    continue
                if link.orelse:
                    arms.append(link.orelse)
                break
            own = next((arm for arm in arms if any(child is statement for statement in arm)), None)
            if (
                own is not None and len(arms) > 1
                and all(context.level(test, scope) < TRACED for test in tests)
                and not _calls_jax(own, context)
                and any(_calls_jax(arm, context) for arm in arms if arm is not own)
            ):
                return True
        child, parent = parent, parent_of(parent)
    return False


def _calls_jax(statements: list[ast.stmt], context) -> bool:
    return any(
        isinstance(node, ast.Call) and (context.qualified_name(node.func) or "").startswith("jax.")
        for statement in statements for node in walk(statement)
    )


def _arguments(call: ast.Call):
    for arg in call.args:
        yield arg.value if isinstance(arg, ast.Starred) else arg
    for keyword in call.keywords:
        if keyword.arg not in ("dtype", "axis", "out"):
            yield keyword.value


def _replacement(call: ast.Call, module: str, function: str) -> str | None:
    if module == "math":
        return _MATH.get(function)
    allowed = _SAME_IN_JNP.get(function)
    if allowed is None:
        return None
    if any(keyword.arg is None or keyword.arg not in allowed for keyword in call.keywords):
        return None
    return f"jax.numpy.{function}"


def _is_numpy_array(name: ast.Name, scope, context) -> bool:
    found = bound_values(context.model, name.id, scope)
    if found is None:
        return False
    _, values = found
    for value in values:
        if not isinstance(value, ast.Call):
            return False
        qualified = context.qualified_name(value.func) or ""
        if not (qualified.startswith("numpy.") and qualified[len("numpy."):] in _NUMPY_ARRAY_BUILDERS):
            return False
    return True


def _display(qualified: str) -> str:
    return qualified.replace("jax.numpy.", "jnp.").replace("jax.scipy.special.", "jax.scipy.special.")


RULE = NumpyOnTracer()
