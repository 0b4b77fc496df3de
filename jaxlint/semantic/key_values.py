"""PRNG keys: which values are keys, which calls consume them, and keys a jitted function captures.

A key is consumed by a `jax.random` sampler (or `split`), and also by the framework calls that draw
from it: `model.init(key, x)`, `model.apply(..., rngs={"dropout": key})`, a gymnax-style
`env.reset(key, params)` / `env.step(key, state, action, params)`, `space.sample(key)`. Outside
`jax.random` the first argument is a key only when it is known to be one (bound from
`PRNGKey`/`key`/`split`/`fold_in`, or named like one: `rng`, `key`, `init_key`), so `optimizer.init(params)`
is not a consumption.
"""

from __future__ import annotations

import ast
import re
from typing import Iterator
from weakref import WeakKeyDictionary

from jaxlint.semantic.model import FUNCTION_NODES, Scope, parent_of
from jaxlint.semantic.syntax import child_nodes  # iter_child_nodes minus ctx markers, faster

# jax.random functions that consume their first argument, a key. `fold_in(key, data)` derives a
# key from data (distinct data give independent keys), so it does not count as a use.
RANDOM_CONSUMERS = frozenset({
    "ball", "bernoulli", "beta", "binomial", "bits", "categorical", "cauchy", "chisquare", "choice",
    "dirichlet", "double_sided_maxwell", "exponential", "f", "gamma", "generalized_normal", "geometric",
    "gumbel", "laplace", "loggamma", "logistic", "lognormal", "maxwell", "multinomial", "multivariate_normal",
    "normal", "orthogonal", "pareto", "permutation", "poisson", "rademacher", "randint", "rayleigh",
    "shuffle", "split", "t", "triangular", "truncated_normal", "uniform", "wald", "weibull_min",
})
KEY_MAKERS = frozenset({"jax.random.PRNGKey", "jax.random.key"})
KEY_PRODUCERS = KEY_MAKERS | frozenset({"jax.random.split", "jax.random.fold_in", "jax.random.clone", "jax.random.wrap_key_data"})
# Methods whose first argument is a key they draw from, when that argument is known to be a key.
KEY_METHODS = frozenset({"init", "init_with_output", "reset", "step", "sample"})
_KEY_NAME = re.compile(r"(^|_)(rng|key|prng)s?\d*$|^(rng|key|subkey|prng)", re.IGNORECASE)
SEED_PREFIX = "seed "


def is_seed(key: str) -> bool:
    return key.startswith(SEED_PREFIX)


def is_random_call(call: ast.Call, context) -> bool:
    qualified = context.qualified_name(call.func) or ""
    return qualified.startswith("jax.random.") and qualified[len("jax.random."):] in RANDOM_CONSUMERS


def literal_seed(node: ast.AST, context) -> str | None:
    """`seed 0` for `jax.random.PRNGKey(0)` / `jax.random.key(0)` with a literal int seed."""
    if not isinstance(node, ast.Call) or context.qualified_name(node.func) not in KEY_MAKERS:
        return None
    if len(node.args) != 1 or node.keywords:
        return None
    seed = node.args[0]
    if isinstance(seed, ast.Constant) and isinstance(seed.value, int) and not isinstance(seed.value, bool):
        return f"{SEED_PREFIX}{seed.value}"
    return None


def key_names(function: ast.AST, context) -> set[str]:
    """Names a function (or module) binds to keys: from key makers and producers, or named like keys."""
    names: set[str] = set()
    for node in _own_nodes(function):
        if isinstance(node, ast.Assign) and _produces_key(node.value, context):
            for target in node.targets:
                names.update(_target_names(target))
        elif isinstance(node, ast.arg) and _KEY_NAME.search(node.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and _KEY_NAME.search(node.id):
            names.add(node.id)
    return names


def _produces_key(value: ast.AST, context) -> bool:
    if isinstance(value, ast.Subscript):
        value = value.value
    return isinstance(value, ast.Call) and context.qualified_name(value.func) in KEY_PRODUCERS


def consumed_arguments(call: ast.Call, context, is_key, framework: bool = True) -> list[ast.expr]:
    """The key expressions a call draws from (names or inline `PRNGKey(0)` calls); `framework=False`
    counts `jax.random` consumers only. `is_key(name)` tells whether a name holds a key."""
    found: list[ast.expr] = []
    qualified = context.qualified_name(call.func)
    if qualified is not None and qualified.startswith("jax.random."):
        if qualified[len("jax.random."):] in RANDOM_CONSUMERS:
            key = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "key"), None)
            if key is not None:
                found.append(key)
        return found
    if not framework:
        return found
    if qualified is None and isinstance(call.func, ast.Attribute) and call.func.attr in KEY_METHODS and call.args:
        first = call.args[0]
        if isinstance(first, ast.Name) and is_key(first.id):
            found.append(first)
        elif literal_seed(first, context) is not None:
            found.append(first)
    for keyword in call.keywords:
        if keyword.arg == "rngs" and isinstance(keyword.value, ast.Dict):
            for value in keyword.value.values:
                if isinstance(value, ast.Name) and is_key(value.id):
                    found.append(value)
    return found


def same_call_but_key(first: ast.Call, second: ast.Call, ignore_receiver: bool = False) -> bool:
    """The same callee with the same arguments once key arguments are set aside: the same draw on purpose.
    `ignore_receiver`: only the method name must match (`a.init(k, x)` and `b.init(k, x)`)."""
    return _masked(first, ignore_receiver) == _masked(second, ignore_receiver)


def _masked(call: ast.Call, ignore_receiver: bool = False) -> str:
    args = call.args[1:] if call.args else []
    keywords = [k for k in call.keywords if k.arg not in ("key", "rngs")]
    func = call.func
    if ignore_receiver and isinstance(func, ast.Attribute):
        func = ast.Name(id=func.attr, ctx=ast.Load())
    return ast.dump(ast.Call(func=func, args=list(args), keywords=keywords))


# ----- keys captured by a jitted function ------------------------------------------------------------


def captured_constant_keys(function: ast.AST, model, known_module_keys: set[str], context) -> Iterator[tuple[ast.Name, str, Scope, ast.Call]]:
    """(the key as consumed, its name, jitted scope, a call of it inside a loop) for keys a traced function
    consumes but neither receives nor rebinds: module-level keys bound once, outside any loop, never
    rebound through `global`. Under `jit` such a key is a compile-time constant, so every call of the
    jitted function, in a loop, draws the same numbers."""
    scope = model.scope_of_node.get(function)
    if scope is None or not scope.in_traced:
        return
    jitted = _enclosing_jitted(scope, model)
    if jitted is None:
        return
    loop_call = _called_in_loop(jitted, model)
    if loop_call is None:
        return
    for node in _own_nodes(function):
        if not isinstance(node, ast.Call):
            continue
        for argument in consumed_arguments(node, context, known_module_keys.__contains__):
            if isinstance(argument, ast.Name) and argument.id in known_module_keys and _free_up_to_module(argument.id, scope, model):
                yield argument, argument.id, jitted, loop_call


_module_keys_cache: "WeakKeyDictionary" = WeakKeyDictionary()


def module_constant_keys(model, context) -> set[str]:
    """Module-level names bound exactly once, by a key maker or producer, outside loops and functions,
    and never declared `global` anywhere (so nothing rebinds them)."""
    cached = _module_keys_cache.get(model)
    if cached is None:
        cached = _module_keys_cache[model] = _module_constant_keys(model, context)
    return cached


def _module_constant_keys(model, context) -> set[str]:
    module = model.module_scope
    bound: dict[str, list[ast.AST]] = {}
    for target, value in module.bindings:
        for name in _target_names(target):
            bound.setdefault(name, []).append(value)
    for target, _ in module.loops:
        for name in _target_names(target):
            bound.setdefault(name, []).append(None)
    declared_global = {name for scope in model.scopes for name in scope.declared_free}
    names = set()
    for name, values in bound.items():
        if len(values) != 1 or name in declared_global or values[0] is None:
            continue
        value = values[0]
        if _produces_key(value, context) and not _in_loop(value):
            names.add(name)
    return names


def _enclosing_jitted(scope: Scope, model) -> Scope | None:
    """The outermost scope around `scope` (itself included) that a jit binding compiles."""
    compiled = {id(binding.function): binding.function for binding in model.jit_bindings.values() if binding.function is not None}
    found = None
    current: Scope | None = scope
    while current is not None and current.is_function:
        if id(current) in compiled:
            found = current
        current = current.parent
    return found


def _called_in_loop(jitted: Scope, model) -> ast.Call | None:
    for binding in model.jit_bindings.values():
        if binding.function is not jitted:
            continue
        for node in model.nodes:
            if isinstance(node, ast.Call) and model.jit_binding_for_call(node) is binding and _in_loop(node):
                return node
    return None


def _free_up_to_module(name: str, scope: Scope, model) -> bool:
    current: Scope | None = scope
    while current is not None and current is not model.module_scope:
        if name in current.local_names or name in current.declared_free:
            return False
        current = current.parent
    return current is model.module_scope


def _in_loop(node: ast.AST) -> bool:
    current = parent_of(node)
    while current is not None:
        if isinstance(current, (ast.For, ast.While, ast.AsyncFor, ast.comprehension)):
            return True
        if isinstance(current, (*FUNCTION_NODES, ast.ClassDef)):
            return False
        current = parent_of(current)
    return False


def _own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """Nodes of a function (or module) body and its parameters, not inside nested functions or classes."""
    stack: list[ast.AST] = []
    if isinstance(function, FUNCTION_NODES) and not isinstance(function, ast.Lambda):
        stack.extend(function.args.posonlyargs + function.args.args + function.args.kwonlyargs)
    stack.extend(function.body if isinstance(function.body, list) else [function.body])
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (*FUNCTION_NODES, ast.ClassDef)):
            continue
        stack.extend(child_nodes(node))


def _target_names(target: ast.AST) -> Iterator[str]:
    if isinstance(target, ast.Name):
        yield target.id
    elif isinstance(target, (ast.Tuple, ast.List)):
        for element in target.elts:
            yield from _target_names(element)
    elif isinstance(target, ast.Starred):
        yield from _target_names(target.value)
