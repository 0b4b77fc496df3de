"""The ecosystem check (benchmarks/ecosystem.py) on a tiny synthetic repo and labels: no network."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ECOSYSTEM = Path(__file__).resolve().parent.parent / "benchmarks" / "ecosystem.py"

# Line 4 uses a removed API (a real problem); line 9 converts a Python bool per step (a look-alike);
# line 7 is a per-step float() of a jitted step's loss.
TRAIN = textwrap.dedent(
    """\
    import jax

    step = jax.jit(lambda w, x: (w - 0.1 * x, (w * x).sum()))
    params = jax.tree_map(lambda a: a, {"w": 1.0})
    w = 1.0
    for x in range(10):
        w, loss = step(w, x); print(float(loss))
    done = x > 5
    print(float(done))
    """
)


def _module():
    spec = importlib.util.spec_from_file_location("ecosystem_benchmark", ECOSYSTEM)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def _git(*args: str, cwd: Path) -> str:
    command = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org", "-c", "commit.gpgsign=false", *args]
    return subprocess.run(command, cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


@pytest.fixture()
def synthetic(tmp_path):
    """A mirror holding one snapshot, its repos.tsv and labels.tsv."""
    checkout = tmp_path / "mirror" / "someone+tiny" / "repo"
    checkout.mkdir(parents=True)
    _git("init", "-q", cwd=checkout)
    (checkout / "train.py").write_text(TRAIN)
    _git("add", "train.py", cwd=checkout)
    _git("commit", "-q", "-m", "one", cwd=checkout)
    commit = _git("rev-parse", "HEAD", cwd=checkout)
    repos = tmp_path / "repos.tsv"
    repos.write_text("repo\tcommit\tset\tkind\tpy_files\tpy_lines\n"
                     f"someone/tiny\t{commit}\tround1\ttutorial\t1\t9\n")
    labels = tmp_path / "labels.tsv"
    rows = [
        ("train.py", "4", "deprecated_api", "TP", "removed tree_map"),
        ("train.py", "9", "host_sync_in_loop", "TN", "a Python bool, once"),
        ("train.py", "3", "vmap_of_jit", "TP", "no such thing here: a miss on purpose"),
    ]
    labels.write_text("repo\tcommit\tpath\tline\tcategory\tverdict\treason\n"
                      + "".join(f"someone/tiny\t{commit}\t" + "\t".join(row) + "\n" for row in rows))
    return tmp_path, repos, labels


def _args(tmp_path: Path, repos: Path, labels: Path, *extra: str) -> list[str]:
    return ["--mirror", str(tmp_path / "mirror"), "--corpus", str(tmp_path / "corpus"),
            "--repos-file", str(repos), "--labels-file", str(labels), "--jobs", "1", "--verbose", *extra]


def test_scores_the_labels_of_an_exported_repo(synthetic, capsys):
    tmp_path, repos, labels = synthetic
    assert _module().main(_args(tmp_path, repos, labels, "--sets", "new")) == 0
    out = capsys.readouterr().out
    assert (tmp_path / "corpus" / "someone+tiny" / "train.py").read_text() == TRAIN
    assert "new sets (labelled blind): 1 repos, 2 TP / 1 TN labels" in out
    assert "development set" not in out
    table = {line.split()[0]: line.split()[1:] for line in out.splitlines() if line[:1].isalpha()}
    assert table["deprecated_api"][:2] == ["1/1", "(100%)"]
    assert table["vmap_of_jit"][:2] == ["0/1", "(0%)"]
    assert table["host_sync_in_loop"][-2:] == ["0/1", "(0%)"]
    assert "missed      vmap_of_jit" in out
    assert "RESULT head recall=0.500 false_alarm=0.000 found=1/2 flagged=0/1" in out


def test_a_set_not_asked_for_is_not_run(synthetic, capsys):
    tmp_path, repos, labels = synthetic
    with pytest.raises(SystemExit, match="no repos"):
        _module().main(_args(tmp_path, repos, labels, "--sets", "dev"))


def test_a_snapshot_without_the_pinned_commit_is_reported(synthetic, capsys):
    tmp_path, repos, labels = synthetic
    text = repos.read_text()
    commit = text.split("\n")[1].split("\t")[1]
    repos.write_text(text.replace(commit, "f" * 40))
    labels.write_text(labels.read_text().replace(commit, "f" * 40))
    assert _module().main(_args(tmp_path, repos, labels)) == 1
    assert "missing snapshot someone/tiny@ffffffffffff" in capsys.readouterr().err


def test_labels_must_match_the_pinned_commit(synthetic):
    tmp_path, repos, labels = synthetic
    commit = repos.read_text().split("\n")[1].split("\t")[1]
    labels.write_text(labels.read_text().replace(commit, "a" * 40))
    with pytest.raises(SystemExit, match="repos.tsv pins"):
        _module().main(_args(tmp_path, repos, labels))


def test_base_revision_of_this_checkout_finds_the_same(synthetic, capsys):
    if subprocess.run(["git", "-C", str(ECOSYSTEM.parent), "rev-parse", "HEAD"], capture_output=True).returncode:
        pytest.skip("not a git checkout")
    tmp_path, repos, labels = synthetic
    _module().main(_args(tmp_path, repos, labels, "--base", "HEAD"))
    out = capsys.readouterr().out
    assert "RESULT base recall=0.500" in out
    assert "RESULT head recall=0.500" in out


def _finding(module, row, code="JAX201", message="m", cell=None):
    return module.Finding("o+r/a.py", cell, row, 1, code, message)


def test_diff_counts_identical_findings_as_a_multiset():
    module = _module()
    base = [_finding(module, 3), _finding(module, 3), _finding(module, 8)]
    head = [_finding(module, 3), _finding(module, 9), _finding(module, 8, message="changed")]
    added, removed = module.diff_findings(base, head)
    assert [(f.row, f.message) for f in added] == [(8, "changed"), (9, "m")]
    assert [(f.row, f.message) for f in removed] == [(3, "m"), (8, "m")]


def test_a_label_is_confirmed_within_one_line_by_its_categorys_codes_only():
    module = _module()
    label = module.Label("o/r", "a.py", None, 10, "host_sync_in_loop", "TP", "")
    near, far, other_code = _finding(module, 11), _finding(module, 12), _finding(module, 10, code="JAX401")
    result = module.score([label], [near, far, other_code])
    assert result.hits[label]
    assert result.unlabelled == [far, other_code]
    assert not module.score([label], [far, other_code]).hits[label]


def test_a_notebook_label_names_its_cell():
    module = _module()
    assert module.parse_line("3:12") == (3, 12)
    assert module.parse_line("12") == (None, 12)
    label = module.Label("o/r", "a.py", 3, 12, "host_sync_in_loop", "TP", "")
    assert module.score([label], [_finding(module, 12, cell=3)]).hits[label]
    assert not module.score([label], [_finding(module, 12, cell=2)]).hits[label]
