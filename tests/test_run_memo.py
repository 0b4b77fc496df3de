"""File-system answers remembered only for the length of a run (semantic/run_memo.py)."""

from __future__ import annotations

from jaxlint.semantic import project, run_memo
from jaxlint.semantic.project import ProjectView


def _package(root):
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "train.py").write_text("from pkg.steps import step\n")
    return package


def test_outside_a_run_every_question_goes_to_the_file_system(tmp_path):
    package = _package(tmp_path)
    view = ProjectView(str(package / "train.py"))
    assert view.module_path("pkg.steps") is None
    (package / "steps.py").write_text("def step(x):\n    return x\n")
    assert ProjectView(str(package / "train.py")).module_path("pkg.steps") == package / "steps.py"


def test_inside_a_run_answers_are_kept_and_forgotten_after_it(tmp_path):
    package = _package(tmp_path)
    with run_memo.remembering():
        assert ProjectView(str(package / "train.py")).module_path("pkg.steps") is None
        (package / "steps.py").write_text("def step(x):\n    return x\n")
        # A second file's view in the same run shares the first one's answer: files do not change during a run.
        assert ProjectView(str(package / "train.py")).module_path("pkg.steps") is None
    assert ProjectView(str(package / "train.py")).module_path("pkg.steps") == package / "steps.py"


def test_a_run_remembers_project_tops(tmp_path):
    package = _package(tmp_path)
    with run_memo.remembering():
        assert not ProjectView(str(package / "train.py")).may_hold("other")
        (tmp_path / "other").mkdir()
        assert not ProjectView(str(package / "train.py")).may_hold("other")
    assert ProjectView(str(package / "train.py")).may_hold("other")


def test_a_run_remembers_packages(tmp_path):
    package = _package(tmp_path)
    with run_memo.remembering():
        assert ProjectView(str(package / "train.py")).module_name == "pkg.train"
        (package / "__init__.py").unlink()
        assert ProjectView(str(package / "train.py")).module_name == "pkg.train"
    assert ProjectView(str(package / "train.py")).module_name == "train"


def test_module_name_hint_matches_the_packages_above(tmp_path):
    inner = tmp_path / "top" / "sub"
    inner.mkdir(parents=True)
    (tmp_path / "top" / "__init__.py").write_text("")
    (inner / "__init__.py").write_text("")
    (inner / "mod.py").write_text("")
    for remembering in (False, True):
        if remembering:
            run_memo.start()
        try:
            assert project.module_name_hint(inner / "mod.py") == "top.sub.mod"
            assert project.module_name_hint(inner / "__init__.py") == "top.sub"
            assert project.module_name_hint(tmp_path / "script.py") == "script"
        finally:
            run_memo._answers = None
