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



def test_a_value_built_from_a_parameter_is_sized_by_the_largest_argument_passed(tmp_path):
    import ast

    from jaxlint.semantic import carried_state
    from jaxlint.semantic.model import SemanticModel
    from jaxlint.semantic.project import ProjectView

    source = (
        "import jax.numpy as jnp\n"
        "import optax\n"
        "def fit(params):\n"
        "    return optax.adam(1e-3).init(params)\n"
        "def fit_any(params):\n"
        "    return optax.adam(1e-3).init(params)\n"
        "def main(loaded):\n"
        "    fit(jnp.zeros((8, 8)))\n"
        "    fit(jnp.zeros((4, 4)))\n"
        "    fit_any(jnp.zeros((8, 8)))\n"
        "    fit_any(loaded)\n"
    )
    path = tmp_path / "fit.py"
    path.write_text(source)
    tree = ast.parse(source)
    model = SemanticModel(tree, (), ProjectView(str(path)))
    scopes = {getattr(s.node, "name", None): s for s in model.scopes}
    built = tree.body[2].body[0].value
    counted = carried_state.element_count(built, scopes["fit"], model)
    assert counted is not None and counted >= 64  # the optimizer state over the larger argument, 8 x 8
    assert carried_state.known_small(built, scopes["fit"], model)
    unknown = tree.body[3].body[0].value
    assert carried_state.element_count(unknown, scopes["fit_any"], model) is None  # one call passes a size not shown
