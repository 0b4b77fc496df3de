"""The pre-commit hooks in .pre-commit-hooks.yaml, run by the real `pre-commit` against temporary git repositories.

pre-commit installs the hook repository into a fresh virtualenv (pip, from this checkout), so these
tests need git and a package index or a warm pip cache. `try-repo` only sees committed and tracked
files, so the hooks are taken from a snapshot of the working tree committed to a scratch repository.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from conftest import ROOT

from jaxlint.cli import run

requires_pre_commit = pytest.mark.skipif(
    importlib.util.find_spec("pre_commit") is None or shutil.which("git") is None,
    reason="needs pre-commit and git; `pip install -e '.[test]'` brings pre-commit",
)

BAD = "import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"
# JAX301 with a safe fix: a list passed as a static argument becomes a tuple.
FIXABLE = textwrap.dedent(
    """\
    from functools import partial

    import jax


    @partial(jax.jit, static_argnames=("axes",))
    def total(x, axes):
        return x.sum(axis=axes)


    def run(x):
        return total(x, axes=[0, 1])
    """
)
NOTEBOOK = """{
 "cells": [
  {"cell_type": "markdown", "metadata": {}, "source": ["# notes"]},
  {"cell_type": "code", "execution_count": null, "metadata": {}, "outputs": [],
   "source": ["%matplotlib inline\\n", "import jax\\n", "\\n", "@jax.jit\\n", "def g(x):\\n", "    if x > 0:\\n", "        return x\\n", "    return -x"]}
 ],
 "metadata": {"language_info": {"name": "python"}},
 "nbformat": 4,
 "nbformat_minor": 5
}
"""
GIT_ENV = {
    "GIT_AUTHOR_NAME": "jaxlint tests", "GIT_AUTHOR_EMAIL": "tests@example.invalid",
    "GIT_COMMITTER_NAME": "jaxlint tests", "GIT_COMMITTER_EMAIL": "tests@example.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def git(cwd: Path, *args: str) -> str:
    env = {**os.environ, **GIT_ENV}
    return subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True).stdout


def commit_all(repo: Path) -> str:
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "snapshot")
    return git(repo, "rev-parse", "HEAD").strip()


def new_repo(path: Path, files: dict[str, str]) -> Path:
    path.mkdir(parents=True)
    git(path, "init", "-q")
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    commit_all(path)
    return path


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory) -> tuple[Path, str]:
    """This checkout as pre-commit would clone it: tracked and new (not ignored) files, committed."""
    try:
        listed = git(ROOT, "ls-files", "-z", "--cached", "--others", "--exclude-standard")
    except subprocess.CalledProcessError:
        pytest.skip("the jaxlint sources are not a git checkout")
    snapshot = tmp_path_factory.mktemp("hook-repo")
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():  # a tracked file deleted in the working tree is absent
            (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, snapshot / name)
    git(snapshot, "init", "-q")
    return snapshot, commit_all(snapshot)


def pre_commit_run(cwd: Path, *args: str, home: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, **GIT_ENV, "PRE_COMMIT_HOME": str(home), "PRE_COMMIT_COLOR": "never"}
    env.pop("PRE_COMMIT", None)
    return subprocess.run([sys.executable, "-m", "pre_commit", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=900)


@requires_pre_commit
def test_manifest_declares_both_hooks():
    from pre_commit.clientlib import load_manifest

    hooks = {hook["id"]: hook for hook in load_manifest(str(ROOT / ".pre-commit-hooks.yaml"))}
    assert set(hooks) == {"jaxlint-check", "jaxlint-fix"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["types_or"] == ["python", "pyi", "jupyter"]
        assert hook["require_serial"] is True
    assert hooks["jaxlint-check"]["entry"].startswith("jaxlint check")
    assert hooks["jaxlint-fix"]["entry"].startswith("jaxlint fix")


@requires_pre_commit
def test_try_repo_runs_both_hooks(hook_repo, tmp_path):
    snapshot, _ = hook_repo
    project = new_repo(
        tmp_path / "project",
        {
            "bad.py": BAD,
            "fixable.py": FIXABLE,
            "analysis.ipynb": NOTEBOOK,
            "vendored/bad_too.py": BAD,
            "pyproject.toml": '[tool.jaxlint]\nextend-exclude = ["vendored"]\n',
            "README.md": "not python\n",
        },
    )
    result = pre_commit_run(project, "try-repo", str(snapshot), "--all-files", home=tmp_path / "home")
    output = result.stdout + result.stderr
    assert result.returncode == 1, output
    assert "Traceback" not in output
    # jaxlint-check: findings in the file and the notebook cell; the excluded file is not linted
    # even though pre-commit names it (the hook passes --force-exclude).
    check_output = output.split("jaxlint check..", 1)[1].split("jaxlint fix..", 1)[0]
    assert "bad.py:6:8: JAX101" in check_output
    assert "analysis.ipynb:cell 2:6:8: JAX101" in check_output
    assert "vendored" not in check_output
    # jaxlint-fix rewrote the safely fixable file in place.
    assert "total(x, axes=(0, 1))" in (project / "fixable.py").read_text()
    assert (project / "bad.py").read_text() == BAD  # its fix is unsafe: not applied
    assert (project / "vendored" / "bad_too.py").read_text() == BAD


@requires_pre_commit
def test_hook_without_files(hook_repo, tmp_path):
    """No matching files: pre-commit skips the hook; `always_run` calls it with no files, and then it
    lints the repository root (pre-commit's working directory) with the project's excludes."""
    snapshot, revision = hook_repo
    config = textwrap.dedent(
        f"""\
        repos:
          - repo: {snapshot}
            rev: {revision}
            hooks:
              - id: jaxlint-check
                exclude: ^vendored/
              - id: jaxlint-check
                name: jaxlint check (always run)
                exclude: ^vendored/
                always_run: true
        """
    )
    project = new_repo(
        tmp_path / "project",
        {
            "README.md": "no python here\n",
            "vendored/bad.py": BAD,
            "pyproject.toml": '[tool.jaxlint]\nextend-exclude = ["vendored"]\n',
            ".pre-commit-config.yaml": config,
        },
    )
    result = pre_commit_run(project, "run", "--all-files", "--verbose", home=tmp_path / "home")
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Traceback" not in output
    lines = output.splitlines()
    assert any(line.startswith("jaxlint check.") and line.endswith("(no files to check)Skipped") for line in lines), output
    assert any(line.startswith("jaxlint check (always run).") and line.endswith("Passed") for line in lines), output
    assert "All checks passed!" in output


def test_check_without_paths_lints_the_current_directory(tmp_path, monkeypatch, capsys):
    """What a hook with `always_run: true` or `pass_filenames: false` gets: the tree, minus excludes."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nextend-exclude = ["vendored"]\n')
    (tmp_path / "vendored").mkdir()
    (tmp_path / "vendored" / "bad.py").write_text(BAD)
    assert run(["check", "--force-exclude", "--no-cache"]) == 0
    assert "All checks passed!" in capsys.readouterr().out
    (tmp_path / "bad.py").write_text(BAD)
    assert run(["check", "--force-exclude", "--no-cache"]) == 1
    out = capsys.readouterr().out
    assert "bad.py:6:8: JAX101" in out and "vendored" not in out


def test_force_exclude_applies_excludes_to_named_files(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text('[tool.jaxlint]\nextend-exclude = ["vendored", "generated_*.py"]\n')
    for name in ("vendored/deep/bad.py", "generated_model.py", ".venv/lib/bad.py", "src/bad.py"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(BAD)
    named = ["vendored/deep/bad.py", "generated_model.py", ".venv/lib/bad.py", "src/bad.py"]
    # Without the flag a named file is always linted (what a user typing a path expects).
    assert run(["check", "--no-cache", *named]) == 1
    assert capsys.readouterr().out.count("JAX101") == 4
    assert run(["check", "--no-cache", "--force-exclude", *named]) == 1
    out = capsys.readouterr().out
    assert out.count("JAX101") == 1 and "src/bad.py:6:8: JAX101" in out
    # Every named file excluded: nothing to check is a clean run, not an error.
    assert run(["check", "--no-cache", "--force-exclude", "vendored/deep/bad.py"]) == 0
