"""Jitted callables as the model records them: where `jax.jit`/`pmap`/`eqx.filter_jit`/`nnx.jit` was
applied (`JitBinding`: the transform, its static, donated and broadcast positions with the
`self`/`cls` offset, options chosen by a condition), and the other transforms a function goes through
(`TransformUse`: grad's argnums, custom_vjp/jvp rules, static options). The model finds them
(model.SemanticModel._find_jit_bindings); rules ask them which argument is static or donated.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jaxlint.semantic.model import Scope

# Options that make a compiled callable treat some arguments apart (held static, or donated): two
# bindings of one name compile alike, copying the same arguments, only where neither sets one.
PLACEMENT_OPTIONS = frozenset({"static_argnums", "static_argnames", "static_broadcasted_argnums", "donate_argnums", "donate_argnames", "donate"})


@dataclass
class JitBinding:
    """A name (or `self.attr`) bound to a compiled callable: `@jax.jit def f`, `g = jax.jit(f)`."""

    key: str
    transform: str
    node: ast.AST  # the decorator or the `jax.jit(...)` call
    options: dict[str, ast.expr]
    function: Scope | None
    bound_positional: int = 0
    via_decorator: bool = False
    owner: "Scope | None" = None  # the scope whose name it binds (None: not known)
    # For a callable of another module (project index): its parameters, since there is no Scope.
    external_params: list[str] | None = None
    external_has_self: bool = False
    # `step = make_step(opt)`: bound to what a factory of the module returns (the options sit in the factory).
    built_by_factory: bool = False
    # `update_fn = partial(update, loss_fn=f)`: the compiled callable the partial fixes keywords of.
    partial_of: str | None = None
    # For a callable of another module: the parameters it only casts to a dtype (semantic/conversions.py).
    converted_params: tuple[str, ...] = ()

    def literal_option(self, *names: str) -> tuple | None:
        """The literal value of an int/str tuple option; () when absent; None when not a literal."""
        for name in names:
            if name in self.options:
                return literal_tuple(self.options[name])
        return ()

    @property
    def param_names(self) -> list[str] | None:
        if self.function is None:
            return self.external_params
        return self.function.params[self.bound_positional:]

    @property
    def argnum_offset(self) -> int:
        """`@jax.jit` on a method counts `self` as argument 0; calls through `self.f(...)` do not pass it."""
        has_self = self.function.has_self if self.function is not None else self.external_has_self
        return 1 if self.via_decorator and has_self else 0

    def argnum(self, position: int) -> int:
        """The `*_argnums` index of the call's positional argument `position`."""
        return position + self.argnum_offset

    def argument_index(self, name: str) -> int | None:
        params = self.param_names
        if params is None or name not in params:
            return None
        return params.index(name)

    def is_static(self, position: int | None, keyword: str | None) -> bool | None:
        """Whether an argument is static; None when the options cannot be read. An option chosen by a
        condition between literals (`static_argnums=(1,) if flag else (1, 2)`) answers when every
        choice agrees."""
        answers = {
            self._is_static_under(numbers, names, position, keyword)
            for numbers in self._option_choices("static_argnums", "static_broadcasted_argnums")
            for names in self._option_choices("static_argnames")
        }
        return answers.pop() if len(answers) == 1 else None

    def _option_choices(self, *names: str) -> list[tuple | None]:
        """The literal values an option may take: one, or one per branch of `a if c else b`."""
        node = next((self.options[name] for name in names if name in self.options), None)
        if isinstance(node, ast.IfExp):
            return [literal_tuple(node.body), literal_tuple(node.orelse)]
        return [literal_tuple(node) if node is not None else ()]

    def _is_static_under(self, numbers: tuple | None, names: tuple | None, position: int | None, keyword: str | None) -> bool | None:
        if numbers is None or names is None:
            return None
        params = self.param_names
        if keyword is not None:
            if keyword in names:
                return True
            if params is not None and keyword in params:
                position = params.index(keyword)
            else:
                return False
        if position is None:
            return False
        count = len(params) + self.argnum_offset if params is not None else None
        argnum = self.argnum(position)
        for number in numbers:
            if not isinstance(number, int):
                continue
            if number == argnum or (number < 0 and count is not None and count + number == argnum):
                return True
        if params is not None and position < len(params) and params[position] in names:
            return True
        return False

    def is_donated(self, position: int | None, keyword: str | None) -> bool | None:
        if self.transform == "equinox.filter_jit":
            return self._filter_jit_donates(position)
        numbers = self.literal_option("donate_argnums")
        names = self.literal_option("donate_argnames")
        if numbers is None or names is None:
            return None
        params = self.param_names
        if keyword is not None:
            if keyword in names:
                return True
            if params is None or keyword not in params:
                return None if numbers else False
            position = params.index(keyword)
        if position is not None and self.argnum(position) in numbers:
            return True
        if params is not None and position is not None and position < len(params) and params[position] in names:
            return True
        if names and params is None:
            return None
        return False

    def _filter_jit_donates(self, position: int | None) -> bool | None:
        """`eqx.filter_jit(f, donate=...)` donates by groups, not positions: "all" and "warn" every
        argument's arrays, "all-except-first" and "warn-except-first" all but the first's; the
        default "none" none. None when the option is not a literal string."""
        option = self.options.get("donate")
        if option is None:
            return False
        if not (isinstance(option, ast.Constant) and isinstance(option.value, str)):
            return None
        if option.value in ("all", "warn"):
            return True
        if option.value in ("all-except-first", "warn-except-first"):
            return position != 0 if position is not None else None
        return False


def literal_tuple(node: ast.expr) -> tuple | None:
    """`(0, 2)`, `[0]`, `1`, `"x"`, `("a", "b")`, `None`, `range(2, 5)` as a tuple; None when not a literal."""
    if isinstance(node, ast.Constant):
        if node.value is None:
            return ()
        if isinstance(node.value, (int, str)) and not isinstance(node.value, bool):
            return (node.value,)
        return None
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        values = []
        for element in node.elts:
            if isinstance(element, ast.Constant) and isinstance(element.value, (int, str)) and not isinstance(element.value, bool):
                values.append(element.value)
            elif isinstance(element, ast.UnaryOp) and isinstance(element.op, ast.USub) and isinstance(element.operand, ast.Constant) and isinstance(element.operand.value, int):
                values.append(-element.operand.value)
            else:
                return None
        return tuple(values)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) and isinstance(node.operand.value, int):
        return (-node.operand.value,)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords and len(node.args) == 1 and node.func.id in ("tuple", "list"):
        return literal_tuple(node.args[0])  # `tuple(range(2, 5))`
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "range" and not node.keywords and 1 <= len(node.args) <= 3:
        # `nondiff_argnums=range(5, 11)`: JAX takes any iterable of ints.
        bounds = [literal_tuple(argument) for argument in node.args]
        if all(bound is not None and len(bound) == 1 and isinstance(bound[0], int) for bound in bounds):
            try:
                return tuple(range(*(bound[0] for bound in bounds)))
            except ValueError:  # a zero step
                return None
    return None


def _int_tuple(numbers) -> ast.Tuple:
    """A literal `(0, 1)` for options built here rather than read from the source."""
    return ast.Tuple(elts=[ast.Constant(value=n) for n in numbers], ctx=ast.Load())


@dataclass
class TransformUse:
    """A transform applied to a function: `@jax.jit`, `jax.vmap(f, in_axes=...)`, `lax.scan(body, ...)`."""

    qualified: str
    options: dict[str, ast.expr]
    positional_options: list[ast.expr] = field(default_factory=list)
    # How many positional arguments JAX itself passes (lax bodies); parameters past it keep defaults.
    arity: int | None = None
    # A decorator on a method: `static_argnums` counts `self` as argument 0.
    counts_self: bool = False


def _custom_rule_use(attribute: str, index: int, nondiff: tuple[int, ...] | None) -> "TransformUse":
    """How JAX calls argument `index` of `f.defvjp(...)`/`f.defjvp(...)`/`f.def_fwd`/`f.def_bwd`."""
    if nondiff is None or attribute == "defjvps":
        return TransformUse("jax.custom_vjp", {})
    if (attribute == "defvjp" and index == 0) or attribute == "def_fwd":
        return TransformUse("jax.custom_vjp", {"nondiff_argnums": _int_tuple(nondiff)})
    # bwd(nondiff..., residuals, cotangents) and jvp(nondiff..., primals, tangents). A bwd's residuals
    # are whatever fwd chose to keep, shapes and Python numbers included: not known to be traced.
    static = range(len(nondiff) + 1) if attribute in ("defvjp", "def_bwd") else range(len(nondiff))
    return TransformUse("jax.custom_vjp", {"static_argnums": _int_tuple(static)}, arity=len(nondiff) + 2)


def _grad_argnums(use: TransformUse) -> tuple | None:
    """The positions a `grad`-like transform differentiates (`argnums`, by keyword or as its first
    positional option; 0 when absent), or None when they are not a literal."""
    argnums = use.options.get("argnums") or (use.positional_options[0] if use.positional_options else None)
    return (0,) if argnums is None else literal_tuple(argnums)


def _static_options(use: TransformUse) -> tuple[tuple, tuple] | None:
    """The positions and names a transform's options declare static (`static_argnums`,
    `static_broadcasted_argnums`, `nondiff_argnums`; `static_argnames`, `nondiff_argnames`), or None
    when one of them is not a literal."""
    numbers: tuple = ()
    names: tuple = ()
    for key in ("static_argnums", "static_broadcasted_argnums", "nondiff_argnums"):
        if key in use.options:
            numbers = literal_tuple(use.options[key])
            if numbers is None:
                return None
    for key in ("static_argnames", "nondiff_argnames"):
        if key in use.options:
            found = literal_tuple(use.options[key])
            if found is None:
                return None
            names = (*names, *found)
    return numbers, names
