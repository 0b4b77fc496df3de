"""Compiled callables a factory returns in a tuple (`init, step = make_fns(lr)`), by position: of a
factory of the same module (model.py `_built_by_factory`) and of another module of the project, from
its summary (project.FunctionSummary.returned_compiled). Rules asking which compiled callable a call
runs (donation, host syncs beside compiled steps) see them."""
from __future__ import annotations

from pathlib import Path

from conftest import FIXTURES
from rule_fixtures import expected_findings

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic.project import summarise_file

PROJECT = FIXTURES / "donation_project"
CODES = ["JAX401", "JAX201"]


def _check(path: Path, settings: Settings):
    result = check_source(path.read_text(), str(path), settings, [RULES_BY_CODE[code] for code in CODES])
    assert not result.errors, result.errors
    return result


def test_factory_results_of_another_module_match_markers():
    path = PROJECT / "factory_loop.py"
    expected = set(expected_findings(path.read_text()))
    assert len(expected) >= 4
    result = _check(path, Settings(root=PROJECT))
    assert {(d.location.row, d.code) for d in result.diagnostics} == expected
    # The `jit` sits in the factory, shared by its callers: no fix edits it.
    assert all(d.fix is None for d in result.diagnostics)
    assert "factories.py" in {Path(dependency).name for dependency in result.dependencies}


def test_without_the_project_nothing_is_known():
    path = PROJECT / "factory_loop.py"
    result = check_source(path.read_text(), "<stdin>", Settings(), [RULES_BY_CODE[code] for code in CODES])
    assert result.diagnostics == []


def test_summary_records_positions_and_options():
    summary = summarise_file(PROJECT / "learning" / "factories.py")
    positions = {name: [(entry[0], entry[1]) for entry in function.returned_compiled] for name, function in summary.functions.items()}
    assert positions["make_plain_pair"] == [(1, "jax.jit")]
    assert positions["make_decorated_pair"] == [(1, "jax.jit")]
    assert positions["make_wrapped_triple"] == [(1, "jax.jit")]
    donating = summary.functions["make_donating_pair"].returned_compiled
    assert [entry[0] for entry in donating] == [1] and "donate_argnums" in donating[0][2]
    assert "make_chosen_pair" not in positions or positions["make_chosen_pair"] == []
    # Compiled in both arms of an `if`, neither donating: either copies the state (the first arm's transform).
    assert positions["make_either_pair"] == [(1, "jax.pmap")]
    assert "make_half_donating_pair" not in positions or positions["make_half_donating_pair"] == []
