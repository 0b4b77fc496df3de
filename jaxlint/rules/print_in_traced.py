"""## What it does
Flags `print(...)` and `logging` calls (`logging.info`, `logger.warning`, `absl.logging.info`, ...)
whose arguments include a traced value, inside a traced function.

Test code is not flagged (a `test*` function, a `Test*` class, a test module: `*_test.py`,
`conftest.py`, test helpers, or a `test_*.py` written as a test): a test runs once on dummy inputs,
and what it prints reaches no one; every rule whose finding is a cost or the quality of computed
values follows this one policy (semantic/test_code.py).

## Why is this bad?
The body of a traced function runs once, at trace time, with abstract tracers. `print(x)` prints
`Traced<ShapedArray(float32[3])>with<DynamicJaxprTrace>` once, when the function is compiled, and
never again: not the values, and not on later calls. `jax.debug.print` is staged into the compiled
computation and prints the runtime values on every call. See
https://docs.jax.dev/en/latest/debugging/print_breakpoint.html.

Printing static things at trace time (`print(x.shape)`, `print(f"tracing {name}")`, `print(x.dtype)`)
is a common and deliberate idiom and is not flagged. Nor is a print in a function traced only by
`jax.make_jaxpr` or `jax.eval_shape` (`print(jax.make_jaxpr(f)(3.0))`): it is traced to be looked at
and never runs on values, so printing the tracer once is all it could ever do (a lesson showing what
tracing sees). Nor is a `logging` call that logs the function's own call with whole parameters of it
(`logging.info("train_step(batch=%s)", batch)`, the message naming the function): the tracer's shape
and dtype, once per compilation, is what such a log is for (a value the body computes is still
reported). Nor is a print in a function traced only by autodiff outside any `jit`, applied where it
is built in code that runs on the host (`jax.grad(simulate)(x)` in a script): its Python runs on every
call, and a printed value shows its primal (`GradTracer(primal=2.0, ...)`). Nor is a print in a branch
that runs only with `jit` switched off (`if jax.config.jax_disable_jit: print(loss)`): it runs op by
op there and prints values (semantic/jit_disabled.py). Nor is a call of a helper that returns text (of
this module or another of the project: `logging.info("h = %s", describe(h))`) whose text shows only
static attributes of the traced value (`str(x.shape)`, `x.dtype`, `x.ndim`, `len(x)`), leaving out a
branch under a switch that defaults off and that the call does not pass (`if verbose: return str(x)`)
and the branch where the value has no `shape`: the shape-and-dtype log such helpers exist for. A helper
that formats the value itself (`return "v=" + str(x)`) shows the tracer and is reported
(semantic/shown_text.py).

## Example
```python
@jax.jit
def step(x):
    loss = jnp.mean(x ** 2)
    print(f"loss={loss:.3f} {{step}}")
    return loss
```

## Use instead
```python
@jax.jit
def step(x):
    loss = jnp.mean(x ** 2)
    jax.debug.print("loss={:.3f} {{{{step}}}}", loss)
    return loss
```

## Fix safety
`print(a, b, ...)` and f-strings become `jax.debug.print` with a format string: traced values become
`{}` fields (keeping `!r` and format specs), literal braces are escaped, static values stay in an
f-string evaluated at trace time (only shapes, dtypes, lengths and numbers, whose text has no braces),
and `sep=` is honoured. A `logging` call with a plain message
string becomes `jax.debug.callback(logging.info, "msg %s", t)`, which logs through the same logger
at run time. Both are safe: they print what the code meant to print (the runtime values) instead of
a tracer's repr. No fix is offered for `print(..., file=...)`, `end=` other than a newline, starred
arguments, `%`/`.format` formatting of traced values, or f-string messages in `logging` calls; nor
for a `logging` call whose traced arguments are whole arguments of the function (`logging.info("step
(batch=%s)", batch)`: logged at trace time, that is the usual once-per-compile log of shapes, and at
run time it would copy the whole argument to the host on every call); nor where the project supports
a JAX older than 0.3.16, which has no `jax.debug`.

## How the runtime mode confirms it
It runs the function under `jax.jit` twice with the example inputs and captures standard output:
the original prints a `Traced<...>` repr once; the fixed version prints the values on every call.
"""

from __future__ import annotations

import ast
import re

from jaxlint import fixes
from jaxlint.fixes import versions
from jaxlint.rules.base import Rule, snippet
from jaxlint.semantic import jaxapi
from jaxlint.semantic.arrays import narrowed_to_host, static_tree_map
from jaxlint.semantic.bindings import bound_values, owning_scope
from jaxlint.semantic.host_code import runs_eagerly_transformed
from jaxlint.semantic.shown_text import call_shows
from jaxlint.semantic.model import ARRAY, TRACED

_LOGGING_METHODS = frozenset({"debug", "info", "warning", "warn", "error", "critical", "exception", "fatal"})
_LOGGING_MODULES = ("logging.", "absl.logging.")
_CONVERSIONS = {-1: "", 115: "!s", 114: "!r", 97: "!a"}


class PrintInTraced(Rule):
    code = "JAX104"
    name = "print-in-traced"
    summary = "`print` or `logging` of a traced value prints the tracer once, at trace time"
    skips_test_code = True
    needs_a_run = True
    node_types = (ast.Call,)
    traced_code_only = True
    fix_availability = "sometimes"

    def check(self, node: ast.Call, context) -> None:
        kind = _call_kind(node, context)
        if kind is None or not context.is_traced_code(node):
            return
        scope = context.scope(node)
        arguments = [*node.args, *(keyword.value for keyword in node.keywords if keyword.arg in (None, "sep"))]
        traced = next((arg for arg in arguments if _mentions_traced(arg, scope, context)), None)
        if traced is None:
            return
        if kind == "logging" and _logs_own_call(node, scope, context):
            return  # `logging.info("step(batch=%s)", batch)`: the once-per-compile log of the call's shapes
        if _runs_on_primals(scope, context):
            return  # only under an eager `grad` applied in host code: it prints every call, primal values shown
        fixable = versions.supports(context, versions.JAX_DEBUG)  # no `jax.debug` before jax 0.3.16
        if kind == "print":
            fix = _print_fix(node, scope, context) if fixable else None
            what = "`print`"
        else:
            fix = _logging_fix(node, scope, context) if fixable else None
            what = f"`{context.text(node.func)}`"
        context.report(
            node,
            f"{what} of traced value `{snippet(context.text(traced))}` in traced function `{scope.name}` runs once at "
            "trace time and shows a tracer, not values; use `jax.debug.print`",
            fix=fix,
        )


def _logs_own_call(node: ast.Call, scope, context) -> bool:
    """A log of the function's own call at trace time: a `logging` call with a literal message that
    names the function (`logging.info("train_step(batch=%s)", batch)`), whose traced arguments are
    whole parameters of it. What it shows is the tracer's shape and dtype, once per compilation,
    which is what such a message is for (a value computed in the body is still reported)."""
    if not node.args or not isinstance(node.args[0], ast.Constant) or not isinstance(node.args[0].value, str):
        return False
    if not re.search(rf"(?<![A-Za-z0-9_]){re.escape(scope.name)}(?![A-Za-z0-9_])", node.args[0].value):
        return False  # (the name as a word: `f` is not named by "fitting %s")
    traced = [arg for arg in node.args[1:] if _mentions_traced(arg, scope, context)]
    return bool(traced) and all(isinstance(arg, ast.Name) and (arg.id in scope.params or arg.id in scope.keyword_params) for arg in traced)


def _runs_on_primals(scope, context) -> bool:
    """Traced only by autodiff outside any `jit` (model.runs_concretely), applied where it is built in
    code that runs on the host (host_code.runs_eagerly_transformed): `jax.grad(simulate)(x)` in a
    script runs the body once per call, and a printed value shows its primal (`GradTracer(primal=2.0,
    ...)`), not a trace-time placeholder."""
    model = context.model
    return model.runs_concretely(scope) and not scope.abstract_transform and runs_eagerly_transformed(scope, model)


def _bound_to_tree_map(name: ast.Name, scope, context) -> bool:
    owner = owning_scope(context.model, name.id, scope)
    if owner is None:
        return False
    return any(
        isinstance(value, ast.Call) and context.qualified_name(value.func) in jaxapi.TREE_MAPS
        for target, value in owner.bindings
        if isinstance(target, ast.Name) and target.id == name.id
    )


def _call_kind(node: ast.Call, context) -> str | None:
    qualified = context.qualified_name(node.func)
    if qualified == "builtins.print":
        return "print"
    if qualified is not None:
        if qualified.startswith(_LOGGING_MODULES) and qualified.rsplit(".", 1)[1] in _LOGGING_METHODS and qualified.count(".") == qualified.startswith("absl.") + 1:
            return "logging"
        return None
    function = node.func
    if isinstance(function, ast.Attribute) and function.attr in _LOGGING_METHODS and isinstance(function.value, ast.Name):
        found = bound_values(context.model, function.value.id, context.scope(node))
        if found is not None and all(
            isinstance(value, ast.Call) and context.qualified_name(value.func) in ("logging.getLogger", "absl.logging.get_absl_logger")
            for value in found[1]
        ):
            return "logging"
    return None


def _mentions_traced(node: ast.AST, scope, context) -> bool:
    """Whether printing `node` shows a tracer: a traced value, or one formatted into a string."""
    if isinstance(node, ast.Starred):
        return _mentions_traced(node.value, scope, context)
    if isinstance(node, ast.JoinedStr):
        return any(_mentions_traced(value.value, scope, context) for value in node.values if isinstance(value, ast.FormattedValue))
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Mod, ast.Add)):
        return _mentions_traced(node.left, scope, context) or _mentions_traced(node.right, scope, context)
    if isinstance(node, ast.Call):
        qualified = context.qualified_name(node.func)
        if qualified in ("builtins.str", "builtins.repr", "builtins.format"):
            return any(_mentions_traced(arg, scope, context) for arg in node.args[:1])
        if isinstance(node.func, ast.Attribute) and node.func.attr == "format" and isinstance(node.func.value, ast.Constant):
            return any(_mentions_traced(arg, scope, context) for arg in [*node.args, *(k.value for k in node.keywords)])
        if static_tree_map(context.model, node, scope):
            return False
        shown = call_shows(node, context.model, scope)
        if shown is not None:
            # A helper that returns text: what it shows of its arguments (semantic/shown_text.py).
            return any(_mentions_traced(arg, scope, context) for arg in shown)
    if isinstance(node, (ast.Tuple, ast.List)):
        return any(_mentions_traced(element, scope, context) for element in node.elts)
    if isinstance(node, ast.Dict):
        return any(value is not None and _mentions_traced(value, scope, context) for value in node.values)
    if isinstance(node, ast.Name):
        if narrowed_to_host(context.model, node):
            return False
        if context.level(node, scope) < ARRAY and _bound_to_tree_map(node, scope, context):
            return False  # a tree of maybe-static leaves (`jax.tree.map(is_none, tree)`): cannot tell
    return context.level(node, scope) >= TRACED


# ----- the fix -------------------------------------------------------------------------------------


class _Format:
    """A jax.debug.print format string under construction: literal text, traced fields, static fields."""

    def __init__(self) -> None:
        self.pieces: list[tuple[str, str]] = []  # ("text", runtime text) / ("field", "{!r:.3f}") / ("static", "{expr}")
        self.arguments: list[str] = []

    def text(self, value: str) -> None:
        self.pieces.append(("text", value))

    def field(self, argument: str, conversion: str = "", spec: str = "") -> None:
        self.pieces.append(("field", "{" + conversion + (":" + spec if spec else "") + "}"))
        self.arguments.append(argument)

    def static(self, source: str) -> None:
        self.pieces.append(("static", "{" + source + "}"))

    def literal(self) -> str | None:
        """The Python literal for the format string; None when no quoting works."""
        has_static = any(kind == "static" for kind, _ in self.pieces)
        for quote in ('"', "'"):
            out = []
            for kind, value in self.pieces:
                if kind == "text":
                    escaped = value.replace("{", "{{").replace("}", "}}")
                    if has_static:
                        escaped = escaped.replace("{", "{{").replace("}", "}}")
                    out.append(_escape(escaped, quote))
                elif kind == "field":
                    out.append(_escape(value.replace("{", "{{").replace("}", "}}") if has_static else value, quote))
                else:
                    if quote in value or "\\" in value or "\n" in value or (quote == '"' and "'" in value and '"' in value):
                        break
                    out.append(value)
            else:
                return ("f" if has_static else "") + quote + "".join(out) + quote
        return None


def _escape(text: str, quote: str) -> str:
    out = []
    for character in text:
        if character == "\\":
            out.append("\\\\")
        elif character == quote:
            out.append("\\" + quote)
        elif character == "\n":
            out.append("\\n")
        elif character == "\t":
            out.append("\\t")
        elif character == "\r":
            out.append("\\r")
        elif not character.isprintable():
            out.append(repr(character)[1:-1])
        else:
            out.append(character)
    return "".join(out)


def _print_fix(node: ast.Call, scope, context):
    separator = " "
    for keyword in node.keywords:
        if keyword.arg == "sep" and isinstance(keyword.value, ast.Constant) and isinstance(keyword.value.value, str):
            separator = keyword.value.value
        elif keyword.arg == "end" and isinstance(keyword.value, ast.Constant) and keyword.value.value == "\n":
            continue
        elif keyword.arg == "flush":
            continue
        else:
            return None
    fmt = _Format()
    for position, arg in enumerate(node.args):
        if position:
            fmt.text(separator)
        if not _add_argument(fmt, arg, scope, context):
            return None
    literal = fmt.literal()
    if literal is None:
        return None
    name, import_edits = fixes.reference(context, "jax.debug.print")
    if not name:
        return None
    text = f"{name}({', '.join([literal, *fmt.arguments])})"
    return context.fix(f"Use `{name}`", [context.replace(node, text), *import_edits], safe=True)


def _add_argument(fmt: _Format, arg: ast.AST, scope, context) -> bool:
    if isinstance(arg, ast.Starred):
        return False
    if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
        fmt.text(arg.value)
        return True
    if isinstance(arg, ast.JoinedStr):
        for value in arg.values:
            if isinstance(value, ast.Constant):
                fmt.text(value.value)
                continue
            spec = ""
            if value.format_spec is not None:
                parts = value.format_spec.values
                if not all(isinstance(part, ast.Constant) for part in parts):
                    return False
                spec = "".join(part.value for part in parts)
            conversion = _CONVERSIONS.get(value.conversion, "")
            source = _argument_text(value.value, context)
            if _mentions_traced(value.value, scope, context):
                fmt.field(source, conversion, spec)
            elif _brace_free(value.value, context):
                fmt.static(source + conversion + (":" + spec if spec else ""))
            else:
                return False
        return True
    source = _argument_text(arg, context)
    if _mentions_traced(arg, scope, context):
        if not context.level(arg, scope) >= TRACED:
            return False  # `%`/`.format`/`str()` of a tracer: the formatting itself needs rewriting
        fmt.field(source)
    elif _brace_free(arg, context):
        fmt.static(source)
    else:
        return False
    return True


def _brace_free(node: ast.AST, context) -> bool:
    """A static value whose text cannot contain `{` or `}` (which the format string would misread)."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, (int, float)) or (isinstance(node.value, str) and not set("{}") & set(node.value))
    if isinstance(node, ast.Attribute):
        return node.attr in ("shape", "ndim", "dtype", "size")
    if isinstance(node, ast.Subscript):
        return isinstance(node.value, ast.Attribute) and node.value.attr == "shape"
    if isinstance(node, ast.Call):
        return context.qualified_name(node.func) in ("builtins.len", "builtins.int", "builtins.float")
    if isinstance(node, ast.BinOp):
        return _brace_free(node.left, context) and _brace_free(node.right, context)
    return False


def _argument_text(node: ast.AST, context) -> str:
    text = context.text(node)
    if "\n" in text:
        text = " ".join(text.split())
    return f"({text})" if isinstance(node, (ast.NamedExpr, ast.Tuple, ast.Lambda, ast.IfExp)) and not text.startswith("(") else text


def _logging_fix(node: ast.Call, scope, context):
    if node.keywords or not node.args or any(isinstance(arg, ast.Starred) for arg in node.args):
        return None
    message = node.args[0]
    if not (isinstance(message, ast.Constant) and isinstance(message.value, str)):
        return None
    if not all(context.level(arg, scope) >= TRACED or not _mentions_traced(arg, scope, context) for arg in node.args[1:]):
        return None
    if all(isinstance(arg, ast.Name) and arg.id in scope.params for arg in node.args[1:] if _mentions_traced(arg, scope, context)):
        # `logging.info("step(batch=%s)", batch)`: a whole argument logged at trace time is the usual
        # once-per-compile log of its shapes; at run time it would copy the argument to the host on
        # every call. Which was meant, the code does not say.
        return None
    name, import_edits = fixes.reference(context, "jax.debug.callback")
    if not name:
        return None
    arguments = [context.text(node.func), *(context.text(arg) for arg in node.args)]
    text = f"{name}({', '.join(arguments)})"
    return context.fix(f"Log at run time with `{name}`", [context.replace(node, text), *import_edits], safe=True)


RULE = PrintInTraced()
