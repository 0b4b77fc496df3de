"""`jaxlint fix` end to end: what it writes, what it leaves alone, what it prints, its exit codes."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path


from conftest import ROOT

# One safe fix (JAX301 list literal) and one unsafe fix (JAX101 ternary) in one file.
MIXED = '''import jax
import jax.numpy as jnp
from functools import partial


@partial(jax.jit, static_argnames=("axes",))
def total(x, axes):
  # two-space indentation, kept
  return x.sum(axis=axes) if x.sum() > 0 else -x.sum(axis=axes)


def run(x):
    return total(x, axes=[0])  # a comment the fix must keep
'''
CLEAN = "import jax\n\n\ndef f(x):\n    return x + 1\n"


def jaxlint(*args: str, stdin: bytes | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "JAX_PLATFORMS": "cpu"}
    return subprocess.run(
        [sys.executable, "-m", "jaxlint", *args], input=stdin, capture_output=True, cwd=cwd, env=env, timeout=300
    )


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_safe_fixes_only_by_default(tmp_path: Path):
    path = write(tmp_path / "mixed.py", MIXED)
    result = jaxlint("fix", str(path))
    text = path.read_text()
    assert "total(x, axes=(0,))  # a comment the fix must keep" in text
    assert " if x.sum() > 0 else " in text  # the unsafe ternary fix was not applied
    assert result.returncode == 1  # a finding remains
    out = result.stdout.decode()
    assert "Fixed 1 error (1 remaining)." in out
    assert f"{path}:9:10: JAX101" in out


def test_unsafe_fixes_fix_everything_and_exit_zero(tmp_path: Path):
    path = write(tmp_path / "mixed.py", MIXED)
    result = jaxlint("fix", "--unsafe-fixes", str(path))
    assert result.returncode == 0, result.stdout + result.stderr
    text = path.read_text()
    assert "  # two-space indentation, kept\n  return jnp.where(x.sum() > 0, x.sum(axis=axes), -x.sum(axis=axes))\n" in text
    assert "Fixed 2 errors (0 remaining)." in result.stdout.decode()
    compile(text, str(path), "exec")
    # A second run has nothing left to do and does not rewrite the file.
    before = path.stat().st_mtime_ns
    again = jaxlint("fix", "--unsafe-fixes", str(path))
    assert again.returncode == 0
    assert path.read_text() == text
    assert path.stat().st_mtime_ns == before


def test_diff_writes_nothing_and_exits_one(tmp_path: Path):
    path = write(tmp_path / "mixed.py", MIXED)
    before = (path.read_bytes(), path.stat().st_mtime_ns)
    result = jaxlint("fix", "--diff", str(path))
    assert (path.read_bytes(), path.stat().st_mtime_ns) == before
    assert result.returncode == 1
    diff = result.stdout.decode()
    assert "-    return total(x, axes=[0])  # a comment the fix must keep" in diff
    assert "+    return total(x, axes=(0,))  # a comment the fix must keep" in diff
    assert diff.startswith("--- ")
    clean = write(tmp_path / "clean.py", CLEAN)
    nothing = jaxlint("fix", "--diff", str(clean))
    assert nothing.returncode == 0
    assert nothing.stdout == b""


def test_file_with_nothing_to_fix_is_not_touched(tmp_path: Path):
    clean = write(tmp_path / "clean.py", CLEAN)
    unfixable = write(tmp_path / "unfixable.py", "import jax\n\n\n@jax.jit\ndef f(x):\n    assert x.sum() > 0\n    return x\n")
    for path in (clean, unfixable):
        os.utime(path, ns=(1_000_000_000, 1_000_000_000))
    result = jaxlint("fix", "--unsafe-fixes", str(tmp_path))
    assert result.returncode == 1  # the assert finding has no fix and remains
    for path in (clean, unfixable):
        assert path.stat().st_mtime_ns == 1_000_000_000
    assert "No errors fixed (1 remaining)." in result.stdout.decode()


def test_read_only_file_is_reported_and_the_run_goes_on(tmp_path: Path):
    locked = write(tmp_path / "a_locked.py", MIXED)
    locked.chmod(0o444)
    other = write(tmp_path / "b_other.py", MIXED)
    try:
        result = jaxlint("fix", str(tmp_path))
    finally:
        locked.chmod(0o644)
    assert locked.read_text() == MIXED
    assert "axes=(0,)" in other.read_text()
    errors = [line for line in result.stderr.decode().splitlines() if line]
    assert any(str(locked) in line and "read-only" in line for line in errors), errors
    assert all("Traceback" not in line for line in errors)
    assert result.returncode == 1


def test_encoding_bom_line_endings_and_mode_survive(tmp_path: Path):
    path = tmp_path / "windows.py"
    data = b"\xef\xbb\xbf" + MIXED.replace("\n", "\r\n").encode("utf-8")
    path.write_bytes(data)
    path.chmod(0o640)
    result = jaxlint("fix", str(path))
    assert result.returncode == 1
    fixed = path.read_bytes()
    assert fixed.startswith(b"\xef\xbb\xbf")
    assert b"axes=(0,)" in fixed
    assert fixed.count(b"\n") == fixed.count(b"\r\n")  # no bare LF introduced
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert not [p for p in tmp_path.iterdir() if p.name != "windows.py"]  # no temporary file left behind


def test_latin1_source_keeps_its_encoding(tmp_path: Path):
    path = tmp_path / "latin.py"
    text = "# -*- coding: latin-1 -*-\n# caf\u00e9\n" + MIXED
    path.write_bytes(text.encode("latin-1"))
    jaxlint("fix", str(path))
    fixed = path.read_bytes()
    assert "caf\u00e9".encode("latin-1") in fixed
    assert b"axes=(0,)" in fixed


def test_stdin_writes_fixed_code_to_stdout(tmp_path: Path):
    result = jaxlint("fix", "-", "--stdin-filename", "pkg/mod.py", stdin=MIXED.encode())
    assert result.stdout.decode() == MIXED.replace("axes=[0]", "axes=(0,)")
    report = result.stderr.decode()
    assert "pkg/mod.py:9:10: JAX101" in report
    assert "Fixed 1 error (1 remaining)." in report
    assert result.returncode == 1
    clean = jaxlint("fix", "-", stdin=CLEAN.encode())
    assert clean.stdout.decode() == CLEAN
    assert clean.returncode == 0


def test_exit_non_zero_on_fix(tmp_path: Path):
    path = write(tmp_path / "mixed.py", MIXED)
    assert jaxlint("fix", "--unsafe-fixes", "--exit-non-zero-on-fix", str(path)).returncode == 1
    assert jaxlint("fix", "--unsafe-fixes", "--exit-non-zero-on-fix", str(path)).returncode == 0  # nothing left to fix


def test_select_and_ignore(tmp_path: Path):
    path = write(tmp_path / "mixed.py", MIXED)
    result = jaxlint("fix", "--unsafe-fixes", "--ignore", "JAX301", str(path))
    text = path.read_text()
    assert "axes=[0]" in text and "jnp.where" in text
    assert result.returncode == 0  # the ignored finding does not count
    path = write(tmp_path / "mixed.py", MIXED)
    jaxlint("fix", "--unsafe-fixes", "--select", "JAX301", str(path))
    text = path.read_text()
    assert "axes=(0,)" in text and "jnp.where" not in text
    assert jaxlint("fix", "--select", "JAX999", str(path)).returncode == 2


def test_many_files_are_fixed_in_parallel(tmp_path: Path):
    paths = [write(tmp_path / f"m{index:02d}.py", MIXED) for index in range(20)]
    result = jaxlint("fix", "-j", "2", str(tmp_path))
    assert result.returncode == 1
    assert "Fixed 20 errors (20 remaining)." in result.stdout.decode()
    assert all("axes=(0,)" in path.read_text() for path in paths)


def test_missing_path_is_a_usage_error(tmp_path: Path):
    result = jaxlint("fix", str(tmp_path / "nope.py"))
    assert result.returncode == 2
    assert "no such file" in result.stderr.decode()
