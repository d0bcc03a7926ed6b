"""Which code is the user's: one answer for every place that puts a problem at a line.

The observer (which lines ran), the exporters' warnings and failures (where a value was
baked in, where an export broke), the ONNX nodes' stacks (where a hostile node came from)
and the verifier's list of imported files all ask the same question, and must get the same
answer whatever the layout of the user's checkout:

* the model file and a library checkout in one folder;
* a library on ``PYTHONPATH`` from a folder beside the model's;
* an editable install (``pip install -e``: a ``.pth`` entry or an import hook that points
  at the clone, wherever it is, a virtual environment's ``src/`` included).

So the test is what the file is, not where the model file is: a real file is the user's
unless it is installed code (the standard library, a ``site-packages``/``dist-packages``
folder) or trtcodemod's own. The model's own folders always count, even where they sit
inside an installed tree. Where several user frames are on a stack, the innermost is the
line that made the value (a library helper, not the wrapper that called it).

Standard library only: every floor of the package may import this.
"""

from __future__ import annotations

import os
import re
import sys
import sysconfig
from typing import Iterable

#: The trtcodemod package folder: its frames and files are never the user's.
OURS = os.path.dirname(os.path.abspath(__file__))
_INSTALLED_DIRS = ("site-packages", "dist-packages")


def _installed_prefixes() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    dirs = {paths.get(key) for key in ("stdlib", "platstdlib", "purelib", "platlib")}
    return tuple(sorted({os.path.realpath(d) + os.sep for d in dirs if d} | {OURS + os.sep}))


_SKIP_PREFIXES = _installed_prefixes()


def is_installed(path: str) -> bool:
    """Installed code (the stdlib, a site-packages folder) or trtcodemod's: never the user's."""
    real = os.path.realpath(path)
    if real.startswith(_SKIP_PREFIXES):
        return True
    return any(part in _INSTALLED_DIRS for part in re.split(r"[\\/]+", real))


class UserFiles:
    """Is a code file the user's? Real files that are not installed code nor trtcodemod's.

    ``roots`` are the model's own folders: they count even inside an installed tree.
    """

    def __init__(self, roots: Iterable[str] = ()) -> None:
        self._cache: dict[str, bool] = {}
        self._roots = tuple(os.path.realpath(r) + os.sep for r in roots if r)

    def __call__(self, filename: str) -> bool:
        known = self._cache.get(filename)
        if known is None:
            known = self._cache[filename] = self._decide(filename)
        return known

    def _decide(self, filename: str) -> bool:
        if not filename or filename.startswith("<"):
            return False  # <frozen ...>, <string>, generated code
        real = os.path.realpath(filename)
        if real.startswith(OURS + os.sep):
            return False
        if self._roots and real.startswith(self._roots):
            return True
        return not is_installed(real) and os.path.isfile(real)


def module_file(module: object) -> str | None:
    """The file a loaded module came from (its ``__file__``), read without running its code: a
    lazy module (speechbrain's ``LazyModule``, which imports its target on the first attribute
    read) would import then, and fail where the optional dependency is missing."""
    try:
        namespace = object.__getattribute__(module, "__dict__")
    except Exception:  # noqa: BLE001 - an object in sys.modules that is no module
        return None
    path = namespace.get("__file__") if isinstance(namespace, dict) else None
    return path if isinstance(path, str) else None


def innermost(frames: Iterable[tuple[str, int]], user: UserFiles) -> tuple[str, int] | None:
    """The innermost user frame of ``frames`` (given outermost first), as ``(real path, line)``."""
    found = None
    for file, line in frames:
        if line and user(file):
            found = (os.path.realpath(file), int(line))
    return found


#: The user's line an exporter failure ends with (``"...: message [at /path/m.py:12]"``): the
#: export worker's pick among the user's frames, which a rewritten copy's report maps back.
AT_USER_LINE = re.compile(r" \[at (?P<file>[^\]]+?):(?P<line>\d+)(?P<note>[^\]:]*)\]$")


def at_user_line(where: tuple[str, int]) -> str:
    """The suffix :data:`AT_USER_LINE` reads back."""
    return f" [at {where[0]}:{where[1]}]"


def user_frames_on_stack(user: UserFiles, depth: int = 0, limit: int = 2) -> list[tuple[str, int]]:
    """The ``limit`` innermost user frames on the current stack (innermost first), ``depth`` frames
    above the caller's, each as ``(real path, line)``: the line a warning came from and the user's
    line that called the function holding it."""
    found: list[tuple[str, int]] = []
    frame = sys._getframe(depth + 1)
    while frame is not None and len(found) < limit:
        if user(frame.f_code.co_filename):
            found.append((os.path.realpath(frame.f_code.co_filename), frame.f_lineno))
        frame = frame.f_back
    return found


def user_frame_on_stack(user: UserFiles, depth: int = 0) -> tuple[str, int] | None:
    """The innermost user frame on the current stack, ``depth`` frames above the caller's, as
    ``(real path, line)``: the line a warning, a traced value or a torch call came from."""
    frame = sys._getframe(depth + 1)
    while frame is not None:
        if user(frame.f_code.co_filename):
            return os.path.realpath(frame.f_code.co_filename), frame.f_lineno
        frame = frame.f_back
    return None
