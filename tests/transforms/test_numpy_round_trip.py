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
    # NumPy's flip written as a reversed slice (HRNet-Semantic-Segmentation's test-time flip of the scores,
    # lib/datasets/base_dataset.py:215-216, `flip_pred[:, :, :, ::-1].copy()`; the same in one expression elsewhere)
    "slice_reversed": ("torch.from_numpy(x.cpu().numpy()[:, :, :, ::-1].copy())",
                       "torch.flip(x.cpu(), (3,)).contiguous()"),
    "slice_two_axes": ("torch.tensor(x.detach().numpy()[:, :, ::-1, ::-1].copy())",
                       "torch.flip(x.detach(), (2, 3)).contiguous()"),
    "slice_after_ellipsis": ("torch.as_tensor(x.numpy()[..., ::-1].copy())", "torch.flip(x, (-1,)).contiguous()"),
    "slice_before_ellipsis": ("torch.from_numpy(np.copy(x.numpy()[::-1, ...]))", "torch.flip(x, (0,))"),
    "slice_of_a_view": ("torch.from_numpy(np.transpose(x.numpy(), (0, 2, 3, 1))[:, ::-1].copy())",
                        "torch.flip(x.permute(0, 2, 3, 1), (1,)).contiguous()"),
    # `np.array(a)`, NumPy's copy in the order of a's strides (as `np.copy`), and the legacy constructor
    # `torch.Tensor`, which shares an array of the default dtype and converts any other (AdaBins' flip, infer.py:110)
    "legacy_constructor_flip": ("torch.Tensor(np.array(x.cpu().numpy())[..., ::-1].copy())",
                                "torch.flip(x.cpu().clone(), (-1,)).contiguous().to(torch.get_default_dtype())"),
    "legacy_constructor_shared": ("torch.Tensor(x.numpy())", "x.detach().to(torch.get_default_dtype())"),
    "np_array_of_view": ("torch.from_numpy(np.array(np.transpose(x.numpy(), (3, 0, 1, 2))))",
                         "x.permute(3, 0, 1, 2).clone()"),
}
LEFT = [
    "torch.from_numpy(np.flip(x.numpy(), axis=3))",  # negative strides: torch raises, and the original
    "torch.from_numpy(np.flip(x.numpy()).copy())",  # no axis
    "torch.from_numpy(np.array(x.numpy(), dtype=np.float64))",  # another argument to `np.array`
    "torch.Tensor(x.numpy()[:, ::-1])",  # negative strides: the legacy constructor raises too
    "torch.from_numpy(np.round(x.numpy()))",  # a step with no entry
    "torch.tensor(np.flip(x.numpy(), 3).copy(), dtype=torch.float64)",  # another argument
    "torch.from_numpy(np.maximum.accumulate(x.numpy(), axis=(1, 2)))",  # NumPy refuses a tuple there
    "torch.from_numpy(x.numpy(force=True))",  # an argument to `.numpy()`
    "torch.from_numpy(x.numpy()[:, ::-1])",  # a reversed slice taken back without a copy: negative strides
    "torch.from_numpy(x.numpy()[:, ::-2].copy())",  # another step
    "torch.from_numpy(x.numpy()[0, ::-1].copy())",  # an index: another shape
    "torch.from_numpy(x.numpy()[1:, ::-1].copy())",  # a bound
    "torch.from_numpy(x.numpy()[:, :].copy())",  # nothing reversed
    "torch.from_numpy(x.numpy()[::-1, ..., ::-1].copy())",  # `...` between: the axes may be one (NumPy raises)
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
            # (Nor the stride of an axis of size 1, which no element steps along: a C-order copy of new memory is
            # torch's `contiguous`, which keeps the one its input had; NumPy's copy sets its own. The documented
            # exception; a flip of a transposed view with such an axis shows it.)
            unit = all(g == w or n == 1 for g, w, n in zip(got.stride(), want.stride(), want.shape))
            assert got.stride() == want.stride() or want.numel() == 0 or unit and name.endswith("of_a_view") \
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


# The round trip split over two statements through a name: name -> (the function's body on `x`, its rewrite).
SPLIT = {
    # Simple Baselines' flip test (microsoft/human-pose-estimation.pytorch, lib/core/function.py:114-115)
    "rebound": ("a = np.flip(x.cpu().numpy(), 3).copy()\n    a = torch.from_numpy(a).float()\n    return a",
                "a = torch.flip(x.cpu(), (3,)).contiguous()\n    a = a.float()\n    return a"),
    # HRNet-Semantic-Segmentation's (lib/datasets/base_dataset.py:203-204 and 215-216)
    "read_once": ("a = x.numpy()[:, :, :, ::-1]\n    b = torch.from_numpy(a.copy()) * 2\n    return b",
                  "a = torch.flip(x, (3,))\n    b = a.contiguous() * 2\n    return b"),
    "copied_then_sliced": ("a = x.cpu().numpy().copy()\n    a = torch.from_numpy(\n        a[:, :, :, ::-1].copy())\n"
                           "    return a",
                           "a = x.cpu().clone(memory_format=torch.contiguous_format)\n"
                           "    a = torch.flip(a, (3,)).contiguous()\n    return a"),
    "shared_view": ("a = np.transpose(x.numpy(), (0, 2, 1, 3))\n    b = torch.as_tensor(a)\n    return b",
                    "a = x.detach().permute(0, 2, 1, 3)\n    b = a\n    return b"),
    "copied_view": ("a = x.numpy().transpose(3, 2, 1, 0)\n    b = torch.tensor(a)\n    return b",
                    "a = x.detach().permute(3, 2, 1, 0)\n    b = a.clone()\n    return b"),
    "own_name": ("x = np.flip(x.numpy(), (2, 3)).copy()\n    x = torch.as_tensor(x)\n    return x",
                 "x = torch.flip(x, (2, 3)).contiguous()\n    x = x\n    return x"),
}
SPLIT_LEFT = [
    "a = x.numpy()[:, :, :, ::-1]\n    b = torch.from_numpy(a.copy())\n    return b, a.sum()",  # the array read after
    "a = x.numpy()[:, ::-1]\n    a = torch.from_numpy(a)\n    return a",  # negative strides: the original raises
    "a = np.flip(x.numpy(), 3).copy()\n    y = x + 1\n    a = torch.from_numpy(a)\n    return a",  # not consecutive
    "a = x.numpy().copy()\n    b = torch.from_numpy(a)\n    a[0] = 0\n    return b",  # written through afterwards
    "a = x.numpy().copy()\n    b = torch.from_numpy(a) + torch.from_numpy(a)\n    return b",  # read twice
    "a = x.numpy().copy()\n    a = [torch.tensor(a) for _ in range(2)]\n    return a[0]",  # a copy per turn
]


def _split_program(bodies: dict[str, str]) -> str:
    return HEADER + "".join(f"def {name}(x):\n    {body}\n\n\n" for name, body in bodies.items())


def test_the_split_round_trip_is_rewritten_where_the_array_does_not_escape(tmp_path) -> None:
    source = _split_program({name: body for name, (body, _) in SPLIT.items()})
    assert rules_found(source, select=("TRT394",)) == ["TRT394"] * len(SPLIT)
    assert rewrite(source, select=("TRT394",)) == source
    after = rewrite(source, select=("TRT394",), unsafe=True)
    for name, (_, text) in SPLIT.items():
        assert f"def {name}(x):\n    {text}\n" in after, (name, after)
    assert rewrite(after, select=("TRT394",), unsafe=True) == after
    left = _split_program({f"left_{i}": body for i, body in enumerate(SPLIT_LEFT)})
    assert rules_found(left, select=("TRT394",)) == []
    before, rewritten = import_source(source, tmp_path), import_source(after, tmp_path)
    for name in SPLIT:
        for x in _inputs():
            want, got = _outcome(before[name], x.clone()), _outcome(rewritten[name], x.clone())
            if not isinstance(want, torch.Tensor):
                assert want is got or not isinstance(got, torch.Tensor), (name, x.dtype, want, got)
                continue
            assert isinstance(got, torch.Tensor) and got.dtype == want.dtype and got.shape == want.shape, name
            unit = all(g == w or n == 1 for g, w, n in zip(got.stride(), want.stride(), want.shape))
            assert got.stride() == want.stride() or want.numel() == 0 or unit, (name, got.stride(), want.stride())
            assert torch.equal(torch.nan_to_num(got, 0.0), torch.nan_to_num(want, 0.0)), name
            assert torch.equal(got.isnan(), want.isnan()) if want.is_floating_point() else True
        x = torch.randn(2, 3, 4, 5)
        shares = before[name](x).data_ptr() in range(x.data_ptr(), x.data_ptr() + x.numel() * 4)
        assert (rewritten[name](x).data_ptr() in range(x.data_ptr(), x.data_ptr() + x.numel() * 4)) == shares, name


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
