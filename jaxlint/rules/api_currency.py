"""The generic check behind JAX601 (removed-api) and JAX602 (deprecated-api), driven by `api_table`.

One class, two instances: each reports the table entries whose status, at the project's
`target-jax-version` (the newest JAX when unset), is its own.
"""

from __future__ import annotations

import ast

from jaxlint.diagnostics import Edit, Position
from jaxlint import fixes
from jaxlint.fixes import versions
from jaxlint.rules.api_table import (
    ARRAY_ATTRIBUTE_ENTRIES, CALL_FORM_ENTRIES, CONFIG_OPTION_ENTRIES, IMPORT_ENTRIES, KEYWORD_ENTRIES, NAME_ENTRIES, WITH_ENTRIES,
    ApiChange, lookup, lookup_through, replacement_at, status_at,
)
from jaxlint.rules.base import Rule
from jaxlint.semantic.api_uses import SAME_OBJECT, defines_attribute, holds_jax_array, is_function_value, root_name, spelled_api_name, surely_not_none
from jaxlint.semantic.model import ancestors, parent_of
from jaxlint.semantic.raw_names import imported_name, raw_qualified_name
from jaxlint.semantic.syntax import walk  # ast.walk minus ctx markers, faster

# Keyword names some KEYWORD_ENTRIES entry is about.
_TABLE_KEYWORDS = frozenset(keyword for _, keyword in KEYWORD_ENTRIES)
# Handlers that make a `try:` body a compatibility shim for several JAX versions.
_SHIM_EXCEPTIONS = frozenset({"ImportError", "ModuleNotFoundError", "AttributeError", "Exception", "BaseException"})
# The last part of every name entry: an attribute chain that spells an entry, or a name inside a
# module entry through the module's own name (`jax.experimental.host_callback.id_tap`), has one of
# these among its attributes, unless its root is bound to that module itself (see `_entry_roots`).
_LAST_PARTS = frozenset(name.rpartition(".")[2] for name in NAME_ENTRIES)
_MODULE_ENTRIES = frozenset(name for name, change in NAME_ENTRIES.items() if change.module)
# Every proper dotted prefix of an entry's name: `jax`, `jax.numpy` for `jax.numpy.DeviceArray`.
_ENTRY_PREFIXES = frozenset(name[:index] for name in NAME_ENTRIES for index, character in enumerate(name) if character == ".")
# How an attribute chain from a root name can reach an entry (`_entry_roots`).
_ANY_CHAIN, _CHAIN_WITH_LAST_PART = 1, 2
# Calls that make a Mesh: `with mesh:` on their result is the deprecated resource-env form.
_MESH_CONSTRUCTORS = frozenset({"jax.sharding.Mesh", "jax.make_mesh", "jax.experimental.maps.Mesh", "jax.interpreters.pxla.Mesh"})


class ApiCurrencyRule(Rule):
    status: str  # "removed" or "deprecated"
    # Not `ast.Attribute`: an attribute chain can name an entry only from a root name an import
    # binds, so the module's attribute chains are read once, at its first import, for both rules
    # (`_attribute_candidates`), instead of two calls per attribute of every module.
    node_types = (ast.Import, ast.ImportFrom, ast.Call, ast.With)
    fix_availability = "sometimes"

    def check(self, node: ast.AST, context) -> None:
        # Called for every call of a module: those that cannot name an entry return first.
        kind = node.__class__
        if kind is ast.Call:
            if node.keywords:
                self._check_keywords(node, context, _target_version(context))
            function = node.func
            root = root_name(function)
            if root is not None and root.id in context.memo(_IMPORTED_KEY, _imported_entry_names, context):
                self._check_imported_call(node, root, context, _target_version(context))
            if len(node.args) == 5 or (function.__class__ is ast.Attribute and function.attr == "update" and node.args):
                self._check_call_form(node, context, _target_version(context))
        elif kind is ast.Import or kind is ast.ImportFrom:
            target = _target_version(context)
            self._check_import(node, context, target)
            if node is context.model.import_nodes[0]:
                for attribute in context.memo(_CANDIDATES_KEY, _attribute_candidates, context):
                    self._check_attribute(attribute, parent_of(attribute), context, target)
        elif kind is ast.With:
            self._check_with(node, context, _target_version(context))

    # ----- the four places an API appears ------------------------------------------------------

    def _check_import(self, node, context, target) -> None:
        for alias in node.names:
            qualified = imported_name(node, alias)
            change = lookup(qualified) if qualified else None
            if change is None and qualified:
                change = _import_only_entry(node, alias)
            if change is None or status_at(change, target) != self.status or _in_compat_shim(node, context):
                continue
            # `from jax.experimental import maps` and `import jax.experimental.maps` name the module itself.
            context.report(alias, self._message(change, qualified, target), fix=_import_fix(node, alias, change, qualified, context, target))

    def _check_attribute(self, node: ast.Attribute, parent: ast.AST | None, context, target) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            if node.value.__class__ is not ast.Attribute:
                return
            # `config.FLAGS.jax_xla_backend = v` stores into what `config.FLAGS` reads.
            node, parent = node.value, node
        # JAX601 and JAX602 look up the same attributes: resolve each once per module.
        qualified = context.memo(("api-currency", id(node)), spelled_api_name, context.model.imports, node)
        found = lookup_through(qualified) if qualified is not None else None
        if found is None:
            if node.attr in ARRAY_ATTRIBUTE_ENTRIES:
                self._check_array_attribute(node, parent, context, target)
            return
        change, qualified = found
        if status_at(change, target) != self.status or _in_compat_shim(node, context):
            return
        if _import_already_reported(node, context, change):
            return
        fix = None
        # The fix writes what the oldest JAX the project supports has (its requirement may be older than the target).
        replacement, exact = _replacement_for_module(change, context)
        if exact and replacement and qualified == change.old and not change.module:
            name, import_edits = fixes.submodule_reference(context, replacement)
            if name:
                fix = context.fix(f"Use `{name}`", [context.replace(node, name), *import_edits], safe=True)
        elif change.old == "jax.experimental.shard_map.shard_map" and qualified == change.old and versions.supports(context, change.replacement_since):
            call = parent if isinstance(parent, ast.Call) and parent.func is node else None
            if call is not None:
                fix = _shard_map_fix(call, context)
                if fix is not None:
                    context.report(call, self._message(change, qualified, target), fix=fix)
                    return
        context.report(node, self._message(change, qualified, target), fix=fix)

    def _check_keywords(self, node: ast.Call, context, target) -> None:
        if not any(keyword.arg in _TABLE_KEYWORDS for keyword in node.keywords):
            return  # most calls: no keyword the table knows, so no need to resolve the callee
        function = node.func
        imports = context.model.imports
        qualified = raw_qualified_name(imports, function)
        if qualified == "functools.partial" and node.args:
            qualified = raw_qualified_name(imports, node.args[0])
        if isinstance(function, ast.Call) and not node.args:
            return  # `jax.jit(device=d)(f)` is reported on the inner call
        if qualified is None:
            return
        for keyword in node.keywords:
            change = KEYWORD_ENTRIES.get((qualified, keyword.arg))
            if change is None or status_at(change, target) != self.status or _in_compat_shim(node, context):
                continue
            if change.kind == "call-keyword" and not surely_not_none(context.model, keyword.value, context.scope(node)):
                continue  # `device=device` forwarded by a wrapper: JAX only warns when it is not None
            fix = None
            if change.kind == "keyword" and change.exact and change.replacement and versions.supports(context, change.replacement_since):
                start = context.source.start(keyword)
                end = Position(start.row, start.column + len(keyword.arg))
                fix = context.fix(f"Rename to `{change.replacement}=`", [Edit(change.replacement, start, end)], safe=True)
            context.report(keyword, self._message(change, f"{qualified}({keyword.arg}=...)", target), fix=fix)

    def _check_imported_call(self, node: ast.Call, root: ast.Name, context, target) -> None:
        """A call through a name whose import is a removed or deprecated API (`index_update(x, i, y)`
        after `from jax.ops import index_update`): the import is reported where it is written, and
        each call is too where no other name replaces the API (the call itself must be rewritten:
        `x.at[i].set(y)`, `jax.debug.callback(...)`)."""
        qualified = spelled_api_name(context.model.imports, node.func)
        change = lookup(qualified) if qualified else None
        if change is None or status_at(change, target) != self.status:
            return
        if change.replacement:
            return  # a new name for it: changing the import is the fix, the calls stay as they are
        if _in_compat_shim(node, context) or _in_compat_shim(context.memo(_IMPORTED_KEY, _imported_entry_names, context)[root.id], context):
            return
        context.report(node.func, self._message(change, qualified, target))

    def _check_call_form(self, node: ast.Call, context, target) -> None:
        """A call in a form the API no longer takes: the five-argument `lax.cond`, or a config option
        `jax.config.update` no longer knows."""
        function = node.func
        if function.__class__ is ast.Attribute and function.attr == "update":
            option = node.args[0]
            if not (isinstance(option, ast.Constant) and isinstance(option.value, str)):
                return
            change = CONFIG_OPTION_ENTRIES.get(option.value)
            if change is None or spelled_api_name(context.model.imports, function) != "jax.config.update":
                return
            if status_at(change, target) != self.status or _in_compat_shim(node, context):
                return
            release = change.removed_from or f"JAX {change.removed_in}"
            status = self._status(change, release, removed_note=" (`jax.config.update` raises `AttributeError: Unrecognized config option`)")
            context.report(option, f"the config option `{option.value}` {status}; {_use(change.advice)}")
            return
        if any(isinstance(argument, ast.Starred) for argument in node.args):
            return
        qualified = spelled_api_name(context.model.imports, function)
        change = CALL_FORM_ENTRIES.get(qualified) if qualified else None
        if change is None or status_at(change, target) != self.status or _in_compat_shim(node, context):
            return
        # `lax.cond(pred, x, f, y, g)`: an operand is an array, never a function, so a function in the
        # last place is the old form's false branch, whatever the other arguments are.
        scope = context.scope(node)
        if not is_function_value(context.model, node.args[4], scope) or is_function_value(context.model, node.args[1], scope):
            return
        context.report(node, f"{change.form} {self._status(change, f'JAX {change.removed_in}')}; {_use(change.advice)}")

    def _check_array_attribute(self, node: ast.Attribute, parent, context, target) -> None:
        """`x.device_buffer`, `x.to_py()` on a JAX array: attributes the array type no longer has."""
        change = ARRAY_ATTRIBUTE_ENTRIES[node.attr]
        if status_at(change, target) != self.status:
            return
        receiver = node.value
        if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
            return
        scope = context.scope(node)
        if not holds_jax_array(context.model, receiver, scope):
            # `device_buffer(s)` was the JAX array's own property name: on a receiver the value model
            # cannot type, it still names JAX's, unless the module gives some object that attribute.
            if node.attr not in _JAX_ONLY_ATTRIBUTES or context.memo(("api-currency", "defines", node.attr), defines_attribute, context.model, node.attr):
                return
        if _in_compat_shim(node, context):
            return
        release = change.removed_from or f"JAX {change.removed_in}"
        context.report(node, f"`jax.Array.{node.attr}` {self._status(change, release)}; {_use(change.advice)}")

    def _check_with(self, node: ast.With, context, target) -> None:
        change = WITH_ENTRIES.get("jax.sharding.Mesh")
        if change is None or status_at(change, target) != self.status:
            return
        scope = context.scope(node)
        for item in node.items:
            expression = item.context_expr
            if not _is_mesh(expression, scope, context):
                continue
            fix = None
            replacement, _ = replacement_at(change, versions.oldest_for_file(context))
            if replacement:
                name, import_edits = fixes.submodule_reference(context, replacement)
                if name:
                    fix = context.fix(f"Use `{name}(...)`", [context.replace(expression, f"{name}({context.text(expression)})"), *import_edits], safe=False)
            context.report(expression, f"`with {context.text(expression)}:` (a Mesh as a context manager) is deprecated since JAX {change.deprecated_in}; use `with jax.set_mesh({context.text(expression)}):`", fix=fix)

    def _message(self, change: ApiChange, qualified: str, target) -> str:
        replacement, exact = replacement_at(change, target)
        advice = change.advice
        if replacement and exact and replacement != change.replacement:
            advice = f"`{replacement}`"  # the project's pinned JAX predates the newer spelling
        advice = _use(advice)
        release = change.removed_from or f"JAX {change.removed_in}"
        if change.kind == "import":
            if self.status == "removed":
                return f"the `{change.old}` submodule was removed in {release} (importing it fails; the attribute `{change.old}` is current); {advice}"
            return f"importing the `{change.old}` submodule is deprecated since JAX {change.deprecated_in}; {advice}"
        subject = f"`{qualified}` (module `{change.old}`)" if change.module and qualified != change.old else f"`{qualified}`"
        return f"{subject} {self._status(change, release, deprecated_note=' (it warns on every use and may be removed)')}; {advice}"

    def _status(self, change: ApiChange, release: str, removed_note: str = "", deprecated_note: str = "") -> str:
        """`was removed in RELEASE` or `is deprecated since JAX X`, as this rule reports."""
        if self.status == "removed":
            return f"was removed in {release}{removed_note}"
        return f"is deprecated since JAX {change.deprecated_in}{deprecated_note}"


# ----- fixes ----------------------------------------------------------------------------------


def _import_fix(node, alias: ast.alias, change: ApiChange, qualified: str, context, target):
    """`from jax import tree_map` -> `from jax.tree import map as tree_map`: the local name is kept."""
    replacement, exact = _replacement_for_module(change, context)
    if not exact or not replacement:
        return None
    if change.module:
        replacement = replacement + qualified[len(change.old):]
    elif qualified != change.old:
        return None
    if isinstance(node, ast.Import):
        if alias.asname is None and "." in alias.name:
            return None  # `import jax.experimental.optimizers` binds `jax`; its uses name the old path
        text = f"{replacement} as {alias.asname}" if alias.asname else replacement
        if alias.asname is None and "." in replacement:
            return None
        return context.fix(f"Import `{replacement}`", [context.replace(alias, text)], safe=True)
    new_module, _, new_name = replacement.rpartition(".")
    if not new_module:
        return None
    local = alias.asname or alias.name
    clause = new_name if local == new_name else f"{new_name} as {local}"
    if len(node.names) == 1:
        indentation = ""
        return context.fix(f"Import from `{new_module}`", [context.replace(node, f"{indentation}from {new_module} import {clause}")], safe=True)
    # Take the alias out of a longer import list and import it on its own line, above.
    index = node.names.index(alias)
    source = context.source
    if index + 1 < len(node.names):
        removal = Edit("", source.start(alias), source.start(node.names[index + 1]))
    else:
        removal = Edit("", source.end(node.names[index - 1]), source.end(alias))
    indentation = source.indentation(node.lineno)
    insertion = Edit(f"from {new_module} import {clause}\n{indentation}", source.start(node), source.start(node))
    return context.fix(f"Import from `{new_module}`", [insertion, removal], safe=True)


def _shard_map_fix(call: ast.Call, context):
    """`shard_map(f, mesh, in_specs, out_specs, check_rep=c)` -> `jax.shard_map(f, mesh=..., ..., check_vma=c)`."""
    if len(call.args) < 1 or len(call.args) > 5 or any(isinstance(a, ast.Starred) for a in call.args):
        return None
    if any(keyword.arg is None for keyword in call.keywords):
        return None
    names = ["f", "mesh", "in_specs", "out_specs", "check_rep"]
    parts = [context.text(call.args[0])]
    for name, value in zip(names[1:], call.args[1:]):
        parts.append(f"{'check_vma' if name == 'check_rep' else name}={context.text(value)}")
    for keyword in call.keywords:
        if keyword.arg == "f":
            return None
        if keyword.arg not in names:
            return None  # `auto=` and other options have no counterpart
        parts.append(f"{'check_vma' if keyword.arg == 'check_rep' else keyword.arg}={context.text(keyword.value)}")
    name, import_edits = fixes.submodule_reference(context, "jax.shard_map")
    if not name:
        return None
    return context.fix(f"Use `{name}` with keyword arguments", [context.replace(call, f"{name}({', '.join(parts)})"), *import_edits], safe=False)


# ----- spellings: imports of a module path and calls through an imported name -----------------


def _use(advice: str) -> str:
    """`use X`, or the advice itself where it says to delete the call."""
    return advice if advice.startswith("delete") else f"use {advice}"


def _import_only_entry(node, alias: ast.alias) -> ApiChange | None:
    """`import jax.config` / `import jax.config as c` / `from jax.config import x`: a module path that
    can no longer be imported, though `jax.config` (the attribute) is current."""
    module = alias.name if isinstance(node, ast.Import) else (node.module if not node.level else None)
    return IMPORT_ENTRIES.get(module) if module else None


_IMPORTED_KEY = ("api-currency", "imported entries")
# Array attributes only JAX's arrays ever had; the others (`to_py`) need the value model's proof.
_JAX_ONLY_ATTRIBUTES = frozenset({"device_buffer", "device_buffers"})


def _imported_entry_names(context) -> dict[str, ast.AST]:
    """Local names an import binds to a table entry or to a name inside a module entry, each with its
    import statement: a call through one of them reaches that entry."""
    imports = context.model.imports
    statements: dict[str, ast.AST] = {}
    for statement in context.model.import_nodes:
        for alias in statement.names:
            local = alias.asname or alias.name.split(".")[0]
            statements.setdefault(local, statement)
    names: dict[str, ast.AST] = {}
    for name, target in imports.aliases.items():
        if name != target and lookup(target) is not None and name in statements:
            names[name] = statements[name]
    return names


# ----- the attribute pre-filter ---------------------------------------------------------------


def _entry_roots(imports) -> dict[str, int]:
    """The local names an attribute chain can start from to spell a table entry, with how.

    A chain `root.a1...an` spells `target.a1...an` (`target`: what the module's imports bind `root`
    to). It names an entry when that is an entry or lies inside a module entry. With `target` a
    module entry or inside one, any chain does (`_ANY_CHAIN`); with `target` the start of an entry's
    name, only a chain with an attribute in `_LAST_PARTS` can (`_CHAIN_WITH_LAST_PART`); any other
    root never does. A root bound by no import spells nothing."""
    roots: dict[str, int] = {}
    for name, target in imports.aliases.items():
        target = SAME_OBJECT.get(target, target)
        if _within_module_entry(target):
            roots[name] = _ANY_CHAIN
        elif target in _ENTRY_PREFIXES:
            roots[name] = _CHAIN_WITH_LAST_PART
    return roots


def _within_module_entry(qualified: str) -> bool:
    """`qualified` is a module entry or lies inside one."""
    while qualified not in _MODULE_ENTRIES:
        qualified, dot, _ = qualified.rpartition(".")
        if not dot:
            return False
    return True


def _target_version(context) -> str | None:
    return getattr(context.settings, "target_jax_version", None)


_CANDIDATES_KEY = ("api-currency", "attribute candidates")


def _attribute_candidates(context) -> list[ast.Attribute]:
    """The module's longest attribute chains that may name a table entry, in the model's order:
    `jax.experimental.maps.xmap`, not its prefixes, nor `self.params` or `np.zeros`."""
    roots = _entry_roots(context.model.imports)
    found = []
    for node in context.model.nodes:
        if node.__class__ is not ast.Attribute:
            continue
        if node.attr in ARRAY_ATTRIBUTE_ENTRIES:
            found.append(node)  # `x.device_buffer.device()`: the attribute of the array, inside a longer chain
        elif _may_name_entry(node, roots):
            parent = parent_of(node)
            if not (parent.__class__ is ast.Attribute and parent.value is node):
                found.append(node)
    return found


def _may_name_entry(node: ast.Attribute, roots: dict[str, int]) -> bool:
    """Whether `raw_qualified_name(node)` (or the name of a chain it is part of) can be a table
    entry, from the chain's attribute names and the import of its root name (`_entry_roots`)."""
    last_part = False
    while node.__class__ is ast.Attribute:
        if node.attr in _LAST_PARTS:
            last_part = True
        node = node.value
    if node.__class__ is not ast.Name:
        return False
    how = roots.get(node.id)
    return how == _ANY_CHAIN or (how == _CHAIN_WITH_LAST_PART and last_part)


# ----- precision ------------------------------------------------------------------------------


def _in_compat_shim(node: ast.AST, context) -> bool:
    """Inside `try: ... except ImportError/AttributeError:` or under `if` on the JAX version or `hasattr`:
    code written to run on several JAX versions on purpose."""
    child = node
    for ancestor in ancestors(node):
        if isinstance(ancestor, ast.Try) and child in ancestor.body:
            for handler in ancestor.handlers:
                names = _exception_names(handler.type)
                if names is None or names & _SHIM_EXCEPTIONS:
                    return True
        if isinstance(ancestor, ast.ExceptHandler):
            # `try: from jax import enable_x64 / except ImportError: from jax.experimental import enable_x64`
            names = _exception_names(ancestor.type)
            if names is None or names & _SHIM_EXCEPTIONS:
                return True
        if isinstance(ancestor, (ast.If, ast.IfExp)) and child is not ancestor.test:
            for sub in walk(ancestor.test):
                if _tests_jax_attribute(sub, context):
                    return True
                if isinstance(sub, ast.Attribute) and "version" in sub.attr.lower():
                    return True
                if isinstance(sub, ast.Name) and "version" in sub.id.lower():
                    return True
        child = ancestor
    return False


def _tests_jax_attribute(node: ast.AST, context) -> bool:
    """`hasattr(jax, "tree_map")`, `hasattr(flax.linen, ...)`: a feature test on a JAX or Flax module.
    `hasattr(self, "cache")` tests the program's own objects and says nothing about the JAX version."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "hasattr" and node.args):
        return False
    tested = raw_qualified_name(context.model.imports, node.args[0]) or ""
    return tested.split(".")[0] in ("jax", "jaxlib", "flax")


def _exception_names(node) -> set[str] | None:
    if node is None:
        return None  # a bare `except:`
    elements = node.elts if isinstance(node, ast.Tuple) else [node]
    names = set()
    for element in elements:
        if isinstance(element, ast.Name):
            names.add(element.id)
        elif isinstance(element, ast.Attribute):
            names.add(element.attr)
    return names


def _import_already_reported(node: ast.Attribute, context, change: ApiChange) -> bool:
    """The chain starts at a name whose own import is this entry (`hcb.id_tap` after `import ... as hcb`),
    or spells out a module imported by its full dotted path (`import jax.experimental.host_callback`).
    A chain from the import of another entry (`config.FLAGS` after `from jax.config import config`)
    reaches a second removed API: it is reported too."""
    root = node
    while isinstance(root, ast.Attribute):
        root = root.value
    if not isinstance(root, ast.Name):
        return False
    imported = context.model.imports.aliases.get(root.id)
    if imported is not None and imported != root.id and lookup(imported) is change:
        return True
    qualified = raw_qualified_name(context.model.imports, node) or ""
    for statement in context.model.import_nodes:
        if isinstance(statement, ast.Import):
            for alias in statement.names:
                if alias.asname is None and "." in alias.name and qualified.startswith(alias.name) and lookup(alias.name) is not None:
                    return True
    return False


def _is_mesh(expression: ast.expr, scope, context) -> bool:
    """A Mesh constructor call, or a name bound in this scope only to one."""
    imports = context.model.imports
    if isinstance(expression, ast.Call):
        return raw_qualified_name(imports, expression.func) in _MESH_CONSTRUCTORS
    if not isinstance(expression, ast.Name):
        return False
    values = [value for target, value in scope.bindings if isinstance(target, ast.Name) and target.id == expression.id]
    if expression.id in scope.params or not values:
        return False
    return all(isinstance(value, ast.Call) and raw_qualified_name(imports, value.func) in _MESH_CONSTRUCTORS for value in values)


def _replacement_for_module(change: ApiChange, context) -> tuple[str | None, bool]:
    """`replacement_at` the oldest JAX the module's projects support, not exact where the module uses
    what makes the rename inexact on that JAX (`pjit` with raw PartitionSpecs: `jit` of the 0.4 series
    ignores `with mesh:`)."""
    replacement, exact = replacement_at(change, versions.oldest_for_file(context))
    if exact and change.inexact_with and not versions.supports(context, change.exact_since) and _module_uses(change.inexact_with, context):
        exact = False
    return replacement, exact


def _module_uses(names: tuple[str, ...], context) -> bool:
    """The module refers to one of `names` (an imported `PartitionSpec`, `P`, `jax.P`)."""
    return context.memo(("api-currency", "uses", names), _uses, names, context)


def _uses(names: tuple[str, ...], context) -> bool:
    wanted = set(names)
    for node in context.model.nodes:
        if node.__class__ in (ast.Name, ast.Attribute) and context.qualified_name(node) in wanted:
            return True
    return False
