"""JAX202 and host callbacks across modules: a compiled program built from a factory of another
module of the project that calls back to the host returns only when it has finished
(benchmarks/callback_sync.py), so an interval around it is true; one without a callback is not."""

from __future__ import annotations

from conftest import FIXTURES
from rule_fixtures import expected_findings
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic.project import summarise_file

PROJECT = FIXTURES / "callback_timing"


def test_the_summary_names_the_functions_that_call_back():
    summary = summarise_file(PROJECT / "training" / "ppo.py")
    assert summary.host_callback_functions == frozenset({"make_train"})


def test_timings_of_programs_that_call_back_are_true():
    path = PROJECT / "run.py"
    result = check_source(path.read_text(), str(path), Settings(root=PROJECT), [RULES_BY_CODE["JAX202"]])
    assert not result.errors, result.errors
    found = {(d.location.row, d.code) for d in result.diagnostics}
    assert found == set(expected_findings(path.read_text())), sorted(found)
