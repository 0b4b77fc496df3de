"""The table of one `jaxlint fix --verify --format json` report, as markdown (for README_runtime.md).

    python benchmarks/verify_table.py report.json > verify_table.md

Speedup is the original's time over the fixed one's (run: the whole command; step: the median
interval between calls of the training step); memory saving is 1 - peak after / peak before.
Every number comes from the report; none is typed in.
"""

from __future__ import annotations

import json
import shlex
import sys


def _ratio(before, after) -> str:
    if not before or not after:
        return "-"
    return f"{before / after:.2f}x"


def _seconds(value) -> str:
    if value is None:
        return "-"
    return f"{value * 1e3:.2f} ms" if value < 1 else f"{value:.2f} s"


def _megabytes(value) -> str:
    return "-" if value is None else f"{value / 1e6:.1f} MB"


def table(report: dict) -> str:
    device = report.get("device") or {}
    lines = [
        f"`{shlex.join(report['command'])}` on {device.get('device_kind')} ({device.get('platform')}), "
        f"jax {device.get('jax_version')}, Python {device.get('python_version')}; written: "
        f"{', '.join(report['written']) or 'nothing'}.",
        "",
        "| fix | verdict | compilations | host syncs | peak memory (saving) | run (speedup) | step (speedup) | outputs agree |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for fix in report["fixes"]:
        m = fix["metrics"]
        saving = "-"
        if m["peak_bytes_before"] and m["peak_bytes_after"]:
            saving = f"{1 - m['peak_bytes_after'] / m['peak_bytes_before']:.0%}"
        lines.append(
            f"| {fix['code']} {fix['filename']}:{fix['line']} | {fix['verdict']} "
            f"| {m['compiles_before']} -> {m['compiles_after']} | {m['syncs_before']} -> {m['syncs_after']} "
            f"| {_megabytes(m['peak_bytes_before'])} -> {_megabytes(m['peak_bytes_after'])} ({saving}) "
            f"| {_seconds(m['wall_s_before'])} -> {_seconds(m['wall_s_after'])} ({_ratio(m['wall_s_before'], m['wall_s_after'])}) "
            f"| {_seconds(m['step_s_before'])} -> {_seconds(m['step_s_after'])} ({_ratio(m['step_s_before'], m['step_s_after'])}) "
            f"| {m['outputs_agree']} |")
    runs = report.get("runs") or []
    if runs:
        lines += ["", "Runs: " + "; ".join(f"{run['label']}: {run['wall_s']:.2f} s, {run['compiles']} compilations, "
                                           f"{run['syncs']} syncs" for run in runs) + "."]
    return "\n".join(lines) + "\n"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as stream:
        sys.stdout.write(table(json.load(stream)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
