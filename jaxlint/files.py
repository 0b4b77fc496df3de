"""Finding files, reading them as text whatever their encoding, and writing atomically."""

from __future__ import annotations

import codecs
import fnmatch
import io
import os
import re
import stat
import tempfile
import tokenize
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

PYTHON_SUFFIXES = (".py", ".pyi")
NOTEBOOK_SUFFIXES = (".ipynb",)
SOURCE_SUFFIXES = PYTHON_SUFFIXES + NOTEBOOK_SUFFIXES
# Directories no user wants linted: VCS metadata, environments, caches and build output.
DEFAULT_EXCLUDES = (
    ".git", ".hg", ".svn", ".bzr", ".venv", "venv", ".env", "env", ".tox", ".nox",
    "__pycache__", ".mypy_cache", ".pytest_cache", ".ruff_cache", ".jaxlint_cache",
    "build", "dist", "node_modules", "site-packages", ".eggs", ".ipynb_checkpoints",
)
MAX_FILE_BYTES = 20 * 1024 * 1024


class SourceReadError(Exception):
    """A file that cannot be turned into text; the message is one line for the user."""

    def reason(self, name: str) -> str:
        """The message without the file's name in front (and without ", skipped"): a JAX000
        finding names the file itself."""
        text = str(self)
        prefix = f"{name}: "
        text = text[len(prefix) :] if text.startswith(prefix) else text
        return text.removesuffix(", skipped")


@dataclass
class DecodedFile:
    text: str
    encoding: str
    has_bom: bool
    newline: str  # the file's dominant line ending, kept when the fixer writes it back


_CODING_RE = re.compile(rb"^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)")


def decode_source(data: bytes, name: str = "<file>") -> DecodedFile:
    """Decode Python source as the interpreter would: BOM, then coding cookie, then UTF-8."""
    if b"\x00" in data[:8192]:
        raise SourceReadError(f"{name}: binary file (contains NUL bytes), skipped")
    has_bom = data.startswith(codecs.BOM_UTF8)
    encoding = "utf-8"
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        message = getattr(error, "msg", str(error))
        if "invalid or missing encoding" in message:
            message = "cannot decode as utf-8 and has no coding cookie; add one such as '# -*- coding: latin-1 -*-'"
        raise SourceReadError(f"{name}: {message}") from None
    try:
        text = data.decode(encoding)
    except (UnicodeDecodeError, LookupError) as error:
        hint = "" if _CODING_RE.match(data.split(b"\n", 2)[0]) else "; add a coding cookie such as '# -*- coding: latin-1 -*-'"
        raise SourceReadError(f"{name}: cannot decode as {encoding} ({error.__class__.__name__}){hint}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    newline = "\r\n" if "\r\n" in text else "\n"
    if newline != "\n":
        text = text.replace("\r\n", "\n")
    return DecodedFile(text=text, encoding=encoding, has_bom=has_bom, newline=newline)


def read_source(path: Path) -> DecodedFile:
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise SourceReadError(f"{path}: file is larger than {MAX_FILE_BYTES // (1024 * 1024)} MiB, skipped")
        data = path.read_bytes()
    except SourceReadError:
        raise
    except PermissionError:
        raise SourceReadError(f"{path}: permission denied") from None
    except IsADirectoryError:
        raise SourceReadError(f"{path}: is a directory") from None
    except OSError as error:
        raise SourceReadError(f"{path}: {error.strerror or error}") from None
    return decode_source(data, str(path))


def encode_source(decoded: DecodedFile, text: str) -> bytes:
    if decoded.newline != "\n":
        text = text.replace("\n", decoded.newline)
    data = text.encode(decoded.encoding)
    if decoded.has_bom and not data.startswith(codecs.BOM_UTF8):
        data = codecs.BOM_UTF8 + data
    return data


def write_atomic(path: Path, data: bytes) -> None:
    """Write through a temporary file in the same directory, then rename over the original.

    A crash leaves either the old file or the new one, never half of each; the mode is kept.
    """
    mode = path.stat().st_mode & 0o7777
    if not os.access(path, os.W_OK):
        raise PermissionError(f"{path}: file is read-only")
    handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".jaxlint-tmp", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def matches_any(path: Path, patterns: Iterable[str], root: Path, *, through_ancestors: bool = True) -> bool:
    """Glob patterns match the file name, any path component, or the path relative to root.

    `through_ancestors=False` leaves out the components above the path (a pattern that names a
    directory around it): what a walk of a directory named on the command line wants, since it
    prunes excluded directories below that one as it goes, and a directory the user names is
    checked even inside an excluded one (as Ruff does, unless `--force-exclude`)."""
    patterns = tuple(patterns)
    if not patterns:
        return False  # (without resolving the path: discovery asks for every file and directory)
    try:
        relative = path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        relative = path.as_posix()
    except (RuntimeError, OSError):  # a symlink loop (`a.py -> a.py`): match on the path as named
        try:
            relative = path.absolute().relative_to(root.absolute()).as_posix()
        except ValueError:
            relative = path.as_posix()
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if fnmatch.fnmatch(path.name, pattern) or fnmatch.fnmatch(relative, pattern):
            return True
        if through_ancestors and fnmatch.fnmatch(relative, pattern + "/*"):
            return True
    return False


def is_excluded(path: Path, excludes: Iterable[str], root: Path) -> bool:
    """Whether a path, or a directory on its way from `root`, is excluded by default or by `excludes`."""
    try:
        parts = path.resolve().relative_to(root.resolve()).parts
    except ValueError:
        parts = path.parts
    if any(part in DEFAULT_EXCLUDES or part.endswith(".egg-info") for part in parts[:-1]):
        return True
    current = root
    for part in parts:
        current = current / part
        if matches_any(current, excludes, root):
            return True
    return False


def discover(paths: Iterable[Path], excludes: Iterable[str], root: Path, force_exclude: bool = False) -> Iterator[Path | SourceReadError]:
    """Yield the Python files and notebooks under `paths`; a named file is always yielded, unless
    `force_exclude` (what pre-commit hooks want: they name files one by one) and it is excluded.

    Problems (missing paths, unreadable directories) are yielded as errors so the caller decides.
    """
    excludes = tuple(excludes)
    seen: set[str] = set()
    for path in paths:
        if not path.exists() and not path.is_symlink():
            yield SourceReadError(f"{path}: no such file or directory")
            continue
        if force_exclude and is_excluded(path, excludes, root):
            continue
        if path.is_file() or not path.is_dir():
            key = os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                yield path
            continue
        walk_errors: list[OSError] = []
        for directory, dirnames, filenames in os.walk(path, onerror=walk_errors.append, followlinks=False):
            current = Path(directory)
            real_directory = os.path.realpath(directory)  # once per directory, not per file
            dirnames[:] = sorted(
                name for name in dirnames
                if name not in DEFAULT_EXCLUDES and not name.endswith(".egg-info")
                and not matches_any(current / name, excludes, root, through_ancestors=False)
            )
            for name in sorted(filenames):
                if not name.endswith(SOURCE_SUFFIXES):
                    continue
                candidate = current / name
                if matches_any(candidate, excludes, root, through_ancestors=False):
                    continue
                # Only regular files: reading a FIFO or socket named *.py would block forever,
                # and a dangling symlink is not a source file.
                try:
                    mode = os.lstat(candidate).st_mode
                except OSError:
                    continue
                if stat.S_ISLNK(mode):
                    if not candidate.is_file():
                        continue
                    key = os.path.realpath(candidate)
                elif stat.S_ISREG(mode):
                    key = os.path.join(real_directory, name)  # what realpath gives for a file that is no link
                else:
                    continue
                if key in seen:
                    continue
                seen.add(key)
                yield candidate
        for error in walk_errors:
            yield SourceReadError(f"{error.filename}: {error.strerror or error}")
