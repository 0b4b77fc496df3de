"""End to end: each rule's evidence path in a child process, on small inputs, on CPU.

The fixtures' own `<name>__fixed` versions are used (fixed_text=None), so these tests check the
runtime mode, not the fixer; one test feeds a fixed source the way the fixer does.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from jaxlint.runtime_checks.cli import runtime_command
from jaxlint.runtime_checks.runner import CONTRACT_METRICS, check_finding
from jaxlint.runtime_checks.targets import Finding

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runtime"
TIMEOUT = 120


def check(file, function, code, spec, repeat=3, **extra):
    finding = Finding(str(FIXTURES / file), function, code, extra.pop("line", 1), spec=spec, **extra)
    return check_finding(finding, repeat=repeat, timeout=extra.get("timeout", TIMEOUT))


def test_jax101_tracer_bool_conversion_confirmed():
    result = check("jax101_traced_if.py", "soft_threshold", "JAX101", "f32[64,32], 1.0")
    assert result.verdict == "confirmed", result.evidence
    metrics = result.metrics
    assert metrics["error_original"] == "TracerBoolConversionError"
    assert metrics["agree"] is True and metrics["fixed_by"] == "fixture"
    assert metrics["compiles_fixed"] == 1 and metrics["hlo_ops_fixed"] and metrics["flops"] > 0
    assert result.device["platform"] == "cpu" and result.device["jax_version"]
    assert set(CONTRACT_METRICS) <= set(metrics)


def test_jax102_with_a_fixed_source_from_the_fixer():
    source = (FIXTURES / "jax102_float_in_jit.py").read_text()
    fixed = source.replace("scale = float(jnp.max(jnp.abs(x)))", "scale = jnp.max(jnp.abs(x))")
    result = check("jax102_float_in_jit.py", "scale_to_unit", "JAX102", "f32[64,32]", fixed_text=fixed)
    assert result.verdict == "confirmed", result.evidence
    assert result.metrics["error_original"] == "ConcretizationTypeError"
    assert result.metrics["fixed_by"] == "fixer" and result.metrics["agree"] is True


def test_jax301_unhashable_static_argument_compiles_once_when_fixed():
    result = check("jax301_list_static_arg.py", "column_statistic", "JAX301", "f32[64,32]")
    assert result.verdict == "confirmed", result.evidence
    assert result.metrics["error_original"] == "ValueError"
    assert result.metrics["compiles_fixed_all_calls"] == 1 and result.metrics["cache_size_fixed"] == 1


def test_jax302_jit_in_loop_counts_compilations():
    result = check("jax302_jit_in_loop.py", "smooth", "JAX302", "f32[16,32]", repeat=2)
    assert result.verdict == "confirmed", result.evidence
    metrics = result.metrics
    assert metrics["compiles_original"] >= 20 and metrics["compiles_fixed"] == 1
    # The fixed version's jit is at module level: it compiles on its first call only.
    assert metrics["compiles_per_call_original"] == 20 and metrics["compiles_per_call_fixed"] == 0
    assert metrics["compile_time_original_s"] > metrics["compile_time_fixed_s"]


def test_jax401_donation_lowers_peak_memory():
    result = check("jax401_missing_donation.py", "train", "JAX401", "[f32[128,128]] * 8, [f32[128,128]] * 8",
                   line=19)
    assert result.verdict == "confirmed", result.evidence
    metrics = result.metrics
    one_set = 8 * 128 * 128 * 4
    assert metrics["step_function"] == "sgd_step"
    assert metrics["alias_bytes_fixed"] == one_set and metrics["alias_bytes_original"] == 0
    assert metrics["peak_bytes_original"] - metrics["peak_bytes_fixed"] == one_set
    assert metrics["donated_input_deleted_fixed"] is True and metrics["donated_input_deleted_original"] is False


def test_jax401_without_a_fixed_version_donates_the_rebound_argument():
    # `x = relax(x)` on line 20: no `relax__fixed` exists, the runtime builds the donating jit.
    result = check("jax201_host_sync_loop.py", "relax_until_converged", "JAX401", "f32[16,32]", line=20)
    assert result.metrics["fixed_by"] == "runtime: donate_argnums=[0]"
    assert result.metrics["donated_input_deleted_fixed"] is True and result.verdict == "confirmed"


def test_jax201_host_loop_runs_both_versions():
    result = check("jax201_host_sync_loop.py", "fit", "JAX201", "f32[32,32], f32[8,32]")
    metrics = result.metrics
    assert metrics["agree"] is True and metrics["time_original_s"] > 0 and metrics["time_fixed_s"] > 0
    assert metrics["transfer_guard_original"] is None  # the guard cannot observe syncs on CPU
    assert result.verdict in ("confirmed", "refuted", "inconclusive")
    if result.verdict != "inconclusive":
        assert "timing only" in result.evidence


def test_jax402_counts_compiles_and_times_calls():
    result = check("jax402_vmap_of_jit.py", "all_features", "JAX402", "f32[16,64]")
    metrics = result.metrics
    assert metrics["agree"] is True and metrics["compiles_per_call_fixed"] == 0
    assert metrics["hlo_ops_original"] and metrics["hlo_ops_fixed"] and metrics["speedup"] > 0


def test_pallas_kernel_compared_in_interpret_mode():
    alternative = f"{FIXTURES / 'pallas_softmax.py'}:softmax_pallas"
    result = check("pallas_softmax.py", "softmax_xla", "compare", "f32[32,128]", alternative=alternative)
    assert result.verdict == "confirmed", result.evidence
    assert result.metrics["agree"] is True and result.metrics["time_fixed_s"] > 0


def write_module(tmp_path, body):
    module = tmp_path / "user_code.py"
    module.write_text("import os, signal, time\nimport jax.numpy as jnp\n\n" + body)
    return str(module)


def test_hang_becomes_inconclusive(tmp_path):
    path = write_module(tmp_path, "def hang(x):\n    time.sleep(600)\n")
    result = check_finding(Finding(path, "hang", "JAX402", 4, spec="f32[2]"), repeat=1, timeout=4)
    assert result.verdict == "inconclusive" and "timed out after 4 s" in result.evidence


@pytest.mark.parametrize("body, reason", [
    ("def crash(x):\n    os.kill(os.getpid(), signal.SIGSEGV)\n", "signal SIGSEGV"),
    ("def crash(x):\n    os.kill(os.getpid(), signal.SIGKILL)\n", "out of memory?"),
    ("def crash(x):\n    os._exit(3)\n", "status 3"),
])
def test_crash_becomes_inconclusive(tmp_path, body, reason):
    result = check_finding(Finding(write_module(tmp_path, body), "crash", "JAX402", 4, spec="f32[2]"),
                           repeat=1, timeout=TIMEOUT)
    assert result.verdict == "inconclusive" and reason in result.evidence


def test_missing_examples_and_broken_setup_are_inconclusive(tmp_path):
    no_spec = check_finding(Finding(str(FIXTURES / "jax102_float_in_jit.py"), "scale_to_unit", "JAX102", 12),
                            repeat=1, timeout=TIMEOUT)
    assert no_spec.verdict == "inconclusive" and "--example" in no_spec.evidence
    missing = check_finding(Finding(write_module(tmp_path, "x = 1\n"), "absent", "JAX102", 1, spec="f32[2]"),
                            repeat=1, timeout=TIMEOUT)
    assert missing.verdict == "inconclusive" and "AttributeError" in missing.evidence


def test_cli_json_contract_and_exit_status(tmp_path):
    examples = tmp_path / "examples.toml"
    examples.write_text(f'["{FIXTURES / "jax101_traced_if.py"}::soft_threshold"]\nexample = "f32[16,8], 1.0"\n'
                        'codes = ["JAX101"]\n')
    runner = CliRunner()
    result = runner.invoke(runtime_command, [str(FIXTURES / "jax101_traced_if.py"), "--examples", str(examples),
                                             "--repeat", "2", "--format", "json"])
    assert result.exit_code == 1, result.output  # a confirmed finding, like `check` with findings
    rows = json.loads(result.stdout)
    row = next(row for row in rows if row["code"] == "JAX101")
    assert {"function", "filename", "code", "line", "verdict", "evidence", "metrics"} <= set(row)
    assert row["function"] == "soft_threshold" and row["verdict"] == "confirmed"
    assert set(CONTRACT_METRICS) <= set(row["metrics"])


def test_cli_usage_errors():
    runner = CliRunner()
    assert runner.invoke(runtime_command, ["missing.py"]).exit_code == 2
    bad_spec = runner.invoke(runtime_command, [str(FIXTURES / "jax102_float_in_jit.py"), "--example", "q8[2]"])
    assert bad_spec.exit_code == 2 and "unknown dtype" in bad_spec.output
    no_function = runner.invoke(runtime_command, [f"{FIXTURES / 'jax102_float_in_jit.py'}::nope"])
    assert no_function.exit_code == 2


def test_plot_degrades_without_matplotlib_or_writes_png(tmp_path):
    from jaxlint.runtime_checks.report import plot

    message = plot([], str(tmp_path / "out.png"))
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert "matplotlib is not installed" in message and not (tmp_path / "out.png").exists()
    else:
        assert (tmp_path / "out.png").stat().st_size > 0


def test_the_runtime_command_does_not_import_jax():
    code = ("import sys; import jaxlint.runtime_checks.cli, jaxlint.runtime_checks.report; "
            "assert 'jax' not in sys.modules, 'jax imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_fix_that_reads_a_donated_buffer_is_fix_regressed():
    result = check("fix_regressed_use_after_donate.py", "train", "JAX401", "f32[64,64], f32[64,64]", line=23)
    assert result.verdict == "fix regressed", result.evidence
    assert result.metrics["error_fixed"] is not None
    assert "deleted" in result.metrics["error_message_fixed"].lower() or "donat" in result.metrics["error_message_fixed"].lower()
