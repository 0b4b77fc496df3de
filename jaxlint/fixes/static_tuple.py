"""JAX301's fix: a list or set passed as a static argument becomes a tuple (`[1, 2]` -> `(1, 2)`,
`list(x)` -> `tuple(x)`, a comprehension -> `tuple(generator)`, a variable -> `tuple(name)`)."""

from __future__ import annotations

import ast

from jaxlint.diagnostics import Edit


def tuple_fix(value: ast.AST, kind: str, variable: str | None, context):
    if variable is not None and kind in ("list", "set"):
        return context.fix(f"Convert `{variable}` with `tuple()`", [context.replace(value, f"tuple({variable})")], safe=False)
    if isinstance(value, (ast.List, ast.Set)):
        return context.fix("Use a tuple literal", _bracket_edits(value, context), safe=True)
    if isinstance(value, ast.Call) and kind in ("list", "set") and isinstance(value.func, ast.Name) and context.qualified_name(value.func) in ("builtins.list", "builtins.set"):
        return context.fix("Use `tuple(...)`", [context.replace(value.func, "tuple")], safe=True)
    if isinstance(value, (ast.ListComp, ast.SetComp)):
        inner = context.text(value)[1:-1]
        return context.fix("Use `tuple(...)` of a generator", [context.replace(value, f"tuple({inner})")], safe=True)
    return None




def _bracket_edits(literal: ast.List | ast.Set, context) -> list[Edit]:
    """The literal's own text with only its brackets swapped (`[` -> `(`, `]` -> `)`), so the elements
    keep their formatting and comments; a one-element tuple gets its comma after the element."""
    source = context.source
    start = source.offset(source.start(literal))
    text = context.text(literal)
    inner = text[1:-1]
    if len(literal.elts) == 1 and not _has_trailing_comma(literal, context):
        after = source.offset(source.end(literal.elts[0])) - start - 1
        inner = inner[:after] + "," + inner[after:]
    return [context.replace(literal, f"({inner})")]


def _has_trailing_comma(literal: ast.AST, context) -> bool:
    source = context.source
    between = source.text[source.offset(source.end(literal.elts[-1])) : source.offset(source.end(literal)) - 1]
    code = "".join(line.split("#", 1)[0] for line in between.split("\n"))
    return "," in code
