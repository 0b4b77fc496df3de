"""JAX202 asks a function or method of another project module whether it returns while compiled work
it dispatched still runs (semantic/timed_work.work_left_running through foreign_work): the fixture
project fixtures/work_left_running, and the same question inside one module
(fixtures/rules/JAX202_work_left_running.py, run by test_rules.py)."""

from __future__ import annotations

from conftest import FIXTURES
from rule_fixtures import expected_findings
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

PROJECT = FIXTURES / "work_left_running"


def test_functions_of_other_modules_that_leave_work_running():
    path = PROJECT / "bench.py"
    expected = expected_findings(path.read_text())
    assert len(expected) == 3
    result = check_source(path.read_text(), str(path), Settings(root=PROJECT), [RULES_BY_CODE["JAX202"]])
    assert not result.errors, result.errors
    found = {(d.location.row, d.code) for d in result.diagnostics}
    assert found == set(expected), sorted(found ^ set(expected))
