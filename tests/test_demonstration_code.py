"""JAX401 in demonstration code (semantic/demo_code.py): notebooks and modules under docs, examples,
tutorials, notebooks or colabs folders report missing donation only for state the source shows
at 1 MB or more; any other module also reports a size it does not show."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic.demo_code import is_demonstration_module

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "JAX401_demonstration.py"
UNKNOWN_SIZE_ROW = 27  # params = update(params, x): a size from the caller
LARGE_ROW = 34  # params = update_large(params, x): a 256 MB array written in the source
FEW_MEGABYTES_ROW = 53  # params = update_few(params, x): a 4 MB array written in the source (a 256 KB one is silent)


def _rows(filename: str) -> list[int]:
    result = check_source(FIXTURE.read_text(encoding="utf-8"), filename, Settings(), [RULES_BY_CODE["JAX401"]])
    assert not result.errors
    return sorted(d.location.row for d in result.diagnostics)


@pytest.mark.parametrize("filename", ["docs/examples/fit.py", "project/examples/fit.py", "Tutorials/part2/fit.py", "project/colabs/fit.py"])
def test_demonstration_code_reports_only_state_shown_large(filename):
    assert is_demonstration_module(filename)
    assert _rows(filename) == [LARGE_ROW, FEW_MEGABYTES_ROW]


@pytest.mark.parametrize("filename", ["train.py", "src/project/fit.py", "project/example_utils.py", "exampleslib/fit.py", "fixtures/demo/demo.py"])
def test_other_code_reports_any_size(filename):
    assert not is_demonstration_module(filename)
    assert _rows(filename) == [UNKNOWN_SIZE_ROW, LARGE_ROW, FEW_MEGABYTES_ROW]


def test_a_notebook_is_demonstration_code():
    assert is_demonstration_module("analysis/fit.ipynb")
    assert not is_demonstration_module("analysis/fit.py")
