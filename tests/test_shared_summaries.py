"""Summaries shared between the worker processes of a run (semantic/shared_summaries.py): a process
reads what another one built instead of parsing the module again, and never a stale entry."""

from __future__ import annotations

import os

import pytest

from jaxlint.semantic import project, shared_summaries

MODULE = '''
import jax

@jax.jit
def step(state, batch):
    return state
'''


@pytest.fixture
def shared(tmp_path, monkeypatch):
    """A shared directory, and a fresh in-process memo standing for each 'process'."""
    directory = tmp_path / "shared"
    directory.mkdir()
    monkeypatch.setattr(project, "_summaries", {})
    shared_summaries.use_directory(str(directory))
    yield directory
    shared_summaries.use_directory(None)


def _forget_memo(monkeypatch):
    """What another worker process starts with: nothing memoised in memory."""
    monkeypatch.setattr(project, "_summaries", {})


def test_a_summary_built_by_one_process_is_read_by_another(shared, tmp_path, monkeypatch):
    module = tmp_path / "steps.py"
    module.write_text(MODULE)
    built = project.summarise_file(module)
    assert built is not None and built.functions["step"].transform == "jax.jit"
    assert len(os.listdir(shared)) == 1

    _forget_memo(monkeypatch)
    monkeypatch.setattr(project, "summarise_module", lambda *arguments: pytest.fail("parsed again"))
    read = project.summarise_file(module)
    assert read == built and read is not built


def test_an_unsummarisable_file_is_shared_as_none(shared, tmp_path, monkeypatch):
    broken = tmp_path / "broken.py"
    broken.write_text("def (:\n")
    assert project.summarise_file(broken) is None
    _forget_memo(monkeypatch)
    monkeypatch.setattr(project.ast, "parse", lambda *arguments, **options: pytest.fail("parsed again"))
    assert project.summarise_file(broken) is None


def test_an_edited_file_is_summarised_afresh(shared, tmp_path, monkeypatch):
    module = tmp_path / "steps.py"
    module.write_text(MODULE)
    assert "step" in project.summarise_file(module).functions
    module.write_text(MODULE.replace("def step", "def other_step"))
    os.utime(module, ns=(1, 1))  # a different modification time even on a coarse clock

    _forget_memo(monkeypatch)
    summary = project.summarise_file(module)
    assert "other_step" in summary.functions and "step" not in summary.functions


def test_a_damaged_entry_is_ignored(shared, tmp_path, monkeypatch):
    module = tmp_path / "steps.py"
    module.write_text(MODULE)
    built = project.summarise_file(module)
    for entry in shared.iterdir():
        entry.write_bytes(b"not a pickle")
    _forget_memo(monkeypatch)
    assert project.summarise_file(module) == built


def test_without_a_directory_nothing_is_written(tmp_path, monkeypatch):
    monkeypatch.setattr(project, "_summaries", {})
    shared_summaries.use_directory(None)
    module = tmp_path / "steps.py"
    module.write_text(MODULE)
    assert project.summarise_file(module) is not None
    assert sorted(path.name for path in tmp_path.iterdir()) == ["steps.py"]


def test_a_pool_run_leaves_no_shared_directory_behind(tmp_path, monkeypatch):
    from jaxlint.config import Settings
    from jaxlint.rules import ALL_RULES
    from jaxlint.runner import PARALLEL_THRESHOLD, lint_files

    monkeypatch.setenv("TMPDIR", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", None)
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "steps.py").write_text(MODULE)
    files = [package / "steps.py"]
    for index in range(PARALLEL_THRESHOLD):
        user = package / f"user_{index}.py"
        user.write_text("import jax\nfrom pkg.steps import step\n\ndef run(state, batches):\n    for batch in batches:\n        state = step(state, batch)\n    return state\n")
        files.append(user)
    results = lint_files(files, Settings(root=tmp_path), ALL_RULES, jobs=2)
    assert all(not result.errors for result in results)
    assert os.listdir(tmp_path / "tmp") == []



def test_a_run_lints_modules_parsed_for_summaries_as_a_lone_process_does(tmp_path, monkeypatch):
    """The imported module is the smallest file, so the last handed out: the process that summarises
    it for its importers claims it and lints it from that parse (runner._ParsedAhead)."""
    from jaxlint.config import Settings
    from jaxlint.rules import ALL_RULES
    from jaxlint.runner import PARALLEL_THRESHOLD, lint_files

    monkeypatch.setattr(project, "_summaries", {})
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    steps = package / "steps.py"
    steps.write_text("import jax\n@jax.jit\ndef step(s, b):\n    return s\ndef f(k):\n    return jax.random.normal(k), jax.random.normal(k)\n")
    files = [steps]
    for index in range(PARALLEL_THRESHOLD):
        user = package / f"user_{index}.py"
        user.write_text("import jax\nfrom pkg.steps import step\n\ndef run(state, batches):\n    for batch in batches:\n        state = step(state, batch)\n    return state\n" + "# padding\n" * 20)
        files.append(user)
    alone = lint_files(files, Settings(root=tmp_path), ALL_RULES, jobs=1)
    monkeypatch.setattr(project, "_summaries", {})
    together = lint_files(files, Settings(root=tmp_path), ALL_RULES, jobs=2)
    assert [result.diagnostics for result in together] == [result.diagnostics for result in alone]
    assert alone[0].diagnostics  # the module itself has a finding (JAX501)


def test_a_file_parsed_ahead_is_linted_from_that_parse_only_while_its_text_is_the_same(tmp_path):
    import ast

    from jaxlint.config import Settings
    from jaxlint.rules import ALL_RULES
    from jaxlint.runner import lint_file

    module = tmp_path / "steps.py"
    text = "import jax\ndef f(k):\n    return jax.random.normal(k), jax.random.normal(k)\n"
    module.write_text(text)
    plain = lint_file(module, Settings(root=tmp_path), ALL_RULES)
    assert plain.diagnostics
    assert lint_file(module, Settings(root=tmp_path), ALL_RULES, parsed=(text, ast.parse(text))).diagnostics == plain.diagnostics
    # A parse of other text (the file changed since, or decodes otherwise) is not used.
    other = "import jax\n"
    assert lint_file(module, Settings(root=tmp_path), ALL_RULES, parsed=(other, ast.parse(other))).diagnostics == plain.diagnostics
