"""JAX401 through thin wrappers of compiled updates (semantic/forwarding.py): a function or method that
only returns a call of a jitted callable on its parameters counts as that callable, in its own module
and, through the project summaries, from another module. Markers in fixtures/donation_project/loop.py
say which lines must be flagged."""
from __future__ import annotations

from conftest import FIXTURES
from rule_fixtures import expected_findings

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

PROJECT = FIXTURES / "donation_project"


def _findings(path):
    result = check_source(path.read_text(), str(path), Settings(root=PROJECT), [RULES_BY_CODE["JAX401"]])
    assert not result.errors, result.errors
    return result.diagnostics


def test_state_carried_through_another_modules_wrappers_matches_markers():
    path = PROJECT / "loop.py"
    expected = set(expected_findings(path.read_text()))
    assert len(expected) >= 5, "the fixture marks the lines it expects"
    diagnostics = _findings(path)
    assert {(d.location.row, d.code) for d in diagnostics} == expected
    # The message names the compiled callable to change, and no fix edits a jit in another module.
    by_row = {d.location.row: d for d in diagnostics}
    swapped = next(row for row, _ in expected if "sgd_swapped(batch, params)" in path.read_text().splitlines()[row - 1])
    assert "donate_argnums=(0,)" in by_row[swapped].message and "`_compiled_sgd`" in by_row[swapped].message
    method = next(row for row, _ in expected if "step_compiled_method" in path.read_text().splitlines()[row - 1])
    assert "donate_argnums=(1,)" in by_row[method].message  # `self` counts in the decorated method's argnums
    assert all(d.fix is None for d in diagnostics)


def test_the_defining_module_has_no_findings():
    assert _findings(PROJECT / "learning" / "updates.py") == []
