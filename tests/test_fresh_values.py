"""Fresh results (semantic/fresh_values.py): which project functions return only new buffers, in
this module and through other modules' summaries, and the JAX401 fix that reads them."""

from __future__ import annotations

import ast
import importlib
import sys
import textwrap

import numpy as np
import pytest

from jaxlint.config import Settings
from jaxlint.fixer import fix_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic import fresh_values
from jaxlint.semantic.model import SemanticModel
from jaxlint.semantic.project import ProjectView

_HELPERS = textwrap.dedent('''
    import functools
    from typing import NamedTuple
    import jax
    import jax.numpy as jnp
    import optax
    from flax.training import train_state
    from jax.example_libraries import optimizers

    class Pair(NamedTuple):
        first: object
        second: object

    class Holder:
        def __init__(self, tree):
            self.tree = tree

    class Opt:
        def __init__(self, lr):
            self.tx = optax.adam(lr)
        def start(self, params):
            return Pair(jax.tree.map(jnp.zeros_like, params), jnp.zeros((), jnp.int32))
        def start_storing(self, params):
            return {"params": params, "mu": jax.tree.map(jnp.zeros_like, params)}
        def start_optax(self, params):
            return self.tx.init(params)

    GLOBAL = jnp.zeros(3)

    def zeros_tree(p):
        return jax.tree.map(jnp.zeros_like, p)
    def through_helper(p):
        z = zeros_tree(p)
        return z, zeros_tree(p), 0
    def scaled(p):
        return jax.tree.map(lambda x: x * 0.0, p)
    def filled_fresh(p):
        xs = []
        for leaf in jax.tree.leaves(p):
            xs.append(jnp.zeros_like(leaf))
        return xs
    def drawn(key, n):
        k1, k2 = jax.random.split(key)
        return {"w": jax.random.normal(k1, (n, n)), "b": jnp.zeros(n)}
    def optax_state(p):
        tx = optax.adam(1e-3)
        return tx.init(p)
    def computed(p):
        return [jnp.zeros_like(x) for x in p]
    def partial_map(p):
        return jax.tree.map(functools.partial(jnp.full_like, fill_value=0.0), p)
    def arithmetic(p):
        return p * 0.5
    def created(p, apply):
        return train_state.TrainState.create(apply_fn=apply, params=jnp.zeros(3), tx=optax.sgd(p))
    def created_with_stats(p):
        return train_state.TrainState.create(apply_fn=None, params=jnp.zeros(3), tx=None, batch_stats=p)
    def as_array_of_fresh(p):
        return {"w": jnp.asarray(jnp.ones(3))}

    def itself(p):
        return p
    def as_array_in_tree(p):
        return {"w": jnp.asarray(p["w"]), "b": jnp.zeros(3)}
    def identity_map(p):
        return jax.tree.map(lambda x: x, p)
    def example_init(p):
        init, update, get = optimizers.adam(1e-3)
        return init(p)
    def stored_item(p):
        d = {}
        d["p"] = p
        return d
    def appended_leaves(p):
        xs = []
        for leaf in jax.tree.leaves(p):
            xs.append(leaf)
        return xs
    def a_global():
        return GLOBAL
    def placed(p):
        return jax.device_put(p)
    def placed_pair(p):
        return jax.device_put(jnp.zeros(3)), jax.device_put(p["w"])
    def sometimes_itself(p, flag):
        if flag:
            return zeros_tree(p)
        return p
    def repeated(p):
        return [p] * 2
    def loop_variables(p):
        return [x for x in p]
    def nothing(p):
        return None
    def handed_on(p):
        d = {}
        fill(d, p)
        return d
    def fill(d, p):
        d["p"] = p
    def wrapped(p):
        return Holder(jnp.zeros(3))
    def recursive(p, n):
        return jnp.zeros(3) if n == 0 else recursive(p, n - 1)
''')

_FRESH = ["zeros_tree(params)", "through_helper(params)", "scaled(params)", "filled_fresh(params)", "drawn(key, 3)",
          "optax_state(params)", "computed(params)", "partial_map(params)", "arithmetic(params)", "as_array_of_fresh(params)", "created(params, apply)", "opt.start(params)",
          "opt.start_optax(params)", "Pair(jnp.zeros(3), 0)"]
_NOT_FRESH = ["itself(params)", "as_array_in_tree(params)", "identity_map(params)", "example_init(params)", "stored_item(params)",
              "appended_leaves(params)", "a_global()", "placed(params)", "placed_pair(params)", "created_with_stats(params)", "sometimes_itself(params, True)", "repeated(params)",
              "loop_variables(params)", "nothing(params)", "handed_on(params)", "wrapped(params)", "recursive(params, 2)",
              "opt.start_storing(params)", "Pair(params, 0)", "Opt(0.1)"]


def _calls_in_main(source: str, project=None):
    tree = ast.parse(source)
    model = SemanticModel(tree, project=project)
    main = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "main")
    calls = {ast.unparse(node.value): node.value for node in ast.walk(main) if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call)}
    return model, calls


@pytest.mark.parametrize("call", _FRESH + _NOT_FRESH)
def test_fresh_results_of_this_module(call):
    source = _HELPERS + "\ndef main(params, key, apply):\n    opt = Opt(0.1)\n" + "".join(f"    {text}\n" for text in _FRESH + _NOT_FRESH)
    model, calls = _calls_in_main(source)
    found = fresh_values.call_returns_fresh(model, calls[call], model.scope_for(calls[call]))
    assert found is (call in _FRESH)


def _write_package(root):
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "leaves.py").write_text(textwrap.dedent('''
        import jax
        import jax.numpy as jnp


        def zeros_tree(tree):
            return jax.tree.map(jnp.zeros_like, tree)


        def same_tree(tree):
            return tree
    '''))
    (package / "records.py").write_text(textwrap.dedent('''
        from typing import NamedTuple


        class Moments(NamedTuple):
            mean: object
            count: object
    '''))
    (package / "optim.py").write_text(textwrap.dedent('''
        import jax.numpy as jnp

        from .leaves import zeros_tree, same_tree
        from .records import Moments


        def init_moments(params):
            return Moments(zeros_tree(params), jnp.zeros((), jnp.int32))


        def init_keeping(params):
            return Moments(same_tree(params), jnp.zeros((), jnp.int32))


        class Averager:
            def start(self, params):
                return self._zeros(params)

            def _zeros(self, params):
                return Moments(zeros_tree(params), jnp.zeros((), jnp.int32))

            def start_keeping(self, params):
                return Moments(params, jnp.zeros((), jnp.int32))
    '''))


_TRAIN = textwrap.dedent('''
    import jax
    import jax.numpy as jnp
    from pkg.optim import init_moments, init_keeping, Averager


    def _advance(state, params):
        mean = jax.tree.map(lambda m, p: 0.9 * m + p, state.mean, params)
        return state._replace(mean=mean, count=state.count + 1)


    step_helper = jax.jit(_advance)
    step_keeping = jax.jit(_advance)
    step_method = jax.jit(_advance)
    step_method_keeping = jax.jit(_advance)


    def run(scale):
        params = {"w": jnp.full((3, 3), scale)}
        state = init_moments(params)
        for _ in range(3):
            state = step_helper(state, params)
        kept = init_keeping(params)
        for _ in range(3):
            kept = step_keeping(kept, params)
        averager = Averager()
        started = averager.start(params)
        for _ in range(3):
            started = step_method(started, params)
        holding = averager.start_keeping(params)
        for _ in range(3):
            holding = step_method_keeping(holding, params)
        return params["w"], state.mean["w"], state.count, kept.mean["w"], started.mean["w"], holding.mean["w"]
''')


def test_fresh_helpers_of_other_modules_get_the_donation_fix(tmp_path, monkeypatch):
    """A helper two modules away (through a record class of a third) and a method of an imported
    class are fresh; their look-alikes that keep the parameter are not."""
    _write_package(tmp_path)
    train = tmp_path / "train.py"
    train.write_text(_TRAIN)
    view = ProjectView(str(train))
    assert view.call_returns_fresh("pkg.optim.init_moments", False)
    assert not view.call_returns_fresh("pkg.optim.init_keeping", False)
    assert view.dependencies  # the summaries read are recorded, so the results cache follows their content

    outcome = fix_source(_TRAIN, str(train), Settings(), [RULES_BY_CODE["JAX401"]], unsafe=True)
    assert "step_helper = jax.jit(_advance, donate_argnums=(0,))" in outcome.text
    assert "step_method = jax.jit(_advance, donate_argnums=(0,))" in outcome.text
    assert "step_keeping = jax.jit(_advance)\n" in outcome.text
    assert "step_method_keeping = jax.jit(_advance)\n" in outcome.text
    reasons = sorted(d.message.split("no automatic fix: ", 1)[1] for d in outcome.remaining)
    assert len(reasons) == 2
    assert reasons[0].startswith("`holding` comes from `averager.start_keeping(...)`, which jaxlint cannot show returns only new buffers")
    assert reasons[1].startswith("`kept` comes from `init_keeping(...)`")
    assert all("its argument `params` is read after the call" in reason for reason in reasons)

    # The fixed module computes what the original does, and the array the caller keeps survives.
    fixed = tmp_path / "train_fixed.py"
    fixed.write_text(outcome.text)
    monkeypatch.syspath_prepend(str(tmp_path))
    original_module = importlib.import_module("train")
    fixed_module = importlib.import_module("train_fixed")
    try:
        for scale in (1.0, 2.5):
            for a, b in zip(fixed_module.run(scale), original_module.run(scale)):
                np.testing.assert_allclose(a, b)
    finally:
        for name in ("train", "train_fixed", "pkg", "pkg.optim", "pkg.leaves", "pkg.records"):
            sys.modules.pop(name, None)


def test_a_summary_cycle_is_not_fresh(tmp_path):
    (tmp_path / "ping.py").write_text("import jax.numpy as jnp\nfrom pong import pong\n\ndef ping(p, n):\n    return pong(p, n)\n")
    (tmp_path / "pong.py").write_text("import jax.numpy as jnp\nfrom ping import ping\n\ndef pong(p, n):\n    return ping(p, n)\n")
    main = tmp_path / "main.py"
    main.write_text("from ping import ping\n")
    assert not ProjectView(str(main)).call_returns_fresh("ping.ping", False)
