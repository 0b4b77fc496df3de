"""The rule catalogue as one Markdown page, `docs/rules.md`, built from the rules' own docstrings.

`jaxlint rules --format markdown > docs/rules.md` regenerates it (a test fails when it is stale).
Each rule's `url` points at its section of that page in this checkout, so JSON, SARIF and the
language server link to documentation that exists; where jaxlint runs without its checkout (no
`docs/` beside the package) a rule has no URL rather than a dead one.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Iterable

RULES_PAGE = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
# The two codes the engine itself reports; they have no rule module.
ENGINE_CODES = (
    ("JAX000", "syntax-error", "A file this Python cannot parse; the message says why, or which newer Python parses it."),
    ("JAX001", "unused-noqa", "A `# noqa: JAXnnn` code that suppresses nothing (with `jaxlint check --report-unused-noqa`); fixable."),
)


def anchor(heading: str) -> str:
    """The fragment GitHub (and editors' Markdown previews) give a heading: `JAX101 tracer-bool-conversion`
    becomes `jax101-tracer-bool-conversion`."""
    text = heading.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def rule_heading(code: str, name: str) -> str:
    return f"{code} {name}"


@lru_cache(maxsize=None)
def rule_url(code: str, name: str) -> str | None:
    if not RULES_PAGE.is_file():
        return None
    return f"{RULES_PAGE.as_uri()}#{anchor(rule_heading(code, name))}"


def _nested(documentation: str) -> str:
    """A rule docstring's `## Heading` lines become `### Heading`, outside code blocks."""
    lines = []
    fenced = False
    for line in documentation.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and line.startswith("## "):
            line = "#" + line
        lines.append(line)
    return "\n".join(lines)


def render_rules_page(rules: Iterable) -> str:
    rules = list(rules)
    parts = [
        "# jaxlint rules",
        "",
        "<!-- Generated from the rule docstrings by `jaxlint rules --format markdown > docs/rules.md`; do not edit. -->",
        "",
        "Each section is the rule's documentation, as `jaxlint rule CODE` prints it. Preview rules run only",
        "when selected (`--select` or `extend-select`).",
        "",
        "| code | name | summary | fix | preview |",
        "|---|---|---|---|---|",
    ]
    for code, name, summary in ENGINE_CODES:
        parts.append(f"| {code} | {name} | {summary} | {'sometimes' if code == 'JAX001' else 'none'} |  |")
    for rule in rules:
        link = f"[{rule.code}](#{anchor(rule_heading(rule.code, rule.name))})"
        parts.append(f"| {link} | {rule.name} | {rule.summary} | {rule.fix_availability} | {'yes' if rule.preview else ''} |")
    for rule in rules:
        parts += ["", f"## {rule_heading(rule.code, rule.name)}", ""]
        facts = f"Fix: {rule.fix_availability}." + (" Preview: runs only when selected." if rule.preview else "")
        parts += [facts, "", _nested(rule.documentation)]
    return "\n".join(parts) + "\n"
