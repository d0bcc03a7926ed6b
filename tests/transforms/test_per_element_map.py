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
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import rewrite, rules_found
from variant_models import traced_facts

from trtcodemod.engine import Options, check_source, fix_source
from trtcodemod.helpers.mapping import _trt_listed, _trt_restack, _trt_unbound

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
    # Positional indices after the row's (U-2-Net's `norm_pred(d1[i, 0])`): the row's own subscript.
    ("torch.stack([g(x[i, 0]) for i in range(x.shape[0])])", "_trt_stack_map(g(i[0]) for i in _trt_rows(x))"),
    ("torch.stack([g(x[i, ..., -1:]) + x[i] for i in range(len(x))])",
     "_trt_stack_map(g(i[..., -1:]) + i for i in _trt_rows(x))"),
    ("torch.stack([g(x[i, None, 1:3:2]) for i in range(x.size(0))])",
     "_trt_stack_map(g(i[None, 1:3:2]) for i in _trt_rows(x))"),
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
    "torch.stack([g(x[i, :, w]) for i in range(x.shape[0])])",  # a tensor index: `x[i, :, w]` is not `x[i][:, w]`
    "torch.stack([g(x[i, i]) for i in range(x.shape[0])])",  # the index read again as a number
    "torch.stack([g(x[i, k]) for i in range(x.shape[0])])",  # a name: it may hold a tensor
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


@pytest.mark.parametrize("source", ["loop", "concatenated"])
def test_the_loop_in_eager_mode_and_its_graph(tmp_path: Path, source: str) -> None:
    before, after = _programs(tmp_path, {"loop": LOOP, "concatenated": CONCATENATED}[source])
    priors = torch.rand(6, 4) + 0.1
    for batch in (1, 3, 0):
        loc = _edge_locs(batch).requires_grad_(batch > 0)
        assert_same_run(run_once(before(), [loc, priors]), run_once(after(), [loc, priors]), context=str(batch))
    session = _exported(after(), (torch.randn(2, 6, 4), priors), ["loc", "priors"])
    for batch in (1, 5):
        loc = _edge_locs(batch)
        [got] = session.run(None, {"loc": loc.numpy(), "priors": priors.numpy()})
        assert np.allclose(got, before()(loc, priors).numpy(), rtol=1e-6, atol=1e-6, equal_nan=True), batch


#: pypots' BRITS time gaps (``pypots/data/utils.py:68-73``, pypots 1.5), reduced: each sample's decoding bound to
#: a local, appended with a first axis of one, and the list concatenated along it; the local rebound by that line.
CONCATENATED = DECODE.replace(
    "        return torch.stack([decode(l, priors, [0.1, 0.2]) for l in loc])\n",
    "        boxes = []\n"
    "        for l in loc:\n"
    "            decoded = decode(l, priors, [0.1, 0.2])\n"
    "            boxes.append(decoded.unsqueeze(0))\n"
    "        decoded = torch.concat(boxes, dim=0)\n"
    "        return decoded\n")


def test_rewrite_text_of_the_concatenated_loop() -> None:
    after = rewrite(CONCATENATED, unsafe=True, select=("TRT366",))
    assert "    def forward(self, loc, priors):\n" \
           "        decoded = _trt_cat_map(decode(l, priors, [0.1, 0.2]).unsqueeze(0) for l in _trt_rows(loc))\n" \
           "        return decoded\n" in after, after
    for appended, expected in (("decoded[None]", "decode(l, priors, [0.1, 0.2])[None]"),
                               ("torch.unsqueeze(decoded, 0)", "torch.unsqueeze(decode(l, priors, [0.1, 0.2]), 0)"),
                               ("decoded.unsqueeze(dim=0) * 2", None),  # not the element with an axis added
                               ("decoded.unsqueeze(1)", None)):  # another axis: no stack along the first
        after = rewrite(CONCATENATED.replace("decoded.unsqueeze(0)", appended), unsafe=True, select=("TRT366",))
        assert (f"_trt_cat_map({expected} for l in _trt_rows(loc))" in after) if expected else \
            "_trt_cat_map" not in after, (appended, after)


@pytest.mark.parametrize("body", [
    # the local read after the loop: eager mode leaves the last element's value in it
    "out = []\nfor e in x:\n    d = g(e)\n    out.append(d[None])\ny = torch.cat(out)\nreturn y, d",
    # the local read twice in the append
    "out = []\nfor e in x:\n    d = g(e)\n    out.append(d[None] + d[None])\nreturn torch.cat(out)",
    # the local's value reads itself (a running value)
    "d = x[0]\nout = []\nfor e in x:\n    d = g(e) + d\n    out.append(d[None])\nreturn torch.cat(out)",
    # a concatenation of elements with no axis added: another shape than a stack
    "out = []\nfor e in x:\n    out.append(g(e))\nreturn torch.cat(out)",
])
def test_concatenated_loop_left_alone(body: str) -> None:
    code = HEADER + "def f(x: torch.Tensor):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    assert rules_found(code, select=("TRT366",)) == []


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


# TRT366's two halves of a batch handed on as its rows: ``torch.unbind(x, dim=0)`` / ``x.unbind(0)`` passed to a
# call → ``_trt_unbound(<rows>, x)``, ``list(x)`` → ``_trt_listed(x)``, and the callee's ``torch.stack(images, dim=0)``
# of a sequence it was handed → ``_trt_restack(images)``.
# 
# The rewrite text of each form, what is left alone (another axis, a list not known to hold a tensor's rows, a stack
# along another axis, a local list, an unannotated parameter without a recorded run), eager mode before and after
# bit for bit (zeros, negatives, inf/NaN, one image, an empty batch: the same error; gradients; the caller's tensor
# after the call), scripting and the other toolchains; the TorchScript export at batch 2: the original's graph
# refuses batch 5 (a Split of two), the rewritten one equals eager mode at batch 1, 2 and 5, in one file and across
# two; a callee that changes the rows (appends one, replaces one) stacks what it holds, as written; and migrate, which
# applies the caller's half where the split is located and the callee's half with it.

RESTACK_HEADER = "from typing import List, Sequence\n\nimport torch\n\n\n"

#: oriented_det 0.4.1 (PyPI; DL4EO/oriented-det) in our words: `RetinaNetBackboneHeadExportWrapper.forward`
#: (export/wrappers.py:81) unbinds the batch "so batch size stays symbolic for ONNX" and hands the rows to
#: `extract_backbone_features` (oriented_det/models/utils.py:437), which stacks them back.
UNBIND = RESTACK_HEADER + """\
def features(net, images: Sequence[torch.Tensor], scale: float):
    batch = torch.stack(images, dim=0)
    return net(batch) * scale


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        rows: Sequence[torch.Tensor] = torch.unbind(x, dim=0)
        return features(self.conv, rows, 0.5)
"""

#: The zoo-29 `od_*_rows` wrappers' form: `extract_backbone_features(backbone, list(x))`.
LISTED = RESTACK_HEADER + """\
def features(net, images: List[torch.Tensor]):
    return net(torch.stack(images))


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        return features(self.conv, list(x)).relu()
"""


def test_rewrite_text_of_both_halves() -> None:
    after = rewrite(UNBIND, select=("TRT366",))
    assert "    batch = _trt_restack(images)\n" in after
    assert "        rows: Sequence[torch.Tensor] = _trt_unbound(torch.unbind(x, dim=0), x)\n" in after
    after = rewrite(LISTED, select=("TRT366",))
    assert "    return net(_trt_restack(images))\n" in after
    assert "        return features(self.conv, _trt_listed(x)).relu()\n" in after
    assert rewrite(after, select=("TRT366",)) == after  # a second pass changes nothing


@pytest.mark.parametrize(("call", "expected"), [
    ("x.unbind(0)", "_trt_unbound(x.unbind(0), x)"),
    ("x.unbind()", "_trt_unbound(x.unbind(), x)"),
    ("torch.unbind(x)", "_trt_unbound(torch.unbind(x), x)"),
    ("x.unbind(dim=0)", "_trt_unbound(x.unbind(dim=0), x)"),
    ("[row for row in x]", "_trt_listed(x)"),  # nanodet's `images_to_levels([c for c in cls_preds], ...)`
    ("[(row) for row in x]", "_trt_listed(x)"),
])
def test_rewrite_text_of_each_producer(call: str, expected: str) -> None:
    code = RESTACK_HEADER + f"class M(torch.nn.Module):\n    def forward(self, x: torch.Tensor):\n        return g({call})\n"
    assert f"        return g({expected})\n" in rewrite(code, select=("TRT366",))


@pytest.mark.parametrize("body", [
    "return g(torch.unbind(x, 1))",  # another axis
    "return g(x.unbind(dim=2))",
    "return g(list(items))",  # not known to be a tensor
    "return g(tuple(x))",  # a tuple of rows: not taken
    "rows = torch.unbind(x)\n    return rows[0]",  # bound, never handed to a call
    # copied into a list of its own, then changed: RunningHub's DreamID-V loader inserts frames before its stack
    "frames = list(torch.unbind(x, dim=0))\n    frames.insert(0, x[0])\n    return torch.stack(frames, dim=0)",
    "return torch.stack(torch.unbind(x))",  # stacked where it is made
    "return g(*torch.unbind(x))",  # each row its own argument
    "rows = x.unbind(0)\n    return g(len(rows), list(rows))",  # bound, then only copied or counted
    "return g([row for row in items])",  # a copy of something not known to be a tensor
    "return g([row * 2 for row in x])",  # not the rows themselves (TRT366's map where it is stacked)
    "return g([row for row in x if row.sum() > 0])",  # some of them
    "return g([row for rows in x for row in rows])",
    "return g([row for row in x[0]])",  # not a plain name or attribute chain
    "return sum([row for row in x])",  # a builtin that reads them
])
def test_producers_left_alone(body: str) -> None:
    code = RESTACK_HEADER + f"def f(x: torch.Tensor, items):\n    {body}\n"
    assert rules_found(code, select=("TRT366",)) == []


@pytest.mark.parametrize("code", [
    "def f(images: List[torch.Tensor]):\n    return torch.stack(images, dim=1)\n",  # another axis
    "def f(images: List[torch.Tensor]):\n    return torch.stack(images, -1)\n",
    "def f(x):\n    images = [x, x]\n    return torch.stack(images)\n",  # a local list
    "def f(images):\n    return torch.stack(images)\n",  # nothing says what it holds, no recorded run
    "def f(images: List[int]):\n    return torch.stack(images)\n",
    # annotated, but nothing in the file hands it a batch's rows (a collate function)
    "def f(images: List[torch.Tensor]):\n    return torch.stack(images)\n",
    "def f(images: List[torch.Tensor]):\n    return torch.stack(images)\n\n\ndef g(x):\n    return f([x, x])\n",
])
def test_consumers_left_alone(code: str) -> None:
    assert rules_found(RESTACK_HEADER + code, select=("TRT366",)) == []


def _restack_programs(tmp_path: Path, source: str) -> tuple[type, type]:
    after = rewrite(source, select=("TRT366",))
    assert after != source
    return import_source(source, tmp_path)["M"], import_source(after, tmp_path)["M"]


def _images(batch: int) -> torch.Tensor:
    x = torch.randn(batch, 3, 5, 6, generator=torch.Generator().manual_seed(batch))
    if batch:
        x[0, 0] = 0.0
        x[-1, 1] = -2.5
        x[0, 2, 1, 1] = float("inf")
        x[-1, 0, 2, 2] = float("nan")
        x[0, 1, 3] = -0.0
    return x


def _seeded(model_type: type) -> torch.nn.Module:
    torch.manual_seed(0)
    return model_type().eval()


@pytest.mark.parametrize("source", [UNBIND, LISTED], ids=["unbind", "list"])
def test_eager_unchanged_bit_for_bit(tmp_path: Path, source: str) -> None:
    before, after = _restack_programs(tmp_path, source)
    for batch in (1, 2, 5, 0):  # an empty batch: torch.stack of no rows raises on both sides
        x = _images(batch).requires_grad_(batch > 0)
        assert_same_run(run_once(_seeded(before), [x]), run_once(_seeded(after), [x]), context=str(batch))


def test_script_and_other_toolchains_as_before(tmp_path: Path) -> None:
    scriptable = RESTACK_HEADER + textwrap.dedent("""\
        def features(images: List[torch.Tensor], scale: float):
            return torch.stack(images, dim=0) * scale


        class M(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

            def forward(self, x):
                rows: List[torch.Tensor] = torch.unbind(x, dim=0)
                return self.conv(features(rows, 0.5))
        """)
    before, after = _restack_programs(tmp_path, scriptable)
    x = _images(3)
    want = torch.jit.script(_seeded(before))(x)
    got = torch.jit.script(_seeded(after))(x)
    assert torch.equal(want.nan_to_num(), got.nan_to_num())
    assert_same_toolchain_outcomes(lambda: _seeded(before), lambda: _seeded(after), [x], tmp_path,
                                   original_may_fail=True)


def test_the_list_form_scripts_and_traces_without_a_warning(tmp_path: Path) -> None:
    scriptable = RESTACK_HEADER + textwrap.dedent("""\
        def features(images: List[torch.Tensor]):
            return torch.stack(images)


        class M(torch.nn.Module):
            def forward(self, x):
                return features(list(x)) + 1
        """)
    before, after = _restack_programs(tmp_path, scriptable)
    x = _images(3)
    assert torch.equal(torch.jit.script(before())(x).nan_to_num(), torch.jit.script(after())(x).nan_to_num())
    assert_same_toolchain_outcomes(before, after, [x], tmp_path, original_may_fail=True)
    with pytest.warns(torch.jit.TracerWarning, match="Iterating over a tensor"):
        torch.jit.trace(before(), (x,), check_trace=False)
    with warnings.catch_warnings():
        warnings.simplefilter("error", torch.jit.TracerWarning)
        traced = torch.jit.trace(after(), (x,), check_trace=False)
    assert torch.equal(traced(_images(5)).nan_to_num(), before()(_images(5)).nan_to_num())


def _restack_exported(model: torch.nn.Module, batch: int = 2) -> ort.InferenceSession:
    buffer = io.BytesIO()
    torch.onnx.export(model, (_images(batch),), buffer, dynamo=False, input_names=["x"], output_names=["out"],
                      dynamic_axes={"x": {0: "batch"}}, opset_version=17)
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


@pytest.mark.parametrize("source", [UNBIND, LISTED], ids=["unbind", "list"])
def test_the_restacked_graph_follows_the_batch(tmp_path: Path, source: str) -> None:
    before, after = _restack_programs(tmp_path, source)
    original = _restack_exported(_seeded(before))
    with pytest.raises(Exception, match="Split"):  # the example's two rows, split and stacked again
        original.run(None, {"x": _images(5).numpy()})
    session = _restack_exported(_seeded(after))
    for batch in (1, 2, 5):
        x = _images(batch)
        [got] = session.run(None, {"x": x.numpy()})
        want = _seeded(before)(x).detach().numpy()
        assert got.shape == want.shape and np.allclose(got, want, rtol=1e-5, atol=1e-5, equal_nan=True), batch


def test_across_two_files(tmp_path: Path) -> None:
    """The rows made in one module and stacked in another: each holds its own copy of the helpers."""
    library, wrapper = UNBIND.split("\n\nclass M", 1)
    path = tmp_path / "restack_library.py"
    path.write_text(library + "\n")
    # Alone, the library hands no rows to its function: its stack is left as written, unless a recorded run ran it.
    assert rules_found(library + "\n", select=("TRT366",)) == []
    options = Options(select=("TRT366",), facts=traced_facts(path, []), scope="all")
    path.write_bytes(fix_source(path.read_bytes(), str(path.resolve()), options).source)
    assert "    batch = _trt_restack(images)\n" in path.read_text()
    wrapper_source = RESTACK_HEADER + "from restack_library import features\n\n\nclass M" + wrapper
    rewritten = rewrite(wrapper_source, select=("TRT366",))
    assert "_trt_unbound(torch.unbind(x, dim=0), x)" in rewritten
    sys.path.insert(0, str(tmp_path))
    try:
        after = import_source(rewritten, tmp_path)["M"]
        session = _restack_exported(_seeded(after))
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("restack_library", None)
    before = import_source(UNBIND, tmp_path)["M"]
    for batch in (1, 5):
        [got] = session.run(None, {"x": _images(batch).numpy()})
        assert np.allclose(got, _seeded(before)(_images(batch)).detach().numpy(), rtol=1e-5, atol=1e-5,
                           equal_nan=True)


CHANGED = {
    "appended": "images = list(images)\n    images.append(images[0])\n    images.pop(0)\n",
    "replaced": "images[0] = images[0] * 2\n",
}


@pytest.mark.parametrize("change", list(CHANGED))
def test_rows_the_callee_changes_are_stacked_as_written(tmp_path: Path, change: str) -> None:
    source = RESTACK_HEADER + "def features(images: List[torch.Tensor]):\n    " + CHANGED[change] + \
        "    return torch.stack(images, dim=0)\n\n\n" \
        "class M(torch.nn.Module):\n    def forward(self, x):\n        return features(list(x))\n"
    before, after = _restack_programs(tmp_path, source)
    x = _images(2)
    traced = torch.jit.trace(after(), (x,), check_trace=False)
    assert torch.equal(traced(x).nan_to_num(), before()(x).nan_to_num())


def test_the_helpers_alone() -> None:
    x = _images(3)
    rows = torch.unbind(x)
    assert _trt_unbound(rows, x) is rows  # outside a trace: the rows themselves
    listed = _trt_listed(x)
    assert type(listed) is list and len(listed) == 3 and all(a is not b and torch.equal(a.nan_to_num(), b.nan_to_num())
                                                                   for a, b in zip(listed, list(x)))
    assert torch.equal(_trt_restack(list(rows)).nan_to_num(), x.nan_to_num())
    with pytest.raises(RuntimeError):
        _trt_restack([])
    with pytest.raises(TypeError):
        _trt_restack(x.shape)


def test_migrate_applies_both_halves_across_files(tmp_path: Path) -> None:
    from support import migrate_json

    library, wrapper = UNBIND.split("\n\nclass M", 1)
    (tmp_path / "restack_library.py").write_text(library + "\n")
    model = tmp_path / "restack_model.py"
    # The library beside the model file: migrate rewrites a copy of both.
    model.write_text(RESTACK_HEADER + "import os\nimport sys\n\nsys.path.insert(0, os.path.dirname(__file__))\n"
                     "from restack_library import features  # noqa: E402\n\n\nclass M" + wrapper + textwrap.dedent("""

        def build():
            torch.manual_seed(0)
            return M().eval()


        def inputs(generator):
            return (torch.rand(2, 3, 5, 6, generator=generator),)
        """))
    report = migrate_json(model, '{"x": {"0": "batch"}}')
    applied = {(Path(fix["path"]).name, fix["rule"]) for fix in report["applied"]}
    assert {("restack_model.py", "TRT366"), ("restack_library.py", "TRT366")} <= applied, report["remaining"]
    assert report["exit_code"] == 0 and report["equivalent"] is True, report["remaining"]
    assert report["after"]["faithful"] is True


#: U-2-Net's matting service (backgroundremover, zoo 81) reads each image's first-channel map as `d1[i, 0]`. Its
#: `norm_pred` divides by the map's own maximum, a reduction to one number per row that vmap broadcasts back through a
#: reshape to (batch, 1, 1) whose batch the trace keeps: zoo 81's U-2-Nets stay unfixed for that reason, the graph
#: failing at another batch (migrate's verification refuses it). An element function vmap traces without reshaping the
#: batch is mapped whole.
CHANNEL = HEADER + """\
def norm_pred(d):
    return torch.sigmoid(d) * d.flip(-1)


class M(torch.nn.Module):
    def forward(self, d1):
        return torch.stack([norm_pred(d1[i, 0]) for i in range(d1.shape[0])])[:, None]
"""


def test_a_channel_of_each_row_eager_unchanged_and_the_graph_follows_the_batch(tmp_path: Path) -> None:
    before, after = _programs(tmp_path, CHANNEL)
    assert "_trt_stack_map(norm_pred(i[0]) for i in _trt_rows(d1))[:, None]" in rewrite(CHANNEL, unsafe=True,
                                                                                        select=("TRT366",))
    generator = torch.Generator().manual_seed(5)
    for batch in (1, 3):
        d1 = torch.randn(batch, 2, 4, 5, generator=generator)
        flat = torch.zeros(batch, 2, 4, 5)
        specials = d1.clone()
        specials[0, 0, 0, 0], specials[0, 0, 1, 1] = float("inf"), float("nan")
        for sample in (d1, -d1, flat, specials):
            assert_same_run(run_once(before(), [sample]), run_once(after(), [sample]), context=str(batch))
    with pytest.raises(RuntimeError):  # no rows: nothing to stack, before as after
        before()(torch.zeros(0, 2, 4, 5))
    with pytest.raises(RuntimeError):
        after()(torch.zeros(0, 2, 4, 5))
    original = _exported(before(), (torch.randn(2, 2, 4, 5),), ["d1"])
    [baked] = original.run(None, {"d1": torch.randn(5, 2, 4, 5).numpy()})
    assert baked.shape[0] == 2  # the example's two rows, gathered one by one, at a batch of 5
    session = _exported(after(), (torch.randn(2, 2, 4, 5),), ["d1"])
    for batch in (1, 2, 5):
        d1 = torch.randn(batch, 2, 4, 5, generator=generator)
        [got] = session.run(None, {"d1": d1.numpy()})
        assert np.allclose(got, before()(d1).numpy(), rtol=1e-6, atol=1e-6), batch


#: U-2-Net's `norm_pred` (backgroundremover 0.4.5, backgroundremover/u2net/detect.py:119-124, the zoo-81 wrapper's
#: comprehension): min-max over the whole element. vmap's batching rules for a reduction over every axis and for the
#: element's number meeting its matrix reshape to the example's batch (`view(2, 30)`, `view(2, 1, 1)`), so the trace
#: hands the element function the whole batch as one element (`_TrtElements`) instead.
MIN_MAX = HEADER + """\
def norm_pred(d):
    ma = torch.max(d)
    mi = torch.min(d)
    dn = (d - mi) / (ma - mi)
    return dn


class M(torch.nn.Module):
    def forward(self, d1):
        return torch.stack([norm_pred(d1[i, 0]) for i in range(d1.shape[0])])[:, None]
"""


def test_a_reduction_over_each_element_follows_the_batch(tmp_path: Path) -> None:
    before, after = _programs(tmp_path, MIN_MAX)
    generator = torch.Generator().manual_seed(7)
    for batch in (1, 3):
        d1 = torch.randn(batch, 2, 4, 5, generator=generator)
        specials = d1.clone()
        specials[0, 0, 0, 0], specials[-1, 0, 1, 1] = float("inf"), float("nan")
        for sample in (d1, -d1, torch.zeros(batch, 2, 4, 5), specials):  # zeros: 0/0, NaN in both
            assert_same_run(run_once(before(), [sample]), run_once(after(), [sample]), context=str(batch))
    session = _exported(after(), (torch.randn(2, 2, 4, 5),), ["d1"])
    for batch in (1, 2, 5):
        for d1 in (torch.randn(batch, 2, 4, 5, generator=generator), torch.zeros(batch, 2, 4, 5)):
            [got] = session.run(None, {"d1": d1.numpy()})
            assert np.allclose(got, before()(d1).numpy(), rtol=1e-6, atol=1e-6, equal_nan=True), batch
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        graph = str(torch.jit.trace(after(), (torch.randn(2, 2, 4, 5),)).graph)
    assert "aten::flatten" in graph and "aten::view" not in graph  # no reshape to the example's batch


def _loop(function, whole: torch.Tensor) -> torch.Tensor:
    return torch.stack([function(element) for element in whole])


_ELEMENT_FUNCTIONS = {
    "softmax over the last axis, scaled by the element's sum": lambda e: torch.softmax(e, -1) * e.sum(),
    "max along axis 0 and its indices": lambda e: e.max(0)[0] + e.max(dim=0).indices.float(),
    "where on a comparison with the mean": lambda e: torch.where(e > e.mean(), e, torch.zeros_like(e)),
    "a column, clamped, against a constant row": lambda e: (e[:, 1].clamp(min=-1.0) - torch.arange(3.0)).abs(),
    "amax over axes, keepdim, and a cumsum": lambda e: e.amax(dim=(0, 1), keepdim=True) + e.cumsum(1),
    "argmax of the flattened element, as float": lambda e: e.argmax().float() * 2 - e.std(),
    "transpose, flatten and an unsqueezed axis": lambda e: e.transpose(0, 1).flatten().unsqueeze(-1) ** 2,
    "a number tensor from the right": lambda e: 1.0 / (e.abs() + 1) + torch.tensor(2.0) * e.min(),
    # nemotron-ocr's `pad_to_square`: the element's last two axes padded with a constant
    "a constant pad of the last two axes": lambda e: torch.nn.functional.pad(e, (0, 2, 1, 0), value=1.0) * 2,
    "a constant pad of every axis, by keyword": lambda e: torch.nn.functional.pad(e, pad=(1, 1, 0, 2)) - e.sum(),
}


@pytest.mark.parametrize("name", list(_ELEMENT_FUNCTIONS))
def test_the_whole_batch_as_one_element_computes_the_loop(name: str) -> None:
    """`_TrtElements` against the loop on real tensors (zeros, negatives, inf/NaN, one element), traced at one batch
    and run at others."""
    from trtcodemod.helpers.mapping import _TrtElements

    function = _ELEMENT_FUNCTIONS[name]
    generator = torch.Generator().manual_seed(3)
    samples = [torch.randn(4, 3, 3, generator=generator), torch.zeros(2, 3, 3), -torch.rand(1, 3, 3)]
    specials = torch.randn(3, 3, 3, generator=generator)
    specials[0, 0, 0], specials[1, 2, 1], specials[2, 1, 2] = float("inf"), float("nan"), -float("inf")
    for whole in (*samples, specials):
        got = function(_TrtElements(whole)).whole
        want = _loop(function, whole)
        assert got.dtype == want.dtype and torch.allclose(got, want, atol=1e-6, equal_nan=True), name
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(lambda w: function(_TrtElements(w)).whole, (torch.randn(2, 3, 3),))
    for whole in samples:
        assert torch.allclose(traced(whole), _loop(function, whole), atol=1e-6, equal_nan=True), name


@pytest.mark.parametrize("function", [
    lambda e: e - e.max().item(),                          # a value read into Python
    lambda e: e[e > 0].sum(),                              # an index by a tensor
    lambda e: e.add_(1),                                   # in place
    lambda e: e.half() - e.sum(),                          # float16 element, float32 number: promotion by rank
    lambda e: e.max() if e.sum() > 0 else e.min(),         # a branch on a value
    lambda e: torch.squeeze(e),                            # squeezing every axis would take the batch's too
    lambda e: torch.nn.functional.pad(e, (1, 1, 1, 1, 1, 1)),  # more axes than the element has
    lambda e: torch.nn.functional.pad(e, (1, 1), mode="reflect"),  # a mode that takes given ranks only
], ids=["item", "mask", "in-place", "promotion", "branch", "squeeze-all", "pad-past-the-element", "pad-reflect"])
def test_the_whole_batch_refuses_what_it_cannot_carry(function) -> None:
    from trtcodemod.helpers.mapping import _TrtElements

    with pytest.raises((TypeError, AttributeError)):
        function(_TrtElements(torch.randn(2, 3)))


# The filled form: a tensor made with one row per element, then filled row by row with a function of each element
# (U-2-Net's min-max per image written as a loop into a preallocated mask; a per-sample standardisation).
FILLED = HEADER + """\
def norm_pred(d):
    ma = torch.max(d)
    mi = torch.min(d)
    return (d - mi) / (ma - mi)


class M(torch.nn.Module):
    def forward(self, x):
        out = torch.zeros_like(x)
        for i in range(x.shape[0]):
            out[i] = norm_pred(x[i])
        return out + 1


def standardise(x):
    out = x.new_zeros((x.shape[0], x.shape[1]), dtype=torch.float64)
    for i, row in enumerate(x):
        out[i] = (row - row.mean()) / (row.std() + 1e-5)
    return out


def kept(x, y):
    out = torch.zeros(x.shape[0] + 1, 3)
    for i in range(x.shape[0]):
        out[i] = x[i] * 2            # one row more than the elements: the last stays zero
    out = torch.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] * i            # the position read as a number
    out = torch.zeros_like(x)
    for i in range(x.shape[0]):
        out[i] = x[i] + out[i - 1]   # the tensor read while it is filled
    out = torch.zeros_like(y)
    for i in range(x.shape[0]):
        out[i] = x[i]                # made for another tensor's rows
    out = torch.zeros_like(x)
    for i, row in enumerate(x):
        out[i] = row * 2
    return out, row                  # the element read after the loop
"""


def test_rewrite_text_of_the_filled_form() -> None:
    assert rules_found(FILLED, select=("TRT366",)) == ["TRT366", "TRT366"]
    after = rewrite(FILLED, unsafe=True, select=("TRT366",))
    assert ("        out = torch.zeros_like(x)\n        if _trt_tracing():\n"
            "            out = _trt_stack_map(norm_pred(i) for i in _trt_rows(x)).to(out)\n        else:\n"
            "            for i in range(x.shape[0]):\n                out[i] = norm_pred(x[i])\n") in after
    assert ("        out = _trt_stack_map((row - row.mean()) / (row.std() + 1e-5) for row in _trt_rows(x)).to(out)\n"
            ) in after
    assert after.split("def kept")[1] == FILLED.split("def kept")[1]
    assert rewrite(after, unsafe=True, select=("TRT366",)) == after


def test_the_filled_form_in_eager_mode_and_its_graph(tmp_path: Path) -> None:
    before_ns = import_source(FILLED, tmp_path)
    after_ns = import_source(rewrite(FILLED, unsafe=True, select=("TRT366",)), tmp_path)
    generator = torch.Generator().manual_seed(11)
    for batch in (1, 3):
        x = torch.randn(batch, 2, 4, 5, generator=generator)
        specials = x.clone()
        specials[0, 0, 0, 0], specials[-1, 1, 1, 1] = float("inf"), float("nan")
        for sample in (x, -x, torch.zeros(batch, 2, 4, 5), specials):
            assert_same_run(run_once(before_ns["M"](), [sample]), run_once(after_ns["M"](), [sample]))
            rows = sample.flatten(1)
            want, got = before_ns["standardise"](rows), after_ns["standardise"](rows)
            assert want.dtype == got.dtype == torch.float64 and torch.equal(want.isnan(), got.isnan())
            assert torch.equal(want.nan_to_num(), got.nan_to_num())
    empty = torch.zeros(0, 2, 4, 5)
    assert torch.equal(before_ns["M"]()(empty), after_ns["M"]()(empty))  # no rows: the loop never runs
    original = _exported(before_ns["M"](), (torch.randn(2, 2, 4, 5),), ["x"])
    with pytest.raises(Exception):  # noqa: B017 - the example's two rows, written one by one, at a batch of 5
        [baked] = original.run(None, {"x": torch.randn(5, 2, 4, 5).numpy()})
        assert np.allclose(baked, before_ns["M"]()(torch.randn(5, 2, 4, 5)).numpy())
    session = _exported(after_ns["M"](), (torch.randn(2, 2, 4, 5),), ["x"])
    for batch in (1, 2, 5):
        for x in (torch.randn(batch, 2, 4, 5, generator=generator), torch.zeros(batch, 2, 4, 5)):
            [got] = session.run(None, {"x": x.numpy()})
            assert np.allclose(got, before_ns["M"]()(x).numpy(), rtol=1e-6, atol=1e-6, equal_nan=True), batch
    traced = torch.jit.trace(after_ns["standardise"], (torch.randn(2, 6),))
    for batch in (1, 4):
        rows = torch.randn(batch, 6, generator=generator)
        assert torch.allclose(traced(rows), before_ns["standardise"](rows))


def test_a_loop_before_a_call_with_no_arguments_is_no_error() -> None:
    """The statement after an appending loop may be a call with no arguments (BasicSR's `np.array(ssims).mean()`);
    the loop form used to read its first argument and fail on the file."""
    code = HEADER + "def f(x):\n    out = []\n    for e in x:\n        out.append(e)\n    return torch.tensor(out).mean()\n"
    found = check_source(code.encode(), "snippet.py", Options(select=("TRT366",), scope="all"))
    assert found == []


def test_an_element_made_a_batch_of_one_is_left_to_trt396() -> None:
    """`net(img[None])[0] for img in x`: a batched call on a batch of one. vmap would fold the batch into the
    network's reshapes with the traced size (or fail on parameters that require grad, which left the tracer in a
    state that crashed the process); TRT396 computes the network on the whole batch instead."""
    code = HEADER + (
        "def f(net, x: torch.Tensor):\n"
        "    a = torch.stack([net(img[None])[0] for img in x])\n"
        "    b = torch.stack([net(x[i].unsqueeze(0))[0] for i in range(x.shape[0])])\n"
        "    c = torch.stack([net(img[None, 1:]) for img in x])\n"
        "    return a, b, c\n")
    assert rules_found(code, select=("TRT366",)) == ["TRT366"]  # only `c`: an index after the new axis


def test_a_tuple_of_a_tensors_pieces_is_not_a_batch() -> None:
    """speechbrain's ReSepFormer masks: `masks = x.unbind(dim=3)` then `torch.stack([m.permute(0, 2, 1) for m in
    masks])`: a tuple of one piece a speaker, a count the model's configuration fixes, which a trace keeps rightly;
    the same comprehension over the tensor itself is a map over its first axis."""
    pieces = HEADER + (
        "def f(x: torch.Tensor):\n"
        "    masks = torch.sigmoid(x).unbind(dim=3)\n"
        "    halves = x.chunk(2, dim=1)\n"
        "    return torch.stack([m.permute(0, 2, 1) for m in masks]), torch.stack([h * 2 for h in halves])\n")
    assert rules_found(pieces, select=("TRT366",)) == []
    rows = HEADER + "def f(x: torch.Tensor):\n    return torch.stack([m.permute(1, 0) for m in x])\n"
    assert rules_found(rows, select=("TRT366",)) == ["TRT366"]
    before, after = {}, {}
    exec(pieces, before)
    exec(rewrite(pieces, select=("TRT366",), unsafe=True), after)
    for x in (torch.randn(2, 4, 4, 3), torch.zeros(1, 2, 3, 2), torch.randn(0, 4, 2, 2)):
        for got, expected in zip(after["f"](x), before["f"](x)):
            assert torch.equal(got, expected)


IN_PLACE = HEADER + '''\
def normalise(cams: torch.Tensor) -> torch.Tensor:
    for i in range(cams.shape[0]):
        cams[i] = (cams[i] - cams[i].min()) / (cams[i].max() - cams[i].min() + 1e-8)
    return cams


def scale(maps: torch.Tensor) -> torch.Tensor:
    for i, m in enumerate(maps):
        maps[i] = m / m.amax()
    return maps


def reads_whole(maps: torch.Tensor) -> torch.Tensor:
    for i in range(maps.shape[0]):
        maps[i] = maps[i] / maps.max()
    return maps


class M(torch.nn.Module):
    def forward(self, x):
        return scale(normalise(x * 2 - 1))
'''


def test_a_tensors_rows_replaced_in_place_by_a_function_of_themselves(tmp_path: Path) -> None:
    """A CAM normalised map by map (`cams[i] = (cams[i] - cams[i].min()) / ...`): while tracing the mapped stack
    is copied into the tensor in place, so a caller holding it sees the new rows as the loop's writes show them; a
    row computed from the whole tensor (later rows would see earlier writes) is left as it is."""
    assert rules_found(IN_PLACE, select=("TRT366",)) == ["TRT366"] * 2
    after = rewrite(IN_PLACE, unsafe=True, select=("TRT366",))
    assert ("        cams.copy_(_trt_stack_map((i - i.min()) / (i.max() - i.min() + 1e-8) for i in _trt_rows(cams)))\n"
            in after)
    assert "        maps.copy_(_trt_stack_map(m / m.amax() for m in _trt_rows(maps)))\n" in after
    assert after.split("def reads_whole")[1].split("class M")[0] == IN_PLACE.split("def reads_whole")[1].split(
        "class M")[0]
    before_ns, after_ns = import_source(IN_PLACE, tmp_path), import_source(after, tmp_path)
    generator = torch.Generator().manual_seed(12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(lambda t: after_ns["normalise"](t.clone()), (torch.randn(3, 4, 5),))
    for batch in (1, 3, 6, 0):
        x = torch.randn(batch, 4, 5, generator=generator)
        specials = x.clone()
        if batch:
            specials[0, 0, 0], specials[-1, 1, 1] = float("inf"), float("nan")
        for sample in (x, -x, torch.zeros(batch, 4, 5), specials):
            assert_same_run(run_once(before_ns["M"](), [sample]), run_once(after_ns["M"](), [sample]))
            held_before, held_after = sample.clone(), sample.clone()
            alias_before, alias_after = held_before[:, 0], held_after[:, 0]  # views the caller holds
            before_ns["normalise"](held_before), after_ns["normalise"](held_after)
            assert torch.equal(alias_before.nan_to_num(), alias_after.nan_to_num())
            got, want = traced(sample), before_ns["normalise"](sample.clone())
            assert torch.equal(got.isnan(), want.isnan()) and torch.allclose(got.nan_to_num(), want.nan_to_num())
    original = _exported(before_ns["M"](), (torch.randn(2, 4, 5),), ["x"])
    x5 = torch.randn(5, 4, 5, generator=generator)
    try:
        [baked] = original.run(None, {"x": x5.numpy()})
        assert not np.allclose(baked, before_ns["M"]()(x5).numpy())  # the example's two maps only
    except Exception:  # noqa: BLE001 - or ONNX Runtime refuses the unrolled writes at a batch of 5
        pass
    session = _exported(after_ns["M"](), (torch.randn(2, 4, 5),), ["x"])
    for batch in (1, 2, 5):
        for x in (torch.randn(batch, 4, 5, generator=generator), torch.zeros(batch, 4, 5)):
            [got] = session.run(None, {"x": x.numpy()})
            assert np.allclose(got, before_ns["M"]()(x).numpy(), rtol=1e-5, atol=1e-6, equal_nan=True), batch


NAMED_COUNTS = HEADER + '''\
def normalise(cams: torch.Tensor) -> torch.Tensor:
    b, c, h, w = cams.shape
    for i in range(b):
        cams[i] = (cams[i] - cams[i].min()) / (cams[i].max() - cams[i].min() + 1e-8)
    return cams


def filled(x: torch.Tensor) -> torch.Tensor:
    n = x.size(0)
    out = torch.zeros(n, x.shape[2], x.shape[3])
    for i in range(n):
        out[i] = x[i].mean(0)
    return out


def appended(x: torch.Tensor) -> torch.Tensor:
    n = len(x)
    rows = []
    for i in range(n):
        rows.append(x[i].softmax(-1))
    return torch.stack(rows)


def comprehension(x: torch.Tensor) -> torch.Tensor:
    batch = x.shape[0]
    return torch.stack([x[k] * 2 for k in range(batch)])


def rebound(x: torch.Tensor) -> torch.Tensor:
    n = x.shape[0]
    x = x.flatten(0, 1)
    return torch.stack([x[k] * 2 for k in range(n)])
'''


def test_a_trip_count_bound_to_a_name_of_the_first_size(tmp_path: Path) -> None:
    """`b, c, h, w = x.shape` / `n = x.size(0)` / `n = len(x)` then `range(b)`: the batch named first, as most
    research code does; a tensor bound again after its size was read (`x = x.flatten(0, 1)`) is another tensor."""
    assert rules_found(NAMED_COUNTS, select=("TRT366",)) == ["TRT366"] * 4
    after = rewrite(NAMED_COUNTS, unsafe=True, select=("TRT366",))
    assert "        out = _trt_stack_map(i.mean(0) for i in _trt_rows(x)).to(out)\n" in after
    assert "    return _trt_stack_map(i.softmax(-1) for i in _trt_rows(x))\n" in after
    assert "    return _trt_stack_map(k * 2 for k in _trt_rows(x))\n" in after
    assert after.split("def rebound")[1] == NAMED_COUNTS.split("def rebound")[1]
    before_ns, after_ns = import_source(NAMED_COUNTS, tmp_path), import_source(after, tmp_path)
    generator = torch.Generator().manual_seed(13)
    names = ("normalise", "filled", "appended", "comprehension")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = {name: torch.jit.trace(lambda t, f=after_ns[name]: f(t.clone()), (torch.randn(3, 2, 4, 5),))
                  for name in names}
    for batch in (1, 3, 5):
        x = torch.randn(batch, 2, 4, 5, generator=generator)
        specials = x.clone()
        specials[0, 0, 0, 0], specials[-1, 1, 1, 1] = float("inf"), float("nan")
        for sample in (x, -x, torch.zeros(batch, 2, 4, 5), specials):
            for name in names:
                want = before_ns[name](sample.clone())
                for got in (after_ns[name](sample.clone()), traced[name](sample)):
                    assert got.shape == want.shape and torch.equal(got.isnan(), want.isnan()), (name, batch)
                    assert torch.allclose(got.nan_to_num(), want.nan_to_num(), atol=1e-6), (name, batch)


LOCALS = HEADER + '''\
class Normalize01(torch.nn.Module):
    # DeepSTORM3D's `Normalize01` (EliasNehme/DeepSTORM3D, DeepSTORM3D/physics_utils.py), in our own words: each
    # sample scaled to [0, 1] by its own minimum and maximum, computed into locals first
    def forward(self, x):
        n = x.size(0)
        out = torch.zeros_like(x)
        for i in range(n):
            low = (x[i, :, :, :]).min()
            span = x[i, :, :, :].max() - low
            out[i, :, :, :] = (x[i, :, :, :] - low) / span
        return out


def kept(x):
    out = torch.zeros_like(x)
    for i in range(x.shape[0]):
        low = x[i].min()
        out[i] = x[i] - low
    return out, low
'''


def test_locals_bound_before_the_write_are_substituted(tmp_path: Path) -> None:
    """The filled form with locals computed first (`low = x[i].min()`, one built on another) and the row written
    with whole slices (`out[i, :, :, :]`); a local read after the loop (the last sample's) is left as it is."""
    assert rules_found(LOCALS, select=("TRT366",)) == ["TRT366"]
    after = rewrite(LOCALS, unsafe=True, select=("TRT366",))
    assert ("            out = _trt_stack_map((i[:, :, :] - ((i[:, :, :]).min())) / (i[:, :, :].max() - "
            "((i[:, :, :]).min())) for i in _trt_rows(x)).to(out)\n") in after
    assert after.split("def kept")[1] == LOCALS.split("def kept")[1]
    before_ns, after_ns = import_source(LOCALS, tmp_path), import_source(after, tmp_path)
    generator = torch.Generator().manual_seed(14)
    for batch in (1, 3, 0):
        x = torch.randn(batch, 2, 3, 4, generator=generator)
        specials = x.clone()
        if batch:
            specials[0, 0, 0, 0], specials[-1, 1, 1, 1] = float("inf"), float("nan")
        for sample in (x, -x, torch.zeros(batch, 2, 3, 4), specials):  # zeros: 0 / 0 in both
            assert_same_run(run_once(before_ns["Normalize01"](), [sample]), run_once(after_ns["Normalize01"](), [sample]))
    session = _exported(after_ns["Normalize01"](), (torch.randn(2, 2, 3, 4),), ["x"])
    for batch in (1, 2, 5):
        x = torch.randn(batch, 2, 3, 4, generator=generator)
        [got] = session.run(None, {"x": x.numpy()})
        assert np.allclose(got, before_ns["Normalize01"]()(x).numpy(), rtol=1e-5, atol=1e-6), batch


def test_numpy_draws_and_a_count_named_from_an_array_are_left_alone() -> None:
    """DeepSTORM3D's Poisson noise: `Nbatch = input_numpy.shape[0]` (an array's shape names no tensor) and
    `np.random.poisson(...)` per sample (a draw: vmap would draw for the whole batch at once)."""
    code = "import numpy as np\n" + HEADER + (
        "def noisy(input_numpy, h, w):\n"
        "    Nbatch = input_numpy.shape[0]\n"
        "    out = torch.zeros((Nbatch, 1, h, w))\n"
        "    for i in range(Nbatch):\n"
        "        out_np = np.random.poisson(input_numpy[i, :, :, :], size=None)\n"
        "        out[i, :, :, :] = torch.from_numpy(out_np).type(torch.FloatTensor)\n"
        "    return out\n\n\n"
        "def drawn(x: torch.Tensor):\n"
        "    return torch.stack([torch.poisson(e) + np.random.rand() for e in x])\n")
    assert rules_found(code, select=("TRT366",)) == []
