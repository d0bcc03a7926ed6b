"""TRT405: ``F.local_response_norm`` → ``_trt_local_response_norm`` and ``nn.LocalResponseNorm`` →
``_TrtLocalResponseNorm``: torch's function itself outside an ONNX export, the same steps with the pooled
axis taken by ``[:, 0]`` (no squeeze ``If``) while exporting.

The rewrite text and what is left alone; the export form against torch's function on real tensors
(3-D to 5-D, zeros with ``k=0`` (0/0), negatives, inf/NaN, empty batches and channels, gradients, the
input itself returned when empty); eager runs and the toolchains before and after; both exporters
before and after (the TorchScript graph loses its ``If`` and its TracerWarning, the graph check names
the ``If`` TRT405 from the node's stack, the rewritten graphs equal eager mode at other batch sizes);
and ``migrate`` on a descriptor head built like kornia's SOSNet (the module built in ``__init__``,
the ``If`` made where forward calls it): the fix lands at the construction and the model exits 0.
"""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
import torch
import torch.nn.functional as F
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import export_formulation, migrate_json, rewrite, rules_found

from trtcodemod.helpers.normalization import _trt_local_response_norm, _TrtLocalResponseNorm
from trtcodemod.trt.check import check_graph

HEADER = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"


@pytest.mark.parametrize(("code", "want"), [
    ("y = F.local_response_norm(x, 5, alpha=1e-4, beta=0.75, k=2.0)\n",
     "y = _trt_local_response_norm(x, 5, alpha=1e-4, beta=0.75, k=2.0)\n"),
    ("y = torch.nn.functional.local_response_norm(x, size=3)\n", "y = _trt_local_response_norm(x, size=3)\n"),
    ("y = F.local_response_norm(*args, **kwargs)\n", "y = _trt_local_response_norm(*args, **kwargs)\n"),
])
def test_rewrite_text_of_the_function(code: str, want: str) -> None:
    after = rewrite(HEADER + code, select=("TRT405",))
    assert after.endswith(want), after
    assert "def _trt_local_response_norm(" in after and "class _TrtLocalResponseNorm" not in after


@pytest.mark.parametrize(("code", "want"), [
    ("m = nn.LocalResponseNorm(256, alpha=256.0, beta=0.5, k=0.0)\n",
     "m = _TrtLocalResponseNorm(256, alpha=256.0, beta=0.5, k=0.0)\n"),
    ("m = nn.Sequential(torch.nn.LocalResponseNorm(4))\n", "m = nn.Sequential(_TrtLocalResponseNorm(4))\n"),
    ("from torch.nn import LocalResponseNorm as LRN\nm = LRN(2)\n", "m = _TrtLocalResponseNorm(2)\n"),
])
def test_rewrite_text_of_the_module_is_unsafe(code: str, want: str) -> None:
    source = HEADER + code
    assert rewrite(source, select=("TRT405",)) == source  # not without --unsafe
    after = rewrite(source, select=("TRT405",), unsafe=True)
    assert after.endswith(want), after
    assert "class _TrtLocalResponseNorm(torch.nn.LocalResponseNorm)" in after


@pytest.mark.parametrize("code", [
    "norm = F.local_response_norm\n",  # passed as a value: not a call
    "def local_response_norm(x, n):\n    return x\n\n\ny = local_response_norm(x, 5)\n",  # the project's own
    "y = F.layer_norm(x, [4])\n",
    "m = nn.LayerNorm(4)\n",
])
def test_left_alone(code: str) -> None:
    source = HEADER + code
    assert "TRT405" not in rules_found(source)
    assert rewrite(source, select=("TRT405",), unsafe=True) == source


def _cases() -> list[tuple[torch.Tensor, tuple]]:
    g = torch.Generator().manual_seed(0)
    special = torch.randn(2, 6, 3, 3, generator=g)
    special[0, 1, 0, 0], special[1, 2, 1, 1], special[0, 3, 2, 2] = float("inf"), float("nan"), -float("inf")
    return [
        (torch.randn(2, 7, 5, generator=g), (3,)),
        (torch.randn(3, 8, 4, 4, generator=g) * 5 - 2, (5, 1e-3, 0.75, 2.0)),
        (torch.randn(2, 5, 2, 3, 4, generator=g), (4, 2.0, 0.5, 1.0)),
        (torch.zeros(2, 8, 3, 3), (256, 256.0, 0.5, 0.0)),  # 0 / 0: NaN in both
        (-torch.rand(2, 4, 3, 3, generator=g), (2, 1.0, 0.5, 0.0)),
        (special, (3, 1e-4, 0.75, 1.0)),
        (torch.randn(2, 6, 3, 3, generator=g).to(torch.float64), (3,)),
        (torch.randn(2, 6, 3, 3, generator=g).contiguous(memory_format=torch.channels_last), (3,)),
        (torch.randn(4, 2, 6, 3, generator=g).permute(1, 2, 0, 3), (3,)),  # not contiguous
    ]


@pytest.mark.parametrize(("x", "args"), _cases())
def test_the_export_form_computes_torchs_values(x: torch.Tensor, args: tuple) -> None:
    expected = F.local_response_norm(x, *args)
    with export_formulation():
        got = _trt_local_response_norm(x, *args)
    assert got.dtype == expected.dtype and got.shape == expected.shape
    assert torch.equal(torch.isnan(got), torch.isnan(expected))
    assert torch.equal(torch.nan_to_num(got, nan=0.0), torch.nan_to_num(expected, nan=0.0))


@pytest.mark.parametrize("shape", [(0, 6, 3, 3), (2, 0, 3, 3), (2, 6, 0, 3), (0, 6, 5), (2, 6, 4, 0, 2)])
def test_an_empty_input_is_returned_itself_in_both_forms(shape: tuple[int, ...]) -> None:
    x = torch.randn(shape)
    assert F.local_response_norm(x, 3) is x
    with export_formulation():
        assert _trt_local_response_norm(x, 3) is x
    assert _trt_local_response_norm(x, 3) is x


def test_errors_and_other_objects_keep_torchs() -> None:
    for bad in (torch.randn(3, 4), torch.tensor(1.0)):
        with pytest.raises(ValueError, match="Expected 3D or higher"):
            F.local_response_norm(bad, 2)
        for context in (export_formulation(), warnings.catch_warnings()):
            with context, pytest.raises(ValueError, match="Expected 3D or higher"):
                _trt_local_response_norm(bad, 2)
    for odd in (torch.arange(24).reshape(2, 3, 4), torch.ones(2, 3, 4, dtype=torch.bool)):
        outcomes = []
        for context in (warnings.catch_warnings(), export_formulation()):
            with context:
                try:
                    outcomes.append(_trt_local_response_norm(odd, 2))
                except Exception as error:  # noqa: BLE001 - the type and message are compared
                    outcomes.append(error)
        if isinstance(outcomes[0], Exception):
            assert type(outcomes[1]) is type(outcomes[0]) and str(outcomes[1]) == str(outcomes[0])
        else:
            assert outcomes[1].dtype == outcomes[0].dtype and torch.equal(outcomes[1], outcomes[0])


def test_gradients_flow_through_the_export_form() -> None:
    x = torch.randn(2, 6, 3, 3, dtype=torch.float64, requires_grad=True)
    weight = torch.randn(2, 6, 3, 3, dtype=torch.float64)
    (F.local_response_norm(x, 3, 0.5, 0.75, 1.0) * weight).sum().backward()
    expected, x.grad = x.grad.clone(), None
    with export_formulation():
        (_trt_local_response_norm(x, 3, 0.5, 0.75, 1.0) * weight).sum().backward()
    assert torch.allclose(x.grad, expected, rtol=1e-12, atol=0)


def test_the_module_keeps_the_original_attributes_and_state() -> None:
    original, ours = torch.nn.LocalResponseNorm(5, alpha=2e-4, beta=0.5, k=1.5), _TrtLocalResponseNorm(5, alpha=2e-4,
                                                                                                        beta=0.5, k=1.5)
    assert (ours.size, ours.alpha, ours.beta, ours.k) == (original.size, original.alpha, original.beta, original.k)
    assert ours.extra_repr() == original.extra_repr() and ours.state_dict().keys() == original.state_dict().keys()
    x = torch.randn(2, 8, 3, 3)
    assert torch.equal(ours(x), original(x))
    assert torch.equal(torch.jit.script(ours)(x), original(x))


DESCRIPTOR = """\
import torch
import torch.nn.functional as F
from torch import nn


class Descriptor(nn.Module):
    # A patch descriptor normalised the way kornia's SOSNet does: an LRN over all channels is an L2 norm.

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.Conv2d(8, 16, 6))
        self.desc_norm = nn.Sequential(nn.LocalResponseNorm(32, alpha=32.0, beta=0.5, k=0.0))

    def forward(self, x):
        descr = self.desc_norm(self.features(x) + 1e-10)
        local = F.local_response_norm(descr, 3, alpha=1e-4, beta=0.75, k=1.0)
        return descr.flatten(1) + local.flatten(1)


def build():
    torch.manual_seed(0)
    return Descriptor().eval()


def inputs(generator):
    return (torch.rand(2, 1, 8, 8, generator=generator),)
"""


@pytest.fixture(scope="module")
def descriptor(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    folder = tmp_path_factory.mktemp("local_response_norm")
    after = rewrite(DESCRIPTOR, select=("TRT405",), unsafe=True)
    assert "nn.Sequential(_TrtLocalResponseNorm(32, alpha=32.0, beta=0.5, k=0.0))" in after
    assert "local = _trt_local_response_norm(descr, 3, alpha=1e-4, beta=0.75, k=1.0)" in after
    return import_source(DESCRIPTOR, folder), import_source(after, folder)


def _export(model: torch.nn.Module, x: torch.Tensor, dynamo: bool, stacks: bool = False) -> tuple[bytes, list[str]]:
    axes = {"x": {0: "n"}}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if dynamo:
            data = torch.onnx.export(model, (x,), dynamo=True, input_names=["x"], dynamic_axes=axes,
                                     verbose=False).model_proto.SerializeToString()
        else:
            buffer = io.BytesIO()
            torch.onnx.export(model, (x,), buffer, dynamo=False, opset_version=17, input_names=["x"],
                              dynamic_axes=axes, verbose=stacks)
            data = buffer.getvalue()
    return data, [str(w.message) for w in caught if type(w.message).__name__ == "TracerWarning"]


def test_eager_runs_and_toolchains_are_unchanged(descriptor: tuple[dict, dict], tmp_path: Path) -> None:
    before, after = descriptor
    for shape in [(2, 1, 8, 8), (5, 1, 8, 8), (0, 1, 8, 8)]:
        x = torch.rand(shape)
        torch.manual_seed(0)
        model_before = before["Descriptor"]()
        torch.manual_seed(0)
        model_after = after["Descriptor"]()
        assert_same_run(run_once(model_before, [x]), run_once(model_after, [x]), context=str(shape))
    x = torch.rand(3, 1, 8, 8)
    torch.manual_seed(0)
    outcomes_before = toolchain_outcomes(before["Descriptor"], [x], tmp_path)
    torch.manual_seed(0)
    outcomes_after = toolchain_outcomes(after["Descriptor"], [x], tmp_path)
    for toolchain, result in outcomes_before.items():
        if isinstance(result, Exception):
            assert isinstance(outcomes_after[toolchain], type(result)), toolchain
        else:
            assert torch.equal(result, outcomes_after[toolchain]), toolchain


def test_the_original_graph_has_the_if_that_the_check_names_trt405(descriptor: tuple[dict, dict]) -> None:
    before, _ = descriptor
    data, tracer = _export(before["build"](), torch.rand(2, 1, 8, 8), dynamo=False, stacks=True)
    issues = [i for i in check_graph(onnx.load_from_string(data)) if i.op == "If"]
    assert len(issues) == 2 and {i.rule for i in issues} == {"TRT405"}, issues
    assert all("local_response_norm" in i.reason for i in issues)
    assert tracer  # torch reads `numel() == 0`


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_graph_has_no_if_and_equals_eager(descriptor: tuple[dict, dict], dynamo: bool) -> None:
    _, after = descriptor
    model = after["build"]()
    data, tracer = _export(model, torch.rand(2, 1, 8, 8), dynamo)
    graph = onnx.load_from_string(data)
    assert "If" not in {n.op_type for n in graph.graph.node}
    assert not [i for i in check_graph(graph) if i.severity == "error"]
    assert not tracer
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    for batch in (1, 2, 7):
        x = torch.rand(batch, 1, 8, 8)
        x[0, 0, 0, :2] = torch.tensor([float("inf"), -1.0])
        with torch.no_grad():
            expected = model(x).numpy()
        got = session.run(None, {session.get_inputs()[0].name: x.numpy()})[0]
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6, equal_nan=True, err_msg=str(batch))


def test_migrate_fixes_the_module_where_it_is_built_and_the_call(tmp_path: Path) -> None:
    model = tmp_path / "descriptor.py"
    model.write_text(DESCRIPTOR)
    report = migrate_json(model, '{"x": {"0": "n"}}')
    assert report["before"]["trt_errors_by_op"] == {"If": 2}
    applied = sorted((fix["rule"], fix["line"]) for fix in report["applied"])
    assert applied == [("TRT405", 12), ("TRT405", 16)], report["applied"]
    assert report["exit_code"] == 0 and report["equivalent"] is True and report["after"]["trt_errors"] == 0


class _HelperOnly(torch.nn.Module):
    def forward(self, x):
        return _trt_local_response_norm(x, 5, alpha=1e-4, beta=0.75, k=2.0)


@pytest.mark.parametrize("shape", [(2, 6, 5, 4), (2, 6, 3, 4, 5)], ids=["4d", "5d"])
def test_the_exported_helper_runs_an_empty_batch(shape: tuple[int, ...]) -> None:
    """torch views the squared input as (N, 1, C, D2, -1); ONNX Runtime cannot infer the -1 of a
    Reshape with no elements, so a 4-D graph exported with a dynamic batch failed on an empty batch.
    For 4-D the helper unsqueezes instead (the same values). For 5-D the -1 stays (it merges the
    trailing axes) and an empty batch still cannot run: pinned here."""
    data, tracer = _export(_HelperOnly(), torch.randn(shape), dynamo=False)
    assert not tracer
    session = ort.InferenceSession(data, providers=["CPUExecutionProvider"])
    x = torch.randn(shape)
    want = F.local_response_norm(x, 5, alpha=1e-4, beta=0.75, k=2.0).numpy()
    np.testing.assert_allclose(session.run(None, {"x": x.numpy()})[0], want, rtol=1e-6, atol=1e-7)
    empty = np.zeros((0, *shape[1:]), dtype=np.float32)
    if len(shape) == 4:
        assert session.run(None, {"x": empty})[0].shape == empty.shape
    else:
        with pytest.raises(Exception, match="cannot be reshaped"):
            session.run(None, {"x": empty})
