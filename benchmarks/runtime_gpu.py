"""Run the runtime mode over fixtures/runtime/ and write the results as JSON, Markdown and PNG.

Reproducible: the inputs come from fixtures/runtime/examples.toml (fixed seed), every number
is measured in this run, and nothing is hard-coded. Meant for the GPU machine, works anywhere:

    python benchmarks/runtime_gpu.py --out results/ [--repeat 20] [--timeout 300]

Writes OUT/runtime_results.json (the `jaxlint runtime --format json` list),
OUT/runtime_table.md (the table in benchmarks/README_runtime.md) and, where matplotlib is
installed, OUT/runtime_plot.png. It is the same as
`jaxlint runtime fixtures/runtime/*.py --examples fixtures/runtime/examples.toml --format json`
with a Markdown table added.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from jaxlint.runtime_checks.examples import load_examples  # noqa: E402
from jaxlint.runtime_checks.report import device_line, plot, to_json  # noqa: E402
from jaxlint.runtime_checks.runner import check_finding  # noqa: E402
from jaxlint.runtime_checks.targets import collect_findings, parse_target  # noqa: E402
from jaxlint.runtime_checks.verdicts import megabytes, ratio, seconds  # noqa: E402

FIXTURES = ROOT / "fixtures" / "runtime"


def run(repeat: int, timeout: float) -> list:
    examples = load_examples(FIXTURES / "examples.toml")
    findings = []
    for path in sorted(FIXTURES.glob("*.py")):
        found, notes = collect_findings(parse_target(str(path.relative_to(ROOT))), examples, None, [])
        findings += found
        for note in notes:
            print(f"note: {path.name}: {note}", file=sys.stderr)
    results = []
    for finding in findings:
        started = time.perf_counter()
        result = check_finding(finding, repeat, timeout)
        print(f"{Path(finding.filename).name}::{finding.function} {finding.label}: {result.verdict} "
              f"({time.perf_counter() - started:.1f} s) {result.evidence}", file=sys.stderr, flush=True)
        results.append(result)
    return results


def compiles(metrics: dict) -> str:
    original, fixed = metrics.get("compiles_original"), metrics.get("compiles_fixed")
    if original is None and fixed is None:
        return "n/a"
    return f"{original if original is not None else 'n/a'} -> {fixed if fixed is not None else 'n/a'}"


def markdown(results: list) -> str:
    lines = [device_line(results), "",
             "| fixture::function | finding | verdict | original | fixed | speedup | compiles (first call) "
             "| peak memory | fixed by | evidence |",
             "|---|---|---|---:|---:|---:|---:|---:|---|---|"]
    for result in results:
        metrics, finding = result.metrics, result.finding
        peak = (f"{megabytes(metrics.get('peak_bytes_original'))} -> {megabytes(metrics.get('peak_bytes_fixed'))}"
                if metrics.get("peak_bytes_original") is not None else "n/a")
        evidence = result.evidence.replace("|", "\\|")
        lines.append(f"| {Path(finding.filename).name}::{finding.function} | {finding.label} | {result.verdict} "
                     f"| {seconds(metrics.get('time_original_s'))} | {seconds(metrics.get('time_fixed_s'))} "
                     f"| {ratio(metrics.get('speedup'))} | {compiles(metrics)} | {peak} "
                     f"| {metrics.get('fixed_by') or 'n/a'} | {evidence} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--timeout", type=float, default=300.0)
    options = parser.parse_args()
    options.out.mkdir(parents=True, exist_ok=True)
    results = run(options.repeat, options.timeout)
    (options.out / "runtime_results.json").write_text(to_json(results), encoding="utf-8")
    table = markdown(results)
    (options.out / "runtime_table.md").write_text(table, encoding="utf-8")
    print(table)
    print(plot(results, str(options.out / "runtime_plot.png")), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
