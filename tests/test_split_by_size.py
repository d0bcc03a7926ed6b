"""TRT718: ``x.split(n)`` with ``n`` a traced size becomes ``x.unflatten(d, (-1, n)).unbind(d)``.

The rewrite text and what is left alone; eager runs before and after on real tensors (values,
strides, shared storage, gradients, exceptions) where the axis holds whole parts, and where it
does not (the stated assumption: there the rewrite raises); TorchScript scripting of the
rewritten function; and a model that stacks stages along the batch and cuts them back
(transformers' ZoeDepth reassemble stage, reduced), exported at batch 2 and run in ONNX
Runtime at batch 1 and 5: wrong before, equal to eager after.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import rewrite, rules_found

STAGES = """\
import torch
from torch import nn


class Reassemble(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.projects = nn.ModuleList(nn.Linear(4, 4) for _ in range(3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch = x.shape[0]
        stacked = torch.cat([x, x * 2, x - 1], dim=0)
        out = [project(part) for project, part in zip(self.projects, stacked.split(batch, dim=0))]
        return torch.stack(out, 1)
"""

FUNCTIONS = """\
import torch


def rows(x: torch.Tensor, y: torch.Tensor):
    return x.split(y.shape[0])


def cols(x: torch.Tensor, y: torch.Tensor):
    n = y.size(1)
    return torch.split(x, n, -1)


def middle(x: torch.Tensor, y: torch.Tensor):
    return (x + 1).split(y.shape[0] * 2, dim=1)
"""


def test_rewrite_text() -> None:
    assert rewrite(FUNCTIONS) == FUNCTIONS  # unsafe: only with --unsafe or as migrate's verified candidate
    after = rewrite(FUNCTIONS, unsafe=True)
    assert "return x.unflatten(0, (-1, y.shape[0])).unbind(0)" in after
    assert "return x.unflatten(-1, (-1, n)).unbind(-2)" in after
    assert "return (x + 1).unflatten(1, (-1, y.shape[0] * 2)).unbind(1)" in after
    assert rules_found(FUNCTIONS, select=("TRT718",)) == ["TRT718"] * 3


@pytest.mark.parametrize("code", [
    "def f(x: torch.Tensor):\n    return x.split(4, dim=0)\n",  # a literal: nothing traced
    "def f(x: torch.Tensor, y: torch.Tensor):\n    return x.split([y.shape[0], 2])\n",  # sections
    "def f(x: torch.Tensor, y: torch.Tensor, d: int):\n    return x.split(y.shape[0], d)\n",  # an unknown axis
    "def f(x: torch.Tensor, n):\n    return x.split(n)\n",  # not shown to be a size
    "def f(s: str, y: torch.Tensor):\n    return s.split(y.shape[0])\n",  # not a tensor
])
def test_left_alone(code: str) -> None:
    assert rules_found("import torch\n\n\n" + code, select=("TRT718",)) == []


def _pair(tmp_path: Path, name: str):
    before = import_source(FUNCTIONS, tmp_path)[name]
    after = import_source(rewrite(FUNCTIONS, unsafe=True), tmp_path)[name]
    return before, after


EDGES = [torch.zeros(6, 4), -torch.arange(24.0).reshape(6, 4),
         torch.tensor([[float("inf"), float("nan"), -0.0, 1.0]] * 6), torch.randn(6, 0)]


@pytest.mark.parametrize("x", EDGES, ids=["zeros", "negatives", "inf-nan", "empty-columns"])
@pytest.mark.parametrize("parts", [1, 2, 3, 6])
def test_eager_is_unchanged_where_the_axis_holds_whole_parts(tmp_path: Path, x: torch.Tensor, parts: int) -> None:
    before, after = _pair(tmp_path, "rows")
    y = torch.zeros(6 // parts, 2)
    a, b = run_once(before, [x.clone().requires_grad_(), y]), run_once(after, [x.clone().requires_grad_(), y])
    assert_same_run(a, b, context=f"{parts} parts")
    assert len(a.output) == len(b.output) == parts
    for p, q in zip(a.output, b.output):
        assert p.stride() == q.stride() and p.storage_offset() == q.storage_offset()


def test_a_negative_axis_and_a_transposed_input_keep_their_views(tmp_path: Path) -> None:
    before, after = _pair(tmp_path, "cols")
    x = torch.randn(4, 6).t()  # not contiguous
    y = torch.zeros(1, 2)
    a, b = run_once(before, [x.requires_grad_(), y]), run_once(after, [x.detach().requires_grad_(), y])
    assert_same_run(a, b)
    assert all(p.stride() == q.stride() for p, q in zip(a.output, b.output))


def test_a_remainder_part_is_the_stated_assumption(tmp_path: Path) -> None:
    """7 rows by 3: `split` returns a short last part, the rewrite raises (never other values)."""
    before, after = _pair(tmp_path, "rows")
    x, y = torch.randn(7, 2), torch.zeros(3, 1)
    assert [p.shape[0] for p in before(x, y)] == [3, 3, 1]
    with pytest.raises(RuntimeError):
        after(x, y)


def test_the_rewrite_scripts(tmp_path: Path) -> None:
    _, after = _pair(tmp_path, "middle")
    scripted = torch.jit.script(after)
    x, y = torch.randn(2, 8), torch.zeros(2, 1)
    for p, q in zip(scripted(x, y), after(x, y)):
        assert torch.equal(p, q)


def _export(model: torch.nn.Module) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (torch.randn(2, 4),), buffer, dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {0: "batch"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


@pytest.fixture(scope="module")
def models(tmp_path_factory: pytest.TempPathFactory) -> tuple[torch.nn.Module, torch.nn.Module]:
    folder = tmp_path_factory.mktemp("trt718")
    torch.manual_seed(0)
    before = import_source(STAGES, folder)["Reassemble"]().eval()
    after = import_source(rewrite(STAGES, unsafe=True), folder)["Reassemble"]().eval()
    after.load_state_dict(before.state_dict())
    return before, after


def test_the_original_graph_keeps_the_example_batch(models: tuple[torch.nn.Module, torch.nn.Module]) -> None:
    session = _export(models[0])
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    with pytest.raises(Exception, match="[Ss]plit"):
        session.run(None, {"x": x})


@pytest.mark.parametrize("batch", [1, 2, 5])
def test_the_rewritten_graph_equals_eager_at_every_batch(models: tuple[torch.nn.Module, torch.nn.Module],
                                                          batch: int) -> None:
    before, after = models
    session = _export(after)
    for x in (torch.randn(batch, 4), torch.zeros(batch, 4), torch.full((batch, 4), -3.0)):
        with torch.no_grad():
            want = before(x)
            assert torch.equal(after(x), want)
        got = session.run(None, {"x": x.numpy()})[0]
        np.testing.assert_allclose(got, want.numpy(), rtol=1e-6, atol=1e-6)


HELPER = """\
import torch


def reassemble(hidden: list, projects):
    batch = hidden[0].shape[0]
    stacked = torch.cat(hidden, dim=0)
    return [project(part) for project, part in zip(projects, stacked.split(batch, dim=0))]
"""
SPLIT_LINE = HELPER.splitlines().index("    return [project(part) for project, part in zip(projects, "
                                       "stacked.split(batch, dim=0))]") + 1


def test_an_element_of_a_list_is_a_size_only_where_the_export_warned(tmp_path: Path) -> None:
    """``hidden[0].shape[0]`` of a list parameter (ZoeDepth's reassemble stage): nothing shows
    ``hidden[0]`` is a tensor, so the size counts only with the observed export's warning."""
    from trtcodemod.engine import Options, fix_source
    from trtcodemod.evidence.facts import Facts

    path = tmp_path / "helper.py"
    path.write_text(HELPER)
    plain = fix_source(HELPER.encode(), str(path), Options(select=("TRT718",), unsafe=True, scope="all"))
    assert plain.source.decode() == HELPER
    facts = Facts(runs=3, lines={str(path.resolve()): set(range(1, 8))})
    facts.note_traced([(str(path), SPLIT_LINE, "Converting a tensor to a Python integer might cause the trace "
                                               "to be incorrect.")])
    options = Options(select=("TRT718",), unsafe=True, scope="all", facts=facts)
    after = fix_source(HELPER.encode(), str(path), options).source.decode()
    assert "stacked.unflatten(0, (-1, batch)).unbind(0)" in after


#: The Set Transformer's attention block (juho-lee/set_transformer@6fdae7f, modules.py:18-32,
#: `MAB.forward`), reduced: the heads are stacked along the batch to attend, then cut back by the
#: query's batch size, `(Q_ + A.bmm(V_)).split(Q.size(0), 0)` (line 28), and laid side by side.
#: The same line is in many copies of the block (pooling by multi-head attention, ISAB).
SET_ATTENTION = """\
import math

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.q, self.k, self.v = nn.Linear(4, 8), nn.Linear(4, 8), nn.Linear(4, 8)
        self.heads = 2

    def forward(self, Q, K):
        Q = self.q(Q)
        K, V = self.k(K), self.v(K)
        width = 8 // self.heads
        Q_ = torch.cat(Q.split(width, 2), 0)
        K_ = torch.cat(K.split(width, 2), 0)
        V_ = torch.cat(V.split(width, 2), 0)
        A = torch.softmax(Q_.bmm(K_.transpose(1, 2)) / math.sqrt(8), 2)
        return torch.cat((Q_ + A.bmm(V_)).split(Q.size(0), 0), 2)
"""


def test_the_set_transformer_block_takes_the_batch_split_and_leaves_the_head_split(tmp_path: Path) -> None:
    # `Q` is rebound to a submodule's output, which the code alone does not show to be a tensor: its
    # `size(0)` is a size where the observed export warned at the line (migrate's facts).
    from trtcodemod.engine import Options, fix_source
    from trtcodemod.evidence.facts import Facts

    path = tmp_path / "block.py"
    path.write_text(SET_ATTENTION)
    assert rewrite(SET_ATTENTION, unsafe=True) == SET_ATTENTION
    line = SET_ATTENTION.splitlines().index("        return torch.cat((Q_ + A.bmm(V_)).split(Q.size(0), 0), 2)") + 1
    facts = Facts(runs=3, lines={str(path.resolve()): set(range(1, line + 1))})
    facts.note_traced([(str(path), line, "Converting a tensor to a Python integer might cause the trace to be "
                                         "incorrect.")])
    after = fix_source(SET_ATTENTION.encode(), str(path), Options(select=("TRT718",), unsafe=True, scope="all",
                                                                   facts=facts)).source.decode()
    assert "return torch.cat((Q_ + A.bmm(V_)).unflatten(0, (-1, Q.size(0))).unbind(0), 2)" in after
    assert after.count(".split(width, 2)") == 3  # a configured width, no size: left alone
    torch.manual_seed(0)
    before_model = import_source(SET_ATTENTION, tmp_path)["Block"]().eval()
    after_model = import_source(after, tmp_path)["Block"]().eval()
    after_model.load_state_dict(before_model.state_dict())

    def session(model: torch.nn.Module) -> ort.InferenceSession:
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(2, 3, 4), torch.randn(2, 5, 4)), buffer, dynamo=False,
                              input_names=["q", "k"], dynamic_axes={"q": {0: "b"}, "k": {0: "b"}})
        return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])

    old, new = session(before_model), session(after_model)
    q, k = torch.randn(3, 3, 4), torch.randn(3, 5, 4)
    with pytest.raises(Exception):  # the example's two-row split does not fit three rows
        old.run(None, {"q": q.numpy(), "k": k.numpy()})
    for q, k in ((q, k), (torch.zeros(1, 3, 4), -torch.ones(1, 5, 4)), (torch.randn(4, 3, 4), torch.randn(4, 5, 4))):
        with torch.no_grad():
            want = before_model(q, k)
            assert torch.equal(after_model(q, k), want)
        np.testing.assert_allclose(new.run(None, {"q": q.numpy(), "k": k.numpy()})[0], want.numpy(), rtol=1e-5,
                                   atol=1e-6)


#: LoFTR's feature extraction (zju3dv/LoFTR@5d6c834, src/loftr/loftr.py:36-45), reduced: with both
#: images of one size, one backbone pass over the stacked pair, then each level cut back by the
#: batch size kept in the data dict, `feats_c.split(data['bs'])` (line 43). The backbone is a
#: submodule, so only the export's warning at the line shows the receiver is a tensor.
PAIR = """\
import torch
from torch import nn


class Pair(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.coarse = nn.Conv2d(1, 4, 3, stride=2, padding=1)

    def forward(self, image0, image1):
        data = {"bs": image0.size(0)}
        feats_c = self.coarse(torch.cat([image0, image1], dim=0))
        feat_c0, feat_c1 = feats_c.split(data['bs'])
        return (feat_c0 * feat_c1).sum(1)
"""


def test_loftr_cuts_the_stacked_pair_by_the_batch_in_its_data_dict(tmp_path: Path) -> None:
    from trtcodemod.engine import Options, fix_source
    from trtcodemod.evidence.facts import Facts

    path = tmp_path / "pair.py"
    path.write_text(PAIR)
    assert rewrite(PAIR, unsafe=True) == PAIR  # nothing in the code shows `feats_c` is a tensor
    line = PAIR.splitlines().index("        feat_c0, feat_c1 = feats_c.split(data['bs'])") + 1
    facts = Facts(runs=3, lines={str(path.resolve()): set(range(1, line + 2))})
    facts.note_traced([(str(path), line, "Converting a tensor to a Python integer might cause the trace to be "
                                         "incorrect.")])
    after = fix_source(PAIR.encode(), str(path), Options(select=("TRT718",), unsafe=True, scope="all",
                                                         facts=facts)).source.decode()
    assert "feat_c0, feat_c1 = feats_c.unflatten(0, (-1, data['bs'])).unbind(0)" in after
    torch.manual_seed(0)
    before_model = import_source(PAIR, tmp_path)["Pair"]().eval()
    after_model = import_source(after, tmp_path)["Pair"]().eval()
    after_model.load_state_dict(before_model.state_dict())

    def session(model: torch.nn.Module) -> ort.InferenceSession:
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(2, 1, 8, 8), torch.randn(2, 1, 8, 8)), buffer, dynamo=False,
                              input_names=["a", "b"], dynamic_axes={"a": {0: "n"}, "b": {0: "n"}})
        return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])

    old, new = session(before_model), session(after_model)
    a, b = torch.randn(3, 1, 8, 8), torch.randn(3, 1, 8, 8)
    with pytest.raises(Exception):
        old.run(None, {"a": a.numpy(), "b": b.numpy()})
    for a, b in ((a, b), (torch.zeros(1, 1, 8, 8), -torch.ones(1, 1, 8, 8))):
        with torch.no_grad():
            want = before_model(a, b)
            assert torch.equal(after_model(a, b), want)
        np.testing.assert_allclose(new.run(None, {"a": a.numpy(), "b": b.numpy()})[0], want.numpy(), rtol=1e-5,
                                   atol=1e-6)
