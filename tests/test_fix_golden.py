"""Golden pairs under fixtures/fixes/<CODE>/: NAME.in.py fixed must equal NAME.out.py, the output
must parse and be a fixed point, and where a NAME.check.py exists (required whenever the fix changes
the code) its `check(original, fixed)` runs both modules with JAX on the CPU and compares values.

A first line containing `fix: safe-only` runs without --unsafe-fixes; one containing
`target-jax-version=X` runs with that setting (the forms a fix writes follow it).
"""

from __future__ import annotations

import ast
import importlib.util
import itertools
import re
from pathlib import Path

import pytest

from conftest import FIXTURES
from jaxlint.config import Settings
from jaxlint.fixer import fix_source
from jaxlint.rules import RULES_BY_CODE

PAIRS = sorted((FIXTURES / "fixes").glob("*/*.in.py"))
_counter = itertools.count()


def _run_fix(path: Path, text: str) -> str:
    code = path.parent.name
    first_line = text.split("\n", 1)[0]
    unsafe = "fix: safe-only" not in first_line
    target = re.search(r"target-jax-version=([\d.]+)", first_line)
    settings = Settings(target_jax_version=target.group(1) if target else None)
    outcome = fix_source(text, path.name, settings, [RULES_BY_CODE[code]], unsafe=unsafe)
    assert not outcome.reverted, outcome.reverted
    return outcome.text


def _load(path: Path, label: str):
    name = f"jaxlint_golden_{label}_{next(_counter)}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("path", PAIRS, ids=lambda p: f"{p.parent.name}/{p.name[:-6]}")
def test_fix_matches_golden_output(path: Path):
    expected_path = path.with_name(path.name[: -len(".in.py")] + ".out.py")
    assert expected_path.exists(), f"missing {expected_path.name}"
    fixed = _run_fix(path, path.read_text(encoding="utf-8"))
    assert fixed == expected_path.read_text(encoding="utf-8")
    ast.parse(fixed)
    assert _run_fix(path, fixed) == fixed, "fix is not idempotent"


@pytest.mark.parametrize("path", PAIRS, ids=lambda p: f"{p.parent.name}/{p.name[:-6]}")
def test_fixed_code_computes_the_same_values(path: Path, tmp_path: Path):
    stem = path.name[: -len(".in.py")]
    expected_path = path.with_name(stem + ".out.py")
    check_path = path.with_name(stem + ".check.py")
    if expected_path.read_text() == path.read_text():
        pytest.skip("refusal case: the fix leaves the code unchanged")
    assert check_path.exists(), f"{stem}: a fix that changes code needs {check_path.name}"
    original = _load(path, "in")
    fixed = _load(expected_path, "out")
    checker = _load(check_path, "check")
    checker.check(original, fixed)


def test_every_fix_code_has_a_compile_count_check():
    """Each code whose fix changes code proves, in some check, that the fixed code compiles once
    over several calls with the same shapes (tests/compile_count.py)."""
    missing = []
    for directory in sorted({path.parent for path in PAIRS}):
        changing = [p for p in directory.glob("*.in.py") if p.read_text() != p.with_name(p.name[: -len(".in.py")] + ".out.py").read_text()]
        if not changing:
            continue
        checks = [p.read_text() for p in directory.glob("*.check.py")]
        if not any("compiles_over(" in text or "compiles_after_warmup(" in text for text in checks):
            missing.append(directory.name)
    assert not missing, f"fix codes without a compile-count check: {missing}"
