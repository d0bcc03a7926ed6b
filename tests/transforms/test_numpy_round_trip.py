"""TRT394: a tensor's values through NumPy and back, rewritten as the same steps in torch.

Shown as text (each NumPy step, each constructor, and the forms left alone), run before and after on real
tensors (values, dtype, shape, strides, shared memory, exceptions) including zeros, negatives, empty tensors,
inf and NaN, and exported: the original's graph keeps the example's array, the rewritten one follows the input.
"""

from __future__ import annotations

import io
import math
import warnings

import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import import_source
from support import rewrite, rules_found

HEADER = "import numpy as np\nimport torch\n\n\n"

# name -> (the call on `x`, the rewrite's text)
TAKEN = {
    # SSSegmentation's test-time flip (ssseg/modules/models/segmentors/base/base.py:101, 113)
    "flip_copy": ("torch.from_numpy(np.flip(x.cpu().numpy(), axis=3).copy())", "torch.flip(x.cpu(), (3,)).contiguous()"),
    "flip_two_axes": ("torch.tensor(np.flip(x.numpy(), (2, 3)).copy())", "torch.flip(x, (2, 3)).contiguous()"),
    "fliplr": ("torch.as_tensor(np.fliplr(x.detach().numpy()).copy())", "torch.fliplr(x.detach()).contiguous()"),
    "flipud_then_copy_method": ("torch.from_numpy(np.copy(np.flipud(x.numpy())))", "torch.flipud(x)"),
    # pypots' last observation carried forward (pypots/imputation/locf/core.py:123), as a round trip
    "running_max": ("torch.from_numpy(np.maximum.accumulate(x.numpy(), axis=2))", "torch.cummax(x, 2).values"),
    "running_min": ("torch.tensor(np.minimum.accumulate(x.cpu().numpy(), 1))", "torch.cummin(x.cpu(), 1).values"),
    "shared": ("torch.from_numpy(x.numpy())", "x.detach()"),
    "shared_view": ("torch.as_tensor(np.transpose(x.numpy(), (0, 2, 1, 3)))", "x.detach().permute(0, 2, 1, 3)"),
    "copied_view": ("torch.tensor(x.data.numpy().transpose(3, 2, 1, 0))", "x.data.permute(3, 2, 1, 0).clone()"),
    "copy": ("torch.from_numpy(x.cpu().numpy().copy())", "x.cpu().clone(memory_format=torch.contiguous_format)"),
    "np_copy_of_view": ("torch.from_numpy(np.copy(np.transpose(x.numpy(), (3, 0, 1, 2))))",
                        "x.permute(3, 0, 1, 2).clone()"),
    "copy_of_view": ("torch.from_numpy(np.transpose(x.numpy(), (3, 0, 1, 2)).copy())",
                     "x.permute(3, 0, 1, 2).clone(memory_format=torch.contiguous_format)"),
}
LEFT = [
    "torch.from_numpy(np.flip(x.numpy(), axis=3))",  # negative strides: torch raises, and the original
    "torch.from_numpy(np.flip(x.numpy()).copy())",  # no axis
    "torch.from_numpy(np.round(x.numpy()))",  # a step with no entry
    "torch.tensor(np.flip(x.numpy(), 3).copy(), dtype=torch.float64)",  # another argument
    "torch.from_numpy(np.maximum.accumulate(x.numpy(), axis=(1, 2)))",  # NumPy refuses a tuple there
    "torch.from_numpy(x.numpy(force=True))",  # an argument to `.numpy()`
]


def _program(calls: dict[str, str]) -> str:
    return HEADER + "".join(f"def {name}(x):\n    return {call}\n\n\n" for name, call in calls.items())


def test_each_step_and_constructor_is_rewritten_and_the_rest_left_alone() -> None:
    source = _program({name: call for name, (call, _) in TAKEN.items()})
    assert rules_found(source, select=("TRT394",)) == ["TRT394"] * len(TAKEN)
    assert rewrite(source, select=("TRT394",)) == source  # unsafe: only with --unsafe (or migrate's proof)
    after = rewrite(source, select=("TRT394",), unsafe=True)
    for name, (_, text) in TAKEN.items():
        assert f"def {name}(x):\n    return {text}\n" in after, name
    assert rewrite(after, select=("TRT394",), unsafe=True) == after
    left = _program({f"left_{i}": call for i, call in enumerate(LEFT)})
    assert rules_found(left, select=("TRT394",)) == []


def _inputs() -> list[torch.Tensor]:
    special = torch.tensor([0.0, -0.0, math.inf, -math.inf, math.nan, -2.5, 3.0, 1e-30])
    return [torch.randn(2, 3, 4, 5), special.repeat(15)[:120].reshape(2, 3, 4, 5), torch.zeros(1, 2, 3, 4),
            -torch.rand(2, 1, 3, 2), torch.zeros(0, 3, 4, 5), torch.randn(3, 5, 4, 2).transpose(1, 2),
            torch.randint(-5, 5, (2, 3, 4, 5)), torch.rand(2, 3, 4, 5) > 0.5, torch.randn(2, 3, 4, 5).half()]


def _outcome(function, x: torch.Tensor):
    try:
        return function(x)
    except Exception as error:  # noqa: BLE001 - the same exception is part of the same program
        return type(error)


def test_eager_values_dtype_strides_and_shared_memory_are_numpys(tmp_path) -> None:
    source = _program({name: call for name, (call, _) in TAKEN.items()})
    before = import_source(source, tmp_path)
    after = import_source(rewrite(source, select=("TRT394",), unsafe=True), tmp_path)
    for name in TAKEN:
        for x in _inputs():
            want, got = _outcome(before[name], x.clone()), _outcome(after[name], x.clone())
            if not isinstance(want, torch.Tensor):
                assert want is got or not isinstance(got, torch.Tensor), (name, x.dtype, want, got)
                continue
            assert isinstance(got, torch.Tensor), (name, got)
            assert got.dtype == want.dtype and got.shape == want.shape, name
            # (An empty array's strides are NumPy's business: no element is laid out.)
            # (Nor the layout of a running extreme of a non-contiguous array, which NumPy keeps and torch does not:
            # the documented exception.)
            assert got.stride() == want.stride() or want.numel() == 0 \
                or name.startswith("running") and not x.is_contiguous(), (name, got.stride(), want.stride())
            assert torch.equal(got.isnan(), want.isnan()) if want.is_floating_point() else True
            assert torch.equal(torch.nan_to_num(got, 0.0), torch.nan_to_num(want, 0.0)), name
            assert not got.requires_grad
        # Memory: where the original shares the tensor's memory, so does the rewrite; where it copies, it copies.
        x = torch.randn(2, 3, 4, 5)
        shares = before[name](x).data_ptr() in range(x.data_ptr(), x.data_ptr() + x.numel() * 4)
        assert (after[name](x).data_ptr() in range(x.data_ptr(), x.data_ptr() + x.numel() * 4)) == shares, name
    grad = torch.randn(2, 3, 4, 5, requires_grad=True)  # the assumption: the original raises there
    with pytest.raises(RuntimeError):
        before["flip_copy"](grad)
    assert torch.equal(after["flip_copy"](grad.detach()), torch.flip(grad.detach(), (3,)))


TTA = HEADER + '''class FlipAverage(torch.nn.Module):
    """Test-time augmentation: the scores of the image and of its mirror image, averaged."""

    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x):
        flipped = torch.from_numpy(np.flip(x.cpu().numpy(), axis=3).copy())
        back = torch.from_numpy(np.flip(self.conv(flipped).cpu().detach().numpy(), axis=3).copy())
        return (self.conv(x) + back) / 2
'''


def test_the_rewritten_flip_follows_the_input_in_the_exported_graph(tmp_path) -> None:
    after_source = rewrite(TTA, select=("TRT394",), unsafe=True)
    assert "flipped = torch.flip(x.cpu(), (3,)).contiguous()" in after_source
    assert "back = torch.flip(self.conv(flipped).cpu().detach(), (3,)).contiguous()" in after_source
    torch.manual_seed(0)
    before = import_source(TTA, tmp_path)["FlipAverage"]().eval()
    after = import_source(after_source, tmp_path)["FlipAverage"]()
    after.load_state_dict(before.state_dict())
    graphs = {}
    for name, model in (("before", before), ("after", after)):
        buffer = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.rand(1, 3, 8, 8),), buffer, dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {0: "batch", 2: "height", 3: "width"}}, opset_version=17)
        graphs[name] = ort.InferenceSession(buffer.getvalue())
    for shape in [(1, 3, 8, 8), (2, 3, 8, 8), (1, 3, 6, 10)]:
        x = torch.rand(shape)
        with torch.no_grad():
            want = before(x)
            assert torch.equal(after(x), want)
        got = graphs["after"].run(None, {"x": x.numpy()})[0]
        assert np.allclose(got, want.numpy(), atol=1e-5)
        if shape != (1, 3, 8, 8):  # the original's graph adds the example's mirror image to every input
            try:
                baked = graphs["before"].run(None, {"x": x.numpy()})[0]
                assert baked.shape != tuple(want.shape) or not np.allclose(baked, want.numpy(), atol=1e-3)
            except Exception:  # noqa: BLE001 - a baked shape may also stop ONNX Runtime: wrong either way
                pass
