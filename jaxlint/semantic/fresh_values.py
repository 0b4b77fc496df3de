"""Fresh results: whether what a function of the project returns is built only from new buffers.

A value is *fresh* when it shares no device buffer with anything its caller can still reach: the
result of a call the library models call fresh (`jax.random` draws, `jnp.zeros_like`, arithmetic,
an optax `init`, a Flax `model.init(key, x)`), `jax.tree.map` of a function that computes
(`jnp.zeros_like`, `lambda m, g: 0.9 * m + g`), a Python scalar or string, and tuples, lists, dicts,
NamedTuples and dataclasses built of such values. A function is fresh when every value it returns
is: `def init_adam(params): return jax.tree.map(jnp.zeros_like, params), jnp.zeros((), jnp.int32)`.
One that may hand back a parameter or part of it is not: `return params`, `{"p": jnp.asarray(p)}`
(`jnp.asarray` of a JAX array is that array), `device_put` of a placed array, the `init` of
`jax.example_libraries.optimizers` (its state holds the parameters), a global, `self.x`.

The JAX401 fix asks this about the helper a donated state comes from (`opt_state = init_adam(params)`):
a fresh result shares nothing with `params`, which the program still reads.

The reading is the same for a function of the module being checked (asked through the semantic
model, callees resolved at once) and for one of another project module (project.py's light
summary, with only that module's imports): `returns_fresh(function, has_self, oracle)` is given
an oracle that says what a call returns. A summary cannot see other modules, so the verdict is
either None (not fresh) or the set of project callees it depends on (`frozenset()`: fresh by
itself); project.py resolves those when asked, through any number of modules, cycles counted as
not fresh. Precision first: anything this reading cannot follow (a loop variable, a `with` target,
a container another call may fill, a class with its own `__init__`) is not fresh.
"""

from __future__ import annotations

import ast

from jaxlint.semantic import library_models
from jaxlint.semantic.syntax import child_nodes

FRESH: frozenset = frozenset()

_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)
_NESTED_TYPES = frozenset(_NESTED)
# Nodes that bind names a function's freshness does not follow (a set: `_index` asks it of every node).
_OTHER_BINDERS = frozenset({
    ast.For, ast.AsyncFor, ast.withitem, ast.ExceptHandler, ast.Import, ast.ImportFrom, ast.Global, ast.Nonlocal,
    ast.Delete, ast.MatchAs, ast.MatchStar, ast.MatchMapping,
})
# Builtins whose result holds only what their arguments hold (containers), and those that return
# host scalars or strings.
_CONTAINER_BUILTINS = frozenset({"builtins.dict", "builtins.tuple", "builtins.list", "builtins.set", "builtins.frozenset"})
_HOST_BUILTINS = frozenset({
    "builtins.float", "builtins.int", "builtins.bool", "builtins.str", "builtins.len", "builtins.range", "builtins.repr",
    "builtins.complex", "builtins.round", "builtins.abs",
})
# Methods that put their arguments into the container they are called on.
_FILLING_METHODS = frozenset({"append", "extend", "insert", "update", "setdefault", "add", "__setitem__"})
# Operators whose result may hold its operands' items: list/tuple concatenation and repetition, dict union.
_CONTAINER_OPERATORS = (ast.Add, ast.Mult, ast.BitOr)
# Decorators and bases that make a class a plain record: its constructor stores the arguments as fields.
RECORD_DECORATORS = frozenset({
    "dataclasses.dataclass", "flax.struct.dataclass", "chex.dataclass", "chex.mappable_dataclass", "attr.s", "attrs.define",
    "attr.define", "attrs.frozen",
})
RECORD_BASES = frozenset({"typing.NamedTuple", "typing_extensions.NamedTuple", "flax.struct.PyTreeNode", "equinox.Module"})
RECORD_FACTORIES = frozenset({"collections.namedtuple", "typing.NamedTuple"})
_CONSTRUCTING_METHODS = frozenset({"__init__", "__new__", "__post_init__"})


def union(*parts):
    """The dependencies of a value made of `parts`: None (not fresh) if any part is not."""
    found = set()
    for part in parts:
        if part is None:
            return None
        found |= part
    return frozenset(found)


def is_record_class(node: ast.ClassDef, qualified_name) -> bool:
    """A NamedTuple, dataclass or struct whose constructor only stores its arguments (no `__init__`,
    `__new__` or `__post_init__` of its own)."""
    if any(isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in _CONSTRUCTING_METHODS for item in node.body):
        return False
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if qualified_name(target) in RECORD_DECORATORS:
            return True
    return any(qualified_name(base) in RECORD_BASES for base in node.bases)


def is_record_factory(value: ast.AST, qualified_name) -> bool:
    """`State = namedtuple("State", "a b")` / `NamedTuple("State", [...])`."""
    return isinstance(value, ast.Call) and qualified_name(value.func) in RECORD_FACTORIES


class Oracle:
    """What calls return, for `returns_fresh`: subclasses answer for the semantic model or for a light
    summary. Every method returns dependencies (frozenset, empty: fresh) or None (not fresh)."""

    def call(self, call: ast.Call, arguments, reader) -> "frozenset | None":
        """A call the syntax alone does not settle; `arguments()` gives the freshness of its arguments
        (for constructors of records, whose result holds them), `reader.single_value(name)` what a
        local name is bound to. `...` when nothing is known of the callee (a method of a fresh value
        is then read as returning what it and its arguments hold)."""
        return ...

    def function(self, node: ast.AST) -> "frozenset | None":
        """A function passed as a value (`jax.tree.map(make_zero, params)`): fresh if its calls are."""
        return None

    def qualified_name(self, node: ast.AST) -> str | None:
        return None

    def is_module(self, name: str) -> bool:
        """An imported module (`jnp` in `jnp.float32`): its attributes hold no caller's arrays."""
        return False


def returns_fresh(function: ast.AST, has_self: bool, oracle: Oracle) -> "frozenset | None":
    """Dependencies under which every value `function` returns is fresh, or None."""
    if isinstance(function, ast.Lambda):
        return _Reader(function, oracle).value(function.body)
    nodes = _own_nodes(function)
    returns = []
    for node in nodes:
        if node.__class__ in (ast.Yield, ast.YieldFrom, ast.Await):
            return None  # a generator's or coroutine's result is not its `return`
        if node.__class__ is ast.Return:
            returns.append(node.value)
    if all(value is None or (isinstance(value, ast.Constant) and value.value is None) for value in returns):
        return None  # returns nothing: no state to donate
    reader = _Reader(function, oracle, nodes)
    return union(*(FRESH if value is None else reader.value(value) for value in returns))


def computing_function(node: ast.AST, oracle: Oracle) -> "frozenset | None":
    """A function applied leaf by leaf (`jax.tree.map(f, tree)`): fresh when each call returns new
    buffers. A lambda's parameters are leaves (arrays or scalars), so its arithmetic is fresh:
    `lambda m, g: 0.9 * m + g`; `lambda x: x` is not."""
    if isinstance(node, ast.Lambda):
        params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
        return _Reader(node, oracle, leaves=params).value(node.body)
    return oracle.function(node)


def _own_nodes(function: ast.AST) -> list[ast.AST]:
    # Nested definitions are listed but not entered, then dropped: one filter over the list instead
    # of a generator per node (every function of a summarised module is read here).
    nodes = list(function.body)
    for current in nodes:
        if current.__class__ not in _NESTED_TYPES:
            nodes.extend(child_nodes(current))
    return [node for node in nodes if node.__class__ not in _NESTED_TYPES]


class _Reader:
    """Reads expressions of one function body."""

    def __init__(self, function: ast.AST, oracle: Oracle, nodes: list | None = None, leaves: set[str] = frozenset()) -> None:
        self.function = function
        self.oracle = oracle
        arguments = function.args
        self.params = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
        for extra in (arguments.vararg, arguments.kwarg):
            if extra is not None:
                self.params.add(extra.arg)
        self.leaves = set(leaves)
        self._nodes = nodes
        self._bindings: dict[str, list] | None = None
        self._filled: dict[str, list] | None = None
        self._passed: set[str] | None = None
        self._active: set[str] = set()
        self._opaque: list[set[str]] = []  # comprehension targets in scope

    # ----- names ----------------------------------------------------------------------------------

    def _index(self) -> None:
        """name -> what binds it; containers' fillings (`d[k] = v`, `xs.append(v)`); names handed to calls."""
        self._bindings, self._filled, self._passed = {}, {}, set()
        for node in self._nodes or ():
            kind = node.__class__
            if kind is ast.Assign:
                for target in node.targets:
                    self._bind_target(target, node.value)
            elif kind is ast.AnnAssign:
                if node.value is not None:
                    self._bind_target(node.target, node.value)
            elif kind is ast.AugAssign:
                self._bind_target(node.target, ast.BinOp(left=node.target, op=node.op, right=node.value) if isinstance(node.target, ast.Name) else node.value)
            elif kind is ast.NamedExpr:
                self._bind_target(node.target, node.value)
            elif kind in _OTHER_BINDERS:
                for name in _names_bound_by(node):
                    self._bindings.setdefault(name, []).append(None)  # not followed: not fresh
            elif kind is ast.Call:
                function = node.func
                if (function.__class__ is ast.Attribute and function.attr in _FILLING_METHODS and function.value.__class__ is ast.Name):
                    self._filled.setdefault(function.value.id, []).extend([*node.args, *(k.value for k in node.keywords)])
                for argument in [*node.args, *(k.value for k in node.keywords)]:
                    if argument.__class__ is ast.Name:
                        self._passed.add(argument.id)

    def _bind_target(self, target: ast.AST, value: ast.AST) -> None:
        if isinstance(target, ast.Name):
            self._bindings.setdefault(target.id, []).append(value)
        elif isinstance(target, (ast.Tuple, ast.List)):
            # `a, b = split(key)`: each part is a part of the value (fresh where the whole is).
            for element in target.elts:
                self._bind_target(element.value if isinstance(element, ast.Starred) else element, value)
        elif isinstance(target, (ast.Subscript, ast.Attribute)):
            root = target.value
            while isinstance(root, (ast.Subscript, ast.Attribute)):
                root = root.value
            if isinstance(root, ast.Name):
                self._filled.setdefault(root.id, []).append(value)  # `state["m"] = value` fills `state`

    def _name(self, name: str):
        if any(name in opaque for opaque in self._opaque) or name in self.params or name in self.leaves:
            return None
        if name in self._active:
            return FRESH  # `x = x + 1`: what `x` may hold comes from its other bindings
        if self._bindings is None:
            self._index()
        values = self._bindings.get(name)
        if not values or any(value is None for value in values):
            return None  # a global, a closure variable, or bound in a way not followed
        self._active.add(name)
        try:
            found = union(*(self.value(value) for value in values))
            filled = self._filled.get(name)
            if found is not None and filled:
                found = union(found, *(self.value(value) for value in filled))
            if found is not None and name in self._passed and any(_mutable_container(value) for value in values):
                return None  # a list or dict handed to another call may be filled there
            return found
        finally:
            self._active.discard(name)

    # ----- expressions ----------------------------------------------------------------------------

    def value(self, node: ast.AST):
        kind = node.__class__
        if kind is ast.Constant or kind is ast.JoinedStr:
            return FRESH
        if kind is ast.Name:
            return self._name(node.id)
        if kind in (ast.Tuple, ast.List, ast.Set):
            return union(*(self.value(e.value if isinstance(e, ast.Starred) else e) for e in node.elts))
        if kind is ast.Dict:
            return union(*(self.value(v) for v in node.values))
        if kind in (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp):
            return self._comprehension(node)
        if kind is ast.BinOp:
            return self._binary(node)
        if kind is ast.UnaryOp:
            # `+x` of a JAX array is `x` itself; `-x`, `~x`, `not x` compute.
            return self.value(node.operand) if isinstance(node.op, ast.UAdd) else FRESH
        if kind is ast.Compare:
            return FRESH
        if kind is ast.BoolOp:
            return union(*(self.value(v) for v in node.values))  # `a or b` is one of them
        if kind is ast.IfExp:
            return union(self.value(node.body), self.value(node.orelse))
        if kind is ast.NamedExpr:
            return self.value(node.value)
        if kind is ast.Attribute:
            root = node.value
            while isinstance(root, ast.Attribute):
                root = root.value
            if isinstance(root, ast.Name) and self.oracle.is_module(root.id) and root.id not in self.params:
                return FRESH  # `jnp.float32`, `math.pi`
            return self.value(node.value)  # a field of a fresh value is fresh
        if kind is ast.Subscript:
            return self.value(node.value)
        if kind is ast.Call:
            return self._call(node)
        return None

    def _comprehension(self, node: ast.AST):
        targets = {n.id for generator in node.generators for n in ast.walk(generator.target) if isinstance(n, ast.Name)}
        self._opaque.append(targets)
        try:
            if isinstance(node, ast.DictComp):
                return self.value(node.value)
            return self.value(node.elt)
        finally:
            self._opaque.pop()

    def _binary(self, node: ast.BinOp):
        if not isinstance(node.op, _CONTAINER_OPERATORS):
            return FRESH  # `-`, `/`, `@`, `**`: a new array (or a host number)
        # `+`, `*`, `|` of containers hold the containers' items: fresh only where both sides are, or
        # where one side is surely an array or a float, making the result a new array.
        left, right = self.value(node.left), self.value(node.right)
        if left is not None and right is not None:
            return union(left, right)
        if self._computes_array(node.left) or self._computes_array(node.right):
            return FRESH
        return None

    def _computes_array(self, node: ast.AST) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (float, complex))
        if isinstance(node, ast.Name):
            return node.id in self.leaves
        if isinstance(node, ast.BinOp):
            return not isinstance(node.op, _CONTAINER_OPERATORS) or self._computes_array(node.left) or self._computes_array(node.right)
        if isinstance(node, ast.UnaryOp):
            return not isinstance(node.op, (ast.UAdd, ast.Not)) and self._computes_array(node.operand)
        if isinstance(node, ast.Call):
            qualified = self.oracle.qualified_name(node.func) or ""
            found = library_models.models().entry(qualified) if qualified else None
            return found is not None and found.returns == "device" and found.result == "fresh"
        return False

    def _call(self, call: ast.Call):
        def arguments():
            parts = [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]
            return union(*(self.value(part) for part in parts))

        qualified = self.oracle.qualified_name(call.func)
        if qualified in _HOST_BUILTINS:
            return FRESH
        if qualified in _CONTAINER_BUILTINS:
            return arguments()
        if qualified == "functools.partial":
            return None  # a callable, not a value
        found = self.oracle.call(call, arguments, self)
        if found is not ...:
            return found
        function = call.func
        if isinstance(function, ast.Attribute) and function.attr not in _FILLING_METHODS:
            # A method of a fresh value given fresh arguments (`fresh.astype(jnp.float32)`,
            # `state.replace(step=0)`, `fresh.get("a", 0.0)`) can return only what they hold.
            receiver = function.value
            root = receiver
            while isinstance(root, (ast.Attribute, ast.Subscript)):
                root = root.value
            if isinstance(root, ast.Name) and self.oracle.is_module(root.id) and root.id not in self._bindings_or_empty():
                return None  # a library function no model describes
            return union(self.value(receiver), arguments())
        return None

    def single_value(self, name: str) -> ast.AST | None:
        """The one value a local name is bound to (`tx = optax.adam(1e-3)`), or None."""
        values = self._bindings_or_empty().get(name)
        return values[0] if values and len(values) == 1 and name not in self.params else None

    def _bindings_or_empty(self) -> dict:
        if self._bindings is None:
            self._index()
        return self._bindings


def _mutable_container(value: ast.AST) -> bool:
    return isinstance(value, (ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp)) or (
        isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in ("dict", "list", "set")
    )


def _names_bound_by(node: ast.AST) -> set[str]:
    if isinstance(node, (ast.For, ast.AsyncFor)):
        target = node.target
    elif isinstance(node, ast.withitem):
        target = node.optional_vars
    elif isinstance(node, ast.ExceptHandler):
        return {node.name} if node.name else set()
    elif isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    elif isinstance(node, (ast.Global, ast.Nonlocal)):
        return set(node.names)
    elif isinstance(node, ast.Delete):
        return {n.id for target in node.targets for n in ast.walk(target) if isinstance(n, ast.Name)}
    elif isinstance(node, (ast.MatchAs, ast.MatchStar)):
        return {node.name} if node.name else set()
    elif isinstance(node, ast.MatchMapping):
        return {node.rest} if node.rest else set()
    else:
        return set()
    if target is None:
        return set()
    return {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}


# ----- what a library call returns, for both oracles ---------------------------------------------------


def library_result(entry, call: ast.Call, oracle: Oracle, value=None):
    """Dependencies of a call the library models describe, or None; `...` when the entry says nothing
    about freshness (the caller tries what else it knows). `value(node)`: the freshness of an
    argument, where the call's own arguments can be read."""
    if entry.result == "fresh":
        return FRESH
    if entry.result is not None:
        # `alias:<argument>`: the result may hold that argument's arrays (`jnp.asarray(x)` is `x`).
        # The model names the one it keeps, not every other one it may store besides
        # (`TrainState.create` keeps `params` and every extra field): fresh only when all of them,
        # and the object a method is called on, are.
        if value is None:
            return None
        static = entry.static_arguments
        parts = [a.value if isinstance(a, ast.Starred) else a for i, a in enumerate(call.args) if i not in static]
        parts += [k.value for k in call.keywords if k.arg not in static]
        if isinstance(call.func, ast.Attribute) and entry.result == "alias:self":
            parts.append(call.func.value)
        return union(*(value(part) for part in parts))
    if entry.returns == "tree_of_function":
        return computing_function(call.args[0], oracle) if call.args else None
    if entry.returns in ("host", "no_buffers", "key", "jitted", "callable") or (entry.returns or "").startswith("function:"):
        return FRESH  # no device buffer of the caller's (a host copy, a new key, a function)
    return ...


def initialises_from_key(call: ast.Call) -> bool:
    """`net.init(key, x)` of a model the models cannot resolve: a model's `init` whose first argument
    is named like a key, or is a dict of such (`{"params": rng1, "dropout": rng2}`), draws new
    parameters from it (Flax, Haiku), sharing nothing with its inputs."""
    from jaxlint.semantic.effects import named_like_key

    function = call.func
    if not (isinstance(function, ast.Attribute) and function.attr in ("init", "init_with_output") and call.args):
        return False
    first = call.args[0]
    keys = first.values if isinstance(first, ast.Dict) and first.values and None not in first.keys else [first]
    return all(isinstance(key, ast.Name) and named_like_key(key.id) for key in keys)


# Top-level packages the library models describe: a name under them is never a project function.
_LIBRARY_ROOTS = ("jax.", "jaxlib.", "numpy.", "builtins.", "flax.", "equinox.", "optax.", "haiku.", "chex.", "orbax.",
                  "functools.", "math.", "typing.", "collections.", "dataclasses.")


def _project_dependency(qualified: str, arguments) -> frozenset | None:
    """A call of a function or class of another project module, read where its summary is not at hand:
    fresh if the callee is a fresh function, or a record class given fresh arguments (`#fn`: a
    function only, the arguments not being fresh)."""
    given = arguments()
    if given is None:
        return frozenset({qualified + "#fn"})
    return given | {qualified}


# ----- this module's functions, through the semantic model ---------------------------------------------


class _ModelOracle(Oracle):
    """Answers for a function of the module being checked: library models, this module's functions,
    classes and instances, and other project modules' summaries (resolved at once)."""

    def __init__(self, model, scope) -> None:
        self.model = model
        self.scope = scope

    def qualified_name(self, node):
        return self.model.qualified_name(node)

    def is_module(self, name: str) -> bool:
        return name in self.model.imports.aliases

    def call(self, call, arguments, reader):
        verdict = call_verdict(self.model, call, self.scope, arguments, self, value=reader.value)
        return ... if verdict is _UNKNOWN else verdict

    def function(self, node):
        return FRESH if function_value_fresh(self.model, node, self.scope) else None


_UNKNOWN = ...


def function_returns_fresh(model, scope) -> bool:
    """Whether every value the function of `scope` (of this module) returns is fresh."""
    cache = model.__dict__.setdefault("_fresh_returns", {})
    key = id(scope.node)
    if key in cache:
        return cache[key]
    cache[key] = False  # recursion: not fresh while being worked out
    found = False
    if scope.is_function:
        found = returns_fresh(scope.node, scope.has_self, _ModelOracle(model, scope)) is not None
    cache[key] = found
    return found


def call_returns_fresh(model, call: ast.Call, scope) -> bool:
    """Whether a call of a project function, method or record class returns only fresh values
    (library calls are the library models' business: this answers False for them)."""
    verdict = call_verdict(model, call, scope, lambda: _arguments_fresh(model, call, scope), None, project_only=True)
    return verdict is not _UNKNOWN and verdict is not None


def project_callee(model, call: ast.Call, scope) -> bool:
    """Whether the call runs a function, method or class of the project (whose summary was read)."""
    return call_verdict(model, call, scope, lambda: None, None, project_only=True) is not _UNKNOWN


def _arguments_fresh(model, call: ast.Call, scope):
    """Freshness of a call's arguments read in the caller's scope: only values that are fresh on
    their face (`jnp.zeros(3)`, a constant) count, names do not (the caller's own check reads them)."""
    parts = [a.value if isinstance(a, ast.Starred) else a for a in call.args] + [k.value for k in call.keywords]
    oracle = _ModelOracle(model, scope)
    found = []
    for part in parts:
        if isinstance(part, ast.Call):
            found.append(call_verdict(model, part, scope, lambda part=part: _arguments_fresh(model, part, scope), oracle))
        elif isinstance(part, ast.Constant):
            found.append(FRESH)
        else:
            return None
    return union(*(None if item is _UNKNOWN else item for item in found))


def call_verdict(model, call: ast.Call, scope, arguments, oracle, project_only: bool = False, value=None):
    """FRESH or None for a call, or `_UNKNOWN` when nothing describes the callee."""
    if not project_only:
        if model.jit_binding_for_call(call) is not None:
            return FRESH  # a compiled call's outputs are new buffers (its inputs are not forwarded undonated)
        entry = library_models.call_model(model, call, scope)
        if entry is not None:
            verdict = library_result(entry, call, oracle, value)
            if verdict is not ...:
                return verdict
        if initialises_from_key(call):
            return FRESH
    function = call.func
    resolved = model.resolve_function(function, scope) if isinstance(function, (ast.Name, ast.Attribute)) else None
    if resolved is not None and resolved[0] is not None and resolved[0].is_function and not isinstance(resolved[0].node, ast.Lambda):
        return FRESH if function_returns_fresh(model, resolved[0]) else None
    if isinstance(function, ast.Name):
        local = _local_record(model, function.id)
        if local is not None:
            return arguments() if local else None
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Call) and isinstance(function.value.func, ast.Name):
        # `Tracker(0.9).start(tree)`: a method of an instance made on the spot.
        made = [c for c in model.class_methods if c.name == function.value.func.id and model.scope_for(c) is model.module_scope]
        if len(made) == 1 and function.value.func.id not in model.imports.aliases:
            method = model.class_methods[made[0]].get(function.attr)
            return FRESH if method is not None and function_returns_fresh(model, method) else None
    if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id not in ("self", "cls"):
        owner = model.instance_class(function.value)
        if isinstance(owner, ast.ClassDef):
            method = model.class_methods.get(owner, {}).get(function.attr)
            return FRESH if method is not None and function_returns_fresh(model, method) else None
        if owner is not None:
            project = getattr(model, "project", None)
            return FRESH if project is not None and project.method_returns_fresh(owner, function.attr) else None
    project = getattr(model, "project", None)
    qualified = model.qualified_name(function)
    if project is not None and qualified is not None and "." in qualified and not qualified.startswith(_LIBRARY_ROOTS):
        if project.resolve(qualified) is None:
            return _UNKNOWN
        given = arguments()
        return FRESH if project.call_returns_fresh(qualified, given is not None) else None
    return _UNKNOWN


def function_value_fresh(model, node: ast.AST, scope) -> bool:
    """A function passed as a value whose calls return fresh buffers: `jnp.zeros_like`, a fresh
    function of this module or of another project module, `partial(f, fresh...)` of one."""
    if isinstance(node, ast.Call) and model.qualified_name(node.func) == "functools.partial" and node.args:
        bound = [*node.args[1:], *(k.value for k in node.keywords)]
        return function_value_fresh(model, node.args[0], scope) and all(
            isinstance(value, ast.Constant) or (isinstance(value, ast.Attribute) and model.qualified_name(value) is not None) for value in bound
        )
    if isinstance(node, ast.Lambda):
        return computing_function(node, _ModelOracle(model, scope)) is not None
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return False
    qualified = model.qualified_name(node)
    entry = library_models.models().entry(qualified) if qualified else None
    if entry is not None:
        return entry.result == "fresh"
    resolved = model.resolve_function(node, scope)
    if resolved is not None and resolved[0] is not None and resolved[0].is_function:
        return function_returns_fresh(model, resolved[0])
    project = getattr(model, "project", None)
    if project is not None and qualified is not None and not qualified.startswith(_LIBRARY_ROOTS):
        return project.call_returns_fresh(qualified, False)
    return False


def _local_record(model, name: str) -> bool | None:
    """True: a record class (or namedtuple) of this module named `name`; False: another class of it;
    None: not a class of this module."""
    cache = model.__dict__.setdefault("_fresh_local_classes", None)
    if cache is None:
        cache = model.__dict__["_fresh_local_classes"] = {}
        for statement in model.tree.body if hasattr(model, "tree") else ():
            if isinstance(statement, ast.ClassDef):
                cache[statement.name] = is_record_class(statement, model.qualified_name) if statement.name not in cache else False
            elif (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)
                  and is_record_factory(statement.value, model.qualified_name)):
                cache[statement.targets[0].id] = True
    return cache.get(name)


# ----- other modules' functions, from syntax (project.py's light summaries) ----------------------------


class LightOracle(Oracle):
    """Answers for a function of another module, read with only that module's imports: its own
    module-level functions and record classes become dependencies (`.name`, `.Class.method`), the
    project functions it imports dependencies by qualified name."""

    def __init__(self, light, functions: set[str], records: dict[str, bool], class_name: str | None, imported: dict[str, str]) -> None:
        self.light = light
        self.functions = functions  # module-level defs
        self.records = records  # module-level classes: whether each is a record
        self.class_name = class_name  # the class of the method being read
        self.imported = imported  # local name -> qualified, relative imports resolved (`from .types import State`)

    def qualified_name(self, node):
        found = self.light.qualified_name(node)
        if found is not None:
            return found
        parts = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.imported and node.id not in self.functions and node.id not in self.records:
            return ".".join([self.imported[node.id], *reversed(parts)])
        return None

    def is_module(self, name: str) -> bool:
        return name in self.light.imports.aliases

    def call(self, call, arguments, reader):
        function = call.func
        qualified = self.qualified_name(function)
        library = library_models.models()
        entry = library.entry(qualified) if qualified else None
        if entry is None and isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name):
            # `tx = optax.adam(1e-3)` then `tx.init(params)`: the method of the object a model returns.
            bound = reader.single_value(function.value.id)
            maker = library.entry(self.qualified_name(bound.func) or "") if isinstance(bound, ast.Call) else None
            if maker is not None and maker.returns and maker.returns.startswith("object:"):
                entry = library.entry(f"{maker.returns[len('object:'):]}.{function.attr}")
        if entry is not None:
            verdict = library_result(entry, call, self, reader.value)
            if verdict is not ...:
                return verdict
        if initialises_from_key(call):
            return FRESH
        if isinstance(function, ast.Name) and qualified is None:
            if function.id in self.records:
                return arguments() if self.records[function.id] else None
            if function.id in self.functions:
                return frozenset({"." + function.id})
            return ...
        if (isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id in ("self", "cls")
                and self.class_name is not None):
            return frozenset({f".{self.class_name}.{function.attr}"})
        if qualified is not None and "." in qualified and not qualified.startswith(_LIBRARY_ROOTS):
            return _project_dependency(qualified, arguments)
        return ...

    def function(self, node):
        qualified = self.qualified_name(node)
        if isinstance(node, ast.Name) and qualified is None and node.id in self.functions:
            return frozenset({"." + node.id})
        if not qualified:
            return None
        entry = library_models.models().entry(qualified)
        if entry is not None:
            return FRESH if entry.result == "fresh" else None
        if "." in qualified and not qualified.startswith(_LIBRARY_ROOTS):
            return frozenset({qualified + "#fn"})
        return None
