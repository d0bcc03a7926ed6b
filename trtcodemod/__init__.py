"""trtcodemod: rewrite PyTorch model code into TensorRT-safe form.

The Python API (see :mod:`trtcodemod.api`): ``check_source(code)`` and ``apply_source(code)``.
"""

__version__ = "0.1.0"  # before the imports: modules below may read it

from trtcodemod.api import ApplyResult, apply_source, check_source  # noqa: E402
from trtcodemod.errors import InputError  # noqa: E402
from trtcodemod.rules import Finding  # noqa: E402

__all__ = ["ApplyResult", "Finding", "InputError", "apply_source", "check_source", "__version__"]
