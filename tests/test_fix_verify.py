"""`jaxlint fix --verify -- COMMAND`: fixes proven on the user's own run before they are written.

The end-to-end tests run small scripts of fixtures/verify/ with JAX on the CPU (a few seconds a
run); the comparison helpers are tested without running anything.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from jaxlint.rules.base import Rule
from jaxlint.runtime_checks import verify
from jaxlint.runtime_checks.trace_values import compare_summaries

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "fixtures" / "verify"


def _jaxlint(arguments: list[str], cwd: Path) -> subprocess.CompletedProcess:
    environment = {**__import__("os").environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "jaxlint", *arguments], cwd=cwd, env=environment,
                          capture_output=True, text=True, timeout=300)


def _output(script: Path) -> str:
    return subprocess.run([sys.executable, script.name], cwd=script.parent, capture_output=True, text=True,
                          timeout=120, check=True).stdout


# ---------------------------------------------------------------------- end to end

def test_training_script_gets_three_verified_fixes_written(tmp_path):
    script = tmp_path / "train.py"
    shutil.copy(FIXTURES / "train.py", script)
    original_output = _output(script)
    result = _jaxlint(["fix", "--verify", "--unsafe-fixes", "--no-cache", "--format", "json", "--", sys.executable, "train.py"],
                      tmp_path)
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    assert report["command"] == [sys.executable, "train.py"]
    assert report["device"]["platform"] == "cpu"
    assert report["written"] == ["train.py"]
    verified = [fix for fix in report["fixes"] if fix["verdict"] == "verified"]
    assert {"JAX201", "JAX302", "JAX401", "JAX402"} <= {fix["code"] for fix in verified}
    assert all(fix["metrics"]["outputs_agree"] is True for fix in verified)
    by_code = {fix["code"]: fix["metrics"] for fix in verified}
    # `opt_state` comes from `init_adam(params)`, a helper whose every return value is a new buffer,
    # so donating it is offered; the donated run holds one copy of the state, not two.
    donation = by_code["JAX401"]
    if donation["peak_bytes_before"] is not None and donation["peak_bytes_after"] is not None:
        assert donation["peak_bytes_after"] < donation["peak_bytes_before"]
    assert by_code["JAX302"]["compiles_after"] < by_code["JAX302"]["compiles_before"]
    assert by_code["JAX201"]["syncs_after"] < by_code["JAX201"]["syncs_before"]
    original, together = report["runs"][0], report["runs"][1]
    assert len(together["fixes"]) == len(report["fixes"]) and together["outputs_agree"] is True
    assert together["compiles"] < original["compiles"] and together["syncs"] < original["syncs"]
    # The progress display names each run.
    assert "run 1" in result.stderr and "the command as written" in result.stderr
    fixed = script.read_text()
    assert "jax.jit(lambda" not in fixed.split("def main", 1)[1]
    assert "jax.jit(jax.vmap(predict_one" in fixed
    assert "@functools.partial(jax.jit, donate_argnums=(0, 1))\ndef adam_step" in fixed
    fixed_output = _output(script)
    final = [line for line in original_output.splitlines() if line.startswith("final loss")]
    assert final and final == [line for line in fixed_output.splitlines() if line.startswith("final loss")]


class _WrongConstant(Rule):
    """A rule for this test only: its fix changes `0.25` to `0.3`, so the fixed run disagrees."""

    code = "JAX990"
    name = "test-wrong-constant"
    summary = "test rule"
    node_types = (ast.Constant,)
    fix_availability = "always"

    def check(self, node, context) -> None:
        if node.value == 0.25:
            context.report(node, "test finding", context.fix("change the constant", [context.replace(node, "0.3")], safe=True))


def test_fix_that_changes_values_is_rejected_and_only_the_good_one_written(tmp_path, monkeypatch):
    from jaxlint.cli.common import build_settings, enabled_rules

    script = tmp_path / "small_loop.py"
    shutil.copy(FIXTURES / "small_loop.py", script)
    monkeypatch.chdir(tmp_path)
    settings = build_settings([str(script)], None, ("JAX302",), (), ())
    rules = [*enabled_rules(settings), _WrongConstant()]
    fixable, _ = verify.collect_units([script], tmp_path.resolve(), settings, rules, unsafe=True)
    assert sorted(unit.code for entry in fixable for unit in entry.units) == ["JAX302", "JAX990"]
    messages = []
    verifier = verify.Verifier([sys.executable, "small_loop.py"], fixable, tmp_path.resolve(), settings, rules, True,
                               max_runs=8, timeout_s=120, each_fix=False, progress=messages.append, warm_up=False)
    verification = verifier.verify()
    assert verifier.write_verified() == []
    report = verify.to_report(verification)
    verdicts = {fix["code"]: fix for fix in report["fixes"]}
    assert verdicts["JAX302"]["verdict"] == "verified"
    assert verdicts["JAX990"]["verdict"] == "rejected"
    assert "outputs differ" in verdicts["JAX990"]["reason"]
    assert verdicts["JAX990"]["metrics"]["outputs_agree"] is False
    # the original, both together (they disagree), then each alone
    assert [run["label"] for run in report["runs"]][:2] == ["the command as written", "all 2 fix(es) applied"]
    assert len(report["runs"]) == 4
    text = script.read_text()
    assert "0.25" in text and "0.3" not in text  # the rejected fix is not written
    assert "jax.jit(lambda" not in text.split("def main", 1)[1]  # the verified one is


def test_verify_needs_a_command_and_a_command_that_works(tmp_path):
    (tmp_path / "fails.py").write_text(
        "import jax\n\n\ndef main():\n    y = 1.0\n    for _ in range(10):\n        y = jax.jit(lambda s: s + 1)(y)\n"
        "    raise SystemExit(3)\n\n\nmain()\n")
    no_command = _jaxlint(["fix", "--verify", "fails.py"], tmp_path)
    assert no_command.returncode == 2 and "after `--`" in no_command.stderr
    failing = _jaxlint(["fix", "--verify", "--unsafe-fixes", "--no-cache", "--format", "json", "--", sys.executable, "fails.py"], tmp_path)
    assert failing.returncode == 2, failing.stderr
    report = json.loads(failing.stdout)
    assert report["written"] == [] and report["fixes"]
    assert all(fix["verdict"] == "unverified" for fix in report["fixes"])
    assert "exited with status 3" in report["fixes"][0]["reason"]
    assert "jax.jit(lambda" in (tmp_path / "fails.py").read_text()


# ---------------------------------------------------------------------- comparisons

def test_printed_numbers_agree_within_their_last_digit_and_differ_beyond():
    assert verify.compare_printed("loss 0.123456\n", "loss 0.123457\n")[0] is None
    assert verify.compare_printed("loss 0.123456\n", "loss 0.123499\n")[0] is not None
    assert verify.compare_printed("step 10\n", "step 11\n")[0] is not None  # integers exactly
    assert verify.compare_printed("loss 1.5e-03\n", "loss 1.6e-03\n")[0] is not None
    assert verify.compare_printed("loss nan\n", "loss nan\n")[0] is None


def test_timing_lines_and_lines_printed_once_only_are_not_compared():
    difference, compared = verify.compare_printed("took 3.21 s\nepoch 1 done in 12 ms\nloss 0.5\n", "took 1.02 s\nepoch 1 done in 3 ms\nloss 0.5\n")
    assert difference is None and compared == 1
    difference, compared = verify.compare_printed("step 1 loss 0.9\nstep 2 loss 0.8\nfinal 0.7\n", "final 0.7\n")
    assert difference is None and compared == 1
    assert verify.compare_printed("peak memory 402.7 MB\n", "peak memory 268.4 MB\n") == (None, 0)


def _summary(values, dtype="float32"):
    return [{"dtype": dtype, "shape": [len(values)], "values": values}]


def test_returned_values_are_compared_with_their_dtype_tolerance():
    assert compare_summaries(_summary([1.0, 2.0]), _summary([1.00001, 2.0]), "f") is None
    assert compare_summaries(_summary([1.0, 2.0]), _summary([1.001, 2.0]), "f") is not None
    assert compare_summaries(_summary([1.0], "bfloat16"), _summary([1.01], "bfloat16"), "f") is None
    assert compare_summaries(_summary([1.0], "float64"), _summary([1.000001], "float64"), "f") is not None
    assert compare_summaries(_summary([3.0], "int32"), _summary([4.0], "int32"), "f") is not None
    changed = compare_summaries(_summary([1.0], "float64"), _summary([1.0], "float32"), "step")
    assert changed is not None and "dtype" in changed


def test_large_outputs_are_compared_by_sums_extremes_and_samples():
    base = {"dtype": "float32", "shape": [1000], "size": 1000, "nonfinite": 0, "sum": 500.0, "abs_sum": 500.0,
            "min": 0.0, "max": 1.0, "head": [0.0] * 8, "tail": [1.0] * 8}
    assert compare_summaries([base], [{**base, "sum": 500.001}], "f") is None
    assert compare_summaries([base], [{**base, "sum": 510.0}], "f") is not None
    assert compare_summaries([base], [{**base, "nonfinite": 3}], "f") is not None
    assert compare_summaries([base], [{**base, "tail": [1.0] * 7 + [1.5]}], "f") is not None


# ---------------------------------------------------------------------- fixes one at a time

def test_each_fix_applies_on_its_own_and_all_together_match_the_fixer(tmp_path, monkeypatch):
    from jaxlint.cli.common import build_settings, enabled_rules
    from jaxlint.fixer import fix_source

    script = tmp_path / "train.py"
    shutil.copy(FIXTURES / "train.py", script)
    monkeypatch.chdir(tmp_path)
    settings = build_settings([str(script)], None, (), (), ())
    rules = enabled_rules(settings)
    (entry,), _ = verify.collect_units([script], tmp_path.resolve(), settings, rules, unsafe=True)
    original = entry.decoded.text
    by_code = {unit.code: unit.index for unit in entry.units}
    only_hoist = verify.apply_units(entry, {by_code["JAX302"]}, settings, rules, True)
    assert "main_jit(step)" in only_hoist or "jax.jit(lambda" not in only_hoist.split("def main", 1)[1]
    assert "jax.vmap(jax.jit(predict_one)" in only_hoist and "float(loss)" in only_hoist
    only_sync = verify.apply_units(entry, {by_code["JAX201"]}, settings, rules, True)
    assert "float(loss)" not in only_sync.split("for step", 1)[1].split("print", 1)[0]
    assert "jax.vmap(jax.jit(predict_one)" in only_sync
    everything = verify.apply_units(entry, {unit.index for unit in entry.units}, settings, rules, True)
    assert everything == fix_source(original, str(script), settings, rules, unsafe=True).text
    assert verify.apply_units(entry, set(), settings, rules, True) == original


def test_a_donation_fix_and_the_other_fixes_of_its_file_run_on_their_own():
    from jaxlint.diagnostics import Diagnostic, Position

    def unit(index, code, relative):
        diagnostic = Diagnostic(code, "x", "m", relative, Position(index + 1, 1), Position(index + 1, 2))
        return verify.FixUnit(index, Path(relative), relative, diagnostic, index)

    units = [unit(0, "JAX401", "a.py"), unit(1, "JAX302", "a.py"), unit(2, "JAX402", "b.py")]
    assert [u.index for u in verify._interacting(units)] == [0, 1]
    assert verify._interacting([units[1], units[2]]) == []
    assert verify._interacting([units[0], units[2]]) == []


def test_text_moves_are_followed_through_earlier_edits():
    edits = {(0, 0, "abc"): None, (10, 12, "x"): None}
    assert verify._shift(5, edits) == 8
    assert verify._shift(20, edits) == 22
    assert verify._shift(11, edits) == 13  # inside a replaced span: where the replacement starts


@pytest.mark.parametrize("line", ["step 10: 3.2 it/s", "epoch took 12.5s", "throughput 1200 samples/s"])
def test_speed_lines_are_not_compared(line):
    assert verify.NOT_COMPARED.search(line)


def test_the_originals_own_spread_widens_the_tolerance_and_nothing_else_does():
    before, after = _summary([1.0, 2.0]), _summary([1.002, 2.0])
    assert compare_summaries(before, after, "f") is not None
    assert compare_summaries(before, after, "f", again=_summary([1.0005, 2.0])) is None  # spread 5e-4: 10x covers 2e-3
    assert compare_summaries(before, after, "f", again=_summary([1.0, 2.0])) is not None  # deterministic: no widening
    assert compare_summaries(before, _summary([1.002], "float64"), "f", again=_summary([1.5, 2.0])) is not None  # dtype
    assert verify.compare_printed("loss 0.503000\n", "loss 0.504000\n")[0] is not None
    assert verify.compare_printed("loss 0.503000\n", "loss 0.504000\n", again="loss 0.503400\n")[0] is None
    assert verify.compare_printed("step 10\n", "step 11\n", again="step 12\n")[0] is not None  # integers exactly


def test_float32_on_a_gpu_is_held_to_tf32_precision_and_ints_stay_exact():
    before, after = _summary([1.0, 2.0]), _summary([1.002, 2.0])
    assert compare_summaries(before, after, "f") is not None  # CPU: float32 1e-4
    assert compare_summaries(before, after, "f", platform="gpu") is None
    assert compare_summaries(before, _summary([1.02, 2.0]), "f", platform="gpu") is not None
    assert compare_summaries(_summary([3.0], "int32"), _summary([4.0], "int32"), "f", platform="gpu") is not None
    assert verify.compare_printed("loss 0.503000\n", "loss 0.504000\n", platform="gpu")[0] is None


class _OneToTwo(Rule):
    """A rule for this test only: `name = 1.0` becomes `name = 2.0`."""

    code = "JAX991"
    name = "test-one-to-two"
    summary = "test rule"
    node_types = (ast.Assign,)
    fix_availability = "always"

    def check(self, node, context) -> None:
        if isinstance(node.value, ast.Constant) and node.value.value == 1.0:
            context.report(node.value, "test finding", context.fix("one to two", [context.replace(node.value, "2.0")], safe=True))


def test_fixes_that_pass_alone_but_not_together_keep_only_the_first(tmp_path, monkeypatch):
    """Each change alone leaves the printed product 0; both make it 1. The command is plain Python
    (no jax): runs take milliseconds, and the printed numbers are all there is to compare."""
    from jaxlint.cli.common import build_settings

    script = tmp_path / "product.py"
    # (the comment names jax: the engine reads only modules that mention it)
    script.write_text("# a stand-in for a jax program\na = 1.0\nb = 1.0\nprint(f'product {(a - 1.0) * (b - 1.0):.4f}')\n")
    monkeypatch.chdir(tmp_path)
    settings = build_settings([str(script)], None, ("JAX101",), (), ())
    rules = [_OneToTwo()]
    fixable, _ = verify.collect_units([script], tmp_path.resolve(), settings, rules, unsafe=True)
    verifier = verify.Verifier([sys.executable, "product.py"], fixable, tmp_path.resolve(), settings, rules, True,
                               max_runs=10, timeout_s=60, each_fix=False, progress=lambda line: None, warm_up=False)
    report = verify.to_report(verifier.verify())
    assert verifier.write_verified() == []
    verdicts = [(fix["line"], fix["verdict"]) for fix in report["fixes"]]
    assert sorted(verdict for _, verdict in verdicts) == ["rejected", "verified"]
    rejected = next(fix for fix in report["fixes"] if fix["verdict"] == "rejected")
    assert rejected["reason"].startswith("passes alone, but with JAX991 product.py:")
    assert "printed 0.0000 before and 1.0000 after" in rejected["reason"]
    # the original, both (they disagree), each alone, then the pair again as a trial; no extra joint run
    labels = [run["label"] for run in report["runs"]]
    assert labels[:2] == ["the command as written", "all 2 fix(es) applied"] and len(labels) == 5
    assert script.read_text().count("2.0") == 1


class _AddsASleep(Rule):
    """A rule for this test only: its fix keeps the value and adds a 1.5 s sleep."""

    code = "JAX992"
    name = "test-adds-a-sleep"
    summary = "test rule"
    node_types = (ast.Assign,)
    fix_availability = "always"

    def check(self, node, context) -> None:
        if isinstance(node.value, ast.Constant) and node.value.value == 7:
            context.report(node.value, "test finding",
                           context.fix("sleep", [context.replace(node.value, "__import__('time').sleep(1.5) or 7")], safe=True))


def test_a_fix_that_makes_the_run_slower_is_rejected_after_a_second_look(tmp_path, monkeypatch):
    from jaxlint.cli.common import build_settings

    script = tmp_path / "seven.py"
    script.write_text("# a stand-in for a jax program\nx = 7\nprint(f'x {x}')\n")
    monkeypatch.chdir(tmp_path)
    settings = build_settings([str(script)], None, ("JAX101",), (), ())
    rules = [_AddsASleep()]
    fixable, _ = verify.collect_units([script], tmp_path.resolve(), settings, rules, unsafe=True)
    verifier = verify.Verifier([sys.executable, "seven.py"], fixable, tmp_path.resolve(), settings, rules, True,
                               max_runs=6, timeout_s=60, each_fix=False, progress=lambda line: None, warm_up=False)
    report = verify.to_report(verifier.verify())
    (fix,) = report["fixes"]
    assert fix["verdict"] == "rejected" and fix["reason"].startswith("slower:")
    assert "the shorter of two runs each" in fix["reason"]
    assert fix["metrics"]["outputs_agree"] is True and fix["metrics"]["wall_s_after"] > fix["metrics"]["wall_s_before"] + 1.0
    # the fixed run once more, and the unchanged program in the scratch copy, before rejecting
    assert [run["label"] for run in report["repeated_runs"]] == [
        "the command unchanged, in the scratch copy (a run looked slower)", "the fix (JAX992 seven.py:2), again (it looked slower)"]
    assert verifier.write_verified() == [] and "sleep" not in script.read_text()


def test_the_affected_step_is_the_function_the_fixs_loop_calls_most():
    from jaxlint.diagnostics import Diagnostic, Position

    text = ("for epoch in range(3):\n"          # 1
            "    for batch in range(100):\n"     # 2
            "        state = train(state)\n"     # 3
            "        total += float(loss)\n"     # 4
            "    for batch in range(5):\n"       # 5
            "        metrics = evaluate(state)\n"  # 6
            "        print(float(metrics))\n"    # 7
            "scaled = jax.vmap(jax.jit(f))\n")   # 8

    def unit(line):
        diagnostic = Diagnostic("JAX201", "x", "m", "t.py", Position(line, 1), Position(line, 2))
        return verify.FixUnit(0, Path("t.py"), "t.py", diagnostic, 0)

    baseline = verify.RunRecord("b", [], 0, 1.0, Path("."))
    baseline.step_times = {"train": (300, 0.01), "evaluate": (15, 0.2)}
    baseline.call_sites = {"train": [("t.py", 3)], "evaluate": [("t.py", 6)]}
    assert verify.enclosing_loop(unit(4), text) == ("t.py", 2, 4)
    assert verify.step_function(baseline, loop=verify.enclosing_loop(unit(4), text)) == "train"
    assert verify.step_function(baseline, loop=verify.enclosing_loop(unit(7), text)) == "evaluate"
    assert verify.enclosing_loop(unit(8), text) is None
    assert verify.step_function(baseline, loop=None) == "train"


def test_a_fix_in_a_module_imported_from_outside_the_copy_is_left_unverified(tmp_path, monkeypatch):
    """An editable install imports the user's module from the original folder, so the fixed copy
    never runs: nothing may be called verified. Simulated by a PYTHONPATH naming the original folder
    that the scratch runs keep (a `.pth` file of an editable install is not remapped either)."""
    from jaxlint.cli.common import build_settings

    project = tmp_path / "project"
    project.mkdir()
    (project / "helper.py").write_text("# a stand-in for a jax module\nscale = 1.0\n")
    monkeypatch.chdir(project)
    monkeypatch.setenv("PYTHONPATH", str(project))
    monkeypatch.setattr(verify.ScratchProject, "environment", lambda self: dict(__import__("os").environ))
    settings = build_settings([str(project)], None, ("JAX101",), (), ())
    rules = [_OneToTwo()]
    fixable, _ = verify.collect_units([project / "helper.py"], project.resolve(), settings, rules, unsafe=True)
    verifier = verify.Verifier([sys.executable, "-c", "import os; os.chdir('/'); import helper; print(helper.scale)"],
                               fixable, project.resolve(), settings, rules, True, max_runs=4, timeout_s=60,
                               each_fix=False, progress=lambda line: None, warm_up=False)
    (fix,) = verify.to_report(verifier.verify())["fixes"]
    assert fix["verdict"] == "unverified" and "did not run from the scratch copy" in fix["reason"]
    assert verifier.write_verified() == [] and "1.0" in (project / "helper.py").read_text()
