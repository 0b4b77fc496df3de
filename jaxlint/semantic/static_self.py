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


def _attributes_read(function: ast.FunctionDef, methods: dict, seen: set) -> set[str]:
    """Data attributes of `self` the method reads, also through methods it calls on `self`."""
    seen.add(function.name)
    self_name = _self_name(function)
    found: set[str] = set()
    if self_name is None:
        return found
    for node in walk(function):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == self_name \
                and isinstance(node.ctx, ast.Load):
            if node.attr in methods:
                if node.attr not in seen:
                    found |= _attributes_read(methods[node.attr], methods, seen)
            else:
                found.add(node.attr)
    return found


def _reassigned(class_node: ast.ClassDef, methods: dict) -> dict[str, str]:
    """attribute -> the first non-constructor method that assigns `self.attribute`."""
    found: dict[str, str] = {}
    for name, method in methods.items():
        if name in _CONSTRUCTORS:
            continue
        self_name = _self_name(method)
        if self_name is None or any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in method.decorator_list):
            continue
        for node in walk(method):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign)) else []
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
    return {attr: where for attr, where in reassigned.items() if attr in reads and where != function.name and attr != exclude}


def bound_compilations(model, class_node: ast.ClassDef, method_name: str) -> list[tuple[ast.Call, str | None]]:
    """`jax.jit(self.method)` (or `fun=self.method`, `eqx.filter_jit(self.method)`) in the class's
    methods, with the `self.` attribute the result is stored to (None when not stored on `self`)."""
    found: list[tuple[ast.Call, str | None]] = []
    for method in methods_of(class_node).values():
        self_name = _self_name(method)
        if self_name is None:
            continue
        for node in walk(method):
            if not isinstance(node, ast.Assign) or not isinstance(node.value, ast.Call):
                continue
            call = node.value
            if model.transform_of(call.func) not in jaxapi.COMPILING:
                continue
            wrapped = call.args[0] if call.args else next((k.value for k in call.keywords if k.arg == "fun"), None)
            if not (isinstance(wrapped, ast.Attribute) and isinstance(wrapped.value, ast.Name) and wrapped.value.id == self_name
                    and wrapped.attr == method_name):
                continue
            target = node.targets[0] if len(node.targets) == 1 else None
            stored = target.attr if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == self_name else None
            found.append((call, stored))
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
    """Data attributes (not methods) of `self` the method reads, also through its `self.` calls."""
    return _attributes_read(function, methods_of(class_node), set())
