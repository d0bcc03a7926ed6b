"""TRT401/402/403: squeeze and unsqueeze as indexing — rewrite, run, export."""

from __future__ import annotations

import warnings

import pytest
import torch

from support import assert_same, load, onnx_ops, rewrite, rules_found

MODEL = """
import torch
from torch import nn


class Head(nn.Module):
    def forward(self, logits, boxes):
        scores = logits.squeeze(1)          # (N, 1, A) -> (N, A)
        last = torch.squeeze(boxes, -1)     # (N, A, 4, 1) -> (N, A, 4)
        return scores[..., None] * last, boxes.unsqueeze(0).unsqueeze(-2)
"""

EDGE_INPUTS = [
    (torch.randn(2, 1, 5), torch.randn(2, 5, 4, 1)),
    (torch.zeros(1, 1, 3), -torch.ones(1, 3, 4, 1)),
    (torch.full((3, 1, 2), float("inf")), torch.full((3, 2, 4, 1), float("nan"))),
    (torch.empty(0, 1, 7), torch.empty(0, 7, 4, 1)),
]


def test_rewrite_text() -> None:
    after = rewrite(MODEL, unsafe=True, select=("TRT401", "TRT402"))
    assert "scores = logits[:, 0]" in after
    assert "last = boxes[..., 0]" in after
    assert "boxes[None][..., None, :]" in after
    assert "squeeze" not in after.replace("# (N, 1, A)", "")
    # Comments and layout survive.
    assert "# (N, 1, A) -> (N, A)" in after


def test_squeeze_needs_unsafe() -> None:
    safe = rewrite(MODEL, select=("TRT401", "TRT402"))
    assert "logits.squeeze(1)" in safe and "torch.squeeze(boxes, -1)" in safe
    assert "boxes.unsqueeze(0).unsqueeze(-2)" in safe  # TRT402's fix is unsafe too


def test_unsqueeze_is_opt_in() -> None:
    """ALL leaves TRT402 out: its rewrite never changes the exported graph."""
    assert "TRT402" not in rules_found(MODEL)
    assert "TRT402" in rules_found(MODEL, select=("TRT402",))
    assert "TRT402" in rules_found(MODEL, select=("TRT4",))
    code = "def f(x):\n    return x.unsqueeze(1) + x[:, None]\n"
    ops = onnx_ops(_Wrap(load(code, "f")), (torch.randn(2, 3),))
    assert ops.count("Unsqueeze") == 2, ops  # both spellings export the same node


@pytest.mark.parametrize("inputs", EDGE_INPUTS, ids=["random", "zeros-neg", "inf-nan", "empty"])
def test_same_results(inputs) -> None:
    before = load(MODEL, "Head")()
    after = load(rewrite(MODEL, unsafe=True, select=("TRT401", "TRT402")), "Head")()
    assert_same(before(*inputs), after(*inputs))


def test_unsafe_assumption_is_real() -> None:
    """On an axis of size 2 squeeze is a no-op but indexing drops data: why TRT401 is unsafe."""
    before = load("def f(x):\n    return x.squeeze(1)\n", "f")
    after = load(rewrite("def f(x):\n    return x.squeeze(1)\n", unsafe=True, select=("TRT401",)), "f")
    x = torch.randn(3, 2)
    assert before(x).shape != after(x).shape


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -2, -3])
def test_unsqueeze_every_axis(dim: int) -> None:
    code = f"def f(x):\n    return x.unsqueeze({dim})\n"
    after = rewrite(code, unsafe=True, select=("TRT402",))
    assert "unsqueeze" not in after
    for x in (torch.randn(2, 3), torch.tensor([[float("nan"), -0.0, 1.0]]), torch.empty(0, 3)):
        assert_same(load(code, "f")(x), load(after, "f")(x))


def test_export_has_no_if_after_rewrite() -> None:
    args = (torch.randn(2, 1, 5), torch.randn(2, 5, 4, 1))
    axes = {"logits": {0: "n", 1: "one", 2: "a"}, "boxes": {0: "n", 1: "a", 3: "one2"}}
    names = ["logits", "boxes"]
    before_ops = onnx_ops(load(MODEL, "Head")(), args, dynamic_axes=axes, input_names=names)
    after_ops = onnx_ops(load(rewrite(MODEL, unsafe=True, select=("TRT401", "TRT402")), "Head")(), args,
                         dynamic_axes=axes, input_names=names)
    assert "If" in before_ops
    assert "If" not in after_ops and "Squeeze" not in after_ops


class _Wrap(torch.nn.Module):
    def __init__(self, fn) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


def test_not_matched() -> None:
    code = """
    import numpy as np
    def f(a, x, d):
        np.squeeze(a, 1)
        x.squeeze(d)
        x.squeeze()
        x.squeeze_(0)
        x.unsqueeze(d)
    """
    assert rules_found(code, select=("ALL", "TRT401")) == ["TRT401", "TRT403", "TRT403"]
    # Only the axis held by a name is rewritten (TRT401's `select`, unsafe); the rest stays.
    expected = __import__("textwrap").dedent(code).replace("x.squeeze(d)", "x.select(d, 0)")
    assert rewrite(code, unsafe=True, select=("ALL", "TRT401")) == expected


TUPLE_SQUEEZE = """
import torch


def f(x):
    return x.squeeze((1, -1)), torch.squeeze(x, dim=(-3, -1)), x.squeeze((0, 2)), x.squeeze((3,))
"""


def test_tuple_of_axes_indexes_each() -> None:
    """A tuple of literal axes (torch >= 2.0) is squeezed by indexing each with 0, front axes before
    ``...`` and back axes after it; a repeated axis is reported without a fix."""
    after = rewrite(TUPLE_SQUEEZE, unsafe=True, select=("TRT401",))
    assert "return x[:, 0, ..., 0], x[..., 0, :, 0], x[0, :, 0], x[:, :, :, 0]" in after, after
    repeated = "def f(x):\n    return x.squeeze((1, 1))\n"
    assert rewrite(repeated, unsafe=True, select=("TRT401",)) == repeated
    assert rules_found(repeated, select=("TRT401",)) == ["TRT401"]
    from trtcodemod.engine import Options, check_source

    [finding] = check_source(repeated.encode(), "snippet.py", Options(select=("TRT401",)))
    assert "names an axis twice" in finding.message and "computed" not in finding.message
    before, fixed = load(TUPLE_SQUEEZE, "f"), load(after, "f")
    ones = torch.randn(1, 1, 1, 1)
    for x in (ones, torch.zeros(1, 1, 1, 1), torch.full((1, 1, 1, 1), float("nan")), -ones.abs(),
              torch.tensor([[[[float("inf")]]]])):
        assert_same(before(x), fixed(x))
    # Axes of size 1 on both sides of the index, any size between (none too): the same views.
    code = "def f(x):\n    return x.squeeze((0, 1, -1, -2))\n"
    for x in (torch.randn(1, 1, 4, 1, 1), torch.empty(1, 1, 0, 1, 1)):
        assert_same(load(code, "f")(x), load(rewrite(code, unsafe=True, select=("TRT401",)), "f")(x))


def test_tuple_of_axes_exports_after_rewrite() -> None:
    """The TorchScript exporter cannot export a squeeze of several axes; the index exports, no If."""
    code = "def f(x):\n    return x.squeeze((1, -1)) * 2\n"
    args = (torch.randn(3, 1, 5, 1),)
    axes = {"x": {0: "n", 2: "a"}}
    with pytest.raises(Exception):
        onnx_ops(_Wrap(load(code, "f")), args, dynamic_axes=axes, input_names=["x"])
    ops = onnx_ops(_Wrap(load(rewrite(code, unsafe=True, select=("TRT401",)), "f")), args, dynamic_axes=axes,
                   input_names=["x"])
    assert "If" not in ops and "Squeeze" not in ops, ops


CHAINS = """
import torch


def f(x):
    return x.unsqueeze(1).unsqueeze(1), x.unsqueeze(-1).unsqueeze(-1), torch.unsqueeze(x.unsqueeze(-2), -1), \\
        x.unsqueeze(2).unsqueeze(0), x.unsqueeze(0).unsqueeze(-1)
"""


def test_unsqueeze_chain_is_one_index(tmp_path) -> None:
    """A chain of literal axes counted from the same end becomes one index; a chain mixing the
    ends stays two. Same views on every input, and the dynamo exporter's graph is the chain's."""
    after = rewrite(CHAINS, unsafe=True, select=("TRT402",))
    assert ("return x[:, None, None], x[..., None, None], x[..., None, :, None], \\\n"
            "        x[None, :, :, None], x[None][..., None]") in after, after
    before, fixed = load(CHAINS, "f"), load(after, "f")
    for x in (torch.randn(2, 3), torch.zeros(1, 1), torch.tensor([[float("nan"), -float("inf")]]),
              torch.empty(0, 4)):
        for a, b in zip(before(x), fixed(x)):
            assert_same(a, b)
            assert a.stride() == b.stride() and a.data_ptr() == b.data_ptr()
    code = "def f(m):\n    return m.unsqueeze(1).unsqueeze(1) * 2\n"
    ops = [_dynamo_ops(load(text, "f"), tmp_path / f"{i}.onnx")
           for i, text in enumerate((code, rewrite(code, unsafe=True, select=("TRT402",))))]
    assert ops[0] == ops[1] and ops[0].count("Unsqueeze") == 1, ops


def _dynamo_ops(fn, path) -> list[str]:
    """Op types of the dynamo exporter's graph of ``fn`` on a (batch, 3, 4) input, batch dynamic."""
    import onnx

    torch.onnx.export(_Wrap(fn), (torch.randn(2, 3, 4),), str(path), dynamo=True, opset_version=18,
                      input_names=["m"], dynamic_axes={"m": {0: "batch"}})
    return sorted(node.op_type for node in onnx.load(str(path)).graph.node)


# --- what is not a rule (was test_repeat_transpose.py) -----------------------------------------

HEADER = "import torch\nimport numpy as np\nfrom torch import nn\n"


@pytest.mark.parametrize("rank", [2, 3])
def test_dot_t_exports_as_transpose(rank: int) -> None:
    """The seed's `.T` failure (no symbolic for numpy_T) is gone in torch 2.13: a plain Transpose."""
    class M(torch.nn.Module):
        def forward(self, x):
            return x.T * 2

    x = torch.randn(*range(2, 2 + rank))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ops = onnx_ops(M(), (x,), dynamic_axes={"input_0": {0: "n"}})
        program = torch.onnx.export(M(), (x,), dynamo=True, verbose=False)
    assert "Transpose" in ops
    assert "Transpose" in [node.op_type for node in program.model_proto.graph.node]


@pytest.mark.parametrize("code", [
    "y = x.squeeze().unsqueeze(0)\n",
    "y = x.squeeze().squeeze(1)\n",
    "y = torch.squeeze(x).unsqueeze(-1).float()\n",
    "y = x.float().squeeze()[0]\n",
])
def test_chained_squeeze_all_is_already_reported(code: str) -> None:
    """TRT403 sees `squeeze()` inside chains: no separate rule needed."""
    assert "TRT403" in rules_found(HEADER + code)


# --- TRT401: a squeeze the run never saw squeeze anything ---------------------------------------------
# CSRavasio/oflibpytorch@bf650ce01b00867220311bd48e8a55e70b36e7de src/oflibpytorch/utils.py:1197
# (`apply_s_flow`): `warped_mask = (warped_density > 0).squeeze(1)` of an N-H-W density, so axis 1 is the
# height: squeeze changes nothing unless the image is one row high, and the export guards it with an `If`.
NOOP_SQUEEZE = """\
import torch
from torch import nn


class M(nn.Module):
    def forward(self, density):
        hit = (density > 0).squeeze(1)
        return hit.float() * density
"""


def _squeeze_facts(path: str, sizes: list[int], stretched: bool = True):
    from trtcodemod.evidence.facts import Facts

    line = NOOP_SQUEEZE.splitlines().index("        hit = (density > 0).squeeze(1)") + 1
    events = [{"kind": "squeeze", "path": path, "line": line, "column": 15, "end_line": line, "end_column": 45,
               "count": 1, "sizes": [size]} for size in sizes]
    return Facts.from_json({"runs": len(sizes), "lines": {path: list(range(1, 10))}, "events": events,
                            "stretched": ["density[1] (height) 4->9"] if stretched else []})


def _squeeze_fixed(path: str, facts) -> str:
    from trtcodemod.engine import Options, fix_source

    options = Options(select=("TRT401",), unsafe=True, facts=facts, scope="all")
    return fix_source(NOOP_SQUEEZE.encode(), path, options).source.decode()


@pytest.mark.parametrize("sizes,stretched,line", [
    ([4, 4, 9], True, "        hit = _trt_squeeze_kept(density > 0, 1)\n"),
    ([1, 1, 1], True, "        hit = (density > 0)[:, 0]\n"),
    ([4, 1, 9], True, "        hit = (density > 0)[:, 0]\n"),  # mixed: no proof either way, the index stays
    ([4, 4], False, "        hit = (density > 0)[:, 0]\n"),  # no stretched set: one size says little
])
def test_a_squeeze_never_seen_at_size_one_keeps_the_tensor(tmp_path, sizes, stretched, line) -> None:
    from trtcodemod.evidence.facts import Facts, Span
    from trtcodemod.evidence.proofs import SQUEEZE_NEVER_ONE, Observation, prove_squeeze

    path = str((tmp_path / "m.py").resolve())
    facts = _squeeze_facts(path, sizes, stretched)
    assert line in _squeeze_fixed(path, facts)
    proof = prove_squeeze(Observation(facts, Span(path, 7, 15, 7, 45)))
    assert (proof is not None and proof.startswith(SQUEEZE_NEVER_ONE)) == ("kept" in line)


def test_the_kept_squeeze_is_the_squeeze_in_eager_mode_and_exports_no_if(tmp_path) -> None:
    import io
    import warnings

    import numpy as np
    import onnx
    import onnxruntime as ort

    path = str((tmp_path / "m.py").resolve())
    after = _squeeze_fixed(path, _squeeze_facts(path, [4, 4, 9]))
    original, rewritten = load(NOOP_SQUEEZE, "M")(), load(after, "M")()
    for shape in [(2, 4, 5), (1, 9, 3), (3, 1, 4), (0, 4, 4), (2, 4, 0)]:  # height 1: eager squeezes, both ways
        density = torch.randn(*shape)
        if density.numel():
            density.view(-1)[0] = float("nan")
        assert_same(original(density), rewritten(density))

    def graph(model):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(2, 4, 5),), buffer, dynamo=False, opset_version=17,
                              input_names=["density"], dynamic_axes={"density": {0: "n", 1: "h", 2: "w"}})
        return buffer.getvalue()

    assert "If" in {n.op_type for n in onnx.load_from_string(graph(original)).graph.node}
    data = graph(rewritten)
    assert "If" not in {n.op_type for n in onnx.load_from_string(data).graph.node}
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    for shape in [(1, 7, 3), (3, 2, 9)]:
        density = torch.randn(*shape)
        np.testing.assert_array_equal(session.run(None, {"density": density.numpy()})[0],
                                      original(density).numpy())


# --- TRT401: an axis held by a name (docTR's SqueezeLayer, `x.squeeze(self.dim)`) ---------------------------------

NAMED_AXIS = """\
import torch
from torch import nn


class Squeeze(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dim = dim

    def forward(self, x, axis: int):
        return x.squeeze(self.dim) * 2, torch.squeeze(x, dim=-axis), x.squeeze(axis + 1)
"""


def test_a_named_axis_is_selected_and_a_computed_one_only_reported() -> None:
    after = rewrite(NAMED_AXIS, unsafe=True, select=("TRT401",))
    assert "return x.select(self.dim, 0) * 2, x.select(-axis, 0), x.squeeze(axis + 1)" in after
    assert rewrite(NAMED_AXIS, select=("TRT401",)) == NAMED_AXIS  # unsafe: not without --unsafe (or a proof)
    assert rules_found(NAMED_AXIS, select=("TRT401",)) == ["TRT401"] * 3
    original, rewritten = load(NAMED_AXIS, "Squeeze")(3), load(after, "Squeeze")(3)
    for x in [torch.randn(2, 5, 4, 1), torch.zeros(0, 2, 3, 1), -torch.ones(1, 1, 1, 1),
              torch.tensor([float("inf"), float("nan"), -0.0, 1.0]).view(2, 2, 1, 1)]:
        assert_same(original(x, 1), rewritten(x, 1))
    with pytest.raises(IndexError):  # an axis too far: both raise
        original(torch.randn(2, 1), 1)
    with pytest.raises(IndexError):
        rewritten(torch.randn(2, 1), 1)


def _named_facts(path: str, sizes: list[list[int]]):
    from trtcodemod.evidence.facts import Facts

    line = NAMED_AXIS.splitlines().index("        return x.squeeze(self.dim) * 2, torch.squeeze(x, dim=-axis), "
                                         "x.squeeze(axis + 1)") + 1
    events = [{"kind": "squeeze", "path": path, "line": line, "column": 15, "end_line": line, "end_column": 34,
               "count": 1, "sizes": seen} for seen in sizes]
    return Facts.from_json({"runs": len(sizes), "lines": {path: list(range(1, 12))}, "events": events,
                            "stretched": ["x[0] (batch) 2->5"]})


@pytest.mark.parametrize("sizes,expected", [
    ([[1], [1]], "x.select(self.dim, 0) * 2"),  # proved: the axis had size 1 on every call
    ([[4], [7]], "_trt_squeeze_kept(x, self.dim) * 2"),  # never 1 over a stretched run: the tensor as it is
    ([[1, 1]], "x.squeeze(self.dim) * 2"),  # the name held several axes: no fix
])
def test_a_named_axis_follows_the_observed_run(tmp_path, sizes, expected) -> None:
    from trtcodemod.engine import Options, fix_source

    path = str((tmp_path / "m.py").resolve())
    options = Options(select=("TRT401",), facts=_named_facts(path, sizes), scope="all")
    assert expected in fix_source(NAMED_AXIS.encode(), path, options).source.decode()


# --- TRT403: `squeeze()` with no axis, fixed where observed shapes prove which axes it drops ---------------------

# The HyperIQA form (facexlib, hyperiqa_net.py:90-102 and :273, zoo 27): a globally pooled N-C-1-1 map squeezed
# with no axis feeds a Linear, then `view(-1, f)`; the score's N-1-1-1 squeezed at the end. A trace at a batch of
# 1 drops the batch too. Our own small model of that form.
POOLED_HEAD = """\
import torch
from torch import nn


class Head(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.pool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(8, 4)

    def forward(self, feat):
        bias = self.fc(self.pool(feat).squeeze()).view(-1, 4)
        score = (feat[:, :4] * bias[:, :, None, None]).mean((1, 2, 3), keepdim=True)
        return torch.squeeze(score).reshape(-1), (score + 1).squeeze_(1)
"""
_SQUEEZES = ("self.pool(feat).squeeze()", "torch.squeeze(score)")


def _squeeze_all_facts(path: str, shapes: dict[str, list[list[int]]], stretched: bool = True):
    """Facts with a `squeeze_all` event per shape at each of the calls in ``shapes`` (keys from ``_SQUEEZES``)."""
    from trtcodemod.evidence.facts import Facts

    lines = POOLED_HEAD.splitlines()
    events = []
    for text, seen in shapes.items():
        line = next(i for i, row in enumerate(lines, 1) if text in row)
        start = lines[line - 1].index(text) + 1
        events += [{"kind": "squeeze_all", "path": path, "line": line, "column": start, "end_line": line,
                    "end_column": start + len(text), "count": 1, "shape": shape} for shape in seen]
    return Facts.from_json({"runs": 4, "lines": {path: list(range(1, len(lines) + 1))}, "events": events,
                            "stretched": ["feat[0] (batch) 1->3"] if stretched else []})


BATCHES = {"self.pool(feat).squeeze()": [[1, 8, 1, 1], [1, 8, 1, 1], [2, 8, 1, 1], [3, 8, 1, 1]],
           "torch.squeeze(score)": [[1, 1, 1, 1], [1, 1, 1, 1], [2, 1, 1, 1], [3, 1, 1, 1]]}


def _squeeze_all_fixed(path: str, facts, unsafe: bool = False) -> str:
    from trtcodemod.engine import Options, fix_source

    return fix_source(POOLED_HEAD.encode(), path, Options(select=("TRT403",), unsafe=unsafe, facts=facts,
                                                          scope="all")).source.decode()


def test_squeeze_all_rewrite_keeps_the_axes_that_varied(tmp_path) -> None:
    path = str((tmp_path / "m.py").resolve())
    after = _squeeze_all_fixed(path, _squeeze_all_facts(path, BATCHES))  # proved: no --unsafe needed
    assert "        bias = self.fc(_trt_squeeze_axes(self.pool(feat), [2, 3])).view(-1, 4)\n" in after
    assert "        return _trt_squeeze_axes(score, [1, 2, 3]).reshape(-1), (score + 1).squeeze_(1)\n" in after
    assert after.count("def _trt_squeeze_axes(") == 1
    assert _squeeze_all_fixed(path, _squeeze_all_facts(path, BATCHES)) == after  # deterministic
    from trtcodemod.engine import Options, fix_source

    again = fix_source(after.encode(), path, Options(select=("TRT403",), unsafe=True, scope="all")).source.decode()
    assert again == after  # idempotent: the in-place squeeze_ stays a finding without a fix


@pytest.mark.parametrize("shapes,stretched", [
    (None, True),  # no facts: which axes are 1 is not in the code
    ({"self.pool(feat).squeeze()": [[1, 8, 1, 1], [2, 8, 1]]}, True),  # the rank changed between calls
    (BATCHES, False),  # no stretched set: an axis that stays 1 at every size cannot be told from the batch
])
def test_squeeze_all_without_a_proof_is_reported_with_no_fix(tmp_path, shapes, stretched) -> None:
    from trtcodemod.engine import Options, check_source

    path = str((tmp_path / "m.py").resolve())
    facts = None if shapes is None else _squeeze_all_facts(path, shapes, stretched)
    assert _squeeze_all_fixed(path, facts, unsafe=True) == POOLED_HEAD
    findings = check_source(POOLED_HEAD.encode(), path, Options(select=("TRT403",), facts=facts, scope="all"))
    assert [f.rule for f in findings] == ["TRT403"] * 3
    assert "name the axes it means and index them" in findings[0].message


def test_squeeze_all_proof_names_the_squeezed_and_the_kept_axes(tmp_path) -> None:
    from trtcodemod.evidence.facts import Span
    from trtcodemod.evidence.proofs import Observation, prove_squeeze_all, squeezed_axes

    path = str((tmp_path / "m.py").resolve())
    facts = _squeeze_all_facts(path, BATCHES)
    [event, *_] = facts.events
    proof = prove_squeeze_all(Observation(facts, Span(path, event["line"], event["column"], event["line"],
                                                      event["end_column"])))
    assert proof == ("observed: squeeze() had shapes of rank 4 whose axes 2, 3 had size 1 in all 4 call(s) over "
                     "4 input set(s), one with the dynamic axes stretched (feat[0] (batch) 1->3); axis 0 varied "
                     "(1, 2, 3)")
    assert squeezed_axes([{"shape": [2, 5]}, {"shape": [3, 5]}]) == ()  # nothing always 1: nothing squeezed
    assert squeezed_axes([{"shape": [1, 5]}, {"shape": [1, 5, 1]}]) is None
    assert squeezed_axes([]) is None


def _pooled_pair(tmp_path):
    path = str((tmp_path / "m.py").resolve())
    after = _squeeze_all_fixed(path, _squeeze_all_facts(path, BATCHES))
    return load(POOLED_HEAD, "Head")().eval(), load(after, "Head")().eval()


def test_squeeze_all_fix_is_the_squeeze_in_eager_mode(tmp_path) -> None:
    original, rewritten = _pooled_pair(tmp_path)
    feats = [torch.randn(1, 8, 3, 3), torch.randn(2, 8, 4, 5), torch.zeros(3, 8, 2, 2), -torch.ones(1, 8, 1, 1),
             torch.full((2, 8, 2, 2), float("inf")), torch.full((1, 8, 2, 2), float("nan")),
             torch.randn(2, 8, 1, 1), torch.empty(0, 8, 2, 2)]
    for feat in feats:
        with torch.no_grad():
            assert_same(original(feat), rewritten(feat))
    # gradients, and the in-place squeeze_ left as written
    feat_a, feat_b = torch.randn(2, 8, 3, 3, requires_grad=True), None
    feat_b = feat_a.detach().clone().requires_grad_()
    original(feat_a)[0].sum().backward()
    rewritten(feat_b)[0].sum().backward()
    assert_same(feat_a.grad, feat_b.grad)
    # the helper alone: the view `squeeze()` gives, batch 1 dropped as eager mode drops it
    helper = load(_squeeze_all_fixed(str((tmp_path / "m.py").resolve()),
                                     _squeeze_all_facts(str((tmp_path / "m.py").resolve()), BATCHES)),
                  "_trt_squeeze_axes")
    x = torch.randn(1, 8, 1, 1)
    y = helper(x, [2, 3])
    assert y.shape == (8,) and y.stride() == x.squeeze().stride() and y.data_ptr() == x.data_ptr()


def test_squeeze_all_fix_scripts_and_symbolically_traces(tmp_path) -> None:
    from support import import_file

    original, rewritten = _pooled_pair(tmp_path)
    path = tmp_path / "m.py"
    path.write_text(_squeeze_all_fixed(str(path.resolve()), _squeeze_all_facts(str(path.resolve()), BATCHES)))
    scripted = torch.jit.script(import_file(path, "squeeze_all_rewritten").Head().eval())  # needs a source file
    traced_fx = torch.fx.symbolic_trace(rewritten)
    for feat in (torch.randn(1, 8, 3, 3), torch.randn(3, 8, 2, 2)):
        assert_same(original(feat), scripted(feat))
        assert_same(original(feat), traced_fx(feat))


def test_squeeze_all_export_at_batch_one_runs_at_other_batches(tmp_path) -> None:
    import numpy as np
    import onnx
    from variant_models import export_variant

    from trtcodemod.trt.check import check_graph

    original, rewritten = _pooled_pair(tmp_path)
    example, batch = (torch.randn(1, 8, 3, 3),), {"feat": {0: "batch"}}
    export_variant(original, example, batch, tmp_path / "before.onnx", tmp_path)
    refused = [i for i in check_graph(onnx.load(str(tmp_path / "before.onnx"))) if i.rule == "TRT403"]
    assert refused and all(i.op == "Squeeze" for i in refused)  # the axis-less Squeezes TensorRT cannot parse
    session, _ = export_variant(rewritten, example, batch, tmp_path / "after.onnx", tmp_path)
    after = onnx.load(str(tmp_path / "after.onnx"))
    assert check_graph(after) == []
    assert all(len(n.input) > 1 for n in after.graph.node if n.op_type == "Squeeze")  # any Squeeze names its axes
    for size in (2, 3):
        feat = torch.randn(size, 8, 3, 3)
        feat[0, 0, 0, 0] = 0.0
        with torch.no_grad():
            expected = original(feat)
        got = session.run(None, {"feat": feat.numpy()})
        np.testing.assert_allclose(got[0], expected[0].numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got[1], expected[1].numpy(), rtol=1e-5, atol=1e-6)


# braindecode's ShallowFBCSPNet folding its temporal bias into the spatial convolution (braindecode 1.8.1,
# braindecode/modules/convolution.py:194-199), our own small model: a chain of method calls over four lines, two
# of them `squeeze()` with no axis. CPython (3.11+) places a call whose attribute sits on a later line than the
# chain's start at the attribute's name, so the observer saw the last `squeeze()` at `squeeze()` alone.
CHAINED_SQUEEZES = """\
import torch
from torch import nn


class Folded(nn.Module):
    def __init__(self):
        super().__init__()
        self.time = nn.Conv2d(1, 4, (1, 5))
        self.space = nn.Conv2d(4, 4, (3, 1), bias=False)

    def forward(self, x):
        bias = (
            self.space.weight.squeeze()
            .sum(-1)
            .mm(self.time.bias.unsqueeze(-1))
            .squeeze()
        )
        return self.space(self.time(x.unsqueeze(1))).mean((2, 3)) + bias


def build():
    torch.manual_seed(0)
    return Folded().eval()


def inputs(generator):
    return (torch.rand(2, 3, 12, generator=generator),)
"""


def test_chained_squeezes_over_lines_each_get_their_observed_axes(tmp_path) -> None:
    """Each `squeeze()` of a chain over several lines is matched to its own observed shape: the last one was
    observed from its attribute's line, and before, its span overlapped both calls' events (ranks 4 and 2), so the
    axes were unknown and the Squeeze with no axes stayed (ONNX Runtime then refused the graph's Gemm)."""
    from trtcodemod.engine import Options, fix_source
    from trtcodemod.migrate.run import observe
    from trtcodemod.verify.spec import build_spec

    model = tmp_path / "folded.py"
    model.write_text(CHAINED_SQUEEZES)
    spec = build_spec({"model_file": str(model), "model": "build", "inputs": "inputs",
                       "dynamic_axes": {"x": {"0": "batch"}}})
    facts, why = observe(spec, tmp_path)
    assert facts is not None, why
    after = fix_source(CHAINED_SQUEEZES.encode(), str(model.resolve()),
                       Options(select=("TRT403",), facts=facts, scope="all")).source.decode()
    assert "            _trt_squeeze_axes(_trt_squeeze_axes(self.space.weight, [3])\n" in after
    assert "            .mm(self.time.bias.unsqueeze(-1)), [1])\n" in after
    namespace: dict = {}
    exec(compile(after, str(model), "exec"), namespace)
    original: dict = {}
    exec(compile(CHAINED_SQUEEZES, str(model), "exec"), original)
    for batch in (1, 2, 5):
        x = torch.randn(batch, 3, 12)
        assert torch.equal(namespace["build"]()(x), original["build"]()(x))


def test_a_span_is_the_same_as_its_method_call_observed_from_a_later_line() -> None:
    from trtcodemod.evidence.facts import Span

    chain = Span("m.py", 12, 9, 17, 23)
    assert chain.same(Span("m.py", 17, 14, 17, 23)) and Span("m.py", 17, 14, 17, 23).same(chain)
    assert not chain.same(Span("m.py", 12, 14, 17, 23))  # one line: CPython keeps a call's start there
    assert not chain.same(Span("m.py", 13, 9, 13, 40))  # another end: another call
    assert chain.same(Span("m.py", 12, 9, 17, 23))
