"""Shared by the einsum recipe-variant tests (TRT303, TRT304): a variant rewritten by one rule at a
TensorRT target where the rule fires, its graphs' Einsum nodes, and a graph compared with eager mode
output by output.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch
from variant_models import export_variant, export_variant_dynamo, input_names, load_variant

from trtcodemod.engine import Options, fix_source


def rewrite_at(path: Path, rule: str, target: str, unsafe: bool) -> str:
    """The variant's file as ``rule`` rewrites it for TensorRT ``target`` (every scope)."""
    options = Options(select=(rule,), scope="all", unsafe=unsafe, target=target)
    return fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()


def migrated(path: Path, rule: str, target: str, folder: Path) -> dict:
    """The variant, its ``--unsafe`` rewrite, both models (same weights) and the ONNX graphs: the
    original's and the rewrite's (TorchScript exporter), and the rewrite's with the dynamo exporter."""
    source = rewrite_at(path, rule, target, unsafe=True)
    new_path = folder / f"{path.stem}_rewritten.py"
    new_path.write_text(source)
    module = load_variant(path, f"{rule.lower()}_{path.stem}")
    torch.manual_seed(0)
    original = module.build().eval()
    torch.manual_seed(0)
    rewritten = load_variant(new_path, f"{rule.lower()}_{path.stem}_rewritten").build().eval()
    example = module.inputs(torch.Generator().manual_seed(0))
    export_variant(original, example, module.DYNAMIC, folder / "original.onnx", folder)
    torchscript, _ = export_variant(rewritten, example, module.DYNAMIC, folder / "rewritten.onnx", folder)
    dynamo = export_variant_dynamo(rewritten, example, module.DYNAMIC, folder / "rewritten_dynamo.onnx")
    return {"path": path, "source": source, "original": original, "rewritten": rewritten, "folder": folder,
            "example": example, "graphs": {"torchscript": torchscript, "dynamo": dynamo}}


def einsum_operand_counts(path: Path) -> list[int]:
    """How many operands each Einsum node of the graph at ``path`` takes, in graph order."""
    return [len(node.input) for node in onnx.load(str(path)).graph.node if node.op_type == "Einsum"]


def graph_outputs_match(session: ort.InferenceSession, model: torch.nn.Module, inputs: tuple,
                        tolerance: float, label: str) -> None:
    """Each graph output equals eager mode's: shape, dtype, values within ``tolerance`` (0: exactly),
    NaN where NaN."""
    with torch.no_grad():
        want = model(*inputs)
    want = [w.numpy() for w in (want if isinstance(want, tuple) else (want,))]
    got = session.run(None, {n: t.numpy() for n, t in zip(input_names(model), inputs)})
    assert len(got) == len(want), label
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype, (label, g.shape, w.shape)
        assert np.allclose(g, w, rtol=tolerance, atol=tolerance, equal_nan=True), (label, np.nanmax(abs(g - w)))


def assert_rewritten(source: str, fragments: tuple[str, ...], einsums_left: int) -> None:
    """Each fragment is in the rewritten file, and ``einsums_left`` einsum calls below its docstring."""
    missing = [fragment for fragment in fragments if fragment not in source]
    assert not missing, (missing, source)
    code = source.split('"""', 2)[2]
    assert code.count("einsum(") == einsums_left, code
