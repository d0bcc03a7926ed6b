"""A fork server for the workers: torch imported once, each task a fork of that process.

A worker used to be a fresh interpreter (``python -m MODULE FOLDER``) that imported torch
again: on a small model that import is most of every step (observe, build and export, each
ONNX Runtime run, each round), and the by-hand pipeline pays it once. The server is started
once per parent process and per thread setting, imports torch, numpy, onnx and onnxruntime
(what every worker imports; the thread variables are set before, as a fresh worker sets
them), and then forks one child per task. The child is what the fresh worker was: a session
of its own (so a timeout ends all it started), its output in the task's log, the parent's
environment and working directory of the moment, the module's ``main([folder])`` (what its
``__main__`` block runs); it reads ``request.pkl`` and writes ``result.pkl`` as before.

Protocol (one line each, JSON): the parent writes ``{"id", "module", "folder", "log", "env",
"cwd"}``; the server answers ``{"id", "pid"}`` when it forked and ``{"pid", "code"}`` when that
child ended (``code`` as ``Popen.returncode``: negative for a signal). The server ends when its
input closes, and with its parent (``PR_SET_PDEATHSIG``); a child ends with the server.

What a fork cannot give: state torch reads only while importing comes from the server's
environment (the parent's when the server started). What an interpreter reads as it starts
(``PYTHONPATH``, the site directories' ``.pth`` files: a library laid out on ``PYTHONPATH`` or
installed editable since) is checked per task, and a server started before it changed is
replaced (``startup_signature``). ``TRTCODEMOD_FORKSERVER=0`` turns the
server off; any failure to start it falls back to a fresh interpreter per task.

A task that imports a model forks, one level further, from that model's server: a child of
this server that imported the model once and serves over a socket (``modelserver.py``).
"""

from __future__ import annotations

import atexit
import json
import os
import select
import signal
import subprocess
import sys
import threading
from typing import Any, Callable

#: What every worker imports: loaded once in the server, before any fork.
PRELOAD = ("numpy", "torch", "onnx", "onnxruntime", "trtcodemod.verify.worker", "trtcodemod.verify.backends",
           "trtcodemod.verify.export", "trtcodemod.verify.inputs", "trtcodemod.migrate.observe",
           "trtcodemod.verify.modelserver")
#: The variables a worker sets from its request's ``threads`` before torch loads (``worker_main``).
THREAD_VARIABLES = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "TRTCODEMOD_THREADS")

#: What this process did: servers started, tasks forked, workers started as fresh interpreters
#: (``worker.run_task``'s fallback), model servers started and tasks forked from one
#: (``modelserver.py``). Tests read it; nothing else does.
STATS = {"servers": 0, "forks": 0, "fresh": 0, "model_servers": 0, "preloaded_forks": 0, "resumed_model_servers": 0}


# --- the server -------------------------------------------------------------------------------


def _preload() -> dict[str, Any]:
    import importlib

    for name in PRELOAD:
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - a module that does not import is imported (and fails) in the task
            pass
    return {}


def _child(task: dict[str, Any], keep: tuple[int, ...]) -> None:
    """In the forked child: become the fresh worker the task asked for; never returns."""
    code = 1
    try:
        os.setsid()
        signal.set_wakeup_fd(-1)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for fd in keep:
            os.close(fd)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        log = os.open(task["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(log, 1)
        os.dup2(log, 2)
        os.close(null)
        os.close(log)
        os.environ.clear()
        os.environ.update(task["env"])
        os.environ["TRTCODEMOD_PARENT_PID"] = str(os.getppid())  # the worker ends with the server
        os.chdir(task["cwd"])
        sys.path[0] = task["cwd"]  # what ``python -m`` puts first
        import faulthandler
        import importlib
        import random

        faulthandler.enable()
        random.seed()  # a fresh interpreter's state, not the server's
        sys.argv = [task["module"], task["folder"]]
        try:
            # Every worker module has ``main(argv)`` (what its ``__main__`` block calls).
            code = int(importlib.import_module(task["module"]).main([task["folder"]]) or 0)
        except SystemExit as exc:
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except BaseException:  # noqa: BLE001 - an interpreter would print it and exit 1
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        finally:
            os._exit(code)


def end_with_parent() -> None:
    """On Linux, have the kernel kill this worker when the process that started it dies.

    Workers run in a session of their own (so a timeout ends all they started); without this,
    a parent killed from outside (a zoo's model process hit by the out-of-memory killer, a
    Ctrl-C'd command) would leave them running as orphans.
    """
    parent = os.environ.get("TRTCODEMOD_PARENT_PID")
    if not sys.platform.startswith("linux") or not parent:
        return
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        return
    if os.getppid() != int(parent):  # it died before the call above
        os._exit(1)


def serve(proto: tuple[int, int] | None = None, preload: Callable[[], dict[str, Any]] | None = None) -> int:
    """The server's loop: fork per request line, report each child's end.

    ``proto``: the protocol's ``(input, output)`` descriptors (default: private copies of
    stdin/stdout); ``preload``: what to import before the first fork (default ``PRELOAD``), whose
    answer goes into the ``ready`` line; an answer with ``failed`` ends the server there.
    """
    end_with_parent()
    if proto is None:
        # The protocol keeps private copies of stdin/stdout; fds 1 and 2 go nowhere, so nothing
        # an import prints can break a line of it.
        proto = os.dup(0), os.dup(1)
        null = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1, 2):
            os.dup2(null, fd)
        os.close(null)
    proto_in, proto_out = proto
    loaded = (preload or _preload)()
    out = os.fdopen(proto_out, "w", buffering=1)
    out.write(json.dumps({"ready": os.getpid(), **loaded}) + "\n")
    if loaded.get("failed"):
        return 1
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    signal.set_wakeup_fd(wake_w)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    pending = b""
    while True:
        ready, _, _ = select.select([proto_in, wake_r], [], [])
        if wake_r in ready:
            os.read(wake_r, 4096)
        _reap(out)
        if proto_in not in ready:
            continue
        chunk = os.read(proto_in, 65536)
        if not chunk:
            return 0
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            task = json.loads(line)
            pid = os.fork()
            if pid == 0:
                _child(task, (proto_in, proto_out, wake_r, wake_w))
            out.write(json.dumps({"id": task["id"], "pid": pid}) + "\n")


def _reap(out: Any) -> None:
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        out.write(json.dumps({"pid": pid, "code": os.waitstatus_to_exitcode(status)}) + "\n")


# --- the parent's side ------------------------------------------------------------------------


class ServerGone(Exception):
    """The server is not there (did not start, or died): run the task in a fresh interpreter."""


class ForkServer:
    """The parent's handle on one server: start a task, wait for its end.

    ``env``: start the server (``python -m trtcodemod.verify.forkserver``) and wait for it to be
    ready. A subclass passes ``env=None`` and calls ``_attach`` with its own channel, whose
    ``ready`` line may come later (``modelserver.py``).
    """

    def __init__(self, env: dict[str, str] | None) -> None:
        self._lock = threading.Lock()
        self._changed = threading.Condition(self._lock)
        self._pids: dict[int, int] = {}
        self._codes: dict[int, int] = {}
        self._next = 0
        self._alive = True
        self._busy = 0  # tasks started and not yet seen to end
        self._retired = False
        self.ready: dict[str, Any] | None = None  # the server's ready line
        self.models: dict[tuple[Any, ...], Any] = {}  # this server's model servers (``modelserver.py``)
        self.no_resume: set[tuple[Any, ...]] = set()  # their keys that import afresh (``resume.py``)
        if env is None:
            return
        self.proc = subprocess.Popen([sys.executable, "-m", "trtcodemod.verify.forkserver"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                     env=env, start_new_session=True)
        assert self.proc.stdout is not None and self.proc.stdin is not None
        line = self.proc.stdout.readline()
        if not line:
            self.proc.wait()
            raise ServerGone("the fork server did not start")
        self.ready = json.loads(line)
        STATS["servers"] += 1
        self._attach(self.proc.stdout, self.proc.stdin)

    def _attach(self, reader: Any, writer: Any) -> None:
        self._writer = writer
        threading.Thread(target=self._read, args=(reader,), daemon=True, name="trtcodemod-forkserver").start()

    def _read(self, reader: Any) -> None:
        try:
            for line in reader:
                self._receive(json.loads(line))
        except (OSError, ValueError):
            pass  # a killed server's channel: it is gone, as at its end
        with self._changed:
            self._alive = False
            self._changed.notify_all()

    def _receive(self, message: dict[str, Any]) -> None:
        with self._changed:
            if "ready" in message:
                self.ready = message
                self._alive = not message.get("failed")
            elif "code" in message:
                self._codes[message["pid"]] = message["code"]
            else:
                self._pids[message["id"]] = message["pid"]
            self._changed.notify_all()

    def start(self, module: str, folder: str, log: str, env: dict[str, str], timeout: float | None = None,
              worker: bool = True) -> int:
        """Fork a worker running ``module`` on ``folder``; its pid. ``timeout``: how long to wait
        for the fork (a model server forks once its preload is done); past it, ``StartTimeout``.
        ``worker=False``: a server of its own (``modelserver.py``), not a task to wait for."""
        with self._changed:
            if not self._alive:
                raise ServerGone("the fork server ended")
            self._next += 1
            ident = self._next
            line = json.dumps({"id": ident, "module": module, "folder": folder, "log": log, "env": env,
                               "cwd": os.getcwd()}) + "\n"
            try:
                self._writer.write(line.encode())
                self._writer.flush()
            except (OSError, ValueError) as exc:
                self._alive = False
                raise ServerGone(f"the fork server ended: {exc}") from exc
            if not self._changed.wait_for(lambda: ident in self._pids or not self._alive, timeout):
                raise StartTimeout(f"no fork within {timeout:g} s")
            if ident not in self._pids:
                raise ServerGone("the fork server ended")
            if worker:
                STATS["forks"] += 1
                self._busy += 1
            return self._pids.pop(ident)

    def wait(self, pid: int, timeout: float | None) -> int | None:
        """The worker's exit code; None if it still runs after ``timeout`` (raises nothing)."""
        with self._changed:
            self._changed.wait_for(lambda: pid in self._codes or not self._alive, timeout)
            if pid in self._codes:
                code = self._codes.pop(pid)
            elif not self._alive:
                code = -signal.SIGKILL  # the server died, and its workers with it
            else:
                return None
            self._busy -= 1
            idle = self._retired and self._busy <= 0
        if idle:
            self.close()
        return code

    def retire(self) -> None:
        """Close it once no task of its runs (closing ends the tasks it forked)."""
        with self._changed:
            self._retired = True
            idle = self._busy <= 0
        if idle:
            self.close()

    def close(self) -> None:
        """Close its input: it ends by itself (and with this process, whichever comes first)."""
        for model in list(self.models.values()):
            if model is not None:
                model.close()
        self.models.clear()
        try:
            self._writer.close()
        except (OSError, AttributeError):
            pass


class StartTimeout(Exception):
    """The server did not fork the task in time (a model server still importing the model)."""


_servers: dict[tuple[str, tuple[Any, ...]], ForkServer | None] = {}
_servers_lock = threading.Lock()


def _forget() -> None:
    """In a child forked from a process with servers: those are its parent's, not its own."""
    global _servers_lock
    _servers.clear()
    _servers_lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget)


def startup_signature() -> tuple[Any, ...]:
    """What a fresh interpreter reads as it starts and a fork inherits instead: ``PYTHONPATH``
    and the ``.pth`` files of the site directories (each with its modification time)."""
    import site

    found = []
    for folder in [*site.getsitepackages(), site.getusersitepackages()]:
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".pth"))
        except OSError:
            continue
        for name in names:
            try:
                found.append((folder, name, os.stat(os.path.join(folder, name)).st_mtime_ns))
            except OSError:
                continue
    return os.environ.get("PYTHONPATH", ""), tuple(found)


def server(threads: Any) -> ForkServer | None:
    """This process's server for ``threads`` (started on first use); None where there is none."""
    if os.environ.get("TRTCODEMOD_FORKSERVER", "1") == "0" or not hasattr(os, "fork"):
        return None
    key = (str(threads or ""), startup_signature())
    with _servers_lock:
        for stale in [k for k in _servers if k[0] == key[0] and k != key]:
            # A fresh interpreter would now start otherwise (another PYTHONPATH, a new editable
            # install's .pth): that server's imports and sys.path are out of date.
            handle = _servers.pop(stale)
            if handle is not None:
                handle.close()
        current = _servers.get(key)
        if current is not None and current._alive:
            return current
        if key in _servers and current is None:
            return None  # it failed to start once: do not pay for it again
        env = {**os.environ, "TRTCODEMOD_PARENT_PID": str(os.getpid())}
        if threads:
            env.update({variable: str(threads) for variable in THREAD_VARIABLES})
        try:
            _servers[key] = ForkServer(env)
        except (OSError, ServerGone):
            _servers[key] = None
        return _servers[key]


@atexit.register
def shutdown() -> None:
    """End every server of this process (their idle input closes)."""
    with _servers_lock:
        for handle in _servers.values():
            if handle is not None:
                handle.close()
        _servers.clear()


if __name__ == "__main__":
    sys.exit(serve())
