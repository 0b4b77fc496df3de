"""JAX201 and JAX202 under `jax_debug_nans`: switched on unconditionally at the top of the program,
every computation waits for its own result (measured by benchmarks/callback_sync.py), so neither an
unblocked interval nor a per-step read costs anything more; switched on only under a condition, the
rules report as usual."""

from __future__ import annotations

from conftest import FIXTURES
from rule_fixtures import project_file_findings

FOLDER = FIXTURES / "debug_nans"


def test_switched_on_at_the_top_every_result_is_waited_for():
    found, expected = project_file_findings(FOLDER / "switched_on.py", FOLDER, ["JAX201", "JAX202"])
    assert found == expected == set()


def test_switched_on_under_a_condition_proves_nothing():
    found, expected = project_file_findings(FOLDER / "conditional.py", FOLDER, ["JAX201", "JAX202"])
    assert found == expected and expected


def test_switched_on_at_the_top_of_the_main_block_every_result_is_waited_for():
    found, expected = project_file_findings(FOLDER / "main_block.py", FOLDER, ["JAX201", "JAX202"])
    assert found == expected == set()


def test_switched_on_under_a_flag_in_the_main_block_proves_nothing():
    found, expected = project_file_findings(FOLDER / "main_block_conditional.py", FOLDER, ["JAX201", "JAX202"])
    assert found == expected and expected
