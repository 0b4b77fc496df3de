"""One traced run of the data-parallel demo on every local device, and the fixed script's speedup,
written as the multi-device table of benchmarks/README_runtime.md.

    python benchmarks/runtime_multidevice.py --out results/ --steps 50 --rounds 3

In fixtures/runtime/multidevice/: `jaxlint runtime --json-file ... -- python data_parallel.py --steps N`
(the report: findings, runtime-only findings, transfers, collectives), the same for
`data_parallel_fixed.py` and `collectives.py`, then both scripts without jaxlint in alternating
rounds, each printing its own loop time; the speedup is the ratio of the medians. Nothing in the
table is typed in. On a CPU, set XLA_FLAGS=--xla_force_host_platform_device_count=2 first.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from runtime_command_table import cell  # noqa: E402

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "runtime" / "multidevice"
_TIMING = re.compile(r"timing: pmap loop ([\d.]+) s, sharded loop ([\d.]+) s, total ([\d.]+) s")


def traced(script: str, extra: list[str], out: Path, name: str) -> dict:
    report_path = (out / f"{name}.json").resolve()
    command = [sys.executable, "-m", "jaxlint", "runtime", "--json-file", str(report_path), "--", sys.executable,
               script, *extra]
    completed = subprocess.run(command, cwd=FIXTURES, check=False, capture_output=True, text=True)
    (out / f"{name}.txt").write_text(completed.stdout + completed.stderr)
    report = json.loads(report_path.read_text())
    report["jaxlint_status"] = completed.returncode
    return report


def timed(script: str, extra: list[str]) -> tuple[float, float, float]:
    completed = subprocess.run([sys.executable, script, *extra], cwd=FIXTURES, check=True, capture_output=True,
                               text=True)
    match = _TIMING.search(completed.stdout)
    return tuple(float(value) for value in match.groups())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    extra = ["--steps", str(args.steps)]
    report = traced("data_parallel.py", extra, args.out, "multidevice_report")
    fixed = traced("data_parallel_fixed.py", extra, args.out, "multidevice_fixed_report")
    collective = traced("collectives.py", [], args.out, "multidevice_collectives_report")
    times: dict[str, list[tuple[float, float, float]]] = {"data_parallel.py": [], "data_parallel_fixed.py": []}
    for _ in range(args.rounds):  # alternating, so a noisy neighbour or a clock change hits both
        for script in times:
            times[script].append(timed(script, extra))
    table = markdown(report, fixed, collective, times, args.steps)
    (args.out / "multidevice_table.md").write_text(table)
    print(table)
    return 0


def mb(value) -> str:
    if value is None:
        return "n/a"
    return f"{value / 1e9:.2f} GB" if value >= 1e9 else f"{value / 1e6:.1f} MB" if value >= 1e5 else f"{value / 1e3:.1f} kB"


def findings_rows(report: dict) -> list[str]:
    rows = ["| line | finding | verdict | evidence |", "|---|---|---|---|"]
    for finding in report["findings"]:
        rows.append(f"| {Path(finding['filename']).name}:{finding['line']} | {finding['code']} {finding['name']} | "
                    f"{finding['verdict']} | {cell(finding['evidence'])} |")
    for finding in report["runtime_only"]:
        rows.append(f"| {Path(finding['filename']).name}:{finding['line']} | runtime-only: {finding['name']} | "
                    f"{finding['verdict']} | {cell(finding['evidence'])} |")
    return rows


def transfer_rows(report: dict) -> list[str]:
    rows = ["| line | uploads (host -> device) | of them the same data again | reads (device -> host) | "
            "gathers of split arrays |", "|---|---:|---:|---:|---:|"]
    for line in report.get("transfers", []):
        rows.append(f"| {Path(line['file']).name}:{line['line']} | {line['h2d_count']} ({mb(line['h2d_bytes'])}) | "
                    f"{line['h2d_repeated']} ({mb(line['h2d_repeated_bytes'])}) | {line['d2h_count']} "
                    f"({mb(line['d2h_bytes'])}) | {line['gathers']} ({mb(line['gather_bytes'])}) |")
    return rows


def collective_rows(report: dict) -> list[str]:
    rows = ["| step | transform | devices | calls | collective | count per step | operand bytes per step (per device) "
            "| per run | replica groups |", "|---|---|---:|---:|---|---:|---:|---:|---|"]
    for step in report.get("compiled_steps", []):
        for kind, entry in sorted((step.get("collective_summary") or {}).items()):
            rows.append(f"| {cell(step['name'])} | {step.get('transform')} | {step.get('devices')} | {step.get('calls')} | "
                        f"{kind} | {entry['count']} | {mb(entry['operand_bytes'])} | "
                        f"{mb(entry['operand_bytes'] * (step.get('calls') or 0))} | "
                        f"`{' '.join(entry['replica_groups'][:2])}` |")
    return rows


def markdown(report: dict, fixed: dict, collective: dict, times: dict, steps: int) -> str:
    device = report.get("device") or {}
    totals = report.get("totals") or {}
    original = statistics.median(t[2] for t in times["data_parallel.py"])
    improved = statistics.median(t[2] for t in times["data_parallel_fixed.py"])
    lines = [f"`python data_parallel.py --steps {steps}` on {device.get('device_count')}x {device.get('device_kind')} "
             f"({device.get('platform')}), jax {device.get('jax_version')}, Python {device.get('python_version')}: "
             f"the command's exit status {report['exit_status']}, `jaxlint runtime`'s {report['jaxlint_status']}, "
             f"{report['elapsed_s']:.1f} s.",
             "",
             f"Recorded: {totals.get('compiles')} compilations ({totals.get('compile_s', 0):.2f} s), "
             f"{totals.get('syncs')} host syncs ({totals.get('sync_blocked_s', 0) * 1e3:.1f} ms blocked), "
             f"{totals.get('calls')} calls of compiled entry points, {totals.get('h2d_count')} uploads "
             f"({mb(totals.get('h2d_bytes'))}), {totals.get('d2h_count')} reads to the host ({mb(totals.get('d2h_bytes'))}).",
             "",
             f"Thresholds: {report['thresholds']['text']}.",
             "", *findings_rows(report), "",
             "Transfers per line:", "", *transfer_rows(report), "",
             "Collectives per compiled step (from its HLO):", "", *collective_rows(report), "",
             f"Speedup of the fixed script (`data_parallel_fixed.py`, same sizes and outputs), median of "
             f"{len(times['data_parallel.py'])} alternating runs without jaxlint, each loop timed by the script "
             f"(first compilation included, {steps} steps per loop):",
             "",
             "| script | pmap loop | sharded loop | total | speedup |", "|---|---:|---:|---:|---:|"]
    for script, samples in times.items():
        pmap_s = statistics.median(t[0] for t in samples)
        sharded_s = statistics.median(t[1] for t in samples)
        total = statistics.median(t[2] for t in samples)
        lines.append(f"| {script} | {pmap_s:.3f} s | {sharded_s:.3f} s | {total:.3f} s | {original / total:.2f}x |")
    lines += ["", f"The fixed script under `jaxlint runtime`: {len(fixed['findings'])} static finding(s), "
                  f"{len(fixed['runtime_only'])} runtime-only; donated inputs deleted after the call: " +
                  ", ".join(f"{e['name']} {e['donated_deleted']}/{e['donated_leaves']}" for e in fixed.get("entry_points", [])
                            if e.get("donates")) + f"; exit status {fixed['jaxlint_status']}.",
              "", f"`python collectives.py` (sharded steps that move too much), same device: exit status "
                  f"{collective['exit_status']}.", "", *findings_rows(collective), "",
              *collective_rows(collective), ""]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.exit(main())
