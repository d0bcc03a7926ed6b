"""The eager reference of a model that asks whether it is being exported to ONNX.

Some models compute something else while ``torch.onnx.export`` traces them, on purpose:
nanodet's heads (``if torch.onnx.is_in_onnx_export(): return self._forward_onnx(feats)``,
a sigmoid applied and the outputs concatenated), mmdetection's heads, an NMS that is left
out of the graph. The graph a deploying user wants computes that branch, so the graph's
reference is the model's eager run with the same question answered "yes": in the verifier's
worker, while the reference runs, ``torch.onnx.is_in_onnx_export()`` answers True to the
model's own code, and the sites that asked are recorded for the report.

Only that question: both exporters answer it True (the TorchScript exporter's
``GLOBALS.in_onnx_export``, the dynamo exporter's ``_is_onnx_exporting``), and nothing but an
ONNX export does. ``torch.jit.is_tracing()`` is also True under ``torch.jit.trace`` and
``torch.compiler.is_exporting()`` under every ``torch.export``; models read those for a
trace-friendly form of the same values (and torch's own code behind them reads tracer state
that eager mode does not have), so they keep their eager answer.

Torch's own callers get the real answer (False in eager mode), and so do trtcodemod's
helpers (``_trt_onnx_exporting`` asks only once ``torch.jit.is_tracing()`` or
``torch.compiler.is_exporting()`` is True, so in eager mode it never asks and keeps the
original operation, whose values its export form matches).
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any, Iterator

_HELPER = "_trt_onnx_exporting"


def _asks_for_itself(filename: str) -> bool:
    """True for a caller that is the model's code: not torch's and not trtcodemod's."""
    import torch

    path = Path(filename)
    for package in (torch, sys.modules[__name__.split(".")[0]]):
        root = Path(package.__file__).parent
        if path == root or root in path.parents:
            return False
    return True


@contextlib.contextmanager
def export_branch_reference() -> Iterator[list[str]]:
    """While active, ``torch.onnx.is_in_onnx_export()`` answers True to the model's own code.

    Yields the list of ``file:line`` sites that asked (filled while the model runs); empty
    when the model never asks, in which case nothing it computed differs.
    """
    import torch

    original = torch.onnx.is_in_onnx_export
    asked: list[str] = []

    def is_in_onnx_export() -> bool:
        frame = sys._getframe(1)
        code = frame.f_code
        if code.co_name == _HELPER or not _asks_for_itself(code.co_filename):
            return original()
        site = f"{code.co_filename}:{frame.f_lineno}"
        if site not in asked:
            asked.append(site)
        return True

    is_in_onnx_export.__doc__ = original.__doc__
    torch.onnx.is_in_onnx_export = is_in_onnx_export
    try:
        yield asked
    finally:
        torch.onnx.is_in_onnx_export = original


def reference_note(asked: list[str], fallback: str | None = None) -> str:
    """The report's sentence on which eager reference was used, or "" for the ordinary one."""
    if not asked:
        return ""
    where = ", ".join(asked[:3]) + (f" and {len(asked) - 3} more" if len(asked) > 3 else "")
    if fallback:
        return (f"eager reference: the model's own branch (it asks torch.onnx.is_in_onnx_export() at {where}, "
                f"but its export branch fails in eager mode: {fallback})")
    return (f"eager reference: the export branch (the model asks torch.onnx.is_in_onnx_export() at {where}; "
            f"the reference ran with it answered True, as while exporting)")


def run_reference(run: Any) -> tuple[Any, str]:
    """``run()`` (:func:`backends.run_eager` bound to its arguments: a BackendRun and the output
    names) with the export question answered True for the model; when the model asked and
    its export branch failed on every input set, ``run()`` once more with the ordinary answer.
    Returns the run and the report's note."""
    with export_branch_reference() as asked:
        result = run()
    if asked and result[0].status != "ok":
        return run(), reference_note(asked, fallback=str(result[0].error or "failed")[:300])
    return result, reference_note(asked)
