"""The user's files among the imported modules (the verifier's model task).

Which file is the user's is decided once, in :mod:`trtcodemod.usercode`; this module
keeps the verifier's question: which modules the model file imported, so that a
wrapper's model gets rewritten too.
"""

from __future__ import annotations

import os
from typing import Any, Iterable

from trtcodemod.usercode import UserFiles, module_file


def imported_user_files(modules: Iterable[Any], roots: list[str]) -> list[str]:
    """The user's ``.py`` files among imported ``modules`` (e.g. ``sys.modules.values()``)."""
    user = UserFiles(roots)
    files = set()
    for module in list(modules):
        path = module_file(module)
        if isinstance(path, str) and path.endswith(".py") and user(path):
            files.add(os.path.realpath(path))
    return sorted(files)
