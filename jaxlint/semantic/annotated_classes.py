"""Objects whose class their annotation states: a parameter, and an attribute bound from one.

```python
def rollout(model: WorldModel, steps):       # `model` holds a WorldModel
    for _ in range(steps):
        model.state, out = model.imagine(model.state)   # WorldModel.imagine, compiled or not

class Checkpointing:
    def __init__(self, inner: Updater):
        self._inner = inner                     # `self._inner` holds an Updater
```

An annotation names the class of what the parameter holds: an instance of that class of the project
(this module or another, a string annotation or `Optional[...]`/`X | None` alike: a `None` is never
called), so its compiled methods are that class's: the model asks here which compiled callable
`obj.method(...)` runs (model.instance_method) where the object has no constructor in sight. (Which
plain methods run, and what they do, stays with the constructors the model sees: an annotation is the
author's statement of a type, which for compiled steps is enough to name the `jit` to change.) Where the function binds the parameter again, or a class of
this module derives from the annotated one (a caller may hand that one in, with methods of its own),
nothing is known. An attribute of `self` bound, in every method of the class that binds it, to such a
parameter of that method (`self._inner = inner`) holds one too.
"""

from __future__ import annotations

import ast

from jaxlint.semantic.bindings import attribute_values


def parameter_class(model, scope, name: str, *, rebinding_seen: bool = False):
    """The project class (a local ClassDef or a project ClassSummary) the annotation of the parameter
    `name` of the function `scope` names, where the function never binds the parameter again (or the
    caller has seen that every binding keeps the class: `rebinding_seen`); None otherwise (no
    annotation, a library class, a union of several, a class a local class derives from)."""
    from jaxlint.semantic.library_models import _union_alternatives

    node = scope.param_nodes.get(name) if scope is not None else None
    annotation = node.annotation if node is not None else None
    if annotation is None or not scope.is_function:
        return None
    alternatives = _union_alternatives(model, annotation)
    if not alternatives or len(alternatives) != 1 or not isinstance(alternatives[0], (ast.Name, ast.Attribute)):
        return None
    if not rebinding_seen and _rebinds(scope, name):
        return None
    return _undivided(model, model._constructed_class(alternatives[0]))


def attribute_class(model, class_node: ast.ClassDef, attribute: str):
    """The class `self.<attribute>` holds where every binding of it in `class_node` is a parameter of
    the binding method annotated with one project class (`self._inner = inner`, `inner: Updater`)."""
    values = attribute_values(model, class_node, attribute)
    if not values or not all(isinstance(value, ast.Name) for value in values):
        return None
    found = None
    for value in values:
        scope = model.scope_for(value)
        each = parameter_class(model, scope, value.id) if value.id in scope.param_nodes else None
        if each is None or (found is not None and each is not found):
            return None
        found = each
    return found


def name_class(model, name: ast.Name):
    """The class a name holds through the annotation of the parameter it is (`model: WorldModel`)."""
    from jaxlint.semantic.bindings import owning_scope

    scope = owning_scope(model, name.id, model.scope_for(name))
    if scope is None or not scope.is_function or name.id not in scope.param_nodes:
        return None
    return parameter_class(model, scope, name.id)


def self_attribute_class(model, node: ast.Attribute):
    """The class `self.<attr>` holds through the annotated parameter bound to it (`self._inner = inner`)."""
    holder = model.scope_for(node).enclosing_method()
    return attribute_class(model, holder.class_node, node.attr) if holder is not None else None


def _rebinds(scope, name: str) -> bool:
    """The function binds the name itself again (`model = ...`, `for model in ...`); storing into an
    attribute of it (`model.state = ...`) keeps the object."""
    return any(
        isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
        for target, _ in (*scope.bindings, *scope.loops) if target is not None for node in ast.walk(target)
    )


def _undivided(model, owner):
    """`owner`, unless a class of this module derives from it (by name): then a caller may hand in the
    derived class, whose methods may differ."""
    if owner is None:
        return None
    name = owner.name
    for other in model.class_methods:
        if any(isinstance(base, ast.Name) and base.id == name or isinstance(base, ast.Attribute) and base.attr == name for base in other.bases):
            return None
    return owner
