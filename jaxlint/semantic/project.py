"""The project index: what one module can know about the other modules of its project.

A file is analysed alone, but its imports name functions, classes and constants defined elsewhere
in the same project: `from train import train_step` (a jitted step), `from V_TRACE import *` (a
class whose methods are jitted), `from config import NUM_STEPS`. The index resolves such an
import to the file that defines it and keeps a small summary of that file:

- module-level functions and names compiled with `jax.jit`/`jax.pmap`/`nnx.jit`/`eqx.filter_jit`
  (with their parameters and literal `static_*`/`donate_*` options);
- classes: their jitted methods, methods and functions whose results are device arrays, and the
  defaults of dataclass-style fields (`num_steps: int = 128`);
- module-level constants (`N = 1000`, bound once) and the names `from m import *` brings in;
- re-exports (`from .core import step` in a package `__init__`), followed a few links deep.

Summaries are built lazily, only when a rule asks about an imported name, memoised per process by
path and file hash, and a summarised module is never itself resolved further than its re-exports,
so analysing a file costs at most one parse per distinct module it asks about. Every file a
summary was read from is recorded: the results cache keys a file's findings on those files too.

Module lookup follows how Python would find the module when the file runs: relative imports from
the file's package, absolute ones from the directory above the file's top package, the file's own
directory (scripts importing their siblings), the project root and `root/src`, and the folders the
file's own `sys.path` edits name (`sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))`,
semantic/path_edits.py), in Python's order.
"""

from __future__ import annotations

import ast
import configparser
import hashlib
import os
import pickle
from dataclasses import dataclass, field, replace
from time import perf_counter
from pathlib import Path

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from jaxlint.semantic import fresh_values, kept_structure, path_edits, returned_kinds, run_memo, shared_summaries
from jaxlint.semantic.picked_classes import class_registry_names
from jaxlint.semantic.flow import walk_same_scope
from jaxlint.semantic.syntax import top_level_statements
from jaxlint.semantic.imports import absolute_module
from jaxlint.semantic.jaxapi import NUMPY_DISPATCHING_TYPES as DISPATCHING_TYPES
from jaxlint.semantic.jit_bindings import PLACEMENT_OPTIONS
from jaxlint.semantic.syntax import bound_names, returned_positions, returned_values, walk  # iter_child_nodes minus ctx markers, faster

# Files above this size are not summarised (generated tables, vendored bundles).
_MAX_SUMMARY_BYTES = 2_000_000
_MAX_REEXPORT_DEPTH = 5
# How many project functions deep a fresh result is followed (fresh_values.py).
_MAX_FRESH_DEPTH = 12


@dataclass
class FunctionSummary:
    """A function or method of another module, as a call site needs it."""

    name: str
    params: list[str]  # positional parameters in order, `self` excluded for methods
    has_self: bool = False
    transform: str | None = None  # the compiling transform, when it is one
    options: dict[str, ast.expr] = field(default_factory=dict)  # its keyword options, as written
    via_decorator: bool = False
    returns_device: bool = False  # every return is a device array (or a tuple of them)
    defaults: dict[str, object] = field(default_factory=dict)  # literal defaults of parameters
    # Effects on its arguments (semantic/effects.py): parameters it draws PRNG keys from, and
    # parameters whose device values it reads on the host on every call.
    consumed_key_params: tuple[str, ...] = ()
    synced_params: tuple[str, ...] = ()
    # Consumed key parameters whose draws reach nothing but parts of the returned value, with the
    # paths into it (effects.returned_draws): a caller that drops those parts drew nothing.
    returned_draws: tuple[tuple[str, tuple[tuple[int, ...], ...]], ...] = ()
    # Consumed key parameters it returns unchanged, with the path into the result (effects.returned_key).
    returned_keys: tuple[tuple[str, tuple[int, ...]], ...] = ()
    # The parameter every return hands back with its structure (kept_structure.py): `restore(agent,
    # path)` returns an object of the class `agent` had.
    keeps_structure_of: str | None = None
    # Consumed key parameters it hands to `jax.random.split` (effects.summarise_split_keys): it draws
    # from the keys a `split` of the caller's key returns, so the caller's own `split` of it meets them.
    split_key_params: tuple[str, ...] = ()
    # For those parameters, how the body draws from each key the split returns, by its index ("own" bits,
    # "split" first; effects.split_child_kinds): (parameter, ((index, kind), ...)).
    split_children: tuple[tuple[str, tuple[tuple[int, str], ...]], ...] = ()
    # Consumed key parameters it reads only as the key of samplers reading the key's own bits
    # (effects.summarise_own_bit_keys): a caller's later `split` of the key repeats nothing it drew.
    own_bit_key_params: tuple[str, ...] = ()
    # (consumed key parameter, flag parameter) for keys drawn from only under `if flag:`: a call passing
    # the flag as a literal false value draws nothing from that key (effects.Effects.key_guards).
    key_guards: tuple[tuple[str, str], ...] = ()
    # Whether every value it returns is a new buffer (semantic/fresh_values.py): None when not, else
    # the project callees that must be fresh too (`.helper`, `.Class.method` of its own module, or
    # qualified names; `#fn`: a function, not a record class).
    fresh_deps: tuple[str, ...] | None = None
    # Key-named parameters it hands on to project functions, (parameter, callee, slot), callees named
    # as in `fresh_deps` (semantic/effects.py, `summarise_key_forwards`): consumed where the callee is.
    key_forwards: tuple[tuple, ...] = ()
    # A wrapper that only returns a call of a compiled callable on its parameters (semantic/forwarding.py).
    compiled_forward: object | None = None
    # Parameters every return of a compiled function only casts to a dtype (semantic/conversions.py).
    converted_params: tuple[str, ...] = ()
    # A factory's compiled results (`return init, jax.jit(step)`, a nested `@jax.jit def step` returned):
    # (position in the returned tuple, -1 for the whole return; transform; its keyword options as
    # written; the compiled function's positional parameters; whether a decorator applied it).
    returned_compiled: tuple[tuple, ...] = ()
    # What every return gives, by position: (position in the returned tuple, -1 for the whole return;
    # the tuple's width, 0 for the whole; the callable whose call it is, qualified, or `.Name` for a
    # def or class of its own module). The asking module reads the kind (semantic/returned_kinds.py).
    returned_calls: tuple[tuple[int, int, str], ...] = ()
    # The qualified name its return annotation writes where that is a type implementing NumPy's dispatch
    # protocols (`-> xarray.DataArray`), else "": the type the author declares (semantic/array_protocols.py).
    returns_annotation: str = ""


@dataclass
class ClassSummary:
    name: str
    methods: dict[str, FunctionSummary] = field(default_factory=dict)
    field_defaults: dict[str, object] = field(default_factory=dict)  # `x: int = 3` in the class body
    bases: list[str] = field(default_factory=list)
    record: bool = False  # a NamedTuple or dataclass: its constructor only stores its arguments
    local_bases: list[str] = field(default_factory=list)  # bases defined in the same module, by name
    # method -> the attribute it draws from: a key bound on `self` only in `__init__`, never advanced
    # (semantic/key_values.py, `stale_key_draws_light`).
    stale_key_draws: dict[str, str] = field(default_factory=dict)
    # Every method the class body defines, summarised or not: one it defines shadows a base's.
    defined: frozenset[str] = frozenset()


@dataclass
class ModuleSummary:
    path: str
    digest: str
    functions: dict[str, FunctionSummary] = field(default_factory=dict)
    classes: dict[str, ClassSummary] = field(default_factory=dict)
    constants: dict[str, object] = field(default_factory=dict)
    reexports: dict[str, str] = field(default_factory=dict)  # local name -> qualified target
    star_modules: list[str] = field(default_factory=list)  # modules it `import *`s (absolute names)
    public_names: set[str] = field(default_factory=set)  # what `from it import *` binds
    # `agents = {"bc": BCAgent, "iql": IQLAgent}` bound once: name -> the qualified classes it holds.
    registries: dict[str, tuple[str, ...]] = field(default_factory=dict)
    # The dotted name the module's own `__init__.py` files give it (relative imports were read from it).
    name_hint: str = ""
    # Module-level functions whose body (nested functions included) calls back to the host
    # (`jax.debug.callback`, `io_callback`, ...): a program built from them returns only when it has
    # finished (semantic/timed_work.py).
    host_callback_functions: frozenset[str] = frozenset()
    # Top-level functions every `return` of which is text (semantic/shown_text.py): name -> (parameters
    # the text may show, default-off parameters whose branches were left out, positional parameters).
    text_functions: dict[str, tuple] = field(default_factory=dict)


_summaries: dict[tuple[str, int, int], ModuleSummary | None] = {}
# Seconds this process spent building summaries (reading, parsing, summarising imported modules):
# `check --profile` charges them to their own line, not to whichever rule first asked.
summary_seconds = [0.0]


def file_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()


# Inherited methods: how many bases deep they are looked for, and bases no project summary describes.
_MAX_BASE_DEPTH = 4
_LIBRARY_BASES = ("jax.", "flax.", "equinox.", "haiku.", "optax.", "numpy.", "builtins.", "typing.", "abc.")


def summarise_file(path: Path) -> ModuleSummary | None:
    """The summary of a Python file, memoised by path, size and modification time."""
    try:
        stat = path.stat()
    except OSError:
        return None
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key in _summaries:
        return _summaries[key]
    summary = shared_summaries.load(key)  # built by another worker of this run
    if summary is not shared_summaries.MISSING:
        _summaries[key] = summary
        return summary  # type: ignore[return-value]
    summary = None
    started = perf_counter()
    if stat.st_size <= _MAX_SUMMARY_BYTES:
        try:
            data = path.read_bytes()
            text = data.decode("utf-8-sig")
            tree = ast.parse(text)
        except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        if tree is not None:
            try:
                summary = summarise_module(tree, text, str(path), file_digest(data), module_name_hint(path))
            except RecursionError:
                summary = None
            if summary is not None and shared_summaries.offer_parsed(str(path), text, tree):
                # The lint of that module will mark the nodes of its tree, some of which the summary
                # holds (keyword options): keep a copy of its own.
                summary = pickle.loads(pickle.dumps(summary, protocol=pickle.HIGHEST_PROTOCOL))
    _summaries[key] = summary
    shared_summaries.store(key, summary)
    summary_seconds[0] += perf_counter() - started
    return summary


def _rerooted(target: str, summary: ModuleSummary, looked_up: str) -> str:
    """A name the module's relative imports produced (`agents.continuous.bc.BCAgent`, read inside a
    package whose parent has no `__init__.py`), under the name the module was found by
    (`jaxrl_m.agents`): a namespace package's modules are imported under their full name."""
    hint = summary.name_hint
    if not hint or looked_up == hint or not looked_up.endswith("." + hint):
        return target
    if target.split(".", 1)[0] != hint.split(".", 1)[0]:
        return target  # an absolute import of another package
    return looked_up[: -len(hint)] + target


def module_name_hint(path: Path) -> str:
    """The dotted package a file belongs to, from the `__init__.py` files above it."""
    package = run_memo.answer(("package", str(path.parent)), _package_of, path.parent)
    if path.stem == "__init__":
        return package
    return f"{package}.{path.stem}" if package else path.stem


def _package_of(directory: Path) -> str:
    """The dotted name of the package `directory` is, from the `__init__.py` files in and above it.
    A folder whose name is no identifier (`my-repo`) cannot be imported, whatever it holds: the
    package stops below it. A folder without `__init__.py` inside a package (`pkg/tasks/` beside
    `pkg/__init__.py`) is a namespace part of that package, run as `python -m pkg.tasks.train`."""
    names = []
    while directory.parent != directory and directory.name.isidentifier():
        if not (directory / "__init__.py").is_file():
            parent = directory.parent
            if not (parent.name.isidentifier() and (parent / "__init__.py").is_file()):
                break
        names.append(directory.name)
        directory = directory.parent
    return ".".join(reversed(names))


def _reexported_attribute(value: ast.AST, reexports: dict[str, str]) -> str | None:
    """`griffin.Griffin` with `griffin` an imported module (or name): the qualified name it refers to."""
    parts = []
    while isinstance(value, ast.Attribute):
        parts.append(value.attr)
        value = value.value
    if not parts or not isinstance(value, ast.Name) or value.id not in reexports:
        return None
    return ".".join([reexports[value.id], *reversed(parts)])


def summarise_module(tree: ast.Module, text: str, path: str, digest: str, module_name: str) -> ModuleSummary:
    from jaxlint.semantic import constants

    summary = ModuleSummary(path, digest, name_hint=module_name)
    package = module_name if path.endswith("__init__.py") else module_name.rpartition(".")[0]
    assigned: dict[str, int] = {}
    for statement in top_level_statements(tree.body):
        if isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                for name in bound_names(target):
                    assigned[name] = assigned.get(name, 0) + 1
                    summary.public_names.add(name)
        elif isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            summary.public_names.add(statement.name)
            assigned[statement.name] = assigned.get(statement.name, 0) + 1
        elif isinstance(statement, ast.ImportFrom):
            base = absolute_module(statement, package)
            if base is None:
                continue
            for alias in statement.names:
                if alias.name == "*":
                    summary.star_modules.append(base)
                else:
                    local = alias.asname or alias.name
                    summary.reexports[local] = f"{base}.{alias.name}"
                    summary.public_names.add(local)
        elif isinstance(statement, ast.Import):
            for alias in statement.names:
                local = alias.asname or alias.name.split(".")[0]
                summary.reexports[local] = alias.name if alias.asname else local
                summary.public_names.add(local)
    for statement in top_level_statements(tree.body):
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name):
            name = statement.targets[0].id
            alias = _reexported_attribute(statement.value, summary.reexports)
            if assigned.get(name) == 1 and alias is not None and name not in summary.reexports:
                # `Model = model_lib.Model` in a package's `__init__.py`: a re-export by assignment.
                summary.reexports[name] = alias
                continue
            if assigned.get(name) == 1:
                value = constants.literal_value(statement.value, summary.constants)
                if value is not constants.UNKNOWN:
                    summary.constants[name] = value
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) and statement.value is not None:
            if assigned.get(statement.target.id) == 1:
                value = constants.literal_value(statement.value, summary.constants)
                if value is not constants.UNKNOWN:
                    summary.constants[statement.target.id] = value
    summary.public_names = {name for name in summary.public_names if not name.startswith("_")}
    _summarise_registries(tree, summary, module_name, assigned)
    if "str(" in text or "repr(" in text or "f\"" in text or "f'" in text:
        from jaxlint.semantic import shown_text

        summary.text_functions = shown_text.summarise_module(tree)
    if not any(marker in text for marker in ("jax", "flax", "equinox")):
        light = None
        for statement in top_level_statements(tree.body):
            if isinstance(statement, ast.ClassDef):
                info = ClassSummary(statement.name, field_defaults=constants.class_field_defaults(statement))
                if statement.bases or statement.decorator_list:
                    light = light or _light_imports(tree)
                    info.record = fresh_values.is_record_class(statement, light.qualified_name)
                summary.classes[statement.name] = info
            elif _assigns_one_name(statement) and isinstance(statement.value, ast.Call):
                light = light or _light_imports(tree)
                if fresh_values.is_record_factory(statement.value, light.qualified_name):
                    summary.classes[statement.targets[0].id] = ClassSummary(statement.targets[0].id, record=True)
        return summary
    summarise_light(tree, summary)
    if "callback" in text or "debug.print" in text:
        summary.host_callback_functions = _host_callback_functions(tree)
    return summary


def _host_callback_functions(tree: ast.Module) -> frozenset[str]:
    from jaxlint.semantic.jaxapi import CALLING_BACK

    light = _light_imports(tree)
    return frozenset(
        statement.name for statement in top_level_statements(tree.body)
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef))
        and any(isinstance(node, ast.Call) and light.qualified_name(node.func) in CALLING_BACK for node in walk(statement))
    )


def _summarise_registries(tree: ast.Module, summary: ModuleSummary, module_name: str, assigned: dict[str, int]) -> None:
    """Module-level displays of classes bound once (`agents = {"bc": BCAgent, ...}`): a program picks
    one by a setting (`agents[config.agent].create(...)`), and the object is an instance of one of them."""
    for statement in top_level_statements(tree.body):
        if not (_assigns_one_name(statement) and assigned.get(statement.targets[0].id) == 1):
            continue
        names = class_registry_names(statement.value)
        if names is None:
            continue
        classes = []
        for name in names:
            if name in summary.reexports:
                classes.append(summary.reexports[name])
            elif any(isinstance(s, ast.ClassDef) and s.name == name for s in top_level_statements(tree.body)):
                classes.append(f"{module_name}.{name}" if module_name else name)
            else:
                break
        else:
            summary.registries[statement.targets[0].id] = tuple(classes)


def _method_aliases(class_node: ast.ClassDef) -> list[tuple[str, str]]:
    """`self.act = self.act_greedy` in `__init__`: the instance attribute runs that method, so
    `agent.act(obs, key)` elsewhere is a call of `act_greedy` (one of several set conditionally is
    not a single method: only names assigned once count)."""
    assigned: dict[str, list[str]] = {}
    for item in class_node.body:
        if not (isinstance(item, ast.FunctionDef) and item.name == "__init__"):
            continue
        for node in walk(item):
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
                if (
                    isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"
                    and isinstance(value, ast.Attribute) and isinstance(value.value, ast.Name) and value.value.id == "self"
                ):
                    assigned.setdefault(target.attr, []).append(value.attr)
    return [(alias, methods[0]) for alias, methods in assigned.items() if len(methods) == 1]


def _stored_compiled(light, class_node: ast.ClassDef, module_defs: dict[str, ast.AST]) -> dict[str, FunctionSummary]:
    """`self._update = jax.jit(update, ...)` (or `jax.pmap`) in `__init__`, `update` a def nested there or
    a function of the module above the class, or `self.step = step` with `step` a compiled def nested
    in `__init__`: the attribute is that compiled callable, so `learner._update(state, batch)` elsewhere
    is a call of it, with its options and the function's parameters (no `self`). Only attributes the
    class assigns once, a class body def of that name shadowing them."""
    from jaxlint.semantic import jaxapi
    from jaxlint.semantic.model import keyword_options

    assigned: dict[str, int] = {}
    for node in walk(class_node):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target]):
                for element in (target.elts if isinstance(target, (ast.Tuple, ast.List)) else [target]):
                    if isinstance(element, ast.Attribute) and isinstance(element.value, ast.Name) and element.value.id == "self":
                        assigned[element.attr] = assigned.get(element.attr, 0) + 1
    candidates: dict[str, list[FunctionSummary]] = {}
    methods = {item.name: item for item in class_node.body if isinstance(item, ast.FunctionDef) and not item.decorator_list}
    for item in class_node.body:
        if not (isinstance(item, ast.FunctionDef) and item.name == "__init__"):
            continue
        nested = {node.name: node for node in walk(item) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node is not item}
        for node in walk(item):
            if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
                continue
            target, value = node.targets[0], node.value
            if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name) and target.value.id == "self"):
                continue
            if isinstance(value, ast.Name) and value.id in nested:
                function = _light_function(light, nested[value.id], has_self=False)
                if function is not None and function.transform is not None:
                    candidates.setdefault(target.attr, []).append(replace(function, name=target.attr))
                continue
            if not (isinstance(value, ast.Call) and len(value.args) == 1):
                continue
            transform = light.qualified_name(value.func)
            if transform not in jaxapi.COMPILING:
                continue
            argument = value.args[0]
            if isinstance(argument, ast.Name):
                function_node, bound = nested.get(argument.id) or module_defs.get(argument.id), False
            elif isinstance(argument, ast.Attribute) and isinstance(argument.value, ast.Name) and argument.value.id == "self":
                # `jax.pmap(self._update_impl)`: the bound method, `self` already passed
                function_node, bound = methods.get(argument.attr), True
            else:
                continue
            if function_node is None:
                continue
            params, _ = _positional(function_node, bound)
            candidates.setdefault(target.attr, []).append(
                FunctionSummary(target.attr, params, transform=transform, options=dict(keyword_options(value))))
    found: dict[str, FunctionSummary] = {}
    for attribute, summaries in candidates.items():
        if len(summaries) != assigned.get(attribute):
            continue  # (also bound to something else, or where we cannot see)
        if len(summaries) == 1:
            found[attribute] = summaries[0]
        elif len({tuple(s.params) for s in summaries}) == 1 and not any(set(s.options) & PLACEMENT_OPTIONS for s in summaries):
            # `jax.pmap(update)` on several devices, else `jax.jit(update)`: neither donates nor holds
            # an argument static, so every branch copies the same arguments.
            found[attribute] = summaries[0]
    return found



def summarise_light(tree: ast.Module, summary: ModuleSummary) -> None:
    """The summary of an imported module, from its top level only: decorators, `f = jax.jit(g)`
    assignments and syntactically device-valued returns. About a tenth of the cost of a semantic
    model, parsed when first asked for, and the same whichever process asks, so results do not
    depend on which worker analysed which file first. (A summary read from the model of a file
    this run analyses was tried: on 15 projects and the labelled corpus it changed no finding.)"""
    from jaxlint.semantic import constants, jaxapi
    from jaxlint.semantic.effects import named_like_key
    from jaxlint.semantic.model import keyword_options

    light = _light_imports(tree)
    from jaxlint.semantic.key_values import stale_key_draws_light

    # Keys kept on `self` are read only in modules that import JAX.
    random_used = any(target == "jax" or target.startswith("jax.random") for target in light.imports.aliases.values())
    defs: dict[str, ast.AST] = {}
    # What the freshness of returns reads (fresh_values.py): the module's functions and record classes.
    functions, records = set(), {}
    for statement in top_level_statements(tree.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            functions.add(statement.name)
        elif isinstance(statement, ast.ClassDef):
            records[statement.name] = fresh_values.is_record_class(statement, light.qualified_name)
        elif _assigns_one_name(statement) and fresh_values.is_record_factory(statement.value, light.qualified_name):
            records[statement.targets[0].id] = True
            summary.classes[statement.targets[0].id] = ClassSummary(statement.targets[0].id, record=True)
    module_oracle = fresh_values.LightOracle(light, functions, records, None, summary.reexports)
    # What a returned call's callable is named: its relative imports, and its own defs and classes.
    references = {**summary.reexports, **{name: f".{name}" for name in (*functions, *records)}}
    module_defs = {s.name: s for s in top_level_statements(tree.body) if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for statement in top_level_statements(tree.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[statement.name] = statement
            function = _light_function(light, statement, has_self=False, oracle=module_oracle, local_names=references)
            if function is not None:
                summary.functions[statement.name] = function
        elif isinstance(statement, ast.ClassDef):
            info = ClassSummary(statement.name, field_defaults=constants.class_field_defaults(statement), record=records[statement.name])
            # imported bases (`from .base import Learner`: a relative import, as the module's re-exports name it)
            info.bases = [q for q in (light.qualified_name(base) or _relative_base(base, summary) for base in statement.bases) if q]
            method_oracle = fresh_values.LightOracle(light, functions, records, statement.name, summary.reexports)
            info.local_bases = [base.id for base in statement.bases if isinstance(base, ast.Name) and base.id in summary.classes]
            for item in statement.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in item.decorator_list)
                    names = references
                    if any(isinstance(d, ast.Name) and d.id == "classmethod" for d in item.decorator_list) and item.args.args:
                        # (`return cls(...)` in a class method builds the class it is called on: this one, by its name)
                        names = {**(references or {}), item.args.args[0].arg: "." + statement.name}
                    function = _light_function(light, item, has_self=not static, oracle=method_oracle, local_names=names)
                    if function is not None:
                        info.methods[item.name] = function
            for alias, method in _method_aliases(statement):
                if method in info.methods and alias not in info.methods:
                    info.methods[alias] = info.methods[method]
            for attribute, stored in _stored_compiled(light, statement, module_defs).items():
                if attribute not in info.methods:
                    info.methods[attribute] = stored
            info.defined = frozenset(
                item.name for item in statement.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))
            ) | frozenset(info.methods)
            if random_used:
                info.stale_key_draws = stale_key_draws_light(statement, light.qualified_name)
            summary.classes[statement.name] = info
    _summarise_compiled_forwards(tree, light, summary, jaxapi.COMPILING)
    for statement in top_level_statements(tree.body):
        if not (isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)):
            continue
        value = statement.value
        if not isinstance(value, ast.Call) or not value.args:
            continue
        transform = light.transform_of(value.func)
        if transform not in jaxapi.COMPILING:
            continue
        target = defs.get(value.args[0].id) if isinstance(value.args[0], ast.Name) else None
        params = _positional(target)[0] if target is not None else []
        name = statement.targets[0].id
        # `step = jax.jit(_step)`: a draw inside the compiled program draws from the caller's key, so
        # its key parameters are handed on to `_step` (semantic/effects.py reads them as forwards).
        forwards = tuple((param, f".{target.name}", index) for index, param in enumerate(params) if named_like_key(param)) if target is not None and target.name != name else ()
        from jaxlint.semantic import conversions

        converted = conversions.converted_parameters(target, False, light.qualified_name) if target is not None else ()
        summary.functions[name] = FunctionSummary(name, params, transform=transform, options=keyword_options(value), key_forwards=forwards,
                                                  converted_params=converted)


def _summarise_compiled_forwards(tree: ast.Module, light, summary: ModuleSummary, compiling) -> None:
    """Thin wrappers of compiled callables (semantic/forwarding.py): read only where the module has a
    function whose body is one `return` of a call (a cheap test first)."""
    from jaxlint.semantic import forwarding

    body = list(top_level_statements(tree.body))
    candidates = []
    for statement in body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            candidates.append((statement, False, None))
        elif isinstance(statement, ast.ClassDef):
            for item in statement.body:
                if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    static = any(isinstance(d, ast.Name) and d.id == "staticmethod" for d in item.decorator_list)
                    candidates.append((item, not static, statement.name))
    candidates = [c for c in candidates if _returns_one_call(c[0])]
    if not candidates:
        return
    module, classes = forwarding.compiled_targets(body, light, compiling)
    if not module and not classes:
        return
    for node, has_self, class_name in candidates:
        forward = forwarding.summarise_compiled_forward(node, has_self, class_name, module, classes)
        if forward is None:
            continue
        holder = summary.classes[class_name].methods if class_name is not None else summary.functions
        function = holder.get(node.name)
        if function is None:
            function = holder[node.name] = FunctionSummary(node.name, _positional(node, has_self)[0], has_self=has_self)
        function.compiled_forward = forward


def _returns_one_call(node: ast.AST) -> bool:
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    return len(body) == 1 and isinstance(body[0], ast.Return) and isinstance(body[0].value, ast.Call) and not node.decorator_list


def _positional(node: ast.AST, has_self: bool = False) -> tuple[list[str], bool]:
    arguments = node.args
    names = [arg.arg for arg in (*arguments.posonlyargs, *arguments.args)]
    if has_self and names:
        return names[1:], True
    return names, False


def _light_imports(tree: ast.Module) -> "_ImportsOnly":
    imports = [node for node in top_level_statements(tree.body) if isinstance(node, (ast.Import, ast.ImportFrom))]
    return _ImportsOnly(ImportMapFor(imports, tree))


def _assigns_one_name(statement: ast.AST) -> bool:
    return isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)


def _relative_base(base: ast.expr, summary: ModuleSummary) -> str | None:
    return summary.reexports.get(base.id) if isinstance(base, ast.Name) and "." in summary.reexports.get(base.id, "") else None


def _light_function(light, node: ast.AST, has_self: bool, oracle=None, local_names=None) -> FunctionSummary | None:
    from jaxlint.semantic import jaxapi

    params, has_self = _positional(node, has_self)
    for decorator in node.decorator_list:
        use = light.decorator_transform(decorator)
        if use is not None and use.qualified in jaxapi.COMPILING:
            from jaxlint.semantic import conversions
            from jaxlint.semantic.effects import summarise_effects, summarise_key_forwards, summarise_own_bit_keys, summarise_split_children, summarise_split_keys

            # A draw inside the compiled program draws from the caller's key (keys only: traced code
            # reads nothing on the host), as effects.py reads this module's own compiled functions.
            consumed, _, returned, handed_back, guards = summarise_effects(node, has_self, light)
            return FunctionSummary(
                node.name, params, has_self=has_self, transform=use.qualified, options=dict(use.options), via_decorator=True,
                consumed_key_params=consumed, returned_draws=returned, returned_keys=handed_back, key_guards=guards,
                split_key_params=(splits := summarise_split_keys(node, consumed, light)),
                split_children=summarise_split_children(node, splits, _draw_kinds(light)),
                own_bit_key_params=summarise_own_bit_keys(node, consumed, _draw_kinds(light)),
                key_forwards=summarise_key_forwards(node, has_self, oracle),
                converted_params=conversions.converted_parameters(node, has_self, light.qualified_name),
            )
    from jaxlint.semantic.effects import summarise_effects, summarise_key_forwards, summarise_own_bit_keys, summarise_split_children, summarise_split_keys

    consumed, synced, returned, handed_back, guards = summarise_effects(node, has_self, light)
    key_forwards = summarise_key_forwards(node, has_self, oracle)
    returns_device = _decorated_for_arrays(light, node) or _returns_arrays(light, node)
    if returns_device:
        calls = ()
    elif _decorated_otherwise(node):
        from jaxlint.semantic.library_models import decorated_calls

        calls = decorated_calls(light, node)  # (what the decorator makes a call return, where modelled)
    else:
        calls = returned_kinds.returned_calls(light, node, local_names)
    returns_device = returns_device or returned_kinds.returns_arrays(calls)
    fresh = fresh_values.returns_fresh(node, has_self, oracle) if oracle is not None else None
    fresh_deps = tuple(sorted(fresh)) if fresh is not None else None
    compiled = () if has_self or _decorated_otherwise(node) else _returned_compiled(light, node)  # (a static method too)
    kept = None if has_self or compiled else kept_structure.returned_parameter(node, params, light.qualified_name)
    annotation = _annotation(light, node)
    if annotation not in DISPATCHING_TYPES:
        annotation = ""  # (kept only where a caller asks: semantic/array_protocols.py)
    if returns_device or consumed or synced or fresh_deps is not None or key_forwards or compiled or calls or kept or annotation:
        return FunctionSummary(node.name, params, has_self=has_self, returns_device=returns_device, consumed_key_params=consumed,
                               synced_params=synced, fresh_deps=fresh_deps, returned_draws=returned, key_forwards=key_forwards, key_guards=guards,
                               returned_compiled=compiled, returned_calls=calls, returned_keys=handed_back,
                               split_key_params=(splits := summarise_split_keys(node, consumed, light)),
                               split_children=summarise_split_children(node, splits, _draw_kinds(light)), keeps_structure_of=kept,
                               own_bit_key_params=summarise_own_bit_keys(node, consumed, _draw_kinds(light)),
                               returns_annotation=annotation)
    return None


def _annotation(light, node: ast.AST) -> str:
    """The qualified name of a function's return annotation (`-> xarray.Variable`), "" when none."""
    returns = getattr(node, "returns", None)
    if returns.__class__ not in (ast.Name, ast.Attribute):
        return ""
    return light.qualified_name(returns) or ""


def _decorated_otherwise(node: ast.AST) -> bool:
    """A decorator other than `staticmethod`/`classmethod`: what a call returns is the decorator's."""
    return any(not (isinstance(d, ast.Name) and d.id in ("staticmethod", "classmethod")) for d in node.decorator_list)


def _returned_compiled(light, node: ast.AST) -> tuple[tuple, ...]:
    """The compiled callables a plain function returns, by position: every `return` is a tuple of one
    width (or every one a single value), and at a position every one returns the same compiled callable,
    built in the function (`jax.jit(step, ...)` returned as is, or a name bound once to it, or a nested
    `@jax.jit def`). () when there are none: the factory summary model.py reads for
    `init, step = make_fns(lr)` in another module (JitBinding.built_by_factory)."""
    from jaxlint.semantic import jaxapi
    from jaxlint.semantic.model import keyword_options

    defs: dict[str, ast.AST] = {}
    compiled: dict[str, tuple] = {}
    plain: dict[str, int] = {}  # names bound otherwise than to a compiled callable (or a def it wraps)
    partners = _compiled_in_both_arms(light, node)  # `step = jax.pmap(step)` if ..., else `step = jax.jit(step)`

    def record(child: ast.AST) -> None:  # what each statement binds, in the walk of the returns
        kind = child.__class__
        if kind is ast.FunctionDef or kind is ast.AsyncFunctionDef:
            use = next((u for u in map(light.decorator_transform, child.decorator_list) if u is not None and u.qualified in jaxapi.COMPILING), None)
            if use is not None:
                compiled[child.name] = (use.qualified, dict(use.options), tuple(_positional(child)[0]), True) if child.name not in compiled else None
            elif child.decorator_list or child.name in defs:
                plain[child.name] = plain.get(child.name, 0) + 1
            defs[child.name] = child
        elif kind is ast.Assign:
            value = child.value
            transform = light.transform_of(value.func) if isinstance(value, ast.Call) and value.args else None
            single = len(child.targets) == 1 and isinstance(child.targets[0], ast.Name)
            if single and transform in jaxapi.COMPILING:
                name = child.targets[0].id
                wrapped = value.args[0]
                params = ()
                if isinstance(wrapped, ast.Name) and wrapped.id in defs:
                    params = tuple(_positional(defs[wrapped.id])[0])
                entry = (transform, keyword_options(value), params, False)
                if name not in compiled:
                    compiled[name] = entry
                elif not (partners.get(id(child)) and _copies_alike(compiled[name], entry)):
                    compiled[name] = None
            else:
                for target in child.targets:
                    for name in bound_names(target):
                        plain[name] = plain.get(name, 0) + 1
        elif kind in (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor, ast.With, ast.AsyncWith, ast.NamedExpr):
            for target in _bound_targets(child):
                for name in bound_names(target):
                    plain[name] = plain.get(name, 0) + 1

    # In source order, outer statements first: a `def step` is seen before `step = jax.jit(step)`.
    returns = list(returned_values(node, record, in_order=True))
    if returns and returns[-1] is None:
        return ()  # a generator, or a bare `return`
    positions = returned_positions(returns) if returns else None
    if not positions:
        return ()
    found = []
    for position, elements in positions:
        entries = set()
        for element in elements:
            entry = None
            if isinstance(element, ast.Name) and element.id not in plain:
                entry = compiled.get(element.id)
            elif isinstance(element, ast.Call) and element.args and light.transform_of(element.func) in jaxapi.COMPILING:
                wrapped = element.args[0]
                params = tuple(_positional(defs[wrapped.id])[0]) if isinstance(wrapped, ast.Name) and wrapped.id in defs else ()
                entry = (light.transform_of(element.func), keyword_options(element), params, False)
            if entry is None:
                entries = set()
                break
            entries.add((entry[0], tuple(sorted((k, ast.dump(v)) for k, v in entry[1].items())), entry[2], entry[3]))
            kept = entry
        if len(entries) == 1:
            found.append((position, kept[0], kept[1], kept[2], kept[3]))
    return tuple(found)


def _compiled_in_both_arms(light, function: ast.AST) -> dict[int, bool]:
    """id(assignment) -> True for `name = <compiled>(...)` statements that sit one in each arm of the
    same `if`/`else` of the function (directly in its two blocks), binding the same name: exactly one
    of the two runs."""
    from jaxlint.semantic import jaxapi

    def compiled_names(block: list) -> dict[str, ast.stmt]:
        found = {}
        for statement in block:
            value = getattr(statement, "value", None)
            if (
                isinstance(statement, ast.Assign) and len(statement.targets) == 1 and isinstance(statement.targets[0], ast.Name)
                and isinstance(value, ast.Call) and value.args and light.transform_of(value.func) in jaxapi.COMPILING
            ):
                found[statement.targets[0].id] = statement
        return found

    paired: dict[int, bool] = {}
    for branch in ast.walk(function):
        if isinstance(branch, ast.If) and branch.orelse:
            first, second = compiled_names(branch.body), compiled_names(branch.orelse)
            for name in first.keys() & second.keys():
                paired[id(first[name])] = paired[id(second[name])] = True
    return paired


def _copies_alike(first: tuple | None, second: tuple) -> bool:
    """Two compiled bindings of one name (transform, options, parameters, decorated) that compile the same
    parameters with no donated or static argument: whichever runs copies the same arguments."""
    from jaxlint.semantic.jit_bindings import PLACEMENT_OPTIONS

    if first is None or first[2] != second[2] or first[3] or second[3]:
        return False
    return not (set(first[1]) | set(second[1])) & PLACEMENT_OPTIONS


def _bound_targets(statement: ast.AST) -> list[ast.AST]:
    kind = statement.__class__
    if kind is ast.For or kind is ast.AsyncFor or kind is ast.AnnAssign or kind is ast.AugAssign or kind is ast.NamedExpr:
        return [statement.target]
    if kind is ast.With or kind is ast.AsyncWith:
        return [item.optional_vars for item in statement.items if item.optional_vars is not None]
    return []


def _decorated_for_arrays(light, node: ast.AST) -> bool:
    """A decorator of the function transforms it into one that returns arrays computed on the device,
    op by op outside jit (jaxapi.EAGER_ARRAY_DECORATORS: `@jax.value_and_grad`, `@eqx.filter_grad`)."""
    from jaxlint.semantic import jaxapi

    for decorator in node.decorator_list:
        use = light.decorator_transform(decorator)
        if use is not None and use.qualified in jaxapi.EAGER_ARRAY_DECORATORS:
            return True
    return False


def _returns_arrays(light, node: ast.AST) -> bool:
    """Every `return` of the function is a JAX array constructor call (or a tuple of them)."""
    from jaxlint.semantic import jaxapi

    # Each `return` is judged as it is found: most functions fail at the first one seen (their last
    # statement), which spares walking the rest of a long body.
    found = False
    for value in returned_values(node):
        if value is None:
            return False
        for element in value.elts if isinstance(value, ast.Tuple) else [value]:
            if not isinstance(element, ast.Call):
                return False
            qualified = light.qualified_name(element.func) or ""
            if not (qualified == "jax.device_put" or qualified.startswith(jaxapi.ARRAY_NAMESPACES)):
                return False
        found = True
    return found


def ImportMapFor(imports: list[ast.AST], tree: ast.Module):
    from jaxlint.semantic.imports import ImportMap

    bound = set()
    for statement in top_level_statements(tree.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(statement.name)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            for target in statement.targets if isinstance(statement, ast.Assign) else [statement.target]:
                bound.update(bound_names(target))
    return ImportMap(imports, bound)


class _ImportsOnly:
    """Just enough of a semantic model to read decorators: the module's imports."""

    def __init__(self, imports) -> None:
        from jaxlint.semantic.model import SemanticModel

        self.imports = imports
        self.extra_traced = frozenset()
        self._qualified_cache: dict[int, str | None] = {}
        self._model = SemanticModel

    def qualified_name(self, node: ast.AST) -> str | None:
        return self.imports.qualified_name(node)

    def transform_of(self, node: ast.AST) -> str | None:
        return self._model.transform_of(self, node)

    def decorator_transform(self, decorator: ast.expr):
        return self._model.decorator_transform(self, decorator)


def _src_directories(directory: Path, levels: int = 4) -> list[Path]:
    """Source folders of `directory` and of up to `levels` folders above it, nearest first: `src`,
    and the folders a project's packaging declares (`package-dir = {"" = "python"}`)."""
    found = []
    for ancestor in [directory, *list(directory.parents)[:levels]]:
        candidate = ancestor / "src"
        if candidate.is_dir():
            found.append(candidate)
        declared = run_memo.answer(("declared-source-directories", str(ancestor)), _declared_source_directories, ancestor)
        found.extend(folder for folder in declared if folder.is_dir())
    return found


# Keys `_declared_source_directories` reads: a packaging file naming none of them is not parsed.
_SOURCE_KEYS = ("package-dir", "package_dir", "where", "from", "packages", "pythonpath")


def _table(document: dict, *keys: str) -> dict:
    """The TOML table at `keys` (`tool.poetry`), or {} where a step is missing or not a table."""
    for key in keys:
        document = document.get(key) if isinstance(document, dict) else None
    return document if isinstance(document, dict) else {}


def _declared_source_directories(directory: Path) -> list[Path]:
    """The folders a `pyproject.toml` or `setup.cfg` in `directory` installs packages from, or puts on
    pytest's path: setuptools' `package-dir` and `packages.find.where`, Poetry's `packages.from`,
    Hatch's wheel `packages`, pytest's `pythonpath`. Only relative folders inside the project."""
    names: list[str] = []
    pyproject = directory / "pyproject.toml"
    if pyproject.is_file():
        try:
            text = pyproject.read_text(encoding="utf-8")
            document = tomllib.loads(text) if any(key in text for key in _SOURCE_KEYS) else {}
        except (OSError, ValueError):
            document = {}
        setuptools = _table(document, "tool", "setuptools")
        names += [value for value in _table(setuptools, "package-dir").values() if isinstance(value, str)]
        where = _table(setuptools, "packages", "find").get("where")
        names += [value for value in where if isinstance(value, str)] if isinstance(where, list) else []
        poetry_packages = _table(document, "tool", "poetry").get("packages")
        for package in poetry_packages if isinstance(poetry_packages, list) else ():
            if isinstance(package, dict) and isinstance(package.get("from"), str):
                names.append(package["from"])
        wheel_packages = _table(document, "tool", "hatch", "build", "targets", "wheel").get("packages")
        for package in wheel_packages if isinstance(wheel_packages, list) else ():
            if isinstance(package, str) and "/" in package.strip("/"):
                names.append(package.strip("/").rpartition("/")[0])
        pythonpath = _table(document, "tool", "pytest", "ini_options").get("pythonpath")
        names += [pythonpath] if isinstance(pythonpath, str) else [value for value in pythonpath or () if isinstance(value, str)]
    setup_cfg = directory / "setup.cfg"
    if setup_cfg.is_file():
        parser = configparser.ConfigParser(interpolation=None)
        try:
            text = setup_cfg.read_text(encoding="utf-8")
            if any(key in text for key in _SOURCE_KEYS):
                parser.read_string(text)
        except (OSError, UnicodeDecodeError, configparser.Error):
            parser = None
        if parser is not None:
            for line in parser.get("options", "package_dir", fallback="").splitlines():
                key, _, value = line.partition("=")
                if value.strip() and not key.strip():
                    names.append(value.strip())
            names += parser.get("options.packages.find", "where", fallback="").split()
    found = []
    for name in names:
        name = name.strip().rstrip("/")
        if not name or name == "." or os.path.isabs(name) or ".." in Path(name).parts:
            continue
        found.append(directory / name)
    return found


_CHECKOUT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


def project_root_of(path: Path) -> Path | None:
    """The root of the project a file belongs to, from the file alone: the nearest folder at or above
    it that holds packaging or version control (pyproject.toml, setup.py, setup.cfg, .git), as ruff
    and mypy find it; None where no folder above holds one. Never the folder jaxlint runs from: a
    checked file resolves its imports (its `sys.path` tails too) alike from anywhere."""
    directory = Path(os.path.abspath(path))
    if not directory.is_dir():
        directory = directory.parent
    return run_memo.answer(("project-root", str(directory)), _marked_ancestor, directory)


def _marked_ancestor(directory: Path) -> Path | None:
    for folder in (directory, *directory.parents):
        if any((folder / marker).exists() for marker in _CHECKOUT_MARKERS):
            return folder
    return None


def _checkout_roots(top: Path, levels: int = 3) -> list[Path]:
    for ancestor in list(top.parents)[:levels]:
        if any((ancestor / marker).exists() for marker in _CHECKOUT_MARKERS):
            return [ancestor]
    if (top / "__init__.py").is_file() or top.parent == top or any(top.glob("README*")) or (top / "requirements.txt").exists():
        return []  # a package, or the checkout's own root (never a folder of other checkouts)
    return [top.parent]


def _search_layout(directory: Path, levels: int, root: Path | None) -> tuple[Path, list[Path], tuple[str, ...]]:
    """For a file in `directory` whose importers name it from the folder `levels` above it (the one
    holding its top-level package): that folder, the directories its imports are searched in, and
    those as strings (the key under which views of one directory share their answers)."""
    top = directory
    for _ in range(levels):
        top = top.parent
    search = [top, directory]
    if root is not None:
        root = Path(os.path.abspath(root))
        search += [root, root / "src"]
    # A `src/` layout seen from an example or script elsewhere in the checkout
    # (`examples/run.py` importing `mypkg`, which lives in `src/mypkg`), wherever jaxlint runs from.
    search += run_memo.answer(("src-directories", str(top)), _src_directories, top)
    # A script in a folder of its checkout, run from the checkout's root (`python scripts/sample.py`
    # importing `mypkg.model`, or `architectures/net.py` importing the sibling folder `layers`): the
    # checkout's root (the nearest folder above with packaging or version control), else the folder
    # above a script folder that is no package.
    search += run_memo.answer(("checkout-root", str(top)), _checkout_roots, top)
    search_paths: list[Path] = []
    for folder in search:
        if folder not in search_paths:
            search_paths.append(folder)
    return top, search_paths, tuple(map(str, search_paths))


class ProjectView:
    """The project as seen from one file: resolves the file's imports to other files' summaries."""

    def __init__(self, filename: str, root: Path | None = None, find_callers: bool = False, tree: ast.Module | None = None) -> None:
        self.path = Path(os.path.abspath(filename))
        self.root = root
        # Whether the model may look for this file's callers in other modules (semantic/callers.py);
        # off for the models of those callers themselves.
        self.find_callers = find_callers
        self.module_name = module_name_hint(self.path)
        is_package = self.path.name == "__init__.py"
        self.package = self.module_name if is_package else self.module_name.rpartition(".")[0]
        levels = self.module_name.count(".") + is_package
        # Every file of a directory has the same layout: a run works it out once per directory.
        layout_key = ("search-layout", str(self.path.parent), levels, None if root is None else str(root))
        # `top`: the directory its importers name it from.
        self.top, self.search_paths, self._search_key = run_memo.answer(layout_key, _search_layout, self.path.parent, levels, root)
        if tree is not None:
            # The file's own `sys.path` edits (semantic/path_edits.py), in Python's order.
            front, back = path_edits.path_edit_folders(tree, self.path, root)
            if front or back:
                ordered = [*front, *self.search_paths, *back]
                self.search_paths = [folder for index, folder in enumerate(ordered) if folder not in ordered[:index]]
                self._search_key = tuple(map(str, self.search_paths))
        self.dependencies: dict[str, str] = {}  # path -> digest of every summary read
        self._module_cache: dict[str, ModuleSummary | None] = {}
        self._top_cache: dict[str, bool] = {}

    def may_hold(self, top: str) -> bool:
        """Whether a module under the top-level name `top` could be found in this project: `_find`
        looks only under `directory/top` (or at `directory/top.py`) of each search path, so when
        none exists no summary can ever come from an import of `top` (a few stats, memoised)."""
        found = self._top_cache.get(top)
        if found is None:
            found = self._top_cache[top] = top not in _NEVER_LOCAL and run_memo.answer(("may-hold", self._search_key, top), self._may_hold, top)
        return found

    def _may_hold(self, top: str) -> bool:
        return any((directory / top).is_dir() or (directory / f"{top}.py").is_file() for directory in self.search_paths)

    file_digest = staticmethod(file_digest)

    # ----- callers in other modules (semantic/callers.py) ------------------------------------

    def called_from_traced_code(self, names: set[str]) -> set[str]:
        from jaxlint.semantic import callers

        return callers.called_from_traced_code(self, names)

    def calls_per_step_into(self, name: str, traced_decorators: tuple[str, ...], depth: int = 1) -> bool | None:
        from jaxlint.semantic import callers

        return callers.calls_per_step_into(self, name, traced_decorators, depth)

    def calls_into(self, names: set[str], traced_decorators: tuple[str, ...]) -> list:
        from jaxlint.semantic import callers

        return callers.calls_into(self, names, traced_decorators)

    # ----- modules ---------------------------------------------------------------------------

    def module(self, dotted: str) -> ModuleSummary | None:
        if dotted in self._module_cache:
            return self._module_cache[dotted]
        summary = None
        path = self._find(dotted)
        if path is not None and path != self.path:
            summary = run_memo.answer(("summary", str(path)), summarise_file, path)
            if summary is not None:
                self.dependencies[summary.path] = summary.digest
        self._module_cache[dotted] = summary
        return summary

    def summary_at(self, path: str) -> ModuleSummary | None:
        """The summary of the project module at `path` (found by another module's imports), read into
        this view, so `home_of_class` finds its classes, and recorded as a dependency."""
        path = os.path.abspath(path)
        key = f"<path>{path}"
        if key not in self._module_cache:
            summary = run_memo.answer(("summary", path), summarise_file, Path(path)) if path != str(self.path) else None
            if summary is not None:
                self.dependencies[summary.path] = summary.digest
            self._module_cache[key] = summary
        return self._module_cache[key]

    def qualified_class(self, owner: ClassSummary) -> str | None:
        """`pkg.module.Class` for a class summary this view has read, where this view's imports find
        that dotted module at the file that defines it (the name facts of other modules are asked
        by); else None."""
        home = self.home_of_class(owner)
        if home is None or home.classes.get(owner.name) is not owner:
            return None
        dotted = home.name_hint or module_name_hint(Path(home.path))
        found = self.module_path(dotted) if dotted else None
        if found is None or os.path.abspath(found) != os.path.abspath(home.path):
            return None
        return f"{dotted}.{owner.name}"

    def handed_class(self, model, class_node: ast.ClassDef, attribute: str):
        """The class `self.<attribute>` of `class_node` holds where `__init__` binds it from a parameter
        every construction in the project fills with one instance of one class (semantic/constructed_objects.py)."""
        from jaxlint.semantic.constructed_objects import handed_attribute_class

        return handed_attribute_class(model, class_node, attribute)

    def module_path(self, dotted: str) -> Path | None:
        """The file `import dotted` reads from this file, if it is in the project."""
        return self._find(dotted)

    def _find(self, dotted: str) -> Path | None:
        if not dotted or dotted.split(".")[0] in _NEVER_LOCAL:
            return None
        return run_memo.answer(("find", self._search_key, dotted), self._search, dotted)

    def _search(self, dotted: str) -> Path | None:
        relative = Path(*dotted.split("."))
        for directory in self.search_paths:
            candidate = directory / relative
            module_file = candidate.with_suffix(".py") if candidate.name else None
            if module_file is not None and module_file.is_file():
                return module_file
            package = candidate / "__init__.py"
            if package.is_file():
                return package
        return None

    def star_bindings(self, dotted: str, depth: int = 0) -> dict[str, str]:
        """What `from dotted import *` binds: name -> qualified name (re-exports followed)."""
        summary = self.module(dotted)
        if summary is None or depth > _MAX_REEXPORT_DEPTH:
            return {}
        bound: dict[str, str] = {}
        for inner in summary.star_modules:
            bound.update(self.star_bindings(inner, depth + 1))
        for name in summary.public_names:
            bound[name] = summary.reexports.get(name, f"{dotted}.{name}")
        return bound

    # ----- names -----------------------------------------------------------------------------

    def resolve(self, qualified: str) -> tuple[ModuleSummary, str] | None:
        """(summary of the defining module, name in it) for `pkg.mod.name`, following re-exports."""
        found = self._locate(qualified)
        return found[:2] if found else None

    def _locate(self, qualified: str) -> tuple[ModuleSummary, str, str] | None:
        """`resolve`, with the dotted name the defining module was found under."""
        for _ in range(_MAX_REEXPORT_DEPTH):
            module_name, _, name = qualified.rpartition(".")
            if not module_name:
                return None
            summary = self.module(module_name)
            if summary is None:
                return None
            if name in summary.functions or name in summary.classes or name in summary.constants or name in summary.registries \
                    or name in summary.text_functions:
                return summary, name, module_name
            if name in summary.reexports:
                qualified = _rerooted(summary.reexports[name], summary, module_name)
                continue
            for inner in summary.star_modules:
                inner_summary = self.module(inner)
                if inner_summary is not None and (name in inner_summary.functions or name in inner_summary.classes or name in inner_summary.constants):
                    return inner_summary, name, inner
            return None
        return None

    def function(self, qualified: str) -> FunctionSummary | None:
        found = self.resolve(qualified)
        return found[0].functions.get(found[1]) if found else None

    def class_(self, qualified: str) -> ClassSummary | None:
        found = self.resolve(qualified)
        return found[0].classes.get(found[1]) if found else None

    def method_of(self, owner: ClassSummary, name: str) -> FunctionSummary | None:
        """The summary of the method `name` an instance of `owner` runs: the class's own, else the one
        it inherits from a base defined in the project (`class Conservative(Soft)` runs `Soft.update`),
        bases searched in order and depth first. None when the class or a base before the one that
        defines it has it without a summary (nothing to say about it), or no project base defines it."""
        found = self.method_and_owner(owner, name)
        return found[0] if found is not None else None

    def method_and_owner(self, owner: ClassSummary, name: str, depth: int = 0) -> tuple[FunctionSummary, ClassSummary] | None:
        """`method_of`, with the class that defines the method (its home module reads the method's names)."""
        if name in owner.methods:
            return owner.methods[name], owner
        if name in owner.defined or depth >= _MAX_BASE_DEPTH or not (owner.bases or owner.local_bases):
            return None
        home = self.home_of_class(owner)
        bases = [home.classes[local] for local in owner.local_bases if home is not None and local in home.classes]
        bases += [self.class_(base) for base in owner.bases if not base.startswith(_LIBRARY_BASES)]
        for base in bases:
            if base is None or base is owner:
                continue
            found = self.method_and_owner(base, name, depth + 1)
            if found is not None:
                return found
        return None

    def registry(self, qualified: str) -> tuple[str, ...] | None:
        """The qualified classes a module-level display of classes holds (`agents = {"bc": BCAgent}`)."""
        found = self._locate(qualified)
        if not found or found[1] not in found[0].registries:
            return None
        summary, name, module_name = found
        return tuple(_rerooted(target, summary, module_name) for target in summary.registries[name])

    # ----- fresh results (semantic/fresh_values.py) ----------------------------------------------

    def call_returns_fresh(self, qualified: str, arguments_fresh: bool) -> bool:
        """Whether a call of the project function or class `qualified` returns only new buffers: a
        function whose summary is fresh with every callee it depends on (through any number of modules),
        a compiled function, or a record class given fresh arguments."""
        found = self.resolve(qualified)
        if found is None:
            return False
        summary, name = found
        return self._named_fresh(summary, name, arguments_fresh, frozenset())

    def method_returns_fresh(self, owner: ClassSummary, method: str) -> bool:
        """The same for `obj.method(...)`, `obj` an instance of a class of another module."""
        home = next((s for s in self._module_cache.values() if s is not None and any(c is owner for c in s.classes.values())), None)
        function = owner.methods.get(method)
        if home is None or function is None:
            return False
        return self._function_fresh(home, function, f"{owner.name}.{method}", frozenset())

    def _named_fresh(self, summary: ModuleSummary, name: str, arguments_fresh: bool, active: frozenset) -> bool:
        function = summary.functions.get(name)
        if function is not None:
            return self._function_fresh(summary, function, name, active)
        owner = summary.classes.get(name)
        return owner is not None and owner.record and arguments_fresh

    def _function_fresh(self, summary: ModuleSummary, function: FunctionSummary, name: str, active: frozenset) -> bool:
        if function.transform is not None:
            return function.transform in ("jax.jit", "jax.pmap")  # compiled outputs are new buffers
        if function.fresh_deps is None:
            return False
        key = (summary.path, name)
        memo = self.__dict__.setdefault("_fresh_memo", {})
        if key in memo:
            return memo[key]
        if key in active or len(active) > _MAX_FRESH_DEPTH:
            return False  # a cycle, or too deep to follow
        active = active | {key}
        result = all(self._dependency_fresh(summary, dependency, active) for dependency in function.fresh_deps)
        memo[key] = result
        return result

    def _dependency_fresh(self, summary: ModuleSummary, dependency: str, active: frozenset) -> bool:
        function_only = dependency.endswith("#fn")
        dependency = dependency.removesuffix("#fn")
        if dependency.startswith("."):
            local = dependency[1:]
            owner_name, _, method = local.rpartition(".")
            if owner_name:
                owner = summary.classes.get(owner_name)
                function = owner.methods.get(method) if owner is not None else None
                return function is not None and self._function_fresh(summary, function, local, active)
            return self._named_fresh(summary, local, False, active)
        found = self.resolve(dependency)
        if found is None:
            return False
        return self._named_fresh(found[0], found[1], not function_only, active)

    # ----- keys consumed through calls (semantic/effects.py) -----------------------------------------

    def home_of_class(self, owner: ClassSummary) -> ModuleSummary | None:
        """The summary of the module that defines a class summary this view has read."""
        return next((s for s in self._module_cache.values() if s is not None and any(c is owner for c in s.classes.values())), None)

    def consumed_key_params(self, home: ModuleSummary, function: FunctionSummary, name: str, active: frozenset = frozenset()) -> tuple[str, ...]:
        """The parameters `function` (named `name` in `home`) draws keys from: its own draws, and the keys
        it hands on to project functions that consume them, through any number of calls and modules."""
        own = tuple(function.consumed_key_params)
        if not function.key_forwards:
            return own
        key = (home.path, name)
        memo = self.__dict__.setdefault("_consumed_key_memo", {})
        if key in memo:
            return memo[key]
        if key in active or len(active) > _MAX_FRESH_DEPTH:
            return own  # a cycle, or too deep to follow
        active = active | {key}
        consumed = list(own)
        for param, dependency, slot in function.key_forwards:
            if param in consumed:
                continue
            found = self._key_callee(home, dependency)
            if found is None:
                continue
            callee_home, callee, callee_name = found
            inner = self.consumed_key_params(callee_home, callee, callee_name, active)
            if (slot in inner) if isinstance(slot, str) else (slot < len(callee.params) and callee.params[slot] in inner):
                consumed.append(param)
        memo[key] = result = tuple(consumed)
        return result

    def _key_callee(self, home: ModuleSummary, dependency: str):
        """(module, function summary, name in it) for a key forward's callee; a class counts as its `__init__`."""
        if dependency.startswith("."):
            summary, local = home, dependency[1:]
        else:
            found = self.resolve(dependency)
            if found is None:
                return None
            summary, local = found
        owner_name, _, method = local.rpartition(".")
        if owner_name:
            owner = summary.classes.get(owner_name)
            function = owner.methods.get(method) if owner is not None else None
            return (summary, function, local) if function is not None and function.transform is None else None
        function = summary.functions.get(local)
        if function is None and local in summary.classes:
            function, local = summary.classes[local].methods.get("__init__"), f"{local}.__init__"
        if function is None or (function.transform is not None and not function.via_decorator and not function.key_forwards):
            return None  # (`f = jax.jit(g)` at module level: only its key forwards say what it draws)
        return summary, function, local

    def runs_device_loop(self, qualified: str) -> bool:
        """Whether the project function `qualified` (`qmc.mc.vmc_simple_improved`) loops over calls
        into compiled code: one call of it is a whole run of device steps. Read from the defining
        module's source when first asked, which is rare (a loop that would otherwise be reported)."""
        for _ in range(_MAX_REEXPORT_DEPTH):
            module_name, _, name = qualified.rpartition(".")
            summary = self.module(module_name) if module_name else None  # (records the dependency)
            if summary is None:
                return False
            if name not in summary.reexports:
                key = ("device-loop", self._search_key, summary.path, summary.digest, name)
                return run_memo.answer(key, _runs_device_loop, Path(summary.path), name, self)
            qualified = summary.reexports[name]
        return False

    def constant(self, qualified: str):
        from jaxlint.semantic.constants import UNKNOWN

        found = self.resolve(qualified)
        if found is None:
            return UNKNOWN
        return found[0].constants.get(found[1], UNKNOWN)


def _runs_device_loop(path: Path, name: str, view: ProjectView) -> bool:
    """The top-level function `name` of `path` has a loop that calls a compiled function: one of its
    module (`@jax.jit`, `step = jax.jit(...)`), one a project module exports, or a function of its
    module that calls one of those (`mc_step(...)` around a jitted update)."""
    from jaxlint.semantic import jaxapi

    try:
        tree = ast.parse(path.read_bytes().decode("utf-8-sig"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    imports = [node for node in top_level_statements(tree.body) if isinstance(node, (ast.Import, ast.ImportFrom))]
    light = _ImportsOnly(ImportMapFor(imports, tree))
    defs: dict[str, ast.AST] = {}
    compiled: set[str] = set()
    for statement in top_level_statements(tree.body):
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            defs[statement.name] = statement
            if any((use := light.decorator_transform(d)) is not None and use.qualified in jaxapi.COMPILING for d in statement.decorator_list):
                compiled.add(statement.name)
        elif isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Call) and light.transform_of(statement.value.func) in jaxapi.COMPILING:
            compiled.update(bound_names(statement.targets[0]))
    target = defs.get(name)
    if target is None:
        return False

    def calls_compiled(call: ast.Call) -> bool:
        if not isinstance(call.func, ast.Name):
            return False
        if call.func.id in compiled:
            return True
        qualified = light.qualified_name(call.func)
        function = view.function(qualified) if qualified and qualified != call.func.id else None
        return function is not None and function.transform in jaxapi.COMPILING

    def calls(node: ast.AST):
        return (child for child in walk_same_scope(node) if isinstance(child, ast.Call))

    helpers_calling_compiled: dict[str, bool] = {}
    for loop in [node for node in walk(target) if isinstance(node, (ast.For, ast.AsyncFor, ast.While))]:
        for call in calls(loop):
            if calls_compiled(call):
                return True
            helper = call.func.id if isinstance(call.func, ast.Name) else None
            if helper in defs and helper != name:
                if helper not in helpers_calling_compiled:
                    helpers_calling_compiled[helper] = any(calls_compiled(inner) for inner in calls(defs[helper]))
                if helpers_calling_compiled[helper]:
                    return True
    return False


# Top-level names that are never the project's own modules: asking the file system is wasted.
_NEVER_LOCAL = frozenset({
    "jax", "jaxlib", "numpy", "flax", "optax", "equinox", "haiku", "chex", "scipy", "torch", "tensorflow",
    "os", "sys", "re", "math", "time", "functools", "itertools", "collections", "typing", "dataclasses",
    "abc", "json", "logging", "pathlib", "random", "argparse", "pickle", "copy", "warnings", "contextlib",
    "builtins", "__future__", "enum", "inspect", "operator", "string", "io", "shutil", "subprocess",
    "absl", "ml_collections", "tqdm", "wandb", "gym", "gymnasium", "matplotlib", "pandas", "distrax",
    "tensorflow_datasets", "orbax", "einops", "tyro", "jraph", "brax", "mujoco", "envpool", "typing_extensions",
})


def _draw_kinds(light):
    """How a `jax.random` call of a module reads its key (key_values.draw_kind), with the module's imports."""
    from jaxlint.semantic.key_values import draw_kind

    return lambda call: draw_kind(call, light.qualified_name)
