"""JAX401: an attribute bound to another attribute of the same object (`self.val_step =
self.train_step`) is the same compiled callable. An evaluation call through it that keeps the state
it hands over (`loss, _ = self.val_step(state, batch)`) runs the same `jit`, so donating there would
delete the state: the update is asked for its own `jit`, with no automatic fix."""

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

HEAD = "import jax\n\n\nclass Trainer:\n"


def _findings(body: str):
    return check_source(HEAD + body, "m.py", Settings(), [RULES_BY_CODE["JAX401"]]).diagnostics


def _shared(finding) -> bool:
    return "its own `jit`" in finding.message and finding.fix is None


def test_alias_bound_beside_the_jit_keeps_the_state():
    (finding,) = _findings(
        "    def build(self, step):\n"
        "        self.train_step = jax.jit(step)\n"
        "        self.val_step = self.train_step\n\n"
        "    def fit(self, state, batches):\n"
        "        for batch in batches:\n"
        "            loss, state = self.train_step(state, batch)\n"
        "        for batch in batches:\n"
        "            loss, _ = self.val_step(state, batch)\n"
        "        return state\n"
    )
    assert finding.location.row == 11 and _shared(finding)


def test_alias_in_another_method_keeps_the_state():
    (finding,) = _findings(
        "    def __init__(self, step):\n"
        "        self.update = jax.jit(step)\n"
        "        self.evaluate = self.update\n\n"
        "    def fit(self, state, batches):\n"
        "        for batch in batches:\n"
        "            state, metrics = self.update(state, batch)\n"
        "        return state\n\n"
        "    def score(self, state, batches):\n"
        "        for batch in batches:\n"
        "            _, metrics = self.evaluate(state, batch)\n"
        "        return state\n"
    )
    assert finding.location.row == 11 and _shared(finding)


def test_alias_called_once_after_the_loop_keeps_the_state():
    (finding,) = _findings(
        "    def __init__(self, step):\n"
        "        self.step = jax.jit(step)\n"
        "        self.probe = self.step\n\n"
        "    def fit(self, params, batches):\n"
        "        for batch in batches:\n"
        "            params, loss = self.step(params, batch)\n"
        "        _, final_loss = self.probe(params, batches[0])\n"
        "        return params, final_loss\n"
    )
    assert finding.location.row == 11 and _shared(finding)


def test_alias_that_rebinds_the_state_is_an_update_too():
    # The evaluation call rebinds what it passes: it keeps nothing, donation is safe for both.
    findings = _findings(
        "    def __init__(self, step):\n"
        "        self.train_step = jax.jit(step)\n"
        "        self.val_step = self.train_step\n\n"
        "    def fit(self, state, batches):\n"
        "        for batch in batches:\n"
        "            loss, state = self.train_step(state, batch)\n"
        "        return state\n\n"
        "    def validate(self, state, batches):\n"
        "        for batch in batches:\n"
        "            loss, state = self.val_step(state, batch)\n"
        "        return loss\n"
    )
    first = next(f for f in findings if f.location.row == 11)
    assert not _shared(first)


def test_attribute_bound_twice_is_no_alias():
    # `self.val_step` is also bound to another callable: its calls may run something else.
    findings = _findings(
        "    def __init__(self, step, other):\n"
        "        self.train_step = jax.jit(step)\n"
        "        self.val_step = self.train_step\n\n"
        "    def use_other(self, other):\n"
        "        self.val_step = other\n\n"
        "    def fit(self, state, batches):\n"
        "        for batch in batches:\n"
        "            loss, state = self.train_step(state, batch)\n"
        "        for batch in batches:\n"
        "            loss, _ = self.val_step(state, batch)\n"
        "        return state\n"
    )
    first = next(f for f in findings if f.location.row == 14)
    assert not _shared(first)
