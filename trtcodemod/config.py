"""``[tool.trtcodemod]`` in ``pyproject.toml``, merged with command-line flags.

```toml
[tool.trtcodemod]
select = ["ALL"]            # rule IDs, prefixes or names
ignore = ["TRT402"]
unsafe = false
target = "8.6"              # the TensorRT you deploy on
exclude = ["third_party/", "*_pb2.py"]
max-file-size = "2 MiB"     # larger files are reported, not parsed (0: no limit)
facts = "build/facts.json"  # saved by `migrate --save-facts` (relative to this file)
cache = true                # reuse results of unchanged files (--no-cache)
cache-dir = ".trtcodemod_cache"  # relative to this file; default: the project root

[tool.trtcodemod.per-file-ignores]
"tests/*" = ["TRT1"]
```
Flags given on the command line override these values: ``--select`` replaces both
``select`` and ``ignore`` (so it can turn on a rule the file ignores), ``--ignore``
replaces ``ignore``, ``--unsafe`` / ``--no-unsafe`` replace ``unsafe``, ``--facts``
replaces ``facts``. The per-file ignores always apply.
"""

from __future__ import annotations

import fnmatch
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

from trtcodemod.versions import DEFAULT_TARGET, VersionError, parse_target

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

_KNOWN_KEYS = {"select", "ignore", "unsafe", "target", "exclude", "per-file-ignores", "models", "max-file-size",
               "facts", "scope", "cache", "cache-dir"}

#: Files larger than this are reported instead of parsed. LibCST needs about 0.6-1 GB of
#: memory per MB of source; the largest hand-written file in torch is 1.4 MB.
DEFAULT_MAX_FILE_SIZE = 2 << 20

_SIZE = re.compile(r"\A\s*(\d+)\s*([kmg]i?b?|b)?\s*\Z", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1 << 10, "kib": 1 << 10, "kb": 10**3, "m": 1 << 20, "mib": 1 << 20,
          "mb": 10**6, "g": 1 << 30, "gib": 1 << 30, "gb": 10**9}


def parse_size(value: object) -> int:
    """``2097152``, ``"2MiB"``, ``"2 MB"``, ``"512k"`` → bytes (``K``/``M``/``G`` alone are binary).

    Raises ValueError for anything else; ``0`` means no limit.
    """
    if isinstance(value, bool):
        raise ValueError(f"not a size: {value!r}")
    if isinstance(value, int):
        if value < 0:
            raise ValueError(f"not a size: {value!r}")
        return value
    match = _SIZE.match(str(value))
    unit = (match.group(2) or "").lower() if match else None
    if match is None or unit not in _UNITS:
        raise ValueError(f"not a size: {value!r} (write bytes, or a number with KiB, MiB, GiB, KB, MB or GB)")
    return int(match.group(1)) * _UNITS[unit]


class ConfigError(Exception):
    """A configuration file that is malformed or holds values of the wrong type."""

    def __init__(self, path: Path, message: str) -> None:
        super().__init__(f"{path}: error: {message}")
        self.path = path


@dataclass
class Settings:
    """The effective settings for one run."""

    select: tuple[str, ...] = ("ALL",)
    ignore: tuple[str, ...] = ()
    unsafe: bool = False
    target: str = DEFAULT_TARGET
    exclude: tuple[str, ...] = ()
    #: ``"model"`` (model code only) or ``"all"``; see :mod:`trtcodemod.model_code`.
    scope: str = "model"
    #: Bytes; 0 for no limit.
    max_file_size: int = DEFAULT_MAX_FILE_SIZE
    #: The content cache (:mod:`trtcodemod.cache`): on or off, and where (None: the default place).
    cache: bool = True
    cache_dir: Path | None = None
    per_file_ignores: dict[str, tuple[str, ...]] = field(default_factory=dict)
    #: A facts file (``migrate --save-facts``) for ``check``/``apply``, and its loaded
    #: :class:`~trtcodemod.evidence.facts.Facts` once the command has read it.
    facts_path: Path | None = None
    facts: Any = None
    #: Where the settings came from (None: defaults only).
    source: Path | None = None
    root: Path = field(default_factory=Path.cwd)

    def relative(self, path: Path) -> str | None:
        """``path`` relative to the project root (posix), or None when it lies outside it."""
        try:
            return Path(os.path.realpath(path)).relative_to(os.path.realpath(self.root)).as_posix()
        except ValueError:
            return None

    def ignores_for(self, path: Path) -> tuple[str, ...]:
        """The ignore list for one file: global ignores plus matching per-file ignores."""
        extra: list[str] = []
        try:
            relative = Path(os.path.realpath(path)).relative_to(os.path.realpath(self.root)).as_posix()
        except ValueError:
            relative = path.as_posix()
        for pattern, codes in self.per_file_ignores.items():
            if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(path.name, pattern):
                extra.extend(codes)
        return self.ignore + tuple(extra)


def find_pyproject(start: Path) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` that has a ``[tool.trtcodemod]`` table."""
    # realpath, not Path.resolve: the latter raises RuntimeError on a symlink loop.
    here = Path(os.path.realpath(start))
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            try:
                data = tomllib.loads(candidate.read_text(encoding="utf-8"))
            except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError):
                continue
            if "trtcodemod" in data.get("tool", {}):
                return candidate
    return None


def load_table(path: Path) -> dict[str, Any]:
    """The ``[tool.trtcodemod]`` table of a pyproject file (a plain trtcodemod.toml is the table itself)."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(path, f"cannot read: {exc.strerror or exc}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(path, f"not valid TOML: {exc}") from None
    if path.name == "pyproject.toml":
        return data.get("tool", {}).get("trtcodemod", {})
    return data.get("tool", {}).get("trtcodemod", data)


def load_settings(config: Path | None, paths: Iterable[str]) -> Settings:
    """Settings from ``config`` or the pyproject.toml nearest to the first path (or the cwd)."""
    if config is None:
        first = next(iter(paths), ".")
        config = find_pyproject(Path(first)) or find_pyproject(Path.cwd())
    if config is None:
        return Settings()
    table = load_table(config)
    unknown = sorted(set(table) - _KNOWN_KEYS)
    if unknown:
        raise ConfigError(config, f"unknown key(s) in [tool.trtcodemod]: {', '.join(unknown)}")
    settings = Settings(source=config, root=config.parent)
    settings.select = _codes(config, table, "select", settings.select)
    settings.ignore = _codes(config, table, "ignore", settings.ignore)
    settings.exclude = _codes(config, table, "exclude", settings.exclude)
    if "unsafe" in table:
        if not isinstance(table["unsafe"], bool):
            raise ConfigError(config, "'unsafe' must be true or false")
        settings.unsafe = table["unsafe"]
    if "target" in table:
        target = str(table["target"])
        try:
            parse_target(target)
        except VersionError as exc:
            raise ConfigError(config, str(exc)) from None
        settings.target = target
    if "max-file-size" in table:
        try:
            settings.max_file_size = parse_size(table["max-file-size"])
        except ValueError as exc:
            raise ConfigError(config, f"'max-file-size': {exc}") from None
    if "scope" in table:
        if table["scope"] not in ("model", "all"):
            raise ConfigError(config, "'scope' must be \"model\" or \"all\"")
        settings.scope = table["scope"]
    if "cache" in table:
        if not isinstance(table["cache"], bool):
            raise ConfigError(config, "'cache' must be true or false")
        settings.cache = table["cache"]
    if "cache-dir" in table:
        if not isinstance(table["cache-dir"], str) or not table["cache-dir"]:
            raise ConfigError(config, "'cache-dir' must be a path (a string)")
        settings.cache_dir = config.parent / table["cache-dir"]  # relative to the file that names it
    if "facts" in table:
        if not isinstance(table["facts"], str) or not table["facts"]:
            raise ConfigError(config, "'facts' must be a path (a string)")
        settings.facts_path = config.parent / table["facts"]  # relative to the file that names it
    per_file = table.get("per-file-ignores", {})
    if not isinstance(per_file, dict):
        raise ConfigError(config, "'per-file-ignores' must be a table of pattern = [codes]")
    settings.per_file_ignores = {
        str(pattern): _as_codes(config, f"per-file-ignores.{pattern}", codes) for pattern, codes in per_file.items()
    }
    return settings


def _codes(path: Path, table: dict[str, Any], key: str, default: tuple[str, ...]) -> tuple[str, ...]:
    if key not in table:
        return default
    return _as_codes(path, key, table[key])


def _as_codes(path: Path, key: str, value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ConfigError(path, f"'{key}' must be a list of strings")
    return tuple(value)


def split_codes(values: Iterable[str] | None) -> tuple[str, ...] | None:
    """``["TRT1,TRT401", "TRT5"]`` → ``("TRT1", "TRT401", "TRT5")``; None when not given."""
    if not values:
        return None
    codes: list[str] = []
    for value in values:
        codes.extend(part.strip() for part in value.split(",") if part.strip())
    return tuple(codes)
