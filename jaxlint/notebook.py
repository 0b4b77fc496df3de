"""Jupyter notebooks: check and fix the code cells of an `.ipynb` file as one module.

Cells run in one namespace (an import in cell 1 serves cell 7), so the code cells are joined into a
single module, each preceded by a marker comment line, and linted once; positions are then mapped
back to the cell. A finding's `cell` is the 1-based index of its cell among *all* the notebook's cells
(markdown included), so `cell N` is `cells[N - 1]` in the JSON and the Nth cell on screen; its row and
column count within that cell's source.

IPython syntax is not Python and not ours to report. A cell that does not parse as written has its
IPython lines masked, keeping line numbers: line magics (`%time f(x)`, `x = %env HOME`), shell escapes
(`!pip install`, `files = !ls`), help (`?jnp.sum`, `jax.jit??`) and the automagic forms of `pip`,
`conda`, `mamba` and `cd` (`pip install optax`, which IPython runs as `%pip`); a one-line `%timeit
f(x)` is masked as a call of the timed expression (`__jaxlint_timeit__(lambda: f(x))`), so JAX202
sees what it times. A cell magic (`%%bash`) makes the
whole cell foreign and skipped, except the magics whose body is Python (`%%time`, `%%timeit`,
`%%capture`): their first line is masked. A cell that still does not parse is reported as JAX000 for
that cell and left out; the other cells are linted without it. Notebooks whose kernel is not Python
are skipped.

`fix_notebook` fixes the joined module with the ordinary fixer, splits it back at the markers,
restores the masked lines, and rewrites only the `source` of cells that changed: outputs, metadata,
key order, indentation and the trailing newline of the file are kept.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Sequence

from jaxlint.diagnostics import Diagnostic, Edit, Fix, Position
from jaxlint.ipython import mask_ipython

_CELL_MARKER = "# @@notebook-cell {}@@"
_CELL_MARKER_RE = re.compile(r"^# @@notebook-cell (\d+)@@$")
_MASK_RE = re.compile(r"^[ \t]*(?:pass  |(?:[A-Za-z_]\w*[ \t]*=[ \t]*)?__jaxlint_timeit__\(lambda: .*\)  (?:#[ \t]*noqa\b[^#]*)?|__jaxlint_timed_cell__\(.*\)  )?# @@ipython (\d+)@@$")


class NotebookError(Exception):
    """A file that is not a notebook we can read; the message is one line for the user."""


@dataclass
class Cell:
    index: int  # 0-based position in the notebook's `cells`
    source: str  # the cell's text as in the file
    masked: str | None  # Python with IPython lines masked; None when the whole cell is skipped
    masked_lines: dict[int, str] = field(default_factory=dict)  # mask number -> original line

    @property
    def number(self) -> int:
        return self.index + 1


@dataclass
class Notebook:
    data: dict
    cells: list[Cell]  # code cells only
    python: bool  # False for notebooks of other kernels (R, Julia): nothing to check


def _source_text(value) -> str:
    if isinstance(value, list):
        return "".join(part for part in value if isinstance(part, str))
    return value if isinstance(value, str) else ""


def parse_notebook(text: str, name: str = "<notebook>") -> Notebook:
    try:
        data = json.loads(text)
    except ValueError as error:
        raise NotebookError(f"{name}: not a valid notebook: {error}") from None
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        if isinstance(data, dict) and "worksheets" in data:
            raise NotebookError(f"{name}: notebook format 3 is not supported; upgrade it with `jupyter nbconvert --to notebook`")
        raise NotebookError(f"{name}: not a valid notebook: no list of cells")
    metadata = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    language = None
    for key, inner in (("language_info", "name"), ("kernelspec", "language")):
        section = metadata.get(key)
        if isinstance(section, dict) and isinstance(section.get(inner), str):
            language = section[inner].lower()
            break
    cells = []
    mask_numbers = iter(range(1, 1_000_000_000))
    for index, cell in enumerate(data["cells"]):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        source = _source_text(cell.get("source", ""))
        masked, masked_lines = mask_ipython(source, mask_numbers)
        cells.append(Cell(index, source, masked, masked_lines))
    return Notebook(data, cells, python=language in (None, "python", "python3"))



def unmask(text: str, masked_lines: dict[int, str]) -> str:
    if not masked_lines:
        return text
    lines = text.split("\n")
    for position, line in enumerate(lines):
        match = _MASK_RE.match(line)
        if match and int(match.group(1)) in masked_lines:
            lines[position] = masked_lines[int(match.group(1))]
    return "\n".join(lines)


@dataclass
class Joined:
    """The code cells that parse, joined into one module, and the way back to cells."""

    text: str
    cells: list[Cell]
    syntax_errors: list[Diagnostic]
    errors: list[str]
    tree: ast.Module | None = None  # `text` parsed, when one parse of the whole showed every cell parses


def join_cells(notebook: Notebook, filename: str) -> Joined:
    joined = _join_parsed_at_once(notebook)
    return joined if joined is not None else _join_cell_by_cell(notebook, filename)


def _join_parsed_at_once(notebook: Notebook) -> Joined | None:
    """The usual notebook, every cell Python: one parse of the joined text instead of one per cell.
    It stands for the cells only where no top-level statement crosses a cell's marker (a cell
    ending inside brackets, a string, a decorator or a block header does not parse alone)."""
    parts: list[str] = []
    included: list[Cell] = []
    marker_rows: list[int] = []
    row = 1
    for cell in notebook.cells:
        if cell.masked is None or not cell.masked.strip():
            continue
        body = cell.masked if cell.masked.endswith("\n") else cell.masked + "\n"
        marker_rows.append(row)
        parts.append(_CELL_MARKER.format(cell.number) + "\n")
        parts.append(body)
        included.append(cell)
        row += 1 + body.count("\n")
    text = "".join(parts)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    markers = iter(marker_rows)
    next_marker = next(markers, None)
    for statement in tree.body:
        first = min([statement.lineno, *(d.lineno for d in getattr(statement, "decorator_list", ()))])
        while next_marker is not None and next_marker < first:
            next_marker = next(markers, None)
        if next_marker is not None and next_marker <= (statement.end_lineno or statement.lineno):
            return None
    # The IPython lines masked out of the text (`t = %timeit -o f(x)`, `!pip install ...`): a name read
    # only there is still read (semantic/dead_code.never_called_in_notebook).
    tree._jaxlint_ipython_lines = tuple(line for cell in included for line in cell.masked_lines.values())
    return Joined(text, included, [], [], tree)


def _join_cell_by_cell(notebook: Notebook, filename: str) -> Joined:
    from jaxlint.engine import newer_syntax_diagnostic, newer_syntax_parses, not_checked_diagnostic, syntax_error_diagnostic
    from jaxlint.source import SourceFile

    parts: list[str] = []
    included: list[Cell] = []
    syntax_errors: list[Diagnostic] = []
    errors: list[str] = []
    for cell in notebook.cells:
        if cell.masked is None or not cell.masked.strip():
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                # Not the notebook's name: CPython re-reads the named file's line to place the error.
                ast.parse(cell.masked, filename="<cell>")
        except SyntaxError as error:
            source = SourceFile(filename, cell.masked)
            if newer_syntax_parses(cell.masked, error):
                diagnostic = newer_syntax_diagnostic(error, source)
            else:
                diagnostic = syntax_error_diagnostic(error, source)
            syntax_errors.append(replace(diagnostic, cell=cell.number))
            continue
        except (RecursionError, MemoryError, ValueError) as error:
            syntax_errors.append(not_checked_diagnostic(filename, f"cannot parse this cell ({error.__class__.__name__})", cell=cell.number))
            continue
        parts.append(_CELL_MARKER.format(cell.number) + "\n")
        parts.append(cell.masked if cell.masked.endswith("\n") else cell.masked + "\n")
        included.append(cell)
    return Joined("".join(parts), included, syntax_errors, errors)


# "line 12", "lines 12, 14" and "lines 12 and 14" in a message: rows of the joined module.
_ROWS_IN_MESSAGE_RE = re.compile(r"\b(lines?) (\d+(?:(?:, | and )\d+)*)\b")
_ROW_NUMBER_RE = re.compile(r"\d+")


class CellMap:
    """Maps positions in a joined module (as it is now, after any fixes) to (cell, position)."""

    def __init__(self, text: str) -> None:
        self.starts: list[tuple[int, int]] = []  # (row of the marker, cell number)
        self.rows = text.count("\n") + 1
        for row, line in enumerate(text.split("\n"), start=1):
            match = _CELL_MARKER_RE.match(line)
            if match:
                self.starts.append((row, int(match.group(1))))

    def locate(self, position: Position) -> tuple[int, Position] | None:
        before = [entry for entry in self.starts if entry[0] <= position.row]
        if not before:
            return (self.starts[0][1], Position(1, 1)) if self.starts else None
        marker_row, number = before[-1]
        if marker_row == position.row:
            # The start of a marker line is the end of the cell before it.
            if len(before) < 2:
                return number, Position(1, 1)
            previous_row, previous = before[-2]
            return previous, Position(marker_row - previous_row, 1)
        return number, Position(position.row - marker_row, position.column)

    def diagnostic(self, diagnostic: Diagnostic) -> Diagnostic | None:
        start = self.locate(diagnostic.location)
        end = self.locate(diagnostic.end_location)
        if start is None:
            return None
        cell, location = start
        end_location = end[1] if end is not None and end[0] == cell else location
        noqa_row = None
        if diagnostic.noqa_row:
            noqa = self.locate(Position(diagnostic.noqa_row, 1))
            noqa_row = noqa[1].row if noqa is not None and noqa[0] == cell else None
        return replace(
            diagnostic,
            message=self.message(diagnostic.message, cell),
            location=location,
            end_location=end_location,
            cell=cell,
            noqa_row=noqa_row,
            fix=self._fix(diagnostic.fix, cell),
        )

    def message(self, message: str, cell: int) -> str:
        """The message with the rows it names in the joined module ("at line 380", "lines 387, 388")
        given as the reader sees them: rows of the finding's own cell, or rows of another cell named."""

        def cell_rows(match: re.Match) -> str:
            word, numbers = match.group(1), [int(n) for n in _ROW_NUMBER_RE.findall(match.group(2))]
            located = [self.locate(Position(number, 1)) if 1 <= number <= self.rows else None for number in numbers]
            if any(place is None for place in located):
                return match.group(0)
            cells = {place[0] for place in located}
            rows = ", ".join(str(place[1].row) for place in located)
            if cells == {cell}:
                return f"{word} {rows}"
            if len(cells) == 1:
                return f"{word} {rows} of cell {located[0][0]}"
            return f"{word} " + ", ".join(f"{place[1].row} of cell {place[0]}" for place in located)

        return _ROWS_IN_MESSAGE_RE.sub(cell_rows, message)

    def _fix(self, fix: Fix | None, cell: int) -> Fix | None:
        """The fix in cell coordinates; None when an edit reaches into another cell."""
        if fix is None:
            return None
        edits = []
        for edit in fix.edits:
            start, end = self.locate(edit.location), self.locate(edit.end_location)
            if start is None or end is None or start[0] != cell or end[0] != cell:
                return None
            edits.append(Edit(edit.content, start[1], end[1]))
        return Fix(fix.applicability, fix.message, tuple(edits))


def _read(path_or_text: str | Path) -> tuple[str, str]:
    if isinstance(path_or_text, Path):
        data = path_or_text.read_bytes()
        return data.decode("utf-8-sig"), str(path_or_text)
    return path_or_text, "<notebook>"


def lint_notebook(text: str, filename: str, settings, rules: Sequence, ignored_codes: Sequence[str] = ()):
    """Check a notebook's code cells; a FileResult whose diagnostics carry their `cell`."""
    from jaxlint.engine import FileResult, check_source

    try:
        notebook = parse_notebook(text, filename)
    except NotebookError as error:
        from jaxlint.engine import not_checked_diagnostic, syntax_errors_ignored

        if syntax_errors_ignored(settings, ignored_codes):
            return FileResult(filename, unreadable=True)
        reason = str(error)
        reason = reason[len(filename) + 2 :] if reason.startswith(f"{filename}: ") else reason
        return FileResult(filename, [not_checked_diagnostic(filename, reason)], unreadable=True)
    if not notebook.python:
        return FileResult(filename)
    joined = join_cells(notebook, filename)
    result = FileResult(filename, errors=list(joined.errors))
    from jaxlint.engine import syntax_errors_ignored

    diagnostics = [] if syntax_errors_ignored(settings, ignored_codes) else list(joined.syntax_errors)
    if joined.text:
        checked = check_source(joined.text, filename, settings, rules, ignored_codes=ignored_codes, parsed=joined.tree)
        result.errors.extend(checked.errors)
        cell_map = CellMap(joined.text)
        shown = demonstrated_failures(notebook)
        kept = [d for d in checked.diagnostics if not (shown and _shows_this_failure(d, shown, joined))]
        diagnostics.extend(mapped for mapped in map(cell_map.diagnostic, kept) if mapped is not None)
    result.diagnostics = sorted(diagnostics, key=Diagnostic.sort_key)
    return result


# Findings that say "this raises when traced" (a tracer converted to a Python value, used as a shape,
# indexed in place, handed to NumPy) and the errors a run shows for them.
_RAISING_CODES = frozenset({"JAX101", "JAX102", "JAX103", "JAX105", "JAX106", "JAX108", "JAX307"})
_TRACER_ERRORS = re.compile(r"(Tracer\w*Error|ConcretizationTypeError|NonConcreteBooleanIndexError|TypeError|IndexError)$")
_TRACE_PRINTED = "Traced<"  # what `print` of a tracer shows: a print that ran at trace time
_ANSI = re.compile(r"\x1b\[[0-9;]*m")
_FRAME_FUNCTION = re.compile(r"\bin (\w+)\(")


def demonstrated_failures(notebook: Notebook) -> dict[str, set[tuple[str, int]]]:
    """What the notebook's saved outputs show, by the functions involved: ("error", cell) for a function
    whose run in that cell shows a tracer error (named in the traceback's frames, or called or handed to
    a transform by the cell that raised: `jax.make_jaxpr(f5)(5)`), ("print", cell) for one whose trace
    printed a tracer there (`Traced<ShapedArray(...)>` in the cell's output). A lesson that runs
    `jax.jit(relu)(10.0)`, shows the TracerBoolConversionError and fixes it in the next cell demonstrates
    the error on purpose; the author has already seen what a finding would say. Cells count from 1
    among all cells, as findings name them."""
    shown: dict[str, set[tuple[str, int]]] = {}
    masked = {cell.index: cell.masked for cell in notebook.cells}
    for index, cell in enumerate(notebook.data.get("cells", [])):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code" or not isinstance(cell.get("outputs"), list):
            continue
        kinds: set[str] = set()
        frames: set[str] = set()
        for output in cell["outputs"]:
            if not isinstance(output, dict):
                continue
            if output.get("output_type") == "error" and _TRACER_ERRORS.search(str(output.get("ename", ""))):
                kinds.add("error")
                traceback = output.get("traceback")
                text = _ANSI.sub("", "\n".join(t for t in traceback if isinstance(t, str)) if isinstance(traceback, list) else "")
                frames.update(_FRAME_FUNCTION.findall(text))
            elif output.get("output_type") == "stream" and _TRACE_PRINTED in _source_text(output.get("text", "")):
                kinds.add("print")
        if not kinds:
            continue
        names = frames | _names_used(masked.get(index) or "")
        for name in names:
            shown.setdefault(name, set()).update((kind, index + 1) for kind in kinds)
    if not shown:
        return shown  # (the usual notebook: nothing more to parse)
    # A name bound to a transform of a function (`f_jit = jax.jit(f)` in an earlier cell) shows `f`.
    for cell in notebook.cells:
        for alias, wrapped in _wrappers(cell.masked or "").items():
            if alias in shown:
                for name in wrapped:
                    shown.setdefault(name, set()).update(shown[alias])
    return shown


def _wrappers(source: str) -> dict[str, set[str]]:
    """`alias = transform(f, ...)` bindings of a cell: alias -> the names handed to the call."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            handed = {a.id for a in node.value.args if isinstance(a, ast.Name)}
            if handed:
                found.setdefault(node.targets[0].id, set()).update(handed)
    return found


def _names_used(source: str) -> set[str]:
    """Names a cell (its masked Python) calls or hands to a call (`jax.jit(f5)(5)` gives `f5`;
    `obj.apply(10)` gives `apply`)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            for part in (node.func, *node.args):
                if isinstance(part, ast.Name):
                    names.add(part.id)
                elif isinstance(part, ast.Attribute):
                    names.add(part.attr)
    return names


def _shows_this_failure(diagnostic: Diagnostic, shown: dict[str, set[tuple[str, int]]], joined: Joined) -> bool:
    """The finding says the function it sits in fails when traced (or prints a tracer: JAX104), and a
    later cell's saved output shows that very failure for that function, with no other `def` of its
    name in between (notebooks redefine `f` from lesson to lesson)."""
    wanted = "error" if diagnostic.code in _RAISING_CODES else "print" if diagnostic.code == "JAX104" else None
    if wanted is None:
        return False
    functions = joined.__dict__.get("_function_spans")
    if functions is None:
        # (parsed afresh: the semantic model has annotated the shared tree in its own way)
        try:
            tree = ast.parse(joined.text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = ast.Module(body=[], type_ignores=[])
        cells = CellMap(joined.text)
        functions = joined.__dict__["_function_spans"] = [
            (node.name, min([node.lineno, *(d.lineno for d in node.decorator_list)]), node.end_lineno or node.lineno,
             (cells.locate(Position(node.lineno, 1)) or (0, None))[0])
            for node in ast.walk(tree) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        ]
    row = diagnostic.location.row
    for name, first, last, defined in functions:
        if not first <= row <= last:
            continue
        redefined = sorted(cell for other, _, _, cell in functions if other == name and cell > defined)
        for kind, output_cell in shown.get(name, ()):
            if kind == wanted and defined <= output_cell and not any(cell <= output_cell for cell in redefined):
                return True
    return False


@dataclass
class JsonStyle:
    indent: str | None
    ensure_ascii: bool
    trailing_newline: bool


def json_style(text: str) -> JsonStyle:
    """How the file was written: nbformat writes one-space indents, raw UTF-8 and a final newline."""
    match = re.match(r"\s*[\[{][ \t]*\r?\n([ \t]*)\S", text)
    indent = match.group(1) if match else None
    has_raw_non_ascii = not text.isascii()
    has_escapes = re.search(r"\\u(?:00[89a-fA-F][0-9a-fA-F]|0[1-9a-fA-F][0-9a-fA-F]{2}|[1-9a-fA-F][0-9a-fA-F]{3})", text) is not None
    return JsonStyle(indent, ensure_ascii=has_escapes and not has_raw_non_ascii, trailing_newline=text.endswith("\n"))


def dump_notebook(data: dict, style: JsonStyle) -> str:
    text = json.dumps(data, indent=style.indent, ensure_ascii=style.ensure_ascii)
    return text + "\n" if style.trailing_newline else text


def _as_source(text: str, original) -> list[str] | str:
    """Source in the form the file used: nbformat's list of lines, or one string."""
    if isinstance(original, str):
        return text
    return text.splitlines(keepends=True)


def fix_notebook(path_or_text: str | Path, settings, rules: Sequence, unsafe: bool = False, *, filename: str | None = None, ignored_codes: Sequence[str] = ()):
    """Fix a notebook's code cells. Returns (new JSON text, FixOutcome); the outcome's `text` is the
    same JSON, its findings carry their `cell`. Unchanged notebooks come back byte for byte."""
    from jaxlint.fixer import FixOutcome, fix_source

    text, default_name = _read(path_or_text)
    filename = filename or default_name
    try:
        notebook = parse_notebook(text, filename)
    except NotebookError as error:
        return text, FixOutcome(text, errors=[str(error)])
    if not notebook.python:
        return text, FixOutcome(text)
    joined = join_cells(notebook, filename)
    if not joined.text:
        return text, FixOutcome(text, remaining=list(joined.syntax_errors), errors=list(joined.errors))
    fixed = fix_source(joined.text, filename, settings, rules, unsafe=unsafe, ignored_codes=ignored_codes)
    cell_map = CellMap(fixed.text)
    before_map = CellMap(joined.text)
    outcome = FixOutcome(
        text,
        applied=[mapped for mapped in map(before_map.diagnostic, fixed.applied) if mapped is not None],
        remaining=sorted(
            [*joined.syntax_errors, *(mapped for mapped in map(cell_map.diagnostic, fixed.remaining) if mapped is not None)],
            key=Diagnostic.sort_key,
        ),
        reverted=list(fixed.reverted),
        errors=[*joined.errors, *fixed.errors],
    )
    if fixed.text == joined.text:
        outcome.applied = []
        return text, outcome
    new_sources = split_cells(fixed.text)
    if new_sources is None or sorted(new_sources) != sorted(cell.number for cell in joined.cells):
        outcome.errors.append(f"{filename}: fixes moved code across notebook cells; notebook left unchanged")
        outcome.applied = []
        outcome.remaining = lint_notebook(text, filename, settings, rules, ignored_codes).diagnostics
        return text, outcome
    changed = False
    for cell in joined.cells:
        new_text = unmask(new_sources[cell.number], cell.masked_lines)
        if not cell.source.endswith("\n") and new_text.endswith("\n"):
            new_text = new_text[:-1]
        if new_text == cell.source:
            continue
        original = notebook.data["cells"][cell.index]
        original["source"] = _as_source(new_text, original.get("source"))
        changed = True
    if not changed:
        return text, outcome
    new_json = dump_notebook(notebook.data, json_style(text))
    outcome.text = new_json
    return new_json, outcome


def split_cells(text: str) -> dict[int, str] | None:
    """Joined module text back to {cell number: text}; text before the first marker joins the first cell."""
    pieces: dict[int, list[str]] = {}
    preamble: list[str] = []
    current: list[str] | None = None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    for line in lines:
        match = _CELL_MARKER_RE.match(line)
        if match:
            number = int(match.group(1))
            if number in pieces:
                return None
            current = pieces[number] = []
            if preamble:
                current.extend(preamble)
                preamble = []
            continue
        (current if current is not None else preamble).append(line)
    if preamble or not pieces:
        return None
    return {number: "".join(line + "\n" for line in body) for number, body in pieces.items()}


def add_noqa_to_notebook(text: str, diagnostics: Sequence[Diagnostic]) -> tuple[str, int, list[Diagnostic]]:
    """`# noqa` for notebook findings (which carry their cell): (new JSON text, lines changed, left over)."""
    from jaxlint.engine import add_noqa_comments

    notebook = parse_notebook(text)
    by_cell: dict[int, list[Diagnostic]] = {}
    skipped: list[Diagnostic] = []
    for diagnostic in diagnostics:
        if diagnostic.cell is None:
            skipped.append(diagnostic)
        else:
            by_cell.setdefault(diagnostic.cell, []).append(diagnostic)
    added = 0
    for cell in notebook.cells:
        found = by_cell.pop(cell.number, None)
        if not found:
            continue
        if cell.masked is None:
            skipped.extend(found)
            continue
        new_text, count, left = add_noqa_comments(cell.source, found, token_text=cell.masked)
        skipped.extend(left)
        if count:
            original = notebook.data["cells"][cell.index]
            original["source"] = _as_source(new_text, original.get("source"))
            added += count
    for left in by_cell.values():
        skipped.extend(left)
    if not added:
        return text, 0, skipped
    return dump_notebook(notebook.data, json_style(text)), added, skipped
