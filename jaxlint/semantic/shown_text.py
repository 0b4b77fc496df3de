"""What a helper that returns text shows of its arguments: their values, or only static attributes.

`logging.info("embeddings = %s", describe(x))` at trace time logs what `describe` returns. Where every
`return` of `describe` is text (a string literal, an f-string, `str(...)`, `repr(...)`, a `+` or `%`
of text, `", ".join(...)`, `"...".format(...)`, a call of itself), the text shows a parameter's value
(a tracer's repr, under a trace) only where a return formats the parameter itself; `str(x.shape)`,
`str(x.dtype)`, `x.ndim`, `len(x)` are static, the shape-and-dtype text such helpers exist to give at
trace time. Two paths do not count:
- a branch under a parameter whose default is off (`False`, `None`, `0`, `""`) and which the call
  does not pass (`if verbose: return str(x)`, `verbose=False`): the call takes the other path;
- the branch where the value has no `shape` (the `else` of `if hasattr(x, "shape"):`) or is `None`
  (`if x is None:`): no array is formatted there.

Summarised per module for the project (ModuleSummary.text_functions) and read for the module's own
functions from their definitions; asked by JAX104 (print_in_traced).
"""

from __future__ import annotations

import ast

_STATIC = frozenset({"shape", "dtype", "ndim", "size", "__name__", "__class__", "weak_type", "sharding", "aval"})
_UNKNOWN = "*"
_FORMATTING = frozenset({"str", "repr", "format"})
_NESTED = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)


def returned_text(function: ast.AST) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
    """(parameters whose values the returned text may show, `*` for unknown; parameters whose
    default-off branches were left out) when every `return` of `function` gives text, else None."""
    if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return None
    arguments = function.args
    params = [a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)]
    positional = [*arguments.posonlyargs, *arguments.args]
    defaults = dict(zip([a.arg for a in positional][len(positional) - len(arguments.defaults):], arguments.defaults))
    defaults.update({a.arg: d for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None})
    off = {name for name, value in defaults.items() if isinstance(value, ast.Constant) and not value.value}
    reader = _Reader(function.name, set(params), off)
    if not reader.block(function.body, frozenset(), False) or not reader.returns:
        return None
    return tuple(sorted(reader.shown)), tuple(sorted(reader.gates))


class _Reader:
    def __init__(self, name: str, params: set[str], off: set[str]) -> None:
        self.name = name
        self.params = params
        self.off = off
        self.shown: set[str] = set()
        self.gates: set[str] = set()
        self.returns = 0

    def block(self, statements: list[ast.stmt], narrowed: frozenset, gated: bool) -> bool:
        for statement in statements:
            if not self.statement(statement, narrowed, gated):
                return False
        return True

    def statement(self, statement: ast.stmt, narrowed: frozenset, gated: bool) -> bool:
        kind = statement.__class__
        if kind in (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef):
            return True
        if kind is ast.Return:
            if statement.value is None:
                return False
            shown = self.text(statement.value, narrowed)
            if shown is None:
                return False
            self.returns += 1
            if not gated:
                self.shown |= shown
            return True
        if kind in (ast.Yield, ast.YieldFrom) or (kind is ast.Expr and isinstance(statement.value, (ast.Yield, ast.YieldFrom))):
            return False
        if kind is ast.If:
            gate = self.gate(statement.test)
            if gate is not None:
                self.gates.add(gate)
                return self.block(statement.body, narrowed, True) and self.block(statement.orelse, narrowed, gated)
            no_array = self.no_array_when_false(statement.test)
            none = self.none_when_true(statement.test)
            body_narrowed = narrowed | {none} if none else narrowed
            else_narrowed = narrowed | {no_array} if no_array else narrowed
            return self.block(statement.body, body_narrowed, gated) and self.block(statement.orelse, else_narrowed, gated)
        for field in ("body", "orelse", "finalbody"):
            block = getattr(statement, field, None)
            if isinstance(block, list) and not self.block(block, narrowed, gated):
                return False
        for handler in getattr(statement, "handlers", ()):
            if not self.block(handler.body, narrowed, gated):
                return False
        for node in ast.walk(statement):
            if isinstance(node, (ast.Yield, ast.YieldFrom)):
                return False
        return True

    def gate(self, test: ast.expr) -> str | None:
        """`if verbose:` on a parameter whose default is off."""
        return test.id if isinstance(test, ast.Name) and test.id in self.off else None

    def no_array_when_false(self, test: ast.expr) -> str | None:
        """`hasattr(x, "shape")` (or `"dtype"`): where it is false, `x` is no array."""
        if (
            isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "hasattr" and len(test.args) == 2
            and isinstance(test.args[0], ast.Name) and test.args[0].id in self.params
            and isinstance(test.args[1], ast.Constant) and test.args[1].value in ("shape", "dtype")
        ):
            return test.args[0].id
        return None

    def none_when_true(self, test: ast.expr) -> str | None:
        if (
            isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Is)
            and isinstance(test.left, ast.Name) and test.left.id in self.params
            and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None
        ):
            return test.left.id
        return None

    def text(self, node: ast.expr, narrowed: frozenset) -> set[str] | None:
        """The parameters a text expression shows; None when it is not text."""
        if isinstance(node, ast.Constant):
            return set() if isinstance(node.value, str) else None
        if isinstance(node, ast.JoinedStr):
            shown: set[str] = set()
            for value in node.values:
                if isinstance(value, ast.FormattedValue):
                    shown |= self.mentioned(value.value, narrowed)
            return shown
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
            left = self.text(node.left, narrowed)
            if left is None and isinstance(node.op, ast.Add):
                right = self.text(node.right, narrowed)
                return None if right is None else right | self.mentioned(node.left, narrowed)
            return None if left is None else left | self.mentioned(node.right, narrowed)
        if isinstance(node, ast.Call):
            function = node.func
            arguments = [*node.args, *(k.value for k in node.keywords)]
            if isinstance(function, ast.Name) and function.id in _FORMATTING:
                return self.mentioned_all(arguments[:1], narrowed)
            if isinstance(function, ast.Name) and function.id == self.name:
                return set()  # itself, on parts of its arguments: what it shows of them is what it shows
            if isinstance(function, ast.Attribute) and function.attr in ("join", "format") and isinstance(function.value, ast.Constant) \
                    and isinstance(function.value.value, str):
                return self.mentioned_all(arguments, narrowed)
        return None

    def mentioned_all(self, nodes: list[ast.expr], narrowed: frozenset) -> set[str]:
        shown: set[str] = set()
        for node in nodes:
            shown |= self.mentioned(node, narrowed)
        return shown

    def mentioned(self, node: ast.expr, narrowed: frozenset) -> set[str]:
        """The parameters whose values `node` (formatted) may show: not their static attributes, `len`,
        names narrowed to no array here, nor the element names of a generator over a call of itself."""
        text = self.text(node, narrowed)
        if text is not None:
            return text
        if isinstance(node, ast.Attribute) and node.attr in _STATIC:
            return set()
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("len", "type", "id"):
            return set()
        if isinstance(node, ast.Name):
            if node.id in narrowed:
                return set()
            return {node.id} if node.id in self.params else {_UNKNOWN}
        if isinstance(node, (ast.ListComp, ast.GeneratorExp)) and self.text(node.elt, narrowed) is not None:
            return self.text(node.elt, narrowed) or set()
        if isinstance(node, ast.Constant):
            return set()
        shown: set[str] = set()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                shown |= self.mentioned(child, narrowed)
        return shown


def summarise_module(tree: ast.Module) -> dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]]:
    """name -> (shown parameters, gate parameters, positional parameters) for each top-level function
    that returns text."""
    found = {}
    for statement in tree.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            result = returned_text(statement)
            if result is not None:
                found[statement.name] = (*result, tuple(a.arg for a in (*statement.args.posonlyargs, *statement.args.args)))
    return found


def call_shows(call: ast.Call, model, scope) -> list[ast.expr] | None:
    """The arguments of `call` whose values the text it returns may show, where the callee is a function
    of this module or of the project that returns text (None when it is not, or when the call's
    arguments cannot be matched). A call that passes a default-off switch may show every argument."""
    text = _callee_text(call, model, scope)
    if text is None:
        return None
    shown, gates, positional = text
    if any(isinstance(arg, ast.Starred) for arg in call.args) or any(k.arg is None for k in call.keywords):
        return None
    passed = {positional[i]: arg for i, arg in enumerate(call.args) if i < len(positional)}
    if len(call.args) > len(positional):
        return None
    passed.update({k.arg: k.value for k in call.keywords})
    if _UNKNOWN in shown or any(gate in passed for gate in gates):
        # (`describe(x, verbose=True)`: the path left out may be taken, and may show anything passed)
        return list(passed.values())
    return [value for name, value in passed.items() if name in shown]


def _callee_text(call: ast.Call, model, scope):
    function = call.func
    resolved = model.resolve_function(function, scope) if isinstance(function, ast.Name) else None
    if resolved is not None:
        target, bound, keywords = resolved
        if bound or keywords or not isinstance(target.node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return None
        cache = model.__dict__.setdefault("_jaxlint_shown_text", {})
        key = id(target.node)
        if key not in cache:
            result = returned_text(target.node)
            node = target.node
            cache[key] = None if result is None else (*result, tuple(a.arg for a in (*node.args.posonlyargs, *node.args.args)))
        return cache[key]
    project = getattr(model, "project", None)
    if project is None or not isinstance(function, (ast.Name, ast.Attribute)):
        return None
    qualified = model.qualified_name(function)
    if not qualified or not project.may_hold(qualified.partition(".")[0]):
        return None
    located = project._locate(qualified)
    if located is None:
        return None
    summary, name, _ = located
    return getattr(summary, "text_functions", {}).get(name)
