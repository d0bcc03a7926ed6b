"""TRT366: ``torch.stack([f(e) for e in t])`` over a tensor's first axis → ``_trt_stack_map(f(e) for e in
_trt_rows(t))``: the comprehension as written in eager mode and scripts, ``torch.vmap`` of its element function
while tracing.

The rewrite text (the iterated form, the range forms with ``t[i]``, ``dim=0``), what is left alone (random calls,
outer writes, a condition, the index read as a number, another axis, an iterable not known to be a tensor), the
finding a recorded export's "Iterating over a tensor" warning gives; eager mode before and after on real tensors,
bit for bit (zeros, negatives, inf/NaN, one element, an empty batch: the same error; gradients), scripting and the
other toolchains; the TorchScript export at batch 2: the original's graph keeps two elements, the rewritten one
equals eager mode at batch 1, 2 and 5; and the fallback where the element function reads ``.item()``.
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import rewrite, rules_found
from variant_models import traced_facts

from trtcodemod.engine import Options, fix_source

HEADER = "import torch\n\n\n"

#: A decoding function in the form RetinaFace's `decode` has (box offsets against priors, in-place corner fix-ups);
#: the comprehension is the zoo-27 `retinaface_decode` wrapper's (`benchmarks/real_zoo27.py`).
DECODE = HEADER + """\
def decode(loc: torch.Tensor, priors: torch.Tensor, variances: list[float]) -> torch.Tensor:
    boxes = torch.cat((priors[:, :2] + loc[:, :2] * variances[0] * priors[:, 2:],
                       priors[:, 2:] * torch.exp(loc[:, 2:] * variances[1])), 1)
    boxes[:, :2] -= boxes[:, 2:] / 2
    boxes[:, 2:] += boxes[:, :2]
    return boxes


class M(torch.nn.Module):
    def forward(self, loc, priors):
        return torch.stack([decode(l, priors, [0.1, 0.2]) for l in loc])
"""

#: The element function reads a value (`.item()`): vmap refuses it, and the trace takes the loop as written.
ITEM = HEADER + """\
def shift(row):
    return row - row.max().item()


class M(torch.nn.Module):
    def forward(self, x):
        return torch.stack([shift(x[i]) for i in range(x.shape[0])], dim=0)
"""


def test_rewrite_text_of_the_decoding_comprehension() -> None:
    after = rewrite(DECODE, unsafe=True, select=("TRT366",))
    assert "        return _trt_stack_map(decode(l, priors, [0.1, 0.2]) for l in _trt_rows(loc))\n" in after
    assert "def _trt_stack_map(items: list[torch.Tensor]) -> torch.Tensor:" in after
    assert "def _trt_rows(source: torch.Tensor) -> torch.Tensor:" in after
    assert "class _TrtRows:" in after
    assert rules_found(after, select=("TRT366",)) == []
    assert rewrite(DECODE, select=("TRT366",)) == DECODE  # unsafe: nothing without --unsafe


@pytest.mark.parametrize(("line", "expected"), [
    ("torch.stack([g(x[i], w) for i in range(x.shape[0])])", "_trt_stack_map(g(i, w) for i in _trt_rows(x))"),
    ("torch.stack([g(x[b]) + x[b] for b in range(x.size(0))], 0)", "_trt_stack_map(g(b) + b for b in _trt_rows(x))"),
    ("torch.stack([g(x[i]) for i in range(len(x))], dim=0)", "_trt_stack_map(g(i) for i in _trt_rows(x))"),
    ("torch.stack([g(e).sum(0) for e in x], dim=0)", "_trt_stack_map(g(e).sum(0) for e in _trt_rows(x))"),
])
def test_rewrite_text_of_each_form(line: str, expected: str) -> None:
    code = HEADER + f"def f(self, x: torch.Tensor, w):\n    return {line}\n"
    assert f"    return {expected}\n" in rewrite(code, unsafe=True, select=("TRT366",))


@pytest.mark.parametrize("line", [
    "torch.stack([g(e) + torch.rand(3) for e in x])",  # random: vmap draws once for the batch
    "torch.stack([torch.nn.functional.dropout(g(e), 0.5) for e in x])",
    "torch.stack([keep.append(e) or g(e) for e in x])",  # writes an outer list
    "torch.stack([w.add_(e) for e in x])",  # writes an outer tensor in place
    "torch.stack([setattr(w, 'last', e) or g(e) for e in x])",
    "torch.stack([g(e) for e in x if e.sum() > 0])",  # a condition: the count depends on the data
    "torch.stack([g(e, f) for e in x for f in w])",
    "torch.stack([g(x[i], i) for i in range(x.shape[0])])",  # the index read as a number
    "torch.stack([g(w[i]) for i in range(x.shape[0])])",  # the element is another tensor's
    "torch.stack([g(e) for e in x], dim=1)",  # another axis
    "torch.stack([(y := g(e)) for e in x])",
    "torch.stack([g(e) for e in x[1:]])",  # not a plain name
    "torch.cat([g(e) for e in x])",
])
def test_left_alone(line: str) -> None:
    code = HEADER + f"def f(x: torch.Tensor, w, keep):\n    return {line}\n"
    assert rules_found(code, select=("TRT366",)) == []


#: The decoding written as a loop appending to a list, then stacked (the comment before the list stays).
LOOP = DECODE.replace(
    "        return torch.stack([decode(l, priors, [0.1, 0.2]) for l in loc])\n",
    "        # decode every image\n"
    "        boxes = []\n"
    "        for l in loc:\n"
    "            boxes.append(decode(l, priors, [0.1, 0.2]))\n"
    "        return torch.stack(boxes, dim=0)\n")


def test_rewrite_text_of_the_loop() -> None:
    after = rewrite(LOOP, unsafe=True, select=("TRT366",))
    assert "    def forward(self, loc, priors):\n        # decode every image\n" \
           "        return _trt_stack_map(decode(l, priors, [0.1, 0.2]) for l in _trt_rows(loc))\n" in after


@pytest.mark.parametrize("body", [
    "out = []\nfor e in x:\n    out.append(g(e))\nn = len(out)\nreturn torch.stack(out)",  # a statement between
    "out = []\nfor e in x:\n    out.append(g(e))\nreturn torch.stack(out), len(out)",  # the list read again
    "out = []\nfor e in x:\n    out.append(g(e))\nreturn torch.stack(out) + 1",  # not the whole value
    "out = []\nfor e in x:\n    out.append(g(e))\ny = torch.stack(out)\nreturn y, e",  # the last element after
    "out = []\nfor e in x:\n    out.append(g(e))\n    print(e)\nreturn torch.stack(out)",  # the body does more
    "out = [x[0]]\nfor e in x:\n    out.append(g(e))\nreturn torch.stack(out)",  # not started empty
    "out = []\nfor e in x:\n    out.append(g(e))\nelse:\n    pass\nreturn torch.stack(out)",
])
def test_loop_left_alone(body: str) -> None:
    code = HEADER + "def f(x: torch.Tensor):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    assert rules_found(code, select=("TRT366",)) == []


def test_the_loop_in_eager_mode_and_its_graph(tmp_path: Path) -> None:
    before, after = _programs(tmp_path, LOOP)
    priors = torch.rand(6, 4) + 0.1
    for batch in (1, 3, 0):
        loc = _edge_locs(batch).requires_grad_(batch > 0)
        assert_same_run(run_once(before(), [loc, priors]), run_once(after(), [loc, priors]), context=str(batch))
    session = _exported(after(), (torch.randn(2, 6, 4), priors), ["loc", "priors"])
    for batch in (1, 5):
        loc = _edge_locs(batch)
        [got] = session.run(None, {"loc": loc.numpy(), "priors": priors.numpy()})
        assert np.allclose(got, before()(loc, priors).numpy(), rtol=1e-6, atol=1e-6, equal_nan=True), batch


def test_a_list_of_unknown_kind_only_with_the_exports_warning(tmp_path: Path) -> None:
    code = HEADER + "def f(items, w):\n    return torch.stack([g(e, w) for e in items])\n"
    assert rules_found(code, select=("TRT366",)) == []
    path = tmp_path / "snippet.py"
    path.write_text(code)
    warning = "Iterating over a tensor might cause the trace to be incorrect."
    options = Options(select=("TRT366",), unsafe=True, facts=traced_facts(path, [(str(path), 5, warning)]),
                      scope="all")
    new = fix_source(path.read_bytes(), str(path.resolve()), options).source.decode()
    assert "    return _trt_stack_map(g(e, w) for e in _trt_rows(items))\n" in new


def _programs(tmp_path: Path, source: str) -> tuple[type, type]:
    after = rewrite(source, unsafe=True, select=("TRT366",))
    assert after != source
    return import_source(source, tmp_path)["M"], import_source(after, tmp_path)["M"]


def _edge_locs(batch: int) -> torch.Tensor:
    loc = torch.randn(batch, 6, 4, generator=torch.Generator().manual_seed(batch))
    if batch:
        loc[0, 0] = 0.0
        loc[-1, 1] = -3.5
        loc[0, 2, 2] = float("inf")
        loc[-1, 3, 3] = float("nan")
        loc[0, 4] = -0.0
    return loc


def test_eager_and_script_unchanged_bit_for_bit(tmp_path: Path) -> None:
    before, after = _programs(tmp_path, DECODE)
    priors = torch.rand(6, 4) + 0.1
    for batch in (1, 2, 5, 0):  # an empty batch: torch.stack of no tensors raises on both sides
        loc = _edge_locs(batch).requires_grad_(batch > 0)
        assert_same_run(run_once(before(), [loc, priors]), run_once(after(), [loc, priors]), context=str(batch))
    scripted_before, scripted_after = torch.jit.script(before()), torch.jit.script(after())
    loc = _edge_locs(3)
    assert torch.equal(scripted_before(loc, priors).nan_to_num(), scripted_after(loc, priors).nan_to_num())


def test_other_toolchains_as_before(tmp_path: Path) -> None:
    before, after = _programs(tmp_path, DECODE)
    assert_same_toolchain_outcomes(before, after, [_edge_locs(3), torch.rand(6, 4) + 0.1], tmp_path,
                                   original_may_fail=True)


def _exported(model: torch.nn.Module, example: tuple, names: list[str]) -> ort.InferenceSession:
    buffer = io.BytesIO()
    torch.onnx.export(model, example, buffer, dynamo=False, input_names=names, output_names=["out"],
                      dynamic_axes={names[0]: {0: "batch"}}, opset_version=17)
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def test_the_exported_graph_follows_the_batch(tmp_path: Path) -> None:
    before, after = _programs(tmp_path, DECODE)
    priors = torch.rand(6, 4) + 0.1
    example = (torch.randn(2, 6, 4), priors)
    original = _exported(before(), example, ["loc", "priors"])
    with pytest.raises(Exception, match="Split"):  # the unrolled loop splits the example's two elements
        original.run(None, {"loc": _edge_locs(5).numpy(), "priors": priors.numpy()})
    session = _exported(after(), example, ["loc", "priors"])
    for batch in (1, 2, 5):
        loc = _edge_locs(batch)
        [got] = session.run(None, {"loc": loc.numpy(), "priors": priors.numpy()})
        want = before()(loc, priors).numpy()
        assert got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=1e-6, equal_nan=True), batch


def test_the_trace_falls_back_where_vmap_refuses(tmp_path: Path) -> None:
    before, after = _programs(tmp_path, ITEM)
    x = torch.tensor([[1.0, -2.0, 0.0], [float("inf"), 3.0, -0.0]])
    assert_same_run(run_once(before(), [x]), run_once(after(), [x]))
    session = _exported(after(), (x,), ["x"])  # `.item()` under vmap raises: the loop as written, unrolled
    [got] = session.run(None, {"x": x.numpy()})
    assert np.array_equal(got, before()(x).numpy(), equal_nan=True)
