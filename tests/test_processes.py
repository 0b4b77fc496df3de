"""The run's process sharing (jaxlint/processes.py): every item answered once, failures surface."""

from __future__ import annotations

import os

import pytest

from jaxlint.processes import run_in_processes


def _square(item: int) -> tuple[int, int]:
    return item * item, os.getpid()


def _start_squaring() -> object:
    return _square


def _start_failing() -> object:
    def fail(item: int) -> int:
        raise ValueError(f"cannot take {item}")

    return fail


@pytest.mark.parametrize("jobs", [1, 3])
def test_every_item_is_answered_once(jobs):
    items = list(range(200))
    answers: dict[int, int] = {}
    workers: set[int] = set()

    def on_result(index: int, result: tuple[int, int]) -> None:
        assert index not in answers
        answers[index], pid = result
        workers.add(pid)

    run_in_processes(items, jobs, _square, on_result, _start_squaring)
    assert answers == {index: index * index for index in items}
    if jobs == 1:
        assert workers == {os.getpid()}  # the calling process is one of the workers


def test_a_failing_helper_stops_the_run_with_its_traceback():
    with pytest.raises(RuntimeError, match="cannot take"):
        # The calling process is slowed so that the helper surely takes items.
        run_in_processes(list(range(50)), 2, lambda item: (__import__("time").sleep(0.01), item)[1], lambda index, result: None, _start_failing)


def _claim_the_last(item: int) -> tuple[int, int]:
    from jaxlint import processes

    if item == 0:
        assert processes.claim(99)  # nobody has taken the last item yet
        assert not processes.claim(99)  # once only
        assert not processes.claim(0)  # taken: this very item
    return item, os.getpid()


def test_a_claimed_item_is_worked_next_by_the_claiming_process_and_only_there():
    order: list[int] = []
    workers: dict[int, int] = {}

    def on_result(index: int, result: tuple[int, int]) -> None:
        order.append(index)
        workers[index] = result[1]

    run_in_processes(list(range(100)), 1, _claim_the_last, on_result, lambda: _claim_the_last)
    assert order[:2] == [0, 99] and sorted(order) == list(range(100))
    assert set(workers.values()) == {os.getpid()}


def test_claim_outside_a_run_takes_nothing():
    from jaxlint import processes

    assert not processes.claim(0)
