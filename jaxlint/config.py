"""Settings from `[tool.jaxlint]` in the nearest pyproject.toml, merged with CLI options."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib


class ConfigError(Exception):
    """A configuration problem; the message names the file and the key."""


KNOWN_KEYS = {
    "select", "ignore", "extend-select", "exclude", "extend-exclude", "per-file-ignores",
    "traced-decorators", "target-jax-version", "python-loop-threshold", "cross-module-callers",
    "library-models",
}


@dataclass
class Settings:
    select: list[str] | None = None
    ignore: list[str] = field(default_factory=list)
    extend_select: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    extend_exclude: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    traced_decorators: list[str] = field(default_factory=list)
    target_jax_version: str | None = None
    # The oldest JAX the project's own requirement admits (`jax>=0.4.20` in pyproject `dependencies`,
    # requirements*.txt, setup.cfg or setup.py): fixes write no form that version lacks.
    jax_requirement: str | None = None
    python_loop_threshold: int = 100
    # Look in other project files for traced code calling a module's helpers (semantic/callers.py).
    # Off by default: 10-20% more CPU on a cold check of whole projects, for no new finding on 15 real ones.
    cross_module_callers: bool = False
    # Entries added to the library models (semantic/library_models/): qualified name -> fields.
    library_models: dict[str, dict] = field(default_factory=dict)
    root: Path = field(default_factory=Path.cwd)
    config_file: Path | None = None
    # The root is only the folder jaxlint runs from (no configuration file found): import resolution
    # then takes each file's own project root instead (semantic/project.py: project_root_of).
    root_from_cwd: bool = False

    @property
    def excludes(self) -> list[str]:
        return [*self.exclude, *self.extend_exclude]

    def cache_key(self) -> str:
        """The settings that change what a file's analysis produces."""
        return repr((sorted(self.traced_decorators), self.target_jax_version, self.jax_requirement, self.python_loop_threshold, self.cross_module_callers,
                     sorted((name, sorted(fields.items())) for name, fields in self.library_models.items())))


def find_pyproject(start: Path) -> Path | None:
    start = start.resolve()
    if start.is_file():
        start = start.parent
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _string_list(value, path: Path, key: str) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{path}: [tool.jaxlint] {key} must be a list of strings")
    return list(value)


def load_settings(start: Path, config_file: Path | None = None) -> Settings:
    settings = _load_table(start, config_file)
    settings.jax_requirement = jax_requirement(start)
    return settings


def _load_table(start: Path, config_file: Path | None) -> Settings:
    path = config_file or find_pyproject(start)
    if path is None:
        return Settings(root=Path.cwd(), root_from_cwd=True)
    try:
        with open(path, "rb") as stream:
            document = tomllib.load(stream)
    except OSError as error:
        raise ConfigError(f"{path}: cannot read ({error.strerror or error})") from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: invalid TOML: {error}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: invalid TOML: not UTF-8 text") from None
    if config_file is None or path.name == "pyproject.toml":
        tool = document.get("tool", {})
        if not isinstance(tool, dict):
            raise ConfigError(f"{path}: `tool` must be a table")
        table = tool.get("jaxlint", {})
    else:
        table = document
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.jaxlint] must be a table")
    unknown = sorted(set(table) - KNOWN_KEYS)
    if unknown:
        raise ConfigError(f"{path}: [tool.jaxlint] unknown key {unknown[0]!r} (known: {', '.join(sorted(KNOWN_KEYS))})")
    settings = Settings(root=path.parent.resolve(), config_file=path)
    if "select" in table:
        settings.select = _string_list(table["select"], path, "select")
    settings.ignore = _string_list(table.get("ignore", []), path, "ignore")
    settings.extend_select = _string_list(table.get("extend-select", []), path, "extend-select")
    settings.exclude = _string_list(table.get("exclude", []), path, "exclude")
    settings.extend_exclude = _string_list(table.get("extend-exclude", []), path, "extend-exclude")
    settings.traced_decorators = _string_list(table.get("traced-decorators", []), path, "traced-decorators")
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(f"{path}: [tool.jaxlint] per-file-ignores must be a table of glob = [codes]")
    settings.per_file_ignores = {
        pattern: _string_list(codes, path, f"per-file-ignores.{pattern!r}") for pattern, codes in per_file.items()
    }
    if "target-jax-version" in table:
        version = table["target-jax-version"]
        if not isinstance(version, str) or not all(part.isdigit() for part in version.split(".")):
            raise ConfigError(f"{path}: [tool.jaxlint] target-jax-version must be a version string such as \"0.4.30\"")
        settings.target_jax_version = version
    if "python-loop-threshold" in table:
        threshold = table["python-loop-threshold"]
        if not isinstance(threshold, int) or threshold < 1:
            raise ConfigError(f"{path}: [tool.jaxlint] python-loop-threshold must be a positive integer")
        settings.python_loop_threshold = threshold
    if "cross-module-callers" in table:
        if not isinstance(table["cross-module-callers"], bool):
            raise ConfigError(f"{path}: [tool.jaxlint] cross-module-callers must be true or false")
        settings.cross_module_callers = table["cross-module-callers"]
    if "library-models" in table:
        settings.library_models = _library_models(table["library-models"], path)
    return settings


def _library_models(table, path: Path) -> dict[str, dict]:
    """`[tool.jaxlint.library-models]`: `"mylib.Env.step" = { returns = "device" }`, field names
    with dashes or underscores (`consumes-key = [0]`)."""
    from jaxlint.semantic.library_models import validate

    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.jaxlint] library-models must be a table of \"qualified.name\" = {{ ... }}")
    entries: dict[str, dict] = {}
    for name, fields in table.items():
        if not isinstance(fields, dict):
            raise ConfigError(f"{path}: [tool.jaxlint.library-models] {name!r} must be a table such as {{ returns = \"device\" }}")
        normalised = {key.replace("-", "_"): value for key, value in fields.items()}
        for listed in ("consumes_key", "static_arguments"):
            if isinstance(normalised.get(listed), list):
                normalised[listed] = tuple(normalised[listed])
        problem = validate(name, normalised)
        if problem is not None:
            raise ConfigError(f"{path}: [tool.jaxlint.library-models] {name!r}: {problem}")
        entries[name] = normalised
    return entries


def selector_matches(selector: str, code: str) -> bool:
    selector = selector.strip().upper()
    return selector == "ALL" or code.startswith(selector)


def validate_selectors(selectors: Iterable[str], known_codes: Iterable[str], origin: str) -> None:
    codes = list(known_codes)
    for selector in selectors:
        if not any(selector_matches(selector, code) for code in codes):
            raise ConfigError(f"{origin}: unknown rule selector {selector!r} (see `jaxlint rules`)")


def resolve_enabled(settings: Settings, rules: Iterable) -> list:
    """Rules enabled by select / extend-select / ignore; preview rules only when named."""
    rules = list(rules)

    def picked(rule, selectors) -> bool:
        for selector in selectors:
            if not selector_matches(selector, rule.code):
                continue
            # A broad selector ("ALL", "JAX") does not switch on preview rules.
            if rule.preview and selector.strip().upper() in ("ALL", "JAX"):
                continue
            return True
        return False

    enabled = []
    for rule in rules:
        if settings.select is None:
            chosen = not rule.preview or picked(rule, settings.extend_select)
        else:
            chosen = picked(rule, settings.select)
        chosen = chosen or picked(rule, settings.extend_select)
        if chosen and not any(selector_matches(s, rule.code) for s in settings.ignore):
            enabled.append(rule)
    return enabled


def per_file_ignored(settings: Settings, path: Path) -> list[str]:
    from jaxlint.files import matches_any

    ignored: list[str] = []
    for pattern, codes in settings.per_file_ignores.items():
        if matches_any(path, [pattern], settings.root):
            ignored.extend(codes)
    return ignored


# ----- the project's own JAX requirement ------------------------------------------------------------

_REQUIREMENT_FILES = ("pyproject.toml", "setup.cfg", "setup.py")
# `jax>=0.4.20`, `jax[cuda12]==0.4.30`, `jax ~= 0.4.1, <0.5`: the distribution `jax` itself, not
# `jaxlib`, `jax-md` or `jaxtyping`.
_JAX_SPEC = re.compile(r"(?<![\w.-])jax(?:\[[^\]]*\])?\s*((?:(?:===|==|>=|<=|~=|!=|>|<)\s*[\d.]+[\w.+*-]*\s*,?\s*)+)", re.IGNORECASE)
_CLAUSE = re.compile(r"(===|==|>=|<=|~=|!=|>|<)\s*(\d+(?:\.\d+)*)")


def requirement_files(start: Path) -> list[Path]:
    """The files that state the requirements of the nearest project at or above `start`."""
    try:
        directory = start.resolve()
        if directory.is_file():
            directory = directory.parent
        for candidate in (directory, *directory.parents):
            files = [candidate / name for name in _REQUIREMENT_FILES if (candidate / name).is_file()]
            files += sorted(candidate.glob("requirements*.txt"))
            # Pins the project installs from elsewhere: a requirements folder (`requirements/test.txt`,
            # installed by a noxfile or CI) and constraints files are as binding as the root's.
            files += sorted(candidate.glob("constraints*.txt")) + sorted(candidate.glob("requirements/*.txt"))
            if files:
                return files
    except OSError:
        pass
    return []


def jax_requirement(start: Path) -> str | None:
    """The oldest JAX version the nearest project's requirement admits, or None when it says nothing.

    The project is the nearest directory at or above `start` holding pyproject.toml, setup.cfg,
    setup.py, requirements*.txt, constraints*.txt or requirements/*.txt; every one of those there is read (a floor such as `jax>=0.4.20`,
    an exact pin, or a cap below a version), and the oldest version any of them admits is kept."""
    files = requirement_files(start)
    floors = []
    for path in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for specifiers in _requirement_specifiers(path, text):
            floor = _oldest_admitted(specifiers)
            if floor is not None:
                floors.append(floor)
    if not floors:
        return None
    return ".".join(str(part) for part in min(floors))


def _requirement_specifiers(path: Path, text: str) -> list[str]:
    if path.name == "pyproject.toml":
        try:
            document = tomllib.loads(text)
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            return []
        project = document.get("project", {})
        entries = project.get("dependencies", []) if isinstance(project, dict) else []
        found = [match.group(1) for entry in entries if isinstance(entry, str) for match in [_JAX_SPEC.match(entry.strip())] if match]
        poetry = document.get("tool", {}).get("poetry", {}).get("dependencies", {}) if isinstance(document.get("tool"), dict) else {}
        pinned = poetry.get("jax") if isinstance(poetry, dict) else None
        if isinstance(pinned, dict):
            pinned = pinned.get("version")
        if isinstance(pinned, str):
            # Poetry: `^0.4.20` and `~0.4.20` start at that version; a bare version is an exact pin.
            found.append(re.sub(r"^[\^~](?=\d)", ">=", pinned.strip()) if not pinned.strip()[:1].isdigit() else "==" + pinned.strip())
        return found
    if path.suffix == ".txt":
        lines = (line.split("#", 1)[0].strip() for line in text.splitlines())
        return [match.group(1) for line in lines for match in [_JAX_SPEC.match(line)] if match]
    # setup.py / setup.cfg: the specifiers written as plain text (`"jax>=0.4.20"`, `jax >= 0.4.20`).
    return [match.group(1) for match in _JAX_SPEC.finditer(text)]


def _oldest_admitted(specifiers: str) -> tuple[int, ...] | None:
    lower, upper = None, None
    for operator, version in _CLAUSE.findall(specifiers):
        parts = tuple(int(part) for part in version.split("."))
        if operator in ("==", "===", ">=", "~=", ">"):
            lower = parts if lower is None else max(lower, parts)
        elif operator == "<=":
            upper = parts if upper is None else min(upper, parts)
        elif operator == "<":
            below = _just_below(parts)
            upper = below if upper is None else min(upper, below)
    if lower is not None:
        return lower
    return upper  # only a cap (`jax<0.4.36`): the project may run anything under it


def _just_below(parts: tuple[int, ...]) -> tuple[int, ...]:
    """A version just older than `parts`: `0.4.36` -> `0.4.35.999`, `0.5` -> `0.4.999`."""
    for index in range(len(parts) - 1, -1, -1):
        if parts[index] > 0:
            return (*parts[:index], parts[index] - 1, 999)
    return parts
