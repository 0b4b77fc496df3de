"""Decoded source text and position arithmetic shared by rules and the fixer."""

from __future__ import annotations

import ast
import warnings
from bisect import bisect_right
from dataclasses import dataclass, field

from jaxlint.diagnostics import Position


@dataclass
class SourceFile:
    """The text of one file, with helpers to move between ast positions and ours.

    `ast` reports columns as UTF-8 byte offsets; we report character columns.
    """

    filename: str
    text: str
    _starts: list[int] | None = field(default=None, repr=False)
    _lines: list[str] | None = field(default=None, repr=False)

    @property
    def _line_starts(self) -> list[int]:
        """The offset of each line in `text`; found on first need (most files never need it)."""
        if self._starts is None:
            starts = [0]
            find = self.text.find
            index = find("\n")
            while index != -1:
                starts.append(index + 1)
                index = find("\n", index + 1)
            self._starts = starts
        return self._starts

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = self.text.split("\n")
        return self._lines

    def line(self, row: int) -> str:
        lines = self.lines
        return lines[row - 1] if 0 < row <= len(lines) else ""

    def char_column(self, row: int, byte_column: int) -> int:
        """0-based byte offset in a line to a 0-based character offset."""
        line = self.line(row)
        if line.isascii():
            return byte_column
        return len(line.encode("utf-8")[:byte_column].decode("utf-8", errors="replace"))

    def start(self, node: ast.AST) -> Position:
        row = node.lineno
        return Position(row, self.char_column(row, node.col_offset) + 1)

    def end(self, node: ast.AST) -> Position:
        row = node.end_lineno or node.lineno
        column = node.end_col_offset if node.end_col_offset is not None else node.col_offset
        return Position(row, self.char_column(row, column) + 1)

    def offset(self, position: Position) -> int:
        """Position (1-based row and column) to an index into `text`."""
        row = min(max(position.row, 1), len(self._line_starts))
        return self._line_starts[row - 1] + position.column - 1

    def position(self, offset: int) -> Position:
        row = bisect_right(self._line_starts, offset)
        return Position(row, offset - self._line_starts[row - 1] + 1)

    def segment(self, node: ast.AST) -> str:
        return self.text[self.offset(self.start(node)) : self.offset(self.end(node))]

    def indentation(self, row: int) -> str:
        line = self.line(row)
        return line[: len(line) - len(line.lstrip(" \t"))]


def parses_ast(text: str) -> bool:
    """Whether `text` parses as Python (warnings about escapes and the like silenced)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ast.parse(text)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
