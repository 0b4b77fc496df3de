"""A compiled callable that nothing calls traces nothing.

`jax.jit(f)` (and `jax.pmap(f)`, Equinox's and Flax NNX's) builds a new callable; JAX traces `f`
only when that callable is called. `encode_jit = jax.jit(encode)` whose name no code of the module reads (no call,
no `encode_jit` handed on, stored or exported in `__all__`, no IPython line naming it) never runs, so
no abstract value reaches `encode` through it. Where traced code calls `encode` (a called `jit`
of a function that calls it), its parameters are what those callers pass (a dictionary of sizes that
every called jit holds static stays a Python value), and a helper it calls is traced only as those
callers trace it. Where no traced caller reaches it, the alias still stands for how the author means
the function to be compiled (`f_jit = jax.jit(f)` beside `f_static = jax.jit(f, static_argnums=0)`,
the first left uncalled to show the error): its parameters are tracers there, as before. A name bound on an object
(`self._step = jax.jit(step)`) is called through its objects, from anywhere: it counts as called.
(Asked by the model for compiling transforms only; rules already treat a function compiled only into
names nothing reads as untraced, semantic/call_sites.py.)
"""

from __future__ import annotations

import ast
import re

from jaxlint.semantic.syntax import parent_of


def never_called_transform(call: ast.Call, model) -> bool:
    """`call` (a transform of a function) is the whole value of a plain `name = ...` assignment (one
    or more names) and none of those names is read anywhere in the module."""
    statement = parent_of(call)
    if not isinstance(statement, ast.Assign) or statement.value is not call:
        return False
    if not all(isinstance(target, ast.Name) for target in statement.targets):
        return False
    read = _names_read(model)
    names = [target.id for target in statement.targets]
    if any(name in read for name in names):
        return False
    hidden = getattr(model.tree, "_jaxlint_ipython_lines", None) or ()
    return not any(re.search(rf"\b{re.escape(name)}\b", line) for name in names for line in hidden)


def _names_read(model) -> frozenset[str]:
    """Every name the module reads, as a name or an attribute, and the strings of `__all__`."""
    found = model.__dict__.get("_jaxlint_names_read_anywhere")
    if found is None:
        names: set[str] = set()
        for node in model.nodes:
            kind = node.__class__
            if kind is ast.Name and node.ctx.__class__ is not ast.Store:
                names.add(node.id)
            elif kind is ast.Attribute:
                names.add(node.attr)
            elif kind is ast.Assign and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets):
                names.update(n.value for n in ast.walk(node.value) if isinstance(n, ast.Constant) and isinstance(n.value, str))
        found = model._jaxlint_names_read_anywhere = frozenset(names)
    return found
