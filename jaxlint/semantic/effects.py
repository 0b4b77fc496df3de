"""Function effects: what a function of the project does to its arguments, for its call sites.

A summary per function or method, read from its body once: the parameters it draws PRNG keys from
(`def make_state(rng): return model.init(rng, x)` consumes `rng`), and the parameters whose device
values it reads on the host (`def to_host(m): return {k: float(v) for k, v in m.items()}` syncs `m`).
A call site then knows that `make_state(key)` consumes `key` and that `to_host(metrics)` waits for
`metrics`, as if the body were written there. For a consumed key it also records where the draws go
when they go nowhere but into the returned value (`return runner, (table, lanes)` with `lanes` split
from the key): a caller that drops those parts of the result drew nothing it can see. What counts as a consumption or a sync comes from the
library models (library_models/) and the calls that need a host value (`float`, `.item()`).

Functions of this module are summarised from the semantic model (cached per model); functions of
other project modules from their syntax alone, in project.py's light summaries (`summarise_effects`),
so that both read the same facts. Callees are followed a few calls deep inside one module.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass, replace

from jaxlint.semantic import handed_callables, library_models
from jaxlint.semantic.syntax import bound_names, child_nodes, walk

# Named like a key (as key_values.py reads names): only such parameters are asked about.
_KEY_NAME = re.compile(r"(^|_)(rng|key|prng)s?\d*$|^(rng|key|subkey|prng)", re.IGNORECASE)
# Methods that draw from a first argument known to be a key, on objects the models do not know
# (`net.init(rng, x)` of a model built elsewhere): the same reading as key_values.KEY_METHODS.
_KEY_METHODS = frozenset({"init", "init_with_output", "reset", "sample"})
# Calls that read their argument's value on the host.
_DEVICE_OP_PREFIXES = ("jax.numpy.", "jax.nn.", "jax.lax.")
_HOST_READS = frozenset({"builtins.float", "builtins.int", "builtins.bool", "numpy.asarray", "numpy.array", "jax.device_get"})
_HOST_METHODS = frozenset({"item", "tolist"})
# Iterating these over a parameter visits its parts: `for k, v in m.items()`, `jax.tree.leaves(m)`.
_PART_METHODS = frozenset({"items", "values"})
_PART_CALLS = frozenset({"jax.tree.leaves", "jax.tree_util.tree_leaves"})
_MAX_DEPTH = 2
_SHORT_HELPER_LINES = 12
# The position given to a keyword-only parameter in an Effects tuple: past every positional argument a
# call writes, so only a keyword reaches it.
_KEYWORD_ONLY = 1 << 16


def named_like_key(name: str) -> bool:
    return bool(_KEY_NAME.search(name))


@dataclass(frozen=True)
class Effects:
    """Positional parameters (self excluded) by position; `consumed_names`: the names of the consumed
    ones, so that a call passing the key by keyword (`denoise(x, rng=rng)`) is read the same way."""

    consumed_keys: frozenset[int] = frozenset()
    synced: frozenset[int] = frozenset()
    consumed_names: frozenset[str] = frozenset()
    # Consumed parameters whose draws reach nothing but parts of the returned value (`returned_draws`):
    # (position, name, the paths into the returned tuple the draws reach; () is the whole value).
    returned_draws: tuple[tuple[int, str, tuple[tuple[int, ...], ...]], ...] = ()
    # Consumed parameters the function hands back unchanged (`returned_key`): (position, name, the path
    # into the returned tuple where every `return` puts it; () is the whole value). The caller gets back
    # a key that is already used.
    returned_keys: tuple[tuple[int, str, tuple[int, ...]], ...] = ()
    # The position of a `*args` parameter the function reads on the host (`def add(self, *args):
    # [float(v) for v in args]`): every positional argument from there on is read; None when none is.
    synced_rest: int | None = None
    # Elements of a literal tuple argument drawn from (`lax.scan(body, (x, key), xs)` whose body unpacks
    # its carry and splits the key): (position of the argument, or its keyword, index of the element).
    consumed_parts: tuple[tuple[int | str, int], ...] = ()
    # Consumed key parameters drawn from only under `if flag:` of another parameter (`if noise: ...
    # normal(key, s)`): (key name, its position or None, flag name, its position or None). A call
    # passing the flag as a literal false value (`simulate(x, key=k, noise=False)`) draws nothing from
    # that key.
    key_guards: tuple[tuple[str, int | None, str, int | None], ...] = ()

    def synced_positions(self, count: int) -> list[int]:
        """The positions among `count` positional arguments that the function reads on the host."""
        rest = range(self.synced_rest, count) if self.synced_rest is not None else ()
        return sorted({i for i in self.synced if i < count} | set(rest))

    def consumed_arguments(self, call: ast.Call) -> list[ast.expr]:
        """The argument expressions of `call` that land on consumed parameters."""
        off = _switched_off_keys(self.key_guards, call) if self.key_guards else ()
        found = [call.args[i] for i in sorted(self.consumed_keys) if i < len(call.args) and i not in off]
        found += [keyword.value for keyword in call.keywords if keyword.arg in self.consumed_names and keyword.arg not in off]
        for position, index in self.consumed_parts:
            if isinstance(position, str):
                held = next((k.value for k in call.keywords if k.arg == position), None)
            else:
                held = call.args[position] if position < len(call.args) else None
            if held.__class__ in (ast.Tuple, ast.List) and index < len(held.elts):
                found.append(held.elts[index])
        return found

    def returned_draw_paths(self, call: ast.Call, argument: ast.expr) -> tuple[tuple[int, ...], ...] | None:
        """Where in the returned value the draws from `argument` land, when that is all they reach."""
        position = next((i for i, a in enumerate(call.args) if a is argument), None)
        name = next((k.arg for k in call.keywords if k.value is argument), None) if position is None else None
        for index, param, paths in self.returned_draws:
            if index == position or (name is not None and param == name):
                return paths
        return None

    def handed_back(self, call: ast.Call) -> list[tuple[ast.expr, tuple[int, ...]]]:
        """(argument expression, path into the result) for each key argument of `call` that the function
        draws from and returns unchanged: `z, rng = flow(z, rng)` gets back the key it gave, already used."""
        found = []
        for index, param, path in self.returned_keys:
            argument = call.args[index] if index < len(call.args) else next((k.value for k in call.keywords if k.arg == param), None)
            if argument is not None:
                found.append((argument, path))
        return found

    def __bool__(self) -> bool:
        return bool(self.consumed_keys or self.consumed_names or self.synced or self.synced_rest is not None or self.consumed_parts)


NONE = Effects()


def _switched_off_keys(guards, call: ast.Call) -> set:
    """The positions and names of the key parameters whose guarding flag `call` passes as a literal
    false value (`False`, `None`, `0`): the draws under `if flag:` do not run on this call."""
    off: set = set()
    for key, key_position, flag, flag_position in guards:
        value = next((k.value for k in call.keywords if k.arg == flag), None)
        if value is None and flag_position is not None and flag_position < len(call.args):
            value = call.args[flag_position]
        if value.__class__ is ast.Constant and not value.value and value.value is not ...:
            off.add(key)
            if key_position is not None:
                off.add(key_position)
    return off


def _flag_guards(function: ast.AST, calls: dict[str, list[ast.AST]], flags: set[str]) -> dict[str, str]:
    """key parameter -> a parameter `flag` such that every call drawing from the key (`calls`) lies in
    the body of an `if flag:` (a bare test of the parameter, never rebound in the function)."""
    if not flags or not calls:
        return {}
    under: dict[int, frozenset[str]] = {}
    stack = [(statement, frozenset()) for statement in function.body]
    while stack:
        node, held = stack.pop()
        if node.__class__ in _NESTED_TYPES:
            continue
        under[id(node)] = held
        if node.__class__ is ast.If:
            test = node.test
            inner = held | {test.id} if test.__class__ is ast.Name and test.id in flags else held
            stack.append((test, held))
            stack += [(child, inner) for child in node.body]
            stack += [(child, held) for child in node.orelse]
        else:
            stack += [(child, held) for child in child_nodes(node)]
    found = {}
    for key, nodes in calls.items():
        common = None
        for node in nodes:
            held = under.get(id(node), frozenset())
            common = held if common is None else common & held
        if common:
            found[key] = min(common)
    return found


# ----- reading a body ---------------------------------------------------------------------------


_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_NESTED_TYPES = frozenset(_NESTED)
_BRANCHING = frozenset({ast.If, ast.IfExp, ast.While})
_COMPREHENSION_TYPES = frozenset({ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp})


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    """Nodes of a function body, not of the functions and classes defined in it (lambdas and
    comprehensions included: they run when the body runs), in no particular order."""
    nodes = list(function.body)
    for current in nodes:  # the list grows while it is read; definitions are listed, not entered, then dropped
        if current.__class__ not in _NESTED_TYPES:
            nodes.extend(child_nodes(current))
    return [node for node in nodes if node.__class__ not in _NESTED_TYPES]


def _own_nodes_and_defs(function: ast.AST) -> tuple[list[ast.AST], list[ast.AST]]:
    """`_own_nodes(function)`, and the functions defined in its body (not in those functions)."""
    nodes = list(function.body)
    defs = []
    for current in nodes:
        kind = current.__class__
        if kind not in _NESTED_TYPES:
            nodes.extend(child_nodes(current))
        elif kind is not ast.ClassDef:
            defs.append(current)
    return [node for node in nodes if node.__class__ not in _NESTED_TYPES], defs


# Transforms whose result, called, runs the function with the arguments of that call in their places
# (`jax.value_and_grad(loss_fn, has_aux=True)(params, x, key)` runs `loss_fn(params, x, key)`; the
# gradient is taken through what it draws).
RUN_WITH_SAME_ARGUMENTS = frozenset({
    "jax.grad", "jax.value_and_grad", "flax.nnx.grad", "flax.nnx.value_and_grad",
    "equinox.filter_grad", "equinox.filter_value_and_grad",
    "jax.jit", "equinox.filter_jit", "flax.nnx.jit", "jax.checkpoint", "jax.remat",
})


def _drawn_in_run_defs(defs: list[ast.AST], nodes: list[ast.AST], key_params: set[str], qualified_name, call_consumes, call_effects, depth: int = 0) -> dict[str, int]:
    """The key parameters of the enclosing function that functions defined in its body draw from where
    the body runs them, each with the line of the first run: a `loss_fn` that closes over `key`
    (`apply(..., rngs={"dropout": key})`) and that the body calls, hands to a transform it calls
    (`grad_fn = jax.value_and_grad(loss_fn, has_aux=True)`, `jax.grad(loss_fn)(params)`) or to a `lax`
    loop or branch, draws from the caller's key at every call. Not a function the body returns, or
    returns a transform of (a factory: the caller runs it later, maybe with other keys)."""
    names = {d.name: d for d in defs}
    runs: dict[str, int] = {}
    handed_on: dict[str, str] = {}  # name bound to a transform of a def -> the def
    returned: set[str] = set()
    for node in nodes:
        kind = node.__class__
        if kind is ast.Return and node.value is not None:
            value = node.value
            returned.update(n.id for n in (value.elts if value.__class__ in (ast.Tuple, ast.List) else [value]) if n.__class__ is ast.Name)
        elif kind is ast.Call:
            func = node.func
            if func.__class__ is ast.Name and func.id in names:
                runs[func.id] = min(runs.get(func.id, node.lineno), node.lineno)
            elif node.args and node.args[0].__class__ is ast.Name and node.args[0].id in names:
                qualified = qualified_name(func)
                if qualified in RUN_WITH_SAME_ARGUMENTS or qualified in _VMAPS or handed_callables.runner(node, qualified_name) is not None:
                    runs[node.args[0].id] = min(runs.get(node.args[0].id, node.lineno), node.lineno)
                    holder = parent_assignment_target(node, nodes)
                    if holder is not None:
                        handed_on[holder] = node.args[0].id
            if handed_callables.runner(node, qualified_name) is not None:
                for each in handed_callables.handed(node, qualified_name):
                    if each.function.__class__ is ast.Name and each.function.id in names:
                        runs[each.function.id] = min(runs.get(each.function.id, node.lineno), node.lineno)
    returned |= {made for held, made in handed_on.items() if held in returned}
    found: dict[str, int] = {}
    for name, line in runs.items():
        if name in returned:
            continue
        definition = names[name]
        inner, deeper = _own_nodes_and_defs(definition)
        own = {a.arg for a in (*definition.args.posonlyargs, *definition.args.args, *definition.args.kwonlyargs)}
        if definition.args.vararg is not None:
            own.add(definition.args.vararg.arg)
        if definition.args.kwarg is not None:
            own.add(definition.args.kwarg.arg)
        own |= set(_first_rebindings(inner))
        free = key_params - own
        if not free:
            continue
        drawn = set()
        for node in inner:
            if node.__class__ is ast.Call:
                for argument in _consumed_here(node, qualified_name, call_consumes, call_effects):
                    if argument.__class__ is ast.Name and argument.id in free:
                        drawn.add(argument.id)
        if deeper and depth < 1:
            drawn |= set(_drawn_in_run_defs(deeper, inner, free, qualified_name, call_consumes, call_effects, depth + 1))
        for key in drawn:
            found[key] = min(found.get(key, line), line)
    return found


_VMAPS = frozenset({"jax.vmap", "flax.nnx.vmap", "equinox.filter_vmap"})


def parent_assignment_target(call: ast.Call, nodes: list[ast.AST]) -> str | None:
    """The name `call` is assigned to (`grad_fn = jax.value_and_grad(loss_fn)`), among `nodes`."""
    for node in nodes:
        if node.__class__ is ast.Assign and node.value is call and len(node.targets) == 1 and node.targets[0].__class__ is ast.Name:
            return node.targets[0].id
    return None


def _positional(function: ast.AST, has_self: bool) -> list[str]:
    names = [a.arg for a in (*function.args.posonlyargs, *function.args.args)]
    return names[1:] if has_self and names else names


def body_effects(function: ast.AST, has_self: bool, qualified_name, call_consumes, call_effects=None, steady=None, keys=frozenset()) -> Effects:
    """The effects of `function` on its positional parameters.

    qualified_name(node): the qualified name of a callee; call_consumes(call): the key arguments the
    library models say a call draws from; call_effects(call): the effects of a callee of this module
    (followed by the caller), or None.

    A key counts as consumed where a call draws from the parameter before anything rebinds it
    (`rng, sub = split(rng)` draws from the caller's key). A value counts as synced only where the
    read runs on every call: not under an `if`, a conditional expression, `and`/`or`, an `except`
    handler or a `while`, and not in a function that may return early (`if not verbose: return`).
    With `steady` (a test -> True / False / None: first_call_side), the side of a test that every call
    after the first takes counts as running on every call (`if self.best is None: ... else:`).

    Reads: a conversion (`float(x)`, `x.item()`), a showing call or an f-string of the value, the truth
    of a comparison a test takes (`if loss < self.best:`, `while err > tol`, `any(l <= b for ...)`:
    Python asks the array for a bool), and `min`/`max` of two or more values (they compare them).
    `keys`: parameters known to hold keys whatever their names (the elements of a loop's carry that the
    caller filled with keys)."""
    params = _positional(function, has_self)
    if isinstance(function, ast.Lambda):
        return NONE
    # A `*args` parameter holds the positional arguments from its place on: what the body does to it
    # (`[float(v) for v in args]`, `zip(self.totals, args)`) it does to each of them. It is read as
    # one more parameter whose position stands for all that follow (Effects.synced_rest).
    rest = function.args.vararg.arg if function.args.vararg is not None else None
    if rest is not None:
        params = [*params, rest]
    # Keyword-only parameters (`def __call__(self, x, *, key)`) follow, read by name at the call
    # (`layer(x, key=k)`): a key one of them receives is consumed as a positional one would be.
    placed = len(params)
    params = [*params, *(a.arg for a in function.args.kwonlyargs)]
    if not params:
        return NONE
    nodes, nested = _own_nodes_and_defs(function)
    key_params = {name for name in params if (_KEY_NAME.search(name) or name in keys) and name != rest}
    drawn_inside = _drawn_in_run_defs(nested, nodes, key_params, qualified_name, call_consumes, call_effects) if nested and key_params else {}
    if not (drawn_inside or _may_have_effects(nodes, params, call_effects is not None, keys)):
        return NONE
    # A generator's body runs when it is iterated, not at the call: nothing it reads on the host is
    # read at the call, but the keys it draws from are the caller's, drawn when the loop that iterates
    # it runs (`for batch in batches(data, key=key)`): a consumer of the key all the same.
    generator = any(n.__class__ in (ast.Yield, ast.YieldFrom) for n in nodes)
    position = {name: index for index, name in enumerate(params)}
    first_rebound = _first_rebindings(nodes)
    stable = {name for name in params if name not in first_rebound}
    parts = _parts_of_params(nodes, stable, qualified_name) if stable else {}
    returns_early = _returns_early(function, nodes, steady)
    consumed: set[int] = set()
    synced: set[int] = set()
    truth_taken: set[int] = set()  # comparisons whose truth a test takes
    rest_places: set[int] = set()  # arguments read through a constant index of `*args`
    consuming: dict[str, list[ast.AST]] = {}  # key parameter -> the calls drawing from it

    def read_parameter(value: ast.AST) -> None:
        # `args[1]`, `args` the `*args` parameter: only the argument at that place after the named ones.
        if rest is not None and value.__class__ is ast.Subscript and isinstance(value.value, ast.Name) and value.value.id == rest:
            index = value.slice.value if isinstance(value.slice, ast.Constant) else None
            if isinstance(index, int) and not isinstance(index, bool) and index >= 0:
                if rest in stable:
                    rest_places.add(position[rest] + index)
                return
        # `float(jnp.mean(x))`: reading a device op of the parameter waits for the parameter too
        while value.__class__ is ast.Call and value.args and (qualified_name(value.func) or "").startswith(_DEVICE_OP_PREFIXES):
            value = value.args[0]
        root = _root_param(value, stable, parts)
        if root is not None:
            synced.add(position[root])

    for node, conditional in _nodes_with_condition(function, steady):
        kind = node.__class__
        if kind in _TESTING:
            truth_taken.update(id(c) for c in truth_tested_comparisons(node.test))
            continue
        if kind is ast.Compare:
            if id(node) in truth_taken and not (conditional or returns_early or not stable):
                for value in (node.left, *node.comparators):
                    read_parameter(value)
            continue
        if isinstance(node, ast.JoinedStr) and not (conditional or returns_early or not stable):
            # `f"loss {m['loss']:.4f}"`: formatting reads each value on the host
            for value in node.values:
                if isinstance(value, ast.FormattedValue):
                    read_parameter(value.value)
            continue
        if not isinstance(node, ast.Call):
            continue
        if key_params:
            for argument in _consumed_here(node, qualified_name, call_consumes, call_effects):
                if isinstance(argument, ast.Name) and argument.id in key_params:
                    rebound_at = first_rebound.get(argument.id)
                    if rebound_at is None or argument.lineno <= rebound_at:
                        consumed.add(position[argument.id])
                        consuming.setdefault(argument.id, []).append(node)
        if conditional or returns_early or not stable:
            continue
        read = _host_read_argument(node, qualified_name)
        shown = _shown_arguments(node, qualified_name) if read is None else []
        if read is None and not shown:
            shown = _compared_arguments(node, qualified_name)
        if read is not None or shown:
            for value in [read] if read is not None else shown:
                read_parameter(value)
        elif call_effects is not None:
            inner = call_effects(node)
            if inner is not None:
                for index in inner.synced_positions(len(node.args)):
                    read_parameter(node.args[index])
    for name, run_line in drawn_inside.items():
        rebound_at = first_rebound.get(name)
        if rebound_at is None or run_line <= rebound_at:
            consumed.add(position[name])
            consuming[name] = []  # (drawn by a nested function the body runs: no guard is read)
    flags = {name for name in params if name in stable and name not in key_params and name != rest}
    # (Only keys the body never rebinds: a key's uses are matched to their binding by line, and a use
    # in an `else` after a rebinding in the `if` would escape the count.)
    guarded = _flag_guards(function, {key: calls for key, calls in consuming.items() if calls and key in stable}, flags) if consuming and flags else {}
    guards = tuple(
        (key, position[key] if position[key] < placed else None, flag, position[flag] if position[flag] < placed else None)
        for key, flag in sorted(guarded.items())
    )
    by_name = frozenset(params[i] for i in consumed if i >= placed)
    consumed = {i for i in consumed if i < placed}
    synced = {i for i in synced if i < placed}
    params = params[:placed]
    synced_rest = None
    if rest is not None:
        params = params[:-1]
        if len(params) in synced:
            synced.discard(len(params))
            synced_rest = len(params)
        synced |= rest_places
    consumed_names = frozenset(params[i] for i in consumed) | by_name
    returned = tuple(
        (i, params[i], paths) for i in sorted(consumed)
        if (paths := returned_draws(function, nodes, params[i], qualified_name)) is not None
    )
    handed_back = tuple(
        (i, params[i], path) for i in sorted(consumed)
        if params[i] not in first_rebound and (path := returned_key(nodes, params[i])) is not None
    )
    if generator:
        return Effects(frozenset(consumed), frozenset(), consumed_names, key_guards=guards) if consumed or by_name else NONE
    if not (consumed or synced or synced_rest is not None or by_name):
        return NONE
    return Effects(frozenset(consumed), frozenset(synced), consumed_names, returned, handed_back, synced_rest, key_guards=guards)


def returned_key(nodes: list[ast.AST], param: str) -> tuple[int, ...] | None:
    """The path into the returned tuple where every `return` of a body puts the parameter `param`
    itself (`return z, ldj, rng`: (2,); `return rng`: ()), or None when one return does not. With the
    parameter consumed and never rebound, the caller gets back the key it passed, already drawn from."""
    found: tuple[int, ...] | None = None
    for node in nodes:
        if node.__class__ is not ast.Return:
            continue
        path = _path_of_name(node.value, param) if node.value is not None else None
        if path is None or (found is not None and path != found):
            return None
        found = path
    return found


def _path_of_name(value: ast.AST, name: str, prefix: tuple[int, ...] = ()) -> tuple[int, ...] | None:
    if value.__class__ is ast.Name:
        return prefix if value.id == name else None
    if value.__class__ in (ast.Tuple, ast.List) and not any(e.__class__ is ast.Starred for e in value.elts):
        paths = [p for index, element in enumerate(value.elts) if (p := _path_of_name(element, name, (*prefix, index))) is not None]
        return paths[0] if len(paths) == 1 else None
    return None


# Calls whose result is a value computed from their arguments and nothing else: what flows through
# them stays a value of the function (the draws of a key split, stacked, reshaped).
_VALUE_PREFIXES = ("jax.random.", "jax.numpy.", "jax.lax.", "jax.nn.", "numpy.")
_VALUE_BUILTINS = frozenset({"builtins.len", "builtins.tuple", "builtins.list", "builtins.int", "builtins.float", "builtins.zip", "builtins.range", "builtins.enumerate"})
_VALUE_METHODS = frozenset({"reshape", "astype", "squeeze", "transpose", "ravel", "flatten", "copy", "swapaxes"})
_WRITERS = frozenset({"save", "savez", "savez_compressed", "savetxt"})  # numpy functions that also write a file


def _value_expression(node: ast.AST, qualified_name) -> bool:
    """An expression that only computes a value: its calls are value functions, and it defines no
    function (a lambda may run later) and binds no name (`:=`)."""
    for inner in walk(node):
        kind = inner.__class__
        if kind is ast.Lambda or kind is ast.NamedExpr or kind is ast.Await or kind is ast.Yield or kind is ast.YieldFrom:
            return False
        if kind is ast.Call:
            qualified = qualified_name(inner.func)
            if qualified is not None:
                if not (qualified.startswith(_VALUE_PREFIXES) or qualified in _VALUE_BUILTINS) or qualified.rsplit(".", 1)[-1] in _WRITERS:
                    return False
            elif not (inner.func.__class__ is ast.Attribute and inner.func.attr in _VALUE_METHODS):
                return False
    return True


def _reads_any(node: ast.AST, names: set[str]) -> bool:
    return any(n.__class__ is ast.Name and n.id in names and n.ctx.__class__ is ast.Load for n in walk(node))


def returned_draws(function: ast.AST, nodes: list[ast.AST], param: str, qualified_name) -> tuple[tuple[int, ...], ...] | None:
    """Where the values derived from a key parameter go, when they go nowhere but into the returned
    value: the paths into the returned tuple they reach (`return fn, (params, keys)` with `keys` split
    from the key: ((1, 1),)); None when a derived value may reach anything else (an argument of a call
    other than a value function, an attribute or item store, a test, a nested function).

    Flow-insensitive: a name bound anywhere from a derived value counts as derived everywhere, which
    can only add paths or say None. A caller that drops every part at these paths drew nothing observable."""
    derived = {param}
    statements = [n for n in nodes if isinstance(n, ast.stmt)]
    changed = True
    while changed:
        changed = False
        for statement in statements:
            kind = statement.__class__
            if kind in (ast.Assign, ast.AnnAssign, ast.AugAssign):
                value, targets = statement.value, (statement.targets if kind is ast.Assign else [statement.target])
            elif kind in (ast.For, ast.AsyncFor):
                value, targets = statement.iter, [statement.target]
            else:
                continue
            if value is None or not _reads_any(value, derived):
                continue
            if not _value_expression(value, qualified_name):
                return None
            for target in targets:
                if any(n.__class__ in (ast.Attribute, ast.Subscript) for n in walk(target)):
                    return None  # stored into an object: it outlives the call
                for name in bound_names(target):
                    if name not in derived:
                        derived.add(name)
                        changed = True
    paths: set[tuple[int, ...]] = set()
    for statement in statements:
        kind = statement.__class__
        if kind is ast.Return:
            if statement.value is not None and _reads_any(statement.value, derived):
                if not _value_expression(statement.value, qualified_name):
                    return None
                _paths_reading(statement.value, derived, (), paths)
        elif kind in (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor):
            targets = statement.targets if kind is ast.Assign else [statement.target]
            if any(_reads_any(t, derived) for t in targets):
                return None  # `table[index_drawn] = ...`: a store chosen by the draws
        elif kind in (ast.Global, ast.Nonlocal):
            if derived & set(statement.names):
                return None
        else:
            # A test, a `with` item, an expression statement, an assert: only their own expressions,
            # not the statements nested in them (those are in `statements` too).
            headers = [child for child in child_nodes(statement) if not isinstance(child, (ast.stmt, ast.excepthandler))]
            if any(_reads_any(header, derived) for header in headers):
                return None
    for node in walk(function):
        if node is not function and node.__class__ in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda) and _reads_any(node, derived):
            return None  # a nested function that reads a derived value may run it anywhere
    return tuple(sorted(paths))


def _paths_reading(value: ast.AST, names: set[str], prefix: tuple[int, ...], paths: set[tuple[int, ...]]) -> None:
    if value.__class__ in (ast.Tuple, ast.List) and not any(e.__class__ is ast.Starred for e in value.elts):
        for index, element in enumerate(value.elts):
            if _reads_any(element, names):
                _paths_reading(element, names, (*prefix, index), paths)
    else:
        paths.add(prefix)


_HOST_READ_NAMES = frozenset({"float", "int", "bool", "asarray", "array", "device_get"})


def _may_have_effects(nodes: list[ast.AST], params: list[str], follows_callees: bool, keys=frozenset()) -> bool:
    """One cheap pass before the full reading: a call that reads a value on the host, or one handed a
    parameter named like a key (or known to be one: `keys`; or, where callees are followed, handed any
    parameter)."""
    key_params = {name for name in params if _KEY_NAME.search(name) or name in keys}
    names = set(params)
    for node in nodes:
        if node.__class__ is ast.JoinedStr:
            return True
        if node.__class__ is ast.Compare and any(op.__class__ in _ORDERING for op in node.ops):
            return True  # (a truth test of a comparison: read below only where a test takes its truth)
        if node.__class__ is not ast.Call:
            continue
        callee = node.func
        if callee.__class__ is ast.Name and callee.id in ("min", "max") and len(node.args) >= 2:
            return True
        attribute = callee.attr if callee.__class__ is ast.Attribute else None
        if attribute in _HOST_METHODS or attribute in _HOST_READ_NAMES or (callee.__class__ is ast.Name and callee.id in _HOST_READ_NAMES):
            return True
        if attribute in _SHOWING_METHODS or (callee.__class__ is ast.Name and callee.id == "print"):
            return True
        for argument in node.args:
            if argument.__class__ is ast.Name and (argument.id in key_params or (follows_callees and argument.id in names)):
                return True
            if argument.__class__ is ast.Tuple and follows_callees and any(e.__class__ is ast.Name and e.id in key_params for e in argument.elts):
                return True  # `lax.scan(step, (x, key), xs)`: a loop started from a carry holding the key
        for keyword in node.keywords:  # `dist.sample(seed=key)`, `denoise(x, rng=rng)`
            argument = keyword.value
            if argument.__class__ is ast.Name and (argument.id in key_params or (follows_callees and argument.id in names)):
                return True
            if keyword.arg == "rngs" and argument.__class__ is ast.Dict and any(v.__class__ is ast.Name and v.id in key_params for v in argument.values):
                return True
    return False


def unconditional_calls(function: ast.AST, steady=None) -> list[ast.Call]:
    """The calls of a function body (not of functions nested in it) that run on every call: not under
    a condition, a loop test, `and`/`or` or an `except` handler, before any statement that may return early
    (all of them in a function that cannot).
    With `steady` (a test -> True / False / None, semantic/warm_up.steady_side), on every call once warmed
    up: the side of an `if` a warm-up test takes from then on counts as unconditional, and a `return`
    on the side it no longer takes (`if len(self.memory) < self.batch_size: return`) as no early return."""
    nodes = _own_nodes(function)
    if _returns_early(function, nodes, steady):
        # The statements before the first one that may leave run on every call all the same
        # (`p = self.net(params, s)` before `if return_prob: return a, p[a]`).
        prefix = _before_first_exit(function, steady)
        if not prefix:
            return []
        return [node for node, conditional in _nodes_with_condition(_Body(prefix), steady) if not conditional and node.__class__ is ast.Call]
    return [node for node, conditional in _nodes_with_condition(function, steady) if not conditional and node.__class__ is ast.Call]


class _Body:
    """A run of a function's top-level statements, read as a body of its own."""

    def __init__(self, body: list[ast.stmt]) -> None:
        self.body = body


def _before_first_exit(function: ast.AST, steady=None) -> list[ast.stmt]:
    """The function's top-level statements before the first that may end the call early (holds a
    `return`, `raise`, `break` or `continue` not excused as in `_returns_early`)."""
    prefix = []
    for statement in function.body:
        exits = [node for node in _own_nodes(_Body([statement])) if isinstance(node, (ast.Return, ast.Raise, ast.Break, ast.Continue))]
        if any(not _excused_exit(function, node, steady) for node in exits):
            break
        prefix.append(statement)
    return prefix


def _excused_exit(function: ast.AST, node: ast.AST, steady) -> bool:
    """An exit `_returns_early` does not count: a warm-up's `return`, an argument check's `raise`."""
    if steady is None:
        return False
    if isinstance(node, ast.Return):
        return _warm_up_exit(function, node, steady)
    return isinstance(node, ast.Raise) and _argument_check(function, node)


def calls_on_every_return(function: ast.AST) -> list[ast.Call]:
    """The calls of a function body that run on every call that returns normally: as
    `unconditional_calls`, but a `raise` (an abnormal end) leaves the calls after it unconditional, and
    the `return` closing a final `with` block (`with open(p) as f: return load(f)`) is the end of the body."""
    nodes = _own_nodes(function)
    last = function.body[-1] if function.body else None
    while isinstance(last, (ast.With, ast.AsyncWith)) and last.body:
        last = last.body[-1]
    if any(isinstance(node, (ast.Return, ast.Break, ast.Continue)) and node is not last for node in nodes):
        return []
    return [node for node, conditional in _nodes_with_condition(function) if not conditional and node.__class__ is ast.Call]


def _nodes_with_condition(function: ast.AST, steady=None):
    """(node, whether it runs only under a condition) for the body's own nodes."""
    stack = [(statement, False) for statement in reversed(function.body)]
    while stack:
        node, conditional = stack.pop()
        kind = node.__class__  # (ast node classes have no subclasses: set lookups, not isinstance chains, per node)
        if kind in _NESTED_TYPES:
            continue
        yield node, conditional
        if kind in _BRANCHING:
            children = [(node.test, conditional)]
            body = node.body if isinstance(node.body, list) else [node.body]
            orelse = node.orelse if isinstance(node.orelse, list) else [node.orelse]
            side = steady(node.test) if steady is not None and kind is ast.If else None
            children += [(child, conditional if side is True else True) for child in body]
            children += [(child, conditional if side is False else True) for child in orelse]
        elif kind is ast.BoolOp:
            # `self.best is None or loss < self.best`: once the first call has set `self.best`, every
            # later call evaluates the right operand (steady: first_call_side).
            passes = node.op.__class__ is ast.Or
            children = [(node.values[0], conditional)]
            through = steady is not None
            for previous, value in zip(node.values, node.values[1:]):
                through = through and steady(previous) is (not passes)
                children.append((value, conditional if through else True))
        elif kind is ast.ExceptHandler:
            children = [(child, True) for child in child_nodes(node)]
        elif kind in _COMPREHENSION_TYPES:
            # The element runs only for items that pass the filters.
            filtered = any(g.ifs for g in node.generators)
            children = [(child, conditional or (filtered and child in (getattr(node, "elt", None), getattr(node, "key", None), getattr(node, "value", None))))
                        for child in child_nodes(node)]
        else:
            children = [(child, conditional) for child in child_nodes(node)]
        stack.extend(reversed(children))


def _returns_early(function: ast.AST, nodes: list[ast.AST], steady=None) -> bool:
    body = function.body
    for node in nodes:
        if isinstance(node, (ast.Return, ast.Raise, ast.Break, ast.Continue)) and not (isinstance(node, ast.Return) and body and node is body[-1]):
            if steady is not None and isinstance(node, ast.Return) and (_warm_up_exit(function, node, steady) or _closes_body(function.body, node)):
                continue  # (`if len(self.memory) < self.batch_size: return`: not taken once warmed up; a last `return loss` of a final `if`)
            if steady is not None and isinstance(node, ast.Raise) and _argument_check(function, node):
                continue  # (`if x.shape[0] > self.max_len: raise ValueError(...)`: a call that fails, not one that does less)
            return True
    return False


def _argument_check(function: ast.AST, node: ast.Raise) -> bool:
    """A `raise` that is the whole body of a top-level `if` of the function without `else` (a check of
    the arguments): every call that returns runs the rest of the body."""
    return any(isinstance(statement, ast.If) and not statement.orelse and len(statement.body) == 1 and statement.body[0] is node
               for statement in function.body)


def _closes_body(block: list[ast.stmt], node: ast.Return) -> bool:
    """`node` is the last statement the body runs on its way out (the last of a final `if`'s branch, ...):
    nothing of the function comes after it."""
    if not block:
        return False
    last = block[-1]
    if last is node:
        return True
    if isinstance(last, ast.If):
        return _closes_body(last.body, node) or _closes_body(last.orelse, node)
    if isinstance(last, (ast.With, ast.AsyncWith)):
        return _closes_body(last.body, node)
    return False


def _warm_up_exit(function: ast.AST, node: ast.Return, steady) -> bool:
    """A `return` in the body of a top-level `if` of the function whose warm-up test fails from some call on."""
    for statement in function.body:
        if isinstance(statement, ast.If) and not statement.orelse and any(node is child for child in statement.body):
            return steady(statement.test) is False
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
                for name in walk(target):
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
    found.extend(rngs_keys(call))
    if call_effects is not None:
        inner = call_effects(call)
        if inner is not None:
            found.extend(inner.consumed_arguments(call))
    return found


def rngs_keys(call: ast.Call) -> list[ast.expr]:
    """`model.apply(variables, x, rngs={"dropout": key})`: the keys a network's random layers draw from
    (Flax folds each layer's path into its stream's key), not where a literal flag in the call switches
    them off (`train=False`, `deterministic=True`)."""
    found = [
        value for keyword in call.keywords if keyword.arg == "rngs" and keyword.value.__class__ is ast.Dict
        for value in keyword.value.values if value.__class__ is ast.Name
    ]
    return found if found and not runs_deterministic(call) else []


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
            if (
                isinstance(iterated, ast.Call) and len(iterated.args) == 1 and not iterated.keywords and isinstance(target, ast.Tuple)
                and len(target.elts) == 2 and qualified_name(iterated.func) == "builtins.enumerate"
            ):
                # `for i, v in enumerate(values)`: `v` takes the parts, `i` counts
                target, iterated = target.elts[1], iterated.args[0]
            if isinstance(iterated, ast.Call) and qualified_name(iterated.func) == "builtins.zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(iterated.args):
                # `for loss, best in zip(losses, self.best)`: each target element takes the parts of its own argument
                for element, argument in zip(target.elts, iterated.args):
                    if isinstance(element, ast.Name) and isinstance(argument, ast.Name) and argument.id in params:
                        parts[element.id] = argument.id
                continue
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


# Calls that show what they are handed, converting each device value on the host: a print, a log
# line (`logging.info`, a logger's `info`), a wandb record, a progress bar's postfix. (Summary writers
# are left out: a helper cannot tell whether the writer it is handed writes in the background.)
_SHOWING_CALLS = frozenset({"builtins.print", "wandb.log", "pprint.pp", "pprint.pprint"})
_SHOWING_PREFIXES = ("logging.", "absl.logging.")
_SHOWING_METHODS = frozenset({"info", "debug", "warning", "error", "log", "set_postfix", "set_description"})


def _shown_arguments(call: ast.Call, qualified_name) -> list[ast.expr]:
    """The values a showing call reads: its arguments and keyword values, and the values of a dict
    display handed to it (`wandb.log({"loss": m["loss"]})`)."""
    function = call.func
    qualified = qualified_name(function) if isinstance(function, (ast.Name, ast.Attribute)) else None
    if qualified is not None:
        if qualified not in _SHOWING_CALLS and not qualified.startswith(_SHOWING_PREFIXES):
            return []
    elif not (isinstance(function, ast.Attribute) and function.attr in _SHOWING_METHODS):
        return []
    shown: list[ast.expr] = []
    for value in [*call.args, *(k.value for k in call.keywords)]:
        shown.extend(v for v in value.values if v is not None) if isinstance(value, ast.Dict) else shown.append(value)
    return shown


_ORDERING = frozenset({ast.Lt, ast.LtE, ast.Gt, ast.GtE, ast.Eq, ast.NotEq})
_TESTING = frozenset({ast.If, ast.While, ast.IfExp, ast.Assert})


def truth_tested_comparisons(test: ast.expr) -> list[ast.Compare]:
    """The comparisons whose truth a test takes: the test itself, the operands of `and`/`or`/`not`,
    and the element of a generator or list handed to `any`/`all`. Only value comparisons (`<`, `==`,
    ...): `is None`, `in` and `isinstance` ask the host objects, not the device."""
    found: list[ast.Compare] = []
    stack = [test]
    while stack:
        node = stack.pop()
        kind = node.__class__
        if kind is ast.Compare:
            if all(op.__class__ in _ORDERING for op in node.ops):
                found.append(node)
        elif kind is ast.BoolOp:
            stack.extend(node.values)
        elif kind is ast.UnaryOp and node.op.__class__ is ast.Not:
            stack.append(node.operand)
        elif kind is ast.Call and node.func.__class__ is ast.Name and node.func.id in ("any", "all") and len(node.args) == 1:
            argument = node.args[0]
            if argument.__class__ in (ast.GeneratorExp, ast.ListComp):
                stack.append(argument.elt)
    return found


def _compared_arguments(call: ast.Call, qualified_name) -> list[ast.expr]:
    """`min(self.best, loss)`, `max(a, b)`: the builtins compare their arguments, asking each
    comparison for a bool on the host."""
    if len(call.args) >= 2 and not call.keywords and qualified_name(call.func) in ("builtins.min", "builtins.max"):
        return list(call.args)
    return []


def first_call_side(test: ast.expr, function: ast.AST) -> bool | None:
    """Which side of `self.x is None` (or `is not None`) every call after the first takes, where the
    method itself sets `self.x` to a value and never back to None: the first call initialises, the
    others compare (`if self.best is None: self.best = loss` / `elif loss < self.best:`). False: the
    test fails from the second call on; True: it holds; None: not such a test."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], (ast.Is, ast.IsNot))):
        return None
    left, right = test.left, test.comparators[0]
    if not (isinstance(right, ast.Constant) and right.value is None):
        return None
    if not (isinstance(left, ast.Attribute) and isinstance(left.value, ast.Name) and left.value.id == "self"):
        return None
    sets_value = False
    for node in walk(function):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr == left.attr and isinstance(target.value, ast.Name) and target.value.id == "self":
                value = getattr(node, "value", None)
                if value is None or (isinstance(value, ast.Constant) and value.value is None):
                    return None  # (set back to None: the test holds again)
                sets_value = True
    if not sets_value:
        return None
    return isinstance(test.ops[0], ast.IsNot)


def shown_only_parameters(function: ast.AST, has_self: bool, qualified_name) -> frozenset[int]:
    """Positions (self excluded) of the parameters a function only shows: every read of the parameter,
    or of a part of it (`m["loss"]`, `m.loss`, a variable iterating `m.items()`), sits in what a showing
    call is handed (`print`, a log line, `wandb.log`, a progress bar's postfix), directly or as text
    (an f-string, `%`, `.format`, `str`), and the parameter is never rebound. Handing a value to such a
    function reports it, as handing it to `print` does: a reporter of the project
    (`print_metrics(metrics, step)`)."""
    if isinstance(function, ast.Lambda):
        return frozenset()
    params = _positional(function, has_self)
    if not params:
        return frozenset()
    nodes = _own_nodes(function)
    rebound = _first_rebindings(nodes)
    stable = {name for name in params if name not in rebound}
    if not stable:
        return frozenset()
    parts = _parts_of_params(nodes, stable, qualified_name)
    parents: dict[int, ast.AST] = {}
    for node in nodes:
        for child in child_nodes(node):
            parents[id(child)] = node
    iterated = set()  # the `m.items()` a loop or comprehension iterates: where the parts come from
    for node in nodes:
        if isinstance(node, (ast.For, ast.AsyncFor)):
            iterated.add(id(node.iter))
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            iterated.update(id(g.iter) for g in node.generators)
    shown: set[str] = set()
    other: set[str] = set()
    for node in nodes:
        if not (isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)):
            continue
        root = node.id if node.id in stable else parts.get(node.id)
        if root is None:
            continue
        (shown if _only_shown(node, parents, iterated, qualified_name) else other).add(root)
    return frozenset(params.index(name) for name in shown - other)


def _only_shown(node: ast.AST, parents: dict[int, ast.AST], iterated: set[int], qualified_name) -> bool:
    """Whether the value at `node` only reaches a showing call (as an argument, a dict value, or text)."""
    child = node
    parent = parents.get(id(child))
    while parent is not None:
        kind = parent.__class__
        if kind in (ast.Subscript, ast.Attribute) and child is getattr(parent, "value", None):
            if kind is ast.Attribute and parent.attr in ("items", "values", "keys"):
                call = parents.get(id(parent))
                return isinstance(call, ast.Call) and id(call) in iterated
        elif kind in (ast.FormattedValue, ast.JoinedStr, ast.Dict, ast.Tuple, ast.keyword):
            pass
        elif kind is ast.BinOp and isinstance(parent.op, ast.Mod) and child is parent.right:
            pass
        elif kind is ast.Call:
            if child is parent.func:
                return False
            if _shown_arguments(parent, qualified_name):
                return True
            function = parent.func
            if qualified_name(function) == "builtins.str" or (isinstance(function, ast.Attribute) and function.attr == "format" and isinstance(function.value, ast.Constant)):
                pass  # text, handed on
            else:
                return False
        else:
            return False
        child, parent = parent, parents.get(id(parent))
    return False


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
                    lambda call: _callee_effects_with_imports(model, call, scope),
                    steady=(lambda test: first_call_side(test, scope.node)) if scope.has_self else None,
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
    if binding is None or binding.bound_positional or binding.key == "<inline>":
        return None
    function = binding.function or model.compiled_method(binding)  # (`step_fn = jax.jit(env.step)`)
    if function is None:
        return _compiled_foreign_method_keys(model, binding)
    if not function.is_function or isinstance(function.node, ast.Lambda):
        return None
    return _key_effects_only(model, function)


def _library_key_arguments(model, call: ast.Call, scope) -> list[ast.expr]:
    found = library_models.call_model(model, call, scope)
    if found is None or not found.consumes_key or (found.runs_model and runs_deterministic(call)):
        return []
    return found.key_arguments(call)


# Keywords that switch a network's randomness (dropout and the like) off for the call: with one of
# these at the value that does, the network's key slot is not drawn from (`apply(params, rng=k,
# is_training=False)`), so reusing that key in an evaluation loop repeats nothing that matters.
_DETERMINISTIC_FLAGS = {
    "is_training": False, "training": False, "train": False, "enable_dropout": False, "dropout": False,
    "deterministic": True, "is_eval": True, "eval_mode": True,
}


def runs_deterministic(call: ast.Call) -> bool:
    """The call runs a network with its randomness switched off by a literal keyword flag."""
    for keyword in call.keywords:
        wanted = _DETERMINISTIC_FLAGS.get(keyword.arg)
        if wanted is not None and isinstance(keyword.value, ast.Constant) and keyword.value.value is wanted:
            return True
    return False


def _callee_effects_with_imports(model, call: ast.Call, scope) -> Effects | None:
    """A callee of this module, else the keys a function of another project module consumes; through
    a transform that runs it with the call's arguments (`jax.value_and_grad(loss_fn)(params, key)`)."""
    made = transformed_call(model, call, scope)
    if made is not None:
        return _callee_effects_with_imports(model, made, scope)
    if call.args and handed_callables.runner(call, model.qualified_name) is not None and not any(isinstance(a, ast.Starred) for a in call.args):
        # `lax.scan(step, (x, key), xs)`, `lax.cond(p, noisy, keep, x, key)`: what the functions it runs
        # draw from what it hands them (keys only: what they read on the host is the syncs' question).
        found = call_effects(model, call, scope)
        return Effects(found.consumed_keys, frozenset(), found.consumed_names, consumed_parts=found.consumed_parts) if found else NONE
    local = _local_callee_effects(model, call, scope)
    return local if local is not None else _imported_key_effects(model, call, scope)


def _local_callee_effects(model, call: ast.Call, scope) -> Effects | None:
    resolved = model.resolve_function(call.func, scope)
    if resolved is None or resolved[0] is None or resolved[1] or resolved[2]:
        return None  # (a `partial` binding shifts positions: not followed)
    if resolved[0].in_traced:
        # `@jax.jit def f`, or a helper that runs traced (called from a jitted function or a `lax.scan`
        # body): keys only. A draw inside the traced program from a key parameter draws from the key the
        # caller passed, as on the host; syncs do not happen there.
        return _compiled_callee_key_effects(model, call) or _traced_key_effects(model, resolved[0])
    return function_effects(model, resolved[0])


def _traced_key_effects(model, scope) -> Effects:
    """The keys a function of this module that runs traced consumes (no syncs)."""
    if not scope.is_function or isinstance(scope.node, ast.Lambda):
        return NONE
    return _key_effects_only(model, scope)


def _compiled_foreign_method_keys(model, binding) -> Effects | None:
    """The keys `step_fn = jax.jit(env.step)` consumes where `env` holds an instance of a class of
    another project module (a name bound to one, `self.env` only ever assigned one): its method's
    summary, keys only (the compiled body reads nothing on the host)."""
    node = getattr(binding, "node", None)
    if not isinstance(node, ast.Call) or not node.args or not isinstance(node.args[0], ast.Attribute):
        return None
    wrapped = node.args[0]
    holder = wrapped.value
    if isinstance(holder, ast.Name) and holder.id not in ("self", "cls"):
        owner = model.instance_class(holder)
    elif isinstance(holder, ast.Attribute) and isinstance(holder.value, ast.Name) and holder.value.id == "self":
        owner = model.self_attribute_class(holder)
    else:
        return None
    if owner is None or isinstance(owner, ast.ClassDef) or wrapped.attr not in owner.methods:
        return None
    found = _method_effects(model, owner, wrapped.attr)
    return Effects(found.consumed_keys, frozenset(), found.consumed_names, found.returned_draws, found.returned_keys) if found.consumed_keys or found.consumed_names else NONE


def _key_effects_only(model, scope) -> Effects:
    """The keys a function running traced consumes, read from its body with its callees' effects
    (syncs dropped: traced code reads nothing on the host): a compiled function's own body and a helper
    running traced alike, since a draw a compiled step's callee makes from the key it is handed draws
    from the caller's key (`@jax.jit def train_step(state, key, batch)` whose `loss_fn(params, key,
    batch)` runs the network with `rngs={"dropout": key}`). One cache per function."""
    cache = model.__dict__.setdefault("_compiled_key_effects", {})
    key = id(scope.node)
    if key not in cache:
        cache[key] = NONE  # recursion: none while being worked out
        found = body_effects(scope.node, scope.has_self, model.qualified_name,
                             lambda inner: _library_key_arguments(model, inner, scope),
                             lambda inner: _callee_effects_with_imports(model, inner, scope))
        cache[key] = Effects(found.consumed_keys, frozenset(), found.consumed_names, found.returned_draws, found.returned_keys) if found.consumed_keys or found.consumed_names else NONE
    return cache[key]


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
    if call.args and handed_callables.runner(call, model.qualified_name) is not None:
        return _handed_effects(model, call, scope)
    made = transformed_call(model, call, scope)
    if made is not None:
        # `jax.value_and_grad(loss_fn)(params, x, key)`, `grad_fn = jax.grad(loss_fn)` then
        # `grad_fn(params, key)`: the effects of `loss_fn` called with these arguments.
        return _call_effects(model, made, scope)
    if isinstance(call.func, ast.Name):
        from jaxlint.semantic.bindings import partial_value

        partial = partial_value(call.func, scope, model)
        if partial is not None and isinstance(partial.args[0], (ast.Name, ast.Attribute)):
            return _through_partial(model, call, partial, scope)
    local = _local_callee_effects(model, call, scope)
    if local is not None:
        packed = _packed_parts(model, call, scope)
        return replace(local, consumed_parts=local.consumed_parts + packed) if packed else local
    compiled = _compiled_callee_key_effects(model, call)
    if compiled is not None:
        return compiled
    function = call.func
    if isinstance(function, ast.Attribute) and function.attr == "apply" and call.args and scope is not None and scope.is_function:
        # Flax linen: `net.apply(variables, *args)` runs the module's `__call__(*args)` (or the method
        # `method=` names), so its positional arguments land one place further on. In function bodies,
        # where framework calls count (a script's or notebook's body follows the project's helpers only).
        applied = model._linen_method_applied(call)
        if applied is not None:
            # (a module run traced, inside a jitted step: keys only, as for any helper run traced)
            found = _traced_key_effects(model, applied) if applied.in_traced else function_effects(model, applied)
            return _shifted(found, 1)
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id not in ("self", "cls"):
        owner = model.instance_class(function.value)
        if owner is not None:
            return _method_effects(model, owner, function.attr)
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Attribute) and isinstance(function.value.value, ast.Name) and function.value.value.id == "self":
        # `self.stopper.update(loss)`, with every assignment of `self.stopper` building one class
        owner = model.self_attribute_class(function.value)
        if owner is not None:
            return _method_effects(model, owner, function.attr)
    if isinstance(function, ast.Name):
        local_class = _local_class(model, function)
        if local_class is not None:
            return _local_constructor_effects(model, local_class)
        closure = factory_closure(model, function, scope)
        if closure is not None:
            # Keys only: what the closure draws from is what the caller hands it (syncs are other rules').
            found = function_effects(model, closure)
            return Effects(found.consumed_keys, frozenset(), found.consumed_names, found.returned_draws, found.returned_keys) if found.consumed_keys or found.consumed_names else NONE
    if isinstance(function, (ast.Name, ast.Attribute)):
        # An instance called as a function runs its class's `__call__` (`x = block(key, x)`).
        owner = model.called_instance_class(function)
        if owner is not None:
            return _method_effects(model, owner, "__call__")
    project = getattr(model, "project", None)
    if project is not None:
        qualified = model.qualified_name(function)
        if qualified is not None and "." in qualified and not qualified.startswith(_LIBRARY_PREFIXES):
            resolved = project.resolve(qualified)
            summary = resolved[0].functions.get(resolved[1]) if resolved is not None else None
            if summary is not None:
                return project_summary_effects(project, resolved[0], summary, resolved[1])
            found = project.resolve(qualified)
            if found is not None and found[1] in found[0].classes:
                return _summary_effects(_project_initialiser(project, found[0], found[1]))
    return NONE


def transformed_call(model, call: ast.Call, scope) -> ast.Call | None:
    """`loss_fn(params, key)` for `jax.value_and_grad(loss_fn)(params, key)` (_transformed_function),
    made once per call (effects are cached by the call's id); None for any other call."""
    held = model.__dict__.setdefault("_transformed_calls", {})
    if id(call) not in held:
        transformed = _transformed_function(model, call.func, scope) if call.func.__class__ in (ast.Call, ast.Name) else None
        held[id(call)] = None if transformed is None else ast.copy_location(ast.Call(func=transformed, args=call.args, keywords=call.keywords), call)
    return held[id(call)]


def _transformed_function(model, function: ast.expr, scope) -> ast.expr | None:
    """The function a callee runs with the call's own arguments (RUN_WITH_SAME_ARGUMENTS): the callee
    is such a transform of a named function (`jax.value_and_grad(loss_fn, has_aux=True)`), inline or
    bound once to a name in its scope; a keyword that moves arguments (`argnums` moves only the
    gradient, not the arguments) does not matter. None otherwise."""
    if function.__class__ is ast.Name:
        from jaxlint.semantic.bindings import bound_values

        found = bound_values(model, function.id, scope)
        if found is None or len(found[1]) != 1:
            return None
        function = found[1][0]
    if function.__class__ is not ast.Call or not function.args or function.args[0].__class__ not in (ast.Name, ast.Attribute):
        return None
    if model.qualified_name(function.func) not in RUN_WITH_SAME_ARGUMENTS:
        return None
    return function.args[0]


def _handed_effects(model, call: ast.Call, scope) -> Effects:
    """`jax.debug.callback(report, step, loss)`, `lax.cond(p, add_noise, keep, x, key)`: the effects of the
    named functions the call runs where it stands (semantic/handed_callables.py), called with what it
    hands them, as positions of this call's own arguments. (A lambda's body is read where it stands: its
    calls are this function's own.)"""
    held = model.__dict__.setdefault("_handed_calls", {})  # (the made calls live as long as the model: effects are cached by id)
    consumed: set[int] = set()
    synced: set[int] = set()
    names: set[str] = set()
    parts: set[tuple[int, int]] = set()
    for each in handed_callables.handed(call, model.qualified_name):
        key = (id(call), id(each.function))
        if isinstance(each.function, ast.Lambda):
            # A lambda's own parameters take the call's arguments: what its body does to a parameter it
            # does to that argument (`jax.debug.callback(lambda l: print(float(l)), loss)` reads `loss`).
            # What it does to names it closes over is read where it stands.
            if key not in held:
                held[key] = (_lambda_as_def(each.function), handed_callables.as_call(call, each)[1])
            function, positions = held[key]
            found = body_effects(
                function, False, model.qualified_name,
                lambda inner: _library_key_arguments(model, inner, scope),
                lambda inner: _callee_effects_with_imports(model, inner, scope),
            )
        else:
            if key not in held:
                held[key] = handed_callables.as_call(call, each)
            made, positions = held[key]
            found = call_effects(model, made, scope)
        parts |= _carried_parts(model, call, each, positions, scope)
        if found is NONE:
            continue
        consumed |= {positions[i] for i in found.consumed_keys if i < len(positions) and positions[i] is not None}
        synced |= {positions[i] for i in found.synced if i < len(positions) and positions[i] is not None}
        names |= found.consumed_names
    if not consumed and not synced and not parts:
        return NONE
    return Effects(frozenset(consumed), frozenset(synced), frozenset(names), consumed_parts=tuple(sorted(parts)))


def _carried_parts(model, call: ast.Call, each, positions: list, scope) -> set[tuple[int, int]]:
    """A lax loop started from a literal tuple (`lax.scan(step, (x, key), xs)`, `fori_loop(0, n, body, (x,
    key))`) hands its body that tuple as the carry of the first step: where the body unpacks the carry
    into names (`x, k = carry`, its first statement) and draws from one of them before rebinding it
    (`k, sub = split(k)`), it draws from that element of the tuple. (position of the tuple among the
    call's arguments, index of the element) for each such element."""
    if not _unpacking_callee(each.function):
        return set()
    found: set[tuple[int | str, int]] = set()
    for place, argument in enumerate(each.arguments):
        if argument.__class__ not in (ast.Tuple, ast.List) or place >= len(positions):
            continue
        # (`lax.cond(p, on, off, operand=(x, key))`: the operand passed by keyword, named by it)
        where = positions[place] if positions[place] is not None else next((k.arg for k in call.keywords if k.value is argument), None)
        if where is not None:
            found |= {(where, index) for index in _drawn_elements(model, each.function, place, argument, scope)}
    return found


def _unpacking_callee(function: ast.expr) -> bool:
    """A function named by a name or as `self.method`: one whose body _unpacked_carry can read."""
    return isinstance(function, ast.Name) or (
        isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id == "self"
    )


def _drawn_elements(model, function_expr: ast.expr, place: int, argument: ast.expr, scope) -> set[int]:
    """The indices of the elements of a literal tuple, handed as the parameter at `place`, that the
    function draws from as keys after unpacking that parameter into names in its first statement."""
    made = _unpacked_carry(model, function_expr, place, len(argument.elts), scope)
    if made is None:
        return set()
    function, names, inner_scope = made
    keys = frozenset(n for n, element in zip(names, argument.elts) if element.__class__ is ast.Name and named_like_key(element.id))
    if not keys:
        return set()
    drawn = body_effects(
        function, False, model.qualified_name,
        lambda inner: _library_key_arguments(model, inner, inner_scope),
        lambda inner: _callee_effects_with_imports(model, inner, inner_scope),
        keys=keys,
    )
    return {names.index(name) for name in drawn.consumed_names if name in names}


def _packed_parts(model, call: ast.Call, scope) -> tuple[tuple[int, int], ...]:
    """A function of this module called with a literal tuple that its first statement unpacks
    (`self.dropout((x, key, rate))` into `def dropout(self, args): x, key, rate = args`): (position of
    the tuple, index of the element) for each element it draws from as a key."""
    if not _unpacking_callee(call.func):
        return ()
    found = set()
    for place, argument in enumerate(call.args):
        if argument.__class__ in (ast.Tuple, ast.List):
            found |= {(place, index) for index in _drawn_elements(model, call.func, place, argument, scope)}
    return tuple(sorted(found))


def _unpacked_carry(model, name: ast.Name, place: int, size: int, scope):
    """(a def whose parameters are the names the body unpacks its carry into, those names, the body's
    scope) for a local function `def step(carry, x): a, k = carry; ...` (the unpacking its first statement,
    the carry unread elsewhere), else None. Made once per function (effects are cached by id)."""
    resolved = model.resolve_function(name, scope)
    if resolved is None or resolved[0] is None or resolved[1] or resolved[2]:
        return None
    inner_scope = resolved[0]
    function = inner_scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or not function.body:
        return None
    params = _positional(function, inner_scope.has_self)
    if place >= len(params):
        return None
    held = model.__dict__.setdefault("_unpacked_carries", {})
    key = (id(function), place)
    if key not in held:
        held[key] = None
        first = function.body[0]
        carry = params[place]
        if (
            isinstance(first, ast.Assign) and len(first.targets) == 1 and first.targets[0].__class__ in (ast.Tuple, ast.List)
            and isinstance(first.value, ast.Name) and first.value.id == carry
            and all(isinstance(e, ast.Name) for e in first.targets[0].elts)
            and not any(isinstance(n, ast.Name) and n.id == carry for s in function.body[1:] for n in ast.walk(s))
        ):
            names = [e.id for e in first.targets[0].elts]
            arguments = ast.arguments(posonlyargs=[], args=[ast.arg(arg=n) for n in names], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[])
            made = ast.FunctionDef(name=function.name, args=arguments, body=function.body[1:] or [ast.Pass()], decorator_list=[], returns=None, type_params=[])
            held[key] = (ast.copy_location(made, function), names, inner_scope)
    found = held[key]
    return found if found is not None and len(found[1]) == size else None


def _lambda_as_def(function: ast.Lambda) -> ast.FunctionDef:
    """`lambda l: print(float(l))` as the def `def _(l): return print(float(l))`, whose effects on its
    parameters body_effects reads (the body's nodes are the lambda's own, so its calls resolve)."""
    made = ast.FunctionDef(name="<lambda>", args=function.args, body=[ast.Return(value=function.body)], decorator_list=[], returns=None, type_params=[])
    return ast.copy_location(made, function)


def _through_partial(model, call: ast.Call, partial: ast.Call, scope) -> Effects:
    """`add = partial(noisy, scale=0.5)` then `add(x, key)`: the effects of `noisy` called with the
    partial's arguments first, as positions of this call (a bound leading argument shifts them)."""
    bound = len(partial.args) - 1
    inner = ast.Call(func=partial.args[0], args=[*partial.args[1:], *call.args], keywords=[*partial.keywords, *call.keywords])
    found = _call_effects(model, inner, scope)
    if found is NONE:
        return NONE
    shift = lambda positions: frozenset(p - bound for p in positions if p >= bound)  # noqa: E731
    draws = tuple((p - bound, *rest) for p, *rest in found.returned_draws if p >= bound)
    keys = tuple((p - bound, *rest) for p, *rest in found.returned_keys if p >= bound)
    rest = found.synced_rest - bound if found.synced_rest is not None and found.synced_rest >= bound else None
    return Effects(shift(found.consumed_keys), shift(found.synced), found.consumed_names, draws, keys, rest)


def _shifted(found: Effects, by: int) -> Effects:
    """`found` for a call that passes `by` arguments of its own before the function's positional ones."""
    if found is NONE:
        return found
    return Effects(
        frozenset(i + by for i in found.consumed_keys),
        frozenset(i + by for i in found.synced),
        found.consumed_names,
        tuple((i + by, name, paths) for i, name, paths in found.returned_draws),
        tuple((i + by, name, path) for i, name, path in found.returned_keys),
        found.synced_rest + by if found.synced_rest is not None else None,
        tuple((i + by if isinstance(i, int) else i, index) for i, index in found.consumed_parts),
    )


def _method_effects(model, owner, method: str) -> Effects:
    """The effects of a method of a class of this module (ClassDef) or of another (ClassSummary)."""
    if isinstance(owner, ast.ClassDef):
        scope = model.class_methods.get(owner, {}).get(method)
        return function_effects(model, scope) if scope is not None else NONE
    project = getattr(model, "project", None)
    found = project.method_and_owner(owner, method) if project is not None else None
    if found is None:
        return project_summary_effects(project, None, owner.methods.get(method), f"{owner.name}.{method}")
    summary, owner = found  # (inherited from a base: its module reads its names)
    return project_summary_effects(project, project.home_of_class(owner), summary, f"{owner.name}.{method}")


# ----- closures a factory returns: `init_fun, sample_fun = make_flow(dim)` ------------------------------


def factory_closure(model, name: ast.Name, scope):
    """The scope of the nested function a name runs, where the name's only binding unpacks the result
    of a function of this module that returns that function (`init_fun, sample_fun = make_flow(dim)`
    with `make_flow` ending in `return init_fun, sample_fun`): every `return` of the factory puts the
    same nested def at the name's position. None otherwise (a name bound twice, a factory of another
    module, a `partial`)."""
    current = scope
    while current is not None and name.id not in current.local_names and name.id not in current.defs:
        current = current.parent
    if current is None or name.id in current.defs or name.id in current.imported_names:
        return None
    bound = [(target, value) for target, value in current.bindings if name.id in bound_names(target)]
    if len(bound) != 1 or bound[0][1].__class__ is not ast.Call or any(name.id in bound_names(t) for t, _ in current.loops):
        return None
    target, value = bound[0]
    path = _path_of_name(target, name.id)
    if path is None:
        return None
    resolved = model.resolve_function(value.func, current)
    if resolved is None or resolved[0] is None or resolved[1] or resolved[2] or not resolved[0].is_function:
        return None
    factory = resolved[0]
    found = None
    for returned in factory.returns:
        element = returned
        for index in path:
            if element.__class__ not in (ast.Tuple, ast.List) or index >= len(element.elts) or any(e.__class__ is ast.Starred for e in element.elts):
                return None
            element = element.elts[index]
        closure = factory.defs.get(element.id) if element.__class__ is ast.Name else None
        if closure is None or (found is not None and closure is not found):
            return None
        found = closure
    return found


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
    consumed_set = set(consumed)

    def place(name: str) -> int | None:
        # A consumed keyword-only parameter has no position: it is matched by name at the call
        # (Effects.consumed_arguments), placed past any positional argument.
        return params.index(name) if name in params else (_KEYWORD_ONLY if name in consumed_set else None)

    return Effects(
        frozenset(params.index(name) for name in consumed if name in params),
        frozenset(params.index(name) for name in synced if name in params),
        frozenset(consumed),
        tuple((place(name), name, paths) for name, paths in getattr(summary, "returned_draws", ()) if place(name) is not None),
        tuple((place(name), name, path) for name, path in getattr(summary, "returned_keys", ()) if place(name) is not None),
        len(params) if any(name.startswith("*") for name in synced) else None,
        key_guards=tuple(
            (key, params.index(key) if key in params else None, flag, params.index(flag) if flag in params else None)
            for key, flag in getattr(summary, "key_guards", ())
        ),
    )


def consumed_key_arguments(model, call: ast.Call, scope) -> list[ast.expr]:
    """The argument expressions a call draws keys from, by the library models (`jax.random` included)
    and the effects of project functions."""
    found = _library_key_arguments(model, call, scope)
    effects = call_effects(model, call, scope)
    if effects.consumed_keys or effects.consumed_names or effects.consumed_parts:
        found = [*found, *effects.consumed_arguments(call)]
    return found


def synced_arguments(model, call: ast.Call, scope) -> list[ast.expr]:
    """The argument expressions a call of a project function reads on the host (`to_host(metrics)`)."""
    effects = call_effects(model, call, scope)
    return [call.args[i] for i in effects.synced_positions(len(call.args)) if call.args[i].__class__ is not ast.Starred]


# ----- other modules' functions, from syntax (project.py) ---------------------------------------------


def summarise_effects(function: ast.AST, has_self: bool, light) -> tuple[tuple[str, ...], tuple[str, ...], tuple, tuple, tuple]:
    """(parameters consumed as keys, parameters synced, (consumed parameter, paths) for those whose
    draws reach only the returned value, (consumed parameter, path) for those returned unchanged,
    (consumed parameter, flag parameter) for those drawn from only under `if flag:`) of a function of
    another module, read with only that module's imports (`light`). Callees are not followed there."""
    if isinstance(function, ast.Lambda):
        return (), (), (), (), ()
    # Summaries are built for every function of an imported module, most of which no call asks
    # about: read only functions with a parameter named like a key, or short ones (a helper that
    # converts a result for the host is a few lines; reading every long body cost a tenth of a check).
    params = _positional(function, has_self)
    # Keyword-only parameters (`def make(n, *, key)`, Equinox's convention) are read by name at the
    # call (`make(3, key=k)`): a key one of them receives is consumed as a positional one is.
    keyword_only = [a.arg for a in function.args.kwonlyargs]
    short = (getattr(function, "end_lineno", None) or function.lineno) - function.lineno <= _SHORT_HELPER_LINES
    named = [*params, *keyword_only]
    if not (named or function.args.vararg) or not (short or any(_KEY_NAME.search(name) for name in named)):
        return (), (), (), (), ()
    library = library_models.models()

    def consumes(call: ast.Call) -> list[ast.expr]:
        qualified = light.qualified_name(call.func)
        found = library.entry(qualified) if qualified else None
        if found is None or not found.consumes_key or (found.runs_model and runs_deterministic(call)):
            return []
        return found.key_arguments(call)

    effects = body_effects(function, has_self, light.qualified_name, consumes)
    if not short:
        effects = replace(effects, synced=frozenset(), synced_rest=None)
    returned = tuple((name, paths) for _, name, paths in effects.returned_draws)
    handed_back = tuple((name, path) for _, name, path in effects.returned_keys)
    # (a `*args` parameter read on the host is named with its star: `_summary_effects` reads it back)
    synced = tuple(params[i] for i in sorted(effects.synced) if i < len(params))
    if effects.synced_rest is not None and function.args.vararg is not None:
        synced += (f"*{function.args.vararg.arg}",)
    consumed = tuple(params[i] for i in sorted(effects.consumed_keys) if i < len(params))
    consumed += tuple(name for name in keyword_only if name in effects.consumed_names and name not in consumed)
    guards = tuple((key, flag) for key, _, flag, _ in effects.key_guards)
    return consumed, synced, returned, handed_back, guards


def summarise_split_keys(function: ast.AST, consumed: tuple[str, ...], light) -> tuple[str, ...]:
    """The consumed key parameters of a function of another module that its body hands, before rebinding
    them, to `jax.random.split` (`rng, sub = split(rng)` first thing in an environment's `step`): it draws
    from the keys `split` returns, the same leading keys a caller's own `split(key, n)` hands out."""
    if not consumed or isinstance(function, ast.Lambda):
        return ()
    found = []
    nodes = _own_nodes(function)
    first_rebound = _first_rebindings(nodes)
    for node in nodes:
        if node.__class__ is not ast.Call or not node.args or node.args[0].__class__ is not ast.Name or node.args[0].id not in consumed:
            continue
        name = node.args[0].id
        rebound_at = first_rebound.get(name)
        if (rebound_at is None or node.lineno <= rebound_at) and light.qualified_name(node.func) == "jax.random.split" and name not in found:
            found.append(name)
    return tuple(found)


def summarise_own_bit_keys(function: ast.AST, consumed: tuple[str, ...], kind_of) -> tuple[str, ...]:
    """The consumed key parameters of a function of another module that its body reads only as the key
    of samplers reading the key's own bits (`kind_of(call) == "own"`: `normal(key, (n,))`, `uniform`),
    never rebinding them, handing them on or reading them in a function it defines: every value it
    draws comes from the key's own bits, so a caller's `split` of that key afterwards hands out keys
    (`fold_in(key, i)` on the default threefry) that repeat nothing it drew (key_values.draws_only_own_bits)."""
    if not consumed or isinstance(function, ast.Lambda):
        return ()
    nodes = _own_nodes(function)
    loads: dict[str, list[ast.Name]] = {}
    for node in walk(function):
        if node.__class__ is ast.Name and node.id in consumed:
            if node.ctx.__class__ is not ast.Load:
                loads[node.id] = None  # rebound: which key a read sees is more than the summary says
            elif loads.get(node.id, []) is not None:
                loads.setdefault(node.id, []).append(node)
    own_keys = set()  # the reads that are the key of a sampler reading that key's own bits
    for node in nodes:
        if node.__class__ is ast.Call:
            key = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "key"), None)
            if key.__class__ is ast.Name and key.id in consumed and kind_of(node) == "own":
                own_keys.add(id(key))
    return tuple(name for name in consumed if loads.get(name) and all(id(read) in own_keys for read in loads[name]))


def summarise_split_children(function: ast.AST, splits: tuple[str, ...], kind_of) -> tuple[tuple[str, tuple[tuple[int, str], ...]], ...]:
    """(parameter, split_child_kinds) for each parameter of `splits` whose children's readers are known
    (`kind_of(call)`: key_values.draw_kind read with the module's own imports)."""
    if not splits:
        return ()
    found = ((name, split_child_kinds(function, name, kind_of)) for name in splits)
    return tuple((name, kinds) for name, kinds in found if kinds is not None)


def split_child_kinds(function: ast.AST, parameter: str, kind_of) -> tuple[tuple[int, str], ...] | None:
    """How a function's body draws from the keys it splits its key parameter into, by the index of each
    key among `split`'s outputs: `rng, key = split(rng)` first (a statement of the body itself, the
    parameter read nowhere else), then `randint(key, ...)` gives ((1, "split"),) and child 0, never read,
    nothing. `kind_of(call)` says how a call reads the key it takes first ("own": its own bits, "split":
    the keys a `split` of it returns; None: not known); a child read any other way (returned, handed to
    another function, read in a loop of the body) makes the answer None, as does any other shape."""
    if isinstance(function, ast.Lambda):
        return None
    nodes = _own_nodes(function)
    reads = [n for n in nodes if n.__class__ is ast.Name and n.id == parameter and n.ctx.__class__ is ast.Load]
    split = next((s for s in function.body if s.__class__ is ast.Assign and s.value.__class__ is ast.Call and s.value.args
                  and s.value.args[0] in reads), None)
    if split is None or len(split.targets) != 1 or split.targets[0].__class__ is not ast.Tuple or kind_of(split.value) != "split":
        return None
    call = split.value
    if call.func.__class__ is not ast.Attribute or call.func.attr != "split":
        return None
    children = split.targets[0].elts
    if not all(e.__class__ is ast.Name for e in children) or len({e.id for e in children}) != len(children):
        return None
    after = split.end_lineno
    if [n for n in reads if n.lineno <= after] != [call.args[0]] or any(
        n.__class__ is ast.Name and n.id == parameter and n.ctx.__class__ is not ast.Load and n.lineno < split.lineno for n in nodes
    ):
        return None  # the parameter read before (or beside) the split, or rebound before it
    if any(isinstance(n, (ast.For, ast.AsyncFor, ast.While, *_COMPREHENSION_TYPES)) for n in nodes):
        return None  # (a read in a loop of the body: which key each pass sees is more than the order shows)
    kinds: dict[int, str] = {}
    for index, child in enumerate(children):
        stores = [n for n in nodes if n.__class__ is ast.Name and n.id == child.id and n.ctx.__class__ is not ast.Load and n is not child]
        if stores:
            return None
        loads = [n for n in nodes if n.__class__ is ast.Name and n.id == child.id and n.ctx.__class__ is ast.Load and n.lineno > after]
        if any(n.lineno < split.lineno for n in nodes if n.__class__ is ast.Name and n.id == child.id and n is not child):
            return None
        taken = 0
        for node in nodes:
            if node.__class__ is not ast.Call:
                continue
            first = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "key"), None)
            if first is None or first.__class__ is not ast.Name or first.id != child.id or first not in loads:
                continue
            kind = kind_of(node)
            if kind is None:
                return None
            taken += 1
            kinds[index] = kind if kinds.get(index, kind) == kind else "both"
        if taken != len(loads):
            return None  # read some other way: what it draws is not known
    return tuple(sorted(kinds.items()))


# ----- keys handed on: a parameter passed to another project function that draws from it ----------------
#
# A module's light summary records, for each parameter named like a key, the project functions the body
# hands it to before rebinding it (`def perturb(x, key): return x + noise(key, x.shape)`): the call site
# asks the project whether that callee consumes the slot, through any number of calls and modules
# (ProjectView.consumed_key_params), the way fresh results follow `fresh_deps`.

KeyForward = tuple  # (parameter, callee reference, slot): slot an int position (self excluded) or a keyword


def summarise_key_forwards(function: ast.AST, has_self: bool, oracle) -> tuple[KeyForward, ...]:
    """(parameter, callee, slot) for each key-named parameter passed, before it is rebound, to a function
    of the project: `.name` (a module-level function or class of the same module), `.Class.method` (a
    method of the class being read, called on `self`), or a qualified name imported from the project."""
    if isinstance(function, ast.Lambda) or oracle is None:
        return ()
    params = _positional(function, has_self)
    key_params = {name for name in params if _KEY_NAME.search(name)}
    key_params |= {a.arg for a in function.args.kwonlyargs if _KEY_NAME.search(a.arg)}
    if not key_params:
        return ()
    nodes = _own_nodes(function)
    first_rebound = None
    all_params = {a.arg for a in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    forwards: list[KeyForward] = []
    for node in nodes:
        if node.__class__ is not ast.Call:
            continue
        passed = [(index, argument) for index, argument in enumerate(node.args)]
        passed += [(keyword.arg, keyword.value) for keyword in node.keywords if keyword.arg]
        handed = [(slot, argument.id) for slot, argument in passed if argument.__class__ is ast.Name and argument.id in key_params]
        if not handed or any(isinstance(argument, ast.Starred) for argument in node.args):
            continue
        if first_rebound is None:
            first_rebound = _first_rebindings(nodes)
        if node.func.__class__ is ast.Name and (node.func.id in first_rebound or node.func.id in all_params):
            continue  # a local callable (`fn = make(); fn(key)`), not the module's
        callee = _project_callee(node.func, has_self, oracle)
        if callee is None:
            continue
        for slot, name in handed:
            rebound_at = first_rebound.get(name)
            if rebound_at is None or node.lineno <= rebound_at:
                forwards.append((name, callee, slot))
    return tuple(sorted(set(forwards), key=repr))


def _project_callee(function: ast.AST, has_self: bool, oracle) -> str | None:
    """The reference a key forward records for a callee, or None for a library or unknown one."""
    if function.__class__ is ast.Name:
        if function.id in oracle.functions or function.id in oracle.records:
            return f".{function.id}"
    elif (
        has_self and oracle.class_name is not None and function.__class__ is ast.Attribute
        and function.value.__class__ is ast.Name and function.value.id == "self"
    ):
        return f".{oracle.class_name}.{function.attr}"
    qualified = oracle.qualified_name(function)
    if qualified is None and function.__class__ is ast.Name and function.id not in _BUILTIN_NAMES:
        # A module-level name bound otherwise (`step = jax.jit(_step)`): resolved, or not, by the project view.
        return f".{function.id}"
    if qualified is None or "." not in qualified or qualified.startswith(_LIBRARY_PREFIXES):
        return None
    return qualified


_BUILTIN_NAMES = frozenset(dir(builtins))


def project_summary_effects(project, home, summary, name: str) -> Effects:
    """`_summary_effects` of a function of another module, with the keys it hands on to project
    functions that consume them (through any number of calls and modules) counted as consumed."""
    found = _summary_effects(summary)
    if summary is None or project is None or home is None or not getattr(summary, "key_forwards", ()):
        return found
    consumed = project.consumed_key_params(home, summary, name)
    if set(consumed) <= set(getattr(summary, "consumed_key_params", ())):
        return found
    params = summary.params
    positions = frozenset(params.index(param) for param in consumed if param in params)
    return Effects(found.consumed_keys | positions, found.synced, found.consumed_names | frozenset(consumed), found.returned_draws, found.returned_keys, key_guards=found.key_guards)


def _imported_key_effects(model, call: ast.Call, scope) -> Effects | None:
    """The keys a call of a function, class or instance method of another project module consumes
    (keys only: what a local function's summary learns from the functions it calls elsewhere)."""
    project = getattr(model, "project", None)
    if project is None or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    function = call.func
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id not in ("self", "cls"):
        owner = model.instance_class(function.value)
        if owner is not None and not isinstance(owner, ast.ClassDef):
            method = project.method_and_owner(owner, function.attr)
            summary, owner = method if method is not None else (None, owner)
            found = project_summary_effects(project, project.home_of_class(owner), summary, f"{owner.name}.{function.attr}")
            return Effects(found.consumed_keys, frozenset(), found.consumed_names, key_guards=found.key_guards) if found.consumed_keys or found.consumed_names else NONE
    qualified = model.qualified_name(function)
    if qualified is None or "." not in qualified or qualified.startswith(_LIBRARY_PREFIXES):
        return None
    resolved = project.resolve(qualified)
    if resolved is None:
        return None
    home, name = resolved
    summary = home.functions.get(name)
    if summary is None and name in home.classes:
        summary = home.classes[name].methods.get("__init__")
        name = f"{name}.__init__"
    found = project_summary_effects(project, home, summary, name)
    return Effects(found.consumed_keys, frozenset(), found.consumed_names, key_guards=found.key_guards) if found.consumed_keys or found.consumed_names else NONE
