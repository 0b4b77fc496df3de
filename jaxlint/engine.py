"""Parse once, build the semantic model, walk once calling every enabled rule, apply noqa.

The engine knows nothing about individual rules: it dispatches nodes by type.
"""

from __future__ import annotations

import ast
import re
import traceback
import warnings
from dataclasses import dataclass, field
from typing import Iterable, Sequence

from jaxlint.diagnostics import Diagnostic, Edit, Fix, Applicability, Position
from jaxlint.rules.base import Rule
from jaxlint.semantic.model import SemanticModel, Scope, NONE, TRACED, ARRAY
from jaxlint.source import SourceFile

SYNTAX_ERROR_CODE = "JAX000"
SYNTAX_ERROR_NAME = "syntax-error"

_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(r"^[ \t]*#[ \t]*jaxlint:[ \t]*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?[ \t]*$", re.IGNORECASE | re.MULTILINE)


@dataclass
class FileResult:
    filename: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # problems other than findings, one line each
    unreadable: bool = False  # the file could not be read or decoded at all


class Context:
    """What a rule sees while the engine walks one module."""

    def __init__(self, source: SourceFile, model: SemanticModel, settings) -> None:
        self.source = source
        self.model = model
        self.settings = settings
        self.diagnostics: list[Diagnostic] = []
        self.rule: Rule | None = None

    # Questions rules ask, forwarded to the semantic model.
    def scope(self, node: ast.AST) -> Scope:
        return self.model.scope_for(node)

    def qualified_name(self, node: ast.AST) -> str | None:
        return self.model.qualified_name(node)

    def level(self, node: ast.AST, scope: Scope | None = None) -> int:
        return self.model.level(node, scope or self.scope(node))

    def is_traced_code(self, node: ast.AST) -> bool:
        scope = self.scope(node)
        return scope.in_traced and not self.model.in_static_region(node) and not self.model.dead_when_traced(node, scope)

    def text(self, node: ast.AST) -> str:
        return self.source.segment(node)

    def replace(self, node: ast.AST, content: str) -> Edit:
        return Edit(content, self.source.start(node), self.source.end(node))

    def insert_before(self, node: ast.AST, content: str) -> Edit:
        start = self.source.start(node)
        return Edit(content, start, start)

    def fix(self, message: str, edits: Sequence[Edit], safe: bool) -> Fix:
        return Fix(Applicability.SAFE if safe else Applicability.UNSAFE, message, tuple(edits))

    def report(self, node: ast.AST, message: str, fix: Fix | None = None, end_node: ast.AST | None = None) -> None:
        rule = self.rule
        assert rule is not None
        self.diagnostics.append(
            Diagnostic(
                code=rule.code,
                name=rule.name,
                message=message,
                filename=self.source.filename,
                location=self.source.start(node),
                end_location=self.source.end(end_node or node),
                fix=fix,
                url=rule.url,
            )
        )


def parse(text: str, filename: str) -> ast.Module:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # invalid escape sequences and the like are not ours to report
        return ast.parse(text, filename=filename, type_comments=False)


def syntax_error_diagnostic(error: SyntaxError, source: SourceFile) -> Diagnostic:
    row = max(error.lineno or 1, 1)
    column = max(error.offset or 1, 1)
    message = error.msg or "invalid syntax"
    if "too many nested" in message or "too complex" in message:
        message = f"cannot parse: {message}"
    position = Position(row, column)
    return Diagnostic(SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, f"SyntaxError: {message}", source.filename, position, position)


def newer_syntax_parses(text: str) -> bool:
    """Whether libcst (which knows newer grammars) accepts what this interpreter's `ast` rejected."""
    try:
        import libcst

        libcst.parse_module(text)
        return True
    except Exception:
        return False


def check_source(text: str, filename: str, settings, rules: Iterable[Rule], *, ignored_codes: Iterable[str] = ()) -> FileResult:
    result = FileResult(filename)
    source = SourceFile(filename, text)
    file_noqa = _FILE_NOQA.search(text) if "jaxlint" in text else None
    if file_noqa is not None and not file_noqa.group("codes"):
        return result
    try:
        tree = parse(text, filename)
    except SyntaxError as error:
        if newer_syntax_parses(text):
            result.errors.append(f"{filename}: uses syntax newer than this Python can analyse; skipped")
        else:
            result.diagnostics.append(syntax_error_diagnostic(error, source))
        return result
    except (RecursionError, MemoryError, ValueError) as error:
        result.errors.append(f"{filename}: cannot parse ({error.__class__.__name__}: {error}); skipped")
        return result
    rules = list(rules)
    if not _may_use_jax(text, settings):
        return result  # nothing in it can name a JAX API: no rule can fire
    try:
        model = SemanticModel(tree, tuple(getattr(settings, "traced_decorators", ()) or ()))
    except RecursionError:
        result.errors.append(f"{filename}: too deeply nested to analyse; skipped")
        return result
    except Exception as error:  # an engine bug must not stop the run
        result.errors.append(f"{filename}: internal error while building the semantic model: {error.__class__.__name__}: {error}")
        return result
    context = Context(source, model, settings)
    dispatch: dict[type, list[Rule]] = {}
    for rule in rules:
        for node_type in rule.node_types:
            dispatch.setdefault(node_type, []).append(rule)
    failed: set[str] = set()
    for node in model.nodes:
        interested = dispatch.get(node.__class__)
        if not interested:
            continue
        for rule in interested:
            if rule.code in failed:
                continue
            context.rule = rule
            try:
                rule.check(node, context)
            except RecursionError:
                failed.add(rule.code)
                result.errors.append(f"{filename}: {rule.code} skipped: expression too deeply nested")
            except Exception as error:
                failed.add(rule.code)
                frame = traceback.extract_tb(error.__traceback__)[-1]
                result.errors.append(
                    f"{filename}:{getattr(node, 'lineno', 0)}: internal error in {rule.code} ({error.__class__.__name__}: {error} at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}); please report it"
                )
    ignored = {code.upper() for code in ignored_codes}
    file_codes = _codes(file_noqa.group("codes")) if file_noqa is not None else set()
    result.diagnostics = [
        diagnostic
        for diagnostic in context.diagnostics
        if not _suppressed(diagnostic, source, ignored | file_codes)
    ]
    result.diagnostics.sort(key=Diagnostic.sort_key)
    return result


# Every rule needs a JAX (or flax/equinox) name resolved from the module's imports.
_JAX_MARKERS = ("jax", "flax", "equinox")


def _may_use_jax(text: str, settings) -> bool:
    """A cheap text pre-filter: a module that never mentions JAX cannot contain a finding."""
    markers = (*_JAX_MARKERS, *(name.split(".")[0] for name in getattr(settings, "traced_decorators", ()) or ()))
    return any(marker in text for marker in markers)


def _codes(text: str | None) -> set[str]:
    return {code.upper() for code in re.split(r"[,\s]+", text or "") if code}


def noqa_codes(line: str) -> set[str] | None:
    """None: no noqa on the line; empty set: a blanket noqa; else the codes named."""
    if "noqa" not in line.lower():
        return None
    match = _NOQA.search(line)
    if match is None:
        return None
    return _codes(match.group("codes"))


def _suppressed(diagnostic: Diagnostic, source: SourceFile, ignored: set[str]) -> bool:
    if any(diagnostic.code.startswith(code) for code in ignored):
        return True
    rows = {diagnostic.location.row, diagnostic.end_location.row}
    if diagnostic.noqa_row:
        rows.add(diagnostic.noqa_row)
    for row in rows:
        codes = noqa_codes(source.line(row))
        if codes is not None and (not codes or diagnostic.code in codes):
            return True
    return False


__all__ = ["check_source", "Context", "FileResult", "NONE", "TRACED", "ARRAY"]
