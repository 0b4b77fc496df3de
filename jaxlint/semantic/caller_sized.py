"""State whose size only a caller decides: library code allocating arrays from the sizes or arrays its
caller hands in.

An evolution strategy's population `jnp.zeros((pop_size, num_params))`, a mean vector filled to a
length passed in, the optimizer state built over it: an object's state in a class of a library (a
module that is not a program: no `if __name__ == "__main__":`, no loop or runner call at module
level, and no call of the class in the module itself), as large as the arguments some caller
elsewhere passes to its constructor. (A function that loops over a local state of a size it is
handed is the program's own loop, and stays judged as before.) The source shows no size, and whether a second copy matters is
the caller's concern, so a cost claim (JAX401: peak memory holds both copies) would be a guess.

A value counts when everything it is built from is a parameter of the function that builds it (the
constructor, for an object's state), a literal, or a local name or attribute of the object built the
same way, through array allocation and arithmetic (`jax.numpy`, `numpy`, `jax.random`, builtins such
as `abs`), a local record class (`State(mean=mean, cov=jnp.eye(n))`), and the `init` of an optimizer
(optax, `jax.example_libraries.optimizers`) over such arrays. A network's `init`, a loaded checkpoint,
or any other call is not: a model's parameters are the state donation exists for, and their size is
not a number the caller merely passes.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.fixed_parameters import derived_from_itself as _derived_from_itself
from jaxlint.semantic.flow import dotted_name, target_elements
from jaxlint.semantic.syntax import parameter_defaults, walk

_DEPTH = 8
_ARRAY_MODULES = ("jax.numpy.", "numpy.", "jax.random.", "jax.lax.", "math.")
_BUILTINS = frozenset({
    "builtins.abs", "builtins.int", "builtins.float", "builtins.len", "builtins.max", "builtins.min",
    "builtins.round", "builtins.tuple", "builtins.list", "builtins.sum",
})
# Optimizer libraries whose constructors return settings (or an (init, update, get_params) triple)
# and whose `init` builds a state the size of the arrays it is given.
_OPTIMIZER_PREFIXES = ("optax.", "jax.example_libraries.optimizers.", "jax.experimental.optimizers.")


def sized_by_caller(key: str, update: ast.stmt, scope, model) -> bool:
    """Whether the object state `key` (`self.population`) that `update` rebinds is built,
    everywhere else it is bound, only from what callers hand in, in library code: see the module
    docstring."""
    if not key.startswith("self.") or not library_module(model):
        return False  # a function with its own loop over a local state is a program's loop, not a library object's state
    owner_function = _defining_function(scope)
    if owner_function is None or _called_in_module(owner_function, model):
        return False
    bound = _bindings(key, update, scope, model)
    if not any(not isinstance(value, ast.Constant) for value, _ in bound):
        return False  # only `state = None` before the loop: the update itself decides what it holds
    active: set = set()
    if not all(_from_caller(value, owner, model, 0, active) for value, owner in bound):
        return False
    # Some array is allocated from a size the caller passes (`zeros((population_size, dims))`): state
    # handed in whole (`def fit(state, batches)`) is the caller's own, judged where it is built.
    return _ALLOCATED in active


_ALLOCATED = ("allocated from a caller's size",)
_ALLOCATORS = frozenset({
    "zeros", "ones", "full", "empty", "eye", "identity", "normal", "uniform", "truncated_normal",
    "randint", "bernoulli", "choice", "permutation", "rand", "randn",
})


def library_module(model) -> bool:
    """No program runs here: no `if __name__ == "__main__":` block, no loop and no call at module level
    beyond definitions, imports, constant bindings and decorators."""
    found = model.__dict__.get("_jaxlint_library_module")
    if found is None:
        found = model._jaxlint_library_module = _library_module(model.tree)
    return found


def _library_module(tree: ast.Module) -> bool:
    for statement in tree.body:
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)):
            return False
        if isinstance(statement, ast.If):
            test = statement.test
            if isinstance(test, ast.Compare) and any(isinstance(part, ast.Constant) and part.value == "__main__" for part in test.comparators):
                return False
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Call):
            return False  # `main()`, `app.run(main)`: the module runs something when executed
    return True


def _defining_function(scope):
    """The class (for a method) or the module-level function that the caller calls."""
    current = scope
    while current is not None and current.parent is not None and current.parent.parent is not None and current.class_node is None:
        current = current.parent
    if current is None:
        return None
    if current.class_node is not None:
        return current.class_node
    return current.node if isinstance(current.node, (ast.FunctionDef, ast.AsyncFunctionDef)) else None


def _called_in_module(definition: ast.AST, model) -> bool:
    """The module itself calls the class or function (`Strategy(pop_size=64, ...)`): it shows its
    caller, and the sizes are judged from there."""
    return bool(model.calls_by_name().get(definition.name))


def _bindings(key: str, update: ast.stmt, scope, model) -> list[tuple[ast.AST, object]]:
    """(value, owning scope) of every binding of `key` other than `update` and than updates of the
    value itself (`self.state = self.state._replace(...)`); empty when one is unpacked or augmented."""
    if key.startswith("self."):
        from jaxlint.semantic.carried_state import _class_scopes

        scopes = _class_scopes(scope, model)
    elif "." in key:
        return []
    else:
        scopes = [scope]
    found = []
    for candidate in scopes:
        for target, value in candidate.bindings:
            if value is update or value is getattr(update, "value", None):
                continue
            names = {dotted_name(element) for element in target_elements(target)}
            if key not in names:
                continue
            if value is not None and _derived_from_itself(value, key, candidate):
                continue  # an update of the value itself (`self.state = self.state._replace(...)`, or through a temporary)
            if dotted_name(target) != key or value is None or isinstance(value, ast.AugAssign):
                return []
            if not candidate.is_function:
                return []
            found.append((value, candidate))
    return found


def _from_caller(value: ast.AST, scope, model, depth: int, active: set) -> bool:
    if depth > _DEPTH or value is None:
        return False
    if isinstance(value, ast.Constant):
        return True
    if isinstance(value, (ast.Tuple, ast.List, ast.Set)):
        return all(_from_caller(e, scope, model, depth, active) for e in value.elts)
    if isinstance(value, ast.Dict):
        return all(_from_caller(e, scope, model, depth, active) for e in value.values if e is not None)
    if isinstance(value, ast.Starred):
        return _from_caller(value.value, scope, model, depth, active)
    if isinstance(value, ast.BinOp):
        return _from_caller(value.left, scope, model, depth, active) and _from_caller(value.right, scope, model, depth, active)
    if isinstance(value, ast.UnaryOp):
        return _from_caller(value.operand, scope, model, depth, active)
    if isinstance(value, (ast.BoolOp, ast.Compare)):
        parts = value.values if isinstance(value, ast.BoolOp) else [value.left, *value.comparators]
        return all(_from_caller(part, scope, model, depth, active) for part in parts)
    if isinstance(value, ast.IfExp):
        return all(_from_caller(part, scope, model, depth, active) for part in (value.test, value.body, value.orelse))
    if isinstance(value, ast.Subscript):
        return _from_caller(value.value, scope, model, depth, active) and _from_caller(value.slice, scope, model, depth, active)
    if isinstance(value, ast.Slice):
        return all(part is None or _from_caller(part, scope, model, depth, active) for part in (value.lower, value.upper, value.step))
    if isinstance(value, ast.Name):
        return _name_from_caller(value.id, scope, model, depth, active)
    if isinstance(value, ast.Attribute):
        if (model.qualified_name(value) or "").startswith(_ARRAY_MODULES):
            return True  # `jnp.float32`, `np.pi`: a dtype or a constant of the library
        key = dotted_name(value)
        if key is not None and key.startswith("self.") and key.count(".") == 1:
            return _attribute_from_caller(key, scope, model, depth, active)
        # `x.shape`, `x.size`, `self.mean.T`: a property of a value built from the caller's.
        return _from_caller(value.value, scope, model, depth, active)
    if isinstance(value, ast.Call):
        return _call_from_caller(value, scope, model, depth, active)
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        # `{k: as_array(v) for k, v in saved.items()}`: the loop variables hold what the iterables hold.
        if not all(_from_caller(g.iter, scope, model, depth + 1, active) for g in value.generators):
            return False
        names = {("comprehension", n.id) for g in value.generators for n in walk(g.target) if isinstance(n, ast.Name)}
        fresh = names - active
        active |= fresh
        try:
            parts = [value.key, value.value] if isinstance(value, ast.DictComp) else [value.elt]
            return all(_from_caller(part, scope, model, depth + 1, active) for part in parts)
        finally:
            active -= fresh
    return False


def _name_from_caller(name: str, scope, model, depth: int, active: set) -> bool:
    if ("comprehension", name) in active:
        return True
    if name in scope.param_nodes:
        return name not in ("self", "cls")
    from jaxlint.semantic.bindings import bound_values

    found = bound_values(model, name, scope)
    if found is None:
        return False  # a module constant (`POPULATION = 64`) is the source's own size, not the caller's
    owner, values = found
    if not owner.is_function:
        return False  # a module constant (`POPULATION = 4096`) is the source's own size, not the caller's
    marker = (id(owner), name)
    if marker in active:
        return True  # `n = n + 1`: what else it holds decides
    active.add(marker)
    try:
        return bool(values) and all(
            _from_caller(getattr(v, "value", v) if isinstance(v, ast.AugAssign) else v, owner, model, depth + 1, active) for v in values
        )
    finally:
        active.discard(marker)


def _attribute_from_caller(key: str, scope, model, depth: int, active: set) -> bool:
    from jaxlint.semantic.carried_state import _class_scopes

    marker = ("attribute", key)
    if marker in active:
        return True
    active.add(marker)
    try:
        values = []
        for candidate in _class_scopes(scope, model):
            for target, value in candidate.bindings:
                if key not in {dotted_name(e) for e in target_elements(target)}:
                    continue
                if value is not None and _derived_from_itself(value, key, candidate):
                    continue  # an update of the attribute keeps what it was built from
                if dotted_name(target) != key or value is None:
                    return False
                values.append((getattr(value, "value", value) if isinstance(value, ast.AugAssign) else value, candidate))
        return bool(values) and all(_from_caller(v, owner, model, depth + 1, active) for v, owner in values)
    finally:
        active.discard(marker)


def _call_from_caller(call: ast.Call, scope, model, depth: int, active: set) -> bool:
    arguments = [*call.args, *(k.value for k in call.keywords)]
    func = call.func
    if isinstance(func, ast.Call) and model.qualified_name(func.func) == "jax.jit" and func.args:
        func = func.args[0]  # `jax.jit(opt_init)(x)`: the wrapped function builds the value
    qualified = model.qualified_name(func) or ""
    if qualified == "builtins.isinstance":
        return True  # a bool: a type test of the value
    if qualified.startswith(_ARRAY_MODULES) or qualified in _BUILTINS:
        if qualified.rsplit(".", 1)[-1] in _ALLOCATORS:
            sizes = [node.id for a in _shape_arguments(call, qualified) for node in walk(a) if isinstance(node, ast.Name) and model.qualified_name(node) is None]
            if any(_has_integer_default(size, scope) for size in sizes):
                return False  # `zeros((size, size))` with `size=4`: the source gives a size, judged from it
            if sizes:
                active.add(_ALLOCATED)  # a size read from a name (kept: `sized_by_caller` reads it after the walk)
        return all(_from_caller(a, scope, model, depth + 1, active) for a in arguments if not isinstance(a, ast.Lambda))
    if _optimizer_function(func, scope, model):
        return all(_from_caller(a, scope, model, depth + 1, active) for a in arguments)
    if isinstance(func, ast.Attribute) and func.attr in ("astype", "reshape", "copy", "_replace", "replace", "items", "values", "keys", "get"):
        return _from_caller(func.value, scope, model, depth + 1, active) and all(_from_caller(a, scope, model, depth + 1, active) for a in arguments)
    from jaxlint.semantic.carried_state import _local_record_class

    if _local_record_class(ast.Call(func=call.func, args=[], keywords=[]), model) is not None:
        return all(_from_caller(a, scope, model, depth + 1, active) for a in arguments)
    helper = _local_helper(call, scope, model)
    if helper is not None and depth < _DEPTH - 2:
        # `sigma = as_array(sigma)` with `def as_array(x): return jnp.asarray(x)`: what the helper returns
        # is built from its parameters alone, and the call passes what the caller handed in.
        returns = [helper.node] if isinstance(helper.node, ast.Lambda) else [
            node for node in walk(helper.node) if isinstance(node, ast.Return) and model.scope_for(node) is helper
        ]
        return bool(returns) and all(_from_caller(a, scope, model, depth + 1, active) for a in arguments) and all(
            _from_caller(r.body if isinstance(r, ast.Lambda) else r.value, helper, model, depth + 2, active) for r in returns
        )
    return False


def _local_helper(call: ast.Call, scope, model):
    if isinstance(call.func, ast.Name):
        from jaxlint.semantic.bindings import bound_values

        found = bound_values(model, call.func.id, scope)
        if found is not None and len(found[1]) == 1 and isinstance(found[1][0], ast.Lambda):
            return model.scope_of_node.get(found[1][0])  # `as_array = lambda x: jnp.array(x)`
    resolved = model.resolve_function(call.func, scope)
    if resolved is None or resolved[1] or resolved[2] or not isinstance(resolved[0].node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return None
    if model.jit_binding_for_call(call) is not None:
        return None  # compiled: what it computes from its arguments is opaque here, and traced
    return resolved[0]


def _shape_arguments(call: ast.Call, qualified: str) -> list[ast.expr]:
    """The arguments of an allocation that set its size (not a fill value or a dtype): the shape, after
    the key for `jax.random` samplers; both sizes of `eye(n, m)`."""
    keywords = [k.value for k in call.keywords if k.arg in ("shape", "size", "N", "M", "n")]
    if qualified.startswith("jax.random."):
        return call.args[1:2] + keywords
    if qualified.endswith((".eye", ".rand", ".randn")):
        return call.args + keywords
    return call.args[:1] + keywords


def _optimizer_function(func: ast.AST, scope, model) -> bool:
    """`tx.init`/`tx.update` of an optax transformation, or a function unpacked from
    `opt_init, opt_update, get_params = optimizers.adam(...)` (jitted or not): what it returns is the
    size of the arrays it is given."""
    if isinstance(func, ast.Attribute) and func.attr in ("init", "update"):
        holder = func.value
        if isinstance(holder, ast.Call):
            return _optimizer_constructor(holder, scope, model)
        if isinstance(holder, (ast.Name, ast.Attribute)):
            return _bound_to_optimizer(holder, scope, model, whole=True)
        return False
    if isinstance(func, (ast.Name, ast.Attribute)):
        return _bound_to_optimizer(func, scope, model, whole=False)
    return False


def _optimizer_constructor(call: ast.Call, scope, model) -> bool:
    """`optax.adam(lr)`, `optimizers.adam(lr)`, or a local function the optimizer library's own
    decorator turns into one (`@optimizers.optimizer def clipped(lr): ...`)."""
    if _qualified(call.func, model).startswith(_OPTIMIZER_PREFIXES):
        return True
    resolved = model.resolve_function(call.func, scope)
    if resolved is None or not isinstance(resolved[0].node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    return any(
        _qualified(d.func if isinstance(d, ast.Call) else d, model).startswith(_OPTIMIZER_PREFIXES)
        for d in resolved[0].node.decorator_list
    )


def _qualified(node: ast.AST, model) -> str:
    """The qualified name, also where the module imports one name from alternative places
    (`try: from jax.example_libraries import optimizers` / `except: from jax.experimental import
    optimizers`): the first of them, when every alternative names the same thing under a prefix list."""
    qualified = model.qualified_name(node)
    if qualified is not None:
        return qualified
    name = dotted_name(node)
    if name is None:
        return ""
    root, _, rest = name.partition(".")
    alternatives = _import_alternatives(model).get(root, ())
    return f"{alternatives[0]}.{rest}" if alternatives and rest else ""


def _import_alternatives(model) -> dict[str, tuple[str, ...]]:
    found = model.__dict__.get("_jaxlint_import_alternatives")
    if found is None:
        table: dict[str, list[str]] = {}
        for statement in walk(model.tree):
            if isinstance(statement, ast.ImportFrom) and statement.module and not statement.level:
                for alias in statement.names:
                    table.setdefault(alias.asname or alias.name, []).append(f"{statement.module}.{alias.name}")
        found = model._jaxlint_import_alternatives = {name: tuple(paths) for name, paths in table.items()}
    return found


def _bound_to_optimizer(node: ast.AST, scope, model, whole: bool, depth: int = 0) -> bool:
    """Every binding of the name (or attribute) is an optimizer library's constructor (`whole`), or an
    element of the tuple one returns (`opt_init, opt_update, get_params = optimizers.adam(lr)`), or
    the `jax.jit` of such an element."""
    key = dotted_name(node)
    if key is None:
        return False
    if key.startswith("self."):
        from jaxlint.semantic.carried_state import _class_scopes

        scopes = _class_scopes(scope, model)
    else:
        from jaxlint.semantic.bindings import owning_scope

        owner = owning_scope(model, key, scope)
        scopes = [] if owner is None else [owner]
    found = False
    for candidate in scopes:
        for target, value in candidate.bindings:
            elements = list(target.elts) if isinstance(target, (ast.Tuple, ast.List)) else [target]
            names = [dotted_name(e) for e in elements]
            if key not in names:
                continue
            unpacked = isinstance(target, (ast.Tuple, ast.List))
            if not isinstance(value, ast.Call):
                return False
            if (
                not whole and not unpacked and depth < 3 and model.qualified_name(value.func) == "jax.jit" and value.args
                and isinstance(value.args[0], (ast.Name, ast.Attribute))
            ):
                if not _bound_to_optimizer(value.args[0], candidate, model, whole=False, depth=depth + 1):
                    return False  # `self._update = jax.jit(opt_update)`
            elif unpacked == whole or not _optimizer_constructor(value, candidate, model):
                return False
            found = True
    return found


def _has_integer_default(name: str, scope) -> bool:
    function = scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return False
    default = parameter_defaults(function.args).get(name)
    return isinstance(default, ast.Constant) and type(default.value) is int
