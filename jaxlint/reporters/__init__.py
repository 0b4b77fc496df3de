"""Reporters turn diagnostics into text for people, JSON/SARIF for tools, annotations for CI."""

from __future__ import annotations

from typing import Callable, TextIO

from jaxlint.diagnostics import Diagnostic

FORMATS = ("text", "json", "sarif", "github")


def reporter_for(name: str) -> Callable[..., None]:
    if name == "json":
        from jaxlint.reporters.json import report
    elif name == "sarif":
        from jaxlint.reporters.sarif import report
    elif name == "github":
        from jaxlint.reporters.github import report
    else:
        from jaxlint.reporters.text import report
    return report


__all__ = ["FORMATS", "reporter_for", "Diagnostic", "TextIO"]
