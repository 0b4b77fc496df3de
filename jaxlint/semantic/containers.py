"""Python containers as the analyses see them: values a loop or an index walks item by item on the
host, never arrays (a list display, a dict view, a name bound only to displays or annotated as a
container)."""

from __future__ import annotations

import ast

from jaxlint.semantic.model import ARRAY


def python_list(argument: ast.expr | None, scope) -> bool:
    """A list or tuple display, or a name that `scope` binds only to displays."""
    if isinstance(argument, (ast.List, ast.Tuple, ast.ListComp)):
        return True
    if isinstance(argument, ast.Name):
        values = [value for target, value in scope.bindings if isinstance(target, ast.Name) and target.id == argument.id]
        return bool(values) and all(isinstance(value, (ast.List, ast.Tuple, ast.ListComp)) for value in values)
    return False


CONTAINER_ANNOTATIONS = frozenset({
    "dict", "list", "tuple", "set", "Dict", "List", "Tuple", "Set", "Mapping", "MutableMapping", "Sequence",
    "OrderedDict", "FrozenDict",
})


def python_collection(argument: ast.expr, scope, context) -> bool:
    """A dict, list or other Python container the loop walks item by item: a display, a dict view
    (`connections.items()`), or a name bound to a display or annotated as a container
    (`nodes: Dict[str, Node]`), also in an enclosing function."""
    if isinstance(argument, (ast.List, ast.Tuple, ast.Set, ast.Dict, ast.ListComp, ast.DictComp, ast.SetComp)):
        return True
    if isinstance(argument, ast.Call) and isinstance(argument.func, ast.Attribute) and argument.func.attr in ("items", "keys", "values") and not argument.args:
        return context.level(argument.func.value, scope) < ARRAY
    if not isinstance(argument, ast.Name):
        return False
    owner = scope
    while owner is not None and not (argument.id in owner.local_names and argument.id not in owner.declared_free):
        owner = owner.parent
    if owner is None:
        return False
    parameter = owner.param_nodes.get(argument.id)
    if parameter is not None:
        annotation = parameter.annotation
        if isinstance(annotation, ast.Subscript):
            annotation = annotation.value
        name = annotation.attr if isinstance(annotation, ast.Attribute) else annotation.id if isinstance(annotation, ast.Name) else None
        return name in CONTAINER_ANNOTATIONS and not any(isinstance(target, ast.Name) and target.id == argument.id for target, _ in owner.bindings)
    return python_list(argument, owner)
