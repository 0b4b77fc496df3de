"""Behaviour of JAX202-JAX307 and JAX403 beyond their fixtures: settings, preview, fix convergence."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from jaxlint.config import Settings, resolve_enabled
from jaxlint.engine import check_source
from jaxlint.fixer import fix_source
from jaxlint.rules import ALL_RULES, RULES_BY_CODE

LOOP = textwrap.dedent(
    """
    import jax
    import jax.numpy as jnp

    @jax.jit
    def f(x):
        for i in range(60):
            x = layer(x)
        return x

    def layer(x):
        return jnp.tanh(x @ x)
    """
)


def _codes(text: str, code: str, settings: Settings | None = None, filename: str = "t.py") -> list[int]:
    result = check_source(text, filename, settings or Settings(), [RULES_BY_CODE[code]])
    assert not result.errors, result.errors
    return [d.location.row for d in result.diagnostics if d.code == code]


def test_python_loop_threshold_is_configurable():
    assert _codes(LOOP, "JAX304") == []
    assert _codes(LOOP, "JAX304", Settings(python_loop_threshold=50)) == [7]


def test_eager_ops_in_loop_is_stable():
    # Promoted from preview after reading its findings on real code (the whole-computation class).
    assert RULES_BY_CODE["JAX203"] in resolve_enabled(Settings(), ALL_RULES)
    assert RULES_BY_CODE["JAX203"] not in resolve_enabled(Settings(ignore=["JAX203"]), ALL_RULES)


def test_jit_hoist_leaves_nested_loops_in_one_step():
    text = textwrap.dedent(
        """
        from functools import partial
        import jax

        def f(p, b, s):
            return p * len(range(s)) + b  # `s` must stay a Python int: it cannot become an argument

        def nested(params, epochs, batches, s):
            for epoch in range(epochs):
                for batch in batches:
                    params = jax.jit(partial(f, s=s))(params, batch)
            return params
        """
    )
    outcome = fix_source(text, "t.py", Settings(), [RULES_BY_CODE["JAX302"]], unsafe=True)
    assert not outcome.reverted
    tree = ast.parse(outcome.text)
    function = tree.body[-1]
    assert isinstance(function.body[0], ast.Assign) and "jax.jit(partial(f, s=s))" in ast.unparse(function.body[0])
    assert _codes(outcome.text, "JAX302") == []


def test_jit_of_partial_is_jitted_once_at_module_level():
    """`jax.jit(partial(f, s=s))` in a loop: `f` is jitted once for the module and `s` is bound with
    `partial` to the jitted function, so neither iterations nor calls recompile."""
    text = textwrap.dedent(
        """
        from functools import partial
        import jax

        def f(p, b, s):
            return p * s + b

        def nested(params, epochs, batches, s):
            for epoch in range(epochs):
                for batch in batches:
                    params = jax.jit(partial(f, s=s))(params, batch)
            return params
        """
    )
    outcome = fix_source(text, "t.py", Settings(), [RULES_BY_CODE["JAX302"]], unsafe=True)
    assert not outcome.reverted
    assert "\nf_jit = jax.jit(f)\n\n\ndef nested(" in outcome.text
    assert "params = partial(f_jit, s=s)(params, batch)" in outcome.text
    assert _codes(outcome.text, "JAX302") == []


def test_timing_fix_is_safe_and_keeps_the_loop_pipelined():
    text = textwrap.dedent(
        """
        import time
        import jax

        @jax.jit
        def step(x):
            return x * 2

        def bench(x, n):
            t0 = time.time()
            for _ in range(n):
                x = step(x)
            return x, time.time() - t0
        """
    )
    outcome = fix_source(text, "t.py", Settings(), [RULES_BY_CODE["JAX202"]], unsafe=False)
    assert "    jax.block_until_ready(x)\n    return x, time.time() - t0" in outcome.text
    assert "x = step(x)" in outcome.text


TRAIN_LOOP = textwrap.dedent(
    """
    import jax

    @jax.jit
    def step(state, batch):
        return state + batch, (state * batch).sum()

    def run(state, batches):
        for batch in batches:
            state, loss = step(state, batch)
            print(float(loss))
        return state
    """
)


def test_host_sync_in_a_test_module_is_not_reported():
    """A test's loop reads values on the host on purpose; a demo script merely named `test_*.py` is not a test."""
    test_module = "import pytest\n" + TRAIN_LOOP
    assert _codes(test_module, "JAX201", filename="tests/test_train.py") == []
    assert _codes(TRAIN_LOOP, "JAX201", filename="examples/test_profiler.py") != []
    # Names that only tests and their helpers take count by name alone.
    for name in ("envs/api_test.py", "tests/conftest.py", "models/inference_test_utils.py"):
        assert _codes(TRAIN_LOOP, "JAX201", filename=name) == [], name
    # Anything under a tests folder is test code by location: the tests' helpers and smoke scripts.
    for name in ("tests/helpers.py", "pkg/tests/bench_loop.py", "test/problems.py"):
        assert _codes(TRAIN_LOOP, "JAX201", filename=name) == [], name
    # A folder merely named like one is not.
    for name in ("latests/run.py", "contests/train.py", "testing_utils/train.py"):
        assert _codes(TRAIN_LOOP, "JAX201", filename=name) != [], name
    assert _codes(TRAIN_LOOP, "JAX201", filename="train.py") != []
    in_test_function = TRAIN_LOOP.replace("def run(", "def test_run(")
    assert _codes(in_test_function, "JAX201", filename="train.py") == []



def test_host_data_wrapped_in_jnp_is_a_round_trip_not_a_wait_for_the_step():
    text = textwrap.dedent(
        """
        import jax
        import jax.numpy as jnp
        import numpy as np

        @jax.jit
        def policy(params, obs):
            return params @ obs

        def env_step(env, action):
            obs, reward, done, _ = env.step(action)
            return jnp.array(obs), jnp.array(reward), jnp.array(done)

        def rollout(params, env, obs, batches):
            for _ in range(1000):
                action = np.asarray(policy(params, obs))
                obs, reward, done = env_step(env, action)
                if done == True:
                    break
            for batch in batches:
                loss = policy(params, batch)
                print(float(loss))
        """
    )
    result = check_source(text, "t.py", Settings(), [RULES_BY_CODE["JAX201"]])
    by_row = {d.location.row: d for d in result.diagnostics}
    assert sorted(by_row) == [18, 22]
    # Host values wrapped in jnp by a helper that runs no compiled code: a round trip, and no
    # lax.while_loop rewrite (a host environment cannot go in one).
    assert "round trip" in by_row[18].message and by_row[18].fix is None
    assert "waits for the device" in by_row[22].message


def test_timing_message_names_the_timed_work_not_key_bookkeeping():
    text = (Path(__file__).parent.parent / "fixtures" / "rules" / "JAX202.py").read_text()
    result = check_source(text, "JAX202.py", Settings(), [RULES_BY_CODE["JAX202"]])
    lines = text.splitlines()
    named = {}
    for diagnostic in result.diagnostics:
        function = next(line for line in reversed(lines[: diagnostic.location.row]) if line.startswith("def "))
        named[function.split("(")[0][4:]] = diagnostic.message.split("`")[1]
    assert named["rebound_parameter_then_fold_in"] == "advance"
    assert named["fold_in_before_eager_work"] == "jnp.linalg.norm"
    assert named["split_after_eager_work"] == "jnp.cumsum"
    assert named["incidental_eager_op_after_the_step"] == "step"
