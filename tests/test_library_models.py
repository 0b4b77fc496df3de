"""Library models (semantic/library_models/), user entries from the configuration, function
effects (semantic/effects.py), and the donation fix's alias reasons that come from the models."""

from __future__ import annotations

import ast
import textwrap
from pathlib import Path

import pytest

from jaxlint.config import ConfigError, Settings, load_settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic import effects, library_models
from jaxlint.semantic.model import SemanticModel


def _calls(source: str):
    tree = ast.parse(textwrap.dedent(source))
    model = SemanticModel(tree)
    return model, {ast.unparse(node): node for node in ast.walk(tree) if isinstance(node, ast.Call)}


def test_methods_resolve_through_the_objects_the_models_return():
    model, calls = _calls("""
        import gymnax, optax
        import haiku as hk
        from flax import linen as nn
        from flax.training import train_state

        class Net(nn.Module):
            pass

        def main(rng, x):
            tx = optax.adam(1e-3)
            params = Net().init(rng, x)
            state = tx.init(params)
            env, env_params = gymnax.make("CartPole-v1")
            out = env.step(rng, state, 0, env_params)
            f = hk.transform(lambda x: x)
            y = f.apply(params, rng, x)
            z = nn.Dense(3).init(rng, x)
            chained = optax.sgd(0.1).init(params)
            ts = train_state.TrainState.create(apply_fn=None, params=params, tx=tx)
            ts2 = ts.apply_gradients(grads=params)
            ts3 = ts2.apply_gradients(grads=params)
    """)
    names = {text: (library_models.call_model(model, call) or library_models.ApiModel("-")).name for text, call in calls.items()}
    assert names["tx.init(params)"] == "optax.GradientTransformation.init"
    assert names["Net().init(rng, x)"] == "flax.linen.Module.init"
    assert names["env.step(rng, state, 0, env_params)"] == "gymnax.Environment.step"
    assert names["f.apply(params, rng, x)"] == "haiku.Transformed.apply"
    assert names["nn.Dense(3).init(rng, x)"] == "flax.linen.Module.init"
    assert names["optax.sgd(0.1).init(params)"] == "optax.GradientTransformation.init"
    assert names["ts2.apply_gradients(grads=params)"] == "flax.training.train_state.TrainState.apply_gradients"
    apply = calls["f.apply(params, rng, x)"]
    assert [ast.unparse(a) for a in library_models.call_model(model, apply).key_arguments(apply)] == ["rng"]
    step = calls["env.step(rng, state, 0, env_params)"]
    assert model.device_kind(step, model.scope_for(step)) == "device"


def test_unknown_objects_and_rebound_names_resolve_to_nothing():
    model, calls = _calls("""
        import optax

        def main(params, flag):
            tx = optax.adam(1e-3)
            if flag:
                tx = make_other()
            return tx.init(params), other.init(params)
    """)
    assert library_models.call_model(model, calls["tx.init(params)"]) is None
    assert library_models.call_model(model, calls["other.init(params)"]) is None


def test_annotated_parameters_are_instances_of_their_modelled_class():
    model, calls = _calls("""
        from typing import Optional
        import optax
        from flax import linen as nn
        from flax.training.train_state import TrainState

        class Tower(nn.Module):
            pass

        def step(state: TrainState, tower: "Tower", tx: optax.GradientTransformation, grads, x):
            out = tower.apply(state.params, x)
            state = state.apply_gradients(grads=grads)
            return state.apply_fn(state.params, x), tx.update(grads, None)

        def other(state: Optional[TrainState], swapped: TrainState, plain, x):
            swapped = make_state()
            return state.apply_gradients(grads=x), swapped.apply_gradients(grads=x), plain.apply(x), swapped.apply_fn(x)

        def mixed(either: TrainState | optax.GradientTransformation, towers: "Tower | None", unknown: "Tower | Other", x):
            return either.apply_gradients(grads=x), towers.apply(x), unknown.apply(x), either.apply_fn(x)
    """)

    def name(text):
        found = library_models.call_model(model, calls[text])
        return found.name if found is not None else None

    assert name("tower.apply(state.params, x)") == "flax.linen.Module.apply"
    assert name("state.apply_gradients(grads=grads)") == "flax.training.train_state.TrainState.apply_gradients"
    assert name("state.apply_fn(state.params, x)") == "flax.training.train_state.TrainState.apply_fn"
    assert name("tx.update(grads, None)") == "optax.GradientTransformation.update"
    assert all(library_models.call_model(model, calls[t]).runs_model for t in ["tower.apply(state.params, x)", "tx.update(grads, None)"])
    # `Optional[X]`, `X | None`: where a method is called on it, it is an X (a `None` has no methods).
    assert name("state.apply_gradients(grads=x)") == "flax.training.train_state.TrainState.apply_gradients"
    assert name("towers.apply(x)") == "flax.linen.Module.apply"
    # Alternatives of different classes, or one not modelled; a parameter rebound to something unknown;
    # no annotation: nothing said.
    assert name("either.apply_fn(x)") is None
    assert name("unknown.apply(x)") is None
    assert name("swapped.apply_fn(x)") is None
    assert name("plain.apply(x)") is None
    # (but a method whose name and keywords are a library's own signature says what it is wherever the
    # class is not shown: flax's keyword-only `apply_gradients(grads=...)`, library_models SIGNATURES)
    assert name("either.apply_gradients(grads=x)") == "flax.training.train_state.TrainState.apply_gradients"
    assert name("swapped.apply_gradients(grads=x)") == "flax.training.train_state.TrainState.apply_gradients"
    assert library_models.validate("mylib.Net.forward", {"runs_model": "yes"}) == "`runs_model` must be true or false"


def test_key_derivation_is_modelled_and_validated():
    """Flax linen derives keys by name, Haiku by split; a user entry may say either, nothing else."""
    models = library_models.models()
    assert models.entry("flax.linen.Module.init").key_derivation == "by_name"
    assert models.entry("flax.linen.Module.apply").key_derivation == "by_name"
    assert models.entry("haiku.Transformed.init").key_derivation == "split"
    assert models.entry("jax.random.normal") is None or models.entry("jax.random.normal").key_derivation is None
    assert library_models.validate("mylib.Net.init", {"consumes_key": 0, "key_derivation": "by_name"}) is None
    assert library_models.validate("mylib.Net.init", {"key_derivation": "hashed"}).startswith("`key_derivation` must be one of")


def test_classes_of_other_project_modules_resolve_through_their_bases(tmp_path):
    from jaxlint.semantic.project import ProjectView

    (tmp_path / "nets.py").write_text("import flax.linen as nn\n\nclass Tower(nn.Module):\n    pass\n\nclass Plain:\n    pass\n")
    main = tmp_path / "main.py"
    main.write_text(textwrap.dedent("""
        from nets import Tower, Plain

        def forward(tower: Tower, plain: Plain, params, x):
            made = Tower()
            return tower.apply(params, x), made.apply(params, x), plain.apply(params, x)
    """))
    tree = ast.parse(main.read_text())
    model = SemanticModel(tree, project=ProjectView(str(main)))
    calls = {ast.unparse(node): node for node in ast.walk(tree) if isinstance(node, ast.Call)}

    def name(text):
        found = library_models.call_model(model, calls[text])
        return found.name if found is not None else None

    assert name("tower.apply(params, x)") == "flax.linen.Module.apply"
    assert name("made.apply(params, x)") == "flax.linen.Module.apply"
    assert name("plain.apply(params, x)") is None


def test_class_methods_of_subclasses_of_modelled_classes():
    """`TrainState.create(...)` on a class of the module deriving from a modelled one is the modelled
    classmethod; an unrelated class or a local name is not."""
    model, calls = _calls("""
        from flax.training import train_state

        class TrainState(train_state.TrainState):
            batch_stats: dict

        class Plain:
            pass

        def build(apply, params, tx, stats):
            made = TrainState.create(apply_fn=apply, params=params, tx=tx, batch_stats=stats)
            other = Plain.create(params)
            TrainState = None
            return made, other
    """)
    found = library_models.call_model(model, calls["TrainState.create(apply_fn=apply, params=params, tx=tx, batch_stats=stats)"])
    assert found is None  # `TrainState` is rebound in the function: a local name, not the class
    model, calls = _calls("""
        from flax.training import train_state

        class TrainState(train_state.TrainState):
            batch_stats: dict

        class Plain:
            pass

        def build(apply, params, tx, stats):
            return TrainState.create(apply_fn=apply, params=params, tx=tx, batch_stats=stats), Plain.create(params)
    """)
    found = library_models.call_model(model, calls["TrainState.create(apply_fn=apply, params=params, tx=tx, batch_stats=stats)"])
    assert found is not None and found.name == "flax.training.train_state.TrainState.create"
    assert found.static_arguments == ("apply_fn", "tx")
    assert library_models.call_model(model, calls["Plain.create(params)"]) is None


def test_every_builtin_entry_is_well_formed():
    for library in library_models._LIBRARIES:
        for name, fields in library.MODELS.items():
            assert library_models.validate(name, fields) is None, name


def test_effects_of_helpers():
    model, calls = _calls("""
        import jax

        def draw(values, noise_key):
            return values + jax.random.normal(noise_key, values.shape)

        def split_first(state, rng):
            rng, sub = jax.random.split(rng)
            return state

        def folded(state, rng, i):
            return jax.random.fold_in(rng, i)

        def to_host(m):
            return {k: float(v) for k, v in m.items()}

        def to_host_if(m, on):
            if on:
                return float(m)
            return 0.0

        def main(a, rng, m):
            draw(a, rng); split_first(a, rng); folded(a, rng, 1); to_host(m); to_host_if(m, True)
    """)
    scope = model.module_scope
    consumed = lambda text: [ast.unparse(a) for a in effects.consumed_key_arguments(model, calls[text], scope)]
    synced = lambda text: [ast.unparse(a) for a in effects.synced_arguments(model, calls[text], scope)]
    assert consumed("draw(a, rng)") == ["rng"]
    assert consumed("split_first(a, rng)") == ["rng"]
    assert consumed("folded(a, rng, 1)") == []
    assert synced("to_host(m)") == ["m"]
    assert synced("to_host_if(m, True)") == []


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "pyproject.toml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_user_entries_from_pyproject(tmp_path):
    _write(tmp_path, """
        [tool.jaxlint.library-models]
        "simlib.World.advance" = { returns = "device" }
        "simlib.make_world" = { consumes-key = [0], returns = "object:simlib.World" }
    """)
    settings = load_settings(tmp_path)
    assert settings.library_models["simlib.make_world"]["consumes_key"] == (0,)
    source = textwrap.dedent("""
        import jax
        import simlib

        @jax.jit
        def act(w, obs):
            return w * obs

        def main(key, w, steps):
            world = simlib.make_world(key)
            obs = world.advance(None)
            total = 0.0
            for t in range(steps):
                obs = world.advance(act(w, obs))
                total += float(obs)
            return total

        def twice(key, n):
            return [simlib.make_world(key) for _ in range(n)]
    """)
    rules = [RULES_BY_CODE["JAX201"], RULES_BY_CODE["JAX501"]]
    with_models = check_source(source, "run.py", settings, rules).diagnostics
    assert sorted((d.code, d.location.row) for d in with_models) == [("JAX201", 15), ("JAX501", 19)]
    assert check_source(source, "run.py", Settings(), rules).diagnostics == []
    library_models.configure(None)
    # Cached results depend on the models: a changed entry is a changed cache key.
    assert settings.cache_key() != Settings().cache_key()


@pytest.mark.parametrize("table, message", [
    ('"a.b" = { returns = "gpu" }', "`returns` kind 'gpu'"),
    ('"a.b" = { consumes-key = "x" }', None),
    ('"a.b" = { result = "copy" }', "`result` must be"),
    ('"a.b" = { color = 1 }', "unknown field 'color'"),
    ('"a.b" = { static-arguments = [true] }', "`static_arguments` must be a list"),
    ('"a.b" = { reads-storage = "yes" }', "`reads_storage` must be true or false"),
    ('"a.b" = 3', "must be a table"),
])
def test_user_entries_are_validated(tmp_path, table, message):
    _write(tmp_path, f"[tool.jaxlint.library-models]\n{table}\n")
    if message is None:
        assert load_settings(tmp_path).library_models["a.b"]["consumes_key"] == "x"
        return
    with pytest.raises(ConfigError, match=message.replace("(", r"\(").replace("[", r"\[")):
        load_settings(tmp_path)


_DONATION = """
import argparse
import jax
import jax.numpy as jnp
from jax.example_libraries import optimizers
from jax.sharding import Mesh, NamedSharding, PartitionSpec


@jax.jit
def step(state, batch):
    return jax.tree.map(lambda p: p - 0.1 * batch.mean(), state)


def main(batches):
{body}
"""

_CASES = {
    # Look-alikes: nothing named shares a buffer with the donated state.
    "key": ("    key = jax.random.PRNGKey(0)\n    state = jax.random.normal(key, (8192, 8192))\n", "print(key)", None),
    "module": ("    state = jax.tree.map(jnp.zeros_like, {'w': jnp.ones((8192, 8192))})\n", "print(jnp)", None),
    "args": ("    args = argparse.ArgumentParser().parse_args()\n    state = jnp.full((8192, 8192), args.scale)\n", "print(args)", None),
    "sharding": ("    sharding = NamedSharding(Mesh(jax.devices(), ('d',)), PartitionSpec())\n"
                 "    state = jax.device_put(jnp.zeros((8192, 8192)), sharding)\n", "print(sharding)", None),
    # Real aliases, named in the reason.
    "optimizer init": ("    init, update, get = optimizers.adam(1e-3)\n    params = jnp.ones((8192, 8192))\n    state = init(params)\n",
                       "print(params)", "`state` holds the arrays of `params` (`init` returns them)"),
    "asarray": ("    params = jnp.ones((8192, 8192))\n    state = jnp.asarray(params)\n", "print(params)",
                "`state` holds the arrays of `params` (`jnp.asarray` returns them)"),
    "tree identity": ("    params = jnp.ones((8192, 8192))\n    state = jax.tree.map(lambda x: x, params)\n", "print(params)",
                      "`state` is built from `params`"),
}


@pytest.mark.parametrize("case", sorted(_CASES))
def test_donation_reason_names_a_real_alias(case):
    setup, after, reason = _CASES[case]
    body = setup + "    for batch in batches:\n        state = step(state, batch)\n    " + after + "\n    return state\n"
    source = _DONATION.format(body=body)
    found = check_source(source, "train.py", Settings(), [RULES_BY_CODE["JAX401"]]).diagnostics
    assert len(found) == 1, found
    if reason is None:
        assert found[0].fix is not None, found[0].message
    else:
        assert found[0].fix is None
        assert reason in found[0].message, found[0].message
