"""A checked file's findings do not depend on the folder jaxlint runs from: the project root that
import resolution uses (the folders searched, where an absolute `sys.path` folder of the author's
machine is looked for by its tail) is the file's own, the nearest folder above it holding packaging or
version control (semantic/project.py: project_root_of), as ruff and mypy find it."""

from __future__ import annotations

from pathlib import Path

import pytest

from jaxlint.cli import run
from jaxlint.semantic.project import project_root_of

STEP = "import jax\n\n\n@jax.jit\ndef advance(q, t):\n    return q * 0.5, t + 0.1\n"
LOOP = """

def roll(q, t, t_max):
    q, t = advance(q, t)
    while t[0] <= t_max:
        q, t = advance(q, t)
    return q


roll(jnp.ones((4, 3)), jnp.zeros(4), 10.0)
"""
SCRIPTS = {
    # An absolute folder of the author's machine, found by its tail in this checkout.
    "absolute.py": "import sys\n\nimport jax.numpy as jnp\n\nsys.path.append('/home/author/work/checkout/models/conv/')\nfrom blocks import advance\n",
    # The parent folder, then a star import from it.
    "parent.py": "import sys\n\nimport jax.numpy as jnp\n\nsys.path.append('..')\nfrom shared import *\n",
}


def _write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def _checkout(tmp_path: Path, marker: str | None) -> Path:
    repo = tmp_path / "checkout"
    if marker:
        _write(repo / marker, "")
    _write(repo / "models" / "conv" / "blocks.py", STEP)
    _write(repo / "scripts" / "shared.py", STEP)
    for name, head in SCRIPTS.items():
        _write(repo / "scripts" / "runs" / name, head + LOOP)
    return repo


def _findings(folder: Path, target: Path, capsys, monkeypatch) -> list[str]:
    monkeypatch.chdir(folder)
    run(["check", "--no-cache", str(target)])
    out = capsys.readouterr().out
    return sorted(line for line in out.splitlines() if ": JAX" in line)


@pytest.mark.parametrize("marker", ["setup.py", "pyproject.toml", ".git/HEAD", None])
def test_findings_are_the_same_from_any_folder(tmp_path, capsys, monkeypatch, marker):
    repo = _checkout(tmp_path, marker)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    target = repo / "scripts" / "runs"
    seen = [_findings(folder, target, capsys, monkeypatch) for folder in (elsewhere, repo, target, tmp_path)]
    assert all(found == seen[0] for found in seen[1:])
    # Both imports resolve: the loop calls a compiled step and tests its device result.
    assert sum("JAX201" in line for line in seen[0]) == 2


def test_the_project_root_is_the_nearest_marked_folder(tmp_path):
    repo = _checkout(tmp_path, "setup.py")
    assert project_root_of(repo / "scripts" / "runs" / "parent.py") == repo
    _write(repo / "scripts" / "pyproject.toml", "")
    assert project_root_of(repo / "scripts" / "shared.py") == repo / "scripts"
