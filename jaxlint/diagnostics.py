"""Plain data that flows from rules to reporters and the fixer.

Positions are 1-based rows and 1-based columns counted in characters (not bytes),
the convention of Ruff's JSON output, so existing tooling reads ours.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum


class Applicability(str, Enum):
    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True, order=True)
class Position:
    row: int
    column: int

    def to_json(self) -> dict:
        return {"row": self.row, "column": self.column}


@dataclass(frozen=True)
class Edit:
    """Replace the text between two positions with `content`."""

    content: str
    location: Position
    end_location: Position

    def to_json(self) -> dict:
        return {
            "content": self.content,
            "location": self.location.to_json(),
            "end_location": self.end_location.to_json(),
        }


@dataclass(frozen=True)
class Fix:
    applicability: Applicability
    message: str
    edits: tuple[Edit, ...]

    @property
    def is_safe(self) -> bool:
        return self.applicability is Applicability.SAFE

    def to_json(self) -> dict:
        return {
            "applicability": self.applicability.value,
            "message": self.message,
            "edits": [edit.to_json() for edit in self.edits],
        }


@dataclass
class Diagnostic:
    code: str
    name: str
    message: str
    filename: str
    location: Position
    end_location: Position
    fix: Fix | None = None
    url: str | None = None
    cell: int | None = None
    # Internal: which line a `# noqa` must sit on (the statement's first line).
    noqa_row: int | None = field(default=None, compare=False)

    def sort_key(self):
        return (self.filename, self.cell or 0, self.location, self.code)

    def to_json(self) -> dict:
        data = {
            "code": self.code,
            "name": self.name,
            "message": self.message,
            "filename": self.filename,
            "location": self.location.to_json(),
            "end_location": self.end_location.to_json(),
            "fix": self.fix.to_json() if self.fix else None,
            "url": self.url,
        }
        if self.cell is not None:
            data["cell"] = self.cell
        return data
