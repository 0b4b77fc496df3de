"""What a name is bound to: every value assigned to it in the scope that owns it.

Flow-insensitive and precise: a name also bound by a parameter, a loop, an import, a `def`, a tuple
unpacking, a `with ... as`, or written through `global`/`nonlocal` from elsewhere has no known
values (None), and callers do not guess.
"""

from __future__ import annotations

import ast
import weakref

from jaxlint.semantic.syntax import PARENT, child_nodes, walk

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the model asks this module questions: no import back at run time
    from jaxlint.semantic.model import Scope, SemanticModel

FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
_FUNCTION_TYPES = frozenset(FUNCTION_NODES)


def owning_scope(model: SemanticModel, name: str, scope: Scope) -> Scope | None:
    """The scope whose binding of `name` is visible from `scope` (Python's LEGB, minus builtins)."""
    current: Scope | None = scope
    while current is not None:
        if name in current.declared_free:
            current = current.parent
            continue
        if name in current.local_names:
            return current
        current = current.parent
    return None


def bound_values(model: SemanticModel, name: str, scope: Scope) -> tuple[Scope, list[ast.expr]] | None:
    """(owning scope, every value assigned to `name` there), or None when any binding is not a plain
    `name = value` / `name op= value` (the AugAssign node stands for its own value)."""
    owner = _assigning_owner(model, name, scope)
    if owner is None:
        return None
    cache = model.__dict__.setdefault("_bound_values_cache", {})
    key = (name, id(owner))
    if key not in cache:
        cache[key] = _bound_values(model, name, owner, with_loops=False)
    return cache[key]


def binding_sites(model: SemanticModel, name: str, scope: Scope) -> tuple[Scope, list[ast.AST]] | None:
    """(owning scope, every place that binds `name` there): the value of a plain `name = value` (the
    AugAssign node for `name op= value`) or the `for` loop whose target is the name itself; None when
    any binding is of another kind (unpacking, an import, a `with ... as`, a `del`)."""
    found = bound_values(model, name, scope)
    if found is not None:
        return found
    owner = _assigning_owner(model, name, scope)
    return None if owner is None else _bound_values(model, name, owner, with_loops=True)


def _assigning_owner(model: SemanticModel, name: str, scope: Scope) -> Scope | None:
    """The scope that binds `name` for `scope`, unless there it is a parameter or a `def`/`class`."""
    owner = owning_scope(model, name, scope)
    if owner is None or name in owner.param_nodes or name in owner.defs:
        return None
    return owner


def _bound_values(model: SemanticModel, name: str, owner: Scope, *, with_loops: bool) -> tuple[Scope, list[ast.AST]] | None:
    """The bindings of `name` in `owner`: plain assignments, and (`with_loops`) the `for` loops whose
    target is the name itself; None when any other kind binds it, or another scope declares it free."""
    free_anywhere = model.__dict__.get("_declared_free_names")
    if free_anywhere is None:
        free_anywhere = model.__dict__["_declared_free_names"] = {
            free: [other for other in model.scopes if free in other.declared_free]
            for scope in model.scopes for free in scope.declared_free
        }
    if any(other is not owner for other in free_anywhere.get(name, ())):
        return None
    values: list[ast.AST] = []
    for target, value in owner.bindings:
        if isinstance(target, ast.Name):
            if target.id == name:
                if value is None:
                    return None
                values.append(value)
        elif name in _names(target):
            return None
    for target, _ in owner.loops:
        loop = getattr(target, PARENT, None) if with_loops and isinstance(target, ast.Name) and target.id == name else None
        if loop is not None:
            values.append(loop)
        elif name in _names(target):
            return None
    if not values or len(values) != _binding_count(owner, name):
        return None
    return owner, values


def _binding_count(owner: Scope, name: str) -> int:
    """Bindings of `name` recorded in `owner`, to detect imports, classes and the like we did not see
    (-1: bound some way bound_values does not follow). One walk per scope serves every name."""
    counts = _STORE_COUNTS.get(owner)
    if counts is None:
        counts = _STORE_COUNTS[owner] = _store_counts(owner)
    return counts.get(name, 0)


# Scope -> {name: stores, or -1}; weak keys so the counts die with the model.
_STORE_COUNTS: "weakref.WeakKeyDictionary[Scope, dict[str, int]]" = weakref.WeakKeyDictionary()


def _store_counts(owner: Scope) -> dict[str, int]:
    node = owner.node
    counts: dict[str, int] = {}
    stack = list(child_nodes(node)) if not isinstance(node, ast.Lambda) else [node.body]  # popped: a copy
    # Dispatch on the exact class (ast node classes have no subclasses): this walks whole modules.
    while stack:
        child = stack.pop()
        kind = child.__class__
        if kind is ast.Name:
            if child.ctx.__class__ is ast.Store and counts.get(child.id, 0) >= 0:
                counts[child.id] = counts.get(child.id, 0) + 1
            continue  # a name has no child nodes
        if kind is ast.Constant:
            continue
        if kind is ast.Import or kind is ast.ImportFrom:
            for alias in child.names:
                counts[(alias.asname or alias.name).split(".")[0]] = -1
        elif kind is ast.ClassDef:
            counts[child.name] = -1
            stack.extend(child.decorator_list)
            continue
        elif kind in _FUNCTION_TYPES:
            if getattr(child, "name", None) is not None:
                counts[child.name] = -1
            continue
        elif kind is ast.ExceptHandler and child.name:
            counts[child.name] = -1
        elif kind is ast.Delete:
            # `del a, b` unbinds those names only; `del table[k]`, `del obj.field` change what the
            # root name holds. Either way the other names of the scope keep their bindings.
            for target in child.targets:
                for root in _deleted_roots(target):
                    counts[root] = -1
        stack.extend(child_nodes(child))
    return counts


def _deleted_roots(target: ast.AST) -> list[str]:
    """The names whose bindings or contents a `del` target changes: `a`, `(a, b)`, `a[k]`, `a.b.c`."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return [name for element in target.elts for name in _deleted_roots(element)]
    while isinstance(target, (ast.Subscript, ast.Attribute, ast.Starred)):
        target = target.value
    return [target.id] if isinstance(target, ast.Name) else []


def _names(target: ast.AST) -> set[str]:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        found: set[str] = set()
        for element in target.elts:
            found |= _names(element)
        return found
    if isinstance(target, ast.Starred):
        return _names(target.value)
    return set()


def attribute_values(model: "SemanticModel", class_node: ast.ClassDef, attribute: str) -> list[ast.expr] | None:
    """Every value assigned to `self.<attribute>` in the class, or None when one binding is not a
    plain assignment (unpacked, looped over, bound by `with`, or `setattr` anywhere in the class).
    One walk per class collects every attribute."""
    cache = model.__dict__.setdefault("_jaxlint_attribute_values", {})
    found = cache.get(id(class_node))
    if found is None:
        found = cache[id(class_node)] = _collect_attribute_values(class_node)
    if found is _DYNAMIC:
        return None
    return found.get(attribute, [])


_DYNAMIC: dict = {}  # the class uses setattr/delattr: no attribute is followed


def _collect_attribute_values(class_node: ast.ClassDef) -> dict[str, list[ast.expr] | None]:
    values: dict[str, list[ast.expr] | None] = {}
    for node in walk(class_node):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("setattr", "delattr"):
            return _DYNAMIC
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.withitem, ast.NamedExpr)):
            targets = [getattr(node, "target", None) or getattr(node, "optional_vars", None)]
        for target in targets:
            for element in walk(target) if target is not None else ():
                if not (
                    isinstance(element, ast.Attribute) and isinstance(element.ctx, ast.Store)
                    and isinstance(element.value, ast.Name) and element.value.id == "self"
                ):
                    continue
                if isinstance(node, ast.AugAssign):
                    continue  # `self.v += 1` keeps what `self.v` is
                known = values.setdefault(element.attr, [])
                if known is None:
                    continue
                if not (isinstance(node, (ast.Assign, ast.AnnAssign)) and target is element and node.value is not None):
                    values[element.attr] = None
                else:
                    known.append(node.value)
    return values


def partial_value(name: ast.Name, scope, model) -> ast.Call | None:
    """`fn` bound once (in its scope) to `functools.partial(f, ...)`, with no `*args`/`**kwargs`: that call."""
    found = bound_values(model, name.id, scope)
    if found is None or len(found[1]) != 1:
        return None
    value = found[1][0]
    if not (isinstance(value, ast.Call) and value.args and model.qualified_name(value.func) == "functools.partial"):
        return None
    if any(isinstance(a, ast.Starred) for a in value.args) or any(k.arg is None for k in value.keywords):
        return None
    return value
