"""Sizes an object's state takes from what builds it: its constructor's arguments, the attributes
`__init__` stores, and array builders whose size follows from their operands.

A controller, a toy agent or a solver holds arrays shaped by numbers that reach it from outside its
methods: `Controller(20, 12)` then `self.u = jnp.zeros((horizon, nu))` in `__init__`, or
`self.horizon = horizon` read later as `jnp.zeros((self.horizon, self.nu))`, or a configuration
record handed to the constructor (`Controller(Config())`, `cfg.horizon` with a dataclass default).
The facts here, each read only where the source shows all of it:

- the parameters of a class's `__init__` take what the class's constructor calls in the module pass
  (also a subclass of the module that keeps that `__init__`, and `super().__init__(...)`), the
  largest integer where several do; a parameter holding arrays (a network handed in and stored in
  the object's state) holds the largest of what the calls pass, where no other module may construct
  the class (`constructor_arguments`); nothing is known when the class is handed around as a value
  (`registry = {"c": Controller}`, `partial(Controller, ...)`, `cls(...)`), since a call not seen
  may pass anything;
- `self.<attribute>` read in a method is the one value the class's `__init__` binds to it, read
  there, where nothing else in the module stores that attribute name;
- an attribute of a parameter (`cfg.horizon`) is that attribute of what every call passes: a
  configuration record built with its defaults and keywords (`Config(horizon=20)`), a name bound to
  one, or a module of constants (`import settings as config`, `config.N`);
- array builders: `tile` (operand times repetitions), `concatenate`/`stack`/`hstack`/`vstack` of a
  list display (the sum), `arange`/`linspace` of integer counts, `repeat`, and the size-keeping
  methods `copy`, `reshape`, `astype`, `flatten`, `ravel`, `squeeze`, `transpose`, `.T` and
  `.at[...].set(...)`, and an index adding axes only (`x[None, :]`).

The numbers are exact or upper bounds (the largest of several calls): `known_small` and
`known_large` (semantic/carried_state.py) both read them.
"""

from __future__ import annotations

import ast
import math

from jaxlint.semantic.constants import UNKNOWN
from jaxlint.semantic.syntax import parent_of, passed_to_parameter, walk

# ----- constructor calls ------------------------------------------------------------------------


def constructor_calls(model, function: ast.AST) -> list[ast.Call] | None:
    """The calls of the module that run `function`, an `__init__` of a module-level class: the
    class's constructor calls, those of its subclasses of the module that define no `__init__`, and
    `super().__init__(...)` in the subclasses that do. None where the class (or such a subclass) is
    used otherwise than called, or constructed through `cls(...)`: calls not seen may pass anything."""
    owner = _module_class(model, function)
    if owner is None:
        return None
    cache = model.__dict__.setdefault("_jaxlint_constructor_calls", {})
    if id(function) not in cache:
        cache[id(function)] = _constructor_calls(model, owner)
    return cache[id(function)]


def constructor_arguments(model, scope, name: str) -> list | None:
    """(caller scope, argument) of every constructor call that passes the parameter `name` of the
    `__init__` owning `scope` (`constructor_calls`): an object's state sized by a value handed to its
    constructor (`Agent(model=Net(64))` then `self.state = State(model, ...)` in `__init__`) holds
    what each call hands in. None where a call leaves the parameter to its default or spreads its
    arguments, where `__init__` binds the parameter anew, or where another module of the project may
    construct the class (an importer naming it): a call not seen may hand in anything."""
    function = getattr(scope, "node", None)
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.name != "__init__":
        return None
    if name not in scope.param_nodes or any(
        isinstance(node, ast.Name) and node.id == name and not isinstance(node.ctx, ast.Load) for node in walk(function)
    ):
        return None
    calls = constructor_calls(model, function)
    if not calls:
        return None
    passed = passed_to_parameter(calls, function, name)
    if passed is None or any(argument is None for argument in passed):
        return None
    from jaxlint.semantic.fixed_parameters import named_elsewhere

    if named_elsewhere(parent_of(function).name, model):
        return None
    return [(model.scope_for(call), argument) for call, argument in zip(calls, passed)]


def _module_class(model, function: ast.AST) -> ast.ClassDef | None:
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)) or function.name != "__init__":
        return None
    owner = parent_of(function)
    if not isinstance(owner, ast.ClassDef) or owner not in model.class_methods or model.scope_for(owner) is not model.module_scope:
        return None
    if sum(1 for c in model.class_methods if c.name == owner.name) != 1:
        return None
    return owner


def _constructor_calls(model, owner: ast.ClassDef) -> list[ast.Call] | None:
    names = {owner.name}
    super_calls: list[ast.Call] = []
    changed = True
    while changed:  # subclasses of the module, transitively
        changed = False
        for class_node in model.class_methods:
            if class_node.name in names or model.scope_for(class_node) is not model.module_scope:
                continue
            if not any(isinstance(base, ast.Name) and base.id in names for base in class_node.bases):
                continue
            own_init = next((s for s in class_node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"), None)
            if own_init is None:
                names.add(class_node.name)
                changed = True
            else:
                for node in walk(own_init):
                    if (
                        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__"
                        and isinstance(node.func.value, ast.Call) and isinstance(node.func.value.func, ast.Name)
                        and node.func.value.func.id == "super"
                    ):
                        super_calls.append(node)
    calls: list[ast.Call] = []
    for node in ast.walk(model.tree):
        if isinstance(node, ast.Name) and node.id in names:
            if isinstance(node.ctx, ast.Store):
                return None  # the name rebound
            parent = parent_of(node)
            if isinstance(parent, ast.Call) and parent.func is node:
                calls.append(parent)
            elif not _harmless_reference(node, parent):
                return None
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "cls":
            return None  # a class method constructing its class with arguments of its own
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "__init__" and node not in super_calls:
            if isinstance(node.func.value, ast.Name) and node.func.value.id in names:
                return None  # `Base.__init__(self, ...)`: positions counted otherwise
    return calls + super_calls


def _harmless_reference(node: ast.Name, parent) -> bool:
    """A use of a class name that constructs nothing: a base of a class, a type test, an annotation."""
    if isinstance(parent, ast.ClassDef):
        return node in parent.bases
    if isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id in ("isinstance", "issubclass"):
        return True
    if isinstance(parent, ast.Tuple):
        grand = parent_of(parent)
        return isinstance(grand, ast.Call) and isinstance(grand.func, ast.Name) and grand.func.id in ("isinstance", "issubclass")
    while parent is not None and not isinstance(parent, (ast.stmt, ast.arg)):
        node, parent = parent, parent_of(parent)
    if isinstance(parent, ast.arg):
        return True
    if isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return node is parent.returns
    if isinstance(parent, ast.AnnAssign):
        return node is parent.annotation
    return False


# ----- attributes -------------------------------------------------------------------------------


def init_attribute(model, node: ast.AST, scope):
    """(value, `__init__` scope) of `self.<attribute>` read in a method of a module-level class, or of
    `obj.<attribute>` with `obj` bound to an instance of one (model.instance_class), where
    the class binds the attribute once, by a plain assignment in `__init__`, and nothing else in
    the module stores (or deletes) an attribute of that name; None otherwise."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)):
        return None
    if node.value.id == "self":
        method = scope.enclosing_method() if scope is not None else None
        class_node = method.class_node if method is not None else None
    else:
        # `obj.<attribute>` of a name bound to an instance of a class of this module (`w = Weights(seed)`).
        class_node = model.instance_class(node.value)
        class_node = class_node if isinstance(class_node, ast.ClassDef) else None
    if class_node is None:
        return None
    init = model.class_methods.get(class_node, {}).get("__init__")
    if init is None or _module_class(model, init.node) is None:
        return None
    related = _related_classes(model, class_node)
    stores = [
        store for store in _attribute_stores(model).get(node.attr, [])
        if not (_on_self(store[0]) and store[2] is not None and _class_of(store[2]) not in related)
    ]
    if len(stores) != 1:
        return None
    target, value, owner = stores[0]
    if owner is not init or value is None or isinstance(value, ast.AugAssign) or not isinstance(target, ast.Attribute):
        return None
    if not (isinstance(target.value, ast.Name) and target.value.id == "self"):
        return None
    return value, init


def _on_self(target: ast.AST) -> bool:
    return isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"


def _class_of(scope):
    method = scope.enclosing_method()
    return None if method is None else method.class_node


def _related_classes(model, class_node: ast.ClassDef) -> set:
    """The class and the classes of the module above or below it (by base names): their methods' `self`
    may be an instance of it."""
    related, changed = {class_node}, True
    while changed:
        changed = False
        names = {c.name for c in related}
        above = {base.id for c in related for base in c.bases if isinstance(base, ast.Name)}
        for candidate in model.class_methods:
            if candidate not in related and (candidate.name in above or any(isinstance(b, ast.Name) and b.id in names for b in candidate.bases)):
                related.add(candidate)
                changed = True
    return related


def _attribute_stores(model) -> dict[str, list]:
    """attribute name -> [(target, value, scope)] of every store of an attribute by that name in the
    module (`x.name = ...`, unpacked, augmented, deleted, `setattr` with a literal name)."""
    cached = model.__dict__.get("_jaxlint_attribute_stores")
    if cached is not None:
        return cached
    found: dict[str, list] = {}
    for scope in model.scopes:
        for target, value in scope.bindings:
            for element in walk(target):
                if isinstance(element, ast.Attribute) and isinstance(element.ctx, ast.Store):
                    whole = element is target
                    found.setdefault(element.attr, []).append((element, value if whole else None, scope))
    for node in ast.walk(model.tree):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Del):
            found.setdefault(node.attr, []).append((node, None, None))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
            name = node.args[1].value if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else None
            if isinstance(name, str):
                found.setdefault(name, []).append((node, None, None))
            else:
                found.setdefault("*", []).append((node, None, None))
        elif isinstance(node, ast.AugAssign) and isinstance(node.target, ast.Attribute):
            found.setdefault(node.target.attr, []).append((node.target, None, None))
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.comprehension)):
            targets = [node.target] if not isinstance(node, (ast.With, ast.AsyncWith)) else [i.optional_vars for i in node.items if i.optional_vars]
            for target in targets:
                for element in walk(target):
                    if isinstance(element, ast.Attribute):
                        found.setdefault(element.attr, []).append((element, None, None))
    if "*" in found:
        found = {name: stores + [stores[0]] for name, stores in found.items()}  # any attribute may be set
    model._jaxlint_attribute_stores = found
    return found


def parameter_attribute(model, node: ast.Attribute, scope, evaluate_in):
    """The value of `param.field` for a parameter of a module function or of a class's `__init__`:
    the largest integer that attribute has in what every call passes (evaluated in the caller's
    scope by `evaluate_in(expression, scope)`): a record built with defaults and keywords, a name
    bound to one, a module of constants. UNKNOWN where any call's value is not known."""
    if not (isinstance(node.value, ast.Name) and scope is not None and node.value.id in scope.param_nodes):
        return UNKNOWN
    function = scope.node
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return UNKNOWN
    calls = constructor_calls(model, function)
    if calls is None:
        if function.name == "__init__" or scope.class_node is not None or model.scope_for(function) is not model.module_scope:
            return UNKNOWN
        calls = model.calls_by_name().get(function.name, ())
    passed = passed_to_parameter(calls, function, node.value.id)
    if not calls or passed is None or any(p is None for p in passed):
        return UNKNOWN  # a default record, or no call seen: not known
    values = []
    for call, argument in zip(calls, passed):
        value = _attribute_of(model, argument, node.attr, model.scope_for(call), evaluate_in)
        if not isinstance(value, int) or isinstance(value, bool):
            return UNKNOWN
        values.append(value)
    return max(values)


def _attribute_of(model, argument: ast.AST, attribute: str, scope, evaluate_in):
    if isinstance(argument, ast.Call):
        if argument.args or any(k.arg is None for k in argument.keywords):
            return UNKNOWN
        defaults = model.constant_evaluator().class_defaults(argument.func, scope)
        if defaults is None:
            return UNKNOWN
        given = next((k.value for k in argument.keywords if k.arg == attribute), None)
        return evaluate_in(given, scope) if given is not None else defaults.get(attribute, UNKNOWN)
    if isinstance(argument, (ast.Name, ast.Attribute)):
        synthetic = ast.Attribute(value=argument, attr=attribute, ctx=ast.Load())
        for name in ("lineno", "col_offset", "end_lineno", "end_col_offset"):
            setattr(synthetic, name, getattr(argument, name, 0))
        return model.constant_evaluator().value(synthetic, scope)
    return UNKNOWN


# ----- array builders ---------------------------------------------------------------------------

_TILES = frozenset({"jax.numpy.tile", "numpy.tile"})
_JOINS = frozenset(
    f"{module}.{name}" for module in ("jax.numpy", "numpy")
    for name in ("concatenate", "stack", "hstack", "vstack", "column_stack", "row_stack", "dstack")
)
_RANGES = frozenset({"jax.numpy.arange", "numpy.arange"})
_LINSPACES = frozenset({"jax.numpy.linspace", "numpy.linspace", "jax.numpy.logspace", "numpy.logspace", "jax.numpy.geomspace", "numpy.geomspace"})
_REPEATS = frozenset({"jax.numpy.repeat", "numpy.repeat"})
_SIZE_KEEPING_METHODS = frozenset({"copy", "reshape", "astype", "flatten", "ravel", "squeeze", "transpose", "block_until_ready"})
_AT_UPDATES = frozenset({"set", "add", "multiply", "mul", "divide", "min", "max", "power", "apply"})


def builder_elements(call: ast.Call, qualified: str | None, elements, integer) -> int | None:
    """Elements of the array a builder call makes, from `elements(node)` (the size of an operand,
    or None) and `integer(node)` (an integer or a tuple of them, or anything else when unknown)."""
    arguments = call.args
    if any(isinstance(a, ast.Starred) for a in arguments) or any(k.arg is None for k in call.keywords):
        return None
    if qualified in _TILES and len(arguments) == 2 and not call.keywords:
        operand, repetitions = elements(arguments[0]), _count(integer(arguments[1]))
        return None if operand is None or repetitions is None else operand * repetitions
    if qualified in _JOINS and arguments and isinstance(arguments[0], (ast.List, ast.Tuple)):
        if any(isinstance(e, ast.Starred) for e in arguments[0].elts) or not arguments[0].elts:
            return None
        counts = [elements(element) for element in arguments[0].elts]
        return None if None in counts else sum(counts)
    if qualified in _RANGES and 1 <= len(arguments) <= 3 and not call.keywords:
        bounds = [integer(a) for a in arguments]
        if not all(isinstance(b, int) and not isinstance(b, bool) for b in bounds) or (len(bounds) == 3 and bounds[2] == 0):
            return None
        return len(range(*bounds))
    if qualified in _LINSPACES and len(arguments) >= 2:
        if elements(arguments[0]) != 1 or elements(arguments[1]) != 1:
            return None  # array end points: one row of points per element
        number = next((k.value for k in call.keywords if k.arg == "num"), arguments[2] if len(arguments) > 2 else None)
        if number is None:
            return 50  # the documented default
        count = integer(number)
        return count if isinstance(count, int) and not isinstance(count, bool) and count >= 0 else None
    if qualified in _REPEATS and len(arguments) >= 2 and all(k.arg == "axis" for k in call.keywords):
        operand, repetitions = elements(arguments[0]), integer(arguments[1])
        if operand is None or not isinstance(repetitions, int) or isinstance(repetitions, bool) or repetitions < 0:
            return None
        return operand * repetitions
    return None


def method_elements(call: ast.Call, elements) -> int | None:
    """`x.copy()`, `x.reshape(n, m)`, `x.astype(jnp.float32)`, `x.at[i].set(v)`: as many elements as `x`."""
    func = call.func
    if not isinstance(func, ast.Attribute):
        return None
    if func.attr in _SIZE_KEEPING_METHODS:
        return elements(func.value)
    if (
        func.attr in _AT_UPDATES and isinstance(func.value, ast.Subscript) and isinstance(func.value.value, ast.Attribute)
        and func.value.value.attr == "at"
    ):
        return elements(func.value.value.value)
    return None


def same_size_view(node: ast.AST) -> ast.AST | None:
    """The array `x.T` or `x[None, :]` (an index that only adds axes or takes whole axes) shows
    with all its elements; None for any other expression."""
    if isinstance(node, ast.Attribute) and node.attr in ("T", "mT"):
        return node.value
    if not isinstance(node, ast.Subscript):
        return None
    parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
    whole = all(
        (isinstance(p, ast.Constant) and (p.value is None or p.value is Ellipsis))
        or (isinstance(p, ast.Slice) and p.lower is None and p.upper is None and p.step is None)
        for p in parts
    )
    return node.value if whole and parts else None


def _count(value) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value if value >= 0 else None
    if isinstance(value, tuple) and all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in value):
        return math.prod(value)
    return None
