"""Python containers as the analyses see them: values a loop or an index walks item by item on the
host, never arrays (a list display, a dict view, a name bound only to displays or annotated as a
container)."""

from __future__ import annotations

import ast

from jaxlint.semantic.bindings import owning_scope
from jaxlint.semantic.model import ARRAY
from jaxlint.semantic.reaching import reaching_value


def python_list(argument: ast.expr | None, scope) -> bool:
    """A list or tuple display, or a name that `scope` binds only to displays (also extended by one,
    `waits += [...]`) or as the starred target of an unpacking (`key, *subkeys = split(key, n)`:
    Python makes that a list)."""
    if isinstance(argument, (ast.List, ast.Tuple, ast.ListComp)):
        return True
    if isinstance(argument, ast.Name):
        found = []
        for target, value in scope.bindings:
            if isinstance(target, ast.Name):
                if target.id == argument.id:
                    if isinstance(value, ast.AugAssign):
                        value = value.value  # `waits += [...]`: a list extended by a display stays a list
                    found.append(isinstance(value, (ast.List, ast.Tuple, ast.ListComp)))
            elif isinstance(target, (ast.Tuple, ast.List)):
                for element in target.elts:
                    if isinstance(element, ast.Starred) and isinstance(element.value, ast.Name) and element.value.id == argument.id:
                        found.append(True)
                    elif isinstance(element, ast.Name) and element.id == argument.id:
                        found.append(False)
        return bool(found) and all(found)
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
    owner = owning_scope(context.model, argument.id, scope)
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


_DISPLAYS = (ast.Dict, ast.List, ast.Tuple, ast.Set, ast.DictComp, ast.ListComp, ast.SetComp)


def container_of_device_values(name: ast.expr, scope, model, depth: int = 0) -> bool:
    """A name bound, everywhere `scope` binds it, to a Python container: a display, or what a function
    of the project returns at that place as a display (`state, metrics = step(state, batch)` where the
    jitted `step` ends `return state, {"loss": loss}`). Compiled calls keep the pytree's structure, so
    the caller holds a dict (or list) of device arrays: its truth is its length, known on the host, and
    testing it (`if metrics:`) reads nothing from the device."""
    if not isinstance(name, ast.Name) or depth > 2:
        return False
    values = [(target, value) for target, value in scope.bindings if name.id in _names_of(target)]
    if not values:
        return False
    reaching = reaching_value(name, [value for _, value in values])
    if reaching is not None:
        values = [(target, value) for target, value in values if value is reaching]
    for target, value in values:
        if value is None or not _container_value(_element_for(target, value, name.id), scope, model, depth):
            return False
    return True


def _names_of(target: ast.AST) -> set[str]:
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return {n for element in target.elts for n in _names_of(element)}
    return set()


def _element_for(target: ast.AST, value: ast.AST, name: str) -> tuple[ast.AST | None, tuple[int, ...]]:
    """The value `name` takes from `target = value`: (value, ()) when bound whole, (value, path) when it
    is an element of a tuple target (`state, (loss, logs) = step(...)`: path (1, 1)), elements of a
    tuple display taken at once; (None, ()) when a starred target hides the position."""
    if isinstance(target, ast.Name):
        return value, ()
    if isinstance(target, (ast.Tuple, ast.List)) and not any(isinstance(e, ast.Starred) for e in target.elts):
        for position, element in enumerate(target.elts):
            if name not in _names_of(element):
                continue
            if isinstance(value, (ast.Tuple, ast.List)):
                if len(value.elts) != len(target.elts):
                    return None, ()
                return _element_for(element, value.elts[position], name)
            inner, path = _element_for(element, value, name)
            return (inner, (position, *path)) if inner is not None else (None, ())
    return None, ()


def _container_value(found: tuple[ast.AST | None, tuple[int, ...]], scope, model, depth: int) -> bool:
    value, path = found
    if value is None:
        return False
    if not path and isinstance(value, _DISPLAYS):
        return True
    if not path and isinstance(value, ast.Name):
        return container_of_device_values(value, scope, model, depth + 1)
    if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
        return False
    binding = model.jit_binding_for_call(value)
    function = binding.function if binding is not None else None
    if function is None:
        resolved = model.resolve_function(value.func, model.scope_for(value))
        function = resolved[0] if resolved is not None and not resolved[1] else None
    if function is None or not function.returns:
        return False
    for returned in function.returns:
        for position in path:
            if not isinstance(returned, ast.Tuple) or any(isinstance(e, ast.Starred) for e in returned.elts) or position >= len(returned.elts):
                return False
            returned = returned.elts[position]
        if isinstance(returned, _DISPLAYS):
            continue
        if not container_of_device_values(returned, function, model, depth + 1):
            return False
    return True


_SEQUENCE_TYPES = frozenset({"list", "tuple"})


def narrowed_to_sequence(name: ast.expr, node: ast.AST) -> bool:
    """`node` runs only where an enclosing `if isinstance(name, (list, tuple)):` (or `list | tuple`,
    or one of them) holds: there `name` is a Python list or tuple, whatever its annotation says."""
    from jaxlint.semantic.model import parent_of

    if isinstance(name, ast.Call) and isinstance(name.func, ast.Name) and name.func.id in ("enumerate", "reversed") and len(name.args) == 1:
        name = name.args[0]  # `for i, t in enumerate(x)` walks x
    if not isinstance(name, ast.Name):
        return False
    child, parent = node, parent_of(node)
    while parent is not None and not isinstance(parent, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        if isinstance(parent, ast.If) and any(child is statement for statement in parent.body) and _isinstance_sequence(parent.test, name.id):
            return True
        child, parent = parent, parent_of(parent)
    return False


def _isinstance_sequence(test: ast.expr, name: str) -> bool:
    if not (isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" and len(test.args) == 2):
        return False
    subject, kinds = test.args
    if not (isinstance(subject, ast.Name) and subject.id == name):
        return False
    names: list[ast.expr] = []
    pending = [kinds]
    while pending:
        kind = pending.pop()
        if isinstance(kind, ast.Tuple):
            pending.extend(kind.elts)
        elif isinstance(kind, ast.BinOp) and isinstance(kind.op, ast.BitOr):
            pending.extend([kind.left, kind.right])
        else:
            names.append(kind)
    return bool(names) and all(isinstance(k, ast.Name) and k.id in _SEQUENCE_TYPES for k in names)
