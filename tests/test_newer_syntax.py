"""A module that only a newer Python can parse is a JAX000 finding naming that Python, never a silent skip.

jaxlint analyses with the running interpreter's `ast`; libcst (which knows newer grammars) tells a
genuine syntax error from syntax that is merely too new. Either way the file was not analysed, so
the run must not end with "All checks passed!" and exit 0.
"""

from __future__ import annotations

import json
import sys

import pytest

from conftest import ROOT
from jaxlint.cli import run
from jaxlint.config import Settings
from jaxlint.engine import check_source, python_needed
from jaxlint.notebook import lint_notebook
from jaxlint.rules import ALL_RULES

SETTINGS = Settings(root=ROOT)
RUNNING = sys.version_info[:2]

NEWER = {
    # name: (source, the Python its syntax needs)
    "generic_function": ("import jax\n\ndef first[T](items: list[T]) -> T:\n    return items[0]\n", (3, 12)),
    "generic_class": ("import jax\n\nclass Box[T]:\n    item: T\n", (3, 12)),
    "type_statement": ("import jax\ntype Vector = list[float]\n", (3, 12)),
    "pep701_fstring": ('import jax\nnames = ["a"]\nprint(f"{"\\n".join(names)}")\n', (3, 12)),
    "except_without_parentheses": ("import jax\ntry:\n    pass\nexcept ValueError, TypeError:\n    pass\n", (3, 14)),
    # A string whose content ends in `t` (`TypeVar("T")`) just before the error is no t-string.
    "type_statement_after_typevar": ('import jax\nfrom typing import Any, TypeVar\nT = TypeVar("T")\ntype PyTree = Any\n', (3, 12)),
}


def _expected(needed: tuple[int, int]) -> tuple[int, int]:
    return max(needed, (RUNNING[0], RUNNING[1] + 1))


def _skip_if_this_python_parses(text: str) -> None:
    try:
        compile(text, "<test>", "exec")
    except SyntaxError:
        return
    pytest.skip(f"Python {RUNNING[0]}.{RUNNING[1]} parses this syntax itself")


@pytest.mark.parametrize("name", sorted(NEWER))
def test_newer_syntax_is_a_finding_naming_the_python_to_use(name):
    text, needed = NEWER[name]
    _skip_if_this_python_parses(text)
    result = check_source(text, f"{name}.py", SETTINGS, ALL_RULES)
    assert result.errors == []
    [finding] = result.diagnostics
    major, minor = _expected(needed)
    assert finding.code == "JAX000" and finding.name == "syntax-error"
    assert f"syntax of Python {major}.{minor} or newer" in finding.message
    assert f"run jaxlint with Python {major}.{minor}+" in finding.message
    assert finding.fix is None


def test_a_real_syntax_error_keeps_the_parser_message():
    text = "import jax\ndef f(:\n    pass\n"
    [finding] = check_source(text, "broken.py", SETTINGS, ALL_RULES).diagnostics
    assert finding.code == "JAX000" and finding.message.startswith("SyntaxError: ") and "Python 3." not in finding.message


@pytest.mark.parametrize("line", [
    "    print '\\t' + name",  # Python 2: an escape ending a string, not a t-string
    "    print 'a\\f', name",
    "    print \"x\\t\" % name",
    "    print '\\rf' + name",
])
def test_an_escape_before_a_quote_is_no_string_prefix(line):
    """A Python 2 `print '\\t'` is a plain syntax error: nothing near it hints at newer syntax, so
    libcst (whose import costs more than checking the file) is not asked to parse it."""
    from jaxlint.engine import _libcst_can_take

    text = f"import jax\ndef f(name):\n{line}\n"
    try:
        compile(text, "<test>", "exec")
    except SyntaxError as error:
        assert not _libcst_can_take(text, error)
        [finding] = check_source(text, "python2.py", SETTINGS, ALL_RULES).diagnostics
        assert finding.code == "JAX000" and finding.message.startswith("SyntaxError: ") and "Python 3." not in finding.message
    else:
        pytest.fail("Python 2 print statement parsed")


@pytest.mark.parametrize("line", ['    x = (t"{name}")', '    x = [f"{name}"]', '    x = 1 + rf"{name}"'])
def test_a_prefix_after_a_bracket_or_operator_still_hints(line):
    from jaxlint.engine import _NEWER_SYNTAX_HINT

    assert _NEWER_SYNTAX_HINT.search(line)


def test_python_needed_is_never_older_than_the_next_python():
    text = "import jax\ndef first[T](x: T) -> T:\n    return x\n"
    error = SyntaxError("invalid syntax", ("m.py", 2, 10, "def first[T](x: T) -> T:", 2, 11))
    needed = python_needed(text, error)
    assert needed >= (3, 12) and needed > RUNNING


def test_cli_exits_1_and_does_not_say_all_passed(tmp_path, capsys):
    text, needed = NEWER["generic_function"]
    _skip_if_this_python_parses(text)
    (tmp_path / "generic.py").write_text(text)
    code = run(["check", "--no-cache", str(tmp_path / "generic.py")])
    out, err = capsys.readouterr()
    assert code == 1, (out, err)
    assert "All checks passed" not in out and "generic.py:3:10: JAX000" in out
    code = run(["check", "--no-cache", "--format", "json", str(tmp_path / "generic.py")])
    [finding] = json.loads(capsys.readouterr().out)
    assert code == 1 and finding["code"] == "JAX000" and finding["location"] == {"row": 3, "column": 10}


def test_notebook_cell_with_newer_syntax_is_a_finding_in_that_cell():
    text, needed = NEWER["type_statement"]
    _skip_if_this_python_parses(text)
    cells = [
        {"cell_type": "code", "metadata": {}, "source": ["import jax\n"], "outputs": [], "execution_count": None},
        {"cell_type": "code", "metadata": {}, "source": ["type Vector = list[float]\n"], "outputs": [], "execution_count": None},
    ]
    notebook = json.dumps({"cells": cells, "metadata": {"language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5})
    result = lint_notebook(notebook, "nb.ipynb", SETTINGS, ALL_RULES)
    assert [(d.cell, d.code) for d in result.diagnostics] == [(2, "JAX000")]
    assert "or newer" in result.diagnostics[0].message and result.errors == []
