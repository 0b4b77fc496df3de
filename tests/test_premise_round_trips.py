"""A premise checked by the model: a round trip is host data wrapped in `jnp` and read back
(semantic/training_loops.LoopValues.built_from_host_data). A plain helper handed a compiled step's
result computes device work from it: a stop on what it returns is a wait, not a round trip."""

from pathlib import Path

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "rules" / "JAX201_helper_results.py"


def _messages() -> dict[int, str]:
    result = check_source(FIXTURE.read_text(encoding="utf-8"), FIXTURE.name, Settings(), [RULES_BY_CODE["JAX201"]])
    return {d.location.row: d.message for d in result.diagnostics}


def test_helper_results_of_a_compiled_step_are_waits():
    messages = _messages()
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    waits = [row for row, text in enumerate(lines, start=1) if "if done:  # expect" in text]
    assert len(waits) == 3
    for row in waits:
        assert "round trip" not in messages[row]
        assert "lax.while_loop" in messages[row]


def test_host_flags_wrapped_by_a_helper_are_a_round_trip():
    messages = _messages()
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    row = next(row for row, text in enumerate(lines, start=1) if "if flags:" in text)
    assert "round trip" in messages[row]
