"""`jaxlint runtime -- COMMAND` on several devices: every compiled entry point (jit, pmap,
shard_map, eqx.filter_jit, nnx.jit), host<->device transfers, collectives per compiled step, the
line that built a jitted callable, and the command's exit status.

The end-to-end runs use two CPU devices (`XLA_FLAGS=--xla_force_host_platform_device_count=2`),
a few steps and small arrays; the join and the HLO parser are also tested on hand-made input.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from jaxlint.cli import run
from jaxlint.diagnostics import Diagnostic, Position
from jaxlint.runtime_checks.cli import command_exit_status
from jaxlint.runtime_checks.hlo import collective_summary, collectives, group_size
from jaxlint.runtime_checks.trace_join import CONFIRMED, build_report, merge

pytest.importorskip("jax")

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runtime" / "multidevice"
TWO_DEVICES = "--xla_force_host_platform_device_count=2"


def line_of(path: Path, text: str) -> int:
    """The 1-based line of the first line of `path` containing `text` (fixtures move; tests follow)."""
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if text in line:
            return number
    raise AssertionError(f"{text!r} not in {path}")


def traced(folder: Path, command: list[str], report_path: Path) -> tuple[int, dict]:
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        patch.setenv("XLA_FLAGS", TWO_DEVICES)
        status = run(["runtime", "--format", "json", "--json-file", str(report_path), "--", *command])
    return status, json.loads(report_path.read_text())


@pytest.fixture(scope="module")
def data_parallel(tmp_path_factory):
    report_path = tmp_path_factory.mktemp("dp") / "report.json"
    return traced(FIXTURES, [sys.executable, "data_parallel.py", "--steps", "4", "--width", "128", "--batch", "256",
                             "--exit-status", "3"], report_path)


@pytest.fixture(scope="module")
def sharded(tmp_path_factory):
    report_path = tmp_path_factory.mktemp("coll") / "report.json"
    return traced(FIXTURES, [sys.executable, "collectives.py", "5"], report_path)


def finding_at(report: dict, code: str, line: int) -> dict:
    matches = [f for f in report["findings"] if f["code"] == code and f["line"] == line]
    assert len(matches) == 1, report["findings"]
    return matches[0]


def runtime_only(report: dict) -> set[tuple[int, str]]:
    return {(f["line"], f["name"]) for f in report["runtime_only"]}


# ---------------------------------------------------------------------- the data-parallel script, two devices

def test_the_command_exit_status_is_kept(data_parallel):
    status, report = data_parallel
    assert report["exit_status"] == 3
    assert status == 3  # findings were confirmed too; the command's failure wins
    assert report["device"]["device_count"] == 2


def test_pmapped_step_missing_donation_is_confirmed_per_device(data_parallel):
    script = FIXTURES / "data_parallel.py"
    finding = finding_at(data_parallel[1], "JAX401", line_of(script, "= pmapped_step(replicated"))
    assert finding["verdict"] == CONFIRMED, finding
    metrics = finding["metrics"]
    assert metrics["step_function"] == "pmapped_update" and metrics["transform"] == "pmap"
    assert metrics["devices"] == 2 and "per device (pmap 2 devices)" in finding["evidence"]
    # Three 128x128 float32 weights per device are aliased when donated.
    assert metrics["alias_bytes_donated"] == 3 * 128 * 128 * 4
    assert metrics["peak_bytes_donated"] < metrics["peak_bytes_original"]


def test_split_line_jit_in_loop_is_confirmed_at_the_line_that_built_it(data_parallel):
    script = FIXTURES / "data_parallel.py"
    built, called = line_of(script, "schedule = jax.jit(lambda"), line_of(script, "lr = schedule(step)")
    finding = finding_at(data_parallel[1], "JAX302", built)
    assert finding["verdict"] == CONFIRMED, finding
    assert finding["metrics"]["compiled"] == {"jit(<lambda>)": 4}
    assert finding["metrics"]["called_at"] == [called]
    assert f"when called at line {called}" in finding["evidence"]
    # The call line's compilations are that finding's, not a second, runtime-only one.
    assert (called, "recompilation") not in runtime_only(data_parallel[1])


def test_the_same_host_batch_uploaded_every_step_is_found(data_parallel):
    script = FIXTURES / "data_parallel.py"
    upload = line_of(script, "batch = jax.device_put(host_batch, batch_sharding)")
    implicit = line_of(script, "= pmapped_step(replicated")
    extra = {(f["line"], f["name"]): f for f in data_parallel[1]["runtime_only"]}
    explicit = extra[(upload, "repeated-upload")]
    assert explicit["metrics"]["h2d_count"] == 4 and explicit["metrics"]["h2d_repeated"] == 3
    assert explicit["metrics"]["h2d_same_object"] == 3
    assert explicit["metrics"]["h2d_repeated_bytes"] == 3 * 256 * 128 * 4
    assert explicit["metrics"]["h2d_kinds"] == {"jax.device_put()": 4}
    # The NumPy batch handed to the pmapped step is uploaded again on every call too.
    assert extra[(implicit, "repeated-upload")]["metrics"]["h2d_kinds"] == {"argument of pmapped_update": 4}
    # The parameters, placed once before the loop, are an upload but not a repeated one.
    placed = line_of(script, "params = jax.device_put(host_params")
    transfers = {t["line"]: t for t in data_parallel[1]["transfers"]}
    assert transfers[placed]["h2d_count"] == 1 and transfers[placed]["h2d_repeated"] == 0
    assert (placed, "repeated-upload") not in extra


def test_per_step_loss_reads_are_counted_as_device_to_host_bytes(data_parallel):
    script = FIXTURES / "data_parallel.py"
    read = {t["line"]: t for t in data_parallel[1]["transfers"]}[line_of(script, "losses.append(float(loss[0]))")]
    assert read["d2h_count"] == 4 and read["d2h_bytes"] == 4 * 4
    assert read["gathers"] == 0  # one device's element, not a sharded array


def test_entry_points_and_collectives_per_compiled_step(data_parallel):
    report = data_parallel[1]
    transforms = {entry["name"]: entry["transform"] for entry in report["entry_points"]}
    assert transforms["pmapped_update"] == "pmap" and transforms["sharded_step"] == "jit"
    steps = {step["name"]: step for step in report["compiled_steps"]}
    for name in ("pmapped_update", "sharded_step"):
        summary = steps[name]["collective_summary"]
        # The gradients' all-reduce: three 128x128 float32 weights plus the scalar loss.
        assert summary["all-reduce"]["operand_bytes"] >= 3 * 128 * 128 * 4, summary
        assert summary["all-reduce"]["replica_groups"]
        assert steps[name]["devices"] == 2 and steps[name]["calls"] == 4
    assert [c["group_size"] for c in steps["pmapped_update"]["collectives"]] == [2]


# ---------------------------------------------------------------------- collectives that move too much

def test_a_step_that_gathers_the_whole_batch_is_found(sharded):
    script = FIXTURES / "collectives.py"
    extra = {(f["line"], f["name"]): f for f in sharded[1]["runtime_only"]}
    gathered = extra[(line_of(script, "= replicating_step(weights, batch)"), "gathered-batch")]
    assert gathered["metrics"]["argument"]["shape"] == [512, 256]
    assert gathered["metrics"]["bytes_per_step"] == 256 * 256 * 4  # each device receives the other's half
    assert "f32[512,256]" in gathered["evidence"]


def test_parameters_gathered_and_returned_replicated_are_found(sharded):
    script = FIXTURES / "collectives.py"
    extra = {(f["line"], f["name"]): f for f in sharded[1]["runtime_only"]}
    found = extra[(line_of(script, "= gathering_step(sharded_weights, batch)"), "gathered-parameters")]
    assert found["metrics"]["argument"]["position"] == 0 and found["metrics"]["argument"]["state"]
    # The replicated weights of the first loop and the batch of the gathering step are not parameters gathered.
    assert {name for _, name in extra} >= {"gathered-batch", "gathered-parameters", "host-gather"}
    assert sum(name == "gathered-parameters" for _, name in extra) == 1
    assert sum(name == "gathered-batch" for _, name in extra) == 1


def test_a_sharded_array_read_to_the_host_every_step_is_a_gather(sharded):
    script = FIXTURES / "collectives.py"
    extra = {(f["line"], f["name"]): f for f in sharded[1]["runtime_only"]}
    gather = extra[(line_of(script, "np.asarray(batch) for _ in range"), "host-gather")]
    assert gather["metrics"] == {"gathers": 4, "gather_bytes": 4 * 512 * 256 * 4, "gather_devices": 2}


def test_shard_map_outside_jit_is_an_entry_point_with_its_collectives(sharded):
    status, report = sharded
    assert status == 5 and report["exit_status"] == 5
    entry = {e["name"]: e for e in report["entry_points"]}["column_sums"]
    assert entry["transform"] == "shard_map" and entry["calls"] == 4
    step = {s["name"]: s for s in report["compiled_steps"]}["column_sums"]
    assert step["collective_summary"]["all-reduce"]["operand_bytes"] == 256 * 4


# ---------------------------------------------------------------------- optional libraries: equinox, flax.nnx

LIBRARY_STANDINS = {
    # Stand-ins with the libraries' calling conventions; each jits a wrapper of its own, as the real ones do.
    "equinox/__init__.py": "import jax\n\n"
                           "def filter_jit(fun=None, *, donate='none'):\n"
                           "    if fun is None:\n"
                           "        return lambda f: filter_jit(f, donate=donate)\n"
                           "    inner = jax.jit(lambda args: fun(*args))\n"
                           "    return lambda *args: inner(args)\n",
    "flax/__init__.py": "",
    "flax/nnx/__init__.py": "import jax\n\n"
                            "def jit(fun=None, *, donate_argnums=()):\n"
                            "    if fun is None:\n"
                            "        return lambda f: jit(f, donate_argnums=donate_argnums)\n"
                            "    inner = jax.jit(lambda *args: fun(*args), donate_argnums=donate_argnums)\n"
                            "    return lambda *args: inner(*args)\n",
}


def test_filter_jit_and_nnx_jit_are_recorded_when_the_program_imports_them(tmp_path):
    site, project = tmp_path / "site", tmp_path / "project"
    for name, text in LIBRARY_STANDINS.items():
        (site / name).parent.mkdir(parents=True, exist_ok=True)
        (site / name).write_text(text)
    project.mkdir()
    (project / "models.py").write_text(
        "import equinox as eqx\nimport jax.numpy as jnp\nfrom flax import nnx\n\n\n"
        "@eqx.filter_jit\ndef scaled(x):\n    return x * 2.0\n\n\n"
        "@nnx.jit(donate_argnums=(0,))\ndef shifted(x):\n    return x + 1.0\n\n\n"
        "x = jnp.ones(8)\nfor _ in range(3):\n    x = scaled(x)\n    x = shifted(x)\nprint(float(x.sum()))\n")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PYTHONPATH", str(site))
        status, report = traced(project, [sys.executable, "models.py"], tmp_path / "report.json")
    assert report["exit_status"] == 0, report["uncaught"]
    entries = {e["name"]: e for e in report["entry_points"]}
    assert entries["scaled"]["transform"] == "eqx.filter_jit" and entries["scaled"]["calls"] == 3
    assert entries["shifted"]["transform"] == "nnx.jit" and entries["shifted"]["calls"] == 3
    assert entries["shifted"]["donates"] and entries["shifted"]["donated_deleted"] == 3


# ---------------------------------------------------------------------- exit status, missing jax

def test_command_exit_status_passes_failures_through():
    assert command_exit_status(0, found=False) == 0
    assert command_exit_status(0, found=True) == 1
    assert command_exit_status(3, found=False) == 3
    assert command_exit_status(3, found=True) == 3
    assert command_exit_status(-9, found=False) == 128 + 9  # killed by SIGKILL, as a shell reports it
    assert command_exit_status(-2, found=False, stopped_by_timeout=True) == 0
    assert command_exit_status(-2, found=True, stopped_by_timeout=True) == 1


def test_failing_command_without_findings_fails_jaxlint(tmp_path):
    (tmp_path / "fails.py").write_text("import sys\nsys.exit(4)\n")
    status, report = traced(tmp_path, [sys.executable, "fails.py"], tmp_path / "report.json")
    assert (status, report["exit_status"]) == (4, 4)


def test_missing_jax_names_the_runtime_extra(tmp_path, capfd, monkeypatch):
    (tmp_path / "needs_jax.py").write_text("raise ModuleNotFoundError(\"No module named 'jax'\")\n")
    status, report = traced(tmp_path, [sys.executable, "needs_jax.py"], tmp_path / "report.json")
    assert status == 1 and report["exit_status"] == 1
    assert any("pip install -e '.[runtime]'" in note for note in report["notes"]), report["notes"]
    # The function mode needs jax in jaxlint's own Python: it says what to install, and stops.
    import importlib.util

    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "jax" else real_find_spec(name, *a))
    assert run(["runtime", str(tmp_path / "needs_jax.py")]) == 2
    assert "pip install -e '.[runtime]'" in capfd.readouterr().err


def test_help_documents_the_exit_status(capfd):
    assert run(["runtime", "--help"]) == 0
    text = " ".join(capfd.readouterr().out.split())
    assert "Exit status:" in text and "the command's own non-zero status" in text


# ---------------------------------------------------------------------- the join and the parser, by hand

def _document(lines: list[dict], executed: list[int]) -> dict:
    full = [{"file": "/p/a.py", "function": "main", "compiles": 0, "compile_s": 0.0, "compiled": {}, "traces": 0,
             "syncs": 0, "sync_blocked_s": 0.0, "sync_kinds": {}, "sync_blocked_samples": [], "calls": 0,
             "dispatch_s": 0.0, "gap_s": 0.0, "called": {}, "cache_miss_reasons": [], **line} for line in lines]
    return {"pid": 1, "started": 0.0, "final": True, "totals": {"elapsed_s": 1.0}, "lines": full, "functions": [],
            "executed": {"/p/a.py": executed}, "cache_misses": [], "donation_warnings": [], "timeline": [],
            "at_exit": {"device": {"platform": "cpu"}, "ready_sync_s": 40e-6}}


def _report(doc: dict, codes_rows: list[tuple[str, int]]) -> dict:
    diagnostics = {"/p/a.py": [Diagnostic(code=code, name=code.lower(), message="m", filename="/p/a.py",
                                          location=Position(row, 1), end_location=Position(row, 5))
                               for code, row in codes_rows]}
    return build_report(["python", "a.py"], 0, 1.0, merge([doc]), diagnostics, {"/p/a.py": ""}, [])


def upload(line: int, count: int, repeated: int, each: int, same_object: int = 0) -> dict:
    return {"line": line, "h2d_count": count, "h2d_bytes": count * each, "h2d_repeated": repeated,
            "h2d_repeated_bytes": repeated * each, "h2d_same_object": same_object, "h2d_kinds": {"jax.device_put()": count},
            "h2d_shapes": ["float32[256, 256]"]}


def test_repeated_upload_needs_repetition_size_and_a_majority():
    found = _report(_document([upload(10, 20, 19, 1 << 18, 19)], [10]), [])["runtime_only"]
    assert [(f["line"], f["name"]) for f in found] == [(10, "repeated-upload")]
    assert "the same host array object 19 times" in found[0]["evidence"]
    cases = [upload(11, 20, 19, 1000),  # a small array sent each step costs little
             upload(12, 20, 2, 1 << 18),  # new data most steps: a data loader
             upload(13, 2, 1, 1 << 18)]  # once again, not per step
    assert _report(_document(cases, [11, 12, 13]), [])["runtime_only"] == []


def test_host_gather_is_gated_like_a_sync():
    step = {"line": 9, "calls": 40, "called": {"/p/a.py:3:step": 40}}
    every = {"line": 10, "syncs": 40, "d2h_count": 40, "d2h_bytes": 40 << 20, "gathers": 40, "gather_bytes": 40 << 20,
             "gather_devices": 4}
    gated = {**every, "line": 11, "syncs": 4, "d2h_count": 4, "gathers": 4, "gather_bytes": 4 << 20}
    found = _report(_document([step, every, gated], [9, 10, 11]), [])["runtime_only"]
    assert [(f["line"], f["name"]) for f in found] == [(10, "host-gather")]
    assert "split over 4 devices" in found[0]["evidence"]


def test_compilations_of_a_callable_built_elsewhere_confirm_its_line():
    built = {"line": 20, "built_compiles": 5, "built_compiled": {"jit(<lambda>)": 5}, "built_compile_s": 0.5}
    called = {"line": 21, "compiles": 5, "compiled": {"jit(<lambda>)": 5}, "calls": 5,
              "compiled_built_at": {"/p/a.py:20": 5}}
    report = _report(_document([built, called], [20, 21]), [("JAX302", 20)])
    assert report["findings"][0]["verdict"] == CONFIRMED
    assert "when called at line 21 (built at this line)" in report["findings"][0]["evidence"]
    assert report["runtime_only"] == []
    # Without the finding at the building line, the call line's recompilations are runtime-only.
    assert [(f["line"], f["name"]) for f in _report(_document([built, called], [20, 21]), [])["runtime_only"]] \
        == [(21, "recompilation")]
    # A document of an older jaxlint (no `built_*` fields) is still read.
    old = _report(_document([{"line": 21, "compiles": 5, "compiled": {"jit(<lambda>)": 5}}], [20, 21]), [("JAX302", 20)])
    assert old["findings"][0]["verdict"] == "refuted"


HLO = """HloModule step, entry_computation_layout={(f32[64,128]{1,0})->f32[128,128]{1,0}}

%add (a: f32[], b: f32[]) -> f32[] {
  %a = f32[] parameter(0)
  %b = f32[] parameter(1)
  ROOT %sum = f32[] add(%a, %b)
}

ENTRY %main (p: f32[64,128]) -> f32[128,128] {
  %p = f32[64,128]{1,0} parameter(0)
  %ag-start = (f32[64,128]{1,0}, f32[128,128]{1,0}) all-gather-start(f32[64,128]{1,0} %p), channel_id=1, replica_groups=[1,2]<=[2], dimensions={0}
  %ag-done = f32[128,128]{1,0} all-gather-done(%ag-start)
  %ar = f32[128,128]{1,0} all-reduce(%ag-done), channel_id=2, replica_groups={{0,1}}, to_apply=%add
  %rs = f32[64,128]{1,0} reduce-scatter(%ar), channel_id=3, replica_groups={{0,1}}, dimensions={0}, to_apply=%add
  %cp = f32[64,128]{1,0} collective-permute(%rs), channel_id=4, source_target_pairs={{0,1},{1,0}}
  ROOT %a2a = bf16[64,128]{1,0} all-to-all(bf16[64,128]{1,0} %cp), channel_id=5, replica_groups=mesh['x'=2,'y'=4] {'y'}, dimensions={0}
}
"""


def test_collectives_are_read_from_hlo_text_with_bytes_and_groups():
    found = collectives(HLO)
    assert [c["kind"] for c in found] == ["all-gather", "all-reduce", "reduce-scatter", "collective-permute",
                                          "all-to-all"]
    gather, reduce, scatter, permute, exchange = found
    assert gather["operand_bytes"] == 64 * 128 * 4 and gather["result_shapes"] == ["f32[128,128]"]
    assert reduce["operand_bytes"] == reduce["result_bytes"] == 128 * 128 * 4  # operand looked up by name
    assert scatter["operand_bytes"] == 128 * 128 * 4 and scatter["result_bytes"] == 64 * 128 * 4
    assert permute["replica_groups"] == "{{0,1},{1,0}}"
    assert exchange["operand_bytes"] == 64 * 128 * 2
    assert [c["group_size"] for c in found] == [2, 2, 2, 2, 4]
    assert collective_summary(found)["all-reduce"] == {"count": 1, "operand_bytes": 65536, "result_bytes": 65536,
                                                       "replica_groups": ["{{0,1}}"]}
    assert group_size(None) is None and group_size("{{0,1,2,3},{4,5,6,7}}") == 4
