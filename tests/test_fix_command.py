"""`jaxlint fix` end to end: what it writes, what it leaves alone, what it prints, its exit codes."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import numpy as np


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


# A module with three fixes whose form depends on the JAX it must run on: a removed tree alias
# (`jax.tree.map` needs jax 0.4.25), a removed type (`jax.Array` needs 0.4.1) and a donation
# (`@jax.jit(donate_argnums=...)` needs 0.4.36).
VERSIONED = '''import jax
import jax.numpy as jnp


def halve_all(tree) -> jnp.DeviceArray:
    return jax.tree_map(lambda leaf: leaf / 2, tree)


@jax.jit
def step(state, batch):
    return state - 0.1 * batch


def run(scale):
    state = jnp.ones(4) * scale
    for _ in range(3):
        state = step(state, 1.0)
    return state
'''


def _project(root: Path, requirement_files: dict[str, str]) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    for name, text in requirement_files.items():
        write(root / name, text)
    return write(root / "module.py", VERSIONED)


def test_each_file_is_fixed_for_its_own_projects_jax(tmp_path: Path):
    """`jaxlint fix` on a folder holding sub-projects writes, in each file, only forms that the JAX
    of that file's nearest project has: a vendored package pinned to an old jax keeps old forms."""
    top = _project(tmp_path, {})  # no requirement: the newest API, the spelling every JAX runs
    plain_folder = _project(tmp_path / "scripts", {})  # no project of its own: the top one's
    pinned_old = _project(tmp_path / "vendored" / "oldlib", {"requirements.txt": "numpy\njax==0.3.6\n"})
    floor_before_factory = _project(tmp_path / "tools", {"setup.py": 'setup(name="t", install_requires=["jax>=0.4.30"])\n'})
    says_nothing = _project(tmp_path / "site", {"requirements.txt": "sphinx\n"})  # (not docs/: demonstration code)
    pinned_new = _project(tmp_path / "service", {"requirements.txt": "jax>=0.4.36\n"})
    result = jaxlint("fix", "--unsafe-fixes", "--no-cache", str(tmp_path))
    assert result.returncode in (0, 1), result.stdout + result.stderr
    texts = {path: path.read_text() for path in (top, plain_folder, pinned_old, floor_before_factory, says_nothing, pinned_new)}
    for path in (top, plain_folder, says_nothing, pinned_new):
        assert "jax.tree.map(" in texts[path] and "-> jax.Array:" in texts[path], texts[path]
    # Where nothing says which JAX runs the code, a donation is spelled the way every JAX runs it: the
    # decorator factory is only a newer spelling (jax 0.4.36), and unpinned code is often older.
    for path in (top, plain_folder, says_nothing):
        assert "@functools.partial(jax.jit, donate_argnums=(0,))" in texts[path] and "@jax.jit(" not in texts[path], texts[path]
    assert "@jax.jit(donate_argnums=(0,))" in texts[pinned_new], texts[pinned_new]
    # jax 0.3.6 has neither `jax.tree` nor `jax.Array` nor the decorator factory.
    old = texts[pinned_old]
    assert "jax.tree_util.tree_map(" in old and "jax.tree.map" not in old, old
    assert "jnp.DeviceArray" in old and "jax.Array" not in old, old
    assert "@functools.partial(jax.jit, donate_argnums=(0,))" in old, old
    # jax 0.4.30 has `jax.tree` and `jax.Array`, not the decorator factory.
    floor = texts[floor_before_factory]
    assert "jax.tree.map(" in floor and "-> jax.Array:" in floor, floor
    assert "@functools.partial(jax.jit, donate_argnums=(0,))" in floor and "@jax.jit(" not in floor, floor
    # Every form runs on this JAX and computes the same values. Annotations stay unevaluated (this
    # module's `from __future__ import annotations` is inherited): the pinned project's
    # `jnp.DeviceArray` is right for its jax 0.3.6, not for the JAX running the test.
    for text in texts.values():
        fixed = {}
        exec(compile(text, "fixed", "exec"), fixed)
        np.testing.assert_allclose(fixed["run"](2.0), np.full(4, 1.7), rtol=1e-6)
        assert float(fixed["halve_all"]({"a": 3.0})["a"]) == 1.5


def test_a_cached_result_follows_its_own_projects_requirement(tmp_path: Path):
    """The forms a finding's fix writes depend on the nearest project's jax pin: editing that pin
    invalidates the cached result of every module under it, though no module changed."""
    module = _project(tmp_path / "vendored" / "oldlib", {"requirements.txt": "jax==0.3.6\n"})
    requirement = tmp_path / "vendored" / "oldlib" / "requirements.txt"

    def fix_contents() -> list[str]:
        result = jaxlint("check", "--format", "json", ".", cwd=tmp_path)
        assert result.returncode == 1, result.stdout + result.stderr
        findings = json.loads(result.stdout)
        return [edit["content"] for finding in findings if finding["fix"] for edit in finding["fix"]["edits"]]

    pinned_old = fix_contents()
    assert "jax.tree_util.tree_map" in pinned_old and "jax.tree.map" not in pinned_old, pinned_old
    assert fix_contents() == pinned_old and any((tmp_path / ".jaxlint_cache").rglob("*.json"))  # cached now
    write(requirement, "jax>=0.4.36\n")
    newer = fix_contents()
    assert "jax.tree.map" in newer and "jax.tree_util.tree_map" not in newer, newer


PJIT_WITH_SPECS = '''from jax.experimental.pjit import pjit
from jax.sharding import PartitionSpec as P


def double(x):
    return x * 2


sharded_double = pjit(double, in_shardings=P("b"), out_shardings=P("b"))
'''
PJIT_WITHOUT_SPECS = PJIT_WITH_SPECS.replace("from jax.sharding import PartitionSpec as P\n", "").replace('in_shardings=P("b"), out_shardings=P("b")', "in_shardings=None")


def test_pjit_with_partition_specs_is_not_renamed_for_an_older_jax(tmp_path: Path):
    """`pjit` -> `jax.jit` is exact on current JAX, but raw PartitionSpecs take their mesh from a
    `with mesh:` block that `jit` of the 0.4 series ignores: a project pinned there keeps `pjit`."""
    old_with_specs = tmp_path / "old_specs"
    old_without = tmp_path / "old_plain"
    unpinned_with_specs = tmp_path / "unpinned"
    for folder, text, pin in ((old_with_specs, PJIT_WITH_SPECS, "jax==0.4.7\n"), (old_without, PJIT_WITHOUT_SPECS, "jax==0.4.7\n"), (unpinned_with_specs, PJIT_WITH_SPECS, None)):
        folder.mkdir()
        if pin:
            write(folder / "requirements.txt", pin)
        write(folder / "module.py", text)
    result = jaxlint("fix", "--no-cache", str(tmp_path))
    assert result.returncode in (0, 1), result.stdout + result.stderr
    assert (old_with_specs / "module.py").read_text() == PJIT_WITH_SPECS
    assert "from jax import jit as pjit" in (old_without / "module.py").read_text()
    assert "from jax import jit as pjit" in (unpinned_with_specs / "module.py").read_text()
