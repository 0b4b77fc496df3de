"""Objects a class is handed when it is built: the class `self.<attribute>` holds where `__init__`
binds it from a parameter.

```python
class Evaluator:                                 # evaluator.py
    def __init__(self, model, batches):
        self.model = model                       # whatever the constructions pass
    def run(self):
        for x in self.batches:
            out = self.model.predict(x)          # Flow.predict, whatever it does, it does here

ev = Evaluator(Flow(cfg), data)                  # run.py (or evaluator.py itself)
```

The class of `self.model` is a fact of the program, not of the class: it is what every construction
of `Evaluator` passes to `model`, in this module and in every other module of the project that
imports it (the reverse-import index of semantic/callers.py, a few importers, each modelled once per
process and recorded as a dependency). A constructor call (`Flow(cfg)`), or a name the constructing
module knows to hold an instance (`flow = Flow(cfg)`, a factory's result, a parameter every caller
fills with one: `SemanticModel.instance_class`), names the class there. Where every construction
passes an instance of one class, `self.model` holds one, and the model answers `self.model.predict(x)`
from that class's methods (what they compile, draw, read or return) as it does for
`self.model = Flow(cfg)`.

Nothing is known, and the attribute stays unknown, when:
- a construction passes something else (a value of unknown class, `None`, a class picked at run time),
  leaves the parameter to its default, or passes it through `*args`/`**kwargs`;
- two constructions pass different classes (which one a call reaches the source does not say);
- no construction is in sight, or too many importers name the class to read them all;
- the class is subclassed in its module or an importer (a subclass's `__init__` may bind it anew),
  the parameter is annotated (semantic/annotated_classes.py reads that), rebound in `__init__`, or the
  attribute is stored by any other method.
"""

from __future__ import annotations

import ast
import os

from jaxlint.semantic.bindings import attribute_values
from jaxlint.semantic.syntax import argument


def handed_attribute_class(model, class_node: ast.ClassDef, attribute: str):
    """The class (a local ClassDef or a project ClassSummary) every construction of `class_node`
    passes to the `__init__` parameter that `self.<attribute>` is bound from; None when not known
    (see the module docstring)."""
    values = attribute_values(model, class_node, attribute)
    if not values or not all(isinstance(value, ast.Name) for value in values) or len({value.id for value in values}) != 1:
        return None
    methods = model.class_methods.get(class_node, {})
    init = methods.get("__init__")
    name = values[0].id
    if init is None or name not in init.params or init.param_nodes[name].annotation is not None:
        return None
    if any(isinstance(a, ast.arg) and a.arg == name for a in getattr(init.node.args, "posonlyargs", ())):
        return None
    if not any(statement is class_node for statement in model.tree.body):
        return None  # (a nested class: its constructions are not module-level names)
    if any(_stores(method, attribute) for key, method in methods.items() if key != "__init__"):
        return None
    from jaxlint.semantic.library_models import in_module_callers, rebinds

    if rebinds(model, init, name) or _subclassed(model.tree, class_node.name):
        return None
    position = init.params.index(name)
    found = []
    for caller, call in in_module_callers(model, init):
        each = _passed_class(model, call, position, name)
        if each is None:
            return None
        found.append(each)
    foreign = _importer_classes(model, class_node.name, position, name)
    if foreign is None:
        return None
    found += [_summary_class(model, path, class_name) for path, class_name in foreign]
    if not found or any(each is None or each is not found[0] for each in found):
        return None
    return found[0]


def _stores(method, attribute: str) -> bool:
    """The method binds `self.<attribute>`."""
    return any(
        isinstance(element, ast.Attribute) and element.attr == attribute and isinstance(element.value, ast.Name) and element.value.id == "self"
        for target, _ in method.bindings for element in ast.walk(target)
    )


def _subclassed(tree: ast.Module, name: str) -> bool:
    """A class of the module derives from a class called `name` (`class Fast(Evaluator)`, `mod.Evaluator`)."""
    return any(
        isinstance(node, ast.ClassDef) and any(
            (isinstance(base, ast.Name) and base.id == name) or (isinstance(base, ast.Attribute) and base.attr == name)
            for base in node.bases
        )
        for node in ast.walk(tree)
    )


def _passed_class(model, call: ast.Call, position: int, name: str):
    """The class of what `call` passes at `position` (or as `name=`), as `model` knows it."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    passed = argument(call, position, name)
    if isinstance(passed, ast.Call) and isinstance(passed.func, (ast.Name, ast.Attribute)):
        return model._constructed_class(passed.func)
    if isinstance(passed, ast.Name) and passed.id not in ("self", "cls"):
        return model.instance_class(passed)
    return None


def _importer_classes(model, class_name: str, position: int, name: str) -> list | None:
    """(path of the defining module, class name) of what each construction of the class in another
    module of the project passes; None when one passes something unknown or an importer cannot be read."""
    project = getattr(model, "project", None)
    if project is None:
        return []
    from jaxlint.semantic import callers, importer_facts

    target = project.path
    leaf = callers.module_leaf(target)
    word = class_name.encode()
    found: list = []
    for read in importer_facts.importer_reads_naming(project, word):
        if read is importer_facts.TOO_MANY:
            return None
        other = importer_facts.importer_model(project, read)
        if other is None:
            return None
        if _subclassed(other.tree, class_name):
            return None
        for call in other.calls_by_name().get(class_name, ()):
            qualified = other.qualified_name(call.func) if isinstance(call.func, (ast.Name, ast.Attribute)) else None
            if qualified is None or "." not in qualified:
                continue
            module = qualified.rpartition(".")[0]
            if qualified.rpartition(".")[2] != class_name or module.rpartition(".")[2] != leaf or not callers._names_file(other.project, module, target):
                continue
            each = _passed_class(other, call, position, name)
            if each is None:
                return None
            if isinstance(each, ast.ClassDef):
                if not any(statement is each for statement in other.tree.body):
                    return None
                found.append((str(read[0]), each.name))
            else:
                home = other.project.home_of_class(each)
                if home is None:
                    return None
                found.append((home.path, each.name))
        project.dependencies.update(other.project.dependencies)
    return found


def _summary_class(model, path: str, class_name: str):
    """The class `class_name` of the module at `path`: a ClassDef of this module, else its project
    summary, read into this module's project view (so its methods' homes are found) as a dependency."""
    if os.path.abspath(path) == os.path.abspath(model.project.path):
        local = [c for c in model.class_methods if c.name == class_name and any(s is c for s in model.tree.body)]
        return local[0] if len(local) == 1 else None
    summary = model.project.summary_at(path)
    return summary.classes.get(class_name) if summary is not None else None
