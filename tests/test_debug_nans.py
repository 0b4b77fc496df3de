"""JAX201 and JAX202 under `jax_debug_nans`: switched on unconditionally at the top of the program,
every computation waits for its own result (measured by benchmarks/callback_sync.py), so neither an
unblocked interval nor a per-step read costs anything more; switched on only under a condition, the
rules report as usual."""

from __future__ import annotations

from conftest import FIXTURES
from rule_fixtures import expected_findings
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

RULES = [RULES_BY_CODE["JAX201"], RULES_BY_CODE["JAX202"]]


def _found(name: str) -> tuple[set, set]:
    path = FIXTURES / "debug_nans" / name
    text = path.read_text()
    result = check_source(text, str(path), Settings(root=path.parent), RULES)
    assert not result.errors, result.errors
    return {(d.location.row, d.code) for d in result.diagnostics}, set(expected_findings(text))


def test_switched_on_at_the_top_every_result_is_waited_for():
    found, expected = _found("switched_on.py")
    assert found == expected == set()


def test_switched_on_under_a_condition_proves_nothing():
    found, expected = _found("conditional.py")
    assert found == expected and expected
