"""TRT349: a legacy constructor given sizes → ``_trt_legacy_empty`` / ``torch.empty`` / ``new_empty``.

The rewrite text of each form (spandrel's HVI-CIDNet hue plane, RAG's ``target.new``, locked dropout's
``x.new``/``x.data.new``, a ``torch.cuda.FloatTensor`` channel pad), the calls it leaves alone (Python
data, a tensor, literal sizes, ``__init__``, other objects' ``new``), the loose sizes the observed
export's warning makes count; the new tensor has the legacy constructor's sizes, dtype, device and
errors, eagerly and while tracing; a model that fills such a tensor through masks gives the original's
results bit for bit on edge values (NaN, infinities, -0.0, ties); and the TorchScript export of the
rewritten model follows the input's size where the original's graph keeps the traced example's.
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

from trtcodemod.helpers.constants import _trt_legacy_empty
from trtcodemod.migrate.locate import Problem
from trtcodemod.migrate.plan import matches

HEAD = "import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def forward(self, x: torch.Tensor, y):\n"


def _fixed(body: str) -> str:
    return rewrite(HEAD + body, select=("TRT349",))


@pytest.mark.parametrize(("body", "want"), [
    ("        return torch.Tensor(x.shape[0], x.shape[2], x.shape[3])\n",
     "        return _trt_legacy_empty(x.shape[0], x.shape[2], x.shape[3])\n"),
    ("        return torch.Tensor(x.size(0), 4, device=x.device)\n",
     "        return _trt_legacy_empty(x.size(0), 4, device=x.device)\n"),
    ("        return torch.Tensor(x.size())\n", "        return _trt_legacy_empty(x.size())\n"),
    ("        b, _, h, w = x.size()\n        return torch.cuda.FloatTensor(b, 4, h, w).fill_(0)\n",
     "        return torch.empty(b, 4, h, w, dtype=torch.float32, device=\"cuda\").fill_(0)\n"),
    ("        return torch.LongTensor(x.shape[2:])\n",
     "        return torch.empty(x.shape[2:], dtype=torch.int64, device=\"cpu\")\n"),
    ("        return torch.ByteTensor(x.size(0) * 2,)\n",
     "        return torch.empty(x.size(0) * 2, dtype=torch.uint8, device=\"cpu\",)\n"),
    ("        return x.new(x.size(0), 1, x.size(2)).bernoulli_(0.5)\n",
     "        return x.new_empty(x.size(0), 1, x.size(2)).bernoulli_(0.5)\n"),
    ("        return x.data.new(x.size(0), 1, 1, x.size(2), x.size(3)).zero_()\n",
     "        return x.data.new_empty(x.size(0), 1, 1, x.size(2), x.size(3)).zero_()\n"),
    ("        return x.new(x.shape[0])\n", "        return x.new_empty(x.shape[0])\n"),
    ("        n, c, h, w = x.size()\n        return x.data.new().resize_((1, 1, h, w)).fill_(1.0)\n",
     "        return x.data.new_empty((1, 1, h, w)).fill_(1.0)\n"),
    ("        return x.new().resize_(x.size(0), 3).zero_()\n", "        return x.new_empty(x.size(0), 3).zero_()\n"),
    ("        return x.new().resize_(x.shape[1:])\n", "        return x.new_empty(x.shape[1:])\n"),
])
def test_rewrite_text(body: str, want: str) -> None:
    after = _fixed(body)
    assert after.endswith(want), after
    assert ("def _trt_legacy_empty(" in after) == ("_trt_legacy_empty(x" in want)  # the helper only where called


def test_torch_spelled_otherwise_is_kept() -> None:
    source = "import torch as T\n\n\ndef f(x: T.Tensor):\n    return T.HalfTensor(x.shape[0], 2)\n"
    assert rewrite(source, select=("TRT349",)).endswith(
        "    return T.empty(x.shape[0], 2, dtype=T.float16, device=\"cpu\")\n")


@pytest.mark.parametrize("body", [
    "        return torch.Tensor([1, 2])\n",  # Python data: a tensor of these values
    "        return torch.Tensor(x)\n",  # a tensor: returned as it is
    "        return torch.Tensor(y)\n",  # nothing says what `y` is
    "        return torch.Tensor(3, 4)\n",  # literal sizes: nothing traced is read
    "        return torch.Tensor(x.shape[0], x)\n",  # a tensor among the arguments: raises, left as it is
    "        return torch.FloatTensor(x.shape[0], device=x.device)\n",  # a typed one's device: other errors
    "        return torch.Tensor(*x.shape)\n",  # unpacked
    "        return self.pool.new(x.shape[0], 2)\n",  # an attribute not shown to be a tensor
    "        return Image.new(x.shape[0], 2)\n",
    "        return x.new()\n",
    "        return x.new([1, 2])\n",
    "        return x.new().resize_(3, 4)\n",  # literal sizes
    "        return x.new(2).resize_(x.shape[0])\n",  # not an empty tensor grown
    "        return x.new().resize_(x.shape[0], memory_format=torch.channels_last)\n",
    "        return x.new().resize_as_(y)\n",
])
def test_other_calls_are_left_alone(body: str) -> None:
    assert rules_found(HEAD + body, select=("TRT349",)) == []


def test_init_is_not_run_time_code() -> None:
    source = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    def __init__(self, n, x):\n"
              "        super().__init__()\n        self.w = nn.Parameter(torch.Tensor(n, x.shape[0]))\n")
    assert rules_found(source, select=("TRT349",)) == []


# --- the observed export's warning makes loose sizes count ------------------------------------------

#: spandrel's HVI-CIDNet: `img` is a parameter of a method other than forward (nothing shows it a
#: tensor) and the export warned at the call's line (4); RAG's `target.new(target.shape[0], 1)` alike.
LOOSE = """import torch
class RGB_HVI(torch.nn.Module):
    def HVIT(self, img, target):
        hue = torch.Tensor(img.shape[0], img.shape[2], img.shape[3]); pad = target.new(target.shape[0], 1); one = torch.Tensor(img.shape[0])
        return hue, pad, one
"""


def _with_warning(code: str, tmp_path: Path) -> str:
    from trtcodemod.engine import Options, fix_source
    from trtcodemod.evidence.facts import Facts

    path = tmp_path / "loose.py"
    path.write_text(code)
    facts = Facts(runs=1, lines={str(path.resolve()): set(range(1, len(code.splitlines()) + 1))})
    facts.note_traced([(str(path.resolve()), 4, "torch.Tensor results are registered as constants")])
    options = Options(select=("TRT349",), facts=facts, scope="all")
    return fix_source(code.encode(), str(path.resolve()), options).source.decode()


def test_a_loose_receiver_counts_only_where_the_export_warned(tmp_path: Path) -> None:
    """`img.shape[i]` is an int whatever `img` is: the constructors take it; `target.new` is a tensor's
    method only by the export's warning (nothing else shows `target` to be a tensor)."""
    plain = rewrite(LOOSE, select=("TRT349",))
    assert "hue = _trt_legacy_empty(img.shape[0], img.shape[2], img.shape[3])" in plain
    assert "one = _trt_legacy_empty(img.shape[0])" in plain
    assert "pad = target.new(target.shape[0], 1)" in plain
    after = _with_warning(LOOSE, tmp_path)
    assert "hue = _trt_legacy_empty(img.shape[0], img.shape[2], img.shape[3])" in after
    assert "pad = target.new_empty(target.shape[0], 1)" in after
    assert "one = _trt_legacy_empty(img.shape[0])" in after


def test_a_loose_whole_shape_counts_only_where_the_export_warned(tmp_path: Path) -> None:
    """`torch.Tensor(arr.shape)` of a NumPy array is a tensor of the shape's values (Python data): without
    the export's warning saying `arr` was traced, it is left alone."""
    code = ("import torch\nclass Grid(torch.nn.Module):\n    def make(self, arr):\n"
            "        return torch.Tensor(arr.shape[1:])\n")
    assert rules_found(code, select=("TRT349",)) == []
    assert "return _trt_legacy_empty(arr.shape[1:])" in _with_warning(code, tmp_path)


def test_the_plan_takes_it_for_a_traced_constant_at_its_line() -> None:
    class Finding:
        rule, path, line, column, end_line, end_column = "TRT349", "/m/hvi.py", 23, 12, 23, 80

    constant = Problem("baked", "/m/hvi.py", 23, "(traced constant)", None, "torch.Tensor results are registered "
                       "as constants in the trace")
    assert matches(constant, Finding())
    assert not matches(Problem("baked", "/m/hvi.py", 51, "(traced constant)", None, "item"), Finding())


def test_the_plan_takes_it_for_a_graph_failure_in_its_file() -> None:
    """`torch.FloatTensor(b, 1, n)` and `x.new(b, 1)` bake silently (no TracerWarning): the symptom is the
    `torch.cat` that meets the tensor at another size, a line or two below, in the same file."""
    from trtcodemod.migrate.locate import FAILS_TO_RUN

    class Finding:
        rule, path, line, column, end_line, end_column = "TRT349", "/m/rag.py", 18, 14, 18, 40

    failed = Problem("unfaithful", "/m/rag.py", 19, FAILS_TO_RUN, None, "Concat: dimension mismatch", "error")
    assert matches(failed, Finding())
    assert not matches(Problem("unfaithful", "/m/other.py", 19, FAILS_TO_RUN, None, "Concat", "error"), Finding())


def test_only_the_untyped_constructor_warns_while_tracing() -> None:
    """Why the plan needs the failure: the typed constructors and `new` give no TracerWarning at all."""
    import linecache

    def make(x: torch.Tensor):
        a = torch.Tensor(x.shape[0], 2).fill_(0)
        b = torch.FloatTensor(x.shape[0], 2).fill_(0)
        c = x.new(x.shape[0], 2).fill_(0)
        return a, b, c

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        traced = torch.jit.trace(make, (torch.zeros(3),))
    lines = {(w.filename, w.lineno) for w in caught if issubclass(w.category, torch.jit.TracerWarning)}
    assert [linecache.getline(*where).strip()[:16] for where in lines] == ["a = torch.Tensor"]
    assert all(out.shape[0] == 3 for out in traced(torch.zeros(5)))  # all three keep the traced size


# --- the new tensor: sizes, dtype, device and errors of the legacy constructor ------------------------

SIZES = [(2, 3), (0,), (1, 0, 4), (5,), (torch.Size([2, 3]),), (3, 1, 1, 1)]


@pytest.mark.parametrize("sizes", SIZES)
@pytest.mark.parametrize("default", [torch.float32, torch.float64])
def test_the_helper_is_the_legacy_constructor_eagerly_and_while_tracing(sizes: tuple, default: torch.dtype) -> None:
    previous = torch.get_default_dtype()
    torch.set_default_dtype(default)
    try:
        want = torch.Tensor(*sizes)
        got = _trt_legacy_empty(*sizes)
        traced = torch.jit.trace(lambda x: _trt_legacy_empty(*sizes).fill_(0) + x, torch.zeros(()))(torch.zeros(()))
    finally:
        torch.set_default_dtype(previous)
    for made in (got, traced):
        assert (made.shape, made.dtype, made.device, made.requires_grad) == (want.shape, want.dtype, want.device, False)
        assert made.is_contiguous()


@pytest.mark.parametrize("sizes", SIZES)
def test_the_typed_and_method_forms_make_the_same_tensor(sizes: tuple) -> None:
    for legacy, dtype in ((torch.FloatTensor, torch.float32), (torch.LongTensor, torch.int64),
                          (torch.ByteTensor, torch.uint8), (torch.BoolTensor, torch.bool)):
        want, got = legacy(*sizes), torch.empty(*sizes, dtype=dtype, device="cpu")
        assert (got.shape, got.dtype, got.device, got.stride()) == (want.shape, want.dtype, want.device, want.stride())
    x = torch.zeros(2, dtype=torch.float64)
    want, got = x.new(*sizes), x.new_empty(*sizes)
    assert (got.shape, got.dtype, got.device, got.stride()) == (want.shape, want.dtype, want.device, want.stride())


@pytest.mark.parametrize("sizes", SIZES)
def test_an_empty_tensor_resized_is_new_empty(sizes: tuple) -> None:
    for x in (torch.zeros(2, dtype=torch.float64), torch.ones(3, dtype=torch.bool).requires_grad_(False),
              torch.zeros(2, 2).t(), torch.zeros(1, requires_grad=True)):
        for args in (sizes, (sizes,) if not isinstance(sizes[0], torch.Size) else sizes):
            want, got = x.new().resize_(*args), x.new_empty(*args)
            assert (got.shape, got.dtype, got.device, got.stride(), got.requires_grad, got.is_contiguous()) == \
                (want.shape, want.dtype, want.device, want.stride(), want.requires_grad, want.is_contiguous())


@pytest.mark.parametrize("sizes", [(-1,), (2, -3)])
def test_a_resize_refused_is_refused_by_new_empty(sizes: tuple) -> None:
    x = torch.zeros(1)
    with pytest.raises(RuntimeError):
        x.new().resize_(*sizes)
    with pytest.raises(RuntimeError):
        x.new_empty(*sizes)


@pytest.mark.parametrize("sizes", [(-1,), (2, -3), (2.5, 3)])
def test_what_the_constructor_refuses_the_rewrite_refuses(sizes: tuple) -> None:
    errors = []
    for make in (lambda: torch.Tensor(*sizes), lambda: _trt_legacy_empty(*sizes),
                 lambda: torch.FloatTensor(*sizes), lambda: torch.empty(*sizes, dtype=torch.float32, device="cpu"),
                 lambda: torch.zeros(1).new(*sizes), lambda: torch.zeros(1).new_empty(*sizes)):
        with pytest.raises((RuntimeError, TypeError)) as caught:
            make()
        errors.append(caught.type)
    assert errors[0] == errors[1] and errors[2] == errors[3] and errors[4] == errors[5]


def test_the_default_tensor_type_is_kept_outside_a_trace() -> None:
    """`torch.set_default_device` moves `torch.empty` but not the legacy constructor: the helper is the
    constructor itself outside a trace."""
    torch.set_default_device("meta")
    try:
        want, got = torch.Tensor(2, 3), _trt_legacy_empty(2, 3)
    finally:
        torch.set_default_device(None)
    assert want.device == got.device == torch.device("cpu")


# --- a model: eager results, and its TorchScript export at another size -------------------------------

#: The zoo model's idiom (spandrel HVI-CIDNet's hue): a plane allocated with the legacy constructor and
#: filled through masks, every pixel written; a RAG-style shifted column from `x.new`; a channel pad from
#: a typed constructor.
PROGRAM = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, img: torch.Tensor):
        hue = torch.Tensor(img.shape[0], img.shape[2], img.shape[3]).to(img.device).to(img.dtype)
        value = img.max(1)[0]
        hue[img[:, 1] == value] = 2.0
        hue[img[:, 0] == value] = 1.0
        hue[img[:, 2] == value] = 4.0
        hue[torch.isnan(value)] = -1.0
        col = img.new(img.shape[0], 1, img.shape[2], 1).fill_(0.5)
        pad = torch.FloatTensor(img.shape[0], 1, img.shape[2], img.shape[3]).zero_()
        return torch.cat([hue.unsqueeze(1) * value.unsqueeze(1), pad + col], 1)
"""


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt349")
    after = rewrite(PROGRAM, select=("TRT349",))
    assert "hue = _trt_legacy_empty(img.shape[0], img.shape[2], img.shape[3])" in after
    assert "col = img.new_empty(img.shape[0], 1, img.shape[2], 1).fill_(0.5)" in after
    assert "pad = torch.empty(img.shape[0], 1, img.shape[2], img.shape[3], dtype=torch.float32, device=\"cpu\")" in after
    return import_source(PROGRAM, folder)["M"], import_source(after, folder)["M"]


EDGE = {
    "example": torch.rand(2, 3, 4, 5),
    "ties": torch.tensor([[0.5, 0.5, 0.1], [0.2, 0.7, 0.7], [0.3, 0.3, 0.3], [0.0, 0.0, 0.0]]).t().reshape(1, 3, 2, 2),
    "inf-nan-negzero": torch.tensor([[float("nan"), 1.0, 0.0], [float("inf"), -float("inf"), 0.0],
                                     [-0.0, 0.0, -0.0], [-1.0, -2.0, -3.0]]).t().reshape(1, 3, 2, 2),
    "one-pixel": torch.rand(1, 3, 1, 1),
    "empty-batch": torch.rand(0, 3, 2, 2),
    "empty-width": torch.rand(2, 3, 3, 0),
}


@pytest.mark.parametrize("label", list(EDGE))
def test_eager_is_unchanged(program: tuple[type, type], label: str) -> None:
    before, after = program[0](), program[1]()
    x = EDGE[label]
    for given in ([x], [x.clone().requires_grad_()]):
        assert_same_run(run_once(before, given), run_once(after, given), context=label)


def _session(model: torch.nn.Module, example: torch.Tensor) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["img"],
                          dynamic_axes={"img": {0: "batch", 2: "height", 3: "width"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def _warnings_while_tracing(model: torch.nn.Module, example: torch.Tensor) -> list[str]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.jit.trace(model, (example,))
    return [str(w.message) for w in caught if issubclass(w.category, torch.jit.TracerWarning)]


def test_the_originals_export_keeps_the_traced_size(program: tuple[type, type]) -> None:
    model = program[0]()
    assert any("registered as constants" in w for w in _warnings_while_tracing(model, torch.rand(1, 3, 8, 8)))
    session = _session(model, torch.rand(1, 3, 8, 8))
    with pytest.raises(Exception):  # noqa: B017 - ONNX Runtime's error type is its own
        session.run(None, {"img": torch.rand(2, 3, 12, 10).numpy()})


@pytest.mark.parametrize("shape", [(1, 3, 8, 8), (2, 3, 12, 10), (3, 3, 5, 17)])
def test_the_rewritten_graph_equals_eager_at_other_sizes(program: tuple[type, type], shape: tuple) -> None:
    model = program[1]()
    assert _warnings_while_tracing(model, torch.rand(1, 3, 8, 8)) == []
    session = _session(model, torch.rand(1, 3, 8, 8))
    x = torch.rand(*shape)
    x[..., 0, 0] = 0.25  # a three-way tie
    (got,) = session.run(None, {"img": x.numpy()})
    with torch.no_grad():
        want = program[0]()(x)
    assert got.shape == tuple(want.shape) and np.array_equal(got, want.numpy())


def test_the_toolchains_work_wherever_the_original_did(program: tuple[type, type], tmp_path: Path) -> None:
    """torch.jit.script, fx, torch.compile and torch.export: where the original runs, the rewrite runs and
    gives the same values (every element of the allocated tensors is written before it is read)."""
    from safety import toolchain_outcomes

    x = EDGE["ties"]
    before, after = toolchain_outcomes(program[0], [x], tmp_path), toolchain_outcomes(program[1], [x], tmp_path)
    worked = [name for name, want in before.items() if not isinstance(want, Exception)]
    assert {"compile", "export"} <= set(worked)  # what the original's legacy constructors allow
    for name in worked:
        got = after[name]
        assert not isinstance(got, Exception), f"{name}: {got!r}"
        assert torch.equal(got, before[name]), name


SCRIPTABLE = """import torch
from torch import nn


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        pad = torch.FloatTensor(x.shape[0], 2).zero_()
        col = x.new(x.shape[0], 1).fill_(3.0)
        return torch.cat([x, pad, col], 1)
"""


def test_script_compiles_the_rewrite_where_it_compiled_the_typed_constructor(tmp_path: Path) -> None:
    """`torch.jit.script` takes a typed constructor and `torch.empty` alike, and `new_empty` where it
    refused `x.new`: what scripted before still scripts, and gives the same result."""
    after = rewrite(SCRIPTABLE, select=("TRT349",))
    assert "x.new_empty(x.shape[0], 1)" in after and "torch.empty(x.shape[0], 2, dtype=torch.float32" in after
    before_type, after_type = import_source(SCRIPTABLE, tmp_path)["M"], import_source(after, tmp_path)["M"]
    with pytest.raises(Exception):  # noqa: B017 - TorchScript's frontend error: `x.new` is not in its grammar
        torch.jit.script(before_type())
    x = torch.rand(3, 4)
    assert torch.equal(torch.jit.script(after_type())(x), before_type()(x))


# --- a local alias of the typed constructors (YOLOv3 decoders) ----------------------------------------

#: eriklindernoren/PyTorch-YOLOv3@0dc6926cbc5badad6730ff585aa4975d7e1fde79 models.py:156,182 (and torch_yolo3
#: 0.1.1's models.py:128,156): `FloatTensor = torch.cuda.FloatTensor if x.is_cuda else torch.FloatTensor`, then
#: `pred_boxes = FloatTensor(prediction[..., :4].shape)` filled channel by channel after `x` was rebound;
#: DeNA/PyTorch_YOLOv3@1a3cd6e465db0b67ab783d92076c6ebfae9359a2 models/yolo_layer.py:72 binds the same choice
#: as `dtype`. My own re-writing of the form, with edge values.
ALIASED = """import torch
from torch import nn


class Decode(nn.Module):
    def forward(self, x: torch.Tensor):
        FloatTensor = torch.cuda.FloatTensor if x.is_cuda else torch.FloatTensor
        p = x.view(x.size(0), 2, 3, x.size(2), x.size(3)).permute(0, 1, 3, 4, 2).contiguous()
        x = torch.sigmoid(p[..., 0])
        boxes = FloatTensor(p[..., :2].shape)
        boxes[..., 0] = x + 1
        boxes[..., 1] = torch.exp(p[..., 1])
        return torch.cat([boxes.view(p.size(0), -1, 2), p[..., 2:].reshape(p.size(0), -1, 1)], -1)
"""
ALIASED_CALL = ('        boxes = torch.empty(p[..., :2].shape, dtype=torch.float32, '
                'device="cuda" if FloatTensor is torch.cuda.FloatTensor else "cpu")\n')


def test_an_alias_chosen_by_device_is_rewritten_with_the_aliases_device() -> None:
    after = rewrite(ALIASED, select=("TRT349",))
    assert ALIASED_CALL in after, after
    assert "FloatTensor = torch.cuda.FloatTensor if x.is_cuda else torch.FloatTensor\n" in after  # kept


@pytest.mark.parametrize(("alias", "device"), [
    ("T = torch.FloatTensor", '"cpu"'),
    ("T = torch.cuda.LongTensor", '"cuda"'),
    ("T = torch.FloatTensor if not x.is_cuda else torch.cuda.FloatTensor",
     '"cpu" if T is torch.FloatTensor else "cuda"'),
])
def test_the_alias_forms(alias: str, device: str) -> None:
    dtype = "int64" if "Long" in alias else "float32"
    after = rewrite(HEAD + f"        {alias}\n        return T(x.shape[0], 2)\n", select=("TRT349",))
    assert after.endswith(f"        return torch.empty(x.shape[0], 2, dtype=torch.{dtype}, device={device})\n"), after


#: bubbliiiing/yolo3-pytorch@8fbb81d3377b7a404c8634ad26ff3f1193da2cad utils/utils_bbox.py:72,98 and
#: BobLiu20/YOLOv3_PyTorch@c6b483743598b5f64d520d81e7e5f47ba936d4c9 nets/yolo_loss.py:70,83 bind the alias inside
#: a block (a loop over the outputs, an `else:`) and call it later in that block. My own re-writing of the form.
IN_A_LOOP = """import torch


def decode(out: torch.Tensor, scales: list[float]):
    boxes = []
    for scale in scales:
        FloatTensor = torch.cuda.FloatTensor if out.is_cuda else torch.FloatTensor
        b = FloatTensor(out[..., :2].shape)
        b[..., 0] = out[..., 0] + 1
        b[..., 1] = out[..., 1] * scale
        boxes.append(b)
    return boxes
"""


def test_an_alias_bound_in_a_block_is_taken_for_the_calls_after_it_in_that_block(tmp_path: Path) -> None:
    after = rewrite(IN_A_LOOP, select=("TRT349",))
    assert ('        b = torch.empty(out[..., :2].shape, dtype=torch.float32, '
            'device="cuda" if FloatTensor is torch.cuda.FloatTensor else "cpu")\n') in after, after
    before_f, after_f = import_source(IN_A_LOOP, tmp_path)["decode"], import_source(after, tmp_path)["decode"]
    pairs = []
    for out in (torch.randn(2, 3, 2), torch.zeros(0, 2), torch.tensor([[float("nan"), -float("inf")], [-0.0, 5.0]])):
        pairs += zip(before_f(out, [2.0, -1.0, 0.0]), after_f(out, [2.0, -1.0, 0.0]))
    for want, got in pairs:
        assert (got.shape, got.dtype, got.device) == (want.shape, want.dtype, want.device)
        assert torch.equal(got.nan_to_num(), want.nan_to_num()) and torch.equal(got.isnan(), want.isnan())


@pytest.mark.parametrize("body", [
    # bound twice: which constructor the call makes depends on the path taken
    "        T = torch.FloatTensor\n        if y:\n            T = torch.DoubleTensor\n        return T(x.shape[0])\n",
    # bound inside a branch, called after it: maybe not bound at the call
    "        if y:\n            T = torch.FloatTensor\n        return T(x.shape[0])\n",
    # bound after the call in a loop's body: the first turn's call runs before it
    "        for _ in y:\n            a = T(x.shape[0])\n            T = torch.FloatTensor\n        return a\n",
    # the call runs before the binding
    "        a = T(x.shape[0])\n        T = torch.FloatTensor\n        return a\n",
    # another dtype on each side: the dtype is the condition's
    "        T = torch.cuda.FloatTensor if x.is_cuda else torch.DoubleTensor\n        return T(x.shape[0])\n",
    # `torch.Tensor` follows the default tensor type
    "        T = torch.Tensor\n        return T(x.shape[0])\n",
    # not a constructor
    "        T = torch.nn.Identity\n        return T(x.shape[0])\n",
    # Python data, not sizes
    "        T = torch.FloatTensor\n        return T([1.0, 2.0])\n",
])
def test_other_aliases_are_left_alone(body: str) -> None:
    assert rules_found(HEAD + body, select=("TRT349",)) == []


def test_a_parameter_named_like_the_alias_is_left_alone() -> None:
    code = ("import torch\n\n\ndef f(x: torch.Tensor, T=torch.FloatTensor):\n    T = torch.FloatTensor\n"
            "    return T(x.shape[0])\n")
    assert rules_found(code, select=("TRT349",)) == []


@pytest.fixture(scope="module")
def aliased(tmp_path_factory: pytest.TempPathFactory) -> tuple[type, type]:
    folder = tmp_path_factory.mktemp("trt349alias")
    after = rewrite(ALIASED, select=("TRT349",))
    return import_source(ALIASED, folder)["Decode"], import_source(after, folder)["Decode"]


ALIAS_EDGE = {
    "example": torch.randn(2, 6, 3, 4),
    "zeros": torch.zeros(1, 6, 2, 2),
    "negatives": -torch.rand(3, 6, 1, 5) * 50,
    "inf-nan": torch.tensor([float("inf"), -float("inf"), float("nan"), 0.0, -0.0, 1e30]).repeat(2, 1).reshape(2, 6, 1, 1),
    "empty-batch": torch.randn(0, 6, 3, 3),
    "empty-width": torch.randn(2, 6, 3, 0),
    "float64": torch.randn(1, 6, 2, 2, dtype=torch.float64),
}


@pytest.mark.parametrize("label", list(ALIAS_EDGE))
def test_the_aliased_decoder_is_unchanged_eagerly(aliased: tuple[type, type], label: str) -> None:
    before, after = aliased[0](), aliased[1]()
    x = ALIAS_EDGE[label]
    for given in ([x], [x.clone().requires_grad_()]):
        assert_same_run(run_once(before, given), run_once(after, given), context=label)


def test_the_aliased_decoders_export_follows_the_batch_only_after(aliased: tuple[type, type]) -> None:
    example, other = torch.randn(1, 6, 3, 4), torch.randn(3, 6, 3, 4)

    def session(model: torch.nn.Module) -> ort.InferenceSession:
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                              dynamic_axes={"x": {0: "batch"}})
        return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])

    with pytest.raises(Exception):  # noqa: B017 - ONNX Runtime's error type is its own
        session(aliased[0]()).run(None, {"x": other.numpy()})
    rewritten = session(aliased[1]())
    for x in (example, other, torch.zeros(2, 6, 3, 4), -torch.rand(4, 6, 3, 4) * 50):  # the export's H, W
        (got,) = rewritten.run(None, {"x": x.numpy()})
        want = aliased[0]()(x).detach().numpy()
        assert got.shape == want.shape and np.allclose(got, want, rtol=1e-6, atol=1e-6)


def test_the_aliased_decoder_under_the_other_toolchains(aliased: tuple[type, type], tmp_path: Path) -> None:
    """Where the original runs, the rewrite gives its tensors; where it fails, the rewrite fails alike, except
    under torch.compile, whose Dynamo reads `FloatTensor(torch.Size)` as a tensor of the sizes' values (a
    5-element vector here, so the channel write raises): the rewrite gives eager's tensors there."""
    from safety import toolchain_outcomes

    x = torch.randn(2, 6, 3, 4)
    before, after = toolchain_outcomes(aliased[0], [x], tmp_path), toolchain_outcomes(aliased[1], [x], tmp_path)
    eager = aliased[0]()(x)
    for name, want in before.items():
        got = after[name]
        if isinstance(want, Exception) and name == "compile":
            assert "expand" in str(want) and torch.allclose(got[0] if isinstance(got, tuple) else got, eager), name
        elif isinstance(want, Exception):
            assert type(got) is type(want), f"{name}: {want!r} became {got!r}"
        else:
            assert not isinstance(got, Exception), f"{name}: {got!r}"
            for p, q in zip(want, got):
                assert torch.equal(p, q), name


# --- the resized form: Huikai Wu's guided filter (guided-filter-pytorch 3.7.5, `guided_filter.py`) ------

#: Its pixel counts: an empty tensor like the input grown to one plane of the input's size and filled
#: with ones, box-filtered by cumulative sums (the filter's own `diff_x`/`diff_y`, written here again).
GUIDED = """import torch
from torch import nn


def box(x: torch.Tensor, r: int) -> torch.Tensor:
    x = x.cumsum(2)
    x = torch.cat([x[:, :, r:2 * r + 1], x[:, :, 2 * r + 1:] - x[:, :, :-2 * r - 1],
                   x[:, :, -1:] - x[:, :, -2 * r - 1:-r - 1]], 2)
    x = x.cumsum(3)
    return torch.cat([x[:, :, :, r:2 * r + 1], x[:, :, :, 2 * r + 1:] - x[:, :, :, :-2 * r - 1],
                      x[:, :, :, -1:] - x[:, :, :, -2 * r - 1:-r - 1]], 3)


class M(nn.Module):
    def forward(self, x: torch.Tensor):
        n, c, h, w = x.size()
        count = box(x.data.new().resize_((1, 1, h, w)).fill_(1.0), 1)
        return box(x, 1) / count
"""


def test_the_resized_counts_follow_the_input_size(tmp_path: Path) -> None:
    after = rewrite(GUIDED, select=("TRT349",))
    assert "count = box(x.data.new_empty((1, 1, h, w)).fill_(1.0), 1)" in after
    before_model, after_model = (import_source(code, tmp_path)["M"]() for code in (GUIDED, after))
    for x in (torch.rand(2, 3, 6, 5), torch.tensor([[[[0.0, -1.0, float("inf")], [float("nan"), 2.0, -0.0],
                                                      [1.0, 1.0, 1.0]]]]), torch.rand(1, 1, 4, 9)):
        for given in ([x], [x.clone().requires_grad_()]):
            assert_same_run(run_once(before_model, given), run_once(after_model, given))
    example = torch.rand(1, 3, 8, 8)
    before_session, after_session = _session(before_model, example), _session(after_model, example)
    for shape in ((2, 3, 12, 10), (1, 3, 5, 17)):
        x = torch.rand(*shape)
        with torch.no_grad():
            want = before_model(x)
        (got,) = after_session.run(None, {"img": x.numpy()})
        assert got.shape == tuple(want.shape) and np.allclose(got, want.numpy(), rtol=1e-5, atol=1e-6)
        with pytest.raises(Exception):  # noqa: B017 - ONNX Runtime's error type is its own
            before_session.run(None, {"img": x.numpy()})
