"""When JAX501's split fix is withheld: a key reused as a deliberate repeat.

Splitting makes the two uses draw different numbers. That is the point where the reuse is a
mistake, and a change of meaning where the code repeats the draw on purpose. The finding stays;
only the automatic split is withheld, when the structure of the code says the repeat is meant:

1. Reproduction shown: the second use repeats the first call exactly (the same callee and
   arguments, none rebound in between) and both results are only shown (`print(normal(key,
   (1,)))` twice, notebook cells displaying a value): the code demonstrates that the same key
   gives the same numbers. (An exact repeat whose results are bound and used, `w = normal(key,
   (3,))` then `b = normal(key, (3,))`, is treated as the mistake it usually is; one whose results
   are compared falls under 2.)
2. Paired comparison: the two results (or names bound from them) meet in one comparison: `-`, `<`,
   `==`, or a call named like a comparison (`allclose`, `assert_equal`, `same`...). Common random
   numbers make the difference measure only what else differs; a split adds noise to it.
3. Matched conditions: the same function (not a `jax.random` sampler) gets the key in the same
   argument slot, and every other argument that differs is a computed value (a name, attribute or
   expression), not a literal: `evaluate(policy_a, key)` and `evaluate(policy_b, key)` hold the
   noise fixed while the condition varies. Calls that differ in literals (`init_layer(key, 784,
   512)` and `init_layer(key, 512, 10)`, `normal(key, (3,))` and `normal(key, (4,))`) ask for
   independent draws of other sizes: those are split.
4. The key handed on through one derivation: the same derivation (`split`, `fold_in`, `clone`
   with the same arguments, none rebound in between) written twice, each handed (directly, or
   through an index, unpacking or a further derivation) to a call of the same function that is not
   in `jax.random`. Seen from that function, it gets the same key twice, and 1 and 3 apply to it as
   if it took the key itself: the same arguments (`build(split(key, n))` twice) build one object
   twice, as `net.init(key, x)` twice does, which the rule already reads as identical on purpose (a
   network and its target network, a model and its frozen copy: a split would make the copy differ
   from its original at the start); arguments that differ only in computed values are matched
   conditions. Derivations that differ (`split(key, 2)` and `split(key, 6)`), other functions, or
   arguments that differ in a literal (a width) ask for different objects: those are split.

A later reuse of a key whose earlier uses form such a pair gets its subkey itself (the split goes
before the later use), so the pair keeps drawing the same numbers.
"""

from __future__ import annotations

import ast
import re

from jaxlint.semantic.model import parent_of

_COMPARING_CALL = re.compile(r"assert|equal|close|same|compare|diff", re.IGNORECASE)


def deliberate_repeat(first: ast.Call, second: ast.Call, key: str, function: ast.AST, context) -> str | None:
    """Why the reuse of `key` by `first` then `second` looks deliberate, or None."""
    if ast.dump(first) == ast.dump(second) and not _rebound_between(first, second, function) and _only_shown(first) and _only_shown(second):
        return "the second call repeats the first exactly, and both are only shown"
    if _results_compared(first, second, function):
        return "the two results are compared"
    if _matched_conditions(first, second, key, context):
        return "the same function draws with the key while other arguments vary"
    return _handed_on_through_one_derivation(first, second, function, context)


def repeats_an_earlier_use(call: ast.Call, consumers: list[ast.Call], key: str, function: ast.AST, context) -> bool:
    """`call` is the second half of a deliberate repeat with an earlier consumer of `key` (the key
    not rebound in between): splitting before `call` would break that pair."""
    here = (call.lineno, call.col_offset)
    for earlier in consumers:
        if (earlier.lineno, earlier.col_offset) < here and not _key_rebound_between(key, earlier, call, function):
            if deliberate_repeat(earlier, call, key, function, context):
                return True
    return False


def _key_rebound_between(key: str, first: ast.Call, second: ast.Call, function: ast.AST) -> bool:
    low, high = (first.lineno, first.col_offset), (second.lineno, second.col_offset)
    return any(
        isinstance(n, ast.Name) and n.id == key and not isinstance(n.ctx, ast.Load) and low < (n.lineno, n.col_offset) < high
        for n in ast.walk(function)
    )


_SHOWING_CALLS = frozenset({"print", "display", "pprint", "info", "debug", "log", "write"})


def _only_shown(call: ast.Call) -> bool:
    """The result is shown, never bound or computed with: `print(normal(key, (1,)))`, a bare
    expression (a notebook cell's displayed value)."""
    parent = parent_of(call)
    if isinstance(parent, ast.Expr):
        return True
    return isinstance(parent, ast.Call) and call in parent.args and _callee(parent) in _SHOWING_CALLS


def _argument_names(call: ast.Call) -> set[str]:
    return {n.id for n in ast.walk(call) if isinstance(n, ast.Name)}


def _rebound_between(first: ast.Call, second: ast.Call, function: ast.AST) -> bool:
    names = _argument_names(second)
    low, high = (first.lineno, first.col_offset), (second.lineno, second.col_offset)
    if high < low:
        return True
    return any(
        isinstance(n, ast.Name) and n.id in names and not isinstance(n.ctx, ast.Load) and low < (n.lineno, n.col_offset) < high
        for n in ast.walk(function)
    )


def _result_names(call: ast.Call) -> set[str]:
    """The names bound from the call's result: `a = f(key)`, `a = f(key) * scale`, `a, b = ...`."""
    statement = parent_of(call)
    while statement is not None and not isinstance(statement, ast.stmt):
        if isinstance(statement, (ast.Lambda, ast.comprehension, ast.ListComp, ast.GeneratorExp, ast.DictComp, ast.SetComp)):
            return set()
        statement = parent_of(statement)
    targets = []
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
        targets = [statement.target]
    return {n.id for target in targets for n in ast.walk(target) if isinstance(n, ast.Name)}


def _results_compared(first: ast.Call, second: ast.Call, function: ast.AST) -> bool:
    """Some comparison reads the first's result and the second's (directly, or a name bound to it)."""
    first_reads, second_reads = _result_names(first), _result_names(second)
    after = (second.end_lineno, second.end_col_offset)

    def operands_meet(operands: list[ast.AST], inline: bool) -> bool:
        reads = {n.id for operand in operands for n in ast.walk(operand) if isinstance(n, ast.Name)}
        nodes = {id(n) for operand in operands for n in ast.walk(operand)}
        has_first = bool(reads & first_reads) or (inline and id(first) in nodes)
        has_second = bool(reads & second_reads) or (inline and id(second) in nodes)
        return has_first and has_second

    for node in ast.walk(function):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Sub):
            if operands_meet([node.left], True) and operands_meet([node.right], True):
                continue  # both on one side: not a difference between them
            if _side_pair(node.left, node.right, first, second, first_reads, second_reads):
                return True
        elif isinstance(node, ast.Compare) and len(node.comparators) == 1:
            if _side_pair(node.left, node.comparators[0], first, second, first_reads, second_reads):
                return True
        elif isinstance(node, ast.Call) and _COMPARING_CALL.search(_callee(node)) and (node.lineno, node.col_offset) >= (first.lineno, first.col_offset):
            if operands_meet([*node.args, *(k.value for k in node.keywords)], True) and node is not first and node is not second:
                return True
    return False


def _side_pair(left: ast.AST, right: ast.AST, first, second, first_reads: set[str], second_reads: set[str]) -> bool:
    """One side reads the first result and the other the second (`loss_b - loss_a`, `a == b`)."""

    def reads(side: ast.AST, call: ast.Call, names: set[str]) -> bool:
        return any(n is call or (isinstance(n, ast.Name) and n.id in names) for n in ast.walk(side))

    return (reads(left, first, first_reads) and reads(right, second, second_reads)) or (
        reads(left, second, second_reads) and reads(right, first, first_reads)
    )


def _callee(call: ast.Call) -> str:
    func = call.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


def _matched_conditions(first: ast.Call, second: ast.Call, key: str, context) -> bool:
    if ast.dump(first.func) != ast.dump(second.func):
        return False
    qualified = context.qualified_name(first.func) or ""
    if qualified.startswith("jax.random."):
        return False  # a sampler's other arguments are the draw itself (shape, bounds): split
    first_slot, second_slot = _key_slot(first, key), _key_slot(second, key)
    if first_slot is None or first_slot != second_slot:
        return False
    if len(first.args) != len(second.args) or sorted(k.arg or "" for k in first.keywords) != sorted(k.arg or "" for k in second.keywords):
        return False
    pairs = list(zip(first.args, second.args))
    second_keywords = {k.arg: k.value for k in second.keywords}
    pairs += [(k.value, second_keywords[k.arg]) for k in first.keywords]
    differing = [(a, b) for a, b in pairs if ast.dump(a) != ast.dump(b)]
    if not differing:
        return False
    return all(not _literal(a) and not _literal(b) for a, b in differing)


def _key_slot(call: ast.Call, key: str):
    for index, argument in enumerate(call.args):
        if isinstance(argument, ast.Name) and argument.id == key:
            return index
    for keyword in call.keywords:
        if isinstance(keyword.value, ast.Name) and keyword.value.id == key:
            return keyword.arg
        if isinstance(keyword.value, ast.Dict) and any(isinstance(v, ast.Name) and v.id == key for v in keyword.value.values):
            return keyword.arg  # `rngs={"dropout": key}`
    return None


# Calls that return keys derived from their key argument, drawing no numbers of their own.
_KEY_DERIVATIONS = frozenset({"jax.random.split", "jax.random.fold_in", "jax.random.clone"})


def _handed_on_through_one_derivation(first: ast.Call, second: ast.Call, function: ast.AST, context) -> str | None:
    """Case 4: identical derivations, each feeding a call of the same function (the builder)."""
    if ast.dump(first) != ast.dump(second) or _rebound_between(first, second, function):
        return None
    if context.qualified_name(first.func) not in _KEY_DERIVATIONS:
        return None
    first_builder, second_builder = _builder_of(first, context), _builder_of(second, context)
    if first_builder is None or second_builder is None or first_builder is second_builder:
        return None
    if ast.dump(first_builder.func) != ast.dump(second_builder.func) or _rebound_between(first_builder, second_builder, function):
        return None
    differing = _differing_arguments(first_builder, second_builder)
    if differing is None:
        return None
    if not differing:
        return "the same key derivation builds the same object twice (a copy)"
    if all(not _literal(a) and not _literal(b) for a, b in differing):
        return "the same function gets one derived key while other arguments vary"
    return None


def _differing_arguments(first: ast.Call, second: ast.Call) -> list[tuple[ast.AST, ast.AST]] | None:
    """The argument pairs in which two calls of one function differ; None where their shapes differ."""
    if len(first.args) != len(second.args) or sorted(k.arg or "" for k in first.keywords) != sorted(k.arg or "" for k in second.keywords):
        return None
    pairs = list(zip(first.args, second.args))
    second_keywords = {k.arg: k.value for k in second.keywords}
    pairs += [(k.value, second_keywords[k.arg]) for k in first.keywords]
    return [(a, b) for a, b in pairs if ast.dump(a) != ast.dump(b)]


def _builder_of(derivation: ast.Call, context) -> ast.Call | None:
    """The first call above `derivation` that is not a `jax.random` function and receives its keys
    as an argument, through indexing, unpacking or further derivations; None where the keys go
    anywhere else first (arithmetic, a binding, a container)."""
    node = derivation
    parent = parent_of(node)
    while parent is not None:
        if isinstance(parent, ast.Subscript) and parent.value is node:
            pass
        elif isinstance(parent, (ast.Starred, ast.keyword)):
            pass
        elif isinstance(parent, ast.Call) and node is not parent.func:
            if not (context.qualified_name(parent.func) or "").startswith("jax.random."):
                return parent
        else:
            return None
        node, parent = parent, parent_of(parent)
    return None


def _literal(node: ast.AST) -> bool:
    """A literal, or a tuple or list of literals (a shape): a size, not a condition."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_literal(e) for e in node.elts)
    if isinstance(node, ast.UnaryOp):
        return _literal(node.operand)
    return False
