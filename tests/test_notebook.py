"""Jupyter notebooks: checked cell by cell with positions naming the cell, IPython syntax masked, fixed
into valid notebook JSON that keeps outputs, metadata and formatting."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from jaxlint.cli import build_settings, enabled_rules, run
from jaxlint.notebook import CellMap, fix_notebook, json_style, lint_notebook, mask_ipython, split_cells
from jaxlint.diagnostics import Position

NOTEBOOKS = FIXTURES / "notebooks"
PITFALLS_FINDINGS = [
    # (cell, row, column, code): cell counts all cells from 1, markdown included.
    (5, 3, 8, "JAX101"),  # uses `jax` imported in cell 2
    (7, 7, 15, "JAX301"),
    (8, 1, 12, "JAX000"),  # this cell alone does not parse; the others are still checked
    (9, 2, 19, "JAX301"),  # the body of a `%%time` cell is Python
    (9, 4, 5, "JAX202"),  # `%time total(...)` times the compiled call's dispatch
]


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JAXLINT_CACHE_DIR", str(tmp_path / ".cache"))
    return tmp_path


def copy_notebook(name: str, destination: Path) -> Path:
    target = destination / name
    shutil.copyfile(NOTEBOOKS / name, target)
    return target


def check_json(capsys, *args) -> tuple[int, list[dict]]:
    code = run(["check", "--format", "json", *map(str, args)])
    out = capsys.readouterr().out
    return code, json.loads(out)


def settings_and_rules():
    settings = build_settings(["."], None, (), (), ())
    return settings, enabled_rules(settings)


def test_findings_name_their_cell(project, capsys):
    notebook = copy_notebook("pitfalls.ipynb", project)
    code, findings = check_json(capsys, notebook)
    assert code == 1
    assert [(d["cell"], d["location"]["row"], d["location"]["column"], d["code"]) for d in findings] == PITFALLS_FINDINGS
    assert all(d["filename"] == str(notebook) for d in findings)
    # Fix edits are in the cell's coordinates too.
    jax301 = findings[1]
    assert jax301["fix"]["edits"] == [
        {"content": "(0, 1)", "location": {"row": 7, "column": 15}, "end_location": {"row": 7, "column": 21}}
    ]


def test_text_report_names_the_cell(project, capsys):
    copy_notebook("pitfalls.ipynb", project)
    assert run(["check", "pitfalls.ipynb"]) == 1
    out = capsys.readouterr().out
    assert "pitfalls.ipynb:cell 5:3:8: JAX101 " in out
    assert "pitfalls.ipynb:cell 8:1:12: JAX000 SyntaxError" in out
    assert "Found 5 errors." in out


def test_magics_shell_escapes_and_help_are_not_findings(project, capsys):
    copy_notebook("clean.ipynb", project)
    assert run(["check", "clean.ipynb"]) == 0
    assert "All checks passed!" in capsys.readouterr().out


def test_other_kernels_are_skipped(project, capsys):
    copy_notebook("r_kernel.ipynb", project)
    assert run(["check", "r_kernel.ipynb"]) == 0


def test_directories_are_searched_for_notebooks(project, capsys):
    (project / "notebooks").mkdir()
    copy_notebook("pitfalls.ipynb", project / "notebooks")
    (project / "notebooks" / ".ipynb_checkpoints").mkdir()
    copy_notebook("pitfalls.ipynb", project / "notebooks" / ".ipynb_checkpoints")
    code, findings = check_json(capsys, ".")
    assert code == 1
    assert {Path(d["filename"]).as_posix() for d in findings} == {"notebooks/pitfalls.ipynb"}


def test_cached_results_keep_the_cell(project, capsys):
    copy_notebook("pitfalls.ipynb", project)
    first = check_json(capsys, "pitfalls.ipynb")
    assert any((project / ".cache").rglob("*.json"))
    second = check_json(capsys, "pitfalls.ipynb")
    assert first == second


def test_broken_notebooks_are_reported_not_crashed_on(project, capsys):
    (project / "broken.ipynb").write_text('{"cells": [')
    (project / "old.ipynb").write_text('{"worksheets": [], "nbformat": 3}')
    assert run(["check", "broken.ipynb", "old.ipynb"]) == 1  # findings (JAX000), never a pass
    out = capsys.readouterr().out
    assert "broken.ipynb:1:1: JAX000 not checked: not a valid notebook" in out
    assert "old.ipynb:1:1: JAX000 not checked: notebook format 3 is not supported" in out


def test_stdin_with_a_notebook_name(project, capsys, monkeypatch):
    import io
    import sys

    data = (NOTEBOOKS / "pitfalls.ipynb").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data)))
    code, findings = check_json(capsys, "--stdin-filename", "nb.ipynb", "-")
    assert code == 1
    assert [(d["cell"], d["code"]) for d in findings] == [(cell, code) for cell, _, _, code in PITFALLS_FINDINGS]


@pytest.mark.parametrize(
    "source, expected",
    [
        ("%matplotlib inline\nimport jax", "pass  # @@ipython 1@@\nimport jax"),
        ("!pip install jax\nx = 1", "pass  # @@ipython 1@@\nx = 1"),
        ("files = !ls\njax.jit?\n?jnp.sum", "pass  # @@ipython 1@@\npass  # @@ipython 2@@\npass  # @@ipython 3@@"),
        ("for i in range(3):\n    %time f(i)", "for i in range(3):\n    __jaxlint_timeit__(lambda: f(i), \"time\")  # @@ipython 1@@"),
        ("%time f(a, \\\n      b)\nx = 1", "pass  # @@ipython 1@@\n# @@ipython 2@@\nx = 1"),
        # `%timeit y = f(x)` times the value; the name is local to IPython's timing function.
        ("%timeit _ = f(x)", "__jaxlint_timeit__(lambda: f(x))  # @@ipython 1@@"),
        ("%timeit -n 10 y = g(a, b)", "__jaxlint_timeit__(lambda: g(a, b))  # @@ipython 1@@"),
        ("%timeit out: int = f(x)  # warm", "__jaxlint_timeit__(lambda: f(x))  # @@ipython 1@@"),
        ("%timeit y += f(x)", "pass  # @@ipython 1@@"),  # an augmented assignment reads `y`: any magic
        ("%timeit y = f(x); g(y)", "pass  # @@ipython 1@@"),  # two statements: any magic
        ("%%time\ny = f(x)", "__jaxlint_timed_cell__(\"time\", 1)  # @@ipython 1@@\ny = f(x)"),
        ("%%capture\ny = f(x)", "# @@ipython 1@@\ny = f(x)"),
        # Automagic: IPython runs `pip install ...` and `cd ...` as `%pip` and `%cd`.
        ("pip install dm-haiku optax\nimport jax", "pass  # @@ipython 1@@\nimport jax"),
        ("cd data\nx = 1", "pass  # @@ipython 1@@\nx = 1"),
        ("cd /content/data", "cd /content/data"),  # parses (a division): left alone
        # A name `pip` used as Python stays Python.
        ("pip = 3\ncd = pip - 1", "pip = 3\ncd = pip - 1"),
        # Code that parses is left alone: `%` and `!` inside strings and expressions are Python.
        ('s = """\n%d items\n!not shell\n""" % 3', 's = """\n%d items\n!not shell\n""" % 3'),
        ("y = (a\n% b)", "y = (a\n% b)"),
        ("x = 1  # why?", "x = 1  # why?"),
    ],
)
def test_masking_keeps_lines(source, expected):
    masked, originals = mask_ipython(source)
    assert masked == expected
    assert masked.count("\n") == source.count("\n")
    for number, line in originals.items():
        assert line in source.split("\n")


def test_foreign_cell_magics_skip_the_cell():
    assert mask_ipython("%%bash\nif [ -x ]; then echo; fi")[0] is None
    assert mask_ipython("%%writefile x.py\nimport jax")[0] is None


def test_fix_writes_valid_notebook_json_keeping_everything_else(project, capsys):
    notebook = copy_notebook("pitfalls.ipynb", project)
    before_text = notebook.read_text(encoding="utf-8")
    before = json.loads(before_text)
    assert run(["fix", str(notebook)]) == 1  # the unsafe JAX101 fix and the syntax error remain
    out = capsys.readouterr().out
    assert "Applied: JAX301 x2" in out
    after_text = notebook.read_text(encoding="utf-8")
    after = json.loads(after_text)
    expected = copy.deepcopy(before)
    expected["cells"][6]["source"][6] = "total(x, axes=(0, 1))  # keep this comment\n"
    expected["cells"][8]["source"][1] = "y = total(x, axes=(1,))\n"
    assert after == expected  # outputs, metadata, execution counts and the magics untouched
    # The file's formatting is kept: only the two changed source lines differ.
    changed = [(old, new) for old, new in zip(before_text.splitlines(), after_text.splitlines()) if old != new]
    assert len(changed) == 2 and len(before_text.splitlines()) == len(after_text.splitlines())
    assert after_text.endswith("}\n")
    # Fixed, it checks clean apart from what has no safe fix.
    code, findings = check_json(capsys, notebook)
    assert [(d["cell"], d["code"]) for d in findings] == [(5, "JAX101"), (8, "JAX000"), (9, "JAX202")]


def test_unsafe_fix_in_a_notebook(project, capsys):
    notebook = copy_notebook("pitfalls.ipynb", project)
    assert run(["fix", "--unsafe-fixes", str(notebook)]) == 1
    capsys.readouterr()
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    assert "".join(cells[4]["source"]) == "@jax.jit\ndef f(x):\n    return jnp.where(x > 0, x, -x)"
    assert cells[8]["source"][0] == "%%time\n" and cells[8]["source"][3] == "    %time total(x, axes=(1,))\n"


def test_fix_leaves_clean_notebooks_byte_for_byte(project, capsys):
    notebook = copy_notebook("clean.ipynb", project)
    before = notebook.read_bytes()
    mtime = notebook.stat().st_mtime_ns
    assert run(["fix", str(notebook)]) == 0
    assert notebook.read_bytes() == before and notebook.stat().st_mtime_ns == mtime


def test_fix_keeps_indentation_escapes_missing_newline_and_crlf(project, capsys):
    data = json.loads((NOTEBOOKS / "pitfalls.ipynb").read_text(encoding="utf-8"))
    text = json.dumps(data, indent=2, ensure_ascii=True).replace("\n", "\r\n")
    notebook = project / "styled.ipynb"
    notebook.write_bytes(text.encode("ascii"))
    assert run(["fix", str(notebook)]) == 1
    capsys.readouterr()
    new = notebook.read_bytes()
    assert new.startswith(b'{\r\n  "cells"') and not new.endswith(b"\n")
    assert new.isascii() and b"\\u2014" in new  # the em dash stays escaped
    assert b"axes=(0, 1)" in new and b"\n" not in new.replace(b"\r\n", b"")


def test_fix_notebook_api(project):
    settings, rules = settings_and_rules()
    original = (NOTEBOOKS / "pitfalls.ipynb").read_text(encoding="utf-8")
    new_text, outcome = fix_notebook(NOTEBOOKS / "pitfalls.ipynb", settings, rules, unsafe=False)
    assert outcome.text == new_text != original
    assert sorted(d.cell for d in outcome.applied) == [7, 9]
    assert [(d.cell, d.code) for d in outcome.remaining] == [(5, "JAX101"), (8, "JAX000"), (9, "JAX202")]
    again, second = fix_notebook(new_text, settings, rules, unsafe=False)
    assert again == new_text and not second.applied  # idempotent
    clean = (NOTEBOOKS / "clean.ipynb").read_text(encoding="utf-8")
    assert fix_notebook(clean, settings, rules)[0] == clean


def test_lint_notebook_maps_noqa_and_per_cell_rows(project):
    settings, rules = settings_and_rules()
    data = json.loads((NOTEBOOKS / "pitfalls.ipynb").read_text(encoding="utf-8"))
    data["cells"][4]["source"][2] = "    if x > 0:  # noqa: JAX101\n"
    result = lint_notebook(json.dumps(data), "nb.ipynb", settings, rules)
    assert [(d.cell, d.code) for d in result.diagnostics] == [(7, "JAX301"), (8, "JAX000"), (9, "JAX301"), (9, "JAX202")]


def test_cell_map_and_split_round_trip():
    joined = "# @@notebook-cell 2@@\nimport jax\n# @@notebook-cell 5@@\nx = 1\ny = 2\n"
    cells = CellMap(joined)
    assert cells.locate(Position(2, 3)) == (2, Position(1, 3))
    assert cells.locate(Position(5, 1)) == (5, Position(2, 1))
    # The start of a marker line is the end of the previous cell (where an appended line goes).
    assert cells.locate(Position(3, 1)) == (2, Position(2, 1))
    assert split_cells(joined) == {2: "import jax\n", 5: "x = 1\ny = 2\n"}
    # Text a fix put above the first marker belongs to the first cell.
    assert split_cells("import numpy as np\n" + joined)[2] == "import numpy as np\nimport jax\n"
    assert split_cells(joined.replace("# @@notebook-cell 5@@\n", "# @@notebook-cell 2@@\n")) is None


def test_json_style_detection():
    style = json_style('{\n "cells": [],\n "x": "caf\u00e9"\n}\n')
    assert style.indent == " " and not style.ensure_ascii and style.trailing_newline
    style = json_style('{\n    "x": "caf\\u00e9"\n}')
    assert style.indent == "    " and style.ensure_ascii and not style.trailing_newline
    assert json_style('{"cells": []}').indent is None


@pytest.mark.parametrize(
    "first, second, broken_cell",
    [
        ("import jax\n\n@jax.jit\n", "def f(x):\n    return x + 1\n", 1),  # a decorator alone
        ("import jax\ny = jax.numpy.add(\n", "    1, 2)\n", 1),  # a call left open
        ("import jax\nif True:\n", "    y = 1\n", 1),  # a block header without its body
        ('import jax\nnote = """\n', 'text"""\n', 1),  # a string left open
        ("import jax\ny = 1 + \\\n", "2\n", 1),  # a backslash continuation
    ],
)
def test_cells_that_parse_only_joined_are_each_reported(first, second, broken_cell):
    """The whole notebook may parse while a cell alone does not (jaxlint parses the joined cells once
    for speed): a statement crossing a cell boundary sends it back to the cell-by-cell parse, which
    reports the cell that does not parse alone, as Jupyter would fail to run it."""
    settings, rules = settings_and_rules()
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
             for source in (first, second, "z = 3\n")]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    result = lint_notebook(text, "nb.ipynb", settings, rules)
    assert [d.cell for d in result.diagnostics if d.code == "JAX000"][:1] == [broken_cell]


def test_notebook_with_every_cell_python_is_parsed_once(monkeypatch):
    """The usual notebook: one parse of the joined cells, reused by the analysis."""
    import ast as ast_module

    settings, rules = settings_and_rules()
    sources = ["import jax\nimport jax.numpy as jnp\n", "@jax.jit\ndef f(x):\n    return jnp.where(x > 0, x, -x)\n", "print(f(jnp.ones(3)))"]
    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source} for source in sources]
    text = json.dumps({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    parses = []
    real_parse = ast_module.parse
    monkeypatch.setattr(ast_module, "parse", lambda *args, **kwargs: parses.append(1) or real_parse(*args, **kwargs))
    result = lint_notebook(text, "nb.ipynb", settings, rules)
    assert not result.errors and not result.diagnostics and len(parses) == 1


def test_cell_map_gives_message_rows_as_the_reader_sees_them():
    joined = "# @@notebook-cell 2@@\nimport jax\n# @@notebook-cell 5@@\nx = 1\ny = 2\nz = 3\n"
    cells = CellMap(joined)
    # Rows of the finding's own cell become rows of that cell; rows of another cell name it.
    assert cells.message("covers the reads at lines 5, 6", 5) == "covers the reads at lines 2, 3"
    assert cells.message("through `f` at line 2", 5) == "through `f` at line 1 of cell 2"
    assert cells.message("used on lines 2 and 4", 5) == "used on lines 1 of cell 2, 1 of cell 5"
    # Rows outside the module, and text that names no row, are left alone.
    assert cells.message("see file.py:4 (line 99)", 5) == "see file.py:4 (line 99)"
    assert cells.message("a linear layer", 5) == "a linear layer"


def test_notebook_messages_name_rows_within_cells():
    import json as json_module

    cells = ["import jax\n", "key = jax.random.PRNGKey(0)\na = jax.random.normal(key, (3,))\nb = jax.random.normal(key, (3,))\n"
             "c = jax.random.uniform(key, (3,))\nd = jax.random.normal(key, (2,))\nprint(a, b, c, d)\n"]
    notebook = {
        "cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": s} for s in cells],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }
    settings, rules = settings_and_rules()
    result = lint_notebook(json_module.dumps(notebook), "nb.ipynb", settings, rules)
    found = [d for d in result.diagnostics if d.code == "JAX501"]
    assert found and all(d.cell == 2 for d in found)
    # The message's rows are rows of cell 2 (1-6), not of the joined module (which has a marker per cell).
    import re as re_module

    named = [int(n) for d in found for part in re_module.findall(r"lines? ([\d, ]+)", d.message) for n in re_module.findall(r"\d+", part)]
    assert named == [5], [d.message for d in found]
