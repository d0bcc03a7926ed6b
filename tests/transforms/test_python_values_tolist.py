"""TRT702's unsafe rewrite of a ``.tolist()`` whose list a call reads as numbers (pad widths, sizes).

``F.pad(x, pad.tolist())`` becomes ``F.pad(x, _trt_tolist(pad))``: eager code keeps ``tolist``; while
a tracer records the model the helper gives the 1-D tensor's elements as 0-d tensors, which the call
reads as the numbers, and the TorchScript exporter's graph computes them from the input. Shown as a
rewrite, then run before and after on real tensors (other sizes, zeros, negatives, inf/NaN, an empty
batch, a crop past the input that raises in both) and compared; the export follows the sizes.
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
from support import rewrite

from trtcodemod.helpers.tracing import _trt_tolist

HEAD = "import torch\nimport torch.nn.functional as F\nfrom torch import nn\n\n\n"

# The crop of a U-Net's skip connection to the upsampled map (the form of unet/decoding.py's
# center_crop in fepegar/unet 0.8.1, which zoo 24 runs), in our own words.
CROP = HEAD + '''\
class Crop(nn.Module):
    def forward(self, skip, x):
        crop = torch.tensor(skip.shape)[2:] - torch.tensor(x.shape)[2:]
        half = (crop / 2).int()
        pad = -torch.stack((half, half)).t().flatten()
        return torch.cat((F.pad(skip, pad.tolist()), x), 1)
'''

#: body → the rewritten body (each a list only read as numbers by one call)
TAKEN = {
    "return F.pad(x, p.tolist())\n": "return F.pad(x, _trt_tolist(p))\n",
    "w = p.tolist()\n        return F.pad(x, w, mode='constant')\n":
        "w = _trt_tolist(p)\n        return F.pad(x, w, mode='constant')\n",
    "return F.pad(x, pad=(-p).tolist())\n": "return F.pad(x, pad=_trt_tolist(-p))\n",
    "return F.interpolate(x, size=p[:2].tolist(), mode='bilinear')\n":
        "return F.interpolate(x, size=_trt_tolist(p[:2]), mode='bilinear')\n",
    "return F.interpolate(x, p.long().tolist())\n": "return F.interpolate(x, _trt_tolist(p.long()))\n",
    "return x.view(p.tolist())\n": "return x.view(_trt_tolist(p))\n",
    "return torch.reshape(x, p.tolist())\n": "return torch.reshape(x, _trt_tolist(p))\n",
    "return x.new_zeros(p.tolist(), dtype=torch.int8)\n": "return x.new_zeros(_trt_tolist(p), dtype=torch.int8)\n",
    "return torch.zeros(p.tolist()) + x\n": "return torch.zeros(_trt_tolist(p)) + x\n",
    # copied into a tuple first (pytracking's ltr/data/processing_utils.py:231 resizes a mask to
    # `tuple(output_sz.flip(0).long().tolist())`, visionml/pytracking@7eb9e74b)
    "return F.interpolate(x, tuple(p.flip(0).tolist()))\n": "return F.interpolate(x, tuple(_trt_tolist(p.flip(0))))\n",
}

#: bodies whose list is read otherwise too (or not as one list of numbers): reported, not rewritten
KEPT = [
    "w = p.tolist()\n        print(len(w))\n        return F.pad(x, w)\n",  # len() sees 0-d tensors
    "w = p.tolist()\n        return F.pad(x, w[:2])\n",  # a slice of the list: a list method
    "w = p.tolist()\n        w = [0, 0]\n        return F.pad(x, w)\n",  # bound twice
    "w: List[int] = p.tolist()\n        return F.pad(x, w)\n",  # annotated: what scripting needs
    "return x.view(*p.tolist())\n",  # starred
    "return x.view(p.tolist(), 3)\n",  # not the one list
    "return torch.full(p.tolist(), 1.0)\n",  # not a function known to read its sizes so
    "return F.pad(x, [0, 0] + p.tolist())\n",  # concatenated first
    "return F.interpolate(x, scale_factor=p.tolist())\n",  # scale factors are floats, not sizes
    "return F.pad(x, sorted(p.tolist()))\n",  # another function of the list
    "tuple = list\n        return F.pad(x, tuple(p.tolist()))\n",  # not the builtin
]


def _module(body: str) -> str:
    return HEAD + f"class M(nn.Module):\n    def forward(self, x, p):\n        {body}"


def test_the_rewrite_takes_a_list_read_as_numbers() -> None:
    for body, want in TAKEN.items():
        after = rewrite(_module(body), unsafe=True, select=("TRT702",))
        assert _module(want).split("class M")[1] in after, (body, after)
        assert "def _trt_tolist(values):" in after and "def _trt_tracing()" in after
        assert rewrite(_module(body), select=("TRT702",)) == _module(body)  # unsafe: not without --unsafe


def test_the_rewrite_leaves_a_list_read_otherwise() -> None:
    for body in KEPT:
        source = _module(body).replace("from torch import nn\n", "from torch import nn\nfrom typing import List\n")
        assert rewrite(source, unsafe=True, select=("TRT702",)) == source, body


def _crop_pair(tmp_path: Path) -> tuple[torch.nn.Module, torch.nn.Module]:
    after = rewrite(CROP, unsafe=True, select=("TRT702",))
    assert "return torch.cat((F.pad(skip, _trt_tolist(pad)), x), 1)" in after
    return import_source(CROP, tmp_path)["Crop"](), import_source(after, tmp_path)["Crop"]()


def _special(shape: tuple[int, ...]) -> torch.Tensor:
    values = torch.randn(shape)
    if values.numel() >= 3:
        values.view(-1)[:3] = torch.tensor([float("inf"), float("nan"), float("-inf")])
    return values


SETS = {
    "example": (torch.randn(1, 2, 10, 10), torch.randn(1, 3, 6, 6)),
    "other-sizes": (torch.randn(2, 2, 17, 17), torch.randn(2, 3, 9, 9)),
    "no-crop": (torch.randn(1, 2, 4, 4), torch.randn(1, 3, 4, 4)),
    "zeros": (torch.zeros(1, 2, 8, 8), torch.zeros(1, 3, 4, 4)),
    "negatives": (-torch.rand(1, 2, 8, 8) - 1, -torch.rand(1, 3, 2, 2)),
    "inf-nan": (_special((1, 2, 9, 9)), _special((1, 3, 5, 5))),
    "empty-batch": (torch.randn(0, 2, 8, 8), torch.randn(0, 3, 4, 4)),
    "skip-smaller": (torch.randn(1, 2, 4, 4), torch.randn(1, 3, 8, 8)),  # a positive pad: cat sizes agree
    "odd-3d": (torch.randn(1, 2, 7, 9, 9), torch.randn(1, 3, 4, 6, 6)),  # 3-D maps
    "wrong-channels-dim": (torch.randn(1, 2, 8), torch.randn(1, 3, 9, 9)),  # raises in both
}


@pytest.mark.parametrize("label", list(SETS))
def test_eager_runs_as_the_original(tmp_path: Path, label: str) -> None:
    before, after = _crop_pair(tmp_path)
    inputs = list(SETS[label])
    graded = [t.clone().requires_grad_() for t in inputs]
    for given in (inputs, graded):
        assert_same_run(run_once(before, given), run_once(after, given), context=label)


def _export(model: torch.nn.Module) -> ort.InferenceSession:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(model, SETS["example"], buffer, dynamo=False, input_names=["skip", "x"], opset_version=17,
                          dynamic_axes={"skip": {0: "n", 2: "h", 3: "w"}, "x": {0: "n", 2: "h2", 3: "w2"}})
    return ort.InferenceSession(buffer.getvalue())


def _matches(session: ort.InferenceSession, model: torch.nn.Module, inputs: tuple) -> bool:
    want = model(*inputs).numpy()
    try:
        [got] = session.run(None, {"skip": inputs[0].numpy(), "x": inputs[1].numpy()})
    except Exception:  # noqa: BLE001 - a graph that cannot run on these inputs does not match
        return False
    return got.shape == want.shape and np.allclose(got, want, equal_nan=True)


def test_the_export_follows_the_sizes(tmp_path: Path) -> None:
    """The original's graph pads by the example's widths (wrong, or failing, at every other size);
    the rewrite's computes them: the TRT716 half of the fix (`torch.tensor(x.shape)`) is done here by
    tracing with the shapes' sizes, which `torch.tensor` of a traced shape already records."""
    source = CROP.replace("torch.tensor(skip.shape)[2:] - torch.tensor(x.shape)[2:]",
                          "torch._shape_as_tensor(skip)[2:] - torch._shape_as_tensor(x)[2:]")
    before = import_source(source, tmp_path)["Crop"]()
    after = import_source(rewrite(source, unsafe=True, select=("TRT702",)), tmp_path)["Crop"]()
    baked, follows = _export(before), _export(after)
    others = [SETS[k] for k in ("other-sizes", "no-crop", "zeros", "negatives", "inf-nan")]
    assert _matches(baked, before, SETS["example"])
    assert not _matches(baked, before, SETS["other-sizes"]) and not _matches(baked, before, SETS["no-crop"])
    assert all(_matches(follows, before, s) for s in [SETS["example"], *others])


def test_the_helper_is_tolist_outside_a_trace() -> None:
    flat = torch.tensor([3, -1, 0])
    assert _trt_tolist(flat) == [3, -1, 0] and all(type(v) is int for v in _trt_tolist(flat))
    assert _trt_tolist(torch.tensor([[1, 2], [3, 4]])) == [[1, 2], [3, 4]]  # nested: not one list of sizes
    assert _trt_tolist(torch.tensor(5)) == 5  # a 0-d tensor's tolist is its number
    assert _trt_tolist(torch.tensor([])) == []
    assert _trt_tolist(np.array([1, 2])) == [1, 2]  # anything with tolist
    assert _trt_tolist(torch.tensor([1.5, float("nan")]))[0] == 1.5


def test_the_helper_gives_the_elements_while_tracing() -> None:
    seen: list = []

    def probe(x: torch.Tensor) -> torch.Tensor:
        seen.append(_trt_tolist(torch._shape_as_tensor(x)))
        seen.append(_trt_tolist(torch._shape_as_tensor(x).reshape(1, -1)))  # 2-D: tolist as before
        return x.view(seen[0])

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(probe, torch.randn(2, 3), check_trace=False)
    assert [type(v) for v in seen[0]] == [torch.Tensor, torch.Tensor] and seen[1] == [[2, 3]]
    assert traced(torch.randn(4, 5)).shape == (4, 5)


def test_torch_export_takes_the_rewrite_as_the_original(tmp_path: Path) -> None:
    """Under torch.export (the dynamo exporter) the elements are read as the numbers they hold, as the
    list was: pad widths from the input's values export and run alike before and after."""
    source = HEAD + "class M(nn.Module):\n    def forward(self, x, p):\n        return F.pad(x, p.tolist())\n"
    before = import_source(source, tmp_path)["M"]()
    after = import_source(rewrite(source, unsafe=True, select=("TRT702",)), tmp_path)["M"]()
    example = (torch.randn(1, 2, 5, 5), torch.tensor([1, 2, 0, -1]))
    for model in (before, after):
        program = torch.export.export(model, example)
        for widths in ([1, 2, 0, -1], [0, 0, 3, 1]):
            inputs = (example[0], torch.tensor(widths))
            torch.testing.assert_close(program.module()(*inputs), before(*inputs))
