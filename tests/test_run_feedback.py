"""What a run tells the user besides findings: a timing line, a progress bar on a terminal, --profile.

All of it goes to stderr, so the report on stdout (text, JSON, SARIF, GitHub) is byte for byte what
it would be without it.
"""

from __future__ import annotations

import io
import json
import re

import pytest

from jaxlint.cli import run
from jaxlint.cli.progress import progress_bar, run_summary, wants_progress_bar
from jaxlint.profile import profile_table
from jaxlint.rules import ALL_RULES

BAD = "import jax\n\n\n@jax.jit\ndef f(x):\n    if x > 0:\n        return x\n    return -x\n"


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("JAXLINT_CACHE_DIR", raising=False)
    (tmp_path / "pyproject.toml").write_text("[tool.jaxlint]\n")
    (tmp_path / "a.py").write_text(BAD)
    (tmp_path / "b.py").write_text("import jax\n")
    return tmp_path


def test_check_ends_with_a_timing_line_on_stderr_only(project, capsys):
    assert run(["check", "--no-cache", "."]) == 1
    out, err = capsys.readouterr()
    assert re.fullmatch(r"Checked 2 files in \d+\.\d\d s\.\n", err), err
    assert "Checked" not in out and "Found 1 error." in out


@pytest.mark.parametrize("output_format", ["json", "sarif", "github"])
def test_machine_formats_on_stdout_are_untouched(project, capsys, output_format):
    run(["check", "--no-cache", "--format", output_format, "."])
    out, err = capsys.readouterr()
    assert "Checked 2 files" in err and "Checked" not in out
    if output_format != "github":
        json.loads(out)


def test_quiet_prints_no_timing_line_and_the_cache_is_counted(project, capsys):
    run(["check", "-q", "."])
    assert capsys.readouterr().err == ""
    run(["check", "."])
    assert "(2 unchanged, from the cache)" in capsys.readouterr().err


def test_fix_ends_with_a_timing_line(project, capsys):
    assert run(["fix", "--no-cache", "."]) == 1
    out, err = capsys.readouterr()
    assert re.search(r"^Checked 2 files in \d+\.\d\d s\.$", err, re.MULTILINE), err
    assert "Checked" not in out


def test_progress_bar_only_on_a_terminal_and_never_with_quiet():
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    assert wants_progress_bar(False, Terminal())
    assert not wants_progress_bar(True, Terminal())
    assert not wants_progress_bar(False, io.StringIO())


def test_progress_bar_counts_every_file(monkeypatch):
    import rich.progress

    advanced = []
    original = rich.progress.Progress.advance
    monkeypatch.setattr(rich.progress.Progress, "advance", lambda self, task, n=1: advanced.append(n) or original(self, task, n))
    with progress_bar("Checking", True) as start:
        advance = start(3)
        for _ in range(3):
            advance()
    assert advanced == [1, 1, 1]
    with progress_bar("Checking", False) as start:
        assert start is None


def test_run_summary_wording():
    assert run_summary("Checked", 1, 0.5) == "Checked 1 file in 0.50 s."
    assert run_summary("Checked", 1641, 3.25, cached=1600) == "Checked 1,641 files (1,600 unchanged, from the cache) in 3.25 s."


def test_profile_names_every_phase_and_rule_and_marks_hot_rules(project, capsys):
    assert run(["check", "--no-cache", "--profile", "--format", "json", "."]) == 1
    out, err = capsys.readouterr()
    assert len(json.loads(out)) == 1
    for phase in ("read and decode files", "parse (ast)", "semantic model", "total (all processes)"):
        assert phase in err
    enabled = [rule for rule in ALL_RULES if not rule.preview]
    assert all(f"{rule.code} {rule.name}" in err for rule in enabled if rule.node_types)
    assert "2 files analysed, 0 from the cache" in err and "peak memory" in err


def test_profile_table_shares_and_marks():
    table = profile_table({"parse": 1.0, "model": 0.5, "JAX101": 0.4, "JAX102": 0.01}, {"JAX101": "tracer-bool-conversion", "JAX102": "tracer-to-python-scalar"}, wall=1.0, analysed=3, cached=1)
    lines = table.splitlines()
    assert lines[1].startswith("parse (ast)") and "52.4%" in lines[1]
    hot = next(line for line in lines if line.startswith("JAX101"))
    cold = next(line for line in lines if line.startswith("JAX102"))
    assert hot.endswith("<- over 5%") and not cold.endswith("<- over 5%")
    assert "1.910" in next(line for line in lines if line.startswith("total"))


def test_profile_counts_rule_time_in_worker_processes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    for index in range(20):  # above the parallel threshold
        (tmp_path / f"m{index}.py").write_text(BAD)
    assert run(["check", "--no-cache", "--profile", "-j", "2", "."]) == 1
    err = capsys.readouterr().err
    row = next(line for line in err.splitlines() if line.startswith("JAX101 "))
    assert float(row.split()[2]) > 0.0
    assert "20 files analysed" in err


def test_profile_charges_imported_module_summaries_to_their_own_line(project, capsys):
    """Summarising `helpers.py` for the import in `train.py` is not the time of whichever rule asked first."""
    (project / "helpers.py").write_text("import jax\n\n\n@jax.jit\ndef step(state):\n    return state + 1\n")
    (project / "train.py").write_text("from helpers import step\n\nstate = 0\nfor _ in range(3):\n    state = step(state)\n")
    run(["check", "--no-cache", "--profile", "-j", "1", "train.py"])
    _, err = capsys.readouterr()
    line = next((line for line in err.splitlines() if line.startswith("project summaries (imported modules)")), None)
    assert line is not None, err  # (the line is listed only when some time was charged to it)
