"""Apply fixes: non-overlapping edits, re-lint until stable (with a cap), never emit code that does not parse.

Works on text in memory; writing files is the caller's business (see `jaxlint.cli.fix`).
"""

from __future__ import annotations

import ast
import re
import warnings
from dataclasses import dataclass, field
from typing import Sequence

from jaxlint.diagnostics import Diagnostic, Edit
from jaxlint.engine import check_source
from jaxlint.source import parses_ast  # noqa: F401 (re-exported: runtime_checks.verify)
from jaxlint.source import SourceFile

MAX_ITERATIONS = 10


@dataclass
class FixOutcome:
    text: str
    applied: list[Diagnostic] = field(default_factory=list)
    remaining: list[Diagnostic] = field(default_factory=list)
    reverted: list[str] = field(default_factory=list)  # fixes dropped because the result did not parse
    errors: list[str] = field(default_factory=list)

    def changed(self, original: str) -> bool:
        return self.text != original


def is_applicable(diagnostic: Diagnostic, unsafe: bool) -> bool:
    return diagnostic.fix is not None and (unsafe or diagnostic.fix.is_safe)


def parses(text: str) -> bool:
    """Whether `text` compiles: `compile` also runs the symbol table, so it catches what `ast.parse`
    lets through (a `return` moved outside a function, `nonlocal` of a missing name)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, "<jaxlint-fix>", "exec", dont_inherit=True)
        return True
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False




def _fix_key(diagnostic: Diagnostic) -> tuple[str, str, tuple]:
    """Identifies a fix across iterations even when earlier edits move it: its rule, message and edits' text."""
    return (diagnostic.code, diagnostic.message, tuple(edit.content for edit in diagnostic.fix.edits))


def _span(source: SourceFile, edit: Edit) -> tuple[int, int]:
    return source.offset(edit.location), source.offset(edit.end_location)


_MODULE_LEVEL_DEFINITION = re.compile(r"^(?:(?:async\s+)?def\s+(\w+)|class\s+(\w+)|(\w+)\s*=(?!=))", re.MULTILINE)


def _new_module_names(source: SourceFile, diagnostic: Diagnostic) -> dict[str, tuple]:
    """Module-level names the fix's inserted lines define (`loss_fn_jit = jax.jit(...)`, `def
    run_loop(...)`), each with the edit that defines it."""
    found: dict[str, tuple] = {}
    for edit in diagnostic.fix.edits:
        content = edit.content
        identity = (_span(source, edit), content)
        if edit.location.column != 1:
            # Mid-line: only lines after a newline it inserts can start at column 0.
            newline = content.find("\n")
            if newline < 0:
                continue
            content = content[newline + 1 :]
        for match in _MODULE_LEVEL_DEFINITION.finditer(content):
            found[next(group for group in match.groups() if group)] = identity
    return found


def select_compatible(source: SourceFile, diagnostics: Sequence[Diagnostic]) -> list[Diagnostic]:
    """Fixes whose edits touch disjoint text, in source order; identical edits (a shared import) coexist.

    Two fixes that each define the same new module-level name (both were built before either was
    applied, so both saw it free) are not applied together: the second waits for the next round,
    where the name is taken and it picks another."""
    chosen: list[Diagnostic] = []
    taken: dict[tuple[int, int], str] = {}
    defined: dict[str, str] = {}
    for diagnostic in sorted(diagnostics, key=lambda d: (d.location, d.code)):
        spans = [(_span(source, edit), edit.content) for edit in diagnostic.fix.edits]
        if any(start > end for (start, end), _ in spans):
            continue
        new_names = _new_module_names(source, diagnostic)
        if any(name in defined and defined[name] != edit for name, edit in new_names.items()):
            continue
        conflict = False
        for (start, end), content in spans:
            for (other_start, other_end), other_content in taken.items():
                if (start, end) == (other_start, other_end):
                    if content != other_content:
                        conflict = True
                elif start < other_end and other_start < end:
                    conflict = True
                elif start == end and other_start < start < other_end or other_start == other_end and start < other_start < end:
                    conflict = True
            if conflict:
                break
        if conflict:
            continue
        for span, content in spans:
            taken[span] = content
        defined.update(new_names)
        chosen.append(diagnostic)
    return chosen


def apply_edits(source: SourceFile, diagnostics: Sequence[Diagnostic]) -> str:
    edits: dict[tuple[int, int, str], None] = {}
    for diagnostic in diagnostics:
        for edit in diagnostic.fix.edits:
            start, end = _span(source, edit)
            edits[(start, end, edit.content)] = None
    text = source.text
    # From the end backwards, so earlier offsets stay valid; insertions at one point keep their order.
    for start, end, content in sorted(edits, key=lambda item: (item[0], item[1]), reverse=True):
        text = text[:start] + content + text[end:]
    return text


def fix_source(
    text: str, filename: str, settings, rules: Sequence, *, unsafe: bool = False, ignored_codes: Sequence[str] = ()
) -> FixOutcome:
    """Fix `text` (see `_fix_until_stable`), then hold the whole result to libcst's grammar.

    libcst knows the newest Python grammar and round-trips source byte for byte: a fixed module
    it cannot parse and print back unchanged is not written, whatever this interpreter accepts.
    Only enforced where the original itself round-trips.
    """
    outcome = _fix_until_stable(text, filename, settings, rules, unsafe=unsafe, ignored_codes=ignored_codes)
    if outcome.text != text and not round_trips(outcome.text) and round_trips(text):
        kept = check_source(text, filename, settings, rules, ignored_codes=ignored_codes)
        return FixOutcome(
            text,
            remaining=kept.diagnostics,
            reverted=[f"{filename}: fixes reverted: libcst cannot round-trip the fixed module"],
            errors=kept.errors,
        )
    return outcome


def round_trips(text: str) -> bool:
    try:
        import libcst

        return libcst.parse_module(text).code == text
    except Exception:  # any libcst failure means "not shown to be valid"
        return False


def _fix_until_stable(
    text: str, filename: str, settings, rules: Sequence, *, unsafe: bool = False, ignored_codes: Sequence[str] = ()
) -> FixOutcome:
    """Fix `text` until no applicable fix remains or MAX_ITERATIONS passes; every step must compile.

    A step whose combined edits do not compile is retried fix by fix: the fixes that keep the text
    compiling are applied, the others are reverted, reported in `reverted`, and not offered again.
    """
    outcome = FixOutcome(text)
    refused: set[tuple] = set()
    # Hold the result to the standard the input meets: code that `ast` parses but `compile` rejects
    # (a module-level `return` in a template) can still be fixed, as long as it keeps parsing.
    valid = parses if parses(text) else parses_ast
    for _ in range(MAX_ITERATIONS):
        result = check_source(outcome.text, filename, settings, rules, ignored_codes=ignored_codes)
        outcome.errors = result.errors
        candidates = [d for d in result.diagnostics if is_applicable(d, unsafe) and _fix_key(d) not in refused]
        if not candidates:
            outcome.remaining = result.diagnostics
            return outcome
        source = SourceFile(filename, outcome.text)
        chosen = select_compatible(source, candidates)
        new_text = apply_edits(source, chosen)
        if not valid(new_text):
            good: list[Diagnostic] = []
            for diagnostic in chosen:
                if valid(apply_edits(source, [*good, diagnostic])):
                    good.append(diagnostic)
                else:
                    refused.add(_fix_key(diagnostic))
                    outcome.reverted.append(
                        f"{filename}:{diagnostic.location.row}:{diagnostic.location.column}: {diagnostic.code} fix reverted: "
                        f"the fixed code would not compile ({diagnostic.fix.message})"
                    )
            chosen = good
            new_text = apply_edits(source, chosen)
        if new_text == outcome.text:
            outcome.remaining = result.diagnostics
            return outcome
        outcome.applied.extend(chosen)
        outcome.text = new_text
    final = check_source(outcome.text, filename, settings, rules, ignored_codes=ignored_codes)
    outcome.remaining = final.diagnostics
    outcome.errors = final.errors
    return outcome
