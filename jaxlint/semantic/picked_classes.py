"""Classes picked at run time: an object the model knows as an instance of one of several classes.

```python
ALGOS = {"bc": BC, "iql": IQL}               # a display of classes, here or in another module
algo_class = ALGOS[cfg.algo]                 # picked by a setting (`ALGOS.get(name)` too)
Model = Burgers if cfg.pde == "b" else Wave  # or by a conditional expression
agent = algo_class(cfg)                      # then built: `ALGOS[name](...)`, `ALGOS[name].create(...)`
```

Which class the object has the program's settings decide; the candidates are known. A fact every
candidate agrees on holds for the object (`agent.update` is the same compiled method when each class
inherits it from one base, or compiles its own alike); where they disagree nothing is known.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.bindings import bound_values, owning_scope

_MAX_DEPTH = 3


def picked_classes(node: ast.AST, scope, model, depth: int = 0) -> list | None:
    """The candidate classes (local ClassDefs or project ClassSummaries) an expression that picks a
    class at run time names: a subscript or `.get` of a display of classes, a conditional expression
    of classes, or a name bound once (not a parameter) to one of those. None when not such a pick or
    a candidate is unknown."""
    if depth > _MAX_DEPTH:
        return None
    if isinstance(node, ast.Name):
        owner = owning_scope(model, node.id, scope)
        if owner is None or node.id in owner.param_nodes:
            return None
        found = bound_values(model, node.id, scope)
        if found is None or len(found[1]) != 1 or not isinstance(found[1][0], (ast.Subscript, ast.IfExp, ast.Call)):
            return None
        return picked_classes(found[1][0], found[0], model, depth + 1)
    if isinstance(node, ast.Subscript):
        return _registry_classes(node.value, model)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get" and len(node.args) == 1 and not node.keywords:
        return _registry_classes(node.func.value, model)  # `ALGOS.get(name)`: a pick, or None (which fails at once)
    if isinstance(node, ast.IfExp):
        classes = []
        for side in (node.body, node.orelse):
            picked = picked_classes(side, scope, model, depth + 1) if isinstance(side, ast.IfExp) else _one_class(side, model)
            if picked is None:
                return None
            classes += picked
        return classes
    return None


def registry_name(node: ast.AST, scope, model) -> str | None:
    """The display a pick reads (`ALGOS` in `ALGOS[name]` or after `kind = ALGOS[name]`), for messages."""
    if isinstance(node, ast.Name):
        found = bound_values(model, node.id, scope)
        return registry_name(found[1][0], found[0], model) if found is not None and len(found[1]) == 1 else None
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name):
        return node.value.id
    return None


def constructed_classes(call: ast.Call, scope, model) -> list | None:
    """The candidates an object built by `call` is an instance of: `pick(...)` or `pick.create(...)`
    (a class method building an instance of its class)."""
    function = call.func
    picked = picked_classes(function, scope, model)
    if picked is None and isinstance(function, ast.Attribute) and not (isinstance(function.value, ast.Name) and function.value.id in ("self", "cls")):
        picked = picked_classes(function.value, scope, model)
    return picked


def _one_class(node: ast.AST, model) -> list | None:
    if not isinstance(node, (ast.Name, ast.Attribute)):
        return None
    found = model._constructed_class(node)
    return [found] if found is not None else None


def _registry_classes(node: ast.AST, model) -> list | None:
    """The classes of a module-level display of classes bound once, of this module or another."""
    if not isinstance(node, ast.Name):
        return None
    if node.id in model.module_scope.local_names and node.id not in model.imports.aliases:
        bound = [value for target, value in model.module_scope.bindings if isinstance(target, ast.Name) and target.id == node.id]
        names = class_registry_names(bound[0]) if len(bound) == 1 and isinstance(bound[0], ast.AST) else None
        if names is None:
            return None
        classes = [model._constructed_class(ast.Name(id=name, ctx=ast.Load())) for name in names]
        return classes if None not in classes else None
    qualified = model.qualified_name(node)
    project = getattr(model, "project", None)
    listed = project.registry(qualified) if qualified is not None and project is not None else None
    if not listed:
        return None
    classes = [project.class_(name) for name in listed]
    return classes if None not in classes else None


def class_registry_names(value: ast.AST) -> list[str] | None:
    """The names a dict, list or tuple display holds as its values (`{"bc": BCAgent, "iql": IQLAgent}`,
    or the same built by `dict(bc=BCAgent, iql=IQLAgent)`), when every value is a plain name; None otherwise."""
    if isinstance(value, ast.Dict):
        values = value.values if None not in value.keys else None
    elif isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict" and not value.args:
        values = [keyword.value for keyword in value.keywords] if all(keyword.arg for keyword in value.keywords) else None
    elif isinstance(value, (ast.List, ast.Tuple)):
        values = value.elts
    else:
        values = None
    if not values or not all(isinstance(element, ast.Name) for element in values):
        return None
    return [element.id for element in values]
