"""A restore into a template is what the template is (library_models `same:<i>,<keyword>|<kind>`):
orbax `restore(path, item=state)`, flax `restore_checkpoint(path, target=state)`,
`serialization.from_bytes(state, data)`; without a template, what the restore makes."""

from __future__ import annotations

import ast
import textwrap

import pytest

from jaxlint.semantic import library_models
from jaxlint.semantic.model import SemanticModel

_HEADER = textwrap.dedent('''
    import optax
    import orbax.checkpoint as ocp
    from flax import serialization
    from flax.training import checkpoints, train_state

    state = train_state.TrainState.create(apply_fn=None, params={}, tx=optax.sgd(0.1))
''')
_TRAIN_STATE = "object:flax.training.train_state.TrainState"


def _kind(expression: str):
    model = SemanticModel(ast.parse(_HEADER + f"restored = {expression}\n"))
    call = model.tree.body[-1].value
    return library_models.value_kind(model, call, model.module_scope), library_models.device_kind(model, call, model.module_scope)


@pytest.mark.parametrize("expression", [
    "ocp.PyTreeCheckpointer().restore('ckpt', item=state)",
    "ocp.PyTreeCheckpointer().restore('ckpt', state)",
    "ocp.PyTreeCheckpointer().restore('ckpt', target=state)",
    "checkpoints.restore_checkpoint('ckpt', target=state)",
    "checkpoints.restore_checkpoint('ckpt', state)",
    "serialization.from_bytes(state, b'')",
    "serialization.from_state_dict(target=state, state={})",
])
def test_restore_into_template_is_the_template(expression):
    kind, _ = _kind(expression)
    assert kind == _TRAIN_STATE


def test_orbax_restore_of_a_template_object_is_still_device_state():
    assert _kind("ocp.PyTreeCheckpointer().restore('ckpt', item=state)")[1] == "device"


@pytest.mark.parametrize("expression, kind", [
    ("ocp.PyTreeCheckpointer().restore('ckpt')", "device_tree"),
    ("ocp.PyTreeCheckpointer().restore('ckpt', item={'w': 1})", "device_tree"),
    ("checkpoints.restore_checkpoint('ckpt', None)", None),
    ("checkpoints.restore_checkpoint('ckpt')", None),
])
def test_restore_without_a_modelled_template(expression, kind):
    assert _kind(expression)[0] == kind
