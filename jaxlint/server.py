"""`jaxlint server`: a language server over stdio (pygls).

It publishes jaxlint's findings as the user types (didOpen, didChange, didSave) and offers every
available fix as a quick-fix code action, plus one "fix all safe" source action. Settings come
from the nearest pyproject.toml of each document, as for `jaxlint check`.

Positions: jaxlint counts 1-based rows and 1-based columns in characters; LSP counts 0-based lines
and, unless the client negotiated another encoding, UTF-16 code units. `PositionMapper` converts.

Nothing a document contains may stop the server: every handler catches its own failures and
reports them to the client's log, one line each.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Sequence
from urllib.parse import unquote, urlparse

from lsprotocol import types

try:  # pygls 2
    from pygls.lsp.server import LanguageServer
except ImportError:  # pragma: no cover - pygls 1.x
    from pygls.server import LanguageServer

from jaxlint import __version__
from jaxlint.config import ConfigError, Settings, load_settings, resolve_enabled, validate_selectors
from jaxlint.diagnostics import Diagnostic, Edit, Position
from jaxlint.engine import SYNTAX_ERROR_CODE

SOURCE = "jaxlint"
NOTEBOOK_CELL_SCHEMES = ("vscode-notebook-cell",)
FIX_ALL_KIND = "source.fixAll.jaxlint"
logger = logging.getLogger(__name__)


# ---------------------------------------------------------------------------------------------
# Positions


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class PositionMapper:
    """Converts between jaxlint positions and LSP positions for one document text.

    `text` is the document as the client holds it (any line endings); jaxlint sees the same text
    with every line break turned into "\\n", which keeps rows and columns the same.
    """

    def __init__(self, text: str, encoding: str = "utf-16") -> None:
        self.lines = _LINE_BREAK.split(text)
        self.encoding = encoding

    def _units(self, characters: str) -> int:
        if self.encoding == "utf-32" or characters.isascii():
            return len(characters)
        if self.encoding == "utf-8":
            return len(characters.encode("utf-8", errors="surrogatepass"))
        return len(characters.encode("utf-16-le", errors="surrogatepass")) // 2

    def to_lsp(self, position: Position) -> types.Position:
        line = min(max(position.row - 1, 0), len(self.lines) - 1)
        if position.row - 1 >= len(self.lines):  # past the last line: the end of the document
            return types.Position(line=line, character=self._units(self.lines[line]))
        text = self.lines[line]
        column = min(max(position.column - 1, 0), len(text))
        return types.Position(line=line, character=self._units(text[:column]))

    def to_jaxlint(self, position: types.Position) -> Position:
        line = min(max(position.line, 0), len(self.lines) - 1)
        text = self.lines[line]
        units = 0
        for index, character in enumerate(text):
            if units >= position.character:
                return Position(line + 1, index + 1)
            units += self._units(character)
        return Position(line + 1, len(text) + 1)

    def range(self, start: Position, end: Position) -> types.Range:
        return types.Range(start=self.to_lsp(start), end=self.to_lsp(end))


def normalize_newlines(text: str) -> str:
    return _LINE_BREAK.sub("\n", text) if "\r" in text else text


def dominant_newline(text: str) -> str:
    if "\r\n" in text:
        return "\r\n"
    if "\r" in text and "\n" not in text:
        return "\r"
    return "\n"


# ---------------------------------------------------------------------------------------------
# Linting one document


def uri_to_path(uri: str, schemes: tuple[str, ...] = ("file",)) -> Path | None:
    parsed = urlparse(uri)
    if parsed.scheme not in schemes or not parsed.path:
        return None
    path = unquote(parsed.path)
    if os.name == "nt" and re.match(r"^/[A-Za-z]:", path):  # pragma: no cover - Windows
        path = path[1:]
    return Path(path)


def settings_path(uri: str) -> Path | None:
    """Where to look for pyproject.toml; a notebook cell (VS Code sends each as its own document)
    takes its notebook's settings."""
    return uri_to_path(uri) or uri_to_path(uri, NOTEBOOK_CELL_SCHEMES)


@dataclass
class DocumentResult:
    """What the last lint of one document found, kept for code actions."""

    text: str  # as the client holds it
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


class SettingsCache:
    """Settings per pyproject.toml, reloaded when the file changes; a broken one is reported once."""

    def __init__(self) -> None:
        self._entries: dict[tuple, tuple[Settings, list]] = {}
        self.reported: set[tuple] = set()

    def for_path(self, path: Path | None) -> tuple[Settings, list, str | None]:
        """Settings, enabled rules, and a one-line configuration problem (None when fine)."""
        from jaxlint.config import find_pyproject
        from jaxlint.rules import ALL_RULES

        config = find_pyproject(path) if path is not None else None
        try:
            stamp = config.stat().st_mtime_ns if config else None
        except OSError:
            stamp = None
        key = (str(config), stamp)
        if key in self._entries:
            settings, rules = self._entries[key]
            return settings, rules, None
        problem = None
        try:
            settings = load_settings(path, config) if config is not None else Settings(root=Path.cwd(), root_from_cwd=True)
            codes = [rule.code for rule in ALL_RULES]
            origin = str(settings.config_file) if settings.config_file else "configuration"
            for selectors in (settings.select or [], settings.ignore, settings.extend_select):
                validate_selectors(selectors, codes, origin)
        except ConfigError as error:
            # The user is mid-edit of their pyproject.toml: lint with defaults rather than not at all.
            problem = f"{error}; using the default settings"
            settings = Settings(root=config.parent if config else Path.cwd(), root_from_cwd=config is None)
        rules = resolve_enabled(settings, ALL_RULES)
        self._entries[key] = (settings, rules)
        return settings, rules, problem


def lint_document(uri: str, text: str, settings_cache: SettingsCache) -> tuple[DocumentResult, str | None]:
    from jaxlint.files import matches_any
    from jaxlint.runner import lint_text

    path = uri_to_path(uri)
    settings, rules, problem = settings_cache.for_path(settings_path(uri))
    result = DocumentResult(text)
    if path is not None and path.suffix == ".ipynb":
        return result, problem  # a notebook's raw JSON: its findings would name cells, not JSON lines
    if path is not None and settings.config_file is not None and matches_any(path, settings.excludes, settings.root):
        return result, problem  # excluded from `jaxlint check`: silent here too
    filename = str(path) if path is not None else uri
    file_result = lint_text(normalize_newlines(text), filename, settings, rules)
    result.diagnostics = file_result.diagnostics
    result.errors = file_result.errors
    return result, problem


def to_lsp_diagnostic(diagnostic: Diagnostic, mapper: PositionMapper) -> types.Diagnostic:
    severity = types.DiagnosticSeverity.Error if diagnostic.code == SYNTAX_ERROR_CODE else types.DiagnosticSeverity.Warning
    return types.Diagnostic(
        range=mapper.range(diagnostic.location, diagnostic.end_location),
        message=diagnostic.message,
        severity=severity,
        code=diagnostic.code,
        code_description=types.CodeDescription(href=diagnostic.url) if diagnostic.url else None,
        source=SOURCE,
        data={"name": diagnostic.name, "fixable": diagnostic.fix is not None},
    )


def text_edits(edits: Sequence[Edit], mapper: PositionMapper, newline: str) -> list[types.TextEdit]:
    return [
        types.TextEdit(range=mapper.range(edit.location, edit.end_location), new_text=edit.content.replace("\n", newline))
        for edit in edits
    ]


def _kind(kind) -> str:
    return str(getattr(kind, "value", kind))  # str() of a str-Enum member is "Class.Member" before 3.12


def _before(a: types.Position, b: types.Position) -> bool:
    return (a.line, a.character) < (b.line, b.character)


def overlaps(first: types.Range, second: types.Range) -> bool:
    return not (_before(first.end, second.start) or _before(second.end, first.start))


# ---------------------------------------------------------------------------------------------
# The server


class JaxlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("jaxlint", __version__)
        self.results: dict[str, DocumentResult] = {}
        self.settings_cache = SettingsCache()

    # Small shims over the pygls 1 and 2 APIs.
    def publish(self, uri: str, diagnostics: list[types.Diagnostic], version: int | None = None) -> None:
        if hasattr(self, "text_document_publish_diagnostics"):
            self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics, version=version))
        else:  # pragma: no cover - pygls 1.x
            self.publish_diagnostics(uri, diagnostics, version)

    def log(self, message: str, level: types.MessageType = types.MessageType.Warning) -> None:
        logger.warning(message)
        try:
            if hasattr(self, "window_log_message"):
                self.window_log_message(types.LogMessageParams(type=level, message=message))
            else:  # pragma: no cover - pygls 1.x
                self.show_message_log(message, level)
        except Exception:  # the log is a courtesy; losing a line must not fail a handler
            pass

    def show(self, message: str) -> None:
        try:
            if hasattr(self, "window_show_message"):
                self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))
            else:  # pragma: no cover - pygls 1.x
                self.show_message(message, types.MessageType.Error)
        except Exception:
            pass

    def encoding(self) -> str:
        value = getattr(self.workspace, "position_encoding", None) or "utf-16"
        return str(getattr(value, "value", value)).lower()

    def document_text(self, uri: str) -> str | None:
        try:
            return self.workspace.get_text_document(uri).source
        except Exception:
            return None

    def refresh(self, uri: str) -> None:
        """Lint the document as the client holds it now and publish the findings."""
        text = self.document_text(uri)
        if text is None:
            return
        version = getattr(self.workspace.get_text_document(uri), "version", None)
        try:
            result, problem = lint_document(uri, text, self.settings_cache)
        except Exception as error:  # a bug of ours: report it, keep serving
            self.log(f"jaxlint: internal error while linting {uri}: {error.__class__.__name__}: {error}", types.MessageType.Error)
            self.publish(uri, [], version)
            return
        if problem is not None and problem not in self.settings_cache.reported:
            self.settings_cache.reported.add(problem)
            self.show(f"jaxlint: {problem}")
        for message in result.errors:
            self.log(f"jaxlint: {message}")
        self.results[uri] = result
        mapper = PositionMapper(text, self.encoding())
        self.publish(uri, [to_lsp_diagnostic(d, mapper) for d in result.diagnostics], version)

    def current_result(self, uri: str) -> DocumentResult | None:
        text = self.document_text(uri)
        result = self.results.get(uri)
        if text is None:
            return None
        if result is None or result.text != text:  # edits arrived since the last publish
            result, _ = lint_document(uri, text, self.settings_cache)
            self.results[uri] = result
        return result

    def code_actions(self, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        result = self.current_result(uri)
        if result is None:
            return []
        mapper = PositionMapper(result.text, self.encoding())
        newline = dominant_newline(result.text)
        only = params.context.only if params.context else None

        def wanted(kind) -> bool:
            return not only or any(_kind(kind).startswith(_kind(prefix)) for prefix in only)

        actions: list[types.CodeAction] = []
        if wanted(types.CodeActionKind.QuickFix):
            for diagnostic in result.diagnostics:
                if diagnostic.fix is None or not diagnostic.fix.edits:
                    continue
                lsp_diagnostic = to_lsp_diagnostic(diagnostic, mapper)
                if not overlaps(lsp_diagnostic.range, params.range):
                    continue
                safety = "" if diagnostic.fix.is_safe else " (unsafe)"
                actions.append(
                    types.CodeAction(
                        title=f"{diagnostic.code}: {diagnostic.fix.message}{safety}",
                        kind=types.CodeActionKind.QuickFix,
                        diagnostics=[lsp_diagnostic],
                        is_preferred=diagnostic.fix.is_safe,
                        edit=types.WorkspaceEdit(changes={uri: text_edits(diagnostic.fix.edits, mapper, newline)}),
                    )
                )
        if wanted(FIX_ALL_KIND) and any(d.fix is not None and d.fix.is_safe for d in result.diagnostics):
            fixed = self.fix_all(uri, result.text)
            if fixed is not None and fixed != result.text:
                end = types.Position(line=len(mapper.lines) - 1, character=mapper._units(mapper.lines[-1]))
                whole = types.Range(start=types.Position(line=0, character=0), end=end)
                actions.append(
                    types.CodeAction(
                        title="jaxlint: fix all safe fixes",
                        kind=FIX_ALL_KIND,
                        edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(range=whole, new_text=fixed)]}),
                    )
                )
        return actions

    def fix_all(self, uri: str, text: str) -> str | None:
        from jaxlint.config import per_file_ignored
        from jaxlint.fixer import fix_source

        path = uri_to_path(uri)
        settings, rules, _ = self.settings_cache.for_path(settings_path(uri))
        ignored = per_file_ignored(settings, path) if path is not None and settings.per_file_ignores else []
        outcome = fix_source(normalize_newlines(text), str(path or uri), settings, rules, ignored_codes=ignored)
        newline = dominant_newline(text)
        return outcome.text.replace("\n", newline) if newline != "\n" else outcome.text


def create_server() -> JaxlintServer:
    server = JaxlintServer()

    def guarded(name: str, handler):
        def run(ls: JaxlintServer, params):
            try:
                return handler(ls, params)
            except Exception as error:  # never let a document take the server down
                ls.log(f"jaxlint: internal error in {name}: {error.__class__.__name__}: {error}", types.MessageType.Error)
                return None

        return run

    def refresh(ls: JaxlintServer, params) -> None:
        ls.refresh(params.text_document.uri)

    def close(ls: JaxlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.results.pop(params.text_document.uri, None)
        ls.publish(params.text_document.uri, [])

    def code_action(ls: JaxlintServer, params: types.CodeActionParams):
        return ls.code_actions(params)

    for method in (types.TEXT_DOCUMENT_DID_OPEN, types.TEXT_DOCUMENT_DID_CHANGE, types.TEXT_DOCUMENT_DID_SAVE):
        server.feature(method)(guarded(method, refresh))
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(guarded("didClose", close))
    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND]),
    )(guarded("codeAction", code_action))
    return server


def start() -> None:
    """Serve over stdin/stdout until the client says exit. stdout carries the protocol only."""
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="jaxlint server: %(message)s")
    create_server().start_io()
