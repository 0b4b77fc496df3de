"""`jaxlint check --add-noqa` and the reporting of unused `# noqa` comments (JAX001, opt-in)."""

from __future__ import annotations

import codecs
import io
import json
import shutil
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import FIXTURES
from jaxlint.cli import build_settings, enabled_rules, run
from jaxlint.engine import add_noqa_comments, check_source
from jaxlint.fixer import fix_source

BAD = textwrap.dedent(
    """\
    import jax


    @jax.jit
    def f(x):
        if x > 0:
            return x
        return -x
    """
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JAXLINT_CACHE_DIR", str(tmp_path / ".cache"))
    return tmp_path


def check(capsys, *args) -> tuple[int, str, str]:
    code = run(["check", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def jit_function(body: str) -> str:
    return "import jax\n\n\n@jax.jit\ndef f(x):\n" + textwrap.indent(textwrap.dedent(body), "    ")


# --add-noqa -------------------------------------------------------------------------------------


def test_add_noqa_silences_every_finding(project, capsys):
    source = jit_function(
        """\
        if x > 0:  # positive branch
            return x
        if x < -1:  # noqa: E501
            return -x
        while x > 1:
            x = x / 2
        return x
        """
    )
    write(project / "a.py", source)
    write(project / "clean.py", "import jax\n")
    clean_before = (project / "clean.py").stat().st_mtime_ns
    code, out, _ = check(capsys, ".")
    assert code == 1 and out.count("JAX101") == 3
    code, out, err = check(capsys, "--add-noqa", ".")
    assert code == 0
    assert "Added 3 noqa directives to 1 file." in err
    assert "All checks passed!" in out
    lines = (project / "a.py").read_text().splitlines()
    assert lines[5] == "    if x > 0:  # positive branch  # noqa: JAX101"
    assert lines[7] == "    if x < -1:  # noqa: E501, JAX101"
    assert lines[9] == "    while x > 1:  # noqa: JAX101"
    assert (project / "clean.py").stat().st_mtime_ns == clean_before  # no findings: never opened for writing
    assert check(capsys, ".")[0] == 0
    # Nothing left to add: the second run writes nothing.
    before = (project / "a.py").stat().st_mtime_ns
    code, _, err = check(capsys, "--add-noqa", ".")
    assert code == 0 and "Added 0 noqa directives to 0 files." in err
    assert (project / "a.py").stat().st_mtime_ns == before


def test_add_noqa_merges_several_codes_on_one_line(project, capsys):
    write(project / "a.py", jit_function("if x > 0 and float(x) > 1:  # noqa: JAX999\n    return x\nreturn -x\n"))
    code, out, _ = check(capsys, "a.py")
    codes = sorted({line.split()[1] for line in out.splitlines() if ": JAX" in line})
    assert code == 1 and len(codes) >= 2
    assert check(capsys, "--add-noqa", "a.py")[0] == 0
    line = (project / "a.py").read_text().splitlines()[5]
    assert line.endswith(f"# noqa: JAX999, {', '.join(codes)}")
    assert check(capsys, "a.py")[0] == 0


def test_add_noqa_never_writes_inside_a_string_or_after_a_backslash(project, capsys):
    source = jit_function(
        '''\
        if x > len("""first
        second"""):
            return x
        y = x + \\
            1
        if y > 0:
            return y
        return -x
        '''
    )
    write(project / "a.py", source)
    assert check(capsys, "a.py")[0] == 1
    assert check(capsys, "--add-noqa", "a.py")[0] == 0
    text = (project / "a.py").read_text()
    assert 'if x > len("""first\n' in text  # the string is unchanged
    assert 'second"""):  # noqa: JAX101\n' in text
    assert "y = x + \\\n" in text
    assert check(capsys, "a.py")[0] == 0


def test_add_noqa_leaves_syntax_errors_reported(project, capsys):
    write(project / "broken.py", "def f(:\n    pass\n")
    before = (project / "broken.py").read_bytes()
    code, out, err = check(capsys, "--add-noqa", "broken.py")
    assert code == 1
    assert "broken.py:1:7: JAX000" in out and "Added 0 noqa directives" in err
    assert (project / "broken.py").read_bytes() == before


def test_add_noqa_keeps_encoding_bom_line_endings_and_mode(project, capsys):
    source = "# -*- coding: latin-1 -*-\n# caf\xe9\n" + BAD
    data = codecs.BOM_UTF8 + source.replace("# -*- coding: latin-1 -*-\n", "").replace("\n", "\r\n").encode("utf-8")
    (project / "bom.py").write_bytes(data)
    (project / "latin.py").write_bytes(source.encode("latin-1"))
    (project / "latin.py").chmod(0o640)
    assert check(capsys, "--add-noqa", "bom.py", "latin.py")[0] == 0
    bom = (project / "bom.py").read_bytes()
    assert bom.startswith(codecs.BOM_UTF8) and b"    if x > 0:  # noqa: JAX101\r\n" in bom
    assert bom.count(b"\n") == bom.count(b"\r\n")
    latin = (project / "latin.py").read_bytes()
    assert b"# caf\xe9\n" in latin and b"if x > 0:  # noqa: JAX101\n" in latin
    assert (project / "latin.py").stat().st_mode & 0o777 == 0o640


def test_add_noqa_in_a_notebook(project, capsys):
    shutil.copyfile(FIXTURES / "notebooks" / "pitfalls.ipynb", project / "nb.ipynb")
    code, out, err = check(capsys, "--add-noqa", "nb.ipynb")
    assert code == 1  # the cell that does not parse stays reported
    assert "Added 4 noqa directives to 1 file." in err
    assert "nb.ipynb:cell 8:1:12: JAX000" in out
    cells = json.loads((project / "nb.ipynb").read_text(encoding="utf-8"))["cells"]
    assert cells[4]["source"][2] == "    if x > 0:  # noqa: JAX101\n"
    assert cells[6]["source"][6] == "total(x, axes=[0, 1])  # keep this comment  # noqa: JAX301\n"
    assert cells[8]["source"][1] == "y = total(x, axes=[1])  # noqa: JAX301\n"
    assert cells[8]["source"][3] == "    %time total(x, axes=(1,))  # noqa: JAX202\n"
    assert cells[6]["outputs"][0]["data"]["image/png"] == "iVBORw0KGgo="


def test_add_noqa_refuses_stdin(project, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    code, _, err = check(capsys, "--add-noqa", "-")
    assert code == 2 and "--add-noqa" in err and "stdin" in err


def test_add_noqa_comments_on_text():
    settings = build_settings(["."], None, (), (), ())
    found = check_source(BAD, "a.py", settings, enabled_rules(settings)).diagnostics
    text, added, left = add_noqa_comments(BAD, found)
    assert added == 1 and not left
    assert text == BAD.replace("if x > 0:", "if x > 0:  # noqa: JAX101")
    assert add_noqa_comments(BAD, []) == (BAD, 0, [])


# Unused noqa (JAX001) ---------------------------------------------------------------------------

STALE = jit_function(
    """\
    if x > 0:  # noqa: JAX101
        return x
    y = x + 1  # noqa: JAX101
    z = y * 2  # noqa: JAX101, JAX102, E501
    w = z  # noqa
    s = "# noqa: JAX101"
    t = s  # noqa: E501
    return w  # why: JAX101 was here  # noqa: JAX101
    """
)


def test_unused_noqa_is_opt_in(project, capsys):
    write(project / "a.py", STALE)
    code, out, _ = check(capsys, "a.py")
    assert code == 0 and "JAX001" not in out


def test_unused_noqa_reports_stale_jax_codes_only(project, capsys):
    write(project / "a.py", STALE)
    code, out, _ = check(capsys, "--report-unused-noqa", "--format", "json", "a.py")
    assert code == 1
    findings = json.loads(out)
    assert {d["code"] for d in findings} == {"JAX001"}
    assert all(d["name"] == "unused-noqa" for d in findings)
    # Row 6 uses its noqa; the blanket noqa, E501 and the string are never judged.
    assert [(d["location"]["row"], d["location"]["column"]) for d in findings] == [(8, 16), (9, 16), (13, 39)]
    assert findings[0]["message"] == "`# noqa` code JAX101 suppresses nothing on this line; remove it"
    assert findings[1]["message"].startswith("`# noqa` codes JAX101, JAX102 suppress nothing")


def test_unused_noqa_fix_removes_only_stale_codes(project):
    settings = build_settings(["."], None, (), (), ())
    settings.report_unused_noqa = True
    outcome = fix_source(STALE, "a.py", settings, enabled_rules(settings))
    lines = outcome.text.splitlines()
    assert lines[5] == "    if x > 0:  # noqa: JAX101"
    assert lines[7] == "    y = x + 1"
    assert lines[8] == "    z = y * 2  # noqa: E501"
    assert lines[9] == "    w = z  # noqa"
    assert lines[12] == "    return w  # why: JAX101 was here"
    assert not outcome.remaining
    assert check_source(outcome.text, "a.py", settings, enabled_rules(settings)).diagnostics == []


def test_unused_noqa_ignores_rules_that_did_not_run(project, capsys):
    write(project / "a.py", jit_function("y = x + 1  # noqa: JAX101, JAX201\nreturn y\n"))
    code, out, _ = check(capsys, "--report-unused-noqa", "--select", "JAX2", "a.py")
    assert out.count("JAX001") == 1 and "code JAX201 suppresses" in out
    code, out, _ = check(capsys, "--report-unused-noqa", "--select", "JAX3", "a.py")
    assert code == 0 and "JAX001" not in out


def test_unused_noqa_in_a_file_without_jax(project, capsys):
    write(project / "plain.py", "x = 1  # noqa: JAX101\ny = 2  # noqa: F401\n")
    code, out, _ = check(capsys, "--report-unused-noqa", "plain.py")
    assert code == 1 and "plain.py:1:8: JAX001" in out and out.count("JAX001") == 1


def test_unused_noqa_can_itself_be_silenced(project, capsys):
    write(project / "a.py", jit_function("y = x + 1  # noqa: JAX101, JAX001\nreturn y\n"))
    assert check(capsys, "--report-unused-noqa", "a.py")[0] == 0
    write(project / "b.py", "# jaxlint: noqa: JAX001\nx = 1  # noqa: JAX101\n")
    assert check(capsys, "--report-unused-noqa", "b.py")[0] == 0


def test_unused_noqa_and_the_cache(project, capsys):
    write(project / "a.py", STALE)
    assert check(capsys, "a.py")[0] == 0  # cached without JAX001 findings
    code, out, _ = check(capsys, "--report-unused-noqa", "a.py")
    assert code == 1 and out.count("JAX001") == 3
    assert check(capsys, "a.py")[0] == 0


def test_unused_noqa_in_a_notebook(project, capsys):
    data = json.loads((FIXTURES / "notebooks" / "clean.ipynb").read_text(encoding="utf-8"))
    data["cells"][1]["source"][2] = "    return jnp.where(x > 0, x, -x)  # noqa: JAX101\n"
    write(project / "nb.ipynb", json.dumps(data, indent=1))
    code, out, _ = check(capsys, "--report-unused-noqa", "nb.ipynb")
    assert code == 1 and "nb.ipynb:cell 2:3:37: JAX001" in out
