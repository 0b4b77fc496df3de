"""GitHub Actions workflow commands: one `::error` annotation per finding."""

from __future__ import annotations


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def report(diagnostics, stream, **_options) -> None:
    for d in diagnostics:
        title = f"{d.code} {d.name}"
        message = f"{d.code} {d.message}"
        if d.cell is not None:
            # Rows of a notebook finding count within its cell, not within the .ipynb file: say which
            # cell, as the text output does (`nb.ipynb:cell 3:2:5:`).
            title += f" (cell {d.cell})"
            message = f"{d.filename}:cell {d.cell}:{d.location.row}:{d.location.column}: {message}"
        properties = (
            f"file={_escape_property(d.filename)},line={d.location.row},col={d.location.column},"
            f"endLine={d.end_location.row},endColumn={d.end_location.column},title={_escape_property(title)}"
        )
        stream.write(f"::error {properties}::{_escape_data(message)}\n")
