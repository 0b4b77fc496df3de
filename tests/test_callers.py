"""Parameters traced because another module's traced code passes them traced values
(semantic/callers.py): the fixture project fixtures/callers, the files a module's findings then
depend on, and the results cache noticing when an importer changes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from rule_fixtures import expected_findings
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

PROJECT = FIXTURES / "callers"
CODES = ("JAX101", "JAX102", "JAX103", "JAX108")


def _findings(path: Path, root: Path = PROJECT):
    rules = [RULES_BY_CODE[code] for code in CODES]
    result = check_source(path.read_text(), str(path), Settings(root=root, cross_module_callers=True), rules)
    assert not result.errors, result.errors
    return result


@pytest.mark.parametrize("name", ["models/layers.py", "models/ops.py", "train.py"])
def test_callers_fixture_findings_match_markers(name):
    path = PROJECT / name
    expected = expected_findings(path.read_text())
    found = {(d.location.row, d.code) for d in _findings(path).diagnostics}
    assert found == set(expected), sorted(found ^ set(expected))


def test_a_module_depends_on_its_importers():
    result = _findings(PROJECT / "models" / "layers.py")
    assert str(PROJECT / "train.py") in result.dependencies


def test_callers_are_found_from_the_file_not_the_configured_root(tmp_path):
    """Pre-commit checks one file with the root wherever the configuration is."""
    result = _findings(PROJECT / "models" / "layers.py", root=tmp_path)
    assert {d.location.row for d in result.diagnostics} == {8, 14, 18, 22}


def test_an_importer_model_does_not_look_for_its_own_callers(tmp_path):
    """Three modules in a chain: c.g is called by b.f, which only a.py traces. Only one level of
    callers counts, whatever order the files are analysed in."""
    (tmp_path / "a.py").write_text("import jax\nimport b\n\n@jax.jit\ndef step(x):\n    return b.f(x)\n")
    (tmp_path / "b.py").write_text("import jax.numpy as jnp\nimport c\n\ndef f(x):\n    if x > 0:\n        return c.g(x)\n    return x\n")
    (tmp_path / "c.py").write_text("import jax.numpy as jnp\n\ndef g(y):\n    if y > 0:\n        return y\n    return -y\n")
    for order in (("a.py", "b.py", "c.py"), ("c.py", "b.py", "a.py")):
        from jaxlint.semantic import callers

        callers._calls.clear()
        callers._indexes.clear()
        found = {name: [d.location.row for d in _findings(tmp_path / name, tmp_path).diagnostics] for name in order}
        assert found == {"a.py": [], "b.py": [5], "c.py": []}


def test_cache_misses_when_an_importer_changes(tmp_path):
    from jaxlint.cache import ResultCache
    from jaxlint.runner import lint_files

    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    settings = Settings(root=project, cross_module_callers=True)
    rules = [RULES_BY_CODE["JAX101"]]
    cache = ResultCache(tmp_path / "cache", settings, ["JAX101"])
    layers = project / "models" / "layers.py"
    first = lint_files([layers], settings, rules, jobs=1, cache=cache)[0]
    assert {d.location.row for d in first.diagnostics} == {8, 22}
    again = lint_files([layers], settings, rules, jobs=1, cache=cache)[0]
    assert cache.hits == 1 and len(again.diagnostics) == 2
    train = project / "train.py"
    train.write_text(train.read_text().replace("    a = layers.act(h)\n", "    a = h\n").replace("layers.act(carry)", "carry"))
    changed = lint_files([layers], settings, rules, jobs=1, cache=cache)[0]
    assert cache.hits == 1, "a changed importer must not be served from the cache"
    assert {d.location.row for d in changed.diagnostics} == {22}


def test_off_unless_configured():
    path = PROJECT / "models" / "layers.py"
    rules = [RULES_BY_CODE[code] for code in CODES]
    result = check_source(path.read_text(), str(path), Settings(root=PROJECT), rules)
    assert result.diagnostics == [] and result.dependencies == {}


def test_tests_are_not_callers(tmp_path):
    (tmp_path / "lib.py").write_text("import jax.numpy as jnp\n\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "lib_check.py").write_text("import jax\nimport lib\n\n@jax.jit\ndef step(x):\n    return lib.f(x)\n")
    (tmp_path / "test_lib.py").write_text("import jax\nimport lib\n\n@jax.jit\ndef step(x):\n    return lib.f(x)\n")
    assert _findings(tmp_path / "lib.py", tmp_path).diagnostics == []


def test_configuration_key():
    from jaxlint.config import load_settings

    def settings_for(text, directory):
        (directory / "pyproject.toml").write_text(text)
        return load_settings(directory)

    import tempfile

    with tempfile.TemporaryDirectory() as name:
        directory = Path(name)
        assert settings_for("[tool.jaxlint]\ncross-module-callers = true\n", directory).cross_module_callers
        assert not settings_for("[tool.jaxlint]\n", directory).cross_module_callers
        from jaxlint.config import ConfigError

        with pytest.raises(ConfigError):
            settings_for("[tool.jaxlint]\ncross-module-callers = 1\n", directory)


def test_one_file_on_the_command_line_sees_callers_in_other_files(tmp_path):
    """Pre-commit passes single files: callers in the rest of the project still count."""
    import json
    import subprocess
    import sys

    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    (project / "pyproject.toml").write_text("[tool.jaxlint]\ncross-module-callers = true\n")
    run = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--format", "json", "--no-cache", "--select", "JAX101", "models/layers.py"],
        cwd=project, capture_output=True, text=True,
    )
    assert run.returncode == 1, run.stderr
    assert sorted(d["location"]["row"] for d in json.loads(run.stdout)) == [8, 22]
