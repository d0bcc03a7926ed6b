"""TRT358: a loop over the batch that appends ``values[b][index[b]]`` to lists, then ``torch.stack`` →
``_trt_stacked_rows(L, values, index, x.shape[0])``: ``torch.stack(L)`` outside an export, one Gather of
every element's rows while exporting.

The rewrite text (VectXmy/FCOS.Pytorch's ``DetectHead``, the variant's text, its comments kept; ``size(0)``), what
is left alone (a body doing more, a list read elsewhere or not started empty, a name rebound between the
loop and the stack, ``len()`` bounds, a stack along another axis); eager mode before and after on real
tensors, bit for bit (zeros, negatives, inf/NaN, negative and repeated indices, one image; gradients);
and the TorchScript export: the original's graph keeps the example's batch size, the rewritten one equals
eager mode at other batch sizes.
"""

from __future__ import annotations

import io

import numpy as np
import onnxruntime as ort
import pytest
import torch
from support import TESTS, bits_equal, load, rewrite, rules_found

HEADER = "import torch\n\n\n"

#: VectXmy/FCOS.Pytorch's ``DetectHead`` top-k loop, in the variant's own words (its docstring cites it).
TOPK = (TESTS / "recipe_variants" / "trt358" / "vectxmy_detect_head_topk.py").read_text()

#: The same with an index the caller gives (negative and repeated positions can occur).
GIVEN = HEADER + """\
def take(values, index):
    rows = []
    for b in range(values.size(0)):
        rows.append(values[b][index[b]])
    return torch.stack(rows)
"""


def test_rewrite_text_of_the_fcos_head() -> None:
    after = rewrite(TOPK, select=("TRT358",))
    assert "        cls_scores_topk=_trt_stacked_rows(_cls_scores, cls_scores, topk_ind, cls_scores.shape[0])" \
           "#[batch_size,max_num]\n" in after
    assert "        boxes_topk=_trt_stacked_rows(_boxes, boxes, topk_ind, cls_scores.shape[0])" \
           "#[batch_size,max_num,4]\n" in after
    assert "            _boxes.append(boxes[batch][topk_ind[batch]])#[max_num,4]\n" in after  # the loop stays
    assert "def _trt_stacked_rows(items, values, index, count):" in after
    assert rewrite(after, select=("TRT358",)) == after


def test_rewrite_text_with_size_and_no_axis() -> None:
    after = rewrite(GIVEN, select=("TRT358",))
    assert "    return _trt_stacked_rows(rows, values, index, values.size(0))\n" in after


@pytest.mark.parametrize("body", [
    # the body does more than append
    "out = []\nfor b in range(v.shape[0]):\n    out.append(v[b][i[b]])\n    print(b)\nreturn torch.stack(out)",
    # the list is read elsewhere too
    "out = []\nfor b in range(v.shape[0]):\n    out.append(v[b][i[b]])\nn = len(out)\nreturn torch.stack(out), n",
    # not started empty
    "out = [v[0]]\nfor b in range(v.shape[0]):\n    out.append(v[b][i[b]])\nreturn torch.stack(out)",
    # the index is rebound between the loop and the stack
    "out = []\nfor b in range(v.shape[0]):\n    out.append(v[b][i[b]])\ni = i + 1\nreturn torch.stack(out)",
    # the bound's tensor is rebound before the stack
    "out = []\nfor b in range(v.shape[0]):\n    out.append(v[b][i[b]])\nv = v[:1]\nreturn torch.stack(out)",
    # a len() bound: a trace reads it as the example's number
    "out = []\nfor b in range(len(v)):\n    out.append(v[b][i[b]])\nreturn torch.stack(out)",
    # stacked along another axis
    "out = []\nfor b in range(v.shape[0]):\n    out.append(v[b][i[b]])\nreturn torch.stack(out, dim=1)",
    # the element is not the loop's own
    "out = []\nfor b in range(v.shape[0]):\n    out.append(v[0][i[b]])\nreturn torch.stack(out)",
    # concatenated, not stacked
    "out = []\nfor b in range(v.shape[0]):\n    out.append(v[b][i[b]])\nreturn torch.cat(out)",
])
def test_left_alone(body: str) -> None:
    code = HEADER + "def f(v, i):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    assert rules_found(code, select=("TRT358",)) == []


def _edges(batch: int, seed: int) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(seed)
    regression = torch.randn(batch, 30, 4, generator=g) * 50
    flat = regression.view(-1)
    flat[::17], flat[5::23], flat[9::29] = float("inf"), float("-inf"), float("nan")
    return torch.randn(batch, 30, 4, generator=g), torch.randn(batch, 30, 1, generator=g), regression


@pytest.mark.parametrize("batch", [1, 2, 5])
def test_eager_unchanged_on_real_tensors(batch: int) -> None:
    original = load(TOPK, "Head")()
    rewritten = load(rewrite(TOPK, select=("TRT358",)), "Head")()
    for label, (cls_logits, cnt_logits, regression) in {
        "random": _edges(batch, 1),
        "zeros": (torch.zeros(batch, 30, 4), torch.zeros(batch, 30, 1), torch.zeros(batch, 30, 4)),
        "negatives": (-torch.rand(batch, 30, 4) - 1, -torch.rand(batch, 30, 1), -torch.rand(batch, 30, 4)),
    }.items():
        a, b = regression.clone().requires_grad_(), regression.clone().requires_grad_()
        want, got = original(cls_logits, cnt_logits, a), rewritten(cls_logits, cnt_logits, b)
        for w, o in zip(want, got):
            assert bits_equal(w.detach(), o.detach()), label
        want[2].nan_to_num().sum().backward()
        got[2].nan_to_num().sum().backward()
        assert bits_equal(a.grad, b.grad), label


def test_eager_unchanged_with_negative_and_repeated_positions() -> None:
    original, rewritten = load(GIVEN, "take"), load(rewrite(GIVEN, select=("TRT358",)), "take")
    values = torch.randn(3, 6, 2)
    index = torch.tensor([[0, -1, -1], [5, 5, 0], [-6, 2, 3]])
    assert bits_equal(original(values, index), rewritten(values, index))
    with pytest.raises(IndexError):
        rewritten(values, torch.tensor([[6, 0, 0]] * 3))  # out of range, as before


def _export(function, example: tuple) -> ort.InferenceSession:
    class Model(torch.nn.Module):
        def forward(self, values, index):
            return function(values, index)

    buffer = io.BytesIO()
    torch.onnx.export(Model(), example, buffer, dynamo=False, opset_version=17, input_names=["values", "index"],
                      dynamic_axes={"values": {0: "b", 1: "n"}, "index": {0: "b", 1: "k"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def test_exported_graph_follows_the_batch_only_after_the_fix() -> None:
    original, rewritten = load(GIVEN, "take"), load(rewrite(GIVEN, select=("TRT358",)), "take")
    example = (torch.randn(2, 6, 3), torch.randint(-6, 6, (2, 4)))
    before, after = _export(original, example), _export(rewritten, example)
    g = torch.Generator().manual_seed(4)
    for batch in (1, 2, 3, 6):
        values, index = torch.randn(batch, 9, 3, generator=g), torch.randint(-9, 9, (batch, 5), generator=g)
        want = original(values, index).numpy()
        [got] = after.run(None, {"values": values.numpy(), "index": index.numpy()})
        assert got.shape == want.shape and np.array_equal(got, want), batch
        if batch != 2:
            try:
                [old] = before.run(None, {"values": values.numpy(), "index": index.numpy()})
            except Exception:  # noqa: BLE001 - the unrolled loop's gathers fail outright at some sizes
                continue
            assert old.shape != want.shape, batch  # the example's two images, whatever the batch


#: The batch size named first: RoboOrchardSim's ``batch_gather`` in the variant's own words (its docstring
#: cites it), ``B = data.shape[0]``; or unpacked from the shape, with the list rebound by its own stack
#: (``seed_xyz = torch.stack(seed_xyz)``).
NAMED = (TESTS / "recipe_variants" / "trt358" / "roboorchard_ik_batch_gather.py").read_text() + """

def unpacked(values, index):
    n, k, c = values.shape
    seeds = []
    for i in range(n):
        seeds.append(values[i][index[i]])
    seeds = torch.stack(seeds)
    return seeds
"""


def test_rewrite_text_with_the_bound_named_first() -> None:
    after = rewrite(NAMED, select=("TRT358",))
    assert "    for b in range(B):\n        out.append(data[b][idx[b]])\n" \
           "    return _trt_stacked_rows(out, data, idx, B)\n" in after
    assert "    seeds = _trt_stacked_rows(seeds, values, index, n)\n    return seeds\n" in after
    assert rewrite(after, select=("TRT358",)) == after


@pytest.mark.parametrize("body", [
    # the name is not a first axis
    "B = v.shape[1]\nout = []\nfor b in range(B):\n    out.append(v[b][i[b]])\nreturn torch.stack(out)",
    # a len(): the example's number under a trace
    "B = len(v)\nout = []\nfor b in range(B):\n    out.append(v[b][i[b]])\nreturn torch.stack(out)",
    # not the first name unpacked
    "c, B = v.shape[:2]\nout = []\nfor b in range(B):\n    out.append(v[b][i[b]])\nreturn torch.stack(out)",
    "k, B, c = v.shape\nout = []\nfor b in range(B):\n    out.append(v[b][i[b]])\nreturn torch.stack(out)",
    # rebound after the size was read, or in a block
    "B = v.shape[0]\nB = B - 1\nout = []\nfor b in range(B):\n    out.append(v[b][i[b]])\nreturn torch.stack(out)",
    "B = v.shape[0]\nif v.dim() > 2:\n    B = 1\nout = []\nfor b in range(B):\n    out.append(v[b][i[b]])\n"
    "return torch.stack(out)",
    # the name is rebound between the loop and the stack
    "B = v.shape[0]\nout = []\nfor b in range(B):\n    out.append(v[b][i[b]])\nB = 0\nreturn torch.stack(out)",
    # the list read once more beside its stack
    "B = v.shape[0]\nout = []\nfor b in range(B):\n    out.append(v[b][i[b]])\nout = torch.stack(out) + len(out)\n"
    "return out",
])
def test_named_bounds_left_alone(body: str) -> None:
    code = HEADER + "def f(v, i):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    assert rules_found(code, select=("TRT358",)) == []
    param = HEADER + "def f(v, i, B):\n    out = []\n    for b in range(B):\n        out.append(v[b][i[b]])\n" \
        "    return torch.stack(out)\n"
    assert rules_found(param, select=("TRT358",)) == []


@pytest.mark.parametrize("name", ["batch_gather", "unpacked"])
def test_named_bound_eager_unchanged_and_graph_follows_the_batch(name: str) -> None:
    original, rewritten = load(NAMED, name), load(rewrite(NAMED, select=("TRT358",)), name)
    values = torch.randn(3, 6, 2)
    index = torch.tensor([[0, -1, -1], [5, 5, 0], [-6, 2, 3]])
    assert bits_equal(original(values, index), rewritten(values, index))
    for empty in (torch.zeros(0, 6, 2), torch.zeros(3, 0, 2)):
        with pytest.raises((RuntimeError, IndexError)) as before:
            original(empty, index[: empty.shape[0]])
        with pytest.raises(type(before.value)):
            rewritten(empty, index[: empty.shape[0]])
    _graph_follows_the_batch(original, rewritten, 5)


def _graph_follows_the_batch(original, rewritten, seed: int) -> None:
    """Exported at a batch of two, the rewritten graph equals eager mode at other batches (inf, NaN and -0.0
    among the values, negative positions, no position at all); the original's keeps two elements or fails."""
    example = (torch.randn(2, 6, 3), torch.randint(-6, 6, (2, 4)))
    before, after = _export(original, example), _export(rewritten, example)
    g = torch.Generator().manual_seed(seed)
    for batch in (1, 2, 3, 6):
        values = torch.randn(batch, 9, 3, generator=g)
        values[0, 0] = torch.tensor([float("inf"), float("nan"), -0.0])
        index = torch.randint(-9, 9, (batch, 5), generator=g)
        for taken in (index, index[:, :0]):  # an empty index axis keeps its 0 (a Reshape would read "keep")
            want = original(values, taken).numpy()
            [got] = after.run(None, {"values": values.numpy(), "index": taken.numpy()})
            assert got.shape == want.shape and np.array_equal(got, want, equal_nan=True), batch
        if batch != 2:
            try:
                [old] = before.run(None, {"values": values.numpy(), "index": index.numpy()})
            except Exception:  # noqa: BLE001 - the unrolled loop's gathers fail outright at some sizes
                continue
            assert old.shape != original(values, index).shape, batch  # the example's two, whatever the batch


#: The loop written as a comprehension stacked at once: SpERT's ``batch_index`` (the bound the index's first
#: axis) and ODIN's ``voxel_map_to_source`` (the batch unpacked first from the shape, each row read as
#: ``[i, index[i]]``), in the variants' own words (their docstrings cite them); and a comprehension of
#: 3-D indices (a row per pair of positions, as SpERT's relations are).
COMPREHENSIONS = (TESTS / "recipe_variants" / "trt358" / "spert_relation_pairs.py").read_text() \
    + (TESTS / "recipe_variants" / "trt358" / "odin_segment_masks.py").read_text().split('"""', 2)[2] + """

def pairs(values, index):
    return torch.stack([values[b][index[b]] for b in range(values.size(0))], dim=0)
"""


def test_rewrite_text_of_the_comprehensions() -> None:
    after = rewrite(COMPREHENSIONS, select=("TRT358",))
    assert "    return _trt_stacked_rows([tensor[i][index[i]] for i in range(index.shape[0])], tensor, index, " \
           "index.shape[0])\n" in after
    assert "    src_new = _trt_stacked_rows([voxel_map[i, poin2voxel[i]] for i in range(bs)], voxel_map, poin2voxel, " \
           "bs)\n" in after
    assert "    return _trt_stacked_rows([values[b][index[b]] for b in range(values.size(0))], values, index, " \
           "values.size(0))\n" in after
    assert rewrite(after, select=("TRT358",)) == after


@pytest.mark.parametrize("body", [
    # a condition, a second `for`, a `:=`: not one row per batch element
    "return torch.stack([v[b][i[b]] for b in range(v.shape[0]) if b > 0])",
    "return torch.stack([v[b][i[b]] for b in range(v.shape[0]) for c in range(2)])",
    "return torch.stack([v[b][(j := i)[b]] for b in range(v.shape[0])])",
    # a len() bound, a bound that is not a first axis, a bound that is not range()
    "return torch.stack([v[b][i[b]] for b in range(len(v))])",
    "return torch.stack([v[b][i[b]] for b in range(v.shape[1])])",
    "return torch.stack([v[b][i[b]] for b in torch.arange(v.shape[0])])",
    # along another axis, or concatenated
    "return torch.stack([v[b][i[b]] for b in range(v.shape[0])], dim=1)",
    "return torch.cat([v[b][i[b]] for b in range(v.shape[0])])",
    # not the element's own rows: another element, three indices, a slice, a generator
    "return torch.stack([v[0][i[b]] for b in range(v.shape[0])])",
    "return torch.stack([v[b, i[b], 0] for b in range(v.shape[0])])",
    "return torch.stack([v[b, :][i[b]] for b in range(v.shape[0])])",
    "return torch.stack([v[b][i[b]] + 1 for b in range(v.shape[0])])",
    "return torch.stack(list(v[b][i[b]] for b in range(v.shape[0])))",
    # a name not bound to the first axis before
    "B = v.shape[1]\nreturn torch.stack([v[b][i[b]] for b in range(B)])",
])
def test_comprehensions_left_alone(body: str) -> None:
    code = HEADER + "def f(v, i):\n" + "".join(f"    {line}\n" for line in body.splitlines())
    assert rules_found(code, select=("TRT358",)) == []


@pytest.mark.parametrize("name", ["batch_index", "voxel_map_to_source", "pairs"])
def test_comprehension_eager_unchanged_and_graph_follows_the_batch(name: str) -> None:
    original, rewritten = load(COMPREHENSIONS, name), load(rewrite(COMPREHENSIONS, select=("TRT358",)), name)
    values = torch.randn(3, 6, 2)
    values[1, 2] = torch.tensor([float("inf"), float("nan")])
    index = torch.tensor([[0, -1, -1], [5, 5, 0], [-6, 2, 3]])
    pairs = torch.tensor([[[0, 1], [-1, 5]], [[2, 2], [3, 0]], [[5, -6], [1, 4]]])
    for idx in (index, pairs, index[:, :0]):
        assert bits_equal(original(values, idx), rewritten(values, idx))
    grads = []
    for function in (original, rewritten):  # gradients reach the rows taken, repeated ones summed
        leaf = values.nan_to_num().requires_grad_()
        function(leaf, index).sum().backward()
        grads.append(leaf.grad)
    assert bits_equal(*grads)
    for bad in (torch.tensor([[6, 0, 0]] * 3), torch.zeros(3, 2, dtype=torch.int64)[:0]):
        with pytest.raises((RuntimeError, IndexError, Exception)) as before:  # noqa: B017 - its own error, kept
            original(values, bad)
        with pytest.raises(type(before.value)):
            rewritten(values, bad)
    _graph_follows_the_batch(original, rewritten, 6)
