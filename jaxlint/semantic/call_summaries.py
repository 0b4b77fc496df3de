"""What one call of a plain project function or method does, in any module, through `functools.partial`
and with what the call fixes.

`step = partial(train_step, tx=tx, training=True)` then `loss, aux, state = step(state)` in a loop,
`train_step` defined in another module: whether the call runs compiled code, runs a whole
computation eagerly (an optimizer update, a network pass) and which positions of what it returns
are device values are facts of `train_step`'s body, read with what this call gives it:

- the callee is found through a name bound once to `functools.partial(f, ...)` (its bound positions
  and keywords come first), through an import of the project, or in this module; a method through the
  instance's class (`learner.step(...)` with `learner` bound to `Learner(...)`, `self.trainer.step(...)`,
  `self.step(...)`), an undecorated method of a class of this module or of another, read with `self`
  the instance and the call's arguments in the parameters after it;
- a parameter the call (or the partial, or the parameter's default where the call passes nothing)
  fixes to a literal decides the branches that test it (`if training:`, `if mode == "eval":`): the
  callee is read with the side that literal takes, as if the other side were not written;
- a parameter the call fills with an object of a modelled kind (`tx = optax.adam(...)`, a network)
  holds that kind in the callee, and in the functions of its module it hands the parameter on to
  (`tx.update(...)` two calls down is an optimizer update).

The callee is read from a semantic model of its module (semantic/foreign_work.py builds it once per
run); where the call fixes a branch or a kind, from a model of a copy of that module whose function
has the untaken sides removed (one per module, function and fixed values, remembered per process).
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass, field

from jaxlint.semantic import foreign_work
from jaxlint.semantic.bindings import partial_value
from jaxlint.semantic.syntax import parameter_defaults, walk

_LIBRARY_PREFIXES = ("jax.", "numpy.", "builtins.", "flax.", "equinox.", "optax.", "haiku.", "chex.", "orbax.", "functools.")
_UNKNOWN = object()
_MAX_MODELS = 32
# Names of calls without which a function of another module runs neither compiled code of its module
# nor a whole computation the models know.
_WORDS = foreign_work._WORK_NAMES | foreign_work._COMPILING_NAMES


@dataclass(frozen=True)
class Callee:
    """A plain function a call runs: its scope in `model` (the caller's own model or a model of its
    module), its file and name, and what the call fixes (parameter -> literal, parameter -> kind)."""

    scope: object = field(repr=False)
    model: object = field(repr=False)
    path: str | None  # None: the caller's own module
    digest: str | None
    name: str
    fixed: tuple = ()  # ((parameter, literal), ...)
    kinds: tuple = ()  # ((parameter, kind), ...)
    member: str | None = None  # a method of another module's class: `name` is the class's

    @property
    def label(self) -> str:
        """How a message names it: `train_step`, `Learner.update`."""
        return f"{self.name}.{self.member}" if self.member else self.name

    def specialised(self):
        """(scope, model) of the function read with what the call fixes: a model of a copy of its module
        (built when first asked; cut-off sides only ever add facts, so the questions ask the plain
        reading first), or the plain (scope, model) where the call fixes nothing."""
        if not self.fixed and not self.kinds:
            return self.scope, self.model
        file = (self.path, self.digest) if self.path is not None else None
        found = _specialised_model(self.model, file, self.scope.node, dict(self.fixed), dict(self.kinds))
        if found is None:
            return None
        model, node = found
        scope = model.scope_of_node.get(node)
        return (scope, model) if scope is not None else None


_specialised: dict[tuple, object] = {}


def callee(call: ast.Call, model) -> Callee | None:
    """The plain function (module level, undecorated) `call` runs, read with what it fixes; None when
    the call is not of one."""
    cache = model.__dict__.setdefault("_call_summaries", {})
    key = id(call)
    if key not in cache:
        cache[key] = None  # (recursion: none while being worked out)
        cache[key] = _callee(call, model)
    return cache[key]


def _callee(call: ast.Call, model) -> Callee | None:
    scope = model.scope_for(call)
    function, bound_args, bound_keywords = call.func, [], []
    through_partial = False
    if isinstance(function, ast.Name):
        partial = partial_value(function, scope, model)
        if partial is not None:
            function, bound_args, bound_keywords = partial.args[0], list(partial.args[1:]), list(partial.keywords)
            through_partial = True
    if not isinstance(function, (ast.Name, ast.Attribute)):
        return None
    located = _local_def(function, scope, model)
    if located is None and isinstance(function, ast.Attribute) and not through_partial:
        located = _local_method(function, scope, model)
    path, digest, member = None, None, None
    if located is not None:
        home_model, node = model, located
    else:
        found = _foreign_def(function, model)
        if found is None and isinstance(function, ast.Attribute) and not through_partial:
            found = _foreign_method(call, model)
        if found is None:
            return None
        home_model, node, path, digest = found[:4]
        member = found[4] if len(found) > 4 else None
    target = home_model.scope_of_node.get(node)
    if target is None:
        return None
    arguments = _arguments(node, [*bound_args, *call.args], [*bound_keywords, *call.keywords], has_self=target.has_self)
    if arguments is None:
        return None
    fixed = _fixed_values(node, arguments, model)
    kinds = _given_kinds(node, arguments, scope, model) if path is not None or through_partial else {}
    name, method = (member, node.name) if member else (node.name, None)
    return Callee(target, home_model, path, digest, name, tuple(sorted(fixed.items(), key=lambda item: item[0])), tuple(sorted(kinds.items())), method)


def _plain_def(node) -> bool:
    return isinstance(node, ast.FunctionDef) and not node.decorator_list


def _local_def(function: ast.expr, scope, model):
    """A module-level plain def of this module the expression names."""
    if not isinstance(function, ast.Name):
        return None
    resolved = model.resolve_function(function, scope)
    if resolved is None or resolved[0] is None or resolved[1] or resolved[2]:
        return None
    target = resolved[0]
    node = target.node
    if not _plain_def(node) or target.traced or target.transforms or target.parent is not model.module_scope:
        return None
    return node


def _local_method(function: ast.Attribute, scope, model):
    """The undecorated method of a class of this module that `obj.method` runs (`obj` bound to an
    instance of the class, `self.obj` holding one, or `self`): read as a plain function is, with
    `self` the instance."""
    if isinstance(function.value, ast.Name) and function.value.id == "self":
        resolved = model.resolve_function(function, scope)
        target = resolved[0] if resolved is not None and not resolved[1] and not resolved[2] else None
    else:
        target = model.method_scope(function)
    if target is None or not target.has_self:
        return None
    node = target.node
    if not _plain_def(node) or target.traced or target.transforms or target.in_traced:
        return None
    owner = getattr(target, "class_node", None)
    if owner is None or target.parent is not model.module_scope or model.scope_for(owner) is not model.module_scope:
        return None
    return node


def _foreign_method(call: ast.Call, model):
    """(model of its module, the def, its path, digest, the class's name) of an undecorated method of a
    class of another project module that `obj.method(...)` runs (`obj` bound once to `Class(...)`, or
    `self.obj` only ever assigned one): the class's name stands where a function's would."""
    project = getattr(model, "project", None)
    if project is None:
        return None
    located = foreign_work._located_callee(call, model)
    if located is None or located[2] is None:
        return None
    summary, name, member = located
    method = summary.classes[name].methods.get(member) if name in summary.classes else None
    if method is not None and method.transform is not None:
        return None  # compiled: the jit bindings answer
    if not foreign_work._compiles_something(summary) and not foreign_work._function_mentions(summary.path, summary.digest, name, member, _WORDS):
        return None  # (the cheap test first)
    home = _project_model(summary.path, summary.digest, project)
    if home is None:
        return None
    owner = next((n for n in home.tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)
    node = next((n for n in owner.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == member), None) if owner is not None else None
    if not _plain_def(node):
        return None
    return home, node, summary.path, summary.digest, name


def _foreign_def(function: ast.expr, model):
    """(model of its module, the def, its path) of a plain module-level function of another module of
    the project that the expression names through an import."""
    project = getattr(model, "project", None)
    if project is None:
        return None
    qualified = model.qualified_name(function)
    if qualified is None or qualified.startswith(_LIBRARY_PREFIXES) or not project.may_hold(qualified.partition(".")[0]):
        return None
    located = foreign_work._locate(project, qualified)
    if located is None:
        return None
    summary, name = located
    if name in summary.functions and summary.functions[name].transform is not None:
        return None  # compiled: the jit bindings answer
    if (not foreign_work._compiles_something(summary) and not foreign_work._function_mentions(summary.path, summary.digest, name, None, _WORDS)
            and not _calls_imported_compiled(summary, name, project)):
        return None  # (the cheap test first: it compiles nothing, calls nothing compiled elsewhere, names no whole computation)
    home = _project_model(summary.path, summary.digest, project)
    if home is None:
        return None
    node = next((n for n in home.tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and n.name == name), None)
    if not _plain_def(node):
        return None
    return home, node, summary.path, summary.digest


_project_models: dict[tuple[str, str], object] = {}


def _project_model(path: str, digest: str, project):
    """A model of the module at `path` with a project view of its own (so what it imports from further
    modules of the project is read too), built once per process."""
    key = (path, digest)
    if key not in _project_models:
        if len(_project_models) > _MAX_MODELS:
            _project_models.clear()
        _project_models[key] = _model_with_view(foreign_work._tree_of(path, digest), path, project)
    return _project_models[key]


def _model_with_view(tree: ast.Module | None, path: str, project):
    if tree is None:
        return None
    from jaxlint.semantic.model import SemanticModel

    try:
        # (a view of the project from that module: the asking file's own kind of view, made for `path`)
        return SemanticModel(tree, (), type(project)(path, project.root))
    except Exception:  # too deep, or the view cannot be made: no answer
        return None


def record_reads(models, model) -> None:
    """Every module the models read a summary of (a callee's module's own view) is a dependency of the
    asking file's findings."""
    asking = getattr(model, "project", None)
    if asking is None:
        return
    for each in models:
        view = getattr(each, "project", None)
        if view is not None and view is not asking:
            asking.dependencies.update(view.dependencies)
    asking.dependencies.pop(str(asking.path), None)


def _calls_imported_compiled(summary, name: str, project) -> bool:
    """The function (or a function of its module it calls) calls by name a compiled function another
    module of the project defines (`from .losses import loss_fn`, `loss_fn` jitted there)."""
    tree = foreign_work._tree_of(summary.path, summary.digest)
    if tree is None:
        return False
    top = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    node = top.get(name)
    if node is None:
        return False
    called = _called_names(node)
    called |= {each for callee in called if callee in top and callee != name for each in _called_names(top[callee])}
    for local in called:
        target = summary.reexports.get(local)
        if target is None or target.startswith(_LIBRARY_PREFIXES) or not project.may_hold(target.partition(".")[0]):
            continue
        function = project.function(target)
        if function is not None and function.transform is not None:
            return True
    return False


def _arguments(node: ast.FunctionDef, args: list, keywords: list, has_self: bool = False) -> dict[str, ast.expr] | None:
    """Parameter -> the argument the call (with the partial's own first) passes it; None when the call
    unpacks `*args`/`**kwargs` or names a parameter twice. A method's `self` is the instance, not an argument."""
    if any(isinstance(a, ast.Starred) for a in args) or any(k.arg is None for k in keywords):
        return None
    positional = [a.arg for a in (*node.args.posonlyargs, *node.args.args)][1 if has_self else 0:]
    names = {*positional, *(a.arg for a in node.args.kwonlyargs)}
    passed: dict[str, ast.expr] = {}
    if len(args) > len(positional) and node.args.vararg is None:
        return None
    for name, value in zip(positional, args):
        passed[name] = value
    for keyword in keywords:
        if keyword.arg in names:
            passed[keyword.arg] = keyword.value  # (a call's keyword overrides what a partial bound)
        elif node.args.kwarg is None:
            return None
    return passed


def _literal(node: ast.expr):
    if isinstance(node, ast.Constant) and isinstance(node.value, (bool, int, float, str, type(None))):
        return node.value
    return _UNKNOWN


class _Present:
    """What a parameter holds where the call hands it a compiled callable: not None, and true."""

    def __repr__(self) -> str:
        return "<a compiled callable>"

    def __bool__(self) -> bool:
        return True


_PRESENT = _Present()


def _fixed_values(node: ast.FunctionDef, passed: dict[str, ast.expr], model) -> dict[str, object]:
    """The parameters an `if` of the body tests whose value the call fixes: to a literal (passed, or the
    default where nothing is passed), or to a compiled callable it hands (`if rollout_fn is not None:`
    with `rollout_fn=jitted_rollout`: present, so the test takes the side a callable takes, and the
    fallback for its absence does not run)."""
    tested = {n.id for statement in walk(node) if isinstance(statement, ast.If) for n in walk(statement.test) if isinstance(n, ast.Name)}
    if not tested:
        return {}
    defaults = parameter_defaults(node.args)
    fixed = {}
    for name in tested:
        if name in passed:
            value = _literal(passed[name])
            if value is _UNKNOWN and isinstance(passed[name], (ast.Name, ast.Attribute)) and model.jit_binding_for_name(passed[name]) is not None:
                value = _PRESENT
        elif name in defaults:
            value = _literal(defaults[name])
        else:
            continue
        if value is not _UNKNOWN:
            fixed[name] = value
    return fixed


def _given_kinds(node: ast.FunctionDef, passed: dict[str, ast.expr], scope, model) -> dict[str, str]:
    """Unannotated parameters the call fills with an object of a modelled kind (`object:<class>`)."""
    from jaxlint.semantic import library_models

    annotated = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs) if a.annotation is not None}
    kinds = {}
    for name, value in passed.items():
        if name in annotated or not isinstance(value, (ast.Name, ast.Attribute)):
            continue
        kind = library_models.value_kind(model, value, scope)
        if kind is not None and kind.startswith("object:"):
            kinds[name] = kind
    return kinds


def _specialised_model(home_model, file: tuple | None, node: ast.FunctionDef, fixed: dict, kinds: dict):
    """(model, def) of a copy of the module whose def `node` keeps only the sides of its `if`s that
    the fixed literals take, and whose parameters hold the given kinds. Remembered per process by
    (path, digest) for another module's, on the caller's own model for its own."""
    store = _specialised if file is not None else home_model.__dict__.setdefault("_specialised_callees", {})
    key = (file, node.name, node.lineno, tuple(sorted((k, repr(v)) for k, v in fixed.items())), tuple(sorted(kinds.items())))
    if key in store:
        return store[key]
    from jaxlint.semantic.model import SemanticModel

    store[key] = None  # (recursion: none while being worked out)
    place = _place_of(home_model.tree, node)
    found = None
    if place is not None:
        # (a copy of the whole module: a model marks the nodes it reads, which the original's model shares not)
        tree = copy.deepcopy(home_model.tree)
        copied = tree.body[place[0]] if len(place) == 1 else tree.body[place[0]].body[place[1]]
        _Pruner(fixed).prune(copied)
        if file is not None:
            specialised = _model_with_view(tree, file[0], home_model.project) if home_model.project is not None else None
        else:
            try:
                specialised = SemanticModel(tree, (), home_model.project)
            except Exception:  # too deep: no answer
                specialised = None
        if specialised is not None:
            scope = specialised.scope_of_node.get(copied)
            if scope is not None:
                specialised.__dict__["_given_parameter_kinds"] = _handed_on_kinds(tree, copied, kinds)
                found = (specialised, copied)
    if len(store) > _MAX_MODELS:
        store.clear()
    store[key] = found
    return found


def _place_of(tree: ast.Module, node: ast.AST) -> tuple | None:
    """(index in the module's body,) of a module-level def, (class index, index in the class body) of a method."""
    for index, statement in enumerate(tree.body):
        if statement is node:
            return (index,)
        if isinstance(statement, ast.ClassDef):
            inner = next((i for i, s in enumerate(statement.body) if s is node), None)
            if inner is not None:
                return (index, inner)
    return None


def _handed_on_kinds(tree: ast.Module, function: ast.FunctionDef, kinds: dict) -> dict:
    """{(id of a def, parameter): kind}: the given kinds of `function`'s parameters, and of the parameters
    of the module's plain functions it hands them on to by name (`apply_update(grads, tx)`), a few calls
    deep. Read only for this call: the copy's other callers of those functions are not asked about."""
    defs = {s.name: s for s in tree.body if isinstance(s, ast.FunctionDef)}
    given = {(id(function), name): kind for name, kind in kinds.items()}
    pending = [(function, kinds, 0)]
    while pending:
        node, held, depth = pending.pop()
        if depth >= 3:
            continue
        for call in walk(node):
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in defs):
                continue
            target = defs[call.func.id]
            if target is function or target is node or not _plain_def(target):
                continue
            passed = _arguments(target, call.args, call.keywords) or {}
            handed = {name: held[value.id] for name, value in passed.items() if isinstance(value, ast.Name) and value.id in held}
            handed = {name: kind for name, kind in handed.items() if (id(target), name) not in given}
            if handed:
                given.update({(id(target), name): kind for name, kind in handed.items()})
                pending.append((target, handed, depth + 1))
    return given


class _Pruner:
    """Replaces each `if` of a function body whose test the fixed literals decide by the side taken."""

    def __init__(self, fixed: dict) -> None:
        self.fixed = fixed

    def prune(self, function: ast.FunctionDef) -> None:
        function.body = self._statements(function.body) or [ast.Pass()]

    def _statements(self, statements: list[ast.stmt]) -> list[ast.stmt]:
        out: list[ast.stmt] = []
        for statement in statements:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.append(statement)  # (a nested def reads its own parameters, maybe the same names)
                continue
            if isinstance(statement, ast.If) and self.fixed:
                side = self._decide(statement.test)
                if side is not None:
                    taken = self._statements(statement.body if side else statement.orelse)
                    out.extend(taken)
                    if taken and isinstance(taken[-1], (ast.Return, ast.Raise)):
                        break  # (`if one_step: return step(...)`: what follows does not run on this side)
                    continue
            for block_name in ("body", "orelse", "finalbody"):
                block = getattr(statement, block_name, None)
                if isinstance(block, list) and block and isinstance(block[0], ast.stmt):
                    setattr(statement, block_name, self._statements(block) or [ast.Pass()])
            if isinstance(statement, ast.Try):
                for handler in statement.handlers:
                    handler.body = self._statements(handler.body) or [ast.Pass()]
            out.append(statement)
        return out

    def _decide(self, test: ast.expr):
        """True / False where the fixed literals decide the test, else None."""
        value = self._value(test)
        if value is _UNKNOWN:
            return None
        try:
            return bool(value)
        except Exception:
            return None

    def _value(self, node: ast.expr):
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.Name):
            return self.fixed.get(node.id, _UNKNOWN)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
            inner = self._value(node.operand)
            return _UNKNOWN if inner is _UNKNOWN else not inner
        if isinstance(node, ast.BoolOp):
            values = [self._value(v) for v in node.values]
            if isinstance(node.op, ast.And):
                if any(v is not _UNKNOWN and not v for v in values):
                    return False
                return _UNKNOWN if any(v is _UNKNOWN for v in values) else True
            if any(v is not _UNKNOWN and v for v in values):
                return True
            return _UNKNOWN if any(v is _UNKNOWN for v in values) else False
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            left, right = self._value(node.left), node.comparators[0]
            if left is _UNKNOWN:
                return _UNKNOWN
            op = node.ops[0]
            if isinstance(op, (ast.In, ast.NotIn)) and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
                items = [self._value(e) for e in right.elts]
                if any(i is _UNKNOWN for i in items):
                    return _UNKNOWN
                return (left in items) == isinstance(op, ast.In)
            other = self._value(right)
            if other is _UNKNOWN:
                return _UNKNOWN
            if isinstance(op, ast.Eq):
                return left == other
            if isinstance(op, ast.NotEq):
                return left != other
            if isinstance(op, ast.Is):
                return left is other if other is None or isinstance(other, bool) else _UNKNOWN
            if isinstance(op, ast.IsNot):
                return left is not other if other is None or isinstance(other, bool) else _UNKNOWN
        return _UNKNOWN


def mentions_work(found: Callee) -> bool:
    """The function, or a function of its module it calls, names a whole computation (an `update`, a
    `grad`, an `apply`, a name bound to one): the cheap test before a specialised copy is modelled."""
    if found.path is not None:
        if found.member is not None:
            return foreign_work._function_mentions(found.path, found.digest, found.name, found.member, foreign_work._WORK_NAMES)
        return foreign_work._function_mentions(found.path, found.digest, found.name, None, foreign_work._WORK_NAMES)
    names = foreign_work._WORK_NAMES | foreign_work._names_bound_to_calls(found.model.tree.body, [], foreign_work._WORK_NAMES)
    called = _called_names(found.scope.node)
    if called & names:
        return True
    return any(isinstance(statement, ast.FunctionDef) and statement.name in called and _called_names(statement) & names
               for statement in found.model.tree.body if statement is not found.scope.node)


def _called_names(node: ast.AST) -> set:
    return {n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None) for n in walk(node) if isinstance(n, ast.Call)}
