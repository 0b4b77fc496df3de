"""Render runtime results: JSON (the contract), rich tables, and the optional PNG plot.

The plot needs matplotlib, which jaxlint does not depend on: without it `--plot` says so and
the rest of the report is unchanged.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from typing import Iterable

from jaxlint.runtime_checks.runner import CheckResult
from jaxlint.runtime_checks.verdicts import FIX_REGRESSED, describe_thresholds, megabytes, ratio, seconds

VERDICT_STYLES = {"confirmed": "bold red", "refuted": "green", "inconclusive": "yellow", FIX_REGRESSED: "bold magenta"}

# Dense peak compute (bf16 tensor cores, FLOP/s) and memory bandwidth (B/s) from the vendors'
# data sheets, for the roofline's ceilings. Matched by substring of `device.device_kind`.
DEVICE_PEAKS = {
    "H200": (989e12, 4.8e12),
    "H100": (989e12, 3.35e12),
    "A100": (312e12, 2.0e12),
    "L4": (121e12, 0.3e12),
    "TPU v5 lite": (197e12, 0.82e12),
    "TPU v4": (275e12, 1.2e12),
}


def to_json(results: Iterable[CheckResult]) -> str:
    return json.dumps([result.to_json() for result in results], indent=2, default=str)


def device_line(results: list[CheckResult]) -> str:
    device = next((result.device for result in results if result.device), None)
    if not device:
        return "device: unknown (no check reached the device)"
    return (f"device: {device.get('platform')} / {device.get('device_kind')} x{device.get('device_count')}, "
            f"jax {device.get('jax_version')}, Python {device.get('python_version')}")


def render_text(results: list[CheckResult], console) -> None:
    from rich.table import Table

    console.print(device_line(results))
    platform = next((r.device.get("platform") for r in results if r.device), None)
    console.print(f"thresholds: {describe_thresholds(platform)}", markup=False, highlight=False)
    by_target: "OrderedDict[str, list[CheckResult]]" = OrderedDict()
    for result in results:
        by_target.setdefault(f"{result.finding.filename}::{result.finding.function}", []).append(result)
    for target, rows in by_target.items():
        table = Table(title=target, title_justify="left", show_lines=True, expand=False)
        table.add_column("finding", min_width=14)
        table.add_column("verdict", no_wrap=True)
        table.add_column("evidence", ratio=1, min_width=30)
        for column in ("original", "fixed", "speedup", "peak memory"):
            table.add_column(column, justify="right", no_wrap=True)
        for result in rows:
            metrics = result.metrics
            peak = (f"{megabytes(metrics.get('peak_bytes_original'))} -> {megabytes(metrics.get('peak_bytes_fixed'))}"
                    if metrics.get("peak_bytes_original") is not None else "n/a")
            style = VERDICT_STYLES.get(result.verdict, "")
            table.add_row(f"{result.finding.label}\nline {result.finding.line}",
                          f"[{style}]{result.verdict}[/]", result.evidence,
                          seconds(metrics.get("time_original_s")), seconds(metrics.get("time_fixed_s")),
                          ratio(metrics.get("speedup")), peak)
        console.print(table)
    counts = {verdict: sum(r.verdict == verdict for r in results) for verdict in VERDICT_STYLES}
    console.print(f"{len(results)} finding(s) checked: " + ", ".join(f"{n} {v}" for v, n in counts.items()))


def device_peaks(results: list[CheckResult]) -> tuple[float, float] | None:
    device = next((result.device for result in results if result.device), None) or {}
    kind = str(device.get("device_kind") or "")
    return next((peaks for name, peaks in DEVICE_PEAKS.items() if name in kind), None)


def plot(results: list[CheckResult], path: str) -> str:
    """Write the speedup bars and the roofline; return a line saying what was written."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return f"--plot: matplotlib is not installed (pip install matplotlib); {path} was not written"
    figure, (bars, roofline) = plt.subplots(1, 2, figsize=(14, 5.5))
    _speedup_bars(bars, results)
    _roofline(roofline, results)
    figure.suptitle(device_line(results))
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return f"--plot: wrote {path}"


def _speedup_bars(axes, results: list[CheckResult]) -> None:
    timed = [r for r in results if r.metrics.get("speedup")]
    labels = [f"{r.finding.function}\n{r.finding.code}" for r in timed]
    values = [r.metrics["speedup"] for r in timed]
    colors = [{"confirmed": "tab:red", "refuted": "tab:green"}.get(r.verdict, "tab:olive") for r in timed]
    axes.bar(range(len(values)), values, color=colors)
    axes.set_xticks(range(len(values)), labels, rotation=60, ha="right", fontsize=7)
    axes.set_yscale("log")
    axes.axhline(1.0, color="black", linewidth=0.8)
    axes.set_ylabel("speedup of fixed / alternative (x, log)")
    axes.set_title("time original / time fixed, per finding")


def _roofline(axes, results: list[CheckResult]) -> None:
    peaks = device_peaks(results)
    for result in results:
        metrics = result.metrics
        for version, marker in (("original", "o"), ("fixed", "^")):
            flops, accessed = metrics.get(f"flops_{version}"), metrics.get(f"bytes_accessed_{version}")
            elapsed = metrics.get(f"time_{version}_s")
            if not flops or not accessed or not elapsed:
                continue
            axes.scatter(flops / accessed, flops / elapsed, marker=marker, s=30)
            axes.annotate(f"{result.finding.code} {version[0]}", (flops / accessed, flops / elapsed), fontsize=6)
    if peaks:
        import numpy as np

        compute, bandwidth = peaks
        intensity = np.logspace(-2, 4, 200)
        axes.plot(intensity, np.minimum(compute, bandwidth * intensity), "k--", linewidth=1,
                  label=f"peak {compute / 1e12:.0f} TFLOP/s, {bandwidth / 1e12:.2f} TB/s")
        axes.legend(fontsize=7)
    else:
        axes.text(0.02, 0.02, "device peaks unknown: no roofline ceilings", transform=axes.transAxes, fontsize=8)
    axes.set_xscale("log")
    axes.set_yscale("log")
    axes.set_xlabel("arithmetic intensity (FLOP / byte, from cost_analysis)")
    axes.set_ylabel("achieved FLOP/s")
    axes.set_title("roofline: o original, ^ fixed")
