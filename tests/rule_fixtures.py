"""Read the inline `# expect: CODE` markers of fixture files and compare them with findings."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>[A-Z]+[0-9]+(?:\s*,\s*[A-Z]+[0-9]+)*)")
# `# checked as: docs/examples/fit.py` on one of the first lines: the module is checked under that path,
# for rules whose judgement depends on where a module lives (demonstration code, tests).
CHECKED_AS = re.compile(r"^#\s*checked as:\s*(?P<path>\S+)\s*$", re.MULTILINE)


def checked_filename(path: Path, text: str) -> str:
    match = CHECKED_AS.search("\n".join(text.splitlines()[:5]))
    return match.group("path") if match else path.name


def expected_findings(text: str) -> Counter:
    expected: Counter = Counter()
    for row, line in enumerate(text.splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            for code in match.group("codes").split(","):
                expected[(row, code.strip())] += 1
    return expected


def actual_findings(text: str, filename: str, codes: set[str], settings: Settings | None = None) -> tuple[Counter, list]:
    rules = [RULES_BY_CODE[code] for code in sorted(codes)]
    result = check_source(text, filename, settings or Settings(), rules)
    assert not result.errors, result.errors
    found: Counter = Counter((d.location.row, d.code) for d in result.diagnostics)
    return found, result.diagnostics


def compare(path: Path) -> str | None:
    """None when findings equal markers, else a readable description of the difference."""
    text = path.read_text(encoding="utf-8")
    code = path.stem.split("_")[0]
    expected = expected_findings(text)
    codes = {code} | {c for _, c in expected}
    actual, diagnostics = actual_findings(text, checked_filename(path, text), codes)
    if actual == expected:
        return None
    lines = text.splitlines()
    problems = []
    for key in sorted(set(actual) | set(expected)):
        if actual[key] != expected[key]:
            row, rule = key
            kind = "missed" if actual[key] < expected[key] else "false alarm"
            messages = [d.message for d in diagnostics if d.location.row == row and d.code == rule]
            problems.append(f"{path.name}:{row}: {rule} {kind} (expected {expected[key]}, got {actual[key]}): {lines[row - 1].strip()}  {messages}")
    return "\n".join(problems)


def project_file_findings(path: Path, root: Path, codes: list[str]) -> tuple[set, set]:
    """(found, expected) `(row, code)` pairs for a fixture file checked inside a fixture project
    `root` (its imports resolve to the project's other files) with the rules `codes`."""
    result = check_in_project(path, root, codes)
    return {(d.location.row, d.code) for d in result.diagnostics}, set(expected_findings(path.read_text()))


def check_in_project(path: Path, root: Path, codes: list[str]):
    """Check one module of a fixture project (`root` is the project, so its imports resolve) with the
    rules `codes`; the result, with no errors."""
    result = check_source(path.read_text(), str(path), Settings(root=root), [RULES_BY_CODE[code] for code in codes])
    assert not result.errors, result.errors
    return result


def check_markers_in_project(path: Path, root: Path, codes: list[str]):
    """`check_in_project`, asserting that the findings' `(row, code)` pairs are the file's
    `# expect:` markers; the result, for further checks of messages and dependencies."""
    result = check_in_project(path, root, codes)
    found = {(d.location.row, d.code) for d in result.diagnostics}
    assert found == set(expected_findings(path.read_text())), sorted(found)
    return result


def notebook_findings(cells: tuple[str, ...], filename: str, code: str) -> list[tuple[int, int]]:
    """(cell, row) of each `code` finding in a notebook made of the code `cells`, in order."""
    import json

    from jaxlint.notebook import lint_notebook

    notebook = {
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": s} for s in cells],
        "metadata": {"kernelspec": {"name": "python3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    result = lint_notebook(json.dumps(notebook), filename, Settings(), [RULES_BY_CODE[code]])
    assert not result.errors
    return [(d.cell, d.location.row) for d in result.diagnostics if d.code == code]
