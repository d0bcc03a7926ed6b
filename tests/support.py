"""Shared test tools: rewrite a snippet, run code before/after on tensors, read ONNX ops."""

from __future__ import annotations

import importlib
import io
import textwrap
import warnings
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Callable, Iterator

from trtcodemod.engine import Options, check_source, fix_source

#: The suite's root (its helper modules and real-code variants; each test file sits a folder or two
#: below it, docs/architecture.md "Tests") and the repository's.
TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent


def invoke(*args: str) -> Any:
    """Run the CLI in-process; an exception other than the exit itself reaches the test."""
    from typer.testing import CliRunner

    from trtcodemod.cli import app

    result = CliRunner().invoke(app, list(args))
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result


def migrate_json(model: Any, dynamic_axes: str, *extra: str) -> dict[str, Any]:
    """``migrate`` on a model file's ``build``/``inputs`` (one timed run, the two CPU backends): the
    JSON report of its model."""
    import json

    result = invoke("migrate", str(model), "--model", "build", "--inputs", "inputs", "--dynamic-axes", dynamic_axes,
                    "--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu", "--format", "json",
                    *extra)
    return json.loads(result.stdout)["models"][0]


def migrate_small(path: Path) -> tuple[dict[str, Any], int]:
    """``migrate``'s JSON report of the model ``build`` in ``path`` (input x: 1x3x5x5), quickly, and
    its exit code."""
    import json

    result = invoke("migrate", str(path), "--model", "build", "--input-shape", "x:1x3x5x5", "--format", "json",
                    "--runs", "1", "--warmup", "0", "--backends", "torch-cpu,onnxruntime-cpu")
    [report] = json.loads(result.stdout)["models"]
    return report, result.exit_code


def rewrite(code: str, *, unsafe: bool = False, select: tuple[str, ...] = ("ALL",), target: str = "8.6") -> str:
    """Apply every selected fix to ``code`` (dedented) and return the new text."""
    source = textwrap.dedent(code).encode()
    result = fix_source(source, "snippet.py", Options(select=select, unsafe=unsafe, target=target))
    return result.source.decode()


def rules_found(code: str, *, target: str = "8.6", select: tuple[str, ...] = ("ALL",)) -> list[str]:
    """Rule IDs reported for ``code``, in source order."""
    findings = check_source(textwrap.dedent(code).encode(), "snippet.py", Options(select=select, target=target))
    return [f.rule for f in findings]


def import_file(path: Any, name: str) -> Any:
    """Import the Python file at ``path`` as module ``name`` (registered in ``sys.modules``: dataclasses look it up)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def bits_equal(x: Any, y: Any) -> bool:
    """Same dtype, shape, strides and bytes (NaN payloads and -0.0 included)."""
    import torch

    return (x.dtype == y.dtype and x.shape == y.shape and x.stride() == y.stride()
            and torch.equal(x.contiguous().reshape(-1).view(torch.uint8), y.contiguous().reshape(-1).view(torch.uint8)))


def load(code: str, name: str) -> Callable[..., Any]:
    """Execute module source and return the object called ``name``."""
    namespace: dict[str, Any] = {"__name__": "snippet"}
    exec(compile(textwrap.dedent(code), "snippet.py", "exec"), namespace)
    return namespace[name]


def assert_same(expected: Any, actual: Any, *, atol: float = 0.0, rtol: float = 0.0) -> None:
    """Equal shapes, dtypes and values; NaN equals NaN, inf must match inf of the same sign."""
    import torch

    if isinstance(expected, (tuple, list)):
        assert isinstance(actual, (tuple, list)) and len(expected) == len(actual), (expected, actual)
        for e, a in zip(expected, actual):
            assert_same(e, a, atol=atol, rtol=rtol)
        return
    if not isinstance(expected, torch.Tensor):
        assert expected == actual, (expected, actual)
        return
    assert isinstance(actual, torch.Tensor), type(actual)
    assert expected.shape == actual.shape, (expected.shape, actual.shape)
    assert expected.dtype == actual.dtype, (expected.dtype, actual.dtype)
    torch.testing.assert_close(actual, expected, atol=atol, rtol=rtol, equal_nan=True)
    if expected.is_floating_point():
        # assert_close treats -0.0 == 0.0; sign of zero matters for atan2-like results.
        both_zero = (expected == 0) & (actual == 0)
        assert torch.equal(torch.signbit(expected[both_zero]), torch.signbit(actual[both_zero])), "signed zero differs"


def onnx_ops(model: Any, args: tuple, *, dynamic_axes: dict | None = None, input_names: list[str] | None = None,
             opset: int = 17) -> list[str]:
    """Op types of the TorchScript-exported ONNX graph of ``model`` (subgraphs included)."""
    import onnx
    import torch

    buffer = io.BytesIO()
    names = input_names or [f"input_{i}" for i in range(len(args))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, args, buffer, dynamo=False, opset_version=opset,
                          input_names=names, dynamic_axes=dynamic_axes or {})
    graph = onnx.load_from_string(buffer.getvalue()).graph
    ops: list[str] = []

    def walk(g: Any) -> None:
        for node in g.node:
            ops.append(node.op_type)
            for attr in node.attribute:
                if attr.type == onnx.AttributeProto.GRAPH:
                    walk(attr.g)

    walk(graph)
    return ops


def ort_session(model: bytes) -> Any:
    """An ONNX Runtime CPU session over a serialized model."""
    import onnxruntime as ort

    return ort.InferenceSession(model, providers=["CPUExecutionProvider"])


def export_torchscript(module: Any, example: tuple, axes: dict) -> bytes:
    """``module`` exported by the TorchScript-based exporter, ``axes`` naming the inputs and their dynamic axes."""
    import torch

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(module, example, buffer, dynamo=False, input_names=list(axes), dynamic_axes=axes)
    return buffer.getvalue()


def export_dynamo(module: Any, example: tuple, shapes: tuple) -> bytes:
    """``module`` exported by the dynamo-based exporter with ``shapes`` as its dynamic shapes."""
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        program = torch.onnx.export(module, example, dynamo=True, dynamic_shapes=shapes, verbose=False)
    return program.model_proto.SerializeToString()


def same_up_to_zero_sign(got: Any, want: Any) -> bool:
    """Same dtype, shape and values, NaN where ``want`` has NaN; zeros of either sign are equal (ONNX
    Runtime's Where writes -0.0 as 0.0)."""
    import torch

    return got.dtype == want.dtype and got.shape == want.shape and torch.equal(got.isnan(), want.isnan()) and (
        torch.equal(got.nan_to_num(0.0), want.nan_to_num(0.0)))


def strip_helpers(code: str) -> str:
    """``code`` without the helper block trtcodemod inserts (to compare call sites only)."""
    import libcst as cst

    from trtcodemod.helpers import is_reserved

    module = cst.parse_module(code)
    body = []
    after_helper = False
    for stmt in module.body:
        if is_reserved(stmt):
            after_helper = True
            continue
        if after_helper and hasattr(stmt, "leading_lines"):
            # The engine puts two blank lines between the helpers and the code after them;
            # examples are written without them.
            lead = list(stmt.leading_lines)
            for _ in range(2):
                if lead and lead[0].comment is None:
                    lead.pop(0)
            stmt = stmt.with_changes(leading_lines=lead)
        after_helper = False
        body.append(stmt)
    stripped = module.with_changes(body=body).code
    return stripped


@contextmanager
def export_formulation(*namespaces: dict) -> Iterator[None]:
    """Make the helpers take their ``torch.onnx.export`` formulation in eager mode.

    Patches ``_trt_onnx_exporting`` in the package's helper modules and in the given
    namespaces (rewritten snippets carry their own copy), so the formulation that the
    exported graph computes can be compared with the torch operation on real tensors.
    """
    from trtcodemod.helpers import HELPER_MODULES

    holders = [importlib.import_module(f"trtcodemod.helpers.{name}").__dict__ for name in HELPER_MODULES]
    holders += list(namespaces)
    saved = [(holder, holder["_trt_onnx_exporting"]) for holder in holders if "_trt_onnx_exporting" in holder]
    for holder, _ in saved:
        holder["_trt_onnx_exporting"] = lambda: True
    try:
        yield
    finally:
        for holder, original in saved:
            holder["_trt_onnx_exporting"] = original


def export_nchw(model: Any, x: Any, dynamo: bool, min_side: int = 2) -> Any:
    """``model`` of one image batch ``x`` exported with batch, height and width dynamic (opset 17
    for the TorchScript exporter): the ONNX model."""
    import onnx
    import torch

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            dims = {0: torch.export.Dim("n"), 2: torch.export.Dim("h", min=min_side),
                    3: torch.export.Dim("w", min=min_side)}
            return torch.onnx.export(model, (x,), dynamo=True, input_names=["x"], dynamic_shapes={"x": dims},
                                     verbose=False).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "n", 2: "h", 3: "w"}})
        return onnx.load_from_string(buffer.getvalue())

