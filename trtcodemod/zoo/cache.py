"""A cache of whole-model results (``migrate``/``verify`` over a config), keyed by content.

It follows the ``check`` cache (:mod:`trtcodemod.cache`): same folder, same atomic,
compressed-JSON entries, same least-recently-used pruning, same ``--no-cache``.

**Key.** One SHA-256 over: the command (``migrate`` or ``verify``); the model's resolved
table (:class:`~trtcodemod.verify.spec.VerifySpec`: model file, model and arguments,
inputs, dynamic axes, rewrite options and target, exporters, opset, backends,
tolerances, runs, seed, timeout); the tool's code fingerprint (its version and every
source file of the package); and the versions of torch, ONNX, ONNX Runtime, onnxscript
and TensorRT installed.

**Dependencies.** A model's result also depends on its code, which is only known once it
ran: the entry records every user file the model's code came from (the observer's
files for ``migrate``, the modules the model file imported for ``verify``, and the model
file itself) with the SHA-256 of its bytes. A lookup re-hashes those files; one changed,
missing or unreadable file is a miss, so touching a file re-runs exactly the models that
used it. Files other than Python sources the model reads at run time (weights, YAML)
are not tracked: change the table (or pass ``--no-cache``) when those change.

**What is stored.** Reports a run decided: exit code 0 or 1, with no worker that timed out or
was killed by SIGKILL (an out-of-memory kill): those depend on the machine's load. A model that
could not run (exit 2: a bad table, a crash, a timeout, a kill) is retried next time.

**Where.** ``models/`` inside the ``check`` cache folder (``$TRTCODEMOD_CACHE_DIR``, else
``.trtcodemod_cache/`` in the project root of the config file).
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import hashlib
import importlib.metadata
import json
import os
import zlib
from pathlib import Path
from typing import Any

from trtcodemod import cache as file_cache
from trtcodemod.verify.spec import VerifySpec

#: Bumped when the entry format changes.
FORMAT = 1
SUBFOLDER = "models"
#: Libraries whose version can change a result.
LIBRARIES = ("torch", "onnx", "onnxruntime", "onnxruntime-gpu", "onnxscript", "tensorrt")

Result = tuple[dict[str, Any], dict[str, tuple[bytes, bytes]]]


def library_versions() -> dict[str, str | None]:
    """Installed versions, read from package metadata (nothing is imported)."""
    out: dict[str, str | None] = {}
    for name in LIBRARIES:
        try:
            out[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            out[name] = None
    return out


def spec_key(command: str, spec: VerifySpec) -> str:
    """The part of the key known before the model runs (see the module docstring)."""
    table = json.dumps(dataclasses.asdict(spec), sort_keys=True, default=repr)
    parts = {"format": FORMAT, "command": command, "spec": table, "code": file_cache.code_fingerprint(),
             "libraries": library_versions()}
    return hashlib.sha256(json.dumps(parts, sort_keys=True).encode()).hexdigest()


def file_digest(path: str) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def dependencies(spec: VerifySpec, report: dict[str, Any]) -> list[str]:
    """The files a result came from: the model file and the user files the run recorded."""
    files = {str(spec.model_file), *report.get("files", ()), *report.get("user_files", ())}
    return sorted(os.path.realpath(f) for f in files)


def cacheable(report: dict[str, Any]) -> bool:
    """Only decided results: exit 0 or 1, no internal error, and no worker that timed out or
    was killed (SIGKILL: out of memory), since those depend on the machine's load, not the model."""
    if report.get("exit_code") not in (0, 1) or report.get("traceback"):
        return False
    text = json.dumps(report, default=str)
    return '"status": "timeout"' not in text and "SIGKILL" not in text


class ModelCache:
    """The models' entries under ``folder/models/`` (``folder`` is the ``check`` cache's)."""

    def __init__(self, folder: Path) -> None:
        self.root = folder
        self.folder = folder / SUBFOLDER
        self.stored = 0

    @classmethod
    def for_config(cls, config: Path | None) -> "ModelCache | None":
        """The cache beside ``config`` (or ``$TRTCODEMOD_CACHE_DIR``); None outside any project."""
        location = file_cache.default_location(str(config if config is not None else Path.cwd()))
        return cls(location) if location is not None else None

    def _entry(self, key: str) -> Path:
        return self.folder / f"v{FORMAT}" / key[:2] / key[2:]

    def load(self, key: str) -> Result | None:
        """The stored result for ``key`` if every file it depends on still hashes the same."""
        entry = self._entry(key)
        try:
            data = json.loads(zlib.decompress(entry.read_bytes()))
            if data.get("key") != key:
                return None
            if any(file_digest(path) != digest for path, digest in data["files"].items()):
                return None
            sources = {p: (base64.b64decode(o), base64.b64decode(n)) for p, (o, n) in data["sources"].items()}
            report = data["report"]
        except (OSError, ValueError, KeyError, TypeError, AttributeError, zlib.error):
            return None
        with contextlib.suppress(OSError):
            os.utime(entry)  # last use, for pruning
        return report, sources

    def store(self, key: str, spec: VerifySpec, result: Result) -> bool:
        """Write the entry atomically; False when it is not stored (never raises OSError)."""
        report, sources = result
        if not cacheable(report):
            return False
        files = {path: file_digest(path) for path in dependencies(spec, report)}
        if any(digest is None for digest in files.values()):
            return False
        try:
            payload = json.dumps({"key": key, "files": files, "report": report,
                                  "sources": {p: [base64.b64encode(o).decode(), base64.b64encode(n).decode()]
                                              for p, (o, n) in sources.items()}})
        except (TypeError, ValueError):
            return False  # a report that is not plain JSON is not cached
        if not file_cache.write_entry(self._entry(key), zlib.compress(payload.encode(), 1), self.root):
            return False
        self.stored += 1
        return True

    def prune(self, max_bytes: int = file_cache.MAX_BYTES) -> int:
        """Least recently used entries out while above ``max_bytes`` (the ``check`` cache's rule)."""
        return file_cache.prune_entries(self.folder / f"v{FORMAT}", max_bytes) if self.stored else 0
