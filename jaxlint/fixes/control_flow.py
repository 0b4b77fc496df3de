"""JAX101's structural fixes: `if`/`else` and ternaries to `jnp.where` or `lax.cond`, `while` to
`lax.while_loop`. `control_flow_fix` returns a Fix, a string saying why no fix is offered, or None.

All of these fixes are unsafe (see the rule's "Fix safety"): `jnp.where` evaluates both arms,
`lax.cond` traces both arms and needs them to produce the same types, `lax.while_loop` needs a
fixed-shape carry and is not reverse-differentiable. The new statements are built with libcst from
the module's libcst tree (`cst_edit`): the arms move into nested functions as libcst nodes, so their
comments, quotes and multi-line strings survive and libcst indents them in the file's own unit;
the comment of a rewritten `if`/`while` header (and of `else:`) goes on the line that replaces it.

The analysis is deliberately narrow: arms must be straight-line assignments to plain names (plus
`if`/`for` blocks of the same), calls must be JAX operations, array methods or local functions, and
anything else is refused with a reason rather than guessed at.
"""

from __future__ import annotations

import ast
from typing import Iterable, Iterator

from jaxlint import fixes
from jaxlint.semantic.model import FUNCTION_NODES, parent_of
from jaxlint.rules.base import snippet

# Calls under these prefixes compute values and touch nothing else.
_PURE_PREFIXES = ("jax.numpy.", "jax.lax.", "jax.nn.", "jax.scipy.", "jax.random.", "jax.tree.", "jax.tree_util.", "math.", "operator.")
_IMPURE = ("jax.debug.", "jax.experimental.io_callback", "jax.pure_callback", "jax.experimental.host_callback")
_PURE_BUILTINS = {
    "abs", "len", "range", "tuple", "list", "dict", "zip", "enumerate", "sum", "min", "max", "round", "pow",
    "float", "int", "bool", "complex", "isinstance", "reversed", "sorted", "divmod", "all", "any", "slice",
}
_MUTATING_METHODS = {"append", "extend", "insert", "pop", "remove", "clear", "update", "setdefault", "add", "discard", "sort", "reverse", "popitem"}
_ARRAY_OPS_ALWAYS_PURE = {"at", "set", "get", "astype", "reshape", "sum", "mean", "max", "min", "prod", "transpose", "T", "clip", "squeeze", "dot", "any", "all", "ravel", "swapaxes", "argmax", "argmin", "cumsum", "round", "conj", "real", "imag", "std", "var"}
# Operations whose result has a different shape from their input: a carry must keep its shape.
_SHAPE_CHANGING = {"concatenate", "append", "stack", "hstack", "vstack", "dstack", "column_stack", "pad", "repeat", "tile", "expand_dims", "insert", "delete"}


# ----- small shared helpers (also used by fixes.host_sync) ------------------------------------------


def loads(node: ast.AST) -> set[str]:
    """Names read anywhere in `node` (including inside lambdas and comprehensions)."""
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def stores(node: ast.AST) -> set[str]:
    """Names bound anywhere in `node`, not counting nested function bodies."""
    found: set[str] = set()
    for n in walk_same_function(node):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
            found.add(n.id)
    return found


def walk_same_function(node: ast.AST) -> Iterator[ast.AST]:
    stack = [node]
    while stack:
        current = stack.pop()
        yield current
        for child in ast.iter_child_nodes(current):
            if isinstance(child, (*FUNCTION_NODES, ast.ClassDef)):
                continue
            stack.append(child)


def statement_reads(statement: ast.stmt) -> set[str]:
    names = loads(statement)
    if isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
        names.add(statement.target.id)
    return names


def definite_stores(statement: ast.stmt) -> set[str]:
    """Names a statement certainly binds (assignments at its top level, not inside `if`/`for`)."""
    if isinstance(statement, ast.Assign):
        return {n for target in statement.targets for n in stores(target)}
    if isinstance(statement, (ast.AugAssign, ast.AnnAssign)) and statement.value is not None:
        return stores(statement.target)
    return set()


def read_before_assigned(statements: list[ast.stmt], candidates: set[str]) -> set[str]:
    """Candidates that some statement reads before the block has certainly assigned them."""
    assigned: set[str] = set()
    found: set[str] = set()
    for statement in statements:
        found |= (statement_reads(statement) & candidates) - assigned
        assigned |= definite_stores(statement)
    return found


def block_stores(statements: list[ast.stmt]) -> set[str]:
    return {name for statement in statements for name in stores(statement)}


def enclosing_function(node: ast.AST) -> ast.AST | None:
    for ancestor in _ancestors(node):
        if isinstance(ancestor, FUNCTION_NODES):
            return ancestor
    return None


def _ancestors(node: ast.AST) -> Iterator[ast.AST]:
    current = parent_of(node)
    while current is not None:
        yield current
        current = parent_of(current)


def live_after(node: ast.stmt, names: set[str]) -> set[str]:
    """Names read after `node` in its function (or module): later in the text, or anywhere in a
    loop around it (the next iteration reads them). An over-approximation, which is the safe side."""
    function = enclosing_function(node)
    root = function if function is not None else _module_of(node)
    end = (node.end_lineno, node.end_col_offset)
    found = {
        n.id for n in ast.walk(root)
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load) and n.id in names and (n.lineno, n.col_offset) >= end
    }
    for ancestor in _ancestors(node):
        if ancestor is root:
            break
        if isinstance(ancestor, (ast.For, ast.While, ast.AsyncFor)):
            found |= loads(ancestor) & names
    return found


def _module_of(node: ast.AST) -> ast.AST:
    current = node
    while parent_of(current) is not None:
        current = parent_of(current)
    return current


def defined_before(name: str, node: ast.stmt, context) -> bool:
    """Whether `name` is a parameter of the enclosing function or bound by a statement ending before `node`."""
    function = enclosing_function(node)
    if function is not None:
        arguments = function.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs, arguments.vararg, arguments.kwarg]
        if any(arg is not None and arg.arg == name for arg in every):
            return True
    root = function if function is not None else _module_of(node)
    start = (node.lineno, node.col_offset)
    for n in walk_same_function(root) if function is not None else ast.walk(root):
        if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id == name:
            statement = _statement_of(n)
            if statement is not None and (statement.end_lineno, statement.end_col_offset) <= start:
                return True
    return False


def _statement_of(node: ast.AST) -> ast.stmt | None:
    current: ast.AST | None = node
    while current is not None and not isinstance(current, ast.stmt):
        current = parent_of(current)
    return current


def fresh_name(context, base: str, taken: set[str] | None = None) -> str:
    used = {*fixes.names_in_use(context), *(taken or ())}
    if base not in used:
        used.add(base)
        if taken is not None:
            taken.add(base)
        return base
    index = 2
    while f"{base}_{index}" in used:
        index += 1
    name = f"{base}_{index}"
    if taken is not None:
        taken.add(name)
    return name


class References:
    """Module-level names (`jnp.where`, `lax.cond`) for generated code, collecting import edits."""

    def __init__(self, context) -> None:
        self.context = context
        self.edits: list = []

    def __call__(self, qualified: str) -> str:
        name, edits = fixes.reference(self.context, qualified)
        if not name:
            raise _Refuse(f"cannot name `{qualified}` here: a local name shadows its module")
        for edit in edits:
            if edit not in self.edits:
                self.edits.append(edit)
        return name


class _Refuse(Exception):
    """Raised inside the fix builders; its message is why no fix is offered."""


# ----- purity -------------------------------------------------------------------------------------


def impurity(statements: Iterable[ast.stmt], context, scope, allow_return: bool = False) -> str | None:
    """Why these statements may have side effects (or cannot be moved into a function), or None."""
    for statement in statements:
        reason = _statement_impurity(statement, context, scope, allow_return)
        if reason:
            return reason
    return None


def _statement_impurity(statement: ast.stmt, context, scope, allow_return: bool) -> str | None:
    text = snippet(context.text(statement))
    if isinstance(statement, ast.Assign):
        for target in statement.targets:
            if not _plain_target(target):
                return f"`{text}` writes to a subscript or attribute"
        return _expression_impurity(statement.value, context, scope)
    if isinstance(statement, (ast.AugAssign, ast.AnnAssign)):
        if not isinstance(statement.target, ast.Name):
            return f"`{text}` writes to a subscript or attribute"
        return _expression_impurity(statement.value, context, scope) if statement.value is not None else None
    if isinstance(statement, ast.Pass):
        return None
    if isinstance(statement, ast.Return):
        if not allow_return:
            return "an arm returns early"
        return _expression_impurity(statement.value, context, scope) if statement.value is not None else None
    if isinstance(statement, ast.If):
        return _expression_impurity(statement.test, context, scope) or impurity([*statement.body, *statement.orelse], context, scope, allow_return)
    if isinstance(statement, ast.For) and not statement.orelse and _plain_target(statement.target):
        return _expression_impurity(statement.iter, context, scope) or impurity(statement.body, context, scope, allow_return)
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return None  # a docstring-like string: nothing runs
    if isinstance(statement, ast.Expr):
        return f"`{text}` is run for its side effects"
    keyword = type(statement).__name__.lower()
    return f"an arm contains `{keyword}`"


def _plain_target(target: ast.AST) -> bool:
    if isinstance(target, ast.Name):
        return True
    if isinstance(target, (ast.Tuple, ast.List)):
        return all(_plain_target(element) for element in target.elts)
    return False


def _expression_impurity(expression: ast.AST, context, scope) -> str | None:
    for node in ast.walk(expression):
        if isinstance(node, (ast.Yield, ast.YieldFrom, ast.Await)):
            return "an arm yields or awaits"
        if isinstance(node, ast.NamedExpr):
            return "an arm uses `:=`"
        if isinstance(node, ast.Call) and not _pure_call(node, context, scope):
            return f"`{snippet(context.text(node))}` may have side effects"
    return None


def _pure_call(call: ast.Call, context, scope) -> bool:
    qualified = context.qualified_name(call.func)
    if qualified is not None:
        if qualified.startswith(_IMPURE):
            return False
        if qualified.startswith("builtins."):
            return qualified[9:] in _PURE_BUILTINS
        return qualified.startswith(_PURE_PREFIXES) or qualified == "jax.numpy"
    if isinstance(call.func, ast.Attribute):
        if call.func.attr in _MUTATING_METHODS:
            return False
        owner = call.func.value
        # `x.at[i].set(v)`, `x.sum()`: methods of traced arrays compute new arrays.
        if call.func.attr in _ARRAY_OPS_ALWAYS_PURE and (context.level(owner, scope) or isinstance(owner, (ast.Subscript, ast.Call))):
            return True
        return False
    if context.model.jit_binding_for_call(call) is not None:
        return True  # a compiled function is traced: its Python side effects run only at trace time
    resolved = context.model.resolve_function(call.func, scope)
    if resolved is not None and resolved[0] is not None:
        # A local function called with traced arguments is traced too; it runs once per trace in
        # either version. Only refuse the ones that visibly write outside themselves.
        body = resolved[0].node
        return not any(isinstance(n, (ast.Global, ast.Nonlocal)) for n in ast.walk(body))
    return False


# ----- conditions ---------------------------------------------------------------------------------


def condition_text(test: ast.AST, context, refs: References) -> str:
    """`test` as an array-valued expression: `and`/`or`/`not` and chained comparisons become
    elementwise operations, so the condition itself no longer calls `bool()` on a tracer."""
    if isinstance(test, ast.BoolOp):
        function = refs("jax.numpy.logical_and" if isinstance(test.op, ast.And) else "jax.numpy.logical_or")
        text = condition_text(test.values[0], context, refs)
        for value in test.values[1:]:
            text = f"{function}({text}, {condition_text(value, context, refs)})"
        return text
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return f"{refs('jax.numpy.logical_not')}({condition_text(test.operand, context, refs)})"
    if isinstance(test, ast.Compare) and len(test.ops) > 1:
        if any(isinstance(op, (ast.Is, ast.IsNot, ast.In, ast.NotIn)) for op in test.ops):
            raise _Refuse("the condition mixes identity or membership tests into a chained comparison")
        operands = [test.left, *test.comparators]
        source = context.source
        parts = []
        for index, op in enumerate(test.ops):
            left, right = operands[index], operands[index + 1]
            # The operator's text sits between the two operands.
            between = source.text[source.offset(source.end(left)) : source.offset(source.start(right))].strip()
            parts.append(f"{context.text(left)} {between} {context.text(right)}")
        function = refs("jax.numpy.logical_and")
        text = parts[0]
        for part in parts[1:]:
            text = f"{function}({text}, {part})"
        return text
    return context.text(test)


# ----- the fixes ----------------------------------------------------------------------------------


def control_flow_fix(node: ast.AST, context, scope):
    from jaxlint.fixes import cst_edit  # libcst loads only when a fix is built
    try:
        if isinstance(node, ast.IfExp):
            return _ternary_fix(node, context, scope)
        if isinstance(node, ast.If):
            return _if_fix(node, context, scope)
        if isinstance(node, ast.While):
            return _while_fix(node, context, scope)
    except (_Refuse, cst_edit.Unavailable) as refusal:
        return f"no automatic fix: {refusal}"
    return None


def _where_operand(node: ast.AST) -> bool:
    """Whether `jnp.where` can take this arm: containers and None would change meaning."""
    if isinstance(node, (ast.Tuple, ast.List, ast.Dict, ast.Set, ast.ListComp, ast.DictComp, ast.SetComp, ast.GeneratorExp, ast.Lambda, ast.JoinedStr)):
        return False
    if isinstance(node, ast.Constant) and not isinstance(node.value, (int, float, complex, bool)):
        return False
    return True


def _ternary_fix(node: ast.IfExp, context, scope):
    if not (_where_operand(node.body) and _where_operand(node.orelse)):
        raise _Refuse("an arm is a container or non-numeric value, which `jnp.where` would turn into an array")
    reason = _expression_impurity(node.body, context, scope) or _expression_impurity(node.orelse, context, scope)
    if reason:
        raise _Refuse(f"`jnp.where` evaluates both arms and {reason}")
    refs = References(context)
    where = refs("jax.numpy.where")
    text = f"{where}({condition_text(node.test, context, refs)}, {context.text(node.body)}, {context.text(node.orelse)})"
    return context.fix(f"Use `{where}` (evaluates both arms)", [context.replace(node, text), *refs.edits], safe=False)


def _block_of(node: ast.stmt) -> list[ast.stmt] | None:
    parent = parent_of(node)
    for field in ("body", "orelse", "finalbody"):
        block = getattr(parent, field, None)
        if isinstance(block, list) and node in block:
            return block
    for handler in getattr(parent, "handlers", ()) or ():
        if node in handler.body:
            return handler.body
    return None


def _returns_in(statements: list[ast.stmt]) -> list[ast.Return]:
    return [n for s in statements for n in walk_same_function(s) if isinstance(n, ast.Return)]


def _ends_in_return(statements: list[ast.stmt]) -> bool:
    """Whether every path through the block ends in `return <value>` (an `elif` chain counts)."""
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, ast.Return):
        return last.value is not None
    if isinstance(last, ast.If) and last.orelse:
        return _ends_in_return(last.body) and _ends_in_return(last.orelse)
    return False


def _if_fix(node: ast.If, context, scope):
    if any(isinstance(n, (ast.Break, ast.Continue)) for s in [*node.body, *node.orelse] for n in walk_same_function(s)):
        raise _Refuse("an arm contains `break` or `continue`")
    body_returns, else_returns = _returns_in(node.body), _returns_in(node.orelse)
    block = _block_of(node)
    if body_returns or else_returns:
        fallthrough: list[ast.stmt] = []
        if not node.orelse and block is not None:
            fallthrough = block[block.index(node) + 1 :]
        other = node.orelse or fallthrough
        if not _ends_in_return(node.body) or not _ends_in_return(other):
            raise _Refuse("only one arm returns")
        if len(body_returns) != 1 or len(_returns_in(other)) != 1 and not _is_elif_chain(other):
            raise _Refuse("an arm returns from the middle of a block")
        reason = impurity(node.body, context, scope, allow_return=True) or impurity(other, context, scope, allow_return=True)
        if reason:
            raise _Refuse(f"an arm has side effects: {reason}")
        return _return_fix(node, other, bool(fallthrough), context, scope)
    if not node.orelse and block is None:
        return None
    reason = impurity(node.body, context, scope) or impurity(node.orelse, context, scope)
    if reason:
        raise _Refuse(f"an arm has side effects: {reason}")
    return _assign_fix(node, context, scope)


def _is_elif_chain(statements: list[ast.stmt]) -> bool:
    return len(statements) == 1 and isinstance(statements[0], ast.If)


def _return_value_text(statements: list[ast.stmt], context, refs: References) -> str | None:
    """`return A` -> `A`; an `if c: return A else: return B` chain -> nested `jnp.where`; else None."""
    if len(statements) == 1 and isinstance(statements[0], ast.Return) and statements[0].value is not None:
        value = statements[0].value
        return context.text(value) if _where_operand(value) else None
    if len(statements) == 1 and isinstance(statements[0], ast.If) and statements[0].orelse:
        inner = statements[0]
        if context.level(inner.test, context.scope(inner)) == 0:
            return None
        first = _return_value_text(inner.body, context, refs)
        second = _return_value_text(inner.orelse, context, refs)
        if first is None or second is None:
            return None
        where = refs("jax.numpy.where")
        return f"{where}({condition_text(inner.test, context, refs)}, {first}, {second})"
    return None


def _return_fix(node: ast.If, other: list[ast.stmt], fallthrough: bool, context, scope):
    from jaxlint.fixes import cst_edit  # libcst loads only when a fix is built
    refs = References(context)
    end_node = other[-1] if fallthrough else node
    first = _return_value_text(node.body, context, refs)
    second = _return_value_text(other, context, refs)
    indent = context.source.indentation(node.lineno)
    if first is not None and second is not None:
        where = refs("jax.numpy.where")
        statement = cst_edit.parse_statement(f"return {where}({condition_text(node.test, context, refs)}, {first}, {second})\n")
        tree = _cst_tree(context, node)
        if_node = tree.statement(context, node)
        removed = [tree.statement(context, s) for s in other] if fallthrough else []
        header = cst_edit.header_comment(if_node)
        # Comments of the removed arms go above the new `return`, the header's at its end.
        inside = cst_edit.comments_in(if_node.body) + (cst_edit.comments_in(if_node.orelse) if if_node.orelse else [])
        inside += [c for s in removed for c in cst_edit.comments_in(s)]
        comments = cst_edit.comment_lines([c for c in inside if c != header])
        statement = cst_edit.with_trailing_comment(statement, header).with_changes(leading_lines=[*if_node.leading_lines, *comments])
        edit = tree.edit({if_node: [statement], **{s: [] for s in removed}})
        return context.fix(f"Use `{where}` (evaluates both arms)", [edit, *refs.edits], safe=False)
    # Both arms return after some computation: `lax.cond` over two local functions.
    if any(isinstance(s, (ast.If, ast.For)) for s in [*node.body, *other]) and _returns_in([s for s in [*node.body, *other] if isinstance(s, (ast.If, ast.For))]):
        raise _Refuse("an arm returns from inside a nested block")
    assigned = block_stores(node.body) | block_stores(other)
    operands = sorted(read_before_assigned(node.body, assigned) | read_before_assigned(other, assigned))
    return _cond_edit(node, end_node, node.body, other, operands, None, context, refs, indent, fallthrough)


def _assign_fix(node: ast.If, context, scope):
    refs = References(context)
    body, orelse = node.body, node.orelse
    assigned = block_stores(body) | block_stores(orelse)
    if not assigned:
        raise _Refuse("the arms assign nothing")
    where_fix = _where_assignments(node, context, scope, refs)
    if where_fix is not None:
        return where_fix
    outputs = [name for name in _ordered_stores([*body, *orelse]) if name in live_after(node, assigned)]
    if not outputs:
        raise _Refuse("nothing the arms assign is used afterwards")
    needed = set(read_before_assigned(body, assigned) | read_before_assigned(orelse, assigned))
    for arm in (body, orelse):
        arm_assigned = {n for s in arm for n in definite_stores(s)}
        needed |= {name for name in outputs if name not in arm_assigned}
    for name in sorted(needed):  # (sorted: the same message on every run, whatever the set order)
        if not defined_before(name, node, context):
            raise _Refuse(f"`{name}` is assigned in only one arm and has no value before the `if`")
    indent = context.source.indentation(node.lineno)
    return _cond_edit(node, node, body, orelse, sorted(needed), outputs, context, refs, indent, False)


def _ordered_stores(statements: list[ast.stmt]) -> list[str]:
    seen: list[str] = []
    for statement in statements:
        for n in sorted((n for n in walk_same_function(statement) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)), key=lambda n: (n.lineno, n.col_offset)):
            if n.id not in seen:
                seen.append(n.id)
    return seen


def _simple_assignments(statements: list[ast.stmt], context) -> list[tuple[str, str, set[str]]] | None:
    """[(name, value text, names read)] for `name = value` / `name op= value` statements, else None."""
    found = []
    for statement in statements:
        if isinstance(statement, ast.Pass):
            continue
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            if not _where_operand(statement.value):
                return None
            found.append((statement.targets[0].id, context.text(statement.value), loads(statement.value)))
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value is not None:
            if not _where_operand(statement.value):
                return None
            found.append((statement.target.id, context.text(statement.value), loads(statement.value)))
        elif isinstance(statement, ast.AugAssign) and isinstance(statement.target, ast.Name):
            operator = _AUG_OPERATORS.get(type(statement.op))
            if operator is None:
                return None
            value = context.text(statement.value)
            if fixes.needs_parentheses(statement.value):
                value = f"({value})"
            name = statement.target.id
            found.append((name, f"{name} {operator} {value}", loads(statement.value) | {name}))
        else:
            return None
    return found


_AUG_OPERATORS = {
    ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**",
    ast.MatMult: "@", ast.BitAnd: "&", ast.BitOr: "|", ast.BitXor: "^", ast.LShift: "<<", ast.RShift: ">>",
}


def _where_assignments(node: ast.If, context, scope, refs: References):
    """`if c: a = A1 else: a = A2` -> `a = jnp.where(c, A1, A2)`, one line per name; None when the
    arms are not simple enough (a name assigned twice, or read after another arm line rebinds it)."""
    import libcst as cst  # libcst loads only when a fix is built
    from jaxlint.fixes import cst_edit
    arms = [_simple_assignments(node.body, context), _simple_assignments(node.orelse, context)]
    if arms[0] is None or arms[1] is None:
        return None
    values: list[dict[str, str]] = []
    for arm in arms:
        names = [name for name, _, _ in arm]
        if len(names) != len(set(names)):
            return None
        assigned_so_far: set[str] = set()
        for name, _, reads in arm:
            if reads & assigned_so_far:
                return None  # a later line reads a value an earlier line changed
            assigned_so_far.add(name)
        values.append({name: text for name, text, _ in arm})
    order = [name for name, _, _ in arms[0]] + [name for name, _, _ in arms[1] if name not in values[0]]
    reads_by_name = {name: reads for arm in arms for name, _, reads in arm}
    all_reads = {name: set() for name in order}
    for arm in arms:
        for name, _, reads in arm:
            all_reads[name] |= reads
    test_reads = loads(node.test)
    for index, name in enumerate(order):
        rebound = set(order[:index])
        if all_reads[name] & rebound:
            return None
        if index > 0 and test_reads & rebound:
            return None  # the condition would see a value an earlier line changed
        for arm_values in values:
            if name not in arm_values and not defined_before(name, node, context):
                raise _Refuse(f"`{name}` is assigned in only one arm and has no value before the `if`")
    del reads_by_name
    where = refs("jax.numpy.where")
    condition = condition_text(node.test, context, refs)
    tree = _cst_tree(context, node)
    if_node = tree.statement(context, node)
    arm_statements = [*cst_edit.block_statements(if_node.body)]
    if isinstance(if_node.orelse, cst.Else):
        arm_statements += cst_edit.block_statements(if_node.orelse.body)
    # Each arm line's comments go with the new line for the name it assigns; the rest above.
    leading: dict[str, list[str]] = {name: [] for name in order}
    trailing: dict[str, list[str]] = {name: [] for name in order}
    for statement in arm_statements:
        small = statement.body[0] if isinstance(statement, cst.SimpleStatementLine) and statement.body else None
        target = getattr(small, "target", None) or (small.targets[0].target if isinstance(small, cst.Assign) else None)
        name = target.value if isinstance(target, cst.Name) and target.value in leading else None
        if name is None:
            continue
        leading[name] += cst_edit.leading_comments(statement)
        comment = cst_edit.trailing_comment(statement)
        if comment:
            trailing[name].append(comment)
    placed = {c for name in order for c in leading[name] + trailing[name]}
    header = cst_edit.header_comment(if_node)
    inside = cst_edit.comments_in(if_node.body) + (cst_edit.comments_in(if_node.orelse) if if_node.orelse else [])
    others = [c for c in inside if c not in placed and c != header]
    statements = []
    for index, name in enumerate(order):
        statement = cst_edit.parse_statement(f"{name} = {where}({condition}, {values[0].get(name, name)}, {values[1].get(name, name)})\n")
        # The header's comment ends the first line, unless that line keeps an arm's comment.
        header_here = index == 0 and header is not None
        own = ([header] if header_here and trailing[name] else []) + (others if index == 0 else [])
        comments = trailing[name] or ([header] if header_here else [])
        statement = cst_edit.with_trailing_comment(statement, "  ".join(comments) or None)
        lines = cst_edit.comment_lines(own + leading[name])
        if index == 0:
            lines = [*if_node.leading_lines, *lines]
        statements.append(statement.with_changes(leading_lines=lines))
    edit = tree.edit({if_node: statements})
    return context.fix(f"Use `{where}` (evaluates both arms)", [edit, *refs.edits], safe=False)


def _cst_tree(context, node: ast.AST):
    from jaxlint.fixes import cst_edit  # libcst loads only when a fix is built
    try:
        return cst_edit.module_tree(context, node)
    except cst_edit.Unavailable as error:
        raise _Refuse(f"libcst cannot rewrite this module ({error})") from error


def _cond_edit(node, end_node, body, other, operands, outputs, context, refs: References, indent: str, fallthrough: bool):
    """Two local functions and a `lax.cond` call replacing `node` .. `end_node`, built with libcst:
    the arms move into the functions with their comments; the header's comment goes on the call."""
    import libcst as cst  # libcst loads only when a fix is built
    from jaxlint.fixes import cst_edit
    if not other and outputs is None:
        raise _Refuse("the `if` has no `else`")
    cond = refs("jax.lax.cond")
    taken: set[str] = set()
    true_name = fresh_name(context, "true_branch", taken)
    false_name = fresh_name(context, "false_branch", taken)
    tree = _cst_tree(context, node)
    if_node = tree.statement(context, node)
    true_body = cst_edit.block_statements(if_node.body)
    true_footer = cst_edit.footer_comments(if_node.body)
    removed = []
    else_comment = None
    false_footer: list[str] = []
    if fallthrough:
        removed = [tree.statement(context, statement) for statement in other]
        false_body = list(removed)
    elif isinstance(if_node.orelse, cst.Else):
        false_body = cst_edit.block_statements(if_node.orelse.body)
        false_footer = cst_edit.footer_comments(if_node.orelse.body)
        else_comment = cst_edit.header_comment(if_node.orelse)
    elif isinstance(if_node.orelse, cst.If):
        false_body = [if_node.orelse]  # `elif`: a nested `if` in the false branch
    else:
        false_body = []
    if outputs is not None:
        returned = "return " + _tuple_text(outputs) + "\n"
        true_body = [*true_body, cst_edit.parse_statement(returned).with_changes(leading_lines=cst_edit.comment_lines(true_footer))]
        false_body = [*false_body, cst_edit.parse_statement(returned).with_changes(leading_lines=cst_edit.comment_lines(false_footer))]
    true_def = cst_edit.function_def(true_name, operands, true_body, leading=if_node.leading_lines)
    false_def = cst_edit.with_trailing_comment(cst_edit.function_def(false_name, operands, false_body), else_comment)
    call = f"{cond}({condition_text(node.test, context, refs)}, {true_name}, {false_name}{''.join(', ' + name for name in operands)})"
    call_statement = cst_edit.parse_statement((f"return {call}" if outputs is None else f"{_tuple_text(outputs, bare=True)} = {call}") + "\n")
    call_statement = cst_edit.with_trailing_comment(call_statement, cst_edit.header_comment(if_node))
    replacements = {if_node: [true_def, false_def, call_statement], **{statement: [] for statement in removed}}
    return context.fix(f"Use `{cond}` (both arms are traced)", [tree.edit(replacements), *refs.edits], safe=False)


def _tuple_text(names: list[str], bare: bool = False) -> str:
    if len(names) == 1:
        return names[0]
    return ", ".join(names)


# ----- while -> lax.while_loop --------------------------------------------------------------------


def _while_fix(node: ast.While, context, scope):
    from jaxlint.fixes import cst_edit  # libcst loads only when a fix is built
    if node.orelse:
        raise _Refuse("the loop has an `else` clause")
    for statement in node.body:
        for n in walk_same_function(statement):
            if isinstance(n, (ast.Break, ast.Continue, ast.Return, ast.Yield, ast.YieldFrom)):
                keyword = {ast.Break: "break", ast.Continue: "continue", ast.Return: "return"}.get(type(n), "yield")
                raise _Refuse(f"the loop body contains `{keyword}`")
    if scope.differentiated:
        raise _Refuse(f"`{scope.name}` is differentiated, and reverse-mode AD does not go through `lax.while_loop`")
    reason = impurity(node.body, context, scope)
    if reason:
        raise _Refuse(f"the loop body has side effects: {reason}")
    assigned = block_stores(node.body)
    if not assigned:
        raise _Refuse("the loop body assigns nothing, so the condition never changes")
    live = (loads(node.test) & assigned) | read_before_assigned(node.body, assigned) | live_after(node, assigned)
    carried = [name for name in _ordered_stores(node.body) if name in live]
    if not carried:
        raise _Refuse("no value assigned in the loop is used by the condition or afterwards")
    for name in carried:
        if not defined_before(name, node, context):
            raise _Refuse(f"loop-carried `{name}` has no value before the loop")
    changing = _shape_changing(node.body, set(carried), context)
    if changing:
        raise _Refuse(f"carried value `{changing}` changes shape each iteration")
    refs = References(context)
    while_loop = refs("jax.lax.while_loop")
    taken: set[str] = set()
    cond_name = fresh_name(context, "cond_fun", taken)
    body_name = fresh_name(context, "body_fun", taken)
    state = _tuple_text(carried)
    parameter = carried[0] if len(carried) == 1 else fresh_name(context, "carry", taken)
    unpack = [] if len(carried) == 1 else [cst_edit.parse_statement(f"{state} = {parameter}\n")]
    tree = _cst_tree(context, node)
    loop = tree.statement(context, node)
    condition = cst_edit.parse_statement(f"return {condition_text(node.test, context, refs)}\n")
    cond_def = cst_edit.function_def(cond_name, [parameter], [*unpack, condition], leading=loop.leading_lines)
    returned = cst_edit.parse_statement(f"return {state}\n").with_changes(leading_lines=cst_edit.comment_lines(cst_edit.footer_comments(loop.body)))
    body_def = cst_edit.function_def(body_name, [parameter], [*unpack, *cst_edit.block_statements(loop.body), returned])
    initial = state if len(carried) == 1 else f"({state})"
    call = cst_edit.parse_statement(f"{state} = {while_loop}({cond_name}, {body_name}, {initial})\n")
    call = cst_edit.with_trailing_comment(call, cst_edit.header_comment(loop))
    edit = tree.edit({loop: [cond_def, body_def, call]})
    return context.fix(f"Use `{while_loop}` over {', '.join(f'`{n}`' for n in carried)}", [edit, *refs.edits], safe=False)


def _shape_changing(statements: list[ast.stmt], carried: set[str], context) -> str | None:
    for statement in statements:
        for n in walk_same_function(statement):
            if isinstance(n, ast.Assign):
                targets = {t for target in n.targets for t in stores(target)} & carried
                value = n.value
            elif isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Name) and n.target.id in carried:
                targets, value = {n.target.id}, n.value
            else:
                continue
            if not targets:
                continue
            for inner in ast.walk(value):
                if isinstance(inner, ast.Call):
                    qualified = context.qualified_name(inner.func) or ""
                    attribute = qualified.rsplit(".", 1)[-1] if qualified else getattr(inner.func, "attr", "")
                    if attribute in _SHAPE_CHANGING and (qualified.startswith("jax.numpy.") or qualified.startswith("numpy.") or not qualified):
                        return sorted(targets)[0]
                if isinstance(inner, ast.Subscript) and isinstance(inner.value, ast.Name) and inner.value.id in targets:
                    if any(isinstance(s, ast.Slice) for s in ast.walk(inner.slice)):
                        return inner.value.id
    return None
