"""The speed benchmark's rounds of the goal's commands (benchmarks/speed.py), on trivial commands."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

SPEED = Path(__file__).resolve().parent.parent / "benchmarks" / "speed.py"


def _speed_module():
    spec = importlib.util.spec_from_file_location("speed_benchmark", SPEED)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_in_turn_runs_the_commands_round_by_round(tmp_path):
    speed = _speed_module()
    log = tmp_path / "order.txt"
    # Each command appends its letter when it runs: the order shows the rounds.
    quick = [sys.executable, "-c", f"open({str(log)!r}, 'a').write('a')"]
    slow = [sys.executable, "-c", f"import time; time.sleep(0.5); open({str(log)!r}, 'a').write('b')"]
    quick_runs, slow_runs = speed.in_turn([(quick, None), (slow, None)], 3)
    assert log.read_text() == "ababab"
    assert len(quick_runs) == len(slow_runs) == 3
    # The slow command sleeps half a second more than the quick one runs in all, in every round.
    assert all(q[0] < s[0] for q, s in zip(quick_runs, slow_runs))
    median, spread, _ = speed.summary(slow_runs)
    assert median >= 0.5
    assert spread == max(run[0] for run in slow_runs) - min(run[0] for run in slow_runs)


def test_export_revision_runs_that_revision_even_from_this_checkout(tmp_path):
    speed = _speed_module()
    folder = speed.export_revision("HEAD", tmp_path / "base")
    exported = folder / "jaxlint" / "__init__.py"
    assert exported.is_file()
    command = speed.revision_command(folder)
    # The launcher runs `python -m jaxlint` from the export; ask it which package answered.
    probe = [command[0], "-c", command[2].replace("runpy.run_module('jaxlint', run_name='__main__')", "import jaxlint; sys.stdout.write(jaxlint.__file__)")]
    result = subprocess.run(probe, cwd=SPEED.parent.parent, capture_output=True, text=True, check=True)
    assert result.stdout == str(exported)
    version = subprocess.run([*command, "--version"], cwd=SPEED.parent.parent, capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.strip()
