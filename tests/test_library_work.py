"""Library calls that run a whole computation, known from the library's models wherever the source
writes them (semantic/library_models): an environment step written in JAX, the update of an optimizer
made by `@optimizers.optimizer` (also a project's own optimizer of another module), and a method whose
name and keywords are a library's own signature (`state.apply_gradients(grads=g)`)."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic import library_models
from jaxlint.semantic.model import SemanticModel
from jaxlint.semantic.project import summarise_file


def _findings(source: str, filename: str = "<stdin>", settings: Settings | None = None) -> list[tuple[int, str]]:
    result = check_source(textwrap.dedent(source), filename, settings or Settings(), [RULES_BY_CODE["JAX203"]])
    assert not result.errors, result.errors
    return [(d.location.row, d.message) for d in result.diagnostics]


def test_environment_step_message_names_the_environment():
    found = _findings('''
        import gymnax
        import jax

        env, params = gymnax.make("CartPole-v1")
        obs, state = env.reset(jax.random.PRNGKey(0), params)
        for t in range(100_000):
            obs, state, reward, done, _ = env.step(jax.random.PRNGKey(t), state, 0, params)
    ''')
    assert len(found) == 1 and found[0][0] == 8
    assert "environment step written in JAX" in found[0][1]


def test_a_module_class_defining_the_method_keeps_its_own():
    # `Accumulator.apply_gradients(grads=...)` of the module: not flax's, whatever the object is.
    assert _findings('''
        import jax
        import jax.numpy as jnp

        class Accumulator:
            def __init__(self):
                self.total = None

            def apply_gradients(self, *, grads):
                self.total = grads if self.total is None else self.total + grads
                return self

        grad_fn = jax.jit(jax.grad(lambda p, b: jnp.sum(p * b)))

        def accumulate(acc, params, batches):
            for batch in batches:
                acc = acc.apply_gradients(grads=grad_fn(params, batch))
            return acc
    ''') == []


def test_signature_entry_needs_the_keyword():
    model = SemanticModel(ast.parse("state.apply_gradients(grads=g)\nopt.apply_gradients(zip(g, v))\n"))
    keyword, positional = (statement.value for statement in model.tree.body)
    assert library_models.call_model(model, keyword).runs_model
    assert library_models.call_model(model, positional) is None


def test_decorated_optimizer_of_another_module(tmp_path: Path):
    (tmp_path / "optim.py").write_text(textwrap.dedent('''
        import jax
        from jax.example_libraries.optimizers import optimizer

        @optimizer
        def langevin(step_size, temperature):
            def init(x0):
                return x0, jax.random.PRNGKey(0)

            def update(i, g, state):
                x, key = state
                key, sub = jax.random.split(key)
                return x - step_size * g + temperature * jax.random.normal(sub, g.shape), key

            def get_params(state):
                return state[0]

            return init, update, get_params
    '''))
    run = tmp_path / "run.py"
    run.write_text(textwrap.dedent('''
        import jax
        import jax.numpy as jnp
        import optim

        grad_loss = jax.jit(jax.grad(lambda p, b: jnp.sum((b @ p) ** 2)))

        def train(params, batches):
            opt_init, opt_update, get_params = optim.langevin(1e-3, 1e-4)
            state = opt_init(params)
            for i, batch in enumerate(batches):
                state = opt_update(i, grad_loss(get_params(state), batch), state)
            return get_params(state)
    '''))
    summary = summarise_file(tmp_path / "optim.py")
    assert summary.functions["langevin"].returned_calls == ((-1, 0, "jax.example_libraries.optimizers.OptimizerMaker"),)
    found = _findings(run.read_text(), str(run), Settings(root=tmp_path))
    assert [row for row, _ in found] == [12]
