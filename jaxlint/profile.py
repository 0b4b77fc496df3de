"""The `jaxlint check --profile` table: where the analysis time goes, per phase and per rule.

Seconds are summed over every analysed file and every worker process, so with N processes the
total can exceed the wall time; the shares are what matter. A rule above 5% of the total is marked,
so a slow rule shows up before it slows everyone's pre-commit hook.
"""

from __future__ import annotations

PHASES = {
    "read": "read and decode files",
    "parse": "parse (ast)",
    "model": "semantic model",
    "summaries": "project summaries (imported modules)",
    "noqa": "noqa and sorting",
    "notebooks": "notebooks (all phases)",
}
HOT_SHARE = 0.05


def peak_memory_mib() -> tuple[float, float]:
    """Peak resident memory of this process and of its largest finished child (worker), in MiB."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not Unix
        return 0.0, 0.0
    import sys

    per_mib = 1024 * 1024 if sys.platform == "darwin" else 1024  # ru_maxrss is bytes on macOS, KiB on Linux
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / per_mib
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / per_mib
    return own, children


def profile_table(timings: dict[str, float], rule_names: dict[str, str], *, wall: float, analysed: int, cached: int) -> str:
    """`rule_names`: code -> name of every enabled rule; a rule that never ran is listed at zero."""
    timings = {**{code: 0.0 for code in rule_names}, **timings}
    total = sum(timings.values())
    rows = [(PHASES.get(name, f"{name} {rule_names.get(name, '')}".rstrip()), seconds, name in PHASES) for name, seconds in timings.items()]
    rows.sort(key=lambda row: -row[1])
    width = max([len(label) for label, _, _ in rows] + [len("total (all processes)")])
    lines = [f"{'phase or rule':<{width}}  {'seconds':>8}  {'share':>6}"]
    for label, seconds, is_phase in rows:
        share = seconds / total if total else 0.0
        mark = "  <- over 5%" if not is_phase and share > HOT_SHARE else ""
        lines.append(f"{label:<{width}}  {seconds:>8.3f}  {share:>6.1%}{mark}")
    lines.append(f"{'total (all processes)':<{width}}  {total:>8.3f}  {1:>6.0%}")
    own, child = peak_memory_mib()
    lines.append(
        f"{analysed:,} files analysed, {cached:,} from the cache; wall {wall:.2f} s; "
        f"peak memory {own:.0f} MiB (this process), {child:.0f} MiB (largest worker)"
    )
    return "\n".join(lines)
