"""Library models: what third-party API calls do, as reviewed data (one module per library).

The way Pysa models and CodeQL models-as-data describe third-party code: each module of this
package holds `MODELS`, a dict from a qualified name (canonical, as semantic/imports.py resolves
it) to an entry, and may hold `NAMESPACES`, defaults for every function under a prefix. A method is
named `<class>.<method>` (`optax.GradientTransformation.init`); its argument positions do not count
`self`. Users add entries in `[tool.jaxlint.library-models]` (config.py), which replace built-in ones.

An entry's fields (all optional):
- `returns`: what the call gives back. `device` (a JAX array, or for a namespace default, arrays
  computed by the call, a tuple of them included), `device_tree` (a pytree of them),
  `host` (a host value: NumPy, Python), `key` (a PRNG key), `jitted` (a callable whose calls run
  compiled code), `callable`, `no_buffers` (an object holding no arrays: a sharding, a config),
  `object:<class>` (an instance whose methods have entries), `same:<i>` (what argument i is;
  `same:<i>,<keyword>|<kind>`: the argument at position i or passed as the keyword, else `<kind>`),
  `tuple:<kind>,<kind>,...` (a tuple, element by element; `function:<name>` is a callable whose
  calls follow the entry `<name>`), `tree_of_function` (a tree of what its function argument returns).
- `consumes_key`: the arguments drawn from as PRNG keys: positions and keyword names.
- `syncs`: the call waits for its device arguments on the host.
- `eager_ops`: the function is plain array code (`jnp` operations, no loop, no compiled call): called
  outside `jit`, it dispatches about this many array operations, each on its own, as the same lines
  written in the caller would (optax's losses: `softmax_cross_entropy_with_integer_labels` is a max,
  a subtraction, a gather, an exp, a sum and a log).
- `stores`: the call keeps references to its arguments and reads none of them (a thread queue's
  `put`, a deque's `append`): it neither waits nor computes, whatever it is handed.
- `compiles`: the call compiles (or returns something whose calls do).
- `donates`: the call deletes its argument buffers.
- `runs_model`: the call runs a whole network or optimizer update (a forward pass, an Adam step over
  every parameter): many array operations, each dispatched on its own when called outside `jit`.
  `<class>.__call__` describes calling an instance (`model(x)` of an `nnx.Module`, or `self(x)` in a
  method of a class of the module deriving from one).
- `result`: `fresh` (new buffers, sharing none with the arguments) or `alias:<i|keyword|self>`
  (may hold the arrays of that argument, or of the object the method is called on).
- `reads_storage`: the call reads a checkpoint or a file from storage before it returns (a flax or
  Orbax checkpoint restore, `pickle.load`): the host waits for the disk, and an iteration that does
  it restores what it computes with (a loop over saved checkpoints, not over training steps).
- `host_work`: the call computes in a host library on concrete values (a SciPy sparse matrix or
  solver, a PETSc object or solve, a mesh file written): it cannot take a tracer, so code that makes
  it runs outside any trace, and it takes milliseconds at least, beside which a few eager dispatches
  are nil (semantic/host_library.py).
- `weights`: the arguments (positions, keyword names) that hold the network's trained parameters
  (`Module.apply(variables, ...)`, `Transformed.apply(params, ...)`): a pytree of every weight of the
  network, so a traced function that reads them from an enclosing scope embeds them all as constants.
- `static_arguments`: arguments (positions, keyword names) the result keeps as static fields, not
  pytree leaves (`TrainState`'s `apply_fn` and `tx`): never donated with it, so whatever they hold
  does not make the result share a donated buffer.
- `key_derivation`: how the call turns its key into the keys it draws from. `by_name`: every draw
  uses `fold_in(key, h)` with `h` a hash of a name (Flax linen folds each variable's module path and
  counter into the key), so it never reads the key's own bits, nor a key that `split(key, n)` returns
  (`split(key, n)[i]` is `fold_in(key, i)` on JAX's default threefry; a hash below `n` is a
  1-in-2**32/n chance). `split`: it draws from the keys `split(key, n)` returns, in order (Haiku's
  `PRNGSequence` reserves keys with `split(key, n + 1)`), the very keys a later `split(key)` hands out.
  Absent: unknown.

A library module may also list `UNPACKS`: a NamedTuple-like class -> its fields in order, so that
unpacking an instance (`init_fn, update_fn = optax.adam(1e-3)`) gives names holding those methods;
and `SIGNATURES`: a method name -> (its entry, the keywords every call of it passes), for a method whose
name and keywords only that library's API has (flax's keyword-only `apply_gradients(grads=...)`): a call
of it on an object whose class the source does not show is that entry, unless a class of the module
defines a method of that name. `VARIABLES_SIGNATURES` (flax): a method name -> its entry, for a method
whose first argument shows flax's variables, a dict display with a `"params"` collection
(`net.apply({"params": p}, x)`, `state.apply_fn({"params": p}, x)`) or, for `apply_fn`, the parameters of
the very object it is called on (`state.apply_fn(state.params, x)`); likewise unless the module defines
a method, or sets an attribute, of that name.

The loader resolves a call to its entry: by the callee's qualified name, or, for a method call, by
the class of the object it is called on, which it knows from the entry of the call that made the
object (`tx = optax.adam(1e-3)` then `tx.init(params)`), through names, tuple unpacking, `self.x`
attributes and subclasses of a modelled class (`class Net(nn.Module)` then `Net().init(rng, x)`).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from jaxlint.semantic.library_models import (
    chex, environments, equinox, evosax, flax, haiku, host_libraries, jax_core, jax_lax, jax_numpy, jax_random, numpy_host, numpyro,
    optax, orbax, python_stdlib, transformers,
)
from jaxlint.semantic import returned_kinds
from jaxlint.semantic.reaching import enclosing_statement
from jaxlint.semantic.syntax import argument, walk  # ast.walk minus context markers, faster

_LIBRARIES = (
    jax_core, jax_numpy, jax_random, jax_lax, numpy_host, python_stdlib, flax, optax, equinox, haiku, chex, orbax, environments, evosax,
    numpyro, host_libraries, transformers,
)
FIELDS = frozenset({
    "returns", "consumes_key", "syncs", "compiles", "donates", "result", "runs_model", "static_arguments", "reads_storage",
    "key_derivation", "weights", "stores", "eager_ops", "host_work",
})
KEY_DERIVATIONS = frozenset({"by_name", "split"})
RETURN_KINDS = frozenset({"device", "device_tree", "host", "key", "jitted", "callable", "no_buffers", "tree_of_function", "host_list"})
DEVICE_KINDS = frozenset({"device", "device_tree"})


@dataclass(frozen=True)
class ApiModel:
    """What one API call does (see the module docstring for the fields)."""

    name: str
    returns: str | None = None
    consumes_key: tuple = ()
    syncs: bool = False
    compiles: bool = False
    donates: bool = False
    result: str | None = None
    runs_model: bool = False
    static_arguments: tuple = ()
    reads_storage: bool = False
    key_derivation: str | None = None
    weights: tuple = ()
    stores: bool = False
    eager_ops: int = 0
    host_work: bool = False

    def key_arguments(self, call: ast.Call, offset: int = 0) -> list[ast.expr]:
        """The argument expressions this call draws keys from (`offset`: positions to skip)."""
        found = []
        for spec in self.consumes_key:
            if isinstance(spec, int):
                position = spec + offset
                if position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
                    found.append(call.args[position])
            else:
                found.extend(k.value for k in call.keywords if k.arg == spec)
        return found

    def weight_arguments(self, call: ast.Call) -> list[ast.expr]:
        """The argument expressions that hold the network's parameters (`weights`)."""
        found = []
        for spec in self.weights:
            if isinstance(spec, int):
                if spec < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[: spec + 1]):
                    found.append(call.args[spec])
            else:
                found.extend(k.value for k in call.keywords if k.arg == spec)
        return found

    def aliased_argument(self, call: ast.Call) -> ast.expr | None:
        """The argument whose arrays the result may hold (`alias:<i|keyword|self>`), when it is passed."""
        if self.result is None or not self.result.startswith("alias:"):
            return None
        spec = self.result[len("alias:"):]
        if spec == "self":
            return call.func.value if isinstance(call.func, ast.Attribute) else None
        if spec.isdigit():
            position = int(spec)
            if position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
                return call.args[position]
            return None
        return next((k.value for k in call.keywords if k.arg == spec), None)


def _entry(name: str, fields: dict) -> ApiModel:
    consumes = fields.get("consumes_key", ())
    if isinstance(consumes, (int, str)):
        consumes = (consumes,)
    static = fields.get("static_arguments", ())
    if isinstance(static, (int, str)):
        static = (static,)
    weights = fields.get("weights", ())
    if isinstance(weights, (int, str)):
        weights = (weights,)
    return ApiModel(
        name, fields.get("returns"), tuple(consumes), bool(fields.get("syncs")), bool(fields.get("compiles")),
        bool(fields.get("donates")), fields.get("result"), bool(fields.get("runs_model")), tuple(static),
        bool(fields.get("reads_storage")), fields.get("key_derivation"), tuple(weights), bool(fields.get("stores")),
        int(fields.get("eager_ops", 0)), bool(fields.get("host_work")),
    )


def validate(name: str, fields: dict) -> str | None:
    """Why an entry is malformed, or None. Used for user entries from the configuration."""
    unknown = set(fields) - FIELDS
    if unknown:
        return f"unknown field {sorted(unknown)[0]!r} (known: {', '.join(sorted(FIELDS))})"
    returns = fields.get("returns")
    if returns is not None:
        if not isinstance(returns, str):
            return "`returns` must be a string"
        for part in returns[len("tuple:"):].split(",") if returns.startswith("tuple:") else [returns]:
            if part not in RETURN_KINDS and not part.startswith(("object:", "function:", "same:")):
                return f"`returns` kind {part!r} is not one of {', '.join(sorted(RETURN_KINDS))}, object:<class>, function:<name>, same:<i>, tuple:..."
    for listed in ("consumes_key", "static_arguments", "weights"):
        items = fields.get(listed, ())
        items = (items,) if isinstance(items, (int, str)) else items
        if not isinstance(items, (list, tuple)) or not all(isinstance(item, (int, str)) and not isinstance(item, bool) for item in items):
            return f"`{listed}` must be a list of argument positions and keyword names"
    for flag in ("syncs", "compiles", "donates", "runs_model", "reads_storage", "stores", "host_work"):
        if flag in fields and not isinstance(fields[flag], bool):
            return f"`{flag}` must be true or false"
    eager_ops = fields.get("eager_ops", 0)
    if not isinstance(eager_ops, int) or isinstance(eager_ops, bool) or eager_ops < 0:
        return "`eager_ops` must be a count (0 or more)"
    derivation = fields.get("key_derivation")
    if derivation is not None and derivation not in KEY_DERIVATIONS:
        return f"`key_derivation` must be one of {', '.join(sorted(KEY_DERIVATIONS))}"
    result = fields.get("result")
    if result is not None and (not isinstance(result, str) or not (result == "fresh" or result.startswith("alias:"))):
        return "`result` must be \"fresh\" or \"alias:<position|keyword|self>\""
    return None


class LibraryModels:
    """The built-in models, with the user's entries on top."""

    def __init__(self, user_entries: dict[str, dict] | None = None) -> None:
        self.entries: dict[str, ApiModel] = {}
        self.namespaces: list[tuple[str, ApiModel]] = []
        self.class_namespaces: dict[str, str] = {}  # prefix -> the modelled class every class under it is
        self.unpacks: dict[str, tuple[str, ...]] = {}  # a NamedTuple-like class -> its fields, in order
        self.signatures: dict[str, tuple[str, frozenset[str]]] = {}  # a method name -> (its entry, the keywords a call passes)
        self.variables_signatures: dict[str, str] = {}  # a method name -> its entry, where the first argument shows flax variables
        for library in _LIBRARIES:
            for name, fields in library.MODELS.items():
                self.entries[name] = _entry(name, fields)
            self.class_namespaces.update(getattr(library, "CLASS_NAMESPACES", {}))
            self.unpacks.update(getattr(library, "UNPACKS", {}))
            self.signatures.update({method: (name, frozenset(keywords)) for method, (name, keywords) in getattr(library, "SIGNATURES", {}).items()})
            self.variables_signatures.update(getattr(library, "VARIABLES_SIGNATURES", {}))
            for prefix, fields in getattr(library, "NAMESPACES", {}).items():
                self.namespaces.append((prefix, _entry(prefix, fields)))
        for name, fields in (user_entries or {}).items():
            self.entries[name] = _entry(name, fields)
        # Classes whose methods have entries, or that an entry returns instances of.
        self.classes: set[str] = set()
        for name, entry in self.entries.items():
            owner = name.rpartition(".")[0]
            if owner.rpartition(".")[2][:1].isupper():
                self.classes.add(owner)
            for part in _parts(entry.returns):
                if part.startswith("object:"):
                    self.classes.add(part[len("object:"):])
        self.namespaces.sort(key=lambda item: -len(item[0]))

    def class_of(self, qualified: str) -> str | None:
        """The modelled class that `qualified`, a class, is or derives from by its namespace."""
        if qualified in self.classes:
            return qualified
        for prefix, base in self.class_namespaces.items():
            rest = qualified[len(prefix):] if qualified.startswith(prefix) else ""
            if rest[:1].isupper() and "." not in rest:
                return base
        return None

    def entry(self, qualified: str) -> ApiModel | None:
        found = self.entries.get(qualified)
        if found is not None:
            return found
        for prefix, default in self.namespaces:
            if qualified.startswith(prefix):
                rest = qualified[len(prefix):]
                if "." in rest or not rest[:1].islower():
                    return None  # a submodule's function or a class: not what the default describes
                return default
        return None


def _parts(returns: str | None) -> list[str]:
    if not returns:
        return []
    return returns[len("tuple:"):].split(",") if returns.startswith("tuple:") else [returns]


_builtin: LibraryModels | None = None
_current: LibraryModels | None = None
_current_key: object = None


def configure(user_entries: dict[str, dict] | None) -> None:
    """Use the built-in models plus `user_entries` (from `[tool.jaxlint.library-models]`) from now on."""
    global _current, _current_key, _builtin
    key = repr(sorted((user_entries or {}).items()))
    if key == _current_key and _current is not None:
        return
    if not user_entries:
        if _builtin is None:
            _builtin = LibraryModels()
        _current = _builtin
    else:
        _current = LibraryModels(user_entries)
    _current_key = key


def models() -> LibraryModels:
    if _current is None:
        configure(None)
    return _current  # type: ignore[return-value]


# ----- resolving a call to its entry ----------------------------------------------------------------

# How many steps a kind is followed: a parameter to what its callers pass, to what a (compiled) function
# returns at a position, to the caller's own parameter, ... (six: a network handed through a jitted
# step's result into an evaluation helper, two functions up from where it is built).
_MAX_DEPTH = 6


def call_model(model, call: ast.Call, scope=None, depth: int = 0) -> ApiModel | None:
    """The library model of `call`, or None when no entry describes it."""
    cache = model.__dict__.setdefault("_library_call_models", {})
    key = id(call)
    if key in cache:
        return cache[key]
    cache[key] = None  # (recursion: unknown while being worked out)
    found = _call_model(model, call, scope, depth)
    if found is None and depth > 0:
        # A miss found deep in another question may only mean the depth ran out (`net.apply(...)`
        # reached through a chain of bindings): asked again from the top, it is worked out again.
        del cache[key]
    else:
        cache[key] = found
    return found


def _call_model(model, call: ast.Call, scope, depth: int) -> ApiModel | None:
    library = models()
    function = call.func
    qualified = model.qualified_name(function)
    if qualified is not None:
        found = library.entry(qualified)
        if found is not None:
            return found
        found = _class_method_entry(library, qualified)
        if found is not None:
            return found
    if depth >= _MAX_DEPTH:
        return None
    if scope is None:
        scope = model.scope_for(call)
    if isinstance(function, ast.Attribute):
        owner = value_class(model, function.value, scope, depth + 1)
        if owner is None and isinstance(function.value, ast.Name) and function.value.id not in scope.local_names:
            # `TrainState.create(...)` on a class deriving from a modelled one (`class TrainState(
            # train_state.TrainState)`): the class's own method, a classmethod of the modelled class.
            owner = _class_reference(model, library, function.value)
        if owner is not None:
            return library.entry(f"{owner}.{function.attr}")
        if isinstance(function.value, ast.Name) and function.value.id == "self":
            found = _called_instance(model, library, function, scope, depth)  # `self.net(x)`
            if found is not None:
                return found
        return _signature_entry(model, library, call)
    return _name_call_model(model, library, function, scope, depth)


def _class_method_entry(library: "LibraryModels", qualified: str) -> ApiModel | None:
    """A method called on a library class by its name (`FlaxBertModel.from_pretrained(...)`, a
    classmethod), the class one that a class namespace says derives from a modelled class: the entry of
    that method of the modelled class."""
    owner, _, method = qualified.rpartition(".")
    base = library.class_of(owner) if owner and owner not in library.classes else None
    return library.entry(f"{base}.{method}") if base is not None else None


def _signature_entry(model, library: "LibraryModels", call: ast.Call) -> ApiModel | None:
    """The entry of a method call whose object's class the source does not show, where the method's
    name and the keywords it is called with are a library's own signature (`SIGNATURES`: flax's
    `state.apply_gradients(grads=g)`, keyword-only there), and no class of the module defines a method
    of that name (a project's own `apply_gradients` is read as its own)."""
    function = call.func
    if not isinstance(function, ast.Attribute):
        return None
    found = library.signatures.get(function.attr)
    if found is None:
        name = library.variables_signatures.get(function.attr)
        if name is None or not call.args or not _shows_variables(call.args[0], function):
            return None
        if function.attr in _module_attribute_names(model):
            return None  # (the module's own objects have an attribute of that name: theirs, whatever it holds)
    else:
        name, keywords = found
        if call.args or not keywords <= {keyword.arg for keyword in call.keywords}:
            return None
    defined = model.__dict__.get("_jaxlint_method_names")
    if defined is None:
        defined = model.__dict__["_jaxlint_method_names"] = {
            item.name for node in ast.walk(model.tree) if isinstance(node, ast.ClassDef)
            for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
    return None if function.attr in defined else library.entry(name)


def _shows_variables(argument: ast.expr, function: ast.Attribute) -> bool:
    """`argument`, the first of a call of `function`, is flax's variables: a dict display whose keys include
    the `"params"` collection, or (for `apply_fn`) the parameters of the object it is called on."""
    if isinstance(argument, ast.Dict):
        return any(isinstance(key, ast.Constant) and key.value == flax.PARAMS_COLLECTION for key in argument.keys)
    return function.attr == "apply_fn" and isinstance(argument, ast.Attribute) and argument.attr == flax.PARAMS_COLLECTION \
        and ast.dump(argument.value) == ast.dump(function.value)


def _module_attribute_names(model) -> frozenset[str]:
    """The attribute names the module assigns (`self.apply_fn = ...`, `obj.apply = ...`)."""
    found = model.__dict__.get("_jaxlint_assigned_attributes")
    if found is None:
        found = model.__dict__["_jaxlint_assigned_attributes"] = frozenset(
            target.attr for node in ast.walk(model.tree) if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign))
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
            if isinstance(target, ast.Attribute)
        )
    return found


def _name_call_model(model, library: "LibraryModels", function: ast.expr, scope, depth: int) -> ApiModel | None:
    if isinstance(function, ast.Name):
        if function.id == "self":
            # `self(x)` in a method of a class deriving from a modelled one: the instance called.
            owner = _self_class(model, function, scope)
            return library.entry(f"{owner}.__call__") if owner is not None else None
        kind = value_kind(model, function, scope, depth + 1)
        if kind is not None and kind.startswith("function:"):
            return library.entry(kind[len("function:"):])
        if kind is not None and kind.startswith("object:") and kind[len("object:"):] not in BOUND_ONLY:
            return library.entry(f"{kind[len('object:'):]}.__call__")  # `net(x)`: the instance called
    elif isinstance(function, ast.Call):
        # `Predictive(model, samples)(rng_key)`: an instance built and called in one expression
        owner = value_class(model, function, scope, depth + 1)
        if owner is not None and owner not in BOUND_ONLY:
            return library.entry(f"{owner}.__call__")
    return None


def instance_runs_model(model, node: ast.expr, scope) -> bool:
    """`node` holds an instance of a modelled class whose call runs a whole computation (an nnx or
    equinox module of the project, by its construction or annotation: `<class>.__call__` says
    `runs_model`), so that calling it, also batched (`jax.vmap(net)(xs)`), runs its forward pass.
    Not a linen module (called by name it is unbound: BOUND_ONLY)."""
    owner = value_class(model, node, scope)
    if owner is None or owner in BOUND_ONLY:
        return False
    entry = models().entry(f"{owner}.__call__")
    return entry is not None and entry.runs_model


# Classes whose `__call__` entry describes only `self(x)` in a method of a subclass: a linen module is
# bound (has parameters) only inside `apply`, where `self` is the module run; a linen instance called
# by name is a sub-network of the module being run, or unbound.
BOUND_ONLY = frozenset({"flax.linen.Module"})


def _self_class(model, name: ast.Name, scope) -> str | None:
    """The modelled class `self` is an instance of in a method of a class of the module deriving from
    one (`class Net(nnx.Module)`, then `self(obs)` in `Net.act`): `self` the method's first parameter,
    never rebound. None elsewhere."""
    from jaxlint.semantic.bindings import owning_scope

    method = owning_scope(model, name.id, scope)
    if method is None or not method.is_function or method.class_node is None or method.class_node not in getattr(model.tree, "body", ()):
        return None
    arguments = getattr(method.node, "args", None)
    positional = [*arguments.posonlyargs, *arguments.args] if arguments is not None else []
    if not positional or positional[0].arg != name.id or _bindings_by_name(model, method).get(name.id):
        return None
    classes = model.__dict__.get("_library_local_classes")
    if classes is None:
        classes = model.__dict__["_library_local_classes"] = _local_classes(model, models())
    return classes.get(method.class_node.name)


def _called_instance(model, library: LibraryModels, function: ast.expr, scope, depth: int) -> ApiModel | None:
    """The `__call__` entry of the modelled class the called object is an instance of, or the entry of
    the function it holds (`self.grad_fn = jax.grad(loss)`, then `self.grad_fn(p, b)`)."""
    kind = value_kind(model, function, scope, depth + 1)
    if kind is not None and kind.startswith("object:") and kind[len("object:"):] not in BOUND_ONLY:
        return library.entry(f"{kind[len('object:'):]}.__call__")
    if kind is not None and kind.startswith("function:"):
        return library.entry(kind[len("function:"):])
    return None


def value_class(model, node: ast.AST, scope, depth: int = 0) -> str | None:
    """The modelled class `node` is an instance of (`optax.GradientTransformation`), or None."""
    kind = value_kind(model, node, scope, depth)
    if kind is not None and kind.startswith("object:"):
        return kind[len("object:"):]
    return None


def same_kind(model, call: ast.Call, returns: str, scope, depth: int = 0) -> str | None:
    """The kind of a `same:` result: what the argument named holds (`same:0`; `same:1,item,target`, the
    position or any of the keywords), else the kind after `|` (`same:1,item|device_tree`: a restore
    into a template is the template's kind, a restore without one a device tree)."""
    spec, _, fallback = returns[len("same:"):].partition("|")
    argument = None
    for part in spec.split(","):
        if part.isdigit():
            position = int(part)
            if position < len(call.args) and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
                argument = call.args[position]
        elif argument is None:
            argument = next((k.value for k in call.keywords if k.arg == part), None)
        if argument is not None:
            break
    kind = value_kind(model, argument, scope, depth + 1) if argument is not None else None
    return kind or fallback or None


def value_kind(model, node: ast.AST, scope, depth: int = 0) -> str | None:
    """What the library models say `node` holds (a `returns` kind), or None when they do not say."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, ast.Call):
        constructed = _constructed_class(model, node)
        if constructed is not None:
            return f"object:{constructed}"
        found = call_model(model, node, scope, depth)
        if found is None:
            # a factory of this module, else the summary of a function or method of another module
            return _factory_kind(model, node, scope, depth) or _project_call_kind(model, node, scope)
        if found.returns is None:
            return None
        if found.returns.startswith("same:"):
            return same_kind(model, node, found.returns, scope, depth)
        return found.returns
    if isinstance(node, ast.Name):
        return _name_kind(model, node, scope, depth)
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        declared = _declared_field_kind(model, node.attr, scope)
        if declared is not None:
            return declared
        return _self_attribute_kind(model, node.attr, scope, depth)
    if isinstance(node, ast.Attribute):
        return _bound_method_kind(model, node, scope, depth)
    return None


def _bound_method_kind(model, node: ast.Attribute, scope, depth: int) -> str | None:
    """A method taken off an instance of a modelled class without calling it (`forward = net.apply`,
    `self.update_fn = optimizer.update`): the function the entry describes, called later by name."""
    owner = value_class(model, node.value, scope, depth)  # (the receiver's kind is the attribute's: no step deeper)
    if owner is None:
        return None
    qualified = f"{owner}.{node.attr}"
    return f"function:{qualified}" if models().entry(qualified) is not None else None


def _factory_kind(model, call: ast.Call, scope, depth: int) -> str | None:
    """A call of a plain function of the module (by name) every `return` of which gives an instance of
    one modelled class (`def make_net(): return Net(...)`): an instance of it."""
    if depth >= _MAX_DEPTH:
        return None
    factory = _plain_function(model, call, scope)
    if factory is None:
        return None
    kinds = {value_kind(model, value, factory, depth + 1) if value is not None else None for value in factory.returns}
    kind = kinds.pop() if len(kinds) == 1 else None
    return kind if kind is not None and kind.startswith("object:") else None


def _declared_field_kind(model, attribute: str, scope) -> str | None:
    """`net: Net` in the body of the class around `scope` (a dataclass-style field, an `eqx.Module`
    field, a linen submodule attribute), `Net` a modelled class or one deriving from one: the kind
    `self.net` holds."""
    method = scope.enclosing_method() if scope is not None else None
    if method is None:
        return None
    for statement in method.class_node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.target.id == attribute:
            modelled = _annotation_class(model, statement.annotation)
            return None if modelled is None else f"object:{modelled}"
    return None


def _self_attribute_kind(model, attribute: str, scope, depth: int) -> str | None:
    """The kind every assignment to `self.<attribute>` in the methods of the class around `scope`
    gives it: a plain `self.x = value`, or one element of an unpacked tuple (`self.update, self.state
    = self.make_optimizer(lr)`, see `_unpacked_kind`); None where one assignment is anything else or
    two disagree. `self.net = None` (not built yet, or released) is no alternative where every other
    assignment gives an instance of one modelled class (`self.net = Net(...)` in one method, `self.net
    = net` from a parameter every caller fills with one in another): a `None` is never called, so
    where `self.net` is used as an instance it is one."""
    method = scope.enclosing_method() if scope is not None else None
    if method is None:
        return None
    kinds: set[str | None] = set()
    emptied = False
    for other in model.class_methods.get(method.class_node, {}).values():
        for target, value in other.bindings:
            stored = [e for e in walk(target) if isinstance(e, ast.Attribute) and e.attr == attribute
                      and isinstance(e.value, ast.Name) and e.value.id == "self"]
            if not stored:
                continue
            if value is None or isinstance(value, ast.AugAssign) or len(stored) > 1:
                return None
            if target is stored[0] and isinstance(value, ast.Constant) and value.value is None:
                emptied = True
            elif target is stored[0]:
                kinds.add(value_kind(model, value, other, depth + 1))
            elif isinstance(target, (ast.Tuple, ast.List)) and stored[0] in target.elts:
                kinds.add(_unpacked_kind(model, value, target.elts.index(stored[0]), target, other, depth))
            else:
                return None
            if len(kinds) > 1 or None in kinds:
                return None
    kind = kinds.pop() if len(kinds) == 1 else None
    return None if emptied and (kind is None or not kind.startswith("object:")) else kind


def _unpacked_kind(model, value: ast.expr, position: int, target: ast.expr, scope, depth: int) -> str | None:
    """The kind of the element at `position` of `value` unpacked into the tuple `target`: an element
    of a tuple written out, of a modelled NamedTuple-like instance (`init, update = optax.adam(lr)`), of
    a `tuple:` kind, or of what every `return` of the plain function or method of the module called
    gives at that position (`return update, state`, or `return optax.adam(lr)`), a compiled one too."""
    count = len(target.elts)
    if any(isinstance(e, ast.Starred) for e in target.elts):
        return None
    if isinstance(value, (ast.Tuple, ast.List)):
        if len(value.elts) != count or any(isinstance(e, ast.Starred) for e in value.elts):
            return None
        return value_kind(model, value.elts[position], scope, depth + 1)
    if not isinstance(value, ast.Call):
        return None
    whole = value_kind(model, value, scope, depth + 1)
    if whole is not None:
        if whole.startswith("tuple:"):
            parts = whole[len("tuple:"):].split(",")
            return parts[position] if len(parts) == count else None
        if whole.startswith("object:"):
            return _unpacked_field_kind(whole[len("object:"):], position, count)
        return "device_tree" if whole in DEVICE_KINDS else None
    # (also a function compiled with `jit`/`pmap`/`nnx.jit`: it hands back the pytree classes its body
    # returns, `state, loss = step(model, batch)` with `return model, loss` gives the model back)
    function = _plain_function(model, value, scope, compiled=True)
    if function is None and depth < _MAX_DEPTH:
        # `model, opt = init_state(cfg)` with `init_state` in another module: what its summary says
        # every `return` gives at that position (semantic/returned_kinds.py).
        return _project_call_kind(model, value, scope, position, count)
    if function is None or depth >= _MAX_DEPTH:
        return None
    kinds: set[str | None] = set()
    for returned in function.returns:
        if isinstance(returned, ast.Tuple) and len(returned.elts) == count and not any(isinstance(e, ast.Starred) for e in returned.elts):
            kinds.add(value_kind(model, returned.elts[position], function, depth + 1))
        else:
            return None
        if len(kinds) > 1 or None in kinds:
            return None
    return kinds.pop() if len(kinds) == 1 else None


# Transforms that return what the function returns, in the same pytree classes (leaves on the device).
_STRUCTURE_KEEPING = frozenset({"jax.jit", "jax.pmap", "equinox.filter_jit", "flax.nnx.jit"})


def _project_call_kind(model, call: ast.Call, scope, position: int = -1, width: int = 0) -> str | None:
    """The kind of what a call of a function or method of another module of the project gives at
    `position` of the tuple of `width` it returns (-1, 0: the whole): the callable its summary says
    every `return` calls there (semantic/returned_kinds.py) is a modelled class or one deriving from
    one, or a library function whose entry says what it returns, or another such project function."""
    qualified = returned_kinds.returned_callable(model, call, scope, position, width)
    library = models()
    for _ in range(returned_kinds.MAX_CHAIN):
        if qualified is None:
            return None
        entry = library.entry(qualified)
        if entry is not None:
            returns = entry.returns
            return None if returns is None or returns.startswith("same:") else returns
        modelled = _class_of(model, library, qualified)
        if modelled is not None:
            return f"object:{modelled}"
        qualified = returned_kinds.function_returned(model, qualified)  # `return make_model(cfg)`: what that returns
    return None


def _plain_function(model, call: ast.Call, scope, compiled: bool = False):
    """The undecorated function of the module (by name) or method of the class (`self.make(...)`) that
    `call` runs, when it has a `return`; else None. With `compiled`, also one decorated only with `jit`
    or `pmap` (directly or through `functools.partial`), which returns the same pytree classes."""
    function = call.func
    if not isinstance(function, ast.Attribute) or not isinstance(function.value, ast.Name):
        found = None
    elif function.value.id == "self":
        found = _resolved(model, function, scope)
    else:
        # `builder.make_state()`, `builder` an instance of a class of this module: that class's method.
        owner = model.instance_class(function.value)
        found = model.class_methods.get(owner, {}).get(function.attr) if isinstance(owner, ast.ClassDef) else None
    if isinstance(function, ast.Name):
        found = _resolved(model, function, scope)
    if found is None:
        return None
    if not isinstance(found.node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not found.returns:
        return None
    if found.node.decorator_list and not (compiled and all(_keeps_structure(model, d) for d in found.node.decorator_list)):
        return None
    return found


def _resolved(model, function: ast.expr, scope):
    resolved = model.resolve_function(function, scope)
    return resolved[0] if resolved is not None and not resolved[1] else None


def _keeps_structure(model, decorator: ast.expr) -> bool:
    use = model.decorator_transform(decorator)  # `@jax.jit`, `@jax.jit(...)`, `@partial(jax.jit, ...)`
    return use is not None and use.qualified in _STRUCTURE_KEEPING


def _class_of(model, library: LibraryModels, qualified: str) -> str | None:
    """The modelled class `qualified` is or derives from: by its name, or, for a class of another
    module of the project, through the bases its summary records (`from .nets import UNet`)."""
    found = library.class_of(qualified)
    project = getattr(model, "project", None)
    top = qualified.partition(".")[0]
    if found is not None or project is None or top in _LIBRARY_ROOTS or not project.may_hold(top):
        return found
    summary = project.class_(qualified)
    for base in summary.bases if summary is not None else ():
        found = library.class_of(base)
        if found is not None:
            return found
    return None


# Top-level packages the models describe: a class under them is never a project class.
_LIBRARY_ROOTS = frozenset({"jax", "flax", "optax", "equinox", "haiku", "chex", "orbax", "numpy", "gymnax", "brax", "jumanji", "envpool", "builtins", "typing"})


def _constructed_class(model, call: ast.Call) -> str | None:
    """`Net(...)` for a class of this module, or of another module of the project, deriving from a
    modelled class: that class."""
    function = call.func
    library = models()
    qualified = model.qualified_name(function) if isinstance(function, (ast.Name, ast.Attribute)) else None
    if qualified is not None:
        return _class_of(model, library, qualified)
    if not isinstance(function, ast.Name):
        return None
    classes = model.__dict__.get("_library_local_classes")
    if classes is None:
        classes = model.__dict__["_library_local_classes"] = _local_classes(model, library)
    return classes.get(function.id)


def _class_reference(model, library: LibraryModels, name: ast.Name) -> str | None:
    """The modelled class a name of a class deriving from one refers to (this module's or another
    project module's class), or None."""
    qualified = model.qualified_name(name)
    if qualified is not None:
        return _class_of(model, library, qualified) if library.class_of(qualified) is None else None
    classes = model.__dict__.get("_library_local_classes")
    if classes is None:
        classes = model.__dict__["_library_local_classes"] = _local_classes(model, library)
    return classes.get(name.id)


def _local_classes(model, library: LibraryModels) -> dict[str, str]:
    """Classes defined at the module's top level that derive (directly, or through another such
    class) from a modelled class: name -> the modelled base."""
    found: dict[str, str] = {}
    definitions = [node for node in model.tree.body if isinstance(node, ast.ClassDef)] if hasattr(model, "tree") else []
    for _ in range(2):
        for node in definitions:
            if node.name in found:
                continue
            for base in node.bases:
                qualified = model.qualified_name(base)
                modelled = library.class_of(qualified) if qualified is not None else None
                if modelled is not None:
                    found[node.name] = modelled
                    break
                if isinstance(base, ast.Name) and base.id in found:
                    found[node.name] = found[base.id]
                    break
    counts: dict[str, int] = {}
    for node in definitions:
        counts[node.name] = counts.get(node.name, 0) + 1
    return {name: base for name, base in found.items() if counts.get(name) == 1}


def _name_kind(model, name: ast.Name, scope, depth: int) -> str | None:
    from jaxlint.semantic.bindings import owning_scope

    owner = owning_scope(model, name.id, scope)
    if owner is None:
        return None
    if owner is model.module_scope and _also_bound_otherwise(model, name.id):
        return _reaching_module_kind(model, name, depth)
    cache = model.__dict__.setdefault("_library_name_kinds", {})
    key = (id(owner), name.id)
    working = model.__dict__.setdefault("_library_names_in_work", set())
    if key in working:
        return None  # (recursion: unknown while being worked out)
    if key not in cache:
        cache[key] = None
        working.add(key)
        try:
            if name.id in owner.param_nodes:
                cache[key] = _annotated_kind(model, owner, name.id, depth)
                if cache[key] is None and "_given_parameter_kinds" in model.__dict__:
                    # a model of a function read for one call, whose argument's kind is known there (semantic/call_summaries.py)
                    cache[key] = model.__dict__["_given_parameter_kinds"].get((id(owner.node), name.id))
                if cache[key] is None and owner.param_nodes[name.id].annotation is None:
                    cache[key] = _passed_kind(model, owner, name.id, depth)
            else:
                cache[key] = _bound_kind(model, name.id, owner, depth)
                if cache[key] is None and name.id not in _bindings_by_name(model, owner):
                    cache[key] = _decorated_kind(model, name.id, owner)
        finally:
            working.discard(key)
        if cache[key] is None and depth > 0:
            # A miss deep in another question may only mean the depth ran out (as in `call_model`): the
            # name is worked out again when asked from nearer the top.
            cache.pop(key)
            return _reaching_callable_kind(model, owner, name, depth)
    if cache[key] is None:
        return _reaching_callable_kind(model, owner, name, depth)
    return cache[key]


def _decorated_kind(model, name: str, owner) -> str | None:
    """A `def` bound once, under one decorator that a model describes as a function of its argument
    (`@hk.transform def net(x): ...`): the name holds what that function returns (a Transformed pair),
    as `net = hk.transform(net_fn)` would; or, where the decorator returns a function whose calls an
    entry describes (`@optimizers.optimizer def sgld(...)`: a maker of (init, update, get_params)
    triples), that function."""
    scope = owner.defs.get(name)
    node = getattr(scope, "node", None)
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or len(node.decorator_list) != 1:
        return None
    decorator = node.decorator_list[0]
    qualified = model.qualified_name(decorator) if isinstance(decorator, (ast.Name, ast.Attribute)) else None
    found = models().entry(qualified) if qualified is not None else None
    if found is None or found.returns is None:
        return None
    if found.returns.startswith("object:") or made_by_decorator(found.returns) is not None:
        return found.returns
    return None


def made_by_decorator(returns: str) -> str | None:
    """The entry whose calls a decorated function's calls are, where a decorator's model says it returns
    a maker (`function:<entry>`, the entry returning a tuple or an object: `@optimizers.optimizer` makes
    (init, update, get_params) triples), else None. A decorator that transforms the computation itself
    (`@eqx.filter_value_and_grad`: the body still runs, differentiated) is not a maker: what the body
    does is read from the body."""
    if not returns.startswith("function:"):
        return None
    name = returns[len("function:"):]
    entry = models().entry(name)
    made = entry.returns if entry is not None else None
    return name if made is not None and made.startswith(("tuple:", "object:")) else None


def decorated_calls(light, node: ast.AST) -> tuple[tuple[int, int, str], ...]:
    """What a call of a function under one decorator returns where the decorator's library model says
    it makes a maker (`@optimizers.optimizer def sgld(...)`: an optimizer maker,
    `jax.example_libraries.optimizers.OptimizerMaker`, whose calls return the (init, update, get_params)
    triple; `made_by_decorator`): that entry, for the whole return. () otherwise: the
    body's own `return` is not what a call gives back."""
    decorators = getattr(node, "decorator_list", ())
    if len(decorators) != 1 or not isinstance(decorators[0], (ast.Name, ast.Attribute)):
        return ()
    qualified = light.qualified_name(decorators[0])
    entry = models().entry(qualified) if qualified is not None else None
    made = made_by_decorator(entry.returns) if entry is not None and entry.returns is not None else None
    return ((-1, 0, made),) if made is not None else ()


def _reaching_callable_kind(model, owner, name: ast.Name, depth: int) -> str | None:
    """A module-level name module code binds to different callables (a notebook's `grad_fn =
    jax.grad(loss)`, then `grad_fn = jax.jit(...)` in a later cell), read by module code: the callable
    of the assignment before the read (`_reaching_module_kind`). Only callables: what a value is bound to
    through a step is worked out by `_bound_kind`."""
    if owner is not model.module_scope or not hasattr(name, "lineno") or len(_bindings_by_name(model, owner).get(name.id, ())) < 2:
        return None  # (a name the analysis made up has no place to read from)
    kind = _reaching_module_kind(model, name, depth)
    return kind if kind is not None and (kind.startswith("function:") or kind in ("jitted", "callable")) else None


def _also_bound_otherwise(model, name: str) -> bool:
    """A module-level name bound by an import, a `def` or a `class` as well as by assignments (a notebook
    imports `df` from a solutions module, then later rebinds `df = jax.grad(f)`): what the assignments
    give holds only where one of them reaches."""
    return name in _module_other_bindings(model) and name in _bindings_by_name(model, model.module_scope)


def _module_other_bindings(model) -> dict[str, list[int]]:
    """name -> lines of the imports, `def`s and `class`es that bind it in module-level code (also under
    a module-level `if` or `try`), indexed once per module."""
    index = model.__dict__.get("_library_other_bindings")
    if index is None:
        index = {}
        pending = list(model.tree.body)
        while pending:
            statement = pending.pop()
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                index.setdefault(statement.name, []).append(statement.lineno)
            elif isinstance(statement, (ast.Import, ast.ImportFrom)):
                for alias in statement.names:
                    index.setdefault((alias.asname or alias.name).partition(".")[0], []).append(statement.lineno)
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    pending.extend(getattr(statement, field, ()) or ())
        model.__dict__["_library_other_bindings"] = index
    return index


def _reaching_module_kind(model, name: ast.Name, depth: int) -> str | None:
    """The kind of the module-level assignment nearest before the module-level read `name`, when that
    is the binding that reaches it; None where an import, a `def` or a `class` does, or the read is in a
    function (which binding it sees depends on when it runs)."""
    if model.scope_for(name) is not model.module_scope:
        return None
    assigned = [
        (statement.lineno, value)
        for target, value in _bindings_by_name(model, model.module_scope).get(name.id, ())
        if (statement := enclosing_statement(target)) is not None and statement.lineno < name.lineno
    ]
    other = [line for line in _module_other_bindings(model).get(name.id, ()) if line < name.lineno]
    if not assigned or (other and max(other) > max(line for line, _ in assigned)):
        return None
    _, value = max(assigned, key=lambda pair: pair[0])
    if value is _LOOP or not isinstance(value, ast.expr):
        return None
    return value_kind(model, value, model.module_scope, depth + 1)


def _annotated_kind(model, owner, name: str, depth: int) -> str | None:
    """`state: TrainState`, `net: Net` (a class of this module deriving from a modelled one): a parameter
    annotated with a modelled class is an instance of it, where every rebinding in the function gives
    another instance of it (`state = state.apply_gradients(grads=g)`)."""
    annotation = owner.param_nodes[name].annotation
    if annotation is None:
        return None
    library = models()
    modelled = _annotation_class(model, annotation)
    if modelled is None:
        return None
    kind = f"object:{modelled}"
    for target, value in _bindings_by_name(model, owner).get(name, ()):
        if not isinstance(target, ast.Name) or not isinstance(value, ast.Call):
            return None
        function = value.func
        if isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name) and function.value.id == name:
            entry = library.entry(f"{modelled}.{function.attr}")  # `state = state.apply_gradients(...)`
            if entry is None or entry.returns != kind:
                return None
        elif value_kind(model, value, owner, depth + 1) != kind:
            return None
    return kind


def _annotation_class(model, annotation: ast.expr) -> str | None:
    """The modelled class an annotation names (`TrainState`, `"Net"`, a class of the module deriving
    from a modelled one, a library's generic base such as `eqx.Module` or `nnx.Module`), or None.
    A union names one where every alternative other than `None` does and they agree (`GNN |
    Attention`, both `nnx.Module`s; `Union[A, B]`; `Optional[Net]`, `Net | None`): what a value
    annotated so is, where it is used as an instance (called, its methods called), is an instance of
    that class; a `None` is never called. Alternatives that disagree, or one that is not modelled,
    give None."""
    alternatives = _union_alternatives(model, annotation)
    if alternatives is None:
        return None
    found = {_single_annotation_class(model, alternative) for alternative in alternatives}
    return found.pop() if len(found) == 1 else None


def _union_alternatives(model, annotation: ast.expr, depth: int = 0) -> list[ast.expr] | None:
    """The alternatives of an annotation other than `None`, unions flattened (`A | B | None`,
    `Union[A, B]`, `Optional[A]`, also written as a string); None when there is none or it is
    deeper than a few levels."""
    if depth > 4:
        return None
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Constant) and annotation.value is None:
        return []
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        left = _union_alternatives(model, annotation.left, depth + 1)
        right = _union_alternatives(model, annotation.right, depth + 1)
        return None if left is None or right is None else left + right
    if isinstance(annotation, ast.Subscript) and isinstance(annotation.value, (ast.Name, ast.Attribute)):
        qualified = model.qualified_name(annotation.value) or ""
        if qualified in ("typing.Optional", "typing.Union") or (
            not qualified and isinstance(annotation.value, ast.Name) and annotation.value.id in ("Optional", "Union")
        ):
            members = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else [annotation.slice]
            found: list[ast.expr] = []
            for member in members:
                inner = _union_alternatives(model, member, depth + 1)
                if inner is None:
                    return None
                found.extend(inner)
            return found
    return [annotation]


def _single_annotation_class(model, annotation: ast.expr) -> str | None:
    """The modelled class one alternative of an annotation names."""
    if not isinstance(annotation, (ast.Name, ast.Attribute)):
        return None
    qualified = model.qualified_name(annotation)
    library = models()
    modelled = _class_of(model, library, qualified) if qualified is not None else None
    if modelled is None and isinstance(annotation, ast.Name):
        classes = model.__dict__.get("_library_local_classes")
        if classes is None:
            classes = model.__dict__["_library_local_classes"] = _local_classes(model, library)
        modelled = classes.get(annotation.id)
    return modelled


def _passed_kind(model, owner, name: str, depth: int) -> str | None:
    """An unannotated parameter that every call of its function in the module is handed an instance of
    one modelled class (`def generate(net, x)` called as `generate(Net(...), x)` or with a name bound
    to one): an instance of it, where the function never rebinds the parameter. Only object kinds
    (`object:<class>`): what a call does with the object is what the models describe."""
    if not owner.is_function or name not in owner.params or _bindings_by_name(model, owner).get(name):
        return None
    position = owner.params.index(name)
    calls = _callers_by_callee(model).get(id(owner)) or _constructions(model, owner)
    if not calls:
        return None
    kinds: set[str | None] = set()
    for caller, call in calls:
        passed = argument(call, position, name)
        if passed is None:
            return None
        kinds.add(value_kind(model, passed, caller, depth + 1))
        if len(kinds) > 1 or None in kinds:
            return None
    kind = kinds.pop()
    return kind if kind is not None and kind.startswith("object:") else None


def _constructions(model, owner) -> list:
    """[(calling scope, call)] of the constructions `Name(...)` of the module-level class whose
    `__init__` is `owner` (its parameters are what a construction passes, `self` aside)."""
    node = owner.node
    class_node = owner.class_node
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.name != "__init__" or class_node is None:
        return []
    if not any(statement is class_node for statement in model.tree.body):
        return []
    return [
        (model.scope_for(call), call) for call in model.calls_by_name().get(class_node.name, ())
        if isinstance(call.func, ast.Name)
    ]


def rebinds(model, owner, name: str) -> bool:
    """The function `owner` binds `name` (a parameter) again somewhere in its body."""
    return bool(_bindings_by_name(model, owner).get(name))


def in_module_callers(model, owner) -> list:
    """[(calling scope, call)] of the module's calls of the function `owner` (by name, on `self`, and
    constructions for an `__init__`)."""
    return _callers_by_callee(model).get(id(owner)) or _constructions(model, owner)


def _callers_by_callee(model) -> dict[int, list]:
    """callee scope id -> [(calling scope, call)] for the module's calls of its own functions by name
    or on `self` (Scope resolution), built once per module."""
    index = model.__dict__.get("_library_callers")
    if index is None:
        index = {}
        for caller in model.scopes:
            for call in caller.calls:
                if not isinstance(call.func, (ast.Name, ast.Attribute)):
                    continue
                resolved = model.resolve_function(call.func, caller)
                if resolved is not None and resolved[0] is not None and not resolved[1] and resolved[0] is not caller:
                    index.setdefault(id(resolved[0]), []).append((caller, call))
        model.__dict__["_library_callers"] = index
    return index


def _bindings_by_name(model, owner) -> dict[str, list]:
    """name -> [(target, value)] of a scope's bindings whose target holds that name, built once per scope."""
    index = model.__dict__.setdefault("_library_bindings", {})
    found = index.get(id(owner))
    if found is None:
        found = index[id(owner)] = {}
        for target, value in owner.bindings:
            for node in walk(target):
                if isinstance(node, ast.Name):
                    found.setdefault(node.id, []).append((target, value))
        for target, _ in owner.loops:
            for node in walk(target):
                if isinstance(node, ast.Name):
                    found.setdefault(node.id, []).append((target, _LOOP))
    return found


_LOOP = object()


def _bound_kind(model, name: str, owner, depth: int) -> str | None:
    bindings = _bindings_by_name(model, owner).get(name, ())
    carried = [(t, v) for t, v in bindings if _carries_through_step(name, t, v) or _steps_itself(name, t, v)]
    if carried and len(carried) < len(bindings):
        # `state = create(...)`, then `state, loss = step(state, batch)` or `state = state.apply_gradients(g)`
        # in a loop: the state's kind is what the other bindings give, where the step (or the method of the
        # kind's class) hands back that kind at that position.
        kind = _bound_kind_of(model, name, owner, [b for b in bindings if b not in carried], depth)
        if kind is None or not kind.startswith("object:"):
            return None
        for target, value in carried:
            if _steps_itself(name, target, value):
                entry = models().entry(f"{kind[len('object:'):]}.{value.func.attr}")
                if entry is None or entry.returns != kind:
                    return None
            elif _carried_element_kind(model, name, target, value, owner, kind) != kind:
                return None
        return kind
    return _bound_kind_of(model, name, owner, bindings, depth)


def _steps_itself(name: str, target: ast.AST, value) -> bool:
    """`name = name.method(...)`: the name rebound to what a method of its own value returns."""
    return (isinstance(target, ast.Name) and target.id == name and isinstance(value, ast.Call)
            and isinstance(value.func, ast.Attribute) and isinstance(value.func.value, ast.Name) and value.func.value.id == name)


def _carries_through_step(name: str, target: ast.AST, value) -> bool:
    """`name, ... = step(..., name, ...)` (or `name = step(name, ...)`): the call takes the name and rebinds it."""
    if not isinstance(value, ast.Call):
        return False
    passed = [*value.args, *(k.value for k in value.keywords)]
    return any(isinstance(a, ast.Name) and a.id == name for a in passed)


def _carried_element_kind(model, name: str, target: ast.AST, call: ast.Call, scope, kind: str) -> str | None:
    """The kind `call` hands back in the place of `name` in `target`, when the function it runs (a plain or
    jitted function of the module) is given an instance of `kind` for that argument: every `return` gives
    that parameter back, or what a method of the class that returns the class gives (`state =
    state.apply_gradients(grads=g)`, `return state, loss`)."""
    function = _plain_function(model, call, scope, compiled=True)
    if function is None:
        return None
    position = next((i for i, a in enumerate(call.args) if isinstance(a, ast.Name) and a.id == name), None)
    if position is not None and not any(isinstance(a, ast.Starred) for a in call.args[:position]):
        parameter = function.params[position] if position < len(function.params) else None
    else:
        parameter = next((k.arg for k in call.keywords if isinstance(k.value, ast.Name) and k.value.id == name), None)
    if parameter is None:
        return None
    if isinstance(target, ast.Name):
        slot, count = None, None
    elif isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
        slot = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == name), None)
        count = len(target.elts)
    else:
        return None
    results = set()
    for returned in function.returns:
        if slot is not None:
            if not (isinstance(returned, ast.Tuple) and len(returned.elts) == count):
                return None
            returned = returned.elts[slot]
        results.add(_keeps_class(model, returned, function, parameter, kind, 0))
    return kind if results == {True} else None


def _keeps_class(model, node: ast.AST, function, parameter: str, kind: str, depth: int, active: frozenset = frozenset()) -> bool:
    """`node` in `function` is the parameter itself (given an instance of `kind`), or a method of the class
    called on such a value whose library entry returns the class again, through local names (a name
    rebound from itself, `state = state.apply_gradients(...)`, reads its earlier value there)."""
    if depth > 6:
        return False
    if isinstance(node, ast.Name):
        bindings = [b for b in _bindings_by_name(model, function).get(node.id, ()) if id(b[1]) not in active]
        if any(not isinstance(t, ast.Name) or v is _LOOP or v is None or isinstance(v, ast.AugAssign) for t, v in bindings):
            return False
        if not bindings:
            return node.id == parameter
        return all(
            _keeps_class(model, v, function, parameter, kind, depth + 1, active | {id(v)}) for t, v in bindings
        )
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        entry = models().entry(f"{kind[len('object:'):]}.{node.func.attr}")
        return (entry is not None and entry.returns == kind
                and _keeps_class(model, node.func.value, function, parameter, kind, depth + 1, active))
    return False


def _bound_kind_of(model, name: str, owner, bindings, depth: int) -> str | None:
    kinds: set[str | None] = set()
    for target, value in bindings:
        if value is _LOOP or value is None or isinstance(value, ast.AugAssign):
            return None
        if isinstance(target, ast.Name):
            kinds.add(value_kind(model, value, owner, depth + 1))
        elif isinstance(target, (ast.Tuple, ast.List)):
            position = next((i for i, e in enumerate(target.elts) if isinstance(e, ast.Name) and e.id == name), None)
            if position is None or not isinstance(value, ast.Call):
                return None
            kinds.add(_unpacked_kind(model, value, position, target, owner, depth))
        else:
            return None
        if len(kinds) > 1 or None in kinds:
            return None
    return kinds.pop() if len(kinds) == 1 else None


def _unpacked_field_kind(owner: str, position: int, count: int) -> str | None:
    """The field at `position` of an instance of a modelled NamedTuple-like class unpacked into `count`
    names (`init_fn, update_fn = optax.adam(1e-3)`, `init, apply = hk.transform(f)`): the method its
    entry describes, or None."""
    library = models()
    fields = library.unpacks.get(owner)
    if fields is None or len(fields) != count:
        return None
    qualified = f"{owner}.{fields[position]}"
    return f"function:{qualified}" if library.entry(qualified) is not None else None


def device_kind(model, call: ast.Call, scope) -> str | None:
    """'device' or 'host' for a call the library models describe (semantic model's device_kind terms)."""
    found = call_model(model, call, scope)
    if found is None or found.returns is None:
        return None
    returns = found.returns
    if returns == "tree_of_function":
        return mapped_tree_kind(model, call, lambda tree: model.device_kind(tree, scope) == "device")
    if returns.startswith("same:"):
        kind = value_kind(model, call, scope)
        if kind is not None and kind.startswith("object:") and "|" in returns:
            kind = returns.partition("|")[2]  # (a tree restored into an object: what the restore makes)
        returns = kind or ""
    if returns in DEVICE_KINDS:
        return "device"
    if returns in ("host", "no_buffers", "host_list"):
        return "host"
    return None


_HOST_CONVERSIONS = frozenset({"builtins.float", "builtins.int", "builtins.bool", "jax.device_get"})


def mapped_tree_kind(model, call: ast.Call, is_device) -> str | None:
    """`jax.tree.map(lambda x: x[0], metrics)` (the first replica of pmapped metrics), `lambda x:
    x.mean()`, `lambda a, b: a + b`: device leaves when every tree mapped holds device values and the
    function computes from its leaves on the device (indexing, array methods, `jax.numpy`, arithmetic);
    host leaves when it converts each one (`float(x)`, `np.asarray(x)`, `x.item()`). `is_device(tree)`:
    what the asking code knows of the trees (a loop knows more of its own names than the scope does)."""
    from jaxlint.semantic import jaxapi

    if len(call.args) < 2 or not isinstance(call.args[0], ast.Lambda):
        return None
    function = call.args[0]
    leaves = {argument.arg for argument in function.args.args}
    body = function.body
    if isinstance(body, ast.Call):
        qualified = model.qualified_name(body.func) or ""
        if qualified in _HOST_CONVERSIONS or qualified.startswith("numpy."):
            return "host"
        if isinstance(body.func, ast.Attribute) and body.func.attr in jaxapi.HOST_METHODS:
            return "host"
    if not leaves or not all(is_device(tree) for tree in call.args[1:]):
        return None
    return "device" if _computed_from_leaf(body, leaves, model, jaxapi) else None


def _computed_from_leaf(node: ast.AST, leaves: set[str], model, jaxapi) -> bool:
    """An expression the device computes from a leaf: the leaf, an index or slice of one, an array
    method of one, a `jax.numpy`/`jax.lax` call or arithmetic with one among its operands."""
    if isinstance(node, ast.Name):
        return node.id in leaves
    if isinstance(node, ast.Subscript):
        return _computed_from_leaf(node.value, leaves, model, jaxapi)
    if isinstance(node, ast.BinOp):
        return _computed_from_leaf(node.left, leaves, model, jaxapi) or _computed_from_leaf(node.right, leaves, model, jaxapi)
    if isinstance(node, ast.UnaryOp) and not isinstance(node.op, ast.Not):
        return _computed_from_leaf(node.operand, leaves, model, jaxapi)
    if isinstance(node, ast.Call):
        function = node.func
        qualified = model.qualified_name(function) or ""
        if qualified.startswith(jaxapi.ARRAY_NAMESPACES):
            return any(_computed_from_leaf(argument, leaves, model, jaxapi) for argument in node.args)
        if not qualified and isinstance(function, ast.Attribute) and function.attr in jaxapi.ARRAY_METHODS:
            return _computed_from_leaf(function.value, leaves, model, jaxapi)
    return False


def eager_operations(qualified: str | None) -> int:
    """The array operations a library function that is plain array code dispatches per call outside
    `jit` (its entry's `eager_ops`), 0 where no entry says."""
    if qualified is None:
        return 0
    found = models().entry(qualified)
    return found.eager_ops if found is not None else 0
