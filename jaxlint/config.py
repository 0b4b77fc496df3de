"""Settings from `[tool.jaxlint]` in the nearest pyproject.toml, merged with CLI options."""

from __future__ import annotations

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
    python_loop_threshold: int = 100
    # Look in other project files for traced code calling a module's helpers (semantic/callers.py).
    # Off by default: 10-20% more CPU on a cold check of whole projects, for no new finding on 15 real ones.
    cross_module_callers: bool = False
    # Entries added to the library models (semantic/library_models/): qualified name -> fields.
    library_models: dict[str, dict] = field(default_factory=dict)
    root: Path = field(default_factory=Path.cwd)
    config_file: Path | None = None

    @property
    def excludes(self) -> list[str]:
        return [*self.exclude, *self.extend_exclude]

    def cache_key(self) -> str:
        """The settings that change what a file's analysis produces."""
        return repr((sorted(self.traced_decorators), self.target_jax_version, self.python_loop_threshold, self.cross_module_callers,
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
    path = config_file or find_pyproject(start)
    if path is None:
        return Settings(root=Path.cwd())
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
        if isinstance(normalised.get("consumes_key"), list):
            normalised["consumes_key"] = tuple(normalised["consumes_key"])
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
