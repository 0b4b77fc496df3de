"""SARIF 2.1.0, as GitHub code scanning accepts it: rules with help text, locations and fixes."""

from __future__ import annotations

import json
from pathlib import Path

from jaxlint import __version__

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def _uri(filename: str) -> str:
    path = Path(filename)
    if path.is_absolute():
        try:
            return path.relative_to(Path.cwd()).as_posix()
        except ValueError:
            return path.as_uri()
    return path.as_posix()


def _region(start, end) -> dict:
    return {"startLine": start.row, "startColumn": start.column, "endLine": end.row, "endColumn": end.column}


def report(diagnostics, stream, *, rules=(), **_options) -> None:
    from jaxlint.rules import RULES_BY_CODE

    codes = sorted({d.code for d in diagnostics} | {rule.code for rule in rules})
    descriptors = []
    for code in codes:
        rule = RULES_BY_CODE[code]  # the engine's JAX000 and JAX001 are catalogued like the rules
        descriptors.append({
            "id": code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.summary},
            "help": {"text": rule.documentation, "markdown": rule.documentation},
            "defaultConfiguration": {"level": "error"},
            "properties": {"fixable": rule.fix_availability != "none", "preview": rule.preview},
        })
    index = {descriptor["id"]: position for position, descriptor in enumerate(descriptors)}
    results = []
    for d in diagnostics:
        message = d.message
        location = {"physicalLocation": {"artifactLocation": {"uri": _uri(d.filename)}, "region": _region(d.location, d.end_location)}}
        if d.cell is not None:
            # The region's rows count within the notebook cell, not within the .ipynb file: the
            # message and a logical location name the cell.
            message = f"cell {d.cell}, line {d.location.row}: {message}"
            location["logicalLocations"] = [{"name": f"cell {d.cell}", "kind": "notebookCell"}]
        result = {
            "ruleId": d.code,
            "ruleIndex": index[d.code],
            "level": "error",
            "message": {"text": message},
            "locations": [location],
        }
        if d.cell is not None:
            result["properties"] = {"cell": d.cell}
        if d.fix is not None:
            result["fixes"] = [{
                "description": {"text": d.fix.message},
                "artifactChanges": [{
                    "artifactLocation": {"uri": _uri(d.filename)},
                    "replacements": [
                        {"deletedRegion": _region(edit.location, edit.end_location), "insertedContent": {"text": edit.content}}
                        for edit in d.fix.edits
                    ],
                }],
            }]
        results.append(result)
    document = {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "jaxlint", "version": __version__, "rules": descriptors}},  # no informationUri: jaxlint has no public home yet
            "results": results,
        }],
    }
    json.dump(document, stream, indent=2, ensure_ascii=False)
    stream.write("\n")
