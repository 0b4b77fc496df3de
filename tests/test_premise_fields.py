"""A premise checked by the model: a field stored back into the container that held it
(`holder = holder.replace(state=new)`, semantic/flow.py) carries that field as a name is carried (JAX401)."""

import ast

import pytest

from jaxlint.semantic import flow


@pytest.mark.parametrize(("code", "fields"), [
    ("holder = holder.replace(state=new, key=k)", {"holder.state": "new", "holder.key": "k"}),
    ("run = run._replace(params=p)", {"run.params": "p"}),
    ("self.ts = self.ts.replace(opt=o)", {"self.ts.opt": "o"}),
    ("ts = dataclasses.replace(ts, model=m)", {"ts.model": "m"}),
    ("ts = ts.replace(step=ts.step + 1)", {}),  # not a plain name
    ("other = holder.replace(state=new)", {}),  # a new container: the old one keeps its field
    ("holder = holder.replace(new_defaults)", {}),  # positional: not a field
])
def test_fields_replaced(code, fields):
    statement = ast.parse(code).body[0]
    assert flow.fields_replaced(statement.targets[0], statement.value) == fields
