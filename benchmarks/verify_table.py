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


def _saving(before, after) -> str:
    if not before or not after:
        return "-"
    saving = 1 - after / before
    return "0%" if abs(saving) < 0.005 else f"{saving:.0%}"


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
        saving = _saving(m["peak_bytes_before"], m["peak_bytes_after"])
        lines.append(
            f"| {fix['code']} {fix['filename']}:{fix['line']} | {fix['verdict']} "
            f"| {m['compiles_before']} -> {m['compiles_after']} | {m['syncs_before']} -> {m['syncs_after']} "
            f"| {_megabytes(m['peak_bytes_before'])} -> {_megabytes(m['peak_bytes_after'])} ({saving}) "
            f"| {_seconds(m['wall_s_before'])} -> {_seconds(m['wall_s_after'])} ({_ratio(m['wall_s_before'], m['wall_s_after'])}) "
            f"| {_seconds(m['step_s_before'])} -> {_seconds(m['step_s_after'])} ({_ratio(m['step_s_before'], m['step_s_after'])}) "
            f"| {m['outputs_agree']} |")
    runs = report.get("runs") or []
    together = next((run for run in runs[1:] if run["label"].startswith("all ")), None)
    if runs and together is not None:
        lines.append(_together_row(runs[0], together))
    if runs:
        lines += ["", "Runs: " + "; ".join(f"{run['label']}: {run['wall_s']:.2f} s, {run['compiles']} compilations, "
                                           f"{run['syncs']} syncs" for run in runs) + "."]
    return "\n".join(lines) + "\n"


def _together_row(original: dict, together: dict) -> str:
    """The run with every fix applied, against the original (the step: the function both call that
    the original calls most often)."""
    common = [name for name in original.get("calls", {}) if name in together.get("calls", {})]
    step = max(common, key=lambda name: original["calls"][name]["calls"], default=None)
    step_before = original["calls"][step]["median_interval_s"] if step else None
    step_after = together["calls"][step]["median_interval_s"] if step else None
    saving = _saving(original.get("peak_bytes"), together.get("peak_bytes"))
    return (f"| {together['label']} | - | {original['compiles']} -> {together['compiles']} "
            f"| {original['syncs']} -> {together['syncs']} "
            f"| {_megabytes(original.get('peak_bytes'))} -> {_megabytes(together.get('peak_bytes'))} ({saving}) "
            f"| {_seconds(original['wall_s'])} -> {_seconds(together['wall_s'])} ({_ratio(original['wall_s'], together['wall_s'])}) "
            f"| {_seconds(step_before)} -> {_seconds(step_after)} ({_ratio(step_before, step_after)}) "
            f"| {together.get('outputs_agree')} |")


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    with open(argv[0], encoding="utf-8") as stream:
        sys.stdout.write(table(json.load(stream)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
