"""Loading the user's model file, as every worker and the model server do.

Its own module so that the model server (``modelserver.py``), which imports the model once for
the workers it forks, and the worker (``worker.py``), which asks for a model server, do not
import each other.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from typing import Any


def import_user_module(model_file: str, import_root: str, module: str, extra_paths: list[str]) -> Any:
    """Import the model file as ``module`` with ``import_root`` first on ``sys.path``.

    Files inside a package import by dotted name so their relative imports work;
    a lone file is loaded from its path (its name may shadow nothing).
    """
    for path in reversed([import_root, *extra_paths]):
        sys.path.insert(0, path)
    if "." in module or (Path(import_root) / module / "__init__.py").exists():
        return importlib.import_module(module)
    spec = importlib.util.spec_from_file_location(module, model_file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {model_file}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module] = mod
    spec.loader.exec_module(mod)
    return mod
