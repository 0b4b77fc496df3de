"""## What it does
Flags a traced function that reads a NumPy or JAX array from an enclosing non-traced scope (module
level, or an outer function that is not traced) when the array's creation is visible and large, a
quarter of a million elements or more (a megabyte of float32): `np.zeros((512, 512))`,
`np.random.randn(10_000, 100)`, `jnp.arange(1_000_000)`, `np.load(...)`, or one entry of a loaded file (`jnp.array(data["x"])`
after `with np.load(path) as data:`), also when the name is then rescaled by arithmetic with numbers
(`x = x / 255 - 0.5`: the size stays).
It also flags a compiled traced function that reads the weights of a network from an enclosing
non-traced scope: the argument a network pass takes its parameters from (library data `weights`: the
variables of a linen `module.apply(params, x)`, also inside `{"params": params}`, the params of a Haiku
`net.apply(params, rng, x)`, the `params` of a Hugging Face Flax model's pass, `model(ids, params=p)`
or `model.encode(...)` after `FlaxXxx.from_pretrained(...)`), with `params` a parameter or a value of the enclosing function or module.
Every weight of the network becomes a constant of the program (slow to compile for a large network,
and compiled again for every other set of weights); where the enclosing code binds `params` again
after the function is built (a training loop after a `predict` defined on the initial weights),
stores into it, or another function rebinds it (`global`), the message adds that a later value is
not seen. Weights bound once before the function is built (trained, restored or handed in, then
frozen into an inference function) have no later value, and the message does not claim one.

Not flagged: a local function only differentiated outside any jit (`jax.grad(loss)(params)` in a
test: autodiff alone compiles no program), a `lax.scan`/`fori_loop`/`cond` body reading a JAX
array its enclosing function builds (the primitive takes it as an operand: an argument when the
function runs eagerly, a tracer when it is traced), scalars and small arrays, arrays whose size the linter cannot read, names bound more
than once (but for rescaling by arithmetic with numbers, `x = x / 255`, which keeps the size), reads of static properties only (`TABLE.shape`, `len(TABLE)`), and values computed inside
the traced function. Small means measured to cost nothing: `benchmarks/captured_constant.py` compiles
the same function with the array closed over and passed as an argument; up to 65,536 float32
elements the two compile equally fast on the CPU (jax 0.10.2) and on an H200 (jax 0.11.2), from about
a megabyte the constant costs (2.3x the compile time on the CPU at a million elements, 7x on the GPU
and 33x on the CPU at 16 million). For a network's weights: a network the source shows to be under 4096 parameters,
a function the outermost trace around which is `lax` control flow run by non-traced code (the
primitive takes the weights as an operand, also for a loss differentiated inside a scan body) or an
abstract trace (`jax.eval_shape`: nothing compiles), and `vmap` or `grad` run outside `jit`.

Test code is not flagged (a `test*` function, a `Test*` class, a test module): a test runs once on
small dummy inputs, so the cost this rule reports reaches no one; every rule whose finding is a cost
or the quality of computed values follows this one policy (semantic/test_code.py).

## Why is this bad?
A closed-over array is not an argument: tracing bakes its value into the program as a constant. A
large constant is copied into the HLO, makes compilation slow and memory-hungry, is duplicated in
every compiled variant, and changing the array later does not change the compiled function. See
"Static vs traced operations" and the notes on closures in
https://docs.jax.dev/en/latest/jit-compilation.html, and jax-ml/jax issues #10596 (a closed-over
8000-element array took over 10 s to compile on a GPU in 2022; current JAX no longer shows that at
such sizes, see the measurement above) and #10585
("don't lexically capture values, instead pass them as parameters").

## Example
```python
TABLE = np.random.randn(4096, 256)

@jax.jit
def embed(ids):
    return jnp.take(TABLE, ids, axis=0)
```

## Use instead
```python
TABLE = jnp.asarray(np.random.randn(4096, 256))

@jax.jit
def embed(table, ids):
    return jnp.take(table, ids, axis=0)

embed(TABLE, ids)
```

## Fix safety
No fix: turning the constant into an argument changes the function's signature and every call site.

## How the runtime mode confirms it
It lowers the function with the example inputs and reports the bytes of constants in the HLO and
the compile time, against a version that takes the array as an argument.
"""

from __future__ import annotations

import ast
import math

from jaxlint.rules.base import Rule
from jaxlint.semantic import flow, jaxapi
from jaxlint.semantic.model import parent_of

# Measured by benchmarks/captured_constant.py (results/captured_constant_{cpu,h200}.txt): a closed-over
# array of 65,536 float32 elements or fewer compiles as fast as an argument on the CPU (jax 0.10.2)
# and on an H200 (jax 0.11.2); from about a megabyte the constant starts to cost (2.3x on the CPU,
# 1.1-1.3x on the GPU, growing with size: 7-33x at 16 million elements).
MIN_ELEMENTS = 262_144
# A network's weights closed over are also stale (a later value is not seen): a smaller bar.
MIN_NETWORK_PARAMETERS = 4096
_SHAPE_FIRST = frozenset({"zeros", "ones", "empty", "full"})
_LOADERS = frozenset({"numpy.load", "numpy.loadtxt", "numpy.genfromtxt", "numpy.fromfile", "jax.numpy.load"})
_ARRAY_CONVERSIONS = frozenset({"numpy.array", "numpy.asarray", "jax.numpy.array", "jax.numpy.asarray"})
_ARRAY_MODULES = ("numpy.", "jax.numpy.")
_CHAIN_METHODS = frozenset({"reshape", "astype", "T", "copy", "ravel", "flatten", "transpose"})
# Per-module memo keys (see `Context.memo`).
_CALL_BOUND_NAMES = ("JAX305", "call_bound_names")
_DECLARED_FREE_NAMES = ("JAX305", "declared_free_names")


class CapturedLargeConstant(Rule):
    code = "JAX305"
    name = "captured-large-constant"
    summary = "Traced function closes over a large array, embedded as a constant"
    skips_test_code = True
    node_types = (ast.Name,)
    traced_code_only = True
    fix_availability = "none"

    def check(self, node: ast.Name, context) -> None:
        if node.ctx.__class__ is not ast.Load:
            return
        weights_of = _weights_argument_of(node)
        # Only a name some scope binds to a call can hold a visibly created array, and only the
        # argument of a call can be a network's weights: most reads stop here.
        if weights_of is None and node.id not in context.memo(_CALL_BOUND_NAMES, _call_bound_names, context.model):
            return
        if not context.is_traced_code(node):
            return
        scope = context.scope(node)
        if _differentiated_eagerly_only(scope, context):
            return
        owner = _owner(node.id, scope)
        if owner is None or owner is scope or owner.in_traced:
            return
        if _static_use(node, context):
            return
        if weights_of is not None and self._network_weights(node, weights_of, scope, owner, context):
            return
        if node.id not in context.memo(_CALL_BOUND_NAMES, _call_bound_names, context.model):
            return
        creation = _single_creation(node.id, owner, context)
        if creation is None:
            return
        if _lax_operand(scope, owner, creation, context):
            return
        described = _large_array(creation, context) or _loaded_entry(creation, owner, context)
        if described is None:
            return
        if not _first_use(node, scope, context):
            return
        where = "module level" if owner.parent is None else f"`{owner.name}`"
        context.report(
            node,
            f"traced function `{scope.name}` closes over `{node.id}` ({described}, created at {where}): it is embedded "
            f"in the compiled program as a constant; pass it as an argument",
        )


    def _network_weights(self, node: ast.Name, call: ast.Call, scope, owner, context) -> bool:
        """Report `node` when it is the weights argument of a network pass (library data `weights`:
        `module.apply(params, x)`, `net.apply({"params": params}, x)`) in a compiled traced function
        that reads it from an enclosing non-traced scope; True when reported."""
        from jaxlint.semantic import carried_state, library_models

        entry = library_models.call_model(context.model, call)
        if entry is None or not entry.weights or not any(
            argument is node or (isinstance(argument, ast.Dict) and any(value is node for value in argument.values))
            for argument in entry.weight_arguments(call)
        ):
            return False
        model = context.model
        if model.runs_concretely(scope) or model.runs_uncompiled(scope) or _captured_as_operand(scope, owner):
            return False  # no program embeds it: op-by-op autodiff or vmap, an abstract trace, or a lax operand
        elements = _bound_elements(node.id, owner, model, carried_state)
        if elements is not None and elements < MIN_NETWORK_PARAMETERS:
            return False  # a network the source shows to be tiny
        if not _first_use(node, scope, context):
            return True
        where = "module level" if owner.parent is None else f"`{owner.name}`"
        # Weights bound once before the function is built (a trained or pretrained network frozen on
        # purpose) have no later value to miss: then the cost is the constants alone.
        cost = (
            f"slow to compile, and a later `{node.id}` is not seen" if _rebound_after(node.id, owner, scope)
            else "slow to compile for a large network, and compiled again for every other set of weights"
        )
        context.report(
            node,
            f"traced function `{scope.name}` closes over `{node.id}` (from {where}), the weights of the network that "
            f"`{context.text(call.func)}` runs: tracing embeds every parameter in the compiled program as a constant "
            f"({cost}); pass it as an argument",
        )
        return True


def _rebound_after(name: str, owner, scope) -> bool:
    """Whether the closed-over `name` can hold a later value than the one the traced function sees:
    its owner binds it again (or stores into it, `params["w"] = ...`) after the start of the function
    that closes over it (`predict` defined, then `params = update(params)` in the training loop), or
    another function rebinds it (`global params`). Weights bound once, before the function is built
    (after training, from the trained state), are final: the closure is the latest value by design."""
    from jaxlint.semantic.syntax import walk

    closure = scope
    while closure.parent is not None and closure.parent is not owner:
        closure = closure.parent
    start = (getattr(closure.node, "lineno", 0), getattr(closure.node, "col_offset", 0))
    if owner.parent is None and any(name in other.declared_free for other in owner.children):
        return True
    for target in [t for t, _ in owner.bindings] + [t for t, _ in owner.loops]:
        for store in walk(target):
            stored = store.id if isinstance(store, ast.Name) else None
            if stored is None and isinstance(store, (ast.Subscript, ast.Attribute)) and isinstance(store.ctx, ast.Store):
                root = store.value
                while isinstance(root, (ast.Subscript, ast.Attribute)):
                    root = root.value
                stored = root.id if isinstance(root, ast.Name) else None
            if stored == name and (store.lineno, store.col_offset) > start:
                return True
    return False


def _weights_argument_of(node: ast.Name) -> ast.Call | None:
    """The call `node` is passed to as a whole argument or as a value of a dict display argument
    (`apply(params, x)`, `apply({"params": params}, x)`): a candidate network pass."""
    parent = parent_of(node)
    if isinstance(parent, ast.Dict) and node in parent.values:
        parent = parent_of(parent)
        if isinstance(parent, ast.keyword):
            parent = parent_of(parent)
    elif isinstance(parent, ast.keyword):
        parent = parent_of(parent)
    return parent if isinstance(parent, ast.Call) and isinstance(parent.func, (ast.Attribute, ast.Name)) else None


def _bound_elements(name: str, owner, model, carried_state) -> int | None:
    """Elements of what the owner binds `name` to, when it binds it once and the source fixes the size."""
    if name in owner.param_nodes:
        return None
    values = [value for target, value in owner.bindings if name in flow.target_names(target)]
    if len(values) != 1 or not isinstance(values[0], ast.AST):
        return None
    return carried_state.element_count(values[0], owner, model)


def _captured_as_operand(scope, owner, depth: int = 0) -> bool:
    """Whether every trace that first sees the owner's value leaves it out of a compiled program: the
    outermost traced function around `scope` is traced from non-traced code only by `lax` control flow
    (`lax.scan(step, ...)` run by the owner: the primitive takes what its body closes over as an
    operand, see `_lax_operand`) or only abstractly (`jax.eval_shape`: nothing compiles). A function
    traced inside another trace (a loss differentiated in a scan body) is decided by that trace."""
    sites = [*scope.trace_sites, *scope.helper_callers]
    if not sites or depth > 8:
        return False
    for site in sites:
        if site is None:
            return False
        if site is owner or not site.in_traced:
            transforms = scope.transforms - {"helper"}
            if not transforms or not (transforms <= _LAX_CONTROL_FLOW or transforms <= jaxapi.ABSTRACT_ONLY):
                return False
            continue
        outer = site
        while outer is not None and not outer.traced:
            outer = outer.parent
        if outer is None or outer is scope or not _captured_as_operand(outer, owner, depth + 1):
            return False
    return True


# lax control flow hoists what its bodies close over into operands of the primitive (`num_consts`).
_LAX_CONTROL_FLOW = frozenset({*jaxapi.LAX_BODIES, *jaxapi.LAX_BRANCH_LISTS})


def _lax_operand(scope, owner, creation: ast.Call, context) -> bool:
    """A body only `lax.scan`/`fori_loop`/`cond`/... of the function that builds the JAX array traces:
    the primitive takes the closed-over array as an operand, not as a constant of the body. Called
    eagerly it is an argument of the compiled primitive; traced, the array is itself a tracer."""
    if not scope.transforms or not scope.transforms <= _LAX_CONTROL_FLOW or owner.parent is None:
        return False
    if not scope.trace_sites or any(site is not owner for site in scope.trace_sites):
        return False
    return (context.qualified_name(creation.func) or "").startswith("jax.numpy.")


def _differentiated_eagerly_only(scope, context) -> bool:
    """A local function whose every use is `jax.grad(f)(...)` (or another differentiating transform,
    called at once) outside jit: autodiff alone runs it op by op and compiles no program. A
    module-level function may be called inside jit from anywhere, so it never qualifies."""
    model = context.model
    parent = scope.parent
    if not model.runs_concretely(scope) or parent is None or not parent.is_function or not isinstance(scope.node, ast.FunctionDef):
        return False
    uses = 0
    for node in flow.walk_same_scope(parent.node):
        if isinstance(node, ast.Name) and node.id == scope.name and isinstance(node.ctx, ast.Load):
            transform = parent_of(node)
            if not (
                isinstance(transform, ast.Call) and transform.args and transform.args[0] is node
                and model.transform_of(transform.func) in jaxapi.DIFFERENTIATING
                and isinstance(parent_of(transform), ast.Call) and parent_of(transform).func is transform
            ):
                return False
            uses += 1
    return uses > 0


def _call_bound_names(model) -> frozenset[str]:
    """Names bound somewhere in the module by `name = <call>`: the only ones `_single_creation` accepts."""
    return frozenset(
        target.id
        for scope in model.scopes
        for target, value in scope.bindings
        if isinstance(target, ast.Name) and isinstance(value, ast.Call)
    )


def _owner(name: str, scope):
    current = scope
    while current is not None:
        if name in current.local_names and name not in current.declared_free:
            return current
        current = current.parent
    return None


def _static_use(node: ast.Name, context) -> bool:
    parent = parent_of(node)
    if isinstance(parent, ast.Attribute) and parent.attr in jaxapi.STATIC_ATTRIBUTES:
        return True
    if isinstance(parent, ast.Call) and node in parent.args:
        return context.qualified_name(parent.func) in jaxapi.STATIC_CALLS
    return False


def _single_creation(name: str, owner, context) -> ast.Call | None:
    values = []
    for target, value in owner.bindings:
        if name in flow.target_names(target):
            if not isinstance(target, ast.Name):
                return None
            values.append(value)
    for target, _ in owner.loops:
        if name in flow.target_names(target):
            return None
    if len(values) > 1:
        # `x = 1.275 * x / 255 - 0.1` after the creation: elementwise arithmetic with numbers keeps
        # the array's size, so the one other binding still says what the array is.
        values = [value for value in values if not _rescaled_self(value, name)]
    if name in owner.param_nodes or len(values) != 1 or not isinstance(values[0], ast.Call):
        return None
    if name in context.memo(_DECLARED_FREE_NAMES, _declared_free_names, context.model):
        return None
    return values[0]


def _rescaled_self(value: ast.expr | None, name: str) -> bool:
    """`a * name / b - c`: arithmetic of `name` itself with numbers only."""
    found = False
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.BinOp):
            stack += [node.left, node.right]
        elif isinstance(node, ast.UnaryOp):
            stack.append(node.operand)
        elif isinstance(node, ast.Name) and node.id == name:
            found = True
        elif not (isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)):
            return False
    return found


def _loaded_entry(call: ast.Call, owner, context) -> str | None:
    """`jnp.array(data["x_train"])` where `data` is what a file loader returned (`with np.load(path) as
    data:` or `data = np.load(path)` in the same scope): one array of a dataset read from disk."""
    if context.qualified_name(call.func) not in _ARRAY_CONVERSIONS or len(call.args) != 1:
        return None
    entry = call.args[0]
    if not (isinstance(entry, ast.Subscript) and isinstance(entry.value, ast.Name)):
        return None
    holder = entry.value.id
    sources = [value for target, value in owner.bindings if isinstance(target, ast.Name) and target.id == holder]
    if len(sources) != 1:
        return None
    source = sources[0]
    if source is None:  # `with loader(...) as holder:` (the model records no value for it)
        source = next(
            (item.context_expr for item in flow.walk_same_scope(owner.node) if isinstance(item, ast.withitem)
             and isinstance(item.optional_vars, ast.Name) and item.optional_vars.id == holder),
            None,
        )
    if isinstance(source, ast.Call) and context.qualified_name(source.func) in _LOADERS:
        return "an array loaded from a file"
    return None


def _declared_free_names(model) -> frozenset[str]:
    """Every name a `global` or `nonlocal` statement names anywhere in the module (the model records
    each such statement's names in the scope that holds it)."""
    return frozenset(name for scope in model.scopes for name in scope.declared_free)


def _large_array(call: ast.Call, context) -> str | None:
    """'a 512x512 NumPy array' when the call visibly builds one of at least MIN_ELEMENTS elements."""
    while isinstance(call.func, ast.Attribute) and call.func.attr in _CHAIN_METHODS and isinstance(call.func.value, ast.Call) and context.qualified_name(call.func) is None:
        call = call.func.value
    qualified = context.qualified_name(call.func) or ""
    if qualified in _LOADERS:
        return "an array loaded from a file"
    if not qualified.startswith(_ARRAY_MODULES + ("jax.random.",)):
        return None
    kind = "JAX array" if qualified.startswith("jax.") else "NumPy array"
    function = qualified.rsplit(".", 1)[-1]
    count = None
    if qualified.startswith(("numpy.random.",)):
        if function in ("rand", "randn"):
            count = _product(call.args)
        else:
            size = _keyword(call, "size")
            count = _shape_count(size) if size is not None else None
    elif qualified.startswith("jax.random."):
        shape = _keyword(call, "shape") or (call.args[1] if len(call.args) > 1 else None)
        count = _shape_count(shape) if shape is not None else None
    elif function in _SHAPE_FIRST and call.args:
        count = _shape_count(call.args[0])
    elif function in ("eye", "identity") and call.args:
        side = _int(call.args[0])
        count = side * side if side is not None else None
    elif function == "arange" and call.args and not call.keywords:
        ints = [_int(a) for a in call.args]
        if None not in ints:
            count = len(range(*ints)) if len(ints) < 3 or ints[2] else None
    elif function == "linspace" and len(call.args) >= 3:
        count = _int(call.args[2])
    elif function in ("array", "asarray") and call.args:
        count = _literal_count(call.args[0])
    if count is None or count < MIN_ELEMENTS:
        return None
    return f"a {kind} of {count} elements"


def _keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in call.keywords if k.arg == name), None)


def _int(node: ast.expr) -> int | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return None


def _product(nodes) -> int | None:
    values = [_int(n) for n in nodes]
    if not values or None in values:
        return None
    return math.prod(values)


def _shape_count(shape: ast.expr) -> int | None:
    if isinstance(shape, (ast.Tuple, ast.List)):
        return _product(shape.elts)
    return _int(shape)


def _literal_count(node: ast.expr) -> int | None:
    if isinstance(node, (ast.List, ast.Tuple)):
        total = 0
        for element in node.elts:
            inner = _literal_count(element)
            if inner is None:
                return None
            total += inner
        return total
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, complex, bool)):
        return 1
    if isinstance(node, ast.UnaryOp) and isinstance(node.operand, ast.Constant):
        return 1
    return None


def _first_use(node: ast.Name, scope, context) -> bool:
    uses = [
        n for n in flow.walk_same_scope(scope.node)
        if isinstance(n, ast.Name) and n.id == node.id and isinstance(n.ctx, ast.Load) and not _static_use(n, context)
    ]
    uses.sort(key=lambda n: (n.lineno, n.col_offset))
    return bool(uses) and uses[0] is node


RULE = CapturedLargeConstant()
