"""TRT354: sizes read through ``.data`` (``x.data.size()``, ``x.data.shape``) are read from the tensor while tracing.

The rewrite is checked as text (the forms taken, and what is left alone: a parameter's sizes, ``.data``
used for values, sizes read from the tensor itself), then run: eager mode is the same on real tensors
with zeros, negatives, inf/NaN, empty and 0-d tensors and on an object that is not a tensor; the same
under scripting, fx, ``torch.compile`` and ``torch.export``; the original's TorchScript export keeps
the traced sizes (ONNX Runtime refuses another size), the rewritten one follows them.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest
import torch
from torch import nn
from safety import assert_same_run, assert_same_toolchain_outcomes, import_source, run_once
from support import rewrite, rules_found

from trtcodemod.helpers.detached import _trt_sized_data

HEAD = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x, y):\n"


def _fixed(body: str) -> str:
    return rewrite(HEAD + body, select=("TRT354",))


@pytest.mark.parametrize(("body", "want"), [
    ("        b, c, h, w = x.data.size()\n        return x.view(b, c, h * w)\n",
     "        b, c, h, w = _trt_sized_data(x).size()\n        return x.view(b, c, h * w)\n"),
    ("        return x.view(x.data.size(0), -1)\n", "        return x.view(_trt_sized_data(x).size(0), -1)\n"),
    ("        return torch.zeros([x.data.size()[0], 2] + list(x.data.size()[2:]))\n",
     "        return torch.zeros([_trt_sized_data(x).size()[0], 2] + list(_trt_sized_data(x).size()[2:]))\n"),
    ("        n = x.data.shape[0]\n        return y[:n]\n", "        n = _trt_sized_data(x).shape[0]\n        return y[:n]\n"),
    ("        return x.reshape(x.data.shape)\n", "        return x.reshape(_trt_sized_data(x).shape)\n"),
    ("        return y.view(y[0].data.size())\n", "        return y.view(_trt_sized_data(y[0]).size())\n"),
])
def test_rewrite_text(body: str, want: str) -> None:
    after = _fixed(body)
    assert after.endswith(want), after
    assert "def _trt_sized_data(" in after
    assert rules_found(after, select=("TRT354",)) == []


@pytest.mark.parametrize("body", [
    "        return x.view(self.weight.data.size())\n",  # a parameter's sizes do not follow the input
    "        return x.view(self.proj.weight.data.shape)\n",
    "        return x.view(x.size(0), -1)\n",  # the tensor's own sizes: recorded already
    "        return x.data.clone() + y\n",  # `.data` for its values, not its sizes
    "        return x.data\n",
    "        return x.data.dim() + y\n",  # the rank is fixed by the export
])
def test_other_code_is_left_alone(body: str) -> None:
    code = HEAD + body
    assert rules_found(code, select=("TRT354",)) == []
    assert _fixed(body) == code


def test_the_helper_is_data_outside_a_trace_and_for_non_tensors() -> None:
    x = torch.randn(2, 3, requires_grad=True)
    data = _trt_sized_data(x)
    assert data.requires_grad is False and data.data_ptr() == x.data_ptr()
    array = np.zeros((2, 5))
    assert _trt_sized_data(array).shape == array.data.shape == (2, 5)  # a NumPy array's own `.data`
    with pytest.raises(AttributeError):
        _trt_sized_data((1, 2))


def test_while_tracing_the_sizes_follow_the_input() -> None:
    def f(x):
        b, n = _trt_sized_data(x).size()
        return x.view(n, b)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(f, (torch.randn(2, 3),))
    assert traced(torch.randn(4, 5)).shape == (5, 4)


PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        sizes = x.data.size()
        rows = x.data.shape[0]
        flat = x.reshape(rows, -1) if x.dim() > 0 else x.reshape(1, 1)
        return flat * 2, torch.zeros(sizes, dtype=x.dtype) + x, torch.tensor(list(x.data.size()))
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt354")
    after = rewrite(PROGRAM, select=("TRT354",))
    assert after.count("_trt_sized_data(") == 3 + 1, after
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


@pytest.mark.parametrize("label", ["example", "zeros", "negatives", "inf-nan", "empty-rows", "empty-columns", "one",
                                   "strided", "int", "3-d", "0-d", "1-d"])
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    """Values, dtypes, strides, gradients, aliasing and exceptions (a 0-d tensor has no first size)."""
    from snippets import EDGE_TENSORS

    before, after = program[0](), program[1]()
    x = EDGE_TENSORS[label]
    runs = [[x]] + ([[x.clone().requires_grad_()]] if x.is_floating_point() else [])
    for given in runs:
        assert_same_run(run_once(before, given), run_once(after, given), context=label)


def test_the_other_toolchains_are_unchanged(program: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(program[0], program[1], [torch.randn(3, 4, 5)], tmp_path, original_may_fail=True)


SHUFFLE = """import torch
from torch import nn


class Shuffle(nn.Module):
    def forward(self, x):
        b, c, h, w = x.data.size()
        x = x.view(b, 2, c // 2, h, w).transpose(1, 2).contiguous()
        return x.view(b, -1, h, w)
"""


def _export(model: nn.Module, example: torch.Tensor) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])



def test_the_export_follows_the_sizes_only_after(tmp_path: Path) -> None:
    before = import_source(SHUFFLE, tmp_path)["Shuffle"]()
    after = import_source(rewrite(SHUFFLE, select=("TRT354",)), tmp_path)["Shuffle"]()
    example = torch.randn(1, 4, 6, 6)
    other = torch.randn(3, 4, 5, 9)
    with pytest.raises(Exception, match="Reshape|reshape"):
        _export(before, example).run(None, {"x": other.numpy()})
    session = _export(after, example)
    for x in (example, other, torch.zeros(2, 4, 1, 7), torch.full((2, 4, 3, 2), float("nan"))):
        got = session.run(None, {"x": x.numpy()})[0]
        want = before(x).numpy()
        assert got.shape == want.shape and np.array_equal(got, want, equal_nan=True)


# --- values read through `.data` ---------------------------------------------------------------------

from trtcodemod.helpers.detached import _trt_traced_data  # noqa: E402


@pytest.mark.parametrize(("body", "want"), [
    ("        return x.data + y\n", "        return _trt_traced_data(x) + y\n"),
    ("        return y * x[0].data\n", "        return y * _trt_traced_data(x[0])\n"),
    ("        return torch.exp(x.data) * y\n", "        return torch.exp(_trt_traced_data(x)) * y\n"),
    ("        return -x.data\n", "        return -_trt_traced_data(x)\n"),
    ("        return x.data > y\n", "        return _trt_traced_data(x) > y\n"),
])
def test_values_rewrite_text(body: str, want: str) -> None:
    after = _fixed(body)
    assert after.endswith(want), after
    assert "def _trt_traced_data(" in after and "def _trt_sized_data(" not in after
    assert rules_found(after, select=("TRT354",)) == []


@pytest.mark.parametrize("body", [
    "        return self.weight.data + x\n",  # a parameter's values: a constant of the graph anyway
    "        return x.data is None\n",  # identity of the `.data` object
    "        torch.nn.init.normal_(x.data)\n        return x\n",  # writes into `.data`
    "        torch.relu_(x.data)\n        return x\n",
    "        return torch.add(x.data, 1, out=y)\n",  # writes into `out`
    "        return keep(x.data)\n",  # a user's function may keep or write it
    "        return x.data.add_(1) + y\n",  # an in-place method on `.data`: not a read
])
def test_values_left_alone(body: str) -> None:
    assert rules_found(HEAD + body, select=("TRT354",)) == []


def test_the_values_helper_is_data_outside_a_trace_and_detach_inside() -> None:
    x = torch.randn(2, 3, requires_grad=True)
    data = _trt_traced_data(x)
    assert data.requires_grad is False and data.data_ptr() == x.data_ptr()
    with pytest.raises(AttributeError):
        _trt_traced_data((1, 2))

    def f(x):
        return _trt_traced_data(x) + 1

    traced = torch.jit.trace(f, (torch.zeros(2),))
    other = torch.arange(3.0, requires_grad=True)
    got = traced(other)
    assert torch.equal(got, other.detach() + 1) and not got.requires_grad


#: eriklindernoren/PyTorch-YOLOv3@0dc6926cbc5badad6730ff585aa4975d7e1fde79 models.py:183-186 (and torch_yolo3 0.1.1's
#: models.py:157-160): the decoder writes `x.data + self.grid_x` and `torch.exp(w.data) * self.anchor_w` into the
#: boxes. My own re-writing of the form.
DECODE = """import torch
from torch import nn


class Decode(nn.Module):
    def __init__(self):
        super().__init__()
        self.grid = torch.arange(4.0).view(1, 1, 4)
        self.anchor = torch.tensor([2.0, 3.0]).view(1, 2, 1)

    def forward(self, x: torch.Tensor):
        p = x.view(x.size(0), 2, 2, 4).permute(0, 1, 3, 2)
        cx, w = torch.sigmoid(p[..., 0]), p[..., 1]
        boxes = torch.empty(p.shape, dtype=x.dtype)
        boxes[..., 0] = cx.data + self.grid
        boxes[..., 1] = torch.exp(w.data) * self.anchor
        return boxes.view(x.size(0), -1, 2) * 8, cx.data > 0.5
"""


@pytest.fixture(scope="module")
def decode(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt354values")
    after = rewrite(DECODE, select=("TRT354",))
    assert "boxes[..., 0] = _trt_traced_data(cx) + self.grid" in after
    assert "boxes[..., 1] = torch.exp(_trt_traced_data(w)) * self.anchor" in after
    return import_source(DECODE, folder)["Decode"], import_source(after, folder)["Decode"]


DECODE_EDGE = {
    "example": torch.randn(2, 4, 4), "zeros": torch.zeros(1, 4, 4), "negatives": -torch.rand(3, 4, 4) * 90,
    "inf-nan": torch.tensor([float("inf"), -float("inf"), float("nan"), -0.0]).repeat(1, 4, 1),
    "empty-batch": torch.randn(0, 4, 4), "float64": torch.randn(2, 4, 4, dtype=torch.float64),
}


@pytest.mark.parametrize("label", list(DECODE_EDGE))
def test_the_decoder_is_unchanged_eagerly(decode: tuple[type, type], label: str) -> None:
    _assert_same_eagerly(decode, DECODE_EDGE[label], label)


def _assert_same_eagerly(classes: tuple[type, type], x: torch.Tensor, label: str) -> None:
    """The original and rewritten modules run alike on ``x``, as given and requiring grad."""
    before, after = classes[0](), classes[1]()
    for given in ([x], [x.clone().requires_grad_()]):
        assert_same_run(run_once(before, given), run_once(after, given), context=label)


def test_the_decoder_under_the_other_toolchains(decode: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(decode[0], decode[1], [torch.randn(2, 4, 4)], tmp_path, original_may_fail=True)


def test_the_decoders_export_computes_the_inputs_values_only_after() -> None:
    """`.data`'s values are the example's constant in the original's graph: another input of the same size gives
    the example's boxes; the rewritten graph computes them, at other batches too."""
    from trtcodemod.helpers import detached  # noqa: F401  (the imported program defines its own copy)

    folder = Path(__import__("tempfile").mkdtemp())
    before = import_source(DECODE, folder)["Decode"]()
    after = import_source(rewrite(DECODE, select=("TRT354",)), folder)["Decode"]()
    example = torch.randn(1, 4, 4)

    other = torch.randn(1, 4, 4) + 3
    stale = _session(before, example, {0: "b"}).run(None, {"x": other.numpy()})[0]
    assert not np.allclose(stale, before(other)[0].numpy())
    rewritten = _session(after, example, {0: "b"})
    for x in (example, other, torch.zeros(3, 4, 4), -torch.rand(2, 4, 4) * 20):
        got = rewritten.run(None, {"x": x.numpy()})
        want = before(x)
        assert np.allclose(got[0], want[0].numpy(), rtol=1e-6, atol=1e-6)
        assert np.array_equal(got[1], want[1].numpy())


# --- a name bound to `.data` (RetinaFace's `prior_data = priors.data`) ------------------------------------------------

#: biubug6/Pytorch_Retinaface's `detect.py` and face_detection 0.1.4's `RetinaNetDetector._detect` (zoo 65): priors
#: computed for the image's size, `prior_data = priors.data`, then decoded against every image's offsets. Our own
#: re-writing of the form, with the priors one per column of the input.
PRIORS = """import torch
from torch import nn


def decode(loc, priors):
    return priors[None] + loc * priors[None].abs()


class Head(nn.Module):
    def forward(self, x: torch.Tensor):
        priors = torch.arange(x.shape[1], dtype=x.dtype) / x.shape[1]
        prior_data = priors.data
        return decode(x, prior_data), prior_data
"""


def test_a_name_bound_to_data_reads_through_the_values_helper() -> None:
    after = rewrite(PRIORS, select=("TRT354",))
    assert "        prior_data = _trt_traced_data(priors)\n" in after, after
    assert rules_found(after, select=("TRT354",)) == []
    for kept in ("        data = self.weight.data\n", "        a, b = x.data, y\n", "        x.data = y\n"):
        assert rules_found(HEAD + kept + "        return x\n", select=("TRT354",)) == [], kept


@pytest.fixture(scope="module")
def priors(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt354bound")
    return import_source(PRIORS, folder)["Head"], import_source(rewrite(PRIORS, select=("TRT354",)), folder)["Head"]


PRIOR_EDGE = {"example": torch.randn(2, 5), "zeros": torch.zeros(1, 5), "negatives": -torch.rand(3, 9) * 40,
              "inf-nan": torch.tensor([[float("inf"), -float("inf"), float("nan"), -0.0]]),
              "empty-batch": torch.randn(0, 4), "one column": torch.randn(2, 1)}


@pytest.mark.parametrize("label", list(PRIOR_EDGE))
def test_the_bound_name_is_the_same_in_eager_mode(priors: tuple[type, type], label: str) -> None:
    _assert_same_eagerly(priors, PRIOR_EDGE[label], label)


def test_the_bound_name_under_the_other_toolchains(priors: tuple[type, type], tmp_path: Path) -> None:
    assert_same_toolchain_outcomes(priors[0], priors[1], [torch.randn(2, 5)], tmp_path, original_may_fail=True)


def test_the_priors_follow_the_input_in_the_export_only_after(priors: tuple[type, type]) -> None:
    """The original's graph keeps the example's priors (5 of them): at 7 columns ONNX Runtime refuses it; the
    rewritten graph computes them for every width and batch."""
    before, after = priors[0](), priors[1]()
    example = torch.randn(2, 5)

    with pytest.raises(Exception):  # noqa: B017 - ONNX Runtime's broadcast error names no Python type
        _session(before, example, {0: "b", 1: "n"}).run(None, {"x": torch.randn(2, 7).numpy()})
    rewritten = _session(after, example, {0: "b", 1: "n"})
    for x in (example, torch.randn(3, 7), torch.zeros(1, 1), -torch.rand(2, 12) * 20):
        got = rewritten.run(None, {"x": x.numpy()})
        want = before(x)
        assert np.allclose(got[0], want[0].numpy(), rtol=1e-6, atol=1e-6) and np.allclose(got[1], want[1].numpy())


def _session(model: nn.Module, example: torch.Tensor, axes: dict[int, str]) -> ort.InferenceSession:
    """``model``'s TorchScript export at ``example`` (input ``x`` with ``axes`` dynamic), loaded in ONNX Runtime."""
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": axes})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


MAHALANOBIS = '''\
import torch
from torch import nn


class Detector(nn.Module):
    """pytorch-ood 0.4.0's Mahalanobis scores (``_calc_gaussian_scores``): each class's centred features read
    through ``.data``, which the trace does not record (zoo 90's ood_mahalanobis)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.encoder = nn.Linear(6, 4)
        self.register_buffer("mu", torch.randn(3, 4))
        self.register_buffer("precision", torch.eye(4) * 0.5)

    def forward(self, x):
        features = self.encoder(x)
        scores = []
        for clazz in range(self.mu.shape[0]):
            centered = features.data - self.mu[clazz]
            scores.append(-0.5 * ((centered @ self.precision) * centered).sum(dim=1, keepdim=True))
        return -torch.cat(scores, 1).max(dim=1).values


def build():
    return Detector().eval()


def inputs(generator):
    return (torch.randn(3, 6, generator=generator),)
'''


def test_migrate_takes_values_read_through_data_where_the_graph_differs(tmp_path: Path) -> None:
    """No TracerWarning and no size: the graph matches its model on the traced set only, and the values read through
    `.data` are what differs; migrate applies TRT354 there and proves it."""
    from support import migrate_json

    path = tmp_path / "mahalanobis.py"
    path.write_text(MAHALANOBIS)
    report = migrate_json(path, '{"x": {"0": "batch"}}')
    assert report["before"]["faithful"] is False
    line = MAHALANOBIS.splitlines().index("            centered = features.data - self.mu[clazz]") + 1
    assert [(d["rule"], d["line"]) for d in report["applied"]] == [("TRT354", line)], report["remaining"]
    assert report["after"]["faithful"] is True and report["exit_code"] == 0, report["remaining"]
