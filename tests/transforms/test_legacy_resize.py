"""TRT399: the deprecated out-of-place `Tensor.resize`, a reshape while exporting.

lafhterlearn's handwriting encoder (`output.transpose(1, 3).resize(batch_size, w, h * f_maps)`, lafhterlearn 0.7.1
models.py:33, in our own words) and a permuted copy of it: the rewrite's text,
eager values, gradients and warnings unchanged, the original's TorchScript export stopping, the rewritten graph equal
to eager mode in ONNX Runtime at other batches and widths (zeros, negatives, large values), and a PIL-style or NumPy
`resize` left alone by the helper.
"""

from __future__ import annotations

import io
import warnings

import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import assert_same_run, import_source, run_once
from support import rewrite, rules_found

from trtcodemod.helpers.reshaping import _trt_resize

RULE = ("TRT399",)

SOURCE = '''
import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)

    def forward(self, x):
        output = self.conv(x)
        batch_size, f_maps, h, w = output.size()
        flat = output.transpose(1, 3).resize(batch_size, w, h * f_maps)
        return flat + output.permute(0, 3, 2, 1).resize(batch_size, w, h * f_maps).flip(2)
'''


def _inputs(batch: int, width: int, seed: int, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(batch, 1, 4, width, generator=torch.Generator().manual_seed(seed)) * scale


def test_each_resize_becomes_the_helper() -> None:
    assert rules_found(SOURCE, select=RULE) == ["TRT399"] * 2
    after = rewrite(SOURCE, select=RULE)
    assert "flat = _trt_resize(output.transpose(1, 3), [batch_size, w, h * f_maps])" in after
    assert "flat + _trt_resize(output.permute(0, 3, 2, 1), [batch_size, w, h * f_maps]).flip(2)" in after


def test_eager_values_gradients_and_warnings_are_unchanged(tmp_path) -> None:
    torch.manual_seed(0)
    before = import_source(SOURCE, tmp_path)["Encoder"]()
    after = import_source(rewrite(SOURCE, select=RULE), tmp_path)["Encoder"]()
    after.load_state_dict(before.state_dict())
    for x in (_inputs(2, 6, 1), torch.zeros(1, 1, 4, 3), -_inputs(3, 5, 2), _inputs(0, 4, 3), _inputs(1, 7, 4, 1e4)):
        assert_same_run(run_once(before, [x.requires_grad_()]), run_once(after, [x.clone().requires_grad_()]))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        after(_inputs(1, 3, 5))
    assert any("deprecated" in str(w.message) for w in seen)  # eager mode still calls `resize` itself


def _export(model: torch.nn.Module) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (_inputs(2, 6, 0),), buffer, dynamo=False, opset_version=17, input_names=["x"],
                          dynamic_axes={"x": {0: "batch", 3: "width"}})
    return buffer.getvalue()


def test_the_original_stops_the_export_and_the_rewritten_graph_follows_the_sizes(tmp_path) -> None:
    torch.manual_seed(0)
    original = import_source(SOURCE, tmp_path)["Encoder"]().eval()
    with pytest.raises(Exception):
        _export(original)
    rewritten = import_source(rewrite(SOURCE, select=RULE), tmp_path)["Encoder"]().eval()
    rewritten.load_state_dict(original.state_dict())
    session = ort.InferenceSession(_export(rewritten), providers=["CPUExecutionProvider"])
    for x in (_inputs(3, 9, 7), torch.zeros(1, 1, 4, 2), -_inputs(2, 5, 8), _inputs(1, 6, 9, 100.0)):
        with torch.no_grad():
            want = original(x)
        torch.testing.assert_close(torch.from_numpy(session.run(None, {"x": x.numpy()})[0]), want)


def test_what_is_not_a_tensor_keeps_its_own_resize() -> None:
    array = np.arange(6.0)
    assert _trt_resize(array, [2, 3]) is None and array.shape == (2, 3)  # NumPy's resize is in place

    class Image:
        def resize(self, size):
            return ("resized", size)

    assert _trt_resize(Image(), [(4, 5)]) == ("resized", (4, 5))
    with pytest.raises(RuntimeError):  # a count that differs raises, as `resize` does
        _trt_resize(torch.zeros(2, 3), [4, 2])


def test_a_scripted_caller_still_compiles_and_resizes_the_same(tmp_path) -> None:
    # the original `x.resize(b, w, n)` scripts; the helper, its sizes one list, does too
    torch.manual_seed(0)
    before = torch.jit.script(import_source(SOURCE, tmp_path)["Encoder"]())
    after_module = import_source(rewrite(SOURCE, select=RULE), tmp_path)["Encoder"]()
    after_module.load_state_dict(before.state_dict())
    after = torch.jit.script(after_module)
    for x in (_inputs(2, 6, 1), torch.zeros(1, 1, 4, 3), -_inputs(3, 5, 2)):
        assert torch.equal(before(x), after(x))
