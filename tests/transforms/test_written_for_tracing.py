"""Code its author wrote for the trace keeps its Python sizes: kornia's ``filter2d`` reads the
channel count as an int only while tracing (``int(c) if torch.jit.is_tracing() else c``,
kornia 0.9 ``filters/filter.py:182``), because the convolution's ``groups`` must be a constant
in ONNX. TRT712 made it a traced size, and the export then failed ("convolution for kernel of
unknown shape"), in the fifth and sixth zoos' kornia models."""

from __future__ import annotations

import io
import warnings

import torch
import torch.nn.functional as F

from trtcodemod.engine import Options, check_source

KORNIA_FORM = """\
import torch
import torch.nn.functional as F


def filter2d(input: torch.Tensor, kernel: torch.Tensor) -> torch.Tensor:
    b, c, h, w = input.shape
    tmp_kernel = kernel[:, None, ...].expand(-1, int(c) if torch.jit.is_tracing() else c, -1, -1)
    if torch.jit.is_tracing():
        groups = int(c)
    else:
        groups = c
    n = int(h)
    y = torch.atan2(input, input) if torch.jit.is_tracing() else input
    return F.conv2d(y, tmp_kernel.reshape(-1, 1, 3, 3), groups=groups, padding=1)[..., :n, :]
"""


def _lines(rule: str, source: str = KORNIA_FORM) -> list[int]:
    found = check_source(source.encode(), "filter.py", Options(select=(rule,)))
    return sorted(f.line for f in found)


def test_sizes_made_ints_for_the_trace_are_left_alone() -> None:
    assert _lines("TRT712") == [12]  # `n = int(h)` runs in eager mode too: still found


def test_the_same_code_outside_a_tracing_branch_is_found() -> None:
    plain = KORNIA_FORM.replace("int(c) if torch.jit.is_tracing() else c", "int(c)").replace(
        "if torch.jit.is_tracing():", "if c > 0:")
    assert _lines("TRT712", plain) == [7, 9, 12]
    training = KORNIA_FORM.replace("torch.jit.is_tracing()", "not self.training")
    assert 7 in _lines("TRT712", training)  # true while exporting, but not written for the trace


def test_operators_in_a_tracing_branch_are_still_found() -> None:
    """An op the trace records is in the graph whoever wrote it: only sizes are the author's choice."""
    assert _lines("TRT301") == [13]


def test_the_form_left_alone_exports_and_computes_the_blur() -> None:
    """Left as its author wrote it, the form exports with a dynamic batch and size."""
    namespace: dict = {}
    exec(compile(KORNIA_FORM, "filter.py", "exec"), namespace)
    filter2d = namespace["filter2d"]

    class Blur(torch.nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return filter2d(x, torch.ones(1, 3, 3) / 9)

    x = torch.rand(2, 3, 8, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(Blur(), (x,), io.BytesIO(), dynamo=False, input_names=["x"],
                          dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
    assert torch.equal(Blur()(x)[..., :8, :], F.conv2d(x, (torch.ones(1, 3, 3) / 9)[:, None].expand(-1, 3, -1, -1)
                                                       .reshape(-1, 1, 3, 3), groups=3, padding=1))
