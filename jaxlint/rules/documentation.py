"""The rule catalogue as one Markdown page, `docs/rules.md`, built from the rules' own docstrings.

`jaxlint rules --format markdown > docs/rules.md` regenerates it (a test fails when it is stale).
Each rule's `url` points at its section of that page in this checkout, so JSON, SARIF and the
language server link to documentation that exists. Where jaxlint runs without its checkout (a
normal install, as in a pre-commit environment: no `docs/` beside the package) the same page is
rendered from the installed docstrings into the user's cache folder once per content, and the URL
points there; only where no folder is writable does a rule have no URL (never a dead one).
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from functools import lru_cache
from pathlib import Path
from typing import Iterable

RULES_PAGE = Path(__file__).resolve().parents[2] / "docs" / "rules.md"
# Every rule, engine codes included: set by the registry (jaxlint/rules/__init__.py) when it is
# built, so this module never imports the registry that imports it.
_catalogue: list = []


def register(catalogue: Iterable) -> None:
    _catalogue[:] = list(catalogue)


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
    page = rules_page()
    if page is None:
        return None
    return f"{page.as_uri()}#{anchor(rule_heading(code, name))}"


@lru_cache(maxsize=None)
def rules_page() -> Path | None:
    """docs/rules.md of the checkout jaxlint runs from; without one, the page rendered into the
    cache folder (named after its content, so an upgrade never links to an older page)."""
    if RULES_PAGE.is_file():
        return RULES_PAGE
    text = render_rules_page(_catalogue)
    name = f"rules-{hashlib.sha256(text.encode('utf-8')).hexdigest()[:16]}.md"
    for folder in _page_folders():
        page = folder / name
        if page.is_file():
            return page
        try:
            folder.mkdir(parents=True, exist_ok=True)
            # Through a temporary file: processes of one run may write it at once.
            descriptor, temporary = tempfile.mkstemp(dir=folder, prefix=".rules-", suffix=".md")
            with os.fdopen(descriptor, "w", encoding="utf-8") as stream:
                stream.write(text)
            os.replace(temporary, page)
            return page
        except OSError:
            continue
    return None


def _page_folders() -> list[Path]:
    cache_home = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return [Path(cache_home) / "jaxlint", Path(tempfile.gettempdir()) / f"jaxlint-{os.getuid() if hasattr(os, 'getuid') else 'user'}"]


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
    # The engine's own codes (JAX000, JAX001) are documented on the page whatever list is given.
    listed = list(rules)
    rules = sorted([*(rule for rule in _catalogue if rule not in listed and not rule.node_types), *listed], key=lambda rule: rule.code)
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
    for rule in rules:
        link = f"[{rule.code}](#{anchor(rule_heading(rule.code, rule.name))})"
        parts.append(f"| {link} | {rule.name} | {rule.summary} | {rule.fix_availability} | {'yes' if rule.preview else ''} |")
    for rule in rules:
        parts += ["", f"## {rule_heading(rule.code, rule.name)}", ""]
        facts = f"Fix: {rule.fix_availability}." + (" Preview: runs only when selected." if rule.preview else "")
        parts += [facts, "", _nested(rule.documentation)]
    return "\n".join(parts) + "\n"
