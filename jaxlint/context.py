"""What a rule sees while the engine walks one module: the source, the semantic model, the settings.

It lives apart from the engine so that rules (which receive it) and the engine (which builds it)
never import each other.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Callable, Sequence, TypeVar

from jaxlint.diagnostics import Applicability, Diagnostic, Edit, Fix
from jaxlint.semantic.call_sites import every_compiled_call_expects, traced_only_by_uncalled_wrappers, traced_only_to_inspect
from jaxlint.semantic.dead_code import never_runs
from jaxlint.semantic.flow import caught_locally
from jaxlint.semantic.model import Scope, SemanticModel
from jaxlint.semantic.test_code import in_test_code
from jaxlint.source import SourceFile

if TYPE_CHECKING:
    from jaxlint.rules.base import Rule

T = TypeVar("T")


class Context:
    """What a rule sees while the engine walks one module."""

    def __init__(self, source: SourceFile, model: SemanticModel, settings) -> None:
        self.source = source
        self.model = model
        self.settings = settings
        self.diagnostics: list[Diagnostic] = []
        self.rule: Rule | None = None
        self._memo: dict[object, object] = {}
        # The two questions rules ask for nearly every node, bound straight to the model: a call
        # through a forwarding method of this class would cost a frame of its own each time.
        self.scope: Callable[[ast.AST], Scope] = model.scope_for
        self.qualified_name: Callable[[ast.AST], str | None] = model.qualified_name

    def memo(self, key: object, compute: Callable[..., T], *arguments: object) -> T:
        """`compute(*arguments)` once per module for `key`: what a rule would otherwise recompute per node.

        Keys are the rule's own (a tuple starting with its code keeps rules apart). Rules called for
        every name or attribute pass a constant key and a module-level function, so a hit costs one
        dictionary lookup."""
        memo = self._memo
        if key in memo:
            return memo[key]  # type: ignore[return-value]
        value = memo[key] = compute(*arguments)
        return value

    def release(self) -> None:
        """Drop what the rules memoised (it may point back here); the module is done."""
        self._memo.clear()

    # Other questions rules ask, forwarded to the semantic model.
    def level(self, node: ast.AST, scope: Scope | None = None) -> int:
        return self.model.level(node, scope or self.scope(node))

    def is_traced_code(self, node: ast.AST) -> bool:
        scope = self.scope(node)
        return (
            scope.in_traced and not self.model.in_static_region(node) and not self.model.dead_when_traced(node, scope)
            # `f_jit = jax.jit(f)` that nothing calls: no abstract value ever reaches `f` through it.
            and not self.memo(("uncalled-wrappers", id(scope)), traced_only_by_uncalled_wrappers, scope, self.model)
        )

    def in_test_code(self, node: ast.AST) -> bool:
        """In a test module, a `test*` function or a `Test*` class: see semantic/test_code.py."""
        return in_test_code(node, self.source.filename, self.model)

    def _expected(self, node: ast.AST, bases: tuple[str, ...]) -> bool:
        """A `try` around `node` catches the error, or one around every compiled call of its function."""
        if caught_locally(node, bases, self.model):
            return True
        scope = self.scope(node)
        return self.memo(("expected-at-calls", id(scope), bases), every_compiled_call_expects, scope, self.model, bases)

    def text(self, node: ast.AST) -> str:
        return self.source.segment(node)

    def replace(self, node: ast.AST, content: str) -> Edit:
        return Edit(content, self.source.start(node), self.source.end(node))

    def insert_before(self, node: ast.AST, content: str) -> Edit:
        start = self.source.start(node)
        return Edit(content, start, start)

    def fix(self, message: str, edits: Sequence[Edit], safe: bool) -> Fix:
        return Fix(Applicability.SAFE if safe else Applicability.UNSAFE, message, tuple(edits))

    def reported_at(self, node: ast.AST) -> bool:
        """Whether the running rule already has a finding starting where `node` does (a loop and the
        comprehension or the helper it calls can reach the same statement)."""
        start = self.source.start(node)
        return any(d.code == self.rule.code and d.location == start for d in self.diagnostics)

    def report(self, node: ast.AST, message: str, fix: Fix | None = None, end_node: ast.AST | None = None) -> None:
        rule = self.rule
        assert rule is not None
        if rule.raised_when_traced and self._expected(node, rule.raised_when_traced):
            return  # probing on purpose, or demonstrating the error
        if rule.needs_a_run and traced_only_to_inspect(self.scope(node)):
            return  # `jax.make_jaxpr(f)`: traced to be looked at, never run
        if rule.skips_test_code and in_test_code(node, self.source.filename, self.model):
            return  # a cost or a quality of values that a test does not pay or use (semantic/test_code.py)
        if never_runs(node, self.model):
            return  # `if DEBUG:` with `DEBUG = False`: a branch the source fixes off (semantic/dead_code.py)
        self.diagnostics.append(
            Diagnostic(
                code=rule.code,
                name=rule.name,
                message=message,
                filename=self.source.filename,
                location=self.source.start(node),
                end_location=self.source.end(end_node or node),
                fix=fix,
                url=rule.url,
            )
        )
