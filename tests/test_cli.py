"""The `jaxlint check` command line: exit codes, formats, config, suppression, bad input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT
from jaxlint.cli import run

BAD = textwrap.dedent(
    """\
    import jax
    import jax.numpy as jnp


    @jax.jit
    def f(x):
        if x > 0:
            return x
        return -x
    """
)
CLEAN = "import jax\n\n\n@jax.jit\ndef f(x):\n    return x * 2\n"


def check(capsys, *args) -> tuple[int, str, str]:
    code = run(["check", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    return tmp_path


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def test_exit_codes(project, capsys):
    write(project / "bad.py", BAD)
    write(project / "clean.py", CLEAN)
    assert check(capsys, "clean.py")[0] == 0
    code, out, _ = check(capsys, "bad.py")
    assert code == 1
    assert "bad.py:7:8: JAX101 " in out
    assert "Found 1 error." in out
    assert check(capsys, "--exit-zero", "bad.py")[0] == 0
    code, _, err = check(capsys, "missing.py")
    assert code == 2 and "missing.py: no such file or directory" in err
    code, out, err = check(capsys, "bad.py", "missing.py")
    assert code == 2 and "JAX101" in out


def test_default_path_is_current_directory(project, capsys):
    write(project / "pkg" / "bad.py", BAD)
    code, out, _ = check(capsys)
    assert code == 1 and "pkg/bad.py:7:8" in out


def test_json_output_has_ruff_field_names(project, capsys):
    write(project / "bad.py", BAD)
    code, out, _ = check(capsys, "--format", "json", "bad.py")
    assert code == 1
    [finding] = json.loads(out)
    assert set(finding) == {"code", "name", "message", "filename", "location", "end_location", "fix", "url"}
    assert finding["code"] == "JAX101" and finding["name"] == "tracer-bool-conversion"
    assert finding["location"] == {"row": 7, "column": 8}
    assert finding["end_location"] == {"row": 7, "column": 13}
    assert finding["filename"] == "bad.py"


def test_json_fix_fields(project, capsys):
    write(project / "s.py", "from functools import partial\nimport jax\n\n\n@partial(jax.jit, static_argnums=(1,))\ndef f(x, a):\n    return x\n\n\nf(1, [0])\n")
    code, out, _ = check(capsys, "--format", "json", "s.py")
    [finding] = json.loads(out)
    assert finding["fix"]["applicability"] == "safe"
    assert finding["fix"]["edits"] == [{"content": "(0,)", "location": {"row": 10, "column": 6}, "end_location": {"row": 10, "column": 9}}]
    assert set(finding["fix"]) == {"applicability", "message", "edits"}


def test_sarif_and_github_formats(project, capsys):
    write(project / "bad.py", BAD)
    code, out, _ = check(capsys, "--format", "sarif", "bad.py")
    document = json.loads(out)
    assert document["version"] == "2.1.0"
    run_ = document["runs"][0]
    assert run_["tool"]["driver"]["name"] == "jaxlint"
    rule_ids = [rule["id"] for rule in run_["tool"]["driver"]["rules"]]
    assert "JAX101" in rule_ids
    [result] = run_["results"]
    assert result["ruleId"] == "JAX101"
    region = result["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (7, 8)
    assert rule_ids[result["ruleIndex"]] == "JAX101"
    code, out, _ = check(capsys, "--format", "github", "bad.py")
    assert out.startswith("::error file=bad.py,line=7,col=8,endLine=7,endColumn=13,title=JAX101 tracer-bool-conversion::JAX101 ")


def test_output_file_and_statistics(project, capsys):
    write(project / "bad.py", BAD + "\n\n@jax.jit\ndef g(y):\n    return float(y)\n")
    code, out, _ = check(capsys, "--output-file", "report.json", "--format", "json", "bad.py")
    assert code == 1 and out == ""
    assert len(json.loads((project / "report.json").read_text())) == 2
    code, out, _ = check(capsys, "--statistics", "bad.py")
    assert "1\tJAX101\t[ ] tracer-bool-conversion" in out
    assert "1\tJAX102\t[ ] tracer-to-python-scalar" in out


def test_quiet_omits_summary(project, capsys):
    write(project / "bad.py", BAD)
    _, out, _ = check(capsys, "-q", "bad.py")
    assert "Found" not in out and "JAX101" in out


def test_select_ignore_and_prefixes(project, capsys):
    write(project / "bad.py", BAD + "\n\n@jax.jit\ndef g(y):\n    return float(y)\n")
    _, out, _ = check(capsys, "--select", "JAX102", "bad.py")
    assert "JAX102" in out and "JAX101" not in out
    _, out, _ = check(capsys, "--select", "JAX1", "--ignore", "JAX101", "bad.py")
    assert "JAX102" in out and "JAX101" not in out
    _, out, _ = check(capsys, "--select", "JAX2", "--extend-select", "JAX10", "bad.py")
    assert "JAX101" in out and "JAX102" in out
    code, _, err = check(capsys, "--select", "JAX999", "bad.py")
    assert code == 2 and "unknown rule selector 'JAX999'" in err


def test_stdin(project, monkeypatch, capsys):
    import io

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(BAD.encode())))
    code, out, _ = check(capsys, "--stdin-filename", "pkg/mod.py", "-")
    assert code == 1 and out.startswith("pkg/mod.py:7:8: JAX101")


def test_pyproject_config(project, capsys):
    write(project / "pyproject.toml", textwrap.dedent(
        """\
        [tool.jaxlint]
        ignore = ["JAX102"]
        extend-exclude = ["generated"]
        per-file-ignores = { "tests/*.py" = ["JAX101"] }
        """
    ))
    source = BAD + "\n\n@jax.jit\ndef g(y):\n    return float(y)\n"
    write(project / "src" / "a.py", source)
    write(project / "tests" / "test_a.py", source)
    write(project / "generated" / "g.py", source)
    code, out, _ = check(capsys)
    assert "src/a.py:7:8: JAX101" in out
    assert "JAX102" not in out
    assert "tests/test_a.py" not in out
    assert "generated" not in out
    # An excluded file named explicitly is still checked.
    _, out, _ = check(capsys, "generated/g.py")
    assert "generated/g.py:7:8: JAX101" in out


def test_traced_decorators_config(project, capsys):
    write(project / "pyproject.toml", '[tool.jaxlint]\ntraced-decorators = ["mylib.compile"]\n')
    write(project / "m.py", "import jax.numpy as jnp\nfrom mylib import compile\n\n\n@compile\ndef f(x):\n    if jnp.sum(x) > 0:\n        return x\n    return -x\n")
    code, out, _ = check(capsys, "m.py")
    assert code == 1 and "m.py:7:8: JAX101" in out


def test_broken_config_is_a_clear_error(project, capsys):
    write(project / "pyproject.toml", "[tool.jaxlint\nselect = 1\n")
    write(project / "a.py", CLEAN)
    code, _, err = check(capsys, "a.py")
    assert code == 2 and "pyproject.toml: invalid TOML" in err
    write(project / "pyproject.toml", "[tool.jaxlint]\nselct = ['JAX1']\n")
    code, _, err = check(capsys, "a.py")
    assert code == 2 and "unknown key 'selct'" in err
    write(project / "pyproject.toml", "[tool.jaxlint]\nselect = ['NOPE1']\n")
    code, _, err = check(capsys, "a.py")
    assert code == 2 and "unknown rule selector 'NOPE1'" in err


def test_noqa(project, capsys):
    source = BAD.replace("if x > 0:", "if x > 0:  # noqa: JAX101")
    write(project / "a.py", source)
    assert check(capsys, "a.py")[0] == 0
    write(project / "b.py", BAD.replace("if x > 0:", "if x > 0:  # noqa"))
    assert check(capsys, "b.py")[0] == 0
    write(project / "c.py", BAD.replace("if x > 0:", "if x > 0:  # noqa: JAX201"))
    assert check(capsys, "c.py")[0] == 1
    write(project / "d.py", "# jaxlint: noqa\n" + BAD)
    assert check(capsys, "d.py")[0] == 0
    write(project / "e.py", "# jaxlint: noqa: JAX102\n" + BAD)
    assert check(capsys, "e.py")[0] == 1


def test_walk_skips_environments_and_build_output(project, capsys):
    for directory in (".venv/lib", "build", "node_modules/x", "__pycache__", ".git", "pkg.egg-info"):
        write(project / directory / "m.py", BAD)
    write(project / "real" / "m.py", BAD)
    write(project / "stub.pyi", BAD)
    write(project / "notes.txt", BAD)
    code, out, _ = check(capsys, ".")
    reported = sorted({line.split(":")[0] for line in out.splitlines() if "JAX101" in line})
    assert reported == ["real/m.py", "stub.pyi"]


def test_syntax_error_is_reported_and_the_run_goes_on(project, capsys):
    write(project / "broken.py", "def f(:\n    pass\n")
    write(project / "bad.py", BAD)
    code, out, err = check(capsys, ".")
    assert code == 1
    assert "broken.py:1:7: JAX000 SyntaxError: invalid syntax" in out
    assert "bad.py:7:8: JAX101" in out
    assert "Traceback" not in out + err


def test_encodings_binary_and_unreadable_files(project, capsys):
    latin = "# -*- coding: latin-1 -*-\n" + BAD.replace("return -x", "return -x  # caf\xe9")
    (project / "latin.py").write_bytes(latin.encode("latin-1"))
    (project / "nocookie.py").write_bytes(b"x = '\xe9'\n")
    (project / "blob.py").write_bytes(b"\x00\x01\x02binary")
    code, out, err = check(capsys, "latin.py", "nocookie.py", "blob.py")
    assert "latin.py:8:8: JAX101" in out
    assert "nocookie.py:1:1: JAX000 not checked: cannot decode as utf-8" in out
    assert "blob.py:1:1: JAX000 not checked: binary file" in out
    assert code == 1
    # Only unreadable input: a finding (JAX000), never a pass.
    code, out, err = check(capsys, "blob.py")
    assert code == 1 and "All checks passed" not in out
    if os.geteuid() != 0:
        locked = write(project / "locked.py", BAD)
        locked.chmod(0)
        code, out, err = check(capsys, "locked.py")
        assert code == 1 and "permission denied" in out


def test_bom_and_crlf_positions(project, capsys):
    (project / "w.py").write_bytes(b"\xef\xbb\xbf" + BAD.replace("\n", "\r\n").encode())
    code, out, _ = check(capsys, "w.py")
    assert code == 1 and "w.py:7:8: JAX101" in out


def test_non_ascii_columns_are_characters(project, capsys):
    write(project / "u.py", BAD.replace("if x > 0:", "if (x > 0) == ('é' == 'é'):"))
    _, out, _ = check(capsys, "--format", "json", "u.py")
    [finding] = json.loads(out)
    assert finding["location"]["column"] == 8
    assert finding["end_location"]["column"] == 8 + len("(x > 0) == ('é' == 'é')")


def test_rules_and_rule_commands(capsys):
    assert run(["rules", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {"code", "name", "fix", "preview"} <= set(rows[0])
    assert any(row["code"] == "JAX101" and row["fix"] == "sometimes" for row in rows)
    assert run(["rules"]) == 0
    assert "JAX402\tvmap-of-jit" in capsys.readouterr().out
    assert run(["rule", "JAX201"]) == 0
    out = capsys.readouterr().out
    assert "# host-sync-in-loop (JAX201)" in out and "## Why is this bad?" in out
    assert run(["rule", "JAX999"]) == 2
    assert "unknown rule 'JAX999'" in capsys.readouterr().err


def test_help_teaches():
    result = subprocess.run([sys.executable, "-m", "jaxlint", "check", "--help"], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0
    for option in ("--select", "--ignore", "--extend-select", "--format", "--output-file", "--statistics", "--exit-zero", "--stdin-filename"):
        assert option in result.stdout
    assert "Exit status" in result.stdout


def test_check_never_imports_jax_or_runs_user_code(tmp_path):
    marker = tmp_path / "imported.marker"
    target = write(tmp_path / "evil.py", f"open({str(marker)!r}, 'w').write('ran')\n" + BAD)
    script = (
        "import sys\nfrom jaxlint.cli import run\n"
        f"code = run(['check', {str(target)!r}])\n"
        "assert code == 1, code\n"
        "heavy = sorted(m for m in ('jax', 'numpy', 'jaxlib') if m in sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert not marker.exists()


def test_demo_shows_all_six_rules(capsys):
    code, out, _ = check(capsys, "--format", "json", FIXTURES / "demo" / "demo.py")
    assert code == 1
    assert sorted({f["code"] for f in json.loads(out)}) == ["JAX101", "JAX102", "JAX201", "JAX301", "JAX401", "JAX402"]


def test_a_directory_named_inside_an_excluded_one_is_checked_and_an_empty_run_says_so(project, capsys):
    """As Ruff does: excludes prune what a walk finds below the paths given, not the paths themselves
    (`jaxlint check fixtures/demo` with `fixtures` excluded checks the demo); and a run that finds
    nothing to check says so on stderr instead of passing silently."""
    write(project / "pyproject.toml", '[tool.jaxlint]\nextend-exclude = ["generated"]\n')
    write(project / "generated" / "inner" / "g.py", BAD)
    write(project / "generated" / "inner" / "generated" / "deeper.py", BAD)
    code, out, err = check(capsys, "generated/inner")
    assert code == 1 and "generated/inner/g.py:7:8: JAX101" in out
    assert "deeper.py" not in out  # an excluded directory below the named one is still pruned
    write(project / "ok.py", "x = 1\n")
    code, out, err = check(capsys, ".")
    assert code == 0 and "JAX101" not in out and "warning: no Python files" not in err
    (project / "empty").mkdir()
    code, out, err = check(capsys, "empty")
    assert code == 0 and "warning: no Python files or notebooks found under the given paths" in err
