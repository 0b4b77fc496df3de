"""From TARGETs to findings: which function, which rule, which inputs, which fixed source.

Runs in the parent process and never imports jax. A TARGET is `path.py::function` or `path.py`
(every top-level function that has example inputs and a finding). A function's findings are
the static engine's diagnostics inside its lines, one per rule code, plus the codes its
examples entry declares (looked up anywhere at module level, e.g. a module-level
`jax.vmap(jax.jit(f))`, or placed on the `def` line when the static engine reports none).
The fixed source comes from the fixer, in memory, restricted to the finding's rule; the user's
files are never written.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from pathlib import Path

from jaxlint.runtime_checks.examples import ExamplesFile

COMPARE_CODE = "compare"

# jaxtyping dtype names and the SPEC dtypes they stand for.
_JAXTYPING_DTYPES = {
    "Float": "f32", "Float32": "f32", "Float16": "f16", "BFloat16": "bf16", "Float64": "f64",
    "Int": "i32", "Int32": "i32", "Int64": "i64", "Int8": "i8", "UInt8": "u8", "UInt32": "u32",
    "Bool": "bool", "Shaped": "f32", "Real": "f32", "Inexact": "f32", "Num": "f32",
}


class TargetError(ValueError):
    """A TARGET that names no file or no function; the message says which."""


@dataclass
class Finding:
    """One (function, rule) pair to check at runtime; `code` is "compare" for alternatives."""

    filename: str
    function: str
    code: str
    line: int
    name: str | None = None
    message: str | None = None
    spec: str | None = None
    fixed_text: str | None = None
    fixer_note: str | None = None
    alternative: str | None = None
    occurrences: int = 1
    extra: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        if self.code == COMPARE_CODE:
            module, _, function = (self.alternative or "").rpartition(":")
            return f"compare {Path(module).name if module.endswith('.py') else module}:{function}"
        return f"{self.code} {self.name}" if self.name else self.code


@dataclass
class Target:
    path: Path
    function: str | None  # None: every function of the file with examples


def parse_target(text: str) -> Target:
    file_part, _, function = text.partition("::")
    path = Path(file_part)
    if not path.is_file():
        raise TargetError(f"{file_part}: no such file")
    return Target(path, function or None)


def function_spans(tree: ast.Module) -> dict[str, tuple[int, int]]:
    """Top-level functions' line ranges, decorators included."""
    spans = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            spans[node.name] = (start, node.end_lineno or node.lineno)
    return spans


def annotation_spec(tree: ast.Module, function: str) -> str | None:
    """A SPEC from jaxtyping annotations with literal sizes: `x: Float[Array, "1024 256"]`."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == function:
            parts = [_annotation_part(arg.annotation) for arg in node.args.args]
            if parts and all(parts):
                return ", ".join(parts)  # type: ignore[arg-type]
    return None


def _annotation_part(annotation: ast.AST | None) -> str | None:
    if not (isinstance(annotation, ast.Subscript) and isinstance(annotation.value, ast.Name)):
        return None
    dtype = _JAXTYPING_DTYPES.get(annotation.value.id)
    items = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else []
    if dtype is None or len(items) != 2 or not isinstance(items[1], ast.Constant):
        return None
    dims = str(items[1].value).split()
    if not all(dim.isdigit() for dim in dims):
        return None  # symbolic sizes ("batch") give no concrete input
    return f"{dtype}[{','.join(dims)}]"


def static_diagnostics(text: str, filename: str) -> tuple[list, str | None]:
    """The static engine's diagnostics, or none (and a note) when it is not available yet."""
    try:
        from jaxlint.engine import check_source
        from jaxlint.rules import ALL_RULES
    except ImportError as error:
        return [], f"static engine unavailable ({error})"
    try:
        result = check_source(text, filename, _settings(filename), ALL_RULES)
    except Exception as error:  # the engine's own bug must not stop the runtime mode
        return [], f"static engine failed: {type(error).__name__}: {error}"
    return list(result.diagnostics), None


def _settings(filename: str):
    from jaxlint.config import Settings, load_settings

    try:
        return load_settings(Path(filename))
    except Exception:
        return Settings()


def fixed_source(text: str, filename: str, code: str, rows: set[int] | None = None) -> tuple[str | None, str]:
    """The fixer's output for one rule, or None and why (the child then uses `<name>__fixed`).

    With `rows`, the output counts only if the fixer applied a fix of `code` on one of those
    rows (the function's lines and the finding's line): a fix elsewhere in the file leaves
    this finding's code as it was.
    """
    try:
        from jaxlint.fixer import fix_source
        from jaxlint.rules import ALL_RULES
    except ImportError:
        return None, "fixer unavailable"
    rules = [rule for rule in ALL_RULES if rule.code == code]
    if not rules:
        return None, f"no {code} rule"
    try:
        outcome = fix_source(text, filename, _settings(filename), rules, unsafe=True)
    except Exception as error:
        return None, f"fixer failed: {type(error).__name__}: {error}"
    if outcome.text == text:
        return None, "fixer made no change"
    applied = getattr(outcome, "applied", None)
    if rows is not None and applied is not None:
        if not any(d.code == code and d.location.row in rows for d in applied):
            return None, "fixer fixed other lines, not this finding"
    return outcome.text, "fixer"


def collect_findings(target: Target, examples: ExamplesFile, cli_spec: str | None,
                     cli_compare: list[str]) -> tuple[list[Finding], list[str]]:
    """The findings to check for one TARGET, and notes on what could not be done."""
    text = target.path.read_text(encoding="utf-8")
    tree = ast.parse(text, filename=str(target.path))
    spans = function_spans(tree)
    notes: list[str] = []
    if target.function is not None and target.function not in spans:
        raise TargetError(f"{target.path}: no top-level function {target.function!r}")
    diagnostics, note = static_diagnostics(text, str(target.path))
    if note:
        notes.append(note)
    if target.function is not None:
        functions = [target.function]
    else:
        functions = [name for name in spans if examples.lookup(target.path, name) or cli_spec]
    findings: list[Finding] = []
    for function in functions:
        example = examples.lookup(target.path, function)
        spec = cli_spec or (example.spec if example else None) or annotation_spec(tree, function)
        declared = example.codes if example else []
        findings += _function_findings(target.path, function, spans, diagnostics, declared, spec)
        for alternative in [*(example.compare if example else []), *cli_compare]:
            findings.append(Finding(str(target.path), function, COMPARE_CODE, spans[function][0],
                                    spec=spec, alternative=_resolve_alternative(alternative, examples)))
    for finding in findings:
        if finding.code != COMPARE_CODE:
            start, end = spans[finding.function]
            rows = set(range(start, end + 1)) | {finding.line}
            finding.fixed_text, finding.fixer_note = fixed_source(text, finding.filename, finding.code, rows)
    return findings, notes


def _function_findings(path: Path, function: str, spans, diagnostics, declared, spec) -> list[Finding]:
    start, end = spans[function]
    inside_other = [span for name, span in spans.items() if name != function]
    by_code: dict[str, list] = {}
    for diagnostic in diagnostics:
        row = diagnostic.location.row
        in_function = start <= row <= end
        at_module_level = not any(s <= row <= e for s, e in inside_other) and not in_function
        if in_function or (diagnostic.code in declared and at_module_level):
            by_code.setdefault(diagnostic.code, []).append(diagnostic)
    findings = []
    for code, found in sorted(by_code.items()):
        first = min(found, key=lambda d: (d.location.row, d.location.column))
        findings.append(Finding(str(path), function, code, first.location.row, name=first.name,
                                message=first.message, spec=spec, occurrences=len(found)))
    for code in declared:
        if code not in by_code:
            findings.append(Finding(str(path), function, code, start, name=_rule_name(code), spec=spec,
                                    message="declared in the examples file; the static engine reported none"))
    return findings


def _resolve_alternative(alternative: str, examples: ExamplesFile) -> str:
    """`file.py:func` in an examples file is relative to that file; dotted modules stay."""
    module, _, function = alternative.rpartition(":")
    if module.endswith(".py") and examples.path is not None and not Path(module).is_absolute():
        candidate = examples.path.resolve().parent / module
        if candidate.is_file():
            return f"{candidate}:{function}"
    return alternative


def _rule_name(code: str) -> str | None:
    from jaxlint.rules import RULES_BY_CODE

    rule = RULES_BY_CODE.get(code)
    return rule.name if rule is not None else None
