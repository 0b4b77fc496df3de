"""JAX203 across modules: a method its class rebinds to a compiled version of itself in `__init__`
(`self.step = jax.jit(self.step)`) runs compiled when called on an instance in another module."""

from __future__ import annotations

from conftest import FIXTURES
from rule_fixtures import expected_findings
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

PROJECT = FIXTURES / "rebound_methods"


def test_a_method_compiled_in_the_constructor_is_not_eager_work():
    path = PROJECT / "run.py"
    result = check_source(path.read_text(), str(path), Settings(root=PROJECT), [RULES_BY_CODE["JAX203"]])
    assert not result.errors, result.errors
    found = {(d.location.row, d.code) for d in result.diagnostics}
    assert found == set(expected_findings(path.read_text())), sorted(found)
