"""IPython lines in Python text: line magics (`%time f(x)`, `x = %env HOME`), shell escapes (`!pip
install`, `files = !ls`), help (`?jnp.sum`, `jax.jit??`) and the automagic forms of `pip`, `conda`,
`mamba` and `cd`, masked in place so the text parses with its line numbers kept. A notebook cell is
read this way (notebook.py), and so is a `.py` script exported from a notebook with those lines left
in (engine.py). `%timeit f(x)` and `%time y = f(x)` are masked as a call of what they time, and a
`%%time`/`%%timeit` cell as a call naming the magic and how many lines it times, so rules see the
timed code.
"""

from __future__ import annotations

import ast
import re

from jaxlint.semantic.syntax import TIMED_CELL_MAGIC, TIMEIT_MAGIC
from jaxlint.source import parses_ast

# Cell magics whose body is ordinary Python: lint the body, mask the magic line.
PYTHON_CELL_MAGICS = frozenset({"time", "timeit", "capture", "prun"})
# `%%time` and `%%timeit` (also below another cell magic, `%%capture out`): the rest of the cell is the
# code timed. Masked as `__jaxlint_timed_cell__("time", 3)` so JAX202 sees the interval and its end.
_TIMED_CELL_LINE = re.compile(r"^%%(?P<magic>timeit|time)(?:[ \t]|$)")
# `%timeit f(x)`: IPython runs the expression many times and reports the wall time per run. Masked as
# a call of the timed expression, `__jaxlint_timeit__(lambda: f(x))`, so rules see what it times (JAX202:
# a run that returns while its device work still runs measures dispatch). Options (`-n 10 -r 3`) are
# dropped; an assignment (`%timeit y = f(x)`) times its value, the name it binds being local to the
# timing function; any other statement is masked like any magic. An assignment of the magic's
# result (`t = %timeit -o f(x)`) is masked as an assignment of that call, `t = __jaxlint_timeit__(lambda:
# f(x))`: the timed call runs there all the same.
_TIMEIT_LINE = re.compile(r"^[ \t]*(?P<target>[A-Za-z_]\w*[ \t]*=[ \t]*)?%timeit[ \t]+(?:-[nr][ \t]*\d+[ \t]+|-[oqp][ \t]+)*(?P<body>[^-\s].*)$")
# `%time f(x)`, `%time y = f(x)`: IPython runs the statement once between two clock reads and prints
# the wall time (an expression's value is displayed after the end stamp): timed as `%timeit` times, but
# once. Masked as `__jaxlint_timeit__(lambda: f(x), "time")`, the expression (an assignment's value) as
# the callable timed, so JAX202 reads it as it reads `%timeit`; what the line binds stays masked, as
# any magic's does. A line of any other statement is masked like any magic.
_TIME_LINE = re.compile(r"^[ \t]*%time[ \t]+(?P<body>\S.*)$")
# A trailing `# noqa` comment of a masked `%timeit`/`%time` line (up to any further `#`).
_NOQA_COMMENT = re.compile(r"#[ \t]*noqa\b[^#]*", re.IGNORECASE)
# `x = %env HOME`, `files = !ls`, `a, b = %sx ls`: an assignment from a magic or a shell escape.
_HELP_SUFFIX = re.compile(r"^[\w.]+\?{1,2}$")
_MAGIC_ASSIGNMENT = re.compile(r"^[ \t]*[\w.\[\], \t]+=[ \t]*[%!]")
# IPython's automagic runs `pip install optax` or `cd data` as the line magic without its `%` (on by
# default, and in Colab); a name followed by a word is never Python.
_AUTOMAGIC = re.compile(r"^[ \t]*(?:pip|conda|mamba|cd)[ \t]+[\w\-./~$'\"]")
# Any line that may be IPython (a superset of `_is_ipython_line`, searched over a whole cell in one
# pass): a cell with none is Python as written or not at all, and needs no masking and no parse here.
_MAYBE_IPYTHON = re.compile(
    "|".join((r"^\s*[%!?]", r"^\s*[\w.]+\?{1,2}\s*$", _MAGIC_ASSIGNMENT.pattern, _AUTOMAGIC.pattern)),
    re.MULTILINE,
)


def _is_ipython_line(line: str) -> bool:
    stripped = line.strip()
    if not stripped:
        return False
    if stripped[0] in "%!?":
        return True
    if _HELP_SUFFIX.match(stripped):
        return True  # `jax.jit?`, `jnp.sum??`
    return bool(_MAGIC_ASSIGNMENT.match(line) or _AUTOMAGIC.match(line))


def mask_ipython(source: str, numbers=None) -> tuple[str | None, dict[int, str]]:
    """The cell as Python, with IPython lines replaced by same-length-in-lines placeholders.

    Returns (None, {}) for a cell run by a non-Python cell magic. A cell that parses as written is
    returned unchanged, so `%` and `?` inside strings and expressions are never touched.
    """
    numbers = numbers if numbers is not None else iter(range(1, 1_000_000_000))
    lines = source.split("\n")
    first = lines[0].lstrip()
    masked_lines: dict[int, str] = {}
    start = 0
    if first.startswith("%%"):
        magic = first[2:].split(maxsplit=1)[0] if first[2:].strip() else ""
        if magic not in PYTHON_CELL_MAGICS:
            return None, {}
        number = next(numbers)
        masked_lines[number] = lines[0]
        lines[0] = _timed_cell_mask(lines, 0, number) or f"# @@ipython {number}@@"
        start = 1
        if parses_ast("\n".join(lines)):
            return "\n".join(lines), masked_lines
    elif not _MAYBE_IPYTHON.search(source) or parses_ast(source):
        return source, {}
    index = start
    while index < len(lines):
        line = lines[index]
        if not _is_ipython_line(line):
            index += 1
            continue
        indent = line[: len(line) - len(line.lstrip())]
        number = next(numbers)
        masked_lines[number] = line
        timed = _timed_expression(line)
        once = None if timed else _timed_once(line)
        # A `# noqa` the line carries stays on the masked line, so it silences what is reported there.
        noqa = _NOQA_COMMENT.search(line) if timed or once else None
        kept = f"  {noqa.group(0).strip()}" if noqa else ""
        if timed:
            lines[index] = f"{indent}{timed[0]}{TIMEIT_MAGIC}(lambda: {timed[1]}){kept}  # @@ipython {number}@@"
        elif once:
            lines[index] = f'{indent}{TIMEIT_MAGIC}(lambda: {once}, "time"){kept}  # @@ipython {number}@@'
        else:
            lines[index] = _timed_cell_mask(lines, index, number) or f"{indent}pass  # @@ipython {number}@@"
        # A magic continued with a trailing backslash takes the next lines with it.
        while line.rstrip().endswith("\\") and index + 1 < len(lines):
            index += 1
            line = lines[index]
            number = next(numbers)
            masked_lines[number] = line
            lines[index] = f"{indent}# @@ipython {number}@@"
        index += 1
    return "\n".join(lines), masked_lines


def _timed_cell_mask(lines: list[str], index: int, number: int) -> str | None:
    """The masked form of a `%%time`/`%%timeit` line opening a cell (after any other cell magic):
    a call naming the magic and how many lines of the cell it times; None for any other line."""
    match = _TIMED_CELL_LINE.match(lines[index])
    if match is None or not all(line.startswith(("%%", "# @@ipython")) for line in lines[:index]):
        return None
    return f'{TIMED_CELL_MAGIC}("{match.group("magic")}", {len(lines) - index - 1})  # @@ipython {number}@@'


def _timed_once(line: str) -> str | None:
    """The expression a one-line `%time` runs (an assignment's value: `%time y = f(x)` -> `f(x)`),
    written back from the tree; None for any other line (another statement, several, a continued line)."""
    match = _TIME_LINE.match(line)
    if match is None or line.rstrip().endswith("\\"):
        return None
    try:
        body = ast.parse(match.group("body").strip()).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    if len(body) != 1:
        return None
    statement = body[0]
    if isinstance(statement, ast.Expr):
        return ast.unparse(statement.value)
    if isinstance(statement, ast.Assign):
        return ast.unparse(statement.value)
    return None


def _timed_expression(line: str) -> tuple[str, str] | None:
    """(the assignment it is kept by, `t = ` or "", the expression) of a one-line `%timeit`, when it
    times one expression on one line."""
    match = _TIMEIT_LINE.match(line)
    if match is None or line.rstrip().endswith("\\"):
        return None
    target = match.group("target") or ""  # (without `-o` the magic returns None; the call runs all the same)
    body = match.group("body").strip()
    try:
        # Written back from the tree: a trailing comment (`%timeit f(x)  # fast`) must not swallow the `)`.
        return target, ast.unparse(ast.parse(body, mode="eval"))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        pass
    try:
        statements = ast.parse(body).body
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    # `%timeit y = f(x)`: IPython times the statement inside a function of its own, so the name bound is
    # local to it and gone afterwards; what runs, and is timed, is the value (as `%time y = f(x)`).
    if len(statements) == 1 and isinstance(statements[0], (ast.Assign, ast.AnnAssign)) and statements[0].value is not None:
        return target, ast.unparse(statements[0].value)
    return None
