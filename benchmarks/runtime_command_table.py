"""One traced run of the demo training script, written as the table of benchmarks/README_runtime.md.

    python benchmarks/runtime_command_table.py --out results/ [-- extra arguments for train.py]

Runs `jaxlint runtime --json-file ... --html ... -- python train.py --steps 50` in
fixtures/runtime/script/ and prints a Markdown table of the report: nothing in it is typed in.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

SCRIPT_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "runtime" / "script"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("train_args", nargs="*", default=["--steps", "50"])
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    report_path = (args.out / "train_report.json").resolve()
    command = [sys.executable, "-m", "jaxlint", "runtime", "--json-file", str(report_path),
               "--html", str((args.out / "train_report.html").resolve()), "--", sys.executable, "train.py",
               *args.train_args]
    subprocess.run(command, cwd=SCRIPT_DIR, check=False)
    report = json.loads(report_path.read_text())
    table = markdown(report)
    (args.out / "train_table.md").write_text(table)
    print(table)
    return 0


def markdown(report: dict) -> str:
    device = report.get("device") or {}
    totals = report.get("totals") or {}
    live = (report.get("memory_samples") or {}).get("live_array_bytes_max")
    lines = [f"`{' '.join(Path(part).name if part.endswith('python') or '/' in part else part for part in report['command'])}` "
             f"on {device.get('device_kind')} ({device.get('platform')}), jax {device.get('jax_version')}, "
             f"Python {device.get('python_version')}; exit status {report['exit_status']}, {report['elapsed_s']:.1f} s.",
             "",
             f"Recorded: {totals.get('compiles')} compilations ({totals.get('compile_s', 0):.2f} s), "
             f"{totals.get('syncs')} host syncs ({totals.get('sync_blocked_s', 0) * 1e3:.1f} ms blocked), "
             f"{totals.get('calls')} calls of jitted functions"
             + (f", live arrays after a jitted call up to {live / 1e6:.1f} MB." if live else "."),
             "",
             f"Thresholds: {report['thresholds']['text']}.",
             "",
             "| line | finding | verdict | evidence |",
             "|---|---|---|---|"]
    for finding in report["findings"]:
        evidence = cell(finding["evidence"])
        lines.append(f"| {Path(finding['filename']).name}:{finding['line']} | {finding['code']} {finding['name']} | "
                     f"{finding['verdict']} | {evidence} |")
    for finding in report["runtime_only"]:
        lines.append(f"| {Path(finding['filename']).name}:{finding['line']} | runtime-only: {finding['name']} | "
                     f"{finding['verdict']} | {cell(finding['evidence'])} |")
    return "\n".join(lines) + "\n"


def cell(text: str) -> str:
    """A table cell: pipes escaped, and `<lambda>` kept visible (Markdown would read it as a tag)."""
    return text.replace("|", "\\|").replace("<", "&lt;")


if __name__ == "__main__":
    sys.exit(main())
