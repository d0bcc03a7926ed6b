"""TRT718: ``x.split(n)`` with ``n`` a traced size becomes ``_trt_split_by_size(x, n, d)``: ``split`` itself
outside an ONNX export, the axis viewed as ``(-1, n)`` and unbound while exporting.

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
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
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
    assert "return _trt_split_by_size(x, y.shape[0], 0)" in after
    assert "return _trt_split_by_size(x, n, -1)" in after
    assert "return _trt_split_by_size(x + 1, y.shape[0] * 2, 1)" in after
    assert rules_found(FUNCTIONS, select=("TRT718",)) == ["TRT718"] * 3


@pytest.mark.parametrize("code", [
    "def f(x: torch.Tensor):\n    return x.split(4, dim=0)\n",  # a literal: nothing traced
    "def f(x: torch.Tensor):\n    return x.split(2 * 3, dim=0)\n",  # arithmetic of literals: nothing traced
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


def test_a_remainder_part_is_split_in_eager_mode_and_the_stated_assumption_while_exporting(tmp_path: Path) -> None:
    """7 rows by 3: eager mode is `split` itself (a short last part); the export's form raises."""
    before, after = _pair(tmp_path, "rows")
    x, y = torch.randn(7, 2), torch.zeros(3, 1)
    assert [p.shape[0] for p in after(x, y)] == [p.shape[0] for p in before(x, y)] == [3, 3, 1]
    with pytest.raises(RuntimeError), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(_Module(after), (x, y), io.BytesIO(), dynamo=False)


HALVES = """\
import torch
from torch import nn


class Halves(nn.Module):
    def forward(self, x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        a, b = x.split(y.shape[0], dim=0)
        return a * 2 + b
"""


def test_the_toolchains_run_split_itself(tmp_path: Path) -> None:
    """Outside an ONNX export the helper is ``split``: scripted, fx-traced (and scripted after),
    compiled and ``torch.export``-ed, the rewritten module gives what the original gives, and fails
    where it fails (a remainder part unpacked into two names)."""
    after_source = rewrite(HALVES, unsafe=True)
    assert "a, b = _trt_split_by_size(x, y.shape[0], 0)" in after_source
    before = import_source(HALVES, tmp_path)["Halves"]
    after = import_source(after_source, tmp_path)["Halves"]
    for inputs in ([torch.randn(6, 3), torch.zeros(3)], [torch.randn(7, 3), torch.zeros(3)]):
        original, rewritten = toolchain_outcomes(before, inputs, tmp_path), toolchain_outcomes(after, inputs, tmp_path)
        if inputs[0].shape[0] == 6:
            assert not isinstance(original["script"], Exception)  # it scripted before, so it must after
        for name, outcome in original.items():
            if isinstance(outcome, Exception):
                assert isinstance(rewritten[name], Exception), name
            else:
                assert torch.equal(outcome, rewritten[name]), name


def test_the_rewrite_scripts(tmp_path: Path) -> None:
    _, after = _pair(tmp_path, "middle")
    scripted = torch.jit.script(after)
    x, y = torch.randn(2, 8), torch.zeros(2, 1)
    for p, q in zip(scripted(x, y), after(x, y)):
        assert torch.equal(p, q)


def test_an_empty_axis_is_split_in_eager_mode(tmp_path: Path) -> None:
    """No rows at all: `split` returns one empty part, and so does the rewrite outside an export."""
    before, after = _pair(tmp_path, "rows")
    x, y = torch.zeros(0, 2), torch.zeros(3, 1)
    assert [p.shape for p in after(x, y)] == [p.shape for p in before(x, y)] == [torch.Size([0, 2])]


class _Module(torch.nn.Module):
    """A function as a module, for ``torch.onnx.export``."""

    def __init__(self, function) -> None:
        super().__init__()
        self.function = function

    def forward(self, *inputs):
        return self.function(*inputs)


def _session(model: torch.nn.Module, examples: tuple[torch.Tensor, ...]) -> ort.InferenceSession:
    """The TorchScript export of ``model`` at ``examples``, every input's first axis dynamic."""
    names = [f"x{i}" for i in range(len(examples))]
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, examples, buffer, dynamo=False, input_names=names,
                          dynamic_axes={name: {0: "batch"} for name in names})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def _run(session: ort.InferenceSession, inputs: tuple[torch.Tensor, ...]) -> np.ndarray:
    return session.run(None, {f"x{i}": x.numpy() for i, x in enumerate(inputs)})[0]


def _twins(source: str, after: str, folder: Path, name: str) -> tuple[torch.nn.Module, torch.nn.Module]:
    """The original and the rewritten model with the same weights."""
    torch.manual_seed(0)
    before_model = import_source(source, folder)[name]().eval()
    after_model = import_source(after, folder)[name]().eval()
    after_model.load_state_dict(before_model.state_dict())
    return before_model, after_model


def _with_warning(source: str, folder: Path, line_text: str) -> str:
    """``source`` rewritten by TRT718 with the facts ``migrate`` records when the export warns
    at ``line_text`` that it turned a traced tensor into a Python integer."""
    from trtcodemod.engine import Options, fix_source
    from trtcodemod.evidence.facts import Facts

    path = folder / "warned.py"
    path.write_text(source)
    line = source.splitlines().index(line_text) + 1
    facts = Facts(runs=3, lines={str(path.resolve()): set(range(1, line + 2))})
    facts.note_traced([(str(path), line, "Converting a tensor to a Python integer might cause the trace to be "
                                         "incorrect.")])
    options = Options(select=("TRT718",), unsafe=True, scope="all", facts=facts)
    return fix_source(source.encode(), str(path), options).source.decode()


def _assert_graph_follows(before: torch.nn.Module, session: ort.InferenceSession, after: torch.nn.Module,
                          inputs: tuple[torch.Tensor, ...]) -> None:
    """Eager mode unchanged and the rewritten graph equal to it (NaN where eager has NaN)."""
    with torch.no_grad():
        want = before(*inputs)
        torch.testing.assert_close(after(*inputs), want, rtol=0, atol=0, equal_nan=True)
    np.testing.assert_allclose(_run(session, inputs), want.numpy(), rtol=1e-5, atol=1e-6)


@pytest.fixture(scope="module")
def stages(tmp_path_factory: pytest.TempPathFactory) -> tuple[torch.nn.Module, torch.nn.Module, ort.InferenceSession]:
    before, after = _twins(STAGES, rewrite(STAGES, unsafe=True), tmp_path_factory.mktemp("trt718"), "Reassemble")
    return before, after, _session(after, (torch.randn(2, 4),))


def test_the_original_graph_keeps_the_example_batch(stages: tuple[torch.nn.Module, ...]) -> None:
    session = _session(stages[0], (torch.randn(2, 4),))
    with pytest.raises(Exception, match="[Ss]plit"):
        _run(session, (torch.randn(5, 4),))


@pytest.mark.parametrize("batch", [1, 2, 5])
def test_the_rewritten_graph_equals_eager_at_every_batch(stages: tuple, batch: int) -> None:
    before, after, session = stages
    for x in (torch.randn(batch, 4), torch.zeros(batch, 4), torch.full((batch, 4), -3.0),
              torch.tensor([[float("inf"), float("nan"), -0.0, 1.0]] * batch)):
        _assert_graph_follows(before, session, after, (x,))


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
    assert rewrite(HELPER, unsafe=True) == HELPER
    after = _with_warning(HELPER, tmp_path, HELPER.splitlines()[SPLIT_LINE - 1])
    assert "_trt_split_by_size(stacked, batch, 0)" in after


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
    assert rewrite(SET_ATTENTION, unsafe=True) == SET_ATTENTION
    after = _with_warning(SET_ATTENTION, tmp_path, "        return torch.cat((Q_ + A.bmm(V_)).split(Q.size(0), 0), 2)")
    assert "return torch.cat(_trt_split_by_size(Q_ + A.bmm(V_), Q.size(0), 0), 2)" in after
    assert after.count(".split(width, 2)") == 3  # a configured width, no size: left alone
    before_model, after_model = _twins(SET_ATTENTION, after, tmp_path, "Block")
    example = (torch.randn(2, 3, 4), torch.randn(2, 5, 4))
    with pytest.raises(Exception):  # the example's two-row split does not fit three rows
        _run(_session(before_model, example), (torch.randn(3, 3, 4), torch.randn(3, 5, 4)))
    session = _session(after_model, example)
    for inputs in ((torch.randn(3, 3, 4), torch.randn(3, 5, 4)), (torch.zeros(1, 3, 4), -torch.ones(1, 5, 4)),
                   (torch.randn(4, 3, 4), torch.randn(4, 5, 4))):
        _assert_graph_follows(before_model, session, after_model, inputs)


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
    assert rewrite(PAIR, unsafe=True) == PAIR  # nothing in the code shows `feats_c` is a tensor
    after = _with_warning(PAIR, tmp_path, "        feat_c0, feat_c1 = feats_c.split(data['bs'])")
    assert "feat_c0, feat_c1 = _trt_split_by_size(feats_c, data['bs'], 0)" in after
    before_model, after_model = _twins(PAIR, after, tmp_path, "Pair")
    example = (torch.randn(2, 1, 8, 8), torch.randn(2, 1, 8, 8))
    with pytest.raises(Exception):
        _run(_session(before_model, example), (torch.randn(3, 1, 8, 8), torch.randn(3, 1, 8, 8)))
    session = _session(after_model, example)
    for inputs in ((torch.randn(3, 1, 8, 8), torch.randn(3, 1, 8, 8)),
                   (torch.zeros(1, 1, 8, 8), -torch.ones(1, 1, 8, 8))):
        _assert_graph_follows(before_model, session, after_model, inputs)
