"""GitHub Actions workflow commands: one `::error` annotation per finding."""

from __future__ import annotations


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def report(diagnostics, stream, **_options) -> None:
    for d in diagnostics:
        properties = (
            f"file={_escape_property(d.filename)},line={d.location.row},col={d.location.column},"
            f"endLine={d.end_location.row},endColumn={d.end_location.column},title={_escape_property(d.code + ' ' + d.name)}"
        )
        stream.write(f"::error {properties}::{_escape_data(f'{d.code} {d.message}')}\n")
