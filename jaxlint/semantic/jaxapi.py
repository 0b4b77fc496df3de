"""What the semantic model knows about JAX's API: transforms, static views, host syncs.

Qualified names are canonical (see imports.CANONICAL).
"""

from __future__ import annotations

# Transforms that trace every non-static argument of the function they wrap. (Not `jax.named_call`:
# it only names the function's operations, and runs it as it is; checked in tests/test_jax_behaviour.py.)
JIT_LIKE = frozenset({
    "jax.jit", "jax.pmap", "jax.checkpoint", "jax.custom_jvp", "jax.custom_vjp",
    "jax.shard_map", "jax.experimental.maps.xmap",
    "jax.make_jaxpr", "jax.eval_shape", "jax.linearize", "jax.vjp", "jax.jvp",
    "flax.nnx.jit", "flax.nnx.pmap", "flax.nnx.shard_map", "flax.nnx.remat",
    "jax.experimental.checkify.checkify",
})
# Calls that run their first argument on the host, with concrete values, every time the traced code runs.
HOST_CALLBACKS = frozenset({
    "jax.debug.callback", "jax.pure_callback", "jax.experimental.io_callback", "jax.experimental.pure_callback",
    "jax.experimental.host_callback.call", "jax.experimental.host_callback.id_tap", "jax.experimental.host_callback.id_print",
})
# Calls in a compiled program that call back to the host (`jax.debug.print` is a debug callback too):
# such a program returns from its call only when it has finished (semantic/timed_work.py).
CALLING_BACK = HOST_CALLBACKS | {"jax.debug.print"}
# Transforms that produce a jitted callable whose calls run compiled code on the device.
COMPILING = frozenset({"jax.jit", "jax.pmap", "flax.nnx.jit", "flax.nnx.pmap", "equinox.filter_jit", "equinox.filter_pmap"})
VMAP_LIKE = frozenset({"jax.vmap", "flax.nnx.vmap"})
# Transforms that differentiate with respect to `argnums` (default 0). Optax's
# `value_and_grad_from_state(f)` is one (argument 0): called as `(params, state=opt_state)`, it returns
# the value and gradient a line search left in the state, or runs `jax.value_and_grad(f)` under a
# `lax.cond` (optax/_src/utils.py).
GRAD_LIKE = frozenset({
    "jax.grad", "jax.value_and_grad", "jax.jacfwd", "jax.jacrev", "jax.hessian",
    "flax.nnx.grad", "flax.nnx.value_and_grad", "optax.value_and_grad_from_state",
})
# Equinox's filtered transforms treat non-array arguments as static: only annotated arrays are known traced.
FILTERED = frozenset({"equinox.filter_jit", "equinox.filter_vmap", "equinox.filter_pmap"})
FILTERED_GRAD = frozenset({"equinox.filter_grad", "equinox.filter_value_and_grad"})
# Transforms whose transformed function, called, returns JAX arrays whatever the function's own code
# returns (its outputs are traced), eagerly or compiled: `jax.value_and_grad(f)(p, b)`, `jax.vmap(f)(xs)`.
ARRAY_RESULT_TRANSFORMS = COMPILING | VMAP_LIKE | GRAD_LIKE | FILTERED_GRAD
# Of those, the ones that run their function op by op when called outside jit: a function they decorate
# (`@jax.value_and_grad`, `@partial(jax.grad, has_aux=True)`, `@eqx.filter_value_and_grad`, `@jax.vmap`)
# returns device arrays when called, eagerly; a compiled one is a jit binding of its own (jit_bindings).
EAGER_ARRAY_DECORATORS = VMAP_LIKE | GRAD_LIKE | FILTERED_GRAD | frozenset({"equinox.filter_vmap"})
DIFFERENTIATING = GRAD_LIKE | FILTERED_GRAD | frozenset({"jax.vjp", "jax.linearize"})
# Transforms that, called outside jit, trace their function but run it op by op (no compiled
# program); "helper" marks a function traced because traced code calls it (compiled if that code is).
EAGER_TRACING = VMAP_LIKE | DIFFERENTIATING | frozenset({"jax.jvp", "equinox.filter_vmap", "helper"})
# Framework base classes whose instances JAX cannot flatten (not pytrees): a Flax Linen `Module`
# ("Modules in Linen aren't pytrees", google/flax#853): passed to `jax.jit` it raises "not a valid JAX type".
NOT_PYTREE_BASES = frozenset({"flax.linen.Module", "flax.linen.module.Module"})
# Transforms that trace their function to shapes or a jaxpr only: nothing is compiled or run.
ABSTRACT_ONLY = frozenset({"jax.eval_shape", "jax.make_jaxpr", "equinox.filter_eval_shape"})

# lax loops: where the body function is passed, (position, keyword). The body runs once per step,
# and outside `jit` JAX caches the loop's trace on the body's identity.
LAX_LOOP_BODY = {
    "jax.lax.scan": (0, "f"),
    "jax.lax.fori_loop": (2, "body_fun"),
    "jax.lax.while_loop": (1, "body_fun"),
}

# lax control flow: positions of the function arguments whose bodies are traced.
LAX_BODIES = {
    "jax.lax.scan": (0,),
    "jax.lax.fori_loop": (2,),
    "jax.lax.while_loop": (0, 1),
    "jax.lax.cond": (1, 2),
    "jax.lax.map": (0,),
    "jax.lax.associative_scan": (0,),
    "jax.lax.custom_root": (0, 2, 3),
    "jax.lax.reduce": (2,),
}
# The keyword each of those positions may be passed by (`fori_loop(lower=0, upper=n, body_fun=step,
# init_val=state)`): the function is traced all the same.
LAX_BODY_KEYWORDS = {
    "jax.lax.scan": {0: "f"},
    "jax.lax.fori_loop": {2: "body_fun"},
    "jax.lax.while_loop": {0: "cond_fun", 1: "body_fun"},
    "jax.lax.cond": {1: "true_fun", 2: "false_fun"},
    "jax.lax.map": {0: "f"},
    "jax.lax.associative_scan": {0: "fn"},
    "jax.lax.custom_root": {0: "f", 2: "solve", 3: "tangent_solve"},
    "jax.lax.reduce": {2: "computation"},
}
LAX_BRANCH_LISTS = {"jax.lax.switch": 1}
# Calls that run a loop on the device within one compiled call: the `lax` loops, and the iterative
# solvers of `jax.scipy` (each a `lax.while_loop` over matrix-vector products or line searches).
DEVICE_LOOPS = frozenset({
    "jax.lax.scan", "jax.lax.fori_loop", "jax.lax.while_loop", "jax.lax.map", "jax.lax.custom_root",
    "jax.scipy.sparse.linalg.cg", "jax.scipy.sparse.linalg.gmres", "jax.scipy.sparse.linalg.bicgstab",
    "jax.scipy.optimize.minimize",
    # Flax NNX's loops lift the `lax` ones over module state: one call runs the whole loop on the device.
    "flax.nnx.scan", "flax.nnx.fori_loop", "flax.nnx.while_loop",
})
# Of those, the iterative solvers: one solve is a loop on the device, but one that computes a quantity
# inside a step (a direction, a fixed point), whatever the steps around it are (training_loops).
ITERATIVE_SOLVERS = frozenset({
    "jax.lax.custom_root", "jax.scipy.sparse.linalg.cg", "jax.scipy.sparse.linalg.gmres",
    "jax.scipy.sparse.linalg.bicgstab", "jax.scipy.optimize.minimize",
})
# Transforms that take the gradient of a scalar loss: a program that calls one descends a loss, one
# optimizer step per call.
LOSS_GRADIENTS = frozenset({
    "jax.grad", "jax.value_and_grad", "flax.nnx.grad", "flax.nnx.value_and_grad", "optax.value_and_grad_from_state",
}) | FILTERED_GRAD
# Calls that apply their first argument to the leaves of the remaining (tree) arguments.
TREE_MAPS = frozenset({
    "jax.tree_util.tree_map", "jax.tree.map", "jax.tree_map",
    "jax.tree_util.tree_map_with_path", "jax.tree.map_with_path",
})
# The multi-tree maps jax removed in 0.3.16 (`tree_map` took over): code written for older jax still
# calls them, and each runs its function once per leaf as `tree_map` does.
TREE_MAPS_REMOVED = frozenset({"jax.tree_multimap", "jax.tree_util.tree_multimap"})

# Clocks read to time code on the host, whatever name they are imported under (`from time import
# process_time`): the wall clock, the monotonic and performance counters, and the CPU-time clocks of the
# process and the thread, in seconds or nanoseconds, and `timeit`'s default timer (`perf_counter`).
# Each returns at once: it neither waits for the device nor dispatches work to it.
CLOCKS = frozenset({
    "time.time", "time.perf_counter", "time.monotonic", "time.process_time", "time.thread_time",
    "time.time_ns", "time.perf_counter_ns", "time.monotonic_ns", "time.process_time_ns", "time.thread_time_ns",
    "timeit.default_timer",
})
# Wall-clock dates: `end - start` of two is a `timedelta`, the interval between them (JAX202 times it
# as it times `time.time()`; nothing else reads them as clocks).
DATE_CLOCKS = frozenset({"datetime.datetime.now", "datetime.datetime.utcnow", "datetime.datetime.today"})

# Results of these are known at trace time even when their argument is traced.
STATIC_ATTRIBUTES = frozenset({"shape", "ndim", "dtype", "size", "itemsize", "nbytes", "weak_type", "sharding", "aval", "device", "devices"})
STATIC_CALLS = frozenset({
    "builtins.len", "builtins.isinstance", "builtins.issubclass", "builtins.hasattr", "builtins.type",
    "builtins.callable", "builtins.id", "builtins.str", "builtins.repr", "builtins.range",
    "builtins.print", "builtins.getattr", "builtins.format",
    "jax.numpy.shape", "jax.numpy.ndim", "jax.numpy.size", "jax.numpy.result_type", "jax.numpy.dtype",
    "jax.numpy.issubdtype", "jax.numpy.iinfo", "jax.numpy.finfo", "jax.numpy.isdtype", "jax.numpy.isscalar",
    "jax.numpy.can_cast", "jax.numpy.promote_types", "jax.numpy.iscomplexobj", "jax.numpy.isrealobj",
    "jax.dtypes.result_type", "jax.dtypes.issubdtype",
    "jax.dtypes.canonicalize_dtype", "numpy.shape", "numpy.ndim", "numpy.size", "numpy.dtype",
    "numpy.issubdtype", "numpy.prod", "math.prod", "jax.core.get_aval", "jax.typeof", "jax.lax.axis_size",
    "jax.tree_util.tree_structure", "jax.tree.structure", "jax.tree_util.tree_leaves", "jax.tree.leaves",
})
# Modules whose functions compute on the host: called in traced code, what they return is no tracer
# (NumPy and `math` of a tracer raise; the standard library handles Python values).
HOST_MODULES = (
    "numpy.", "math.", "builtins.", "time.", "os.", "sys.", "logging.", "random.", "re.", "json.", "pickle.",
    "string.", "typing.", "functools.", "itertools.", "collections.", "operator.", "warnings.", "inspect.",
    "enum.", "abc.", "pathlib.", "datetime.", "dataclasses.", "scipy.", "pandas.", "torch.", "tensorflow.",
)
# Calls that return descriptions of arrays, not arrays: shapes and dtypes (`jax.eval_shape`, `einops.parse_shape`).
HOST_RESULT_CALLS = frozenset({"jax.eval_shape", "jax.ShapeDtypeStruct", "jax.typeof", "equinox.filter_eval_shape", "einops.parse_shape"})
# Calls returning (leaves, treedef): the leaves are the tree's arrays, the treedef a static description.
TREE_FLATTENING = frozenset({
    "jax.tree_util.tree_flatten", "jax.tree.flatten", "jax.tree_util.tree_flatten_with_path", "jax.tree.flatten_with_path",
})
HOST_SCALAR_CALLS = frozenset({"builtins.float", "builtins.int", "builtins.complex", "builtins.bool", "operator.index"})
# Namespaces whose functions return arrays computed from their array arguments.
ARRAY_NAMESPACES = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.", "jax.random.", "jax.image.", "jax.ops.", "jax.experimental.pallas.")
# Calls whose result is a Python list or tuple of arrays with a length fixed at trace time (checked on
# jax 0.10.2: `jnp.split(x, 2)` is a list, `jnp.nonzero(x)` a tuple of `ndim` arrays, `jnp.linalg.eigh`
# a named tuple): iterating over it unrolls a static number of items, not the rows of an array.
ARRAY_SEQUENCE_CALLS = frozenset({
    "jax.numpy.split", "jax.numpy.array_split", "jax.numpy.hsplit", "jax.numpy.vsplit", "jax.numpy.dsplit",
    "jax.numpy.unstack", "jax.numpy.meshgrid", "jax.numpy.broadcast_arrays", "jax.numpy.nonzero", "jax.numpy.divmod",
    "jax.numpy.frexp", "jax.numpy.modf", "jax.numpy.unravel_index", "jax.numpy.tril_indices", "jax.numpy.triu_indices",
    "jax.numpy.diag_indices", "jax.numpy.linalg.eigh", "jax.numpy.linalg.svd", "jax.numpy.linalg.qr",
    "jax.numpy.linalg.slogdet", "jax.numpy.linalg.eig",
})
CONTAINER_RESULT_CALLS = frozenset({
    "jax.lax.scan", "jax.lax.fori_loop", "jax.lax.while_loop", "jax.lax.cond", "jax.lax.switch",
    "jax.lax.map", "jax.lax.associative_scan",
} | TREE_MAPS | ARRAY_SEQUENCE_CALLS)
ARRAY_METHODS = frozenset({
    "sum", "mean", "max", "min", "prod", "std", "var", "any", "all", "argmax", "argmin", "cumsum",
    "cumprod", "astype", "reshape", "transpose", "swapaxes", "squeeze", "ravel", "flatten", "clip",
    "round", "dot", "conj", "conjugate", "sort", "argsort", "take", "repeat", "nonzero", "set", "add",
    "multiply", "divide", "power", "get", "apply", "view", "trace", "diagonal", "real", "imag",
})
HOST_METHODS = frozenset({"item", "tolist"})
ARRAY_ANNOTATIONS = ("jax.Array", "jax.numpy.ndarray", "jax.numpy.array", "numpy.ndarray", "jaxtyping.Array", "jaxtyping.Float", "jaxtyping.Int", "jaxtyping.Bool", "jaxtyping.Shaped", "jaxtyping.Num", "jaxtyping.Real", "jaxtyping.Inexact", "jaxtyping.Integer", "jaxtyping.Complex", "chex.Array")

# Library types implementing NumPy's dispatch protocols (`__array_ufunc__`, `__array_function__`):
# xarray's data structures apply NumPy's functions to the data they hold (semantic/array_protocols.py).
NUMPY_DISPATCHING_TYPES = frozenset({"xarray.Variable", "xarray.DataArray", "xarray.Dataset"})
