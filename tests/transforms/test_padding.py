"""TRT501/502: zero F.pad as torch.cat, other padding modes reported — rewrite, run, export."""

from __future__ import annotations

import io
import textwrap
import warnings

import pytest
import torch

from safety import assert_same_run, run_once
from support import assert_same, export_formulation, load, onnx_ops, rewrite, rules_found, strip_helpers
from trtcodemod.helpers.padding import _TrtZeroPad2d, _trt_zero_pad

MODEL = """
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.functional import pad as p


class Neck(nn.Module):
    def __init__(self):
        super().__init__()
        self.pre = nn.Sequential(nn.ZeroPad2d((0, 1, 0, 1)), nn.Identity())
        self.edge = nn.ZeroPad2d(2)

    def forward(self, x):
        a = F.pad(x, (1, 2, 0, 3))                              # W and H
        b = torch.nn.functional.pad(x, [0, 0, 2, 0], mode="constant", value=0.0)
        c = p(x, (1, 1), "constant", 0)                         # from-import alias
        d = F.pad(x, (0, 1, 1, 0, 1, 1))                        # three axes
        return a, b, c, d, self.pre(x), self.edge(x)
"""

EDGE_INPUTS = {
    "random": torch.randn(2, 3, 4, 5),
    "zeros-neg": -torch.zeros(1, 2, 3, 3),
    "inf-nan": torch.tensor([[[[float("inf"), float("nan")], [-float("inf"), -0.0]]]]),
    "empty-batch": torch.empty(0, 3, 4, 5),
    "empty-width": torch.empty(2, 3, 4, 0),
    "float16": torch.randn(1, 2, 3, 3).half(),
    "float64": torch.randn(1, 2, 3, 1, dtype=torch.float64),
    "int64": torch.randint(-5, 5, (2, 1, 3, 3)),
    "bool": torch.rand(1, 2, 3, 3) > 0.5,
}


def test_rewrite_text() -> None:
    safe_only = rewrite(MODEL, target="8.0")
    assert "nn.ZeroPad2d((0, 1, 0, 1))" in safe_only and "self.edge = nn.ZeroPad2d(2)" in safe_only
    assert "a = _trt_zero_pad(x, (1, 2, 0, 3))" in safe_only
    after = rewrite(MODEL, target="8.0", unsafe=True)
    assert "a = _trt_zero_pad(x, (1, 2, 0, 3))" in after
    assert "b = _trt_zero_pad(x, [0, 0, 2, 0])" in after
    assert "c = _trt_zero_pad(x, (1, 1))" in after
    assert "d = _trt_zero_pad(x, (0, 1, 1, 0, 1, 1))" in after
    assert "nn.Sequential(_TrtZeroPad2d((0, 1, 0, 1)), nn.Identity())" in after
    assert "self.edge = _TrtZeroPad2d(2)" in after
    call_sites = strip_helpers(after)
    assert "F.pad(" not in call_sites and " p(x" not in call_sites and "nn.ZeroPad2d(" not in call_sites
    assert after.count("def _trt_zero_pad(") == 1 and after.count("class _TrtZeroPad2d(") == 1
    assert "# W and H" in after and "# from-import alias" in after
    assert rewrite(after, target="8.0") == after


@pytest.mark.parametrize("name", list(EDGE_INPUTS))
def test_same_results(name: str) -> None:
    x = EDGE_INPUTS[name]
    before = load(MODEL, "Neck")()
    after = load(rewrite(MODEL, target="8.0"), "Neck")()
    after.load_state_dict(before.state_dict())  # same (empty) state dict, same module indices
    assert list(before.state_dict()) == list(after.state_dict())
    assert_same(before(x), after(x))


@pytest.mark.parametrize("pads", [(0, 0), (3, 0), (0, 2), (1, 1, 0, 0), (0, 0, 0, 0, 1, 0)])
@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 0, 3), (1, 2, 3, 4)])
def test_helper_matches_f_pad(pads, shape) -> None:
    x = torch.randn(shape)
    if len(pads) // 2 > x.dim():
        with pytest.raises(RuntimeError) as original:
            torch.nn.functional.pad(x, pads)
        with pytest.raises(RuntimeError, match=str(original.value)[:30]):
            _trt_zero_pad(x, pads)
        with export_formulation(), pytest.raises(RuntimeError):
            _trt_zero_pad(x, pads)  # the concatenation is not taken: F.pad's own error
        return
    expected = torch.nn.functional.pad(x, pads)
    assert_same(expected, _trt_zero_pad(x, pads))
    with export_formulation():
        actual = _trt_zero_pad(x, pads)
    assert_same(expected, actual)
    if x.numel():
        assert actual.data_ptr() != x.data_ptr(), "F.pad never returns its input; nor may the helper"


def test_module_is_a_zero_pad() -> None:
    module = _TrtZeroPad2d((1, 0, 2, 3))
    assert isinstance(module, torch.nn.ZeroPad2d) and module.padding == (1, 0, 2, 3)
    assert not list(module.state_dict())
    x = torch.randn(2, 3, 4, 5)
    assert_same(torch.nn.ZeroPad2d((1, 0, 2, 3))(x), module(x))


def _export(model, x, axes):
    import onnx

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17,
                          input_names=["x"], dynamic_axes={"x": axes})
    return buffer.getvalue(), onnx


def test_export_has_no_pad_and_dynamic_shapes_work() -> None:
    import onnxruntime

    code = "import torch.nn.functional as F\nfrom torch import nn\n" \
           "class M(nn.Module):\n    def forward(self, x):\n        return F.pad(x, (1, 2, 0, 3))\n"
    axes = {0: "n", 2: "h", 3: "w"}
    assert "Pad" in onnx_ops(load(code, "M")(), (torch.randn(2, 3, 5, 6),), input_names=["x"],
                             dynamic_axes={"x": axes})
    model = load(rewrite(code, target="8.0"), "M")()
    ops = onnx_ops(model, (torch.randn(2, 3, 5, 6),), input_names=["x"], dynamic_axes={"x": axes})
    assert "Pad" not in ops and "Concat" in ops
    blob, _ = _export(model, torch.randn(2, 3, 5, 6), axes)
    session = onnxruntime.InferenceSession(blob, providers=["CPUExecutionProvider"])
    for shape in [(1, 3, 2, 9), (3, 3, 7, 1), (0, 3, 4, 4)]:  # other sizes than the traced one
        x = torch.randn(shape)
        assert_same(torch.nn.functional.pad(x, (1, 2, 0, 3)), torch.from_numpy(session.run(None, {"x": x.numpy()})[0]))


def test_not_rewritten() -> None:
    code = """
    import torch.nn.functional as F
    from torch import nn

    def pad(x, p):
        return x

    def f(x, pad_w, pads, kw, fill):
        a = pad(x, (1, 1))                        # the user's own pad
        b = F.pad(x, (0, pad_w, 0, 1))            # computed pads: may be negative
        c = F.pad(x, pads)
        d = F.pad(x, (-1, -1))                    # cropping
        e = F.pad(x, (1, 1), **kw)                # may pass mode/value
        g = F.pad(x, (1, 1), value=-0.0)          # negative-zero fill
        h = F.pad(x, (1, 1), value=fill)          # computed fill: TRT502 (before 8.2)
        i = F.pad(x, (1, 1), mode="reflect")      # TRT502 (before 8.6)
        m = nn.ZeroPad2d(-1)                      # cropping module
        n = nn.ConstantPad2d(1, 0.0)              # reported, not rewritten
        o = nn.ConstantPad2d(1, 0.5)              # TRT502 (before 8.2)
        return a, b, c, d, e, g, h, i, m, n, o
    """
    assert rules_found(code) == []  # TensorRT 8.2 and newer parse these Pads
    assert rewrite(code, unsafe=True, target="8.0") == textwrap.dedent(code)
    assert rules_found(code, target="8.0") == ["TRT501"] * 5 + ["TRT502", "TRT502", "TRT501", "TRT501", "TRT502"]


@pytest.mark.parametrize(
    "call,targets_reported",
    [
        ("F.pad(x, (1, 1), mode='circular')", {"8.6": True, "10.0": False}),
        ("F.pad(x, (1, 1), mode='replicate')", {"8.4": True, "8.6": False}),
        ("F.pad(x, (1, 1), 'reflect')", {"8.4": True, "8.6": False}),
        ("F.pad(x, (1, 1), value=1.0)", {"8.0": True, "8.2": False}),
        ("F.pad(x, (1, 1), mode=m)", {"8.6": True, "10.0": False}),
        ("nn.ReplicationPad2d(1)", {"8.4": True, "8.6": False}),
        ("nn.CircularPad1d(2)", {"8.6": True, "10.x": False}),
    ],
)
def test_other_modes_reported_by_target(call: str, targets_reported: dict) -> None:
    code = f"import torch.nn.functional as F\nfrom torch import nn\ndef f(x, m):\n    return {call}\n"
    for target, reported in targets_reported.items():
        assert ("TRT502" in rules_found(code, target=target)) is reported, target
        assert "TRT501" not in rules_found(code, target=target)
    assert rewrite(code, unsafe=True, target="7.1") == code


# --- pads computed from the input's size (window padding) ---------------------------------

WINDOW = """
import torch.nn.functional as F
from torch import nn


class Window(nn.Module):
    def forward(self, x):
        ws = 7
        H, W = x.shape[2], x.shape[3]
        pad_r = (ws - W % ws) % ws
        pad_b = (ws - H % ws) % ws
        return F.pad(x, (0, pad_r, 0, pad_b))
"""


def test_window_padding_reported_before_8_2_only() -> None:
    assert rules_found(WINDOW, target="8.0") == ["TRT501"]
    assert rules_found(WINDOW, target="8.2") == [] and rules_found(WINDOW) == []
    assert rewrite(WINDOW, unsafe=True, target="8.0") == textwrap.dedent(WINDOW)  # nothing sound to rewrite
    assert check_message(WINDOW).startswith("zero F.pad with computed pads")


def check_message(code: str) -> str:
    from trtcodemod.engine import Options, check_source

    findings = check_source(textwrap.dedent(code).encode(), "snippet.py", Options(select=("TRT501",), target="8.0"))
    return findings[0].message


def _pads_source(model_proto) -> list[bool]:
    """For each Pad node: is its `pads` input an initializer or a Constant (known when parsing)?"""
    constants = {init.name for init in model_proto.graph.initializer}
    constants |= {out for node in model_proto.graph.node if node.op_type == "Constant" for out in node.output}
    return [node.input[1] in constants for node in model_proto.graph.node if node.op_type == "Pad"]


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "dynamic"])
def test_window_padding_exports_run_time_pads(dynamic: bool) -> None:
    """What TensorRT 8.0 rejects: the Pad's `pads` are computed in the graph (both exporters, dynamic shapes)."""
    import onnx
    import onnxruntime

    model = load(WINDOW, "Window")()
    x = torch.randn(1, 2, 10, 12)
    axes = {2: "h", 3: "w"}
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": axes} if dynamic else {})
    proto = onnx.load_from_string(buffer.getvalue())
    assert _pads_source(proto) == [False]  # TorchScript exporter: never an initializer, even for static shapes
    session = onnxruntime.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    for shape in ([(1, 2, 10, 12), (1, 2, 14, 8), (1, 2, 7, 1)] if dynamic else [(1, 2, 10, 12)]):
        y = torch.randn(shape)
        assert_same(model(y), torch.from_numpy(session.run(None, {"x": y.numpy()})[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shapes = ({2: torch.export.Dim.AUTO, 3: torch.export.Dim.AUTO},) if dynamic else None
        program = torch.onnx.export(model, (x,), dynamo=True, dynamic_shapes=shapes, verbose=False)
    # dynamo exporter: folded to an initializer for static shapes only
    assert _pads_source(program.model_proto) == [not dynamic]


def test_helper_does_not_bake_traced_sizes() -> None:
    """`_trt_zero_pad` with sizes computed while tracing exports F.pad, which stays right for other sizes."""
    import onnxruntime

    code = WINDOW.replace("return F.pad(x, (0, pad_r, 0, pad_b))", "return _trt_zero_pad(x, (0, pad_r, 0, pad_b))")
    namespace = {"_trt_zero_pad": _trt_zero_pad}
    exec(compile(textwrap.dedent(code), "snippet.py", "exec"), namespace)
    model = namespace["Window"]()
    blob, _ = _export(model, torch.randn(1, 2, 10, 12), {2: "h", 3: "w"})
    session = onnxruntime.InferenceSession(blob, providers=["CPUExecutionProvider"])
    for shape in [(1, 2, 10, 12), (1, 2, 14, 3)]:
        y = torch.randn(shape)
        assert_same(load(WINDOW, "Window")()(y), torch.from_numpy(session.run(None, {"x": y.numpy()})[0]))


def test_the_module_replacement_is_another_class_to_fx_and_repr() -> None:
    """Why the ZeroPad2d replacement is unsafe: fx traces into it, and it prints its own name."""
    import torch.fx

    class Net(torch.nn.Module):
        def __init__(self, pad_type) -> None:
            super().__init__()
            self.pad = pad_type((0, 1, 0, 1))

        def forward(self, x):
            return self.pad(x)

    calls = {}
    for pad_type in (torch.nn.ZeroPad2d, _TrtZeroPad2d):
        graph = torch.fx.symbolic_trace(Net(pad_type)).graph
        calls[pad_type] = [n.op for n in graph.nodes if n.op.startswith("call")]
    assert calls[torch.nn.ZeroPad2d] == ["call_module"] and calls[_TrtZeroPad2d] == ["call_function"]
    assert repr(_TrtZeroPad2d(1)) != repr(torch.nn.ZeroPad2d(1))



# --- pads read from the module's attributes ------------------------------------------------

ATTRIBUTE_PADS = """
import torch.nn.functional as F
from torch import nn


class Halo(nn.Module):
    def __init__(self, halo, padding):
        super().__init__()
        self.halo = halo
        self.cfg = nn.Module()
        self.cfg.padding = padding

    def forward(self, x, pw: int):
        a = F.pad(x, [self.halo, self.halo, 0, 0])
        b = F.pad(x, self.cfg.padding)
        c = F.pad(x, (self.halo, pw))  # a parameter among them: reported
        return a, b, c
"""


def test_attribute_pads_are_rewritten_and_checked_while_exporting() -> None:
    """Pads from the module's attributes are configuration, not traced sizes: rewritten (safe), and
    the helper concatenates only non-negative ints; a negative attribute (a crop) exports F.pad."""
    after = rewrite(ATTRIBUTE_PADS, target="8.0")
    assert "a = _trt_zero_pad(x, [self.halo, self.halo, 0, 0])" in after
    assert "b = _trt_zero_pad(x, self.cfg.padding)" in after
    assert "c = F.pad(x, (self.halo, pw))" in after
    assert rewrite(ATTRIBUTE_PADS, target="8.2") == textwrap.dedent(ATTRIBUTE_PADS)
    before_cls, after_cls = load(ATTRIBUTE_PADS, "Halo"), load(after, "Halo")
    x = torch.randn(1, 2, 4, 5)
    for halo, padding in [(2, (1, 0, 0, 3)), (-1, [0, 0, -1, 1]), (0, (0, 0))]:
        model, rewritten = before_cls(halo, padding), after_cls(halo, padding)
        for given in (x, x.clone().requires_grad_(), torch.empty(0, 2, 4, 5)):
            assert_same_run(run_once(model, [given, 1]), run_once(rewritten, [given, 1]), context=str(halo))
        ops = onnx_ops(rewritten, (x, 1))
        # every pad a non-negative int: only the third call (a traced parameter) stays a Pad
        assert ops.count("Pad") == (1 if halo >= 0 else 3), (halo, ops)
