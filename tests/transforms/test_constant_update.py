"""TRT728 constant-update: a tensor built from Python data in forward, then updated in place.

The rewrite is shown as text (each way of updating, each way of building), the look-alikes it
must leave are listed, the rewritten model is run against the original on real tensors (zeros,
negatives, inf/NaN, an empty batch, an index that raises) and under every toolchain, and the
claim is exported: the TorchScript graph of the original loses the update (other values, or a
Gather out of bounds where the values are indices, as in kornia's CLAHE), the rewritten one keeps
it at other sizes, with both exporters.
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
from safety import assert_same_run, import_source, run_once, toolchain_outcomes
from support import rewrite, rules_found

from trtcodemod.helpers.constants import _trt_updatable

HEADER = "import torch\nfrom torch import nn\n\n\n"


def _function(body: str) -> str:
    lines = "".join(f"    {line}\n" for line in body.strip().splitlines())
    return HEADER + f"def f(x: torch.Tensor, n: int):\n{lines}"


REWRITES = [
    ("idx = torch.tensor([0, 1, 1, 2] * n)\nidx += torch.arange(4 * n) // 4\nreturn x[:, idx]",
     "idx = _trt_updatable(torch.tensor([0, 1, 1, 2] * n))"),
    ("s = torch.as_tensor([1.0, 2.0])\ns[0] = 3.0\nreturn x * s", "s = _trt_updatable(torch.as_tensor([1.0, 2.0]))"),
    ("t = torch.tensor([1.0, -2.0])\nt.mul_(2)\nreturn x * t", "t = _trt_updatable(torch.tensor([1.0, -2.0]))"),
    ("t = torch.tensor([[1, 2], [3, 4]], dtype=torch.long)\nif n > 1:\n    t[0][1] -= n\nreturn x[:, t[0]]",
     "t = _trt_updatable(torch.tensor([[1, 2], [3, 4]], dtype=torch.long))"),
    # the legacy constructors of Python data and `new_tensor` are constants of the trace too
    ("t = torch.Tensor([[1.0, -2.0]])\nt[..., 0::2] = t[..., 0::2].clamp(0, n)\nreturn x * t",
     "t = _trt_updatable(torch.Tensor([[1.0, -2.0]]))"),
    ("t = torch.LongTensor([0, 1] * n)\nt += 1\nreturn x[:, t]", "t = _trt_updatable(torch.LongTensor([0, 1] * n))"),
    ("t = x.new_tensor([1.0, 2.0])\nt.mul_(n)\nreturn x[:, :2] * t", "t = _trt_updatable(x.new_tensor([1.0, 2.0]))"),
]


@pytest.mark.parametrize("body, want", REWRITES)
def test_rewrite_text(body: str, want: str) -> None:
    code = _function(body)
    after = rewrite(code, select=("TRT728",))
    assert want in after and after.count(" = _trt_updatable(") == 1
    assert rules_found(code, select=("TRT728",)) == ["TRT728"]


LEFT_ALONE = [
    "t = torch.tensor([1, 2])\nt = t + x\nreturn t",  # rebound, not updated in place
    "t = torch.arange(4)\nt += 1\nreturn x[:, t]",  # an operation's result: the graph keeps its update
    "t = torch.as_tensor(x)\nt += 1\nreturn t",  # may be `x` itself: a clone would cut the write to it
    "t = torch.tensor([1.0], requires_grad=True)\nt.add_(1)\nreturn x * t",
    "t = torch.tensor([1, 2])\nt = torch.zeros(2)\nt += 1\nreturn t",  # updated after it names another
    "t = torch.tensor([1, 2])\nu = t.clone()\nu += 1\nreturn x * u",
    "t = torch.Tensor(2, 3)\nt.fill_(1.0)\nreturn x * t",  # a legacy constructor of sizes: an uninitialized tensor
    "t = torch.FloatTensor(x)\nt += 1\nreturn t",  # of a tensor: may share its data
]


@pytest.mark.parametrize("body", LEFT_ALONE)
def test_left_alone(body: str) -> None:
    assert rules_found(_function(body), select=("TRT728",)) == []


def test_outside_an_export_the_helper_is_its_argument() -> None:
    t = torch.tensor([1, 2])
    assert _trt_updatable(t) is t and _trt_updatable(3) == 3


LUT = HEADER + """\
class M(nn.Module):
    def forward(self, luts: torch.Tensor) -> torch.Tensor:
        g = luts.shape[1]
        j_idxs = torch.tensor([[0, 0, 1, 1], [-1, -1, 0, 0]] * ((g - 2) // 2))
        j_idxs += torch.arange(1, g - 1).view(g - 2, 1).div(2, rounding_mode="trunc")
        scale = torch.tensor([1.0, -1.0])
        scale[1] = 0.5
        return luts[:, j_idxs[:, 0]] * scale[1] + luts[:, j_idxs[:, 3]] * scale[0]
"""


@pytest.fixture(scope="module")
def lut(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    folder = tmp_path_factory.mktemp("constant_update")
    after = rewrite(LUT, select=("TRT728",))
    assert after.count("_trt_updatable(torch.tensor(") == 2
    return import_source(LUT, folder), import_source(after, folder)


@pytest.mark.parametrize("shape", [(2, 6, 5), (1, 4, 3), (0, 8, 2), (3, 10, 0), (2, 2, 4)])
def test_eager_runs_are_unchanged(lut: tuple[dict, dict], shape: tuple[int, ...]) -> None:
    before, after = lut
    x = torch.randn(shape)
    if x.numel():
        x.view(-1)[:4] = torch.tensor([float("inf"), float("nan"), -0.0, 0.0])[: min(4, x.numel())]
    # (2, 2, 4): no rows to index (g - 2 == 0), as in the original.
    assert_same_run(run_once(before["M"](), [x]), run_once(after["M"](), [x]), context=str(shape))


def test_the_toolchains_run_as_before(lut: tuple[dict, dict], tmp_path: Path) -> None:
    before, after = lut
    x = torch.randn(2, 6, 5)
    outcomes_before = toolchain_outcomes(before["M"], [x], tmp_path)
    outcomes_after = toolchain_outcomes(after["M"], [x], tmp_path)
    assert outcomes_before.keys() == outcomes_after.keys()
    for toolchain, result in outcomes_before.items():
        if isinstance(result, Exception):
            assert isinstance(outcomes_after[toolchain], type(result)), toolchain
        else:
            assert torch.equal(result, outcomes_after[toolchain]), toolchain


def _session(model: nn.Module, example: torch.Tensor, dynamo: bool) -> ort.InferenceSession:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if dynamo:
            program = torch.onnx.export(model, (example,), dynamo=True, input_names=["luts"],
                                        dynamic_shapes={"luts": {0: torch.export.Dim("b"), 2: torch.export.Dim("w")}},
                                        verbose=False)
            data = program.model_proto.SerializeToString()
        else:
            buffer = io.BytesIO()
            torch.onnx.export(model, (example,), buffer, dynamo=False, opset_version=17, input_names=["luts"],
                              dynamic_axes={"luts": {0: "b", 2: "w"}})
            data = buffer.getvalue()
    return ort.InferenceSession(data, providers=["CPUExecutionProvider"])



def test_the_original_graph_loses_the_update(lut: tuple[dict, dict]) -> None:
    model = lut[0]["M"]().eval()
    example = torch.randn(2, 8, 5)
    session = _session(model, example, dynamo=False)
    got = session.run(None, {"luts": example.numpy()})[0]
    assert not np.allclose(got, model(example).numpy())


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_rewritten_graph_keeps_the_update_at_other_sizes(lut: tuple[dict, dict], dynamo: bool) -> None:
    _, after = lut
    model = after["M"]().eval()
    session = _session(model, torch.randn(2, 8, 5), dynamo)
    for shape in [(2, 8, 5), (1, 8, 9), (3, 8, 1)]:
        x = torch.randn(shape)
        x[0, 0, 0] = float("nan")
        with torch.no_grad():
            expected = model(x).numpy()
        np.testing.assert_array_equal(session.run(None, {"luts": x.numpy()})[0], expected, err_msg=str(shape))


def test_migrate_finds_the_lost_update_and_fixes_it(tmp_path: Path) -> None:
    """The trace warns at the building line ("torch.tensor results are registered as constants"):
    migrate takes TRT728 there, and the rewritten graph computes what the model does."""
    from support import migrate_json

    model = tmp_path / "lut.py"
    model.write_text(LUT + "\n\ndef build():\n    return M().eval()\n\n\ndef inputs(generator):\n"
                           "    return (torch.randn(2, 8, 5, generator=generator),)\n")
    report = migrate_json(model, '{"luts": {"0": "b", "2": "w"}}')
    assert report["before"]["faithful"] is False  # the original's graph lost the updates
    assert sorted((f["rule"], f["line"], f["landed"]) for f in report["applied"]) == [
        ("TRT728", 8, True), ("TRT728", 10, True)]
    assert report["exit_code"] == 0 and report["equivalent"] is True and report["after"]["faithful"] is True


LEGACY = HEADER + """\
class M(nn.Module):
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n = x.shape[1]
        a = torch.Tensor([[1.0, -2.0, 3.0]])
        a[..., 0::2] = a[..., 0::2].clamp(0, n - 3)
        b = x.new_tensor([0.5, 1.0, 2.0])
        b.mul_(n)
        c = torch.LongTensor([0, 2, 1])
        c += n - 4
        return x[:, c] * a * b
"""


def test_the_legacy_constructors_and_new_tensor_lose_the_update_until_rewritten(tmp_path: Path) -> None:
    """Exported at width 4, the original's graph reads the three constants as built; the rewritten
    one (all three wrapped) follows eager mode at other widths."""
    after = rewrite(LEGACY, select=("TRT728",))
    assert after.count(" = _trt_updatable(") == 3, after
    before, fixed = import_source(LEGACY, tmp_path), import_source(after, tmp_path)
    for namespace, faithful in ((before, False), (fixed, True)):
        model = namespace["M"]().eval()
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(2, 4),), buffer, dynamo=False, opset_version=17,
                              input_names=["x"], dynamic_axes={"x": {0: "b", 1: "w"}})
        session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
        for shape in [(2, 4), (3, 6)]:
            x = torch.randn(shape)
            with torch.no_grad():
                same = np.allclose(session.run(None, {"x": x.numpy()})[0], model(x).numpy())
            assert same is faithful, (faithful, shape)
