"""Checkpoints of a model server's import: a rewritten copy's server imports only from its first change.

A round of ``migrate`` rewrites a copy of the user's packages (``rewrite.py``) and imports that
copy in a model server of its own: on a transformers model that is the whole library again
(11 to 14 s a round under load), though the rounds change one or two files, most often a model
file the library starts late. So the original's model server, while it imports the model,
forks a *checkpoint* at the start of some of the user's modules (one per ``GAP`` seconds of
import, ``TRTCODEMOD_CHECKPOINT_GAP``; past ``LIMIT`` every other one ends and the gap doubles;
``TRTCODEMOD_CHECKPOINTS=0`` turns them off). A checkpoint is that process stopped just before
the module's spec is looked for, waiting on a socket of its own. The copy's server is then a
fork of the latest checkpoint before the first module whose file the copy changed: it points
the import system at the copy (the packages' ``__path__``, ``sys.path``) and lets the import go
on from there.

Why that is the copy's import: up to the checkpoint both imports ran the same bytes in the
same order (every module started before it is byte for byte the copy's, checked by the parent
against the original's import order), so the process is what a fresh import of the copy would
be at that point, its modules' ``__file__`` names aside (the user's files, equal to the copy's,
to which the copy's locations map back anyway); from there on every module comes from the
copy. Nothing the original imported after the checkpoint exists in it: no module a later
module changed (a registry, a lazy package's cached attributes) is reused. Once its import is
done the resumed server checks that every module it holds from the user's folders is byte for
byte the copy's, and fails otherwise (its tasks then import afresh, as before).

What it assumes, as every fork of a model server does: the import leaves no thread of its own
running (a checkpoint is made only while one Python thread runs; native ones are not seen), and
no module before the checkpoint read a later file's text other than by importing it.
"""

from __future__ import annotations

import importlib.machinery
import json
import os
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

from trtcodemod.usercode import module_file

from .forkserver import end_with_parent

#: Most checkpoints per model server, and the least import time between two at first (in seconds).
LIMIT = 16
GAP = 0.25

#: In a resumed copy's server: its channel to the parent (a socket's descriptor), else None.
RESUMED: int | None = None


def _under(path: str, roots: list[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in roots)


def _gap() -> float:
    try:
        return float(os.environ.get("TRTCODEMOD_CHECKPOINT_GAP", GAP))
    except ValueError:
        return GAP


class Recorder:
    """A meta path finder that finds nothing: it notes the order in which the user's modules
    start importing and forks checkpoints at some of those starts."""

    def __init__(self, plan: dict[str, Any], folder: Path, close: tuple[int, ...]) -> None:
        self.plan, self.folder, self.close = plan, folder, close
        self.roots = [os.path.realpath(r) for r in [plan["import_root"], *(plan.get("extra_paths") or [])]]
        self.order: list[tuple[str, str]] = []  # (module, the file its spec names), in start order
        self.checkpoints: list[tuple[int, str]] = []  # (index in order, socket path)
        self.pids: list[int] = []  # the checkpoints' processes
        self.last = time.monotonic()
        self.gap = _gap()
        self.active = True

    def find_spec(self, name: str, path: Any, target: Any = None) -> None:
        if not self.active:
            return None
        try:
            spec = importlib.machinery.PathFinder.find_spec(name, path)
        except (ImportError, ValueError):
            spec = None
        origin = getattr(spec, "origin", None)
        if not isinstance(origin, str) or not _under(os.path.realpath(origin), self.roots):
            return None
        if time.monotonic() - self.last >= self.gap and threading.active_count() == 1:
            # (a fork keeps only this thread: one another thread runs would be missing from it)
            if len(self.checkpoints) >= LIMIT:
                self._thin()
            self._checkpoint(len(self.order))
            if not self.active:
                return None  # a resumed copy: the copy's finders look this module up
            self.last = time.monotonic()
        self.order.append((name, origin))
        return None

    def _checkpoint(self, index: int) -> None:
        where = str(self.folder / f"checkpoint-{index}")
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(where)
        listener.listen(4)
        pid = os.fork()
        if pid:
            listener.close()
            self.checkpoints.append((index, where))
            self.pids.append(pid)
            return
        _wait(listener, self)  # returns only in a resumed copy

    def _thin(self) -> None:
        """Keep every other checkpoint and double the gap: a long import keeps ``LIMIT`` of them
        spread over all of it, the latest one recent (the user's own modules come last)."""
        import signal

        for (_, where), pid in list(zip(self.checkpoints, self.pids))[1::2]:
            os.kill(pid, signal.SIGKILL)  # the server reaps it once it serves
            Path(where).unlink(missing_ok=True)
        self.checkpoints, self.pids = self.checkpoints[::2], self.pids[::2]
        self.gap *= 2

    def answer(self) -> dict[str, Any]:
        """What the ready line carries: the start order and the checkpoints."""
        return {"order": self.order, "checkpoints": self.checkpoints}


def _wait(listener: socket.socket, recorder: Recorder) -> None:
    """The checkpoint: fork one resumed copy per request; ends with the server that forked it."""
    for fd in recorder.close:
        try:
            os.close(fd)  # the server's channel: the parent must see it end with the server
        except OSError:
            pass
    os.environ["TRTCODEMOD_PARENT_PID"] = str(os.getppid())
    end_with_parent()
    while True:
        try:
            conn, _ = listener.accept()
            line = conn.makefile("rb").readline()
            request = json.loads(line)
        except (OSError, ValueError):
            _reap()
            continue
        pid = os.fork()
        if pid == 0:
            listener.close()
            conn.close()
            _resume(request, recorder)
            return
        try:
            conn.sendall((json.dumps({"pid": pid}) + "\n").encode())
        except OSError:
            pass
        conn.close()
        _reap()


def _reap() -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0]:
            pass
    except ChildProcessError:
        pass


def _resume(request: dict[str, Any], recorder: Recorder) -> None:
    """In the fork of a checkpoint: become the copy's model server (its import goes on from here)."""
    global RESUMED
    os.setsid()
    os.environ["TRTCODEMOD_PARENT_PID"] = str(os.getppid())
    recorder.active = False
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(str(Path(request["folder"]) / "socket"))
    RESUMED = sock.detach()  # the server's loop ends it with the checkpoint (``end_with_parent``)
    recorder.plan.update({k: request["plan"][k] for k in ("model_file", "import_root", "module", "extra_paths")})
    recorder.plan["resumed"] = {"moved": request["moved"], "failed": redirect(request, recorder.plan)}


def _moved(path: str, moved: dict[str, str]) -> str | None:
    for user, copy in moved.items():
        if path == user or path.startswith(user + os.sep):
            return copy + path[len(user):]
    return None


def redirect(request: dict[str, Any], plan: dict[str, Any]) -> str | None:
    """Point the packages and ``sys.path`` at the copy (``moved``: user folder -> copy folder);
    why it could not, or None."""
    moved: dict[str, str] = request["moved"]
    before = [request["original"]["import_root"], *request["original"]["extra_paths"]]
    after = [plan["import_root"], *(plan["extra_paths"] or [])]
    for at in range(len(sys.path) - len(before) + 1):
        if sys.path[at:at + len(before)] == before:
            sys.path[at:at + len(before)] = after  # where the original's import put its own
            break
    else:
        return "the original's import path is not on sys.path"
    sys.path[:] = [_moved(p, moved) or p for p in sys.path]
    for name, module in list(sys.modules.items()):
        try:
            found = getattr(module, "__path__", None)
        except Exception:  # noqa: BLE001 - a lazy module's own ``__getattr__``: it holds no folders
            found = None
        if found is None:
            continue
        if not isinstance(found, list):
            if type(found).__name__ == "_NamespacePath" and any(_moved(str(p), moved) for p in found):
                return f"{name}: a namespace package in a copied folder"
            continue  # not a folder list (torch's ``_classes``, say)
        found[:] = [_moved(p, moved) or p for p in found]  # in place: an import under way holds it
        spec = getattr(module, "__spec__", None)
        locations = getattr(spec, "submodule_search_locations", None)
        if isinstance(locations, list) and locations is not found:
            locations[:] = [_moved(p, moved) or p for p in locations]
    return None


def finish(plan: dict[str, Any], before: frozenset[str]) -> str | None:
    """After a resumed import: why this server may not serve the copy (a module it holds from the
    user's folders differs from the copy's), or None."""
    resumed = plan.get("resumed")
    if not resumed:
        return None
    if resumed["failed"]:
        return resumed["failed"]
    for name in sorted(set(sys.modules) - before):
        path = module_file(sys.modules.get(name))
        copy = _moved(os.path.realpath(path), resumed["moved"]) if isinstance(path, str) else None
        if copy is not None and not _same_bytes(os.path.realpath(path), copy):
            return f"{name} was loaded from {path}, which the copy changed"
    return None


def _same_bytes(a: str, b: str) -> bool:
    try:
        return Path(a).read_bytes() == Path(b).read_bytes()
    except OSError:
        return False


# --- the parent's side ------------------------------------------------------------------------


def _top_path(name: str, origin: str) -> Path:
    """The top-level package folder (or lone module file) of module ``name`` loaded from ``origin``."""
    path = Path(os.path.realpath(origin))
    if path.name == "__init__.py":
        path = path.parent
    for _ in name.split(".")[1:]:
        path = path.parent
    return path


def _counterpart(origin: str, top: Path, target: Path) -> str:
    return str(target / Path(os.path.realpath(origin)).relative_to(top)) if top.is_dir() else str(target)


def plan_resume(ready: dict[str, Any], original: dict[str, Any], copy: dict[str, Any]) -> dict[str, Any] | None:
    """Which checkpoint of the original's server (its ``ready`` line) the copy's server forks
    from, and the folders it moves; None where none may (every module started before it must be
    byte for byte the copy's)."""
    checkpoints = ready.get("checkpoints") or []
    if not checkpoints or original.get("module") != copy.get("module"):
        return None
    if not _same_bytes(os.path.realpath(original["model_file"]), os.path.realpath(copy["model_file"])):
        return None  # the model file runs first: nothing before it to keep
    root = Path(os.path.realpath(copy["import_root"]))
    kept_root = os.path.realpath(original["import_root"]) in {os.path.realpath(p) for p in copy["extra_paths"] or []}
    moved: dict[str, str] = {}
    order = ready.get("order") or []
    first = len(order)
    for index, (name, origin) in enumerate(order):
        top = _top_path(name, origin)
        target = root / top.name
        if target.exists():
            moved[str(top)] = str(target)
            if index < first and not _same_bytes(os.path.realpath(origin), _counterpart(origin, top, target)):
                first = index
        elif not (kept_root and str(top.parent) == os.path.realpath(original["import_root"])):
            first = min(first, index)  # the copy's import may not find it where the original did
    usable = [(index, where) for index, where in checkpoints if index <= first]
    if not usable:
        return None
    index, where = usable[-1]
    return {"checkpoint": where, "index": index, "moved": moved,
            "original": {"import_root": original["import_root"], "extra_paths": list(original["extra_paths"] or [])}}


def connect(checkpoint: str, folder: Path, plan: dict[str, Any], resume: dict[str, Any]) -> int:
    """Ask the checkpoint for a resumed server that connects to ``folder``'s socket; its pid."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.settimeout(30)
        sock.connect(checkpoint)
        sock.sendall((json.dumps({"folder": str(folder), "plan": plan, "moved": resume["moved"],
                                  "original": resume["original"]}) + "\n").encode())
        line = sock.makefile("rb").readline()
    finally:
        sock.close()
    return int(json.loads(line)["pid"])
