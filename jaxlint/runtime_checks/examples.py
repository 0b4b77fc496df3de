"""The examples file: example inputs (and optional expectations) kept beside the code.

A TOML file with one table per function, so repeated runs need no `--example` on the command
line. A table is named `"path.py::function"` (the path relative to the examples file) or just
`"function"` (any file's function of that name):

    ["train.py::train"]
    example = "[f32[2048,2048], f32[2048,2048]], [f32[2048,2048], f32[2048,2048]]"
    codes = ["JAX401"]        # also check these codes when static analysis reports none
    compare = ["kernels.py:softmax_pallas"]   # alternatives timed against the function

Only `example` is required.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from jaxlint.runtime_checks.spec import SpecError, parse_spec

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10 only
    import tomli as tomllib


class ExamplesError(ValueError):
    """A malformed examples file; the message names the file and the table."""


@dataclass
class Example:
    spec: str
    codes: list[str] = field(default_factory=list)
    compare: list[str] = field(default_factory=list)


@dataclass
class ExamplesFile:
    path: Path | None = None
    by_location: dict[tuple[Path, str], Example] = field(default_factory=dict)
    by_name: dict[str, Example] = field(default_factory=dict)

    def lookup(self, filename: Path, function: str) -> Example | None:
        found = self.by_location.get((Path(filename).resolve(), function))
        return found if found is not None else self.by_name.get(function)

    def functions_in(self, filename: Path) -> list[str]:
        resolved = Path(filename).resolve()
        return [name for (path, name) in self.by_location if path == resolved]


def load_examples(path: Path | None) -> ExamplesFile:
    if path is None:
        return ExamplesFile()
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise ExamplesError(f"{path}: {error}") from None
    examples = ExamplesFile(path=Path(path))
    base = Path(path).resolve().parent
    for key, table in data.items():
        example = _example(path, key, table)
        if "::" in key:
            file_part, function = key.rsplit("::", 1)
            examples.by_location[((base / file_part).resolve(), function)] = example
        else:
            examples.by_name[key] = example
    return examples


def _example(path: Path, key: str, table) -> Example:
    if not isinstance(table, dict) or not isinstance(table.get("example"), str):
        raise ExamplesError(f"{path}: table [{key!r}] needs a string `example`")
    try:
        parse_spec(table["example"])
    except SpecError as error:
        raise ExamplesError(f"{path}: [{key!r}]: {error}") from None
    codes = table.get("codes", [])
    compare = table.get("compare", [])
    if not all(isinstance(item, str) for item in [*codes, *compare]):
        raise ExamplesError(f"{path}: [{key!r}]: `codes` and `compare` are lists of strings")
    return Example(table["example"], list(codes), list(compare))
