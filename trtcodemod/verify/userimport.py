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


#: Added to the module name of a lone model file named like a package beside it.
LONE_SUFFIX = "__trtcodemod_model"


def import_user_module(model_file: str, import_root: str, module: str, extra_paths: list[str]) -> Any:
    """Import the model file as ``module`` with ``import_root`` first on ``sys.path``.

    Files inside a package import by dotted name so their relative imports work;
    a lone file is loaded from its path. A lone file named like a package beside it (zoo 92's
    ``bangla_ocr.py`` next to the ``bangla_ocr/`` it imports) is registered under a name of its own:
    under its stem it would stand for the package in ``sys.modules`` (or, imported by name, be the
    package), and its own ``from bangla_ocr.model import ...`` would fail.
    """
    for path in reversed([import_root, *extra_paths]):
        sys.path.insert(0, path)
    package = Path(import_root) / module
    if "." in module or (package / "__init__.py").exists() \
            and (package / "__init__.py").resolve() == Path(model_file).resolve():
        return importlib.import_module(module)
    if package.is_dir():
        module = f"{module}{LONE_SUFFIX}"
    spec = importlib.util.spec_from_file_location(module, model_file)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {model_file}")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[module] = mod
    spec.loader.exec_module(mod)
    return mod
