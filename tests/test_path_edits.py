"""Which project module an import reaches, the way the script runs: the folders a file's own
`sys.path` edits add (semantic/path_edits.py), a namespace folder inside a package, a checkout folder
whose name is no identifier."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from conftest import FIXTURES
from rule_fixtures import check_markers_in_project
from jaxlint.config import Settings
from jaxlint.rules import RULES_BY_CODE
from jaxlint.semantic.path_edits import path_edit_folders
from jaxlint.semantic.project import ProjectView

PATH_EDITS = FIXTURES / "path_edits"
SCRIPTS = [
    "runs/joined_from_file.py",
    "runs/pathlib_parents.py",
    "runs/relative_literal.py",
    "runs/from_environment.py",
    "runs/other_folder.py",
    "runs/no_edit.py",
    "kit/tasks/fit.py",
    "lab-checkout/core/run.py",
]


@pytest.mark.parametrize("name", SCRIPTS)
def test_path_edit_fixture_findings_match_markers(name):
    path = PATH_EDITS / name
    # The script's own folder as the project root: only what the file itself shows reaches modules.
    check_markers_in_project(path, path.parent, ["JAX401"])


def _folders(tmp_path: Path, source: str) -> tuple[list[Path], list[Path]]:
    script = tmp_path / "scripts" / "run.py"
    script.parent.mkdir(exist_ok=True)
    for folder in ("src", "envs", "scripts/helpers"):
        (tmp_path / folder).mkdir(exist_ok=True)
    script.write_text(source)
    front, back = path_edit_folders(ast.parse(source), script)
    return [p.relative_to(tmp_path).as_posix() for p in front], [p.relative_to(tmp_path).as_posix() for p in back]


@pytest.mark.parametrize("source, front, back", [
    ("import sys, os\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))", ["src"], []),
    ("import sys, os\nsys.path.append(os.path.abspath(os.path.join(os.getcwd(), '../envs')))", [], ["envs"]),
    ("import sys\nfrom os.path import dirname, join\nsys.path.append(join(dirname(dirname(__file__)), 'src'))", [], ["src"]),
    ("import sys\nfrom pathlib import Path\nsys.path.insert(0, str(Path(__file__).parent.parent / 'envs'))", ["envs"], []),
    ("import sys\nfrom pathlib import Path\nROOT = Path(__file__).resolve().parents[1]\nsys.path.extend([str(ROOT / 'src'), str(ROOT / 'envs')])", [], ["src", "envs"]),
    ("import sys, os\nsys.path.append(os.path.dirname(__file__) + '/helpers')", [], ["scripts/helpers"]),
    # A later insert(0, ...) is searched first.
    ("import sys\nsys.path.insert(0, '../src')\nsys.path.insert(0, '../envs')", ["envs", "src"], []),
    # An absolute folder of the author's machine whose tail (two parts or more) names a folder here.
    ("import sys\nsys.path.append('/home/someone/work/checkout/scripts/helpers/')", [], ["scripts/helpers"]),
    ("import sys\nsys.path.insert(0, '/data/user/project/scripts/helpers')", ["scripts/helpers"], []),
    ("import sys\nfrom pathlib import Path\nsys.path.append(str(Path('/mnt/share/copy/scripts/helpers')))", [], ["scripts/helpers"]),
])
def test_path_edits_evaluate_to_project_folders(tmp_path, source, front, back):
    assert _folders(tmp_path, source) == (front, back)


@pytest.mark.parametrize("source", [
    "import sys, os\nsys.path.append(os.environ['HOME_OF_ENVS'])",  # the environment, not the source
    "import sys\nsys.path.append('/opt/envs')",  # a folder of one machine
    "import sys\nsys.path.append('/home/someone/project/src')",  # only one part of its tail is here
    "import sys\nsys.path.append('/home/someone/project/other/helpers')",  # its tail is not here
    "import sys\nsys.path.append('~/checkout/scripts/helpers')",  # a home folder
    "import sys\nsys.path.append('../missing')",  # no such folder
    "import sys\nROOT = '../src'\nROOT = '../envs'\nsys.path.append(ROOT)",  # a name bound twice
    "import sys, argparse\nsys.path.append(argparse.ArgumentParser().parse_args().root)",
    "import os\npaths = []\npaths.append(os.path.join(os.path.dirname(__file__), '..', 'src'))",  # not sys.path
])
def test_path_edits_the_source_cannot_show_add_nothing(tmp_path, source):
    assert _folders(tmp_path, source) == ([], [])


def test_an_edited_folder_is_searched_in_pythons_order(tmp_path):
    (tmp_path / "envs").mkdir()
    (tmp_path / "envs" / "world.py").write_text("def step(x):\n    return x\n")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "world.py").write_text("def other(x):\n    return x\n")
    script = tmp_path / "scripts" / "run.py"
    inserted = "import sys\nsys.path.insert(0, '../envs')\nfrom world import step\n"
    appended = "import sys\nsys.path.append('../envs')\nfrom world import step\n"
    # insert(0, ...) comes before the script's own folder; append after it.
    assert ProjectView(str(script), tree=ast.parse(inserted)).module_path("world") == tmp_path / "envs" / "world.py"
    assert ProjectView(str(script), tree=ast.parse(appended)).module_path("world") == tmp_path / "scripts" / "world.py"
    assert ProjectView(str(script)).module_path("world") == tmp_path / "scripts" / "world.py"


def test_an_absolute_folder_of_the_authors_machine_reaches_the_module_its_tail_names(tmp_path):
    (tmp_path / "models" / "conv").mkdir(parents=True)
    (tmp_path / "models" / "conv" / "net.py").write_text("def forward(x):\n    return x\n")
    (tmp_path / "runs").mkdir()
    script = tmp_path / "runs" / "train.py"
    source = "import sys\nsys.path.append('/workspace/someone/repo/models/conv/')\nfrom net import forward\n"
    assert ProjectView(str(script), tree=ast.parse(source)).module_path("net") == tmp_path / "models" / "conv" / "net.py"
    # Within the project root when it is known: a tail outside it is not looked for.
    assert ProjectView(str(script), root=tmp_path / "runs", tree=ast.parse(source)).module_path("net") is None


def test_a_namespace_folder_inside_a_package_and_a_checkout_named_otherwise_set_the_module_name():
    assert ProjectView(str(PATH_EDITS / "kit" / "tasks" / "fit.py")).module_name == "kit.tasks.fit"
    assert ProjectView(str(PATH_EDITS / "lab-checkout" / "core" / "run.py")).module_name == "core.run"
    # A script folder with no package around it stays a folder of scripts.
    assert ProjectView(str(PATH_EDITS / "runs" / "no_edit.py")).module_name == "no_edit"


def test_a_notebook_reaches_the_folder_its_edit_names_from_its_own_folder():
    from jaxlint.notebook import lint_notebook

    path = PATH_EDITS / "notebooks" / "fit.ipynb"
    result = lint_notebook(path.read_text(), str(path), Settings(root=path.parent), [RULES_BY_CODE["JAX401"]])
    assert [(d.cell, d.location.row, d.code) for d in result.diagnostics] == [(3, 3, "JAX401")]
