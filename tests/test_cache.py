"""The results cache: hits for unchanged files, misses on any change that could alter results."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.cli import run

BAD = "import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JAXLINT_CACHE_DIR", raising=False)
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "a.py").write_text(BAD)
    (tmp_path / "b.py").write_text("import jax\n")
    return tmp_path


def findings(capsys, *args):
    code = run(["check", "--format", "json", *args])
    return code, json.loads(capsys.readouterr().out)


def entries(project: Path) -> list[Path]:
    return sorted((project / ".jaxlint_cache").glob("*/*.json"))


def test_second_run_reads_the_cache_and_agrees(project, capsys, monkeypatch):
    first = findings(capsys, ".")
    assert first[0] == 1 and len(entries(project)) == 2
    assert (project / ".jaxlint_cache" / ".gitignore").read_text().strip().endswith("*")
    # A warm run must not analyse anything: make analysis impossible and compare.
    import jaxlint.runner

    monkeypatch.setattr(jaxlint.runner, "lint_file", lambda *a, **k: pytest.fail("analysed a cached file"))
    assert findings(capsys, ".") == first


def test_content_change_is_rechecked(project, capsys):
    findings(capsys, ".")
    (project / "a.py").write_text(BAD.replace("if x > 0:", "if x.ndim > 0:"))
    assert findings(capsys, ".") == (0, [])


def test_settings_change_is_rechecked(project, capsys):
    assert findings(capsys, ".")[0] == 1
    assert findings(capsys, "--select", "JAX102", ".") == (0, [])
    (project / "pyproject.toml").write_text('[tool.jaxlint]\ntraced-decorators = ["mylib.compile"]\n')
    (project / "c.py").write_text("import jax.numpy as jnp\nfrom mylib import compile\n\n\n@compile\ndef g(x):\n    return float(jnp.sum(x))\n")
    code, found = findings(capsys, ".")
    assert sorted(f["code"] for f in found) == ["JAX101", "JAX102"]
    (project / "pyproject.toml").write_text("[tool.jaxlint]\n")
    code, found = findings(capsys, ".")
    assert [f["code"] for f in found] == ["JAX101"], "a cached result from other settings was reused"


def test_a_changed_jaxlint_is_not_served_its_older_findings(project, capsys, monkeypatch):
    """An edited (or reinstalled) checkout of one jaxlint version: its code changed, so the entries
    its older code wrote are misses, not findings of code that no longer runs."""
    import jaxlint.cache
    import jaxlint.runner

    findings(capsys, ".")
    monkeypatch.setattr(jaxlint.cache, "_CODE_FINGERPRINT", "another build of the same version")
    analysed = []
    real_lint_file = jaxlint.runner.lint_file
    monkeypatch.setattr(jaxlint.runner, "lint_file", lambda *a, **k: analysed.append(1) or real_lint_file(*a, **k))
    assert findings(capsys, ".")[0] == 1 and len(analysed) == 2
    assert jaxlint.cache.code_fingerprint() == "another build of the same version"


def test_moved_file_reports_its_new_name(project, capsys):
    findings(capsys, ".")
    (project / "a.py").rename(project / "moved.py")
    code, found = findings(capsys, ".")
    assert [f["filename"] for f in found] == ["moved.py"]


def test_corrupt_entries_are_ignored(project, capsys):
    expected = findings(capsys, ".")
    for entry in entries(project):
        entry.write_text('{"diagnostics": [{"code": 1}]}' if entry.stat().st_size > 30 else "not json")
    assert findings(capsys, ".") == expected
    for entry in entries(project):
        json.loads(entry.read_text())  # rewritten whole


def test_no_cache_writes_nothing(project, capsys):
    findings(capsys, "--no-cache", ".")
    assert not (project / ".jaxlint_cache").exists()


def test_cache_dir_from_environment(project, capsys, monkeypatch, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("JAXLINT_CACHE_DIR", str(elsewhere))
    findings(capsys, ".")
    assert not (project / ".jaxlint_cache").exists()
    assert len(list(elsewhere.glob("*/*.json"))) == 2


def test_concurrent_runs_agree(project):
    for index in range(30):
        (project / f"m{index}.py").write_text(BAD if index % 2 else "import jax\n")
    command = [sys.executable, "-m", "jaxlint", "check", "--format", "json", "-j", "2", "."]
    processes = [subprocess.Popen(command, cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(3)]
    outputs = [process.communicate() for process in processes]
    results = [json.loads(out) for out, _ in outputs]
    assert all(process.returncode == 1 for process in processes), [err for _, err in outputs]
    assert results[0] == results[1] == results[2]
    assert len(results[0]) == 16
    warm = subprocess.run(command, cwd=project, capture_output=True, text=True)
    assert json.loads(warm.stdout) == results[0]


# `jaxlint fix` shares the cache: a file whose cached findings have no applicable fix is not analysed.
# JAX305 (a captured large constant) has no fix.
UNFIXABLE = (
    "import jax\nimport jax.numpy as jnp\nimport numpy as np\n\nTABLE = np.zeros((512, 512))\n\n\n"
    "@jax.jit\ndef embed(ids):\n    return jnp.take(TABLE, ids, axis=0)\n"
)


def test_fix_skips_a_cached_file_with_nothing_to_fix_and_no_cache_turns_that_off(project, capsys, monkeypatch):
    (project / "a.py").write_text(UNFIXABLE)
    first = findings(capsys, ".")
    assert [(finding["code"], finding["fix"]) for finding in first[1]] == [("JAX305", None)]
    import jaxlint.cli.fix

    calls = []
    original = jaxlint.cli.fix.fix_file
    monkeypatch.setattr(jaxlint.cli.fix, "fix_file", lambda path, *a, **k: calls.append(Path(path).name) or original(path, *a, **k))
    code = run(["fix", "."])
    out = capsys.readouterr().out
    assert calls == [] and code == 1
    assert all(f"a.py:{finding['location']['row']}:{finding['location']['column']}: {finding['code']}" in out for finding in first[1])
    # --no-cache analyses every file again, and reports the same.
    code = run(["fix", "--no-cache", "."])
    assert sorted(calls) == ["a.py", "b.py"] and capsys.readouterr().out == out


def test_fix_analyses_a_cached_file_that_has_a_fix_to_apply(project, capsys, monkeypatch):
    (project / "a.py").write_text("from functools import partial\nimport jax\n\n\n@partial(jax.jit, static_argnums=(1,))\ndef f(x, axes):\n    return x.sum(axes)\n\n\nf(1, [0])\n")
    assert findings(capsys, ".")[0] == 1
    assert run(["fix", "."]) == 0
    assert "f(1, (0,))" in (project / "a.py").read_text()


def test_fix_no_cache_writes_no_cache(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JAXLINT_CACHE_DIR", raising=False)
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "a.py").write_text(BAD)
    assert run(["fix", "--no-cache", "."]) == 1
    assert not (tmp_path / ".jaxlint_cache").exists()
    assert run(["fix", "."]) == 1
    assert (tmp_path / ".jaxlint_cache").is_dir()  # an unchanged file's findings are stored for the next run
