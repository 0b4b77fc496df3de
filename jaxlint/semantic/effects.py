"""Function effects: what a function of the project does to its arguments, for its call sites.

A summary per function or method, read from its body once: the parameters it draws PRNG keys from
(`def make_state(rng): return model.init(rng, x)` consumes `rng`), and the parameters whose device
values it reads on the host (`def to_host(m): return {k: float(v) for k, v in m.items()}` syncs `m`).
A call site then knows that `make_state(key)` consumes `key` and that `to_host(metrics)` waits for
`metrics`, as if the body were written there. What counts as a consumption or a sync comes from the
library models (library_models/) and the calls that need a host value (`float`, `.item()`).

Functions of this module are summarised from the semantic model (cached per model); functions of
other project modules from their syntax alone, in project.py's light summaries (`summarise_effects`),
so that both read the same facts. Callees are followed a few calls deep inside one module.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from jaxlint.semantic import library_models
from jaxlint.semantic.syntax import child_nodes

# Named like a key (as key_values.py reads names): only such parameters are asked about.
_KEY_NAME = re.compile(r"(^|_)(rng|key|prng)s?\d*$|^(rng|key|subkey|prng)", re.IGNORECASE)
# Methods that draw from a first argument known to be a key, on objects the models do not know
# (`net.init(rng, x)` of a model built elsewhere): the same reading as key_values.KEY_METHODS.
_KEY_METHODS = frozenset({"init", "init_with_output", "reset", "sample"})
# Calls that read their argument's value on the host.
_HOST_READS = frozenset({"builtins.float", "builtins.int", "builtins.bool", "numpy.asarray", "numpy.array", "jax.device_get"})
_HOST_METHODS = frozenset({"item", "tolist"})
# Iterating these over a parameter visits its parts: `for k, v in m.items()`, `jax.tree.leaves(m)`.
_PART_METHODS = frozenset({"items", "values"})
_PART_CALLS = frozenset({"jax.tree.leaves", "jax.tree_util.tree_leaves"})
_MAX_DEPTH = 2
_SHORT_HELPER_LINES = 12


def named_like_key(name: str) -> bool:
    return bool(_KEY_NAME.search(name))


@dataclass(frozen=True)
class Effects:
    """Positional parameters (self excluded) by position; `consumed_names`: the names of the consumed
    ones, so that a call passing the key by keyword (`denoise(x, rng=rng)`) is read the same way."""

    consumed_keys: frozenset[int] = frozenset()
    synced: frozenset[int] = frozenset()
    consumed_names: frozenset[str] = frozenset()

    def consumed_arguments(self, call: ast.Call) -> list[ast.expr]:
        """The argument expressions of `call` that land on consumed parameters."""
        found = [call.args[i] for i in sorted(self.consumed_keys) if i < len(call.args)]
        found += [keyword.value for keyword in call.keywords if keyword.arg in self.consumed_names]
        return found

    def __bool__(self) -> bool:
        return bool(self.consumed_keys or self.synced)


NONE = Effects()


# ----- reading a body ---------------------------------------------------------------------------


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """Nodes of a function body, not of the functions and classes defined in it (lambdas and
    comprehensions included: they run when the body runs), in no particular order."""
    nodes = [statement for statement in function.body if not isinstance(statement, _NESTED)]
    for current in nodes:  # the list grows while it is read
        nodes.extend(child for child in child_nodes(current) if child.__class__ not in _NESTED)
    return nodes


def _positional(function: ast.AST, has_self: bool) -> list[str]:
    names = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    return names[1:] if has_self and names else names


def body_effects(function: ast.AST, has_self: bool, qualified_name, call_consumes, call_effects=None) -> Effects:
    """The effects of `function` on its positional parameters.

    qualified_name(node): the qualified name of a callee; call_consumes(call): the key arguments the
    library models say a call draws from; call_effects(call): the effects of a callee of this module
    (followed by the caller), or None.

    A key counts as consumed where a call draws from the parameter before anything rebinds it
    (`rng, sub = split(rng)` draws from the caller's key). A value counts as synced only where the
    read runs on every call: not under an `if`, a conditional expression, `and`/`or`, an `except`
    handler or a `while`, and not in a function that may return early (`if not verbose: return`)."""
    params = _positional(function, has_self)
    if not params or isinstance(function, ast.Lambda):
        return NONE
    nodes = _own_nodes(function)
    if not _may_have_effects(nodes, params, call_effects is not None) or any(n.__class__ in (ast.Yield, ast.YieldFrom) for n in nodes):
        return NONE  # (a generator's body runs when it is iterated, not at the call)
    position = {name: index for index, name in enumerate(params)}
    first_rebound = _first_rebindings(nodes)
    key_params = {name for name in params if _KEY_NAME.search(name)}
    stable = {name for name in params if name not in first_rebound}
    parts = _parts_of_params(nodes, stable, qualified_name) if stable else {}
    returns_early = _returns_early(function, nodes)
    consumed: set[int] = set()
    synced: set[int] = set()
    for node, conditional in _nodes_with_condition(function):
        if not isinstance(node, ast.Call):
            continue
        if key_params:
            for argument in _consumed_here(node, qualified_name, call_consumes, call_effects):
                if isinstance(argument, ast.Name) and argument.id in key_params:
                    rebound_at = first_rebound.get(argument.id)
                    if rebound_at is None or argument.lineno <= rebound_at:
                        consumed.add(position[argument.id])
        if conditional or returns_early or not stable:
            continue
        read = _host_read_argument(node, qualified_name)
        if read is not None:
            root = _root_param(read, stable, parts)
            if root is not None:
                synced.add(position[root])
        elif call_effects is not None:
            inner = call_effects(node)
            if inner is not None and inner.synced:
                for index in inner.synced:
                    if index < len(node.args):
                        root = _root_param(node.args[index], stable, parts)
                        if root is not None:
                            synced.add(position[root])
    consumed_names = frozenset(params[i] for i in consumed)
    return Effects(frozenset(consumed), frozenset(synced), consumed_names) if consumed or synced else NONE


_HOST_READ_NAMES = frozenset({"float", "int", "bool", "asarray", "array", "device_get"})


def _may_have_effects(nodes: list[ast.AST], params: list[str], follows_callees: bool) -> bool:
    """One cheap pass before the full reading: a call that reads a value on the host, or one handed a
    parameter named like a key (or, where callees are followed, handed any parameter)."""
    key_params = {name for name in params if _KEY_NAME.search(name)}
    names = set(params)
    for node in nodes:
        if node.__class__ is not ast.Call:
            continue
        callee = node.func
        attribute = callee.attr if callee.__class__ is ast.Attribute else None
        if attribute in _HOST_METHODS or attribute in _HOST_READ_NAMES or (callee.__class__ is ast.Name and callee.id in _HOST_READ_NAMES):
            return True
        for argument in node.args:
            if argument.__class__ is ast.Name and (argument.id in key_params or (follows_callees and argument.id in names)):
                return True
        for keyword in node.keywords:  # `dist.sample(seed=key)`, `denoise(x, rng=rng)`
            argument = keyword.value
            if argument.__class__ is ast.Name and (argument.id in key_params or (follows_callees and argument.id in names)):
                return True
    return False


def unconditional_calls(function: ast.AST) -> list[ast.Call]:
    """The calls of a function body (not of functions nested in it) that run on every call: not under
    a condition, a loop test, `and`/`or` or an `except` handler, in a function that cannot return early."""
    nodes = _own_nodes(function)
    if _returns_early(function, nodes):
        return []
    return [node for node, conditional in _nodes_with_condition(function) if not conditional and node.__class__ is ast.Call]


def _nodes_with_condition(function: ast.AST):
    """(node, whether it runs only under a condition) for the body's own nodes."""
    stack = [(statement, False) for statement in reversed(function.body)]
    while stack:
        node, conditional = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        yield node, conditional
        children = []
        if isinstance(node, (ast.If, ast.IfExp, ast.While)):
            children = [(node.test, conditional)]
            body = node.body if isinstance(node.body, list) else [node.body]
            orelse = node.orelse if isinstance(node.orelse, list) else [node.orelse]
            children += [(child, True) for child in (*body, *orelse)]
        elif isinstance(node, ast.BoolOp):
            children = [(node.values[0], conditional)] + [(value, True) for value in node.values[1:]]
        elif isinstance(node, ast.ExceptHandler):
            children = [(child, True) for child in child_nodes(node)]
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            # The element runs only for items that pass the filters.
            filtered = any(g.ifs for g in node.generators)
            children = [(child, conditional or (filtered and child in (getattr(node, "elt", None), getattr(node, "key", None), getattr(node, "value", None))))
                        for child in child_nodes(node)]
        else:
            children = [(child, conditional) for child in child_nodes(node)]
        stack.extend(reversed(children))


def _returns_early(function: ast.AST, nodes: list[ast.AST]) -> bool:
    body = function.body
    for node in nodes:
        if isinstance(node, (ast.Return, ast.Raise, ast.Break, ast.Continue)) and not (isinstance(node, ast.Return) and body and node is body[-1]):
            return True
    return False


def _first_rebindings(nodes: list[ast.AST]) -> dict[str, int]:
    """name -> the first line that assigns it in the body (a parameter rebound there holds another value after)."""
    lines: dict[str, int] = {}
    for node in nodes:
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.For, ast.AsyncFor, ast.NamedExpr, ast.withitem)):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None) or getattr(node, "optional_vars", None)]
            for target in targets:
                if target is None:
                    continue
                for name in ast.walk(target):
                    if isinstance(name, ast.Name):
                        line = getattr(node, "lineno", None) or name.lineno
                        lines[name.id] = min(lines.get(name.id, line), line)
    return lines


def _consumed_here(call: ast.Call, qualified_name, call_consumes, call_effects) -> list[ast.expr]:
    found = list(call_consumes(call))
    function = call.func
    if not found and isinstance(function, ast.Attribute) and function.attr in _KEY_METHODS and call.args and qualified_name(function) is None:
        found.append(call.args[0])
    if not found:
        found.extend(seed_keyword_keys(call, qualified_name))
    if call_effects is not None:
        inner = call_effects(call)
        if inner is not None:
            found.extend(inner.consumed_arguments(call))
    return found


# A method of an object the models do not know that takes its key as `seed=` draws from it: the
# distribution objects of distrax and TensorFlow Probability (`dist.sample(seed=key)`,
# `dist.sample_and_log_prob(seed=key, sample_shape=n)`).
_SEED_KEYWORDS = frozenset({"seed"})


def seed_keyword_keys(call: ast.Call, qualified_name) -> list[ast.expr]:
    """`dist.sample(seed=key)`: the key a method of an unmodelled object draws from (names like keys only;
    `seed=0` is an integer seed, not a key)."""
    function = call.func
    if not isinstance(function, ast.Attribute) or qualified_name(function) is not None:
        return []
    return [
        keyword.value for keyword in call.keywords
        if keyword.arg in _SEED_KEYWORDS and isinstance(keyword.value, ast.Name) and named_like_key(keyword.value.id)
    ]


def _parts_of_params(nodes: list[ast.AST], params: set[str], qualified_name) -> dict[str, str]:
    """Comprehension and loop variables that iterate over a parameter's parts: variable -> parameter."""
    parts: dict[str, str] = {}
    for node in nodes:
        generators = []
        if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            generators = [(g.target, g.iter) for g in node.generators]
        elif isinstance(node, (ast.For, ast.AsyncFor)):
            generators = [(node.target, node.iter)]
        for target, iterated in generators:
            root = _iterated_param(iterated, params, qualified_name)
            if root is None:
                continue
            for name in ast.walk(target):
                if isinstance(name, ast.Name):
                    parts[name.id] = root
    return parts


def _iterated_param(iterated: ast.AST, params: set[str], qualified_name) -> str | None:
    if isinstance(iterated, ast.Name) and iterated.id in params:
        return iterated.id
    if isinstance(iterated, ast.Call):
        function = iterated.func
        if isinstance(function, ast.Attribute) and function.attr in _PART_METHODS and isinstance(function.value, ast.Name) and function.value.id in params:
            return function.value.id
        if qualified_name(function) in _PART_CALLS and iterated.args and isinstance(iterated.args[0], ast.Name) and iterated.args[0].id in params:
            return iterated.args[0].id
    return None


def _host_read_argument(call: ast.Call, qualified_name) -> ast.expr | None:
    """The value a call reads on the host: `float(x)`, `np.asarray(x)`, `x.item()`."""
    function = call.func
    if isinstance(function, ast.Attribute) and function.attr in _HOST_METHODS and not call.args:
        return function.value
    if len(call.args) == 1 and not call.keywords and qualified_name(function) in _HOST_READS:
        return call.args[0]
    return None


def _root_param(value: ast.AST, params: set[str], parts: dict[str, str]) -> str | None:
    """The parameter a value is (part of): `m`, `m["loss"]`, `m.loss`, a variable iterating `m`."""
    while isinstance(value, (ast.Subscript, ast.Attribute)):
        if isinstance(value, ast.Attribute) and value.attr in ("shape", "ndim", "dtype", "size"):
            return None
        value = value.value
    if isinstance(value, ast.Name):
        if value.id in params:
            return value.id
        return parts.get(value.id)
    return None


# ----- this module's functions, from the semantic model ---------------------------------------------


def function_effects(model, scope) -> Effects:
    """The effects of a function of this module (a host function: traced code neither syncs nor
    consumes keys the host reuses)."""
    cache = model.__dict__.setdefault("_function_effects", {})
    key = id(scope.node)
    if key in cache:
        return cache[key]
    cache[key] = NONE  # recursion: none while being worked out
    found = NONE
    if scope.is_function and not isinstance(scope.node, ast.Lambda) and not scope.in_traced:
        depth = model.__dict__.get("_function_effects_depth", 0)
        if depth <= _MAX_DEPTH:
            model.__dict__["_function_effects_depth"] = depth + 1
            try:
                found = body_effects(
                    scope.node, scope.has_self, model.qualified_name,
                    lambda call: _library_key_arguments(model, call, scope),
                    lambda call: _local_callee_effects(model, call, scope),
                )
            finally:
                model.__dict__["_function_effects_depth"] = depth
    cache[key] = found
    return found


def _compiled_callee_key_effects(model, call: ast.Call) -> Effects | None:
    """The keys a call of a compiled function of this module consumes (`step = jax.jit(f)`,
    `jax.pmap(partial(f, lr=lr))`, `@jax.jit def f`): a draw inside the compiled program from a key
    parameter draws from the caller's key, so the same key passed on every call gives the same
    numbers. Syncs are not carried over (traced code does not read values on the host)."""
    binding = model.jit_binding_for_call(call)
    if binding is None or binding.function is None or binding.bound_positional or binding.key == "<inline>":
        return None
    function = binding.function
    if not function.is_function or isinstance(function.node, ast.Lambda):
        return None
    cache = model.__dict__.setdefault("_compiled_key_effects", {})
    key = id(function.node)
    if key not in cache:
        cache[key] = NONE  # recursion: none while being worked out
        found = body_effects(function.node, function.has_self, model.qualified_name,
                             lambda inner: _library_key_arguments(model, inner, function))
        cache[key] = Effects(found.consumed_keys, frozenset(), found.consumed_names) if found.consumed_keys else NONE
    return cache[key]


def _library_key_arguments(model, call: ast.Call, scope) -> list[ast.expr]:
    found = library_models.call_model(model, call, scope)
    return found.key_arguments(call) if found is not None and found.consumes_key else []


def _local_callee_effects(model, call: ast.Call, scope) -> Effects | None:
    resolved = model.resolve_function(call.func, scope)
    if resolved is None or resolved[0] is None or resolved[1] or resolved[2]:
        return None  # (a `partial` binding shifts positions: not followed)
    if resolved[0].in_traced:
        return _compiled_callee_key_effects(model, call) or NONE  # `@jax.jit def f`: keys only
    return function_effects(model, resolved[0])


def call_effects(model, call: ast.Call, scope) -> Effects:
    """The effects of the function a call runs: a function or method of this module, or of another
    project module (its summary); positions are those of the call's own arguments."""
    cache = model.__dict__.setdefault("_call_effects", {})
    key = id(call)
    if key not in cache:
        cache[key] = _call_effects(model, call, scope)
    return cache[key]


def _call_effects(model, call: ast.Call, scope) -> Effects:
    if any(isinstance(a, ast.Starred) for a in call.args):
        return NONE
    local = _local_callee_effects(model, call, scope)
    if local is not None:
        return local
    compiled = _compiled_callee_key_effects(model, call)
    if compiled is not None:
        return compiled
    function = call.func
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id not in ("self", "cls"):
        owner = model.instance_class(function.value)
        if isinstance(owner, ast.ClassDef):
            method = model.class_methods.get(owner, {}).get(function.attr)
            return function_effects(model, method) if method is not None else NONE
        if owner is not None:
            summary = owner.methods.get(function.attr)
            return _summary_effects(summary)
    if isinstance(function, ast.Name):
        local_class = _local_class(model, function)
        if local_class is not None:
            return _local_constructor_effects(model, local_class)
    project = getattr(model, "project", None)
    if project is not None:
        qualified = model.qualified_name(function)
        if qualified is not None and "." in qualified and not qualified.startswith(_LIBRARY_PREFIXES):
            summary = project.function(qualified)
            if summary is not None:
                return _summary_effects(summary)
            found = project.resolve(qualified)
            if found is not None and found[1] in found[0].classes:
                return _summary_effects(_project_initialiser(project, found[0], found[1]))
    return NONE


# ----- constructors: `Net(key, sizes)` runs `__init__` (its own or a base's) on its arguments --------------


def _local_class(model, name: ast.Name) -> ast.ClassDef | None:
    """The class of this module a name refers to, where the module binds the name only to it."""
    found = [c for c in model.class_methods if c.name == name.id and model.scope_for(c) is model.module_scope]
    return found[0] if len(found) == 1 and name.id not in model.module_scope.defs else None


def _local_constructor_effects(model, class_node: ast.ClassDef, depth: int = 0) -> Effects:
    initialiser = model.class_methods.get(class_node, {}).get("__init__")
    if initialiser is not None:
        return function_effects(model, initialiser)
    if depth < _MAX_DEPTH:
        for base in class_node.bases:
            if isinstance(base, ast.Name):
                local = _local_class(model, base)
                if local is not None:
                    return _local_constructor_effects(model, local, depth + 1)
    return NONE


def _project_initialiser(project, module, name: str, depth: int = 0):
    """The `__init__` summary a class of another project module runs: its own, else the first base's
    that has one (bases of the same module or imported from the project)."""
    summary = module.classes[name]
    if "__init__" in summary.methods:
        return summary.methods["__init__"]
    if depth >= _MAX_DEPTH:
        return None
    for local in summary.local_bases:
        if local in module.classes:
            found = _project_initialiser(project, module, local, depth + 1)
            if found is not None:
                return found
    for base in summary.bases:
        if base.startswith(_LIBRARY_PREFIXES):
            continue
        resolved = project.resolve(base)
        if resolved is not None and resolved[1] in resolved[0].classes:
            found = _project_initialiser(project, resolved[0], resolved[1], depth + 1)
            if found is not None:
                return found
    return None


_LIBRARY_PREFIXES = ("jax.", "numpy.", "builtins.", "flax.", "equinox.", "optax.", "haiku.", "chex.", "orbax.")


def _summary_effects(summary) -> Effects:
    if summary is None:
        return NONE
    consumed = getattr(summary, "consumed_key_params", ())
    synced = getattr(summary, "synced_params", ())
    if not consumed and not synced:
        return NONE
    params = summary.params
    return Effects(
        frozenset(params.index(name) for name in consumed if name in params),
        frozenset(params.index(name) for name in synced if name in params),
        frozenset(consumed),
    )


def consumed_key_arguments(model, call: ast.Call, scope) -> list[ast.expr]:
    """The argument expressions a call draws keys from, by the library models (`jax.random` included)
    and the effects of project functions."""
    found = _library_key_arguments(model, call, scope)
    effects = call_effects(model, call, scope)
    if effects.consumed_keys:
        found = [*found, *effects.consumed_arguments(call)]
    return found


def synced_arguments(model, call: ast.Call, scope) -> list[ast.expr]:
    """The argument expressions a call of a project function reads on the host (`to_host(metrics)`)."""
    effects = call_effects(model, call, scope)
    return [call.args[i] for i in sorted(effects.synced) if i < len(call.args)]


# ----- other modules' functions, from syntax (project.py) ---------------------------------------------


def summarise_effects(function: ast.AST, has_self: bool, light) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(parameters consumed as keys, parameters synced) of a function of another module, read with
    only that module's imports (`light`). Callees are not followed there."""
    if isinstance(function, ast.Lambda):
        return (), ()
    # Summaries are built for every function of an imported module, most of which no call asks
    # about: read only functions with a parameter named like a key, or short ones (a helper that
    # converts a result for the host is a few lines; reading every long body cost a tenth of a check).
    params = _positional(function, has_self)
    short = (getattr(function, "end_lineno", None) or function.lineno) - function.lineno <= _SHORT_HELPER_LINES
    if not params or not (short or any(_KEY_NAME.search(name) for name in params)):
        return (), ()
    library = library_models.models()

    def consumes(call: ast.Call) -> list[ast.expr]:
        qualified = light.qualified_name(call.func)
        found = library.entry(qualified) if qualified else None
        return found.key_arguments(call) if found is not None and found.consumes_key else []

    effects = body_effects(function, has_self, light.qualified_name, consumes)
    if not short:
        effects = Effects(effects.consumed_keys, frozenset(), effects.consumed_names)
    return tuple(params[i] for i in sorted(effects.consumed_keys)), tuple(params[i] for i in sorted(effects.synced))
