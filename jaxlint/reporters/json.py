"""A JSON array with Ruff's field names (code, message, filename, location, end_location, fix, url)."""

from __future__ import annotations

import json


def report(diagnostics, stream, **_options) -> None:
    json.dump([diagnostic.to_json() for diagnostic in diagnostics], stream, indent=2, ensure_ascii=False)
    stream.write("\n")
