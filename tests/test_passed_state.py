"""JAX401 in demonstration code reads a parameter's size from what every caller passes
(semantic/passed_state.py): state every call passes at 1 MB or more is reported, anything else
(small everywhere, a mix, a size not shown) stays silent there."""

from __future__ import annotations

from pathlib import Path

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "JAX401_passed_sizes.py"


def _rows(filename: str) -> list[int]:
    result = check_source(FIXTURE.read_text(encoding="utf-8"), filename, Settings(), [RULES_BY_CODE["JAX401"]])
    assert not result.errors
    return sorted(d.location.row for d in result.diagnostics)


def _large_row() -> int:
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, 1) if line.endswith("# large from callers"))


def test_demonstration_code_reports_state_every_caller_passes_large():
    assert _rows("examples/fit.py") == [_large_row()]
