"""A module's self-test: the `if __name__ == "__main__":` block of a module other modules of the
project import, running no loop, builds its pieces once on made-up inputs. The test-code policy
(semantic/test_code.py) applies there; a block that loops (itself, through a function of its module,
or by calling into the project's other modules) and the block of a module nothing imports are the
program's real runs and stay checked."""

from __future__ import annotations

import pytest
from conftest import FIXTURES
from rule_fixtures import project_file_findings

FOLDER = FIXTURES / "self_test"


@pytest.mark.parametrize("name", ["blocks.py", "noise.py"])
def test_a_straight_self_test_of_an_imported_module_is_test_code(name):
    found, expected = project_file_findings(FOLDER / name, FOLDER, ["JAX501"])
    assert found == expected == set()


@pytest.mark.parametrize("name", ["sampler.py", "schedule.py", "launcher.py", "trainer.py"])
def test_a_block_that_runs_a_loop_or_is_not_imported_stays_checked(name):
    found, expected = project_file_findings(FOLDER / name, FOLDER, ["JAX501"])
    assert found == expected and expected
