"""The safe helpers at the exporters' corners, with both exporters and ONNX Runtime against eager.

For every safe helper-based rule a program is rewritten by the engine (safe fixes only) and
exported before and after, with the TorchScript exporter (``dynamo=False``) and the dynamo
exporter, with a dynamic first axis. Each graph is then fed other inputs than the traced
one: empty, length 1, longer; bool and small integer dtypes; signed zeros, infinities and
NaN. The contract: wherever the original's graph runs in ONNX Runtime, the rewritten one
runs too and gives eager's values (or, where it does not, exactly what the original's
graph gives: the same program). A program traced with an empty example exports after the rewrite
wherever it did before. ``torch.fx`` traces of the rewritten programs record the torch
call the original made and still script.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnxruntime as ort
import pytest
import torch

from safety import import_source
from support import rewrite

HEADER = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n"
SPECIALS = [0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1.5, -2.0, 3.0, 1.5]


def values(length: int, dtype: torch.dtype, shift: int = 0) -> torch.Tensor:
    """``length`` edge values (signed zeros, infinities, NaN, repeats) in ``dtype``."""
    base = torch.tensor([SPECIALS[(i + shift) % len(SPECIALS)] for i in range(length)], dtype=torch.float64)
    if dtype == torch.bool:
        return base > 0
    if dtype.is_floating_point:
        return base.to(dtype)
    base = torch.nan_to_num(base, nan=0.0, posinf=7.0, neginf=-7.0).round()
    return (base.abs() if dtype == torch.uint8 else base).to(dtype)


@dataclass
class Corner:
    """A program with one construct a safe rule rewrites, and how to build its inputs."""

    rule: str
    body: str
    #: (length, dtype) → the forward's inputs; the first axis of each is the dynamic one.
    build: Any
    dtypes: tuple[torch.dtype, ...]
    target: str = "8.6"

    def inputs(self, length: int, dtype: torch.dtype) -> list[torch.Tensor]:
        return self.build(length, dtype)


def _pair(length: int, dtype: torch.dtype) -> list[torch.Tensor]:
    return [values(length, dtype), values(length, dtype, shift=3)]


def _one(length: int, dtype: torch.dtype) -> list[torch.Tensor]:
    return [values(length, dtype)]


def _rows(length: int, dtype: torch.dtype) -> list[torch.Tensor]:
    """Rows of two values and a float score per row (a comparison masks the rows)."""
    table = torch.stack([values(length, dtype), values(length, dtype, shift=5)], dim=1)
    return [table, values(length, torch.float32, shift=1)]


CORNERS = [
    Corner("TRT301", "class M(nn.Module):\n    def forward(self, y, x):\n        return torch.atan2(y, x)\n",
           _pair, (torch.float32, torch.float64)),
    Corner("TRT302", "class M(nn.Module):\n    def forward(self, x):\n        return torch.unique(x)\n",
           _one, (torch.float32, torch.int64, torch.int16, torch.int8, torch.bool)),
    Corner("TRT305", "class M(nn.Module):\n    def forward(self, x, ids):\n        return torch.isin(x, ids)\n",
           _pair, (torch.float32, torch.int64, torch.int8)),
    Corner("TRT201", "class M(nn.Module):\n    def forward(self, t, s):\n        return t[s > 0]\n",
           _rows, (torch.float32, torch.int16, torch.bool)),
    Corner("TRT501", "class M(nn.Module):\n    def forward(self, x):\n        return F.pad(x, (1, 2))\n",
           lambda n, dtype: [_rows(n, dtype)[0]], (torch.float32, torch.int16, torch.bool), target="8.0"),
    Corner("TRT204", "class M(nn.Module):\n    def forward(self, t, s):\n        t = t.clone()\n"
                     "        t[s > 0] = 1\n        return t\n",
           _rows, (torch.float32, torch.float16, torch.int16, torch.int8, torch.uint8, torch.bool)),
    Corner("TRT204", "class M(nn.Module):\n    def forward(self, t, s):\n        t = t.clone()\n"
                     "        t[s > 0] = -0.0\n        return 1 / t\n",
           _rows, (torch.float32, torch.float64)),
    # A name bound to a view: written through the same way before and after.
    Corner("TRT204", "class M(nn.Module):\n    def forward(self, t, s):\n        t = t * 1\n"
                     "        v = t[:, 1]\n        v[s > 0] = 2.5\n        return t\n",
           _rows, (torch.float32,)),
    # tensor_split at points (a negative one) and into sections; the parts put back out of order.
    Corner("TRT306", "class M(nn.Module):\n    def forward(self, x):\n        a, b, c = torch.tensor_split(x, (1, -1))\n"
                     "        return torch.cat([c, a, b])\n", _one, (torch.float32, torch.int64, torch.bool)),
    Corner("TRT306", "class M(nn.Module):\n    def forward(self, x):\n        a, b, c = x.tensor_split(3)\n"
                     "        return torch.cat([c, b, a])\n", _one, (torch.float32, torch.int64, torch.bool)),
    # unfold of a fixed axis under a dynamic first axis: pairs of values along the rows, the last one dropped.
    Corner("TRT311", "class M(nn.Module):\n    def forward(self, t):\n        return t.unfold(1, 2, 2).sum(-1)\n",
           lambda n, dtype: [torch.cat([_rows(n, dtype)[0]] * 2 + [_rows(n, dtype)[0][:, :1]], 1)],
           (torch.float32, torch.int64)),
    # TRT341 accumulating writes: every row summed into the first two (repeated indices), in place too.
    Corner("TRT341", "class M(nn.Module):\n    def forward(self, x):\n"
                     "        bins = torch.arange(x.shape[0], device=x.device) % 2\n"
                     "        y = x * 1\n        y.index_add_(0, bins, x)\n"
                     "        return torch.cat([x.index_add(0, bins, x), y, x.index_put((bins - 1,), x, accumulate=True)])\n",
           _one, (torch.float32, torch.float16, torch.int64, torch.int16)),
    # TRT337's elementwise fixes and flips (signed zeros, infinities, NaN), one column each.
    Corner("TRT337", "class M(nn.Module):\n    def forward(self, x):\n"
                     "        return torch.stack([torch.frac(x), torch.sgn(x), F.threshold(x, 0.5, -1.0), "
                     "torch.addcdiv(x, x, x.flip(0), value=0.5), x.flipud()], 1)\n",
           _one, (torch.float32, torch.float16)),
    # TRT343 sorts: a stable sort (repeats, signed zeros, infinities, NaN), its indices, a stable argsort descending
    # and an msort, one column each.
    Corner("TRT343", "class M(nn.Module):\n    def forward(self, x):\n"
                     "        values, order = x.sort(dim=0, stable=True)\n"
                     "        down = torch.argsort(x, dim=0, descending=True, stable=True)\n"
                     "        return torch.stack([values, order.to(x.dtype), down.to(x.dtype), torch.msort(x)], 1)\n",
           _one, (torch.float32, torch.float16, torch.int64, torch.int32, torch.uint8)),
    # TRT344 box coordinates written through an Ellipsis: a pair shifted, a pair clamped (NaN, infinities and
    # signed zeros in the boxes), one column scaled. ONNX Runtime refuses the original's TorchScript graph.
    Corner("TRT344", "class M(nn.Module):\n    def forward(self, x):\n"
                     "        y = torch.stack([x, x * 2, x - 1, x * 3], 1)\n"
                     "        y[..., [0, 2]] -= 1\n        y[..., [1, 3]] = y[..., [1, 3]].clamp(-2, 2)\n"
                     "        y[..., [3]] *= 2\n        return y\n",
           _one, (torch.float32, torch.float16, torch.int64, torch.int16)),
    # TRT344's write through a name bound to lists: columns 0, 1 and 3 of four, which no slice names.
    Corner("TRT344", "class M(nn.Module):\n    def forward(self, x):\n"
                     "        y = torch.stack([x, x * 2, x - 1, x * 3], 1)\n"
                     "        cols = [0, 1] + [3]\n        y[..., cols] = y[..., cols].clamp(-2, 2) * 3\n        return y\n",
           _one, (torch.float32, torch.float16, torch.int64, torch.int16)),
    # TRT346 counts of a torch.Size whose first axis is dynamic: the rows of a two-column table, its whole count
    # (empty, one row, five rows).
    Corner("TRT346", "class M(nn.Module):\n    def forward(self, x):\n"
                     "        y = torch.stack([x, x * 2], 1)\n"
                     "        return x * y.shape.numel() - y.size()[:1].numel() + y.shape[1:].numel()\n",
           _one, (torch.float32, torch.float16, torch.int64, torch.int16)),
    # TRT342 whole-window pooling over a 3x2 image per element (the batch is the dynamic axis: the dynamo
    # exporter keeps the original's static kernel; the TorchScript exporter stops on the original).
    Corner("TRT342", "class M(nn.Module):\n    def forward(self, x):\n"
                     "        y = x.reshape(-1, 1, 1, 1) * torch.tensor([[1.0, -2.0], [0.5, 3.0], [0.25, 1.0]], dtype=x.dtype)\n"
                     "        h, w = y.shape[2:]\n"
                     "        return torch.cat([F.avg_pool2d(y, y.size()[2:]).flatten(), F.max_pool2d(y, (h, 1)).flatten()])\n",
           _one, (torch.float32, torch.float64)),
]
CORNER_IDS = [f"{c.rule}-{n}" for n, c in enumerate(CORNERS)]
LENGTHS = (0, 1, 5)


class _Loaded:
    def __init__(self, folder) -> None:
        self.table = []
        for corner in CORNERS:
            source = HEADER + corner.body
            after = rewrite(source, target=corner.target)
            assert after != source, f"{corner.rule}: the fix did not apply"
            self.table.append((import_source(source, folder)["M"], import_source(after, folder)["M"]))

    def __repr__(self) -> str:
        return "<rewritten corner programs>"


@pytest.fixture(scope="module")
def loaded(tmp_path_factory) -> _Loaded:
    return _Loaded(tmp_path_factory.mktemp("safety_exporters"))


def export(model: torch.nn.Module, inputs: list[torch.Tensor], dynamo: bool) -> bytes:
    """The model's ONNX bytes, the first axis of every input dynamic."""
    names = [f"input_{i}" for i in range(len(inputs))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, tuple(inputs), dynamo=True, input_names=names, verbose=False,
                                        dynamic_shapes=tuple({0: torch.export.Dim.AUTO} for _ in inputs))
            return program.model_proto.SerializeToString()
        buffer = io.BytesIO()
        torch.onnx.export(model, tuple(inputs), buffer, dynamo=False, opset_version=17, input_names=names,
                          dynamic_axes={name: {0: "n"} for name in names})
        return buffer.getvalue()


def run_onnx(model_bytes: bytes, inputs: list[torch.Tensor]) -> torch.Tensor:
    session = ort.InferenceSession(model_bytes, providers=["CPUExecutionProvider"])
    feed = {arg.name: value.numpy() for arg, value in zip(session.get_inputs(), inputs)}
    return torch.from_numpy(np.asarray(session.run(None, feed)[0]))


def same(expected: torch.Tensor, got: torch.Tensor) -> bool:
    """Shape, dtype and values (NaN equal to NaN, a zero's sign counted); a few ulps for Atan."""
    if expected.shape != got.shape or expected.dtype != got.dtype:
        return False
    if not expected.is_floating_point():
        return torch.equal(expected, got)
    close = torch.isclose(expected.double(), got.double(), rtol=1e-6, atol=0.0, equal_nan=True)
    return bool((close & (torch.signbit(expected) == torch.signbit(got))).all())


def _attempt(build) -> Any:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return build()
        except Exception as error:  # noqa: BLE001 - a failure is an outcome here, compared below
            return error


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
@pytest.mark.parametrize("number", range(len(CORNERS)), ids=CORNER_IDS)
def test_exported_graphs_at_the_corners(loaded, number: int, dynamo: bool) -> None:
    """Both graphs, fed empty, short and long inputs of each dtype, in ONNX Runtime."""
    corner = CORNERS[number]
    before_type, after_type = loaded.table[number]
    problems = []
    for dtype in corner.dtypes:
        example = corner.inputs(3, dtype)
        graphs = [_attempt(lambda kind=kind: export(kind(), example, dynamo)) for kind in (before_type, after_type)]
        if isinstance(graphs[0], Exception):
            continue  # the original does not export: nothing to keep
        if isinstance(graphs[1], Exception):
            problems.append(f"{dtype}: the rewrite does not export: {graphs[1]!r:.200}")
            continue
        for length in LENGTHS:
            feed = corner.inputs(length, dtype)
            expected = before_type()(*[v.clone() for v in feed])
            original = _attempt(lambda: run_onnx(graphs[0], feed))
            if isinstance(original, Exception):
                continue  # ONNX Runtime cannot run the original's graph either
            rewritten = _attempt(lambda: run_onnx(graphs[1], feed))
            if isinstance(rewritten, Exception):
                problems.append(f"{dtype}, length {length}: the rewritten graph fails: {rewritten!r:.200}")
            elif not (same(expected, rewritten) or same(original, rewritten)):
                problems.append(f"{dtype}, length {length}: {rewritten.tolist()} instead of {expected.tolist()} "
                                f"(eager) or {original.tolist()} (the original's graph)")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("number", [n for n, c in enumerate(CORNERS) if c.rule in ("TRT301", "TRT302", "TRT201")],
                         ids=[i for i, c in zip(CORNER_IDS, CORNERS) if c.rule in ("TRT301", "TRT302", "TRT201")])
def test_traced_with_an_empty_example(loaded, number: int) -> None:
    """A length-0 example: wherever the original exports and runs, so does the rewrite, with its values."""
    corner = CORNERS[number]
    before_type, after_type = loaded.table[number]
    for dynamo in (False, True):
        example = corner.inputs(0, corner.dtypes[0])
        original = _attempt(lambda: export(before_type(), example, dynamo))
        if isinstance(original, Exception):
            continue
        rewritten = export(after_type(), example, dynamo)
        for length in LENGTHS:
            feed = corner.inputs(length, corner.dtypes[0])
            reference = _attempt(lambda: run_onnx(original, feed))
            if isinstance(reference, Exception):
                continue
            got = run_onnx(rewritten, feed)
            expected = before_type()(*feed)
            assert same(expected, got) or same(reference, got), (dynamo, length, got, expected, reference)


FX_CALLS = [("class M(nn.Module):\n    def forward(self, y, x):\n        return torch.atan2(y, x)\n", torch.atan2, 2),
            ("class M(nn.Module):\n    def forward(self, y, x):\n        return y.atan2(x) * 2\n", torch.atan2, 2),
            ("class M(nn.Module):\n    def forward(self, x):\n        return torch.unique(x)\n", torch.unique, 1),
            ("class M(nn.Module):\n    def forward(self, x):\n        return x.unique() + 1\n", torch.unique, 1)]


@pytest.mark.parametrize("body,call,arity", FX_CALLS, ids=["atan2", "atan2-method", "unique", "unique-method"])
def test_fx_records_the_torch_call_and_scripts(tmp_path, body: str, call: Any, arity: int) -> None:
    """An fx Proxy takes the helper's torch branch: the graph holds torch.atan2 / torch.unique, no method."""
    source = HEADER + body
    after = rewrite(source)
    assert after != source
    before_type, after_type = import_source(source, tmp_path)["M"], import_source(after, tmp_path)["M"]
    traced = torch.fx.symbolic_trace(after_type())
    targets = [node.target for node in traced.graph.nodes if node.op in ("call_function", "call_method")]
    assert call in targets and "atan2" not in targets and "unique" not in targets, targets
    scripted = torch.jit.script(traced)
    inputs = [values(7, torch.float32), values(7, torch.float32, shift=2)][:arity]
    for got in (traced(*inputs), scripted(*inputs)):
        assert same(before_type()(*inputs), got)
    assert same(before_type()(*[v[:0] for v in inputs]), scripted(*[v[:0] for v in inputs]))


VIEW_WRITES = [
    "class M(nn.Module):\n    def forward(self, boxes, s):\n        b = boxes.clone()\n"
    "        b[..., 1][b[..., 1] < 0] = 0.0\n        return b\n",
    "class M(nn.Module):\n    def forward(self, x, s):\n        x = x.clone()\n        x[0][s[:2] > 0] = 3.0\n"
    "        return x\n",
]


@pytest.mark.parametrize("body", VIEW_WRITES, ids=["ellipsis-view", "row-view"])
def test_a_write_through_an_indexed_view_keeps_its_exported_write(tmp_path, body: str) -> None:
    """The TorchScript exporter keeps `x[0][m] = v` only as one expression: TRT204 reports, never splits it."""
    from support import rules_found

    source = HEADER + body
    assert "TRT204" in rules_found(source)
    before_type = import_source(source, tmp_path)["M"]
    after_type = import_source(rewrite(source, unsafe=True), tmp_path)["M"]
    example = _rows(5, torch.float32)
    for dynamo in (False, True):
        original, rewritten = (export(kind(), example, dynamo) for kind in (before_type, after_type))
        for length in (2, 6):
            feed = _rows(length, torch.float32)
            expected = before_type()(*[v.clone() for v in feed])
            got = run_onnx(rewritten, feed)
            assert same(expected, got) or same(run_onnx(original, feed), got), (dynamo, length)
