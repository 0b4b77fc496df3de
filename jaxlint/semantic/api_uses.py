"""How a module reaches a JAX API, whatever its spelling: the questions the API tables (JAX601/JAX602)
ask of the model.

An API is reached through a name an import binds (`from jax.ops import index_update`, `import
jax.config as config`), through an attribute of a value the model knows is a JAX array (`x.to_py()`
with `x = jnp.argsort(...)`), or through a string the API reads (`jax.config.update("jax_array",
...)`). Only what the module shows counts: a name bound any other way, a receiver of unknown kind,
or an option computed at run time answers "cannot tell".
"""

from __future__ import annotations

import ast

from jaxlint.semantic.arrays import is_jax_array
from jaxlint.semantic.bindings import bound_values, owning_scope
from jaxlint.semantic.imports import ImportMap
from jaxlint.semantic.model import Scope, SemanticModel

# Old spellings of an object that still exists under another name: the import of the old spelling
# fails (and is reported there), but what the module does with the name reads as the live object.
SAME_OBJECT = {"jax.config.config": "jax.config"}
# Types whose instances are JAX arrays, for `isinstance` narrowing.
_ARRAY_TYPES = frozenset({"jax.Array", "jax.numpy.ndarray"})


def spelled_api_name(imports: ImportMap, node: ast.AST) -> str | None:
    """The qualified name `node` spells, a root bound to an old spelling of a live object read as that
    object (`config.FLAGS` after `from jax.config import config` is `jax.config.FLAGS`)."""
    qualified = imports.spelled_name(node)
    if qualified is None:
        return None
    root = node
    while isinstance(root, ast.Attribute):
        root = root.value
    target = imports.aliases.get(root.id) if isinstance(root, ast.Name) else None
    if target in SAME_OBJECT:
        return SAME_OBJECT[target] + qualified[len(target):]
    return qualified


def root_name(node: ast.AST) -> ast.Name | None:
    """The name an attribute chain starts from (`a` in `a.b.c`), if it starts from one."""
    while isinstance(node, ast.Attribute):
        node = node.value
    return node if isinstance(node, ast.Name) else None


def surely_not_none(model: SemanticModel, value: ast.expr, scope: Scope, _depth: int = 0) -> bool:
    """A value that is certainly not None: a literal, a call such as `jax.devices()[0]`, a conditional
    whose branches both are, or a name every binding of which is (`backend = "gpu" if c else "cpu"`).
    A parameter or a name bound any other way cannot tell."""
    if isinstance(value, ast.Constant):
        return value.value is not None
    if isinstance(value, (ast.Call, ast.Subscript, ast.JoinedStr)):
        return True
    if _depth > 3:
        return False
    if isinstance(value, ast.IfExp):
        return surely_not_none(model, value.body, scope, _depth + 1) and surely_not_none(model, value.orelse, scope, _depth + 1)
    if isinstance(value, ast.Name):
        found = bound_values(model, value.id, scope)
        if found is None:
            return False
        owner, values = found
        return all(not isinstance(v, ast.AugAssign) and surely_not_none(model, v, owner, _depth + 1) for v in values)
    return False


def holds_jax_array(model: SemanticModel, node: ast.expr, scope: Scope) -> bool:
    """`node` is a JAX array: the value model proves it (`x = jnp.argsort(v)`), or an enclosing
    `isinstance(node, jax.Array)` test narrows it (`if not isinstance(x, jax.Array): return`)."""
    if is_jax_array(model, node, scope):
        return True
    if isinstance(node, ast.Name):
        for in_body, types in model.isinstance_tests(node):
            if in_body and types and all(t in _ARRAY_TYPES for t in types):
                return True
    return False


def is_function_value(model: SemanticModel, node: ast.expr, scope: Scope) -> bool:
    """A lambda, or a name whose binding here is a `def`: a value that is a function, never an array."""
    if isinstance(node, ast.Lambda):
        return True
    if not isinstance(node, ast.Name):
        return False
    owner = owning_scope(model, node.id, scope)
    return owner is not None and node.id in owner.defs and node.id not in owner.param_nodes and _only_defs(owner, node.id)


def _only_defs(owner: Scope, name: str) -> bool:
    """`name` is bound in `owner` by `def` statements only (no assignment rebinds it)."""
    return not any(isinstance(target, ast.Name) and target.id == name for target, _ in owner.bindings)


def defines_attribute(model: SemanticModel, attribute: str) -> bool:
    """The module gives some object an attribute of this name itself (`obj.attribute = ...`, a method
    or class attribute `attribute`): then the name is the program's, not only JAX's."""
    for node in model.nodes:
        kind = node.__class__
        if kind is ast.Attribute and node.attr == attribute and isinstance(node.ctx, ast.Store):
            return True
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef) and node.name == attribute:
            return True
        if kind is ast.ClassDef:
            for statement in node.body:
                targets = statement.targets if isinstance(statement, ast.Assign) else [getattr(statement, "target", None)]
                if any(isinstance(t, ast.Name) and t.id == attribute for t in targets):
                    return True
    return False
