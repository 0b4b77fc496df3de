"""Networks held by plain objects: what calling such an object runs.

A plain class of the project (no framework base) often wraps the network: its `__call__` runs the
modules it holds (`self.encoder(x)`, or a loop over the list of blocks it built,
`for block in self.blocks: x = block(x)`), and its other methods call `self(x)`. Calling an instance
of it (`model(x)`, `model.generate(tokens)` whose body runs `self(inp)`) runs that `__call__`: a
whole forward pass, as calling the network itself would. Two facts the model did not know:

- the callee of a call of an instance of a class of the module, or of `self(...)` in a method of
  one, is the `__call__` its body defines (`instance_call`);
- a `for` loop over an attribute of `self` that holds only network instances (every assignment a
  list display or a list comprehension of constructions of one modelled network class, or the class
  body declares it `list[Block]`/`tuple[Block, ...]`), whose body calls the loop's element, is one
  forward pass over the layers, not a run of steps (`layer_loop`), and calling the element runs
  that network (`layer_call`).

Not: a class whose `__call__` is inherited (a project base may define it elsewhere: not shown here; a
framework base has its own `__call__` entry, asked first), a list attribute any assignment of which holds
something else (`self.blocks = []` then appended: the elements are not shown), a loop whose element
is not called.
"""

from __future__ import annotations

import ast
from weakref import WeakKeyDictionary

from jaxlint.semantic import library_models

_SEQUENCE_ANNOTATIONS = frozenset({"list", "List", "tuple", "Tuple", "Sequence", "typing.List", "typing.Tuple", "typing.Sequence"})

_layers_cache: "WeakKeyDictionary[object, dict[tuple[int, str], bool]]" = WeakKeyDictionary()


def instance_call(call: ast.Call, model, scope):
    """The `__call__` method (a Scope) that `call` runs: `self(x)` in a method of a class of the module
    whose body defines one, or `net(x)` with `net` an instance of such a class (`net = Wrapper(...)`,
    `self.net` built from it). None otherwise (a class whose `__call__` is inherited: not shown here;
    a class deriving from a modelled one is its library entry's, asked before this)."""
    from jaxlint.semantic.host_code import instance_of_local_class

    function = call.func
    owner = None
    if isinstance(function, ast.Name) and function.id == "self":
        method = scope
        while method is not None and not method.is_function:
            method = method.parent
        if method is None or method.class_node is None:
            return None
        arguments = getattr(method.node, "args", None)
        positional = [*arguments.posonlyargs, *arguments.args] if arguments is not None else []
        if not positional or positional[0].arg != "self":
            return None
        if any(isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod") for d in method.node.decorator_list):
            return None
        owner = method.class_node
    elif isinstance(function, (ast.Name, ast.Attribute)):
        owner = instance_of_local_class(function, model)
    if owner is None:
        return None
    return model.class_methods.get(owner, {}).get("__call__")


def _element_constructions(class_node: ast.ClassDef, attribute: str) -> list[ast.expr] | None:
    """What each element of `self.<attribute>` is built from, over every assignment in the class: the
    elements of list or tuple displays and the element of list comprehensions. None where an
    assignment (or an augmented one, an `append`) holds anything else, or there is none."""
    elements: list[ast.expr] = []
    seen = False
    for node in ast.walk(class_node):
        targets: list[ast.expr] = []
        value = None
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        elif isinstance(node, ast.AugAssign):
            targets, value = [node.target], None
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_self_attribute(node.func.value, attribute):
            return None  # `self.blocks.append(...)`: built up elsewhere
        for target in targets:
            if not _is_self_attribute(target, attribute):
                if isinstance(target, (ast.Tuple, ast.List)) and any(_is_self_attribute(t, attribute) for t in target.elts):
                    return None
                continue
            seen = True
            if isinstance(value, (ast.List, ast.Tuple)) and value.elts and not any(isinstance(e, ast.Starred) for e in value.elts):
                elements.extend(value.elts)
            elif isinstance(value, ast.ListComp):
                elements.append(value.elt)
            else:
                return None
    return elements if seen and elements else None


def _is_self_attribute(node: ast.AST, attribute: str) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == attribute and isinstance(node.value, ast.Name) and node.value.id == "self"


def _declared_element(class_node: ast.ClassDef, attribute: str) -> ast.expr | None:
    """`blocks: list[Block]` (or `tuple[Block, ...]`, `Sequence[Block]`) in the class body: `Block`."""
    for statement in class_node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.target.id == attribute:
            annotation = statement.annotation
            if isinstance(annotation, ast.Subscript) and ast.unparse(annotation.value) in _SEQUENCE_ANNOTATIONS:
                inner = annotation.slice
                if isinstance(inner, ast.Tuple):
                    if len(inner.elts) == 2 and isinstance(inner.elts[1], ast.Constant) and inner.elts[1].value is Ellipsis:
                        inner = inner.elts[0]
                    else:
                        return None
                return inner
    return None


def holds_networks(iterable: ast.expr, model, scope) -> bool:
    """`iterable` is `self.<attribute>` of a class of the module whose every element is an instance of
    a network class (`library_models.instance_runs_model`): built so by every assignment, or declared
    a sequence of one class in the class body (and never assigned anything else)."""
    if not (isinstance(iterable, ast.Attribute) and isinstance(iterable.value, ast.Name) and iterable.value.id == "self"):
        return False
    method = scope
    while method is not None and not method.is_function:
        method = method.parent
    class_node = getattr(method, "class_node", None)
    if class_node is None:
        return False
    cache = _layers_cache.setdefault(model, {})
    key = (id(class_node), iterable.attr)
    if key in cache:
        return cache[key]
    cache[key] = False
    found = False
    elements = _element_constructions(class_node, iterable.attr)
    if elements is not None:
        init = model.class_methods.get(class_node, {}).get("__init__")
        found = all(isinstance(e, ast.Call) and library_models.instance_runs_model(model, e, _scope_of(model, e) or init or scope) for e in elements)
    if not found and elements is None and not _assigned_otherwise(class_node, iterable.attr):
        declared = _declared_element(class_node, iterable.attr)
        if declared is not None:
            probe = ast.copy_location(ast.Call(func=declared, args=[], keywords=[]), declared)
            found = library_models.instance_runs_model(model, probe, model.module_scope)
    cache[key] = found
    return found


def _assigned_otherwise(class_node: ast.ClassDef, attribute: str) -> bool:
    """Some assignment of `self.<attribute>` in the class is not a display of constructions (an empty
    list, a parameter): the declared element type is then all the source says, and not enough."""
    for node in ast.walk(class_node):
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_is_self_attribute(t, attribute) for t in targets):
                return True
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and _is_self_attribute(node.func.value, attribute):
            return True
    return False


def _scope_of(model, node: ast.AST):
    try:
        return model.scope_for(node)
    except (KeyError, AttributeError):
        return None


def layer_loop(loop: ast.AST, model, scope) -> bool:
    """A `for` over the network instances an attribute of `self` holds, whose body calls the element
    (`for block in self.blocks: x = block(x)`): one forward pass through the layers, not a run of steps."""
    if not isinstance(loop, ast.For) or not isinstance(loop.target, ast.Name) or loop.orelse:
        return False
    name = loop.target.id
    if not any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == name for s in loop.body for n in ast.walk(s)):
        return False
    return holds_networks(loop.iter, model, scope)


def layer_call(call: ast.Call, model, scope) -> bool:
    """`call` calls the element of an enclosing layer loop (`block(x)` in `for block in self.blocks:`):
    that network's forward pass."""
    if not isinstance(call.func, ast.Name):
        return False
    loops = getattr(scope, "loops", None) or ()
    if not any(isinstance(target, ast.Name) and target.id == call.func.id for target, _ in loops):
        return False  # (the cheap test first: the name is no loop target of the function)
    node = _enclosing_for(call, model, call.func.id)
    return node is not None and layer_loop(node, model, scope)


def _enclosing_for(call: ast.Call, model, name: str) -> ast.For | None:
    """The `for` loop of the call's function whose target is `name` and whose body holds the call."""
    scope = model.scope_for(call)
    for node in ast.walk(scope.node):
        if isinstance(node, ast.For) and isinstance(node.target, ast.Name) and node.target.id == name \
                and model.scope_for(node) is scope and any(call is n for s in node.body for n in ast.walk(s)):
            return node
    return None


# ----- how big a network its maker shows ------------------------------------------------------------

_SERIAL = frozenset({"jax.example_libraries.stax.serial", "jax.experimental.stax.serial"})
# Array operations one stax layer's apply dispatches (jax/example_libraries/stax.py): a dense or
# convolution layer a product and a bias add, a batch norm a mean, a variance, a normalisation, a scale
# and a shift, a log-softmax a max, a subtraction, an exp, a sum and a log; an elementwise layer one.
_LAYER_DISPATCHES = {
    "Dense": 2, "Conv": 2, "Conv1DTranspose": 2, "ConvTranspose": 2, "GeneralConv": 2, "GeneralConvTranspose": 2,
    "BatchNorm": 6, "LogSoftmax": 5, "Softmax": 4, "Dropout": 4, "AvgPool": 2, "SumPool": 1, "MaxPool": 1,
    "Flatten": 1, "Identity": 0,
}
_OTHER_LAYER_DISPATCHES = 3  # an activation (one), a reshape or upsampling (a few), a project's own layer


def shown_dispatches(call: ast.Call, model) -> int | None:
    """How many operations one eager call of a network dispatches where its maker is in the source: the
    apply function of a `stax.serial(...)` of layers (`init, apply = stax.serial(Dense(64), Relu,
    Dense(10))`: five), so that a loop's cost is that network's and not the generic whole computation's
    (semantic/loop_cost.py). The name bound once; or, read in the module's own code (a script, a
    notebook's cells run in order), the last binding above the read, every binding such a pair of the
    module body. None where not shown."""
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        return None  # (also a computation of another module: foreign_work.ForeignWork)
    name = call.func.id
    cache = model.__dict__.setdefault("_shown_dispatches", {})
    key = (name, call.lineno if model.scope_for(call) is model.module_scope else None)
    if key not in cache:
        cache[key] = _shown_dispatches(call, name, model)
    return cache[key]


def _shown_dispatches(call: ast.Call, name: str, model) -> int | None:
    found: list[ast.Assign] = []
    for node in ast.walk(model.tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.With, ast.NamedExpr)):
            targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
            if isinstance(node, ast.With):
                targets = [item.optional_vars for item in node.items]
            for target in targets:
                names = [t for t in ast.walk(target) if isinstance(t, ast.Name) and t.id == name] if target is not None else []
                if not names:
                    continue
                if not isinstance(node, ast.Assign) or not isinstance(target, ast.Tuple) or len(target.elts) != 2 \
                        or target.elts[1] is not names[0] or not isinstance(node.value, ast.Call) or node not in model.tree.body:
                    return None
                found.append(node)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Global)) and getattr(node, "name", None) == name:
            return None
    if len(found) > 1:
        if model.scope_for(call) is not model.module_scope:
            return None
        above = [node for node in found if node.lineno < call.lineno]
        found = above[-1:]
    return _serial_dispatches(found[0].value, model) if len(found) == 1 else None


def _serial_dispatches(call: ast.Call, model, depth: int = 0) -> int | None:
    if depth > 4 or model.qualified_name(call.func) not in _SERIAL or call.keywords or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    total = 0
    for layer in call.args:
        if isinstance(layer, ast.Call) and model.qualified_name(layer.func) in _SERIAL:
            inner = _serial_dispatches(layer, model, depth + 1)
            if inner is None:
                return None
            total += inner
            continue
        function = layer.func if isinstance(layer, ast.Call) else layer
        label = function.attr if isinstance(function, ast.Attribute) else getattr(function, "id", None)
        total += _LAYER_DISPATCHES.get(label, _OTHER_LAYER_DISPATCHES)
    return total
