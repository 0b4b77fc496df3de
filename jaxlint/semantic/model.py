"""The semantic model of one module: scopes, traced functions, jitted callables, value kinds.

Built once per file from the `ast` tree, then queried by every rule. Precision first: every
question has a "cannot tell" answer, and rules do not flag what the model cannot show.
"""

from __future__ import annotations

import ast
import collections
import dataclasses
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Iterator

from jaxlint.semantic import annotated_classes, framework_methods, jaxapi, jit_disabled, kept_structure, library_models, picked_classes, returned_kinds
from jaxlint.semantic.bindings import FUNCTION_NODES, attribute_values, binding_sites, bound_values, owning_scope
from jaxlint.semantic.host_library_work import hands_to_host_library
from jaxlint.semantic.imports import ImportMap
from jaxlint.semantic.reaching import reaching_binding, reaching_value, reaching_value_outside
from jaxlint.semantic.uncalled_transforms import never_called_transform
from jaxlint.semantic.jit_bindings import PLACEMENT_OPTIONS, JitBinding, TransformUse, _custom_rule_use, _grad_argnums, _static_options, literal_tuple  # noqa: F401 (re-exported)
from jaxlint.semantic.syntax import PARENT, ancestors, is_within, parent_of  # noqa: F401 (re-exported)
from jaxlint.semantic.syntax import passed_to_parameter
from jaxlint.semantic.syntax import argument, bound_names, child_nodes, fresh_child_nodes, keyword_options, parameter_defaults, passed_arguments, root_name, walk  # noqa: F401 (re-exported)
from jaxlint.semantic.values import DeviceValues

# How sure we are that an expression inside traced code is a tracer.
NONE = 0  # static, host, or unknown
TRACED = 1  # traced, but may be a pytree (a dict of arrays is truthy without error)
ARRAY = 2  # definitely an array tracer

FUNCTION_TYPES = frozenset(FUNCTION_NODES)
RECORDED_TYPES = frozenset({
    ast.Assign, ast.AugAssign, ast.AnnAssign, ast.NamedExpr, ast.For, ast.AsyncFor, ast.comprehension,
    ast.withitem, ast.Call, ast.Global, ast.Nonlocal, ast.Import, ast.ImportFrom, ast.ExceptHandler, ast.Return,
    ast.With,
})
# Nodes with no child nodes (besides `ctx`): the collection pass records them without a visit.
LEAF_TYPES = frozenset({
    ast.Name, ast.Constant, ast.Pass, ast.Break, ast.Continue, ast.alias, ast.Global, ast.Nonlocal,
    *(kind for base in (ast.operator, ast.unaryop, ast.cmpop, ast.boolop) for kind in base.__subclasses__()),
})


# Leaves the collection pass only links and lists (the RECORDED_TYPES among them it also records).
_PLAIN_LEAF_TYPES = LEAF_TYPES - RECORDED_TYPES

# The attributes the model sets on every node (`_collect` spells them out, for speed).
_NODE_ATTRIBUTES = attrgetter("__dict__")
SCOPE = "_jaxlint_scope"
_ARRAY_TYPES = frozenset({"jax.numpy.ndarray", "jax.Array", "numpy.ndarray", "jax.core.Tracer"})
# Python scalar types: no tracer is an instance of one (`isinstance(jnp.ones(()), int)` is False).
_SCALAR_TYPES = frozenset({"builtins.int", "builtins.float", "builtins.bool", "builtins.complex", "builtins.str", "builtins.bytes"})


@dataclass(frozen=True)
class ExternalCall:
    """A call from traced code to a function another module defines, as the caller saw it."""

    qualified: str  # the callee as the caller's imports name it: `pkg.models.layers.act`
    positional: tuple[int, ...]  # the level of each positional argument, up to the first `*args`
    keywords: tuple[tuple[str, int], ...]  # (name, level) of each keyword argument
    abstract: bool  # the calling code is traced abstractly (jit, vmap, lax), not by autodiff alone
    differentiated: bool


# Top-level packages whose functions are never a project's own (exported_calls skips them).
_EXTERNAL_ROOTS = frozenset({"builtins", "jax", "jaxlib", "flax", "numpy", "optax", "equinox", "haiku", "chex", "scipy", "functools", "math"})


@dataclass(eq=False)
class Scope:
    """A module, function or lambda body, with what the analyses need from it."""

    node: ast.AST
    parent: "Scope | None"
    class_node: ast.ClassDef | None = None
    children: list["Scope"] = field(default_factory=list)
    defs: dict[str, "Scope | None"] = field(default_factory=dict)
    bindings: list[tuple[ast.AST, ast.AST | None]] = field(default_factory=list)
    loops: list[tuple[ast.AST, ast.AST]] = field(default_factory=list)  # (target, iter)
    calls: list[ast.Call] = field(default_factory=list)
    returns: list[ast.expr] = field(default_factory=list)
    returns_traced: int = 0  # the highest level any `return` of this (traced) function yields
    # Per position, when every `return` is a tuple of one length (`return x, x.shape[0]`).
    returns_by_position: tuple[int, ...] | None = None
    local_names: set[str] = field(default_factory=set)
    imported_names: set[str] = field(default_factory=set)  # of local_names, those an import binds
    declared_free: set[str] = field(default_factory=set)
    params: list[str] = field(default_factory=list)  # positional, in order, self excluded for methods
    keyword_params: set[str] = field(default_factory=set)
    param_nodes: dict[str, ast.arg] = field(default_factory=dict)
    has_self: bool = False
    # Filled by the tracing analysis:
    traced: bool = False
    host_callback: bool = False  # the target of `jax.debug.callback`/`io_callback`/`pure_callback`
    transforms: set[str] = field(default_factory=set)
    traced_params: dict[str, int] = field(default_factory=dict)
    # Keywords that every traced entry binds with functools.partial (None: no traced entry yet).
    bound_when_traced: set[str] | None = None
    differentiated: bool = False
    # The parameters the differentiating transforms applied to this function differentiate with
    # respect to (`value_and_grad(f, argnums=0)`: the first); None when that is not known, or when
    # the function is differentiated as a helper of differentiated code (any parameter may be).
    differentiated_wrt: set[str] | None = field(default_factory=set)
    levels: dict[str, int] = field(default_factory=dict)
    # Where the tracing comes from, to tell abstract tracing (jit, vmap, lax bodies: values unknown)
    # from autodiff alone (`jax.grad(f)(x)` outside jit: values concrete, Python control flow works).
    abstract_transform: bool = False
    trace_sites: list["Scope | None"] = field(default_factory=list)  # scopes holding the transform call
    helper_callers: list["Scope"] = field(default_factory=list)  # traced scopes passing it traced values
    # `in_traced`, fixed once the model is built (no scope is marked traced after that): the engine
    # and the rules ask it for nearly every node. None while the model is still marking scopes.
    frozen_in_traced: bool | None = None

    @property
    def name(self) -> str:
        return getattr(self.node, "name", "<lambda>" if isinstance(self.node, ast.Lambda) else "<module>")

    @property
    def is_function(self) -> bool:
        return isinstance(self.node, FUNCTION_NODES)

    def enclosing_method(self) -> "Scope | None":
        """This scope, or the nearest scope around it, that is a method of a class (its `class_node`
        set): where `self` in a nested function or lambda comes from. None outside any method."""
        scope: Scope | None = self
        while scope is not None and scope.class_node is None:
            scope = scope.parent
        return scope

    @property
    def in_traced(self) -> bool:
        frozen = self.frozen_in_traced
        if frozen is not None:
            return frozen
        scope: Scope | None = self
        while scope is not None:
            if scope.host_callback:
                return False  # `jax.debug.callback(f, ...)`: f runs on the host, with concrete values
            if scope.traced:
                return True
            scope = scope.parent
        return False

    def all_params(self) -> list[str]:
        return [*self.params, *sorted(self.keyword_params)]


_CUSTOM_DIFFERENTIATION = frozenset({"jax.custom_vjp", "jax.custom_jvp"})
_FILTERED_CUSTOM = frozenset({"equinox.filter_custom_vjp", "equinox.filter_custom_jvp"})
_JAXTYPING_DTYPES = ("jaxtyping.Float", "jaxtyping.Int", "jaxtyping.Bool", "jaxtyping.Shaped", "jaxtyping.Num", "jaxtyping.Real",
                     "jaxtyping.Inexact", "jaxtyping.Integer", "jaxtyping.Complex")


_COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)


def _comprehension_binding(name: ast.Name) -> ast.comprehension | None:
    """The generator of an enclosing comprehension whose target binds this name, if any."""
    current = parent_of(name)
    while current is not None and not isinstance(current, ast.stmt):
        if isinstance(current, _COMPREHENSIONS):
            for generator in current.generators:
                if any(isinstance(n, ast.Name) and n.id == name.id for n in walk(generator.target)):
                    return generator
        current = parent_of(current)
    return None


_SHARD_MAPS = frozenset({"jax.shard_map", "jax.experimental.shard_map.shard_map", "flax.nnx.shard_map"})


def _reads_only_static_attributes(function: ast.AST) -> bool:
    """A lambda whose body reads its parameters only through attributes known at trace time
    (`lambda x: x.shape[1:]`, `lambda x: x.ndim`) or `len(x)`: its results are Python values."""
    if not isinstance(function, ast.Lambda):
        return False
    params = {a.arg for a in (*function.args.posonlyargs, *function.args.args)}
    if not params:
        return False
    for node in walk(function.body):
        if isinstance(node, ast.Name) and node.id in params:
            parent = parent_of(node)
            static = isinstance(parent, ast.Attribute) and parent.attr in jaxapi.STATIC_ATTRIBUTES
            measured = isinstance(parent, ast.Call) and isinstance(parent.func, ast.Name) and parent.func.id == "len"
            if not (static or measured):
                return False
    return True


class _QualifiedNames(dict):
    """node -> its qualified name (or None), resolved from the module's imports on first lookup.

    An import is a module-level binding: a function that binds the same name otherwise (a parameter
    `time`, a local `grad = ...`) reads its own value there, and the name means nothing known. A
    class body's names (a field `time: float`, a method `def grad(self)`) are not visible in the
    methods, and do not shadow it."""

    def __init__(self, imports: ImportMap, shadowing: frozenset[str]) -> None:
        super().__init__()
        self.imports = imports
        self.shadowing = shadowing  # names some function binds other than by import
        # (function scope, name) -> what the function binds the name to, once: `unreplicate =
        # flax.jax_utils.unreplicate` in a function body resolves as an import would there.
        self.local_aliases: dict[tuple[int, str], str] = {}

    def __missing__(self, node: ast.AST) -> str | None:
        name = self.imports.qualified_name(node)
        if name is not None and self.shadowing:
            root = node
            while root.__class__ is ast.Attribute:
                root = root.value
            if root.__class__ is ast.Name and root.id in self.shadowing and _bound_in_function(root):
                name = None
        if name is None and self.local_aliases:
            name = self._local_alias(node)
        self[node] = name
        return name

    def _local_alias(self, node: ast.AST) -> str | None:
        parts: list[str] = []
        root = node
        while root.__class__ is ast.Attribute:
            parts.append(root.attr)
            root = root.value
        if root.__class__ is not ast.Name or not isinstance(root.ctx, ast.Load):
            return None
        scope = getattr(root, SCOPE, None)
        while scope is not None and scope.parent is not None:
            if root.id in scope.local_names:
                base = self.local_aliases.get((id(scope), root.id))
                if base is None:
                    return None
                return ".".join([base, *reversed(parts)])
            scope = scope.parent
        return None


def _in_class_body(node: ast.AST) -> bool:
    """Whether `node` sits in a class body, outside any function of it."""
    current = parent_of(node)
    while current is not None and current.__class__ is not ast.Module:
        if current.__class__ is ast.ClassDef:
            return True
        if current.__class__ in (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda):
            return False
        current = parent_of(current)
    return False


def _bound_in_function(name: ast.Name) -> bool:
    """Whether a function around `name` binds it other than by an import."""
    scope = getattr(name, SCOPE, None)
    while scope is not None and scope.parent is not None:
        if name.id in scope.local_names and name.id not in scope.imported_names and name.id not in scope.declared_free:
            return True
        scope = scope.parent
    return False


# instance_class's answer for a name bound to instances of different classes: each read's own.
_BY_READ = object()


# Haiku's transforms: `f` runs inside `apply` and `init` (semantic/model.py, `_mark_haiku_transformed`).
_HAIKU_TRANSFORMS = frozenset({"haiku.transform", "haiku.transform_with_state"})
# Transforms whose result takes the arguments its function takes, in the same places.
_PASSING_TRANSFORMS = frozenset({"jax.jit", "jax.pmap", "jax.vmap"})


class SemanticModel(DeviceValues):
    def __init__(self, tree: ast.Module, traced_decorators: tuple[str, ...] = (), project=None) -> None:
        self.tree = tree
        self.extra_traced = frozenset(traced_decorators)
        # The rest of the project as this file sees it (semantic/project.py), or None.
        self.project = project
        self.nodes: list[ast.AST] = []
        self.import_nodes: list[ast.AST] = []
        self.with_statements: list[ast.With] = []
        self.bound_names: set[str] = set()
        self.scopes: list[Scope] = []
        self.scope_of_node: dict[ast.AST, Scope] = {}
        self.class_methods: dict[ast.ClassDef, dict[str, Scope]] = {}
        self.jit_bindings: dict[str, JitBinding] = {}  # keys bound exactly once
        self.jit_binding_lists: dict[str, list[JitBinding]] = {}  # every binding of each key
        self.module_scope = Scope(tree, None)
        self._collect()
        module_bound = self._module_level_names()
        self.imports = ImportMap(self.import_nodes, self.bound_names, project, module_bound=module_bound)
        self._qualified_cache = _QualifiedNames(self.imports, frozenset(self.bound_names - module_bound))
        self.qualified_name = self._qualified_cache.__getitem__  # type: ignore[method-assign]
        self._bind_module_aliases()
        self._bind_local_aliases()
        self._fun_by_keyword()
        self._constants = None
        self._uncalled_transforms: list[tuple[ast.Call, Scope]] = []
        self._find_traced_functions()
        self._mark_forward_passes()
        self._find_host_callbacks()
        self._find_jit_bindings()
        self._propagate()
        if self._uncalled_transforms and self._mark_uncalled_transforms():
            self._propagate()
        self._abstract = self._abstractly_traced()
        self._exported_calls: tuple | None = None
        if project is not None and project.find_callers:
            self._trace_from_importers()
        self._device_cache: dict[Scope, dict[str, bool]] = {}
        for scope in self.scopes:
            scope.frozen_in_traced = scope.in_traced
        # Whether any code here is traced: rules that report only in traced code skip the module if not.
        self.has_traced_code = any(scope.frozen_in_traced for scope in self.scopes)

    def _module_level_names(self) -> set[str]:
        """Names the module binds at its own level other than by import: assignments, loop targets,
        functions and classes, not those of class bodies (fields and methods), which class scope keeps."""
        names: set[str] = set()
        for target, _ in (*self.module_scope.bindings, *self.module_scope.loops):
            if not _in_class_body(target):
                names.update(bound_names(target))
        for scope in self.module_scope.children:
            if isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)) and scope.class_node is None and not _in_class_body(scope.node):
                names.add(scope.node.name)
        for class_node in self.class_methods:
            if getattr(class_node, SCOPE, None) is self.module_scope and not _in_class_body(class_node):
                names.add(class_node.name)
        return names

    def _bind_module_aliases(self) -> None:
        """Module-level `partial = functools.partial`, bound nowhere else, resolves like an import."""
        counts: dict[str, int] = {}
        for target, _ in self.module_scope.bindings:
            if isinstance(target, ast.Name):
                counts[target.id] = counts.get(target.id, 0) + 1
        for target, value in self.module_scope.bindings:
            if (
                isinstance(target, ast.Name) and isinstance(value, ast.Attribute) and counts[target.id] == 1
                and target.id not in self.module_scope.defs
                and not any(target.id in scope.local_names for scope in self.scopes if scope is not self.module_scope)
            ):
                self.imports.bind_module_alias(target.id, value)

    def _bind_local_aliases(self) -> None:
        """A function's `unreplicate = flax.jax_utils.unreplicate` (a name the function binds once, to a
        dotted name the module's imports resolve, and never as a parameter, a loop target or a def)
        resolves like an import inside that function and the functions nested in it that do not
        bind the name themselves."""
        aliases = self._qualified_cache.local_aliases
        for scope in self.scopes:
            if scope is self.module_scope or not scope.bindings:
                continue
            counts: dict[str, int] = {}
            for target, _ in scope.bindings:
                for element in walk(target):
                    if isinstance(element, ast.Name):
                        counts[element.id] = counts.get(element.id, 0) + 1
            for target, _ in scope.loops:
                for element in walk(target):
                    if isinstance(element, ast.Name):
                        counts[element.id] = counts.get(element.id, 0) + 2
            for target, value in scope.bindings:
                if not (
                    isinstance(target, ast.Name) and isinstance(value, ast.Attribute) and counts.get(target.id) == 1
                    and target.id not in scope.param_nodes and target.id not in scope.defs
                    and target.id not in scope.declared_free and target.id not in scope.imported_names
                ):
                    continue
                qualified = self.qualified_name(value)
                if qualified is not None:
                    aliases[(id(scope), target.id)] = qualified

    def release(self) -> None:
        """Break the reference cycles of a model that is done with: parent and scope links on every
        node, scopes that point at each other, caches. Reference counting then frees the tree and
        the model at once, instead of the cycle collector finding them later, after traversing
        them again and again while they wait (a tenth of a cold check's time, and most of its
        memory). Neither the model nor its tree may be used afterwards: the nodes are emptied."""
        # The tree goes with the model: emptying every node's attributes (its fields, parent and
        # scope links) in a loop that runs in C breaks every cycle, and leaves nothing for the
        # deallocation to walk. This touches every node of every file, and replaces what would
        # otherwise be two passes (unlinking parents, then freeing the tree node by node).
        # (Operator nodes are shared singletons, listed many times, with no fields of their own.)
        collections.deque(map(dict.clear, map(_NODE_ATTRIBUTES, self.nodes)), maxlen=0)
        self.tree.__dict__.clear()
        for scope in self.scopes:
            scope.__dict__.clear()
        self.__dict__.clear()

    # ----- collection -------------------------------------------------------------------------

    def _collect(self) -> None:
        """One pass over the tree: parent links, scopes, bindings, calls, imports, and the node list
        the engine dispatches from (so nothing walks the tree twice)."""
        self.scopes.append(self.module_scope)
        self.scope_of_node[self.tree] = self.module_scope
        append = self.nodes.append
        record = self._record
        # (node, scope its children belong to, class whose body holds the node's children or None)
        stack: list[tuple[ast.AST, Scope, ast.ClassDef | None]] = [(self.tree, self.module_scope, None)]
        while stack:
            node, scope, class_node = stack.pop()
            children = node._jaxlint_children = fresh_child_nodes(node)  # CHILDREN, kept for later walks
            for child in children:
                # PARENT and SCOPE, spelled out: an attribute store is faster than setattr, and this
                # runs for every node of every file.
                child._jaxlint_parent = node
                child._jaxlint_scope = scope
                append(child)
                kind = child.__class__
                if kind in _PLAIN_LEAF_TYPES:
                    continue  # names, constants, operators: half the nodes
                if kind in FUNCTION_TYPES:
                    self._enter_function(child, scope, class_node, stack)
                elif kind is ast.ClassDef:
                    scope.local_names.add(child.name)
                    self.bound_names.add(child.name)
                    self.class_methods.setdefault(child, {})
                    stack.append((child, scope, child))
                else:
                    if kind in RECORDED_TYPES:
                        record(child, scope)
                    if kind not in LEAF_TYPES:
                        stack.append((child, scope, None))

    def _enter_function(self, node: ast.AST, outer: Scope, class_node: ast.ClassDef | None, stack) -> None:
        is_method = class_node is not None and node.__class__ is not ast.Lambda
        scope = Scope(node, outer, class_node=class_node if is_method else None)
        outer.children.append(scope)
        self.scopes.append(scope)
        self.scope_of_node[node] = scope
        arguments: ast.arguments = node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        if is_method and positional and not self._is_staticmethod(node):
            scope.has_self = True
            positional = positional[1:]
        scope.params = [arg.arg for arg in positional]
        scope.keyword_params = {arg.arg for arg in arguments.kwonlyargs}
        for arg in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg):
            if arg is not None:
                scope.param_nodes[arg.arg] = arg
                scope.local_names.add(arg.arg)
                self.bound_names.add(arg.arg)
        body_ids = {id(node.body)} if node.__class__ is ast.Lambda else {id(statement) for statement in node.body}
        if node.__class__ is not ast.Lambda:
            outer.local_names.add(node.name)
            self.bound_names.add(node.name)
            if is_method:
                self.class_methods[class_node][node.name] = scope
            else:
                # Two defs of one name in a scope: we cannot tell which one a call reaches.
                outer.defs[node.name] = None if node.name in outer.defs else scope
        children = node._jaxlint_children = fresh_child_nodes(node)  # CHILDREN
        for child in children:
            child._jaxlint_parent = node  # PARENT
            self.nodes.append(child)
            # The body runs in the new scope; decorators, defaults and annotations in the enclosing one.
            owner = scope if id(child) in body_ids else outer
            child._jaxlint_scope = owner  # SCOPE
            kind = child.__class__
            if kind in FUNCTION_TYPES:
                self._enter_function(child, owner, None, stack)
            elif kind is ast.ClassDef:
                owner.local_names.add(child.name)
                self.bound_names.add(child.name)
                self.class_methods.setdefault(child, {})
                stack.append((child, owner, child))
            else:
                if kind in RECORDED_TYPES:
                    self._record(child, owner)
                if kind not in LEAF_TYPES:
                    stack.append((child, owner, None))

    def _is_staticmethod(self, node: ast.AST) -> bool:
        for decorator in getattr(node, "decorator_list", ()):
            if isinstance(decorator, ast.Name) and decorator.id in ("staticmethod", "classmethod"):
                return decorator.id == "staticmethod"
        return False

    def _record(self, node: ast.AST, scope: Scope) -> None:
        if node.__class__ is ast.Call:  # the commonest recorded node by far: tested first
            scope.calls.append(node)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                scope.bindings.append((target, node.value))
                self._add_targets(target, scope)
        elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
            scope.bindings.append((node.target, node.value if not isinstance(node, ast.AugAssign) else node))
            self._add_targets(node.target, scope)
        elif isinstance(node, ast.NamedExpr):
            scope.bindings.append((node.target, node.value))
            self._add_targets(node.target, scope)
        elif isinstance(node, (ast.For, ast.AsyncFor, ast.comprehension)):
            scope.loops.append((node.target, node.iter))
            self._add_targets(node.target, scope)
        elif isinstance(node, ast.withitem) and node.optional_vars is not None:
            scope.bindings.append((node.optional_vars, None))
            self._add_targets(node.optional_vars, scope)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            scope.declared_free.update(node.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            self.import_nodes.append(node)
            for alias in node.names:
                scope.local_names.add((alias.asname or alias.name).split(".")[0])
                scope.imported_names.add((alias.asname or alias.name).split(".")[0])
        elif isinstance(node, ast.Return):
            if node.value is not None:
                scope.returns.append(node.value)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            scope.local_names.add(node.name)
        elif node.__class__ is ast.With:
            self.with_statements.append(node)

    def _add_targets(self, target: ast.AST, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            scope.local_names.add(target.id)
            self.bound_names.add(target.id)
        elif isinstance(target, (ast.Tuple, ast.List)):
            for element in target.elts:
                self._add_targets(element, scope)
        elif isinstance(target, ast.Starred):
            self._add_targets(target.value, scope)

    # ----- name and function resolution -------------------------------------------------------

    def qualified_name(self, node: ast.AST) -> str | None:
        """`jnp.where` -> `jax.numpy.where` (see ImportMap.qualified_name), memoised per node.

        Once the imports are read, `__init__` replaces this method on the instance with the lookup
        of the memo itself (`_QualifiedNames`), which costs no Python call for a known node: rules
        ask it for nearly every call of every module."""
        return self._qualified_cache[node]

    def scope_for(self, node: ast.AST) -> Scope:
        """The innermost function (or the module) whose body contains `node`."""
        scope = getattr(node, SCOPE, None)
        if scope is not None:
            return scope
        current = parent_of(node)
        while current is not None:
            scope = getattr(current, SCOPE, None)
            if scope is not None:
                return scope
            current = parent_of(current)
        return self.module_scope

    def resolve_function(self, node: ast.AST, scope: Scope) -> tuple[Scope, int, set[str]] | None:
        """The local function an expression refers to: a name, a lambda, `self.method`, `partial(f, ...)`.

        Returns (scope, positional arguments bound by partial, keywords bound by partial).
        """
        if isinstance(node, ast.Lambda):
            return self.scope_of_node.get(node), 0, set()
        if isinstance(node, ast.Name):
            reaching = _reaching_module_function(self, node, scope)
            if reaching is not _UNDECIDED:
                return reaching
            current: Scope | None = scope
            while current is not None:
                if node.id in current.defs:
                    found = current.defs[node.id]
                    if found is None:
                        # Read from a lambda of this statement (`timeit(lambda: f(x))`, `grad(lambda p:
                        # f(p, x))`): a lambda runs where it is made, so the def above that statement.
                        found = _reaching_def(node, current) if _only_lambdas_between(scope, current) else None
                    if found is None:
                        return None
                    if current is self.module_scope and node.id in _module_assigned(self):
                        lambda_scope = _reaching_lambda(self, node)
                        if lambda_scope is not None:
                            return lambda_scope, 0, set()
                    rebound = _partial_rebinding(node, current, self) if current is scope else None
                    if rebound is not None:
                        return found, len(rebound.args) - 1, _partial_keywords(rebound, found)
                    return found, 0, set()
                if node.id in current.local_names:
                    if current is self.module_scope:
                        alias = _module_alias(self, node.id)
                        if alias is not None:
                            return self.resolve_function(alias, current)  # `g = f` at the top level: `g` is `f`
                    return None  # bound to something other than a def in this scope
                current = current.parent
            return None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"):
            method_scope = scope.enclosing_method()
            if method_scope is None:
                return None
            found = self.class_methods.get(method_scope.class_node, {}).get(node.attr)
            return (found, 0, set()) if found is not None else None
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            # `Trainer.step` read through a class of this module: a static method is that function,
            # its parameters the call's own (a plain method read so would take the object first).
            owner = self._constructed_class(node.value)
            found = self.class_methods.get(owner, {}).get(node.attr) if isinstance(owner, ast.ClassDef) else None
            return (found, 0, set()) if found is not None and not found.has_self and self._is_staticmethod(found.node) else None
        if isinstance(node, ast.Call) and self.qualified_name(node.func) == "functools.partial" and node.args:
            inner = self.resolve_function(node.args[0], scope)
            if inner is None:
                return None
            target, bound, keywords = inner
            return target, bound + len(node.args) - 1, keywords | _partial_keywords(node, target)
        return None

    def possible_functions(self, node: ast.AST, scope: Scope) -> list[Scope]:
        """Every local function a callable expression may run: the one `resolve_function` finds, or,
        for a module-level name that different runs of the reading function see bound to different
        functions (a notebook redefining `accuracy` between two runs of a training function that
        calls it), each of them; [] where none is known."""
        resolved = self.resolve_function(node, scope)
        if resolved is not None:
            return [resolved[0]]
        return list(self.__dict__.get("_several_reaching_functions", {}).get(id(node), ()))

    def factory_closure(self, node: ast.AST, scope: Scope) -> Scope | None:
        """The local def a name holds when it is bound, once, to what a function of the module
        returns and that function returns one def of its own there: `init, apply = make_layer(3)`
        with `def make_layer(w): def init(...): ...; def apply(...): ...; return init, apply`, or
        `score = make_scorer(2.0)` returning `score`. Called from traced code, that def is traced
        as a helper, as a def called by name is."""
        if not isinstance(node, ast.Name):
            return None
        cache = self.__dict__.setdefault("_factory_closures", {})
        key = (id(node), id(scope))
        if key in cache:
            return cache[key]
        cache[key] = None  # (recursion: none while being worked out)
        owner = owning_scope(self, node.id, scope)
        if owner is None or node.id in owner.defs or node.id in owner.param_nodes:
            return None
        bound = [(target, value) for target, value in owner.bindings if node.id in bound_names(target)]
        if len(bound) != 1 or any(node.id in bound_names(target) for target, _ in owner.loops):
            return None
        target, value = bound[0]
        if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
            return None
        if isinstance(target, ast.Name):
            position = None
        elif isinstance(target, (ast.Tuple, ast.List)) and all(isinstance(e, ast.Name) for e in target.elts):
            position = next(i for i, e in enumerate(target.elts) if e.id == node.id)
        else:
            return None
        resolved = self.resolve_function(value.func, owner)
        factory = resolved[0] if resolved is not None else None
        if factory is None or not factory.is_function or not factory.returns or factory.transforms & jaxapi.COMPILING:
            return None
        found: set[int] = set()
        closure = None
        for returned in factory.returns:
            if position is not None:
                if not isinstance(returned, (ast.Tuple, ast.List)) or len(returned.elts) != len(target.elts):
                    return None
                returned = returned.elts[position]
            if not isinstance(returned, ast.Name) or returned.id not in factory.defs:
                return None
            closure = factory.defs[returned.id]
            if closure is None:
                return None
            found.add(id(closure))
        if len(found) != 1:
            return None
        cache[key] = closure
        return closure

    def transform_of(self, node: ast.AST) -> str | None:
        """The transform a callable expression names, if any: `jax.jit`, `jax.vmap`, ..."""
        qualified = self.qualified_name(node)
        if qualified is None:
            if isinstance(node, ast.Name) and node.id in self.extra_traced:
                return "jax.jit"
            return None
        if qualified in self.extra_traced:
            return "jax.jit"
        if (
            qualified in jaxapi.JIT_LIKE or qualified in jaxapi.VMAP_LIKE or qualified in jaxapi.GRAD_LIKE
            or qualified in jaxapi.FILTERED or qualified in jaxapi.FILTERED_GRAD
        ):
            return qualified
        return None

    def _fun_by_keyword(self) -> None:
        """`jax.jit(fun=f, ...)`: the keyword spelling of the wrapped function is read as the positional
        one (`jax.jit(f, ...)`), so every reader of a transform's first argument sees it."""
        for node in self.nodes:
            if node.__class__ is ast.Call and not node.args and node.keywords:
                fun = next((k for k in node.keywords if k.arg == "fun"), None)
                if fun is not None and self.transform_of(node.func) in jaxapi.COMPILING:
                    node.args = [fun.value]
                    node.keywords = [k for k in node.keywords if k is not fun]

    def decorator_transform(self, decorator: ast.expr) -> TransformUse | None:
        """`@jax.jit`, `@jax.jit(static_argnames=...)`, `@partial(jax.jit, static_argnums=...)`."""
        transform = self.transform_of(decorator)
        if transform is not None:
            return TransformUse(transform, {})
        if not isinstance(decorator, ast.Call):
            return None
        transform = self.transform_of(decorator.func)
        if transform is not None and not decorator.args:
            return TransformUse(transform, keyword_options(decorator))
        if self.qualified_name(decorator.func) == "functools.partial" and decorator.args:
            transform = self.transform_of(decorator.args[0])
            if transform is not None:
                return TransformUse(transform, keyword_options(decorator), list(decorator.args[1:]))
        return None

    def transform_over_descriptor(self, node: ast.AST) -> tuple[ast.expr, TransformUse, str] | None:
        """`@jax.jit` written above `@staticmethod` (or `@classmethod`): decorators apply bottom-up, so
        the transform receives the descriptor object, not a function, and JAX raises a `TypeError`
        when the class body runs. The first such (decorator, transform, descriptor name); None when
        the descriptor is outermost or there is none."""
        decorators = getattr(node, "decorator_list", ())
        for index, decorator in enumerate(decorators):
            use = self.decorator_transform(decorator)
            if use is None:
                continue
            for below in decorators[index + 1:]:
                if isinstance(below, ast.Name) and below.id in ("staticmethod", "classmethod") and below.id not in self.bound_names:
                    return decorator, use, below.id
        return None

    # ----- traced functions ------------------------------------------------------------------

    def _find_traced_functions(self) -> None:
        for scope in self.scopes:
            for decorator in getattr(scope.node, "decorator_list", ()):
                use = self.decorator_transform(decorator)
                if use is not None:
                    use.counts_self = scope.has_self
                    self._mark_traced(scope, use, 0, set())
                elif isinstance(decorator, ast.Attribute) and decorator.attr in ("defjvp", "def_fwd", "def_bwd") and scope.parent is not None:
                    # `@f.defjvp def f_jvp(...)`: the rule is traced whenever `f` is differentiated.
                    # Only for a primal known to be `jax.custom_jvp`/`custom_vjp`: Equinox's filtered
                    # versions pass non-array arguments through as Python values.
                    if self._filtered_custom(decorator.value, scope.parent):
                        self._mark_traced(scope, TransformUse("equinox.filter_jit", {}), 0, set())
                        continue
                    nondiff = self._nondiff_argnums(decorator.value, scope.parent)
                    if nondiff is not None:
                        self._mark_traced(scope, _custom_rule_use(decorator.attr, 0, nondiff), 0, set())
        for scope in self.scopes:
            for call in scope.calls:
                self._transform_call(call, scope)

    def _mark_forward_passes(self) -> None:
        """Forward passes of this module's linen/Haiku classes, run by a step of another module, and
        NumPyro models, run by its inference (semantic/framework_methods.py): traced; a forward
        pass's inputs are tracers, a model's parameters are not."""
        for scope, inputs in framework_methods.forward_passes(self):
            scope.traced = True
            scope.abstract_transform = True
            scope.transforms.add(framework_methods.FORWARD_PASS)
            scope.bound_when_traced = set()
            for name, level in inputs.items():
                if level > scope.traced_params.get(name, NONE):
                    scope.traced_params[name] = level
        for scope in framework_methods.probabilistic_models(self):
            scope.traced = True
            scope.abstract_transform = True
            scope.transforms.add(framework_methods.PROBABILISTIC_MODEL)
            scope.bound_when_traced = set()

    def _find_host_callbacks(self) -> None:
        for scope in self.scopes:
            for call in scope.calls:
                if call.args and self.qualified_name(call.func) in jaxapi.HOST_CALLBACKS:
                    resolved = self.resolve_function(call.args[0], scope)
                    if resolved is not None:
                        resolved[0].host_callback = True

    def _transform_call(self, call: ast.Call, scope: Scope) -> None:
        qualified = self.qualified_name(call.func)
        if qualified in jaxapi.LAX_BODIES:
            for position in jaxapi.LAX_BODIES[qualified]:
                body = argument(call, position, jaxapi.LAX_BODY_KEYWORDS[qualified].get(position))
                if body is not None:
                    self._mark_expression(body, scope, TransformUse(qualified, {}, arity=_body_arity(qualified, call)))
            return
        if qualified in jaxapi.LAX_BRANCH_LISTS:
            branches = argument(call, jaxapi.LAX_BRANCH_LISTS[qualified], "branches")
            if isinstance(branches, (ast.List, ast.Tuple)):
                for branch in branches.elts:
                    self._mark_expression(branch, scope, TransformUse(qualified, {}, arity=_body_arity(qualified, call)))
            return
        if isinstance(call.func, ast.Attribute) and call.func.attr in ("defvjp", "defjvp", "defjvps", "def_fwd", "def_bwd"):
            self._mark_custom_rules(call, scope)
            return
        transform = self.transform_of(call.func)
        if transform is None or not call.args:
            return
        outermost = call
        while True:
            outer = parent_of(outermost)
            if not (isinstance(outer, ast.Call) and outer.args and outer.args[0] is outermost and self.transform_of(outer.func) is not None):
                break
            outermost = outer
        if self.transform_of(outermost.func) in jaxapi.COMPILING and never_called_transform(outermost, self):
            # `encode_jit = jax.jit(encode)` and `encode_jit` never read: no call hands it a value.
            # Asked once the live tracing is known (_mark_uncalled_transforms), with the transforms
            # it wraps (`jax.jit(jax.vmap(f))`).
            if outermost is call:
                self._uncalled_transforms.append((call, scope))
            return
        use = TransformUse(transform, keyword_options(call), list(call.args[1:]))
        self._mark_expression(call.args[0], scope, use)

    def _mark_uncalled_transforms(self) -> bool:
        """A compiled callable nothing calls (semantic/uncalled_transforms.py) traces its function only
        where no traced caller reaches that function: then it stands for how the author means the
        function to be compiled (its loops unroll, its parameters are tracers, a latent error of its
        own body shows where it is written), as before. Where traced callers pass it values, they
        decide what its parameters are (a size every called `jit` holds static stays a Python value,
        in the function and in the helpers it hands the size to). True when something was marked."""
        marked = False
        for call, scope in self._uncalled_transforms:
            function = call.args[0]
            while isinstance(function, ast.Call) and function.args and self.transform_of(function.func) is not None:
                function = function.args[0]
            resolved = self.resolve_function(function, scope)
            if resolved is not None and resolved[0] is not None and resolved[0].helper_callers:
                continue
            self._mark_expression(call.args[0], scope, TransformUse(self.transform_of(call.func), keyword_options(call), list(call.args[1:])))
            marked = True
        return marked

    def _mark_custom_rules(self, call: ast.Call, scope: Scope) -> None:
        """`f.defvjp(fwd, bwd)`, `f.defjvp(jvp)`: JAX calls the rules with the primal's `nondiff_argnums`
        as plain Python values, first in `bwd` and `jvp`, which get exactly two more arguments (residuals
        and cotangents; primals and tangents), so their later defaults are never filled."""
        if self._filtered_custom(call.func.value, scope):
            for rule in call.args:
                self._mark_expression(rule, scope, TransformUse("equinox.filter_jit", {}))
            return
        nondiff = self._nondiff_argnums(call.func.value, scope)
        for index, rule in enumerate(call.args):
            self._mark_expression(rule, scope, _custom_rule_use(call.func.attr, index, nondiff))

    def _filtered_custom(self, primal: ast.expr, scope: Scope) -> bool:
        """`@eqx.filter_custom_vjp`/`filter_custom_jvp`: like Equinox's other filtered transforms, its
        rules get non-array arguments (numbers, flags, axis objects) as Python values."""
        resolved = self.resolve_function(primal, scope) if isinstance(primal, ast.Name) else None
        if resolved is None:
            return False
        return any(
            (self.qualified_name(d.func if isinstance(d, ast.Call) else d) or "") in _FILTERED_CUSTOM
            for d in getattr(resolved[0].node, "decorator_list", ())
        )

    def _nondiff_argnums(self, primal: ast.expr, scope: Scope) -> tuple[int, ...] | None:
        """The `nondiff_argnums` of a `jax.custom_vjp`/`custom_jvp` function (() when it has none); None
        when the primal cannot be found."""
        if not isinstance(primal, ast.Name):
            return None
        options = None
        resolved = self.resolve_function(primal, scope)
        if resolved is not None:
            for decorator in getattr(resolved[0].node, "decorator_list", ()):
                use = self.decorator_transform(decorator)
                if use is not None and use.qualified in ("jax.custom_vjp", "jax.custom_jvp"):
                    options = use.options
        holder: Scope | None = scope
        while options is None and holder is not None:  # `f = jax.custom_vjp(g, nondiff_argnums=...)`
            for target, value in holder.bindings:
                if isinstance(target, ast.Name) and target.id == primal.id and isinstance(value, ast.Call):
                    if self.transform_of(value.func) in ("jax.custom_vjp", "jax.custom_jvp"):
                        options = keyword_options(value)
            holder = holder.parent
        if options is None:
            return None
        if "nondiff_argnames" in options:
            names = literal_tuple(options["nondiff_argnames"])
            if resolved is None or names is None or "nondiff_argnums" in options:
                return None
            params = resolved[0].params
            if not all(name in params for name in names):
                return None
            return tuple(sorted(params.index(name) for name in names))
        if "nondiff_argnums" not in options:
            return ()
        numbers = literal_tuple(options["nondiff_argnums"])
        if numbers is None or not all(isinstance(n, int) and n >= 0 for n in numbers):
            return None
        return tuple(sorted(numbers))

    def _mark_expression(self, node: ast.expr, scope: Scope, use: TransformUse) -> None:
        if isinstance(node, ast.Call):
            inner = self.transform_of(node.func)
            if inner is not None and node.args:
                # jax.jit(jax.grad(f)): f is traced by every transform around it.
                self._mark_expression(node.args[0], scope, TransformUse(inner, keyword_options(node), list(node.args[1:])))
                if inner in jaxapi.DIFFERENTIATING or use.qualified in jaxapi.JIT_LIKE:
                    self._mark_expression(node.args[0], scope, use)
                return
        resolved = self.resolve_function(node, scope)
        if resolved is not None:
            target, bound, keywords = resolved
            if self._host_solver_rule(target, use):
                return
            self._mark_traced(target, use, bound, keywords)
            target.trace_sites.append(scope)
        elif use.qualified in jaxapi.JIT_LIKE and isinstance(node, ast.Attribute) and node.attr == "apply":
            # `jax.jit(model.apply)`: the class's `__call__` runs traced, its arguments after the
            # variables (argument 0 of `apply`, counted by `static_argnums` as `self` would be).
            method = self._linen_method(node, "__call__")
            if method is not None:
                self._mark_traced(method, dataclasses.replace(use, counts_self=True), 0, set())
                method.trace_sites.append(scope)
            else:
                self._mark_haiku_transformed(node, scope, use)
        elif use.qualified in jaxapi.JIT_LIKE and isinstance(node, ast.Attribute) and node.attr == "init":
            self._mark_haiku_transformed(node, scope, use)

    def _mark_haiku_transformed(self, node: ast.Attribute, scope: Scope, use: TransformUse) -> None:
        """`jax.jit(hk.transform(f).apply)`, also through a name bound to the transform: f runs traced, its
        arguments after those Haiku passes first (`params, rng`; `params, state, rng` with state; no
        `rng` without one; `rng` alone for `init`), so `static_argnums` counts them. A default of f
        stays a Python value (no call of `apply` is followed here)."""
        made = node.value
        if isinstance(made, ast.Name):
            found = bound_values(self, made.id, scope)
            made = reaching_value(made, found[1]) if found is not None else None
        leading = {"apply": 2, "init": 1}[node.attr]
        if isinstance(made, ast.Call) and self.qualified_name(made.func) == "haiku.without_apply_rng" and made.args:
            made = made.args[0]
            leading -= 1 if node.attr == "apply" else 0
        if not (isinstance(made, ast.Call) and made.args and self.qualified_name(made.func) in _HAIKU_TRANSFORMS):
            return
        if self.qualified_name(made.func) == "haiku.transform_with_state" and node.attr == "apply":
            leading += 1
        resolved = self.resolve_function(made.args[0], scope)
        if resolved is None or resolved[1]:
            return
        options = dict(use.options)
        numbers = literal_tuple(options["static_argnums"]) if "static_argnums" in options else ()
        if numbers is None or any(not isinstance(n, int) for n in numbers):
            return
        shifted = [n - leading if n >= 0 else n for n in numbers if n < 0 or n >= leading]
        options["static_argnums"] = ast.Tuple(elts=[ast.Constant(n) for n in shifted], ctx=ast.Load())
        target = resolved[0]
        self._mark_traced(target, TransformUse(use.qualified, options), 0, set(resolved[2]) | self._defaulted(target))
        target.trace_sites.append(scope)

    def _host_solver_rule(self, scope: Scope, use: TransformUse) -> bool:
        """A `jax.custom_vjp`/`custom_jvp` function, or a rule of one, that hands work to a host library
        (a sparse solver, PETSc: semantic/host_library.py): a host solver given a gradient, which JAX
        calls with concrete arrays under an eager `grad`. Not marked traced."""
        if use.qualified not in _CUSTOM_DIFFERENTIATION:
            return False
        return hands_to_host_library(scope, self)

    def _mark_traced(self, scope: Scope, use: TransformUse, bound: int, bound_keywords: set[str]) -> None:
        if self._host_solver_rule(scope, use):
            return
        scope.bound_when_traced = set(bound_keywords) if scope.bound_when_traced is None else scope.bound_when_traced & bound_keywords
        scope.traced = True
        scope.transforms.add(use.qualified)
        if use.qualified not in jaxapi.DIFFERENTIATING:
            scope.abstract_transform = True
        if use.qualified in jaxapi.DIFFERENTIATING:
            scope.differentiated = True
        visible = scope.params[bound:]
        if use.qualified in jaxapi.DIFFERENTIATING:
            self._add_differentiated_wrt(scope, use, visible, bound_keywords)
        declared_static = self._static_by_own_jit(scope)
        for name, level in self._traced_parameters(scope, use, visible, bound_keywords).items():
            if name in declared_static:
                continue  # whatever wraps it, its own `jit` keeps it static (a tracer there fails at the call)
            if level > scope.traced_params.get(name, NONE):
                scope.traced_params[name] = level

    def _add_differentiated_wrt(self, scope: Scope, use: TransformUse, visible: list[str], bound_keywords: set[str]) -> None:
        if scope.differentiated_wrt is None:
            return
        candidates = [name for name in visible if name not in bound_keywords]
        numbers: tuple | None = None
        if use.qualified in jaxapi.FILTERED_GRAD:
            numbers = (0,)
        elif use.qualified in jaxapi.GRAD_LIKE:
            numbers = _grad_argnums(use)
        if numbers is None or not all(isinstance(n, int) and 0 <= n < len(candidates) for n in numbers):
            scope.differentiated_wrt = None  # `vjp`/`linearize` (every primal), or argnums not known
            return
        scope.differentiated_wrt.update(candidates[n] for n in numbers)

    def _static_by_own_jit(self, scope: Scope) -> frozenset[str]:
        """Parameters the function's own jit decorator declares static (`@partial(jax.jit,
        static_argnames=("num_beams",))`): what else transforms it (`vmap(partial(f, ...))`) cannot
        make them tracers in its body."""
        cache = self.__dict__.setdefault("_static_by_own_jit_cache", {})
        found = cache.get(scope)
        if found is None:
            names: set[str] = set()
            for decorator in getattr(scope.node, "decorator_list", ()):
                use = self.decorator_transform(decorator)
                static = _static_options(use) if use is not None and use.qualified in jaxapi.JIT_LIKE else None
                if static is None:
                    continue
                numbers, static_names = static
                names.update(name for name in static_names if isinstance(name, str))
                offset = 1 if scope.has_self else 0
                for number in numbers:
                    if isinstance(number, int) and 0 <= number - offset < len(scope.params):
                        names.add(scope.params[number - offset])
            found = cache[scope] = frozenset(names)
        return found

    def _traced_parameters(self, scope: Scope, use: TransformUse, visible: list[str], bound_keywords: set[str]) -> dict[str, int]:
        qualified = use.qualified
        keyword_params = [name for name in sorted(scope.keyword_params) if name not in bound_keywords]
        candidates = [name for name in visible if name not in bound_keywords]
        if qualified in jaxapi.FILTERED:
            return {name: ARRAY for name in candidates + keyword_params if self._annotated_array(scope, name)}
        if qualified in jaxapi.FILTERED_GRAD:
            return {candidates[0]: TRACED} if candidates else {}
        if qualified in jaxapi.GRAD_LIKE:
            numbers = _grad_argnums(use)
            if numbers is None:
                return {}
            return {candidates[n]: self._param_level(scope, candidates[n]) for n in numbers if isinstance(n, int) and 0 <= n < len(candidates)}
        if qualified in jaxapi.VMAP_LIKE:
            in_axes = use.options.get("in_axes") or (use.positional_options[0] if use.positional_options else None)
            # A default no call passes stays a Python value under `vmap` too
            # (`vmap(partial(decode, model))(problem=p)` leaves `num_beams=4` alone).
            if in_axes is None or (isinstance(in_axes, ast.Constant) and isinstance(in_axes.value, int)):
                return {name: self._param_level(scope, name) for name in candidates if not self._default_never_passed(scope, name)}
            if isinstance(in_axes, (ast.Tuple, ast.List)):
                traced = {}
                # On a method, `in_axes[0]` is `self`'s: the parameters start at the next entry.
                axes = in_axes.elts[1:] if use.counts_self else in_axes.elts
                for name, axis in zip(candidates, axes):
                    if not (isinstance(axis, ast.Constant) and axis.value is None) and not self._default_never_passed(scope, name):
                        traced[name] = self._param_level(scope, name)
                return traced
            return {}
        if qualified in _SHARD_MAPS and isinstance(use.options.get("in_specs"), (ast.Tuple, ast.List)):
            # A `None` entry of `in_specs` hands the argument over as it is: a Python value
            # (`cp_size`, a flag) stays one inside the body.
            specs = use.options["in_specs"].elts
            return {
                name: self._param_level(scope, name)
                for name, spec in zip(candidates, specs)
                if not (isinstance(spec, ast.Constant) and spec.value is None) and not self._default_never_passed(scope, name)
            }
        if use.arity is not None:
            candidates = candidates[: use.arity]
            keyword_params = []
        if qualified == "jax.experimental.checkify.checkify":
            # checkify traces the arrays it is given; a Python number stays one (`n: int` is concrete).
            candidates = [name for name in candidates if not self._annotated_python_scalar(scope, name)]
            keyword_params = [name for name in keyword_params if not self._annotated_python_scalar(scope, name)]
        # jit-like, lax bodies, custom derivatives, configured decorators.
        static = _static_options(use)
        if static is None:
            return {}
        static_numbers, static_names = static
        traced = {}
        count = len(candidates)
        offset = 1 if use.counts_self else 0
        static_positions = {(n if n >= 0 else count + offset + n) - offset for n in static_numbers if isinstance(n, int)}
        for position, name in enumerate(candidates):
            if position in static_positions or name in static_names or self._default_never_passed(scope, name):
                continue
            traced[name] = ARRAY if self._scalar_passed(scope, name) else self._param_level(scope, name)
        for name in keyword_params:
            if name not in static_names and not self._default_never_passed(scope, name):
                traced[name] = self._param_level(scope, name)
        return traced

    def _scalar_passed(self, scope: Scope, name: str) -> bool:
        """A call of the function's compiled entry passes a Python bool or number literal for the
        parameter (`f_jitted(1.0, True)`): jit traces it as a scalar array, never a pytree."""
        if name not in scope.params or scope.has_self or not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return False
        cache = self.__dict__.setdefault("_entry_or_wrapper_calls_cache", {})
        if scope not in cache:
            cache[scope] = self._entry_or_wrapper_calls(scope)
        calls = cache[scope]
        position = scope.params.index(name)
        for call in calls:
            if any(isinstance(arg, ast.Starred) for arg in call.args[: position + 1]):
                continue
            passed = argument(call, position, name)
            if isinstance(passed, ast.UnaryOp) and isinstance(passed.op, ast.USub):
                passed = passed.operand
            if isinstance(passed, ast.Constant) and isinstance(passed.value, (bool, int, float)):
                return True
        return False

    def _entry_or_wrapper_calls(self, scope: Scope) -> list[ast.Call]:
        calls = self.entry_calls(scope)
        if calls is not None:
            return calls
        if scope.parent is not self.module_scope or scope.node.decorator_list:
            return []
        entries = self._compiled_entries(scope.node.name, [])
        if entries is None:
            return []
        names, immediate = entries
        return [call for wrapper in names for call in self.calls_by_name().get(wrapper, [])] + immediate

    def _default_never_passed(self, scope: Scope, name: str) -> bool:
        """A parameter with a default that no call of this decorated function passes keeps its
        Python default under `jit`: `def f(x, standardize=True)` called as `f(x)` is never traced.
        Only for module functions whose compiled entries are all seen (see `entry_calls`), and no
        call spreading `*args`/`**kwargs`. With no call in the module at all (a library's kernel,
        called from other modules), whether any caller passes it is unknown, and a default that no
        call fills is a Python value: not traced either. A lambda's defaults capture values
        (`lambda x, cfg=config: ...`) and count as never passed."""
        if name not in self._defaulted(scope):
            return False
        if isinstance(scope.node, ast.Lambda):
            # `jax.jit(lambda x, cfg=config: f(x, cfg))`: a default on a lambda captures a value
            # (configuration, a loop variable) for a callable called with the other arguments.
            return True
        calls = self.entry_calls(scope)
        direct: list[ast.Call] = []
        if calls is None:
            # Also called directly (`reference(q, causal=False)` inside a traced test): a literal
            # passed so stays a Python value there; the compiled entries decide the rest.
            node = scope.node
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or scope.parent is not self.module_scope or node.decorator_list:
                return False
            entries = self._compiled_entries(node.name, direct)
            if entries is None:
                return False
            names, immediate = entries
            calls = [call for wrapper in names for call in self.calls_by_name().get(wrapper, [])] + immediate
        position = scope.params.index(name) if name in scope.params else None
        for call in (*calls, *direct):
            if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
                return False
            passed = [call.args[position]] if position is not None and len(call.args) > position else []
            passed += [keyword.value for keyword in call.keywords if keyword.arg == name]
            if passed and (call not in direct or not all(isinstance(value, ast.Constant) for value in passed)):
                return False
        return True

    def entry_calls(self, scope: Scope) -> list[ast.Call] | None:
        """The calls of a function's compiled entry points when those calls are its only uses: its
        decorated name, names bound to `jit`/`pmap` wrappers of it (`step_p = jax.pmap(partial(step,
        model=m))`), and wrappers called at once (`jax.jit(make_data)()`). None when it is handed on,
        stored or returned, wrapped by a `partial` that binds positions, or is not a function."""
        node = scope.node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        cache = self.__dict__.setdefault("_entry_calls_cache", {})
        if scope in cache:
            return cache[scope]
        top = node if scope.parent is self.module_scope else None
        # A function nested in another (a test's `def f(x, flag=True)` compiled there) is referred to
        # only in its enclosing function: its wrappers are the names bound there, their calls those there.
        enclosing = scope.parent.node if scope.parent is not None and scope.parent.is_function and not scope.has_self else None
        if any(self.decorator_transform(decorator) for decorator in node.decorator_list):
            names, immediate = [node.name], []
            if self._name_read_elsewhere(node.name, definition=top):
                cache[scope] = None
                return None
        else:
            entries = (self._compiled_entries(node.name, method=scope.has_self, within=enclosing)
                       if scope.parent is self.module_scope or enclosing is not None else None)
            if entries is None:
                cache[scope] = None
                return None
            names, immediate = entries
        calls = [
            call for name in names for call in self.calls_by_name().get(name, [])
            if (name != node.name or _may_reach(self, top, call.func)) and (enclosing is None or is_within(call, enclosing))
        ] + immediate
        cache[scope] = calls
        return calls

    def _name_read_elsewhere(self, *names: str, definition: ast.stmt | None = None) -> bool:
        """A name is read other than by calling it: handed on, stored or returned, so something may
        call it with any arguments. With a module-level `definition`, a read in module code that
        another binding of the name surely reaches (`f = lambda x: ...` in an earlier notebook cell,
        a later `def f`) is not a read of it (semantic/cell_order.py)."""
        for node in self.nodes:
            if isinstance(node, ast.Name) and node.id in names and isinstance(node.ctx, ast.Load) and _may_reach(self, definition, node):
                parent = parent_of(node)
                if not (isinstance(parent, ast.Call) and parent.func is node):
                    return True
        return False

    def _compiled_entries(self, function_name: str, direct: list[ast.Call] | None = None, method: bool = False,
                          within: ast.AST | None = None) -> tuple[list[str], list[ast.Call]] | None:
        """A module function used only inside transforms: the names bound to its wrappers and the
        wrappers called at once; None when any other reference could call it some other way. With a
        `direct` list, plain calls of the function are collected there instead of ruling it out.
        A `method` is referred to as `self.name` (`self.apply_fn = jax.jit(self._apply)`: bound, so the
        wrapper's calls pass the parameters after `self`); any other owner (`Model._apply`) is unknown.
        `within`: the function a nested function is defined in, where alone its name is read."""
        names: list[str] = []
        immediate: list[ast.Call] = []
        for node in (self.nodes if within is None else walk(within)):
            if method:
                if not (isinstance(node, ast.Attribute) and node.attr == function_name and isinstance(node.ctx, ast.Load)):
                    continue
                if not (isinstance(node.value, ast.Name) and node.value.id == "self"):
                    return None
            elif not (isinstance(node, ast.Name) and node.id == function_name and isinstance(node.ctx, ast.Load)):
                continue
            call = parent_of(node)
            if direct is not None and isinstance(call, ast.Call) and call.func is node:
                direct.append(call)
                continue
            if isinstance(call, ast.Call) and call.args and call.args[0] is node and self.qualified_name(call.func) == "functools.partial":
                if len(call.args) > 1:
                    return None  # positions bound by the partial: the wrapper's calls pass shifted arguments
                node, call = call, parent_of(call)
                if isinstance(call, ast.Assign) and len(call.targets) == 1 and isinstance(call.targets[0], ast.Name):
                    names.append(call.targets[0].id)  # (`g = partial(f, flag=True)`, compiled later: `jax.jit(g)`)
                    continue
            if not (isinstance(call, ast.Call) and call.args and call.args[0] is node):
                return None
            parent = parent_of(call)
            while isinstance(parent, ast.Call) and parent.args and parent.args[0] is call and self.transform_of(parent.func) in _PASSING_TRANSFORMS \
                    and self.transform_of(call.func) in _PASSING_TRANSFORMS:
                call, parent = parent, parent_of(parent)  # (`jax.jit(jax.vmap(f))`: the outer wrapper's calls are f's)
            if self.transform_of(call.func) is None and not (isinstance(parent, ast.Assign) and parent.value is call):
                # A wrapper jaxlint does not know (a partitioner's `partition(f, ...)`) is taken to return a
                # callable with f's parameters only when its result is bound: its calls are then f's.
                return None
            target = parent.targets[0] if isinstance(parent, ast.Assign) and len(parent.targets) == 1 else None
            if isinstance(parent, ast.Call) and parent.func is call:
                immediate.append(parent)
            elif isinstance(target, ast.Name):
                names.append(target.id)
            elif isinstance(target, ast.Attribute):
                names.append(target.attr)
            else:
                return None
        if not names and not immediate:
            return None
        names = self._forwarded_names(names, within)  # (None when a name is read other than called or copied)
        if names is None:
            return None
        return names, immediate

    def _forwarded_names(self, names: list[str], within: ast.AST | None = None) -> list[str] | None:
        """The wrapper names with the names and attributes they are copied to (`cpfn = jax.jit(f)` then
        `self.f_compiled = cpfn`), or bound to a transform of (`g = jax.pmap(f)` then `g = jax.jit(g)`:
        the outer wrapper passes its arguments on as they are): the calls of the copy are the wrapper's
        calls. None when a wrapper name is handed on some other way."""
        found = list(dict.fromkeys(names))
        for wrapper in found:  # (grows while it runs: a copy of a copy)
            for node in (self.nodes if within is None else walk(within)):
                if not (isinstance(node, ast.Name) and node.id == wrapper and isinstance(node.ctx, ast.Load)):
                    continue
                parent = parent_of(node)
                if isinstance(parent, ast.Call) and parent.func is node:
                    continue
                if isinstance(parent, ast.Call) and parent.args and parent.args[0] is node and len(parent.args) == 1 \
                        and self.transform_of(parent.func) in _PASSING_TRANSFORMS \
                        and not any(keyword.arg in ("static_argnums", "static_argnames") for keyword in parent.keywords):
                    node, parent = parent, parent_of(parent)  # (`jax.jit(g)` of a wrapper: its calls are g's)
                if not (isinstance(parent, ast.Assign) and parent.value is node and len(parent.targets) == 1):
                    return None
                target = parent.targets[0]
                copy = target.id if isinstance(target, ast.Name) else target.attr if isinstance(target, ast.Attribute) else None
                if copy is None:
                    return None
                if copy not in found:
                    found.append(copy)
            if len(found) > 8:
                return None
        return found

    def _defaulted(self, scope: Scope) -> set[str]:
        arguments = scope.node.args
        positional = [*arguments.posonlyargs, *arguments.args]
        names = {arg.arg for arg in positional[len(positional) - len(arguments.defaults):]} if arguments.defaults else set()
        names |= {arg.arg for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults) if default is not None}
        return names

    def calls_by_name(self) -> dict[str, list[ast.Call]]:
        """Calls in the module by the called name (`f(...)`, `obj.f(...)`), for call-site questions."""
        cached = getattr(self, "_calls_by_name_cache", None)
        if cached is None:
            cached = {}
            for scope in self.scopes:
                for call in scope.calls:
                    function = call.func
                    name = function.id if isinstance(function, ast.Name) else function.attr if isinstance(function, ast.Attribute) else None
                    if name is not None:
                        cached.setdefault(name, []).append(call)
            self._calls_by_name_cache = cached
        return cached

    def _param_level(self, scope: Scope, name: str) -> int:
        """ARRAY for parameters annotated as arrays, or with a bool/number default (a scalar tracer
        whenever a caller passes it); TRACED (maybe a pytree) otherwise."""
        if self._annotated_array(scope, name) or self._scalar_default(scope, name):
            return ARRAY
        return TRACED

    def _scalar_default(self, scope: Scope, name: str) -> bool:
        arguments = getattr(scope.node, "args", None)
        if arguments is None:
            return False
        default = parameter_defaults(arguments).get(name)
        return isinstance(default, ast.Constant) and isinstance(default.value, (bool, int, float))

    def _annotated_python_scalar(self, scope: Scope, name: str) -> bool:
        arg = scope.param_nodes.get(name)
        annotation = arg.annotation if arg is not None else None
        return isinstance(annotation, ast.Name) and annotation.id in ("int", "float", "bool", "str") and annotation.id not in self.bound_names

    def _annotated_array(self, scope: Scope, name: str) -> bool:
        arg = scope.param_nodes.get(name)
        if arg is None or arg.annotation is None:
            return False
        annotation = arg.annotation
        subscripted = isinstance(annotation, ast.Subscript)
        if subscripted:
            annotation = annotation.value
        qualified = self.qualified_name(annotation)
        if qualified is None or not qualified.startswith(jaxapi.ARRAY_ANNOTATIONS):
            return False
        # A jaxtyping dtype names an array only with its shape (`Int[Array, "b"]`); written bare
        # (`n: Int = 1`, called with a Python int) it says nothing an array check could use.
        return subscripted or not qualified.startswith(_JAXTYPING_DTYPES)

    # ----- jitted callables ------------------------------------------------------------------

    def _find_jit_bindings(self) -> None:
        seen: dict[str, int] = {}

        def add(binding: JitBinding) -> None:
            seen[binding.key] = seen.get(binding.key, 0) + 1
            self.jit_bindings[binding.key] = binding
            self.jit_binding_lists.setdefault(binding.key, []).append(binding)

        for scope in self.scopes:
            if not isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for decorator in scope.node.decorator_list:
                use = self.decorator_transform(decorator)
                if use is not None and use.qualified in jaxapi.COMPILING:
                    key = f"self.{scope.name}" if scope.class_node is not None else scope.name
                    add(JitBinding(key, use.qualified, decorator, use.options, scope, via_decorator=True, owner=scope.parent))
                    break
        for scope in self.scopes:
            for target, value in scope.bindings:
                if value.__class__ is ast.IfExp:
                    # `step = jax.pmap(update) if parallel else jax.jit(update)`: whichever arm runs copies alike.
                    value = self._compiled_alike_arms(value, scope)
                if not isinstance(value, ast.Call) or not value.args:
                    continue
                transform = self.transform_of(value.func)
                if transform not in jaxapi.COMPILING:
                    continue
                key = binding_key(target) or instance_key(target)
                if key is None:
                    continue
                resolved = self.resolve_function(value.args[0], scope)
                function, bound = (resolved[0], resolved[1]) if resolved else (None, 0)
                add(JitBinding(key, transform, value, keyword_options(value), function, bound, owner=scope))
        stored = []
        for scope in self.scopes:
            if scope.class_node is None:
                continue
            for target, value in scope.bindings:
                # `self.step = step` in a method, `step` a compiled callable bound once in it (a nested
                # `@jax.jit def step`, `step = jax.jit(f)`): the attribute is that callable.
                if value.__class__ is ast.Name and _is_self_attribute(target):
                    owned = [binding for binding in self.jit_binding_lists.get(value.id, ()) if binding.owner is scope]
                    if len(owned) == 1:
                        stored.append(dataclasses.replace(owned[0], key=f"self.{target.attr}", owner=scope))
        for binding in stored:
            add(binding)
        for scope in self.scopes:
            for target, value in scope.bindings:
                if not (isinstance(value, ast.Call) and isinstance(value.func, (ast.Name, ast.Attribute))):
                    continue
                if isinstance(target, ast.Tuple):
                    # `init, step = make_fns(lr)`: each name is what the factory returns at its position.
                    if any(isinstance(element, ast.Starred) for element in target.elts):
                        continue
                    for position, element in enumerate(target.elts):
                        key = binding_key(element)
                        built = self._factory_result(value, scope, position, len(target.elts)) if key is not None else None
                        if built is not None:
                            add(dataclasses.replace(built, key=key, owner=scope, built_by_factory=True))
                    continue
                key = binding_key(target)
                built = self._factory_result(value, scope) if key is not None else None
                if built is not None:
                    add(dataclasses.replace(built, key=key, owner=scope, built_by_factory=True))
        for scope in self.scopes:
            for target, value in scope.bindings:
                key = binding_key(target) if isinstance(value, ast.Call) else None
                bound = self._partial_of_compiled(value, scope) if key is not None else None
                if bound is not None:
                    add(dataclasses.replace(bound, key=key, owner=scope, partial_of=bound.partial_of or bound.key))
        for key, count in seen.items():
            if count > 1:
                del self.jit_bindings[key]

    def _compiled_alike_arms(self, choice: ast.IfExp, scope: Scope) -> ast.expr | None:
        """The first arm of `a if test else b` where both arms compile (`jax.pmap(f, ...)`, `jax.jit(f)`,
        or the name of a function a decorator compiles, with the other arm compiling that same name) the
        same function with no donated or static argument: whichever runs, the callable copies the same
        arguments, so the name is one compiled callable with the first arm's options. None otherwise."""
        arms = [choice.body, choice.orelse]
        wrapped = []
        for arm in arms:
            if isinstance(arm, ast.Call) and len(arm.args) == 1 and self.transform_of(arm.func) in jaxapi.COMPILING:
                if set(keyword_options(arm)) & PLACEMENT_OPTIONS or not isinstance(arm.args[0], (ast.Name, ast.Attribute)):
                    return None
                wrapped.append(ast.dump(arm.args[0]))
            elif isinstance(arm, ast.Name):
                decorated = [b for b in self.jit_binding_lists.get(arm.id, ()) if b.via_decorator and (b.owner is self.module_scope or b.owner is scope)]
                if len(decorated) != 1 or set(decorated[0].options) & PLACEMENT_OPTIONS:
                    return None
                wrapped.append(ast.dump(ast.Name(id=arm.id, ctx=ast.Load())))
            else:
                return None
        if wrapped[0] != wrapped[1] or not any(isinstance(arm, ast.Call) for arm in arms):
            return None
        return next(arm for arm in arms if isinstance(arm, ast.Call))

    def _partial_of_compiled(self, call: ast.Call, scope: Scope) -> JitBinding | None:
        """`update_fn = partial(update, loss_fn=loss_fn)` where `update` is compiled: a partial that
        fixes only keyword arguments calls the compiled callable with the caller's positional
        arguments in their own places, so the name is that callable, with its options. A partial
        that also fixes positional arguments shifts them and is left unresolved."""
        if len(call.args) != 1 or not isinstance(call.args[0], (ast.Name, ast.Attribute)):
            return None
        if self.qualified_name(call.func) != "functools.partial" or any(k.arg is None for k in call.keywords):
            return None
        if self.transform_of(call.args[0]) in jaxapi.COMPILING:
            return None  # `partial(jax.jit, ...)` builds a decorator, not a compiled callable
        # Resolved from where the partial reads the name, through the scopes around it.
        return self.jit_binding_for_name(call.args[0])

    def _factory_result(self, call: ast.Call, scope: Scope, position: int | None = None, width: int = 0) -> JitBinding | None:
        """The compiled callable a factory call gives (at `position` of the tuple it returns): a
        factory of this module (`_built_by_factory`), or of another module of the project, from its
        summary (project.FunctionSummary.returned_compiled)."""
        if isinstance(call.func, ast.Name):
            built = self._built_by_factory(call, scope, position, width)
            if built is not None or self.resolve_function(call.func, scope) is not None:
                return built
        if self.project is None or not self.imports_from_project:
            return None
        qualified = self.qualified_name(call.func)
        if qualified is None or "." not in qualified or not self.project.may_hold(qualified.partition(".")[0]):
            return None
        found = returned_kinds.located_function(self.project, qualified)  # (a static method on its class too)
        summary = found[0] if found is not None else None
        if summary is None or summary.transform is not None or not summary.returned_compiled:
            return None
        wanted = -1 if position is None else position
        for at, transform, options, params, via_decorator in summary.returned_compiled:
            if at == wanted:
                return JitBinding(qualified, transform, call, dict(options), None, via_decorator=via_decorator,
                                  external_params=list(params) if params else None)
        return None

    def _built_by_factory(self, call: ast.Call, scope: Scope, position: int | None = None, width: int = 0) -> JitBinding | None:
        """`step = make_step(opt)` where the module's `make_step` returns the compiled callable it
        builds (a nested `@jax.jit def`, or `g = jax.jit(f)`) on every path: the caller's name is
        that callable, with its options. With `position`, the element at that position of the tuple
        of `width` elements every path returns (`init, step = make_fns(lr)`, `return init, jax.jit(step)`)."""
        resolved = self.resolve_function(call.func, scope)
        factory = resolved[0] if resolved is not None and not resolved[1] and not resolved[2] else None
        if factory is None or not factory.returns or factory.in_traced:
            return None
        found = None
        for whole in factory.returns:
            returned = whole
            if position is not None:
                if not isinstance(whole, ast.Tuple) or len(whole.elts) != width or any(isinstance(e, ast.Starred) for e in whole.elts):
                    return None
                returned = whole.elts[position]
            if isinstance(returned, ast.Call) and returned.args and self.transform_of(returned.func) in jaxapi.COMPILING:
                # `return jax.jit(step, donate_argnums=...)`: compiled where it is returned.
                if found is not None:
                    return None
                resolved = self.resolve_function(returned.args[0], factory)
                function, bound = (resolved[0], resolved[1]) if resolved else (None, 0)
                found = JitBinding("<factory>", self.transform_of(returned.func), returned, keyword_options(returned), function, bound, owner=factory)
                continue
            if not isinstance(returned, ast.Name):
                return None
            owned = [b for b in self.jit_binding_lists.get(returned.id, ()) if b.owner is factory]
            if len(owned) > 1:
                # `step = jax.pmap(step)` in one arm of an `if`, `step = jax.jit(step)` in the other, neither
                # donating: whichever runs, the callable copies the same arguments (_copying_alike).
                owned = [_copying_alike(owned)] if _in_both_arms(owned) else []
            if len(owned) != 1 or owned[0] is None or (found is not None and owned[0] is not found):
                return None
            found = owned[0]
        return found

    def jit_binding_for_name(self, node: ast.AST) -> JitBinding | None:
        """The compiled callable a name (or `self.attr`) refers to where it is used.

        A bare name must resolve, through the scopes around the use, to the scope that bound it:
        a local `def fun` in one test is not the `fun = jax.jit(...)` of another. A name bound
        several times in that scope (`f = jax.jit(g1)` ... `f = jax.jit(g2)`) takes the binding
        that reaches the use; where that cannot be told, the bindings must agree on their options.
        """
        key = binding_key(node)
        bindings = self.jit_binding_lists.get(key) if key is not None else None
        if not bindings:
            found = self._imported_jit_binding(node)
            if found is None and node.__class__ is ast.Name:
                found = self._parameter_jit_binding(node)
            if found is None and node.__class__ is ast.Attribute:
                found = self._rebound_instance_attribute(node) or self.class_static_binding(node)
            return found
        if not isinstance(node, ast.Name):
            own = self._own_class_binding(node, bindings)
            return _agreeing(bindings) if own is _NOT_OWN else own
        current: Scope | None = self.scope_for(node)
        while current is not None:
            if node.id in current.local_names or node.id in current.defs:
                owned = [binding for binding in bindings if binding.owner is current or binding.owner is None]
                if not owned:
                    # A parameter of the function that every call fills with a compiled callable,
                    # whatever other scopes bind to the same name (`def advance(z, step)` beside a
                    # module-level `@jax.jit def step`, called as `advance(z, step)`).
                    return self._parameter_jit_binding(node) if node.id in current.param_nodes else None
                two_defs = node.id in current.defs and current.defs[node.id] is None
                plain = _plain_defs(current, node.id, owned) if two_defs else ()
                if plain:
                    # `def f` (plain) and `@jax.jit def f` in one scope (a notebook redefining a helper
                    # in a later cell): which one a read sees depends on when it runs. Only a read in
                    # the same straight-line code, after the jitted one and no plain one, is known.
                    return _reaching_past(owned, plain, node, current, self)
                if _all_bound_later(owned, node, current, self):
                    return None  # (module code runs top to bottom: a binding after the use's statement never reaches it)
                if len(owned) == 1:
                    return owned[0]
                # (`step = jax.pmap(update)` on several devices, else `jax.jit(update)`: either copies the state.)
                return _reaching(owned, node, current, self) or _agreeing(owned) or _copying_alike(owned)
            current = current.parent
        return _agreeing([binding for binding in bindings if binding.owner is None])

    def _rebound_instance_attribute(self, node: ast.Attribute) -> JitBinding | None:
        """`net.apply(...)` after `net.apply = jax.jit(net.apply)`: an attribute of an object held in a
        name, rebound to a compiled callable, is that callable for the calls the rebinding reaches
        (straight-line code of the same scope after it, the name `net` bound no more than once there)."""
        key = instance_key(node)
        bindings = self.jit_binding_lists.get(key) if key is not None else None
        if not bindings:
            return None
        scope = self.scope_for(node)
        owner = owning_scope(self, node.value.id, scope)
        if owner is not scope:
            return None
        owned = [binding for binding in bindings if binding.owner is scope]
        rebinds = sum(1 for target, _ in scope.bindings for name in bound_names(target) if name == node.value.id)
        if not owned or rebinds > 1 or node.value.id in scope.param_nodes and rebinds:
            return None
        return _reaching(owned, node, scope, self)

    def class_static_binding(self, node: ast.Attribute) -> JitBinding | None:
        """`Buffer.add(state, x)`: a `@staticmethod` compiled by a decorator (either order), read
        through its class (one of this module's, or of another module of the project). A static
        method takes no `self`, so the call's positions are the compiled function's own."""
        if not isinstance(node.value, ast.Name) or node.value.id in ("self", "cls"):
            return None
        return self._static_method_of(self._constructed_class(node.value), node.attr, node)

    def _static_method_of(self, owner, method: str, node: ast.Attribute) -> JitBinding | None:
        """The compiled static method `method` of the class `owner` (a ClassDef here or a project summary)."""
        if isinstance(owner, ast.ClassDef):
            scope = self.class_methods.get(owner, {}).get(method)
            if scope is None or scope.has_self or not self._is_staticmethod(scope.node):
                return None
            for binding in self.jit_binding_lists.get(f"self.{method}", ()):
                if binding.function is scope and binding.via_decorator:
                    return dataclasses.replace(binding, key=f"{owner.name}.{method}")
            return None
        summary = self.project.method_of(owner, method) if owner is not None and self.project is not None else None
        if summary is None or summary.transform is None or summary.has_self or not summary.via_decorator:
            return None
        return JitBinding(f"{owner.name}.{method}", summary.transform, node, summary.options, None, via_decorator=True,
                          external_params=list(summary.params), external_has_self=False,
                          converted_params=summary.converted_params)

    def _own_class_binding(self, node: ast.AST, bindings: list[JitBinding]):
        """`self._step(...)` in a method, where classes of the module each compile a `_step` of their
        own: the one of the class the method belongs to, or of a base class of it defined here; None
        where that class defines `_step` as a plain method. `_NOT_OWN` where the class chain says
        nothing (the attribute comes from elsewhere): the bindings of the module then answer."""
        if not (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self"):
            return _NOT_OWN
        method = self.scope_for(node).enclosing_method()
        if method is None:
            return _NOT_OWN
        classes = [method.class_node]
        names = {c.name: c for c in self.class_methods}
        for class_node in classes:  # the class, then its bases of this module, breadth first
            for base in class_node.bases:
                found = names.get(base.id) if isinstance(base, ast.Name) else None
                if found is not None and found not in classes:
                    classes.append(found)
        for class_node in classes:
            own = [binding for binding in bindings if _binding_class(binding) is class_node]
            if own:
                return _agreeing(own)
            if node.attr in self.class_methods.get(class_node, {}):
                return None  # a plain method of that name: not the compiled one of another class
        return _NOT_OWN

    def _parameter_jit_binding(self, node: ast.Name) -> JitBinding | None:
        """A parameter of a plain function that every call of the function in this module fills with
        the same compiled callable (`fit(state, jax.jit(step), data)`, `fit(state, fast_step, data)`):
        inside `fit`, `step_fn(...)` runs that compiled code. None where the function is handed on
        as a value (a caller we cannot see), the parameter is rebound, has a default or sits behind
        `*args`, or one call passes something else."""
        if node.id not in self._function_param_names():
            return None
        owner = owning_scope(self, node.id, self.scope_for(node))
        if owner is None or not owner.is_function or owner.node.__class__ is ast.Lambda or owner.class_node is not None:
            return None
        cache = self.__dict__.setdefault("_parameter_binding_cache", {})
        key = (id(owner), node.id)
        if key not in cache:
            cache[key] = None  # a function that hands the parameter on to itself stops here
            cache[key] = self._filled_with_compiled(owner, node.id)
        return cache[key]

    def _function_param_names(self) -> frozenset[str]:
        found = self.__dict__.get("_function_param_name_set")
        if found is None:
            found = self._function_param_name_set = frozenset(
                name for scope in self.scopes if scope.is_function for name in (*scope.params, *scope.keyword_params))
        return found

    def caller_arguments(self, function: Scope, param: str, *, closed: bool = True, skip_self: bool = False) -> list[tuple[ast.expr, ast.Call]] | None:
        """What every visible caller fills the parameter `param` of the plain function `function` with:
        (argument, call) for each call of it by its name, by keyword or position, in this module. The
        function is a `def` (not a lambda, not a method) bound by its name in its parent scope. None
        where the callers do not tell: no such call, a call spreads `*args`/`**kwargs` or leaves the
        parameter out, the body rebinds the parameter (an assignment).
        `closed` (the compiled parameter binding) also asks that the calls be all the values the
        parameter can take: None where the function is read other than by these calls (handed on
        as a value), a call by its name reaches another binding of it, the parameter has a default,
        is keyword-only behind `*args`, or is a loop target in the body. Without it, calls that
        reach another binding are left out (`compiled_wrappers`), and takes the calls of a name bound
        once to `functools.partial(function, ...)` and only ever called, with the arguments the
        partial fixes (`_partials_of`).
        `skip_self`: positions count after a first `self`/`cls` parameter (`syntax.passed_to_parameter`),
        as `compiled_wrappers` reads them; the binding counts from the first parameter."""
        name = getattr(function.node, "name", None)
        parent = function.parent
        if name is None or parent is None or function.class_node is not None or parent.defs.get(name) is not function or param not in function.param_nodes:
            return None
        arguments = function.node.args
        positional = [arg.arg for arg in (*arguments.posonlyargs, *arguments.args)]
        if closed and (param in self._defaulted(function) or arguments.vararg is not None and param not in positional):
            return None
        if any(isinstance(target, ast.Name) and target.id == param for target, _ in function.bindings) or closed and any(
            isinstance(n, ast.Name) and n.id == param for target, _ in function.loops for n in walk(target)
        ):
            return None  # rebound inside: the parameter's value is not the one the callers pass
        calls = [call for call in self.calls_by_name().get(name, ()) if call.func.__class__ is ast.Name]
        reached = [call for call in calls if owning_scope(self, name, self.scope_for(call)) is parent]
        # (closed: also through a name bound once to `functools.partial(fit, ...)`, every read of it a call)
        partials = self._partials_of(name) if closed else []
        if partials is None:
            return None
        if closed and (len(reached) != len(calls) or self._name_loads().get(name, 0) != len(calls) + len(partials)):
            return None  # handed on as a value (`map(fit, ...)`, a registry), or another `fit` called
        passed = passed_to_parameter(reached, function.node, param, skip_self=skip_self) if reached else []
        if passed is None or any(value is None for value in passed):
            return None
        found = list(zip(passed, reached))
        index = positional.index(param) if param in positional else None
        for alias, made in partials:
            if owning_scope(self, name, self.scope_for(made)) is not parent:
                return None
            if any(isinstance(arg, ast.Starred) for arg in made.args) or any(kw.arg is None for kw in made.keywords):
                return None
            shift = len(made.args) - 1  # positions the partial fixes
            for call in self.calls_by_name().get(alias, ()):
                if call.func.__class__ is not ast.Name:
                    continue
                if any(isinstance(arg, ast.Starred) for arg in call.args) or any(kw.arg is None for kw in call.keywords):
                    return None
                values = [kw.value for kw in (*call.keywords, *made.keywords) if kw.arg == param]
                if index is not None and index < shift:
                    values.append(made.args[1 + index])
                if not values and index is not None and shift <= index < len(call.args) + shift:
                    values = [call.args[index - shift]]
                if len(values) != 1:
                    return None
                found.append((values[0], call))
        return found or None

    def _filled_with_compiled(self, function: Scope, param: str) -> JitBinding | None:
        passed = self.caller_arguments(function, param)
        if passed is None:
            return None
        found: list[JitBinding] = []
        for value, _ in passed:
            binding = None
            if isinstance(value, (ast.Name, ast.Attribute)):
                binding = self.jit_binding_for_name(value)
            elif isinstance(value, ast.Call) and value.args and self.transform_of(value.func) in jaxapi.COMPILING:
                resolved = self.resolve_function(value.args[0], self.scope_for(value))
                target, bound = (resolved[0], resolved[1]) if resolved else (None, 0)
                binding = JitBinding("<inline>", self.transform_of(value.func), value, keyword_options(value), target, bound)
            if binding is None:
                return None
            found.append(binding)
        return _agreeing(found)

    def _partials_of(self, name: str) -> list[tuple[str, ast.Call]] | None:
        """The names bound to `functools.partial(name, ...)` (alias, the partial call), each bound once in
        the module and only ever called; None where a partial of `name` is kept any other way."""
        found = []
        for call in self.calls_by_name().get("partial", ()):
            if not (call.args and isinstance(call.args[0], ast.Name) and call.args[0].id == name):
                continue
            if self.qualified_name(call.func) != "functools.partial":
                continue
            target = parent_of(call)
            if not (isinstance(target, ast.Assign) and len(target.targets) == 1 and isinstance(target.targets[0], ast.Name)):
                return None
            alias = target.targets[0].id
            uses = [c for c in self.calls_by_name().get(alias, ()) if c.func.__class__ is ast.Name]
            bound = sum(1 for scope in self.scopes for t, _ in scope.bindings if isinstance(t, ast.Name) and t.id == alias)
            if bound != 1 or self._name_loads().get(alias, 0) != len(uses):
                return None
            found.append((alias, call))
        return found

    def _name_loads(self) -> dict[str, int]:
        """How often each name is read in the module (one walk, cached)."""
        found = self.__dict__.get("_name_load_counts")
        if found is None:
            found = self._name_load_counts = collections.Counter(
                node.id for node in self.nodes if node.__class__ is ast.Name and node.ctx.__class__ is ast.Load)
        return found

    def _imported_jit_binding(self, node: ast.AST) -> JitBinding | None:
        """A jitted function of another project module: `from train import step; step(...)`, or a
        jitted method called on an instance of a project or local class: `agent = Agent(); agent.update(...)`."""
        if self.project is None and not isinstance(node, ast.Attribute):
            return None
        if node.__class__ is ast.Attribute and self._of_foreign_module(node):
            return None  # `jnp.sum(x)`, `optax.adam(lr)`: the commonest calls, and never a jitted binding we know
        if isinstance(node, ast.Attribute) and (isinstance(node.value, ast.Name) or _is_self_attribute(node.value)) and self._may_be_instance_method(node.attr):
            method = self.instance_method(node)
            if method is not None:
                return method
        if not self.imports_from_project:
            return None
        qualified = self.qualified_name(node)
        if qualified is None or qualified.startswith(("jax.", "flax.", "equinox.", "numpy.", "builtins.")):
            return None
        summary = self.project.function(qualified)
        if summary is None or summary.transform is None:
            return None
        return JitBinding(qualified, summary.transform, node, summary.options, None, via_decorator=summary.via_decorator,
                          external_params=list(summary.params), external_has_self=summary.has_self,
                          converted_params=summary.converted_params)

    def _of_foreign_module(self, node: ast.Attribute) -> bool:
        """The chain starts at a name only ever bound by an import of a module outside the project
        (`jnp`, `np`, `optax`): it names no instance, and no project summary can answer for it."""
        root = node.value
        while root.__class__ is ast.Attribute:
            root = root.value
        if root.__class__ is not ast.Name:
            return False
        foreign = self.__dict__.setdefault("_foreign_roots", {})
        found = foreign.get(root.id)
        if found is None:
            target = self.imports.aliases.get(root.id)
            found = foreign[root.id] = (
                target is not None and root.id not in self.bound_names
                and (self.project is None or not self.project.may_hold(target.split(".")[0]))
            )
        return found

    def _may_be_instance_method(self, attr: str) -> bool:
        """A local class has a jitted method of this name, or the module imports from its project
        (whose classes may): otherwise no `obj.attr(...)` can call a jitted method we could know."""
        return f"self.{attr}" in self.jit_binding_lists or self.imports_from_project

    @property
    def imports_from_project(self) -> bool:
        """Whether some name this module imports could resolve to a module of its project, the only
        way a project summary (semantic/project.py) can answer a question about this module, or the
        module star-imports (`from utils import *` binds a project module's re-exports, such as
        `jax.jit` under another name, which this module's text never spells)."""
        found = self.__dict__.get("_imports_from_project")
        if found is None:
            project = self.project
            found = self._imports_from_project = project is not None and (
                any(project.may_hold(top) for top in {target.split(".")[0] for target in self.imports.aliases.values()})
                or any(alias.name == "*" for node in self.import_nodes if isinstance(node, ast.ImportFrom) for alias in node.names)
            )
        return found

    def instance_class(self, name: ast.Name):
        """The class a name is bound to an instance of (`agent = Agent(...)` bound once): a local
        ClassDef or a project ClassSummary; None when not known."""

        scope = self.scope_for(name)
        owner = owning_scope(self, name.id, scope)
        if owner is None:
            return None
        cache = self.__dict__.setdefault("_instance_class_cache", {})
        key = (id(owner), name.id)
        if key not in cache:
            cache[key] = None  # (recursion through callers: unknown while being worked out)
            cache[key] = self._instance_class(name, scope, owner)
        found = cache[key]
        if found is _BY_READ:
            # Bound to instances of different classes (`env = Env(cfg)`, then `env = Wrapper(env)`):
            # the class of the binding that surely reaches this read.
            key = (id(owner), id(name))
            if key not in cache:
                cache[key] = None
                reached = reaching_value_outside(name, bound_values(self, name.id, scope)[1])
                cache[key] = self._class_of_call(reached, owner) if isinstance(reached, ast.Call) else None
            return cache[key]
        return found

    def _instance_class(self, name: ast.Name, scope: Scope, owner: Scope):
        if owner.is_function and name.id in owner.param_nodes:
            return self._passed_instance_class(name.id, owner)
        # Cheap test first: some binding of the name in its scope must be a call of a plain name.
        if not any(
            isinstance(target, ast.Name) and target.id == name.id and isinstance(value, ast.Call)
            and isinstance(value.func, (ast.Name, ast.Attribute))
            for target, value in owner.bindings
        ):
            return None
        found = bound_values(self, name.id, scope)
        if found is not None and len(found[1]) > 1:
            # `agent = restore(agent, path)`, `agent = jax.device_put(agent)`: the same object, restored
            # or placed (semantic/kept_structure.py), of the class its other bindings construct.
            kept = [value for value in found[1] if not (isinstance(value, ast.Call) and kept_structure.keeps_structure_of(value, name.id, self))]
            found = (found[0], kept) if kept else None
        if found is None or not found[1] or not all(isinstance(value, ast.Call) for value in found[1]):
            return None
        if len(found[1]) > 1:
            # Each binding constructs the same class (`env = Wrapper(base, n=8)` in one arm of an `if`,
            # `env = Wrapper(base, n=4)` in the other): an instance of it, whichever ran.
            classes = [self._constructed_class(value.func) for value in found[1]]
            if classes[0] is not None and all(each is classes[0] or each == classes[0] for each in classes):
                return classes[0]
            return _BY_READ  # (which binding reaches the read decides: instance_class)
        return self._class_of_call(found[1][0], owner)

    def _class_of_call(self, call: ast.Call, owner: Scope):
        """A constructor's class, else that of a function or method of another module whose every
        return constructs one class (`agent = make_agent(cfg)`: semantic/returned_kinds.py)."""
        return self._constructed_class(call.func) or self._factory_class(call, owner) or returned_kinds.project_call_class(self, call, owner)

    def _factory_class(self, call: ast.Call, scope: Scope):
        """The class every `return` of the plain function of this module that `call` runs constructs
        (`return Agent(cfg)`, or a name bound once to `Agent(cfg)` there): a local ClassDef or a project
        ClassSummary; None when a return gives anything else or two classes."""
        if not isinstance(call.func, ast.Name):
            return None
        resolved = self.resolve_function(call.func, scope)
        factory = resolved[0] if resolved is not None and not resolved[1] and not resolved[2] else None
        if factory is None or not factory.returns or getattr(factory.node, "decorator_list", None) or factory.in_traced:
            return None
        found = None
        for value in factory.returns:
            if isinstance(value, ast.Name):
                bound = bound_values(self, value.id, factory)
                value = bound[1][0] if bound is not None and bound[0] is factory and len(bound[1]) == 1 else None
            if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
                return None
            each = self._constructed_class(value.func)
            if each is None or (found is not None and each is not found):
                return None
            found = each
        return found

    def _passed_instance_class(self, name: str, owner: Scope):
        """The class a parameter holds an instance of where every call of its function in the module
        hands it one of the same class (`train(env, Policy(...))`, or a name bound once to `Policy(...)`,
        or a parameter of the caller that is one in turn), the parameter unannotated and never rebound
        in the function: a local ClassDef or a project ClassSummary; None when a caller passes anything
        else, leaves it to a default, or the module calls the function nowhere."""
        from jaxlint.semantic.library_models import in_module_callers, rebinds

        node = owner.param_nodes[name]
        if node.annotation is not None or rebinds(self, owner, name):
            return None
        arguments = owner.node.args
        if name not in owner.params or any(a.arg == name for a in getattr(arguments, "posonlyargs", ())):
            return None
        position = owner.params.index(name)
        calls = in_module_callers(self, owner)
        if not calls:
            return None
        found = None
        for caller, call in calls:
            passed = argument(call, position, name)
            if isinstance(passed, ast.Call) and isinstance(passed.func, (ast.Name, ast.Attribute)):
                each = self._constructed_class(passed.func)
            elif isinstance(passed, ast.Name) and passed.id not in ("self", "cls"):
                each = self.instance_class(passed)
            else:
                return None
            if each is None or (found is not None and each is not found):
                return None
            found = each
        return found

    def self_attribute_class(self, node: ast.Attribute):
        """The class `self.obj` holds an instance of, where every assignment to `self.obj` in the
        class of the method is a call of that one class (`self.learner = Learner(cfg)` in
        `__init__`), or a parameter of `__init__` every construction fills with one (`self.model =
        model`: semantic/constructed_objects.py): a local ClassDef or a project ClassSummary; None
        when not known."""
        scope = self.scope_for(node)
        cache = self.__dict__.setdefault("_self_attribute_class_cache", {})
        holder = scope.enclosing_method()
        if holder is None:
            return None
        key = (id(holder.class_node), node.attr)
        if key in cache:
            return cache[key]
        cache[key] = None
        values = attribute_values(self, holder.class_node, node.attr)
        if values and all(value.__class__ is ast.Name for value in values):
            # `self.model = model` in `__init__`: what every construction passes (semantic/constructed_objects.py).
            cache[key] = self.project.handed_class(self, holder.class_node, node.attr) if self.project is not None else None
            return cache[key]
        if not values or not all(isinstance(value, ast.Call) for value in values):
            return None
        constructors = {ast.dump(value.func) for value in values}
        if len(constructors) != 1:
            return None
        cache[key] = self._constructed_class(values[0].func)
        return cache[key]

    def method_scope(self, function: ast.Attribute):
        """The scope of the method of a class of this module that `obj.method` runs: `obj` a name bound to
        an instance of it (`env = Env(cfg)`, `env: Env`) or `self.obj` holding one; the class's own method,
        else a base's of this module. None otherwise (another module's class: its summary answers)."""
        holder = function.value
        if _is_self_attribute(holder):
            owner = self.self_attribute_class(holder)
        elif holder.__class__ is ast.Name and holder.id not in ("self", "cls"):
            owner = self.instance_class(holder)
        else:
            return None
        for _ in range(4):
            if not isinstance(owner, ast.ClassDef):
                return None
            method = self.class_methods.get(owner, {}).get(function.attr)
            if method is not None:
                return method
            bases = [b for b in owner.bases if b.__class__ is ast.Name]
            found = [c for c in self.class_methods if bases and c.name == bases[0].id and self.scope_for(c) is self.module_scope]
            owner = found[0] if len(found) == 1 else None
        return None

    def compiled_method(self, binding) -> "Scope | None":
        """The method of a class of this module a compiled callable wraps, `step_fn = jax.jit(env.step)`
        with `env` an instance of it (method_scope): its body runs, traced, on each call."""
        node = getattr(binding, "node", None)
        if binding is None or binding.function is not None or not isinstance(node, ast.Call) or not node.args:
            return None
        wrapped = node.args[0]
        return self.method_scope(wrapped) if isinstance(wrapped, ast.Attribute) else None

    def called_instance_class(self, callee: ast.expr):
        """The class whose instance a call runs (`__call__`): a name bound once to an instance
        (`layer = Block(k)`), `self.obj` holding instances of one class, or the target of a loop over
        a list of instances of one class (`for block in self.blocks`, `self.blocks = [Block(k) for k
        in keys]`). A local ClassDef or a project ClassSummary; None when not known."""
        if _is_self_attribute(callee):
            return self.self_attribute_class(callee)
        if callee.__class__ is not ast.Name or callee.id in ("self", "cls"):
            return None
        return self.instance_class(callee) or self.element_class(callee)

    def element_class(self, name: ast.Name):
        """The class of the elements a loop variable takes, where the name is bound only by one `for`
        over a name or `self.obj` whose every value is a list or tuple of instances of one class
        (`[Block(k) for k in keys]`, `[Block(a), Block(b)]`)."""
        scope = self.scope_for(name)
        owner = owning_scope(self, name.id, scope)
        if owner is None:
            return None
        cache = self.__dict__.setdefault("_element_class_cache", {})
        key = (id(owner), name.id)
        if key not in cache:
            cache[key] = self._element_class(name.id, owner)
        return cache[key]

    def _element_class(self, name: str, owner: Scope):
        loops = [iterable for target, iterable in owner.loops if isinstance(target, ast.Name) and target.id == name]
        if len(loops) != 1 or any(isinstance(t, ast.Name) and t.id == name for t, _ in owner.bindings):
            return None
        iterable = loops[0]
        if _is_self_attribute(iterable):
            holder = owner.enclosing_method()
            values = attribute_values(self, holder.class_node, iterable.attr) if holder is not None else None
        elif isinstance(iterable, ast.Name):
            found = bound_values(self, iterable.id, owner)
            values = found[1] if found is not None else None
        else:
            return None
        if not values:
            return None
        constructors = []
        for value in values:
            if isinstance(value, ast.ListComp):
                elements = [value.elt]
            elif isinstance(value, (ast.List, ast.Tuple)):
                elements = value.elts
            else:
                return None
            if not elements or not all(isinstance(e, ast.Call) for e in elements):
                return None
            constructors += [e.func for e in elements]
        if len({ast.dump(c) for c in constructors}) != 1:
            return None
        return self._constructed_class(constructors[0])

    def _constructed_class(self, constructor: ast.expr):
        """The class a constructor expression names: a local ClassDef or a project ClassSummary."""
        if isinstance(constructor, ast.Name):
            local = [c for c in self.class_methods if c.name == constructor.id and self.scope_for(c) is self.module_scope]
            if len(local) == 1 and constructor.id not in self.imports.aliases:
                return local[0]
        qualified = self.qualified_name(constructor)
        if qualified is not None and self.project is not None and not qualified.startswith(("jax.", "flax.", "equinox.", "numpy.", "builtins.")):
            return self.project.class_(qualified)
        return None

    def instance_method(self, node: ast.Attribute) -> JitBinding | None:
        """The jitted method `obj.method` (or `self.obj.method`) calls, for an instance of a known class."""
        if _is_self_attribute(node.value):
            owner = self.self_attribute_class(node.value) or annotated_classes.self_attribute_class(self, node.value)
        elif not isinstance(node.value, ast.Name) or node.value.id in ("self", "cls"):
            return None
        else:
            owner = self.instance_class(node.value) or annotated_classes.name_class(self, node.value)
        if owner is None:
            return self._picked_instance_method(node)
        return self._compiled_method_of(owner, node)

    def _compiled_method_of(self, owner, node: ast.Attribute) -> JitBinding | None:
        """The compiled method `node.attr` of the class `owner` (a local ClassDef or a project summary)."""
        if isinstance(owner, ast.ClassDef):
            scope = self.class_methods.get(owner, {}).get(node.attr)
            if scope is None:
                # `self._update = jax.jit(update)` in a method of the class: the instance attribute
                # is that compiled callable (every binding of it in the class compiling alike).
                stored = [binding for binding in self.jit_binding_lists.get(f"self.{node.attr}", ())
                          if binding.owner is not None and binding.owner.class_node is owner]
                assigned = sum(1 for method in self.class_methods.get(owner, {}).values() for target, _ in method.bindings
                               if _is_self_attribute(target) and target.attr == node.attr)
                found = (_agreeing(stored) or _copying_alike(stored)) if assigned == len(stored) else None
                return dataclasses.replace(found, key=f"{owner.name}.{node.attr}") if found is not None else None
            for binding in self.jit_binding_lists.get(f"self.{node.attr}", ()):
                if binding.function is scope:
                    return dataclasses.replace(binding, key=f"{owner.name}.{node.attr}")
            return None
        found = self.project.method_and_owner(owner, node.attr) if self.project is not None else None
        summary, owner = found if found is not None else (owner.methods.get(node.attr), owner)
        if summary is None or summary.transform is None:
            return None
        return JitBinding(f"{owner.name}.{node.attr}", summary.transform, node, summary.options, None, via_decorator=True,
                          external_params=list(summary.params), external_has_self=summary.has_self,
                          converted_params=summary.converted_params)

    def _picked_instance_method(self, node: ast.Attribute) -> JitBinding | None:
        """`model.train_step` where `model` was built from a class picked at run time (semantic/
        picked_classes.py): the compiled method every candidate runs, when they agree on it (one
        method they all inherit, or methods compiled alike with the same parameters)."""
        holder = node.value
        candidates = self.self_attribute_classes(holder) if _is_self_attribute(holder) else self.instance_classes(holder)
        if not candidates:
            return None
        bindings = [self._compiled_method_of(owner, node) for owner in candidates]
        if None in bindings:
            return None
        signatures = {
            (b.transform, b.via_decorator, b.argnum_offset, tuple(b.param_names or ()), tuple(sorted((k, ast.dump(v)) for k, v in b.options.items())))
            for b in bindings
        }
        if len(signatures) != 1:
            return None
        if len({b.key for b in bindings}) == 1:
            return bindings[0]  # (one method, inherited by every candidate)
        return dataclasses.replace(bindings[0], key=" or ".join(dict.fromkeys(b.key for b in bindings)))

    def self_attribute_classes(self, node: ast.Attribute) -> list | None:
        """The candidate classes of `self.obj` assigned once in its class, from a class picked at run
        time (`self.algo = ALGOS[cfg.algo](...)`) or from a method of the class whose every return
        builds from one (`self.algo = self._make_algo()`): semantic/picked_classes.py."""
        holder = self.scope_for(node).enclosing_method()
        if holder is None:
            return None
        values = attribute_values(self, holder.class_node, node.attr)
        if not values or len(values) != 1 or not isinstance(values[0], ast.Call):
            return None
        value = values[0]
        found = picked_classes.constructed_classes(value, self.scope_for(value), self)
        if found is not None or value.args or value.keywords or not _is_self_attribute(value.func):
            return found
        method = self.class_methods.get(holder.class_node, {}).get(value.func.attr)  # `self._make_algo()`
        if method is None or not method.returns or method.node.decorator_list:
            return None
        picks = [picked_classes.constructed_classes(returned, method, self) if isinstance(returned, ast.Call) else None for returned in method.returns]
        if None in picks or len({tuple(map(id, pick)) for pick in picks}) != 1:
            return None
        return picks[0]

    def instance_classes(self, name: ast.Name) -> list | None:
        """The candidate classes of an object built once from a class picked at run time (`agent =
        ALGOS[cfg.algo](...)`, `Model = A if flag else B; model = Model(cfg)`): semantic/picked_classes.py."""
        scope = self.scope_for(name)
        owner = owning_scope(self, name.id, scope)
        if owner is None or (owner.is_function and name.id in owner.param_nodes):
            return None
        found = bound_values(self, name.id, scope)
        if found is None:
            return None
        values = [value for value in found[1] if not (isinstance(value, ast.Call) and kept_structure.keeps_structure_of(value, name.id, self))]
        if len(values) != 1 or not isinstance(values[0], ast.Call):
            return None
        return picked_classes.constructed_classes(values[0], found[0], self)

    def may_call_compiled_method(self, call: ast.Call) -> bool:
        """`obj.method(...)` on an object of a class nothing here names, where every class of this
        module that defines `method` compiles it (`@partial(jax.pmap, ...)` on a trainer's
        `call_model`): the call may well run that compiled method. Not a binding: the owner is a
        guess, so it answers "may", for rules that stay silent on what may be compiled."""
        func = call.func
        if not isinstance(func, ast.Attribute) or func.attr.startswith("__"):
            return False
        bindings = self.jit_binding_lists.get(f"self.{func.attr}", ())
        if not bindings or isinstance(func.value, ast.Name) and func.value.id in ("self", "cls"):
            return False
        compiled = {binding.function for binding in bindings}
        # Every def of the name in the module's classes is compiled (a plain `update` elsewhere
        # makes the guess worthless), and the call is none a library model answers for (`opt.update`).
        defined = [methods[func.attr] for methods in self.class_methods.values() if func.attr in methods]
        if not all(scope in compiled for scope in defined):
            return False
        return library_models.call_model(self, call) is None

    def jit_binding_for_call(self, call: ast.Call) -> JitBinding | None:
        """The compiled callable a call invokes, by name or `self.attr`, or `jax.jit(f)(...)` inline."""
        cache = self.__dict__.setdefault("_jit_call_cache", {})
        key = id(call)
        if key not in cache:
            cache[key] = self._jit_binding_for_call(call)
        return cache[key]

    def _jit_binding_for_call(self, call: ast.Call) -> JitBinding | None:
        if isinstance(call.func, (ast.Name, ast.Attribute)):
            binding = self.jit_binding_for_name(call.func)
            if binding is not None:
                return binding
            if call.func.__class__ is ast.Name and len(self.jit_binding_lists.get(call.func.id, ())) > 1:
                binding = _binding_by_arity(call, self)
                if binding is not None:
                    return binding
        if isinstance(call.func, ast.Call) and call.func.args:
            transform = self.transform_of(call.func.func)
            if transform in jaxapi.COMPILING:
                scope = self.scope_for(call)
                resolved = self.resolve_function(call.func.args[0], scope)
                function, bound = (resolved[0], resolved[1]) if resolved else (None, 0)
                return JitBinding("<inline>", transform, call.func, keyword_options(call.func), function, bound)
        return None

    # ----- propagation: helpers called with traced arguments, value levels ---------------------

    def _propagate(self) -> None:
        for _ in range(8):
            changed = False
            for scope in self.scopes:
                if scope.in_traced:
                    self._compute_levels(scope)
                    returned = max((self.level(value, scope) for value in scope.returns), default=NONE)
                    if returned > scope.returns_traced:
                        scope.returns_traced = returned
                        changed = True
                    by_position = self._returns_by_position(scope)
                    if by_position != scope.returns_by_position:
                        scope.returns_by_position = by_position
                        changed = True
            for scope in self.scopes:
                if scope.in_traced:
                    changed |= self._propagate_calls(scope)
            if not changed:
                break

    def _returns_by_position(self, scope: Scope) -> tuple[int, ...] | None:
        returns = scope.returns
        if not returns or not all(isinstance(value, ast.Tuple) for value in returns):
            return None
        width = len(returns[0].elts)
        if any(len(value.elts) != width or any(isinstance(e, ast.Starred) for e in value.elts) for value in returns):
            return None
        return tuple(max(self.level(value.elts[i], scope) for value in returns) for i in range(width))

    def _compute_levels(self, scope: Scope) -> None:
        levels = scope.levels
        overwritten = self._params_overwritten_first(scope)
        levels.update({
            name: max(level, levels.get(name, NONE)) for name, level in scope.traced_params.items() if name not in overwritten
        })
        for _ in range(6):
            changed = False
            for target, value in scope.bindings:
                if value is None:
                    continue
                if isinstance(value, ast.AugAssign):
                    level = ARRAY if max(self.level(value.target, scope), self.level(value.value, scope)) else NONE
                    changed |= self._assign(target, level, scope, None)
                else:
                    changed |= self._assign(target, self.level(value, scope), scope, value)
            for target, iterable in scope.loops:
                changed |= self._assign_loop(target, iterable, scope)
            if not changed:
                break

    def _params_overwritten_first(self, scope: Scope) -> frozenset[str]:
        """Parameters the function rebinds, unconditionally and before any read, in its own body
        (`n = len(d1)` on its first lines): the value a caller passes never reaches a use, so it
        does not make the name traced."""
        cache = self.__dict__.setdefault("_overwritten_params", {})
        found = cache.get(id(scope))
        if found is not None:
            return found
        result: set[str] = set()
        if isinstance(scope.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            undecided = set(scope.traced_params)
            for statement in scope.node.body:
                if not undecided:
                    break
                undecided -= {node.id for node in walk(statement) if node.__class__ is ast.Name and node.ctx.__class__ is ast.Load}
                if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
                    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
                    for target in targets:
                        if isinstance(target, ast.Name) and target.id in undecided:
                            result.add(target.id)
                            undecided.discard(target.id)
        found = cache[id(scope)] = frozenset(result)
        return found

    def _assign(self, target: ast.AST, level: int, scope: Scope, value: ast.AST | None) -> bool:
        if isinstance(target, ast.Name):
            if level > scope.levels.get(target.id, NONE) and not self.in_static_region(target):
                scope.levels[target.id] = level
                return True
            return False
        if isinstance(target, (ast.Tuple, ast.List)):
            changed = False
            if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
                for element, element_value in zip(target.elts, value.elts):
                    changed |= self._assign(element, self.level(element_value, scope), scope, element_value)
                return changed
            positions = self._call_returns_by_position(value, scope, len(target.elts)) if level else None
            if positions is not None:
                # `x, n = pad(x)` where `pad` returns `(array, x.shape[2])`: `n` is a Python int.
                for element, position_level in zip(target.elts, positions):
                    changed |= self._assign(element, min(level, position_level) if position_level else NONE, scope, None)
                return changed
            for element in target.elts:
                changed |= self._assign(element, level, scope, None)
            return changed
        if isinstance(target, ast.Starred):
            return self._assign(target.value, level, scope, None)
        return False

    def _call_returns_by_position(self, value: ast.AST | None, scope: Scope, width: int) -> tuple[int, ...] | None:
        if not isinstance(value, ast.Call) or not isinstance(value.func, (ast.Name, ast.Attribute)):
            return None
        if width == 2 and self.qualified_name(value.func) in jaxapi.TREE_FLATTENING:
            return (TRACED, NONE)  # `leaves, treedef = jax.tree_util.tree_flatten(tree)`: the structure is static
        resolved = self.resolve_function(value.func, scope)
        callee = resolved[0] if resolved is not None else None
        if callee is None or callee.transforms & jaxapi.COMPILING or callee.returns_by_position is None:
            return None
        return callee.returns_by_position if len(callee.returns_by_position) == width else None

    def _assign_loop(self, target: ast.AST, iterable: ast.AST, scope: Scope) -> bool:
        if isinstance(iterable, ast.Call):
            qualified = self.qualified_name(iterable.func)
            if qualified == "builtins.enumerate" and iterable.args and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                return self._assign_loop(target.elts[1], iterable.args[0], scope)
            if qualified == "builtins.zip" and isinstance(target, ast.Tuple) and len(target.elts) == len(iterable.args):
                changed = False
                for element, source in zip(target.elts, iterable.args):
                    changed |= self._assign_loop(element, source, scope)
                return changed
            if isinstance(iterable.func, ast.Attribute) and iterable.func.attr in ("items", "values", "keys"):
                owner = self.level(iterable.func.value, scope)
                if iterable.func.attr == "keys" or not owner:
                    return False
                if iterable.func.attr == "items" and isinstance(target, ast.Tuple) and len(target.elts) == 2:
                    return self._assign(target.elts[1], TRACED, scope, None)
                return self._assign(target, TRACED, scope, None) if iterable.func.attr == "values" else False
            if qualified in jaxapi.ARRAY_SEQUENCE_CALLS:
                # `for piece in jnp.split(x, k)`: a static number of items, each an array.
                return self._assign(target, ARRAY if self.level(iterable, scope) else NONE, scope, None)
        level = self.level(iterable, scope)
        # Iterating an array yields arrays; iterating a pytree may yield dict keys.
        return self._assign(target, ARRAY if level == ARRAY else NONE, scope, None)

    def _propagate_calls(self, scope: Scope) -> bool:
        changed = False
        for call in scope.calls:
            if self.in_static_region(call):
                continue
            qualified = self.qualified_name(call.func)
            targets: list[tuple[Scope, int, set[str], list[ast.expr], list[ast.keyword], bool]] = []
            if qualified in jaxapi.TREE_MAPS and call.args:
                resolved = self.resolve_function(call.args[0], scope)
                if resolved is not None:
                    leaves = [ast.Constant(None) if not self.level(tree, scope) else tree for tree in call.args[1:]]
                    targets.append((*resolved, leaves, [], True))
            elif isinstance(call.func, ast.Call) and call.func.args and self.transform_of(call.func.func):
                # jax.grad(f)(x), jax.vmap(g)(xs) inside traced code: f sees traced x.
                resolved = self.resolve_function(call.func.args[0], scope)
                if resolved is not None:
                    targets.append((*resolved, list(call.args), list(call.keywords), False))
            elif qualified is None:
                resolved = self.resolve_function(call.func, scope)
                closure = self.factory_closure(call.func, scope) if resolved is None else None
                if closure is not None:
                    resolved = (closure, 0, set())  # `apply(params, x)` with `init, apply = make_layer(3)`
                if resolved is not None:
                    targets.append((*resolved, list(call.args), list(call.keywords), False))
                else:
                    applied = self._linen_method_applied(call)
                    if applied is not None:
                        # `model.apply(variables, x, training=t)`: the class's `__call__` (or the
                        # `method=` it names) runs with the arguments after the variables.
                        options = {"method", "rngs", "mutable", "capture_intermediates"}
                        targets.append((applied, 0, set(), list(call.args[1:]), [k for k in call.keywords if k.arg not in options], False))
            for callee, bound, bound_keywords, args, keywords, leaves in targets:
                if callee is None or callee is scope:
                    continue
                visible = callee.params[bound:]
                for position, arg in enumerate(args):
                    if isinstance(arg, ast.Starred) or position >= len(visible):
                        break
                    level = self.level(arg, scope)
                    changed |= self._raise_param(callee, visible[position], level, scope)
                for keyword in keywords:
                    if keyword.arg and (keyword.arg in callee.params or keyword.arg in callee.keyword_params):
                        changed |= self._raise_param(callee, keyword.arg, self.level(keyword.value, scope), scope)
        return changed

    def _linen_method_applied(self, call: ast.Call) -> Scope | None:
        """The method of this module's Flax linen Module class that `model.apply(variables, ...)` or
        `model.init(rngs, ...)` runs: `__call__`, or the one `method=` names (`method=Net.encode`,
        `method="encode"`), for `model` an instance of that class."""
        function = call.func
        if not isinstance(function, ast.Attribute) or function.attr not in ("apply", "init", "init_with_output") or not call.args:
            return None
        method = next((k.value for k in call.keywords if k.arg == "method"), None)
        if method is None:
            name = "__call__"
        elif isinstance(method, ast.Constant) and isinstance(method.value, str):
            name = method.value
        elif isinstance(method, ast.Attribute):
            name = method.attr
        else:
            return None
        return self._linen_method(function, name)

    def _linen_method(self, function: ast.Attribute, name: str) -> Scope | None:
        """Method `name` of the class of this module whose instance `function.value` is, when that
        class is a Flax linen Module."""
        owner = self.called_instance_class(function.value)
        if not isinstance(owner, ast.ClassDef) or library_models.value_class(self, function.value, self.scope_for(function)) != "flax.linen.Module":
            return None
        return self.class_methods.get(owner, {}).get(name)

    def _raise_param(self, callee: Scope, name: str, level: int, caller: Scope) -> bool:
        if not level:
            return False
        if caller not in callee.helper_callers:
            callee.helper_callers.append(caller)
        return self._trace_helper(callee, name, level, caller.differentiated)

    def _trace_helper(self, callee: Scope, name: str, level: int, differentiated: bool, abstract: bool = False) -> bool:
        """Mark `callee` traced as a helper of traced code, its parameter `name` at `level` at least;
        whether anything changed."""
        if self._annotated_array(callee, name) or (level and self._scalar_default(callee, name)):
            level = ARRAY  # (a flag or number defaulted `training=False`: traced, a scalar tracer)
        callee.bound_when_traced = set()
        changed = False
        if not callee.traced:
            callee.traced = True
            callee.transforms.add("helper")
            changed = True
        if abstract and not callee.abstract_transform:
            callee.abstract_transform = True
            changed = True
        if differentiated and not callee.differentiated:
            callee.differentiated = True
            changed = True
        if differentiated:
            callee.differentiated_wrt = None
        if level > callee.traced_params.get(name, NONE):
            callee.traced_params[name] = level
            changed = True
        return changed

    # ----- callers in other modules (semantic/callers.py) --------------------------------------

    def _trace_from_importers(self) -> None:
        """Module-level functions nothing here traces, called with traced arguments from another
        module's traced code: their parameters are traced as a same-module helper's would be."""
        candidates = {
            name: scope for name, scope in self.module_scope.defs.items()
            if scope is not None and scope.transforms <= {"helper"} and (scope.params or scope.keyword_params)
        }
        if not candidates:
            return
        called = self.project.called_from_traced_code(set(candidates))
        candidates = {name: scope for name, scope in candidates.items() if name in called}
        if not candidates:
            return
        try:
            demanding = self._demanding_python_values(candidates)
        except RecursionError:
            return  # an expression too deep to read: no callers looked for
        candidates = {name: scope for name, scope in candidates.items() if name in demanding}
        if not candidates:
            return
        found = self.project.calls_into(set(candidates), tuple(self.extra_traced))
        if not found:
            return
        self.exported_calls()  # what importers of this module see stays one level deep
        changed = False
        for name, call in found:
            callee = candidates[name]
            params = callee.params
            for position, level in enumerate(call.positional):
                if position < len(params):
                    changed |= self._raise_external(callee, params[position], level, call)
            for keyword, level in call.keywords:
                if keyword in params or keyword in callee.keyword_params:
                    changed |= self._raise_external(callee, keyword, level, call)
        if changed:
            self._propagate()
            self._abstract = self._abstractly_traced()

    def _demanding_python_values(self, candidates: dict[str, Scope]) -> set[str]:
        """The candidates that need a Python value of something computed from their parameters: a
        branch or `assert` on it, `bool`/`int`/`float`, NumPy or `math`, `.item()`, a shape. Only such
        a function behaves differently when a caller traces it, so only its callers are looked for."""
        owners = {scope: name for name, scope in candidates.items()}
        derived: dict[Scope, set[str]] = {}
        demanding: set[str] = set()
        module_scope = self.module_scope
        for node in self.nodes:
            kind = node.__class__
            if kind not in _DEMAND_TYPES:
                continue
            scope = getattr(node, SCOPE, None)
            while scope is not None and scope.parent is not module_scope:
                scope = scope.parent
            name = owners.get(scope)
            if name is None or name in demanding:
                continue
            names = derived.get(scope)
            if names is None:
                names = derived[scope] = self._derived_from_params(scope)
            if kind is ast.Call:
                function = node.func
                if isinstance(function, ast.Attribute) and function.attr in _VALUE_METHODS:
                    operands = [function.value, *node.args]
                elif (self.qualified_name(function) or "").startswith(_VALUE_PREFIXES) or self.qualified_name(function) in _VALUE_CALLS:
                    operands = [*node.args, *(k.value for k in node.keywords)]
                else:
                    continue
            elif kind is ast.BoolOp:
                operands = node.values
            elif kind is ast.UnaryOp:
                if not isinstance(node.op, ast.Not):
                    continue
                operands = [node.operand]
            else:
                operands = [node.test]
            if any(self._mentions_value(operand, names) for operand in operands):
                demanding.add(name)
        return demanding

    def _derived_from_params(self, scope: Scope) -> set[str]:
        """The parameters of a function and the local names computed from them (flow-insensitive)."""
        derived = set(scope.all_params())
        for _ in range(2):
            for target, value in scope.bindings:
                if value is not None and self._mentions_value(value, derived):
                    derived.update(bound_names(target))
            for target, iterable in scope.loops:
                if self._mentions_value(iterable, derived):
                    derived.update(bound_names(target))
        return derived

    def _mentions_value(self, node: ast.AST, names: set[str]) -> bool:
        """`node` reads the value of one of `names` (not only its shape, dtype, identity or type)."""
        kind = node.__class__
        if kind is ast.Name:
            return node.id in names
        if kind is ast.Attribute:
            return node.attr not in jaxapi.STATIC_ATTRIBUTES and self._mentions_value(node.value, names)
        if kind is ast.Compare and any(isinstance(op, (ast.Is, ast.IsNot)) for op in node.ops):
            return False
        if kind is ast.Call:
            qualified = self.qualified_name(node.func)
            if qualified in jaxapi.STATIC_CALLS:
                return False
        if kind in FUNCTION_TYPES:
            return False
        return any(self._mentions_value(child, names) for child in ast.iter_child_nodes(node))

    def _raise_external(self, callee: Scope, name: str, level: int, call) -> bool:
        if not level:
            return False
        return self._trace_helper(callee, name, level, call.differentiated, abstract=call.abstract)

    def exported_calls(self) -> tuple:
        """Calls from this module's traced code into functions of other project modules, with the
        level of each argument; taken before this module's own importers are applied."""
        if self._exported_calls is not None:
            return self._exported_calls
        calls = []
        for scope in self.scopes:
            if not scope.in_traced:
                continue
            abstract = not self.runs_concretely(scope)
            for call in scope.calls:
                qualified = self.qualified_name(call.func)
                if qualified is None or "." not in qualified or qualified.partition(".")[0] in _EXTERNAL_ROOTS:
                    continue
                if self.in_static_region(call) or self.dead_when_traced(call, scope):
                    continue
                positional = []
                for arg in call.args:
                    if isinstance(arg, ast.Starred):
                        break
                    positional.append(self.level(arg, scope))
                keywords = tuple((k.arg, self.level(k.value, scope)) for k in call.keywords if k.arg is not None)
                if any(positional) or any(level for _, level in keywords):
                    calls.append(ExternalCall(qualified, tuple(positional), keywords, abstract, scope.differentiated))
        self._exported_calls = tuple(calls)
        return self._exported_calls

    def _abstractly_traced(self) -> set:
        """Traced scopes whose values are abstract: reached by jit, vmap, pmap, a lax body or a
        custom derivative, or by autodiff from code that is itself abstract. Under `jax.grad`
        alone the tracer carries a concrete value, so `if x > 0` and `float(x)` work there."""
        seeds = {scope for scope in self.scopes if scope.traced and scope.abstract_transform}
        # (`grad_fn = jax.grad(loss)` bound once, called inside abstract code: loss is abstract there.)
        return self._spread_to_traced_callees(seeds, jaxapi.DIFFERENTIATING, unknown_sites=False)

    def runs_concretely(self, scope: Scope) -> bool:
        """Traced only by autodiff outside any jit: the values are concrete (Python control flow and
        conversions work, though each op dispatches eagerly)."""
        return scope.in_traced and not _within_any(scope, self._abstract)

    def runs_uncompiled(self, scope: Scope) -> bool:
        """Traced only by transforms that run op by op outside any jit (`jax.vmap(f)(xs)`, `jax.grad`
        at top level): each operation dispatches eagerly, nothing is compiled as one program, so a
        Python loop there costs time per iteration but no compile time. Unknown tracing counts as compiled."""
        if not scope.in_traced:
            return False
        compiled = self.__dict__.get("_compiled")
        if compiled is None:
            compiled = self._compiled = self._compiled_scopes()
        return not _within_any(scope, compiled)

    def _compiled_scopes(self) -> set:
        seeds = {scope for scope in self.scopes if scope.traced and (not scope.transforms or scope.transforms - jaxapi.EAGER_TRACING)}
        # (`batched = jax.vmap(step)` bound once, called inside compiled code: step is compiled there.)
        return self._spread_to_traced_callees(seeds, None, unknown_sites=True)

    def _spread_to_traced_callees(self, seeds: set, bound_transforms: frozenset | None, *, unknown_sites: bool) -> set:
        """`seeds` and every traced scope that some scope in the set (or nested in one) traces or
        calls: through its trace sites and helper callers, and through a name bound once to a
        transform of it (`g = jax.vmap(f)`; only `bound_transforms` when given). With `unknown_sites`,
        a traced scope whose tracing site is unknown joins too."""
        traced = [scope for scope in self.scopes if scope.traced]
        reached = set(seeds)
        for _ in range(8):
            changed = False
            for scope in traced:
                if scope in reached:
                    continue
                sites = [*scope.trace_sites, *scope.helper_callers]
                if (unknown_sites and (not sites or any(site is None for site in sites))) or any(_within_any(site, reached) for site in sites):
                    reached.add(scope)
                    changed = True
            for scope in list(reached):
                for function in self._transformed_callees(scope, bound_transforms):
                    if function not in reached:
                        reached.add(function)
                        changed = True
            if not changed:
                break
        return reached

    def _transformed_callees(self, scope: Scope, transforms: frozenset | None) -> list[Scope]:
        """The functions `scope` calls through a name bound once to a transform of them (`g = jax.vmap(f)`),
        of one of `transforms` when given."""

        found: list[Scope] = []
        for call in scope.calls:
            if not isinstance(call.func, ast.Name):
                continue
            bound = bound_values(self, call.func.id, scope)
            if bound is None or len(bound[1]) != 1 or not isinstance(bound[1][0], ast.Call):
                continue
            value = bound[1][0]
            transform = self.transform_of(value.func)
            if transform is not None and (transforms is None or transform in transforms) and value.args:
                resolved = self.resolve_function(value.args[0], bound[0])
                if resolved is not None and resolved[0] is not None:
                    found.append(resolved[0])
        return found

    def in_static_region(self, node: ast.AST) -> bool:
        """Inside `with jax.ensure_compile_time_eval():`, values are concrete."""
        if not self._uses_compile_time_eval():
            return False  # (most modules: no need to climb from every node asked about)
        for ancestor in ancestors(node):
            if isinstance(ancestor, FUNCTION_NODES):
                return False
            if isinstance(ancestor, ast.With):
                for item in ancestor.items:
                    expression = item.context_expr
                    if isinstance(expression, ast.Call) and self.qualified_name(expression.func) == "jax.ensure_compile_time_eval":
                        return True
        return False

    def _uses_compile_time_eval(self) -> bool:
        """Some `with` statement of the module enters `jax.ensure_compile_time_eval()` (kept once known)."""
        found = self.__dict__.get("_compile_time_eval")
        if found is None:
            found = self._compile_time_eval = any(
                isinstance(item.context_expr, ast.Call) and self.qualified_name(item.context_expr.func) == "jax.ensure_compile_time_eval"
                for statement in self.with_statements for item in statement.items
            )
        return found

    def dead_when_traced(self, node: ast.AST, scope: Scope) -> bool:
        """Code under `if p is None:` where every traced entry binds `p` with functools.partial, or
        under a test that `jit` is switched off (semantic/jit_disabled.py)."""
        if jit_disabled.runs_only_without_jit(node, scope, self):
            return True
        bound = scope.bound_when_traced
        if not bound:
            return False
        child = node
        for ancestor in ancestors(node):
            if ancestor is scope.node:
                return False
            if isinstance(ancestor, ast.If) and isinstance(ancestor.test, ast.Compare) and len(ancestor.test.ops) == 1:
                test = ancestor.test
                tested = test.left.id if isinstance(test.left, ast.Name) else None
                is_none = isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
                if tested in bound and is_none:
                    if isinstance(test.ops[0], ast.Is) and child in ancestor.body:
                        return True
                    if isinstance(test.ops[0], ast.IsNot) and child in ancestor.orelse:
                        return True
            child = ancestor
        return False

    def isinstance_tests(self, name: ast.Name) -> Iterator[tuple[bool, list[str | None]]]:
        """Each enclosing `if isinstance(name, T):` in the function: (is `name` in its if-branch, T's
        qualified names). A test that leaves the block when it holds (`if isinstance(x, Tracer): raise
        ...`, `if not isinstance(n, int): return`) counts for the statements after it as its `else`
        (its if-branch) does."""
        child = name
        for ancestor in ancestors(name):
            if isinstance(ancestor, ast.If) and child is not ancestor.test:
                types = self._isinstance_of(ancestor.test, name.id)
                if types is not None:
                    yield child in ancestor.body, types
            for block_name in ("body", "orelse", "finalbody"):
                block = getattr(ancestor, block_name, None)
                if not isinstance(block, list) or child not in block:
                    continue
                for statement in block:
                    if statement is child:
                        break
                    if not (isinstance(statement, ast.If) and statement.body and isinstance(statement.body[-1], (ast.Return, ast.Raise))):
                        continue
                    test, negated = statement.test, False
                    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
                        # `if not isinstance(x, T) or x.is_deleted(): return`: past it, every part is false.
                        test = next((part for part in test.values if isinstance(part, ast.UnaryOp) and isinstance(part.op, ast.Not)), test)
                    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
                        test, negated = test.operand, True
                    types = self._isinstance_of(test, name.id)
                    if types is not None:
                        yield negated, types
            if isinstance(ancestor, FUNCTION_NODES):
                return
            child = ancestor

    def _isinstance_of(self, test: ast.expr, name: str) -> list[str | None] | None:
        """The qualified types of `isinstance(name, T)` (T a type or a tuple of types), else None."""
        if (
            isinstance(test, ast.Call) and self.qualified_name(test.func) == "builtins.isinstance"
            and len(test.args) == 2 and root_name(test.args[0]) == name
        ):
            types = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
            return [self.qualified_name(t) for t in types]
        return None

    def narrowed_to_non_array(self, name: ast.Name) -> bool:
        """`else` branch of `if isinstance(name, (jnp.ndarray, ...)):`, or the body of `if
        isinstance(name, int):` (Python scalar types only): the value is not an array here."""
        return any(
            (not in_body and any(t in _ARRAY_TYPES for t in types)) or (in_body and types and all(t in _SCALAR_TYPES for t in types))
            for in_body, types in self.isinstance_tests(name)
        )

    # ----- value levels inside traced code ---------------------------------------------------

    def name_level(self, name: str, scope: Scope) -> int:
        current: Scope | None = scope
        while current is not None:
            if name in current.local_names or name in current.levels:
                if name in current.declared_free:
                    current = current.parent
                    continue
                return current.levels.get(name, NONE) if current.in_traced else NONE
            current = current.parent
        return NONE

    def level(self, node: ast.AST, scope: Scope) -> int:
        """How surely `node`, evaluated in `scope`, is a tracer: NONE, TRACED or ARRAY."""
        if isinstance(node, ast.Name):
            if node.id in ("self", "cls") and scope.has_self:
                return NONE
            level = self.name_level(node.id, scope)
            if level and parent_of(node) is not None:
                generator = _comprehension_binding(node)
                if generator is not None:
                    # `tuple(i for i in range(k) if i != c)`: the comprehension's own `i`, not the function's.
                    return ARRAY if self.level(generator.iter, scope) == ARRAY else NONE
                if self.narrowed_to_non_array(node):
                    return NONE
                if node.id in scope.local_names:
                    level = self._reaching_level(node, scope, level)
            return level
        if isinstance(node, ast.Attribute):
            if node.attr in jaxapi.STATIC_ATTRIBUTES:
                return NONE
            owner = self.level(node.value, scope)
            if node.attr in ("T", "mT", "real", "imag", "at", "flat") and owner:
                return ARRAY
            return NONE
        if isinstance(node, ast.Subscript):
            level = self.level(node.value, scope)
            if not level and self._traced_index(node.slice, scope):
                return TRACED  # `table[i]` with a traced `i`: what is picked depends on the tracer
            return level
        if isinstance(node, ast.Call):
            return self._call_level(node, scope)
        if isinstance(node, ast.BinOp):
            if isinstance(node.left, (ast.Constant, ast.JoinedStr)) and isinstance(getattr(node.left, "value", None), str):
                return NONE
            return ARRAY if max(self.level(node.left, scope), self.level(node.right, scope)) else NONE
        if isinstance(node, ast.UnaryOp):
            if isinstance(node.op, ast.Not):
                return NONE
            return ARRAY if self.level(node.operand, scope) else NONE
        if isinstance(node, ast.Compare):
            if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in node.ops):
                return NONE
            operands = [node.left, *node.comparators]
            # `mode == "regular"`: no array holds a string, so the other side is a Python value.
            # `state != None`: an identity test spelled with `!=` (on a pytree object it is a Python bool).
            if any(isinstance(o, ast.JoinedStr) or (isinstance(o, ast.Constant) and (o.value is None or isinstance(o.value, (str, bytes)))) for o in operands):
                return NONE
            levels = [self.level(operand, scope) for operand in operands]
            if not any(levels):
                return NONE
            # Comparing with a value known not to be an array here (`else` of an isinstance test):
            # the types are meant to match, so the result is a Python bool.
            if any(isinstance(o, ast.Name) and parent_of(o) is not None and self.narrowed_to_non_array(o) for o in operands):
                return NONE
            return ARRAY
        if isinstance(node, ast.BoolOp):
            return max(self.level(value, scope) for value in node.values)
        if isinstance(node, ast.IfExp):
            return max(self.level(node.body, scope), self.level(node.orelse, scope))
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return TRACED if any(self.level(element, scope) for element in node.elts) else NONE
        if isinstance(node, ast.Dict):
            return TRACED if any(value is not None and self.level(value, scope) for value in node.values) else NONE
        if isinstance(node, ast.NamedExpr):
            return self.level(node.value, scope)
        if isinstance(node, ast.Starred):
            return self.level(node.value, scope)
        return NONE

    def _traced_index(self, index: ast.AST, scope: Scope) -> bool:
        """An index (not a slice: traced slice bounds are an error of their own) with a traced value
        among its elements."""
        elements = index.elts if isinstance(index, ast.Tuple) else [index]
        return any(not isinstance(element, ast.Slice) and self.level(element, scope) for element in elements)

    def _reaching_level(self, name: ast.Name, scope: Scope, level: int) -> int:
        """A name's level where it is read: the level of the one binding that reaches the read, when
        one surely does (semantic/reaching.py), else the highest of all its bindings. `traj =
        buffer.contents()` read before a later `traj = (obs, log_prob)` is the host value it holds;
        an element of an unpacking (`mean, x = run(x)`) is that element's level, as _assign gives it."""
        bound = [target for target, _ in (*scope.bindings, *scope.loops) if name.id in bound_names(target)]
        if len(bound) < 2:
            return level  # (one binding, or a parameter rebound once: the name's level is the answer)
        reached = reaching_binding(name, scope.bindings, scope.loops)
        if reached is None:
            return level
        target, value = reached
        return min(level, self._element_level(target, value, name.id, scope, self.level(value, scope)))

    def _element_level(self, target: ast.AST, value: ast.AST | None, name: str, scope: Scope, whole: int) -> int:
        """The level `_assign` gives `name`, one of the names that `target = value` binds, the whole
        value being at level `whole`."""
        if isinstance(target, ast.Name):
            return whole if target.id == name else NONE
        if isinstance(target, ast.Starred):
            return self._element_level(target.value, None, name, scope, whole)
        if not isinstance(target, (ast.Tuple, ast.List)):
            return NONE
        if isinstance(value, (ast.Tuple, ast.List)) and len(value.elts) == len(target.elts):
            return max(self._element_level(element, part, name, scope, self.level(part, scope)) for element, part in zip(target.elts, value.elts))
        positions = self._call_returns_by_position(value, scope, len(target.elts)) if whole else None
        found = NONE
        for index, element in enumerate(target.elts):
            if name in bound_names(element):
                element_whole = whole if positions is None else (min(whole, positions[index]) if positions[index] else NONE)
                found = max(found, self._element_level(element, None, name, scope, element_whole))
        return found

    def _call_level(self, call: ast.Call, scope: Scope) -> int:
        qualified = self.qualified_name(call.func)
        arguments = [*call.args, *(keyword.value for keyword in call.keywords)]
        if qualified is not None:
            if qualified in jaxapi.STATIC_CALLS or qualified in jaxapi.HOST_SCALAR_CALLS:
                return NONE
            if qualified in jaxapi.TREE_MAPS and call.args and _reads_only_static_attributes(call.args[0]):
                return NONE  # `tree_map(lambda x: x.shape[0], params)`: a pytree of Python ints
            if qualified in jaxapi.CONTAINER_RESULT_CALLS:
                return TRACED if any(self.level(arg, scope) for arg in arguments) else NONE
            if qualified in framework_methods.SAMPLE_SITES and scope.in_traced:
                return ARRAY  # a NumPyro sample site's value, in a model its inference traces
            if qualified == "jax.lax.psum" and call.args and isinstance(call.args[0], ast.Constant):
                # `jax.lax.psum(1, axis_name)`: JAX sums a Python constant at trace time: the axis
                # size, a concrete number (`range(axis_size)` works).
                return NONE
            if qualified.startswith(jaxapi.ARRAY_NAMESPACES):
                if any(self.level(arg, scope) for arg in arguments):
                    return ARRAY
                return ARRAY if self._staged_under_jit(call, scope, qualified) else NONE
            if qualified in ("builtins.abs", "builtins.sum", "builtins.round", "builtins.pow"):
                return ARRAY if any(self.level(arg, scope) == ARRAY for arg in call.args) else NONE
            if qualified in ("builtins.tuple", "builtins.list", "builtins.sorted", "builtins.reversed"):
                return TRACED if call.args and self.level(call.args[0], scope) else NONE
            if qualified in ("builtins.max", "builtins.min"):
                return ARRAY if any(self.level(arg, scope) for arg in call.args) else NONE
            return self._opaque_call_level(call, scope, arguments, qualified)
        if isinstance(call.func, ast.Attribute):
            method = call.func.attr
            owner = self.level(call.func.value, scope)
            if owner:
                if method in jaxapi.HOST_METHODS:
                    return NONE
                if owner == TRACED and method in ("get", "values", "copy", "pop", "setdefault"):
                    return TRACED
                if method in jaxapi.ARRAY_METHODS:
                    return ARRAY
                return NONE
        if isinstance(call.func, ast.Call) and self.transform_of(call.func.func):
            return TRACED if any(self.level(arg, scope) for arg in arguments) else NONE
        resolved = self.resolve_function(call.func, scope)
        if resolved is not None and resolved[0] is not None:
            callee = resolved[0]
            if callee.transforms & jaxapi.COMPILING or (callee.traced and callee.returns_traced):
                # A jitted function, or a helper whose returns are traced, called with traced arguments.
                return TRACED if any(self.level(arg, scope) for arg in arguments) else NONE
            return NONE  # (a function of the module whose returns are known: not traced)
        closure = self.factory_closure(call.func, scope)
        if closure is not None and closure.traced:
            return TRACED if closure.returns_traced and any(self.level(arg, scope) for arg in arguments) else NONE
        return self._opaque_call_level(call, scope, arguments, None)

    def _staged_under_jit(self, call: ast.Call, scope: Scope, qualified: str) -> bool:
        """A `jax.numpy` computation in the body of a function compiled itself (`@jax.jit`, `g =
        jax.jit(f)`), of static arguments only: under `jit` every `jnp` operation is staged into the
        program, so `jnp.array(x.shape).prod()` is a tracer, not a number (checked on jax 0.10.2; under
        `grad` or `vmap` alone it stays concrete, so only compiled functions count). Not inside
        `jax.ensure_compile_time_eval()`, and not the namespace's functions that return no array
        (jaxapi.STATIC_CALLS, `jnp.vectorize`, `jnp.broadcast_shapes`, ...)."""
        if not qualified.startswith("jax.numpy.") or qualified in _NO_ARRAY_RESULT:
            return False
        if not qualified.rpartition(".")[2][:1].islower():
            return False  # (a class or constant of the namespace: `jnp.float32(...)` is an array too, but keep to functions)
        if not scope.is_function or not (scope.transforms & jaxapi.COMPILING) or scope.host_callback:
            return False
        return not self.in_static_region(call)

    def _opaque_call_level(self, call: ast.Call, scope: Scope, arguments: list[ast.expr], qualified: str | None) -> int:
        """A call whose code the model does not see (a function passed in or held in an attribute,
        a local alias of a transform, a call of another library or module, a call the binder cannot
        match): what it returns is computed from what it is handed, so with a traced argument it is
        traced (TRACED: it may be a pytree), unless a library model says it gives back host data or a
        callable, or it is of a module that computes on the host (`numpy`, `math`, the standard
        library: jaxapi.HOST_MODULES)."""
        if qualified is not None and (qualified.startswith(jaxapi.HOST_MODULES) or qualified in jaxapi.HOST_RESULT_CALLS):
            return NONE
        function = call.func
        if isinstance(function, ast.Attribute) and isinstance(function.value, (ast.Constant, ast.JoinedStr)):
            return NONE  # `"-".join(parts)`, `"{}".format(x)`: a string method
        if not any(self.level(arg, scope) for arg in arguments):
            return NONE
        modelled = library_models.call_model(self, call, scope)
        if modelled is not None and modelled.returns is not None:
            parts = modelled.returns[len("tuple:"):].split(",") if modelled.returns.startswith("tuple:") else [modelled.returns]
            if all(part in ("host", "no_buffers", "callable", "jitted") or part.startswith(("object:", "function:")) for part in parts):
                return NONE
        return TRACED


# `jax.numpy` functions whose result is no array (a callable, shapes, printing or file options).
_NO_ARRAY_RESULT = frozenset({
    "jax.numpy.vectorize", "jax.numpy.frompyfunc", "jax.numpy.broadcast_shapes", "jax.numpy.printoptions",
    "jax.numpy.set_printoptions", "jax.numpy.get_printoptions", "jax.numpy.save", "jax.numpy.savez", "jax.numpy.load",
})
# Calls and methods that need a Python value (or a concrete shape) of their argument.
_VALUE_CALLS = jaxapi.HOST_SCALAR_CALLS | {
    "builtins.range", "builtins.min", "builtins.max", "builtins.round", "builtins.print",
    "jax.numpy.zeros", "jax.numpy.ones", "jax.numpy.empty", "jax.numpy.full", "jax.numpy.arange",
    "jax.numpy.eye", "jax.numpy.linspace", "jax.numpy.tri", "jax.numpy.reshape", "jax.numpy.broadcast_to",
}
VALUE_CALLS = _VALUE_CALLS  # (public: a size handed to one of these fixes the program, jit_in_loop.py)
_VALUE_PREFIXES = ("numpy.", "math.")
_DEMAND_TYPES = frozenset({ast.If, ast.While, ast.IfExp, ast.Assert, ast.BoolOp, ast.UnaryOp, ast.Call})
_VALUE_METHODS = frozenset({"item", "tolist", "reshape", "__bool__", "__index__", "__float__", "__int__"})


def _is_self_attribute(node: ast.AST) -> bool:
    """`self.obj`: an attribute of the instance a method runs on."""
    return node.__class__ is ast.Attribute and node.value.__class__ is ast.Name and node.value.id == "self"


_NOT_OWN = object()  # `_own_class_binding`: the class of the use says nothing


def _binding_class(binding: JitBinding) -> ast.ClassDef | None:
    """The class whose method a binding compiles (`@jax.jit def _step(self, ...)`) or whose method
    stores it (`self._step = jax.jit(f)` in `__init__`)."""
    if binding.via_decorator and binding.function is not None and binding.function.class_node is not None:
        return binding.function.class_node
    return binding.owner.class_node if binding.owner is not None else None


def _agreeing(bindings: list[JitBinding]) -> JitBinding | None:
    """One of several bindings when they compile the same way (transform, options and parameters)."""
    if not bindings:
        return None
    first = bindings[0]
    signature = _binding_signature(first)
    if all(_binding_signature(other) == signature for other in bindings[1:]):
        return first
    return None


def _binding_by_arity(call: ast.Call, model: "SemanticModel") -> JitBinding | None:
    """The one compiled def, of several bound to the call's name in the scope it resolves to, whose
    parameters can take the call's arguments (`@jax.jit def step(params, x)` in one arm of an `if`,
    `@jax.jit def step(params, dt, x)` in the other, called with two arguments in one arm and three
    in the other): Python binds arguments to parameters, so any other def would raise at the call."""
    if any(isinstance(argument, ast.Starred) for argument in call.args) or any(k.arg is None for k in call.keywords):
        return None
    name = call.func.id
    current: Scope | None = model.scope_for(call)
    while current is not None and not (name in current.local_names or name in current.defs):
        current = current.parent
    if current is None:
        return None
    owned = [binding for binding in model.jit_binding_lists.get(name, ()) if binding.owner is current]
    if len(owned) < 2 or any(b.function is None or b.bound_positional or b.function.has_self or not isinstance(b.function.node, (ast.FunctionDef, ast.AsyncFunctionDef)) for b in owned):
        return None
    fitting = [binding for binding in owned if _takes_arguments(binding.function.node.args, call)]
    return fitting[0] if len(fitting) == 1 else None


def _takes_arguments(arguments: ast.arguments, call: ast.Call) -> bool:
    """Whether a def of these parameters accepts the call's positional and keyword arguments."""
    positional = [a.arg for a in arguments.posonlyargs + arguments.args]
    count = len(call.args)
    if count > len(positional) and arguments.vararg is None:
        return False
    keywords = {k.arg for k in call.keywords}
    named = set(positional[count:]) | {a.arg for a in arguments.kwonlyargs}
    if arguments.kwarg is None and not keywords <= named:
        return False
    with_default = len(arguments.defaults)
    required = positional[count:len(positional) - with_default] if with_default else positional[count:]
    required_kw = [a.arg for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is None]
    return all(parameter in keywords for parameter in required + required_kw)


def _copying_alike(bindings: list[JitBinding]) -> JitBinding | None:
    """One of several bindings of an attribute (`jax.pmap(update)` on several devices, else
    `jax.jit(update)`) when they compile the same parameters and none donates or holds one static:
    every branch copies the same arguments."""
    if not bindings or len({tuple(b.param_names or ()) for b in bindings}) != 1 or bindings[0].param_names is None:
        return None
    if any(set(b.options) & PLACEMENT_OPTIONS or b.via_decorator or b.built_by_factory for b in bindings):
        return None
    return bindings[0]



def _in_both_arms(bindings: list[JitBinding]) -> bool:
    """Two bindings, one in each arm of the same `if`/`else` (directly, as statements of its two
    blocks): exactly one of them runs."""
    if len(bindings) != 2:
        return False
    statements = [parent_of(binding.node) for binding in bindings]
    branches = [parent_of(statement) for statement in statements]
    if branches[0] is not branches[1] or not isinstance(branches[0], ast.If):
        return False
    branch = branches[0]
    return (statements[0] in branch.body and statements[1] in branch.orelse) or (statements[1] in branch.body and statements[0] in branch.orelse)


def _binding_signature(binding: JitBinding) -> tuple:
    options = tuple(sorted((name, ast.dump(value)) for name, value in binding.options.items()))
    return binding.transform, options, tuple(binding.param_names or ()), binding.argnum_offset


def _reaching(bindings: list[JitBinding], use: ast.AST, scope: Scope, model: "SemanticModel") -> JitBinding | None:
    """The binding whose statement last precedes `use` in straight-line code of the same scope."""
    if model.scope_for(use) is not scope:
        return None
    use_ancestors = list(ancestors(use))
    position = (use.lineno, use.col_offset)
    best: tuple[tuple[int, int], ast.AST, JitBinding] | None = None
    for binding in bindings:
        statement = binding.node
        while statement is not None and not isinstance(statement, ast.stmt):
            statement = parent_of(statement)
        if statement is None or statement in use_ancestors:
            return None
        end = (statement.end_lineno or statement.lineno, statement.end_col_offset or 0)
        if end <= position and (best is None or end > best[0]):
            best = (end, statement, binding)
    if best is None:
        return None
    block = parent_of(best[1])
    if block is None or (block is not scope.node and block not in use_ancestors):
        return None  # bound in a branch the use is not in: either binding may reach it
    for field_name in ("body", "orelse", "finalbody", "handlers"):
        statements = getattr(block, field_name, None)
        if isinstance(statements, list) and best[1] in statements:
            if not any(ancestor in statements for ancestor in [use, *use_ancestors]):
                return None
            return None if _later_binding_in_loop(bindings, use, use_ancestors) else best[2]
    return None


def _all_bound_later(bindings: list[JitBinding], use: ast.AST, scope: Scope, model: "SemanticModel") -> bool:
    """In module-level code (a script, a notebook's cells in order), every binding is made by a top-level
    statement that starts after the top-level statement holding `use` ends: none has run when `use` does
    (`grad_fn = jax.grad(loss)` used in a loop, then `grad_fn = jax.jit(...)` in a later cell)."""
    if scope.parent is not None or model.scope_for(use) is not scope:
        return False
    body = getattr(scope.node, "body", None)
    if not isinstance(body, list):
        return False
    holder = next((a for a in [use, *ancestors(use)] if a in body), None) if body else None
    if holder is None:
        return False
    end = holder.end_lineno or holder.lineno
    for binding in bindings:
        statement = binding.node
        while statement is not None and statement not in body:
            statement = parent_of(statement)
        if statement is None or statement.lineno <= end:
            return False
    return True


def _within_any(scope: Scope | None, scopes: set) -> bool:
    """`scope` or a scope around it is one of `scopes`."""
    while scope is not None:
        if scope in scopes:
            return True
        scope = scope.parent
    return False


def _name_bindings(scope: Scope, model: "SemanticModel") -> dict[str, list[tuple[ast.Name, ast.AST | None]]]:
    """The bindings of `scope` to plain names, by name, indexed once per scope (rebuilt if more were
    added since): a scan of every binding of the module per name read made big modules quadratic."""
    indexes = model.__dict__.setdefault("_name_bindings", {})
    cached = indexes.get(id(scope))
    if cached is not None and cached[0] == len(scope.bindings):
        return cached[1]
    index: dict[str, list[tuple[ast.Name, ast.AST | None]]] = {}
    for target, value in scope.bindings:
        if isinstance(target, ast.Name):
            index.setdefault(target.id, []).append((target, value))
    indexes[id(scope)] = (len(scope.bindings), index)
    return index


def _partial_keywords(call: ast.Call, target: Scope | None) -> set[str]:
    """The keywords a `functools.partial(f, ...)` binds. A spread dict (`partial(f, **options)`) may
    bind any parameter that has a default, with whatever constant the dict holds: those count as
    bound too, since nothing shows they are left for the traced call."""
    keywords = {keyword.arg for keyword in call.keywords if keyword.arg}
    if target is not None and any(keyword.arg is None for keyword in call.keywords):
        keywords |= _parameters_with_defaults(target.node)
    return keywords


def _parameters_with_defaults(function: ast.AST) -> set[str]:
    arguments = getattr(function, "args", None)
    if not isinstance(arguments, ast.arguments):
        return set()
    positional = [*arguments.posonlyargs, *arguments.args]
    names = {argument.arg for argument in positional[len(positional) - len(arguments.defaults):]} if arguments.defaults else set()
    names |= {argument.arg for argument, default in zip(arguments.kwonlyargs, arguments.kw_defaults) if default is not None}
    return names


def _partial_rebinding(use: ast.Name, scope: Scope, model: "SemanticModel") -> ast.Call | None:
    """`f = functools.partial(f, k=v)` in the body of `scope`, after `def f` and before `use` in the
    same straight-line code, when that is the only other binding of `f` there: the value `use` reads."""
    found = None
    for target, value in _name_bindings(scope, model).get(use.id, ()):
        if found is not None or not (
            isinstance(value, ast.Call) and value.args and isinstance(value.args[0], ast.Name) and value.args[0].id == use.id
            and model.qualified_name(value.func) == "functools.partial"
        ):
            return None
        found = value
    if found is None:
        return None
    statement = parent_of(found)
    if not isinstance(statement, ast.Assign) or parent_of(statement) is not scope.node:
        return None  # bound in a branch or a loop: it may not reach the use
    if (statement.end_lineno or statement.lineno) >= use.lineno:
        return None
    return found


def _plain_defs(scope: Scope, name: str, jitted: list[JitBinding]) -> list[ast.AST]:
    """The `def name` statements of `scope` that no jit binding compiles (a plain helper of the same
    name as a jitted one)."""
    compiled = {id(binding.function.node) for binding in jitted if binding.function is not None}
    return [
        child.node for child in scope.children
        if child.class_node is None and getattr(child.node, "name", None) == name and id(child.node) not in compiled
    ]


def _reaching_past(jitted: list[JitBinding], plain: list[ast.AST], use: ast.AST, scope: Scope, model: "SemanticModel") -> JitBinding | None:
    """The jit binding reaching `use` when plain defs of the name share its scope: it must reach by
    straight-line code, and no plain def may stand between it and the use."""
    binding = _reaching(jitted, use, scope, model)
    if binding is None:
        return None
    bound_at = (binding.node.lineno, binding.node.col_offset)
    position = (use.lineno, use.col_offset)
    if any(bound_at < (definition.lineno, definition.col_offset) < position for definition in plain):
        return None
    return binding


def _later_binding_in_loop(bindings: list[JitBinding], use: ast.AST, use_ancestors: list[ast.AST]) -> bool:
    """A binding after the use inside a loop around the use reaches it on the next iteration."""
    loops = [a for a in use_ancestors if isinstance(a, (ast.For, ast.AsyncFor, ast.While))]
    if not loops:
        return False
    for binding in bindings:
        if (binding.node.lineno, binding.node.col_offset) > (use.lineno, use.col_offset):
            if any(loop in ancestors(binding.node) for loop in loops):
                return True
    return False


def _only_lambdas_between(inner: Scope, outer: Scope) -> bool:
    """`inner` is `outer`, or lambdas nested in it."""
    while inner is not outer:
        if inner is None or not isinstance(inner.node, ast.Lambda):
            return False
        inner = inner.parent
    return True


def _module_assigned(model) -> set[str]:
    """Names module code binds by assignment (asked after `_collect` has read every binding)."""
    found = model.__dict__.get("_module_assigned_names")
    if found is None:
        found = model.__dict__["_module_assigned_names"] = {name for target, _ in model.module_scope.bindings for name in bound_names(target)}
    return found


def _module_alias(model, name: str) -> ast.Name | None:
    """The function name a module-level name is another name for: bound once, at the top level, to
    a name the module defines with `def` and never rebinds (`loss_fn = loss`), so a call or a transform
    of `loss_fn` runs `loss`. None for anything else (bound twice, in a branch, to a call)."""
    aliases = model.__dict__.get("_module_aliases")
    if aliases is None:
        aliases = model.__dict__["_module_aliases"] = {}
        counts: dict[str, int] = {}
        for target, _ in model.module_scope.bindings:
            for bound in bound_names(target):
                counts[bound] = counts.get(bound, 0) + 1
        defs = model.module_scope.defs
        for statement in model.tree.body:
            if (
                isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)
                and isinstance(statement.value, ast.Name) and statement.value.id in defs and statement.value.id not in counts
                and counts.get(statement.targets[0].id) == 1 and statement.targets[0].id not in defs
            ):
                aliases[statement.targets[0].id] = statement.value
    return aliases.get(name)


_UNDECIDED = object()


def _reaching_module_function(model, read: ast.Name, scope: Scope):
    """What a read of a module-level name bound by two top-level statements or more resolves to: the
    function the binding that reaches the read holds (semantic/cell_order.py, in run order: a read in
    module code sees the binding above it, a read in a module-level function the one standing when
    the function runs): one `def`, a lambda, another name for a function or a `partial` of one.
    None where different runs see different functions; `_UNDECIDED` where the name is bound once, is
    no module name here, a reaching binding holds something else (`f = jax.jit(f)`, an import, an
    object) or cannot be told: the callers' own rules then apply."""
    module = model.module_scope
    if read.id not in module.local_names or getattr(model, "tree", None) is None or parent_of(read) is None:
        return _UNDECIDED
    from jaxlint.semantic.cell_order import reaching_top_bindings, top_binding_count

    if top_binding_count(model, read.id) < 2:
        return _UNDECIDED
    found = reaching_top_bindings(model, read)
    if not found:
        return _UNDECIDED
    resolved = [_function_bound_by(model, statement, read.id) for statement in found]
    if any(one is _UNDECIDED for one in resolved):
        return _UNDECIDED
    if any(one is None for one in resolved) or len({id(one[0]) for one in resolved}) > 1:
        model.__dict__.setdefault("_several_reaching_functions", {})[id(read)] = [one[0] for one in resolved if one is not None]
        return None
    return resolved[0]


def _function_bound_by(model, statement: ast.stmt, name: str):
    """The function a top-level statement binds `name` to (as resolve_function answers), None for
    none, `_UNDECIDED` for anything but a `def`, a lambda, a name or a `partial`."""
    if isinstance(statement, FUNCTION_NODES[:2]):
        target = model.scope_of_node.get(statement)
        return (target, 0, set()) if target is not None else None
    if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
        value = statement.value
        if isinstance(value, ast.Lambda):
            target = model.scope_of_node.get(value)
            return (target, 0, set()) if target is not None else None
        if isinstance(value, ast.Name) and value.id != name:
            return model.resolve_function(value, model.module_scope)  # `g = f` above: `g` is `f`
        if isinstance(value, ast.Call) and model.qualified_name(value.func) == "functools.partial" and value.args:
            return model.resolve_function(value, model.module_scope)
        if isinstance(value, ast.Call) and not any(isinstance(node, ast.Name) and node.id == name for node in walk(value)):
            # `f_prime = jax.grad(f)` after a `def f_prime`: a read it reaches means the call's result
            # (another function, or an object), not the def (`f = jax.jit(f)` still means the def).
            return None
    return _UNDECIDED


def _reaching_lambda(model, read: ast.Name) -> Scope | None:
    """The lambda a module-level read of a name sees where the statement binding it last before the
    read is `name = lambda ...` (a notebook's `f = lambda x: ...` cell before a later `def f`), not
    the `def` of the same name (semantic/cell_order.py)."""
    from jaxlint.semantic.cell_order import reaching_top_binding

    if not hasattr(read, "lineno"):
        return None
    found = reaching_top_binding(model, read)
    if isinstance(found, ast.Assign) and isinstance(found.value, ast.Lambda) and len(found.targets) == 1 and isinstance(found.targets[0], ast.Name):
        return model.scope_of_node.get(found.value)
    return None


def _may_reach(model, definition: ast.stmt | None, read: ast.AST) -> bool:
    """`read` may see the module-level `definition` (always, where there is none to compare)."""
    if definition is None or not isinstance(read, ast.Name):
        return True
    from jaxlint.semantic.cell_order import reaches

    return reaches(model, definition, read)


def _reaching_def(node: ast.Name, scope: Scope) -> Scope | None:
    """The `def` a read of a name defined several times in `scope` sees, when that is certain: the
    read and every such `def` are statements of the scope's own straight-line body (a notebook that
    redefines a helper in a later cell, then jits it), so the last `def` above the read is the one."""
    body = getattr(scope.node, "body", None)
    if not isinstance(body, list):
        return None
    statement = node
    while statement is not None and parent_of(statement) is not scope.node:
        statement = parent_of(statement)
    if statement is None or not any(statement is item for item in body):
        return None
    defined = [child for child in scope.children if isinstance(child.node, FUNCTION_NODES[:2]) and child.node.name == node.id]
    if not defined or not all(any(child.node is item for item in body) for child in defined):
        return None  # a `def` under an `if` or a loop: which one runs is not known
    if any(
        isinstance(item, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.Import, ast.ImportFrom, ast.ClassDef))
        and node.id in _bound_by_statement(item) for item in body
    ):
        return None  # the name is also bound to something else
    above = [child for child in defined if child.node.lineno < statement.lineno]
    return max(above, key=lambda child: child.node.lineno) if above else None


def _bound_by_statement(statement: ast.stmt) -> set[str]:
    if isinstance(statement, ast.ClassDef):
        return {statement.name}
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return {(alias.asname or alias.name).split(".")[0] for alias in statement.names}
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    return {name for target in targets for name in bound_names(target)}


# Positional arguments lax passes to a body: scan f(carry, x), fori_loop body(i, carry), ...
_FIXED_ARITY = {"jax.lax.scan": 2, "jax.lax.fori_loop": 2, "jax.lax.while_loop": 1, "jax.lax.map": 1, "jax.lax.associative_scan": 2}


def _body_arity(qualified: str, call: ast.Call) -> int | None:
    if qualified in _FIXED_ARITY:
        return _FIXED_ARITY[qualified]
    if any(isinstance(arg, ast.Starred) for arg in call.args) or call.keywords:
        return None
    # cond(pred, true_fun, false_fun, *operands) and switch(index, branches, *operands).
    first_operand = {"jax.lax.cond": 3, "jax.lax.switch": 2}.get(qualified)
    return len(call.args) - first_operand if first_operand is not None else None


def instance_key(node: ast.AST) -> str | None:
    """`net.apply` (an attribute of an object held in a name other than `self`/`cls`): the key of a
    compiled callable rebound onto the object, `net.apply = jax.jit(net.apply)`."""
    if node.__class__ is ast.Attribute and node.value.__class__ is ast.Name and node.value.id not in ("self", "cls"):
        return f"{node.value.id}.{node.attr}"
    return None


def binding_key(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return f"self.{node.attr}"
    return None
