"""JAX104 through a helper of another module that returns text (semantic/shown_text.py): the text
shows the shape and dtype of what it is given, reached through module aliases, unless the call turns
on the switch that formats the value; a helper that formats the value itself shows the tracer."""

from __future__ import annotations

from conftest import FIXTURES
from rule_fixtures import check_markers_in_project
from jaxlint.semantic.shown_text import returned_text
import ast

PROJECT = FIXTURES / "project_shown_text"


def test_markers_match_findings():
    check_markers_in_project(PROJECT / "pkg" / "model.py", PROJECT, ["JAX104"])


def _summary(source: str):
    return returned_text(ast.parse(source).body[0])


def test_what_a_text_helper_shows():
    assert _summary("def f(x):\n    return f'{x.shape}'\n") == ((), ())
    assert _summary("def f(x, verbose=False):\n    if verbose:\n        return str(x)\n    return str(x.dtype)\n") == ((), ("verbose",))
    assert _summary("def f(x):\n    return 'v' + str(x)\n") == (("x",), ())
    assert _summary("def f(x):\n    s = str(x)\n    return s\n") is None  # a local: not read as text
    assert _summary("def f(x):\n    return x.shape\n") is None
    assert _summary("def f(x):\n    if x:\n        return 'a'\n") == ((), ())
