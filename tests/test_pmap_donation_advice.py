"""JAX401's advice for a `jax.pmap` step: `jax.pmap` takes `donate_argnums` only (a `donate_argnames`
keyword raises TypeError on jax 0.10.2), and `donate_argnums` donates nothing passed by keyword. The
message names positions, asks for the state to be passed by position, and the fixer never writes
`donate_argnames` into a `pmap`. The compiled function is found through its class too
(`jax.pmap(Trainer.step)` of a static method)."""

from __future__ import annotations

import ast

from jaxlint.fixes import donation
from tests.rule_fixtures import actual_findings

STATIC_METHOD = '''
import jax


class Learner:
    def __init__(self, state):
        self.update = jax.pmap(Learner.update, axis_name="batch")
        self.state = state

    @staticmethod
    def update(carry, images, labels):
        return carry, images

    def fit(self, loader):
        for images, labels in loader:
            self.state, metrics = self.update(carry=self.state, images=images, labels=labels)
'''

STATIC_METHOD_SECOND = '''
import jax


class Learner:
    def __init__(self, state):
        self.update = jax.pmap(Learner.update)
        self.state = state

    @staticmethod
    def update(batch, carry):
        return carry, batch

    def fit(self, loader):
        for batch in loader:
            self.state, metrics = self.update(batch=batch, carry=self.state)
'''

UNKNOWN_FUNCTION = '''
import jax
from elsewhere import build_update


class Learner:
    def __init__(self, state):
        self.update = jax.pmap(build_update(), axis_name="batch")
        self.state = state

    def fit(self, loader):
        for images in loader:
            self.state, metrics = self.update(carry=self.state, images=images)
'''

POSITIONAL = '''
import jax


def update(carry, images):
    return carry, images


def fit(carry, loader):
    p_update = jax.pmap(update)
    for images in loader:
        carry, metrics = p_update(carry, images)
    return carry
'''

JIT_BY_KEYWORD = '''
import jax


def update(carry, images):
    return carry, images


def fit(carry, loader):
    j_update = jax.jit(update)
    for images in loader:
        carry, metrics = j_update(carry=carry, images=images)
    return carry
'''


def _messages(source: str) -> dict[int, str]:
    _, diagnostics = actual_findings(source, "learner.py", {"JAX401"})
    return {d.location.row: d.message for d in diagnostics}


def _advice(message: str) -> str:
    return message.split("(`pmap` has no")[0]


def test_static_method_through_its_class_gives_the_position():
    messages = _messages(STATIC_METHOD)
    assert list(messages) == [16]
    message = messages[16]
    assert "donate_argnums=(0,)" in message and "donate_argnames" not in _advice(message)
    assert "pass `carry` by position" in message and "no automatic fix" in message


def test_static_method_second_parameter():
    message = _messages(STATIC_METHOD_SECOND)[16]
    assert "donate_argnums=(1,)" in message and "donate_argnames" not in _advice(message)


def test_unknown_function_names_no_argnames():
    message = _messages(UNKNOWN_FUNCTION)[13]
    assert "donate_argnames" not in _advice(message)
    assert "`donate_argnums` listing the position of `carry`" in message
    assert "pass `carry` by position" in message and "no automatic fix" in message


def test_look_alike_positional_pmap_keeps_its_numbers():
    message = _messages(POSITIONAL)[12]
    assert "donate_argnums=(0,)" in message and "by position" not in message


def test_look_alike_jit_by_keyword_keeps_argnames():
    message = _messages(JIT_BY_KEYWORD)[12]
    assert "donate_argnames=('carry',)" in message


def test_fixer_writes_no_argnames_into_a_pmap():
    tree = ast.parse(UNKNOWN_FUNCTION)
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "attr", None) == "update")

    class Binding:
        transform = "jax.pmap"

    assert donation.fix_for(call, Binding(), [(None, "carry")], context=None) is None
