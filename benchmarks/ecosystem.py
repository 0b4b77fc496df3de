"""Run jaxlint over pinned public JAX repos and score it on hand-made labels, against a base revision.

    python benchmarks/ecosystem.py [--base REV] [--sets dev,new] [--verbose]

What it prints, the way ruff-ecosystem and mypy_primer compare two versions on real projects:
  * recall (labelled real problems found) and false alarms (labelled look-alikes flagged) per
    category, for each set of repos (the development set, tuned on, apart from the sets labelled
    blind), split into the semantic rules and the API tables (JAX601/JAX602);
  * with --base, the same figures for the base revision beside them, and every finding the working
    tree adds or removes against the base (`file:line code message`), with a count per code;
  * the number of findings that no label speaks for (neither confirmed nor refuted by hand).

A TP label counts as found when a finding with one of its category's codes sits within one line of
it; a TN label counts as a false alarm when such a finding sits there. For a notebook the label's
line is `CELL:ROW` (cells counted from 1, as jaxlint reports them).

The data lives beside this script:
  ecosystem/repos.tsv    repo (owner/name), commit, set, kind, py_files, py_lines
  ecosystem/labels.tsv   repo, commit, path, line, category, verdict (TP/TN), reason

Fetching is the user's step: this script downloads nothing. Bring each repo of repos.tsv as a git
snapshot into the mirror folder first (`<mirror>/<owner>+<name>/repo`, a bare git dir or a checkout;
the `fetch` tool of the development sessions puts them there, `git clone --mirror` does as well).
The script exports the pinned commit of each with `git archive` into --corpus and reuses an export
whose commit matches. --base REV is exported from this checkout's git history (`git archive`) into a
temporary folder, so no worktree is registered and the checkout is left as it was.

Labelling rule for a new set: read the code and write the labels first, commit them, and only then
run jaxlint on those repos. The recall measured then is the honest figure for the revision.
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROJECT_ROOT = HERE.parent
DATA = HERE / "ecosystem"

# Which codes confirm a label of each category. The API tables are scored apart from the rest.
CATEGORY_CODES = {
    "tracer_control_flow": ("JAX101",),
    "float_in_jit": ("JAX102",),
    "numpy_on_tracer": ("JAX103",),
    "print_in_jit": ("JAX104",),
    "inplace_update": ("JAX105",),
    "dynamic_shape": ("JAX106",),
    "side_effect_in_jit": ("JAX107",),
    "tracer_as_shape": ("JAX108",),
    "host_sync_in_loop": ("JAX201",),
    "timing_without_sync": ("JAX202",),
    "eager_ops_in_loop": ("JAX203",),
    "unhashable_static_arg": ("JAX301",),
    "jit_in_loop": ("JAX302",),
    "varying_static_arg": ("JAX303",),
    "python_loop_in_jit": ("JAX304",),
    "captured_constant": ("JAX305",),
    "grad_through_while": ("JAX306",),
    "jit_on_method": ("JAX307",),
    "missing_donation": ("JAX401",),
    "vmap_of_jit": ("JAX402",),
    "python_loop_batching": ("JAX403",),
    "prng_key_reuse": ("JAX501",),
    "host_state_in_jit": ("JAX502",),
    "nan_unsafe_where": ("JAX503",),
    "float64_without_x64": ("JAX504",),
    "deprecated_api": ("JAX601", "JAX602"),
}
API_TABLE_CATEGORIES = frozenset({"deprecated_api"})
DEV_SET = "dev"


@dataclass(frozen=True)
class Repo:
    name: str  # owner/name
    commit: str
    set: str
    kind: str

    @property
    def folder(self) -> str:
        return self.name.replace("/", "+")


@dataclass(frozen=True)
class Label:
    repo: str
    path: str
    cell: int | None  # notebook cell, counted from 1; None for a .py file
    line: int
    category: str
    verdict: str  # "TP" or "TN"
    reason: str

    def where(self) -> str:
        at = f"cell {self.cell}:{self.line}" if self.cell else str(self.line)
        return f"{self.repo.replace('/', '+')}/{self.path}:{at}"


@dataclass(frozen=True)
class Finding:
    path: str  # <owner>+<name>/<path in repo>
    cell: int | None
    row: int
    column: int
    code: str
    message: str

    def where(self) -> str:
        at = f"cell {self.cell}:{self.row}" if self.cell else str(self.row)
        return f"{self.path}:{at}"


# ---------------------------------------------------------------------------------------------
# Reading the data


def read_tsv(path: Path) -> list[dict[str, str]]:
    with open(path, newline="", encoding="utf-8") as handle:
        rows = csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t")
        return [row for row in rows if row.get("repo")]


def read_repos(path: Path) -> list[Repo]:
    return [Repo(row["repo"], row["commit"], row["set"], row.get("kind", "")) for row in read_tsv(path)]


def parse_line(text: str) -> tuple[int | None, int]:
    """`12` for a .py file, `3:12` for row 12 of a notebook's cell 3."""
    if ":" in text:
        cell, row = text.split(":", 1)
        return int(cell), int(row)
    return None, int(text)


def read_labels(path: Path, repos: list[Repo]) -> list[Label]:
    pinned = {repo.name: repo.commit for repo in repos}
    labels = []
    for row in read_tsv(path):
        if row["repo"] not in pinned:
            raise SystemExit(f"{path}: label for {row['repo']}, which repos.tsv does not pin")
        if row["commit"] != pinned[row["repo"]]:
            raise SystemExit(f"{path}: label for {row['repo']}@{row['commit'][:12]}, "
                             f"but repos.tsv pins {pinned[row['repo']][:12]}")
        if row["category"] not in CATEGORY_CODES:
            raise SystemExit(f"{path}: unknown category {row['category']!r} ({row['repo']} {row['path']})")
        if row["verdict"] not in ("TP", "TN"):
            raise SystemExit(f"{path}: verdict must be TP or TN, not {row['verdict']!r}")
        cell, line = parse_line(row["line"])
        labels.append(Label(row["repo"], row["path"], cell, line, row["category"], row["verdict"],
                            row.get("reason", "")))
    return labels


def select_sets(repos: list[Repo], wanted: str | None) -> list[Repo]:
    """`dev` is the development set; `new` is every other set; any other word names one set."""
    if not wanted:
        return repos
    names = {name.strip() for name in wanted.split(",") if name.strip()}

    def chosen(repo: Repo) -> bool:
        return repo.set in names or ("new" in names and repo.set != DEV_SET)

    return [repo for repo in repos if chosen(repo)]


# ---------------------------------------------------------------------------------------------
# Exporting the pinned repos and the base revision


def default_mirror() -> Path:
    """The nearest `.mirror` folder in this checkout's parents (where the fetch tool puts snapshots)."""
    if os.environ.get("JAXLINT_ECOSYSTEM_MIRROR"):
        return Path(os.environ["JAXLINT_ECOSYSTEM_MIRROR"])
    for parent in PROJECT_ROOT.parents:
        if (parent / ".mirror").is_dir():
            return parent / ".mirror"
    return PROJECT_ROOT.parent / ".mirror"


def git_dir(mirror: Path, repo: Repo) -> Path:
    snapshot = mirror / repo.folder / "repo"
    return snapshot / ".git" if (snapshot / ".git").is_dir() else snapshot


def absent_blobs(gitdir: Path, commit: str) -> list[str]:
    """Paths whose blobs a partial snapshot lacks: `git archive` would stop at the first one."""
    tree = subprocess.run(["git", "--git-dir", str(gitdir), "ls-tree", "-r", "-z", commit],
                          capture_output=True, check=True).stdout.decode("utf-8", "surrogateescape")
    paths_of = collections.defaultdict(list)
    for entry in filter(None, tree.split("\0")):
        meta, path = entry.split("\t", 1)
        _mode, kind, obj = meta.split()
        if kind == "blob":
            paths_of[obj].append(path)
    if not paths_of:
        return []
    check = subprocess.run(["git", "--git-dir", str(gitdir), "cat-file", "--batch-check"],
                           input="\n".join(paths_of) + "\n", capture_output=True, text=True, check=True)
    missing = [line.split()[0] for line in check.stdout.splitlines() if line.endswith(" missing")]
    return [path for obj in missing for path in paths_of[obj]]


def git_archive(gitdir: Path, commit: str, dest: Path, excluded: list[str] = ()) -> None:
    dest.mkdir(parents=True, exist_ok=True)
    pathspecs = (["--", "."] + [f":(exclude,literal){path}" for path in excluded]) if excluded else []
    archive = subprocess.Popen(["git", "--git-dir", str(gitdir), "archive", commit, *pathspecs],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    untar = subprocess.run(["tar", "-x", "-C", str(dest)], stdin=archive.stdout, capture_output=True)
    archive.stdout.close()
    err = archive.stderr.read().decode(errors="replace")
    if archive.wait() != 0 or untar.returncode != 0:
        raise RuntimeError(f"git archive {commit} of {gitdir} failed: {err}{untar.stderr.decode()}")


def export_repos(repos: list[Repo], mirror: Path, corpus: Path) -> list[str]:
    """Export each pinned commit into corpus/<owner>+<name>; return the problems met."""
    problems = []
    stamps = corpus / ".exported"
    stamps.mkdir(parents=True, exist_ok=True)
    for repo in repos:
        dest, stamp = corpus / repo.folder, stamps / repo.folder
        if dest.is_dir() and stamp.is_file() and stamp.read_text().strip() == repo.commit:
            continue
        gitdir = git_dir(mirror, repo)
        known = subprocess.run(["git", "--git-dir", str(gitdir), "cat-file", "-e", f"{repo.commit}^{{commit}}"],
                               capture_output=True)
        if known.returncode != 0:
            problems.append(f"missing snapshot {repo.name}@{repo.commit[:12]} "
                            f"(expected git dir {gitdir}; fetch it first)")
            continue
        if dest.exists():
            shutil.rmtree(dest)
        git_archive(gitdir, repo.commit, dest, absent_blobs(gitdir, repo.commit))
        stamp.write_text(repo.commit + "\n")
    return problems


def export_revision(revision: str, dest: Path) -> Path:
    """This checkout's `revision`, exported with git archive (its committed files only)."""
    gitdir = subprocess.run(["git", "-C", str(PROJECT_ROOT), "rev-parse", "--git-common-dir"],
                            capture_output=True, text=True, check=True).stdout.strip()
    git_archive((PROJECT_ROOT / gitdir).resolve(), revision, dest)
    return dest


# ---------------------------------------------------------------------------------------------
# Running jaxlint and reading its findings


def run_jaxlint(source_root: Path, corpus: Path, repos: list[Repo], jobs: int | None) -> tuple[list[Finding], float]:
    """`python -m jaxlint check` of the code under source_root, on the exported repos."""
    targets = [repo.folder for repo in repos if (corpus / repo.folder).is_dir()]
    if not targets:
        return [], 0.0
    command = [sys.executable, "-m", "jaxlint", "check", "--no-cache", "--format", "json", "--exit-zero", "-q"]
    if jobs:
        command += ["--jobs", str(jobs)]
    env = dict(os.environ, PYTHONPATH=str(source_root), PYTHONDONTWRITEBYTECODE="1")
    started = time.perf_counter()
    run = subprocess.run(command + targets, cwd=corpus, env=env, capture_output=True, text=True)
    elapsed = time.perf_counter() - started
    if run.returncode != 0:
        raise SystemExit(f"jaxlint from {source_root} failed ({run.returncode}):\n{run.stderr[-3000:]}")
    try:
        raw = json.loads(run.stdout or "[]")
    except json.JSONDecodeError:
        raise SystemExit(f"jaxlint from {source_root} printed no JSON:\n{run.stdout[-500:]}{run.stderr[-1500:]}")
    return [to_finding(item, corpus) for item in raw], elapsed


def to_finding(item: dict, corpus: Path) -> Finding:
    path = Path(item["filename"])
    if not path.is_absolute():
        path = corpus / path
    try:
        relative = path.resolve().relative_to(corpus.resolve()).as_posix()
    except ValueError:
        relative = path.as_posix()
    return Finding(relative, item.get("cell"), item["location"]["row"], item["location"]["column"],
                   item["code"], item["message"])


# ---------------------------------------------------------------------------------------------
# Scoring


def label_key(label: Label) -> tuple[str, int | None]:
    return f"{label.repo.replace('/', '+')}/{label.path}", label.cell


def confirms(finding: Finding, label: Label) -> bool:
    return (finding.code in CATEGORY_CODES[label.category]
            and (finding.path, finding.cell) == label_key(label)
            and abs(finding.row - label.line) <= 1)


@dataclass
class Score:
    hits: dict[Label, bool]
    unlabelled: list[Finding]


def score(labels: list[Label], findings: list[Finding]) -> Score:
    by_place = collections.defaultdict(list)
    for finding in findings:
        by_place[(finding.path, finding.cell)].append(finding)
    hits = {}
    spoken_for = set()
    for label in labels:
        matched = [f for f in by_place[label_key(label)] if confirms(f, label)]
        hits[label] = bool(matched)
        spoken_for.update(matched)
    return Score(hits, [f for f in findings if f not in spoken_for])


def tally(labels: list[Label], hits: dict[Label, bool]) -> dict[str, collections.Counter]:
    """Per category: TP, found, TN, flagged."""
    counts = collections.defaultdict(collections.Counter)
    for label in labels:
        counts[label.category][label.verdict] += 1
        if hits[label]:
            counts[label.category]["found" if label.verdict == "TP" else "flagged"] += 1
    return counts


def ratio(part: int, whole: int) -> str:
    return f"{part}/{whole} ({part / whole:.0%})" if whole else "-"


def group_totals(counts: dict[str, collections.Counter], categories) -> collections.Counter:
    total = collections.Counter()
    for category in categories:
        total.update(counts.get(category, {}))
    return total


def report_set(title: str, labels: list[Label], heads: dict[str, Score], verbose: bool) -> list[str]:
    """Table of recall and false alarms per category, one column pair per revision."""
    out = [f"== {title}: {len({l.repo for l in labels})} repos, "
           f"{sum(l.verdict == 'TP' for l in labels)} TP / {sum(l.verdict == 'TN' for l in labels)} TN labels"]
    revs = list(heads)
    per_rev = {rev: tally(labels, heads[rev].hits) for rev in revs}
    header = f"{'category':24}" + "".join(f"{rev + ' found/TP':>22}{rev + ' flagged/TN':>22}" for rev in revs)
    out.append(header)
    categories = sorted({l.category for l in labels})
    for category in categories:
        row = f"{category:24}"
        for rev in revs:
            c = per_rev[rev][category]
            row += f"{ratio(c['found'], c['TP']):>22}{ratio(c['flagged'], c['TN']):>22}"
        out.append(row)
    semantic = [c for c in categories if c not in API_TABLE_CATEGORIES]
    api = [c for c in categories if c in API_TABLE_CATEGORIES]
    for name, group in (("semantic rules", semantic), ("API tables", api), ("all", categories)):
        row = f"{'= ' + name:24}"
        for rev in revs:
            c = group_totals(per_rev[rev], group)
            row += f"{ratio(c['found'], c['TP']):>22}{ratio(c['flagged'], c['TN']):>22}"
        out.append(row)
    if verbose:
        last = heads[revs[-1]].hits
        for label in sorted(labels, key=lambda l: (l.verdict, l.category, l.where())):
            if (label.verdict == "TP") != last[label]:
                kind = "missed" if label.verdict == "TP" else "false alarm"
                out.append(f"  {kind:11} {label.category:22} {label.where()}  {label.reason[:110]}")
    return out


def finding_identity(finding: Finding) -> tuple:
    return (finding.path, finding.cell, finding.row, finding.column, finding.code, finding.message)


def place_order(finding: Finding) -> tuple:
    return finding.path, finding.cell or 0, finding.row, finding.column, finding.code


def unmatched(findings: list[Finding], others: collections.Counter) -> list[Finding]:
    """The findings left once each identical one of `others` has cancelled one of them."""
    left = []
    for finding in findings:
        key = finding_identity(finding)
        if others[key]:
            others[key] -= 1
        else:
            left.append(finding)
    return left


def diff_findings(base: list[Finding], head: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """Findings only the head has (added) and only the base has (removed), as multisets."""
    added = unmatched(head, collections.Counter(map(finding_identity, base)))
    removed = unmatched(base, collections.Counter(map(finding_identity, head)))
    return sorted(added, key=place_order), sorted(removed, key=place_order)


def report_diff(added: list[Finding], removed: list[Finding], labels: list[Label]) -> list[str]:
    verdict_of = {}
    for label in labels:
        verdict_of.setdefault(label_key(label), []).append(label)

    def mark(finding: Finding) -> str:
        for label in verdict_of.get((finding.path, finding.cell), ()):
            if confirms(finding, label):
                return f"  [{label.verdict} {label.category}]"
        return ""

    out = [f"== findings added: {len(added)}, removed: {len(removed)}"]
    out += [f"+ {f.where()} {f.code} {f.message}{mark(f)}" for f in added]
    out += [f"- {f.where()} {f.code} {f.message}{mark(f)}" for f in removed]
    codes = sorted({f.code for f in added} | {f.code for f in removed})
    if codes:
        plus, minus = collections.Counter(f.code for f in added), collections.Counter(f.code for f in removed)
        out.append("by code: " + ", ".join(f"{code} +{plus[code]} -{minus[code]}" for code in codes))
    return out


# ---------------------------------------------------------------------------------------------


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--base", metavar="REV", help="git revision of this checkout to compare against")
    parser.add_argument("--sets", help="comma-separated sets: dev, new (every set but dev), or a set's name")
    parser.add_argument("--verbose", action="store_true", help="list every miss and false alarm")
    parser.add_argument("--mirror", type=Path, default=None,
                        help="folder of git snapshots <owner>+<name>/repo (default: the nearest .mirror "
                             "folder above this checkout, or $JAXLINT_ECOSYSTEM_MIRROR)")
    parser.add_argument("--corpus", type=Path, default=Path(tempfile.gettempdir()) / "jaxlint-ecosystem",
                        help="where the pinned repos are exported (default: %(default)s)")
    parser.add_argument("--jobs", type=int, default=None, help="processes for jaxlint (default: its own)")
    parser.add_argument("--repos-file", type=Path, default=DATA / "repos.tsv", help=argparse.SUPPRESS)
    parser.add_argument("--labels-file", type=Path, default=DATA / "labels.tsv", help=argparse.SUPPRESS)
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    all_repos = read_repos(args.repos_file)
    repos = select_sets(all_repos, args.sets)
    if not repos:
        raise SystemExit(f"no repos in sets {args.sets!r}")
    chosen = {repo.name for repo in repos}
    labels = [l for l in read_labels(args.labels_file, all_repos) if l.repo in chosen]
    problems = export_repos(repos, args.mirror or default_mirror(), args.corpus)
    for problem in problems:
        print(problem, file=sys.stderr)
    present = [repo for repo in repos if (args.corpus / repo.folder).is_dir()]
    labels = [l for l in labels if l.repo in {repo.name for repo in present}]

    findings: dict[str, list[Finding]] = {}
    with tempfile.TemporaryDirectory(prefix="jaxlint-base-") as base_tree:
        if args.base:
            findings["base"], seconds = run_jaxlint(export_revision(args.base, Path(base_tree)),
                                                    args.corpus, present, args.jobs)
            print(f"base {args.base}: {len(findings['base'])} findings in {seconds:.1f} s")
        findings["head"], seconds = run_jaxlint(PROJECT_ROOT, args.corpus, present, args.jobs)
        print(f"head (working tree): {len(findings['head'])} findings in {seconds:.1f} s")

    scores = {rev: score(labels, found) for rev, found in findings.items()}
    set_of = {repo.name: repo.set for repo in present}
    set_of_folder = {repo.folder: repo.set for repo in present}
    groups = [("development set (tuned on)", lambda l: set_of[l.repo] == DEV_SET),
              ("new sets (labelled blind)", lambda l: set_of[l.repo] != DEV_SET)]
    for title, belongs in groups:
        subset = [l for l in labels if belongs(l)]
        if subset:
            print()
            print("\n".join(report_set(title, subset, scores, args.verbose)))
    print()
    for rev, result in scores.items():
        by_set = collections.Counter(set_of_folder.get(f.path.split("/", 1)[0]) == DEV_SET
                                     for f in result.unlabelled)
        print(f"{rev}: {len(result.unlabelled)} findings no label speaks for "
              f"(dev {by_set[True]}, new {by_set[False]})")
    if args.base:
        print()
        print("\n".join(report_diff(*diff_findings(findings["base"], findings["head"]), labels)))
    print()
    for rev, result in scores.items():
        tp = [l for l in labels if l.verdict == "TP"]
        tn = [l for l in labels if l.verdict == "TN"]
        found = sum(result.hits[l] for l in tp)
        flagged = sum(result.hits[l] for l in tn)
        print(f"RESULT {rev} recall={found / max(1, len(tp)):.3f} false_alarm={flagged / max(1, len(tn)):.3f} "
              f"found={found}/{len(tp)} flagged={flagged}/{len(tn)} findings={len(findings[rev])}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
