"""Structural rewrites built with libcst, turned into one text edit.

Analysis runs on `ast` (fast); a fix that restructures statements (if -> `jnp.where`/`lax.cond`,
`while`/break loops -> `lax.while_loop`) builds its new statements as libcst nodes from the libcst
tree of the code it rewrites, so the moved statements keep their comments, blank lines, quotes and
multi-line strings, and libcst indents them for their new nesting. libcst parses only the top-level
statement (function or class) that holds a rewritten statement, once, when such a fix is built:
never the rest of the file, never on the check fast path of a file without one.

The result is an ordinary `Edit`: the new module text is compared with the old one and the edit
covers just the span that differs, so it composes with other fixes like any text edit.
"""

from __future__ import annotations

import ast
from typing import Sequence

import libcst as cst
from libcst._nodes.internal import CodegenState
from libcst.metadata import MetadataWrapper, PositionProvider

from jaxlint.diagnostics import Edit, Position
from jaxlint.fixes.hoist import first_row as hoist_first_row
from jaxlint.semantic.model import parent_of
from jaxlint.source import SourceFile


class Unavailable(Exception):
    """libcst cannot parse this module, or the statement cannot be replaced on its own (an `elif`
    branch): the caller offers no fix; the message says why."""


class ModuleTree:
    """The libcst tree of one top-level statement of the module (a function or class with its
    decorators) and where each statement in it starts: libcst parses only what a fix rewrites."""

    def __init__(self, source: SourceFile, top: ast.stmt) -> None:
        self.source = source
        # From the comment lines right above it: they are its leading lines, and a definition
        # inserted before it goes above them.
        self.first_row = hoist_first_row(top, source)
        last_row = top.end_lineno or top.lineno
        lines = source.lines[self.first_row - 1 : last_row]
        self.text = "\n".join(lines) + "\n"
        try:
            wrapper = MetadataWrapper(_header_to_statement(cst.parse_module(self.text)), unsafe_skip_copy=True)
            positions = wrapper.resolve(PositionProvider)
        except Exception as error:  # libcst rejects some inputs the interpreter takes
            raise Unavailable(f"libcst cannot parse it ({type(error).__name__})") from error
        self.module = wrapper.module
        self._lines = lines
        self._positions = positions
        self._parents: dict[int, cst.CSTNode | None] | None = None
        self._statements: dict[tuple[int, int], cst.CSTNode] = {}
        self._elif_branches: set[int] = set()
        for node, span in positions.items():
            if isinstance(node, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
                self._statements.setdefault((span.start.line + self.first_row - 1, span.start.column), node)
            if isinstance(node, cst.If) and isinstance(node.orelse, cst.If):
                self._elif_branches.add(id(node.orelse))

    def statement(self, context, node: ast.stmt) -> cst.CSTNode:
        """The libcst statement for an `ast` statement (a simple statement: its whole line)."""
        column = context.source.char_column(node.lineno, node.col_offset)
        found = self._statements.get((node.lineno, column))
        if found is None:
            raise Unavailable("libcst does not see the statement where `ast` does")
        if id(found) in self._elif_branches:
            raise Unavailable("it is an `elif` branch; rewrite the `if` it belongs to")
        if isinstance(found, cst.SimpleStatementLine) and len(found.body) != 1:
            raise Unavailable("several statements share the line")
        return found

    def edit(self, replacements: dict[cst.CSTNode, Sequence[cst.CSTNode]]) -> Edit:
        """One edit turning the module into the module with each statement replaced by the
        statements given for it (an empty sequence removes it)."""
        local = self._local_edit(replacements)
        if local is not None:
            return local
        new_text = self.module.visit(_Replace(replacements)).code
        edit = minimal_edit(SourceFile("<top>", self.text), new_text)
        shift = self.first_row - 1
        return Edit(edit.content, _shifted(edit.location, shift), _shifted(edit.end_location, shift))


    def _local_edit(self, replacements: dict[cst.CSTNode, Sequence[cst.CSTNode]]) -> Edit | None:
        """The edit built from the innermost statement holding every replaced one (a method of a
        class, a branch of a function), generated at its own indentation: its cost follows that
        statement's size, not the top-level statement's. Regenerating a 1,000-method class for each
        of its 1,000 findings made a check quadratic. None where that statement is the top-level one,
        or where its generated text is not the source's lines (the caller then rebuilds the whole)."""
        root = self._enclosing_statement(replacements)
        if root is None:
            return None
        span = self._positions[root]
        line = self._lines[span.start.line - 1]
        indent = line[: len(line) - len(line.lstrip())]
        old_code = self._code([root], indent)
        rewritten = root.visit(_Replace(replacements))
        if isinstance(rewritten, cst.RemovalSentinel):
            new_code = ""
        elif isinstance(rewritten, cst.FlattenSentinel):
            new_code = self._code(list(rewritten.nodes), indent)
        else:
            new_code = self._code([rewritten], indent)
        start_line = span.end.line - old_code.count("\n") + 1
        if start_line < 1 or "\n".join(self._lines[start_line - 1 : span.end.line]) + "\n" != old_code:
            return None
        edit = minimal_edit(SourceFile("<statement>", old_code), new_code)
        shift = self.first_row - 1 + start_line - 1
        return Edit(edit.content, _shifted(edit.location, shift), _shifted(edit.end_location, shift))

    def _enclosing_statement(self, replacements) -> cst.CSTNode | None:
        """The innermost statement below the top level that holds every replaced statement
        (itself, when only one is replaced); None when only the top-level statement holds them all."""
        keys = list(replacements)
        if not keys:
            return None
        parents = self._statement_parents()
        chains = []
        for key in keys:
            if id(key) not in parents:
                return None  # not a statement of this tree
            chain = [key]
            while parents[id(chain[-1])] is not None:
                chain.append(parents[id(chain[-1])])
            chains.append(chain[::-1])  # top-level statement first
        common = 0
        while all(len(chain) > common for chain in chains) and len({id(chain[common]) for chain in chains}) == 1:
            common += 1
        if len(keys) > 1:
            # The deepest shared ancestor that is not itself replaced.
            common = min(common, *(len(chain) - 1 for chain in chains))
        if common <= 1:
            return None  # the top-level statement (depth 1) or the module: the whole tree is generated
        return chains[0][common - 1]

    def _statement_parents(self) -> dict[int, cst.CSTNode | None]:
        """id(statement) -> the statement that holds it (None at the top), built once per tree
        (`children` of a libcst node visits its children: asking it per edit made edits quadratic)."""
        if self._parents is None:
            parents: dict[int, cst.CSTNode | None] = {}
            pending: list[tuple[cst.CSTNode, cst.CSTNode | None]] = [(child, None) for child in _statement_children(self.module)]
            while pending:
                statement, parent = pending.pop()
                parents[id(statement)] = parent
                pending.extend((child, statement) for child in _statement_children(statement))
            self._parents = parents
        return self._parents

    def _code(self, nodes: Sequence[cst.CSTNode], indent: str) -> str:
        state = CodegenState(default_indent=self.module.default_indent, default_newline=self.module.default_newline)
        state.indent_tokens = [indent] if indent else []
        for node in nodes:
            node._codegen(state)
        return "".join(state.tokens)


def _statement_children(node: cst.CSTNode):
    """The statements directly inside `node`, through its blocks (bodies, `else`, handlers)."""
    for child in node.children:
        if isinstance(child, (cst.SimpleStatementLine, cst.BaseCompoundStatement)):
            yield child
        elif isinstance(child, (cst.BaseSuite, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler, cst.Finally, cst.MatchCase)):
            yield from _statement_children(child)


def _header_to_statement(module: cst.Module) -> cst.Module:
    """libcst files the comments that open a module under `Module.header`; here they are the
    statement's own leading lines (they describe it), so they move with it."""
    if not module.header or not module.body:
        return module
    first = module.body[0]
    moved = first.with_changes(leading_lines=[*module.header, *first.leading_lines])
    return module.with_changes(header=[], body=[moved, *module.body[1:]])


def _shifted(position: Position, rows: int) -> Position:
    return Position(position.row + rows, position.column)


def module_tree(context, node: ast.AST) -> ModuleTree:
    """The libcst tree of the top-level statement holding `node`, built once per statement."""
    current = node
    while current is not None and not isinstance(parent_of(current), ast.Module):
        current = parent_of(current)
    if current is None:
        raise Unavailable("the statement is not inside the module")
    model = context.model
    cache = getattr(model, "_jaxlint_cst_trees", None)
    if cache is None:
        cache = model._jaxlint_cst_trees = {}
    cached = cache.get(id(current))
    if cached is None:
        try:
            cached = ModuleTree(context.source, current)
        except Unavailable as error:
            cached = error
        cache[id(current)] = cached
    if isinstance(cached, Unavailable):
        raise cached
    return cached


class _Replace(cst.CSTTransformer):
    def __init__(self, replacements: dict[cst.CSTNode, Sequence[cst.CSTNode]]) -> None:
        self.replacements = {id(old): new for old, new in replacements.items()}

    def on_leave(self, original_node, updated_node):
        new = self.replacements.get(id(original_node))
        if new is None:
            return updated_node
        if not new:
            return cst.RemovalSentinel.REMOVE
        # The original node itself among its replacements stands for it as rewritten inside
        # (a definition inserted before a function whose loop is rewritten).
        return cst.FlattenSentinel([updated_node if node is original_node else node for node in new])


def minimal_edit(source: SourceFile, new: str) -> Edit:
    """The edit that turns the source into `new`, spanning only what differs (from the start of
    the first differing line, so the edit reads as replaced lines)."""
    old = source.text
    limit = min(len(old), len(new))
    prefix = 0
    while prefix < limit and old[prefix] == new[prefix]:
        prefix += 1
    prefix = old.rfind("\n", 0, prefix) + 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new[len(new) - 1 - suffix]:
        suffix += 1
    return Edit(new[prefix : len(new) - suffix], source.position(prefix), source.position(len(old) - suffix))


# ----- building statements -------------------------------------------------------------------------


def parse_statement(code: str) -> cst.BaseStatement:
    return cst.parse_statement(code)


def comment_lines(comments: Sequence[str]) -> list[cst.EmptyLine]:
    return [cst.EmptyLine(comment=cst.Comment(text)) for text in comments]


def with_trailing_comment(statement: cst.BaseStatement, comment: str | None) -> cst.BaseStatement:
    """Put `comment` at the end of a simple statement's line (or its header, for a compound one)."""
    if not comment:
        return statement
    whitespace = cst.TrailingWhitespace(whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(comment))
    if isinstance(statement, cst.SimpleStatementLine):
        existing = statement.trailing_whitespace.comment
        if existing is not None:
            comment = f"{existing.value}  {comment}"
            whitespace = whitespace.with_changes(comment=cst.Comment(comment))
        return statement.with_changes(trailing_whitespace=whitespace)
    body = getattr(statement, "body", None)
    if isinstance(body, cst.IndentedBlock):
        return statement.with_changes(body=body.with_changes(header=whitespace))
    return statement


def trailing_comment(statement: cst.CSTNode) -> str | None:
    if isinstance(statement, cst.SimpleStatementLine):
        comment = statement.trailing_whitespace.comment
        return comment.value if comment else None
    return header_comment(statement)


def header_comment(statement: cst.CSTNode) -> str | None:
    """The comment on a compound statement's header line (`if x:  # why`)."""
    body = getattr(statement, "body", None)
    if isinstance(body, cst.IndentedBlock) and body.header.comment is not None:
        return body.header.comment.value
    return None


def leading_comments(statement: cst.CSTNode) -> list[str]:
    return [line.comment.value for line in getattr(statement, "leading_lines", ()) if line.comment is not None]


def function_def(name: str, parameters: Sequence[str], body: Sequence[cst.BaseStatement], leading: Sequence[cst.EmptyLine] = ()) -> cst.FunctionDef:
    """`def name(parameters):` around libcst statements, indented by the module's own unit."""
    shell = cst.parse_statement(f"def {name}({', '.join(parameters)}):\n    pass\n")
    assert isinstance(shell, cst.FunctionDef)
    return shell.with_changes(body=cst.IndentedBlock(body=list(body)), leading_lines=list(leading))


def block_statements(block: cst.BaseSuite) -> list[cst.BaseStatement]:
    """The statements of an indented block; a one-line suite (`if c: x = 1`) becomes lines."""
    if isinstance(block, cst.IndentedBlock):
        return list(block.body)
    return [cst.SimpleStatementLine(body=[small]) for small in block.body]


def footer_comments(block: cst.BaseSuite) -> list[str]:
    """Own-line comments at the end of a block, after its last statement."""
    return [line.comment.value for line in getattr(block, "footer", ()) if line.comment is not None]


def comments_in(node: cst.CSTNode) -> list[str]:
    """Every comment inside a node, in source order."""
    found: list[str] = []

    class _Comments(cst.CSTVisitor):
        def visit_Comment(self, comment: cst.Comment) -> None:
            found.append(comment.value)

    node.visit(_Comments())
    return found
