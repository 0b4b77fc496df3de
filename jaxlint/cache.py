"""A results cache so an unchanged file is not analysed twice.

An entry is keyed on the file's bytes, jaxlint's version and the state of its own modules (so an
edited or reinstalled checkout of one version never serves findings of its older code), the enabled
rules and the settings that change results; it holds the file's findings (filename left out, so a moved file still hits).
Entries are JSON files written atomically (temporary file, then rename), so concurrent runs never
read half an entry; anything that does not decode to the expected shape is a miss, never trusted.
The cache lives in `.jaxlint_cache/` beside the configuration (or `$JAXLINT_CACHE_DIR`).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path

from jaxlint import __version__
from jaxlint.diagnostics import Applicability, Diagnostic, Edit, Fix, Position

CACHE_DIRECTORY_NAME = ".jaxlint_cache"
# 2: findings carry the URL of their rule's section of docs/rules.md; 3: entries record the project
# files their findings depend on.
FORMAT = 3


def cache_directory(settings) -> Path:
    configured = os.environ.get("JAXLINT_CACHE_DIR")
    return Path(configured) if configured else Path(settings.root) / CACHE_DIRECTORY_NAME


def code_fingerprint() -> str:
    """Size and modification time of every module of the installed jaxlint: a few dozen stats."""
    global _CODE_FINGERPRINT
    if _CODE_FINGERPRINT is None:
        package = Path(__file__).resolve().parent
        digest = hashlib.blake2b(digest_size=12)
        for path in sorted(package.rglob("*.py")):
            try:
                status = path.stat()
            except OSError:
                continue
            digest.update(f"{path.relative_to(package)}:{status.st_size}:{status.st_mtime_ns}|".encode())
        _CODE_FINGERPRINT = digest.hexdigest()
    return _CODE_FINGERPRINT


_CODE_FINGERPRINT: str | None = None


class ResultCache:
    def __init__(self, directory: Path, settings, rule_codes) -> None:
        self.directory = directory
        self.salt = f"{FORMAT}|{__version__}|{code_fingerprint()}|{settings.cache_key()}|{','.join(sorted(rule_codes))}".encode()
        self.hits = 0
        self.misses = 0

    def key(self, data: bytes, ignored_codes) -> str:
        digest = hashlib.blake2b(self.salt, digest_size=20)
        digest.update(b"|" + ",".join(sorted(ignored_codes)).encode() + b"|")
        digest.update(data)
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / key[:2] / f"{key[2:]}.json"

    def load(self, key: str, filename: str) -> list[Diagnostic] | None:
        try:
            with open(self._path(key), "rb") as stream:
                payload = json.loads(stream.read())
            diagnostics = [_from_json(item, filename) for item in payload["diagnostics"]]
            dependencies = payload.get("dependencies", {})
            if not isinstance(dependencies, dict) or not _dependencies_unchanged(dependencies):
                self.misses += 1  # another module the findings depend on has changed
                return None
        except FileNotFoundError:
            self.misses += 1
            return None
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            self.misses += 1  # corrupt or foreign: recompute, and the store below replaces it
            return None
        self.hits += 1
        return diagnostics

    def store(self, key: str, diagnostics: list[Diagnostic], dependencies: dict[str, str] | None = None) -> None:
        """`dependencies`: the other project files (path -> digest) the findings were computed from."""
        path = self._path(key)
        payload = {"diagnostics": [_to_json(d) for d in diagnostics], "dependencies": dict(dependencies or {})}
        try:
            self._ensure_directory(path.parent)
            handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(payload, stream, separators=(",", ":"))
            os.replace(temporary, path)
        except OSError:
            pass  # a read-only tree or full disk must not fail the lint

    def _ensure_directory(self, path: Path) -> None:
        if path.is_dir():
            return
        first_time = not self.directory.exists()
        path.mkdir(parents=True, exist_ok=True)
        if first_time:
            # Keep the cache out of version control and backups, as other tools' caches do.
            (self.directory / ".gitignore").write_text("# Created by jaxlint\n*\n")
            (self.directory / "CACHEDIR.TAG").write_text("Signature: 8a477f597d28d172789f06886806bc55\n# jaxlint cache\n")


def _dependencies_unchanged(dependencies: dict) -> bool:
    """Whether every file a cached result read from another module still has the same content."""
    from jaxlint.semantic.project import file_digest

    for path, digest in dependencies.items():
        try:
            data = Path(path).read_bytes()
        except OSError:
            return False
        if file_digest(data) != digest:
            return False
    return True


def _to_json(diagnostic: Diagnostic) -> dict:
    data = diagnostic.to_json()
    del data["filename"]
    data["noqa_row"] = diagnostic.noqa_row
    return data


def _position(data: dict) -> Position:
    return Position(int(data["row"]), int(data["column"]))


def _from_json(data: dict, filename: str) -> Diagnostic:
    fix = data["fix"]
    if fix is not None:
        fix = Fix(
            Applicability(fix["applicability"]),
            str(fix["message"]),
            tuple(Edit(str(e["content"]), _position(e["location"]), _position(e["end_location"])) for e in fix["edits"]),
        )
    return Diagnostic(
        code=str(data["code"]),
        name=str(data["name"]),
        message=str(data["message"]),
        filename=filename,
        location=_position(data["location"]),
        end_location=_position(data["end_location"]),
        fix=fix,
        url=data["url"],
        cell=data.get("cell"),
        noqa_row=data.get("noqa_row"),
    )
