"""Paths and donations: a branch every caller fixes, read only where all callers are in sight (a
module-level function another module names stays live), and JAX401's advice for `jax.pmap`, which
donates positional arguments only."""

from pathlib import Path

from rule_fixtures import actual_findings, check_in_project

SCHEDULE = '''import jax
import jax.numpy as jnp


def schedule(rng, n_items, shuffle=False):
    order = jnp.arange(n_items)
    if shuffle:
        order = jax.random.permutation(rng, order)
    pick_key, rng = jax.random.split(rng)
    return jax.random.choice(pick_key, order)


def run(rng):
    return schedule(rng, 10, shuffle=False)
'''


def _project(tmp_path: Path, importer: str) -> Path:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "plans.py").write_text(SCHEDULE)
    (package / "main.py").write_text(importer)
    return package / "plans.py"


def test_branch_fixed_by_every_caller_in_sight_is_not_taken(tmp_path):
    module = _project(tmp_path, "from pkg import plans\n\nprint(plans.__name__)\n")
    assert not check_in_project(module, tmp_path, ["JAX501"]).diagnostics


def test_function_named_by_another_module_keeps_both_branches(tmp_path):
    module = _project(tmp_path, "import jax\nfrom pkg.plans import schedule\n\nschedule(jax.random.key(0), 5, shuffle=True)\n")
    rows = [d.location.row for d in check_in_project(module, tmp_path, ["JAX501"]).diagnostics]
    assert rows == [9]


PMAP_BY_KEYWORD = '''from functools import partial

import jax


def train_step(model, state, batch):
    return state


def train(model, state, batches):
    p_step = jax.pmap(partial(train_step, model=model))
    for batch in batches:
        state = p_step(state=state, batch=batch)
    return state


def step(state, batch):
    return state


def train_plain(state, batches):
    p_step = jax.pmap(step)
    for batch in batches:
        state = p_step(state=state, batch=batch)
    return state
'''


def test_pmap_advice_names_positions_not_argnames():
    _, diagnostics = actual_findings(PMAP_BY_KEYWORD, "train.py", {"JAX401"})
    messages = {d.location.row: d.message for d in diagnostics}
    assert sorted(messages) == [13, 24]
    for message in messages.values():
        assert "donate_argnames" not in message.split("(`pmap` has no")[0]
        assert "pass `state` by position" in message
        assert "no automatic fix" in message
    # `model`, fixed by keyword before `state`, must move after it: `state` becomes argument 0.
    assert "donate_argnums=(0,)" in messages[13] and "`model`" in messages[13]
    assert "donate_argnums=(0,)" in messages[24] and "`model`" not in messages[24]
