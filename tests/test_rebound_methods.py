"""JAX203 across modules: a method its class rebinds to a compiled version of itself in `__init__`
(`self.step = jax.jit(self.step)`) runs compiled when called on an instance in another module."""

from __future__ import annotations

from conftest import FIXTURES
from rule_fixtures import project_file_findings

PROJECT = FIXTURES / "rebound_methods"


def test_a_method_compiled_in_the_constructor_is_not_eager_work():
    found, expected = project_file_findings(PROJECT / "run.py", PROJECT, ["JAX203"])
    assert found == expected, sorted(found)
