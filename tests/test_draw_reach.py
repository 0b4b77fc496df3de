"""What a key's draws and a timed interval's values reach, one fact at a time: a loop's iterable runs
once (flow.iteration_parts), a lambda's own parameter reads no draw (key_values._reads_of_binding), a
custom derivative rule holds the primal's keys (semantic/derivative_rules.py), a store into a NumPy
array waits (device_indices.stores_into_host_array), and a type implementing NumPy's dispatch
protocols takes over NumPy's functions, also where another module's function is annotated to return
one (semantic/array_protocols.py). The fixtures JAX501_header_keys, JAX501_shadowed_names,
JAX501_derivative_rules, JAX202_host_array_stores and JAX103_dispatch_protocols hold the variants and
look-alikes; these tests pin the model's answers."""
from __future__ import annotations

import ast
import textwrap

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic import derivative_rules, flow
from jaxlint.semantic.model import SemanticModel


def _rows(source: str, code: str, path: str = "draws.py", root=None) -> set[int]:
    settings = Settings(root=root) if root is not None else Settings()
    result = check_source(textwrap.dedent(source), path, settings, [RULES_BY_CODE[code]])
    assert not result.errors, result.errors
    return {d.location.row for d in result.diagnostics if d.code == code}


def test_iteration_parts_leave_out_the_iterable_and_else():
    loop = ast.parse("for x, k in zip(xs, split(key(0), 5)):\n    f(x, k)\nelse:\n    g()\n").body[0]
    parts = flow.iteration_parts(loop)
    assert loop.iter not in parts and loop.orelse[0] not in parts
    assert loop.target in parts and loop.body[0] in parts
    loop = ast.parse("while go(k):\n    k = step(k)\n").body[0]
    assert flow.iteration_parts(loop) == [loop.test, *loop.body]


def test_rule_parameter_keys_are_what_jax_handed_the_rule():
    source = textwrap.dedent("""
        import jax
        from jax import random

        @jax.custom_jvp
        def f(key, x):
            return x + random.normal(key, x.shape)

        @f.defjvp
        def f_jvp(primals, tangents):
            key, x = primals
            sub, _ = random.split(key)
            return f(key, x), tangents[1]

        def g_fwd(key, x):
            key = random.fold_in(key, 1)
            return x, key

        def g_bwd(res, t):
            return None, t

        g = jax.custom_vjp(lambda key, x: x)
        g.defvjp(g_fwd, g_bwd)

        def plain(primals):
            key, x = primals
            return key
    """)
    tree = ast.parse(source)
    model = SemanticModel(tree)
    functions = {node.name: node for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}
    keys = derivative_rules.rule_parameter_keys(functions["f_jvp"], model)
    assert {"primals", "tangents", "key", "x"} <= keys and "sub" not in keys
    assert "key" not in derivative_rules.rule_parameter_keys(functions["g_fwd"], model)  # rebound from a computation
    assert derivative_rules.is_derivative_rule(functions["g_bwd"], model)
    assert not derivative_rules.is_derivative_rule(functions["plain"], model)
    assert not derivative_rules.rule_parameter_keys(functions["plain"], model)


def test_store_into_a_dict_of_numpy_arrays_waits():
    source = """
        import time
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def step(p):
            return p * 2, {"loss": jnp.sum(p)}

        def run(p, n):
            log = {"loss": np.zeros(n)}
            t0 = time.perf_counter()
            for i in range(n):
                p, m = step(p)
                log["loss"][i] = m["loss"]
            return p, time.perf_counter() - t0

        def run_list(p, n):
            log = {"loss": [0.0] * n}
            t0 = time.perf_counter()
            for i in range(n):
                p, m = step(p)
                log["loss"][i] = m["loss"]
            return p, time.perf_counter() - t0
    """
    assert _rows(source, "JAX202") == {25}


def test_annotated_return_of_another_module_dispatches(tmp_path):
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "frames.py").write_text(textwrap.dedent("""
        import jax.numpy as jnp
        import xarray

        def labelled(dims, data) -> xarray.DataArray:
            frame = xarray.DataArray(data, dims=dims)
            return frame.rename("x")

        def raw(dims, data):
            frame = xarray.DataArray(jnp.asarray(data), dims=dims)
            return frame.rename("x")
    """))
    source = """
        import jax
        import numpy as np
        from pkg import frames

        @jax.jit
        def f(x):
            v = frames.labelled(("a",), x)
            return np.abs(v + 1).sum()

        @jax.jit
        def g(x):
            y = x + 1
            return np.abs(y)
    """
    path = package / "use.py"
    path.write_text(textwrap.dedent(source))
    assert _rows(source, "JAX103", str(path), tmp_path) == {14}
