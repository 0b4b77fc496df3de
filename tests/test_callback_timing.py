"""JAX202 and host callbacks across modules: a compiled program built from a factory of another
module of the project that calls back to the host returns only when it has finished
(benchmarks/callback_sync.py), so an interval around it is true; one without a callback is not."""

from __future__ import annotations

from conftest import FIXTURES
from rule_fixtures import project_file_findings
from jaxlint.semantic.project import summarise_file

PROJECT = FIXTURES / "callback_timing"


def test_the_summary_names_the_functions_that_call_back():
    summary = summarise_file(PROJECT / "training" / "ppo.py")
    assert summary.host_callback_functions == frozenset({"make_train"})


def test_timings_of_programs_that_call_back_are_true():
    found, expected = project_file_findings(PROJECT / "run.py", PROJECT, ["JAX202"])
    assert found == expected, sorted(found)
