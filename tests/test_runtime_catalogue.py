"""The runtime mode over the rest of the catalogue, on CPU: one fixture per rule.

The findings come from `fixtures/runtime/examples.toml` through the same path as the CLI
(static engine, fixer in memory, `<name>__fixed` fallbacks), and all run in ONE child process
(`check_findings(..., batch=True)`), so the whole file costs one JAX start-up. No assertion
depends on a timing.
"""

from pathlib import Path

import pytest

from jaxlint.runtime_checks.examples import load_examples
from jaxlint.runtime_checks.hlo import constant_bytes
from jaxlint.runtime_checks.runner import CONTRACT_METRICS, check_findings
from jaxlint.runtime_checks.targets import Finding, collect_findings, parse_target
from jaxlint.runtime_checks.verdicts import CONFIRMED, ERROR_RULES, INCONCLUSIVE, REFUTED, decide

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runtime"
CATALOGUE = ["JAX103", "JAX104", "JAX105", "JAX106", "JAX107", "JAX108", "JAX109", "JAX202", "JAX203",
             "JAX303", "JAX304", "JAX305", "JAX306", "JAX307", "JAX403", "JAX501", "JAX502", "JAX503",
             "JAX504", "JAX601", "JAX602", "JAX701"]

REMOVED_AT_IMPORT = "from jax import tree_map\n\n\ndef halve(params):\n    return tree_map(lambda p: p / 2, params)\n"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    examples = load_examples(FIXTURES / "examples.toml")
    findings = []
    for code in CATALOGUE:
        path = next(FIXTURES.glob(f"{code.lower()}_*.py"))
        found, _ = collect_findings(parse_target(str(path)), examples, None, [])
        findings += [finding for finding in found if finding.code == code]
    # A removed API imported at module level: the module itself fails to import.
    module = tmp_path_factory.mktemp("removed") / "removed_import.py"
    module.write_text(REMOVED_AT_IMPORT)
    fixed = REMOVED_AT_IMPORT.replace("from jax import tree_map", "import jax").replace("tree_map(", "jax.tree.map(")
    findings.append(Finding(str(module), "halve", "JAX601", 1, spec="[f32[4], f32[2]]", fixed_text=fixed))
    checked = check_findings(findings, repeat=3, timeout=120, batch=True)
    by_code = {}
    for result in checked:
        key = result.finding.code + (" import" if result.finding.function == "halve" else "")
        by_code[key] = result
    return by_code


def test_every_rule_of_the_catalogue_was_checked(results):
    assert set(CATALOGUE) <= set(results)
    for code in CATALOGUE:
        assert set(CONTRACT_METRICS) <= set(results[code].metrics), code
        assert results[code].device["platform"] == "cpu"


@pytest.mark.parametrize("code, error", [
    ("JAX103", "TracerArrayConversionError"),
    ("JAX105", "TypeError"),
    ("JAX106", "NonConcreteBooleanIndexError"),
    ("JAX108", "TracerIntegerConversionError"),
    ("JAX109", "AttributeError"),
    ("JAX306", "ValueError"),
    ("JAX307", "TypeError"),
    ("JAX601", "AttributeError"),
])
def test_error_rules_raise_and_the_fix_agrees(results, code, error):
    result = results[code]
    assert result.verdict == CONFIRMED, result.evidence
    assert result.metrics["error_original"] == error
    assert result.metrics["error_fixed"] is None and result.metrics["agree"] is True, result.evidence


def test_references_for_errors_that_also_happen_without_jit(results):
    assert results["JAX105"].metrics["reference"] == "clip_first__reference"  # the NumPy equivalent
    assert results["JAX601"].metrics["reference"] == "scale_tree__reference"
    assert results["JAX103"].metrics["reference"] == "the un-jitted original"
    # The fixer, in memory, produced these fixed versions (not the fixtures' `__fixed`).
    for code in ("JAX103", "JAX105", "JAX108", "JAX109", "JAX601"):
        assert results[code].metrics["fixed_by"] == "fixer", code


def test_removed_api_imported_at_module_level(results):
    result = results["JAX601 import"]
    assert result.verdict == CONFIRMED, result.evidence
    assert result.metrics["error_original"] == "ImportError" and result.metrics["error_at_import"] is True
    assert result.metrics["fixed_by"] == "fixer" and result.metrics["error_fixed"] is None


def test_jax104_prints_a_tracer_once(results):
    result = results["JAX104"]
    assert result.verdict == CONFIRMED, result.evidence
    assert result.metrics["stdout_lines_original"] == [1, 0, 0] and result.metrics["stdout_tracer_original"]
    assert result.metrics["stdout_lines_fixed"] == 1 and not result.metrics["stdout_tracer_fixed"]


def test_jax107_leaks_a_tracer(results):
    metrics = results["JAX107"].metrics
    assert results["JAX107"].verdict == CONFIRMED
    assert metrics["state_changed_first_call"] == ["losses"] and metrics["state_changed_later_calls"] == []
    assert metrics["leaked_tracers"] == ["losses"] and metrics["leaked_tracer_error"] == "UnexpectedTracerError"


def test_jax202_interval_and_blocked_time_are_both_measured(results):
    metrics = results["JAX202"].metrics
    assert metrics["measured_interval_original_s"] > 0 and metrics["time_original_s"] > 0
    assert metrics["measured_interval_fixed_s"] > 0 and metrics["fixed_by"] == "fixer"
    assert results["JAX202"].verdict in (CONFIRMED, REFUTED, INCONCLUSIVE)


def test_jax303_compiles_once_per_distinct_value(results):
    result = results["JAX303"]
    assert result.verdict == CONFIRMED, result.evidence
    metrics = result.metrics
    assert metrics["static_values_original"] == 6 and metrics["callee_calls_original"] == 6
    assert metrics["compiles_original"] >= 6 and metrics["cache_size_original"] == 6
    assert metrics["compiles_fixed"] == 1 and metrics["agree"] is True


def test_jax305_constant_is_embedded_in_the_hlo(results):
    result = results["JAX305"]
    assert result.verdict == CONFIRMED, result.evidence
    metrics = result.metrics
    assert metrics["captured_bytes"] == 512 * 256 * 4
    assert metrics["hlo_constant_bytes_original"] >= 512 * 256 * 4 > metrics["hlo_constant_bytes_fixed"]
    assert metrics["agree"] is True


def test_jax501_two_samplers_share_a_key(results):
    result = results["JAX501"]
    assert result.verdict == CONFIRMED, result.evidence
    metrics = result.metrics
    assert metrics["reused_key_draws_original"] == 1 and metrics["reused_draws_identical_prefix"] is True
    assert metrics["reused_key_draws_fixed"] == 0


def test_jax502_host_random_is_frozen_under_jit(results):
    result = results["JAX502"]
    assert result.verdict == CONFIRMED, result.evidence
    assert result.metrics["identical_under_jit"] is True and result.metrics["varies_without_jit"] is True


def test_jax503_nan_in_the_original_gradient_only(results):
    result = results["JAX503"]
    assert result.verdict == CONFIRMED, result.evidence
    metrics = result.metrics
    assert metrics["grad_nan_original"] > 0 and metrics["grad_nan_fixed"] == 0 and metrics["agree"] is True


def test_jax504_float64_comes_back_float32(results):
    result = results["JAX504"]
    assert result.verdict == CONFIRMED, result.evidence
    assert result.metrics["x64_enabled"] is False and result.metrics["result_dtypes_original"] == ["float32"]
    assert result.metrics["dtype_warnings_original"]


def test_jax602_deprecation_warning_recorded_and_gone_when_fixed(results):
    result = results["JAX602"]
    assert result.verdict == CONFIRMED, result.evidence
    assert "pjit" in result.metrics["deprecation_warnings_original"][0]
    assert result.metrics["deprecation_warnings_fixed"] == [] and result.metrics["agree"] is True


@pytest.mark.parametrize("code", ["JAX203", "JAX304", "JAX403", "JAX701"])
def test_timed_rules_measure_both_versions(results, code):
    metrics = results[code].metrics
    assert metrics["agree"] is True, results[code].evidence
    assert metrics["time_original_s"] > 0 and metrics["time_fixed_s"] > 0
    assert metrics["compile_time_original_s"] is not None and metrics["compile_time_fixed_s"] is not None
    assert results[code].verdict in (CONFIRMED, REFUTED, INCONCLUSIVE)


def test_jax304_reports_compile_time_of_both(results):
    metrics = results["JAX304"].metrics
    assert metrics["compile_time_original_s"] > 0 and metrics["compile_time_fixed_s"] > 0
    assert "compile" in results["JAX304"].evidence


# ---------------------------------------------------------------- pure parts, no child process

def test_error_table_covers_the_error_rules():
    assert {"JAX101", "JAX102", "JAX103", "JAX105", "JAX106", "JAX108", "JAX109", "JAX301", "JAX306",
            "JAX307", "JAX601"} == set(ERROR_RULES)
    refuted = decide("JAX109", {"error_original": None})
    assert refuted.verdict == REFUTED
    wrong = decide("JAX306", {"error_original": "ValueError", "error_message_original": "shapes differ"})
    assert wrong.verdict == INCONCLUSIVE


def test_new_verdicts_from_metrics():
    assert decide("JAX502", {"identical_under_jit": True, "varies_without_jit": False}).verdict == INCONCLUSIVE
    assert decide("JAX502", {"identical_under_jit": False, "varies_without_jit": True}).verdict == REFUTED
    assert decide("JAX503", {"grad_nan_original": 0, "grad_size": 4}).verdict == REFUTED
    assert decide("JAX504", {"x64_enabled": True, "result_dtypes_original": ["float64"]}).verdict == REFUTED
    assert decide("JAX602", {"deprecation_warnings_original": []}).verdict == REFUTED
    assert decide("JAX303", {"compiles_original": 1, "static_values_original": 1}).verdict == REFUTED
    assert decide("JAX107", {"state_changed_first_call": []}).verdict == INCONCLUSIVE
    assert decide("JAX202", {"measured_interval_original_s": 1e-3, "time_original_s": 1e-3}).verdict == REFUTED
    assert decide("JAX305", {"captured_arrays": []}).verdict == INCONCLUSIVE


def test_constant_bytes_of_hlo_text():
    text = ("ENTRY %main {\n  %constant.1 = f32[512,256]{1,0} constant({...})\n"
            "  %constant.2 = s32[] constant(0)\n  %p = f32[4]{0} parameter(0)\n}\n")
    assert constant_bytes(text) == 512 * 256 * 4 + 4
