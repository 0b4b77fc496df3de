"""How many array elements a model's or optimizer's state holds, where the source says it.

`init` of a network whose layer widths the source fixes (constructor literals, module constants,
argument defaults, literal arguments of the call building it, items of a configuration dict display
no code changes in place, a parameter every call in the module sets to an integer) on an input of a known shape
(`jnp.ones((1, 28, 28, 1))`), and an optimizer state built for such parameters (a small multiple
of them), have a size the analysis can bound; the state of an optimizer that keeps no arrays
(`optax.sgd` without momentum: library data `optax.STATE_FREE`) is small whatever the parameters. The per-layer counts are data
(library_models/layers.py); this module walks the network: a `Sequential` of layers, a local module
class whose constructor (`__init__`, `setup`, or dataclass fields) stores layers and arrays and whose
`__call__` applies them in order, a function given to `hk.transform` that applies layers to its
input. Between layers it follows arithmetic that creates no parameters (a sample `mean + scale *
jax.random.normal(key, mean.shape)`, a cast, a reshape to a fixed shape, a tuple or local record of
outputs that the caller unpacks); a broadcast against an array of unknown shape leaves the shape
unknown. Anything it cannot follow (a loop over layers of a count not shown, a layer of unknown width, an input loaded from
a file) makes the whole bound unknown: None, never a guess.

A `for` loop over layers in `__call__` is written out once per iteration where the source fixes
the iterations (`range` of a known count, a tuple of known widths, `enumerate` of either; at most
64 iterations, nested two deep).

A state built inside a helper from the helper's parameters (`def make_state(key, width): ...
Tower(width).init(...)`) is read with those parameters bound to what the call passes
(`call_elements(..., passed)`), as Python binds them. A distribution of the outputs
(`distrax.Categorical(logits=x)`: library data `layers.DISTRIBUTION_CLASSES`) creates no parameters.
An environment's action count as a width (`nn.Dense(env.num_actions)`) is unknown, and bounded like
an unknown input in the second, bounding reading (semantic/action_counts.py).

Used by carried_state.known_small (JAX401: state under 1 MB is not worth donating).
"""

from __future__ import annotations

import ast
import math

from jaxlint.semantic import action_counts, constructed_sizes, imported_sizes
from jaxlint.semantic.constants import UNKNOWN, literal_value
from jaxlint.semantic.flow import changes_in_place
from jaxlint.semantic.library_models import layers as layer_models
from jaxlint.semantic.model import parent_of
from jaxlint.semantic.syntax import parameter_defaults, passed_to_parameter, walk

_DEPTH = 12
_UNROLLED = 64  # iterations of a loop over layers written out (`_unrolled`); more: not followed
_OPTIMIZER_INITS = frozenset({"optax.GradientTransformation.init"})
_TRAIN_STATE_CREATE = frozenset({"flax.training.train_state.TrainState.create"})
# The optimizers of `jax.example_libraries.optimizers` (formerly `jax.experimental.optimizers`): each
# returns `(init, update, get_params)`, and `init(params)` holds the parameters and at most two
# moments of each (library data).
_EXAMPLE_OPTIMIZERS = frozenset(
    f"{module}.{name}"
    for module in ("jax.example_libraries.optimizers", "jax.experimental.optimizers")
    for name in ("sgd", "momentum", "nesterov", "adagrad", "rmsprop", "rmsprop_momentum", "adam", "adamax", "sm3")
)
_SHAPE_FIRST = frozenset({
    "jax.numpy.zeros", "jax.numpy.ones", "jax.numpy.empty", "jax.numpy.full",
    "numpy.zeros", "numpy.ones", "numpy.empty", "numpy.full",
})
_SIZE_KEYWORD = frozenset({"numpy.random.uniform", "numpy.random.normal", "numpy.random.randn", "numpy.random.rand", "numpy.random.randint"})
_SHAPE_SECOND = frozenset({"jax.random.normal", "jax.random.uniform", "jax.random.bernoulli", "jax.random.randint"})
# Calls applied to a layer's input that change no parameter count and keep its shape.
_ELEMENTWISE_PREFIXES = ("jax.nn.", "flax.linen.activation.", "jax.numpy.tanh", "jax.numpy.exp", "jax.numpy.sin", "jax.numpy.cos")
_ELEMENTWISE_FLAX = ("flax.linen.", "flax.nnx.", "haiku.", "treex.", "equinox.nn.")
# Calls and array methods that create no parameters, used between layers.
_FREE_PREFIXES = ("jax.numpy.", "jax.nn.", "jax.random.", "numpy.", "math.")
_FREE_NAMES = frozenset({"haiku.next_rng_key", "builtins.len", "builtins.float", "builtins.int"})
_ARRAY_METHODS = frozenset({
    "astype", "mean", "sum", "squeeze", "transpose", "clip", "max", "min", "flatten", "ravel", "swapaxes", "std", "var",
})
_SHAPE_KEEPING_METHODS = frozenset({"astype", "clip"})
_POOLS = frozenset({"flax.linen.max_pool", "flax.linen.avg_pool", "flax.nnx.max_pool", "flax.nnx.avg_pool"})


class _Frame:
    """Where names are looked up: a scope, the parameters of a local class or function bound to
    argument expressions (with the frame they are evaluated in), and `self.<field>` values."""

    def __init__(self, scope, bound: dict | None = None, parent: _Frame | None = None) -> None:
        self.scope = scope
        self.bound = bound or {}
        self.parent = parent


# Features of one sample fed to a network's first dense layer where the source does not show the
# input's shape (`net.init(key, batch)` on loaded data, an environment's observation): a per-sample
# vector (a control task's observation, a humanoid's is 376; coordinates; tabular features). Read
# against the 1 MB worth donating (carried_state.WORTH_DONATING_BYTES), an MLP of widths up to about
# a hundred stays small with its Adam moments whatever such vector it is fed, and one of width 256
# (a SAC critic, about 3 MB: judged real) does not. An image, flattened, reshaped or convolved,
# stays unknown. An upper bound for `known_small` only (carried_state): never read to show a state large.
FEATURE_BOUND = 512


class _AssumedWidth(int):
    """The last axis of an input of unknown shape, at `FEATURE_BOUND`: only a dense layer (or a norm
    over that axis) reads it; a flatten, a reshape or a convolution of such an input stays unknown."""


class StateSize:
    def __init__(self, model, elements, sizes_for=None) -> None:
        self.model = model
        self.elements = elements  # carried_state's element count of a value, for the parameters passed to an optimizer
        # carried_state's StateSize of another module's model (semantic/imported_sizes.py), or None.
        self.sizes_for = sizes_for
        # Set while carried_state.known_small bounds a network's unknown input at FEATURE_BOUND features.
        self.bounding_inputs = False
        # Set when a network's `init` met an input of unknown shape (worth a bounded second reading).
        self.unknown_input = False
        # Set while carried_state.known_large reads a network's unknown input (and an action count) at
        # one feature: the layers after the first hold what their widths fix whatever the input, so
        # the count is a lower bound, read only to show a state large (`Dense(512)` then `Dense(512)`
        # holds 262k parameters fed any vector).
        self.least_inputs = False
        # Set while carried_state.known_small reads a part of a state (`variables["params"]`) as
        # at most the whole: an upper bound, never read to show a state large.
        self.bounding_parts = False

    # ----- integers ------------------------------------------------------------------------------

    def integer(self, node: ast.AST, frame: _Frame, depth: int = 0):
        value = self.value(node, frame, depth)
        if isinstance(value, tuple):
            return value if all(isinstance(v, int) and not isinstance(v, bool) for v in value) else None
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    def value(self, node: ast.AST, frame: _Frame, depth: int = 0):
        evaluator = self.model.constant_evaluator()
        if action_counts.reads_action_count(node):
            return self._action_count()

        def lookup(inner: ast.AST):
            key = inner.id if isinstance(inner, ast.Name) else (
                "self." + inner.attr if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and inner.value.id == "self" else None
            )
            if key is not None and key in frame.bound:
                argument, caller = frame.bound[key]
                if depth > _DEPTH or argument is None:
                    return UNKNOWN
                return self.value(argument, caller, depth + 1) if isinstance(argument, ast.AST) else argument
            if isinstance(inner, ast.Subscript):
                item = self._config_item(inner, frame, depth)
                return UNKNOWN if item is None else self.value(item[0], item[1], depth + 1)
            if isinstance(inner, ast.Name) and inner.id in frame.scope.param_nodes:
                return self._default(inner.id, frame.scope)
            if isinstance(inner, ast.Name) and depth <= _DEPTH:
                bound = self._binding(inner, frame.scope)  # `num_actions = env.num_actions`
                if bound is not None and isinstance(bound[0], ast.Name) and action_counts.reads_action_count(bound[1]):
                    return self._action_count()
            if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and inner.value.id not in frame.bound:
                # `self.horizon` bound in `__init__`, `cfg.horizon` of what the calls pass (semantic/constructed_sizes.py).
                stored = constructed_sizes.init_attribute(self.model, inner, frame.scope)
                if stored is not None:
                    return UNKNOWN if depth > _DEPTH else self.value(stored[0], _Frame(stored[1]), depth + 1)
                found = constructed_sizes.parameter_attribute(
                    self.model, inner, frame.scope, lambda node, scope: self.value(node, _Frame(scope), depth + 1) if depth <= _DEPTH else UNKNOWN,
                )
                if found is not UNKNOWN:
                    return found
            return evaluator.value(inner, frame.scope)

        found = literal_value(node, None, lookup)
        if found is UNKNOWN and isinstance(node, ast.Call) and self.model.qualified_name(node.func) in ("numpy.prod", "math.prod"):
            inner = self.integer(node.args[0], frame, depth + 1) if node.args else None
            return math.prod(inner) if isinstance(inner, tuple) else UNKNOWN
        return found

    def _action_count(self):
        """An environment's action count (semantic/action_counts.py): unknown, worth a bounded second
        reading; in that reading, at most `ACTION_BOUND` (an upper bound, as an input's features are)."""
        self.unknown_input = True
        if self.bounding_inputs:
            return _AssumedWidth(action_counts.ACTION_BOUND)
        return _AssumedWidth(1) if self.least_inputs else UNKNOWN

    def _default(self, name: str, scope):
        """A parameter's default, when no call the module shows passes the parameter."""
        function = scope.node
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return UNKNOWN
        return parameter_value(self.model, function, name, parameter_defaults(function.args).get(name))

    def _config_item(self, node: ast.Subscript, frame: _Frame, depth: int):
        """(the expression, its frame) a literal key picks from a configuration dict: `CONFIG["width"]`,
        `hparams["width"]` with `hparams` a parameter bound to a dict display, `cfg["model"]["width"]`."""
        key = literal_value(node.slice)
        if not isinstance(key, (str, int)) or isinstance(key, bool) or depth > _DEPTH:
            return None
        container = node.value
        if isinstance(container, ast.Subscript):
            outer = self._config_item(container, frame, depth + 1)
            if outer is None:
                return None
            container, frame = outer
        elif isinstance(container, ast.Name) and container.id in frame.bound:
            argument, caller = frame.bound[container.id]
            if not isinstance(argument, ast.AST):
                return None
            container, frame = argument, caller
        if isinstance(container, ast.Name):
            found = dict_display(self.model, container, frame.scope)
            if found is None:
                return None
            container, frame = found[0], _Frame(found[1])
        value = dict_item(container, key)
        return None if value is None else (value, frame)

    # ----- state values ------------------------------------------------------------------------

    def call_elements(self, call: ast.Call, scope, depth: int = 0, passed: dict | None = None) -> int | None:
        """Elements of the state a call builds: a model's `init`, an optimizer's `init`, a train
        state, a metric, or a network object whose sizes are explicit; None when unknown.
        `passed`: inside a helper that builds the state (`def init_state(key, hidden): net =
        MLP(hidden); return TrainState.create(params=net.init(key, x), ...)`), its parameters ->
        (the argument its call passes, the caller's scope): the widths the helper reads from its
        parameters are the caller's values (`init_state(key, 16)`), as Python binds them."""
        if depth > _DEPTH:
            return None
        frame = _Frame(scope, {name: (argument, _Frame(caller)) for name, (argument, caller) in passed.items()} if passed else None)
        model = self.model

        def counted_in_scope(node: ast.AST):
            # A name of the helper's own scope keeps the helper's parameters bound to the call's arguments.
            value, owner = self.resolve(node, scope)
            return self.elements(value, owner, passed if passed and owner is scope else None)

        qualified = model.qualified_name(call.func)
        spec = layer_models.LAYERS.get(qualified or "")
        if spec is not None and spec["kind"] == "metric":
            return layer_models.METRIC_ELEMENTS
        if qualified in _TRAIN_STATE_CREATE:
            params = next((k.value for k in call.keywords if k.arg == "params"), None)
            counted = counted_in_scope(params) if params is not None else None
            return None if counted is None else (1 + layer_models.OPTIMIZER_STATE_FACTOR) * counted + 1
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr in ("filter", "parameters", "eval", "train") and not call.args[1:]:
            if isinstance(func.value, (ast.Name, ast.Call)) and self._network_like(func.value, frame, depth):
                return counted_in_scope(func.value)  # a part of the model, or the model in another mode
        if self.settings_only(call, scope):
            return None  # an optimizer before its `init`: no arrays yet, nor a size for the state it will hold
        if self._optimizer_init(call, frame):
            if len(call.args) != 1:
                return None
            if self._state_free(self._optimizer_call(call.func, scope), scope):
                return 1  # `optax.sgd(lr).init(params)`: empty states, or one step counter
            counted = counted_in_scope(call.args[0])
            return None if counted is None else layer_models.OPTIMIZER_STATE_FACTOR * counted + 1
        if isinstance(func, ast.Attribute) and func.attr == "init":
            inputs = [*call.args[1:], *(k.value for k in call.keywords if k.arg in ("inputs", "x"))]
            network = self.network(func.value, frame, depth + 1)
            if network is None:
                return None
            shapes = [self.shape(argument, frame) for argument in inputs]
            first = shapes[0] if shapes else None
            if first is None and len(inputs) == 1:
                self.unknown_input = True
                if self.bounding_inputs:
                    first = (None, _AssumedWidth(FEATURE_BOUND))
                elif self.least_inputs:
                    first = (None, _AssumedWidth(1))
            result = network(first)
            return None if result is None else result[0]
        if self._returns_number(call, frame):
            return 1
        # A network object whose sizes are explicit (`eqx.nn.MLP(2, 1, 16, 2, key=k)`).
        network = self.network(call, frame, depth + 1)
        if network is not None:
            result = network(None)
            return None if result is None else result[0]
        return None

    def _returns_number(self, call: ast.Call, frame: _Frame) -> bool:
        """A method of a local class, called on an instance the source shows (`counter.reset()` with
        `counter = Counter()`), annotated to return a Python number (`-> int`, or an alias of it), or
        whose every `return` is a number literal: a Python scalar, not device state."""
        func = call.func
        if not (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)):
            return False
        bound = self._binding(func.value, frame.scope)
        if bound is None or not isinstance(bound[1], ast.Call) or not isinstance(bound[1].func, ast.Name):
            return False
        class_node = self._local_class(bound[1].func.id)
        if class_node is None:
            return False
        method = next((s for s in class_node.body if isinstance(s, ast.FunctionDef) and s.name == func.attr), None)
        if method is None:
            return False
        annotation = method.returns
        for _ in range(3):
            if not isinstance(annotation, ast.Name):
                break
            if annotation.id in ("int", "float", "bool"):
                return True
            alias = self._binding(annotation, self.model.module_scope) if annotation.id in self.model.module_scope.local_names else None
            annotation = alias[1] if alias is not None else None
        returns = [n for n in walk(method) if isinstance(n, ast.Return)]
        return bool(returns) and all(
            isinstance(r.value, ast.Constant) and isinstance(r.value.value, (int, float)) and not isinstance(r.value.value, bool) for r in returns
        )

    def settings_only(self, call: ast.Call, scope) -> bool:
        return isinstance(call.func, (ast.Name, ast.Attribute)) and self._optimizer(call, scope, 0)

    def _network_like(self, node: ast.AST, frame: _Frame, depth: int) -> bool:
        return self.network(node, frame, depth + 1) is not None or (isinstance(node, ast.Name) and node.id in frame.scope.local_names)

    def _optimizer_init(self, call: ast.Call, frame: _Frame) -> bool:
        """`tx.init(params)` of an optax transformation, `Optimizer(optax.adam(...)).init(params)`, or
        `opt_init(params)` unpacked from `opt_init, opt_update = optax.adam(...)`."""
        from jaxlint.semantic import library_models

        entry = library_models.call_model(self.model, call, frame.scope)
        if entry is not None and entry.name in _OPTIMIZER_INITS:
            return True
        func = call.func
        if isinstance(func, ast.Attribute) and func.attr == "init":
            return self._optimizer(func.value, frame.scope, 0)
        if isinstance(func, ast.Name):
            from jaxlint.semantic.bindings import owning_scope

            owner = owning_scope(self.model, func.id, frame.scope)
            bindings = [] if owner is None else [
                (target, value) for target, value in owner.bindings
                if func.id in {e.id for e in ast.walk(target) if isinstance(e, ast.Name)}
            ]
            if len(bindings) == 1:
                target, value = bindings[0]
                if isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name) and target.elts[0].id == func.id:
                    return value is not None and self._optimizer(value, owner, 0)
        return False

    def _optimizer_call(self, func: ast.AST, scope) -> ast.Call | None:
        """The call building the optimizer whose `init` `func` is: `tx` in `tx.init` bound to
        `optax.sgd(lr)`, `optax.sgd(lr)` in `optax.sgd(lr).init`, or the call unpacked into
        `opt_init, opt_update = optax.sgd(lr)`; None where the source does not show it."""
        node = func.value if isinstance(func, ast.Attribute) and func.attr == "init" else func
        for _ in range(_DEPTH):
            if isinstance(node, ast.Call):
                return node
            if not isinstance(node, ast.Name):
                return None
            from jaxlint.semantic.bindings import owning_scope

            owner = owning_scope(self.model, node.id, scope)
            bindings = [] if owner is None else [
                (target, value) for target, value in owner.bindings
                if node.id in {e.id for e in ast.walk(target) if isinstance(e, ast.Name)}
            ]
            if len(bindings) != 1 or bindings[0][1] is None:
                return None
            node, scope = bindings[0][1], owner
        return None

    def _state_free(self, call: ast.Call | None, scope, depth: int = 0) -> bool:
        """An optax transformation whose state holds no arrays whatever the parameters (library
        data: `optax.STATE_FREE`): `optax.sgd(lr)` without momentum, clipping, scaling, a `chain`
        of those."""
        from jaxlint.semantic.library_models import optax as optax_model

        if call is None or depth > _DEPTH:
            return False
        qualified = self.model.qualified_name(call.func) or ""
        if qualified in optax_model.STATE_FREE_CHAINS:
            return bool(call.args) and not call.keywords and all(
                isinstance(part, ast.Call) and self._state_free(part, scope, depth + 1) for part in call.args
            )
        if qualified not in optax_model.STATE_FREE:
            return False
        adds_state = optax_model.STATE_FREE[qualified]
        if adds_state is None:
            return True
        keyword, position = adds_state
        given = next((k.value for k in call.keywords if k.arg == keyword), None)
        if given is None and len(call.args) > position:
            given = call.args[position]
        if any(k.arg is None for k in call.keywords) or any(isinstance(a, ast.Starred) for a in call.args):
            return False  # `**options` may set it
        return given is None or (isinstance(given, ast.Constant) and given.value is None)

    def _optimizer(self, node: ast.AST, scope, depth: int) -> bool:
        if depth > _DEPTH:
            return False
        if isinstance(node, ast.Name):
            bound = self._binding(node, scope)
            return bound is not None and isinstance(bound[0], ast.Name) and self._optimizer(bound[1], scope, depth + 1)
        if not isinstance(node, ast.Call):
            return False
        qualified = self.model.qualified_name(node.func) or ""
        if qualified == "treex.Optimizer" or qualified in _EXAMPLE_OPTIMIZERS:
            return True
        return qualified.startswith("optax.") and qualified.count(".") == 1 and qualified[len("optax."):][:1].islower()

    def resolve(self, node: ast.AST, scope) -> tuple[ast.AST, object]:
        """The value a name holds where it is read, (node, its scope); the node itself otherwise."""
        if isinstance(node, ast.Name):
            bound = self._binding(node, scope)
            if bound is not None and isinstance(bound[0], ast.Name):
                from jaxlint.semantic.bindings import owning_scope

                return bound[1], owning_scope(self.model, node.id, scope) or scope
        return node, scope

    def _binding(self, name: ast.Name, scope):
        """(target, value) of the binding of `name` that reaches the read in its scope: bindings after
        the read (the update loop that follows, `state = step(state)`) do not reach a read before it."""
        from jaxlint.semantic.bindings import owning_scope
        from jaxlint.semantic.flow import enclosing_statement, reaching_value, target_elements

        owner = owning_scope(self.model, name.id, scope)
        if owner is None:
            return None
        read = enclosing_statement(name)
        if read is None:
            return None
        values = []
        for target, value in owner.bindings:
            names = {e.id for e in target_elements(target) if isinstance(e, ast.Name)}
            if name.id not in names:
                continue
            statement = enclosing_statement(value) if value is not None else None
            if statement is not None and statement.lineno >= read.lineno and owner.node is not scope.node:
                return None  # read inside a function: any binding may reach it
            if statement is not None and statement.lineno >= read.lineno:
                continue
            if not (isinstance(target, ast.Name) and value is not None) or isinstance(value, ast.AugAssign):
                return None
            values.append(value)
        value = reaching_value(name, values) if values else None
        if value is None:
            return None
        for target, bound in owner.bindings:
            if bound is value:
                return target, value
        return None

    # ----- shapes --------------------------------------------------------------------------------

    def shape(self, node: ast.AST, frame: _Frame, depth: int = 0):
        """The shape of an input array where the source fixes it, else None. A leading None is an
        axis of unknown length (rows picked by an index)."""
        if depth > _DEPTH:
            return None
        if isinstance(node, ast.Name):
            bound = self._binding(node, frame.scope)
            if bound is None or not isinstance(bound[0], ast.Name):
                return None
            from jaxlint.semantic.bindings import owning_scope

            return self.shape(bound[1], _Frame(owning_scope(self.model, node.id, frame.scope) or frame.scope), depth + 1)
        if isinstance(node, ast.Subscript):
            inner = self.shape(node.value, frame, depth + 1)
            if inner and isinstance(node.slice, (ast.Slice, ast.Name)):
                return (None, *inner[1:])  # rows picked: the other axes stay
            return None
        if not isinstance(node, ast.Call):
            return None
        qualified = self.model.qualified_name(node.func) or ""
        argument = None
        if qualified in _SHAPE_FIRST:
            argument = node.args[0] if node.args else next((k.value for k in node.keywords if k.arg == "shape"), None)
        elif qualified in _SIZE_KEYWORD:
            argument = next((k.value for k in node.keywords if k.arg == "size"), None)
        elif qualified in _SHAPE_SECOND:
            argument = node.args[1] if len(node.args) > 1 else next((k.value for k in node.keywords if k.arg == "shape"), None)
        elif qualified in ("jax.numpy.array", "numpy.array", "jax.numpy.asarray", "numpy.asarray") and node.args:
            return _literal_shape(node.args[0])
        if argument is None:
            return None
        value = self.integer(argument, frame)
        if isinstance(value, int):
            return (value,)
        return value

    # ----- networks ------------------------------------------------------------------------------

    def network(self, node: ast.AST, frame: _Frame, depth: int):
        """A function from an input shape (or None) to (parameter elements, output shape), or None
        when the node is not a network the analysis can size."""
        if depth > _DEPTH or node is None:
            return None
        model = self.model
        if isinstance(node, ast.Name):
            key = node.id
            if key in frame.bound:
                argument, caller = frame.bound[key]
                return self.network(argument, caller, depth + 1) if isinstance(argument, ast.AST) else None
            resolved = model.resolve_function(node, frame.scope)
            if resolved is not None and not resolved[1] and isinstance(resolved[0].node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                return self._function_network(resolved[0].node, frame, depth)  # `hk.transform(forward)`
            bound = self._binding(node, frame.scope)
            if bound is None or not isinstance(bound[0], ast.Name):
                return None
            return self.network(bound[1], frame, depth + 1)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            found = frame.bound.get("self." + node.attr)
            if found is not None and isinstance(found[0], ast.AST):
                return self.network(found[0], found[1], depth + 1)
            return None
        if isinstance(node, ast.Lambda):
            return self._function_network(node, frame, depth)
        if not isinstance(node, ast.Call):
            return None
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr in ("init", "eval", "train") and not isinstance(func.value, ast.Name):
            # `CustomMLP(2, 16, 1).init(42)` (treex): the module itself, initialised.
            if func.attr != "init" or not self._optimizer(func.value, frame.scope, 0):
                return self.network(func.value, frame, depth + 1)
        qualified = model.qualified_name(func) or ""
        spec = layer_models.LAYERS.get(qualified)
        if spec is not None:
            return self._layer(spec, node, frame)
        if qualified in layer_models.SEQUENTIAL:
            where = layer_models.SEQUENTIAL[qualified]
            if where == "*":
                items = node.args
            else:
                listed = node.args[where] if len(node.args) > where else next((k.value for k in node.keywords if k.arg == "layers"), None)
                items = listed.elts if isinstance(listed, (ast.List, ast.Tuple)) else None
            if items is None or any(isinstance(item, ast.Starred) for item in items):
                return None
            parts = [self.network(item, frame, depth + 1) or self._stateless_callable(item, frame) for item in items]
            return None if None in parts else _chain(parts)
        if qualified in ("haiku.transform", "haiku.transform_with_state", "haiku.without_apply_rng") and node.args:
            return self.network(node.args[0], frame, depth + 1)
        if isinstance(func, ast.Name):
            class_node = self._local_class(func.id)
            if class_node is not None:
                return self._class_network(class_node, node, frame, depth)
            resolved = model.resolve_function(func, frame.scope)
            if resolved is not None and not resolved[1] and isinstance(resolved[0].node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                # A local helper returning a network (`def make_net(width): return nn.Sequential([...])`).
                helper = resolved[0]
                returns = helper.returns
                if len(returns) != 1:
                    return None
                bound = self._bind_arguments(helper.node, node, frame, skip_self=False)
                if bound is None:
                    return None
                return self.network(returns[0], _Frame(helper, bound), depth + 1)
        if isinstance(func, (ast.Name, ast.Attribute)):
            return self._imported_network(node, frame, depth)
        return None

    def _imported_network(self, call: ast.Call, frame: _Frame, depth: int):
        """A network class, or a helper returning a network, of another module of the project
        (`from nets import MLP`): sized in its module as a local one, the call's arguments as their
        values here (semantic/imported_sizes.py)."""
        found = imported_sizes.home_definition(call.func, self.model)
        if found is None:
            return None
        home, definition = found
        literal = imported_sizes.literal_call(call, definition.name, lambda node: self.value(node, frame, depth + 1))
        if literal is None:
            return None
        if self.sizes_for is None:
            return None
        sizes = self.sizes_for(home)
        home_frame = _Frame(home.module_scope)
        if isinstance(definition, ast.ClassDef):
            network = sizes._class_network(definition, literal, home_frame, depth + 1)
        else:
            helper = home.scope_for(definition.body[0])
            returns = getattr(helper, "returns", None)
            if helper is None or returns is None or len(returns) != 1:
                return None
            bound = sizes._bind_arguments(definition, literal, home_frame, skip_self=False)
            network = None if bound is None else sizes.network(returns[0], _Frame(helper, bound), depth + 1)
        if network is None:
            return None

        def run(shape):
            sizes.bounding_parts = self.bounding_parts
            try:
                return network(shape)
            finally:
                sizes.bounding_parts = False

        return run

    def _local_class(self, name: str) -> ast.ClassDef | None:
        model = self.model
        found = [c for c in model.class_methods if c.name == name and model.scope_for(c) is model.module_scope]
        return found[0] if len(found) == 1 and name not in model.imports.aliases else None

    def _function_network(self, function: ast.AST, frame: _Frame, depth: int):
        """A function (lambda or def given to `hk.transform`) applying layers to its first parameter."""
        arguments = function.args.args
        if not arguments:
            return None
        scope = self.model.scope_for(function.body[0] if isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) else function.body)
        if scope is None:
            return None
        body = [ast.Return(value=function.body)] if isinstance(function, ast.Lambda) else function.body
        inner = _Frame(scope, {}, frame)
        return lambda shape: self._run_body(body, arguments[0].arg, shape, inner, depth + 1)

    def _stateless_callable(self, node: ast.AST, frame: _Frame):
        """An activation or a reshape given as a layer (`jax.nn.relu`, `lambda x: x.reshape(x.shape[0], -1)`)."""
        if isinstance(node, ast.Lambda) and len(node.args.args) == 1:
            return self._function_network(node, frame, 0)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
            found = frame.bound.get("self." + node.attr)  # `self.act = jax.nn.relu` stored by the constructor
            if found is not None and isinstance(found[0], (ast.Attribute, ast.Name)) and found[0] is not node:
                return self._stateless_callable(found[0], found[1])
            return None
        if self._elementwise(node):
            return lambda shape: (0, shape)
        return None

    def _elementwise(self, func: ast.AST) -> bool:
        qualified = self.model.qualified_name(func) or ""
        if qualified.startswith(_ELEMENTWISE_PREFIXES):
            return True
        # `nn.relu`, `hk.relu`-style lower-case functions of the layer libraries (not `nn.max_pool`).
        return qualified.startswith(_ELEMENTWISE_FLAX) and qualified.rsplit(".", 1)[-1] in _ACTIVATIONS

    def _bind_arguments(self, function: ast.AST, call: ast.Call, frame: _Frame, skip_self: bool) -> dict | None:
        arguments = function.args
        positional = [a.arg for a in [*arguments.posonlyargs, *arguments.args]]
        if skip_self:
            positional = positional[1:]
        if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords) or len(call.args) > len(positional):
            return None
        bound: dict = {}
        defaults = arguments.defaults
        for name, default in zip(positional[len(positional) - len(defaults):], defaults):
            bound[name] = (default, _Frame(self.model.module_scope))
        for name, default in zip([a.arg for a in arguments.kwonlyargs], arguments.kw_defaults):
            if default is not None:
                bound[name] = (default, _Frame(self.model.module_scope))
        for name, argument in zip(positional, call.args):
            bound[name] = (argument, frame)
        for keyword in call.keywords:
            bound[keyword.arg] = (keyword.value, frame)
        return bound

    def _class_network(self, class_node: ast.ClassDef, call: ast.Call, frame: _Frame, depth: int):
        """A local module class: its fields and constructor arguments bound to what the call passes,
        the layers and arrays its constructor stores, applied by `__call__` in order."""
        methods = {statement.name: statement for statement in class_node.body if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))}
        bound: dict = {}
        constructor = methods.get("__init__")
        if constructor is not None:
            arguments = self._bind_arguments(constructor, call, frame, skip_self=True)
            if arguments is None:
                return None
            bound.update(arguments)
        else:
            # Dataclass-style fields (flax linen, equinox): positional and keyword arguments in field order.
            fields = [s for s in class_node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)]
            if len(call.args) > len(fields) or any(isinstance(a, ast.Starred) for a in call.args):
                return None
            module_frame = _Frame(self.model.module_scope)
            for field in fields:
                if field.value is not None:
                    bound["self." + field.target.id] = (field.value, module_frame)
            for field, argument in zip(fields, call.args):
                bound["self." + field.target.id] = (argument, frame)
            for keyword in call.keywords:
                if keyword.arg is None:
                    return None
                bound["self." + keyword.arg] = (keyword.value, frame)
        explicit = 0
        stored: list[str] = []
        built_locals: set[str] = set()
        for name in ("__init__", "setup"):
            method = methods.get(name)
            if method is None:
                continue
            if _stores_below_top_level(method):
                return None  # `self.w = ...` under a loop or a branch: what is stored is not followed
            scope = self.model.scope_for(method.body[0])
            parameters = {a.arg for a in (*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs)}
            built_locals |= set(scope.local_names) - parameters
            inner = _Frame(scope, bound)
            for statement in method.body:
                if not isinstance(statement, (ast.Assign, ast.AnnAssign)):
                    continue
                targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                for target in targets:
                    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self":
                        bound["self." + target.attr] = (statement.value, inner)
                        stored.append("self." + target.attr)
                    elif isinstance(target, ast.Name):
                        bound[target.id] = (statement.value, inner)
        # Arrays stored directly (`self.b = jnp.zeros((dout,))`) and layers with explicit sizes.
        pending: list[str] = []
        for key in stored:
            value, owner = bound[key]
            if self._is_layer(value, owner, depth):
                pending.append(key)
                continue
            counted = self._array_elements(value, owner, depth)
            if counted is None:
                if isinstance(value, ast.Name) and value.id in built_locals:
                    # A local the constructor builds (`layers = []` filled in a loop, then
                    # `self.layers = layers`): a setting only where it is a literal.
                    local = bound.get(value.id)
                    if local is not None and isinstance(local[0], ast.Constant):
                        continue
                    if local is not None and isinstance(local[0], ast.List) and not local[0].elts:
                        filled = self._appended_layers(value.id, methods, local[1], depth)
                        if filled is not None:
                            explicit += filled
                            continue
                    return None
                if isinstance(value, ast.Constant) or self._plain_setting(value):
                    continue  # a number or a string setting
                return None
            explicit += counted
        apply = methods.get("__call__")
        if apply is None:
            return None
        scope = self.model.scope_for(apply.body[0])
        arguments = apply.args.args[1:]
        inner = _Frame(scope, bound)

        def run(shape):
            if not arguments:
                return None
            result = self._run_body(apply.body, arguments[0].arg, shape, inner, depth + 1, used=set())
            return None if result is None else (result[0] + explicit, result[1])

        if not pending:
            if not any(isinstance(n, ast.Call) and self._is_layer(n.func, inner, depth) for n in walk(apply)) and not _makes_parameters(apply):
                # Only arrays the constructor stores: their count, whatever `__call__` computes.
                return lambda shape: (explicit, None)
            return run
        return self._with_pending(run, pending, bound, depth, apply, inner)

    def _appended_layers(self, name: str, methods: dict, frame: _Frame, depth: int) -> int | None:
        """Parameters of the layers a constructor appends to its local list `name` (`layers = []`):
        appends in its body and in `for ... in range(n)` loops there, each layer of sizes the walk
        can count without an input (`eqx.nn.Linear(width, width)`). A name the method rebinds
        (`in_size = width` after the first layer) counts at its largest value: an upper bound."""
        method = next((m for m in (methods.get("__init__"), methods.get("setup")) if m is not None and frame.scope is self.model.scope_for(m.body[0])), None)
        if method is None:
            return None
        values: dict[str, list[ast.AST]] = {}
        for node in walk(method):
            if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
                values.setdefault(node.targets[0].id, []).append(node.value)
            elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Name):
                values.setdefault(node.target.id, []).append(None)
        if len(values.get(name, ())) != 1:
            return None  # the list itself rebound
        total = 0
        for statement in method.body:
            appended = [
                node for node in walk(statement)
                if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name
            ]
            if not appended:
                continue
            if any(not (isinstance(parent_of(a), ast.Call) and parent_of(a).func is a and a.attr == "append") for a in appended):
                return None  # `layers.extend(...)`, the list handed on: not followed
            times = 1
            body = [statement]
            if isinstance(statement, ast.For) and not statement.orelse:
                times = self._range_length(statement.iter, frame)
                body = statement.body
            if times is None or not all(isinstance(s, (ast.Expr, ast.Assign)) for s in body):
                return None
            for inner_statement in body:
                call = inner_statement.value if isinstance(inner_statement, ast.Expr) else None
                if call is None:
                    continue
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) and call.func.value.id == name and len(call.args) == 1):
                    return None
                counted = self._largest_layer(call.args[0], frame, values, depth)
                if counted is None:
                    return None
                total += times * counted
        return total

    def _range_length(self, node: ast.AST, frame: _Frame) -> int | None:
        if not (isinstance(node, ast.Call) and self.model.qualified_name(node.func) in ("builtins.range", "range") and 1 <= len(node.args) <= 2 and not node.keywords):
            return None
        bounds = [self.integer(argument, frame) for argument in node.args]
        if not all(isinstance(b, int) for b in bounds):
            return None
        return max(0, bounds[-1] - (bounds[0] if len(bounds) == 2 else 0))

    def _largest_layer(self, layer: ast.AST, frame: _Frame, values: dict, depth: int) -> int | None:
        """A layer's parameter count at the largest value of each name the method rebinds."""
        names = sorted({n.id for n in walk(layer) if isinstance(n, ast.Name) and len(values.get(n.id, ())) > 1})
        choices = [[(name, value) for value in values[name]] for name in names]
        if any(value is None for choice in choices for _, value in choice) or math.prod(len(c) for c in choices) > 16:
            return None
        best = None
        for combination in _product(choices):
            bound = dict(frame.bound)
            bound.update((name, (value, frame)) for name, value in combination)
            network = self.network(layer, _Frame(frame.scope, bound, frame.parent), depth + 1)
            counted = network(None) if network is not None else None
            if counted is None:
                return None
            best = counted[0] if best is None else max(best, counted[0])
        return best

    def _with_pending(self, run, pending, bound, depth, apply, inner):
        """Stored layers must each be applied by `__call__` (checked by `_run_body` through `used`)."""

        def checked(shape):
            used: set[str] = set()
            arguments = apply.args.args[1:]
            if not arguments:
                return None
            result = self._run_body(apply.body, arguments[0].arg, shape, inner, depth + 1, used=used)
            if result is None:
                # Layers of explicit sizes count without the input (`eqx.nn.Linear(2, 16)`), unless
                # `__call__` builds layers of its own that the walk could not follow.
                if any(isinstance(n, ast.Call) and self._is_layer(n.func, inner, depth) for n in walk(apply)):
                    return None
                total = 0
                for key in pending:
                    layer = self.network(bound[key][0], bound[key][1], depth + 1)
                    counted = layer(None) if layer is not None else None
                    if counted is None:
                        return None
                    total += counted[0]
                base = run(None)
                return None if base is None else (base[0] + total, None)
            if not set(pending) <= used:
                return None
            return result

        return checked

    def _plain_setting(self, value: ast.AST) -> bool:
        return isinstance(value, ast.Name) or (isinstance(value, ast.Attribute) and not isinstance(value.value, ast.Call))

    def _is_layer(self, value: ast.AST, frame: _Frame, depth: int) -> bool:
        if isinstance(value, ast.Call):
            qualified = self.model.qualified_name(value.func) or ""
            if qualified in layer_models.LAYERS or qualified in layer_models.SEQUENTIAL:
                return True
            if isinstance(value.func, ast.Name) and self._local_class(value.func.id) is not None:
                return True
            found = imported_sizes.home_definition(value.func, self.model)
            return found is not None and isinstance(found[1], ast.ClassDef)
        return False

    def _array_elements(self, value: ast.AST, frame: _Frame, depth: int) -> int | None:
        """Elements of an array stored by a constructor (`jnp.zeros((n, m))`, an initializer's lambda)."""
        if isinstance(value, ast.Call):
            qualified = self.model.qualified_name(value.func) or ""
            if qualified == "treex.Initializer" and value.args and isinstance(value.args[0], ast.Lambda):
                initializer = value.args[0]
                body = initializer.body
                if isinstance(body, ast.Name) and [a.arg for a in initializer.args.args] == [body.id]:
                    return 2  # `Initializer(lambda key: key)`: the PRNG key itself
                return self._array_elements(body, frame, depth + 1)
            shape = self.shape(value, frame, depth + 1)
            if shape is not None and None not in shape:
                return math.prod(shape)
        return None

    def _layer(self, spec: dict, call: ast.Call, frame: _Frame):
        kind = spec["kind"]

        def argument(field):
            position, keyword = spec[field]
            found = next((k.value for k in call.keywords if k.arg == keyword), None)
            if found is None and len(call.args) > position and not any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
                found = call.args[position]
            return found

        def integer(field):
            node = argument(field)
            return None if node is None else self.integer(node, frame)

        if kind == "stateless":
            return lambda shape: (0, shape)
        if kind == "flatten":
            return lambda shape: _flattened(shape)
        if kind == "dense":
            features = integer("features")
            if not isinstance(features, int):
                return None
            return lambda shape: None if not shape or not isinstance(shape[-1], int) else (shape[-1] * features + features, (*shape[:-1], features))
        if kind == "linear":
            width_in, width_out = integer("in"), integer("out")
            if not isinstance(width_in, int) or not isinstance(width_out, int):
                return None
            return lambda shape: (width_in * width_out + width_out, (*shape[:-1], width_out) if shape else None)
        if kind in ("conv", "conv_explicit"):
            features = integer("features" if kind == "conv" else "out")
            kernel = integer("kernel")
            strides = integer("strides") if argument("strides") is not None else 1
            if not isinstance(features, int) or kernel is None or strides is None:
                return None
            if kind == "conv_explicit":
                channels = integer("in")
                if not isinstance(channels, int):
                    return None
                window = math.prod(kernel) if isinstance(kernel, tuple) else kernel * kernel
                return lambda shape: (window * channels * features + features, None)

            def convolve(shape):
                if not shape or len(shape) < 3 or not isinstance(shape[-1], int):
                    return None
                spatial = shape[1:-1]
                window = math.prod(kernel) if isinstance(kernel, tuple) else kernel ** len(spatial)
                steps = strides if isinstance(strides, tuple) else (strides,) * len(spatial)
                if len(steps) != len(spatial) or (isinstance(kernel, tuple) and len(kernel) != len(spatial)):
                    return None
                reduced = tuple(None if size is None else -(-size // step) for size, step in zip(spatial, steps))
                return window * shape[-1] * features + features, (shape[0], *reduced, features)

            return convolve
        if kind == "norm":
            per_channel = spec["per_channel"]
            return lambda shape: None if not shape or not isinstance(shape[-1], int) else (per_channel * shape[-1], shape)
        if kind == "norm_explicit":
            channels = integer("channels")
            return None if not isinstance(channels, int) else (lambda shape: (spec["per_channel"] * channels, shape))
        if kind == "embed":
            number, features = integer("num"), integer("features")
            if not isinstance(number, int) or not isinstance(features, int):
                return None
            return lambda shape: (number * features, (*shape, features) if shape else None)
        if kind == "mlp_sizes":
            sizes = integer("sizes")
            if not isinstance(sizes, tuple) or not sizes:
                node = argument("sizes")
                sizes = tuple(self.integer(e, frame) for e in node.elts) if isinstance(node, (ast.List, ast.Tuple)) else None
                if not sizes or not all(isinstance(s, int) for s in sizes):
                    return None

            def stacked(shape):
                total = 0
                for size in sizes:
                    if not shape or not isinstance(shape[-1], int):
                        return None
                    total += shape[-1] * size + size
                    shape = (*shape[:-1], size)
                return total, shape

            return stacked
        if kind == "eqx_mlp":
            width_in, width_out, width, layers = integer("in"), integer("out"), integer("width"), integer("depth")
            if not all(isinstance(v, int) for v in (width_in, width_out, width, layers)):
                return None
            if layers == 0:
                total = width_in * width_out + width_out
            else:
                total = width_in * width + width + (layers - 1) * (width * width + width) + width * width_out + width_out
            return lambda shape: (total, (*shape[:-1], width_out) if shape else None)
        return None

    def _run_body(self, body: list, variable: str, shape, frame: _Frame, depth: int, used: set | None = None):
        """Follow `variable` through straight-line statements that apply layers to it; every layer
        the body builds or applies must be followed, else None. A statement may unpack several
        outputs (`mean, scale = encoder(x)` of a module returning two arrays)."""
        total = 0
        shapes = {variable: shape}
        steps = self._unrolled(body, frame)
        if steps is None:
            return None
        for statement, frame in steps:
            if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
                continue  # a docstring
            if isinstance(statement, ast.Return):
                value = statement.value
                target = None
            elif isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], (ast.Name, ast.Tuple)):
                value = statement.value
                target = statement.targets[0]
            else:
                return None
            result = self._apply(value, shapes, frame, depth, used)
            if result is None:
                return None
            total += result[0]
            if target is None:
                return total, result[1]
            if isinstance(target, ast.Name):
                shapes[target.id] = result[1]
                continue
            outputs = result[1]
            if not (isinstance(outputs, _Outputs) and len(outputs) == len(target.elts) and all(isinstance(e, ast.Name) for e in target.elts)):
                return None
            shapes.update((element.id, part) for element, part in zip(target.elts, outputs))
        return None

    def _unrolled(self, body: list, frame: _Frame, depth: int = 0) -> list | None:
        """The statements of `body` with their frames, a `for` loop over layers written out once per
        iteration where the source fixes its iterations: `range(n)` of a known `n`, a tuple of known
        widths (`for width in self.hidden: x = nn.Dense(width)(x)`), or `enumerate` of either, the loop
        variable bound to each value in turn. Any other loop: None (not followed)."""
        steps: list = []
        for statement in body:
            if not isinstance(statement, ast.For):
                steps.append((statement, frame))
                continue
            if statement.orelse or depth > 2:
                return None
            values = self._loop_values(statement.iter, frame)
            if values is None or len(values) > _UNROLLED:
                return None
            target = statement.target
            for index, item in enumerate(values):
                if isinstance(target, ast.Name):
                    names = {target.id: item[1]}
                elif isinstance(target, ast.Tuple) and item[0] is not None and len(target.elts) == 2 and all(isinstance(e, ast.Name) for e in target.elts):
                    names = {target.elts[0].id: item[0], target.elts[1].id: item[1]}
                else:
                    return None
                bound = dict(frame.bound)
                bound.update((name, (value, None)) for name, value in names.items())
                inner = self._unrolled(statement.body, _Frame(frame.scope, bound, frame.parent), depth + 1)
                if inner is None:
                    return None
                steps.extend(inner)
        return steps

    def _loop_values(self, node: ast.AST, frame: _Frame) -> list | None:
        """(index or None, value) of each iteration of a loop over `node`, where the source fixes them."""
        counted = isinstance(node, ast.Call) and self.model.qualified_name(node.func) in ("builtins.enumerate", "enumerate")
        if counted:
            if len(node.args) != 1 or node.keywords:
                return None
            node = node.args[0]
        length = self._range_length(node, frame)
        if length is not None:
            items = list(range(length))
        else:
            items = self.integer(node, frame)
            if not isinstance(items, tuple):
                return None
            items = list(items)
        return [(index if counted else None, item) for index, item in enumerate(items)]

    def _apply(self, node: ast.AST, shapes: dict, frame: _Frame, depth: int, used: set | None):
        """(parameter elements, shape) of an expression computed from the tracked variables."""
        if isinstance(node, ast.Name):
            return (0, shapes[node.id]) if node.id in shapes else None
        if isinstance(node, ast.Call) and node.args:
            func, first = node.func, node.args[0]
            # `x.reshape(x.shape[0], -1)`, `x.reshape((x.shape[0], -1))`, `jnp.reshape(x, (x.shape[0], -1))`.
            if isinstance(func, ast.Attribute) and func.attr == "reshape" and isinstance(func.value, ast.Name) and func.value.id in shapes:
                return self._reshape(shapes[func.value.id], node.args, node, shapes, frame)
            if self.model.qualified_name(func) in ("jax.numpy.reshape", "numpy.reshape") and isinstance(first, ast.Name) and first.id in shapes:
                return self._reshape(shapes[first.id], node.args[1:], node, shapes, frame)
        if isinstance(node, (ast.Tuple, ast.BinOp, ast.UnaryOp)) or (
            isinstance(node, ast.Call) and (self._array_method(node, shapes) or self._record_class(node) or self._free_function(node.func))
        ):
            return self._parameter_free(node, shapes, frame, depth, used)
        if not isinstance(node, ast.Call) or len(node.args) < 1:
            return None
        func = node.func
        first = node.args[0]
        inner = self._apply(first, shapes, frame, depth, used)
        if inner is None:
            return None
        if any(flow_name in shapes for extra in [*node.args[1:], *(k.value for k in node.keywords)] for flow_name in _names(extra)):
            return None  # another tracked value joins: not a chain we follow
        qualified = self.model.qualified_name(func) or ""
        if qualified in _POOLS:
            strides = next((k.value for k in node.keywords if k.arg == "strides"), None)
            if strides is None and len(node.args) > 2:
                strides = node.args[2]
            steps = self.integer(strides, frame) if strides is not None else None
            shape = inner[1]
            if shape and isinstance(steps, tuple) and len(steps) == len(shape) - 2:
                shape = (shape[0], *(None if s is None else -(-s // t) for s, t in zip(shape[1:-1], steps)), shape[-1])
            return inner[0], shape  # pooling never enlarges an axis
        if self._elementwise(func) and len(node.args) == 1:
            return inner
        if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "self" and used is not None:
            used.add("self." + func.attr)
        layer = self.network(func, frame, depth + 1)
        if layer is None or len(node.args) != 1:
            return None
        applied = layer(inner[1])
        return None if applied is None else (inner[0] + applied[0], applied[1])

    def _reshape(self, shape, arguments: list, call: ast.Call, shapes: dict, frame: _Frame):
        """A reshape creates no parameters: the flattening one keeps the batch axis, another takes the
        shape its arguments fix (`(-1, *OUT_SHAPE)`), else an unknown shape."""
        flattened = _reshaped(shape, arguments)
        if flattened is not None:
            return flattened
        if call.keywords or any(_names(a) & set(shapes) for a in arguments):
            return None if call.keywords else (0, None)
        target = arguments[0] if len(arguments) == 1 else ast.Tuple(elts=list(arguments), ctx=ast.Load())
        sizes = self.integer(target, frame)
        sizes = (sizes,) if isinstance(sizes, int) else sizes
        if not isinstance(sizes, tuple) or sizes.count(-1) > 1 or not shape or None in shape:
            return 0, None
        if -1 in sizes:
            known = math.prod(size for size in sizes if size != -1)
            if known <= 0 or math.prod(shape) % known:
                return 0, None
            sizes = tuple(math.prod(shape) // known if size == -1 else size for size in sizes)
        return 0, sizes if math.prod(sizes) == math.prod(shape) else None

    # ----- parameter-free arithmetic between layers ------------------------------------------------

    def _parameter_free(self, node: ast.AST, shapes: dict, frame: _Frame, depth: int, used: set | None):
        """(parameter elements, shape) of arithmetic on tracked values that creates no parameters of
        its own: `mean + scale * jax.random.normal(hk.next_rng_key(), mean.shape)`, `x.astype(f32)`,
        a tuple or a local record of outputs (`Output(mean, scale, y)`). The parameters are those of
        the layers its tracked operands went through; every other call in it must be one that can
        create none (a `jax.numpy`, `jax.nn`, `jax.random`, `jax.lax` or NumPy function, an array
        method), else None: a local function or method may build layers the walk does not see."""
        if isinstance(node, ast.Name):
            return (0, shapes[node.id]) if node.id in shapes else (0, None)
        if isinstance(node, (ast.Constant, ast.Attribute)) and not any(n in shapes for n in _names(node)):
            return 0, None  # a number, a dtype, `mean.shape`: no array of the network
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in shapes:
            return 0, None  # `x.shape`, `x.T`
        if isinstance(node, (ast.Tuple, ast.List)):
            parts = [self._operand(e, shapes, frame, depth, used) for e in node.elts]
            if None in parts:
                return None
            return sum(p[0] for p in parts), _Outputs(p[1] for p in parts)
        if isinstance(node, ast.UnaryOp):
            return self._operand(node.operand, shapes, frame, depth, used)
        if isinstance(node, ast.BinOp):
            parts = [self._operand(node.left, shapes, frame, depth, used), self._operand(node.right, shapes, frame, depth, used)]
            if None in parts:
                return None
            # Broadcasting may widen an axis: the shape is known only where every array operand has it.
            arrays = [p[1] for operand, p in zip((node.left, node.right), parts) if not isinstance(operand, ast.Constant)]
            shape = arrays[0] if arrays and all(a is not None and a == arrays[0] for a in arrays) and not isinstance(node.op, ast.MatMult) else None
            return parts[0][0] + parts[1][0], shape
        if not isinstance(node, ast.Call) or any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            return None
        receiver = node.func.value if isinstance(node.func, ast.Attribute) and self._array_method(node, shapes) else None
        if receiver is None and not (self._record_class(node) or self._free_function(node.func)):
            return None
        operands = [*([receiver] if receiver is not None else []), *node.args, *(k.value for k in node.keywords)]
        parts = [self._operand(operand, shapes, frame, depth, used) for operand in operands]
        if None in parts:
            return None
        total = sum(p[0] for p in parts)
        if self._record_class(node):
            return total, _Outputs(p[1] for p in parts)
        qualified = self.model.qualified_name(node.func) or ""
        if receiver is None and (qualified in _SHAPE_FIRST or qualified in _SHAPE_SECOND):
            # `jax.random.normal(key, mean.shape)`: a fresh array of a tracked value's shape.
            given = node.args[0 if qualified in _SHAPE_FIRST else 1] if len(node.args) > (0 if qualified in _SHAPE_FIRST else 1) else next(
                (k.value for k in node.keywords if k.arg == "shape"), None)
            shaped = given is not None and isinstance(given, ast.Attribute) and given.attr == "shape" and isinstance(given.value, ast.Name)
            return total, shapes.get(given.value.id) if shaped else None
        first = parts[0][1] if operands and _names(operands[0]) & set(shapes) else None
        keeps_shape = (
            (receiver is not None and node.func.attr in _SHAPE_KEEPING_METHODS)
            or (receiver is None and self._elementwise(node.func))
        )
        return total, first if keeps_shape else None

    def _operand(self, node: ast.AST, shapes: dict, frame: _Frame, depth: int, used: set | None):
        """An operand of parameter-free arithmetic: a tracked value (through layers or not), or an
        expression of none (a constant, a fresh random array) that must itself create no parameters."""
        if _names(node) & set(shapes):
            return self._apply(node, shapes, frame, depth, used) if not isinstance(node, ast.Attribute) else self._parameter_free(node, shapes, frame, depth, used)
        if isinstance(node, ast.Name):
            # A name of no tracked value: a number or an array, not a function that may build layers.
            return None if self.model.resolve_function(node, frame.scope) is not None else (0, None)
        return self._parameter_free(node, shapes, frame, depth, used)

    def _array_method(self, call: ast.Call, shapes: dict) -> bool:
        """`x.astype(jnp.float32)`, `x.mean(axis=1)` on a tracked value: no parameters."""
        func = call.func
        return isinstance(func, ast.Attribute) and func.attr in _ARRAY_METHODS and bool(_names(func.value) & set(shapes))

    def _record_class(self, call: ast.Call) -> bool:
        """A local NamedTuple or dataclass holding outputs (`Output(mean, scale, y)`)."""
        if not isinstance(call.func, ast.Name):
            return False
        class_node = self._local_class(call.func.id)
        if class_node is None:
            return False
        bases = {self.model.qualified_name(base) for base in class_node.bases}
        decorators = {self.model.qualified_name(d.func if isinstance(d, ast.Call) else d) for d in class_node.decorator_list}
        return bool(bases & {"typing.NamedTuple", "flax.struct.PyTreeNode"} or decorators & {"dataclasses.dataclass", "flax.struct.dataclass", "chex.dataclass"})

    def _free_function(self, func: ast.AST) -> bool:
        """A function that creates no parameters whatever it is given: array and random functions, and
        distributions of arrays (library data: `layers.DISTRIBUTION_CLASSES`)."""
        qualified = self.model.qualified_name(func) or ""
        if qualified.startswith(layer_models.DISTRIBUTION_MODULES) and qualified.rsplit(".", 1)[-1] in layer_models.DISTRIBUTION_CLASSES:
            return True  # `distrax.Categorical(logits=x)`: a distribution of the outputs, no parameters
        return qualified.startswith(_FREE_PREFIXES) and qualified not in layer_models.LAYERS or qualified in _FREE_NAMES


class _Outputs(tuple):
    """The shapes of several outputs (`return mean, scale`): unpacked by the statement that calls the
    module, never a shape a layer can take."""


def _product(choices: list[list]) -> list[tuple]:
    combinations: list[tuple] = [()]
    for choice in choices:
        combinations = [(*combination, option) for combination in combinations for option in choice]
    return combinations


# Calls by which a module's `__call__` creates its own parameters or state (`self.param("kernel", init,
# (x.shape[-1], n))`, `hk.get_parameter(...)`).
_PARAMETER_CALLS = frozenset({"param", "variable", "get_parameter", "get_state"})


def _makes_parameters(apply: ast.AST) -> bool:
    """`__call__` creates parameters itself (`self.param(...)`, `hk.get_parameter(...)`) or builds a
    module inline (`Layer(n)(x)` of a class the walk does not know): the arrays the constructor
    stores are then not all the module holds."""
    for node in walk(apply):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Call) or isinstance(func, ast.Attribute) and func.attr in _PARAMETER_CALLS:
                return True
    return False


def _stores_below_top_level(method: ast.AST) -> bool:
    """The method binds an attribute of `self` inside a loop, a branch or a `with` block."""
    top = set(map(id, method.body))
    for node in walk(method):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)) and id(node) not in top:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for element in ast.walk(target):
                    if isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name) and element.value.id == "self":
                        return True
    return False


def dict_item(display: ast.AST, key) -> ast.AST | None:
    """The value a dict display (`{"width": 64}`, `dict(width=64)`) gives `key`, or None."""
    if isinstance(display, ast.Dict):
        if None in display.keys:
            return None  # `**other`: any key may come from it
        found = [v for k, v in zip(display.keys, display.values) if isinstance(k, ast.Constant) and k.value == key]
        return found[-1] if found else None
    if isinstance(display, ast.Call) and isinstance(display.func, ast.Name) and display.func.id == "dict" and not display.args:
        found = [k.value for k in display.keywords if k.arg == key]
        return found[-1] if found and all(k.arg is not None for k in display.keywords) else None
    return None


def dict_display(model, name: ast.Name, scope):
    """(the dict display, its scope) a name is bound to once, in a scope that never changes it in
    place (`CONFIG = {"width": 64}`, `hparams = {"width": width}`); None otherwise."""
    from jaxlint.semantic.bindings import bound_values

    found = bound_values(model, name.id, scope)
    if found is None or len(found[1]) != 1:
        return None
    owner, (value,) = found
    if not (isinstance(value, ast.Dict) or (isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict")):
        return None
    cache = model.__dict__.setdefault("_jaxlint_changed_dicts", {})
    key = (name.id, id(owner))
    if key not in cache:
        cache[key] = _changed_in_place(name.id, owner.node)
    return None if cache[key] else (value, owner)


def _changed_in_place(name: str, node: ast.AST) -> bool:
    """`config["width"] = 128`, `del config["w"]`, `config.update(...)` (or another method that
    changes a dict) anywhere in `node`."""
    return any(change.direct and (change.kind == "item" or change.kind == "method" and change.node.func.attr in _DICT_CHANGES)
               for change in changes_in_place(node, (name,), nested=True))


_DICT_CHANGES = frozenset({"update", "setdefault", "pop", "clear", "__setitem__"})


def parameter_value(model, function: ast.AST, name: str, default: ast.AST | None):
    """The value of a parameter of a module function of sizes: its default where no call passes it,
    else the largest integer the module's calls pass (`run(2)`, `run(num_params=3)`, each evaluated
    where it is made); UNKNOWN where a call passes something else, or nothing calls it here."""
    calls = model.calls_by_name().get(function.name, ())
    if function.name == "__init__":
        # A constructor's parameters take what the class's constructor calls pass (semantic/constructed_sizes.py).
        calls = constructed_sizes.constructor_calls(model, function)
        if calls is None:
            return UNKNOWN
    evaluator = model.constant_evaluator()
    passed_by_call = passed_to_parameter(calls, function, name)
    if passed_by_call is None:
        return UNKNOWN
    values = []
    for call, passed in zip(calls, passed_by_call):
        if passed is None:
            if default is None:
                return UNKNOWN
            continue
        value = evaluator.value(passed, model.scope_for(call))
        if not isinstance(value, int) or isinstance(value, bool):
            return UNKNOWN
        values.append(value)
    if not values:
        return UNKNOWN if default is None else evaluator.value(default, model.scope_for(function))
    if default is not None:
        fallback = evaluator.value(default, model.scope_for(function))
        if any(not (call.args or call.keywords) for call in calls):
            if not isinstance(fallback, int) or isinstance(fallback, bool):
                return UNKNOWN
            values.append(fallback)
    return max(values)


_ACTIVATIONS = frozenset({
    "relu", "gelu", "tanh", "sigmoid", "silu", "swish", "elu", "leaky_relu", "softmax", "log_softmax", "softplus", "celu", "selu", "relu6",
})


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in walk(node) if isinstance(n, ast.Name)}


def _chain(parts):
    def run(shape):
        total = 0
        for part in parts:
            result = part(shape)
            if result is None:
                return None
            total += result[0]
            shape = result[1]
        return total, shape

    return run


def _flattened(shape):
    if not shape or len(shape) < 2 or any(not isinstance(size, int) or isinstance(size, _AssumedWidth) for size in shape[1:]):
        return None
    return 0, (shape[0], math.prod(shape[1:]))


def _reshaped(shape, arguments: list):
    """Only the flattening reshape is followed: every axis but the first merged."""
    if len(arguments) == 1 and isinstance(arguments[0], ast.Tuple):
        arguments = arguments[0].elts
    if len(arguments) != 2:
        return None
    head, tail = arguments
    if not (isinstance(tail, ast.UnaryOp) and isinstance(tail.operand, ast.Constant) and tail.operand.value == 1):
        return None
    if not (isinstance(head, ast.Subscript) and isinstance(head.value, ast.Attribute) and head.value.attr == "shape"
            and isinstance(head.slice, ast.Constant) and head.slice.value == 0):
        return None
    return _flattened(shape)


def _literal_shape(node: ast.AST):
    """The shape of a nested literal list (`[[0, 0], [0, 1]]` is (2, 2))."""
    if isinstance(node, (ast.List, ast.Tuple)):
        if not node.elts:
            return (0,)
        inner = [_literal_shape(element) for element in node.elts]
        if None in inner or len(set(inner)) != 1:
            return None
        return (len(node.elts), *inner[0])
    if isinstance(node, ast.Constant) and isinstance(node.value, (int, float, bool)):
        return ()
    return None
