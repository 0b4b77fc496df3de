"""Moving code out of a function to module level, so it is built (and compiled) once.

Fixes that create a jitted callable inside a function body compile on every call of that function:
the callable is a new object each time. These helpers place a definition at module level, just
before the top-level statement that holds the code, and check that every name it needs when that
line runs is bound by then.
"""

from __future__ import annotations

import ast
import builtins

from jaxlint.diagnostics import Edit, Position
from jaxlint.semantic import jaxapi
from jaxlint.semantic.model import parent_of, is_within

_BUILTINS = frozenset(dir(builtins))


def top_level_statement(node: ast.AST) -> ast.stmt | None:
    """The statement of the module body that contains `node`."""
    current = node
    while current is not None and not isinstance(parent_of(current), ast.Module):
        current = parent_of(current)
    return current


def first_row(top: ast.stmt, source) -> int:
    """The first line of a top-level statement: its decorators, and the comment lines right above
    them (which describe it and must stay with it)."""
    row = min([top.lineno, *(d.lineno for d in getattr(top, "decorator_list", []))])
    while row > 1 and source.line(row - 1).startswith("#"):
        row -= 1
    return row


def insert_before(top: ast.stmt, text: str, context) -> Edit:
    """Insert module-level `text` (without trailing newlines) before `top`, its decorators and the
    comments that describe it, followed by two blank lines."""
    start = Position(first_row(top, context.source), 1)
    return Edit(text.rstrip("\n") + "\n\n\n", start, start)


def function_locals(scope) -> set[str]:
    """Names bound by the function around a node or any function enclosing it (parameters too)."""
    found: set[str] = set()
    current = scope
    while current is not None and current.is_function:
        found |= current.local_names | set(current.param_nodes)
        current = current.parent
    return found


def module_binding_before(name: str, top: ast.stmt, context) -> bool:
    """`name` is bound at module level by a statement that runs before `top` (or is a builtin)."""
    tree = context.model.tree
    for statement in tree.body:
        if statement is top:
            break
        if _binds(statement, name):
            return True
    return name in _BUILTINS and not any(_binds(statement, name) for statement in tree.body)


def _binds(statement: ast.stmt, name: str) -> bool:
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return statement.name == name
    if isinstance(statement, (ast.Import, ast.ImportFrom)):
        return any((alias.asname or alias.name).split(".")[0] == name for alias in statement.names)
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        return any(isinstance(n, ast.Name) and n.id == name for target in targets for n in ast.walk(target))
    if isinstance(statement, (ast.If, ast.Try)):
        # `try: import x except ImportError: x = None`: bound on every path that matters here.
        return any(_binds(child, name) for child in statement.body)
    return False


def loaded_names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def lambda_free_names(function: ast.Lambda) -> set[str]:
    """Names a lambda reads that are not its own parameters (nor bound by its comprehensions)."""
    arguments = function.args
    own = {a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg] if a is not None}
    comprehension_targets = {
        n.id for c in ast.walk(function) if isinstance(c, ast.comprehension) for n in ast.walk(c.target) if isinstance(n, ast.Name)
    }
    return loaded_names(function.body) - own - comprehension_targets


_ARRAY_ATTRIBUTES = frozenset({"shape", "dtype", "ndim", "size", "T", "at", "astype", "sum", "mean", "max", "min", "reshape", "real", "imag"})
# Builtins that need a concrete Python value: a traced argument would raise in them.
_CONCRETE_BUILTINS = frozenset({"int", "float", "bool", "range", "str", "complex", "hash", "list", "tuple", "dict"})


def array_like_uses(name: str, nodes: list[ast.AST], context) -> bool:
    """Every use of `name` is as a value (operand, argument, index), never called, asked for an
    attribute an array lacks, converted to a Python value or tested by Python control flow: objects,
    functions and static Python numbers cannot become arguments of a compiled function."""
    for node in nodes:
        for n in ast.walk(node):
            if not (isinstance(n, ast.Name) and n.id == name):
                continue
            parent = parent_of(n)
            if isinstance(parent, ast.Call) and parent.func is n:
                return False
            if isinstance(parent, ast.Call) and _function_argument(parent, n, context):
                return False  # `jax.vmap(metric)`, `jax.tree.map(fn, tree)`: a function, not an array
            if isinstance(parent, ast.Attribute) and parent.attr not in _ARRAY_ATTRIBUTES:
                return False
            if isinstance(parent, ast.Call) and context.qualified_name(parent.func) in {f"builtins.{b}" for b in _CONCRETE_BUILTINS}:
                return False
            ancestor = parent
            while ancestor is not None and not isinstance(ancestor, ast.stmt):
                if isinstance(ancestor, (ast.IfExp, ast.BoolOp)) or (isinstance(ancestor, ast.UnaryOp) and isinstance(ancestor.op, ast.Not)):
                    return False
                ancestor = parent_of(ancestor)
            # Only control flow that moves along: the test of an `if` the fix itself rewrites is not.
            if isinstance(ancestor, (ast.If, ast.While, ast.Assert)) and is_within(ancestor, node) and is_within(n, ancestor.test):
                return False
    return True



# Calls whose first argument is a function: transforms, tree maps, wrappers. Lax loops and branches
# take theirs where jaxapi.LAX_BODIES says.
_FUNCTION_FIRST = (
    jaxapi.COMPILING | jaxapi.VMAP_LIKE | jaxapi.GRAD_LIKE | jaxapi.TREE_MAPS
    | frozenset({"jax.checkpoint", "jax.remat", "functools.partial"})
)


def _function_argument(call: ast.Call, argument: ast.AST, context) -> bool:
    qualified = context.qualified_name(call.func) or ""
    positions = jaxapi.LAX_BODIES.get(qualified, (0,) if qualified in _FUNCTION_FIRST else ())
    return any(position < len(call.args) and call.args[position] is argument for position in positions)


# ----- names for hoisted definitions -------------------------------------------------------------

_OPERATOR_WORDS = {
    ast.Add: "plus", ast.Sub: "minus", ast.Mult: "times", ast.Div: "over", ast.MatMult: "matmul",
    ast.Pow: "pow", ast.FloorDiv: "floordiv", ast.Mod: "mod",
}
_LONGEST_DESCRIPTION = 32


def describe(expression: ast.expr) -> str | None:
    """A short identifier for what `expression` computes: the callee of a call (`loss_fn(p, b)` ->
    `loss_fn`), `scaled_loss` for a product with a constant, `a_plus_b` for a binary operation of
    two describable operands. None when nothing short says it."""
    described = _describe(expression, depth=0)
    if described is None or len(described) > _LONGEST_DESCRIPTION or not described.isidentifier():
        return None
    return described


def _describe(node: ast.expr, depth: int) -> str | None:
    if depth > 3:
        return None
    if isinstance(node, ast.Name):
        return node.id.strip("_") or None
    if isinstance(node, ast.Attribute):
        return node.attr.strip("_") or None
    if isinstance(node, ast.Call):
        return _describe(node.func, depth + 1)
    if isinstance(node, ast.Subscript):
        return _describe(node.value, depth + 1)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = _describe(node.operand, depth + 1)
        return f"negated_{inner}" if inner else None
    if isinstance(node, ast.BinOp):
        # `2.0 * loss(p)`, `loss(p) / n`, `scale * loss(p)`: a computed value times a factor. A value the
        # computed side itself reads is no factor: `v / norm(v)` is `v_over_norm`, not a scaled norm.
        read_by_calls = {
            n.id for side in (node.left, node.right) if isinstance(side, ast.Call) for n in ast.walk(side) if isinstance(n, ast.Name)
        }
        factors = [
            side for side in (node.left, node.right)
            if isinstance(side, (ast.Constant, ast.Attribute)) or isinstance(side, ast.Name) and side.id not in read_by_calls
        ]
        computed = [side for side in (node.left, node.right) if side not in factors]
        if isinstance(node.op, (ast.Mult, ast.Div)) and (
            len(computed) == 1 and isinstance(computed[0], ast.Call) or len(factors) == 2 and any(isinstance(f, ast.Constant) for f in factors)
        ):
            other = computed[0] if computed else next(f for f in factors if not isinstance(f, ast.Constant))
            inner = _describe(other, depth + 1)
            return f"scaled_{inner}" if inner else None
        if isinstance(node.left, ast.BinOp) and isinstance(node.right, ast.BinOp):
            return None  # `(a + b) * (c + d)`: no short name keeps the grouping
        word = _OPERATOR_WORDS.get(type(node.op))
        left, right = _describe(node.left, depth + 1), _describe(node.right, depth + 1)
        if word and left and right:
            return f"{left}_{word}_{right}"
    return None


def fresh_module_name(base: str, context) -> str:
    """`base`, or `base2`, `base3`...: a name no binding or use in the module has yet. (Two fixes of
    one round that pick the same new name for different definitions are split across rounds by
    the fixer, so the second sees the first's name taken.)"""
    from jaxlint import fixes  # the package imports this module's users

    taken = fixes.names_in_use(context)
    name, counter = base, 2
    while name in taken:
        name, counter = f"{base}{counter}", counter + 1
    return name
