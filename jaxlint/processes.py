"""Spread the items of one run over several processes, the calling process being one of them.

Why not `multiprocessing.Pool`: its worker-handler thread wakes whenever a result waits in the
pipe, and with its task and result threads it spent about 0.3 s of CPU in the main process of a cold
check of the benchmark corpus (1,640 files, two workers), CPU taken from the workers on a two-core
machine, while the main process itself analysed nothing. Here the calling process works too and
`jobs - 1` helper processes (forked where the platform can) take the rest. Every process takes the
next item from one shared counter, so they all finish together; there are no threads, and each
result crosses a pipe once. A process may also `claim` an item no process has taken yet, to work
it right after its current one (runner.py: a module it has just parsed for another's imports).
"""

from __future__ import annotations

import multiprocessing
import os
import traceback
from multiprocessing.connection import Connection, wait
from typing import Any, Callable, Sequence

# What a helper sends instead of a result when its work raised: the formatted traceback.
_FAILED = -1


class _Share:
    """This process's view of a run: the shared counter and claim flags, and the items it claimed."""

    def __init__(self, next_index, claimed, count: int) -> None:
        self.next_index = next_index  # items below it are taken (or were claimed)
        self.claimed = claimed  # one flag per item, guarded by next_index's lock
        self.count = count
        self.mine: list[int] = []  # claimed here, not worked yet


_share: _Share | None = None  # set while this process works items of a run


def claim(index: int) -> bool:
    """Take item `index` for this process ahead of its turn: it is worked right after the current
    item. False when a process has taken it already, or no run is going on here."""
    share = _share
    if share is None or not 0 <= index < share.count:
        return False
    with share.next_index.get_lock():
        if index < share.next_index.value or share.claimed[index]:
            return False
        share.claimed[index] = 1
    share.mine.append(index)
    return True


def run_in_processes(
    items: Sequence[Any],
    jobs: int,
    work: Callable[[Any], Any],
    on_result: Callable[[int, Any], None],
    start_helper: Callable[..., Callable[[Any], Any]],
    helper_arguments: tuple = (),
) -> None:
    """Call `on_result(index, result)` in this process for every item, the results worked out here
    by `work(item)` and in `jobs - 1` helper processes by the function `start_helper(*helper_arguments)`
    returns there (the same work, set up in that process).

    `start_helper` must be a module-level function (a spawned helper imports it) and its arguments
    picklable. Results come in the order the work is done."""
    global _share
    context = multiprocessing.get_context("fork" if hasattr(os, "fork") else "spawn")
    next_index = context.Value("q", 0)
    claimed = context.Array("b", len(items), lock=False)
    helpers = []
    connections: list[Connection] = []
    try:
        for _ in range(jobs - 1):
            receiver, sender = context.Pipe(duplex=False)
            helper = context.Process(target=_helper, args=(items, next_index, claimed, start_helper, helper_arguments, sender), daemon=True)
            helper.start()
            sender.close()  # only the helper writes: its exit then ends the pipe here
            helpers.append(helper)
            connections.append(receiver)
        done = 0
        _share = _Share(next_index, claimed, len(items))
        while (index := _next(_share)) is not None:
            on_result(index, work(items[index]))
            done += 1
            # Read what the helpers finished meanwhile, so a full pipe never holds one up.
            done += _receive(connections, on_result, timeout=0)
        while connections:
            done += _receive(connections, on_result, timeout=None)
        if done != len(items):
            codes = ", ".join(str(helper.exitcode) for helper in helpers)
            raise RuntimeError(f"a worker process ended before returning its results (exit codes {codes})")
    finally:
        _share = None
        for helper in helpers:
            if helper.is_alive():
                helper.terminate()
            helper.join()


def _next(share: _Share) -> int | None:
    """The item this process works next: one it claimed, else the next one no process has taken;
    None when all are taken."""
    if share.mine:
        return share.mine.pop(0)
    with share.next_index.get_lock():
        index = share.next_index.value
        while index < share.count and share.claimed[index]:
            index += 1
        if index >= share.count:
            share.next_index.value = index
            return None
        share.next_index.value = index + 1
    return index


def _receive(connections: list[Connection], on_result: Callable[[int, Any], None], timeout: float | None) -> int:
    """Hand on the results waiting in the helpers' pipes (waiting up to `timeout` for one); a pipe
    that has ended is dropped. Returns how many results were handed on."""
    received = 0
    for connection in wait(connections, timeout):
        while connection.poll():  # type: ignore[union-attr]
            try:
                index, result = connection.recv()  # type: ignore[union-attr]
            except EOFError:
                connections.remove(connection)  # type: ignore[arg-type]
                break
            if index == _FAILED:
                raise RuntimeError(f"a worker process failed:\n{result}")
            on_result(index, result)
            received += 1
    return received


def _helper(items, next_index, claimed, start_helper, helper_arguments, sender: Connection) -> None:
    global _share
    try:
        work = start_helper(*helper_arguments)
        _share = _Share(next_index, claimed, len(items))
        while (index := _next(_share)) is not None:
            sender.send((index, work(items[index])))
    except BaseException:
        sender.send((_FAILED, traceback.format_exc()))
    finally:
        sender.close()
