"""TRT344: writes into ``x[..., [i, j]]`` → ``x[..., _trt_index_list([i, j])]``, a slice while exporting.

The original exports with the TorchScript exporter, but ONNX Runtime refuses its graph ("input 0 is
marked single but has an empty string"); after the rewrite the graph loads and gives eager mode's
values at the traced size and at others (dynamic axes, both exporters), eager mode is the original
write itself (values, dtype errors, index errors, aliasing, gradients), and ``migrate`` places the
refused node at its line and takes the rule. The safety contract (script, fx, compile, export,
hypothesis-drawn tensors) runs in tests/safety/.
"""

from __future__ import annotations

import io
import warnings

import onnx
import onnxruntime as ort
import pytest
import torch

from safety import import_source
from support import export_formulation, migrate_small, rewrite

from trtcodemod.engine import Options, check_source
from trtcodemod.helpers.indexing import _trt_index_list, _trt_index_slice
from trtcodemod.rules import Safety

SOURCE = """import torch
from torch import nn


class Decode(nn.Module):
    def forward(self, boxes: torch.Tensor, pad: torch.Tensor):
        boxes = boxes * 1
        boxes[..., [0, 2]] -= pad[0]
        boxes[..., [1, 3]] -= pad[1]
        boxes[..., :4] /= 2.0
        boxes[..., [0, 2]] = boxes[..., [0, 2]].clamp(0, 640)
        boxes[..., [1]] *= pad[1:]
        boxes[0, ..., [-3, -1]] = boxes[0, ..., [-3, -1]].clamp(-1.5, 1000.0)
        return boxes
"""
NAMES = ["boxes", "pad"]


def test_rewrite_text_and_what_is_left() -> None:
    after = rewrite(SOURCE, select=("TRT344",))
    body = after.split("class Decode", 1)[1]
    assert "        boxes[..., _trt_index_list([0, 2])] -= pad[0]\n" in body
    assert "        boxes[..., _trt_index_list([1, 3])] -= pad[1]\n" in body
    assert "        boxes[..., :4] /= 2.0\n" in body
    # the read on the right keeps its list: reads export and run
    assert "        boxes[..., _trt_index_list([0, 2])] = boxes[..., [0, 2]].clamp(0, 640)\n" in body
    assert "        boxes[..., _trt_index_list([1])] *= pad[1:]\n" in body
    assert "        boxes[0, ..., _trt_index_list([-3, -1])] = boxes[0, ..., [-3, -1]].clamp(-1.5, 1000.0)\n" in body
    assert "def _trt_index_list(indices):" in after
    assert rewrite(after, select=("TRT344",)) == after  # a second apply changes nothing
    kept = ("def f(x: torch.Tensor, i: int, j: int, idx: torch.Tensor, v: float):\n"
            "    x[..., [0, 1, 3]] = v\n    x[..., [2, 0]] = v\n    x[..., [1, 1]] += v\n    x[..., [i, j]] = v\n"
            "    x[idx, ..., [0, 2]] = v\n    x[..., torch.tensor([0, 2])] -= v\n    x[..., [-1, 0]] = v\n"
            "    x[..., []] = v\n"
            "    x[..., [0, 2], :] = v\n    x[:, [0, 2]] -= v\n    x[..., 1, [0, 2]] = v\n    y = x[..., [0, 2]]\n"
            "    x[..., 0:3:2] -= v\n    return y\n")
    source = "import torch\n" + kept
    assert rewrite(source, select=("TRT344",)).endswith(kept)
    found = check_source(source.encode(), "snippet.py", Options(select=("TRT344", "TRT203")))
    # TRT344 names the first eight (no slice, an index tensor, a possible tensor before the Ellipsis); TRT203
    # keeps the writes that are not TRT344's, and is quiet on TRT344's own
    assert [(f.line, f.rule) for f in found if f.rule == "TRT344"] == [(n, "TRT344") for n in range(3, 11)]
    assert sorted({f.line for f in found if f.rule == "TRT203"}) == [11, 12, 13, 15]
    assert "no slice names the same positions" in found[0].message
    assert all(f.fix == Safety.NONE and "not rewritten" in f.message for f in found if f.rule == "TRT344")
    # a file that does not import torch (NumPy post-processing) is left alone
    assert rewrite("def f(b, w):\n    b[..., [0, 2]] = b[..., [0, 2]].clip(0, w)\n", select=("TRT344",)) == \
        "def f(b, w):\n    b[..., [0, 2]] = b[..., [0, 2]].clip(0, w)\n"


def test_trt203_is_quiet_where_trt344_fixes() -> None:
    source = "import torch\ndef f(x: torch.Tensor, v: float):\n    x[..., [0, 2]] -= v\n    x[..., 0] = v\n"
    found = check_source(source.encode(), "snippet.py", Options(select=("TRT344", "TRT203")))
    assert [(f.line, f.rule) for f in found] == [(3, "TRT344"), (4, "TRT203")]
    assert found[0].fix == Safety.SAFE


def test_the_slice_names_the_same_positions() -> None:
    assert _trt_index_slice([0, 2]) == slice(0, 3, 2)
    assert _trt_index_slice([3]) == slice(3, 4, 1)
    assert _trt_index_slice([-1]) == slice(-1, None, 1)
    assert _trt_index_slice([-3, -1]) == slice(-3, None, 2)
    assert _trt_index_slice([-5, -3]) == slice(-5, -2, 2)
    for kept in ([], [2, 0], [1, 1], [0, 1, 3], [-1, 0], [True, False], [0.0, 2.0]):
        assert _trt_index_slice(kept) is kept
    x = torch.arange(60.0).reshape(3, 4, 5)
    for positions in ([0, 2], [1], [0, 1, 2, 3, 4], [1, 4], [-1], [-4, -2], [-5, -3, -1], [4]):
        assert torch.equal(x[..., positions], x[..., _trt_index_slice(positions)])
    assert _trt_index_list([0, 2]) == [0, 2]  # outside an export: the list itself
    assert torch.jit.script(_trt_index_list)([0, 2]) == [0, 2]


@pytest.fixture(scope="module")
def programs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ellipsis_index")
    after = rewrite(SOURCE, select=("TRT344",))
    assert after.split("class Decode", 1)[1].count("_trt_index_list([") == 5  # the tests below run the rewrite
    return import_source(SOURCE, folder)["Decode"], import_source(after, folder)


def _boxes(rows: int, columns: int, dtype: torch.dtype = torch.float32, seed: int = 0) -> list[torch.Tensor]:
    """Boxes with zeros, signed zeros, negatives, infinities and NaN, and a pad of two values."""
    generator = torch.Generator().manual_seed(seed)
    boxes = (torch.randn(rows, columns, 6, generator=generator) * 400).to(dtype)
    if dtype.is_floating_point and boxes.numel():
        flat = boxes.view(-1)
        flat[::7] = float("nan")
        flat[1::5] = float("inf")
        flat[2::11] = -0.0
        flat[3::13] = -float("inf")
        flat[4::9] = 0.0
    pad = torch.tensor([3.5, -2.0]).to(dtype)
    return [boxes, pad]


def _same(got: torch.Tensor, want: torch.Tensor) -> None:
    assert got.dtype == want.dtype and got.shape == want.shape
    assert torch.equal(got.isnan(), want.isnan())
    keep = ~want.isnan()
    assert torch.equal(got[keep], want[keep]) and torch.equal(got[keep].signbit(), want[keep].signbit())


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16], ids=str)
def test_eager_mode_is_the_original_write_and_the_export_formulation_equals_it(programs, dtype) -> None:
    before, namespace = programs
    for rows, columns in ((1, 1), (2, 5), (4, 0), (3, 17)):
        inputs = _boxes(rows, columns, dtype, seed=rows + columns)
        want = before()(*[t.clone() for t in inputs])
        _same(namespace["Decode"]()(*[t.clone() for t in inputs]), want)
        with export_formulation(namespace):
            _same(namespace["Decode"]()(*[t.clone() for t in inputs]), want)


def test_eager_mode_keeps_errors_aliasing_and_gradients(programs) -> None:
    before, namespace = programs
    after = namespace["Decode"]
    # an integer tensor: the float subtraction raises the same error on both sides
    ints = [torch.zeros(2, 3, 6, dtype=torch.int64), torch.tensor([1.5, 2.0])]
    errors = []
    for model in (before, after):
        with pytest.raises(RuntimeError) as caught:
            model()(*ints)
        errors.append(str(caught.value))
    assert errors[0] == errors[1] and "can't be cast" in errors[0]
    # a position past the axis (boxes of 3 values) raises IndexError on both sides, as the list does
    short = [torch.zeros(2, 3, 3), torch.tensor([1.0, 2.0])]
    messages = []
    for model in (before, after):
        with pytest.raises(IndexError) as caught:
            model()(*short)
        messages.append(str(caught.value))
    assert messages[0] == messages[1]
    # a write through a view reaches its base, and gradients flow the same way
    write = "def f(x, v):\n    y = x[1]\n    y[..., [0, 2]] -= v\n    return x\n"
    source = "import torch\n" + write
    funcs = [import_source(code, _folder())["f"] for code in (source, rewrite(source))]
    assert "_trt_index_list([0, 2])" in rewrite(source)
    results = []
    for f in funcs:
        leaf = torch.arange(12.0).reshape(2, 6).requires_grad_()
        v = torch.tensor(0.5, requires_grad=True)
        x = leaf * 1
        out = f(x, v)
        assert out is x
        (out * torch.arange(12.0).reshape(2, 6)).sum().backward()
        results.append((out.detach(), leaf.grad, v.grad))
    for got, want in zip(results[1], results[0]):
        assert torch.equal(got, want)
    assert results[0][0][1, 0] == 5.5 and results[0][0][0, 0] == 0.0  # the write reached the base


def _folder():
    import tempfile
    from pathlib import Path

    return Path(tempfile.mkdtemp(prefix="ellipsis_index_"))


def _export(model: torch.nn.Module, inputs: list[torch.Tensor], dynamo: bool = False) -> onnx.ModelProto:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            axes = ({0: torch.export.Dim.AUTO, 1: torch.export.Dim.AUTO}, None)
            return torch.onnx.export(model, tuple(inputs), dynamo=True, input_names=NAMES, verbose=False,
                                     dynamic_shapes=axes).model_proto
        buffer = io.BytesIO()
        torch.onnx.export(model, tuple(inputs), buffer, dynamo=False, opset_version=17, input_names=NAMES,
                          dynamic_axes={"boxes": {0: "n", 1: "k"}})
        return onnx.load_from_string(buffer.getvalue())


def _run(graph: onnx.ModelProto, inputs: list[torch.Tensor]) -> torch.Tensor:
    session = ort.InferenceSession(graph.SerializeToString(), providers=["CPUExecutionProvider"])
    feeds = {i.name: t.numpy() for i, t in zip(session.get_inputs(), inputs)}
    return torch.from_numpy(session.run(None, feeds)[0])


def test_onnx_runtime_refuses_the_original_graph(programs) -> None:
    before, _ = programs
    graph = _export(before(), _boxes(2, 5))
    with pytest.raises(Exception, match="marked single but has an empty string"):
        _run(graph, _boxes(2, 5))


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_graph_gives_eager_values_at_every_size(programs, dynamo: bool) -> None:
    _, namespace = programs
    model = namespace["Decode"]()
    graph = _export(model, _boxes(2, 5), dynamo=dynamo)
    # An empty second axis only with the dynamo exporter: any TorchScript-exported write after an integer index
    # (`x[0] = x[0] * 2`, `x[0, :, 1:2] = 1.0`, `x[0, ..., 1] = 1.0`) fails in ONNX Runtime's Reshape there
    # (measured, torch 2.13), with or without this rule.
    sizes = ((2, 5), (4, 33), (1, 1)) + (((3, 0),) if dynamo else ())
    for rows, columns in sizes:
        inputs = _boxes(rows, columns, seed=10 + rows)
        _same(_run(graph, inputs), model(*[t.clone() for t in inputs]))


MIGRATE_MODEL = """import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 1)

    def forward(self, x):
        boxes = self.conv(x).flatten(2).transpose(1, 2)
        boxes[..., [0, 2]] -= 0.5
        boxes[..., [1, 3]] = boxes[..., [1, 3]].clamp(0, 1)
        return boxes


def build():
    torch.manual_seed(0)
    return Net().eval()
"""


def test_onnx_runtimes_load_error_names_its_node() -> None:
    from trtcodemod.verify.static import failed_node

    error = ('[ONNXRuntimeError] : 10 : INVALID_GRAPH : Load model from m.onnx failed:This is an invalid model. In '
             'Node, ("/Add_5", Add, "", -1) : ("","",) -> ("/Add_5_output_0",) , Error Node (/Add_5)\'s input 0 is '
             'marked single but has an empty string in the graph')
    found = failed_node(None, error)
    assert found is not None and (found.node, found.op) == ("/Add_5", "Add")


def test_migrate_places_the_refused_node_and_fixes_it(tmp_path) -> None:
    """ONNX Runtime's load error quotes the node (``In Node, ("/Add", Add, ...``): migrate places it at its
    line, TRT344 takes both writes, and the graph then runs and matches eager mode."""
    path = tmp_path / "boxes_model.py"
    path.write_text(MIGRATE_MODEL)
    report, exit_code = migrate_small(path)
    assert report["before"]["exported"] is True
    assert exit_code == 0, report["remaining"]
    assert [a["rule"] for a in report["applied"]] == ["TRT344", "TRT344"]
    assert "+        boxes[..., _trt_index_list([0, 2])] -= 0.5" in report["diff"]
    assert report["after"]["faithful"] is True and report["equivalent"] is True


# --- positions no slice names, through a name bound to a list (YOLOv5-Face's Detect) ---------------------------
NAMED = """import torch
from torch import nn


class Detect(nn.Module):
    nc = 2

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.full_like(x, 0)
        class_range = list(range(5)) + list(range(15, 15 + self.nc))
        y[..., class_range] = x[..., class_range].sigmoid()
        y[..., 5:15] = x[..., 5:15] * 2
        return y.flatten(1, 3)
"""


def test_a_name_bound_to_lists_is_written_through_the_helper() -> None:
    """YOLOv5-Face (deepcam-cn/yolov5-face, models/yolo.py, Detect.forward) writes the sigmoid of its box,
    objectness and class columns through `class_range`: positions 0-4 and 15-16, which no slice names."""
    after = rewrite(NAMED, select=("TRT344",))
    assert "        _trt_ellipsis_list_write(y, class_range, x[..., class_range].sigmoid())\n" in after
    assert "        y[..., 5:15] = x[..., 5:15] * 2\n" in after  # a slice: TRT203's, not this rule's
    assert rewrite(after, select=("TRT344",)) == after
    found = check_source(NAMED.encode(), "named.py", Options(select=("TRT344", "TRT203")))
    assert [(f.line, f.rule, f.fix) for f in found if f.line == 11] == [(11, "TRT344", Safety.SAFE)]
    # not taken: a parameter, a name also bound to something else, an augmented write, a read before the Ellipsis
    kept = ("def f(x: torch.Tensor, idx, v, k: int):\n"
            "    x[..., idx] = v\n"
            "    pos = [0, 2]\n    pos = k\n    x[..., pos] = v\n"
            "    cols = [0, 3]\n    x[..., cols] += v\n    x[0, ..., cols] = v\n    return x\n")
    source = "import torch\n" + kept
    assert rewrite(source, select=("TRT344",)).endswith(kept)
    found = check_source(source.encode(), "kept.py", Options(select=("TRT344",)))
    assert [(f.line, f.fix) for f in found] == [(8, Safety.NONE), (9, Safety.NONE)]


@pytest.fixture(scope="module")
def named_programs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ellipsis_named")
    after = rewrite(NAMED, select=("TRT344",))
    namespace = import_source(after, folder)
    return import_source(NAMED, folder)["Detect"](), namespace["Detect"](), namespace


def _maps(shape: tuple[int, ...], seed: int = 0) -> torch.Tensor:
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(seed)) * 30
    if x.numel():
        flat = x.view(-1)
        flat[::7], flat[1::5], flat[2::11], flat[3::13], flat[4::9] = float("nan"), float("inf"), -0.0, \
            -float("inf"), 0.0
    return x


def test_the_named_write_is_the_original_in_eager_mode_and_in_its_export(named_programs) -> None:
    original, rewritten, namespace = named_programs
    for shape in [(1, 3, 4, 5, 17), (2, 3, 1, 1, 17), (0, 3, 4, 5, 17)]:
        _same(rewritten(_maps(shape)), original(_maps(shape)))
    with pytest.raises(IndexError):  # a last axis shorter than the positions: the same error
        original(torch.zeros(1, 3, 2, 2, 16))
    with pytest.raises(IndexError):
        rewritten(torch.zeros(1, 3, 2, 2, 16))
    with export_formulation(namespace):  # the formulation the export runs, in eager mode
        for shape in [(1, 3, 4, 5, 17), (2, 3, 7, 3, 17), (0, 3, 4, 5, 17)]:
            _same(rewritten(_maps(shape, 1)), original(_maps(shape, 1)))


def test_the_named_write_exports_a_graph_that_follows_every_size(named_programs) -> None:
    """The original's TorchScript graph is refused by ONNX Runtime (the Ellipsis's absent input); the rewritten
    one writes the positions with ScatterElements and gives eager mode's values at other sizes."""
    original, rewritten, _ = named_programs
    example = _maps((1, 3, 4, 5, 17))
    axes = {"x": {0: "batch", 2: "height", 3: "width"}}
    graphs = []
    for model in (original, rewritten):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (example,), buffer, opset_version=17, dynamo=False, input_names=["x"],
                              dynamic_axes=axes)
        graphs.append(buffer.getvalue())
    with pytest.raises(Exception, match="empty string"):
        ort.InferenceSession(graphs[0])
    session = ort.InferenceSession(graphs[1])
    assert "ScatterElements" in {n.op_type for n in onnx.load_from_string(graphs[1]).graph.node}
    for shape in [(1, 3, 4, 5, 17), (2, 3, 7, 3, 17), (3, 3, 1, 2, 17)]:
        x = _maps(shape, 2)
        got = torch.from_numpy(session.run(None, {"x": x.numpy()})[0])
        # ONNX Runtime's sigmoid rounds far tails otherwise (0 for 4e-20): values within float32 rounding
        torch.testing.assert_close(got, original(x), equal_nan=True, atol=1e-6, rtol=1e-5)


ATTRIBUTES = """import torch
from torch import nn


class Head(nn.Module):
    gripper_idx = (9, 19)

    def __init__(self, dims, idx, k: int):
        super().__init__()
        self.dims = list(dims or [])
        self.cols: list = [0, 3]
        self.idx = idx
        self.mixed = [1, 2]
        self.mixed = k
        self.grown = [0, 2]

    def forward(self, x, other):
        pos = (0, 3, 4)
        x[..., pos] = 1.0
        x[..., self.gripper_idx] = torch.sigmoid(x[..., self.gripper_idx])
        x[..., self.dims] = 0.0
        x[..., self.cols] = 2.0
        x[..., self.idx] = 3.0
        x[..., self.mixed] = 4.0
        self.grown += [4]
        x[..., self.grown] = 5.0
        x[..., other.gripper_idx] = 6.0
        x[..., self.gripper_idx] += 1.0
        return x
"""


def test_tuples_and_attributes_of_self_bound_to_lists_are_written_through_the_helper(tmp_path) -> None:
    """A tuple bound to a name (``pos = (0, 3, 4)``), a tuple in the class body (LeRobot's X-VLA
    ``gripper_idx = (9, 19)``), lists made in ``__init__`` (FLUX3's ``list(absolute_dims or [])``, an
    annotated literal): the helper. An attribute bound to a parameter or also to a number, one grown in
    place, another object's attribute: no finding. The augmented write: a finding without a fix."""
    after = rewrite(ATTRIBUTES, select=("TRT344",))
    for call in ("_trt_ellipsis_list_write(x, pos, 1.0)",
                 "_trt_ellipsis_list_write(x, self.gripper_idx, torch.sigmoid(x[..., self.gripper_idx]))",
                 "_trt_ellipsis_list_write(x, self.dims, 0.0)", "_trt_ellipsis_list_write(x, self.cols, 2.0)"):
        assert f"        {call}\n" in after, call
    for kept in ("x[..., self.idx] = 3.0", "x[..., self.mixed] = 4.0", "x[..., self.grown] = 5.0",
                 "x[..., other.gripper_idx] = 6.0", "x[..., self.gripper_idx] += 1.0"):
        assert f"        {kept}\n" in after, kept
    assert rewrite(after, select=("TRT344",)) == after
    found = check_source(ATTRIBUTES.encode(), "attributes.py", Options(select=("TRT344",)))
    assert [(f.line, f.fix) for f in found] == [(19, Safety.SAFE), (20, Safety.SAFE), (21, Safety.SAFE),
                                                (22, Safety.SAFE), (28, Safety.NONE)]
    namespace = import_source(after, tmp_path)
    original = import_source(ATTRIBUTES, tmp_path)
    for shape in [(2, 3, 20), (0, 20), (4, 1, 1, 20)]:
        x = _maps(shape, 3)
        new = namespace["Head"]([6, 13], [1], 2)(x.clone(), original["Head"]([6], [1], 2))
        old = original["Head"]([6, 13], [1], 2)(x.clone(), original["Head"]([6], [1], 2))
        _same(new, old)


def test_an_attribute_written_or_read_is_not_taken_where_the_value_calls_its_owner() -> None:
    """Python evaluates the value first; the helper's call reads `self.idx` (and `self.buf`) first. A value that
    calls a method of `self` or hands `self` on could rebind them in between: not rewritten."""
    source = ("import torch\nfrom torch import nn\n\n\nclass M(nn.Module):\n    idx = [0, 2]\n\n"
              "    def forward(self, x: torch.Tensor, y: torch.Tensor):\n"
              "        y[..., self.idx] = torch.sigmoid(x[..., self.idx])\n"
              "        y[..., self.idx] = self.shift(x)\n"
              "        y[..., self.idx] = helper(self, x)\n"
              "        return y\n")
    after = rewrite(source, select=("TRT344",))
    assert "        _trt_ellipsis_list_write(y, self.idx, torch.sigmoid(x[..., self.idx]))\n" in after
    assert "        y[..., self.idx] = self.shift(x)\n" in after and "        y[..., self.idx] = helper(self, x)\n" in after
    found = check_source(source.encode(), "m.py", Options(select=("TRT344",)))
    assert [(f.line, f.fix) for f in found] == [(9, Safety.SAFE), (10, Safety.NONE), (11, Safety.NONE)]
    assert "calls a method of `self`" in found[1].message
