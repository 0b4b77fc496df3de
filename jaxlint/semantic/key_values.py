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
import math
import re
from typing import Iterator
from weakref import WeakKeyDictionary

from jaxlint.semantic import effects, jaxapi, library_models
from jaxlint.semantic.flow import assigned_in, enclosing_loops, enclosing_statement, target_names, walk_same_scope
from jaxlint.semantic.model import FUNCTION_NODES, Scope, is_within, parent_of
from jaxlint.semantic.syntax import ancestors, argument as passed_argument, bound_names, child_nodes, timed_lambda, walk  # ast.iter_child_nodes and ast.walk minus ctx markers, faster

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


def reseeded_in_loop(key: str, use: ast.Call, function: ast.AST, context) -> bool:
    """`for t in ts: key = PRNGKey(42); eps = normal(key, shape)`: the binding of the key that
    precedes `use` in the source is a literal seed inside a loop, so each iteration starts from that seed
    again. The author asks for the same numbers every time (a fixed evaluation seed), and a later draw
    from the same key repeats them on purpose too."""
    latest = None
    for node in walk(function):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.NamedExpr, ast.For)) and node.lineno <= use.lineno:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(key in target_names(target) for target in targets) and (latest is None or node.lineno > latest.lineno):
                latest = node
    if not isinstance(latest, ast.Assign) or len(latest.targets) != 1 or not isinstance(latest.targets[0], ast.Name):
        return False
    return literal_seed(latest.value, context) is not None and any(
        isinstance(loop, (ast.For, ast.While)) for loop in enclosing_loops(latest)
    )


# ----- functions run once per leaf of a tree ---------------------------------------------------------

# Decorators of an optimizer factory returning (init, update, get_params) whose decorated form maps
# `init` and `update` over every leaf of the parameters (jax/example_libraries/optimizers.py, `optimizer`:
# `tree_map(init, x0_tree)`, then `map(partial(update, i), g_flat, state_flat)`).
_PER_LEAF_OPTIMIZERS = frozenset({"jax.example_libraries.optimizers.optimizer", "jax.experimental.optimizers.optimizer"})
# Tree maps, old and new: `jax.tree_multimap(f, a, b)` ran `f` once per leaf before jax removed it.
_PER_LEAF_MAPS = jaxapi.TREE_MAPS | jaxapi.TREE_MAPS_REMOVED


def per_leaf_functions(context) -> list[tuple[ast.AST, str]]:
    """The functions of the module that run once per leaf of a tree, and why: the `init` and `update`
    an `@optimizer` factory returns (the decorator maps them over the parameters), and a lambda or
    local function passed as the function of a tree map (`jax.tree.map(f, tree)`, also with the
    leaves' paths, `jax.tree_util.tree_map_with_path(f, tree)`: jaxapi.TREE_MAPS). A key such a function makes from
    a literal seed, or reads from the scope around it, is the same key for every leaf."""
    found: list[tuple[ast.AST, str]] = []
    model = context.model
    for scope in model.scopes:
        node = scope.node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and any(
            context.qualified_name(d) in _PER_LEAF_OPTIMIZERS for d in node.decorator_list if isinstance(d, (ast.Name, ast.Attribute))
        ):
            nested = {s.name: s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
            for returned in (n for n in walk(node) if isinstance(n, ast.Return) and n.value is not None):
                value = returned.value
                elements = value.args if isinstance(value, ast.Call) else value.elts if isinstance(value, ast.Tuple) else []
                for element in elements[:2]:
                    if isinstance(element, ast.Name) and element.id in nested:
                        found.append((nested[element.id], f"`@{context.text(node.decorator_list[0])}` maps `{element.id}` over every parameter leaf"))
        for call in scope.calls:
            if context.qualified_name(call.func) not in _PER_LEAF_MAPS or len(call.args) < 2:
                continue
            function = call.args[0]
            if isinstance(function, ast.Lambda):
                found.append((function, f"`{context.text(call.func)}` runs this function once per leaf"))
            elif isinstance(function, ast.Name):
                resolved = model.resolve_function(function, scope)
                if resolved is not None and resolved[0] is not None and not resolved[1] and not resolved[2] and resolved[0].parent is scope:
                    found.append((resolved[0].node, f"`{context.text(call.func)}` runs `{function.id}` once per leaf"))
    return found


def keys_alike_per_leaf(function: ast.AST, context) -> list[tuple[ast.AST, str]]:
    """(where, the key's text) for each key `function` makes from a literal seed (`key = PRNGKey(1)`, kept
    in the state it returns or drawn from), and each key it reads from the scope around it and draws from
    (`lambda p: p + normal(key, p.shape)`): run once per leaf, every leaf gets that one key."""
    found: list[tuple[ast.AST, str]] = []
    parameters = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    own = _own_nodes(function)
    bound = {n.id for n in own if n.__class__ is ast.Name and n.ctx.__class__ is not ast.Load}
    for node in own:
        if node.__class__ is ast.Call and literal_seed(node, context) is not None:
            found.append((node, context.text(node)))
        elif node.__class__ is ast.Call and is_random_call(node, context):
            if _random_name(node, context) in _PAIRING:
                continue  # `permutation(key, leaf)` for every leaf: one order for parallel arrays (paired draws)
            key = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "key"), None)
            if isinstance(key, ast.Name) and key.id not in parameters and key.id not in bound:
                found.append((node, key.id))
    return found


# Clocks: a loop that reads one measures how long identical work takes (a benchmark repeats it on purpose).
_CLOCKS = jaxapi.CLOCKS


def iterations_alike(loop: ast.AST, context) -> bool:
    """Every iteration of a `for` loop starts from the same inputs as far as its target goes: the loop
    variable is `_` or never read in the body (`for _ in range(num_batches)`). A key made from a literal
    seed in such a loop is not a fixed seed shared by settings being compared (`for t in ts: key =
    PRNGKey(42)`: each `t` differs): each iteration repeats the last one's draws, so repeating them was
    not the point (ten evaluation batches that are one batch ten times). Not a loop that reads a clock: a
    benchmark repeats identical work on purpose."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)):
        return False
    targets = set(target_names(loop.target))
    if not targets:
        return False
    for node in walk(loop):
        if node.__class__ is ast.Name and node.id in targets and node.ctx.__class__ is ast.Load and not node.id.startswith("_"):
            return False
    return not reads_clock(loop, context)


def reads_clock(loop: ast.AST, context) -> bool:
    """The loop reads a clock: a benchmark, repeating identical work on purpose."""
    return any(node.__class__ is ast.Call and context.qualified_name(node.func) in _CLOCKS for node in walk(loop))


def steps_carry_state(loop: ast.AST) -> bool:
    """The loop is a sequence of steps, not a set of settings: it rebinds a name from a call that
    reads it (`params = update(params, g)`, `model, loss = train_epoch(model, ...)`), so each
    iteration continues the last one. A key made from a literal seed there and drawn from with
    inputs the loop does not change repeats the last step's numbers (the same shuffle every epoch);
    in a loop over settings (`for t in temperatures: sample(PRNGKey(42), t)`) the same numbers for
    each setting are the point. Accumulators (`total += loss`) and appends carry nothing a step reads."""
    if not isinstance(loop, (ast.For, ast.AsyncFor, ast.While)):
        return False
    for node in walk_same_scope(loop):
        if node.__class__ is not ast.Assign or node.value.__class__ is not ast.Call:
            continue
        bound = {element.id for target in node.targets for element in _rebound_names(target)}
        if bound and any(part.__class__ is ast.Name and part.id in bound for part in walk(node.value)):
            return True
    return False


def _rebound_names(target: ast.AST) -> Iterator[ast.Name]:
    """The plain names an assignment target rebinds (`a`, `a, (b, *c)`), not a subscript's or an
    attribute's (`out[t] = ...` stores into `out`)."""
    if target.__class__ is ast.Name:
        yield target
    elif target.__class__ in (ast.Tuple, ast.List):
        for element in target.elts:
            yield from _rebound_names(element)
    elif target.__class__ is ast.Starred:
        yield from _rebound_names(target.value)


def draw_varies_per_iteration(call: ast.Call, key: ast.expr, loop: ast.AST, context) -> bool:
    """Whether what `call` draws from the literal-seed key `key` can change from one iteration of
    `loop` to the next: an input of the draw other than the key reads a name the loop binds (its
    variable included) or a call whose result the source cannot follow. The draw's inputs are the
    arguments of a `jax.random` sampler, or, for a function of this module handed the key, the
    arguments its own samplers read from its parameters (`permutation(rng, len(xs))` reads `xs`);
    its other parameters (the model it trains) do not change the numbers drawn. True (varies, as
    far as the source shows) when the key reaches anything else there. A loop variable read
    elsewhere (logging `epoch`) does not make the draw differ."""
    assigned = assigned_in(loop)
    if isinstance(loop, (ast.For, ast.AsyncFor)):
        assigned |= target_names(loop.target)
    if is_random_call(call, context):
        inputs = [a for a in [*call.args, *(k.value for k in call.keywords)] if a is not key]
        return any(_varies(a, assigned, context) for a in inputs)
    from jaxlint.semantic.host_code import callee_scope  # (host_code is a sibling fact module)

    model = context.model
    callee = callee_scope(call, model)
    if callee is None or not isinstance(callee.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return True
    parameters = {}
    for position, name in enumerate(callee.params):
        passed = passed_argument(call, position, name)
        if passed is not None:
            parameters[name] = passed
    keyed = [name for name, passed in parameters.items() if passed is key]
    if len(keyed) != 1 or any(a.__class__ is ast.Starred for a in call.args) or any(k.arg is None for k in call.keywords):
        return True
    draws = _draws_from_parameter(callee, keyed[0], context)
    if draws is None:
        return True
    needed = set()
    for draw in draws:
        for part in [*draw.args[1:], *(k.value for k in draw.keywords if k.arg != "key")]:
            reached = _names_reached(part, callee)
            if reached is None:
                return True
            needed |= reached
    for name in needed:
        if name in parameters:
            if _varies(parameters[name], assigned, context):
                return True
        elif name in callee.params or name in callee.keyword_params:
            continue  # a default: the same every call
        elif name in assigned:
            return True  # a global the loop rebinds
    return False


_INVARIANT_CALLS = frozenset({"len", "int", "float", "tuple", "min", "max", "range"})


def _varies(node: ast.expr, assigned: set[str], context) -> bool:
    for part in walk(node):
        kind = part.__class__
        if kind is ast.Name and part.id in assigned:
            return True
        if kind is ast.Call and not (part.func.__class__ is ast.Name and part.func.id in _INVARIANT_CALLS):
            return True
        if kind in (ast.Await, ast.Yield, ast.YieldFrom, ast.NamedExpr):
            return True
    return False


def _draws_from_parameter(function: Scope, name: str, context) -> list[ast.Call] | None:
    """The `jax.random` samplers a function draws from its parameter `name` with; None when the
    parameter is read anywhere else (handed on, split, rebound, stored)."""
    draws = []
    for node in walk_same_scope(function.node):
        if node.__class__ is ast.Name and node.id == name:
            if node.ctx.__class__ is not ast.Load:
                return None
            parent = parent_of(node)
            if parent.__class__ is ast.keyword:
                if parent.arg != "key":
                    return None
                parent = parent_of(parent)
            elif parent.__class__ is not ast.Call or not parent.args or parent.args[0] is not node:
                return None
            if parent.__class__ is not ast.Call or not is_random_call(parent, context):
                return None
            draws.append(parent)
    if any(n.__class__ in FUNCTION_NODES and n is not function.node and name in _loaded_in(n) for n in walk(function.node)):
        return None  # read by a nested function or lambda
    return draws


def _loaded_in(node: ast.AST) -> set[str]:
    return {part.id for part in walk(node) if part.__class__ is ast.Name}


def _names_reached(node: ast.expr, function: Scope, depth: int = 0) -> set[str] | None:
    """The names an expression of `function` reads, with each local bound once by a plain
    assignment replaced by what its value reads (`n = len(xs)` reaches `xs`); None when a local is
    bound otherwise (a loop target, twice) or a call there is not one whose result follows its inputs."""
    found: set[str] = set()
    for part in walk(node):
        kind = part.__class__
        if kind is ast.Call and not (part.func.__class__ is ast.Name and part.func.id in _INVARIANT_CALLS):
            return None
        if kind is not ast.Name:
            continue
        if part.id in function.params or part.id in function.keyword_params or part.id not in function.local_names:
            found.add(part.id)
            continue
        if depth > 4:
            return None
        bindings = [
            n for n in walk_same_scope(function.node)
            if n.__class__ is ast.Name and n.id == part.id and n.ctx.__class__ is not ast.Load
        ]
        if len(bindings) != 1:
            return None
        statement = parent_of(bindings[0])
        if statement.__class__ is not ast.Assign or len(statement.targets) != 1 or statement.targets[0] is not bindings[0]:
            return None
        reached = _names_reached(statement.value, function, depth + 1)
        if reached is None:
            return None
        found |= reached
    return found


def split_keys_handed_out(first: ast.Call, second: ast.Call, names: set[str], function: ast.AST, context) -> bool:
    """`keys = split(k, n)` written twice with the same `k` and `n` returns the same keys twice
    (`split` is a function of its key and count alone). The second is a harmless recomputation only
    while the first's keys went nowhere; once one of them was read between the two (handed to a
    layer, a sampler), the second hands out the same keys again, a reuse as much as `split(k, 3)`
    then `split(k, 2)`."""
    qualified = context.qualified_name(first.func) or ""
    if qualified != "jax.random.split":
        return False
    low, high = (first.end_lineno, first.end_col_offset), (second.lineno, second.col_offset)
    return any(
        node.__class__ is ast.Name and node.id in names and node.ctx.__class__ is ast.Load
        and low < (node.lineno, node.col_offset) < high
        for node in walk_same_scope(function)
    )


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


def made_seed(node: ast.AST, context) -> tuple[str, frozenset[str]] | None:
    """`seed step` and the names it reads, for a key made inline from a seed computed from plain names
    (`PRNGKey(step)`, `jax.random.key(seed + 1)`): two keys made from one such seed, none of its names
    rebound in between, are one key. Not attributes or calls, whose values the source cannot follow
    (`PRNGKey(self.seed)`, `PRNGKey(int(time.time()))`), nor literal seeds (`literal_seed`)."""
    if not isinstance(node, ast.Call) or len(node.args) != 1 or node.keywords:
        return None
    seed = node.args[0]
    if isinstance(seed, ast.Constant) or context.qualified_name(node.func) not in KEY_MAKERS:
        return None
    names = set()
    for part in ast.walk(seed):
        kind = part.__class__
        if kind is ast.Name:
            names.add(part.id)
        elif kind not in _SEED_ARITHMETIC:
            return None
    if not names:
        return None
    return f"{SEED_PREFIX}{ast.unparse(seed)}", frozenset(names)


_SEED_ARITHMETIC = frozenset({ast.Constant, ast.BinOp, ast.UnaryOp, ast.Load, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.USub})


def key_names(function: ast.AST, context) -> set[str]:
    """Names a function (or module) binds to keys: from key makers and producers, or named like keys."""
    names: set[str] = set()
    for node in _own_nodes(function):
        kind = node.__class__  # (ast node classes have no subclasses: identity tests per node)
        if kind is ast.Name:
            if _KEY_NAME.search(node.id):
                names.add(node.id)
        elif kind is ast.Assign:
            if _produces_key(node.value, context):
                for target in node.targets:
                    names.update(bound_names(target))
        elif kind is ast.arg and _KEY_NAME.search(node.arg):
            names.add(node.arg)
    return names


def passes_key(call: ast.Call, context) -> bool:
    """Whether a call is handed a key: an argument named like one, or a name (or an element of one,
    `keys[1]`) that the calling function binds from a key producer (`ekey, hkey = split(key)`, `k =
    PRNGKey(0)`), whatever it is called. What a value is comes from where it was made, not its name."""
    passed = [*call.args, *(keyword.value for keyword in call.keywords)]
    # (the elements of a literal tuple: a lax loop started from a carry `(x, key)`, `operand=(x, key)`)
    passed += [element for argument in passed if argument.__class__ is ast.Tuple for element in argument.elts]
    roots = []
    for argument in passed:
        if argument.__class__ is ast.Subscript:
            argument = argument.value
        if argument.__class__ is ast.Name:
            if _KEY_NAME.search(argument.id):
                return True
            roots.append(argument.id)
    if not roots:
        return False
    function = context.model.scope_for(call).node
    names = context.memo(("key_values", "key_names", id(function)), key_names, function, context)
    return any(root in names for root in roots)


def _produces_key(value: ast.AST, context) -> bool:
    if isinstance(value, ast.Subscript):
        value = value.value
    return isinstance(value, ast.Call) and context.qualified_name(value.func) in KEY_PRODUCERS


_COMPREHENSION_NODES = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def shadowed_seed(call: ast.Call, context) -> tuple[ast.Call, str, ast.AST] | None:
    """A key made inline (`PRNGKey(epoch + i)`, `fold_in(key, i)`) and drawn from at once, inside a
    comprehension that binds `i` while an enclosing loop or comprehension of the same function also
    binds `i`: the key follows the inner `i` only, the same values in every outer iteration.
    Returns (the draw, the name, the outer loop)."""
    qualified = context.qualified_name(call.func)
    if qualified not in KEY_MAKERS and qualified != "jax.random.fold_in":
        return None
    draw = parent_of(call)
    if not (isinstance(draw, ast.keyword) and draw.arg == "key"):
        if not (isinstance(draw, ast.Call) and draw.args and draw.args[0] is call):
            return None
    else:
        draw = parent_of(draw)
    if not (isinstance(draw, ast.Call) and is_random_call(draw, context)):
        return None
    seed = call.args[-1] if qualified == "jax.random.fold_in" and len(call.args) == 2 else (call.args[0] if call.args else None)
    if seed is None:
        return None
    names = {n.id for n in ast.walk(seed) if isinstance(n, ast.Name)}
    inner_bound: set[str] = set()
    child, node = draw, parent_of(draw)
    while node is not None and not isinstance(node, (*FUNCTION_NODES, ast.Module, ast.ClassDef)):
        # A comprehension's first iterable is evaluated in the enclosing scope, before the
        # comprehension binds anything: a key made there follows the enclosing names.
        if isinstance(node, _COMPREHENSION_NODES) and not is_within(draw, node.generators[0].iter):
            bound = {name for generator in node.generators for name in bound_names(generator.target)}
            if inner_bound & bound & names:
                return draw, sorted(inner_bound & bound & names)[0], node
            inner_bound |= bound
        elif isinstance(node, (ast.For, ast.AsyncFor)) and child is not node.iter:
            bound = set(bound_names(node.target))
            if inner_bound & bound & names:
                return draw, sorted(inner_bound & bound & names)[0], node
        child, node = node, parent_of(node)
    return None


def key_element(node: ast.AST) -> str | None:
    """`keys[1]`, a constant element of a key array (`keys = split(key, 3)`), as the flow names it:
    each element is a key of its own, and the same element read twice is one key used twice."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        index = _constant_index(node)
        if index is not None:
            return f"{node.value.id}[{index}]"
    return None


def _is_key_expression(node: ast.AST, is_key) -> bool:
    """A name that holds a key, or a constant element of one (`keys[1]`)."""
    if isinstance(node, ast.Name):
        return is_key(node.id)
    return key_element(node) is not None and is_key(node.value.id)


def consumed_arguments(call: ast.Call, context, is_key, framework: bool = True, helpers: bool | None = None) -> list[ast.expr]:
    """The key expressions a call draws from (names or inline `PRNGKey(0)` calls); `framework=False`
    counts `jax.random` consumers only, and with `helpers=True` also the project's functions that
    draw from a key parameter (semantic/effects.py). `is_key(name)` tells whether a name holds a key."""
    found: list[ast.expr] = []
    qualified = context.qualified_name(call.func)
    if qualified is not None and qualified.startswith("jax.random."):
        if qualified[len("jax.random."):] in RANDOM_CONSUMERS:
            key = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "key"), None)
            if key is not None:
                found.append(key)
        return found
    if not framework:
        return _helper_keys(call, context, is_key, found) if helpers else found
    if qualified is None and isinstance(call.func, ast.Attribute) and call.func.attr in KEY_METHODS and call.args:
        first = call.args[0]
        if _is_key_expression(first, is_key):
            found.append(first)
        elif literal_seed(first, context) is not None:
            found.append(first)
    if qualified is None:
        found += [k for k in effects.seed_keyword_keys(call, context.qualified_name) if is_key(k.id) and not any(k is f for f in found)]
    if qualified is None:
        found += [k for k in stored_keys(call, context) if is_key(k.id) and not any(k is f for f in found)]
    found = _helper_keys(call, context, is_key, found)
    for keyword in call.keywords:
        if keyword.arg == "rngs" and isinstance(keyword.value, ast.Dict) and not dropout_off(call, context):
            for value in keyword.value.values:
                if _is_key_expression(value, is_key):
                    found.append(value)
    return found


_STATE_REPLACERS = frozenset({"replace", "_replace"})


def stored_keys(call: ast.Call, context) -> list[ast.Name]:
    """The keys a call stores into a state that the same function later splits or draws from by the
    field: `self.state = state.replace(rng_key=rng_key)` (a Flax `struct` dataclass, a `TrainState`, a
    NamedTuple's `_replace`) where the function also runs `split(self.state.rng_key)`. The stored key is
    handed on to whoever splits the field (the next step of the loop), so a `split(rng_key)` of the same
    key here hands out those very keys again."""
    function = call.func
    if function.__class__ is not ast.Attribute or function.attr not in _STATE_REPLACERS or call.args:
        return []
    stored = [k for k in call.keywords if k.arg is not None and k.value.__class__ is ast.Name and effects.named_like_key(k.arg)]
    if not stored:
        return []
    scope = context.model.scope_for(call)
    if scope is None:
        return []
    fields = context.memo(("key_values", "drawn_fields", id(scope.node)), _drawn_fields, scope.node, context)
    return [k.value for k in stored if k.arg in fields]


def _drawn_fields(function: ast.AST, context) -> frozenset[str]:
    """Attribute names read as the key of a `jax.random` call in a function (`split(self.state.rng_key)`)."""
    found = set()
    for node in walk_same_scope(function):
        if node.__class__ is ast.Call and _random_name(node, context) is not None:
            key = _key_argument(node)
            if key.__class__ is ast.Attribute:
                found.add(key.attr)
    return frozenset(found)


def _helper_keys(call: ast.Call, context, is_key, found: list[ast.expr]) -> list[ast.expr]:
    """`found` plus what the library models and the project's own functions say the call draws from
    (`make_state(rng)` whose body runs `model.init(rng, x)`; `hk_model.apply(params, rng, x)`)."""
    passed = (*call.args, *(k.value for k in call.keywords))
    # (the elements of a literal tuple too: a lax loop's carry `(x, key)`, effects.Effects.consumed_parts)
    if any(_is_key_expression(a, is_key) for a in passed) or any(
        a.__class__ in (ast.Tuple, ast.List) and any(_is_key_expression(e, is_key) for e in a.elts) for a in passed
    ):
        for argument in effects.consumed_key_arguments(context.model, call, context.model.scope_for(call)):
            if _is_key_expression(argument, is_key) and not any(argument is known for known in found):
                found = [*found, argument]
    elif any(a.__class__ is ast.Call for a in passed) and library_models.call_model(context.model, call, context.model.scope_for(call)):
        # A modelled library call handed a key made inline (`eqx.nn.Linear(..., key=PRNGKey(0))`).
        for argument in effects.consumed_key_arguments(context.model, call, context.model.scope_for(call)):
            if literal_seed(argument, context) is not None and not any(argument is known for known in found):
                found = [*found, argument]
    return found


_TRAINING_FLAGS = {"train": False, "training": False, "is_train": False, "is_training": False, "enable_dropout": False, "deterministic": True}


def _deterministic_call(call: ast.Call) -> bool:
    """`apply(..., is_train=False, rngs={"dropout": k})`: a literal evaluation flag in the same call means
    no dropout draws from the key (an `rngs` entry kept only to satisfy the signature)."""
    return any(
        keyword.arg in _TRAINING_FLAGS and isinstance(keyword.value, ast.Constant) and keyword.value.value is _TRAINING_FLAGS[keyword.arg]
        for keyword in call.keywords
    )


def dropout_off(call: ast.Call, context) -> bool:
    """The model a call runs has its random layers turned off, so an `rngs` key it is given draws
    nothing: a literal evaluation flag in the call itself (`apply(..., train=False, rngs=...)`), in the
    `functools.partial` the callee is bound to (`evaluate = partial(model.apply, enable_dropout=False)`),
    or in the construction of the model whose `apply` is called (`model = Net(deterministic=True)`)."""
    if _deterministic_call(call):
        return True
    func = call.func
    holders = []
    if isinstance(func, ast.Name):
        holders.append(func)
    elif isinstance(func, ast.Attribute) and func.attr in ("apply", "__call__") and isinstance(func.value, ast.Name):
        holders.append(func.value)
    for holder in holders:
        value = _only_binding(holder, context.model)
        if isinstance(value, ast.Call) and _deterministic_call(value):
            return True
    return False


def _only_binding(name: ast.Name, model) -> ast.AST | None:
    """The value a name is bound to, where the scope that binds it does so exactly once."""
    scope = model.scope_for(name)
    while scope is not None:
        values = [value for target, value in scope.bindings if isinstance(target, ast.Name) and target.id == name.id]
        if values:
            return values[0] if len(values) == 1 and not isinstance(values[0], ast.AugAssign) else None
        if name.id in scope.local_names:
            return None  # a parameter or a loop variable: its value is the caller's
        scope = scope.parent
    return None


def same_call_but_key(first: ast.Call, second: ast.Call, ignore_receiver: bool = False, key: str | None = None) -> bool:
    """The same callee with the same arguments once key arguments are set aside: the same draw on purpose.
    `ignore_receiver`: only the method name must match (`a.init(k, x)` and `b.init(k, x)`). With `key`,
    the arguments that are that name are the ones set aside, wherever they stand (`simulate(train_x, 10,
    key)` and `simulate(test_x, 10, key)` differ in their first argument); else the first argument."""
    return _masked(first, ignore_receiver, key) == _masked(second, ignore_receiver, key)


def _masked(call: ast.Call, ignore_receiver: bool = False, key: str | None = None) -> str:
    if key is not None and any(a.__class__ is ast.Name and a.id == key for a in call.args):
        args = [a for a in call.args if not (a.__class__ is ast.Name and a.id == key)]
    elif any(k.arg in ("key", "rngs") for k in call.keywords):
        args = call.args  # the key passed by keyword (`eqx.nn.Embedding(n, d, key=k)`): every position counts
    else:
        args = call.args[1:] if call.args else []
    keywords = [k for k in call.keywords if k.arg not in ("key", "rngs")]
    func = call.func
    if ignore_receiver and isinstance(func, ast.Attribute):
        func = ast.Name(id=func.attr, ctx=ast.Load())
    return ast.dump(ast.Call(func=func, args=list(args), keywords=keywords))


def rebuilt_with_overrides(first: ast.Call, second: ast.Call, function: ast.AST) -> bool:
    """`second` repeats `first` (the same callee, the same arguments, the same key) and adds only arguments
    computed from what `first` returned: `state = algo.init(rng)`, `kw = load(path, state)`, then
    `algo.init(rng, **kw)`. The first result is the template the overrides were read into, and the
    second call rebuilds it with those parts replaced: the parts drawn again are meant to equal the
    first's, as two identical calls are. Extra arguments from anywhere else (`init(rng, lr=0.1)`) are
    a different call, not a rebuild."""
    if first.func.__class__ is not ast.Attribute and first.func.__class__ is not ast.Name:
        return False
    if ast.dump(first.func) != ast.dump(second.func) or len(second.args) < len(first.args):
        return False
    if any(ast.dump(a) != ast.dump(b) for a, b in zip(first.args, second.args)):
        return False
    first_keywords = {ast.dump(k) for k in first.keywords}
    extra = [*second.args[len(first.args):], *(k.value for k in second.keywords if ast.dump(k) not in first_keywords)]
    if not extra or not first_keywords <= {ast.dump(k) for k in second.keywords}:
        return False
    holder, made = enclosing_statement(first), enclosing_statement(second)
    if not isinstance(holder, ast.Assign) or holder.value is not first or holder is made or made is None:
        return False
    derived = {n for target in holder.targets for n in bound_names(target)}
    low, high = (holder.end_lineno, holder.end_col_offset), (made.lineno, made.col_offset)
    statements = sorted(
        (n for n in walk(function) if isinstance(n, ast.Assign) and low < (n.lineno, n.col_offset) < high),
        key=lambda n: (n.lineno, n.col_offset),
    )
    for statement in statements:
        if _loads(statement.value) & derived:
            derived |= {n for target in statement.targets for n in bound_names(target)}
    return all(_loads(argument) and _loads(argument) <= derived for argument in extra)


# ----- keys captured by a jitted function ------------------------------------------------------------


def captured_constant_keys(function: ast.AST, model, known_module_keys: set[str], context) -> Iterator[tuple[ast.Name, str, Scope, ast.Call, bool]]:
    """(the key as consumed, its name, the called scope, a call of it inside a loop, whether that scope
    is compiled) for keys a function consumes but neither receives nor rebinds: module-level keys bound
    once, outside any loop, never rebound through `global`. Under `jit` such a key is a compile-time
    constant; in a function of the module called by name (`noisy(a)`, also one wrapped by `vmap`) it
    is the same key on every call. Either way every call in a loop draws the same numbers."""
    scope = model.scope_of_node.get(function)
    if scope is None:
        return
    jitted = _enclosing_jitted(scope, model) if scope.in_traced else None
    called = jitted
    if jitted is not None:
        loop_call = _called_in_loop(jitted, model)
    elif scope.is_function and scope.parent is model.module_scope and not isinstance(function, ast.Lambda):
        if _FIXED_ON_PURPOSE.search(function.name):
            return  # `def plot_samples(x)`: the same noise for every evaluation, on purpose (as for default keys)
        called, loop_call = scope, _called_by_name_in_loop(scope, model, context)
    else:
        return
    if loop_call is None:
        return
    # A key made inside from a constant seed is the same key on every call, compiled or not (under
    # `jit` it is a constant of the program); not in a function named for evaluation or plotting.
    fixed = jitted is not None and any(
        _FIXED_ON_PURPOSE.search(getattr(each, "name", "") or "") for each in (function, jitted.node)
    )
    local_keys = constant_seed_keys(function, scope, model, context) if not fixed else set()
    for node in _own_nodes(function):
        if not isinstance(node, ast.Call):
            continue
        if parent_of(node).__class__ is ast.Expr:
            continue  # a bare `shuffle(PRNGKey(0), xs)`: its result is dropped, nothing drawn is seen
        arguments = consumed_arguments(node, context, lambda name: name in known_module_keys or name in local_keys)
        for keyword in node.keywords:
            if keyword.arg == "rngs" and isinstance(keyword.value, ast.Dict) and not fixed and not dropout_off(node, context):
                arguments += [v for v in keyword.value.values if v.__class__ is ast.Call and not any(v is a for a in arguments)]
        for argument in arguments:
            if not isinstance(argument, ast.Name):
                # Made inline from a constant seed (`randint(PRNGKey(0), ...)`, `rngs={"dropout": PRNGKey(0)}`).
                if not fixed and _constant_seed(argument, scope, model, context) and not any(node.__class__ in _OWN_LOOPS for node in _own_nodes(function)) and (
                    (is_random_call(node, context) and context.qualified_name(node.func) != "jax.random.split")
                    or _rngs_value(argument, node)
                ):
                    yield argument, ast.unparse(argument), called, loop_call, jitted is not None
                continue
            local = argument.id in local_keys and (
                (is_random_call(node, context) and context.qualified_name(node.func) != "jax.random.split") or _rngs_value(argument, node)
            )
            if local or (argument.id in known_module_keys and _free_up_to_module(argument.id, scope, model)):
                if jitted is None and _FIXED_ON_PURPOSE.search(argument.id):
                    continue  # `EVAL_KEY`: fixed on purpose
                yield argument, argument.id, called, loop_call, jitted is not None


def constant_seed_keys(function: ast.AST, scope: Scope, model, context) -> set[str]:
    """Names a function binds once, to a key made from a constant seed (`key = PRNGKey(0)`, or
    `PRNGKey(SEED)` with `SEED` a module-level name bound once to a literal int): the same key on
    every call, as a module-level key is; drawn from by `jax.random`'s samplers (a model's `init`
    or a `split` on it starts a setup or a stream). Only in a function with no loop of its own, one step's
    work (a function that loops is a run, whose fixed seed starts one stream on purpose); not a key
    folded with data (`fold_in(key, step)`, a stream by step) or made from a parameter."""
    if any(node.__class__ in _OWN_LOOPS for node in _own_nodes(function)):
        return set()
    counts: dict[str, int] = {}
    made: set[str] = set()
    for target, value in scope.bindings:
        for name in (bound_names(target) if target is not None else ()):
            counts[name] = counts.get(name, 0) + 1
            if isinstance(target, ast.Name) and _constant_seed(value, scope, model, context):
                made.add(name)
    folded = {
        node.args[0].id for node in _own_nodes(function)
        if node.__class__ is ast.Call and node.args and node.args[0].__class__ is ast.Name
        and context.qualified_name(node.func) == "jax.random.fold_in"
    }
    return {name for name in made if counts[name] == 1 and name not in scope.params and name not in folded}


_OWN_LOOPS = (ast.For, ast.AsyncFor, ast.While, ast.comprehension)


def _rngs_value(argument: ast.expr, call: ast.Call) -> bool:
    """`argument` is the value of a stream other than `params` in the `rngs=` dict of `call`
    (`apply(..., rngs={"dropout": PRNGKey(0)})`): drawn from by the network's random layers."""
    for keyword in call.keywords:
        if keyword.arg == "rngs" and isinstance(keyword.value, ast.Dict):
            for name, value in zip(keyword.value.keys, keyword.value.values):
                if value is argument:
                    return not (isinstance(name, ast.Constant) and name.value == "params")
    return False


def _constant_seed(value: ast.AST, scope: Scope, model, context) -> bool:
    if not isinstance(value, ast.Call) or context.qualified_name(value.func) not in KEY_MAKERS:
        return False
    if len(value.args) != 1 or value.keywords:
        return False
    seed = value.args[0]
    if isinstance(seed, ast.Constant):
        return isinstance(seed.value, int) and not isinstance(seed.value, bool)
    if isinstance(seed, ast.Name) and not _FIXED_ON_PURPOSE.search(seed.id):
        bound = [v for target, v in model.module_scope.bindings for name in (bound_names(target) if target is not None else ()) if name == seed.id]
        return (
            len(bound) == 1 and isinstance(bound[0], ast.Constant) and isinstance(bound[0].value, int)
            and not isinstance(bound[0].value, bool) and _free_up_to_module(seed.id, scope, model)
        )
    return False


def _in_comprehension_body(node: ast.AST) -> bool:
    """In the element (or a condition) of a comprehension of the same function: run per item."""
    child, current = node, parent_of(node)
    while current is not None and not isinstance(current, (*FUNCTION_NODES, ast.ClassDef)):
        if isinstance(current, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            if child is not current.generators[0].iter:
                return True
        child, current = current, parent_of(current)
    return False


def _called_by_name_in_loop(scope: Scope, model, context=None) -> ast.Call | None:
    """A call of the module-level function `scope` by its name, inside a loop or comprehension; for a
    method, a call `self.name(...)` in a method of the same class (the method `self` runs). Not a call
    whose result reaches only a display (draw_only_shown, `computed`: a printout, a figure, a logger's
    dashboard): a monitor of the run, drawing the same noise each time on purpose, as the samples shown
    over training are compared."""
    for call in model.calls_by_name().get(scope.node.name, ()):
        if not (_in_loop(call) or _in_comprehension_body(call)):
            continue
        if context is not None and draw_only_shown(call, model.scope_for(call).node, context, computed=True):
            # `grid, _ = sample_grid(step, model)` then `wandb.log({"samples": wandb.Image(grid)})`: what it
            # draws reaches only what is shown, a monitor of the run whose fixed noise keeps it comparable
            continue
        if isinstance(call.func, ast.Name) and scope.class_node is None:
            resolved = model.resolve_function(call.func, model.scope_for(call))
            if resolved is not None and resolved[0] is scope:
                return call
        elif scope.class_node is not None and _self_call_in_class(call, scope, model):
            return call
    return None


def _self_call_in_class(call: ast.Call, scope: Scope, model) -> bool:
    function = call.func
    if not (isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id == "self"):
        return False
    if any(isinstance(d, (ast.Name, ast.Attribute)) and (getattr(d, "id", None) or getattr(d, "attr", None)) in ("staticmethod", "classmethod", "property") for d in scope.node.decorator_list):
        return False
    caller = model.scope_for(call)
    method = caller.enclosing_method() if caller is not None else None
    return method is not None and method.class_node is scope.class_node and method.node is not scope.node


_module_keys_cache: "WeakKeyDictionary" = WeakKeyDictionary()


def module_constant_keys(model, context) -> set[str]:
    """Module-level names bound only by key makers or producers, outside loops and functions, and never
    declared `global` anywhere (so nothing rebinds them once the module has run). A name bound more than
    once so (`rng = PRNGKey(0)`, then `rng, init_rng = split(rng)`), every binding before the module's
    first call of a function or class of its own, holds its last key whenever one of them runs: every
    binding runs once, at import, so a function reading it reads one key on every call, as it reads a
    name bound once. (Not a name rebound after such a run, a notebook's key split cell by cell between
    experiments: each run reads the key of its time.)"""
    cached = _module_keys_cache.get(model)
    if cached is None:
        cached = _module_keys_cache[model] = _module_constant_keys(model, context)
    return cached


def _module_constant_keys(model, context) -> set[str]:
    module = model.module_scope
    bound: dict[str, list[ast.AST]] = {}
    for target, value in module.bindings:
        for name in bound_names(target):
            bound.setdefault(name, []).append(value)
    for target, _ in module.loops:
        for name in bound_names(target):
            bound.setdefault(name, []).append(None)
    declared_global = {name for scope in model.scopes for name in scope.declared_free}
    names = set()
    first_run = None
    for name, values in bound.items():
        if name in declared_global or any(value is None for value in values):
            continue
        if not all(_produces_key(value, context) and not _in_loop(value) for value in values):
            continue
        if len(values) > 1:
            # Rebound only before the module first runs a function of its own: every function reads the
            # last key. (A notebook that splits its key cell by cell between runs hands each run the
            # key of its time.)
            if first_run is None:
                first_run = _first_own_run(model)
            if max(value.lineno for value in values) >= first_run:
                continue
        names.add(name)
    return names


def _first_own_run(model) -> int:
    """The line of the module's first top-level statement that calls a function or class the module
    defines at its top level (where its functions may first run); past the end when none does."""
    body = getattr(model.module_scope.node, "body", [])
    own = {s.name for s in body if isinstance(s, (*FUNCTION_NODES, ast.ClassDef))}
    for statement in body:
        if isinstance(statement, (*FUNCTION_NODES, ast.ClassDef)):
            continue
        if any(n.__class__ is ast.Call and n.func.__class__ is ast.Name and n.func.id in own for n in walk(statement)):
            return statement.lineno
    return 1 << 30


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


_DEFINITIONS = frozenset({*FUNCTION_NODES, ast.ClassDef})


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """Nodes of a function (or module) body and its parameters, not inside nested functions or classes."""
    stack: list[ast.AST] = []
    if isinstance(function, FUNCTION_NODES) and not isinstance(function, ast.Lambda):
        stack.extend(function.args.posonlyargs + function.args.args + function.args.kwonlyargs)
    stack.extend(function.body if isinstance(function.body, list) else [function.body])
    nodes = []
    while stack:
        node = stack.pop()
        nodes.append(node)
        if node.__class__ not in _DEFINITIONS:
            stack.extend(child_nodes(node))
    return nodes


# ----- which draws matter: results that are read ------------------------------------------------------

# Calls with no effect beyond their result: a draw, a model's `init`/`apply`, an env's `reset`/`step`, array math.
_PURE_METHODS = frozenset({"init", "init_with_output", "apply", "reset", "step", "sample"})
_PURE_PREFIXES = (
    "jax.random.", "jax.numpy.", "jax.nn.", "numpy.", "jax.lax.",
    "builtins.len", "builtins.int", "builtins.float", "builtins.min", "builtins.max", "builtins.abs", "builtins.tuple",
)


def pure_call(call: ast.Call, context) -> bool:
    qualified = context.qualified_name(call.func)
    if qualified is not None:
        return qualified.startswith(_PURE_PREFIXES)
    return isinstance(call.func, ast.Attribute) and call.func.attr in _PURE_METHODS


def result_is_read(call: ast.Call, function: ast.AST, context, _seen: set[int] | None = None) -> bool:
    """Whether what a call returns is ever read: False for a bare `f(key)` statement whose call has no
    other effect, and for `a = f(key)` whose names are all rebound before any read, or read only by
    statements that are themselves dead this way (a smoke test: `s = env.reset(k); env.step(k, s, a)`).
    A call nested in a larger expression, or assigned to anything but plain names, counts as read."""
    statement = parent_of(call)
    if isinstance(statement, ast.Expr):
        return not pure_call(call, context)
    if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or statement.value is not call:
        enclosing = _enclosing_assignment(call)
        if enclosing is None:
            return True
        # `m: T = normal(k, s) * c` then `m = ...` before any read: the value computed from the draw is
        # dead as a whole (`_statement_live` asks that every call of it has no other effect).
        return _statement_live(enclosing, function, context, _seen if _seen is not None else set())
    return _statement_live(statement, function, context, _seen if _seen is not None else set())


def _enclosing_assignment(call: ast.Call) -> ast.stmt | None:
    """The assignment whose value computes with `call` through operators, calls and subscripts, or None
    (a lambda, comprehension or walrus on the way keeps or binds the value elsewhere)."""
    current = parent_of(call)
    while current is not None and not isinstance(current, ast.stmt):
        if current.__class__ in (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp, ast.NamedExpr):
            return None
        current = parent_of(current)
    return current if isinstance(current, (ast.Assign, ast.AnnAssign)) and current.value is not None else None


def helper_draws_dropped(call: ast.Call, argument: ast.expr, function: ast.AST, context) -> bool:
    """A project function that draws from `argument` only into parts of what it returns, called in
    `a, (b, keys) = setup(key)` where every name at those parts is rebound before any read (or read
    only by dead statements): the caller never sees what was drawn, so the call used the key for
    nothing observable (effects.returned_draws says where the draws go)."""
    statement = parent_of(call)
    if isinstance(statement, ast.Assign) and statement.value is call and len(statement.targets) == 1:
        target = statement.targets[0]
    elif isinstance(statement, ast.AnnAssign) and statement.value is call:
        target = statement.target
    else:
        return False
    if is_random_call(call, context):
        return False  # a sampler's result is its draws: `result_is_read` answers for it
    model = context.model
    paths = effects.call_effects(model, call, model.scope_for(call)).returned_draw_paths(call, argument)
    if paths is None:
        return False
    names: set[str] = set()
    for path in paths:
        part = target
        for index in path:
            if part.__class__ is ast.Name:
                break
            if part.__class__ not in (ast.Tuple, ast.List) or index >= len(part.elts) or any(e.__class__ is ast.Starred for e in part.elts):
                return False
            part = part.elts[index]
        if any(n.__class__ in (ast.Attribute, ast.Subscript) for n in walk(part)):
            return False  # stored into an object: it outlives the function
        names.update(bound_names(part))
    declared, closure_reads = _function_facts(function)
    for name in names:
        if name in declared or name in closure_reads:
            return False
        if any(_statement_live(reader, function, context, {id(statement)}) for reader in _readers_after(statement, name, function)):
            return False
    return True


def _statement_live(statement: ast.stmt, function: ast.AST, context, seen: set[int]) -> bool:
    if id(statement) in seen:
        return True  # a cycle (`x = f(x)` in a loop): say read
    seen = seen | {id(statement)}
    if isinstance(statement, ast.Expr):
        return not (isinstance(statement.value, ast.Call) and _only_pure_calls(statement.value, context))
    if not isinstance(statement, (ast.Assign, ast.AnnAssign)) or statement.value is None:
        return True
    if not _only_pure_calls(statement.value, context):
        return True
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    names: list[str] = []
    for target in targets:
        for element in walk(target):
            if isinstance(element, (ast.Attribute, ast.Subscript)):
                return True  # stored into an object: it outlives the function
        names.extend(bound_names(target))
    declared, closure_reads = _function_facts(function)
    holds_keys = _produces_key(statement.value, context)
    for name in names:
        if name.startswith("_"):
            continue
        if name in declared or name in closure_reads:
            return True  # global/nonlocal, or read by a nested function when it is called: say read
        for reader in _readers_after(statement, name, function):
            if holds_keys and _reads_only_as_unused_key(reader, name, context):
                continue
            if _statement_live(reader, function, context, seen):
                return True
    return False


def _reads_only_as_unused_key(statement: ast.stmt, name: str, context) -> bool:
    """`costs = eval_step(state, keys, batch)` where `eval_step` hands its key only to
    `apply(..., deterministic=True)`: every read of `name` in the statement is a key argument that
    draws nothing (an evaluation path, dropout off), so what the key holds does not matter there."""
    if not isinstance(statement, (ast.Assign, ast.AnnAssign, ast.Expr)):
        return False
    reads = [n for n in walk(statement) if n.__class__ is ast.Name and n.id == name and n.ctx.__class__ is ast.Load]
    return bool(reads) and all(_unused_key_argument(read, context) for read in reads)


def _unused_key_argument(argument: ast.Name, context, depth: int = 0) -> bool:
    """The name is passed straight to a call that draws nothing from it: a call with a literal
    evaluation flag, or a local function (or its jitted or pmapped form) whose parameter is only
    passed on to such calls."""
    call = parent_of(argument)
    if not isinstance(call, ast.Call) or argument is call.func:
        return False
    if dropout_off(call, context):
        return True
    if depth >= 2:
        return False
    model = context.model
    binding = model.jit_binding_for_call(call)
    if binding is not None:
        callee, bound = binding.function, binding.bound_positional
    else:
        resolved = model.resolve_function(call.func, model.scope_for(call))
        callee, bound = (resolved[0], resolved[1]) if resolved is not None else (None, 0)
    if callee is None or not isinstance(callee.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if argument in call.args:
        position = call.args.index(argument) + bound
        if any(isinstance(a, ast.Starred) for a in call.args[: call.args.index(argument) + 1]) or position >= len(callee.params):
            return False
        parameter = callee.params[position]
    else:
        parameter = next((k.arg for k in call.keywords if k.value is argument), None)
        if parameter is None or parameter not in callee.param_nodes:
            return False
    uses = [n for n in walk(callee.node) if n.__class__ is ast.Name and n.id == parameter and n.ctx.__class__ is ast.Load]
    return all(_unused_key_argument(use, context, depth + 1) for use in uses)


_FACTS = "_jaxlint_key_facts"


def _function_facts(function: ast.AST) -> tuple[frozenset[str], frozenset[str]]:
    """The names a function declares `global`/`nonlocal`, and the names its nested functions and
    classes read; computed once per function (kept on the node)."""
    facts = function.__dict__.get(_FACTS)
    if facts is None:
        declared: set[str] = set()
        closure_reads: set[str] = set()
        for node in _own_nodes(function):
            kind = node.__class__
            if kind is ast.Global or kind is ast.Nonlocal:
                declared.update(node.names)
            elif kind in _DEFINITIONS and not timed_lambda(node):
                # (A lambda a timer runs is read where it stands: `_only_abstract` follows its body.)
                closure_reads |= _loads(node)  # (its own nested functions included, walked once)
        facts = (frozenset(declared), frozenset(closure_reads))
        setattr(function, _FACTS, facts)
    return facts


_FREE_READS = "_jaxlint_nested_free_reads"


def _free_reads_of_nested(function: ast.AST) -> dict[ast.AST, frozenset[str]]:
    """For each function and class nested in `function`, the names it reads from it: what it loads, less
    its own parameters and the names it binds (`def selu(x)` reads no outer `x`). Timed lambdas are read
    where they stand. Computed once per function (kept on the node)."""
    found = function.__dict__.get(_FREE_READS)
    if found is None:
        found = {}
        for node in _own_nodes(function):
            if node.__class__ in _DEFINITIONS and not timed_lambda(node):
                bound = set()
                for inner in walk(node):
                    if inner.__class__ is ast.arg:
                        bound.add(inner.arg)
                    elif inner.__class__ is ast.Name and inner.ctx.__class__ is not ast.Load:
                        bound.add(inner.id)
                reads = _loads(node) - bound
                if reads:
                    found[node] = reads
        setattr(function, _FREE_READS, found)
    return found


def _only_pure_calls(value: ast.AST, context) -> bool:
    return all(pure_call(node, context) for node in walk(value) if isinstance(node, ast.Call))


def _readers_after(statement: ast.stmt, name: str, function: ast.AST) -> list[ast.stmt]:
    """Statements that may read the value `statement` binds to `name` (conservative: a compound
    statement that reads it counts as a whole); stops at a rebinding that surely runs."""
    readers: list[ast.stmt] = []
    current: ast.AST = statement
    while current is not function and current is not None:
        parent = parent_of(current)
        if parent is None:
            break
        block = next((b for f in ("body", "orelse", "finalbody") if isinstance(b := getattr(parent, f, None), list) and current in b), None)
        if block is None:
            # A statement in an `except` handler, a `match` case: take the whole parent as the region.
            if _reads(parent, name):
                readers.append(parent)
            current = parent
            continue
        index = next(i for i, s in enumerate(block) if s is current)
        ended = _scan(block[index + 1:], name, readers)
        if ended:
            return readers
        if isinstance(parent, (ast.For, ast.AsyncFor, ast.While)) and block is parent.body:
            # The next iteration: the loop's test and body from the top.
            if isinstance(parent, ast.While) and _reads(parent.test, name):
                readers.append(parent)
            _scan(parent.body, name, readers)
        if isinstance(parent, (*FUNCTION_NODES, ast.ClassDef)):
            break
        current = parent
    return readers


def _scan(statements: list[ast.stmt], name: str, readers: list[ast.stmt]) -> bool:
    """Collect the readers of `name` in a block; True when the block surely rebinds it (or leaves)."""
    for statement in statements:
        if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Expr, ast.Return, ast.Raise)):
            if isinstance(statement, ast.AugAssign) and _target_hits(statement.target, name):
                readers.append(statement)
            elif _reads(statement, name):
                readers.append(statement)
            if isinstance(statement, (ast.Return, ast.Raise)):
                return True
            targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
            if isinstance(statement, (ast.Assign, ast.AnnAssign)) and any(t is not None and _target_hits(t, name) for t in targets):
                return True
        elif isinstance(statement, ast.If):
            if _reads(statement.test, name):
                readers.append(statement)
            body = _scan(statement.body, name, readers)
            orelse = _scan(statement.orelse, name, readers)
            if body and orelse:
                return True
        elif isinstance(statement, (ast.For, ast.AsyncFor, ast.While)):
            head = statement.test if isinstance(statement, ast.While) else statement.iter
            if _reads(head, name):
                readers.append(statement)
            _scan(statement.body, name, readers)
            _scan(statement.orelse, name, readers)
        elif isinstance(statement, (ast.With, ast.AsyncWith)):
            if any(_reads(item.context_expr, name) for item in statement.items):
                readers.append(statement)
            if _scan(statement.body, name, readers):
                return True
        elif _reads(statement, name):
            readers.append(statement)  # try, match, nested definitions: read as a whole
    return False


def _target_hits(target: ast.AST, name: str) -> bool:
    return name in set(bound_names(target))


_LOADS = "_jaxlint_loads"


def _reads(node: ast.AST, name: str) -> bool:
    return name in _loads(node)


def _loads(node: ast.AST) -> frozenset[str]:
    """The names a subtree reads, collected once (kept on the node)."""
    loads = node.__dict__.get(_LOADS)
    if loads is None:
        loads = frozenset(n.id for n in walk(node) if n.__class__ is ast.Name and n.ctx.__class__ is ast.Load)
        setattr(node, _LOADS, loads)
    return loads


# ----- pairs of consumptions that share no bits, or share them on purpose -----------------------------

# Samplers that read the random bits of their key itself (checked on jax 0.10.2, partitionable threefry,
# the default): they share no bits with anything drawn from `split(key)`'s keys.
DIRECT_BITS = frozenset({
    "normal", "uniform", "bernoulli", "bits", "categorical", "gumbel", "truncated_normal", "exponential",
    "laplace", "logistic", "cauchy",
    # Transforms of one of the above on the key itself (jax.random's own code): `multivariate_normal`,
    # `orthogonal`, `maxwell` and `lognormal` of `normal(key)`, `rademacher` of `bernoulli(key)`,
    # `rayleigh`, `weibull_min` and `geometric` of `uniform(key)`, `pareto` of `exponential(key)`.
    "multivariate_normal", "orthogonal", "maxwell", "lognormal", "rademacher", "rayleigh", "weibull_min",
    "geometric", "pareto",
})


def _random_name(call: ast.Call, context) -> str | None:
    qualified = context.qualified_name(call.func) or ""
    if qualified.startswith("jax.random."):
        return qualified[len("jax.random."):]
    return None


# Samplers that draw from keys they split off their key first (checked, as above): two of them on one key
# share bits, as do two that read their key's own bits; one of each shares none.
SPLITS_FIRST = frozenset({"randint", "permutation", "shuffle"})


def splits_first(call: ast.Call, context) -> bool:
    name = _random_name(call, context)
    if name == "choice":
        return not reads_own_bits(call, context)
    return name in SPLITS_FIRST


def reads_own_bits(call: ast.Call, context) -> bool:
    """A jax.random sampler that draws from its key's own bits (not from keys it splits off first)."""
    name = _random_name(call, context)
    if name == "choice":
        return len(call.args) >= 5 or any(k.arg == "p" for k in call.keywords)  # with `p`: gumbel / uniform
    return name in DIRECT_BITS


def split_and_sampler_disjoint(first: ast.Call, second: ast.Call, function: ast.AST, context) -> bool:
    """`x = sampler(k)` and `split(k)` (either order) share no bits: a sampler that reads `k`'s own bits
    shares none with `split(k)`'s keys or what they draw, and framework calls (`init`, `apply`) fold their
    own names into the key. A sampler that splits internally (`randint`, `permutation`, `choice` without
    `p`) draws from `split(k)[0]` and `[1]`: those clash only when such a key feeds a sampler that reads its
    own bits."""
    names = [_random_name(first, context), _random_name(second, context)]
    if (names[0] == "split") == (names[1] == "split"):
        return False
    split_call, other = (first, second) if names[0] == "split" else (second, first)
    if _random_name(other, context) is None:
        # A function of the module (or a method of an instance of its class) that splits the key before it
        # draws hands out the keys `split` returns, as a second `split` would; anything else is not shown to.
        key = _key_argument(split_call)
        return not (key.__class__ is ast.Name and draws_from_split_keys(other, key.id, context))
    if reads_own_bits(other, context):
        return True
    return not _children_feed_own_bits(split_call, other, function, context)


def _shuffles(call: ast.Call, context) -> bool:
    """`permutation`, `shuffle`, `choice(..., replace=False)` without `p`: rounds of sort keys, the first drawn
    from `split(k)[1]`, the next (for arrays past ~1600 elements) from keys split off `split(k)[0]`."""
    name = _random_name(call, context)
    if name in ("permutation", "shuffle"):
        return True
    if name != "choice" or reads_own_bits(call, context):
        return False
    replace = call.args[3] if len(call.args) >= 4 else next((k.value for k in call.keywords if k.arg == "replace"), None)
    return isinstance(replace, ast.Constant) and replace.value is False


def _shuffle_rounds(call: ast.Call, context) -> int:
    """Rounds of sort keys `permutation(k, n)` draws: ceil(3 ln n / ln 2**32) in jax.random's
    `_shuffle`, one up to 1625 elements. 0 when the size is not an integer the source fixes
    (an array argument, a value read at run time): then a second round cannot be shown."""
    size = call.args[1] if len(call.args) >= 2 else next((k.value for k in call.keywords if k.arg in ("x", "a")), None)
    if size is None:
        return 0
    value = context.model.constant_evaluator().int_value(size, context.scope(call))
    if value is None or value < 1:
        return 0
    return max(1, math.ceil(3 * math.log(value) / math.log(2**32 - 1)))


def _children_feed_own_bits(split_call: ast.Call, sampler: ast.Call, function: ast.AST, context) -> bool:
    """A key `split_call` returns feeds a draw that reads bits `sampler` (which splits `k` first) read:
    `randint` reads the bits of `split(k)[0]` and `[1]`, so a sampler reading its own key's bits (`normal`,
    `uniform`, a distribution's `.sample`) fed either repeats them; a shuffle reads `split(k)[1]`'s bits, and
    for large arrays those of keys split off `split(k)[0]`, as a shuffle or `randint` fed `split(k)[0]` does."""
    shuffles = _shuffles(sampler, context)
    # Only a shuffle of more than ~1600 elements takes a second round, from keys split off `split(k)[0]`.
    second_round = shuffles and _shuffle_rounds(sampler, context) > 1

    def overlaps(index: int, consumer: ast.Call) -> bool:
        own = reads_own_bits(consumer, context) or (
            isinstance(consumer.func, ast.Attribute) and consumer.func.attr == "sample" and _random_name(consumer, context) is None
        )
        if shuffles:
            return (index == 1 and own) or (index == 0 and second_round and splits_first(consumer, context))
        return index in (0, 1) and own

    uses = _split_consumers(split_call, function)
    if uses is None:
        return True  # used some other way: say it may
    for consumer, index in uses:
        if index is None:
            if any(overlaps(i, consumer) for i in (0, 1)):
                return True
        elif overlaps(index, consumer):
            return True
    return False


def split_outputs_meet(first: ast.Call, second: ast.Call, function: ast.AST, context) -> bool:
    """Two splits of one key return the same leading keys. That cannot be shown to matter when one of
    them advances the stream (`rng, input_rng = split(rng)`: the key is rebound to a child and only
    split again) and the other's keys go only into compiled steps (`p_train_step(state, batch,
    dropout_rngs)`), which split them again internally: the copies reach different consumers that
    derive their own keys (a reader's simulation of this pattern found no key drawn from twice).
    Anything else, such as two key arrays for two samplers or helpers, meets."""
    if _random_name(first, context) != "split" or _random_name(second, context) != "split":
        return True  # not two splits: this question does not apply
    for advancing, other in ((first, second), (second, first)):
        if not _advances_stream(advancing):
            continue
        uses = _split_consumers(other, function, itself=False, any_argument=True)
        if uses and all(context.model.jit_binding_for_call(consumer) is not None for consumer, _ in uses):
            return False
    # The keys the two share (the leading ones) must both be read: a child one split never passes on
    # (rebound first), or only reads on the host (`seed = key_data[0].item()`), draws nothing.
    reads = [_split_consumers(call, function, itself=False, reads=True) for call in (first, second)]
    if reads[0] is None or reads[1] is None:
        return True
    indices = [{index for _, index in found} for found in reads]
    if None in indices[0] or None in indices[1]:
        return bool(indices[0] and indices[1])
    return bool(indices[0] & indices[1])


def _stored_at(name: ast.Name) -> tuple[int, int]:
    """When a target is stored: after its assignment's value is evaluated (`keys, out = step(keys)`
    reads `keys` first), so at the end of that statement; elsewhere (a `for` target) where it stands."""
    statement = enclosing_statement(name)
    if isinstance(statement, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        return (statement.end_lineno, statement.end_col_offset)
    return (name.lineno, name.col_offset)


def _advances_stream(split_call: ast.Call) -> bool:
    """`rng, sub = split(rng)`: the split key is rebound to one of the children."""
    parent = parent_of(split_call)
    key = split_call.args[0] if split_call.args else next((k.value for k in split_call.keywords if k.arg == "key"), None)
    if not isinstance(parent, ast.Assign) or not isinstance(key, ast.Name):
        return False
    return any(key.id in bound_names(target) for target in parent.targets if isinstance(target, (ast.Tuple, ast.List)))


def _split_consumers(
    split_call: ast.Call, function: ast.AST, *, itself: bool = True, any_argument: bool = False, reads: bool = False
) -> list[tuple[ast.AST, int | None]] | None:
    """The calls that take a key `split_call` returns, with the index of that key among its outputs
    (None for an unknown index into the key array); None when the keys go somewhere else than a call
    or a simple assignment. Only uses the split reaches count: later in the source before the name is
    bound again, or earlier in a loop around both through its back edge unless rebound on the way.
    With `itself`, the split counts too when the next iteration of a loop splits its own output; with
    `any_argument`, a key in any argument position counts (`p_train_step(state, batch, rngs)`), not
    only the first one or `key=` as in `jax.random`. With `reads`, every read of a key counts (the
    name read, not a call), except reads that only copy it to the host (`int(key[0])`,
    `key_data[0].item()` as a data loader's seed): those draw nothing from it."""
    children: dict[str, int] = {}  # name -> index of the child it holds
    arrays: dict[str, int] = {}  # name -> index of the first child in the array it holds
    parent = parent_of(split_call)
    if isinstance(parent, ast.Subscript):
        index = _constant_index(parent)
        if index is None:
            return None
        holder = parent_of(parent)
        if isinstance(holder, ast.Call):
            return [(holder, index)]
        if isinstance(holder, ast.Assign):
            for target in holder.targets:
                for name in bound_names(target):
                    children[name] = index
        else:
            return None
    elif isinstance(parent, ast.Assign):
        for target in parent.targets:
            if isinstance(target, ast.Name):
                arrays[target.id] = 0
            elif isinstance(target, (ast.Tuple, ast.List)):
                for index, element in enumerate(target.elts):
                    if isinstance(element, ast.Name):
                        children[element.id] = index
                    elif isinstance(element, ast.Starred) and isinstance(element.value, ast.Name):
                        arrays[element.value.id] = index
                        break
    elif isinstance(parent, ast.Call):
        return [(parent, None if reads else 0)]  # `normal(split(k), ...)`: the key array, child 0 first
    else:
        return None
    position = (split_call.lineno, split_call.col_offset)
    own = enclosing_statement(split_call)
    rebound = sorted(
        (_stored_at(n), n.id) for n in walk(function)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and (n.id in children or n.id in arrays)
        and not (own is not None and is_within(n, own))  # the split's own targets bind what is followed
    )

    def rebound_between(name: str, low: tuple, high: tuple) -> bool:
        return any(low < where < high and bound == name for where, bound in rebound)

    def reaches(name: str, use: ast.AST) -> bool:
        at = (use.lineno, use.col_offset)
        if at > position:
            return not rebound_between(name, position, at)
        for loop in enclosing_loops(split_call):
            if isinstance(loop, (ast.For, ast.While)) and is_within(use, loop):
                start, end = (loop.lineno, loop.col_offset), (loop.end_lineno, loop.end_col_offset)
                return not rebound_between(name, position, end) and not rebound_between(name, start, at)
        return False

    uses: list[tuple[ast.Call, int | None]] = []
    if reads:
        for node in walk(function):
            if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)) or not (node.id in children or node.id in arrays):
                continue
            if not reaches(node.id, node) or _read_on_host(node):
                continue
            if node.id in children:
                uses.append((node, children[node.id]))
                continue
            holder = parent_of(node)
            offset = _constant_index(holder) if isinstance(holder, ast.Subscript) else None
            uses.append((node, None if offset is None else arrays[node.id] + offset))
        return uses
    for node in walk(function):
        if not isinstance(node, ast.Call) or (node is split_call and not itself):
            continue
        if any_argument:
            keys = [*node.args, *(k.value for k in node.keywords)]
        else:
            keys = [node.args[0] if node.args else next((k.value for k in node.keywords if k.arg in ("key", "rng_key", "seed")), None)]
        for key in keys:
            if isinstance(key, ast.Name) and key.id in children and reaches(key.id, node):
                uses.append((node, children[key.id]))
            elif isinstance(key, ast.Name) and key.id in arrays and reaches(key.id, node):
                uses.append((node, arrays[key.id]))
            elif isinstance(key, ast.Subscript) and isinstance(key.value, ast.Name) and key.value.id in arrays and reaches(key.value.id, node):
                offset = _constant_index(key)
                uses.append((node, None if offset is None else arrays[key.value.id] + offset))
    return uses


def _constant_index(subscript: ast.Subscript) -> int | None:
    """`keys[1]` -> 1; None for any other index."""
    index = subscript.slice
    return index.value if isinstance(index, ast.Constant) and isinstance(index.value, int) else None


def _read_on_host(name: ast.Name) -> bool:
    """`key[0].item()`, `int(key[0])`, `print(key)`: the key's bits become a host number or text."""
    node = name
    parent = parent_of(node)
    while isinstance(parent, ast.Subscript) and parent.value is node:
        node, parent = parent, parent_of(parent)
    if isinstance(parent, ast.Attribute) and parent.value is node and parent.attr in ("item", "tolist"):
        return True
    if isinstance(parent, ast.Call) and node in parent.args and isinstance(parent.func, ast.Name):
        return parent.func.id in ("int", "float", "str", "print", "repr", "hash")
    return False


def distinct_module_paths(first: ast.Call, second: ast.Call, function: ast.AST, context) -> bool:
    """Two `apply(..., rngs={...})` calls that run different submodules: flax folds each submodule's path
    into the key, so their draws differ. Seen in the code as different `method=` arguments, or as inputs
    given as dicts with disjoint keys (`{"features": v}` and `{"text": t}`: one encoder per modality)."""
    if not all(any(k.arg == "rngs" for k in call.keywords) for call in (first, second)):
        return False
    methods = [next((k.value for k in call.keywords if k.arg == "method"), None) for call in (first, second)]
    if methods[0] is not None and methods[1] is not None and ast.dump(methods[0]) != ast.dump(methods[1]):
        return True
    keys = [_dict_keys(call.args[1], function) if len(call.args) > 1 else None for call in (first, second)]
    return keys[0] is not None and keys[1] is not None and not (keys[0] & keys[1])


def _dict_keys(node: ast.AST, function: ast.AST) -> set[str] | None:
    """The constant string keys of a dict literal, or of a name the function binds once to one."""
    if isinstance(node, ast.Name):
        values = [
            s.value for s in walk(function)
            if isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == node.id for t in s.targets)
        ]
        if len(values) != 1:
            return None
        node = values[0]
    if not isinstance(node, ast.Dict) or not node.keys:
        return None
    if not all(isinstance(k, ast.Constant) and isinstance(k.value, str) for k in node.keys):
        return None
    return {k.value for k in node.keys}


_PAIRING = frozenset({"permutation", "choice", "shuffle"})


def paired_draws(first: ast.Call, second: ast.Call, context) -> bool:
    """`permutation(key, x)` and `permutation(key, y)` (or `choice`, `shuffle`) with every other argument
    the same: the same indices for two parallel arrays, so the pairs stay aligned. On purpose."""
    name = _random_name(first, context)
    if name not in _PAIRING or name != _random_name(second, context):
        return False
    if len(first.args) < 2 or len(second.args) < 2 or len(first.args) != len(second.args):
        return False
    rest = lambda call: ast.dump(ast.Call(func=ast.Name(id="f"), args=call.args[2:], keywords=[k for k in call.keywords if k.arg != "key"]))
    return rest(first) == rest(second) and ast.dump(first.args[1]) != ast.dump(second.args[1])


def paired_over_elements(call: ast.Call, comprehension: ast.AST, bound: set[str], context) -> bool:
    """`[permutation(key, a) for a in arrays]` (or `choice`, `shuffle`): the comprehension written out is
    `permutation(key, x)`, `permutation(key, y)`, ... with every argument but the array the same, the
    paired draws above: one order for every parallel array, on purpose. Only where the array is the
    comprehension's element itself (not `permutation(key, n) for n in range(...)`: sizes, not arrays)."""
    if _random_name(call, context) not in _PAIRING or len(call.args) < 2:
        return False
    element = call.args[1]
    if element.__class__ is not ast.Name or element.id not in bound:
        return False
    for generator in getattr(comprehension, "generators", ()):
        if element.id in {n.id for n in walk(generator.target) if n.__class__ is ast.Name}:
            iterable = generator.iter
            if iterable.__class__ is ast.Call and context.qualified_name(iterable.func) in ("builtins.range", "builtins.enumerate"):
                return False
    others = [call.args[0], *call.args[2:], *(keyword.value for keyword in call.keywords)]
    return not any(n.__class__ is ast.Name and n.id in bound for other in others for n in walk(other))


def exclusive_masks(first: ast.Call, second: ast.Call) -> bool:
    """Draws multiplied by mutually exclusive masks (`draw(k) * (kind == 0)` and `draw(k) * (kind == 1)`):
    at most one survives, so sharing the key is harmless."""
    masks = [_equality_masks(call) for call in (first, second)]
    return any(subject == other and value != other_value for subject, value in masks[0] for other, other_value in masks[1])


def _equality_masks(call: ast.Call) -> set[tuple[str, object]]:
    """(subject, constant) for each `subject == constant` factor of the product the call sits in."""
    found: set[tuple[str, object]] = set()
    node: ast.AST = call
    parent = parent_of(node)
    while isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Mult, ast.BitAnd)):
        node, parent = parent, parent_of(parent)
    for factor in walk(node):
        if isinstance(factor, ast.Compare) and len(factor.ops) == 1 and isinstance(factor.ops[0], ast.Eq):
            right = factor.comparators[0]
            if isinstance(right, ast.Constant):
                found.add((ast.dump(factor.left), right.value))
    return found


# ----- draws whose values never reach a result ---------------------------------------------------------

# Attributes that read an array's type, not its values.
_TYPE_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "size", "aval", "sharding"})
# Methods of a compiled callable that trace or lower it from its arguments' shapes and dtypes alone.
_STAGING_METHODS = frozenset({"lower", "trace", "eval_shape"})
# A model's initialiser: the example input after the key only fixes the parameters' shapes.
_INITIALISERS = frozenset({"init", "lazy_init", "eval_shape", "tabulate"})
# JAX functions that look at the abstract value of the arguments after the function.
_ABSTRACT_EVALUATORS = frozenset({"jax.eval_shape"})
# Functions that read only their argument's shape and dtype (`zeros_like(x)`).
_TYPE_READERS = frozenset({
    "jax.numpy.zeros_like", "jax.numpy.ones_like", "jax.numpy.empty_like", "jax.numpy.full_like",
    "numpy.zeros_like", "numpy.ones_like", "numpy.empty_like", "numpy.full_like", "jax.numpy.shape", "numpy.shape",
    "jax.ShapeDtypeStruct", "jax.numpy.ndim", "numpy.ndim", "builtins.isinstance", "builtins.type",
    "jax.tree.structure", "jax.tree_util.tree_structure", "jax.numpy.result_type", "numpy.result_type",
})
# Tree maps: a tree handed after a function that reads only its leaves' types (`jax.tree.map(jnp.shape,
# x)`, `tree_map(lambda a: a.dtype, x)`) is read only for its structure and types.
_TREE_MAPS = frozenset({"jax.tree.map", "jax.tree_util.tree_map", "jax.tree_map"})
# Methods of a model that run it under `jax.eval_shape` (Flax's `tabulate`): every argument, the key
# included, is read for its shape alone.
_SHAPE_ONLY_METHODS = frozenset({"tabulate"})
# Functions of a library that do the same (`nn.tabulate(module, rngs)`): the positions read for shapes alone.
_SHAPE_ONLY_FUNCTIONS = frozenset({"flax.linen.tabulate", "flax.linen.summary.tabulate", "flax.nnx.tabulate"})
_TRACING_TRANSFORMS = frozenset({"jax.make_jaxpr", "jax.xla_computation"})
# Restores that read a tree only for its structure and replace every leaf with the stored value:
# (position, keyword) of that template. (Flax's `restore_checkpoint` hands the template back where no
# checkpoint exists; a script that restores means to run on one.)
_RESTORE_TEMPLATES = {
    "equinox.tree_deserialise_leaves": (1, "like"),
    "flax.training.checkpoints.restore_checkpoint": (1, "target"),
    "flax.serialization.from_bytes": (0, "target"),
    "flax.serialization.from_state_dict": (0, "target"),
}
# Builders of a tree that holds their arguments as they are (`TrainState.create(params=p, tx=tx)`): a
# result read only for its structure makes the values it holds irrelevant too.
_TREE_HOLDERS = frozenset({"flax.training.train_state.TrainState.create"})


def draw_replaced_by(draw: ast.Call, later: ast.Call, function: ast.AST, context) -> bool:
    """`x = normal(key, s)` and later `x = f(key, ...)` (also under an `if`: a default drawn, then replaced
    when an option is given): the statement of the later consumer rebinds every name holding the draw,
    and nothing reads them in between, so whenever the later draw runs the earlier one has reached
    nothing. Whatever bits the two share, one of them is discarded unseen. Not where either statement
    is in a loop of the flow (a skipped replacement lets the next iteration read the draw), nor where a
    function defined before the replacement reads the names (it may run in between). A later consumer
    in a `return` that reads none of the names ends the flow on its path: the draw dies with the frame.
    Reads in an arm of an `if` whose other arm holds the later consumer are on other paths (`noise =
    gumbel(key)`, then `if a: return f(x + noise)` / `elif b: return g(x, key=key)`): on the path that
    reaches the later consumer they never run (on_other_arm)."""
    if not is_random_call(draw, context):
        return False
    first = parent_of(draw)
    current: ast.AST = draw
    while first is not None and not isinstance(first, ast.stmt):
        if first.__class__ not in (ast.BinOp, ast.UnaryOp) and not (first.__class__ is ast.Call and pure_call(first, context)):
            return False  # kept in a container, an object or a call with effects: more than the name holds it
        current, first = first, parent_of(first)
    if not isinstance(first, (ast.Assign, ast.AnnAssign)) or first.value is not current:
        return False
    targets = first.targets if isinstance(first, ast.Assign) else [first.target]
    if any(n.__class__ in (ast.Attribute, ast.Subscript, ast.Starred) for t in targets for n in walk(t)):
        return False  # stored into an object: it outlives the names
    names = {name for t in targets for name in bound_names(t)}
    second = enclosing_statement(later)
    if not names or not isinstance(second, (ast.Assign, ast.AnnAssign, ast.Return)) or second.value is None or not is_within(later, second.value):
        return False
    if isinstance(second, ast.Return):
        # `return uniform(key)` on a path that never read the draw: the function ends there, so the
        # earlier draw reaches nothing whenever the later one runs (a local name dies with the frame).
        if isinstance(function, ast.Module) or any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in walk(function)):
            return False
        replaced = set(names)
    else:
        replaced = {name for t in (second.targets if isinstance(second, ast.Assign) else [second.target]) for name in bound_names(t)}
    if not names <= replaced or (first.end_lineno, first.end_col_offset) > (second.lineno, second.col_offset):
        return False
    if next(enclosing_loops(first), None) is not None or next(enclosing_loops(second), None) is not None:
        return False
    if any(ancestor.__class__.__name__ in ("Try", "TryStar") for ancestor in ancestors(second)):
        return False  # the second consumer may raise after drawing and leave the first draw in place
    start, stop = (first.end_lineno, first.end_col_offset), (second.value.end_lineno, second.value.end_col_offset)
    for node in walk(function):
        if node.__class__ is ast.Name and node.id in names and node.ctx.__class__ is ast.Load:
            if start <= (node.lineno, node.col_offset) <= stop and not on_other_arm(node, second):
                return False
            if (node.lineno, node.col_offset) < start and any(
                ancestor.__class__ in FUNCTION_NODES and ancestor is not function for ancestor in ancestors(node)
            ):
                return False  # a function defined before may read the draw when called in between
        elif node.__class__ in (ast.Global, ast.Nonlocal) and names & set(node.names):
            return False
    return True


def on_other_arm(node: ast.AST, statement: ast.AST) -> bool:
    """`node` and `statement` lie in different arms of one `if` (the body and the `else`/`elif` chain):
    whenever one runs, the other does not."""
    child = node
    for ancestor in ancestors(node):
        if ancestor.__class__ is ast.If and is_within(statement, ancestor) and statement is not ancestor:
            if child is ancestor.test:
                return False
            mine = ancestor.body if any(child is s for s in ancestor.body) else ancestor.orelse
            return not any(is_within(statement, s) for s in mine) and not is_within(statement, ancestor.test)
        child = ancestor
    return False


def draw_values_unused(draw: ast.Call, function: ast.AST, context, depth: int = 0) -> bool:
    """Whether the array a draw returns is read only for its type, never for its values: passed
    inline or through plain names (and tuples or lists of them) only to `.shape`/`.dtype`, to a
    compiled function's `.lower(...)`/`.trace(...)`, to `jax.eval_shape(f, ...)` or
    `jax.make_jaxpr(f)(...)`, or after the key to a model's `init(key, x)`, or only waited on and
    discarded (`normal(key, ()).block_until_ready()`, a barrier), or handed only to runs of a compiled
    function whose results are discarded in a flow that measures them (`measures_runs`: a benchmark's
    inputs). Reads in an `assert` or inside a loop or branch count where they stand. Such a draw is a
    dummy input: a key it shares with another draw correlates nothing that reaches a result."""
    return _only_abstract(draw, function, context, depth)


def draw_only_shown(draw: ast.Call, function: ast.AST, context, computed: bool = False, demo: bool = False) -> bool:
    """Whether the array a draw returns reaches nothing but a display (`print(x)`, `print(f"{x}")`,
    `display(x)`, `mediapy.show_images([x, y])`, each a statement of its own; as drawn, through names,
    tuples and indexing, parts of it never read; not through arithmetic: `print(x + y)` shows a value
    computed from it; or one of the cases of `draw_values_unused`): its values reach a person's eyes
    and no computation. `computed`: the question is one draw repeated (the same key on every iteration
    of a loop), not two draws compared, so values computed from the draw (arithmetic, the result of a
    function of a module or of the project, `colorize(depth)`) that in turn only reach a display count
    too: each iteration shows the same picture again (a render of fixed views, comparable across
    training) and nothing computed carries the repeated bits on. `demo`: as `computed`, also through
    methods and properties of the values computed (`dist.marginals()`, `x.T`), keyword arguments of a
    module's functions, and functions of the module that only display a parameter (`show(x, title)`):
    a demo input drawn again (key_values.draws_meet says whether two such draws meet)."""
    return _only_abstract(draw, function, context, 0, shown=DEMO_SHOWN if demo else COMPUTED_SHOWN if computed else True)


# `shown` of `_only_abstract` when values computed from the draw may be shown as well; DEMO_SHOWN, also
# through methods of those values and the module's own display functions.
COMPUTED_SHOWN = "computed"
DEMO_SHOWN = "demo"
_COMPUTED_MODES = (COMPUTED_SHOWN, DEMO_SHOWN)


def _only_abstract(node: ast.AST, function: ast.AST, context, depth: int, shown: bool = False) -> bool:
    if _inside_timed_lambda(node, context):
        return True  # `%timeit jnp.dot(x, x.T)`: whatever the timed expression computes, its result is discarded
    parent = parent_of(node)
    if isinstance(parent, (ast.Tuple, ast.List)) and isinstance(parent.ctx, ast.Load):
        return _only_abstract(parent, function, context, depth, shown)
    if isinstance(parent, ast.Starred):
        return _only_abstract(parent, function, context, depth, shown)
    if isinstance(parent, ast.Dict) and node in parent.values:
        return _only_abstract(parent, function, context, depth, shown)  # `{"image": x}` handed on as a whole
    if isinstance(parent, ast.Attribute) and parent.value is node:
        if parent.attr == "block_until_ready" and isinstance(parent_of(parent), ast.Call) and parent_of(parent).func is parent:
            if isinstance(parent_of(parent_of(parent)), ast.Expr):
                return True  # `normal(PRNGKey(0), ()).block_until_ready()`: a barrier, the values are discarded
            # `r = f(x).block_until_ready()`: the wait hands back the same array, followed where it goes
            return _only_abstract(parent_of(parent), function, context, depth, shown)
        if shown == DEMO_SHOWN and parent.attr not in _TYPE_ATTRIBUTES:
            # `dist.marginals()`, `x.sum(0)`, `x.T`: a method or a property of a value computed from the draw
            # computes from it in turn; followed where its result goes (the object's own later reads are
            # each judged apart)
            call = parent_of(parent)
            return _only_abstract(call if call.__class__ is ast.Call and call.func is parent else parent, function, context, depth, shown)
        return parent.attr in _TYPE_ATTRIBUTES
    if shown and isinstance(parent, (ast.FormattedValue, ast.JoinedStr)):
        return _only_abstract(parent, function, context, depth, shown)  # `f"{x}"`: the text made of it goes where the string goes
    if isinstance(parent, ast.Call):
        return node is not parent.func and (
            _abstract_argument(node, parent, context, depth) or _result_only_timed(parent) or (shown and _only_shown(node, parent, context))
            or _pure_result_only_abstract(parent, function, context, depth)
            or _compiled_result_only_abstract(parent, function, context, depth)
            or (shown in _COMPUTED_MODES and (
                _result_only_shown(parent, function, context, depth, shown) or _only_plotted(node, parent, context)
                or (shown == DEMO_SHOWN and _shown_by_function(node, parent, function, context, depth))
            ))
        )
    if isinstance(parent, ast.keyword) and isinstance(parent_of(parent), ast.Call):
        call = parent_of(parent)
        return (
            _abstract_argument(node, call, context, depth) or _result_only_timed(call)  # `scan(f, c, xs=dummy)`
            or _holder_only_abstract(call, function, context, depth, shown)  # `TrainState.create(params=p)` restored over
            or (shown == DEMO_SHOWN and (  # `CRF(log_potentials=x)` only shown; `show(image=x)`
                _result_only_shown(call, function, context, depth, shown) or _shown_by_function(parent, call, function, context, depth)
            ))
        )
    if isinstance(parent, ast.Subscript) and parent.value is node:
        return _only_abstract(parent, function, context, depth, shown)  # `x[None, ...]`: a part of it
    if isinstance(parent, (ast.BinOp, ast.UnaryOp)):
        # `x * 2`: a value computed from it, read only for its type in turn (not where it is shown:
        # `print(x + y)` of two draws from one key shows a result of the correlated values)
        return _only_abstract(parent, function, context, depth, shown if shown in _COMPUTED_MODES else False)
    if isinstance(parent, (ast.Assign, ast.AnnAssign)) and parent.value is node and depth < 3:
        targets = parent.targets if isinstance(parent, ast.Assign) else [parent.target]
        names = [element for target in targets for element in (target.elts if isinstance(target, ast.Tuple) else [target])]
        if not all(isinstance(name, ast.Name) for name in names):
            return False
        # `obs, _ = env.reset(key, params)`: each name the result is unpacked into (`_` discards its part).
        return all(name.id == "_" or _name_only_abstract(name.id, parent, function, context, depth + 1, shown) for name in names)
    return False


# Calls that only show what they are handed (a statement of their own: their result is discarded).
_SHOWING = frozenset({
    "builtins.print", "pprint.pprint", "pprint.pp", "IPython.display.display", "mediapy.show_image", "mediapy.show_images",
    "mediapy.show_video", "mediapy.show_videos", "matplotlib.pyplot.imshow",
    "wandb.log",  # (values sent to a run's dashboard: shown to a person, computed with by nothing)
})


def _result_only_shown(call: ast.Call, function: ast.AST, context, depth: int, shown: str = COMPUTED_SHOWN) -> bool:
    """`call` is a function of a module or of the project (`colorize(depth)`, not a method of an object,
    which may keep its argument) whose result in turn reaches only a display."""
    callee = call.func
    if callee.__class__ is ast.Attribute and not (callee.value.__class__ is ast.Name and callee.value.id in context.model.imports.aliases):
        return False
    if callee.__class__ not in (ast.Name, ast.Attribute):
        return False
    return _only_abstract(call, function, context, depth, shown)


def _shown_by_function(argument: ast.AST, call: ast.Call, function: ast.AST, context, depth: int) -> bool:
    """`show(x, "title")` where `show` is a function of the module (a notebook's own helper) whose body
    only displays the parameter receiving `argument` (`plt.imshow(jnp.asarray(x))`, `print(x.mean())`,
    values computed from it included), and whose result is discarded or in turn only shown: a display
    written as a function. (`argument` is the argument itself or its `keyword`.)"""
    if depth >= 3 or any(a.__class__ is ast.Starred for a in call.args):
        return False
    model = context.model
    resolved = model.resolve_function(call.func, model.scope_for(call))
    if resolved is None or resolved[0] is None or resolved[1] or resolved[2] or not resolved[0].is_function:
        return False
    callee = resolved[0].node
    if callee.__class__ is ast.Lambda or callee is function:
        return False
    arguments = callee.args
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)][1 if resolved[0].has_self else 0:]
    if argument.__class__ is ast.keyword:
        parameter = argument.arg if argument.arg in positional or argument.arg in {a.arg for a in arguments.kwonlyargs} else None
    else:
        index = next((i for i, a in enumerate(call.args) if a is argument), None)
        parameter = positional[index] if index is not None and index < len(positional) else None
    if parameter is None:
        return False
    if not isinstance(parent_of(call), ast.Expr) and not _only_abstract(call, function, context, depth, DEMO_SHOWN):
        return False  # its result computed with
    declared, _ = _function_facts(callee)
    if parameter in declared or any(parameter in reads for reads in _free_reads_of_nested(callee).values()):
        return False
    readers: list[ast.stmt] = []
    _scan(callee.body, parameter, readers)
    if not readers:
        return False
    for reader in readers:
        if isinstance(reader, (ast.Try, ast.ClassDef)) or reader.__class__.__name__ in ("TryStar", "Match"):
            return False
        for read in _reads_of_binding(reader, parameter):
            if not _only_abstract(read, callee, context, depth + 1, DEMO_SHOWN):
                return False
    return True


def draws_meet(first: ast.Call, second: ast.Call, function: ast.AST, limit: int = 200) -> bool:
    """Whether some statement of the flow reads values computed from both draws (a conservative forward
    slice: the statement of each draw, then every statement reading a name it binds, and so on): two
    draws shown apart (`show(normal(key, s))` in one cell, `dist = CRF(normal(key, s))` then
    `show(dist.marginals())` in another) meet nowhere; `plt.scatter(x, y)` of both does."""
    def reached(draw: ast.Call) -> set[int] | None:
        start = enclosing_statement(draw)
        if start is None:
            return None
        seen = {id(start)}
        work = [start]
        while work:
            statement = work.pop()
            if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                names = {name for t in targets for name in bound_names(t)}
            elif isinstance(statement, ast.Expr):
                names = set()
            else:
                return None  # a compound statement, a definition, a return: where the values go is more than a name
            for name in names:
                for reader in _readers_after(statement, name, function):
                    if id(reader) not in seen:
                        seen.add(id(reader))
                        work.append(reader)
                        if len(seen) > limit:
                            return None
        return seen

    mine = reached(first)
    theirs = reached(second) if mine is not None else None
    return mine is None or theirs is None or bool(mine & theirs)


def _only_shown(argument: ast.AST, call: ast.Call, context) -> bool:
    """`print(x)`, `print(f"{x}")`, `display(x)` as a statement of its own: the values reach a person's
    eyes and no computation. Two such draws from one key show the same numbers (what a page on PRNG
    keys prints on purpose) and correlate nothing computed. Not the `sep=`/`file=` of a print."""
    if context.qualified_name(call.func) not in _SHOWING or not isinstance(parent_of(call), ast.Expr):
        return False
    return any(argument is a for a in call.args)


# What a figure is drawn with: the plotting functions of `matplotlib.pyplot` and the same-named methods
# of its Axes (`ax.hist(x)`, `axes[i, j].plot(t, y)`), and seaborn's plots of data.
_PLOT_NAMES = frozenset({
    "plot", "scatter", "hist", "hist2d", "imshow", "matshow", "contour", "contourf", "pcolormesh", "pcolor",
    "bar", "barh", "fill_between", "errorbar", "quiver", "semilogx", "semilogy", "loglog", "violinplot",
    "boxplot", "stem", "streamplot", "hexbin", "plot_surface", "tricontourf",
})
_SEABORN_PLOTS = frozenset({"histplot", "kdeplot", "scatterplot", "lineplot", "heatmap", "displot", "distplot", "violinplot", "boxplot"})


def _only_plotted(argument: ast.AST, call: ast.Call, context) -> bool:
    """`plt.hist(x)`, `ax.plot(t, y)` as a statement of its own, `argument` one of the data it plots: the
    values become a figure, a display as a printout is. (Asked only of one draw repeated on every
    pass of a loop, `computed`: each panel shows the same noise, common random numbers across
    panels, which nothing computed carries on. Two different draws plotted against each other show
    their correlation, and are not asked this.)"""
    if not isinstance(parent_of(call), ast.Expr) or not any(argument is a for a in call.args):
        return False
    qualified = context.qualified_name(call.func) or ""
    module, _, name = qualified.rpartition(".")
    if (module == "matplotlib.pyplot" and name in _PLOT_NAMES) or (module == "seaborn" and name in _SEABORN_PLOTS):
        return True
    function = call.func
    return function.__class__ is ast.Attribute and function.attr in _PLOT_NAMES and _figure_object(function.value, context)


def _figure_object(node: ast.AST, context) -> bool:
    """An Axes (or Figure) of matplotlib: a name every binding of which unpacks or takes the result of a
    `matplotlib` call (`fig, axes = plt.subplots(2, 3)`, `ax = fig.add_subplot(1, 2, 1)` of such a
    `fig`, `ax = plt.gca()`), or an element of one (`axes[i, k]`)."""
    while node.__class__ is ast.Subscript:
        node = node.value
    if node.__class__ is not ast.Name:
        return False
    scope = context.model.scope_for(node)
    while scope is not None:
        values = [value for target, value in scope.bindings if target is not None and node.id in bound_names(target)]
        if values:
            return all(
                value.__class__ is ast.Call and (
                    (context.qualified_name(value.func) or "").startswith("matplotlib.")
                    or (value.func.__class__ is ast.Attribute and value.func.attr in ("add_subplot", "subplots", "gca", "add_axes")
                        and value.func.value is not node and _figure_object(value.func.value, context))
                )
                for value in values
            )
        if node.id in scope.local_names:
            return False  # a parameter or a loop variable: what it holds is the caller's
        scope = scope.parent
    return False


# Array and tree functions computing their result from their arguments only: a result read only for its
# type makes their inputs' values irrelevant too.
_VALUE_FUNCTION_PREFIXES = ("jax.numpy.", "jax.tree.", "jax.tree_util.", "jax.nn.", "numpy.")


def _pure_result_only_abstract(call: ast.Call, function: ast.AST, context, depth: int, shown: bool = False) -> bool:
    """`call` is a pure array or tree function (`jnp.repeat`, `jax.tree.map(f, obs)`) whose own result is
    read only for its type: what it was computed from is a dummy input as well."""
    qualified = context.qualified_name(call.func) or ""
    if not qualified.startswith(_VALUE_FUNCTION_PREFIXES):
        return False
    child, current = call, parent_of(call)
    while current is not None and not isinstance(current, ast.stmt):
        if isinstance(current, ast.Call) and child is not current.func and _may_keep(current, context):
            return False  # `cache.update(product=jnp.dot(a, b))`: a method of another object may keep the result
        child, current = current, parent_of(current)
    return _only_abstract(call, function, context, depth, shown)


def _compiled_result_only_abstract(call: ast.Call, function: ast.AST, context, depth: int) -> bool:
    """`call` runs a compiled function (`@jax.jit def reset(keys)`, `reset = jax.jit(f)`, `jax.jit(f)(x)`)
    whose result is read only for its type (`obs, _ = reset(keys)` then `obs.shape[-1]`): what a compiled
    function does with its inputs is its result (its Python runs once, at trace time), so values drawn
    only to be its inputs reach nothing either: a probe run for a shape. Not a result discarded unread
    (`_ = f_jitted(x, y)`, a bare call): that runs the inputs through to compile or time the function,
    and the inputs are the data it is then run on."""
    if depth >= 3 or not _compiled_callable(call.func, context):
        return False
    holder = parent_of(call)
    while (
        isinstance(holder, ast.Attribute) and holder.attr == "block_until_ready"
        and isinstance(parent_of(holder), ast.Call) and parent_of(holder).func is holder
    ):
        holder = parent_of(parent_of(holder))  # `f(x).block_until_ready()`: the same result, waited for
    if isinstance(holder, ast.Expr) or (
        isinstance(holder, ast.Assign) and all(
            name == "_" or not _readers_after(holder, name, function) for target in holder.targets for name in bound_names(target)
        )
    ):
        # Discarded (also bound to names never read): a compiled function's result is all it makes, so the inputs reach nothing but
        # the run itself. That is a measurement where the flow reads a clock or runs under a profiler
        # (a benchmark's warm-up and timed calls: its inputs are dummies); elsewhere the run may be
        # the data's first pass of a computation used later, and stays a use.
        return measures_runs(function, call, context)
    return _only_abstract(call, function, context, depth + 1)


# Context managers that record what runs in their block for a profile (`with jax.profiler.trace(dir):`).
_PROFILERS = frozenset({"jax.profiler.trace", "jax.profiler.TraceAnnotation", "jax.profiler.StepTraceAnnotation"})


def measures_runs(function: ast.AST, node: ast.AST, context) -> bool:
    """The flow running `node` measures what it runs: it reads a clock (`time.perf_counter()`,
    `timeit.default_timer()`), or `node` lies in a `with jax.profiler.trace(...)` block. Computations
    run there and discarded are the benchmark's timed work; the data they are handed are its inputs."""
    for ancestor in ancestors(node):
        if isinstance(ancestor, (ast.With, ast.AsyncWith)) and any(
            isinstance(item.context_expr, ast.Call) and context.qualified_name(item.context_expr.func) in _PROFILERS
            for item in ancestor.items
        ):
            return True
        if ancestor is function:
            break
    return any(
        n.__class__ is ast.Call and context.qualified_name(n.func) in _CLOCKS
        for n in _own_nodes(function)
    )


def _holder_only_abstract(call: ast.Call, function: ast.AST, context, depth: int, shown: bool = False) -> bool:
    """`call` builds a tree holding its arguments as they are (`TrainState.create(params=p, tx=tx)`),
    and that tree is read only for its structure (the template of a restore)."""
    return context.qualified_name(call.func) in _TREE_HOLDERS and depth < 3 and _only_abstract(call, function, context, depth, shown)


def _inside_timed_lambda(node: ast.AST, context) -> bool:
    """`node` is read within the body of a lambda a timer runs and discards (`%timeit f(x, x.T)`,
    `timeit.timeit(lambda: g(x) @ x)`): the value reaches only a timing, however the body computes with
    it. Not where a method of another object receives it on the way (`results.append(f(x))` keeps it)."""
    child, current = node, parent_of(node)
    while current is not None and not isinstance(current, ast.stmt):
        if isinstance(current, ast.Lambda):
            return timed_lambda(current)
        if isinstance(current, ast.Call) and child is not current.func and _may_keep(current, context):
            return False
        child, current = current, parent_of(current)
    return False


def _may_keep(call: ast.Call, context) -> bool:
    """A method of an object (not of a module: `jnp.dot`) that an argument reaches: it may store it."""
    function = call.func
    if not isinstance(function, ast.Attribute):
        return False
    qualified = context.qualified_name(function)
    return qualified is None or not any(qualified.startswith(prefix) for prefix in ("jax.", "numpy.", "jnp.", "np."))


def _result_only_timed(call: ast.Call) -> bool:
    """`call` is what a timer runs and discards (`timeit.timeit(lambda: f(x))`, a notebook's `%timeit
    f(x)`, also `f(x).block_until_ready()` there): the inputs of a benchmark reach no result, so draws
    made for it share bits with nothing that matters."""
    current: ast.AST = call
    while True:
        attribute = parent_of(current)
        if (isinstance(attribute, ast.Attribute) and attribute.value is current and attribute.attr == "block_until_ready"
                and isinstance(parent_of(attribute), ast.Call) and parent_of(attribute).func is attribute):
            current = parent_of(attribute)
            continue
        break
    body_of = parent_of(current)
    return isinstance(body_of, ast.Lambda) and body_of.body is current and timed_lambda(body_of)


def _name_only_abstract(name: str, statement: ast.stmt, function: ast.AST, context, depth: int, shown: bool = False) -> bool:
    """Every read of the value `statement` binds to `name` is abstract; a nested function reading the
    name (a closure traced later, a callback) counts as a use of its values."""
    if name.startswith("_"):
        return False
    declared, _ = _function_facts(function)
    if name in declared:
        return False
    for nested, reads in _free_reads_of_nested(function).items():
        if name not in reads:
            continue
        # A function of this body computing with the value (`def apply(v): return W @ v`) passes it on
        # wherever the function is used: follow its name, as a name bound to the value is followed.
        if not isinstance(nested, (ast.FunctionDef, ast.AsyncFunctionDef)) or depth >= 3:
            return False
        if not _name_only_abstract(nested.name, nested, function, context, depth + 1, shown):
            return False
    readers = _readers_after(statement, name, function)
    if not readers:
        # never read: `result_is_read` answers that case for the whole; a part of a shown value never read
        # (`acc = render["acc"]` beside the parts shown) reaches nothing
        return bool(shown) and depth >= 2
    for reader in readers:
        if isinstance(reader, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue  # only a parameter or local of its own of that name: no nested function reads the value (above)
        if isinstance(reader, (ast.Try, ast.ClassDef)) or reader.__class__.__name__ in ("TryStar", "Match"):
            return False  # read in a handler or a case: taken as a whole
        # Each read judged where it stands (an `assert` of shapes, the timed calls in a loop's body);
        # a read as a test, an iterable or a context (`if x`, `for row in x`) is no abstract read.
        for read in _reads_of_binding(reader, name):
            if not _only_abstract(read, function, context, depth, shown):
                return False
    return True


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _reads_of_binding(region: ast.AST, name: str) -> Iterator[ast.Name]:
    """The loads of `name` in `region` that read the binding around it: not those inside a lambda
    whose own parameter is `name` (`lambda p, x: apply(p, x)` reads its argument, not the outer `x`),
    nor inside a comprehension that binds `name` itself (its element, conditions and later clauses;
    the first clause's iterable is evaluated outside, in the enclosing scope)."""
    stack = [region]
    while stack:
        node = stack.pop()
        kind = node.__class__
        if kind is ast.Name:
            if node.id == name and node.ctx.__class__ is ast.Load:
                yield node
            continue
        if kind is ast.Lambda and name in {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg) if a is not None}:
            stack.extend(node.args.defaults)
            stack.extend(d for d in node.args.kw_defaults if d is not None)
            continue
        if kind in _COMPREHENSIONS and any(name in target_names(g.target) for g in node.generators):
            stack.append(node.generators[0].iter)
            continue
        stack.extend(child_nodes(node))


def _abstract_argument(argument: ast.AST, call: ast.Call, context, depth: int = 0) -> bool:
    """`call` reads only the abstract value (shape and dtype) of `argument`: a JAX staging or shape
    function, a model's initialiser, or a local function whose parameter is read only so."""
    function = call.func
    qualified = context.qualified_name(function)
    if qualified in _ABSTRACT_EVALUATORS:
        return argument is not (call.args[0] if call.args else None)
    if qualified == "builtins.len" or (qualified in _TYPE_READERS and call.args and argument is call.args[0]):
        return True
    if qualified in _TREE_MAPS and len(call.args) > 1 and argument in call.args[1:] and _reads_type_only(call.args[0], context):
        return True  # `jax.tree.map(jnp.shape, x)`: the leaves' shapes
    if qualified in _SHAPE_ONLY_FUNCTIONS:
        return True  # `nn.tabulate(module, rngs)`: a summary traced with abstract values
    if (
        function.__class__ is ast.Attribute and function.attr in _SHAPE_ONLY_METHODS and qualified is None
        and (argument in call.args or any(k.value is argument for k in call.keywords))
    ):
        return True  # `model.tabulate(key, x)`: Flax runs the init under `jax.eval_shape`, key and input alike
    if qualified in _RESTORE_TEMPLATES:
        position, keyword = _RESTORE_TEMPLATES[qualified]
        return (len(call.args) > position and argument is call.args[position]) or any(
            k.arg == keyword and k.value is argument for k in call.keywords
        )  # `eqx.tree_deserialise_leaves(path, model)`: the restored leaves replace the template's
    if isinstance(function, ast.Call) and context.qualified_name(function.func) in _TRACING_TRANSFORMS:
        return True  # `jax.make_jaxpr(f)(x)`
    if depth < 3 and _local_parameter_abstract(argument, call, context, depth):
        return True  # `make_state(key, dummy)` whose `dummy` only reaches `model.init(key, dummy)`
    if depth < 3 and qualified in _LAX_BODY_INPUTS and _lax_body_input_abstract(argument, call, qualified, context, depth):
        return True  # `lax.scan(init_layer, key, xs=dummy)` whose body hands each slice to an `init` only
    if _initialiser(function, context.model.scope_for(call), context):
        return argument in call.args[1:]  # `model.init(key, x)`, `init_fn(key, x)`: `x` fixes the shapes of the parameters
    if not isinstance(function, ast.Attribute):
        return False
    if function.attr in _STAGING_METHODS and _compiled_callable(function.value, context):
        return True  # `jax.jit(f).lower(x)`, `step.trace(state, batch)`: traced with abstract values
    return False


def _reads_type_only(function: ast.AST, context) -> bool:
    """`function` maps a leaf to its type: `jnp.shape`, `np.shape`, `type`, or a lambda whose body reads
    its parameter only through `.shape`/`.dtype`/... (`lambda a: (a.shape, a.dtype)`)."""
    if isinstance(function, ast.Lambda):
        parameters = {a.arg for a in function.args.args}
        if len(parameters) != 1:
            return False
        reads = [n for n in walk(function.body) if n.__class__ is ast.Name and n.id in parameters]
        return bool(reads) and all(
            isinstance(parent_of(n), ast.Attribute) and parent_of(n).attr in _TYPE_ATTRIBUTES
            or (isinstance(parent_of(n), ast.Call) and context.qualified_name(parent_of(n).func) in _TYPE_READERS)
            for n in reads
        )
    return context.qualified_name(function) in _TYPE_READERS


# `lax.scan(f, init, xs)`: which parameter of the body receives the carry and the slices of `xs`.
_LAX_BODY_INPUTS = {"jax.lax.scan": {1: 0, "init": 0, 2: 1, "xs": 1}}
# Library calls returning a model's (init, apply) pair (`init_fn, apply_fn = hk.transform(f)`).
_INIT_APPLY_PAIRS = frozenset({
    "haiku.transform", "haiku.transform_with_state", "haiku.without_apply_rng", "haiku.multi_transform",
})


def _initialiser(function: ast.AST, scope, context, depth: int = 0) -> bool:
    """`function` is a model's initialiser, which reads the example input after the key for its shape
    only: `model.init` (an unresolved `.init`/`.lazy_init`), or a name bound to one (`init_fn =
    hk.transform(f).init`; `init_fn, apply_fn = hk.transform(f)`; unpacked from a local function whose
    every `return` hands out such names at that position)."""
    if isinstance(function, ast.Attribute):
        return function.attr in _INITIALISERS and context.qualified_name(function) is None
    if not isinstance(function, ast.Name) or depth > 3 or scope is None:
        return False
    from jaxlint.semantic.bindings import owning_scope

    owner = owning_scope(context.model, function.id, scope)
    if owner is None or function.id in owner.param_nodes or function.id in owner.defs:
        return False
    found = False
    for target, value in owner.bindings:
        if isinstance(target, ast.Name):
            if target.id != function.id:
                continue
            if not isinstance(value, ast.Attribute) or not _initialiser(value, owner, context, depth + 1):
                return False
            found = True
        elif isinstance(target, (ast.Tuple, ast.List)) and any(isinstance(e, ast.Name) and e.id == function.id for e in target.elts):
            if any(isinstance(e, ast.Starred) for e in target.elts) or not isinstance(value, ast.Call):
                return False
            index = next(i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == function.id)
            if not _hands_out_initialiser(value, index, owner, context, depth + 1):
                return False
            found = True
        elif function.id in {n.id for n in walk(target) if isinstance(n, ast.Name)}:
            return False
    return found


def _hands_out_initialiser(call: ast.Call, index: int, scope, context, depth: int) -> bool:
    """Element `index` of what `call` returns is an initialiser: the `init` of a library's (init,
    apply) pair, or a local function whose every `return` is a tuple holding one there."""
    if context.qualified_name(call.func) in _INIT_APPLY_PAIRS:
        return index == 0
    resolved = context.model.resolve_function(call.func, scope)
    if resolved is None or resolved[1] or not isinstance(resolved[0].node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    callee = resolved[0]
    returns = [n for n in _own_nodes(callee.node) if isinstance(n, ast.Return)]
    if not returns:
        return False
    for returned in returns:
        value = returned.value
        if not isinstance(value, ast.Tuple) or index >= len(value.elts) or any(isinstance(e, ast.Starred) for e in value.elts):
            return False
        if not _initialiser(value.elts[index], callee, context, depth):
            return False
    return True


def _lax_body_input_abstract(argument: ast.AST, call: ast.Call, qualified: str, context, depth: int) -> bool:
    """`argument` enters a lax body (`lax.scan(f, init, xs)`) as a parameter of a local function that
    reads it only for its abstract value."""
    slots = _LAX_BODY_INPUTS[qualified]
    if argument in call.args:
        slot = slots.get(call.args.index(argument))
    else:
        slot = next((slots.get(k.arg) for k in call.keywords if k.value is argument), None)
    if slot is None or not call.args:
        return False
    resolved = context.model.resolve_function(call.args[0], context.model.scope_for(call))
    if resolved is None or resolved[1] or not isinstance(resolved[0].node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        return False
    callee = resolved[0]
    if slot >= len(callee.params):
        return False
    return _parameter_abstract(callee, callee.params[slot], context, depth)


def _parameter_abstract(callee, parameter: str, context, depth: int) -> bool:
    declared, closure_reads = _function_facts(callee.node)
    if parameter in declared or parameter in closure_reads:
        return False
    reads = [n for n in _own_nodes(callee.node) if n.__class__ is ast.Name and n.id == parameter and n.ctx.__class__ is ast.Load]
    return bool(reads) and all(_only_abstract(read, callee.node, context, depth + 1) for read in reads)


def _local_parameter_abstract(argument: ast.AST, call: ast.Call, context, depth: int) -> bool:
    """`call` runs a local function (not compiled: a jitted one reads its arguments' values) whose
    parameter for `argument` is read, in its body, only for its abstract value."""
    model = context.model
    if model.jit_binding_for_call(call) is not None:
        return False
    resolved = model.resolve_function(call.func, model.scope_for(call))
    if resolved is None:
        return False
    callee, bound, _ = resolved
    if not isinstance(callee.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if argument in call.args:
        index = call.args.index(argument)
        if any(isinstance(a, ast.Starred) for a in call.args[: index + 1]) or index + bound >= len(callee.params):
            return False
        parameter = callee.params[index + bound]
    else:
        parameter = next((k.arg for k in call.keywords if k.value is argument), None)
        if parameter is None or parameter not in callee.param_nodes:
            return False
    return _parameter_abstract(callee, parameter, context, depth)


def _compiled_callable(node: ast.AST, context) -> bool:
    """`jax.jit(f)`, or a name or attribute bound to a jitted or pmapped function."""
    model = context.model
    if isinstance(node, ast.Call):
        return model.transform_of(node.func) in jaxapi.COMPILING
    if isinstance(node, (ast.Name, ast.Attribute)):
        return model.jit_binding_for_name(node) is not None
    return False


# ----- keys fixed once and drawn from per call: a key kept on `self`, a default key argument -----------------
#
# Python evaluates a default argument once, when the `def` runs, and an attribute bound only in
# `__init__` keeps its value for the object's life: a draw from either, on every call of a function
# or method that runs per step, repeats the same numbers. (Separate from the flow of one body, which
# follows local names only.)

# Keys kept fixed on purpose for evaluation or tests: the same noise every call is what they are for.
_FIXED_ON_PURPOSE = re.compile(r"(^|_)(eval[a-z]*|validat[a-z]*|val|valid|test[a-z]*|fixed|vis|viz|visuali[sz]e|plot[a-z]*|demo)(_|$)", re.IGNORECASE)
_SETUP_METHODS = frozenset({"__init__", "__post_init__", "setup"})


def _is_key_value(value: ast.AST, init_params: set[str], context) -> bool:
    """A key made or derived here (`PRNGKey(seed)`, `split(key)[0]`), or an `__init__` parameter named like one."""
    if _produces_key(value, context):
        return True
    return isinstance(value, ast.Name) and value.id in init_params and bool(_KEY_NAME.search(value.id))


def stale_attribute_keys(class_node: ast.ClassDef, model, context) -> list[tuple[ast.Call, str, str, ast.AST]]:
    """(the consuming call, the attribute, the method, evidence that the method runs per step: a loop
    around the draw or a call of the method in a loop of this module) for keys bound on `self` only in
    `__init__` (or `setup`) and drawn from by another method that never advances them. One per attribute:
    the first such draw in the source."""
    methods = model.class_methods.get(class_node)
    if not methods or not any(name not in _SETUP_METHODS for name in methods):
        return []
    # Cheap test first, from the scopes' call lists: some other method draws from a `self` attribute.
    draws: list[tuple[str, ast.Call, ast.AST, str]] = []
    for name, scope in methods.items():
        if name in _SETUP_METHODS:
            continue
        aliases: dict[str, str] | None = None
        for call in scope.calls:
            arguments = consumed_arguments(call, context, lambda _: False, framework=False)
            function = call.func
            if function.__class__ is ast.Attribute and function.value.__class__ is ast.Name and function.value.id == "self" and function.attr in methods:
                # `self._sample(self.rng, logits)`: a method of the class that draws from that parameter.
                arguments = [*arguments, *effects.function_effects(model, methods[function.attr]).consumed_arguments(call)]
            for argument in arguments:
                if isinstance(argument, ast.Attribute) and isinstance(argument.value, ast.Name) and argument.value.id == "self":
                    draws.append((name, call, argument, argument.attr))
                elif isinstance(argument, ast.Name) and next(iter(enclosing_loops(call)), None) is None:
                    # (In a loop of the method the flow reports the local name, consumed every iteration.)
                    if aliases is None:
                        aliases = _attribute_aliases(scope)
                    if argument.id in aliases:
                        draws.append((name, call, argument, aliases[argument.id]))
    if not draws:
        return []
    stored_in: dict[str, set[str]] = {}  # attribute -> methods that store it
    key_attributes: set[str] = set()
    for name, scope in methods.items():
        node = scope.node
        init_params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)} if name in _SETUP_METHODS else set()
        for statement in walk(node):
            if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            elif isinstance(statement, (ast.For, ast.AsyncFor, ast.withitem, ast.NamedExpr)):
                targets = [getattr(statement, "target", None) or getattr(statement, "optional_vars", None)]
            else:
                continue
            for target in targets:
                for element in walk(target) if target is not None else ():
                    if isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name) and element.value.id == "self" and isinstance(element.ctx, ast.Store):
                        stored_in.setdefault(element.attr, set()).add(name)
                        if (
                            name in _SETUP_METHODS and isinstance(statement, ast.Assign) and len(statement.targets) == 1
                            and statement.targets[0] is element and _is_key_value(statement.value, init_params, context)
                        ):
                            key_attributes.add(element.attr)
    candidates = {
        attribute for attribute in key_attributes
        if stored_in.get(attribute, set()) <= _SETUP_METHODS and not _FIXED_ON_PURPOSE.search(attribute)
    }
    if not candidates:
        return []
    calls_by_name = model.calls_by_name()
    found: dict[str, tuple[ast.Call, str, str, ast.AST]] = {}
    for name, call, argument, attribute in draws:
        if attribute not in candidates or (attribute in found and _before(found[attribute][0], call)):
            continue
        loop = next(iter(enclosing_loops(call)), None)
        if loop is None:
            # Called in a loop or comprehension of this module (`agent.act(obs)` per step).
            loop = next((c for c in calls_by_name.get(name, ()) if isinstance(c.func, ast.Attribute) and next(iter(enclosing_loops(c)), None) is not None), None)
        if loop is not None:
            found[attribute] = (argument, attribute, name, loop)
    return [found[attribute] for attribute in sorted(found)]


def advanced_past_own_bit_draws(first: ast.Call, second: ast.Call, key: str, function: ast.AST, context) -> bool:
    """`loss_fn(model, x, key)`, whose body reads the key only in `tkey, losskey = split(key)` and draws
    from `tkey` only with samplers that read its own bits (`uniform(tkey)`, or functions of the module
    that do only that), then `key = split(key, 1)[0]` (or `key, _ = split(key)`) kept only to be handed
    back or split again: the one key both splits hand out, `split(key)[0]`, drew its own bits in the
    helper and is only split afterwards (the next step's split). That is a split after a draw that
    reads the key's own bits, which repeats no value (draws_only_own_bits); Equinox's training steps
    advance their key so."""
    if _random_name(second, context) != "split":
        return False
    mine = _split_consumers(second, function, itself=False, reads=True)
    if not mine or any(index != 0 for _, index in mine):
        return False
    for use, _ in mine:
        parent = parent_of(use)
        if _handed_back(use, parent):
            continue
        if isinstance(parent, ast.Call) and _random_name(parent, context) == "split" and _key_argument(parent) is use:
            continue
        return False
    found = _module_function_receiving(first, key, context, 0)
    if found is None:
        return False
    helper, parameter = found
    reads = _entry_reads(helper, parameter)
    if not reads or len(reads) != 1:
        return False
    split_call = parent_of(reads[0])
    if not isinstance(split_call, ast.Call) or _random_name(split_call, context) != "split" or _key_argument(split_call) is not reads[0]:
        return False
    theirs = _split_consumers(split_call, helper, itself=False, reads=True)
    if not theirs:
        return False
    for use, index in theirs:
        if index is None:
            return False
        if index != 0:
            continue
        consumer = parent_of(use)
        if isinstance(consumer, ast.keyword):
            consumer = parent_of(consumer)
        if not (isinstance(consumer, ast.Call) and _key_argument(consumer) is use and draws_only_own_bits(consumer, use.id, context, 1)):
            return False
    return True


# jax.random samplers whose second positional argument is the shape of the draw.
_SHAPE_SECOND = frozenset({"normal", "uniform", "bernoulli", "gumbel", "laplace", "logistic", "cauchy", "rademacher",
                           "truncated_normal", "exponential", "bits", "orthogonal"})


def same_helper_not_paired(first: ast.Call, second: ast.Call, key: str, context) -> bool:
    """One function given one key twice outside a loop (`features(key, x)`, `features(key, y)`) applies
    the same random transform to two inputs, on purpose. Not so where the two calls make two random
    values rather than transform two inputs: where every argument in which the calls differ only sizes
    the draw (the helper reads the parameter receiving it only in the shape of its samplers: `init(rng,
    (n_in, n_h))` and `init(rng, (n_h, n_h))`, two weight matrices whose leading values coincide, since a
    sampler's values depend on the key and the position only). Two calls that differ in the data they
    transform stay paired, also for a training and a test set (`features(key, x_train)` and
    `features(key, x_test)`: one feature map for both is what a random-features model needs)."""
    texts = [_argument_texts(call, context) for call in (first, second)]
    differing = [place for place in texts[0].keys() | texts[1].keys() if texts[0].get(place) != texts[1].get(place)]
    if not differing:
        return False
    found = _module_function_receiving(first, key, context, 0)
    if found is None:
        return False
    function, _ = found
    arguments = function.args
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    if positional and positional[0] in ("self", "cls"):
        return False
    for place in differing:
        parameter = positional[place] if isinstance(place, int) and place < len(positional) else place if isinstance(place, str) else None
        if parameter is None or not _only_sizes_draws(function, parameter, context):
            return False
    return True


def _argument_texts(call: ast.Call, context) -> dict:
    """position or keyword -> the argument's source text."""
    found: dict = {index: context.text(a) for index, a in enumerate(call.args)}
    found.update({k.arg: context.text(k.value) for k in call.keywords if k.arg is not None})
    return found


def _only_sizes_draws(function: ast.AST, parameter: str, context) -> bool:
    """Every read of `parameter` in `function` is (part of) the shape argument of a `jax.random` sampler."""
    reads = [n for n in walk(function) if n.__class__ is ast.Name and n.id == parameter]
    if not reads or any(n.ctx.__class__ is not ast.Load for n in reads):
        return False
    for read in reads:
        node, parent = read, parent_of(read)
        while parent.__class__ in (ast.Tuple, ast.List, ast.BinOp):
            node, parent = parent, parent_of(parent)
        if parent.__class__ is ast.keyword and parent.arg == "shape":
            call = parent_of(parent)
            if isinstance(call, ast.Call) and is_random_call(call, context):
                continue
        elif isinstance(parent, ast.Call) and len(parent.args) > 1 and parent.args[1] is node and _random_name(parent, context) in _SHAPE_SECOND:
            continue
        return False
    return True


def helper_repeats_draw(first: ast.Call, second: ast.Call, key: str, context) -> bool:
    """`second` runs a function of this module whose body makes the very call `first` is, with the
    same arguments once its parameters are read as what `second` hands them (`dkl = grad_of(sampler.apply(
    params, key))` then `jax.grad(resample_dot)(params, key, dkl)` whose body runs `sampler.apply(params,
    key)`): it recomputes the same draw, identical outputs on purpose (a gradient taken through the
    samples), not a second draw sharing bits."""
    found = _module_function_receiving(second, key, context, 0)
    if found is None:
        return False
    function, _ = found
    if _split_handed_out_before(first, second, context):
        return False  # `a, b = split(k)` drawn from, then `init(k)` whose body splits `k` again: the same keys handed out twice
    made = effects.transformed_call(context.model, second, context.model.scope_for(second)) or second
    arguments = function.args
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)]
    if positional and positional[0] in ("self", "cls"):
        return False
    handed = {name: context.text(value) for name, value in zip(positional, made.args)}
    handed.update({k.arg: context.text(k.value) for k in made.keywords if k.arg is not None})
    wanted = (context.text(first.func), [context.text(a) for a in first.args], sorted((k.arg or "", context.text(k.value)) for k in first.keywords))
    for node in walk(function):
        if node.__class__ is not ast.Call or context.text(node.func) != wanted[0] or len(node.args) != len(wanted[1]):
            continue
        texts = [handed.get(a.id, a.id) if a.__class__ is ast.Name else context.text(a) for a in node.args]
        keywords = sorted((k.arg or "", handed.get(k.value.id, k.value.id) if k.value.__class__ is ast.Name else context.text(k.value)) for k in node.keywords)
        if texts == wanted[1] and keywords == wanted[2]:
            return True
    return False


def _split_handed_out_before(first: ast.Call, second: ast.Call, context) -> bool:
    """`first` is a `split` whose keys were read before `second` (handed to a sampler, a layer): a helper
    that splits the same key again hands out those keys a second time, as a second identical `split`
    written in place would (split_keys_handed_out), not a recomputation of a value."""
    holder = enclosing_statement(first)
    if not isinstance(holder, ast.Assign) or holder.value is not first:
        return False
    names = {n for target in holder.targets for n in bound_names(target)}
    scope = context.model.scope_for(first)
    return bool(names) and scope is not None and split_keys_handed_out(first, second, names, scope.node, context)


def fixed_for_evaluation(call: ast.Call, key: str, context) -> bool:
    """A function of the project (not a `jax.random` sampler, not a framework method) handed a key
    that its name, or the function's, says is kept fixed for evaluation (`evaluate(model, valid_key,
    x)`, `eval_step(state, key, batch)`): the same noise on every call is what makes the validation
    figures comparable, as for a default key or a key kept on `self` for evaluation."""
    if is_random_call(call, context):
        return False
    function = call.func
    name = function.attr if function.__class__ is ast.Attribute else function.id if function.__class__ is ast.Name else ""
    if function.__class__ is ast.Attribute and name in KEY_METHODS:
        return False
    return bool(_FIXED_ON_PURPOSE.search(key) or (name and _FIXED_ON_PURPOSE.search(name)))


def _attribute_aliases(scope: Scope) -> dict[str, str]:
    """Local names a method binds once, to a `self` attribute: `key = self.key` -> {"key": "key"}."""
    counts: dict[str, int] = {}
    aliases: dict[str, str] = {}
    for target, value in scope.bindings:
        for name in (bound_names(target) if target is not None else ()):
            counts[name] = counts.get(name, 0) + 1
            if (
                isinstance(target, ast.Name) and isinstance(value, ast.Attribute)
                and isinstance(value.value, ast.Name) and value.value.id == "self"
            ):
                aliases[name] = value.attr
    return {name: attribute for name, attribute in aliases.items() if counts[name] == 1 and name not in scope.params}


def _before(first: ast.AST, second: ast.AST) -> bool:
    return (first.lineno, first.col_offset) <= (second.lineno, second.col_offset)


def default_key_calls(model, context) -> list[tuple[ast.Call, str, str, ast.AST]]:
    """(a call in a loop, the function it runs, the parameter, the loop) for calls that leave out a key
    parameter whose default is a key made once at definition (`def f(x, key=PRNGKey(0))`) and that the
    function draws from: every iteration draws the same numbers."""
    from jaxlint.semantic import effects

    defaults: dict[str, list[tuple[object, str, int | None]]] = {}  # function name -> (scope, parameter, position)
    for scope in model.scopes:
        node = scope.node
        if not scope.is_function or isinstance(node, ast.Lambda):
            continue
        arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        pairs = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults))
        pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None]
        for parameter, default in pairs:
            if _FIXED_ON_PURPOSE.search(node.name) or _FIXED_ON_PURPOSE.search(parameter.arg):
                continue  # `def validate(..., key=PRNGKey(42))`: the same noise for every evaluation, on purpose
            if isinstance(default, ast.Call) and context.qualified_name(default.func) in KEY_MAKERS:
                position = positional.index(parameter) if parameter in positional else None
                defaults.setdefault(node.name, []).append((scope, parameter.arg, position))
    if not defaults:
        return []
    found = []
    calls_by_name = model.calls_by_name()
    for name, entries in defaults.items():
        for call in calls_by_name.get(name, ()):
            loop = next(iter(enclosing_loops(call)), None)
            if loop is None or any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
                continue
            caller = model.scope_for(call)
            resolved = model.resolve_function(call.func, caller)
            if resolved is None or resolved[1] or resolved[2]:
                continue
            for scope, parameter, position in entries:
                if resolved[0] is not scope:
                    continue
                offset = 1 if scope.has_self and isinstance(call.func, ast.Attribute) else 0
                if position is not None and position - offset < len(call.args):
                    continue  # passed positionally
                if any(k.arg == parameter for k in call.keywords):
                    continue
                if parameter not in _parameters_drawn_from(scope, context, effects):
                    continue
                found.append((call, name, parameter, loop))
    return found


def _parameters_drawn_from(scope, context, effects) -> frozenset[str]:
    """Parameters (positional or keyword-only) the body draws keys from, by the function effects;
    keyword-only ones read directly (the effects summary knows positions only)."""
    names = set(effects.function_effects(context.model, scope).consumed_names)
    keyword_only = {a.arg for a in scope.node.args.kwonlyargs}
    if keyword_only:
        for call in scope.calls:
            for argument in consumed_arguments(call, context, lambda n: n in keyword_only, framework=True, helpers=False):
                if isinstance(argument, ast.Name) and argument.id in keyword_only:
                    names.add(argument.id)
    return frozenset(names)


def stale_key_draws_light(class_node: ast.ClassDef, qualified_name) -> dict[str, str]:
    """method -> attribute, for a class of another module read from syntax alone (project.py): methods
    that draw (a `jax.random` consumer) from a key bound on `self` only in `__init__`/`setup` and never
    advanced. Its callers' loops (`agent.act(obs)` per step in a trainer) repeat the same numbers."""
    methods = [item for item in class_node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))]
    setups = [method for method in methods if method.name in _SETUP_METHODS]
    if not setups or len(setups) == len(methods):
        return {}
    # Cheap test first: `__init__` binds a key on `self` (a key made there, or a key-named parameter).
    keys: set[str] = set()
    for method in setups:
        params = {a.arg for a in (*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs)}
        for node in walk(method):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Attribute)):
                continue
            target, value = node.targets[0], node.value
            if not (isinstance(target.value, ast.Name) and target.value.id == "self"):
                continue
            inner = value.value if isinstance(value, ast.Subscript) else value
            if (isinstance(inner, ast.Call) and qualified_name(inner.func) in KEY_PRODUCERS) or (
                isinstance(value, ast.Name) and value.id in params and _KEY_NAME.search(value.id)
            ):
                keys.add(target.attr)
    keys = {key for key in keys if not _FIXED_ON_PURPOSE.search(key)}
    if not keys:
        return {}
    draws: dict[str, str] = {}
    advanced: set[str] = set()
    by_name = {method.name: method for method in methods}
    for method in methods:
        if method.name in _SETUP_METHODS:
            continue
        aliases = _light_aliases(method, keys)
        for node in walk(method):
            if isinstance(node, ast.Call):
                attribute = _light_stored_key_drawn(node, keys, aliases, by_name, qualified_name)
                if attribute is not None:
                    draws.setdefault(method.name, attribute)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and isinstance(node.value, ast.Name) and node.value.id == "self":
                advanced.add(node.attr)
    return {method: attribute for method, attribute in draws.items() if attribute not in advanced}


def _light_aliases(method: ast.AST, keys: set[str]) -> dict[str, str]:
    """`key = self.key` bound once in the method, outside loops: local name -> attribute."""
    stores: dict[str, int] = {}
    aliases: dict[str, str] = {}
    for node in walk(method):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            stores[node.id] = stores.get(node.id, 0) + 1
        elif isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            value = node.value
            if isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self" and value.attr in keys:
                aliases[node.targets[0].id] = value.attr
    return {name: attribute for name, attribute in aliases.items() if stores.get(name) == 1}


def _light_stored_key_drawn(call: ast.Call, keys: set[str], aliases: dict[str, str], methods: dict, qualified_name) -> str | None:
    """The stored key a call of a method draws from: `normal(self.key)`, `normal(key)` with `key = self.key`
    (not in a loop: the flow of that module reports it), or `self._sample(self.key, x)` with `_sample`
    drawing from that parameter."""
    def stored(argument: ast.AST, in_loop_ok: bool) -> str | None:
        if isinstance(argument, ast.Attribute) and isinstance(argument.value, ast.Name) and argument.value.id == "self" and argument.attr in keys:
            return argument.attr
        if isinstance(argument, ast.Name) and argument.id in aliases and (in_loop_ok or next(iter(enclosing_loops(call)), None) is None):
            return aliases[argument.id]
        return None

    qualified = qualified_name(call.func) or ""
    if qualified.startswith("jax.random.") and qualified[len("jax.random."):] in RANDOM_CONSUMERS:
        return stored(call.args[0], False) if call.args else None
    function = call.func
    if not (isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id == "self"):
        return None
    callee = methods.get(function.attr)
    if callee is None or callee.name in _SETUP_METHODS:
        return None
    parameters = [a.arg for a in (*callee.args.posonlyargs, *callee.args.args)][1:]
    for index, argument in enumerate(call.args):
        attribute = stored(argument, False)
        if attribute is None or index >= len(parameters) or isinstance(argument, ast.Starred):
            continue
        parameter = parameters[index]
        if any(isinstance(n, ast.Name) and n.id == parameter and not isinstance(n.ctx, ast.Load) for n in walk(callee)):
            continue
        for inner in walk(callee):
            if isinstance(inner, ast.Call) and inner.args and isinstance(inner.args[0], ast.Name) and inner.args[0].id == parameter:
                inner_qualified = qualified_name(inner.func) or ""
                if inner_qualified.startswith("jax.random.") and inner_qualified[len("jax.random."):] in RANDOM_CONSUMERS:
                    return attribute
    return None


def stale_keys_through_instances(model) -> list[tuple[ast.Call, str, str, str, ast.AST]]:
    """(call, class name, method, attribute, loop) for `obj.method(...)` in a loop of this module, `obj`
    an instance of another module's class whose summary says `method` draws from a never-advanced key
    kept on `self`. One per calling scope, class and attribute."""
    project = getattr(model, "project", None)
    if project is None:
        return []
    imported = model.imports.aliases
    found = []
    seen: set[tuple] = set()
    for scope in model.scopes:
        for call in scope.calls:
            function = call.func
            if function.__class__ is not ast.Attribute or function.value.__class__ is not ast.Name:
                continue
            receiver = function.value.id
            if receiver in ("self", "cls") or receiver in imported:
                continue  # (`jnp.zeros(...)`: a module, not an instance)
            loop = next(iter(enclosing_loops(call)), None)
            if loop is None:
                continue
            owner = model.instance_class(function.value)
            if owner is None or isinstance(owner, ast.ClassDef) or function.attr not in getattr(owner, "stale_key_draws", {}):
                continue
            attribute = getattr(owner, "stale_key_draws", {}).get(function.attr)
            if attribute is None or (id(scope), owner.name, attribute) in seen:
                continue
            seen.add((id(scope), owner.name, attribute))
            found.append((call, owner.name, function.attr, attribute, loop))
    return found



# ----- keys a call derives by name --------------------------------------------------------------

_BY_NAME_DEPTH = 3


def derives_keys_by_name(call: ast.Call, key: str, context, depth: int = 0) -> bool:
    """Every draw `call` makes from the key `key` uses `fold_in(key, h)` with `h` a hash of a name:
    a library call whose model says `key_derivation: by_name` (a Flax linen `init`/`apply`), or a
    function of this module whose body hands that parameter only to such calls (`def create(rng):
    return net.init(rng, x)`). Such a call reads neither the key's own bits nor the keys
    `split(key, n)` returns (`fold_in(key, i)` for `i < n`), so a split of the key after it shares
    nothing with what it drew."""
    model = context.model
    scope = model.scope_for(call)
    entry = library_models.call_model(model, call, scope)
    if entry is not None:
        return entry.key_derivation == "by_name"
    found = _module_function_receiving(call, key, context, depth)
    if found is None:
        return False
    function, parameter = found
    consumers = _calls_handed(function, parameter, rngs_dicts=True)
    return consumers is not None and all(derives_keys_by_name(c, parameter, context, depth + 1) for c in consumers)


def hands_only_to_frameworks(call: ast.Call, key: str, context, depth: int = 0) -> bool:
    """`call` runs a function of this module that hands the key `key` only to framework calls, which
    derive the keys they draw from (`def train(rng, ...): params = model.init(rng, x)`; also through
    further such functions): beside another consumer it is that framework call, written one call away.
    A framework call is a method read off an object the project does not define (`.init`, `.reset`,
    `.step`, `.sample`, or one given `rngs=`), not a `jax.random` sampler."""
    found = _module_function_receiving(call, key, context, depth)
    if found is None:
        return False
    function, parameter = found
    consumers = _calls_handed(function, parameter, rngs_dicts=True)
    if consumers is None:
        return False
    model = context.model
    for consumer in consumers:
        if hands_only_to_frameworks(consumer, parameter, context, depth + 1):
            continue
        method = consumer.func
        framework = (method.__class__ is ast.Attribute and method.attr in KEY_METHODS) or any(k.arg == "rngs" for k in consumer.keywords)
        if not framework or is_random_call(consumer, context) or model.resolve_function(method, model.scope_for(consumer)) is not None:
            return False
        if method.__class__ is ast.Attribute and (
            method.value.__class__ not in (ast.Name, ast.Attribute) or model.called_instance_class(method.value) is not None
        ):
            return False  # `Sampler().init(key, n)`, `sampler.init(key, n)`: maybe a method the project defines
    return True


def same_key_sequence(first: ast.Call, second: ast.Call, key: str, context) -> bool:
    """Both calls turn the key into their draws' keys by splitting it in call order (library model
    `key_derivation: split`: Haiku's `init`/`apply`, whose `hk.next_rng_key()` comes from a
    PRNGSequence of the key). Two such calls on one key hand the same keys, in the same order, to their
    first, second, ... draw, whatever the two networks are: the first layer of each is drawn from one
    key. (Flax folds each module's path into the key instead: whether two models' paths coincide is
    more than the source shows.)"""
    model = context.model
    for call in (first, second):
        entry = library_models.call_model(model, call, model.scope_for(call))
        if entry is None or entry.key_derivation != "split" or not entry.consumes_key:
            return False
    return True


def derives_keys_by_split(call: ast.Call, context) -> bool:
    """A library call whose model says `key_derivation: split`: it draws from the keys `split(key, n)`
    returns, in order (Haiku's `init`/`apply` reserve keys with `split`), so a later `split(key)` of the
    caller hands out keys it already drew from."""
    entry = library_models.call_model(context.model, call, context.model.scope_for(call))
    return entry is not None and entry.key_derivation == "split"


def draws_from_split_keys(call: ast.Call, key: str, context, depth: int = 0) -> bool:
    """`call` draws from keys that `split(key, n)` returns, so a later `split(key)` of the caller hands
    out keys it already drew from: `split` itself, a sampler that splits its key first (`randint`,
    `permutation`, `shuffle`, `choice` without `p`), a library call whose model says `key_derivation:
    split` (Haiku's `init`), or a function of this module that hands that parameter to one of these
    (`def sample(key): a, b = split(key); ...`). A sampler that reads the key's own bits (`normal`) or a
    Flax init (keys folded in by name) does not; neither, as far as can be shown, does an unknown call."""
    model = context.model
    name = _random_name(call, context)
    if name == "split" or splits_first(call, context) or derives_keys_by_split(call, context):
        return True
    if name is not None or library_models.call_model(model, call, model.scope_for(call)) is not None:
        return False
    found = _module_function_receiving(call, key, context, depth)
    if found is None:
        return _foreign_splits(call, key, context)
    function, parameter = found
    for node in walk(function):
        if isinstance(node, ast.Name) and node.id == parameter and isinstance(node.ctx, ast.Load):
            consumer = parent_of(node)
            if isinstance(consumer, ast.keyword):
                consumer = parent_of(consumer)
            if isinstance(consumer, ast.Call) and node is not consumer.func and draws_from_split_keys(consumer, parameter, context, depth + 1):
                return True
    return False


def draw_kind(call: ast.Call, qualified_name) -> str | None:
    """How a `jax.random` call reads the key it takes, on JAX's default threefry: "own" for a sampler
    reading the key's own bits (`normal`, `uniform`, `choice` with `p`), "split" for one that reads the
    keys `split(key)` returns (`split` and `fold_in` themselves, `randint`, `permutation`, `shuffle`,
    `choice` without `p`); None for any other call."""
    qualified = qualified_name(call.func) or ""
    if not qualified.startswith("jax.random."):
        return None
    name = qualified[len("jax.random."):]
    if name == "choice":
        return "own" if len(call.args) >= 5 or any(k.arg == "p" for k in call.keywords) else "split"
    if name in DIRECT_BITS:
        return "own"
    if name in SPLITS_FIRST or name in ("split", "fold_in"):
        return "split"
    return None


def split_children_apart(first: ast.Call, second: ast.Call, key: str, function: ast.AST, context) -> bool:
    """A `split` of `key` beside a helper (of this module or another) whose body splits the same key
    first: both hand out the same keys, `split(k, n)[i]` being one key whatever `n`, but each key is
    read apart where one side draws from it with a sampler reading its own bits (`normal`) and the other
    only with ones reading the keys split off it (`randint`, a further `split`), or where one side never
    reads it: on the default threefry no bits are shared (`rng, key = split(rng)` then `normal(key)`,
    beside a helper running `rng, key = split(rng); randint(key, ...)`). Each child's readers must be
    known on both sides (semantic/effects.py, split_child_kinds; another module's from its summary)."""
    for direct, helper in ((first, second), (second, first)):
        argument = _key_argument(direct)
        if _random_name(direct, context) != "split" or argument.__class__ is not ast.Name or argument.id != key:
            continue
        theirs = _helper_child_kinds(helper, key, context)
        if theirs is None:
            continue
        mine = _caller_child_kinds(direct, function, context, only=frozenset(theirs))
        if mine is None:
            continue
        return all(
            i not in mine or i not in theirs or (mine[i] != theirs[i] and "both" not in (mine[i], theirs[i]))
            for i in set(mine) | set(theirs)
        )
    return False


def split_children_meet(split_call: ast.Call, helper: ast.Call, key: str, function: ast.AST, context) -> bool:
    """A `split` of `key` and a helper whose body splits `key` first, where some key both hand out is
    read the same way on both sides (each child's readers known on both sides, as for
    `split_children_apart`): `x_key, noise_key = split(rng)` drawn with `normal`, beside `init(rng)`
    running `w_key, b_key = split(rng)` and `normal(w_key)`, draws the same values twice."""
    theirs = _helper_child_kinds(helper, key, context)
    mine = _caller_child_kinds(split_call, function, context) if theirs is not None else None
    if mine is None:
        return False
    return any(i in theirs and (mine[i] == theirs[i] or "both" in (mine[i], theirs[i])) for i in mine)


# How a `jax.random` sampler that splits its key first reads the two keys `split(key)` returns (on the
# default threefry, `_split` inside it is `split(key)`): `permutation` and `shuffle` sort by the bits of
# child 1 and split child 0 for a further round (arrays of more than 1,625 elements); `randint` reads the
# bits of both; `choice` without `p` is `randint` (with replacement) or a `permutation` (without).
_SAMPLER_CHILD_KINDS = {
    "permutation": {0: "split", 1: "own"},
    "shuffle": {0: "split", 1: "own"},
    "randint": {0: "own", 1: "own"},
    "choice": {0: "both", 1: "own"},
}


def _sampler_child_kinds(call: ast.Call, key: str, context) -> dict[int, str] | None:
    """The child kinds of a `jax.random` sampler that splits `key` first (`_SAMPLER_CHILD_KINDS`): a
    split of the same key beside it hands out the very keys it drew from, read as listed there."""
    argument = _key_argument(call)
    if argument is None or argument.__class__ is not ast.Name or argument.id != key or draw_kind(call, context.qualified_name) != "split":
        return None
    kinds = _SAMPLER_CHILD_KINDS.get(_random_name(call, context) or "")
    return dict(kinds) if kinds is not None else None


def _helper_child_kinds(call: ast.Call, key: str, context) -> dict[int, str] | None:
    sampled = _sampler_child_kinds(call, key, context)
    if sampled is not None:
        return sampled
    found = _module_function_receiving(call, key, context, 0)
    if found is not None:
        function, parameter = found
        kinds = effects.split_child_kinds(function, parameter, lambda c: draw_kind(c, context.qualified_name))
        return dict(kinds) if kinds is not None else None
    found = _foreign_summary(call, context)
    if found is None:
        return None
    summary, parameter = found[0], _receiving_parameter(call, key, found[0])
    kinds = dict(getattr(summary, "split_children", ())).get(parameter) if parameter is not None else None
    return dict(kinds) if kinds is not None else None


def _caller_child_kinds(split_call: ast.Call, function: ast.AST, context, only: frozenset[int] | None = None) -> dict[int, str] | None:
    """How the flow draws from each key `split_call` returns (see split_child_kinds), None where a key
    is read any other way or at an unknown index. With `only`, the keys at other indices are left out
    (the other side reads none of them: how they are read shares nothing)."""
    uses = _split_consumers(split_call, function, itself=False, reads=True)
    if uses is None:
        return None
    kinds: dict[int, str] = {}
    for use, index in uses:
        if only is not None and index is not None and index not in only:
            continue
        consumer = parent_of(use)
        if isinstance(consumer, ast.keyword):
            consumer = parent_of(consumer)
        if index is None or not isinstance(consumer, ast.Call) or _key_argument(consumer) is not use:
            return None
        kind = draw_kind(consumer, context.qualified_name)
        if kind is None and use.__class__ is ast.Name and _helper_child_kinds(consumer, use.id, context) is not None:
            kind = "split"  # a helper that reads the key only to split it first (its children's readers known)
        if kind is None:
            return None
        kinds[index] = kind if kinds.get(index, kind) == kind else "both"
    return kinds


def _receiving_parameter(call: ast.Call, key: str, summary) -> str | None:
    params = summary.params
    for index, argument in enumerate(call.args):
        if argument.__class__ is ast.Name and argument.id == key and index < len(params):
            return params[index]
    return next((k.arg for k in call.keywords if k.value.__class__ is ast.Name and k.value.id == key), None)


def _foreign_summary(call: ast.Call, context):
    """(the summary of the function or method of another project module that `call` runs,) or None."""
    model = context.model
    if getattr(model, "project", None) is None or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    function = call.func
    summary = None
    if function.__class__ is ast.Attribute and (function.value.__class__ is ast.Name or _is_self_attribute(function.value)):
        owner = model.self_attribute_class(function.value) if function.value.__class__ is ast.Attribute else (
            model.instance_class(function.value) if function.value.id not in ("self", "cls") else None)
        if owner is not None and not isinstance(owner, ast.ClassDef):
            summary = model.project.method_of(owner, function.attr)
    if summary is None:
        qualified = model.qualified_name(function)
        resolved = model.project.resolve(qualified) if qualified is not None and "." in qualified and not qualified.startswith(("jax.", "numpy.", "flax.", "optax.")) else None
        summary = resolved[0].functions.get(resolved[1]) if resolved is not None else None
    return (summary,) if summary is not None else None


def _foreign_splits(call: ast.Call, key: str, context) -> bool:
    """`call` runs a function or method of another module of the project (a method through an instance
    of its class: `env = Wrapper(base)` then `env.step(rng, s, a)`) that hands the parameter receiving
    `key` to `split` (its summary's `split_key_params`)."""
    found = _foreign_summary(call, context)
    summary = found[0] if found is not None else None
    splits = getattr(summary, "split_key_params", ())
    if not splits:
        return False
    params = summary.params
    for index, argument in enumerate(call.args):
        if argument.__class__ is ast.Name and argument.id == key and index < len(params) and params[index] in splits:
            return True
    return any(k.arg in splits and k.value.__class__ is ast.Name and k.value.id == key for k in call.keywords)


def _is_self_attribute(node: ast.AST) -> bool:
    return node.__class__ is ast.Attribute and node.value.__class__ is ast.Name and node.value.id == "self"


def draws_only_own_bits(call: ast.Call, key: str, context, depth: int = 0, foreign: bool = False) -> bool:
    """Every draw `call` makes from `key` reads the key's own bits or folds names into it: a sampler
    such as `normal` or `uniform`, a Flax init (`key_derivation: by_name`), or a function of this module
    that hands that parameter only to such calls, or a function of another module of the project whose
    summary says it reads the parameter only as such a sampler's key (`own_bit_key_params`; asked where
    `foreign`). Then
    `split(key)` afterwards hands out keys no draw of it used (`fold_in(key, i)` on the default
    threefry), and no value drawn from them can repeat one it drew. Unknown calls: False."""
    if reads_own_bits(call, context) or derives_keys_by_name(call, key, context):
        return True
    model = context.model
    if _random_name(call, context) is not None or library_models.call_model(model, call, model.scope_for(call)) is not None:
        return False
    found = _module_function_receiving(call, key, context, depth)
    if found is None:
        summary = _foreign_summary(call, context) if foreign else None
        parameter = _receiving_parameter(call, key, summary[0]) if summary is not None else None
        return parameter is not None and parameter in getattr(summary[0], "own_bit_key_params", ())
    function, parameter = found
    consumers = _calls_handed(function, parameter, rngs_dicts=False)
    return consumers is not None and all(draws_only_own_bits(c, parameter, context, depth + 1, foreign) for c in consumers)


def splits_before_drawing(call: ast.Call, key: str, context, depth: int = 0) -> bool:
    """`call` runs a function of this module that reads the key it is handed (the value passed in, before
    the body rebinds the parameter) only as the key of `split`, directly or through further such
    functions (`def features(key, n): key, _ = split(key); w = normal(key, (n,))`): every draw it makes
    is from keys a split returns (`fold_in(key, i)` on the default threefry), never from the key's own
    bits. A sampler that reads the key's own bits (`normal(key)`) beside it shares nothing with it, as
    beside `split(key)` itself. Unknown calls, samplers and functions of other modules: False."""
    if _random_name(call, context) is not None:
        return False
    model = context.model
    if library_models.call_model(model, call, model.scope_for(call)) is not None and not _linen_applied(call, model):
        return False  # (a linen module of the project run by `apply`: its method, read below)
    found = _module_function_receiving(call, key, context, depth)
    if found is None:
        return False
    function, parameter = found
    reads = _entry_reads(function, parameter)
    if not reads:
        return False
    for use in reads:
        consumer = parent_of(use)
        if _handed_back(use, consumer):
            continue  # handed back as it came: nothing drawn from it here
        if isinstance(consumer, ast.keyword):
            consumer = parent_of(consumer)
        if not isinstance(consumer, ast.Call) or use is consumer.func or _key_argument(consumer) is not use:
            return False
        if _random_name(consumer, context) == "split":
            continue
        if not splits_before_drawing(consumer, parameter, context, depth + 1):
            return False
    return True


def _key_argument(call: ast.Call) -> ast.expr | None:
    """The argument a call takes its key in: the first positional one, else `key=` / `rng=`."""
    if call.args:
        return call.args[0]
    return next((k.value for k in call.keywords if k.arg in ("key", "rng", "prng_key", "rng_key")), None)


def _entry_reads(function: ast.AST, parameter: str) -> list[ast.Name] | None:
    """The reads of `parameter` that see the value the caller passed: every read in the body's statements
    up to the first one that rebinds it (its value included), which must be a plain assignment at the top
    of the body. None where a compound statement (a branch, a loop, a nested `def` with `nonlocal`) or
    another kind of statement rebinds it first: which value a read sees is then more than the order shows."""
    reads: list[ast.Name] = []
    for statement in function.body:
        nodes = walk(statement)
        rebinds = any(n.__class__ is ast.Name and n.id == parameter and n.ctx.__class__ is not ast.Load for n in nodes)
        if rebinds:
            if statement.__class__ not in (ast.Assign, ast.AnnAssign) or statement.value is None:
                return None
            nodes = walk(statement.value)
        reads.extend(n for n in nodes if n.__class__ is ast.Name and n.id == parameter and n.ctx.__class__ is ast.Load)
        if rebinds:
            break
    return reads


def _calls_handed(function: ast.AST, parameter: str, *, rngs_dicts: bool) -> list[ast.Call] | None:
    """The call each read of `parameter` in `function` is an argument of (with `rngs_dicts`, also a
    value of an `rngs={"params": rng}` dict passed to a call); None when the parameter is never read,
    is rebound (what the body draws from is no longer the caller's key), or is read any other way."""
    consumers = []
    for use in walk(function):
        if not isinstance(use, ast.Name) or use.id != parameter:
            continue
        if not isinstance(use.ctx, ast.Load):
            return None
        consumer = parent_of(use)
        if _handed_back(use, consumer):
            continue  # `return x, rng`: handing the key back to the caller draws nothing from it
        if isinstance(consumer, ast.keyword):
            consumer = parent_of(consumer)
        if rngs_dicts and isinstance(consumer, ast.Dict):
            holder = parent_of(consumer)
            consumer = parent_of(holder) if isinstance(holder, ast.keyword) and holder.arg == "rngs" else None
        if not isinstance(consumer, ast.Call) or use is consumer.func:
            return None
        consumers.append(consumer)
    return consumers or None


def _handed_back(use: ast.Name, parent: ast.AST) -> bool:
    """A name read only to be returned as it is: `return rng`, `return z, ldj, rng`."""
    if parent.__class__ in (ast.Tuple, ast.List):
        parent = parent_of(parent)
    return parent.__class__ is ast.Return


def _module_function_receiving(call: ast.Call, key: str, context, depth: int) -> tuple[ast.AST, str] | None:
    """(the function of this module `call` runs, its parameter that receives the name `key`), for
    following a key into a helper's body; None past the depth limit, for a lambda, a method reached
    through an unknown object, or a call that does not pass `key` by name."""
    if depth >= _BY_NAME_DEPTH or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    model = context.model
    made = effects.transformed_call(model, call, model.scope_for(call))
    if made is not None:
        call = made  # `jax.grad(loss_fn)(params, key)`: `loss_fn(params, key)`
    applied = _linen_applied(call, model)  # Flax linen `net.apply(variables, *args)` runs `__call__(*args)`
    if applied is not None:
        if not applied.is_function or isinstance(applied.node, ast.Lambda):
            return None
        parameter = _parameter_receiving(ast.Call(call.func, call.args[1:], call.keywords), key, applied.node, applied.has_self)
        return None if parameter is None else (applied.node, parameter)
    resolved = model.resolve_function(call.func, model.scope_for(call))
    if resolved is None and call.func.__class__ is ast.Name:
        closure = effects.factory_closure(model, call.func, model.scope_for(call))
        resolved = (closure, 0, set()) if closure is not None else None  # `sample_fun(rng, n)` of a factory's tuple
        if resolved is None:
            binding = model.jit_binding_for_call(call)
            method = model.compiled_method(binding) if binding is not None and not binding.bound_positional else None
            resolved = (method, 0, set()) if method is not None else None  # `step_fn = jax.jit(env.step)`
    if resolved is None and call.func.__class__ is ast.Attribute:
        method = model.method_scope(call.func)
        resolved = (method, 0, set()) if method is not None else None  # `env.step(rng, s, a)`, `env = Env(...)` of this module
    if resolved is None or resolved[0] is None or resolved[1] or resolved[2] or not resolved[0].is_function:
        return None
    function = resolved[0].node
    if isinstance(function, ast.Lambda):
        return None
    parameter = _parameter_receiving(call, key, function, resolved[0].has_self)
    return None if parameter is None else (function, parameter)


def _parameter_receiving(call: ast.Call, key: str, function: ast.AST, has_self: bool) -> str | None:
    """The parameter of `function` that `call` passes the name `key` to (by position or keyword)."""
    arguments = function.args
    positional = [a.arg for a in (*arguments.posonlyargs, *arguments.args)][1 if has_self else 0:]
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Name) and argument.id == key:
            return positional[index] if index < len(positional) else None
    names = {*positional, *(a.arg for a in arguments.kwonlyargs)}
    for keyword in call.keywords:
        if isinstance(keyword.value, ast.Name) and keyword.value.id == key and keyword.arg in names:
            return keyword.arg
    return None


# ----- keys carried through a lax loop body ---------------------------------------------------------

# `lax.scan(f, init, xs)`, `lax.fori_loop(lower, upper, f, init)`, `lax.while_loop(cond, f, init)`:
# which parameter of the body (passed where jaxapi.LAX_LOOP_BODY says) receives the carry, and
# whether what it returns is the carry itself or a `(carry, output)` pair.
_CARRY_SHAPES = {
    "jax.lax.scan": (0, True),
    "jax.lax.fori_loop": (1, False),
    "jax.lax.while_loop": (0, False),
}
_LAX_LOOP_NAMES = frozenset(name.rsplit(".", 1)[1] for name in _CARRY_SHAPES)


def lax_loop_bodies(model, context) -> dict[int, tuple[int, bool]]:
    """id of every function of this module passed as the body of a `lax.scan`, `lax.fori_loop` or
    `lax.while_loop` call of this module -> (the parameter that receives the carry, whether the body
    returns a `(carry, output)` pair). The body runs once per step, with what it returned as the next
    carry: a loop without a `for` statement."""
    bodies: dict[int, tuple[int, bool]] = {}
    for scope in model.scopes:
        for call in scope.calls:
            function = call.func
            name = function.attr if function.__class__ is ast.Attribute else function.id if function.__class__ is ast.Name else None
            if name not in _LAX_LOOP_NAMES:
                continue
            qualified = context.qualified_name(function) or ""
            shape = _CARRY_SHAPES.get(qualified)
            if shape is None:
                continue
            carry, paired = shape
            body = passed_argument(call, *jaxapi.LAX_LOOP_BODY[qualified])
            if body is None:
                continue
            resolved = model.resolve_function(body, scope)
            # (`partial(step, lr)` binds leading parameters: the carry moves right by as many)
            if resolved is None or resolved[0] is None or resolved[2] or not resolved[0].is_function:
                continue
            node = resolved[0].node
            if isinstance(node, ast.Lambda):
                continue
            bodies[id(node)] = (carry + resolved[1] + (1 if resolved[0].has_self else 0), paired)
    return bodies


def carried_keys(function: ast.AST, shape: tuple[int, bool]) -> tuple[int, dict[str, bool]] | None:
    """For a lax loop body (`shape` from `lax_loop_bodies`): (the index of the first body statement
    after the carry is unpacked, {name: whether the body rebinds it after that}) for every name named
    like a key that enters from the carry and leaves in the returned carry at the same place
    (`params, key = carry` ... `return (params, key), out`; or the carry parameter itself). Such a key
    is what the next step starts from. None when the body does not end in its only `return`, or no
    key is carried so."""
    carry_index, paired = shape
    parameters = [*function.args.posonlyargs, *function.args.args]
    if carry_index >= len(parameters) or not function.body or not isinstance(function.body[-1], ast.Return):
        return None
    returned = function.body[-1].value
    if any(isinstance(node, ast.Return) for statement in function.body[:-1] for node in _own_walk(statement)):
        return None
    if paired:
        if not isinstance(returned, ast.Tuple) or len(returned.elts) != 2:
            return None
        returned = returned.elts[0]
    parameter = parameters[carry_index].arg
    entering: dict[tuple, str] = {(): parameter}
    start = 0
    first = function.body[0]
    if (
        isinstance(first, ast.Assign) and len(first.targets) == 1 and isinstance(first.value, ast.Name)
        and first.value.id == parameter and isinstance(first.targets[0], (ast.Tuple, ast.List))
    ):
        entering = dict(_positions(first.targets[0], ()))
        start = 1
    leaving = dict(_positions(returned, ()))
    names = {name for place, name in entering.items() if leaving.get(place) == name and effects.named_like_key(name)}
    if not names:
        return None
    rebound = {name for statement in function.body[start:] for name in _own_bound(statement)}
    return start, {name: name in rebound for name in names}


def _positions(node: ast.AST, place: tuple) -> Iterator[tuple[tuple, str]]:
    """(place, name) for every plain name of a tuple target or tuple expression, `place` its index path."""
    if isinstance(node, ast.Name):
        yield place, node.id
    elif isinstance(node, (ast.Tuple, ast.List)):
        for index, element in enumerate(node.elts):
            yield from _positions(element, (*place, index))


def _own_walk(node: ast.AST) -> Iterator[ast.AST]:
    """`walk` without descending into nested functions, lambdas and classes."""
    if isinstance(node, (*FUNCTION_NODES, ast.ClassDef)):
        return
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in child_nodes(current):
            if not isinstance(child, (*FUNCTION_NODES, ast.ClassDef)):
                stack.append(child)


def _own_bound(statement: ast.stmt) -> Iterator[str]:
    if isinstance(statement, (*FUNCTION_NODES, ast.ClassDef)):
        yield statement.name
    for node in _own_walk(statement):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            yield node.id


def applied_per_element(call: ast.Call, loop: ast.AST, context) -> bool:
    """`for name, x in items: out[name] = transform(key, x)`: a function of the project given one key
    and each element the loop iterates, its result stored under the element's own name. That is the loop written out of `transform(key, a)`, `transform(key, b)`: the same
    random transform applied to several inputs (views cropped alike), which one helper given one key
    for two inputs does on purpose. Not a `jax.random` sampler, and not a result carried into the next
    iteration (`weights = step(key, weights, batch)`)."""
    if not isinstance(loop, (ast.For, ast.AsyncFor)) or _random_name(call, context) is not None:
        return False
    model = context.model
    drawn = effects.call_effects(model, call, model.scope_for(call))
    if not (drawn.consumed_keys or drawn.consumed_names):
        return False  # a framework call or a modelled library call: not a transform of this project
    element_names = set(target_names(loop.target))
    passed = [*call.args, *(keyword.value for keyword in call.keywords)]
    if not any(isinstance(argument, ast.Name) and argument.id in element_names for argument in passed):
        return False
    holder = parent_of(call)
    if isinstance(holder, ast.Assign) and holder.value is call and len(holder.targets) == 1:
        target = holder.targets[0]
        if isinstance(target, ast.Name) and target.id not in element_names:
            # `params = train(key, opt); results[name] = params`: stored under the element's name one
            # statement later, and read in the loop by nothing else (not carried into the next call).
            reads = [n for n in walk(loop) if n.__class__ is ast.Name and n.id == target.id and n.ctx.__class__ is ast.Load]
            return bool(reads) and all(_stored_under(read, element_names) for read in reads)
        return _stored_under(call, element_names)
    return False  # (`out.append(act(key, x))` keeps no element's name: a rollout as often as a transform)


def _stored_under(value: ast.AST, element_names: set[str]) -> bool:
    """`out[name] = value`, `name` an element the loop iterates, `out` not one."""
    holder = parent_of(value)
    if not isinstance(holder, ast.Assign) or holder.value is not value or len(holder.targets) != 1:
        return False
    target = holder.targets[0]
    return (
        isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Name) and target.slice.id in element_names
        and isinstance(target.value, ast.Name) and target.value.id not in element_names
    )


# ----- test inputs of an identity check ---------------------------------------------------------
# Calls that check two computations agree (`np.allclose(a, b)`, `np.testing.assert_allclose(a, b)`).
_AGREEMENT_CHECKS = frozenset({
    "allclose", "isclose", "array_equal", "array_equiv", "assert_allclose", "assert_array_equal",
    "assert_array_almost_equal", "assert_almost_equal", "assert_equal", "assert_trees_all_close",
})


def identity_check_input(draw: ast.Call, later_draw: ast.Call, context) -> bool:
    """The array a draw returns (bound to a name) reaches, through the statements after it in its own
    block, both sides of a check that two computations agree: `assert np.allclose(grads, grads2)`,
    `np.testing.assert_allclose(f(x), g(x))`, `assert jnp.abs(y1 - y2).sum() < 1e-6`, both sides
    computed from it. Such a check holds for any input: the draw is a test input, and bits it shares
    with another draw change nothing the check shows (printing the values on the way relies on no
    statistics either). Only a check after `later_draw`, the other draw of the key: one that ran before
    it checked something else. A comparison with a literal, or with a loose tolerance, is not such a check."""
    statement = parent_of(draw)
    if not isinstance(statement, ast.Assign) or statement.value is not draw:
        return False
    derived = {name for target in statement.targets for name in bound_names(target)}
    if not derived:
        return False
    block = next(
        (b for f in ("body", "orelse", "finalbody") if isinstance(b := getattr(parent_of(statement), f, None), list) and statement in b),
        None,
    )
    if block is None:
        return False
    index = next(i for i, s in enumerate(block) if s is statement)
    # The other side of the check may compute from other draws of the block (`jacfwd(f)(x)` against `W`).
    drawn = set(derived)
    for earlier in block[:index]:
        if isinstance(earlier, ast.Assign) and isinstance(earlier.value, ast.Call) and is_random_call(earlier.value, context):
            drawn |= {name for target in earlier.targets for name in bound_names(target)}
    for later in _simple_statements(block[index + 1:]):
        if later.lineno > later_draw.lineno and _agreement_of(later, derived, drawn, context):
            return True
        for names in (derived, drawn):
            _follow(later, names)
        if isinstance(later, ast.Assign) and isinstance(later.value, ast.Call) and is_random_call(later.value, context):
            drawn |= {name for target in later.targets for name in bound_names(target)}
    return False


def _simple_statements(statements: list[ast.stmt]) -> Iterator[ast.stmt]:
    """The statements of a block in source order, those of its loops, branches and `with` blocks
    included (a benchmark's timed loop, a check in one arm of a mode switch); a function defined there
    stays one statement."""
    for statement in statements:
        if isinstance(statement, (ast.For, ast.AsyncFor, ast.While, ast.If, ast.With, ast.AsyncWith)):
            yield from _simple_statements(statement.body)
            yield from _simple_statements(getattr(statement, "orelse", []))
        else:
            yield statement


def _follow(statement: ast.stmt, derived: set[str]) -> None:
    """Names computed from `derived` by `statement` join it; names it rebinds otherwise leave it."""
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and statement.value is not None:
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        names = {name for target in targets for name in bound_names(target)}
        if _loads(statement.value) & derived:
            derived |= names
        elif not isinstance(statement, ast.AugAssign):
            derived -= names
    elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
        if _loads(statement) & derived:
            derived.add(statement.name)  # `def f1(x): return W @ x` computes from the draw `W`
        else:
            derived.discard(statement.name)


def _agreement_of(statement: ast.stmt, derived: set[str], drawn: set[str], context) -> bool:
    """`statement` checks that two expressions agree, one computed from `derived` (the draw) and both
    from `drawn` (the block's draws)."""
    if isinstance(statement, ast.Assert):
        test = statement.test
        if isinstance(test, ast.Compare) and len(test.comparators) == 1:
            operator, right = test.ops[0], test.comparators[0]
            sides = (test.left, right)
            if isinstance(operator, ast.Eq) and _both_computed(sides, derived, drawn):
                return True
            if isinstance(operator, ast.Eq) and all(_shape_of_computation(side, drawn) for side in sides) and any(
                _shape_of_computation(side, derived) for side in sides
            ):
                return True  # `assert f(x).shape == reference(x).shape`: agreement for any values
            if isinstance(operator, (ast.Lt, ast.LtE)) and _tight(right) and _difference_of(test.left, derived, drawn):
                return True  # `assert jnp.abs(a - b).max() < 1e-6`
        roots = [test]
    elif isinstance(statement, ast.Expr):
        roots = [statement.value]
    else:
        return False
    for root in roots:
        for node in walk(root):
            if node.__class__ is not ast.Call:
                continue
            function = node.func
            name = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", "")
            if (name in _AGREEMENT_CHECKS and len(node.args) >= 2 and _both_computed(node.args[:2], derived, drawn)
                    and all(_tight(keyword.value) for keyword in node.keywords if keyword.arg in _TOLERANCES)):
                return True
    return False


# A tolerance above this is a statistical check (an estimate against the truth, `atol=0.1`), which
# relies on the draws being independent samples; an identity holds to rounding.
_IDENTITY_TOLERANCE = 1e-3
_TOLERANCES = frozenset({"atol", "rtol", "tol", "rel", "abs"})


def _tight(node: ast.AST) -> bool:
    """A tolerance no looser than rounding error (a literal at most 1e-3)."""
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return False
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and abs(node.value) <= _IDENTITY_TOLERANCE


def _shape_of_computation(expression: ast.AST, derived: set[str]) -> bool:
    return isinstance(expression, ast.Attribute) and expression.attr == "shape" and isinstance(expression.value, ast.Call) and bool(
        _loads(expression.value) & derived
    )


def _computed_from(expression: ast.AST, derived: set[str]) -> bool:
    """An expression that computes from a derived value (not only its shape, dtype or length)."""
    if isinstance(expression, ast.Attribute) and expression.attr in _TYPE_ATTRIBUTES:
        return False
    if isinstance(expression, ast.Call) and getattr(expression.func, "id", None) == "len":
        return False
    return bool(_loads(expression) & derived)


def _both_computed(sides, derived: set[str], drawn: set[str]) -> bool:
    return all(_computed_from(side, drawn) for side in sides) and any(_computed_from(side, derived) for side in sides)


def _difference_of(expression: ast.AST, derived: set[str], drawn: set[str]) -> bool:
    return any(
        isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub) and _both_computed((node.left, node.right), derived, drawn)
        for node in walk(expression)
    )


# ----- key lifetime: keys a loop derives from what it never changes -----------------------------------

# `fold_in(key, data)` derives a key without consuming one: the same key and data give the same key.
_DERIVERS = frozenset({"jax.random.fold_in"})
# Objects that hold the keys they are given and draw from them (`nnx.Rngs(dropout=key)`): built from
# the same keys, they draw the same numbers.
_KEY_HOLDERS = frozenset({"flax.nnx.Rngs", "flax.experimental.nnx.Rngs"})
_DATA_NODES = frozenset({ast.Constant, ast.Name, ast.BinOp, ast.UnaryOp, ast.Load, ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.USub, ast.Pow, ast.Div})


def loop_invariant_keys(loop: ast.AST, context, changing: frozenset[str] = frozenset()) -> dict[str, ast.Call]:
    """Names a loop binds to the same key on every iteration: each binding in the loop is a
    `fold_in(key, data)` (or an `nnx.Rngs` built from such keys) whose key and data the loop never
    changes (`for batch in loader: k = fold_in(base, step)` with `step` a parameter): the loop rebinds
    the name, yet to one key, so a draw from it in every iteration repeats its numbers as an unchanged
    key's would. Returns name -> the `fold_in` that makes it. Only plain names, constants and their
    arithmetic count as unchanged data: an attribute or a call may change without a binding in the
    loop. Not a key made from a seed (`PRNGKey(seed)` in the loop), a fixed evaluation seed on purpose.
    `changing`: names that change per iteration without a binding in `loop` (a lax loop body's
    parameters: the carry, the step's slice, the index)."""
    bound = assigned_in(loop) | changing
    if not bound:
        return {}
    bindings: dict[str, list] = {}
    for node in walk_same_scope(loop):
        kind = node.__class__
        if kind is ast.Assign and len(node.targets) == 1 and node.targets[0].__class__ is ast.Name:
            bindings.setdefault(node.targets[0].id, []).append(node.value)
        elif kind is ast.AnnAssign and node.value is not None and node.target.__class__ is ast.Name:
            bindings.setdefault(node.target.id, []).append(node.value)
        elif kind is ast.Name and node.ctx.__class__ is not ast.Load:
            parent = parent_of(node)
            if not ((parent.__class__ is ast.Assign and len(parent.targets) == 1) or parent.__class__ is ast.AnnAssign):
                bindings.setdefault(node.id, []).append(None)  # a tuple target, a loop variable, `+=`, `:=`
    candidates = {name: values for name, values in bindings.items() if None not in values and name in bound}
    if not candidates or not any(
        v.__class__ is ast.Call and context.qualified_name(v.func) in _DERIVERS for values in candidates.values() for v in values
    ):
        return {}
    invariant: dict[str, ast.Call] = {}
    changed = True
    while changed:
        changed = False
        for name, values in candidates.items():
            if name in invariant:
                continue
            made = [_invariant_key(value, bound, invariant, context) for value in values]
            if made and all(m is not None for m in made):
                invariant[name] = made[0]
                changed = True
    return invariant


def _invariant_key(value: ast.AST, bound: set[str], invariant: dict[str, ast.Call], context, depth: int = 0) -> ast.Call | None:
    """The `fold_in` that makes `value`, when `value` is the same key on every iteration; else None."""
    if depth > 4 or value.__class__ is not ast.Call:
        return None
    qualified = context.qualified_name(value.func)
    if qualified in _DERIVERS:
        if len(value.args) != 2 or value.keywords:
            return None
        key, data = value.args
        if not _unchanged_key(key, bound, invariant, context, depth) or not _unchanged_data(data, bound):
            return None
        if not any(part.__class__ is ast.Name for part in walk(data)) and not (
            (key.__class__ is ast.Name and key.id in invariant) or key.__class__ is ast.Call
        ):
            return None  # `fold_in(base, 0)`: a fixed stream written as such, like a literal seed per setting
        return value
    if qualified in _KEY_HOLDERS:
        passed = [*value.args, *(k.value for k in value.keywords)]
        if not passed or any(k.arg is None for k in value.keywords):
            return None
        made = None
        for argument in passed:
            if argument.__class__ is ast.Name and argument.id in invariant:
                made = made or invariant[argument.id]
            elif not _unchanged_data(argument, bound):
                return None
        return made  # a holder of seeds alone is a fixed seed (`nnx.Rngs(0)`), not a derived key
    return None


def _unchanged_key(node: ast.AST, bound: set[str], invariant: dict[str, ast.Call], context, depth: int) -> bool:
    if node.__class__ is ast.Name:
        return node.id not in bound or node.id in invariant
    if node.__class__ is ast.Call:
        if context.qualified_name(node.func) in KEY_MAKERS:
            return len(node.args) == 1 and not node.keywords and _unchanged_data(node.args[0], bound)
        return _invariant_key(node, bound, invariant, context, depth + 1) is not None
    return False


def _unchanged_data(node: ast.AST, bound: set[str]) -> bool:
    for part in walk(node):
        if part.__class__ not in _DATA_NODES:
            return False
        if part.__class__ is ast.Name and part.id in bound:
            return False
    return True


def invariant_holders_handed_on(loop: ast.AST, invariant: dict[str, ast.Call], context) -> list[tuple[str, ast.Call]]:
    """(name, call) for each call of the loop handed an `nnx.Rngs` that the loop rebuilds from one key
    on every iteration (`rngs = nnx.Rngs(dropout=k)`, `k` in `invariant`): the holder restarts its
    streams each time, so whatever draws from it (`train_step(model, batch, rngs)`, `Model(rngs=rngs)`)
    draws the same numbers in every iteration. One call per name; not builtins (`print(rngs)`)."""
    holders = set()
    for node in walk_same_scope(loop):
        if node.__class__ is ast.Assign and len(node.targets) == 1 and node.targets[0].__class__ is ast.Name:
            name = node.targets[0].id
            if name in invariant and node.value.__class__ is ast.Call and context.qualified_name(node.value.func) in _KEY_HOLDERS:
                holders.add(name)
    found = []
    for node in walk_same_scope(loop):
        if node.__class__ is not ast.Call or not holders:
            continue
        if (context.qualified_name(node.func) or "").startswith("builtins."):
            continue
        for argument in (*node.args, *(k.value for k in node.keywords)):
            if argument.__class__ is ast.Name and argument.id in holders:
                found.append((argument.id, node))
                holders.discard(argument.id)
                break
    return sorted(found, key=lambda item: (item[1].lineno, item[1].col_offset))


def carry_derived_names(function: ast.AST, carry_index: int) -> frozenset[str]:
    """For a lax loop body (`lax_loop_bodies` gives the carry's parameter): the carry parameter and every
    name the body binds from it, directly or through other such names (`tokens = carry`, `x, h = carry`,
    `h = h + 1`). What these hold is the state the previous step returned: a call reading one of them
    continues a sequence, step after step, as a `for` loop's body that reads what the last iteration
    left does."""
    parameters = [*function.args.posonlyargs, *function.args.args]
    if carry_index >= len(parameters):
        return frozenset()
    names = {parameters[carry_index].arg}
    assignments = [
        node for node in _own_nodes(function)
        if node.__class__ in (ast.Assign, ast.AugAssign, ast.AnnAssign) and getattr(node, "value", None) is not None
    ]
    changed = True
    while changed:
        changed = False
        for node in assignments:
            if not any(n.__class__ is ast.Name and n.id in names for n in _own_walk(node.value)):
                continue
            targets = node.targets if node.__class__ is ast.Assign else [node.target]
            for target in targets:
                for name in bound_names(target):
                    if name not in names:
                        names.add(name)
                        changed = True
    return frozenset(names)


def reads_carry(call: ast.Call, names: frozenset[str], context=None) -> bool:
    """The call is handed (as an argument, or inside one) a name holding the loop's carried state. Not a
    model's initialiser (`nca.init(key, x=grid)`): the input after the key fixes only the parameters'
    shapes, so each step recomputes the same parameters, one rule applied alike at every step."""
    if context is not None and _initialiser(call.func, context.model.scope_for(call), context):
        return False
    return any(
        n.__class__ is ast.Name and n.id in names
        for argument in (*call.args, *(keyword.value for keyword in call.keywords)) for n in _own_walk(argument)
    )


def lax_body_constant_keys(function: ast.AST, context) -> tuple[frozenset[str], dict[str, ast.Call]]:
    """For the body of a `lax.scan` / `fori_loop` / `while_loop` (`lax_loop_bodies`): (the names it reads
    but neither receives nor binds: captured from the scope around it, fixed while the loop runs; the
    names it binds on every step to a `fold_in` of such names, `loop_invariant_keys`). A key of either
    kind drawn from in the body is the same key at every step: the body is traced once, and what it
    captures is a constant of the traced loop."""
    parameters = frozenset(a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs))
    extra = [a.arg for a in (function.args.vararg, function.args.kwarg) if a is not None]
    changing = parameters | frozenset(extra)
    bound = assigned_in(function) | changing
    free = frozenset(
        node.id for node in _own_nodes(function)
        if node.__class__ is ast.Name and node.ctx.__class__ is ast.Load and node.id not in bound
    )
    return free, loop_invariant_keys(function, context, changing)


def unread_sibling(consumer: ast.Call, key: str, function: ast.AST, context) -> tuple[ast.Assign, str] | None:
    """(the split, the sibling's name) where `consumer` draws from `key` just after `key, sub =
    jax.random.split(key)` made a fresh key for it and `sub` is read nowhere in the function: the split
    keeps `key` to be split again and hands `sub` out for this use, so passing `key` here is the slip,
    and any later split of `key` (the next iteration's, the next statement's) hands out what this use
    drew from. The split is the binding of `key` nearest before the consumer, in the statement list
    the consumer's statement (or one around it) sits in, with no other binding of `key` in between.
    A split into more names counts alike (`key, noise_key, accept_key = split(key, 3)`, `noise_key`
    never read): the first sibling never read is the one made for this use.
    Not a sibling named `_` or `_rng` (discarded on purpose, as Python spells it: `key, _ = split(key)`
    keeps `key` for this use)."""
    from jaxlint.semantic.reaching import statement_list

    current = enclosing_statement(consumer)
    while current is not None and current is not function:
        placed = statement_list(current) if isinstance(current, ast.stmt) else None
        if placed is not None:
            block, index = placed
            for earlier in reversed(block[:index]):
                if key not in _statement_binds(earlier):
                    continue
                siblings = _split_with_siblings(earlier, key, context)
                if not siblings or _rebound_between(key, earlier, consumer, function):
                    return None
                unread = next((sibling for sibling in siblings if not _read_after(sibling, earlier, function)), None)
                return None if unread is None else (earlier, unread)
        current = parent_of(current)
    return None


def _statement_binds(statement: ast.stmt) -> set[str]:
    """The names an assignment statement binds (none for other statements)."""
    if statement.__class__ is ast.Assign:
        return {name for target in statement.targets for name in bound_names(target)}
    if statement.__class__ in (ast.AugAssign, ast.AnnAssign):
        return set(bound_names(statement.target))
    return set()


def _split_with_siblings(statement: ast.stmt, key: str, context) -> list[str]:
    """`key, sub = jax.random.split(key)` (or `sub, key = ...`, `split(key, 2)`; `key, a, b = split(key,
    3)`, the count matching the names): the siblings' names, those not discarded (`_`, `_x`)."""
    if statement.__class__ is not ast.Assign or len(statement.targets) != 1:
        return []
    target, value = statement.targets[0], statement.value
    if target.__class__ is not ast.Tuple or len(target.elts) < 2 or any(e.__class__ is not ast.Name for e in target.elts):
        return []
    if value.__class__ is not ast.Call or context.qualified_name(value.func) != "jax.random.split":
        return []
    if not value.args or value.args[0].__class__ is not ast.Name or value.args[0].id != key or value.keywords:
        return []
    count = len(target.elts)
    if len(value.args) > 2 or (len(value.args) == 2 and not (value.args[1].__class__ is ast.Constant and value.args[1].value == count)):
        return []
    if len(value.args) == 1 and count != 2:
        return []
    names = [e.id for e in target.elts]
    if names.count(key) != 1 or len(set(names)) != count:
        return []
    return [name for name in names if name != key and not name.startswith("_")]


def _rebound_between(key: str, statement: ast.stmt, consumer: ast.Call, function: ast.AST) -> bool:
    low, high = (statement.end_lineno, statement.end_col_offset), (consumer.lineno, consumer.col_offset)
    return any(
        node.__class__ is ast.Name and node.id == key and node.ctx.__class__ is not ast.Load
        and low < (node.lineno, node.col_offset) < high
        for node in walk_same_scope(function)
    )


def _read_after(name: str, statement: ast.stmt, function: ast.AST) -> bool:
    """`name`, bound by `statement`, is read before it is bound again: later in the source (also in a
    function defined later that reads it), or, where the statement sits in a loop, earlier in the loop's
    body before any binding there (the next iteration's read)."""
    stores, loads = [], []
    for node in walk(function):
        if node.__class__ is ast.Name and node.id == name:
            (loads if node.ctx.__class__ is ast.Load else stores).append((node.lineno, node.col_offset))
    end = (statement.end_lineno, statement.end_col_offset)
    after = sorted(position for position in stores if position > end)
    limit = after[0] if after else None
    if any(position > end and (limit is None or position < limit) for position in loads):
        return True
    loop = next((a for a in ancestors(statement) if a.__class__ in (ast.For, ast.AsyncFor, ast.While) or a is function), None)
    if loop is None or loop is function:
        return False
    start = (loop.lineno, loop.col_offset)
    first_store = min((p for p in stores if start < p < end), default=None)
    begin = (statement.lineno, statement.col_offset)
    return any(start < p < begin and (first_store is None or p < first_store) for p in loads)


def _linen_applied(call: ast.Call, model):
    """The method of this module's Flax linen Module class that `net.apply(variables, *args)` runs (its
    `__call__`, or the one `method=` names), else None."""
    if call.func.__class__ is not ast.Attribute or call.func.attr != "apply" or not call.args:
        return None
    return model._linen_method_applied(call)
