"""What every rule is: metadata, the node types it wants, and a check that reports findings."""

from __future__ import annotations

import ast
import sys
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from jaxlint.context import Context

DOC_HEADINGS = (
    "What it does",
    "Why is this bad?",
    "Example",
    "Use instead",
    "Fix safety",
    "How the runtime mode confirms it",
)


def snippet(text: str, limit: int = 40) -> str:
    """Source text for a message: whitespace collapsed, long text cut with an ellipsis."""
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 3] + "..."


class Rule:
    """Subclass per rule module; the module docstring is the rule's documentation."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    node_types: ClassVar[tuple[type[ast.AST], ...]] = ()
    fix_availability: ClassVar[str] = "none"  # "none", "sometimes" or "always"
    preview: ClassVar[bool] = False
    # A cheap pre-filter the engine applies per module: when set, the rule runs only on a module
    # whose source text contains one of these strings, or (with `fires_through_project_imports`)
    # that imports from its own project, since what a summary of another file brings in (a jitted
    # function's options) is not in this file's text. Set it only where the rule provably cannot
    # fire otherwise: a finding the filter hides is a missed finding.
    required_text: ClassVar[tuple[str, ...]] = ()
    fires_through_project_imports: ClassVar[bool] = False
    # Text under which the rule may fire in a module that names no JAX at all, on compiled code the
    # modules importing it hand its functions (semantic/passed_compiled.py): `def time_it(fn, *args)`
    # with a clock read, called elsewhere as `time_it(jax.lax.scan, ...)`. Empty: such a module is skipped.
    fires_on_handed_callables: ClassVar[tuple[str, ...]] = ()
    # The builtin bases of the error JAX raises where the finding is right ("TypeError" for a tracer
    # converted to bool, int or NumPy). A finding inside a `try` that catches it is not reported:
    # that code probes on purpose and has a fallback. Nor is one in a function whose every compiled
    # call sits in such a `try`: a demonstration of the error (semantic/call_sites.py).
    raised_when_traced: ClassVar[tuple[str, ...]] = ()
    # The finding is about what the compiled program does when it runs (a print that shows tracers
    # instead of values): not reported in a function traced only by `jax.make_jaxpr` or
    # `jax.eval_shape`, which is traced to be looked at and never runs.
    needs_a_run: ClassVar[bool] = False
    # The finding is a cost or the quality of computed values, which a test run once on dummy inputs
    # does not pay or use: `Context.report` drops it in test code (the one policy, in
    # semantic/test_code.py). Rules whose finding means the code fails keep checking tests.
    skips_test_code: ClassVar[bool] = False
    # The rule reports only inside traced code: its check returns at once, changing nothing, for a node
    # where `context.is_traced_code(node)` is false. The engine then calls it only for nodes in traced
    # scopes, and not at all in a module with no traced code (two modules in three). Set it only where
    # that holds for every node type the rule handles.
    traced_code_only: ClassVar[bool] = False
    # How a selection turns the rule on: "default" (on unless ignored, like every node rule),
    # "unless-ignored" (JAX000: even `--select JAX1` keeps it, since a file not checked is no pass), or
    # "when-named" (JAX001: only a selector naming it, or `--report-unused-noqa`). The two engine
    # rules have no node types: the engine reports them itself.
    selection: ClassVar[str] = "default"

    def check(self, node: ast.AST, context: "Context") -> None:
        raise NotImplementedError

    @property
    def documentation(self) -> str:
        module = sys.modules[type(self).__module__]
        return (module.__doc__ or "").strip()

    @property
    def url(self) -> str | None:
        """This rule's section of docs/rules.md in the checkout jaxlint runs from; None without it."""
        from jaxlint.rules.documentation import rule_url

        return rule_url(self.code, self.name)

    def __repr__(self) -> str:
        return f"<rule {self.code} {self.name}>"
