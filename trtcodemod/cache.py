"""A content cache of per-file results, so that re-running over an unchanged tree is nearly free.

**Key.** One SHA-256 over everything the result depends on: the file's bytes; the tool's
version *and* a hash of the package's own source files (rules, engine, helpers: a
development checkout invalidates itself on every edit); the engine options the file gets
(the rule selection with the per-file ignores that match it, the target TensorRT version,
``--unsafe``, and any other field of ``engine.Options``); the bytes of the user's modules its
``from m import *`` statements read (:mod:`trtcodemod.star_imports`); check or apply; whether fix edits are wanted
(JSON and SARIF carry them); and, when a facts file is used, its bytes and the file's
path (facts are recorded per path). Other files a rule reads while computing the result
(a function the file imports: :mod:`trtcodemod.module_files`) cannot be known before it is
computed: the entry lists them with the SHA-256 of their bytes, and a hit whose listed file
changed since is a miss. Anything else that could change a finding is part of one of those.
Nothing is looked up by path or modification time.

**Value.** The outcome of :func:`trtcodemod.runner.process`: the findings (without the
file's path, which is filled in on load), the parse error if the file has one, the fixes
made, and for ``apply`` the rewritten bytes, so a file with nothing to fix is skipped at
the cost of a read and a hash.

**Where.** ``$TRTCODEMOD_CACHE_DIR`` when set; else ``.trtcodemod_cache/`` in the project
root: the nearest folder at or above the first path that holds a ``pyproject.toml``,
``setup.py``, ``setup.cfg`` or ``.git``. Outside any project nothing is cached. The folder
holds a ``.gitignore`` (``*``) and a ``CACHEDIR.TAG``, so git and backup tools skip it.

**Safety.** Each entry is written to a temporary file and renamed into place (atomic; two
workers writing the same key write the same bytes). An entry is zlib-compressed JSON with
its own key inside; one that does not decompress, parse or match is ignored (and
rewritten). Writing is best effort: a read-only or full disk only costs speed.

**Size.** Entries read are touched (their mtime is the last use). After a run that wrote
entries, when the folder holds more than :data:`MAX_BYTES`, the least recently used
entries are removed until it is under three quarters of that. Deleting the folder is
always safe; ``--no-cache`` (or ``cache = false``) neither reads nor writes it.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import json
import os
import secrets
import zlib
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from trtcodemod.errors import InputError, InternalError
from trtcodemod.module_files import digest
from trtcodemod.outcome import FileOutcome
from trtcodemod.suppression import suppression_warnings
from trtcodemod.release import __version__
from trtcodemod.rules import Finding, Safety
from trtcodemod.star_imports import star_import_files

if TYPE_CHECKING:
    from trtcodemod.config import Settings
    from trtcodemod.engine import Options
    from trtcodemod.files import SourceFile

CACHE_DIR_NAME = ".trtcodemod_cache"
ENV_VAR = "TRTCODEMOD_CACHE_DIR"
#: Bumped when the entry format changes.
FORMAT = 1
#: Prune the least recently used entries above this many bytes (about 100,000 files' worth).
MAX_BYTES = 256 << 20
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git")


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """The version plus a hash of every ``.py`` file of the package and its rules."""
    import trtcodemod
    import trtcodemod.transforms

    digest = hashlib.sha256(f"trtcodemod {__version__} format {FORMAT}".encode())
    roots = [Path(p) for p in (*trtcodemod.__path__, *trtcodemod.transforms.__path__)]
    for root in roots:
        for path in sorted(root.rglob("*.py")):
            try:
                data = path.read_bytes()
            except OSError:
                continue
            digest.update(str(path.relative_to(root)).encode() + b"\0" + data + b"\0")
    return digest.hexdigest()


def project_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding a project marker (None: none)."""
    here = Path(os.path.realpath(start))
    if not here.is_dir():
        here = here.parent
    for folder in (here, *here.parents):
        if any((folder / marker).exists() for marker in _PROJECT_MARKERS):
            return folder
    return None


def default_location(first_path: str | None) -> Path | None:
    """Where the cache lives for a run over ``first_path`` (None: no cache)."""
    configured = os.environ.get(ENV_VAR)
    if configured:
        return Path(configured)
    if first_path is None or first_path == "-":
        return None
    root = project_root(Path(first_path))
    return root / CACHE_DIR_NAME if root is not None else None


@dataclass(frozen=True)
class Cache:
    """A cache folder and the part of the key shared by every file of one run."""

    folder: Path
    #: :func:`run_key`: the code fingerprint and the run-wide settings.
    base: str

    @classmethod
    def for_run(cls, folder: Path, settings: "Settings", fix: bool, unsafe: bool, edits: bool = False) -> "Cache":
        return cls(folder, run_key(settings, fix, unsafe, edits))

    # -- keys -------------------------------------------------------------------------------

    def key(self, options: "Options", display: str, source: bytes) -> str:
        """The entry for one file: this run's part, the engine options the file gets (rule
        selection with its per-file ignores, target, unsafe, and whatever else ``Options``
        holds but the callables), and the file's bytes."""
        digest = hashlib.sha256(self.base.encode())
        for item in dataclasses.fields(options):
            if item.name not in ("allow", "facts"):
                digest.update(f"\0{item.name}={getattr(options, item.name)!r}".encode())
        if options.facts is not None:  # facts are recorded per path
            digest.update(b"\0path\0" + display.encode("utf-8", "surrogateescape"))
        digest.update(b"\0source\0" + source)
        # What a star import of the user's own module binds is read from that module's file.
        for path in star_import_files(display, source):
            try:
                digest.update(b"\0star\0" + Path(path).read_bytes())
            except OSError:
                digest.update(b"\0star-missing\0" + path.encode("utf-8", "surrogateescape"))
        return digest.hexdigest()

    def _entry(self, key: str) -> Path:
        return self.folder / f"v{FORMAT}" / key[:2] / key[2:]

    # -- reading ----------------------------------------------------------------------------

    def load(self, key: str, file: "SourceFile", source: bytes) -> "FileOutcome | None":
        """The cached outcome for ``key``, or None (missing, corrupted or of another key)."""
        entry = self._entry(key)
        try:
            data = json.loads(zlib.decompress(entry.read_bytes()))
            if data.get("key") != key or not _reads_unchanged(data.get("reads", {})):
                return None
            outcome = _outcome(data["outcome"], file, source)
        except (OSError, ValueError, KeyError, TypeError, AttributeError, zlib.error):
            return None
        with contextlib.suppress(OSError):
            os.utime(entry)  # last use, for pruning
        return outcome

    # -- writing ----------------------------------------------------------------------------

    def store(self, key: str, outcome: "FileOutcome", reads: dict[str, str | None] | None = None) -> bool:
        """Write the entry atomically; False when it was not written (never raises OSError).
        ``reads``: the other files the outcome was computed from (path -> SHA-256 of their bytes,
        None where unreadable, :func:`trtcodemod.module_files.recording`), checked on each hit."""
        if not cacheable(outcome):
            return False
        entry = {"key": key, "outcome": _plain(outcome), "reads": dict(reads or {})}
        payload = zlib.compress(json.dumps(entry).encode(), 1)
        return write_entry(self._entry(key), payload, self.folder)

    def prune(self, max_bytes: int = MAX_BYTES) -> int:
        """Remove least recently used entries while the cache holds more than ``max_bytes``."""
        return prune_entries(self.folder / f"v{FORMAT}", max_bytes)


def _reads_unchanged(reads: Any) -> bool:
    """Whether every other file an entry was computed from still has the bytes it had then."""
    if not isinstance(reads, dict):
        return False
    return all(digest(str(path)) == expected for path, expected in reads.items())


def prune_entries(root: Path, max_bytes: int = MAX_BYTES) -> int:
    """Remove the least recently used ``root/xx/entry`` files while they hold more than
    ``max_bytes``, down to three quarters of it (the model cache shares this rule)."""
    entries: list[tuple[float, int, str]] = []
    total = 0
    try:
        buckets = list(os.scandir(root))
    except OSError:
        return 0
    for bucket in buckets:
        try:
            for item in os.scandir(bucket.path):
                info = item.stat(follow_symlinks=False)
                entries.append((info.st_mtime, info.st_size, item.path))
                total += info.st_size
        except OSError:
            continue
    if total <= max_bytes:
        return 0
    removed = 0
    for _mtime, size, path in sorted(entries):
        if total <= max_bytes * 3 // 4:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
            total -= size
            removed += 1
    return removed


def run_key(settings: "Settings", fix: bool, unsafe: bool, edits: bool) -> str:
    facts = b""
    if settings.facts is not None and settings.facts_path is not None:
        with contextlib.suppress(OSError):
            facts = Path(settings.facts_path).read_bytes()
    parts = {
        "code": code_fingerprint(),
        "fix": fix,
        "unsafe": unsafe,
        "edits": edits,
        "facts": hashlib.sha256(facts).hexdigest() if settings.facts is not None else None,
    }
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def write_entry(entry: Path, payload: bytes, folder: Path) -> bool:
    """Write one cache entry atomically (a temporary file renamed over it); False when it was not
    written. ``folder`` is the cache's own, marked as a cache for backup tools on first use."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        _mark(folder)
        temp = entry.with_name(f".{entry.name}.{os.getpid()}-{secrets.token_hex(4)}.tmp")
        try:
            with open(temp, "wb") as handle:
                handle.write(payload)
            os.replace(temp, entry)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp)
            raise
    except OSError:
        return False
    return True


def _mark(folder: Path) -> None:
    """A ``.gitignore`` and a ``CACHEDIR.TAG`` in a new cache folder."""
    tag = folder / "CACHEDIR.TAG"
    if tag.exists():
        return
    with contextlib.suppress(OSError):
        (folder / ".gitignore").write_text("# Created by trtcodemod; safe to delete.\n*\n")
        tag.write_text("Signature: 8a477f597d28d172789f06886806bc55\n"
                       "# This folder is a cache made by trtcodemod; see https://bford.info/cachedir/\n")


# --- outcome <-> JSON -----------------------------------------------------------------------


def cacheable(outcome: "FileOutcome") -> bool:
    """Only outcomes the engine decided: no read or write problem, no crash of ours."""
    error = outcome.error
    if error is not None and (isinstance(error, InternalError) or error.message.startswith("internal error")):
        return False
    return outcome.original is not None or error is not None


def _finding(finding: Finding) -> dict[str, Any]:
    data = finding.as_dict()
    del data["path"]
    return data


def _plain(outcome: "FileOutcome") -> dict[str, Any]:
    error = outcome.error
    return {
        "findings": [_finding(f) for f in outcome.findings],
        "fixed": [_finding(f) for f in outcome.fixed],
        "new_source": base64.b64encode(outcome.new_source).decode() if outcome.new_source is not None else None,
        "error": None if error is None else {"message": error.message, "line": error.line},
        "internal_errors": [{"message": e.message, "line": e.line, "rules": list(e.rules)}
                            for e in outcome.internal_errors],
        "edits": outcome.edits,
    }


def _from_finding(data: dict[str, Any], path: str) -> Finding:
    return Finding(rule=data["rule"], name=data["name"], message=data["message"], path=path,
                   line=data["line"], column=data["column"], end_line=data["end_line"],
                   end_column=data["end_column"], fix=Safety(data["fix"]))


def _outcome(data: dict[str, Any], file: "SourceFile", source: bytes) -> "FileOutcome":
    path = file.display
    outcome = FileOutcome(file, original=source)
    outcome.findings = [_from_finding(f, path) for f in data["findings"]]
    outcome.fixed = [_from_finding(f, path) for f in data["fixed"]]
    if data["new_source"] is not None:
        outcome.new_source = base64.b64decode(data["new_source"], validate=True)
    if data["error"] is not None:
        outcome.error = InputError(path, data["error"]["message"], data["error"]["line"])
    internal = []
    for item in data["internal_errors"]:
        error = InternalError(path, "", item["line"], rules=tuple(item["rules"]))
        error.message = item["message"]
        error.args = (item["message"],)
        internal.append(error)
    outcome.internal_errors = internal
    edits = data.get("edits")
    if edits is not None:
        if not isinstance(edits, list) or len(edits) != len(outcome.findings):
            raise ValueError("edits do not match the findings")
        outcome.edits = edits
    if outcome.error is None:
        outcome.warnings = suppression_warnings(source, path)
    return outcome
