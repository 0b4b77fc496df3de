"""Static multi-device rules checked against what JAX does on two CPU devices.

JAX205 (device-put-of-placed-state) claims a `device_put` returns its input unchanged: a program with
flagged lines and look-alikes runs under `XLA_FLAGS=--xla_force_host_platform_device_count=2` with
`jax.device_put` wrapped to record, per source line, whether each call returned its input object.
Every flagged line must have done so on every call; the look-alikes that move data must not have.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT
from jaxlint.config import Settings
from jaxlint.engine import check_source
from jaxlint.rules import RULES_BY_CODE

pytest.importorskip("jax")

PLACEMENTS = FIXTURES / "runtime" / "multidevice" / "device_put_placements.py"
TWO_DEVICES = "--xla_force_host_platform_device_count=2"

# Runs the program with `jax.device_put` recording (line, returned its input) for calls made from it.
RECORDER = """
import json, runpy, sys
import jax
path, out = sys.argv[1], sys.argv[2]
original = jax.device_put
seen = {}
def recording(x, *args, **kwargs):
    result = original(x, *args, **kwargs)
    frame = sys._getframe(1)
    if frame.f_code.co_filename == path:
        leaves, results = jax.tree.leaves(x), jax.tree.leaves(result)
        same = len(leaves) == len(results) and all(a is b for a, b in zip(leaves, results))
        seen.setdefault(frame.f_lineno, []).append(same)
    return result
jax.device_put = recording
assert jax.device_count() == 2, jax.devices()
runpy.run_path(path, run_name="__main__")
json.dump({str(line): calls for line, calls in seen.items()}, open(out, "w"))
"""


def line_of(path: Path, text: str) -> int:
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} not in {path}")


@pytest.fixture(scope="module")
def identity_by_line(tmp_path_factory) -> dict[int, list[bool]]:
    out = tmp_path_factory.mktemp("placements") / "calls.json"
    env = {**os.environ, "XLA_FLAGS": TWO_DEVICES, "JAX_PLATFORMS": "cpu", "PYTHONPATH": str(ROOT)}
    completed = subprocess.run(
        [sys.executable, "-c", RECORDER, str(PLACEMENTS), str(out)], env=env, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    return {int(line): calls for line, calls in json.loads(out.read_text()).items()}


def flagged_lines(path: Path, code: str) -> set[int]:
    result = check_source(path.read_text(), path.name, Settings(), [RULES_BY_CODE[code]])
    assert not result.errors, result.errors
    return {d.location.row for d in result.diagnostics if d.code == code}


def test_every_flagged_device_put_returned_its_input(identity_by_line):
    flagged = flagged_lines(PLACEMENTS, "JAX205")
    assert flagged == {
        line_of(PLACEMENTS, "replicated)  # no-op: flagged"),
        line_of(PLACEMENTS, "jax.device_put(state)  # no-op: flagged"),
        line_of(PLACEMENTS, "sharded)  # no-op: flagged"),
    }
    for line in flagged:
        calls = identity_by_line[line]
        assert len(calls) == 3 and all(calls), (line, calls)


def test_lookalikes_move_data_and_are_not_flagged(identity_by_line):
    flagged = flagged_lines(PLACEMENTS, "JAX205")
    for marker in ("# sharded -> replicated: moves data", "# host data: a real upload"):
        line = line_of(PLACEMENTS, marker)
        assert line not in flagged
        assert identity_by_line[line] and not any(identity_by_line[line]), (marker, identity_by_line[line])
    # No out_shardings: silent whatever the compiler chose (here it kept the input's sharding, so the call moves data).
    unknown = line_of(PLACEMENTS, "# the compiler chose the output's sharding")
    assert unknown not in flagged and len(identity_by_line[unknown]) == 3


# ----- JAX204's fix on two devices: the hoisted sharded upload computes the same values -----------

SHARDED_LOOP = '''import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

mesh = Mesh(np.array(jax.devices()[:2]), ("data",))
sharding = NamedSharding(mesh, PartitionSpec("data"))


@jax.jit
def train_step(params, batch):
    return params - 0.1 * jnp.mean(batch, axis=0)


def fit(params, steps):
    host_batch = np.arange(32, dtype=np.float32).reshape(4, 8)
    shardings = []
    for _ in range(steps):
        batch = jax.device_put(host_batch, sharding)
        shardings.append([batch.sharding.spec == PartitionSpec("data"), len(batch.addressable_shards)])
        params = train_step(params, batch)
    return params, shardings


if __name__ == "__main__":
    import json, sys
    assert jax.device_count() == 2
    params, shardings = fit(jnp.zeros((8,)), len(sys.argv) + 1)  # 3 steps, a count the analysis cannot bound
    json.dump({"params": np.asarray(params).tolist(), "shardings": shardings}, open(sys.argv[1], "w"))
'''


def _run_two_devices(path: Path, out: Path) -> dict:
    env = {**os.environ, "XLA_FLAGS": TWO_DEVICES, "JAX_PLATFORMS": "cpu"}
    completed = subprocess.run([sys.executable, str(path), str(out)], env=env, capture_output=True, text=True, timeout=300)
    assert completed.returncode == 0, completed.stderr[-2000:]
    return json.loads(out.read_text())


def test_hoisted_sharded_upload_computes_the_same_on_two_devices(tmp_path):
    from jaxlint.fixer import fix_source

    outcome = fix_source(SHARDED_LOOP, "loop.py", Settings(), [RULES_BY_CODE["JAX204"]], unsafe=True)
    assert not outcome.reverted
    assert "    batch_on_device = jax.device_put(host_batch, sharding)\n    shardings = []\n" not in outcome.text
    assert "    batch_on_device = jax.device_put(host_batch, sharding)\n    for _ in range(steps):\n" in outcome.text
    assert "        batch = batch_on_device\n" in outcome.text
    original_path, fixed_path = tmp_path / "original.py", tmp_path / "fixed.py"
    original_path.write_text(SHARDED_LOOP)
    fixed_path.write_text(outcome.text)
    original = _run_two_devices(original_path, tmp_path / "original.json")
    fixed = _run_two_devices(fixed_path, tmp_path / "fixed.json")
    assert fixed == original
    assert original["shardings"] == [[True, 2]] * 3  # split over both devices, in both versions


# ----- JAX603: advisory, and only where the target JAX documents the replacement --------------------

PMAPPED = "import jax\n\n\n@jax.pmap\ndef double(x):\n    return 2 * x\n"


@pytest.mark.parametrize(("target", "flagged"), [(None, 1), ("0.8.0", 1), ("0.10.2", 1), ("0.7.2", 0), ("0.4.30", 0)])
def test_pmap_is_reported_from_the_version_that_documents_shard_map(target, flagged):
    result = check_source(PMAPPED, "step.py", Settings(target_jax_version=target), [RULES_BY_CODE["JAX603"]])
    assert [d.code for d in result.diagnostics] == ["JAX603"] * flagged
    if flagged:
        assert "not deprecated" in result.diagnostics[0].message


def test_pmap_rule_is_preview_and_off_by_default():
    from jaxlint.rules import ALL_RULES
    from jaxlint.config import resolve_enabled

    assert RULES_BY_CODE["JAX603"] not in resolve_enabled(Settings(), ALL_RULES)
    assert RULES_BY_CODE["JAX603"] in resolve_enabled(Settings(select=["JAX603"]), ALL_RULES)
