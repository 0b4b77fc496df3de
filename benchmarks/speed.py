"""Time `jaxlint check` against named peers on one corpus, in one run, and print the ratios.

    python benchmarks/speed.py CORPUS_DIR [--jobs N] [--repeat R] [--one-file PATH] [--base REV]

Peers, each measured here in the same run and with the same number of processes where it has one:
  libcst-parse   a bare `libcst.parse_module` of every file (the floor for a libcst-based linter)
  ast-parse      a bare `ast.parse` of every file (the floor for jaxlint's analysis parser)
  ruff-all       `ruff check --isolated --select ALL --no-cache` (when ruff is installed)
  ruff-default   `ruff check --isolated --no-cache` with its default rules (when ruff is installed)
  fixit          `fixit lint` (when fixit is installed)
Each command runs in a fresh process; wall times are the median of --repeat runs; peak memory is
the largest sum of resident memory over the command's whole process tree, sampled every 50 ms.
The sampling adds a little to each wall time, the same for every command.

The cold check and Ruff ALL, the pair the speed goal compares, run in turn with a cold check of one
cheap rule (`--select JAX104`: reading, parsing and the semantic model, what any selection costs),
round after round, so a machine that speeds up or slows down during the run (a shared one does, by
20% and more) moves all three alike; their ratios are also given round by round.

jaxlint's own modules are compiled to bytecode first (`compileall`), as an installed package has
them: where PYTHONDONTWRITEBYTECODE is set and jaxlint is installed editable, every run would
otherwise compile its 27,000 lines again (about 0.3 s per process), which no installed copy does.

With `--base REV` the cold check of that revision of jaxlint (exported from git into a scratch folder
and run from there) joins the rounds, and the cold check's ratio to it is printed round by round: an
analysis change may cost at most 15% of cold-check time against its base.

At the end, one more cold run with `jaxlint check --profile` prints where jaxlint's time goes: seconds
per phase (read, parse, semantic model) and per rule, summed over processes, with any rule above 5%
of the total marked.
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PARSE_SCRIPT = r"""
import sys, os
from multiprocessing import Pool

def parse(path):
    import {module}
    with open(path, "rb") as f:
        data = f.read()
    try:
        {call}
    except Exception:
        pass

paths = [line.rstrip("\n") for line in open(sys.argv[1])]
jobs = int(sys.argv[2])
if jobs == 1:
    for p in paths:
        parse(p)
else:
    with Pool(jobs) as pool:
        pool.map(parse, paths, chunksize=16)
"""
PARSERS = {
    "libcst-parse": ("libcst", "libcst.parse_module(data)"),
    "ast-parse": ("ast", "ast.parse(data)"),
}


def python_files(corpus: Path) -> list[str]:
    skip = {".git", ".venv", "venv", "build", "node_modules", "__pycache__"}
    found = []
    for directory, dirnames, filenames in os.walk(corpus):
        dirnames[:] = [d for d in dirnames if d not in skip]
        found.extend(os.path.join(directory, f) for f in filenames if f.endswith((".py", ".pyi")))
    return sorted(found)


def _tree_rss_kib(root: int) -> int:
    """Resident memory of a process and all its descendants, from /proc (Linux)."""
    parents: dict[int, int] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as stream:
                fields = stream.read().rsplit(")", 1)[1].split()
            parents[int(entry)] = int(fields[1])
            rss[int(entry)] = int(fields[21]) * (os.sysconf("SC_PAGE_SIZE") // 1024)
        except (OSError, IndexError, ValueError):
            continue
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, ppid in parents.items():
            if ppid == parent and pid not in tree:
                tree.add(pid)
                frontier.append(pid)
    return sum(rss.get(pid, 0) for pid in tree)


def timed(command: list[str], repeat: int, env=None, ok_codes=(0, 1)) -> tuple[float, float, int]:
    """Median and spread of wall time, and the peak resident memory (MiB) of the whole process tree."""
    times = []
    peak = 0
    for _ in range(repeat):
        start = time.perf_counter()
        process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        while process.poll() is None:
            peak = max(peak, _tree_rss_kib(process.pid))
            time.sleep(0.05)
        times.append(time.perf_counter() - start)
        stderr = process.stderr.read()
        if ok_codes is not None and process.returncode not in ok_codes:
            raise SystemExit(f"{command[:3]} failed ({process.returncode}): {stderr.decode()[-500:]}")
    spread = (max(times) - min(times)) if len(times) > 1 else 0.0
    return statistics.median(times), spread, peak // 1024


def in_turn(commands: list[tuple[list[str], dict | None]], repeat: int) -> list[list[tuple[float, float, int]]]:
    """Each (command, environment) timed once per round, in order, for `repeat` rounds: a machine
    that changes speed meanwhile moves every command alike. The runs of each command, as `timed`
    gives them."""
    runs: list[list[tuple[float, float, int]]] = [[] for _ in commands]
    for _ in range(repeat):
        for index, (command, env) in enumerate(commands):
            runs[index].append(timed(command, 1, env))
    return runs


def summary(runs: list[tuple[float, float, int]]) -> tuple[float, float, int]:
    """Median and spread of the wall times of single runs, and their largest peak memory."""
    times = [run[0] for run in runs]
    return statistics.median(times), max(times) - min(times), max(run[2] for run in runs)


def record(results: dict, name: str, measurement: tuple[float, float, int]) -> None:
    """Keep a measurement and print it at once, so a long run shows progress."""
    results[name] = measurement
    print(f"  measured {name}: {measurement[0]:.2f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("corpus", type=Path)
    parser.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--one-file", type=Path, default=None, help="file for the pre-commit (one file) case")
    parser.add_argument("--base", default=None, help="git revision whose cold check runs in the same rounds")
    args = parser.parse_args()

    package = Path(__file__).resolve().parent.parent / "jaxlint"
    if package.is_dir():
        compileall.compile_dir(str(package), quiet=1)
    files = python_files(args.corpus)
    lines = sum(1 for path in files for _ in open(path, "rb"))
    print(f"corpus: {args.corpus} ({len(files)} files, {lines:,} lines), jobs={args.jobs}, repeat={args.repeat}, python {sys.version.split()[0]}")
    results: dict[str, tuple[float, float, int]] = {}
    with tempfile.TemporaryDirectory() as scratch:
        listing = Path(scratch) / "files.txt"
        listing.write_text("\n".join(files) + "\n")
        for name, (module, call) in PARSERS.items():
            script = Path(scratch) / f"{module}_parse.py"
            script.write_text(PARSE_SCRIPT.replace("{module}", module).replace("{call}", call))
            record(results, name, timed([sys.executable, str(script), str(listing), str(args.jobs)], args.repeat))
        jaxlint = [sys.executable, "-m", "jaxlint", "check", "-q", "--exit-zero", "--jobs", str(args.jobs)]
        env = dict(os.environ, JAXLINT_CACHE_DIR=str(Path(scratch) / "cache"))
        ruff = shutil.which("ruff") or str(Path(sys.executable).with_name("ruff"))
        # --isolated: the peer runs with its own defaults, not a ruff.toml some checked project ships
        # (one it cannot parse would stop the round).
        ruff_all = [ruff, "check", "--isolated", "--select", "ALL", "--no-cache", "--exit-zero", "-q", str(args.corpus)]
        # Every rule but one cheap one off: reading, parsing and the semantic model, what any
        # selection of rules costs (JAX104 looks at calls in traced code only).
        one_rule = [*jaxlint, "--no-cache", "--select", "JAX104", str(args.corpus)]
        cold = [*jaxlint, "--no-cache", str(args.corpus)]
        rounds = [(cold, env), (ruff_all, None), (one_rule, env)]
        if args.base:
            base_jaxlint = revision_command(export_revision(args.base, Path(scratch) / "base"))
            rounds.append(([*base_jaxlint, *cold[3:]], env))
        pair_ratios: list[float] = []  # cold / Ruff ALL, and one-rule / Ruff ALL, round by round
        one_rule_ratios: list[float] = []
        if Path(ruff).exists():
            cold_runs, ruff_runs, one_rule_runs, *base_runs = in_turn(rounds, args.repeat)
            record(results, "jaxlint-cold", summary(cold_runs))
            record(results, "ruff-all", summary(ruff_runs))
            record(results, "jaxlint-one-rule", summary(one_rule_runs))
            pair_ratios = [mine[0] / theirs[0] for mine, theirs in zip(cold_runs, ruff_runs)]
            one_rule_ratios = [mine[0] / theirs[0] for mine, theirs in zip(one_rule_runs, ruff_runs)]
        else:
            cold_runs, *base_runs = in_turn([rounds[0], *rounds[3:]], args.repeat)
            record(results, "jaxlint-cold", summary(cold_runs))
        base_ratios: list[float] = []  # cold / the base revision's cold check, round by round
        if base_runs:
            record(results, "jaxlint-base-cold", summary(base_runs[0]))
            base_ratios = [mine[0] / theirs[0] for mine, theirs in zip(cold_runs, base_runs[0])]
        subprocess.run([*jaxlint, str(args.corpus)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        record(results, "jaxlint-warm", timed([*jaxlint, str(args.corpus)], args.repeat, env))
        # One changed file: only it is analysed again (appending a comment keeps it valid Python).
        changed_copy = Path(scratch) / "corpus"
        shutil.copytree(args.corpus, changed_copy, ignore=shutil.ignore_patterns(".jaxlint_cache"))
        subprocess.run([*jaxlint, str(changed_copy)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        victim = Path(python_files(changed_copy)[0])
        victim.write_text(victim.read_text(encoding="utf-8", errors="replace") + "\n# changed\n", encoding="utf-8")
        record(results, "jaxlint-one-changed", timed([*jaxlint, str(changed_copy)], 1, env))
        fix = [sys.executable, "-m", "jaxlint", "fix", "--diff", "--unsafe-fixes", "--jobs", str(args.jobs), str(args.corpus)]
        if _has_option("fix", "--no-cache"):
            fix.insert(4, "--no-cache")  # cold, like the check it is compared with
        if _has_option("fix", "--jobs"):
            record(results, "jaxlint-fix-diff", timed(fix, 1, env))
        if Path(ruff).exists():
            record(results, "ruff-default", timed([ruff, "check", "--isolated", "--no-cache", "--exit-zero", "-q", str(args.corpus)], args.repeat))
        fixit = shutil.which("fixit")
        if fixit:
            # fixit's exit status counts findings, so any status is a completed run.
            record(results, "fixit", timed([fixit, "lint", str(args.corpus)], 1, ok_codes=None))
        if args.one_file:
            floor = [sys.executable, "-c", f"import libcst, click; libcst.parse_module(open({str(args.one_file)!r}).read())"]
            record(results, "one-file-floor", timed(floor, max(args.repeat, 5)))
            record(results, "jaxlint-one-file", timed([sys.executable, "-m", "jaxlint", "check", "-q", "--exit-zero", str(args.one_file)], max(args.repeat, 5), env))
        profile = None
        if _has_option("check", "--profile"):
            completed = subprocess.run([*jaxlint, "--no-cache", "--profile", str(args.corpus)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
            profile = completed.stderr

    print(f"\n{'measurement':<18} {'median s':>9} {'spread s':>9} {'peak MiB':>9}")
    for name, (median, spread, peak) in results.items():
        print(f"{name:<18} {median:>9.2f} {spread:>9.2f} {peak:>9}")
    print("\nratios (lower is better for jaxlint):")

    def ratio(a: str, b: str, goal: str) -> None:
        if a in results and b in results:
            print(f"  {a} / {b} = {results[a][0] / results[b][0]:.2f}   (goal {goal})")

    ratio("jaxlint-cold", "ruff-all", "<= 1.0")
    if pair_ratios:
        for name, values in (("jaxlint-cold", pair_ratios), ("jaxlint-one-rule", one_rule_ratios)):
            listed = ", ".join(f"{value:.2f}" for value in values)
            print(f"  {name} / ruff-all, round by round = {listed}; median {statistics.median(values):.2f}")
    if base_ratios:
        listed = ", ".join(f"{value:.2f}" for value in base_ratios)
        print(f"  jaxlint-cold / jaxlint-base-cold ({args.base}), round by round = {listed}; median {statistics.median(base_ratios):.2f}   (goal <= 1.15)")
    ratio("jaxlint-cold", "libcst-parse", "<= 1.25")
    ratio("jaxlint-cold", "ast-parse", "for reference")
    ratio("jaxlint-one-rule", "ruff-all", "for reference: reading, parsing and the model alone")
    ratio("jaxlint-warm", "ruff-all", "<= 0.25")
    ratio("jaxlint-one-changed", "ruff-all", "for reference")
    ratio("jaxlint-one-file", "one-file-floor", "<= 1.5")
    ratio("fixit", "jaxlint-cold", "for reference")
    if profile:
        print("\nwhere a cold jaxlint check spends its time (jaxlint check --no-cache --profile):")
        print(profile.rstrip())


def export_revision(revision: str, destination: Path) -> Path:
    """The `jaxlint` package of a git revision of this checkout, written under `destination` and
    compiled to bytecode like the working copy; returns the folder to put on PYTHONPATH."""
    root = Path(__file__).resolve().parent.parent
    destination.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(root), "archive", revision, "jaxlint"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(destination)], input=archive, check=True)
    compileall.compile_dir(str(destination / "jaxlint"), quiet=1)
    return destination


def revision_command(folder: Path) -> list[str]:
    """`python -m jaxlint` running the package exported under `folder`: put first on sys.path, since
    the current directory (this checkout, when run from its root) would come before PYTHONPATH."""
    launcher = f"import runpy, sys; sys.path.insert(0, {str(folder)!r}); sys.argv[0] = 'jaxlint'; runpy.run_module('jaxlint', run_name='__main__')"
    return [sys.executable, "-c", launcher]


def _has_option(command: str, option: str) -> bool:
    result = subprocess.run([sys.executable, "-m", "jaxlint", command, "--help"], capture_output=True, text=True)
    return result.returncode == 0 and option in result.stdout


if __name__ == "__main__":
    main()
