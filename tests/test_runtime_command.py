"""`jaxlint runtime -- COMMAND`: the user's own program under instrumentation, joined to the findings.

End to end on the CPU with the training-script fixture (its three known problems must each be
confirmed with their evidence), the pytest form, and the join's verdicts on hand-made traces.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from jaxlint.cli import run
from jaxlint.diagnostics import Diagnostic, Position
from jaxlint.runtime_checks.trace_join import (
    CONFIRMED, INCONCLUSIVE, NOT_RUN, REFUTED, build_report, merge, rebinding_positions, thresholds_for,
)

SCRIPT_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "runtime" / "script"

pytest.importorskip("jax")


def by_code(report: dict) -> dict:
    return {finding["code"]: finding for finding in report["findings"]}


@pytest.fixture(scope="module")
def training_run(tmp_path_factory):
    """One traced run of the training script (6 steps), shared by the end-to-end tests."""
    folder = tmp_path_factory.mktemp("trace")
    report_path, html_path = folder / "report.json", folder / "report.html"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(SCRIPT_DIR)
        status = run(["runtime", "--format", "json", "--json-file", str(report_path), "--html", str(html_path),
                      "--", sys.executable, "train.py", "--steps", "6"])
    return status, json.loads(report_path.read_text()), html_path.read_text()


def test_every_known_problem_of_the_training_script_is_confirmed(training_run):
    status, report, _ = training_run
    assert status == 1
    assert report["exit_status"] == 0
    assert report["device"]["platform"] == "cpu"
    findings = by_code(report)
    assert set(findings) == {"JAX201", "JAX302", "JAX401"}
    assert all(finding["verdict"] == CONFIRMED for finding in findings.values()), findings
    assert report["runtime_only"] == []


def test_host_sync_evidence_counts_one_float_per_step(training_run):
    sync = by_code(training_run[1])["JAX201"]
    assert sync["line"] == 50
    assert sync["metrics"]["syncs"] == 6
    assert sync["metrics"]["sync_kinds"] == {"float()": 6}
    assert sync["metrics"]["median_blocked_s"] >= training_run[1]["thresholds"]["stall_s"]


def test_jit_in_loop_evidence_counts_one_compilation_per_step(training_run):
    recompile = by_code(training_run[1])["JAX302"]
    assert recompile["metrics"]["compiled"] == {"jit(<lambda>)": 6}
    assert any("re-defined repeatedly" in reason for reason in recompile["metrics"]["cache_miss_reasons"])


def test_missing_donation_evidence_is_peak_memory_with_fair_timing(training_run):
    donation = by_code(training_run[1])["JAX401"]["metrics"]
    assert donation["step_function"] == "train_step"
    assert donation["donatable_argnums"] == [0]  # the params; the scalar learning rate is not worth it
    # Four 512x512 float32 weights: the donated step aliases all of them.
    assert donation["alias_bytes_donated"] == 4 * 512 * 512 * 4
    assert donation["peak_bytes_donated"] < donation["peak_bytes_original"]
    assert donation["time_per_step_original_s"] > 0 and donation["time_per_step_donated_s"] > 0


def test_live_array_memory_is_sampled(training_run):
    # At least the four 512x512 float32 weights and the 256x512 batch are alive after a step.
    assert training_run[1]["memory_samples"]["live_array_bytes_max"] >= (4 * 512 * 512 + 256 * 512) * 4


def test_totals_exclude_the_probes_at_exit(training_run):
    totals = training_run[1]["totals"]
    assert totals["syncs"] == 6  # the six float(loss); the read-back floor's probes are not counted
    assert totals["calls"] == 12  # six lambdas, six train_step calls


def test_html_report_has_timeline_and_findings(training_run):
    page = training_run[2]
    assert page.count("<svg") >= 2  # the timeline and the donation bars
    assert "jit(&lt;lambda&gt;)" in page and "JAX401" in page and "confirmed" in page


def test_program_output_is_kept(tmp_path, capfd):
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(SCRIPT_DIR)
        status = run(["runtime", "--progress-interval", "0.5", "--", sys.executable, "train.py", "--steps", "2",
                      "--width", "64"])
    out, err = capfd.readouterr()
    assert status == 1
    assert "first loss" in out and "after 2 steps" in out  # the script's own print
    assert "jaxlint runtime: running" in err
    assert "static findings, checked against the run" in out


def test_pytest_command_reports_what_no_rule_flagged(tmp_path):
    report_path = tmp_path / "report.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(SCRIPT_DIR)
        status = run(["runtime", "--format", "json", "--json-file", str(report_path), "--",
                      sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_train_steps.py"])
    report = json.loads(report_path.read_text())
    assert status == 1 and report["exit_status"] == 0
    # train.py's findings are in lines the test never ran.
    assert {f["code"]: f["verdict"] for f in report["findings"]} == {"JAX201": NOT_RUN, "JAX302": NOT_RUN,
                                                                       "JAX401": NOT_RUN}
    extra = {(Path(f["filename"]).name, f["line"], f["name"]) for f in report["runtime_only"]}
    assert ("test_train_steps.py", 16, "host-sync-stall") in extra
    assert ("test_train_steps.py", 15, "missing-donation") in extra


def test_usage_errors(capfd):
    assert run(["runtime", "--"]) == 2
    assert run(["runtime", "--", "/nonexistent/jaxlint-test-binary"]) == 2
    assert "could not start the command" in capfd.readouterr().err


# ---------------------------------------------------------------------- the join, on hand-made traces

def diagnostic(code: str, row: int) -> Diagnostic:
    return Diagnostic(code=code, name=code.lower(), message=f"{code} message", filename="/p/a.py",
                      location=Position(row, 1), end_location=Position(row, 5))


def document(lines: list[dict], executed: list[int], platform: str = "cpu", probes=None, ready=40e-6) -> dict:
    full = []
    for line in lines:
        full.append({"file": "/p/a.py", "function": "main", "compiles": 0, "compile_s": 0.0, "compiled": {},
                     "traces": 0, "syncs": 0, "sync_blocked_s": 0.0, "sync_kinds": {}, "sync_blocked_samples": [],
                     "calls": 0, "dispatch_s": 0.0, "gap_s": 0.0, "called": {}, "cache_miss_reasons": [], **line})
    return {"pid": 1, "started": 0.0, "final": True, "totals": {"elapsed_s": 1.0}, "lines": full,
            "functions": [{"key": "/p/a.py:3:step", "name": "step", "file": "/p/a.py", "line": 3, "calls": 5,
                           "call_sites": {"/p/a.py:12": 5}, "jit_objects": 1, "donates": False}],
            "executed": {"/p/a.py": executed}, "cache_misses": [], "donation_warnings": [], "timeline": [],
            "at_exit": {"device": {"platform": platform}, "ready_sync_s": ready, "donation_probes": probes or []}}


def report_for(doc: dict, codes_rows: list[tuple[str, int]], source: str = "") -> dict:
    diagnostics = {"/p/a.py": [diagnostic(code, row) for code, row in codes_rows]}
    return build_report(["python", "a.py"], 0, 1.0, merge([doc]), diagnostics, {"/p/a.py": source}, [])


def test_sync_of_ready_values_is_refuted_and_slow_one_confirmed():
    fast = {"line": 10, "syncs": 5, "sync_blocked_s": 5 * 30e-6, "sync_blocked_samples": [30e-6] * 5,
            "sync_kinds": {"float()": 5}}
    slow = {"line": 11, "syncs": 5, "sync_blocked_s": 5 * 5e-3, "sync_blocked_samples": [5e-3] * 5,
            "sync_kinds": {".item()": 5}}
    report = report_for(document([fast, slow], [10, 11]), [("JAX201", 10), ("JAX201", 11)])
    verdicts = {f["line"]: f["verdict"] for f in report["findings"]}
    assert verdicts == {10: REFUTED, 11: CONFIRMED}


def test_unexecuted_line_is_not_run_and_unknown_rule_inconclusive():
    report = report_for(document([], [20]), [("JAX201", 30), ("JAX104", 20)])
    verdicts = {f["code"]: f["verdict"] for f in report["findings"]}
    assert verdicts == {"JAX201": NOT_RUN, "JAX104": INCONCLUSIVE}


def test_runtime_only_findings_need_repetition_and_no_matching_finding():
    stall = {"line": 10, "syncs": 4, "sync_blocked_s": 0.04, "sync_blocked_samples": [0.01] * 4,
             "sync_kinds": {"float()": 4}}
    once = {"line": 11, "syncs": 1, "sync_blocked_s": 0.01, "sync_blocked_samples": [0.01],
            "sync_kinds": {"float()": 1}}
    recompiled = {"line": 12, "compiles": 3, "compiled": {"jit(f)": 3}, "cache_miss_reasons": ["different shapes"]}
    report = report_for(document([stall, once, recompiled], [10, 11, 12]), [])
    names = {(f["line"], f["name"]) for f in report["runtime_only"]}
    assert names == {(10, "host-sync-stall"), (12, "recompilation")}
    # The same lines flagged statically are judged as findings instead.
    report = report_for(document([stall, once, recompiled], [10, 11, 12]), [("JAX201", 10), ("JAX302", 12)])
    assert report["runtime_only"] == []
    assert [f["verdict"] for f in report["findings"]] == [CONFIRMED, CONFIRMED]


def test_donation_verdict_follows_the_peak():
    called = {"line": 12, "calls": 5, "called": {"/p/a.py:3:step": 5}}
    saving = {"key": "/p/a.py:3:step", "name": "step", "donatable_argnums": [0], "peak_bytes_original": 400,
              "peak_bytes_donated": 268, "alias_bytes_donated": 132}
    flat = {**saving, "peak_bytes_donated": 398}
    confirmed = report_for(document([called], [12], probes=[saving]), [("JAX401", 12)])
    refuted = report_for(document([called], [12], probes=[flat]), [("JAX401", 12)])
    assert confirmed["findings"][0]["verdict"] == CONFIRMED
    assert refuted["findings"][0]["verdict"] == REFUTED
    # No finding on a line that rebinds the donatable argument: a runtime-only finding.
    source = "\n" * 11 + "state, loss = step(state, batch)\n"
    extra = report_for(document([called], [12], probes=[saving]), [], source)["runtime_only"]
    assert [(f["line"], f["name"]) for f in extra] == [(12, "missing-donation")]
    # ... but not where the result is bound to another name (the caller keeps its input).
    source = "\n" * 11 + "new_state, loss = step(state, batch)\n"
    assert report_for(document([called], [12], probes=[saving]), [], source)["runtime_only"] == []


def test_thresholds_are_scaled_to_the_device_and_stated():
    cpu, gpu = thresholds_for("cpu", 40e-6), thresholds_for("gpu", 15e-6)
    assert cpu.stall_s > gpu.stall_s
    assert cpu.stall_s == pytest.approx(160e-6)
    assert gpu.stall_s == pytest.approx(50e-6)
    assert "cpu:" in cpu.describe() and "160.0 us" in cpu.describe()
    # A 120 us wait stalls a GPU's pipeline but is within a CPU read-back's noise.
    samples = {"line": 10, "syncs": 5, "sync_blocked_s": 6e-4, "sync_blocked_samples": [120e-6] * 5}
    on_cpu = report_for(document([samples], [10], "cpu"), [("JAX201", 10)])
    on_gpu = report_for(document([samples], [10], "gpu", ready=15e-6), [("JAX201", 10)])
    assert on_cpu["findings"][0]["verdict"] == REFUTED
    assert on_gpu["findings"][0]["verdict"] == CONFIRMED
    assert on_gpu["thresholds"]["platform"] == "gpu"


def test_rebinding_positions():
    source = "a = 1\nparams, loss = step(params, x, lr)\nout = f(x)\n"
    assert rebinding_positions(source, 2) == {0}
    assert rebinding_positions(source, 3) == set()
    assert rebinding_positions(source, 1) == set()


def test_cache_miss_reasons_name_files_not_paths():
    from jaxlint.runtime_checks.trace_join import short_reason

    reason = "never seen function: <lambda> id=1 defined at /home/u/project/train.py:48 but seen another"
    assert short_reason(reason) == "never seen function: <lambda> id=1 defined at train.py:48 but seen another"


def test_two_shapes_of_an_eager_op_are_not_a_recompilation():
    twice = {"line": 12, "compiles": 2, "compiled": {"jit(dot)": 2}}
    assert report_for(document([twice], [12]), [])["runtime_only"] == []
    # ... but when a rule predicted recompilation there, two compilations confirm it.
    assert report_for(document([twice], [12]), [("JAX302", 12)])["findings"][0]["verdict"] == CONFIRMED


def test_uncaught_error_confirms_its_rule_or_is_reported_runtime_only():
    doc = document([], [10, 20])
    doc["at_exit"]["uncaught"] = {"error": "AttributeError", "message": "module 'jax' has no attribute 'tree_map'",
                                  "frames": [{"file": "/p/a.py", "line": 20, "function": "main"},
                                             {"file": "/p/a.py", "line": 10, "function": "sgd"}]}
    confirmed = report_for(doc, [("JAX601", 10)])
    assert confirmed["findings"][0]["verdict"] == CONFIRMED
    assert confirmed["runtime_only"] == []
    unflagged = report_for(doc, [])["runtime_only"]
    assert [(f["line"], f["name"]) for f in unflagged] == [(10, "uncaught-error")]
    # The error of another class at a flagged line does not confirm the rule.
    doc["at_exit"]["uncaught"]["error"] = "KeyError"
    assert report_for(doc, [("JAX601", 10)])["findings"][0]["verdict"] == INCONCLUSIVE


def test_scalar_only_donation_is_refuted_with_the_reason():
    called = {"line": 12, "calls": 5, "called": {"/p/a.py:3:step": 5}}
    probe = {"key": "/p/a.py:3:step", "name": "step", "donatable_argnums": [], "scalar_argnums": [0]}
    finding = report_for(document([called], [12], probes=[probe]), [("JAX401", 12)])["findings"][0]
    assert finding["verdict"] == REFUTED and "only scalars" in finding["evidence"]


def test_gated_sync_is_not_a_runtime_only_stall():
    step = {"line": 11, "calls": 50, "called": {"/p/a.py:3:step": 50}}
    gated = {"line": 13, "syncs": 5, "sync_blocked_s": 0.05, "sync_blocked_samples": [0.01] * 5,
             "sync_kinds": {"float()": 5}}  # `if i % 10 == 0: float(loss)` in a 50-step loop
    assert report_for(document([step, gated], [11, 13]), [])["runtime_only"] == []
    every_step = {**gated, "syncs": 50, "sync_blocked_samples": [0.01] * 50}
    extra = report_for(document([step, every_step], [11, 13]), [])["runtime_only"]
    assert [(f["line"], f["name"]) for f in extra] == [(13, "host-sync-stall")]


def test_timeout_stops_the_command_and_says_so(tmp_path):
    report_path = tmp_path / "report.json"
    status = run(["runtime", "--timeout", "2", "--json-file", str(report_path), "--",
                  sys.executable, "-c", "import time; time.sleep(60)"])
    report = json.loads(report_path.read_text())
    assert status == 0  # nothing was measured, nothing confirmed
    assert report["exit_status"] != 0 and report["elapsed_s"] < 30
    assert any("--timeout 2 s" in note for note in report["notes"])


def test_unusable_donation_warning_is_a_runtime_only_finding(tmp_path, capfd):
    script = tmp_path / "donate.py"
    script.write_text("import jax, jax.numpy as jnp\n"
                      "total = jax.jit(lambda x: x.sum(), donate_argnums=0)\n"
                      "for _ in range(3):\n"
                      "    y = total(jnp.ones(4))\n"
                      "print(float(y))\n")
    report_path = tmp_path / "report.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path)
        status = run(["runtime", "--json-file", str(report_path), "--", sys.executable, "donate.py"])
    report = json.loads(report_path.read_text())
    assert status == 1
    assert [(f["line"], f["name"]) for f in report["runtime_only"]] == [(4, "unusable-donation")]
    assert "donated buffers were not usable" in report["runtime_only"][0]["evidence"]
    assert "4.0" in capfd.readouterr().out  # the program's own print


def test_no_probe_skips_the_donation_probe(tmp_path):
    report_path = tmp_path / "report.json"
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(SCRIPT_DIR)
        run(["runtime", "--no-probe", "--json-file", str(report_path), "--", sys.executable, "train.py",
             "--steps", "3", "--width", "64"])
    donation = by_code(json.loads(report_path.read_text()))["JAX401"]
    assert donation["verdict"] == INCONCLUSIVE and "--no-probe" in donation["evidence"]
