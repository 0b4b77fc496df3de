"""The command line claims no more than it did (issue 27).

- a file that could not be read, decoded or parsed is a JAX000 finding and exit 1, never
  "All checks passed!" with exit 0;
- JAX000 and JAX001 are rules like the others: documented, listed, selectable, named in SARIF;
- notebook findings in SARIF and GitHub output name their cell;
- the JSON `url` is filled where jaxlint runs without its checkout (a normal install);
- `jaxlint check --fix` points at `jaxlint fix`, and every error starts with `jaxlint: error:`;
- a structural fix costs what the rewritten statement costs, not what its whole class costs.
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT
from jaxlint.cli import run
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import ALL_RULES, CATALOGUE, RULES_BY_CODE
from jaxlint.rules.base import DOC_HEADINGS, Rule

BAD = "import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"


def check(capsys, *args) -> tuple[int, str, str]:
    code = run(["check", "--no-cache", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


UNCHECKABLE = {
    "binary.py": (b"\x00\x01\x02binary", "not checked: binary file (contains NUL bytes)"),
    "latin1.py": (b"import jax\nname = 'caf\xe9'\n", "not checked: cannot decode as utf-8"),
    "unknown_codec.py": (b"# coding: klingon\nimport jax\n", "not checked: unknown encoding: klingon"),
    "deep_unary.py": (b"import jax\nx = " + b"-" * 100_000 + b"1\n", "not checked: too deeply nested or too large to parse"),
    # A 20,000-term expression: CPython's parser gives up with a RecursionError.
    "long_sum.py": (b"import jax\nimport jax.numpy as jnp\ny = jnp.sum(x" + b" + x" * 20_000 + b")\n", "not checked: too deeply nested or too large to parse"),
    "broken.ipynb": (b'{"cells": [', "not checked: not a valid notebook"),
}


@pytest.mark.parametrize("name", sorted(UNCHECKABLE))
def test_a_file_that_was_not_checked_is_a_finding_and_exit_1(project, capsys, name):
    data, message = UNCHECKABLE[name]
    (project / name).write_bytes(data)
    code, out, err = check(capsys, name)
    assert code == 1, out + err
    assert f"{name}:1:1: JAX000 {message}" in out, out + err
    assert "All checks passed" not in out and "Found 1 error." in out
    code, out, _ = check(capsys, "--format", "json", name)
    [finding] = json.loads(out)
    assert code == 1 and finding["code"] == "JAX000" and finding["name"] == "syntax-error" and finding["url"]


def test_unreadable_file_is_a_finding(project, capsys):
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        pytest.skip("root reads every file")
    locked = project / "locked.py"
    locked.write_text(BAD)
    locked.chmod(0)
    code, out, _ = check(capsys, "locked.py")
    assert code == 1 and "locked.py:1:1: JAX000 not checked: permission denied" in out


def test_unreadable_beside_readable_files_keeps_both(project, capsys):
    (project / "bad.py").write_text(BAD)
    (project / "blob.py").write_bytes(b"\x00binary")
    (project / "clean.py").write_text("import jax\n")
    code, out, _ = check(capsys, ".")
    assert code == 1
    assert "bad.py:6:8: JAX101" in out and "blob.py:1:1: JAX000" in out and "Found 2 errors." in out


def test_binary_stdin_is_a_finding(capsys, monkeypatch):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"\x00\x01binary")))
    code, out, _ = check(capsys, "--stdin-filename", "piped.py", "-")
    assert code == 1 and "piped.py:1:1: JAX000 not checked: binary file" in out


def test_jax000_obeys_ignore_but_not_a_narrow_select(project, capsys):
    (project / "blob.py").write_bytes(b"\x00binary")
    code, out, _ = check(capsys, "--select", "JAX101", "blob.py")
    assert code == 1 and "JAX000" in out  # a file not checked is never a pass, whatever was selected
    code, out, err = check(capsys, "--ignore", "JAX000", "blob.py")
    assert code == 0 and "JAX000" not in out and "no Python files" not in err
    (project / "pyproject.toml").write_text('[tool.jaxlint.per-file-ignores]\n"blob.py" = ["JAX000"]\n')
    code, out, _ = check(capsys, "blob.py")
    assert code == 0 and "JAX000" not in out


class _Recursing(Rule):
    """A rule that runs out of stack on a call, as a rule walking a 20,000-term expression would."""

    code = "JAX999"
    name = "recursing"
    summary = "test rule"
    node_types = (ast.Call,)

    def check(self, node, context):
        raise RecursionError("maximum recursion depth exceeded")


def test_a_rule_out_of_stack_leaves_a_jax000_where_it_stopped():
    text = "import jax\n\nx = 1\ny = jax.numpy.sum(x)\n"
    result = check_source(text, "deep.py", Settings(), [_Recursing()])
    [finding] = result.diagnostics
    assert (finding.code, finding.location.row, finding.location.column) == ("JAX000", 4, 5)
    assert "JAX999 stopped here" in finding.message and not result.errors


def test_notebook_cell_too_deep_to_parse_is_a_finding(tmp_path):
    from jaxlint.notebook import lint_notebook

    cells = [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
             for source in ["import jax\n", "x = " + "-" * 100_000 + "1\n"]]
    notebook = {"cells": cells, "metadata": {"kernelspec": {"language": "python", "name": "python3"}}, "nbformat": 4, "nbformat_minor": 5}
    result = lint_notebook(json.dumps(notebook), "deep.ipynb", Settings(), ALL_RULES)
    assert [(d.cell, d.code) for d in result.diagnostics] == [(2, "JAX000")] and not result.errors


# ----- JAX000 and JAX001 are rules like the others ------------------------------------------


@pytest.mark.parametrize("code, name", [("JAX000", "syntax-error"), ("JAX001", "unused-noqa")])
def test_engine_codes_are_documented_listed_and_explained(capsys, code, name):
    rule = RULES_BY_CODE[code]
    assert rule.name == name and rule in CATALOGUE and rule not in ALL_RULES  # not dispatched nodes
    doc = rule.documentation
    positions = [doc.index(f"## {heading}") for heading in DOC_HEADINGS]
    assert positions == sorted(positions) and "```python" in doc and "https://" in doc
    assert run(["rule", code.lower()]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"# {name} ({code})") and "## What it does" in out
    assert run(["rules"]) == 0
    assert f"{code}\t{name}\t" in capsys.readouterr().out
    assert f"## {code} {name}" in (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def test_jax001_by_selection(project, capsys):
    (project / "stale.py").write_text("import jax\nx = 1  # noqa: JAX101\n")
    code, out, _ = check(capsys, "stale.py")
    assert code == 0 and "JAX001" not in out  # off by default
    for option in (["--extend-select", "JAX001"], ["--select", "JAX001,JAX101"], ["--report-unused-noqa"]):
        code, out, _ = check(capsys, *option, "stale.py")
        assert code == 1 and "stale.py:2:8: JAX001" in out, option
    code, out, _ = check(capsys, "--extend-select", "ALL", "stale.py")
    assert "JAX001" not in out  # a broad selector does not switch it on
    code, out, _ = check(capsys, "--extend-select", "JAX001", "--ignore", "JAX001", "stale.py")
    assert code == 0 and "JAX001" not in out


def test_sarif_names_jax001_unused_noqa(project, capsys):
    (project / "stale.py").write_text("import jax\nx = 1  # noqa: JAX101\n")
    (project / "broken.py").write_text("def f(:\n")
    code, out, _ = check(capsys, "--report-unused-noqa", "--format", "sarif", ".")
    rules = {rule["id"]: rule for rule in json.loads(out)["runs"][0]["tool"]["driver"]["rules"]}
    assert rules["JAX001"]["name"] == "unused-noqa" and rules["JAX001"]["properties"]["fixable"]
    assert rules["JAX000"]["name"] == "syntax-error" and "## What it does" in rules["JAX000"]["help"]["text"]


# ----- notebooks in SARIF and GitHub output ---------------------------------------------------


def test_notebook_findings_name_their_cell_in_sarif_and_github(project, capsys):
    shutil.copy(FIXTURES / "notebooks" / "pitfalls.ipynb", project / "nb.ipynb")
    code, text_out, _ = check(capsys, "nb.ipynb")
    assert "nb.ipynb:cell 5:" in text_out
    code, out, _ = check(capsys, "--format", "sarif", "nb.ipynb")
    results = json.loads(out)["runs"][0]["results"]
    cell_five = [result for result in results if result["properties"]["cell"] == 5]
    assert cell_five and all(result["message"]["text"].startswith("cell 5, line ") for result in cell_five)
    assert cell_five[0]["locations"][0]["logicalLocations"] == [{"name": "cell 5", "kind": "notebookCell"}]
    code, out, _ = check(capsys, "--format", "github", "nb.ipynb")
    lines = [line for line in out.splitlines() if "(cell 5)" in line]
    assert lines and all("::nb.ipynb:cell 5:" in line for line in lines)


def test_github_output_of_a_plain_file_is_unchanged(project, capsys):
    (project / "bad.py").write_text(BAD)
    code, out, _ = check(capsys, "--format", "github", "bad.py")
    assert out.startswith("::error file=bad.py,line=6,col=8,") and "title=JAX101 tracer-bool-conversion::JAX101 " in out


# ----- the url in a normal install -------------------------------------------------------------


def test_url_is_filled_without_the_checkout(tmp_path):
    """The package alone, as `pip install .` (or pre-commit) puts it in site-packages: no docs/."""
    installed = tmp_path / "site-packages"
    shutil.copytree(ROOT / "jaxlint", installed / "jaxlint", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "bad.py").write_text(BAD)
    env = {**os.environ, "PYTHONPATH": str(installed), "XDG_CACHE_HOME": str(tmp_path / "cache"), "JAXLINT_CACHE_DIR": str(tmp_path / "results")}
    completed = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--format", "json", "bad.py"], cwd=tmp_path, env=env, capture_output=True, timeout=300
    )
    [finding] = json.loads(completed.stdout)
    url = finding["url"]
    assert url and url.startswith("file://") and url.endswith("#jax101-tracer-bool-conversion"), url
    page = Path(url[len("file://") : url.index("#")])
    assert page.is_relative_to(tmp_path / "cache" / "jaxlint")
    # The page is the one docs/rules.md holds: the same docstrings rendered.
    assert page.read_text(encoding="utf-8") == (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


# ----- fixing is `jaxlint fix`; one prefix for every error ---------------------------------------


@pytest.mark.parametrize(
    "options, command",
    [(["--fix"], "`jaxlint fix`"), (["--fix", "--unsafe-fixes"], "`jaxlint fix --unsafe-fixes`"), (["--diff"], "`jaxlint fix --diff`")],
)
def test_check_fix_points_at_jaxlint_fix(project, capsys, options, command):
    (project / "bad.py").write_text(BAD)
    code, out, err = check(capsys, *options, "bad.py")
    assert code == 2 and out == ""
    assert err.startswith("jaxlint: error: `jaxlint check` does not fix") and command in err and err.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [["check", "--format", "xml", "x.py"], ["check", "--no-such-option"], ["no-such-command"], ["rule", "JAX999"], ["check", "--select", "NOPE1"],
     ["fix", "--no-such-option"], ["rules", "--format", "yaml"]],
)
def test_every_error_has_one_prefix(project, capsys, argv):
    assert run(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("jaxlint: error: ") and err.count("\n") == 1, err
    assert "Usage:" not in err and "\nError:" not in err


# ----- a structural fix's cost follows the statement it rewrites ---------------------------------


def test_structural_fixes_in_a_big_class_generate_only_their_method(monkeypatch):
    """A class of many jitted methods, each with an `if` on a traced value: every fix used to
    regenerate the whole class and compare it with the source (57 s for a 60,000-line file).
    Counted, not timed: the code generated per fix stays the size of one method."""
    from jaxlint.fixes import cst_edit

    methods = "".join(
        f"    @partial(jax.jit, static_argnums=0)\n    def f{i}(self, x, y):\n        if x > y:\n            return x + {i}\n        return y\n\n"
        for i in range(60)
    )
    text = "import jax\nfrom functools import partial\n\n\nclass Model:\n" + methods
    generated: list[int] = []
    original_code = cst_edit.ModuleTree._code

    def counting(self, nodes, indent):
        code = original_code(self, nodes, indent)
        generated.append(len(code))
        return code

    monkeypatch.setattr(cst_edit.ModuleTree, "_code", counting)
    rebuilt: list[int] = []
    monkeypatch.setattr(cst_edit.cst.Module, "code", property(lambda module: rebuilt.append(1) or module.code_for_node(module)))
    result = check_source(text, "model.py", Settings(), [RULES_BY_CODE["JAX101"]])
    fixed = [d for d in result.diagnostics if d.fix is not None]
    assert len(fixed) == 60
    assert not rebuilt, "a fix regenerated the whole class"
    one_method = len(methods) // 60
    assert generated and max(generated) <= 2 * one_method
    # The edits are the ones the whole-class rewrite gave: each replaces its own `if` with a `where`.
    for diagnostic in fixed:
        [edit, *_] = diagnostic.fix.edits
        assert "jnp.where" in edit.content or "where(" in edit.content
        assert edit.location.row == diagnostic.location.row
