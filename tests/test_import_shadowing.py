"""An import binds a module-level name; the model hides it only where Python would: in a function
that binds the same name (parameter, local, lambda parameter), or at module level by a rebinding.
Class fields and methods of the same name live in the class namespace and hide nothing."""

from __future__ import annotations

import ast
import textwrap

from jaxlint.semantic.model import SemanticModel


def _call_names(source: str) -> dict[int, list[str | None]]:
    tree = ast.parse(textwrap.dedent(source))
    model = SemanticModel(tree)
    found: dict[int, list[str | None]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            found.setdefault(node.lineno, []).append(model.qualified_name(node.func))
    return found


SOURCE = """
import time
from jax import grad, vmap
import jax.numpy as jnp

class Record:
    time: float
    def grad(self):
        return 0
    vmap = None

def uses_imports(x):
    return grad(jnp.sum)(x), time.time(), vmap(jnp.sin)(x)

def parameter(time):
    return time.time()

def local(x):
    grad = lambda y: y
    return grad(x)

def outer(x):
    vmap = 3
    def inner(y):
        return vmap(y)
    return inner(x)

def global_declared():
    global time
    return time.time()

def imported_inside():
    import jax.numpy as jnp
    return jnp.zeros(3)
"""


def test_class_fields_and_methods_hide_no_import():
    names = _call_names(SOURCE)
    assert "jax.grad" in names[13] and "time.time" in names[13] and "jax.vmap" in names[13]


def test_a_function_binding_the_name_hides_it_there_only():
    names = _call_names(SOURCE)
    assert names[16] == [None]  # a parameter `time`
    assert names[20] == [None]  # a local `grad`
    assert names[25] == [None]  # an enclosing function's local `vmap`


def test_global_declarations_and_local_imports_keep_the_import():
    names = _call_names(SOURCE)
    assert names[30] == ["time.time"]
    assert names[34] == ["jax.numpy.zeros"]


def test_a_module_level_rebinding_still_hides_it():
    names = _call_names("import time\ntime = object()\ndef f():\n    return time.time()\n")
    assert names[4] == [None]
