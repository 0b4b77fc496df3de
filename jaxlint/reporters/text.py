"""`path:line:col: CODE [*] message` lines and a summary; colour via rich only on a terminal."""

from __future__ import annotations

from collections import Counter


def _line(d, show_fix: bool) -> tuple[str, str, str]:
    cell = f"cell {d.cell}:" if d.cell is not None else ""
    location = f"{d.filename}:{cell}{d.location.row}:{d.location.column}:"
    marker = " [*]" if show_fix and d.fix is not None and d.fix.is_safe else ""
    return location, f"{d.code}{marker}", d.message


def summary(diagnostics, unsafe_fixes: bool = False) -> str:
    total = len(diagnostics)
    if total == 0:
        return "All checks passed!"
    safe = sum(1 for d in diagnostics if d.fix is not None and d.fix.is_safe)
    unsafe = sum(1 for d in diagnostics if d.fix is not None and not d.fix.is_safe)
    text = f"Found {total} error{'s' if total != 1 else ''}."
    if safe:
        text += f"\n[*] {safe} fixable with `jaxlint fix`."
    if unsafe:
        text += f"\n{unsafe} more fixable with `jaxlint fix --unsafe-fixes`."
    return text


def statistics(diagnostics) -> list[str]:
    counts = Counter(d.code for d in diagnostics)
    names = {d.code: d.name for d in diagnostics}
    fixable = {d.code for d in diagnostics if d.fix is not None and d.fix.is_safe}
    width = max((len(str(count)) for count in counts.values()), default=1)
    return [
        f"{count:>{width}}\t{code}\t{'[*]' if code in fixable else '[ ]'} {names[code]}"
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


def report(diagnostics, stream, *, quiet: bool = False, show_statistics: bool = False, color: bool | None = None, **_options) -> None:
    lines = statistics(diagnostics) if show_statistics else None
    use_color = color if color is not None else (hasattr(stream, "isatty") and stream.isatty())
    if use_color:
        _report_rich(diagnostics, stream, quiet, lines)
        return
    if lines is not None:
        stream.write("".join(line + "\n" for line in lines))
    else:
        for d in diagnostics:
            location, code, message = _line(d, True)
            stream.write(f"{location} {code} {message}\n")
    if not quiet:
        stream.write(summary(diagnostics) + "\n")


def _report_rich(diagnostics, stream, quiet: bool, lines) -> None:
    from rich.console import Console
    from rich.text import Text

    console = Console(file=stream, highlight=False, soft_wrap=True)
    if lines is not None:
        for line in lines:
            console.print(Text(line))
    else:
        for d in diagnostics:
            location, code, message = _line(d, True)
            text = Text()
            text.append(location, style="bold")
            text.append(" ")
            text.append(code, style="bold red")
            text.append(" " + message)
            console.print(text)
    if not quiet:
        console.print(Text(summary(diagnostics), style="bold" if diagnostics else "bold green"))
