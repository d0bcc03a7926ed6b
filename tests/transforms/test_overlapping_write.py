"""TRT740: a slice written from an overlapping slice of the same tensor gets its source copied first.

The rewrite's text, the forms left alone, and what it changes on real tensors: where the parts overlap, eager
PyTorch raises (an overlap it detects) or copies in the kernel's order (AlphaPose's 4-D heatmaps), while the
exported graph and the rewritten code shift; where they cannot overlap, both forms are the same.
"""

from __future__ import annotations

import io
import textwrap
import warnings
from pathlib import Path

import onnxruntime as ort
import pytest
import torch
from safety import assert_same_toolchain_outcomes, import_source
from support import rewrite, rules_found

HEADER = "import numpy as np\nimport torch\n\n"

FORMS = {
    "alphapose_4d": ("out = h.flip(dims=(3,))\nout[:, :, :, 1:] = out[:, :, :, 0:-1]\n",
                     "out[:, :, :, 1:] = out[:, :, :, 0:-1].clone()"),
    "alphapose_3d": ("out = h[0].flip(dims=(2,))\nout[:, :, 1:] = out[:, :, 0:-1]\n",
                     "out[:, :, 1:] = out[:, :, 0:-1].clone()"),
    "ellipsis": ("y = h.clone()\ny[..., 1:] = y[..., :-1]\n", "y[..., 1:] = y[..., :-1].clone()"),
    "shift_left": ("buf = torch.zeros_like(h)\nbuf[:, :-1] = buf[:, 1:]\n", "buf[:, :-1] = buf[:, 1:].clone()"),
    "from_the_end": ("y = h.clone()\ny[..., -3:] = y[..., -4:-1]\n", "y[..., -3:] = y[..., -4:-1].clone()"),
    "one_row": ("y = h.sigmoid()\ny[0, 1:] = y[0, :-1]\n", "y[0, 1:] = y[0, :-1].clone()"),
}

LEFT_ALONE = {
    "numpy": "y = np.zeros((2, 5))\ny[:, 1:] = y[:, :-1]\n",
    "already_copied": "y = h.clone()\ny[:, 1:] = y[:, :-1].clone()\n",
    "disjoint_slices": "y = h.clone()\ny[:, :2] = y[:, 2:4]\n",
    "disjoint_ends": "y = h.clone()\ny[..., -2:] = y[..., :-2]\n",
    "disjoint_rows": "y = h.clone()\ny[0] = y[1]\n",
    "same_part": "y = h.clone()\ny[:, 1:] = y[:, 1:]\n",
    "tensor_index": "y = h.clone()\ny[:, idx] = y[:, idx + 1]\n",
    "strided": "y = h.clone()\ny[..., ::2] = y[..., 1::2]\n",
    "two_tensors": "y = h.clone()\nz = h.clone()\ny[:, 1:] = z[:, :-1]\n",
    "not_visibly_a_tensor": "y = make(h)\ny[:, 1:] = y[:, :-1]\n",
    "new_axis": "y = h.clone()\ny[:, None, 1:] = y[:, None, :-1]\n",
}


def _function(body: str) -> str:
    return HEADER + "def f(h: torch.Tensor, idx=0, make=None):\n" + textwrap.indent(body, "    ") + "    return 0\n"


@pytest.mark.parametrize("name", list(FORMS))
def test_the_source_is_copied_first(name: str) -> None:
    body, line = FORMS[name]
    source = _function(body)
    assert rules_found(source, select=("TRT740",)) == ["TRT740"]
    assert rewrite(source, select=("TRT740",)) == source  # unsafe: fixed only with --unsafe
    new = rewrite(source, select=("TRT740",), unsafe=True)
    assert line in new and new.count(".clone()") == source.count(".clone()") + 1, new
    assert rewrite(new, select=("TRT740",), unsafe=True) == new


@pytest.mark.parametrize("name", list(LEFT_ALONE))
def test_left_alone(name: str) -> None:
    source = _function(LEFT_ALONE[name])
    assert rewrite(source, select=("TRT740",), unsafe=True) == source


SHIFT = """\
import torch


class Shift(torch.nn.Module):
    def forward(self, h: torch.Tensor) -> torch.Tensor:
        out = h.flip(dims=(3,)) * 2.0
        out[:, :, :, 1:] = out[:, :, :, 0:-1]
        return out
"""

#: What the shift means, written without an overlap: the reference for both forms.
MEANT = """\
import torch


class Meant(torch.nn.Module):
    def forward(self, h: torch.Tensor) -> torch.Tensor:
        source = h.flip(dims=(3,)) * 2.0
        out = source.clone()
        out[:, :, :, 1:] = source[:, :, :, 0:-1]
        return out
"""


@pytest.fixture(scope="module")
def shifts(tmp_path_factory) -> tuple[type, type, type]:
    folder = tmp_path_factory.mktemp("trt740")
    new = rewrite(SHIFT, select=("TRT740",), unsafe=True)
    assert "out[:, :, :, 0:-1].clone()" in new
    return (import_source(SHIFT, folder)["Shift"], import_source(new, folder)["Shift"],
            import_source(MEANT, folder)["Meant"])


def _equal(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and a.dtype == b.dtype and torch.equal(a.nan_to_num(), b.nan_to_num()) \
        and torch.equal(a.isnan(), b.isnan())


def test_where_the_parts_overlap_eager_mode_was_undefined_and_the_rewrite_shifts(shifts) -> None:
    original, rewritten, meant = (cls() for cls in shifts)
    h = torch.randn(2, 17, 48, 32, generator=torch.Generator().manual_seed(0))
    assert _equal(rewritten(h), meant(h))
    try:
        smeared = original(h)
    except RuntimeError as error:  # a torch that detects this overlap
        assert "memory location" in str(error)
    else:
        assert not _equal(smeared, meant(h))  # later columns read columns the copy already wrote
    # A contiguous last axis of one row: torch detects the overlap and raises; the rewrite shifts.
    flat = torch.arange(6.0).reshape(1, 1, 1, 6)
    with pytest.raises(RuntimeError, match="memory location"):
        original(flat)
    assert rewritten(flat).flatten().tolist() == [10.0, 10.0, 8.0, 6.0, 4.0, 2.0]


@pytest.mark.parametrize("width", [0, 1, 2])
def test_where_the_axis_is_too_short_to_overlap_both_forms_are_the_same(shifts, width: int) -> None:
    original, rewritten, meant = (cls() for cls in shifts)
    h = torch.tensor([0.0, -0.0, -3.5, float("inf"), float("-inf"), float("nan")]).repeat(8)[: 2 * 3 * 4 * width]
    h = h.reshape(2, 3, 4, width)
    assert _equal(original(h), rewritten(h)) and _equal(rewritten(h), meant(h))


def test_edge_values_and_gradients_follow_the_shift(shifts) -> None:
    _, rewritten, meant = (cls() for cls in shifts)
    h = torch.tensor([0.0, -0.0, -2.0, 5.0, float("inf"), float("-inf"), float("nan"), 1e30]).repeat(12)
    h = h.reshape(2, 3, 2, 8)
    assert _equal(rewritten(h), meant(h))
    a, b = h.nan_to_num().requires_grad_(), h.nan_to_num().requires_grad_()
    weights = torch.linspace(-1.0, 1.0, h.numel()).reshape(h.shape)
    (rewritten(a) * weights).sum().backward()
    (meant(b) * weights).sum().backward()
    assert torch.equal(a.grad, b.grad)


def test_every_toolchain_computes_the_shift_the_rewrite_makes(shifts, tmp_path: Path) -> None:
    _, rewritten, meant = shifts
    for h in (torch.randn(2, 3, 5, 9), torch.zeros(1, 2, 3, 4), torch.full((1, 1, 2, 6), float("nan"))):
        # fx cannot trace a subscript write at all (a `Proxy` takes no item assignment): the same error both ways.
        assert_same_toolchain_outcomes(meant, rewritten, [h], tmp_path, original_may_fail=True)


@pytest.mark.parametrize("dynamo", [False, True], ids=["torchscript", "dynamo"])
def test_the_original_graph_already_shifts_so_only_the_rewrite_matches_it(shifts, dynamo: bool) -> None:
    original, rewritten, _ = (cls() for cls in shifts)
    example = torch.randn(2, 17, 12, 16, generator=torch.Generator().manual_seed(1))
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        axes = {"h": {0: "batch", 2: "height", 3: "width"}}
        if dynamo:
            torch.onnx.export(original, (example,), buffer, input_names=["h"], dynamo=True,
                              dynamic_shapes={"h": {0: torch.export.Dim("batch"), 2: torch.export.Dim("height"),
                                                    3: torch.export.Dim("width")}})
        else:
            torch.onnx.export(original, (example,), buffer, input_names=["h"], dynamic_axes=axes, dynamo=False)
    session = ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])
    for shape in ((2, 17, 12, 16), (3, 17, 48, 32)):
        h = torch.randn(*shape, generator=torch.Generator().manual_seed(2))
        [graph] = session.run(None, {"h": h.numpy()})
        torch.testing.assert_close(torch.from_numpy(graph), rewritten(h), rtol=0, atol=0)
