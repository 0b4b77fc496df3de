"""Answers about the file system remembered for the length of one run over many files.

Every analysed file asks where its package starts (`__init__.py` files above it), whether its
imports could name a project module, and where those modules are: a few dozen `stat` calls per
file, nearly all of them the same questions its neighbours asked. During a run the files do not
change (the summaries of project modules already assume so), so the answers are kept.

Only a run turns remembering on (runner.py: for the whole life of a worker process, or around a
run in this process): the language server and anything else that analyses one text at a time
while files change around it always asks the file system afresh.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Callable, Iterator, TypeVar

T = TypeVar("T")

_answers: dict | None = None


def start() -> None:
    """Remember answers from now on, for the rest of this process (a worker of one run)."""
    global _answers
    if _answers is None:
        _answers = {}


@contextmanager
def remembering() -> Iterator[None]:
    """Remember answers inside the block, forgetting them after it (a run in this process)."""
    global _answers
    outer = _answers
    if outer is None:
        _answers = {}
    try:
        yield
    finally:
        _answers = outer


def answer(key: tuple, compute: Callable[..., T], *arguments: object) -> T:
    """`compute(*arguments)`, remembered under `key` while a run remembers."""
    answers = _answers
    if answers is None:
        return compute(*arguments)
    if key in answers:
        return answers[key]
    value = answers[key] = compute(*arguments)
    return value
