"""TRT717: a pad, crop or resize done only when a size asks for it becomes unconditional.

The rewrite is shown as text for each form (pad with the amounts times the condition, with
``or``/``not`` written ``|``/``^ True``; a crop; a resize; the ``else: y = x`` form), the forms it
must leave alone are listed, and each rewritten function is run against the original on real
tensors at sizes that take each branch, with zeros, negatives and inf/NaN values, compared bit
for bit (values, dtype, shape).
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from safety import import_source
from support import assert_same, rewrite, rules_found

HEADER = "import torch\nimport torch.nn.functional as F\n\n\n"

CASES = {  # name → (original function, a fragment of the rewrite)
    "pad_to_multiple": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if w % 4 != 0:
        x = F.pad(x, (0, 4 - w % 4))
    return x
''', "x = F.pad(x, (0, (4 - w % 4) * (w % 4 != 0)))"),
    "pad_either_side": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    pad_h = (4 - h % 4) % 4
    pad_w = (4 - w % 4) % 4
    if pad_h > 0 or pad_w > 0:
        x = F.pad(x, (0, pad_w, 0, pad_h), mode="reflect")
    return x
''', 'x = F.pad(x, (0, (pad_w) * ((pad_h > 0) | (pad_w > 0)), 0, (pad_h) * ((pad_h > 0) | (pad_w > 0))), mode="reflect")'),
    "pad_unless_divisible": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if not (h % 2 == 0 and w % 2 == 0):
        x = F.pad(x, [0, w % 2, 0, h % 2])
    return x
''', "x = F.pad(x, [0, (w % 2) * (((h % 2 == 0) & (w % 2 == 0)) ^ True), 0, (h % 2) * (((h % 2 == 0) & (w % 2 == 0)) ^ True)])"),
    "pad_in_else_form": ('''
def f(x: torch.Tensor):
    b, h, w, c = x.shape
    pad_r = (3 - w % 3) % 3
    if pad_r > 0:
        x_pad = F.pad(x, (0, 0, 0, pad_r))
    else:
        x_pad = x
    return x_pad * 2
''', "    x_pad = F.pad(x, (0, 0, 0, (pad_r) * (pad_r > 0)))\n    return x_pad * 2"),
    "comments_kept": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    # pad to whole patches
    if w % 4 != 0:  # only when needed
        # the right edge only
        x = F.pad(x, (0, 4 - w % 4))  # zeros
    return x
''', "    # pad to whole patches\n    # only when needed\n    # the right edge only\n"
        "    x = F.pad(x, (0, (4 - w % 4) * (w % 4 != 0)))  # zeros\n"),
    "crop_back": ('''
def f(x: torch.Tensor):
    b, h, w, c = x.shape
    pad_r = (4 - w % 4) % 4
    y = F.pad(x, (0, 0, 0, pad_r)) + 1
    if pad_r > 0:
        y = y[:, :h, :w, :].contiguous()
    return y
''', "    y = y[:, :h, :w, :].contiguous()\n    return y"),
    "resize_when_changed": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    new_h, new_w = (h + 1) // 2 * 2, (w + 1) // 2 * 2
    if new_h != h or new_w != w:
        x = F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=False)
    return x
''', '    x = F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=False)\n    return x'),
}

#: Cases whose rewrite assumes finite values (a resize to the tensor's own size).
NOT_FINITE = {"resize_when_changed"}

LEFT_ALONE = {
    "a test of tensor values": '''
def f(x: torch.Tensor):
    if x.max() > 0:
        x = F.pad(x, (0, 1))
    return x
''',
    "two statements in the branch": '''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if w % 4 != 0:
        x = F.pad(x, (0, 4 - w % 4))
        x = x * 2
    return x
''',
    "another name resized": '''
def f(x: torch.Tensor, y: torch.Tensor):
    _, _, h, w = x.shape
    if w % 4 != 0:
        x = F.pad(y, (0, 4 - w % 4))
    return x
''',
    "a crop with a step": '''
def f(x: torch.Tensor):
    b, h, w, c = x.shape
    if w % 2 != 0:
        x = x[:, :h, ::2, :]
    return x
''',
    "a resize by a scale factor": '''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if h < 8:
        x = F.interpolate(x, scale_factor=2.0)
    return x
''',
    "an elif chain": '''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if w % 4 != 0:
        x = F.pad(x, (0, 4 - w % 4))
    elif h % 4 != 0:
        x = F.pad(x, (0, 0, 0, 4 - h % 4))
    return x
''',
}


@pytest.mark.parametrize("name", list(LEFT_ALONE))
def test_left_alone(name: str) -> None:
    assert "TRT717" not in rules_found(HEADER + LEFT_ALONE[name])


def _values(shape: tuple[int, ...]) -> list[torch.Tensor]:
    base = torch.randn(shape, generator=torch.Generator().manual_seed(sum(shape)))
    special = base.clone()
    special.view(-1)[:3] = torch.tensor([float("inf"), float("nan"), -0.0])
    return [base, torch.zeros(shape), -base.abs() - 1, special]


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite_and_run(name: str, tmp_path: Path) -> None:
    code, fragment = CASES[name]
    before = HEADER + code.lstrip("\n")
    assert rules_found(before) .count("TRT717") == 1
    after = rewrite(before, unsafe=True, select=("TRT717",))
    assert fragment in after, after
    assert "if " not in after.split("def f", 1)[1]
    f_before, f_after = import_source(before, tmp_path)["f"], import_source(after, tmp_path)["f"]
    # Sizes that take the branch and sizes that do not (4-D NCHW for all but the NHWC crops).
    shapes = [(1, 2, 8, 8), (1, 2, 9, 6), (2, 3, 7, 5), (1, 1, 12, 13)]
    for shape in shapes:
        *finite, special = _values(shape)
        for x in finite:
            assert_same(f_before(x), f_after(x))
        if name in NOT_FINITE:
            # The documented cost: a resize to the same size gives 0 * inf = NaN beside an inf.
            if shape[2] % 2 == 0 and shape[3] % 2 == 0:
                assert torch.isnan(f_after(special)).sum() > torch.isnan(f_before(special)).sum()
        else:
            assert_same(f_before(special), f_after(special))
