"""Which source files are the user's: the model's own code, not Python's, torch's or ours.

Used by the observer (which lines of the user's code ran) and by the verifier's model task
(which modules the model file imported, so that a wrapper's model gets rewritten too).
"""

from __future__ import annotations

import os
import sys
import sysconfig
from typing import Any, Iterable

#: The trtcodemod package folder: its frames and files are never the user's.
OURS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SKIP_PREFIXES = tuple(
    {os.path.realpath(p) + os.sep for p in (sysconfig.get_paths().get("stdlib"), sysconfig.get_paths().get("purelib"),
                                            sysconfig.get_paths().get("platlib"), sys.prefix, sys.base_prefix, OURS)
     if p}
)


class UserFiles:
    """Is a code file the user's? Real files outside the stdlib, site-packages, the venv and trtcodemod."""

    def __init__(self, roots: list[str]) -> None:
        self._cache: dict[str, bool] = {}
        # The model's own folders always count, even inside a virtual environment.
        self._roots = tuple(os.path.realpath(r) + os.sep for r in roots if r)

    def __call__(self, filename: str) -> bool:
        known = self._cache.get(filename)
        if known is None:
            known = self._cache[filename] = self._decide(filename)
        return known

    def _decide(self, filename: str) -> bool:
        if not filename or filename.startswith("<"):
            return False
        real = os.path.realpath(filename)
        if real.startswith(self._roots) and not real.startswith(OURS + os.sep):
            return True
        if real.startswith(_SKIP_PREFIXES) or "site-packages" in real or "dist-packages" in real:
            return False
        return os.path.isfile(real)


def imported_user_files(modules: Iterable[Any], roots: list[str]) -> list[str]:
    """The user's ``.py`` files among imported ``modules`` (e.g. ``sys.modules.values()``)."""
    user = UserFiles(roots)
    files = set()
    for module in list(modules):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.endswith(".py") and user(path):
            files.add(os.path.realpath(path))
    return sorted(files)
