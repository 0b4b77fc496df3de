"""Every fixture under fixtures/rules is checked line by line against its `# expect:` markers."""

from pathlib import Path

import pytest

from conftest import FIXTURES
from rule_fixtures import compare, expected_findings

FIXTURE_FILES = sorted((FIXTURES / "rules").glob("JAX*.py"))


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
def test_fixture_findings_match_markers(path: Path):
    problems = compare(path)
    assert problems is None, "\n" + problems


@pytest.mark.parametrize("path", FIXTURE_FILES, ids=lambda p: p.stem)
def test_fixture_has_positives_and_lookalikes(path: Path):
    text = path.read_text()
    expected = expected_findings(text)
    assert expected, f"{path.name} has no `# expect:` markers"
    # Look-alikes: at least as many unmarked code lines as marked ones.
    code_lines = [line for line in text.splitlines() if line.strip() and not line.strip().startswith(("#", '"""', "import", "from"))]
    assert len(code_lines) > 2 * len(expected)


def test_every_rule_has_a_fixture():
    from jaxlint.rules import ALL_RULES

    covered = {path.stem.split("_")[0] for path in FIXTURE_FILES}
    missing = [rule.code for rule in ALL_RULES if rule.code not in covered]
    assert not missing, f"rules without fixtures: {missing}"
