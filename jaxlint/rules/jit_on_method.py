"""## What it does
Flags `@jax.jit` (or `@partial(jax.jit, ...)`, `@jax.pmap`) on a method of a plain class, when
`self` is not static.

Also flags `@jax.jit` (or `@jax.pmap`) written above `@staticmethod` or `@classmethod`: decorators
apply bottom-up, so the transform receives the descriptor object, not a function, and JAX raises a
`TypeError` when the class body runs (`staticmethod arguments are not supported`).

Also flags a method of a plain class compiled with `self` held static where that is wrong:
`@eqx.filter_jit` on a method that reads an attribute of `self` holding arrays (a network handed in
with a project class or `jax.Array` annotation, or a `jnp`/`np`/`jax.random` result): a non-pytree
`self` is a static leaf hashed by identity, so those arrays are baked in as constants;
`static_argnums=0` (or `static_argnames=("self",)`) on a class with no `__hash__`/`__eq__` whose
method reads, as data, an attribute that another method (not the constructor) recomputes, since the
compiled method is keyed by identity and keeps the trace-time value; and `self.f =
jax.jit(self.method)` (also `jax.jit(fun=...)`, `eqx.filter_jit(...)`) on such a class, where `f` is
called.

Not flagged: methods with `static_argnums=0` or `static_argnames=("self",)` on a class that hashes
by value (`__hash__`/`__eq__`) or whose attributes are set only while it is built (by the
constructor or the helpers it calls); attributes only called or read to reach a function they hold
(`self.forward(p, x)`, `self.state.apply_fn(...)`: functions wired once) or tested against `None`, stored as a set-up method's parameter came
(`self.optimizer = optimizer`: configuration), or recomputed by a method that then runs the compiled
method itself (set before its trace); bound compilations never called; `@eqx.filter_jit` methods that
read nothing of `self` shown to hold arrays (an optimizer, a gradient function, sizes); static methods and
class methods whose `@staticmethod`/`@classmethod` is the outermost decorator, functions of a class used as a namespace (a first parameter not named `self` that the
body uses as data, `def v(weight, states): return states @ weight`), and methods of classes that JAX can flatten or that a framework handles: any base
class other than `object`, another plain class of the module or a Flax Linen `nn.Module` (Linen
modules are not pytrees: a jitted method of one raises "not a valid JAX type", so it is flagged) (`nnx.Module`,
`eqx.Module`, `struct.PyTreeNode`, `NamedTuple`, ...), a decorator other than `dataclasses.dataclass`
(`@struct.dataclass`, `@register_pytree_node_class`, `@jax.tree_util.register_dataclass`,
`@chex.dataclass`), a class registered with `register_pytree_node...`, or one that defines
`tree_flatten` (also `_tree_flatten` or `tree_flatten_with_keys`: its registration may be in another
module).

## Why is this bad?
`jax.jit` on a method wraps the plain function, so `self` is its first argument and is traced like
any other. An instance of an unregistered class is not a valid JAX type: the first call raises
`TypeError: Argument 'self' of type <class ...> is not a valid JAX type`. See the FAQ entry "How to
use jit with methods?" (https://docs.jax.dev/en/latest/faq.html#how-to-use-jit-with-methods).

## Example
```python
class Scaler:
    def __init__(self, factor):
        self.factor = factor

    @jax.jit
    def apply(self, x):
        return x * self.factor
```

## Use instead
```python
class Scaler:
    def __init__(self, factor):
        self.factor = factor

    @partial(jax.jit, static_argnums=0)
    def apply(self, x):
        return x * self.factor
```
with `__hash__` and `__eq__` defined on an immutable class, or register the class as a pytree
(`jax.tree_util.register_pytree_node_class`) so that its array fields are traced.

## Fix safety
No fix: a static `self` needs a hashable, immutable class, and pytree registration needs to know
which fields are arrays; both are design choices.

## How the runtime mode confirms it
Calling the method on an instance with the example inputs raises the `TypeError` above.
"""

from __future__ import annotations

import ast

from jaxlint.rules.base import Rule
from jaxlint.semantic import jaxapi, static_self
from jaxlint.semantic.syntax import walk  # ast.walk minus ctx markers, faster

_JIT_TRANSFORMS = frozenset({"jax.jit", "jax.pmap"})
_FILTERED_COMPILERS = frozenset({"equinox.filter_jit", "equinox.filter_pmap"})
_PLAIN_DECORATORS = frozenset({"dataclasses.dataclass", "functools.total_ordering"})
_REGISTRATION_HINTS = ("register_pytree", "register_dataclass", "register_static", "register_pytree_with_keys")


class JitOnMethod(Rule):
    code = "JAX307"
    name = "jit-on-method"
    summary = "`jax.jit` on a method whose `self` is neither static nor a pytree"
    node_types = (ast.FunctionDef,)
    fix_availability = "none"

    def check(self, node: ast.FunctionDef, context) -> None:
        scope = context.model.scope_of_node.get(node)
        if scope is None or scope.class_node is None:
            return
        wrapped = context.model.transform_over_descriptor(node)
        if wrapped is not None and wrapped[1].qualified in _JIT_TRANSFORMS:
            decorator, _, descriptor = wrapped
            context.report(
                decorator,
                f"`{context.text(decorator)}` above `@{descriptor}` on `{node.name}` of class `{scope.class_node.name}` "
                f"receives the {descriptor} object, not a function: JAX raises a `TypeError` when the class is defined; "
                f"put `@{descriptor}` outermost",
            )
            return
        if not scope.has_self:
            return
        if any(isinstance(d, ast.Name) and d.id in ("classmethod", "staticmethod", "property") for d in node.decorator_list):
            return
        model = context.model
        self._check_bound(node, scope.class_node, context)
        for decorator in node.decorator_list:
            use = model.decorator_transform(decorator)
            if use is not None and use.qualified in _FILTERED_COMPILERS:
                self._check_filtered(decorator, node, scope.class_node, context)
                return
            if use is None or use.qualified not in _JIT_TRANSFORMS:
                continue
            if use.positional_options:
                return
            if _self_is_static(use.options, node):
                self._check_static(decorator, use, node, scope.class_node, context)
                return
            if not _plain_class(scope.class_node, context):
                return
            self_name = (node.args.posonlyargs + node.args.args)[0].arg
            if self_name != "self" and (not _used_as_object(self_name, node) or _called_through_class(node, scope.class_node, model)):
                return  # `def v(weight, states)` in a class used as a namespace: the first argument is data
            if _linen_module(scope.class_node, context):
                context.report(
                    decorator,
                    f"`{context.text(decorator)}` on method `{node.name}` of Linen module `{scope.class_node.name}` traces "
                    f"`{self_name}`, and a Linen module is not a pytree (not a valid JAX type); mark it static "
                    f"(`static_argnums=0`) or use `nn.jit`",
                )
                return
            context.report(
                decorator,
                f"`{context.text(decorator)}` on method `{node.name}` of plain class `{scope.class_node.name}` traces "
                f"`{self_name}`, which is not a valid JAX type; mark it static (`static_argnums=0`, with `__hash__`/`__eq__`) "
                f"or register the class as a pytree",
            )
            return

    def _check_static(self, decorator, use, node, class_node, context) -> None:
        """`static_argnums=0` on a mutable class keyed by identity: an attribute the method reads that
        another method reassigns stays at its trace-time value."""
        if (node.args.posonlyargs + node.args.args)[0].arg != "self" or not _plain_class(class_node, context):
            return
        if _linen_module(class_node, context):
            return
        stale = static_self.stale_attributes(class_node, node)
        if stale:
            attr, where = sorted(stale.items())[0]
            context.report(
                decorator,
                f"`{context.text(decorator)}` holds `self` static on `{node.name}`, but class `{class_node.name}` has no "
                f"`__hash__`/`__eq__` and `{where}` reassigns `self.{attr}`: the compiled method is keyed by identity "
                f"and keeps the trace-time value; pass `{attr}` as an argument or register the class as a pytree",
            )

    def _check_filtered(self, decorator, node, class_node, context) -> None:
        """`@eqx.filter_jit` on a plain-class method: `self` is not a pytree, so it is a static leaf hashed by
        identity and the arrays it holds are baked into the compiled code as constants."""
        if (node.args.posonlyargs + node.args.args)[0].arg != "self" or not _plain_class(class_node, context):
            return
        if _linen_module(class_node, context):
            return
        reads = {attr for attr in static_self.data_attributes_read(class_node, node) if static_self.holds_arrays(context.model, class_node, attr)}
        if not reads:
            return
        shown = ", ".join(f"`self.{attr}`" for attr in sorted(reads)[:3]) + (", ..." if len(reads) > 3 else "")
        context.report(
            decorator,
            f"`{context.text(decorator)}` on method `{node.name}` of plain class `{class_node.name}`: `self` is not a pytree, "
            f"so it is a static leaf hashed by identity and what it holds ({shown}) is baked in as constants (stale if reassigned); "
            f"make the class an `eqx.Module` or pass the arrays as arguments",
        )

    def _check_bound(self, node, class_node, context) -> None:
        """`self.f = jax.jit(self.method)`: the bound instance is closed over, so the attributes the method
        reads are trace-time constants; flagged where another method reassigns one and `f` is called."""
        if not node.args.args or node.args.args[0].arg != "self":
            return
        # Most methods are never compiled through `self`: ask that (one walk per class) before the
        # costlier questions about the class.
        bindings = context.memo(("JAX307", "bound", class_node), static_self.bound_compilations, context.model, class_node).get(node.name)
        if not bindings or not _plain_class(class_node, context) or _linen_module(class_node, context):
            return
        for call, stored in bindings:
            if stored is None or not _called_anywhere(stored, context.model.tree):
                continue
            stale = static_self.stale_attributes(class_node, node, exclude=stored)
            if not stale:
                continue
            attr, where = sorted(stale.items())[0]
            context.report(
                call,
                f"`{context.text(call.func)}(self.{node.name})` closes over the instance: `self.{attr}` is read once at trace "
                f"time, and `{where}` of class `{class_node.name}` reassigns it, so `self.{stored}` keeps the stale value; "
                f"pass `{attr}` as an argument",
            )


def _called_anywhere(attribute: str, tree: ast.AST) -> bool:
    return any(
        isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == attribute
        for node in walk(tree)
    )


def _called_through_class(function: ast.FunctionDef, class_node: ast.ClassDef, model) -> bool:
    """`Trainer.train_step(self.state, batch)`: called through the class, so its first argument is
    whatever the caller passes (a TrainState), not an instance."""
    return any(
        isinstance(call.func, ast.Attribute) and isinstance(call.func.value, ast.Name) and call.func.value.id == class_node.name
        for call in model.calls_by_name().get(function.name, ())
    )


def _used_as_object(name: str, function: ast.FunctionDef) -> bool:
    """The body reads an attribute of `name` or calls a method on it (`this.factor`), as of an instance."""
    return any(
        isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == name
        and node.attr not in ("shape", "dtype", "ndim", "size", "T", "at")
        for statement in function.body for node in walk(statement)
    )


def _self_is_static(options: dict, node: ast.FunctionDef) -> bool:
    from jaxlint.semantic.model import literal_tuple

    self_name = (node.args.posonlyargs + node.args.args)[0].arg
    for key in ("static_argnums", "static_broadcasted_argnums"):
        if key in options:
            values = literal_tuple(options[key])
            if values is None or 0 in values:
                return True
    if "static_argnames" in options:
        values = literal_tuple(options["static_argnames"])
        if values is None or self_name in values:
            return True
    return False


def _plain_class(class_node: ast.ClassDef, context, seen: frozenset = frozenset()) -> bool:
    """A class JAX cannot flatten: plain bases, plain decorators, never registered, no tree_flatten."""
    if class_node.keywords or class_node in seen:
        return False
    for decorator in class_node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if context.qualified_name(target) not in _PLAIN_DECORATORS:
            return False
    for statement in class_node.body:
        # `tree_flatten`, also private (`_tree_flatten`, registered from another module) or with keys.
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)) and (
            "tree_flatten" in statement.name or "tree_unflatten" in statement.name or statement.name == "__jax_array__"
        ):
            return False
    if _registered(class_node.name, context):
        return False
    classes = {c.name: c for c in walk(context.model.tree) if isinstance(c, ast.ClassDef)}
    for base in class_node.bases:
        if isinstance(base, ast.Name) and base.id == "object":
            continue
        if isinstance(base, ast.Name) and base.id in classes and context.model.qualified_name(base) is None:
            if _plain_class(classes[base.id], context, seen | {class_node}):
                continue
        if context.model.qualified_name(base) in jaxapi.NOT_PYTREE_BASES:
            continue  # a Linen Module: not a pytree either
        return False
    return True


def _linen_module(class_node: ast.ClassDef, context, depth: int = 0) -> bool:
    """The class derives from a framework base that is not a pytree (a Flax Linen `Module`), directly or
    through classes of the module."""
    classes = {c.name: c for c in walk(context.model.tree) if isinstance(c, ast.ClassDef)}
    for base in class_node.bases:
        if context.model.qualified_name(base) in jaxapi.NOT_PYTREE_BASES:
            return True
        if depth < 4 and isinstance(base, ast.Name) and base.id in classes and classes[base.id] is not class_node:
            if _linen_module(classes[base.id], context, depth + 1):
                return True
    return False


def _registered(name: str, context) -> bool:
    for scope in context.model.scopes:
        for call in scope.calls:
            qualified = context.qualified_name(call.func) or ""
            if isinstance(call.func, ast.Attribute):
                attribute = call.func.attr
            elif isinstance(call.func, ast.Name):
                attribute = call.func.id
            else:
                continue
            if any(hint in attribute for hint in _REGISTRATION_HINTS) or any(hint in qualified for hint in _REGISTRATION_HINTS):
                if any(isinstance(n, ast.Name) and n.id == name for arg in call.args for n in walk(arg)):
                    return True
    return False


RULE = JitOnMethod()
