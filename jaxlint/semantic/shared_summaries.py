"""Module summaries shared between the worker processes of one run, through a directory.

Each process memoises the summaries it builds (project.py), but a summary is wanted by files that
different workers analyse: the package a whole project imports is summarised by every worker. Parsing
such a module again costs far more than reading its summary back, so the first process to build a
summary writes it here, pickled, and the others read it. On the benchmark corpus this spares about
a third of the summary parses of a two-process run.

The directory lives as long as the process pool (runner.py makes and removes it). Entries are keyed
like the in-process memo, by path, size and modification time, so an edited file is summarised
afresh. A write goes to a temporary name first and is then renamed into place: a reader sees a whole
entry or none. Any failure to read or write just means the summary is built here, as without sharing.
"""

from __future__ import annotations

import hashlib
import os
import pickle

# What `load` returns for a summary no process has written yet (None is a valid summary: "cannot
# be summarised").
MISSING = object()

_directory: str | None = None
# Set by a run whose processes lint files (runner.py): takes a module parsed for its summary before
# any process has linted it (path, text, tree), so that it is linted from that parse; says whether it did.
_take_parsed = None


def use_directory(directory: str | None) -> None:
    """Share summaries through `directory` from now on in this process; None stops sharing."""
    global _directory
    _directory = directory


def _entry(key: tuple) -> str | None:
    if _directory is None:
        return None
    return os.path.join(_directory, hashlib.blake2b(repr(key).encode(), digest_size=16).hexdigest())


def load(key: tuple) -> object:
    """The summary another process stored under `key`, or MISSING."""
    entry = _entry(key)
    if entry is None:
        return MISSING
    try:
        with open(entry, "rb") as stream:
            stored_key, summary = pickle.load(stream)
    except FileNotFoundError:
        return MISSING
    except Exception:  # a damaged entry: build the summary here
        return MISSING
    return summary if stored_key == key else MISSING


def store(key: tuple, summary: object) -> None:
    entry = _entry(key)
    if entry is None:
        return
    temporary = f"{entry}.{os.getpid()}.tmp"
    try:
        with open(temporary, "wb") as stream:
            pickle.dump((key, summary), stream, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(temporary, entry)
    except Exception:  # a full disk, a tree too deep to pickle: the other processes parse it themselves
        try:
            os.unlink(temporary)
        except OSError:
            pass


def use_parsed_modules(take) -> None:
    """Offer modules parsed for their summaries to `take(path, text, tree) -> bool` from now on; None stops."""
    global _take_parsed
    _take_parsed = take


def offer_parsed(path: str, text: str, tree) -> bool:
    """Whether the run took this parse of a module to lint it from: the caller must not touch `tree` again."""
    take = _take_parsed
    return take is not None and take(path, text, tree)
