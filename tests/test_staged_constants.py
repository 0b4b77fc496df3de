"""Under `jit` every `jax.numpy` operation is staged into the program: in a function compiled itself, a
`jnp` call of static inputs is a tracer (`jnp.array(x.shape).prod()`); under `grad` or `vmap` alone,
or inside `jax.ensure_compile_time_eval()`, it stays concrete (semantic/model.py, `_staged_under_jit`)."""

from __future__ import annotations

import ast
import textwrap

from jaxlint.semantic.model import ARRAY, NONE, SemanticModel


def _model(source: str) -> tuple[ast.Module, SemanticModel]:
    tree = ast.parse(textwrap.dedent(source))
    return tree, SemanticModel(tree)


STAGED = """
    import jax
    import jax.numpy as jnp
    {decorator}
    def f(x):
        size = jnp.array(x.shape).prod()
        return x.reshape(size)
"""


def _size_level(source: str) -> int:
    tree, model = _model(source)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and ast.unparse(n.func).endswith(".prod"))
    return model.level(call, model.scope_for(call))


def test_jnp_of_static_inputs_is_a_tracer_in_a_compiled_function():
    assert _size_level(STAGED.format(decorator="@jax.jit")) == ARRAY


def test_jnp_of_static_inputs_stays_concrete_under_vmap_alone():
    assert _size_level(STAGED.format(decorator="@jax.vmap")) == NONE


def test_jnp_of_static_inputs_stays_concrete_at_compile_time_eval():
    source = """
        import jax
        import jax.numpy as jnp
        @jax.jit
        def f(x):
            with jax.ensure_compile_time_eval():
                size = jnp.array(x.shape).prod()
            return x.reshape(size)
    """
    assert _size_level(source) == NONE
