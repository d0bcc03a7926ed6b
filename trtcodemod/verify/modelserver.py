"""A model server: a fork of the fork server that imported the user's model module once.

Every worker that runs a model (the observer, the original's build and export, its second
trace, its float64 reference; the same for a rewritten copy) imports the model file and the
library it imports: on a transformers model that is 4 to 5 s a worker, paid again by each. A
model server is forked once per import request from the fork server (``forkserver.py``),
imports the model's module exactly as a worker would (``userimport.import_user_module``), and then
forks the workers that ask for that same import; their own import finds every module loaded.

Which worker may use it, so that none sees a module that is not what its files say now:

* only a request for the same import (model file, import root, module name, extra paths), the
  same working folder and the same environment: a rewritten copy lives in another folder, so
  it has a server of its own, never the original's modules under the same names (a resumed
  one, below, keeps only those the original imported before the copy's first change);
* only while every file the preload loaded is as it was then (size and modification time,
  checked per task): a file rewritten in place, or one a loaded module took names from, makes
  the server stale, and the task (and the next server) imports afresh.

A rewritten copy's server is, where it may be, a fork of a checkpoint the original's server
made while importing (``resume.py``): it imports only from the first module the copy changed.

A lone model file (no package) is executed again by each worker (``import_user_module`` loads
it from its path); the modules it imports are the ones loaded once. A preload that fails (the
model does not import) ends the server and its tasks run as before, from the fork server.
``TRTCODEMOD_PRELOAD=0`` turns model servers off.

The channel is a Unix socket in a folder of its own, since the server's stdin and stdout are
the fork server's. The observer reads ``BEFORE_PRELOAD`` to know which modules its import loaded.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

from trtcodemod.usercode import module_file

from .forkserver import STATS, ForkServer, ServerGone
from .resume import Recorder, connect, finish, plan_resume

#: In a model server and the workers it forks: the modules loaded before the preload (None elsewhere).
BEFORE_PRELOAD: frozenset[str] | None = None
#: Model servers kept per fork server: the original's and one rewritten copy's.
KEEP = 2
#: Seconds for the forked server to connect back (it does so before importing anything).
CONNECT_TIMEOUT = 60.0
_IMPORT_KEYS = ("model_file", "import_root", "module", "extra_paths")


def import_key(request: dict[str, Any], env: dict[str, str]) -> tuple[Any, ...] | None:
    """What a worker's import depends on; None for a request that imports no model."""
    if not request.get("model_file") or os.environ.get("TRTCODEMOD_PRELOAD", "1") == "0":
        return None
    fields = tuple(json.dumps(request.get(k), sort_keys=True) for k in _IMPORT_KEYS)
    return (*fields, os.getcwd(), tuple(sorted(env.items())))


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


class ModelServer(ForkServer):
    """The parent's handle on one model server (a ``ForkServer`` whose channel is a socket)."""

    def __init__(self, top: ForkServer, key: tuple[Any, ...], request: dict[str, Any], env: dict[str, str],
                 base: ModelServer | None = None, resume: dict[str, Any] | None = None) -> None:
        """``base``, ``resume``: fork from that server's checkpoint (``resume.plan_resume``) instead
        of importing the model afresh."""
        super().__init__(None)
        self.top, self.key, self.base = top, key, None
        self.resumed = base is not None and resume is not None
        self.folder = Path(tempfile.mkdtemp(prefix="trtcodemod-model-server-"))
        try:
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(str(self.folder / "socket"))
            listener.listen(1)
            listener.settimeout(CONNECT_TIMEOUT)
            plan = {k: request.get(k) for k in _IMPORT_KEYS}
            (self.folder / "preload.json").write_text(json.dumps(plan))
            if base is not None and resume is not None:
                self.pid = resume_from(base, resume, self.folder, plan)
                self.base = base  # its checkpoints (its process group) must outlive this server
            else:
                self.pid = top.start("trtcodemod.verify.modelserver", str(self.folder),
                                     str(self.folder / "server.log"), env, worker=False)
            try:
                self.sock, _ = listener.accept()
                self.sock.settimeout(None)
            except OSError as exc:
                self.kill()
                raise ServerGone(f"the model server did not connect: {exc}") from exc
            finally:
                listener.close()
        except BaseException:
            self._release_base()
            shutil.rmtree(self.folder, ignore_errors=True)
            raise
        STATS["model_servers"] += 1
        if self.base is not None:
            STATS["resumed_model_servers"] += 1
        self._attach(self.sock.makefile("rb"), self.sock.makefile("wb"))

    def fresh(self) -> bool:
        """Is every file the preload loaded as it was then? (True while the preload runs.)"""
        loaded = (self.ready or {}).get("files") or []
        return all(_stamp(path) == (tuple(stamp) if stamp else None) for path, stamp in loaded)

    def kill(self) -> None:
        """End the server and every worker it forked (a task's time ran out while it imported)."""
        import signal

        with _lock:
            if self.top.models.get(self.key) is self:
                self.top.models.pop(self.key)
        self.close()
        try:
            os.killpg(self.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def close(self) -> None:
        super().close()
        try:
            self.sock.shutdown(socket.SHUT_WR)  # the server's end of input, whatever files share the socket
            self.sock.close()
        except (OSError, AttributeError):
            pass
        shutil.rmtree(self.folder, ignore_errors=True)
        self._release_base()

    def _release_base(self) -> None:
        """This server no longer needs its base's checkpoints: the base may close once idle."""
        base, self.base = self.base, None
        if base is not None:
            with base._changed:
                base._busy -= 1
                idle = base._retired and base._busy <= 0
            if idle:
                base.close()


_lock = threading.RLock()  # a model server that fails to start ends itself under it


def resume_from(base: ModelServer, resume: dict[str, Any], folder: Path, plan: dict[str, Any]) -> int:
    """Fork the copy's server from ``base``'s checkpoint; its pid. ``base`` counts it as a task
    until it closes, so that ``base`` (whose process group holds the checkpoints) outlives it."""
    with base._changed:
        if not base._alive:
            raise ServerGone("the original's model server ended")
        base._busy += 1
    try:
        return connect(resume["checkpoint"], folder, plan, resume)
    except (OSError, ValueError, KeyError) as exc:
        with base._changed:
            base._busy -= 1
        raise ServerGone(f"the checkpoint did not answer: {exc}") from exc


def _resumable(top: ForkServer, key: tuple[Any, ...], request: dict[str, Any]) -> tuple[Any, Any]:
    """A live model server of ``top`` whose checkpoints the server for ``request`` may fork from,
    and the plan (``resume.plan_resume``); ``(None, None)`` where there is none."""
    if key in top.no_resume or os.environ.get("TRTCODEMOD_CHECKPOINTS", "1") == "0":
        return None, None
    for other_key, other in reversed(list(top.models.items())):
        if other is None or not other._alive or other.key[len(_IMPORT_KEYS):] != key[len(_IMPORT_KEYS):]:
            continue  # another working folder or environment: not what a fresh import would see
        if not (other.ready or {}).get("checkpoints") or not other.fresh():
            continue
        original = {k: json.loads(v) for k, v in zip(_IMPORT_KEYS, other_key)}
        plan = plan_resume(other.ready, original, {k: request.get(k) for k in _IMPORT_KEYS})
        if plan is not None:
            return other, plan
    return None, None


def model_server(top: ForkServer, request: dict[str, Any], env: dict[str, str]) -> ModelServer | None:
    """``top``'s model server for ``request``'s import (started on first use); None where there is
    none (no model imported, turned off, failed to start once, or its files changed)."""
    key = import_key(request, env)
    if key is None:
        return None
    with _lock:
        current = top.models.get(key)
        if key in top.models and current is None:
            return None  # it failed to start once: do not pay for it again
        if current is not None and current._alive and current.fresh():
            top.models[key] = top.models.pop(key)  # the most recently used goes last
            return current
        if current is not None:
            top.models.pop(key)
            current.retire()
            if current.resumed and not current._alive and (current.ready or {}).get("failed"):
                top.no_resume.add(key)  # its resumed import failed: this key imports afresh from now on
        while len(top.models) >= KEEP:
            # A server with checkpoints goes last: the next copy (a culprit check's, the next
            # round's) forks from them; one without comes back from them cheaply.
            plain = [k for k, m in top.models.items() if m is None or not (m.ready or {}).get("checkpoints")]
            oldest = plain[0] if plain else next(iter(top.models))
            old = top.models.pop(oldest)
            if old is not None:
                old.retire()
        base, resume = _resumable(top, key, request)
        if base is not None:
            try:
                top.models[key] = ModelServer(top, key, request, env, base, resume)
                return top.models[key]
            except (OSError, ServerGone):
                top.no_resume.add(key)
        try:
            top.models[key] = ModelServer(top, key, request, env)
        except (OSError, ServerGone):
            top.models[key] = None
        return top.models[key]


# --- in the model server --------------------------------------------------------------------


def _preload_model(plan: dict[str, Any], folder: Path, channel: int) -> dict[str, Any]:
    """Import the model's module as a worker does; the files it loaded, with their stamps, and
    the checkpoints forked on the way (``resume.py``). Returns in each copy resumed from one too."""
    global BEFORE_PRELOAD
    from . import resume
    from .userimport import import_user_module

    BEFORE_PRELOAD = frozenset(sys.modules)
    recorder = None
    if os.environ.get("TRTCODEMOD_CHECKPOINTS", "1") != "0" and hasattr(os, "fork"):
        recorder = Recorder(plan, folder, (channel,))
        sys.meta_path.insert(0, recorder)
    try:
        import_user_module(plan["model_file"], plan["import_root"], plan["module"], list(plan["extra_paths"] or []))
    except BaseException as exc:  # noqa: BLE001 - the tasks import it themselves, as before
        return {"failed": f"{type(exc).__name__}: {exc}"[:500]}
    finally:
        if recorder is not None:
            recorder.active = False
            sys.meta_path.remove(recorder)
    why = finish(plan, BEFORE_PRELOAD)
    if why:
        return {"failed": f"resumed import: {why}"[:500]}
    files = {}
    for name in set(sys.modules) - BEFORE_PRELOAD:
        path = module_file(sys.modules.get(name))
        if isinstance(path, str):
            files[path] = _stamp(path)
    files[plan["model_file"]] = _stamp(plan["model_file"])
    answer: dict[str, Any] = {"files": sorted(files.items())}
    if recorder is not None and resume.RESUMED is None:
        answer.update(recorder.answer())
    return answer


def main(argv: list[str]) -> int:
    """The forked server (its ``folder`` holds the socket and what to import): serve until closed."""
    from . import resume
    from .forkserver import end_with_parent, serve

    folder = Path(argv[0])
    plan = json.loads((folder / "preload.json").read_text())
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(folder / "socket"))
    channel = sock.detach()
    end_with_parent()
    loaded = _preload_model(plan, folder, channel)
    if resume.RESUMED is not None:
        channel = resume.RESUMED  # a copy's server, forked from a checkpoint of this import
    return serve((channel, os.dup(channel)), lambda: loaded)
