"""Every rule carries its documentation and metadata; codes and names are a public interface."""

import re

import pytest

from jaxlint.rules import ALL_RULES, RULES_BY_CODE
from jaxlint.rules.base import DOC_HEADINGS

# The public interface from RULES.md: users write these codes in noqa comments and configs.
PUBLIC_NAMES = {
    "JAX101": "tracer-bool-conversion", "JAX102": "tracer-to-python-scalar", "JAX103": "numpy-on-tracer",
    "JAX104": "print-in-traced", "JAX105": "inplace-array-update", "JAX106": "dynamic-shape-in-traced",
    "JAX107": "side-effect-in-traced", "JAX108": "tracer-as-shape", "JAX109": "block-until-ready-in-traced",
    "JAX201": "host-sync-in-loop", "JAX202": "timing-without-sync", "JAX203": "eager-ops-in-loop",
    "JAX204": "loop-invariant-transfer", "JAX205": "device-put-of-placed-state",
    "JAX301": "unhashable-static-arg", "JAX302": "jit-in-loop", "JAX303": "varying-static-arg",
    "JAX304": "python-loop-in-traced", "JAX305": "captured-large-constant", "JAX306": "grad-through-while-loop",
    "JAX307": "jit-on-method", "JAX401": "missing-donation", "JAX402": "vmap-of-jit",
    "JAX403": "python-loop-batching", "JAX501": "prng-key-reuse", "JAX502": "host-state-in-traced",
    "JAX503": "nan-unsafe-where", "JAX504": "float64-without-x64", "JAX601": "removed-api",
    "JAX602": "deprecated-api", "JAX603": "pmap-superseded", "JAX701": "naive-attention",
}
PREVIEW = {"JAX603", "JAX701"}


def test_codes_and_names_are_unique():
    assert len({rule.code for rule in ALL_RULES}) == len(ALL_RULES)
    assert len({rule.name for rule in ALL_RULES}) == len(ALL_RULES)


def test_the_first_six_exist():
    for code in ("JAX101", "JAX102", "JAX201", "JAX301", "JAX401", "JAX402"):
        assert code in RULES_BY_CODE


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_rule_metadata(rule):
    assert re.fullmatch(r"JAX[1-7]\d\d", rule.code)
    assert PUBLIC_NAMES.get(rule.code) == rule.name, "codes and names are public: keep them as RULES.md has them"
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", rule.name) and not rule.name.startswith("no-")
    assert rule.fix_availability in ("none", "sometimes", "always")
    assert rule.preview == (rule.code in PREVIEW)
    assert rule.node_types, "a rule that asks for no nodes can never fire"
    assert rule.summary and not rule.summary.endswith(".")


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_rule_documentation_has_every_heading_in_order(rule):
    doc = rule.documentation
    positions = []
    for heading in DOC_HEADINGS:
        match = re.search(rf"^## {re.escape(heading)}\s*$", doc, re.MULTILINE)
        assert match, f"{rule.code} docstring lacks '## {heading}'"
        positions.append(match.start())
    assert positions == sorted(positions)
    assert "```python" in doc, "an example in a code block"
    assert "https://" in doc, "cite the JAX documentation or issue that backs the rule"
