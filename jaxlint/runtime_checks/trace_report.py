"""Render a traced run's report: a rich text table, and a self-contained HTML page.

The HTML page needs nothing beyond the standard library: the timeline of compilations, host syncs
and jitted calls is drawn as inline SVG, and so are the before/after bars of the donation probes.
"""

from __future__ import annotations

import html
import json
import os
import shlex
from pathlib import Path

from jaxlint.runtime_checks.verdicts import megabytes, seconds

VERDICT_STYLES = {"confirmed": "bold red", "refuted": "green", "inconclusive": "yellow", "not run": "dim"}
VERDICT_COLOURS = {"confirmed": "#c62828", "refuted": "#2e7d32", "inconclusive": "#b8860b", "not run": "#777"}


def shown_path(filename: str) -> str:
    try:
        return os.path.relpath(filename)
    except ValueError:
        return filename


def device_text(report: dict) -> str:
    device = report.get("device")
    if not device:
        return "device: unknown (the command never initialised jax, or the trace is incomplete)"
    return (f"device: {device.get('platform')} / {device.get('device_kind')} x{device.get('device_count')}, "
            f"jax {device.get('jax_version')}, Python {device.get('python_version')}")


def summary_counts(report: dict) -> dict:
    counts = {verdict: 0 for verdict in VERDICT_STYLES}
    for finding in report["findings"]:
        counts[finding["verdict"]] = counts.get(finding["verdict"], 0) + 1
    return counts


def summary_text(report: dict) -> str:
    counts = summary_counts(report)
    return (f"{len(report['findings'])} static finding(s): " + ", ".join(f"{n} {v}" for v, n in counts.items())
            + f"; {len(report['runtime_only'])} runtime-only finding(s)")


def command_text(report: dict) -> str:
    status = report.get("exit_status")
    ended = "did not start" if status is None else f"exit status {status}"
    return f"command: {shlex.join(report['command'])} ({ended}, {report['elapsed_s']:.1f} s)"


def render_text(report: dict, console) -> None:
    from rich.table import Table

    console.print(command_text(report), markup=False, highlight=False)
    console.print(device_text(report), markup=False, highlight=False)
    console.print(f"thresholds: {report['thresholds']['text']}", markup=False, highlight=False)
    totals = report.get("totals") or {}
    console.print(f"recorded: {totals.get('compiles', 0)} compilation(s) ({seconds(totals.get('compile_s'))}), "
                  f"{totals.get('syncs', 0)} host sync(s) ({seconds(totals.get('sync_blocked_s'))} blocked), "
                  f"{totals.get('calls', 0)} call(s) of jitted functions{_peak_text(report)}",
                  markup=False, highlight=False)
    for note in report.get("notes", []):
        console.print(f"note: {note}", markup=False, highlight=False)
    for uncaught in report.get("uncaught", []):
        where = uncaught["frames"][-1] if uncaught.get("frames") else None
        at = f" at {shown_path(where['file'])}:{where['line']}" if where else ""
        console.print(f"the program stopped with {uncaught['error']}{at}: {uncaught['message'][:200]}",
                      markup=False, highlight=False)
    if report["findings"]:
        table = Table(title="static findings, checked against the run", title_justify="left", show_lines=True)
        for column in ("location", "finding", "verdict"):
            table.add_column(column, no_wrap=column != "location")
        table.add_column("evidence", ratio=1, min_width=40)
        for finding in report["findings"]:
            style = VERDICT_STYLES.get(finding["verdict"], "")
            table.add_row(f"{shown_path(finding['filename'])}:{finding['line']}",
                          f"{finding['code']} {finding['name'] or ''}".strip(),
                          f"[{style}]{finding['verdict']}[/]", _plain(finding["evidence"]))
        console.print(table)
    if report["runtime_only"]:
        table = Table(title="runtime-only: measured at lines no rule flagged", title_justify="left", show_lines=True)
        table.add_column("location")
        table.add_column("what", no_wrap=True)
        table.add_column("evidence", ratio=1, min_width=40)
        for finding in report["runtime_only"]:
            table.add_row(f"{shown_path(finding['filename'])}:{finding['line']}", finding["name"],
                          _plain(finding["evidence"]))
        console.print(table)
    transfers = report.get("transfers") or []
    if transfers:
        table = Table(title="host <-> device transfers, per line of your code", title_justify="left")
        for column in ("location", "uploads (host -> device)", "same data again", "reads (device -> host)",
                       "gathers of split arrays"):
            table.add_column(column, justify="left" if column == "location" else "right")
        for line in sorted(transfers, key=lambda t: -(t["h2d_bytes"] or 0) - (t["d2h_bytes"] or 0))[:12]:
            table.add_row(f"{shown_path(line['file'])}:{line['line']}",
                          f"{line['h2d_count']} ({megabytes(line['h2d_bytes'])})" if line["h2d_count"] else "",
                          f"{line['h2d_repeated']} ({megabytes(line['h2d_repeated_bytes'])})" if line["h2d_repeated"] else "",
                          f"{line['d2h_count']} ({megabytes(line['d2h_bytes'])})" if line["d2h_count"] else "",
                          f"{line['gathers']} ({megabytes(line['gather_bytes'])})" if line["gathers"] else "")
        console.print(table)
    steps = [step for step in report.get("compiled_steps") or [] if step.get("collectives") or step.get("error")]
    if steps:
        table = Table(title="collectives per compiled step (one device's program)", title_justify="left")
        for column in ("step", "transform", "devices", "calls", "collectives per step", "bytes per step", "per run"):
            table.add_column(column, justify="left" if column in ("step", "transform", "collectives per step") else "right")
        for step in steps:
            summary = step.get("collective_summary") or {}
            per_step = sum(entry["operand_bytes"] for entry in summary.values())
            table.add_row(step["name"], step.get("transform", ""), str(step.get("devices") or ""), str(step.get("calls") or ""),
                          collectives_text(summary) if not step.get("error") else f"not compiled: {step['error'][:80]}",
                          megabytes(per_step), megabytes(per_step * (step.get("calls") or 0)))
        console.print(table)
    hot = hot_lines(report)
    if hot:
        table = Table(title="where the time went, per line of your code (top 8)", title_justify="left")
        for column in ("location", "compilations", "host syncs", "jitted calls", "host time between dispatches"):
            table.add_column(column, justify="left" if column == "location" else "right")
        for line in hot:
            table.add_row(f"{shown_path(line['file'])}:{line['line']}",
                          f"{line['compiles']} ({seconds(line['compile_s'])})" if line["compiles"] else "",
                          f"{line['syncs']} ({seconds(line['sync_blocked_s'])} blocked)" if line["syncs"] else "",
                          f"{line['calls']} ({seconds(line['dispatch_s'])} dispatching)" if line["calls"] else "",
                          seconds(line["gap_s"]) if line["calls"] else "")
        console.print(table)
    console.print(summary_text(report), markup=False, highlight=False)


def collectives_text(summary: dict) -> str:
    """`all-reduce x1 (786.4 kB, groups {{0,1}})`, one per kind."""
    return "; ".join(f"{kind} x{entry['count']} ({megabytes(entry['operand_bytes'])}, groups "
                     f"{' '.join(entry['replica_groups'][:2]) or '?'})" for kind, entry in sorted(summary.items()))


def hot_lines(report: dict, limit: int = 8) -> list[dict]:
    """The lines that cost the most host time: compiling, blocked in syncs, or dispatching."""
    def cost(line: dict) -> float:
        return line.get("compile_s", 0) + line.get("sync_blocked_s", 0) + line.get("dispatch_s", 0)

    return sorted((line for line in report.get("lines", []) if cost(line) > 0), key=cost, reverse=True)[:limit]


def _plain(text: str) -> str:
    from rich.markup import escape

    return escape(text)


def _peak_text(report: dict) -> str:
    peaks = [entry.get("peak_bytes_in_use") for entry in report.get("memory") or [] if entry.get("peak_bytes_in_use")]
    samples = report.get("memory_samples") or {}
    if peaks:
        allocator = f"peak device memory {megabytes(max(peaks))}"
    elif samples.get("allocator_bytes_max"):
        allocator = f"device memory in use after a jitted call up to {megabytes(samples['allocator_bytes_max'])}"
    else:
        allocator = "allocator peak n/a on this backend"
    live = samples.get("live_array_bytes_max")
    return f", {allocator}" + (f", live arrays after a jitted call up to {megabytes(live)}" if live else "")


def to_json(report: dict) -> str:
    return json.dumps(report, indent=2, default=str)


# ---------------------------------------------------------------------- HTML

def write_html(report: dict, path: str) -> str:
    Path(path).write_text(render_html(report), encoding="utf-8")
    return f"report: wrote {path}"


def render_html(report: dict) -> str:
    escape = html.escape
    rows = "".join(
        f"<tr><td>{escape(shown_path(f['filename']))}:{f['line']}</td><td>{escape(f['code'])} {escape(f['name'] or '')}"
        f"</td><td style='color:{VERDICT_COLOURS.get(f['verdict'], '#000')};font-weight:bold'>{escape(f['verdict'])}"
        f"</td><td>{escape(f['evidence'])}</td></tr>" for f in report["findings"])
    extra = "".join(
        f"<tr><td>{escape(shown_path(f['filename']))}:{f['line']}</td><td>{escape(f['name'])}</td>"
        f"<td>{escape(f['evidence'])}</td></tr>" for f in report["runtime_only"])
    notes = "".join(f"<li>{escape(note)}</li>" for note in report.get("notes", []))
    hot = "".join(
        f"<tr><td>{escape(shown_path(line['file']))}:{line['line']}</td><td>{line['compiles']} "
        f"({seconds(line['compile_s'])})</td><td>{line['syncs']} ({seconds(line['sync_blocked_s'])})</td>"
        f"<td>{line['calls']} ({seconds(line['dispatch_s'])})</td><td>{seconds(line['gap_s'])}</td></tr>"
        for line in hot_lines(report))
    transfers = "".join(
        f"<tr><td>{escape(shown_path(t['file']))}:{t['line']}</td><td>{t['h2d_count']} ({megabytes(t['h2d_bytes'])})</td>"
        f"<td>{t['h2d_repeated']} ({megabytes(t['h2d_repeated_bytes'])})</td><td>{t['d2h_count']} "
        f"({megabytes(t['d2h_bytes'])})</td><td>{t['gathers']} ({megabytes(t['gather_bytes'])})</td></tr>"
        for t in report.get("transfers") or [])
    collective_rows = "".join(
        f"<tr><td>{escape(step['name'])}</td><td>{escape(step.get('transform', ''))}</td><td>{step.get('devices') or ''}</td>"
        f"<td>{step.get('calls') or ''}</td><td>{escape(collectives_text(step.get('collective_summary') or {}))}</td></tr>"
        for step in report.get("compiled_steps") or [] if step.get("collectives"))
    return f"""<!doctype html>
<html><head><meta charset="utf-8"><title>jaxlint runtime: {escape(' '.join(report['command']))}</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1200px}}table{{border-collapse:collapse;width:100%}}
td,th{{border:1px solid #ccc;padding:4px 8px;vertical-align:top;font-size:13px}}th{{background:#eee}}
.meta{{color:#444;font-size:13px}}</style></head><body>
<h1>jaxlint runtime</h1>
<p class="meta">{escape(command_text(report))}<br>{escape(device_text(report))}<br>
thresholds: {escape(report['thresholds']['text'])}<br>{escape(summary_text(report))}</p>
<h2>Timeline of compilations, host syncs and jitted calls</h2>
{timeline_svg(report)}
<h2>Static findings, checked against the run</h2>
<table><tr><th>location</th><th>finding</th><th>verdict</th><th>evidence</th></tr>{rows}</table>
<h2>Runtime-only findings (measured where no rule flagged)</h2>
<table><tr><th>location</th><th>what</th><th>evidence</th></tr>{extra or '<tr><td colspan=3>none</td></tr>'}</table>
<h2>Where the time went, per line (top 8)</h2>
<table><tr><th>location</th><th>compilations</th><th>host syncs</th><th>jitted calls</th><th>host time between dispatches</th></tr>
{hot}</table>
<h2>Host &lt;-&gt; device transfers, per line</h2>
<table><tr><th>location</th><th>uploads</th><th>same data again</th><th>reads</th><th>gathers of split arrays</th></tr>
{transfers or '<tr><td colspan=5>none recorded</td></tr>'}</table>
<h2>Collectives per compiled step (one device's program)</h2>
<table><tr><th>step</th><th>transform</th><th>devices</th><th>calls</th><th>collectives per step</th></tr>
{collective_rows or '<tr><td colspan=5>none</td></tr>'}</table>
<h2>Donation: before and after</h2>
{donation_svg(report)}
<ul class="meta">{notes}</ul>
</body></html>
"""


def timeline_svg(report: dict, width: int = 1100) -> str:
    events = report.get("timeline") or []
    if not events:
        return "<p>No events were recorded.</p>"
    lanes = {"compile": (0, "#c62828", "compilations"), "sync": (1, "#1565c0", "host syncs"),
             "call": (2, "#2e7d32", "jitted calls")}
    end = max(event["t"] + event.get("duration", 0) for event in events) or 1.0
    left, lane_height = 110, 34
    scale = (width - left - 10) / end
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{lane_height * 3 + 40}" '
             f'font-family="sans-serif" font-size="11">']
    for kind, (index, colour, label) in lanes.items():
        y = 10 + index * lane_height
        parts.append(f'<text x="4" y="{y + 20}">{label}</text>'
                     f'<line x1="{left}" y1="{y + lane_height - 4}" x2="{width - 10}" y2="{y + lane_height - 4}" stroke="#ddd"/>')
    for event in events:
        lane = lanes.get(event["kind"])
        if lane is None:
            continue
        index, colour, _ = lane
        x = left + event["t"] * scale
        w = max(1.0, event.get("duration", 0) * scale)
        y = 10 + index * lane_height + 4
        where = f"{shown_path(event['file'])}:{event['line']}" if event.get("file") else "outside your files"
        title = html.escape(f"{event.get('name')} at {where}: {seconds(event.get('duration'))} at {event['t']:.3f} s")
        parts.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{lane_height - 12}" fill="{colour}" '
                     f'fill-opacity="0.6"><title>{title}</title></rect>')
    for tick in range(0, 6):
        t = end * tick / 5
        x = left + t * scale
        parts.append(f'<text x="{x:.1f}" y="{lane_height * 3 + 30}" text-anchor="middle">{t:.2f} s</text>')
    parts.append("</svg>")
    return "".join(parts)


def donation_svg(report: dict) -> str:
    probes = [f for f in report["findings"] + report["runtime_only"]
              if f.get("metrics", {}).get("peak_bytes_original") and f.get("metrics", {}).get("peak_bytes_donated")]
    if not probes:
        return "<p>No jitted call was probed for donation.</p>"
    parts = []
    for finding in probes:
        metrics = finding["metrics"]
        bars = [("peak, as written", metrics["peak_bytes_original"], megabytes(metrics["peak_bytes_original"])),
                ("peak, donated", metrics["peak_bytes_donated"], megabytes(metrics["peak_bytes_donated"]))]
        if metrics.get("time_per_step_original_s") and metrics.get("time_per_step_donated_s"):
            bars += [("time/step, as written", metrics["time_per_step_original_s"], seconds(metrics["time_per_step_original_s"])),
                     ("time/step, donated", metrics["time_per_step_donated_s"], seconds(metrics["time_per_step_donated_s"]))]
        svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="620" height="{len(bars) * 26 + 10}" '
               f'font-family="sans-serif" font-size="11">']
        for index, (label, value, text) in enumerate(bars):
            group = bars[index - index % 2:index - index % 2 + 2]
            largest = max(item[1] for item in group) or 1
            w = 380 * value / largest
            y = 5 + index * 26
            svg.append(f'<text x="0" y="{y + 14}">{html.escape(label)}</text><rect x="150" y="{y}" width="{w:.1f}" '
                       f'height="18" fill="{"#c62828" if index % 2 == 0 else "#2e7d32"}"/>'
                       f'<text x="{155 + w:.1f}" y="{y + 14}">{html.escape(text)}</text>')
        svg.append("</svg>")
        parts.append(f"<p>{html.escape(metrics.get('name') or metrics.get('step_function') or '')} "
                     f"({html.escape(shown_path(finding['filename']))}:{finding['line']})</p>{''.join(svg)}")
    return "".join(parts)
