"""The project index: findings that need another module of the project, the files they depend on,
and the results cache noticing when such a file changes."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES
from rule_fixtures import expected_findings
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic.project import ProjectView, absolute_module

PROJECT = FIXTURES / "project"
CODES = ("JAX101", "JAX201", "JAX304", "JAX401")


def _findings(path: Path):
    rules = [RULES_BY_CODE[code] for code in CODES]
    result = check_source(path.read_text(), str(path), Settings(root=PROJECT), rules)
    assert not result.errors, result.errors
    return result


@pytest.mark.parametrize("name", ["train.py", "study.py", "scripts/local_names.py", "scripts/no_jax_spelled.py"])
def test_project_fixture_findings_match_markers(name):
    path = PROJECT / name
    expected = expected_findings(path.read_text())
    found = {(d.location.row, d.code) for d in _findings(path).diagnostics}
    assert found == set(expected), sorted(found ^ set(expected))


def test_findings_record_the_files_they_depend_on():
    result = _findings(PROJECT / "train.py")
    depended = {Path(path).name for path in result.dependencies}
    assert {"__init__.py", "steps.py"} <= depended


def test_a_file_alone_reads_no_other_file():
    result = _findings(PROJECT / "scripts" / "local_names.py")
    assert result.dependencies == {}


def test_reexports_and_star_imports_resolve():
    view = ProjectView(str(PROJECT / "train.py"))
    summary = view.function("trainer.train_step")
    assert summary is not None and summary.transform == "jax.jit" and summary.params == ["state", "batch"]
    bound = view.star_bindings("trainer.steps")
    assert bound["Agent"] == "trainer.steps.Agent"
    assert bound["jnp"] == "jax.numpy"  # a re-exported import keeps what it names
    agent = view.class_("trainer.steps.Agent")
    assert agent is not None and agent.methods["update"].has_self
    assert view.constant("trainer.steps.NUM_STEPS") == 1500
    assert view.class_("trainer.steps.Config").field_defaults == {"steps": 1200, "layers": 2}
    assert view.function("trainer.steps.make_counts").returns_device


def test_relative_imports_resolve_from_the_package():
    import ast

    node = ast.parse("from ..steps import f").body[0]
    assert absolute_module(node, "pkg.sub") == "pkg.steps"
    assert absolute_module(ast.parse("from . import f").body[0], "pkg") == "pkg"
    assert absolute_module(ast.parse("from ... import f").body[0], "pkg") is None


def test_cache_notices_a_changed_dependency(tmp_path, monkeypatch):
    from jaxlint.cache import ResultCache
    from jaxlint.runner import lint_files

    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    settings = Settings(root=project)
    rules = [RULES_BY_CODE["JAX401"]]
    cache = ResultCache(tmp_path / "cache", settings, ["JAX401"])
    script = project / "train.py"
    first = lint_files([script], settings, rules, jobs=1, cache=cache)[0]
    assert len(first.diagnostics) == 2
    again = lint_files([script], settings, rules, jobs=1, cache=cache)[0]
    assert cache.hits == 1 and len(again.diagnostics) == 2
    steps = project / "trainer" / "steps.py"
    steps.write_text(steps.read_text().replace("@jax.jit\ndef train_step", "@partial(jax.jit, donate_argnums=(0,))\ndef train_step"))
    changed = lint_files([script], settings, rules, jobs=1, cache=cache)[0]
    assert cache.hits == 1, "a changed dependency must not be served from the cache"
    assert len(changed.diagnostics) == 1  # train_step now donates; only agent.update is left


def test_one_file_on_the_command_line_resolves_its_imports(tmp_path, monkeypatch):
    """Pre-commit passes single files: their imports still resolve from the project."""
    import json
    import subprocess
    import sys

    project = tmp_path / "project"
    shutil.copytree(PROJECT, project)
    (project / "pyproject.toml").write_text("[tool.jaxlint]\n")
    run = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--format", "json", "--no-cache", "--select", "JAX401,JAX304", "train.py"],
        cwd=project, capture_output=True, text=True,
    )
    assert run.returncode == 1, run.stderr
    found = sorted((d["code"], d["location"]["row"]) for d in json.loads(run.stdout))
    assert found == [("JAX304", 24), ("JAX304", 36), ("JAX401", 15), ("JAX401", 16)]


def test_x64_switched_on_by_an_imported_project_package_silences_jax504(tmp_path):
    import json
    import subprocess
    import sys

    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    package = tmp_path / "solver"
    package.mkdir()
    (package / "__init__.py").write_text('import jax\n\njax.config.update("jax_enable_x64", True)\n')
    script = 'import jax.numpy as jnp\n{imports}\n\nif __name__ == "__main__":\n    x = jnp.zeros(3, dtype=jnp.float64)\n'
    (tmp_path / "with_package.py").write_text(script.format(imports="import solver"))
    (tmp_path / "alone.py").write_text(script.format(imports=""))
    run = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--format", "json", "--no-cache", "--select", "JAX504", "with_package.py", "alone.py"],
        cwd=tmp_path, capture_output=True, text=True,
    )
    found = sorted((d["filename"].rsplit("/", 1)[-1], d["code"]) for d in json.loads(run.stdout))
    # The package's import may switch x64 on; the script that imports nothing of its project cannot.
    assert found == [("alone.py", "JAX504")], run.stderr


@pytest.mark.parametrize(
    "packaging_file, declaration",
    [
        ("pyproject.toml", '[tool.setuptools]\npackage-dir = {"" = "python"}\n'),
        ("pyproject.toml", '[tool.setuptools.packages.find]\nwhere = ["python"]\n'),
        ("pyproject.toml", '[tool.poetry]\npackages = [{include = "solver", from = "python"}]\n'),
        ("pyproject.toml", '[tool.hatch.build.targets.wheel]\npackages = ["python/solver"]\n'),
        ("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["python"]\n'),
        ("setup.cfg", "[options]\npackage_dir =\n    =python\n"),
        ("setup.cfg", "[options.packages.find]\nwhere = python\n"),
    ],
)
def test_packages_under_a_declared_source_folder_are_project_imports(tmp_path, packaging_file, declaration):
    """A package installed from `python/` (not `src/`): its tests import it by name, and its import
    switches x64 on, so JAX504 stays silent there; a script importing nothing of the project is flagged."""
    import json
    import subprocess
    import sys

    (tmp_path / packaging_file).write_text(declaration)
    package = tmp_path / "python" / "solver"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text('import jax\n\njax.config.update("jax_enable_x64", True)\n')
    tests = tmp_path / "python" / "tests" / "functional"
    tests.mkdir(parents=True)
    script = 'import jax.numpy as jnp\n{imports}\n\nif __name__ == "__main__":\n    x = jnp.zeros(3, dtype=jnp.float64)\n'
    (tests / "check_solver.py").write_text(script.format(imports="import solver"))
    (tests / "alone.py").write_text(script.format(imports=""))
    run = subprocess.run(
        [sys.executable, "-m", "jaxlint", "check", "--format", "json", "--no-cache", "--select", "JAX504", "python/tests"],
        cwd=tmp_path, capture_output=True, text=True,
    )
    found = sorted((d["filename"].rsplit("/", 1)[-1], d["code"]) for d in json.loads(run.stdout))
    assert found == [("alone.py", "JAX504")], run.stderr


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_a_reexport_by_assignment_resolves_to_its_class(tmp_path):
    """`Tower = towers.Tower` in a package's `__init__.py` re-exports the class: its bases (a Flax
    module, whose `init` derives keys by name) reach the caller, so JAX501 leaves `init(rng)` then
    `split(rng)` alone there as it does for a class imported directly. A name bound to a computed value
    is no re-export; two draws from one key are still reported."""
    _write(tmp_path, {
        "pyproject.toml": "[tool.jaxlint]\n",
        "models/__init__.py": "from models import towers\nfrom models import layers as layer_lib\n"
                              "Tower = towers.Tower\nmake_tower = towers.make_tower\nWidth = layer_lib.WIDTH + 1\n",
        "models/towers.py": "import flax.linen as nn\n\n\nclass Tower(nn.Module):\n    @nn.compact\n"
                            "    def __call__(self, x):\n        return nn.Dense(4)(x)\n\n\n"
                            "def make_tower():\n    return Tower()\n",
        "models/layers.py": "WIDTH = 3\n",
        "train.py": "import jax\nimport models\n\n\ndef setup(seed, x):\n    rng = jax.random.PRNGKey(seed)\n"
                    "    params = models.Tower().init(rng, x)\n    rng, sub = jax.random.split(rng)\n"
                    "    return params, jax.random.normal(sub, x.shape)\n\n\n"
                    "def twice(rng, x):\n    a = jax.random.normal(rng, x.shape)\n    b = jax.random.normal(rng, x.shape)\n"
                    "    return models.Tower().init(rng, x), a, b\n",
    })
    view = ProjectView(str(tmp_path / "train.py"))
    tower = view.class_("models.Tower")
    assert tower is not None and tower.bases
    assert view.class_("models.Width") is None and view.function("models.Width") is None
    path = tmp_path / "train.py"
    result = check_source(path.read_text(), str(path), Settings(root=tmp_path), [RULES_BY_CODE["JAX501"]])
    assert not result.errors, result.errors
    assert [d.location.row for d in result.diagnostics] == [14]


def test_a_stored_key_drawn_through_a_local_name_or_a_method_repeats_in_another_modules_loop(tmp_path):
    """`act` of another module's class draws from `self.key` (bound once in `__init__`) through a local
    name or by handing it to a method that draws from it: every iteration of the caller's loop draws
    the same numbers. A class whose method advances the key is a look-alike."""
    _write(tmp_path, {
        "pyproject.toml": "[tool.jaxlint]\n",
        "agents.py": "import jax\n\n\nclass Aliased:\n    def __init__(self, seed):\n        self.key = jax.random.PRNGKey(seed)\n\n"
                     "    def act(self, logits):\n        key = self.key\n        return jax.random.categorical(key, logits)\n\n\n"
                     "class HandsOn:\n    def __init__(self, seed):\n        self.rng = jax.random.PRNGKey(seed)\n\n"
                     "    def act(self, logits):\n        return self._sample(self.rng, logits)\n\n"
                     "    def _sample(self, rng, logits):\n        return jax.random.categorical(rng, logits)\n\n\n"
                     "class Advances:\n    def __init__(self, seed):\n        self.rng = jax.random.PRNGKey(seed)\n\n"
                     "    def act(self, logits):\n        self.rng, key = jax.random.split(self.rng)\n        return self._sample(key, logits)\n\n"
                     "    def _sample(self, rng, logits):\n        return jax.random.categorical(rng, logits)\n",
        "train.py": "from agents import Advances, Aliased, HandsOn\n\n\ndef run(env, steps):\n"
                    "    first = Aliased(0)\n    second = HandsOn(1)\n    third = Advances(2)\n    for _ in range(steps):\n"
                    "        logits = env.logits()\n        env.step(first.act(logits))\n        env.step(second.act(logits))\n"
                    "        env.step(third.act(logits))\n",
    })
    path = tmp_path / "train.py"
    result = check_source(path.read_text(), str(path), Settings(root=tmp_path), [RULES_BY_CODE["JAX501"]])
    assert not result.errors, result.errors
    assert sorted(d.location.row for d in result.diagnostics) == [10, 11]


def test_namespace_package_reexports_resolve_under_the_imported_name(tmp_path):
    """A package inside a directory without `__init__.py` (a namespace package, installed by setup.py):
    its relative re-exports are read as `agents.models.Hopper` from its own files, yet the program
    imports it as `lab.agents`. The index follows them under the name it was found by, so a class
    picked from the package's registry is known (JAX401 on the carried agent)."""
    package = tmp_path / "lab" / "agents"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(
        "from .models import Hopper, Skater\n\nREGISTRY = {'hopper': Hopper, 'skater': Skater}\n"
    )
    (package / "models.py").write_text(
        "import flax\nimport jax\n\n\n"
        "class Hopper(flax.struct.PyTreeNode):\n    weights: jax.Array\n\n"
        "    @jax.jit\n    def update(self, batch):\n        return self.replace(weights=self.weights - batch), {}\n\n\n"
        "class Skater(flax.struct.PyTreeNode):\n    weights: jax.Array\n\n"
        "    @jax.jit\n    def update(self, batch):\n        return self.replace(weights=self.weights * batch), {}\n"
    )
    script = tmp_path / "train.py"
    script.write_text(
        "from lab.agents import REGISTRY\n\n\n"
        "def main(name, weights, batches):\n"
        "    agent = REGISTRY[name](weights=weights)\n"
        "    for batch in batches:\n"
        "        agent, info = agent.update(batch)\n"
        "    return agent\n"
    )
    assert not (tmp_path / "lab" / "__init__.py").exists()
    result = check_source(script.read_text(), str(script), Settings(root=tmp_path), [RULES_BY_CODE["JAX401"]])
    assert [(d.location.row, d.code) for d in result.diagnostics] == [(7, "JAX401")]
    assert "REGISTRY[...].update" in result.diagnostics[0].message
    view = ProjectView(str(script), tmp_path)
    assert view.registry("lab.agents.REGISTRY") == ("lab.agents.models.Hopper", "lab.agents.models.Skater")
