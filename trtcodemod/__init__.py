"""trtcodemod: rewrite PyTorch model code into TensorRT-safe form.

The Python API (see :mod:`trtcodemod.api`): ``check_source(code)`` and ``apply_source(code)``.
"""

from trtcodemod.api import ApplyResult, apply_source, check_source
from trtcodemod.errors import InputError
from trtcodemod.release import __version__
from trtcodemod.rules import Finding

__all__ = ["ApplyResult", "Finding", "InputError", "apply_source", "check_source", "__version__"]
