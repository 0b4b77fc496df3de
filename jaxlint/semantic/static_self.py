"""Compiled methods whose `self` is static: which spellings bind it, and when that `self` is mutable.

A method of a plain class reaches a compiler with `self` held as a compile-time constant in three
spellings: `@partial(jax.jit, static_argnums=0)` (or `static_argnames=("self",)`), `@eqx.filter_jit`
(a non-pytree `self` is a static leaf, hashed by identity), and `jax.jit(self.method)` (also
`jax.jit(fun=self.method)`, `eqx.filter_jit(self.method)`), which closes over the bound instance.
In each, the attributes the method reads are read once, at trace time, and baked into the
compiled code. Without a `__hash__`/`__eq__` of the class the cache key is the instance's identity,
so an attribute another method reassigns later (`self.params = trained` in `train()`) is not seen
by the next call: the compiled method keeps the stale value.

`stale_attributes` names the attributes a method reads (itself or through the methods it calls on
`self`) that a method other than the constructor reassigns; `bound_compilations` finds the
`jax.jit(self.method)` calls of a class.
"""

from __future__ import annotations

import ast

from jaxlint.semantic import jaxapi
from jaxlint.semantic.syntax import walk

# Methods that set attributes while the object is built, before any compiled call can run.
_NETWORK_ANNOTATIONS = frozenset({"equinox.Module", "flax.nnx.Module"})
_LIBRARY_ROOTS = ("jax", "optax", "typing", "collections", "builtins", "flax", "haiku", "numpy", "equinox", "abc", "transformers", "torch", "chex", "jaxtyping")
_CONSTRUCTORS = frozenset({"__init__", "__post_init__", "__new__", "setup", "__setstate__"})


def methods_of(class_node: ast.ClassDef) -> dict[str, ast.FunctionDef]:
    return {s.name: s for s in class_node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}


def hashes_by_value(class_node: ast.ClassDef) -> bool:
    """The class defines `__hash__` or `__eq__`: a static `self` is keyed by its value, not identity."""
    return any(name in ("__hash__", "__eq__") for name in methods_of(class_node)) or any(
        isinstance(s, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__hash__" for t in s.targets) for s in class_node.body
    )


def _self_name(function: ast.FunctionDef) -> str | None:
    params = function.args.posonlyargs + function.args.args
    return params[0].arg if params else None


def _attributes_read(function: ast.FunctionDef, methods: dict, seen: set, holders: bool = False) -> set[str]:
    """Data attributes of `self` the method reads, also through methods it calls on `self`. An attribute
    only called (`self.step_fn(x)`) is wiring, a function set up once, not data. With `holders`, only
    attributes read as objects or containers (`self.model.decoder`, `self.tables[i]`)."""
    seen.add(function.name)
    self_name = _self_name(function)
    found: set[str] = set()
    if self_name is None:
        return found
    parents = {child: node for node in walk(function) for child in ast.iter_child_nodes(node)}
    for node in walk(function):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name \
                and isinstance(node.ctx, ast.Load):
            if node.attr in methods:
                if node.attr not in seen:
                    found |= _attributes_read(methods[node.attr], methods, seen, holders)
                continue
            parent = parents.get(node)
            if isinstance(parent, ast.Call) and parent.func is node:
                continue
            if not holders and isinstance(parent, ast.Attribute) and isinstance(parents.get(parent), ast.Call) \
                    and parents[parent].func is parent:
                continue  # `self.state.apply_fn(...)`, `self.tx.update(...)`: reaches a function it holds
            if isinstance(parent, ast.Compare) and all(isinstance(o, (ast.Is, ast.IsNot)) for o in parent.ops):
                continue  # `self.state is not None`: only whether it is set
            if holders and not (isinstance(parent, (ast.Attribute, ast.Subscript)) and parent.value is node):
                continue
            found.add(node.attr)
    return found


def _runs(caller: ast.FunctionDef, target: str, methods: dict, seen: set) -> bool:
    """`caller` calls `self.target(...)`, directly or through the methods it calls on `self`."""
    seen.add(caller.name)
    self_name = _self_name(caller)
    for node in walk(caller):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name and node.attr in methods:
            if node.attr == target:
                return True
            if node.attr not in seen and _runs(methods[node.attr], target, methods, seen):
                return True
    return False


def _handed_in(value: ast.expr, method: ast.FunctionDef) -> bool:
    """`self.optimizer = optimizer`: a parameter of the method stored as it came, configuration the
    caller hands in while setting the object up, not a result the method computes."""
    params = method.args.posonlyargs + method.args.args + method.args.kwonlyargs
    return isinstance(value, ast.Name) and any(p.arg == value.id for p in params)


def holds_arrays(model, class_node: ast.ClassDef, attribute: str) -> bool:
    """Some method stores into `self.attribute` an array (`jnp.`/`np.`/`jax.random` call) or a parameter
    annotated with a class of the project or a JAX array type (a network, `jax.Array`)."""
    for method in methods_of(class_node).values():
        self_name = _self_name(method)
        params = {p.arg: p for p in method.args.posonlyargs + method.args.args + method.args.kwonlyargs}
        for node in walk(method):
            if not isinstance(node, ast.Assign):
                continue
            if not any(isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == self_name and t.attr == attribute
                       for t in node.targets):
                continue
            value = node.value
            if isinstance(value, ast.Call):
                qualified = model.qualified_name(value.func) or ""
                if qualified.startswith(("jax.numpy.", "numpy.", "jax.random.")):
                    return True
            if isinstance(value, ast.Name) and value.id in params and params[value.id].annotation is not None:
                annotation = params[value.id].annotation
                qualified = model.qualified_name(annotation)
                if qualified is None and isinstance(annotation, ast.Name) and annotation.id[:1].isupper() \
                        and annotation.id not in ("Callable", "Any", "Optional", "Union", "Sequence", "Mapping", "Dict", "List", "Tuple"):
                    return True
                if qualified and (qualified.endswith("Array") or qualified in _NETWORK_ANNOTATIONS):
                    return True
                if qualified and not qualified.startswith(_LIBRARY_ROOTS) and qualified.rsplit(".", 1)[-1][:1].isupper():
                    return True  # a class of the project (`from .modelling import Whisper`)
    return False


def _reassigned(class_node: ast.ClassDef, methods: dict) -> dict[str, str]:
    """attribute -> the first non-constructor method that computes a new `self.attribute` (a
    parameter stored as it came is set-up, not counted)."""
    found: dict[str, str] = {}
    # The constructor's own helpers (`self.particles = self.init_particles(key)` in `__init__`) build it too.
    building = {name for name in methods if name in _CONSTRUCTORS}
    building |= {name for name in methods if any(_runs(methods[c], name, methods, set()) for c in building if c in methods)}
    for name, method in methods.items():
        if name in building:
            continue
        self_name = _self_name(method)
        if self_name is None or any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list):
            continue
        for node in walk(method):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
            if isinstance(node, ast.Assign) and _handed_in(node.value, method):
                continue
            for target in targets:
                for part in walk(target):
                    if isinstance(part, ast.Attribute) and isinstance(part.value, ast.Name) and part.value.id == self_name \
                            and isinstance(part.ctx, ast.Store):
                        found.setdefault(part.attr, name)
    return found


def stale_attributes(class_node: ast.ClassDef, function: ast.FunctionDef, exclude: str | None = None) -> dict[str, str]:
    """Attributes `function` reads as trace-time constants that another (non-constructor) method of
    the class reassigns: attribute -> that method. Empty where the class hashes by value."""
    if hashes_by_value(class_node):
        return {}
    methods = methods_of(class_node)
    reads = _attributes_read(function, methods, set())
    reassigned = _reassigned(class_node, methods)
    # A method that reassigns an attribute and then runs the compiled method itself sets it up
    # before its trace (`train()` setting sizes, then calling the jitted loss).
    return {
        attr: where for attr, where in reassigned.items()
        if attr in reads and where != function.name and attr != exclude and not _runs(methods[where], function.name, methods, set())
    }


def bound_compilations(model, class_node: ast.ClassDef) -> dict[str, list[tuple[ast.Call, str | None]]]:
    """`jax.jit(self.method)` (or `fun=self.method`, `eqx.filter_jit(self.method)`) in the class's
    methods, by the name of the method compiled, with the `self.` attribute the result is stored to
    (None when not stored on `self`). One walk of the class answers for all its methods."""
    found: dict[str, list[tuple[ast.Call, str | None]]] = {}
    for method in methods_of(class_node).values():
        self_name = _self_name(method)
        if self_name is None:
            continue
        for node in walk(method):
            if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
                continue
            call = node.value
            wrapped = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "fun"), None)
            if not (isinstance(wrapped, ast.Attribute) and isinstance(wrapped.value, ast.Name) and wrapped.value.id == self_name):
                continue
            if model.transform_of(call.func) not in jaxapi.COMPILING:
                continue
            target = node.targets[0] if len(node.targets) == 1 else None
            stored = target.attr if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name else None
            found.setdefault(wrapped.attr, []).append((call, stored))
    return found


def called_on_self(class_node: ast.ClassDef, attribute: str) -> bool:
    """Some method calls `self.attribute(...)`."""
    for method in methods_of(class_node).values():
        self_name = _self_name(method)
        for node in walk(method):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == attribute \
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == self_name:
                return True
    return False


def data_attributes_read(class_node: ast.ClassDef, function: ast.FunctionDef) -> set[str]:
    """Attributes of `self` the method reads as objects or containers (`self.model.decoder`), also
    through its `self.` calls: what may hold arrays."""
    return _attributes_read(function, methods_of(class_node), set(), holders=True)
