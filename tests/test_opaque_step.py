"""JAX203: a loop whose carried state goes through a callable another project module makes (a
factory's product, an element of the tuple a setup function returns) runs a step of unknown kind; the
handful of eager operations beside it are not shown to be the loop's work
(training_loops.opaque_state_step). Fixture project: fixtures/project_opaque_step."""

from __future__ import annotations

from conftest import FIXTURES
from rule_fixtures import expected_findings
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

PROJECT = FIXTURES / "project_opaque_step"


def _rows(filename: str, root=PROJECT) -> set[int]:
    path = PROJECT / "run.py"
    result = check_source(path.read_text(), filename, Settings(root=root), [RULES_BY_CODE["JAX203"]])
    assert not result.errors, result.errors
    return {d.location.row for d in result.diagnostics}


def test_markers_match_findings():
    path = PROJECT / "run.py"
    assert _rows(str(path)) == {row for row, _ in expected_findings(path.read_text())}


def test_without_the_project_the_steps_stay_unknown_and_flagged():
    # Text with no file behind it: the makers are in no module jaxlint can find, nothing is claimed
    # about them, and the loops are judged as before.
    rows = _rows("<stdin>", root=None)
    assert len(rows) == 5
