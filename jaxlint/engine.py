"""Parse once, build the semantic model, walk once calling every enabled rule, apply noqa.

The engine knows nothing about individual rules: it dispatches nodes by type.

Suppression bookkeeping lives here too. With `settings.report_unused_noqa` (`jaxlint check
--report-unused-noqa`), a `# noqa: JAXnnn` comment that suppresses nothing is reported as
JAX001 `unused-noqa`, with a safe fix that removes the stale code. Only JAX codes of rules that ran
on the file are judged: a blanket `# noqa`, other tools' codes (E501) and codes of rules that are not
selected are left alone. `add_noqa_comments` writes `# noqa: CODE` for `jaxlint check --add-noqa`.
"""

from __future__ import annotations

import ast
import io
import os
import re
import sys
import tokenize
import traceback
import warnings
from collections import defaultdict
from dataclasses import dataclass, field, replace
from itertools import compress
from operator import attrgetter
from time import perf_counter
from pathlib import Path
from typing import Callable, Iterable, Sequence

from jaxlint.semantic import library_models
from jaxlint.diagnostics import Diagnostic, Edit, Fix, Applicability, Position
from jaxlint.context import Context
from jaxlint.rules.base import Rule
from jaxlint.semantic.model import SemanticModel, NONE, TRACED, ARRAY
from jaxlint.semantic.callers import remember_calls
from jaxlint.semantic.project import ProjectView, project_root_of, summary_seconds
from jaxlint.ipython import mask_ipython
from jaxlint.source import SourceFile, parses_ast

SYNTAX_ERROR_CODE = "JAX000"
SYNTAX_ERROR_NAME = "syntax-error"
UNUSED_NOQA_CODE = "JAX001"
UNUSED_NOQA_NAME = "unused-noqa"

_NOQA = re.compile(r"#\s*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)
_FILE_NOQA = re.compile(r"^[ \t]*#[ \t]*jaxlint:[ \t]*noqa(?::[\s]?(?P<codes>[A-Z]+[0-9]+(?:[,\s]+[A-Z]+[0-9]+)*))?[ \t]*$", re.IGNORECASE | re.MULTILINE)


@dataclass
class FileResult:
    filename: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # problems other than findings, one line each
    unreadable: bool = False  # the file could not be read or decoded at all
    # Other project files whose summaries the analysis read: path -> content digest.
    dependencies: dict[str, str] = field(default_factory=dict)
    # With profiling on: seconds spent per phase ("parse", "model", "noqa") and per rule code.
    timings: dict[str, float] | None = None


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
    return Diagnostic(SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, f"SyntaxError: {message}", source.filename, position, position, url=_url(SYNTAX_ERROR_CODE))


def not_checked_diagnostic(filename: str, reason: str, row: int = 1, column: int = 1, cell: int | None = None) -> Diagnostic:
    """JAX000 for a file (or, from `row` on, part of one) that was not analysed: unreadable,
    undecodable, too deeply nested. Never a silent pass: a run with one exits 1, as Ruff does."""
    position = Position(max(row, 1), max(column, 1))
    return Diagnostic(SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, f"not checked: {reason}", filename, position, position, url=_url(SYNTAX_ERROR_CODE), cell=cell)


def _url(code: str) -> str | None:
    from jaxlint.rules.documentation import rule_url

    return rule_url(code, SYNTAX_ERROR_NAME if code == SYNTAX_ERROR_CODE else UNUSED_NOQA_NAME)


def syntax_errors_ignored(settings, ignored_codes: Iterable[str] = ()) -> bool:
    """JAX000 is reported unless `--ignore`, `ignore` or a per-file ignore names it (or a prefix of it):
    `--select JAX1` still shows a file that could not be checked at all."""
    selectors = [*(getattr(settings, "ignore", None) or ()), *ignored_codes]
    return any(SYNTAX_ERROR_CODE.startswith(selector.strip().upper()) or selector.strip().upper() == "ALL" for selector in selectors)


# Lines that may hold syntax newer than the running interpreter's: PEP 695 `type` statements and
# generic `def`/`class`, f-strings (PEP 701), t-strings (PEP 750), `except A, B:` (PEP 758).
# A string prefix never follows a backslash: `'\t' + name` ends a string with an escape (importing
# libcst to parse a Python 2 `print '\t'` again costs more than the rest of a check of that file).
_NEWER_SYNTAX_HINT = re.compile(
    r"^\s*type\s+\w|^\s*(?:async\s+)?(?:def|class)\s+\w+\s*\[|(?<![\w.'\"\\])(?:[rR]?[fFtT]|[fFtT][rR])['\"]|^\s*except\s+[^:(]*,"
)
# libcst crashes the whole process (native stack overflow) on deeply nested brackets and takes
# minutes on very long expressions, so only text it can handle is handed to it. CPython itself
# refuses more than 200 nested brackets, in every version.
_MAX_BRACKET_DEPTH = 200
_MAX_LIBCST_LINE = 5000


def _libcst_can_take(text: str, error: SyntaxError | None) -> bool:
    lines = text.split("\n")
    if error is not None:
        message = error.msg or ""
        if "too many nested" in message or "too complex" in message:
            return False
        row = error.lineno or 0
        # Only when the line the interpreter stopped at (or the two before it) looks like newer syntax.
        if not any(_NEWER_SYNTAX_HINT.search(line) for line in lines[max(row - 3, 0) : max(row, 1)]):
            return False
    if max(map(len, lines), default=0) > _MAX_LIBCST_LINE:
        return False
    depth = 0
    for character in text:
        if character in "([{":
            depth += 1
            if depth > _MAX_BRACKET_DEPTH:
                return False
        elif character in ")]}":
            depth = max(depth - 1, 0)
    return True


# Syntax that arrived after Python 3.12 (the version of PEP 695 generics, `type` statements and
# PEP 701 f-strings, which every other `_NEWER_SYNTAX_HINT` line stands for): t-strings (PEP 750) and
# `except A, B:` without parentheses (PEP 758), both Python 3.14.
# (A prefix is not a quote's content: `TypeVar("T")` holds no t-string.)
_PYTHON_3_14_HINT = re.compile(r"(?<![\w.'\"])(?:[tT][rR]?|[rR][tT])['\"]|^\s*except\s+[^:(]*,")


def python_needed(text: str, error: SyntaxError) -> tuple[int, int]:
    """The Python version whose grammar the lines around `error` need: at least the next one after ours."""
    lines = text.split("\n")
    row = error.lineno or 0
    nearby = lines[max(row - 3, 0) : max(row, 1)]
    needed = (3, 14) if any(_PYTHON_3_14_HINT.search(line) for line in nearby) else (3, 12)
    return max(needed, (sys.version_info[0], sys.version_info[1] + 1))


def newer_syntax_diagnostic(error: SyntaxError, source: SourceFile) -> Diagnostic:
    """JAX000 for a module that a newer Python parses: it is not analysed, and the user must know why."""
    major, minor = python_needed(source.text, error)
    position = Position(max(error.lineno or 1, 1), max(error.offset or 1, 1))
    running = f"{sys.version_info[0]}.{sys.version_info[1]}"
    message = (
        f"SyntaxError under Python {running}: this file uses syntax of Python {major}.{minor} or newer, so it was not "
        f"analysed; run jaxlint with Python {major}.{minor}+ to check it"
    )
    return Diagnostic(SYNTAX_ERROR_CODE, SYNTAX_ERROR_NAME, message, source.filename, position, position, url=_url(SYNTAX_ERROR_CODE))


def newer_syntax_parses(text: str, error: SyntaxError | None = None) -> bool:
    """Whether libcst (which knows newer grammars) accepts what this interpreter's `ast` rejected.

    Pass the SyntaxError: it lets text with no sign of newer syntax skip libcst altogether."""
    if not _libcst_can_take(text, error):
        return False
    try:
        import libcst

        libcst.parse_module(text)
        return True
    except Exception:
        return False


def _as_ipython_script(text: str) -> str | None:
    """`text` with its IPython lines (`!cmd`, `%magic`, `x = !ls`) masked, where that alone makes it
    parse; None otherwise (a real syntax error stays one)."""
    masked, masked_lines = mask_ipython(text)
    if masked is None or not masked_lines or not parses_ast(masked):
        return None
    return masked


def check_source(
    text: str, filename: str, settings, rules: Iterable[Rule], *, ignored_codes: Iterable[str] = (), profile: bool = False,
    parsed: ast.Module | None = None,
) -> FileResult:
    """Findings for one module. With `profile`, `result.timings` holds seconds per phase and per rule.

    `parsed`: `text` already parsed, untouched since (a module summarised for another file's imports)."""
    result = FileResult(filename)
    timings: defaultdict[str, float] | None = defaultdict(float) if profile else None
    result.timings = timings
    started = perf_counter()
    source = SourceFile(filename, text)
    file_noqa = _FILE_NOQA.search(text) if "jaxlint" in text else None
    if file_noqa is not None and not file_noqa.group("codes"):
        return result
    ignored = {code.upper() for code in ignored_codes}
    report_not_checked = not syntax_errors_ignored(settings, ignored)
    try:
        tree = parsed if parsed is not None else parse(text, filename)
        if timings is not None:
            timings["parse"] += perf_counter() - started
    except SyntaxError as error:
        script = _as_ipython_script(text) if parsed is None and filename.endswith(".py") else None
        if script is not None:
            # A script exported from a notebook (Colab's "Download .py" keeps `!pip install ...` and
            # `%matplotlib inline`): checked as IPython reads it, those lines masked in place (line
            # numbers kept); no fixes, since a fix is written against the masked text.
            scripted = check_source(script, filename, settings, rules, ignored_codes=ignored_codes, profile=profile)
            scripted.diagnostics = [replace(d, fix=None) for d in scripted.diagnostics]
            return scripted
        if not report_not_checked:
            return result
        if newer_syntax_parses(text, error):
            result.diagnostics.append(newer_syntax_diagnostic(error, source))
        else:
            result.diagnostics.append(syntax_error_diagnostic(error, source))
        return result
    except (RecursionError, MemoryError) as error:
        # CPython's parser gives up this way on very deep nesting (`- - - ... x`, 100k-term sums).
        if report_not_checked:
            result.diagnostics.append(not_checked_diagnostic(filename, f"too deeply nested or too large to parse ({error.__class__.__name__})"))
        return result
    except ValueError as error:
        if report_not_checked:
            result.diagnostics.append(not_checked_diagnostic(filename, f"cannot parse ({error.__class__.__name__}: {error})"))
        return result
    rules = list(rules)
    report_unused = bool(getattr(settings, "report_unused_noqa", False))
    file_codes = _codes(file_noqa.group("codes")) if file_noqa is not None else set()
    project = project_view(filename, settings, tree if "sys.path" in text else None)
    every_rule = rules
    if not _may_use_jax(text, settings) and not _imports_from_project(tree, project):
        # A module that names no JAX can still be handed compiled code by the modules that import it
        # (`def time_it(fn, *args)` called with `jax.lax.scan`): the rules that read such callers run.
        rules = [rule for rule in rules if _handed_compiled_code(rule, text)] if project is not None else []
    if not rules:
        # Nothing in it can name a JAX API: no rule can fire, so every JAX code in a noqa is stale.
        if report_unused:
            unused = unused_noqa_diagnostics(source, {rule.code for rule in every_rule}, set(), ignored)
            result.diagnostics = [d for d in unused if not _suppressed(d, source, ignored | file_codes)]
        return result
    started = perf_counter()
    summaries_before = summary_seconds[0]
    try:
        library_models.configure(getattr(settings, "library_models", None))
        model = SemanticModel(tree, tuple(getattr(settings, "traced_decorators", ()) or ()), project)
    except RecursionError:
        if report_not_checked:
            result.diagnostics.append(not_checked_diagnostic(filename, "too deeply nested to analyse (RecursionError)"))
        return result
    except Exception as error:  # an engine bug must not stop the run
        result.errors.append(f"{filename}: internal error while building the semantic model: {error.__class__.__name__}: {error}")
        if report_not_checked:
            result.diagnostics.append(not_checked_diagnostic(filename, f"internal error while building the semantic model ({error.__class__.__name__}); please report it"))
        return result
    if timings is not None:
        _charge(timings, "model", started, summaries_before)
    context = Context(source, model, settings)
    found_text: dict[str, bool] = {}
    running = [rule for rule in rules if _may_fire(rule, text, model, found_text)]
    dispatch = _dispatch_table(running, model)
    failed: set[str] = set()
    stopped: list[Diagnostic] = []  # JAX000 where a rule could not go on
    dispatch_get = dispatch.get
    # Only nodes of a type some rule handles: the filter runs in C, not once per node in Python
    # (a third of the nodes are of no rule's type). Every listed node carries its scope (SCOPE).
    for node in compress(model.nodes, map(dispatch.__contains__, map(_CLASS_OF, model.nodes))):
        entry = dispatch_get(node.__class__)
        if entry is None:
            continue  # a rule that failed in this module took its node types with it
        interested, outside_traced = entry
        if outside_traced is not interested and not node._jaxlint_scope.frozen_in_traced:
            interested = outside_traced
        for rule, check in interested:
            context.rule = rule
            try:
                if timings is None:
                    check(node, context)
                else:
                    started, summaries_before = perf_counter(), summary_seconds[0]
                    check(node, context)
                    _charge(timings, rule.code, started, summaries_before)
            except Exception as error:
                failed.add(rule.code)
                # A failed rule is not called again in this module; the lists are replaced, not
                # changed, so the loop over this node's list goes on with the rules after it.
                running = [other for other in running if other is not rule]
                dispatch = _dispatch_table(running, model)
                dispatch_get = dispatch.get
                if isinstance(error, RecursionError):
                    # The rest of the file was not checked for this rule: a finding, not a silent pass.
                    if report_not_checked:
                        where = source.start(node) if hasattr(node, "lineno") else Position(1, 1)
                        stopped.append(not_checked_diagnostic(
                            filename, f"{rule.code} stopped here, expression too deeply nested (RecursionError)", where.row, where.column,
                        ))
                    continue
                frame = traceback.extract_tb(error.__traceback__)[-1]
                result.errors.append(
                    f"{filename}:{getattr(node, 'lineno', 0)}: internal error in {rule.code} ({error.__class__.__name__}: {error} at {frame.filename.rsplit('/', 1)[-1]}:{frame.lineno}); please report it"
                )
    started = perf_counter()
    used: set[tuple[int, str]] = set()
    # One finding per code and position: a rule reaching one spot twice (an interval read twice) says it once.
    seen: set[tuple] = set()
    result.diagnostics = [
        diagnostic
        for diagnostic in context.diagnostics
        if not _suppressed(diagnostic, source, ignored | file_codes, used)
        and not ((diagnostic.code, diagnostic.location) in seen or seen.add((diagnostic.code, diagnostic.location)))
    ]
    result.diagnostics.extend(stopped)
    if report_unused:
        judged = {rule.code for rule in every_rule} - failed
        unused = unused_noqa_diagnostics(source, judged, used, ignored)
        result.diagnostics.extend(d for d in unused if not _suppressed(d, source, ignored | file_codes))
    result.diagnostics.sort(key=Diagnostic.sort_key)
    if timings is not None:
        timings["noqa"] += perf_counter() - started
    if project is not None:
        result.dependencies = dict(project.dependencies)
        if project.find_callers:
            remember_calls(filename, text, model)
    context.release()
    model.release()
    return result


def _charge(timings: defaultdict[str, float], name: str, started: float, summaries_before: float) -> None:
    """Add the time since `started` to `name`, less what went into building project summaries
    meanwhile: that has its own line, or the first rule to ask about an import would carry it."""
    on_summaries = summary_seconds[0] - summaries_before
    timings[name] += perf_counter() - started - on_summaries
    if on_summaries:
        timings["summaries"] += on_summaries


_CLASS_OF = attrgetter("__class__")
_DispatchEntry = tuple[list[tuple[Rule, Callable]], list[tuple[Rule, Callable]]]


# Tables already built, by (the rules, whether the module has traced code): most modules of a run
# share a handful of these, and the tables are never changed (a failed rule gets a new one).
_DISPATCH_TABLES: dict[tuple, dict[type, _DispatchEntry]] = {}


def _dispatch_table(rules: Sequence[Rule], model: SemanticModel) -> dict[type, _DispatchEntry]:
    """Node type -> (the rules to call for such a node, those to call where the node's scope is not
    traced). The two lists are one object where no rule is limited to traced code, so the walk looks
    up a node's scope only where that makes a difference."""
    key = (*rules, model.has_traced_code)  # (rules compare by identity; the key keeps them alive)
    found = _DISPATCH_TABLES.get(key)
    if found is None:
        if len(_DISPATCH_TABLES) > 256:
            _DISPATCH_TABLES.clear()
        found = _DISPATCH_TABLES[key] = _build_dispatch_table(rules, model.has_traced_code)
    return found


def _build_dispatch_table(rules: Sequence[Rule], has_traced_code: bool) -> dict[type, _DispatchEntry]:
    table: dict[type, _DispatchEntry] = {}
    for rule in rules:
        if rule.traced_code_only and not has_traced_code:
            continue
        for node_type in rule.node_types:
            everywhere, outside_traced = table.setdefault(node_type, ([], []))
            everywhere.append((rule, rule.check))
            if not rule.traced_code_only:
                outside_traced.append((rule, rule.check))
    return {kind: (everywhere, everywhere if len(outside) == len(everywhere) else outside) for kind, (everywhere, outside) in table.items()}


def _is_below(path: Path, folder: Path) -> bool:
    path, folder = Path(os.path.abspath(path)), Path(os.path.abspath(folder))
    return folder == path or folder in path.parents


def project_view(filename: str, settings, tree: ast.Module | None = None) -> ProjectView | None:
    """The rest of the project as `filename` sees it; None for text with no file behind it. `tree`:
    the module, where it edits `sys.path` (the folders it adds are searched too)."""
    if not filename or filename == "-" or filename.startswith("<"):
        return None
    root = getattr(settings, "root", None)
    if root is None or getattr(settings, "root_from_cwd", False) or not _is_below(Path(filename), Path(root)):
        # No configuration file names the root, or the file lies outside the configured project (a run
        # over several checkouts): the file's own project root (semantic/project.py), never the folder
        # jaxlint runs from nor another checkout's, so a file's findings are the same from anywhere.
        root = project_root_of(Path(filename))
    try:
        return ProjectView(filename, root, find_callers=bool(getattr(settings, "cross_module_callers", False)), tree=tree)
    except (OSError, ValueError):
        return None


# Every rule needs a JAX (or flax/equinox) name resolved from the module's imports.
_JAX_MARKERS = ("jax", "flax", "equinox")


def _may_use_jax(text: str, settings) -> bool:
    """A cheap text pre-filter: a module that never mentions JAX cannot contain a finding."""
    markers = (*_JAX_MARKERS, *(name.split(".")[0] for name in getattr(settings, "traced_decorators", ()) or ()))
    return any(marker in text for marker in markers)


def _handed_compiled_code(rule: Rule, text: str) -> bool:
    """The rule may fire in a module that names no JAX, on what its importers hand its functions
    (`Rule.fires_on_handed_callables`: text the module must hold for that, such as a clock read)."""
    return any(token in text for token in rule.fires_on_handed_callables)


def _imports_from_project(tree: ast.Module, project: ProjectView | None) -> bool:
    """A module that never spells JAX can still drive it through its own project: a training script
    whose only import is `from mypkg.train import train_step` (relative imports count too)."""
    if project is None:
        return False
    for statement in tree.body:
        if isinstance(statement, ast.ImportFrom) and (statement.level or (statement.module and project.may_hold(statement.module.split(".")[0]))):
            return True
        if isinstance(statement, ast.Import) and any(project.may_hold(alias.name.split(".")[0]) for alias in statement.names):
            return True
    return False


def _may_fire(rule: Rule, text: str, model: SemanticModel, found_text: dict[str, bool]) -> bool:
    """The rule's own pre-filter (`Rule.required_text`): skip a module that lacks every string the
    rule needs, unless what it needs may come through an import from the module's project.

    Configured `traced-decorators` act as `jax.jit` wherever the module names them, so their last
    dotted part counts as required text of every filtered rule. `found_text` remembers, per module,
    whether each string is in it: several rules need the same ones ("jit", "static_arg"), and a
    string that is absent costs a search of the whole text."""
    required = rule.required_text
    if not required:
        return True
    for token in required:
        found = found_text.get(token)
        if found is None:
            found = found_text[token] = token in text
        if found:
            return True
    if any(name.rsplit(".", 1)[-1] in text for name in model.extra_traced):
        return True
    return rule.fires_through_project_imports and model.imports_from_project


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


def _suppressed(diagnostic: Diagnostic, source: SourceFile, ignored: set[str], used: set[tuple[int, str]] | None = None) -> bool:
    """Whether a noqa (or an ignore) silences the finding; `used` collects the (row, code) pairs that did."""
    if any(diagnostic.code.startswith(code) for code in ignored):
        return True
    rows = {diagnostic.location.row, diagnostic.end_location.row}
    if diagnostic.noqa_row:
        rows.add(diagnostic.noqa_row)
    suppressed = False
    for row in sorted(rows):
        codes = noqa_codes(source.line(row))
        if codes is not None and (not codes or diagnostic.code in codes):
            if used is None:
                return True
            used.add((row, diagnostic.code))
            suppressed = True
    return suppressed


@dataclass
class NoqaComment:
    """A `# noqa` directive found in a real comment (never in a string)."""

    row: int
    start: int  # 0-based character columns of the directive within the line
    end: int
    codes: list[str]  # as written, in order; empty for a blanket noqa
    comment_start: int  # 0-based column where the comment token starts
    comment_end: int


def noqa_comments(text: str) -> dict[int, NoqaComment]:
    """The noqa directives of a module, by row; empty when it does not tokenize."""
    if "noqa" not in text.lower():
        return {}
    found: dict[int, NoqaComment] = {}
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type != tokenize.COMMENT or "noqa" not in token.string.lower():
                continue
            match = _NOQA.search(token.string)
            if match is None:
                continue
            row, column = token.start
            codes = [code for code in re.split(r"[,\s]+", match.group("codes") or "") if code]
            found[row] = NoqaComment(row, column + match.start(), column + match.end(), codes, column, token.end[1])
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError):
        return {}
    return found


def unused_noqa_diagnostics(source: SourceFile, judged: set[str], used: set[tuple[int, str]], ignored: set[str]) -> list[Diagnostic]:
    """JAX001 for each noqa naming codes of rules that ran here (`judged`) but suppressed nothing."""
    diagnostics = []
    for comment in noqa_comments(source.text).values():
        unused = [
            code for code in comment.codes
            if code.upper() in judged and (comment.row, code.upper()) not in used
            and not any(code.upper().startswith(prefix) for prefix in ignored)
        ]
        if not unused:
            continue
        kept = [code for code in comment.codes if code not in unused]
        line = source.line(comment.row)
        if kept:
            edit = Edit(f"# noqa: {', '.join(kept)}", Position(comment.row, comment.start + 1), Position(comment.row, comment.end + 1))
        elif line[comment.end :].strip() == "":
            # Remove the directive with the spaces before it; `# reason  # noqa: JAX101` keeps the reason.
            start = len(line[: comment.start].rstrip())
            edit = Edit("", Position(comment.row, start + 1), Position(comment.row, len(line) + 1))
        else:
            edit = None  # text follows the directive inside its comment: leave the wording to the user
        plural = "s" if len(unused) > 1 else ""
        message = (
            f"`# noqa` code{plural} {', '.join(unused)} suppress{'' if plural else 'es'} nothing on this line; "
            f"remove {'them' if plural else 'it'}"
        )
        fix = Fix(Applicability.SAFE, f"Remove unused noqa code{plural}", (edit,)) if edit is not None else None
        diagnostics.append(
            Diagnostic(
                UNUSED_NOQA_CODE, UNUSED_NOQA_NAME, message, source.filename,
                Position(comment.row, comment.start + 1), Position(comment.row, comment.end + 1), fix=fix, url=_url(UNUSED_NOQA_CODE),
            )
        )
    return diagnostics


# Findings no noqa can silence (the file does not parse) or that are about noqa comments themselves.
_NOT_NOQA_ABLE = {SYNTAX_ERROR_CODE, UNUSED_NOQA_CODE}


def _comment_safe_rows(text: str) -> set[int] | None:
    """Rows whose end is outside any string and not a backslash continuation: a comment may go there."""
    rows: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type in (tokenize.NEWLINE, tokenize.NL, tokenize.COMMENT):
                rows.add(token.start[0])
    except (tokenize.TokenError, SyntaxError, ValueError, RecursionError):
        return None
    return rows


def add_noqa_comments(text: str, diagnostics: Iterable[Diagnostic], token_text: str | None = None) -> tuple[str, int, list[Diagnostic]]:
    """Add `# noqa: CODE` at the end of each flagged line, merged into a noqa already there.

    `token_text` is `text` with the same lines, made tokenizable (a notebook cell with its magics
    masked). Returns the new text, how many lines gained a directive, and the findings that could
    not get one (syntax errors, or a finding whose lines all end inside a string).
    """
    diagnostics = list(diagnostics)
    if not diagnostics:
        return text, 0, []
    safe_rows = _comment_safe_rows(token_text if token_text is not None else text) or set()
    comments = noqa_comments(token_text if token_text is not None else text)
    lines = text.split("\n")
    wanted: dict[int, list[str]] = {}
    skipped: list[Diagnostic] = []
    for diagnostic in diagnostics:
        if diagnostic.code in _NOT_NOQA_ABLE:
            skipped.append(diagnostic)
            continue
        candidates = [row for row in (diagnostic.noqa_row, diagnostic.location.row, diagnostic.end_location.row) if row]
        row = next((row for row in candidates if row in safe_rows and row <= len(lines)), None)
        if row is None:
            skipped.append(diagnostic)
            continue
        codes = wanted.setdefault(row, [])
        if diagnostic.code not in codes:
            codes.append(diagnostic.code)
    added = 0
    for row, codes in wanted.items():
        line = lines[row - 1]
        comment = comments.get(row)
        if comment is not None and not comment.codes:
            continue  # a blanket noqa already silences the line
        if comment is not None:
            existing = comment.codes
            new_codes = [code for code in sorted(codes) if code.upper() not in {c.upper() for c in existing}]
            if not new_codes:
                continue
            directive = f"# noqa: {', '.join([*existing, *new_codes])}"
            lines[row - 1] = line[: comment.start] + directive + line[comment.end :]
        else:
            lines[row - 1] = f"{line.rstrip()}  # noqa: {', '.join(sorted(codes))}"
        added += 1
    return "\n".join(lines), added, skipped


__all__ = ["check_source", "Context", "FileResult", "NONE", "TRACED", "ARRAY"]
