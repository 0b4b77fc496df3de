"""The parent side of a check: one child process per finding, with a timeout, and its verdict.

User code never runs in jaxlint's own process. The child gets a job file and writes a result
file (stdout stays the user's: their prints cannot corrupt the result). A timeout kills the
child's whole process group; a crash (signal, non-zero exit, no result file) or an
out-of-memory kill becomes an `inconclusive` verdict with the reason, and the run goes on.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from jaxlint.runtime_checks.targets import COMPARE_CODE, Finding
from jaxlint.runtime_checks.verdicts import INCONCLUSIVE, Verdict, decide

CONTRACT_METRICS = (
    "error_original", "compiles_original", "compiles_fixed", "time_original_s", "time_fixed_s",
    "speedup", "compile_time_original_s", "compile_time_fixed_s", "peak_bytes_original",
    "peak_bytes_fixed", "hlo_ops_original", "hlo_ops_fixed", "flops", "bytes_accessed", "agree",
)


@dataclass
class CheckResult:
    finding: Finding
    verdict: str
    evidence: str
    metrics: dict = field(default_factory=dict)
    device: dict | None = None

    def to_json(self) -> dict:
        return {
            "function": self.finding.function,
            "filename": self.finding.filename,
            "code": self.finding.code,
            "name": self.finding.name,
            "line": self.finding.line,
            "verdict": self.verdict,
            "evidence": self.evidence,
            "metrics": self.metrics,
            "alternative": self.finding.alternative,
        }


def empty_metrics() -> dict:
    return {key: None for key in CONTRACT_METRICS}


def child_command() -> list[str]:
    return [sys.executable, "-m", "jaxlint.runtime_checks.child"]


def child_environment() -> dict:
    environment = dict(os.environ)
    # Allocate GPU memory on demand: one finding's child must not reserve 75% of the device,
    # and an out-of-memory then reflects the program, not the preallocation.
    environment.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    environment.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    # The child imports jaxlint from wherever this process did.
    package_root = str(Path(__file__).resolve().parents[2])
    environment["PYTHONPATH"] = os.pathsep.join(filter(None, [package_root, environment.get("PYTHONPATH")]))
    return environment


def run_child(job: dict | list, timeout: float, command: list[str] | None = None) -> tuple[dict | None, str | None]:
    """Run one job (or a list of jobs); return (result(s), None) or (None, why it failed)."""
    with tempfile.TemporaryDirectory(prefix="jaxlint-runtime-") as folder:
        job_path, result_path = Path(folder, "job.json"), Path(folder, "result.json")
        job_path.write_text(json.dumps(job), encoding="utf-8")
        process = subprocess.Popen(
            [*(command or child_command()), str(job_path), str(result_path)],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
            env=child_environment(), start_new_session=True,  # its own group: kill takes its children too
        )
        try:
            _, stderr = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _kill_group(process)
            return None, f"timed out after {timeout:g} s (hang, or too slow for --timeout)"
        if process.returncode != 0 or not result_path.is_file():
            return None, _crash_reason(process.returncode, stderr.decode("utf-8", "replace"))
        try:
            return json.loads(result_path.read_text(encoding="utf-8")), None
        except json.JSONDecodeError as error:
            return None, f"unreadable result from the child process: {error}"


def _kill_group(process: subprocess.Popen) -> None:
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        process.kill()
    process.communicate()


def _crash_reason(returncode: int, stderr: str) -> str:
    tail = [line for line in stderr.strip().splitlines() if line.strip()][-1:]
    detail = f": {tail[0][:300]}" if tail else ""
    if returncode == -signal.SIGKILL:
        return f"the child process was killed (SIGKILL: out of memory?){detail}"
    if returncode < 0:
        return f"the child process crashed with signal {signal.Signals(-returncode).name}{detail}"
    if "RESOURCE_EXHAUSTED" in stderr or "out of memory" in stderr.lower():
        return f"the child process ran out of memory{detail}"
    return f"the child process exited with status {returncode}{detail}"


def job_for(finding: Finding, repeat: int, seed: int = 0) -> dict:
    return {"filename": finding.filename, "function": finding.function, "code": finding.code,
            "line": finding.line, "spec": finding.spec, "fixed_text": finding.fixed_text,
            "alternative": finding.alternative, "repeat": repeat, "warmup": 1, "seed": seed}


def check_finding(finding: Finding, repeat: int, timeout: float, command: list[str] | None = None) -> CheckResult:
    """Run one finding's check in a child and decide its verdict."""
    if finding.spec is None:
        return CheckResult(finding, INCONCLUSIVE, "No example inputs: give --example SPEC or an examples file.",
                           empty_metrics())
    result, failure = run_child(job_for(finding, repeat), timeout, command)
    if failure is not None:
        return CheckResult(finding, INCONCLUSIVE, f"Not decided: {failure}.", empty_metrics())
    return _result_for(finding, result)


def check_findings(findings: list[Finding], repeat: int, timeout: float, command: list[str] | None = None,
                   batch: bool = False) -> list[CheckResult]:
    """Check several findings: one child each, or with `batch` all in one child.

    A batch saves a JAX start-up per finding, but shares one process: compile caches of eager
    ops carry over between findings, and a crash or a timeout (`timeout` per finding, summed)
    makes every finding of the batch inconclusive. One child per finding stays the default.
    """
    if not batch:
        return [check_finding(finding, repeat, timeout, command) for finding in findings]
    runnable = [finding for finding in findings if finding.spec is not None]
    results, failure = run_child([job_for(finding, repeat) for finding in runnable],
                                 timeout * max(1, len(runnable)), command) if runnable else ([], None)
    by_finding = dict(zip(map(id, runnable), results or []))
    checked = []
    for finding in findings:
        if finding.spec is None or failure is not None:
            checked.append(check_finding(finding, repeat, timeout, command) if finding.spec is None else
                           CheckResult(finding, INCONCLUSIVE, f"Not decided: {failure}.", empty_metrics()))
            continue
        checked.append(_result_for(finding, by_finding[id(finding)]))
    return checked


def _result_for(finding: Finding, result: dict) -> CheckResult:
    metrics = {**empty_metrics(), **(result.get("metrics") or {})}
    if finding.code != COMPARE_CODE and finding.fixer_note and metrics.get("fixed_by") == "fixture":
        metrics["fixer_note"] = finding.fixer_note
    device = result.get("device")
    if result.get("error"):
        return CheckResult(finding, INCONCLUSIVE, f"The check could not run: {result['error']}.", metrics, device)
    verdict: Verdict = decide(finding.code, metrics, (device or {}).get("platform"))
    return CheckResult(finding, verdict.verdict, verdict.evidence, metrics, device)
