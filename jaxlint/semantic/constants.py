"""Constant propagation: the value an expression has whenever it runs, when the source fixes it.

Used where a rule needs a number the code spells indirectly: trip counts (`range(N)` with a module
constant, `range(cfg.num_steps)` with a dataclass default, `range(args.epochs)` with an argparse
default). Evaluation is conservative: a name counts only when it is bound exactly once in the scope
that owns it (or is a module constant of another project module), a configuration object only when
it is built from a known class or parser in that scope (or returned by a plain function of the module
that builds it so, every `return` agreeing: `args = parse_args()`), and anything else is UNKNOWN.

A configuration object's attribute is its default unless the same scope assigns it once
(`args.batch_size = int(args.num_envs * args.num_steps)`), in which case that value is evaluated.
A value a user passes on the command line can differ: the defaults are what the program runs with
unless told otherwise, which is what a trip count in a lint message should say.
"""

from __future__ import annotations

import ast
import operator
from jaxlint.semantic.bindings import bound_values, owning_scope
from jaxlint.semantic.syntax import terminal_name, walk  # ast.walk minus ctx markers, faster

UNKNOWN = object()

_BINARY = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod, ast.Pow: operator.pow, ast.Div: operator.truediv,
}
# Builds a configuration object from its class's field defaults: `tyro.cli(Args)`, `Args()`.
_CONFIG_FACTORIES = frozenset({"tyro.cli", "simple_parsing.parse", "draccus.parse"})
_MAX_POWER = 64


def literal_value(node: ast.AST, known: dict | None = None, lookup=None, depth: int = 0):
    """The value of an expression of literals, arithmetic and names in `known` (or `lookup(name)`)."""
    if depth > 20:
        return UNKNOWN
    if isinstance(node, ast.Constant):
        if isinstance(node.value, (int, float, str, bool)) or node.value is None:
            return node.value
        return UNKNOWN
    if isinstance(node, ast.Name):
        if known is not None and node.id in known:
            return known[node.id]
        return lookup(node) if lookup is not None else UNKNOWN
    if isinstance(node, (ast.Attribute, ast.Subscript)) and lookup is not None:
        return lookup(node)  # `config.width`, `CONFIG["width"]`: the lookup decides
    if isinstance(node, ast.UnaryOp):
        operand = literal_value(node.operand, known, lookup, depth + 1)
        if operand is UNKNOWN:
            return UNKNOWN
        if isinstance(node.op, ast.USub) and isinstance(operand, (int, float)):
            return -operand
        if isinstance(node.op, ast.UAdd) and isinstance(operand, (int, float)):
            return operand
        if isinstance(node.op, ast.Not):
            return not operand
        return UNKNOWN
    if isinstance(node, ast.BinOp):
        function = _BINARY.get(node.op.__class__)
        if function is None:
            return UNKNOWN
        left = literal_value(node.left, known, lookup, depth + 1)
        right = literal_value(node.right, known, lookup, depth + 1)
        if not _numbers(left, right):
            return UNKNOWN
        if isinstance(node.op, ast.Pow) and abs(right) > _MAX_POWER:
            return UNKNOWN
        try:
            return function(left, right)
        except (ArithmeticError, ValueError):
            return UNKNOWN
    if isinstance(node, ast.Tuple):
        values: list = []
        for element in node.elts:
            if isinstance(element, ast.Starred):  # `(1, *SHAPE)`: the items of a known tuple
                inner = literal_value(element.value, known, lookup, depth + 1)
                if not isinstance(inner, tuple):
                    return UNKNOWN
                values.extend(inner)
                continue
            value = literal_value(element, known, lookup, depth + 1)
            if value is UNKNOWN:
                return UNKNOWN
            values.append(value)
        return tuple(values)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords and len(node.args) == 1:
        if node.func.id in ("int", "float", "round", "abs") and (known is None or node.func.id not in known):
            value = literal_value(node.args[0], known, lookup, depth + 1)
            if isinstance(value, str) and node.func.id in ("int", "float"):
                value = _number_text(value, node.func.id)  # `int(os.environ.get("STEPS", "100"))`
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return {"int": int, "float": float, "round": round, "abs": abs}[node.func.id](value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and lookup is not None:
        return lookup(node)  # `os.environ.get("STEPS", 100)`: the lookup decides
    return UNKNOWN


def _number_text(text: str, kind: str):
    try:
        return int(text) if kind == "int" else float(text)
    except ValueError:
        return UNKNOWN


def _numbers(*values) -> bool:
    return all(isinstance(value, (int, float)) and not isinstance(value, bool) for value in values)


def class_field_defaults(node: ast.ClassDef) -> dict[str, object]:
    """`name: int = 3` and `name = 3` in a class body: the defaults of dataclass-style fields."""
    defaults: dict[str, object] = {}
    for statement in node.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value is not None:
            value = statement.value
            if isinstance(value, ast.Call) and value.keywords and terminal_name(value.func) == "field":
                value = next((k.value for k in value.keywords if k.arg == "default"), None)
                if value is None:
                    continue
            found = literal_value(value, defaults)
            if found is not UNKNOWN:
                defaults[statement.target.id] = found
        elif isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            found = literal_value(statement.value, defaults)
            if found is not UNKNOWN:
                defaults[statement.targets[0].id] = found
    return defaults


def argparse_defaults(scope_node: ast.AST, parser_name: str) -> dict[str, object]:
    """Defaults of `parser.add_argument("--num-steps", type=int, default=128)` calls in a scope."""
    defaults: dict[str, object] = {}
    for node in walk(scope_node):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "add_argument"):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id == parser_name):
            continue
        flags = [a.value for a in node.args if isinstance(a, ast.Constant) and isinstance(a.value, str)]
        keywords = {k.arg: k.value for k in node.keywords if k.arg}
        if "dest" in keywords and isinstance(keywords["dest"], ast.Constant):
            destination = keywords["dest"].value
        else:
            long_flags = [flag for flag in flags if flag.startswith("--")]
            chosen = long_flags[0] if long_flags else (flags[0] if flags else None)
            if not isinstance(chosen, str):
                continue
            destination = chosen.lstrip("-").replace("-", "_")
        if "default" not in keywords:
            continue
        value = literal_value(keywords["default"])
        if value is not UNKNOWN and isinstance(destination, str):
            defaults[destination] = value
    return defaults


def _binds(target: ast.AST, name: str) -> bool:
    """`target` binds `name` itself (a name, or an element of an unpacking), not an attribute of it."""
    if isinstance(target, ast.Name):
        return target.id == name
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_binds(element, name) for element in target.elts)
    if isinstance(target, ast.Starred):
        return _binds(target.value, name)
    return False


_ABSL_FLAGS_OBJECT = "absl.flags.FLAGS"
_ABSL_DEFINES = frozenset(f"absl.flags.DEFINE_{kind}" for kind in ("integer", "float", "bool", "boolean", "string", "enum"))


def _absl_defaults(model) -> tuple[dict[str, object], dict[str, object]]:
    """Defaults of the module's absl flag definitions, `flags.DEFINE_integer("num_runs", 1, ...)`: by
    flag name, and by the module-level name a definition's holder is bound to."""
    by_name: dict[str, object] = {}
    by_holder: dict[str, object] = {}
    for statement in model.tree.body:
        value = statement.value if isinstance(statement, (ast.Expr, ast.Assign)) else None
        if not isinstance(value, ast.Call) or model.qualified_name(value.func) not in _ABSL_DEFINES:
            continue
        name = value.args[0] if value.args else next((k.value for k in value.keywords if k.arg == "name"), None)
        default = value.args[1] if len(value.args) > 1 else next((k.value for k in value.keywords if k.arg == "default"), None)
        if not (isinstance(name, ast.Constant) and isinstance(name.value, str)) or default is None:
            continue
        found = literal_value(default)
        if found is UNKNOWN:
            continue
        by_name[name.value] = found
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            by_holder[statement.targets[0].id] = found
    return by_name, by_holder


_ENVIRONMENT_READS = frozenset({"os.environ.get", "os.getenv"})


class ConstantEvaluator:
    """Evaluates expressions in a scope of one module's semantic model (and its project)."""

    def __init__(self, model) -> None:
        self.model = model
        self._config_cache: dict[tuple[int, str], dict | None] = {}
        self._active: set[int] = set()

    def value(self, node: ast.AST, scope):
        key = id(node)
        if key in self._active:
            return UNKNOWN  # a cycle: `n = n + 1` evaluated through itself
        self._active.add(key)
        try:
            return literal_value(node, None, lambda inner: self._lookup(inner, scope))
        finally:
            self._active.discard(key)

    def int_value(self, node: ast.AST, scope) -> int | None:
        value = self.value(node, scope)
        return value if isinstance(value, int) and not isinstance(value, bool) else None

    # ----- names and attributes -------------------------------------------------------------

    def _lookup(self, node: ast.AST, scope):
        if isinstance(node, ast.Call):
            return self._environment_default(node, scope)
        if isinstance(node, ast.Name):
            return self._name_value(node.id, scope)
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name):
                fields = self._config_fields(node.value.id, scope)
                if fields is not None:
                    return fields.get(node.attr, UNKNOWN)
            flag = self._absl_flag_default(node, scope)
            if flag is not UNKNOWN:
                return flag
            qualified = self.model.qualified_name(node)
            if qualified is not None and self.model.project is not None:
                return self.model.project.constant(qualified)
        return UNKNOWN

    def _environment_default(self, call: ast.Call, scope):
        """`os.environ.get("STEPS", 100)`, `os.getenv("STEPS", "100")`: the value the program runs with
        unless its user sets the variable, as an argparse default is (the literal default only)."""
        if self.model.qualified_name(call.func) not in _ENVIRONMENT_READS or len(call.args) != 2 or call.keywords:
            return UNKNOWN
        return literal_value(call.args[1])

    def _name_value(self, name: str, scope):

        found = bound_values(self.model, name, scope)
        if found is not None:
            owner, values = found
            if len(values) == 1 and not isinstance(values[0], ast.AugAssign):
                return self.value(values[0], owner)
            return UNKNOWN
        qualified = self.model.imports.aliases.get(name)
        if qualified is not None and self.model.project is not None:
            return self.model.project.constant(qualified)
        return UNKNOWN

    def _config_fields(self, name: str, scope) -> dict | None:
        """The fields of a configuration object bound once to `tyro.cli(Args)`, `Args()` or
        `parser.parse_args()`, with the owning scope's single `name.field = value` overrides."""

        found = bound_values(self.model, name, scope) or self._known_args(name, scope)
        if found is None or len(found[1]) != 1 or not isinstance(found[1][0], ast.Call):
            return None
        owner, (value,) = found
        if isinstance(value.func, ast.Attribute) and value.func.attr == "parse_known_args" and not any(
            isinstance(target, ast.Tuple) and target.elts and isinstance(target.elts[0], ast.Name) and target.elts[0].id == name
            for target, bound in owner.bindings if bound is value
        ):
            return None  # `args, rest = parser.parse_known_args()`: only the first element is the namespace
        key = (id(owner), name)
        if key in self._config_cache:
            return self._config_cache[key]
        self._config_cache[key] = None  # while computing: a self-reference is unknown
        fields = self._factory_fields(value, owner)
        if fields is not None:
            fields = dict(fields)
            overrides: dict[str, list[ast.expr]] = {}
            for target, assigned in owner.bindings:
                if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == name:
                    overrides.setdefault(target.attr, []).append(assigned)
            self._config_cache[key] = fields
            for attribute, values in overrides.items():
                fields[attribute] = UNKNOWN
            for attribute, values in overrides.items():
                if len(values) == 1 and values[0] is not None and not isinstance(values[0], ast.AugAssign):
                    fields[attribute] = self.value(values[0], owner)
            fields = {k: v for k, v in fields.items() if v is not UNKNOWN}
        self._config_cache[key] = fields
        return fields

    def _absl_flag_default(self, node: ast.Attribute, scope):
        """The default of an absl flag this module defines: `FLAGS.num_runs` (`flags.FLAGS`, also
        bound to a module name) or `_NUM_RUNS.value` (the holder `flags.DEFINE_integer` returned)."""
        model = self.model
        defaults = model.__dict__.get("_jaxlint_absl_defaults")
        if defaults is None:
            defaults = model._jaxlint_absl_defaults = _absl_defaults(model)
        if not defaults[0]:
            return UNKNOWN
        by_name, by_holder = defaults
        qualified = model.qualified_name(node) or ""
        if qualified.startswith(_ABSL_FLAGS_OBJECT + ".") and qualified.count(".") == _ABSL_FLAGS_OBJECT.count(".") + 1:
            return by_name.get(node.attr, UNKNOWN)
        if node.attr == "value" and isinstance(node.value, ast.Name) and node.value.id in by_holder:
            found = bound_values(model, node.value.id, scope)
            if found is not None and found[0] is model.module_scope and len(found[1]) == 1:
                return by_holder[node.value.id]
        return UNKNOWN

    def _known_args(self, name: str, scope):
        """(owner, [call]) for `name, rest = parser.parse_known_args()`, the scope's one binding of `name`."""
        owner = owning_scope(self.model, name, scope)
        if owner is None or name in owner.param_nodes:
            return None
        bindings = [(target, value) for target, value in owner.bindings if _binds(target, name)]
        if len(bindings) != 1:
            return None
        target, value = bindings[0]
        if (
            isinstance(target, ast.Tuple) and len(target.elts) == 2 and isinstance(target.elts[0], ast.Name)
            and target.elts[0].id == name and isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute)
            and value.func.attr == "parse_known_args"
        ):
            return owner, [value]
        return None

    def _factory_fields(self, call: ast.Call, scope) -> dict | None:
        model = self.model
        qualified = model.qualified_name(call.func)
        if qualified in _CONFIG_FACTORIES and call.args:
            return self._class_defaults(call.args[0], scope)
        if isinstance(call.func, ast.Attribute) and call.func.attr in ("parse_args", "parse_known_args") and isinstance(call.func.value, ast.Name):
            parser = call.func.value.id
            owner = scope

            owner = owning_scope(model, parser, scope) or scope
            return argparse_defaults(owner.node, parser)
        if not call.args and not call.keywords:
            found = self._class_defaults(call.func, scope)
            if found is not None:
                return found
        return self._returned_config(call, scope)

    def _returned_config(self, call: ast.Call, scope) -> dict | None:
        """`args = parse_args()` where `parse_args` is a plain function of the module whose every
        `return` gives a configuration object (`args = parser.parse_args(); ...; return args`, or
        `return Config()`): that object's fields, when every return agrees."""
        if not isinstance(call.func, ast.Name):
            return None
        resolved = self.model.resolve_function(call.func, scope)
        if resolved is None or resolved[0] is None or resolved[1]:
            return None
        function = resolved[0]
        node = function.node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or node.decorator_list or not function.returns:
            return None
        if id(node) in self._active:
            return None  # a recursive builder
        self._active.add(id(node))
        try:
            agreed = None
            for returned in function.returns:
                if isinstance(returned, ast.Name):
                    fields = self._config_fields(returned.id, function)
                elif isinstance(returned, ast.Call):
                    fields = self._factory_fields(returned, function)
                else:
                    return None
                if fields is None or (agreed is not None and fields != agreed):
                    return None
                agreed = fields
            return agreed
        finally:
            self._active.discard(id(node))

    def class_defaults(self, node: ast.AST, scope) -> dict | None:
        """The field defaults of the configuration class `node` names (a class of the module, or one
        the project summaries know), as `Config()` would have them; None when it is no such class."""
        return self._class_defaults(node, scope)

    def _class_defaults(self, node: ast.AST, scope) -> dict | None:
        model = self.model
        if isinstance(node, ast.Name):
            for class_node in model.class_methods:
                if class_node.name == node.id and model.scope_for(class_node) is model.module_scope:
                    if sum(1 for c in model.class_methods if c.name == node.id) == 1:
                        return class_field_defaults(class_node)
        qualified = model.qualified_name(node)
        if qualified is not None and model.project is not None:
            info = model.project.class_(qualified)
            if info is not None:
                return dict(info.field_defaults)
        return None
