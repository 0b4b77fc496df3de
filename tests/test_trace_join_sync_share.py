"""The command mode's JAX201 verdict: reads that each cost no more than a read-back of a ready value are
still confirmed when, together, they take a large share of the host's time between compiled calls
(indices read one by one every step); a few such reads beside long host work stay refuted."""
from types import SimpleNamespace

from jaxlint.runtime_checks.trace_join import CONFIRMED, REFUTED, Trace, judge_finding, thresholds_for


def _finding(row):
    return SimpleNamespace(code="JAX201", name="host-sync-in-loop", message="reads", location=SimpleNamespace(row=row))


def _trace(blocked_each, reads, between):
    trace = Trace()
    trace.lines[("train.py", 10)] = {
        "syncs": reads, "sync_blocked_s": blocked_each * reads, "sync_blocked_samples": [blocked_each] * reads,
        "sync_kinds": {"host read": reads},
    }
    trace.lines[("train.py", 20)] = {"calls": 30, "gap_s": between}
    trace.executed["train.py"] = {10, 20}
    trace.totals["elapsed_s"] = 20.0
    return trace


def test_many_reads_at_the_read_back_floor_are_confirmed_by_their_share():
    thresholds = thresholds_for("gpu", 340e-6)  # a read-back of a ready value: 340 us, so a stall is 680 us
    trace = _trace(blocked_each=400e-6, reads=2112, between=4.5)  # 0.84 s of 4.5 s between compiled calls
    judged = judge_finding(_finding(10), "train.py", trace, thresholds)
    assert judged.verdict == CONFIRMED
    assert "of the host time between the program's compiled calls" in judged.evidence


def test_a_few_fast_reads_beside_long_host_work_stay_refuted():
    thresholds = thresholds_for("gpu", 340e-6)
    trace = _trace(blocked_each=400e-6, reads=30, between=4.5)  # 12 ms of 4.5 s
    judged = judge_finding(_finding(10), "train.py", trace, thresholds)
    assert judged.verdict == REFUTED
    assert "already computed" in judged.evidence


def test_a_stall_is_confirmed_as_before():
    thresholds = thresholds_for("gpu", 340e-6)
    trace = _trace(blocked_each=5e-3, reads=30, between=100.0)
    assert judge_finding(_finding(10), "train.py", trace, thresholds).verdict == CONFIRMED
