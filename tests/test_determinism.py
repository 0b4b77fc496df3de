"""The report does not depend on Python's hash seed: set and dict orders never reach a message."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(str(path.relative_to(ROOT)) for path in (ROOT / "fixtures" / "rules").glob("*.py"))


def _report(seed: str) -> str:
    environment = dict(os.environ, PYTHONHASHSEED=seed)
    completed = subprocess.run(
        # Files named on the command line are checked although the project's config excludes fixtures/.
        [sys.executable, "-m", "jaxlint", "check", "--no-cache", "--exit-zero", "-q", "--jobs", "1", *FILES],
        cwd=ROOT, env=environment, capture_output=True, text=True, check=True,
    )
    return completed.stdout


def test_findings_and_messages_are_the_same_under_any_hash_seed():
    first, second = _report("1"), _report("2")
    assert first.count("JAX") > 100  # the fixtures do report
    assert first == second
