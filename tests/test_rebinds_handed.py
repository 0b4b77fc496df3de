"""semantic/flow.rebinds_handed: the one syntactic sign of a call that carries state between iterations,
which the training-loop, step-pacing, recording and opaque-step questions share."""

import ast

import pytest

from jaxlint.semantic import flow


def _handed_back(code: str) -> set[str]:
    statement = ast.parse(code).body[0]
    call = next(node for node in ast.walk(statement) if isinstance(node, ast.Call))
    return flow.rebinds_handed(statement, call)


@pytest.mark.parametrize(("code", "names"), [
    ("state, loss = step(state, batch)", {"state"}),
    ("params, rng = update(params, x, rng=rng)", {"params", "rng"}),  # a keyword is handed too
    ("(params, opt), m = step((params, opt), batch)", {"params", "opt"}),  # elements of a tuple argument
    ("self.state = self.step(self.state, batch)", {"self.state"}),  # dotted names
    ("state: object = step(state)", {"state"}),
    ("total += step(total)", {"total"}),
    # look-alikes: nothing handed back
    ("loss = step(state, batch)", set()),  # the result is a new name
    ("state = step(other, batch)", set()),  # rebinds what it was not handed
    ("state = post(step(state, batch))", set()),  # the call is not the statement's whole value
    ("step(state, batch)", set()),  # no rebinding at all
    ("state.params = step(state, batch)", set()),  # a part of the handed value, not the value
])
def test_rebinds_handed(code, names):
    assert _handed_back(code) == names
