"""Documentation that cannot go stale: docs/rules.md is the rules' own docstrings, and every link resolves.

- docs/rules.md is exactly `jaxlint rules --format markdown` (regenerate it with that command);
- every relative link in README.md and docs/ (and every `docs/...`, `fixtures/...`-style path the
  prose names) exists in this repository, and its `#fragment` names a heading there;
- every rule's `url` points at an existing section of docs/rules.md;
- nothing points at a jaxlint repository on GitHub: there is none.
"""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest

from conftest import ROOT
from jaxlint.rules import ALL_RULES
from jaxlint.rules.documentation import RULES_PAGE, anchor, render_rules_page

MARKDOWN_FILES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"), *(ROOT / "benchmarks").glob("*.md")])
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# Backticked paths into this repository's own top-level folders, e.g. `benchmarks/README_runtime.md`.
REPOSITORY_PATH = re.compile(r"`((?:docs|fixtures|benchmarks|jaxlint|tests)/[^`\s:]*)`")
NO_SUCH_REPOSITORY = re.compile(r"github\.com/jaxlint\b", re.IGNORECASE)


def headings(markdown: str) -> set[str]:
    """Anchors of a page's headings as GitHub numbers them (a repeated heading gets -1, -2, ...)."""
    found: set[str] = set()
    counts: dict[str, int] = {}
    fenced = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        match = re.match(r"#{1,6} (.+)", line)
        if fenced or not match:
            continue
        slug = anchor(match.group(1))
        number = counts.get(slug, 0)
        counts[slug] = number + 1
        found.add(slug if number == 0 else f"{slug}-{number}")
    return found


def test_rules_page_is_generated_from_the_docstrings():
    assert RULES_PAGE == ROOT / "docs" / "rules.md"
    assert RULES_PAGE.read_text(encoding="utf-8") == render_rules_page(ALL_RULES), (
        "docs/rules.md is stale: run `jaxlint rules --format markdown > docs/rules.md`"
    )


def test_anchor_matches_github():
    assert anchor("JAX101 tracer-bool-conversion") == "jax101-tracer-bool-conversion"
    assert anchor("Why is this bad?") == "why-is-this-bad"
    assert headings("# A\n## B c\n## B c\n```\n# not a heading\n```\n") == {"a", "b-c", "b-c-1"}


@pytest.mark.parametrize("page", MARKDOWN_FILES, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_resolves(page):
    text = page.read_text(encoding="utf-8")
    broken = []
    for target in LINK.findall(text):
        parsed = urlparse(target)
        if parsed.scheme in ("http", "https", "mailto"):
            continue
        path_part, _, fragment = target.partition("#")
        destination = (page.parent / unquote(path_part)).resolve() if path_part else page
        if not destination.exists() or ROOT not in (destination, *destination.parents):
            broken.append(f"{target}: no such file in this repository")
        elif fragment and destination.suffix == ".md" and fragment not in headings(destination.read_text(encoding="utf-8")):
            broken.append(f"{target}: no heading #{fragment}")
    for path in REPOSITORY_PATH.findall(text):
        if not (ROOT / path).exists():
            broken.append(f"`{path}`: no such path in this repository")
    assert broken == []


def test_nothing_points_at_a_jaxlint_repository_that_does_not_exist():
    texts = {path: path.read_text(encoding="utf-8") for path in [*MARKDOWN_FILES, ROOT / ".pre-commit-hooks.yaml", ROOT / "pyproject.toml"]}
    texts.update({ROOT / "jaxlint" / path.relative_to(ROOT / "jaxlint"): path.read_text(encoding="utf-8") for path in (ROOT / "jaxlint").rglob("*.py")})
    assert [str(path) for path, text in texts.items() if NO_SUCH_REPOSITORY.search(text)] == []


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_rule_url_points_at_its_section(rule):
    url = urlparse(rule.url)
    assert url.scheme == "file" and Path(unquote(url.path)) == RULES_PAGE
    assert url.fragment in headings(RULES_PAGE.read_text(encoding="utf-8"))
    assert url.fragment.startswith(rule.code.lower())


def test_findings_carry_the_url(tmp_path):
    from jaxlint.config import Settings
    from jaxlint.engine import check_source

    text = "import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
    [finding] = check_source(text, "m.py", Settings(root=tmp_path), ALL_RULES).diagnostics
    assert finding.url is not None and finding.url.endswith("#jax101-tracer-bool-conversion")
