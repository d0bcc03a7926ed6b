"""ONNX export with the TorchScript or dynamo exporter, warnings captured.

The TorchScript exporter runs with ``verbose=True`` so every node's ``doc_string``
carries the Python stack that produced it (the static check maps nodes to lines
from it). Exporter warnings are recorded: a ``TracerWarning`` names the line where
tracing turned a tensor into a Python value, i.e. where something got baked in.
Runs inside a worker process: imports torch.
"""

from __future__ import annotations

import contextlib
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping

import torch


@dataclass
class ExportResult:
    exporter: str
    path: str | None
    error: str | None = None
    #: ``{"category", "message", "file", "line"}`` for the warnings worth showing.
    warnings: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0


def _keep_warning(w: warnings.WarningMessage, user_roots: tuple[str, ...]) -> bool:
    """Tracer warnings, and anything raised from the user's own files; not torch's deprecations."""
    if w.category.__name__ == "TracerWarning":
        return True
    return any(str(w.filename).startswith(root) for root in user_roots)


def export_model(
    model: torch.nn.Module,
    args: tuple[torch.Tensor, ...],
    path: Path,
    *,
    exporter: str,
    input_names: list[str],
    output_names: list[str],
    dynamic_axes: Mapping[str, Mapping[int, str]],
    opset: int,
    user_roots: tuple[str, ...] = (),
) -> ExportResult:
    """Export ``model`` traced on ``args`` to ``path``; an exception becomes ``error``."""
    start = time.perf_counter()
    result = ExportResult(exporter=exporter, path=None)
    axes = {k: dict(v) for k, v in dynamic_axes.items()}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with torch.no_grad():
                if exporter == "torchscript":
                    torch.onnx.export(
                        model, args, str(path), dynamo=False, verbose=True,
                        input_names=input_names, output_names=output_names,
                        dynamic_axes=axes or None, opset_version=opset, do_constant_folding=True,
                    )
                elif exporter == "dynamo":
                    # dynamic_axes is converted to dynamic_shapes by torch; output names stay dynamo's.
                    with contextlib.redirect_stdout(None):
                        program = torch.onnx.export(
                            model, args, dynamo=True, input_names=input_names,
                            dynamic_axes=axes or None, opset_version=opset, verbose=False,
                        )
                    program.save(str(path), external_data=False)
                else:
                    raise ValueError(f"unknown exporter {exporter!r}")
            result.path = str(path)
        except Exception as exc:  # the exporter's own failure is a result to report
            result.error = f"{type(exc).__name__}: {_first_lines(str(exc))}"
            result.warnings.append({"category": "traceback", "message": traceback.format_exc()[-4000:],
                                    "file": None, "line": None})
    seen = set()
    for w in caught:
        if not _keep_warning(w, user_roots):
            continue
        key = (w.category.__name__, str(w.message), w.filename, w.lineno)
        if key in seen:
            continue
        seen.add(key)
        result.warnings.append({"category": w.category.__name__, "message": _first_lines(str(w.message), 1),
                                "file": str(w.filename), "line": int(w.lineno)})
    result.seconds = time.perf_counter() - start
    return result


def _first_lines(text: str, n: int = 3) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return " ".join(lines[:n])[:600]
