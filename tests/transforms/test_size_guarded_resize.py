"""TRT717: a pad, crop, resize or broadcast done only when a size asks for it becomes unconditional.

The rewrite is shown as text for each form (pad with the amounts times the condition, with
``or``/``not`` written ``|``/``== 0``; a crop; a resize; the ``else: y = x`` form), the forms it
must leave alone are listed, and each rewritten function is run against the original on real
tensors at sizes that take each branch, with zeros, negatives and inf/NaN values, compared bit
for bit (values, dtype, shape). An ``if`` that only sets numbers (a Swin window shrunk to a small
axis) becomes a choice the trace keeps: shown, run at axes below, at and above the window, and
exported once to show the graph follows every height where the original's kept the example's.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

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
''', "x = F.pad(x, [0, (w % 2) * (((h % 2 == 0) & (w % 2 == 0)) == 0), 0, (h % 2) * (((h % 2 == 0) & (w % 2 == 0)) == 0)])"),
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
    # Real-CUGAN's crop back to the upscaled size, written on the `if`'s own line
    # (bilibili/ailab@2799af78ef105b414cc4b796c67c8511acdcdf6f Real-CUGAN/upcunet_v3.py:926).
    "crop_back_on_the_if_line": ('''
def f(x: torch.Tensor):
    n, c, h0, w0 = x.shape
    ph = ((h0 - 1) // 2 + 1) * 2
    pw = ((w0 - 1) // 2 + 1) * 2
    x = F.interpolate(F.pad(x, (0, pw - w0, 0, ph - h0)), scale_factor=2.0)
    if (w0 != pw or h0 != ph): x = x[:, :, :h0 * 2, :w0 * 2]  # crop back
    return x
''', "    x = F.interpolate(F.pad(x, (0, pw - w0, 0, ph - h0)), scale_factor=2.0)\n"
     "    x = x[:, :, :h0 * 2, :w0 * 2]  # crop back\n    return x\n"),
    # SpyNet's pyramid (basicsr, mmagic): the upsampled flow is a row or column short at odd sizes;
    # a literal amount: the test chooses it (times the traced bool it would export as a bool).
    "pad_one_row_when_short": ('''
def f(x: torch.Tensor):
    up = F.interpolate(F.avg_pool2d(x, 2), scale_factor=2.0, mode="nearest")
    if up.size(2) != x.size(2):
        up = F.pad(up, [0, 0, 0, 1], mode="replicate")
    if up.size(3) != x.size(3):
        up = F.pad(input=up, pad=[0, 1, 0, 0], mode="replicate")
    return up + x
''', '    up = F.pad(input=up, pad=[0, _trt_size_where(up.size(3) != x.size(3), 1, 0), 0, 0], mode="replicate")\n'
        "    return up + x"),
    # holocron's U-Net decoder (pylocron 0.3.0, holocron/models/segmentation/unet.py:304, zoo 22): the
    # test compares two shape slices and the size is interpolate's second positional argument.
    "resize_to_a_shape_slice": ('''
def f(x: torch.Tensor):
    up = F.interpolate(F.avg_pool2d(x, 2), scale_factor=2.0, mode="nearest")
    if x.shape[-2:] != up.shape[-2:]:
        up = F.interpolate(up, x.shape[-2:], mode="nearest")
    return torch.cat((x, up), dim=1)
''', '    up = F.interpolate(up, x.shape[-2:], mode="nearest")\n    return torch.cat((x, up), dim=1)'),
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
    # transformers' Swin: the amounts in a local bound just before the pad, read nowhere else.
    "pad_amounts_in_a_local": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if w % 4 != 0:
        pad_values = (0, 4 - w % 4)
        x = F.pad(x, pad_values)
    if h % 4 != 0:
        pad_values = (0, 0, 0, 4 - h % 4)
        x = F.pad(x, pad_values)
    return x
''', "    pad_values = (0, (4 - w % 4) * (w % 4 != 0))\n    x = F.pad(x, pad_values)\n"
        "    pad_values = (0, 0, 0, (4 - h % 4) * (h % 4 != 0))\n    x = F.pad(x, pad_values)\n"),
    # transformers' MobileViT: a flag beside the resize records that it was done.
    "resize_with_a_flag": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    new_h, new_w = (h + 1) // 2 * 2, (w + 1) // 2 * 2
    resized = False
    if new_h != h or new_w != w:
        x = F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=False)
        resized = True
    return x
''', '    x = F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=False)\n    resized = True\n'),
    # A number's truth (`if w % 4:`) is `!= 0`: the pad's factor must be a comparison, kept traced.
    "pad_when_a_remainder_is_left": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if w % 4:
        x = F.pad(x, (0, 4 - w % 4))
    return x
''', "    x = F.pad(x, (0, (4 - w % 4) * (w % 4 != 0)))\n    return x"),
    # spandrel's `pad_to_multiple` (SwinIR, HAT, SCUNet...): the pad returned early, the tensor as it
    # is after the `if`; the test is the truth of two ints, never `pad_h | pad_w` (a bitwise or of
    # ints, which has no ONNX op at opset 17).
    "pad_returned_early": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    pad_h = (4 - h % 4) % 4
    pad_w = (4 - w % 4) % 4
    if pad_h or pad_w:
        return F.pad(x, (0, pad_w, 0, pad_h), "reflect")
    return x
''', '    return F.pad(x, (0, (pad_w) * ((pad_h != 0) | (pad_w != 0)), 0, (pad_h) * ((pad_h != 0) | (pad_w != 0))), '
        '"reflect")\n'),
    "pad_returned_early_from_a_local": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    pad_w = (4 - w % 4) % 4
    if not pad_w == 0:
        pads = (0, pad_w)
        return F.pad(x, pads)
    return x
''', "    pads = (0, (pad_w) * ((pad_w == 0) == 0))\n    return F.pad(x, pads)\n"),
    "pad_returned_early_behind_a_flag": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    pad_h, pad_w = (4 - h % 4) % 4, (4 - w % 4) % 4
    padded = pad_h > 0 or pad_w > 0
    if padded:
        return F.pad(x, (0, pad_w, 0, pad_h), mode="replicate")
    return x
''', '    return F.pad(x, (0, (pad_w) * ((pad_h > 0) | (pad_w > 0)), 0, (pad_h) * ((pad_h > 0) | (pad_w > 0))), '
        'mode="replicate")\n'),
    "early_return_comments_kept": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    pad_w = (4 - w % 4) % 4
    # pad to whole windows
    if pad_w:  # only when needed
        return F.pad(x, (0, pad_w))  # zeros
    # as it is
    return x  # unchanged
''', "    # pad to whole windows\n    # only when needed\n    # as it is\n    # unchanged\n"
        "    return F.pad(x, (0, (pad_w) * (pad_w != 0)))  # zeros\n"),
    "crop_returned_early_with_an_else": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if h % 2 or w % 2:
        return x[:, :, : h // 2 * 2, : w // 2 * 2]
    else:
        return x
''', "    return x[:, :, : h // 2 * 2, : w // 2 * 2]\n"),
    "resize_returned_early": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    new_h, new_w = (h + 1) // 2 * 2, (w + 1) // 2 * 2
    if new_h != h or new_w != w:
        return F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=False)
    return x
''', '    return F.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=False)\n'),
    # EnCodec's decode (`if pad > 0: frame = frame[..., :-pad]`): `:-pad` counts from the end, so at
    # pad == 0 it would take nothing; the end is counted from the start, the amount times the test.
    "trim_written_negative": ('''
def f(x: torch.Tensor):
    pad = x.shape[-1] % 4
    if pad > 0:
        x = x[..., :-pad]
    return x
''', "    x = x[..., :x.size(-1) - (pad) * (pad > 0)]\n"),
    # Demucs' `center_trim` (facebookresearch/demucs@e976d93ecc3865e5757426930257e200846a520a
    # demucs/utils.py:55): a trim of both ends, guarded by the number's truth.
    "trim_of_both_ends": ('''
def f(x: torch.Tensor):
    delta = x.size(-1) % 3
    if delta:
        x = x[..., delta // 2:-(delta - delta // 2)]
    return x
''', "    x = x[..., (delta // 2) * (delta != 0):x.size(-1) - (delta - delta // 2) * (delta != 0)]\n"),
    # Two axes before the last, one amount a literal (chosen by the test: a traced Where). Each end's amount
    # is at least 1 where the test holds (the form's assumption: `1:-0` would take nothing).
    "trim_of_two_axes": ('''
def f(x: torch.Tensor):
    ph = x.shape[2] % 2
    pw = x.shape[3] % 3
    if ph > 0 and pw > 0:
        x = x[:, :, 1:-ph, pw:]
    return x
''', "x = x[:, :, _trt_size_where((ph > 0) & (pw > 0), 1, 0):x.size(2) - (ph) * ((ph > 0) & (pw > 0)), "
      "(pw) * ((ph > 0) & (pw > 0)):]"),
    "trim_returned_early": ('''
def f(x: torch.Tensor):
    pad = x.shape[-1] % 4
    if pad:
        return x[..., :-pad]
    return x
''', "    return x[..., :x.size(-1) - (pad) * (pad != 0)]\n"),
}

#: Cases whose `if` returns early: the rewrite's `return` ends the function (the `return x` after it goes).
RETURNS = {"pad_returned_early", "pad_returned_early_from_a_local", "pad_returned_early_behind_a_flag",
           "early_return_comments_kept", "crop_returned_early_with_an_else", "resize_returned_early",
           "trim_returned_early"}

#: Cases with more than one guarded pad.
FINDINGS = {"pad_amounts_in_a_local": 2, "pad_one_row_when_short": 2}

#: Cases whose rewrite assumes finite values (a resize to the tensor's own size).
NOT_FINITE = {"resize_when_changed", "resize_with_a_flag", "resize_returned_early"}

LEFT_ALONE = {
    "a crop beside another statement on the if's line": '''
def f(x: torch.Tensor):
    n, c, h0, w0 = x.shape
    pw = ((w0 - 1) // 2 + 1) * 2
    x = F.pad(x, (0, pw - w0))
    if w0 != pw: print(w0); x = x[:, :, :, :w0]
    return x
''',
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
    "a pad's local read after the branch": '''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    pads = (0, 0)
    if w % 4 != 0:
        pads = (0, 4 - w % 4)
        x = F.pad(x, pads)
    return x + pads[1]
''',
    "a pad's local read by a closure": '''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if w % 4 != 0:
        pads = (0, 4 - w % 4)
        x = F.pad(x, pads)
    right = lambda: pads[1]
    return x
''',
    "an attribute set in the branch": '''
def f(x: torch.Tensor, state):
    _, _, h, w = x.shape
    if w % 4 != 0:
        x = F.pad(x, (0, 4 - w % 4))
        state.padded = True
    return x
''',
    # A trim of a start and an end computed from the same sizes, but read after the `if` under another name.
    "a trim written negative, kept under another name": '''
def f(x: torch.Tensor):
    pad = x.shape[-1] % 4
    y = x
    if pad > 0:
        y = x[..., :-pad]
    return y
''',
    # A step: the trim's amounts are no longer one end each.
    "a trim written negative with a step": '''
def f(x: torch.Tensor):
    pad = x.shape[-1] % 4
    if pad > 0:
        x = x[..., :-pad:2]
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
    "a number's truth that is no size": '''
def f(x: torch.Tensor, extra):
    if extra:
        x = F.pad(x, (0, extra))
    return x
''',
    "a tensor value's truth": '''
def f(x: torch.Tensor):
    n = x.sum()
    if n:
        x = F.pad(x, (0, 1))
    return x
''',
    "an early return followed by other work": '''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if w % 4 != 0:
        return F.pad(x, (0, 4 - w % 4))
    x = x * 2
    return x
''',
    "an early return at the end of the function": '''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if w % 4 != 0:
        return F.pad(x, (0, 4 - w % 4))
''',
    "an early return of another tensor's pad": '''
def f(x: torch.Tensor, y: torch.Tensor):
    _, _, h, w = x.shape
    if w % 4 != 0:
        return F.pad(y, (0, 4 - w % 4))
    return x
''',
    "an early return, then another tensor returned": '''
def f(x: torch.Tensor, y: torch.Tensor):
    _, _, h, w = x.shape
    if w % 4 != 0:
        return F.pad(x, (0, 4 - w % 4))
    return y
''',
    "an early return beside other work": '''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if w % 4 != 0:
        print(w)
        return F.pad(x, (0, 4 - w % 4))
    return x
''',
    "an early return in an elif chain": '''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if w % 4 != 0:
        return F.pad(x, (0, 4 - w % 4))
    elif h % 4 != 0:
        return F.pad(x, (0, 0, 0, 4 - h % 4))
    return x
''',
    "an early return with an else doing more": '''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if w % 4 != 0:
        return F.pad(x, (0, 4 - w % 4))
    else:
        return x * 2
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


def _rewritten(code: str, fragment: str, tmp_path: Path, count: int = 1) -> tuple[str, Any, Any]:
    """The ``count`` TRT717 rewrites of ``f`` (showing ``fragment``), and ``f`` before and after them."""
    before = HEADER + code.lstrip("\n")
    assert rules_found(before).count("TRT717") == count
    after = rewrite(before, unsafe=True, select=("TRT717",))
    assert fragment in after, after
    return after, import_source(before, tmp_path)["f"], import_source(after, tmp_path)["f"]


@pytest.mark.parametrize("name", list(CASES))
def test_rewrite_and_run(name: str, tmp_path: Path) -> None:
    after, f_before, f_after = _rewritten(*CASES[name], tmp_path, count=FINDINGS.get(name, 1))
    assert "if " not in after.split("def f", 1)[1]
    if name in RETURNS:
        assert after.endswith(CASES[name][1]), after  # the `return x` the `if` skipped is gone
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


# --- a choice between numbers: `if h <= window: window = h` -------------------------------------

CHOICES = {  # name → (original function, a fragment of the rewrite)
    "window_shrinks": ('''
def f(x: torch.Tensor):
    h = x.shape[2]
    window = 4
    if h <= window:
        window = h
    rows = x[:, :, : h // window * window]
    return rows.reshape(x.shape[0], x.shape[1], -1, window, x.shape[3]).sum(3)
''', "    _trt_size_choice = h <= window\n    window = _trt_size_where(_trt_size_choice, h, window)\n"),
    "window_and_shift_in_lists": ('''
def f(x: torch.Tensor, shift=(1, 1)):
    x_size = x.shape[2:]
    window_size = (3, 4)
    use_window_size = list(window_size)
    use_shift_size = list(shift)
    for i in range(len(x_size)):
        if x_size[i] <= window_size[i] or not x_size[i] > 0:
            use_window_size[i] = x_size[i]
            if shift is not None:
                use_shift_size[i] = 0
    y = x.unfold(2, use_window_size[0], use_window_size[0]).unfold(3, use_window_size[1], use_window_size[1])
    return y.sum((-1, -2)) + use_shift_size[0] * 10 + use_shift_size[1]
''', "        _trt_size_choice = (x_size[i] <= window_size[i]) | ((x_size[i] > 0) == 0)\n"
     "        use_window_size[i] = _trt_size_where(_trt_size_choice, x_size[i], use_window_size[i])\n"
     "        if shift is not None:\n"
     "            use_shift_size[i] = _trt_size_where(_trt_size_choice, 0, use_shift_size[i])\n"),
    # An `else` that sets the same names: both numbers are computed every time, so each must
    # raise nothing (no division but by a literal or as the test divides already).
    "an_else": ('''
def f(x: torch.Tensor):
    if x.shape[1] <= 4:
        n = x.shape[1]
    else:
        n = 4
    return x[:, :n] * n
''', "    _trt_size_choice = x.shape[1] <= 4\n    n = _trt_size_where(_trt_size_choice, x.shape[1], 4)\n"),
    # The same choice as one expression (mmagic's SPyNet rounds its input up to a multiple of 32).
    "expression_choice": ('''
def f(x: torch.Tensor):
    h = x.shape[2]
    h_up = h if (h % 4) == 0 else 4 * (h // 4 + 1)
    return F.pad(x, (0, 0, 0, h_up - h)) * h_up
''', "    h_up = _trt_size_where((h % 4) == 0, h, 4 * (h // 4 + 1))\n"),
    # Two lists of amounts chosen by a size, in a loop over a slice of the shape: pixseg's ENet pads
    # its input to even sizes with -inf before a 2x2 max pool (pixseg/models/enet.py `_pad_to_even_size`,
    # as installed in zoo 29).
    "expression_lists_in_a_shape_loop": ('''
def f(x: torch.Tensor):
    amounts: list[int] = []
    for size in x.shape[-1:1:-1]:
        extra = [0, 0] if size % 2 == 0 else [0, 1]
        amounts.extend(extra)
    return F.max_pool2d(F.pad(x, amounts, value=-torch.inf), 2)
''', "        extra = [0, _trt_size_where(size % 2 == 0, 0, 1)]\n"),
    # The same as tuples, each element differing, the size a local.
    "expression_tuples": ('''
def f(x: torch.Tensor):
    h = x.shape[2]
    top, bottom = (1, 1) if h % 2 == 0 else (0, 2)
    return F.pad(x, (0, 0, top, bottom)) * (top + 10 * bottom)
''', "    top, bottom = _trt_size_where(h % 2 == 0, 1, 0), _trt_size_where(h % 2 == 0, 1, 2)\n"),
    # TensorFlow's "SAME" padding as transformers' MobileNetV2 (`apply_tf_padding`) writes it.
    "tf_same_padding": ('''
def f(x: torch.Tensor):
    in_height = int(x.shape[-2])
    stride, kernel = 2, 3
    if in_height % stride == 0:
        pad = max(kernel - stride, 0)
    else:
        pad = max(kernel - (in_height % stride), 0)
    return F.pad(x, (0, 0, pad // 2, pad - pad // 2))
''', "    _trt_size_choice = in_height % stride == 0\n"
     "    pad = _trt_size_where(_trt_size_choice, max(kernel - stride, 0), max(kernel - (in_height % stride), 0))\n"),
    # A number's truth chooses: `h % 2 != 0` is the same bool in eager mode and a traced one while tracing.
    "choice_on_a_remainder": ('''
def f(x: torch.Tensor):
    h = x.shape[2]
    extra = 0
    if h % 2:
        extra = 1
    return F.pad(x, (0, 0, 0, extra))
''', "    _trt_size_choice = h % 2 != 0\n    extra = _trt_size_where(_trt_size_choice, 1, extra)\n"),
    # kornia's `compute_padding` (extract_tensor_patches, combine_tensor_patches with automatic
    # padding): the stride's element read before, a chained assignment in one branch, `math.ceil` in
    # the other; each name gets its own choice and the rounding stays traced.
    "padding_split_by_parity": ('''
import math


def f(x: torch.Tensor, window=(4, 4), stride=(4, 4)):
    height = x.shape[-2]
    remainder = (height - window[0]) % stride[0]
    vertical = stride[0] - remainder if remainder != 0 else 0
    if vertical % 2 == 0:
        top = bottom = vertical // 2
    else:
        top = vertical // 2
        bottom = math.ceil(vertical / 2)
    return F.pad(x, (0, 0, top, bottom)) * (top + 10 * bottom)
''', "    vertical = _trt_size_where(remainder != 0, stride[0] - remainder, 0)\n"
     "    _trt_size_choice = vertical % 2 == 0\n"
     "    top = _trt_size_where(_trt_size_choice, vertical // 2, vertical // 2)\n"
     "    bottom = _trt_size_where(_trt_size_choice, vertical // 2, _trt_size_ceil(vertical / 2))\n"),
}

CHOICES_LEFT_ALONE = {
    "an expression choice whose other number divides by a size": '''
def f(x: torch.Tensor):
    n = 4 if x.shape[2] == 0 else 8 // x.shape[2]
    return x * n
''',
    "an expression choice of a tensor value": '''
def f(x: torch.Tensor):
    n = x.sum() if x.shape[2] > 2 else 0
    return x * n
''',
    "a tensor value chosen": '''
def f(x: torch.Tensor):
    n = 4
    if x.shape[1] <= n:
        n = x.sum()
    return n
''',
    "a number not in the test": '''
def f(x: torch.Tensor, k: int):
    n = 4
    if x.shape[1] <= n:
        n = len(x.shape) * k
    return n
''',
    "an else dividing by a number the test does not": '''
def f(x: torch.Tensor, k: int):
    if x.shape[1] == 0:
        n = 0
    else:
        n = x.shape[1] // k
    return n
''',
    "an else setting another name": '''
def f(x: torch.Tensor):
    n, m = 1, 1
    if x.shape[1] <= 4:
        n = 2
    else:
        m = 3
    return n + m
''',
    "a branch reading what it sets": '''
def f(x: torch.Tensor):
    if x.shape[1] <= 4:
        n = 2
        m = n + 1
    else:
        n = 3
        m = 4
    return n + m
''',
    "an elif chain": '''
def f(x: torch.Tensor):
    if x.shape[1] <= 4:
        n = 1
    elif x.shape[1] <= 8:
        n = 2
    else:
        n = 3
    return n
''',
    "an else calling a function": '''
def f(x: torch.Tensor):
    if x.shape[1] <= 4:
        n = 1
    else:
        n = round(x.shape[1] / 3)
    return n
''',
    "a call beside the assignment": '''
def f(x: torch.Tensor):
    n = 4
    if x.shape[1] <= n:
        n = x.shape[1]
        print(n)
    return n
''',
    "a rounding of a division by a size": '''
import math


def f(x: torch.Tensor):
    h = x.shape[2]
    if h % 2 == 0:
        a = b = h // 2
    else:
        a = h // 2
        b = math.ceil(4 / h)
    return a + b
''',
    "an element read first in the branch": '''
def f(x: torch.Tensor, stride=(4, 4)):
    r = x.shape[2] % 4
    v = stride[0] - r if r != 0 else 0
    return x * v
''',
    "expression lists of other lengths": '''
def f(x: torch.Tensor):
    h = x.shape[2]
    amounts = [0, 0] if h % 2 == 0 else [0, 1, 0, 0]
    return F.pad(x, amounts)
''',
    "an expression list with a starred element": '''
def f(x: torch.Tensor, more: list[int]):
    h = x.shape[2]
    amounts = [0, *more] if h % 2 == 0 else [0, 1]
    return F.pad(x, amounts)
''',
    "expression lists of a tensor value": '''
def f(x: torch.Tensor):
    h = x.shape[2]
    amounts = [0, 0] if h % 2 == 0 else [0, x.sum()]
    return amounts
''',
    "a loop over a list of sizes not read from a shape": '''
def f(x: torch.Tensor, sizes: list[int]):
    amounts = []
    for size in sizes:
        amounts.extend([0, 0] if size % 2 == 0 else [0, 1])
    return F.pad(x, amounts)
''',
    "a test of no size": '''
def f(x: torch.Tensor, m: int):
    n = 4
    if m <= n:
        n = m
    return n
''',
}


@pytest.mark.parametrize("name", list(CHOICES_LEFT_ALONE))
def test_choices_left_alone(name: str) -> None:
    assert "TRT717" not in rules_found(HEADER + CHOICES_LEFT_ALONE[name])


@pytest.mark.parametrize("name", list(CHOICES))
def test_choice_rewrite_and_run(name: str, tmp_path: Path) -> None:
    """Eager mode: the same numbers and results, bit for bit, on both sides of the test."""
    _, f_before, f_after = _rewritten(*CHOICES[name], tmp_path, count=2 if name == "padding_split_by_parity" else 1)
    # Axes below the window, equal to it, a multiple of it, one above one.
    for shape in [(1, 2, 2, 3), (1, 2, 3, 4), (2, 1, 6, 8), (1, 2, 7, 9), (1, 1, 4, 5)]:
        *finite, special = _values(shape)
        for x in [*finite, special]:
            assert_same(f_before(x), f_after(x))


class _Wrap(torch.nn.Module):
    def __init__(self, function) -> None:
        super().__init__()
        self.function = function

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.function(x)


@pytest.mark.parametrize("name, select, wrong_before", [
    ("window_shrinks", ("TRT717",), (1, 3)),
    # With TRT712 beside it (`int(x.shape[-2])` kept a size, `max` of it kept traced): the pad
    # follows each height's parity, where the original padded every height as the even 8.
    ("tf_same_padding", ("TRT712", "TRT717"), (3, 5, 9)),
    # The even 8 kept no extra row in the original's graph: every odd height lost it.
    ("choice_on_a_remainder", ("TRT717",), (1, 3, 5, 9)),
    # Traced at 8, a multiple of 4, the original keeps `h_up = h`: no pad at any other height.
    ("expression_choice", ("TRT717",), (1, 3, 5, 9)),
    # Traced at 8, a multiple of the window, the original pads nothing at any height; the odd amounts
    # (heights 1, 3, 5, 9) put the extra row at the bottom, as eager mode does.
    ("padding_split_by_parity", ("TRT717",), (1, 3, 5, 9)),
    # Traced at the even 8, the original pads no row: each odd height above 1 loses its last pooled row.
    ("expression_lists_in_a_shape_loop", ("TRT717",), (3, 5, 9)),
    ("expression_tuples", ("TRT717",), (1, 3, 5, 9)),
])
def test_choice_keeps_the_traced_window(tmp_path: Path, name: str, select: tuple[str, ...],
                                        wrong_before: tuple[int, ...]) -> None:
    """Exported at height 8, the original keeps the example's choice (the window 4, the even
    height's pad); the rewritten graph takes each height's own, as eager mode does."""
    code, _ = CHOICES[name]
    before = HEADER + code.lstrip("\n")
    after = rewrite(before, unsafe=True, select=select)
    sessions = _exported_sides(before, after, torch.randn(1, 2, 8, 3), {2: "h"}, tmp_path)
    matches = {}
    for h in (1, 3, 4, 5, 8, 9):
        x = torch.randn(1, 2, h, 3, generator=torch.Generator().manual_seed(h))
        for side, (session, f) in sessions.items():
            want = f(x).numpy()
            try:
                [got] = session.run(None, {"x": x.numpy()})
                matches[side, h] = got.shape == want.shape and bool((abs(got - want) <= 1e-5).all())
            except Exception:  # noqa: BLE001 - a graph that cannot run at this size does not match
                matches[side, h] = False
    assert all(matches["after", h] for h in (1, 3, 4, 5, 8, 9)), matches
    assert not any(matches["before", h] for h in wrong_before), matches


@pytest.mark.parametrize("name", ["pad_returned_early", "crop_returned_early_with_an_else", "resize_returned_early"])
def test_an_early_return_exports_for_every_size(tmp_path: Path, name: str) -> None:
    """spandrel's `pad_to_multiple` form: exported at a size that skips the branch, the original's
    graph returns the input as it is at every size; the rewritten graph, exported at either size
    (opset 17: the test's truth is a comparison, no bitwise or of integers), gives eager mode's
    result at sizes that take the branch and sizes that do not."""
    import warnings

    import onnx
    import onnxruntime as ort

    before = HEADER + CASES[name][0].lstrip("\n")
    after = rewrite(before, unsafe=True, select=("TRT717",))
    f_before, f_after = import_source(before, tmp_path)["f"], import_source(after, tmp_path)["f"]
    sizes = [(1, 2, 8, 8), (1, 2, 9, 6), (2, 2, 7, 5)]

    def exported(f: Any, shape: tuple[int, ...], path: Path) -> Any:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(_Wrap(f), (torch.randn(shape),), str(path), dynamo=False, opset_version=17,
                              input_names=["x"], dynamic_axes={"x": {0: "n", 2: "h", 3: "w"}})
        ops = {node.op_type for node in onnx.load(str(path)).graph.node}
        assert not ops & {"BitwiseOr", "BitwiseAnd", "If"}, ops
        return ort.InferenceSession(str(path))

    def matches(session: Any, f: Any, shape: tuple[int, ...]) -> bool:
        x = torch.randn(shape, generator=torch.Generator().manual_seed(sum(shape)))
        want = f(x).numpy()
        try:
            [got] = session.run(None, {"x": x.numpy()})
        except Exception:  # noqa: BLE001 - a graph that cannot run at this size does not match
            return False
        return got.shape == want.shape and bool((abs(got - want) <= 1e-5).all())

    for example in sizes[:2]:
        session = exported(f_after, example, tmp_path / "after.onnx")
        assert all(matches(session, f_before, shape) for shape in sizes), (example, after)
    original = exported(f_before, sizes[0], tmp_path / "before.onnx")
    assert matches(original, f_before, sizes[0]) and not matches(original, f_before, sizes[1])


def test_size_where_is_the_conditional_outside_a_trace() -> None:
    """The helper's value, type and exceptions are ``chosen if condition else other``'s, also scripted."""
    from trtcodemod.helpers.sizes import _trt_size_where

    for condition, chosen, other in [(True, 3, 7), (False, 3, 7), (1, 0, -2), (0, 2**62, 5),
                                     (torch.tensor(True), 4, 9), (torch.tensor(0), 4, 9)]:
        want = chosen if condition else other
        got = _trt_size_where(condition, chosen, other)
        assert got == want and type(got) is type(want)
    for odd in (torch.tensor([True, False]), torch.tensor(float("nan")).isnan()[None].repeat(2)):
        with pytest.raises(RuntimeError):
            _ = 1 if odd else 2
        with pytest.raises(RuntimeError):
            _trt_size_where(odd, 1, 2)
    scripted = torch.jit.script(_trt_size_where)
    assert [scripted(c, 3, 7) for c in (True, False)] == [3, 7]


# --- a shortcut when the sizes already match: `if h == size and w == size: return x` -----------

SHORTCUT = '''
def f(x: torch.Tensor, size: int = 6):
    _, _, h, w = x.shape
    if h == size and w == size:
        return x
    x = F.interpolate(x, size=(size, size), mode="bilinear", align_corners=False)
    return x
'''

SHORTCUTS_LEFT_ALONE = {
    "an emptiness test (TRT713's)": '''
def f(x: torch.Tensor):
    if x.shape[0] == 0:
        return x
    return F.interpolate(x, size=(6, 6), mode="bilinear")
''',
    "a test that is not an equality": '''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if h != 6:
        return x
    return F.interpolate(x, size=(6, 6), mode="bilinear")
''',
    "a shortcut that computes": '''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if h == 6 and w == 6:
        return x * 2
    return F.interpolate(x, size=(6, 6), mode="bilinear")
''',
    "nothing after it reads what it returns": '''
def f(x: torch.Tensor, y: torch.Tensor):
    _, _, h, w = x.shape
    if h == w:
        return x
    return y
''',
    "a shortcut its author skips while tracing": '''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if not torch.jit.is_tracing() and h == 6 and w == 6:
        return x
    return F.interpolate(x, size=(6, 6), mode="bilinear")
''',
}


@pytest.mark.parametrize("name", list(SHORTCUTS_LEFT_ALONE))
def test_shortcuts_left_alone(name: str) -> None:
    assert "TRT717" not in rules_found(HEADER + SHORTCUTS_LEFT_ALONE[name])


def test_shortcut_is_skipped_while_tracing_and_eager_mode_is_unchanged(tmp_path: Path) -> None:
    after, f_before, f_after = _rewritten(SHORTCUT, "    if not _trt_tracing() and (h == size and w == size):\n"
                                                    "        return x\n", tmp_path)
    assert rewrite(after, unsafe=True, select=("TRT717",)) == after  # a second pass changes nothing
    for shape in [(1, 2, 6, 6), (1, 2, 9, 4), (0, 2, 6, 6)]:
        for x in _values(shape) if shape[0] else [torch.zeros(shape)]:
            out_before, out_after = f_before(x), f_after(x)
            assert_same(out_before, out_after)
            if shape[2:] == (6, 6):
                assert out_after is x  # the shortcut still returns the tensor itself in eager mode
    # Traced, the general path is recorded: the graph resizes at any size, and at the shortcut's
    # size a bilinear resize to the same size is the tensor itself.
    traced = torch.jit.trace(f_after, (torch.randn(1, 2, 6, 6),), check_trace=False)
    for shape in [(1, 2, 6, 6), (1, 2, 9, 4)]:
        x = torch.randn(shape)
        assert_same(traced(x), f_before(x))


# --- several crops to one bound: the text cut to the longest the model takes ------------------

CROPS = '''
def f(masks: torch.Tensor, ids: torch.Tensor, max_len: int = 5):
    if masks.shape[1] > max_len:
        masks = masks[:, :max_len, :max_len]
        ids = ids[:, :max_len]
    return masks, ids
'''


def test_several_crops_are_done_every_time(tmp_path: Path) -> None:
    after, f_before, f_after = _rewritten(CROPS, "    masks = masks[:, :max_len, :max_len]\n    ids = ids[:, :max_len]\n"
                                                 "    return masks, ids", tmp_path)
    assert "if " not in after.split("def f", 1)[1]
    for n in (0, 3, 5, 8):  # shorter than the bound, at it, past it
        masks, ids = torch.rand(2, n, n) > 0.5, torch.randint(0, 9, (2, n))
        for got, want in zip(f_after(masks, ids), f_before(masks, ids)):
            assert_same(got, want)
    traced = torch.jit.trace(f_after, (torch.rand(2, 3, 3) > 0.5, torch.randint(0, 9, (2, 3))), check_trace=False)
    masks, ids = torch.rand(2, 8, 8) > 0.5, torch.randint(0, 9, (2, 8))
    for got, want in zip(traced(masks, ids), f_before(masks, ids)):
        assert_same(got, want)


def test_crops_of_one_name_twice_or_with_other_work_are_left_alone() -> None:
    twice = CROPS.replace("ids = ids[:, :max_len]", "masks = masks[:, :max_len]")
    other = CROPS.replace("ids = ids[:, :max_len]", "ids = ids * 2")
    assert "TRT717" not in rules_found(HEADER + twice) and "TRT717" not in rules_found(HEADER + other)


# --- several pads, each of its own name: a stereo pair padded to a multiple of 32 ----------------

PAIR_PADS = '''
def f(left: torch.Tensor, right: torch.Tensor):
    h, w = left.shape[-2:]
    pad_h = (4 - h % 4) % 4
    pad_w = (4 - w % 4) % 4
    if pad_w or pad_h:
        left = F.pad(left, (0, pad_w, 0, pad_h), mode="replicate")
        right = F.pad(right, (0, pad_w, 0, pad_h), mode="replicate")
    return left * 2, right
'''


def test_several_pads_are_each_done_every_time(tmp_path: Path) -> None:
    """stereo-matching's S2M2 wrapper (zoo 33, ``stereo_matching/models/s2m2/modeling_s2m2.py:978-982``)
    pads the left and the right image by the same amounts, replicating the edge, only when a side is
    not a multiple of 32 (reduced here to 4; written here with the amounts' truth, ``if pad_w or pad_h:``,
    and tuples). Each pad is rewritten as one such pad alone would be: its amounts times the test. Run at sizes where no side, one side or both need padding, with
    zeros, negatives, inf and NaN, and traced at a multiple of 4 then run at other sizes."""
    amounts = "(0, (pad_w) * ((pad_w != 0) | (pad_h != 0)), 0, (pad_h) * ((pad_w != 0) | (pad_h != 0)))"
    after, f_before, f_after = _rewritten(
        PAIR_PADS, f'    left = F.pad(left, {amounts}, mode="replicate")\n'
                   f'    right = F.pad(right, {amounts}, mode="replicate")\n    return left * 2, right', tmp_path)
    assert "if " not in after.split("def f", 1)[1]
    for shape in [(1, 3, 8, 8), (1, 3, 9, 8), (1, 3, 8, 7), (2, 3, 5, 6), (1, 3, 1, 1)]:
        for left, right in zip(_values(shape), reversed(_values(shape))):
            for got, want in zip(f_after(left, right), f_before(left, right)):
                assert_same(got, want)
    traced = torch.jit.trace(f_after, (torch.randn(1, 3, 8, 8), torch.randn(1, 3, 8, 8)), check_trace=False)
    for shape in [(1, 3, 8, 8), (1, 3, 9, 6), (1, 3, 13, 17)]:
        left, right = torch.randn(shape), torch.randn(shape)
        for got, want in zip(traced(left, right), f_before(left, right)):
            assert_same(got, want)


def test_several_pads_with_other_work_or_of_one_name_twice_are_left_alone() -> None:
    other = PAIR_PADS.replace('right = F.pad(right, (0, pad_w, 0, pad_h), mode="replicate")', "right = right * 2")
    twice = PAIR_PADS.replace("right = F.pad(right,", "left = F.pad(left,")
    resized = PAIR_PADS.replace('right = F.pad(right, (0, pad_w, 0, pad_h), mode="replicate")',
                                'right = F.interpolate(right, size=(h + pad_h, w + pad_w))')
    for code in (other, twice, resized):
        assert code != PAIR_PADS and "TRT717" not in rules_found(HEADER + code)


# --- a broadcast done only when the batch differs: ultralytics' WorldModel.predict -------------------

EXPAND = '''
def f(x: torch.Tensor, txt_feats: torch.Tensor, head):
    # ultralytics/nn/tasks.py:1210: the text embeddings broadcast to the batch when it differs
    if txt_feats.shape[0] != x.shape[0] or head.export:
        txt_feats = txt_feats.expand(x.shape[0], -1, -1)
    return txt_feats * x.mean((1, 2, 3))[:, None, None]
'''


class _Head:
    def __init__(self, export: bool) -> None:
        self.export = export


def test_an_expand_to_the_batch_is_done_every_time(tmp_path: Path) -> None:
    before = HEADER + EXPAND.lstrip("\n")
    assert rules_found(before, select=("TRT717",)) == ["TRT717"]
    after = rewrite(before, unsafe=True, select=("TRT717",))
    assert "    # ultralytics/nn/tasks.py:1210: the text embeddings broadcast to the batch when it differs\n" \
           "    txt_feats = txt_feats.expand(x.shape[0], -1, -1)\n" in after and "if " not in after, after
    assert rewrite(before, select=("TRT717",)) == before  # unsafe: not without --unsafe
    f_before, f_after = import_source(before, tmp_path)["f"], import_source(after, tmp_path)["f"]
    for batch, text_batch in [(1, 1), (3, 1), (3, 3), (0, 1)]:
        for export in (False, True):
            x = torch.randn(batch, 2, 3, 3)
            for txt in (torch.randn(text_batch, 4, 5), torch.full((text_batch, 4, 5), float("inf"))):
                assert_same(f_before(x, txt, _Head(export)), f_after(x, txt, _Head(export)))
    with pytest.raises(RuntimeError):  # a batch it cannot broadcast to raises in both
        f_before(torch.randn(3, 2, 3, 3), torch.randn(2, 4, 5), _Head(False))
    with pytest.raises(RuntimeError):
        f_after(torch.randn(3, 2, 3, 3), torch.randn(2, 4, 5), _Head(False))


def test_a_pad_whose_test_reads_a_flag_is_left_alone() -> None:
    code = HEADER + '''
def f(x: torch.Tensor, cfg):
    _, _, h, w = x.shape
    if w % 4 != 0 or cfg.always:
        x = F.pad(x, (0, 4 - w % 4))
    return x
'''
    # A pad's amounts are scaled by the test, which must then be comparisons only.
    assert rewrite(code, unsafe=True, select=("TRT717",)) == code


WORLD = """\
import torch
from torch import nn


class TextGuided(nn.Module):
    # ultralytics' WorldModel.predict (nn/tasks.py:1210): text embeddings broadcast to the batch when it
    # differs; ImagePoolingAttn then reshapes them with the batch (nn/modules/block.py:740).

    def __init__(self) -> None:
        super().__init__()
        self.txt_feats = torch.randn(1, 3, 8)
        self.export = False
        self.query = nn.Linear(8, 8)

    def forward(self, x):
        txt_feats = self.txt_feats.type_as(x)
        if txt_feats.shape[0] != x.shape[0] or self.export:
            txt_feats = txt_feats.expand(x.shape[0], -1, -1)
        bs = x.shape[0]
        q = self.query(txt_feats).reshape(bs, -1, 2, 4)
        return q.sum(-1) * x.mean((1, 2, 3))[:, None, None]


def build():
    torch.manual_seed(0)
    return TextGuided().eval()


def inputs(generator):
    return (torch.rand(1, 2, 4, 4, generator=generator),)
"""


def test_migrate_broadcasts_the_text_to_every_batch(tmp_path: Path) -> None:
    from support import migrate_json

    model = tmp_path / "world.py"
    model.write_text(WORLD)
    report = migrate_json(model, '{"x": {"0": "n"}}')
    line = next(i for i, text in enumerate(WORLD.splitlines(), 1) if "if txt_feats.shape[0]" in text)
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT717", line)], report
    assert report["exit_code"] == 0 and report["equivalent"] is True and report["after"]["faithful"] is True


PAD_MODEL = HEADER + """\
class M(torch.nn.Module):
    def forward(self, x):
        _, _, h, w = x.shape
        pad_h = (4 - h % 4) % 4
        pad_w = (4 - w % 4) % 4
        if pad_h > 0 or pad_w > 0:
            x = F.pad(x, (0, pad_w, 0, pad_h), mode="reflect")
        return x * 2


def build():
    return M().eval()


def inputs(generator):
    return (torch.rand(1, 3, 6, 7, generator=generator),)
"""


def test_migrate_makes_the_pad_one_computation_and_its_size_test_is_no_longer_a_problem(tmp_path: Path) -> None:
    """TRT713 names the Python decision `pad_h > 0 or pad_w > 0` the export warned of; TRT717's fix
    makes it part of the pad's amounts, so the decision is inside that fix: information, not a
    problem that remains (kornia's CLAHE pads this way before cutting tiles)."""
    from support import migrate_json

    model = tmp_path / "pad.py"
    model.write_text(PAD_MODEL)
    report = migrate_json(model, '{"x": {"2": "h", "3": "w"}}')
    assert [(fix["rule"], fix["line"], fix["landed"]) for fix in report["applied"]] == [("TRT717", 10, True)]
    assert report["exit_code"] == 0 and not [r for r in report["remaining"] if r["severity"] == "error"]
    [decision] = [i for i in report["info"] if i["rule"] == "TRT713"]
    assert decision["line"] == 10 and "inside the TRT717 fix at line 10" in decision["reason"]


EARLY_PAD_MODEL = HEADER + """\
def pad_to_multiple(tensor: torch.Tensor, multiple: int, *, mode: str) -> torch.Tensor:
    _, _, h, w = tensor.size()
    pad_h = (multiple - h % multiple) % multiple
    pad_w = (multiple - w % multiple) % multiple
    if pad_h or pad_w:
        return F.pad(tensor, (0, pad_w, 0, pad_h), mode)
    return tensor


class M(torch.nn.Module):
    # spandrel's SwinIR and HAT: pad to whole windows, work per window, crop back.
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, x):
        H, W = x.shape[2:]
        x = pad_to_multiple(x, 4, mode="reflect")
        y = F.interpolate(F.avg_pool2d(self.conv(x), 4), scale_factor=4.0, mode="nearest")
        return y[:, :, :H, :W]


def build():
    torch.manual_seed(0)
    return M().eval()


def inputs(generator):
    return (torch.rand(1, 3, 8, 8, generator=generator),)
"""


def test_migrate_pads_to_whole_windows_at_every_size(tmp_path: Path) -> None:
    """Traced at 8 x 8, a multiple of the window, the original's graph never pads; migrate takes
    TRT717's early-return fix, and the model is faithful at the other sizes it tries."""
    from support import migrate_json

    model = tmp_path / "early.py"
    model.write_text(EARLY_PAD_MODEL)
    report = migrate_json(model, '{"x": {"2": "h", "3": "w"}}')
    line = next(i for i, text in enumerate(EARLY_PAD_MODEL.splitlines(), 1) if "if pad_h or pad_w" in text)
    assert [(fix["rule"], fix["line"], fix["landed"]) for fix in report["applied"]] == [("TRT717", line, True)], report
    assert report["before"]["faithful"] is False and report["after"]["faithful"] is True
    assert report["exit_code"] == 0 and report["equivalent"] is True


# --- a repeat done only when a size asks for it ----------------------------------------------

REPEATS = {  # name → (original function, the rewrite's lines)
    # transformers 5.24.0 SAM-HQ's mask decoder (models/sam_hq/modeling_sam_hq.py:1011): the HQ
    # features repeated to every point of every image; traced at a batch of 1, `shape[0] == 1`
    # holds and the graph repeats them by the batch at every batch.
    "sam_hq_chain": ('''
def f(hq: torch.Tensor, image: torch.Tensor, points: torch.Tensor):
    batch_size, channels, height, width = image.shape
    point_batch_size = points.shape[1]
    # one feature map per point
    if hq.shape[0] == 1:
        hq = hq.repeat(batch_size * point_batch_size, 1, 1, 1)
    elif hq.shape[0] == batch_size and batch_size * point_batch_size != batch_size:
        hq = hq.repeat_interleave(point_batch_size, 0)
    return image.repeat_interleave(point_batch_size, 0) + hq
''', "    # one feature map per point\n"
     "    _trt_size_choice = hq.shape[0] == 1\n"
     "    hq = hq.repeat(_trt_size_where(_trt_size_choice, batch_size * point_batch_size, 1), 1, 1, 1)\n"
     "    hq = hq.repeat_interleave(_trt_size_where(_trt_size_choice, 1, _trt_size_where((hq.shape[0] == batch_size) "
     "& (batch_size * point_batch_size != batch_size), point_batch_size, 1)), 0)\n"
     "    return "),
    # SAM 3's text features (models/sam3/modeling_sam3.py:2411): one prompt broadcast to the batch.
    "sam3_text": ('''
def f(hq: torch.Tensor, image: torch.Tensor, points: torch.Tensor):
    if hq.shape[0] == 1 and image.shape[0] > 1:
        hq = hq.repeat(image.shape[0], 1, 1, 1)
    return torch.cat([image, hq], dim=1)
''', "    _trt_size_choice = (hq.shape[0] == 1) & (image.shape[0] > 1)\n"
     "    hq = hq.repeat(_trt_size_where(_trt_size_choice, image.shape[0], 1), 1, 1, 1)\n"),
    # segment-anything's per-mask expansion, with an `else` that keeps the input.
    "per_point_else": ('''
def f(hq: torch.Tensor, image: torch.Tensor, points: torch.Tensor):
    if image.shape[0] != points.shape[0]:
        src = torch.repeat_interleave(image, points.shape[0], dim=0)
    else:
        src = image
    return src
''', "    _trt_size_choice = image.shape[0] != points.shape[0]\n"
     "    src = torch.repeat_interleave(image, _trt_size_where(_trt_size_choice, points.shape[0], 1), dim=0)\n"
     "    return src"),
    # CLVP's text and audio (models/clvp/modeling_clvp.py:748): whichever side has one row is
    # repeated to the other's; each branch repeats its own name.
    "clvp_either_side": ('''
def f(hq: torch.Tensor, image: torch.Tensor, points: torch.Tensor):
    if hq.shape[0] == 1 and image.shape[0] != 1:
        hq = hq.repeat(image.shape[0], 1, 1, 1)
    elif hq.shape[0] != 1 and image.shape[0] == 1:
        image = image.repeat(hq.shape[0], 1, 1, 1)
    return torch.cat([hq, image], dim=1)
''', "    _trt_size_choice = (hq.shape[0] == 1) & (image.shape[0] != 1)\n"
     "    hq = hq.repeat(_trt_size_where(_trt_size_choice, image.shape[0], 1), 1, 1, 1)\n"
     "    image = image.repeat(_trt_size_where(_trt_size_choice, 1, _trt_size_where((hq.shape[0] != 1) & "
     "(image.shape[0] == 1), hq.shape[0], 1)), 1, 1, 1)\n"),
}

REPEATS_LEFT_ALONE = {
    "a repeat_interleave with no axis (flat: not the tensor where the count is 1)": '''
def f(hq: torch.Tensor, image: torch.Tensor):
    if hq.shape[0] == 1:
        hq = hq.repeat_interleave(image.shape[0])
    return hq
''',
    "a repeat of another name": '''
def f(hq: torch.Tensor, image: torch.Tensor):
    out = hq
    if hq.shape[0] == 1:
        out = image.repeat(image.shape[0], 1, 1, 1)
    return out
''',
    "counts from a list": '''
def f(hq: torch.Tensor, image: torch.Tensor):
    sizes = [image.shape[0], 1, 1, 1]
    if hq.shape[0] == 1:
        hq = hq.repeat(*sizes)
    return hq
''',
    "a count bound only in the branch's absence": '''
def f(hq: torch.Tensor, image: torch.Tensor):
    if hq.shape[0] == 1:
        hq = hq.repeat(unknown_count(image), 1, 1, 1)
    return hq
''',
    "an elif chain ending in an else": '''
def f(hq: torch.Tensor, image: torch.Tensor):
    if hq.shape[0] == 1:
        hq = hq.repeat(image.shape[0], 1, 1, 1)
    elif hq.shape[0] == 2:
        hq = hq.repeat_interleave(2, 0)
    else:
        hq = hq * 2
    return hq
''',
    "a repeat on a tensor's values": '''
def f(hq: torch.Tensor, image: torch.Tensor):
    if hq.sum() > 0:
        hq = hq.repeat(image.shape[0], 1, 1, 1)
    return hq
''',
}


@pytest.mark.parametrize("name", list(REPEATS_LEFT_ALONE))
def test_repeats_left_alone(name: str) -> None:
    assert "TRT717" not in rules_found(HEADER + REPEATS_LEFT_ALONE[name])


def _repeat_inputs() -> list[tuple[torch.Tensor, torch.Tensor, torch.Tensor]]:
    """HQ features of 1 or of the batch, batches of 0, 1, 2 and 3, one or two points, values with
    zeros, negatives, inf and NaN."""
    sets = []
    for batch, hq_batch, points in [(1, 1, 1), (3, 1, 1), (3, 3, 1), (2, 2, 2), (2, 1, 2), (1, 1, 3), (3, 1, 3), (1, 3, 1),
                                    (0, 0, 1), (0, 1, 2)]:
        empty = 0 in (batch, hq_batch)
        images = [torch.randn(batch, 2, 3, 3)] * 4 if empty else _values((batch, 2, 3, 3))
        features = [torch.randn(hq_batch, 2, 3, 3)] * 4 if empty else _values((hq_batch, 2, 3, 3))
        for image, hq in zip(images, features):
            sets.append((hq, image, torch.zeros(points, points, 2)))
    return sets


@pytest.mark.parametrize("name", list(REPEATS))
def test_repeat_rewrite_and_run(name: str, tmp_path: Path) -> None:
    """Eager mode: bit for bit the original's values, dtype and shape, on both sides of each test."""
    after, f_before, f_after = _rewritten(*REPEATS[name], tmp_path)
    assert "if " not in after.split("def f", 1)[1] and "else" not in after.split("def f", 1)[1]
    compared = 0
    for hq, image, points in _repeat_inputs():
        try:
            want = f_before(hq, image, points)
        except RuntimeError:
            with pytest.raises(RuntimeError):  # a batch it cannot broadcast to raises in both
                f_after(hq, image, points)
            continue
        assert_same(want, f_after(hq, image, points))
        compared += 1
    assert compared >= 18


@pytest.mark.parametrize("name, batches, wrong_before", [
    ("sam_hq_chain", (1, 2, 3), (2, 3)),  # traced at 1: the original repeats by the batch at every batch
    ("sam3_text", (1, 2, 3), (2, 3)),  # traced at 1: the original concatenates one prompt at every batch
])
def test_repeat_export_follows_the_batch(tmp_path: Path, name: str, batches: tuple[int, ...],
                                         wrong_before: tuple[int, ...]) -> None:
    """Exported at one batch with the batch dynamic, the original's graph keeps the example's
    branch; the rewritten graph gives eager mode's values at every batch."""
    import warnings

    import onnxruntime as ort

    code, _ = REPEATS[name]
    before = HEADER + code.lstrip("\n")
    after = rewrite(before, unsafe=True, select=("TRT717",))

    class Wrap(torch.nn.Module):
        def __init__(self, function) -> None:
            super().__init__()
            self.function = function
            self.hq = torch.nn.Parameter(torch.randn(1, 2, 3, 3))

        def forward(self, image: torch.Tensor) -> torch.Tensor:
            hq = self.hq.expand(image.shape[0], -1, -1, -1) if name == "sam_hq_chain" else self.hq
            return self.function(hq, image, torch.zeros(1, 2, 2))

    matches = {}
    for side, source in (("before", before), ("after", after)):
        model = Wrap(import_source(source, tmp_path)["f"]).eval()
        path = tmp_path / f"{side}.onnx"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(1, 2, 3, 3),), str(path), dynamo=False,
                              input_names=["image"], dynamic_axes={"image": {0: "b"}})
        session = ort.InferenceSession(str(path))
        for batch in batches:
            image = torch.randn(batch, 2, 3, 3, generator=torch.Generator().manual_seed(batch))
            with torch.no_grad():
                want = model(image).numpy()
            try:
                [got] = session.run(None, {"image": image.numpy()})
                matches[side, batch] = got.shape == want.shape and bool((abs(got - want) <= 1e-6).all())
            except Exception:  # noqa: BLE001 - a graph that cannot run at this batch does not match
                matches[side, batch] = False
    assert all(matches["after", b] for b in batches), matches
    assert not any(matches["before", b] for b in wrong_before), matches


HQ_MODEL = """\
import torch
from torch import nn


class Decoder(nn.Module):
    # transformers' SAM-HQ mask decoder (models/sam_hq/modeling_sam_hq.py:1011): the HQ features
    # repeated to every point of every image, by a chain of size tests.

    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(2, 2, 1)
        self.hq = nn.Conv2d(2, 2, 1)

    def forward(self, x):
        points = torch.zeros(1, 1, 2).expand(x.shape[0], -1, -1)
        batch_size = x.shape[0]
        point_batch_size = points.shape[1]
        hq_features = self.hq(x)
        if hq_features.shape[0] == 1:
            hq_features = hq_features.repeat(batch_size * point_batch_size, 1, 1, 1)
        elif hq_features.shape[0] == batch_size and batch_size * point_batch_size != batch_size:
            hq_features = hq_features.repeat_interleave(point_batch_size, 0)
        return self.conv(x).repeat_interleave(point_batch_size, 0) + hq_features


def build():
    torch.manual_seed(0)
    return Decoder().eval()


def inputs(generator):
    return (torch.rand(1, 2, 4, 4, generator=generator),)
"""


def test_migrate_repeats_the_hq_features_by_the_traced_test(tmp_path: Path) -> None:
    """Traced at a batch of 1 (the example), the original graph repeats the features by the batch
    at every batch (unfaithful); migrate locates the chain at its `if` and TRT717's choice of counts
    makes the graph follow the batch."""
    from support import migrate_json

    model = tmp_path / "hq.py"
    model.write_text(HQ_MODEL)
    report = migrate_json(model, '{"x": {"0": "n"}}')
    line = next(i for i, text in enumerate(HQ_MODEL.splitlines(), 1) if "if hq_features.shape[0] == 1" in text)
    assert report["before"]["faithful"] is False, report["before"]
    assert [(fix["rule"], fix["line"]) for fix in report["applied"]] == [("TRT717", line)], report
    assert report["exit_code"] == 0 and report["equivalent"] is True and report["after"]["faithful"] is True


def test_a_pad_under_not_exports_and_follows_the_parity(tmp_path: Path) -> None:
    """`if not (h % 2 == 0 and w % 2 == 0):` written `((...) & (...)) == 0`: the tracer has no
    xor or eq of a traced bool with a Python bool (`^ True` stopped the export); traced at an even
    size, the rewritten graph pads each odd size as eager mode does, where the original pads none."""
    import warnings

    import onnxruntime as ort

    code, _ = CASES["pad_unless_divisible"]
    before = HEADER + code.lstrip("\n")
    after = rewrite(before, unsafe=True, select=("TRT717",))
    matches = {}
    for side, source in (("before", before), ("after", after)):
        f = import_source(source, tmp_path)["f"]
        path = tmp_path / f"{side}.onnx"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(_Wrap(f), (torch.randn(1, 2, 4, 6),), str(path), dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {2: "h", 3: "w"}})
        session = ort.InferenceSession(str(path))
        for h, w in [(4, 6), (5, 6), (4, 7), (3, 3)]:
            x = torch.randn(1, 2, h, w, generator=torch.Generator().manual_seed(h * w))
            want = f(x).numpy()
            [got] = session.run(None, {"x": x.numpy()})
            matches[side, h, w] = got.shape == want.shape and bool((abs(got - want) <= 1e-6).all())
    assert all(v for (side, _, _), v in matches.items() if side == "after"), matches
    assert not any(matches["before", h, w] for h, w in [(5, 6), (4, 7), (3, 3)]), matches


def test_a_literal_pad_amount_exports_and_follows_the_size(tmp_path: Path) -> None:
    """SpyNet's `if up.size(2) != ref.size(2): up = F.pad(up, [0, 0, 0, 1], mode="replicate")`: a
    literal amount times the traced test exported as a bool (the exporter casts the 1 to the test's
    type), and ONNX Runtime refused the pads' Concat of bool and int64. Chosen by the test with
    `_trt_size_where`, the amount is an int64 `Where`: traced at an even size, the graph pads each odd
    size as eager mode does, where the original pads none (and fails to add)."""
    import warnings

    import onnxruntime as ort

    code, _ = CASES["pad_one_row_when_short"]
    before = HEADER + code.lstrip("\n")
    after = rewrite(before, unsafe=True, select=("TRT717",))
    assert after.count("_trt_size_where(") >= 2
    matches = {}
    for side, source in (("before", before), ("after", after)):
        f = import_source(source, tmp_path)["f"]
        path = tmp_path / f"{side}.onnx"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(_Wrap(f), (torch.randn(1, 2, 8, 6),), str(path), dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {2: "h", 3: "w"}})
        session = ort.InferenceSession(str(path))
        for h, w in [(8, 6), (9, 6), (8, 7), (5, 3), (12, 10)]:
            x = torch.randn(1, 2, h, w, generator=torch.Generator().manual_seed(h * w))
            want = f(x).numpy()
            try:
                [got] = session.run(None, {"x": x.numpy()})
            except Exception:  # noqa: BLE001 - a graph that cannot run at this size does not match
                matches[side, h, w] = False
                continue
            matches[side, h, w] = got.shape == want.shape and bool((abs(got - want) <= 1e-6).all())
    assert all(v for (side, _, _), v in matches.items() if side == "after"), matches
    assert not any(matches["before", h, w] for h, w in [(9, 6), (8, 7), (5, 3)]), matches


# --- one amount a line beside a flag (YOLOv7's Swin layers) ------------------------------------------------

#: YOLOv7's `SwinTransformerLayer.forward`: each amount in a local of its own, computed with the window read
#: from the module (`% self.window_size`, a divisor the test itself divides by), a flag set beside the pad
#: and read after the window attention to crop the padding off. The module here is a default argument.
ONE_AMOUNT_A_LINE = HEADER + '''
class _Layer:
    window_size = 4


def f(x: torch.Tensor, self=_Layer()):
    _, _, H_, W_ = x.shape

    Padding = False
    if min(H_, W_) < self.window_size or H_ % self.window_size!=0 or W_ % self.window_size!=0:
        Padding = True
        # pad to whole windows
        pad_r = (self.window_size - W_ % self.window_size) % self.window_size
        pad_b = (self.window_size - H_ % self.window_size) % self.window_size
        x = F.pad(x, (0, pad_r, 0, pad_b))
    B, C, H, W = x.shape
    w = self.window_size
    windows = x.view(B, C, H // w, w, W // w, w)
    x = (windows - windows.mean((3, 5), keepdim=True)).reshape(B, C, H, W)
    if Padding:
        x = x[:, :, :H_, :W_]  # reverse padding
    return x
'''

ONE_AMOUNT_TEST = ("(((min(H_, W_) < self.window_size) | (H_ % self.window_size!=0)) | "
                   "(W_ % self.window_size!=0))")


def test_pad_amounts_one_a_line_beside_a_flag_are_padded_every_time(tmp_path: Path) -> None:
    assert rules_found(ONE_AMOUNT_A_LINE, select=("TRT717",)) == ["TRT717"]
    after = rewrite(ONE_AMOUNT_A_LINE, unsafe=True, select=("TRT717",))
    body = after.split("def f", 1)[1]
    assert "if min(" not in body
    # The amounts are bound every time as written; the pad's tuple scales them by the test.
    assert ("        Padding = True\n        # pad to whole windows\n"
            "        pad_r = (self.window_size - W_ % self.window_size) % self.window_size\n"
            "        pad_b = (self.window_size - H_ % self.window_size) % self.window_size\n"
            f"        x = F.pad(x, (0, (pad_r) * {ONE_AMOUNT_TEST}, 0, (pad_b) * {ONE_AMOUNT_TEST}))\n"
            ).replace("        ", "    ") in body
    assert body.count("# pad to whole windows") == 1
    f_before = import_source(ONE_AMOUNT_A_LINE, tmp_path)["f"]
    f_after = import_source(after, tmp_path)["f"]
    # Whole windows (no pad), a short axis (`min(...) < window`), odd sizes, either axis longer.
    for shape in [(1, 2, 8, 8), (1, 2, 9, 6), (2, 3, 7, 5), (1, 1, 3, 2), (1, 2, 4, 13), (1, 2, 3, 1)]:
        for x in _values(shape):
            assert_same(f_before(x), f_after(x))
    empty = torch.zeros(1, 2, 0, 5)  # an empty axis: `min(...) < window` holds, its amount is 0
    assert_same(f_before(empty), f_after(empty))


@pytest.mark.parametrize("change", [
    # the divisor of an amount is not one the test divides by: it may be 0 where the test is false
    ("pad_r = (self.window_size - W_ % self.window_size) % self.window_size",
     "pad_r = (self.window_size - W_ % self.window_size) % self.stride"),
    # an amount the pad does not read is no amount
    ("        x = F.pad(x, (0, pad_r, 0, pad_b))", "        x = F.pad(x, (0, pad_r, 0, 1))"),
    # an amount read after the `if`: bound every time, it would be read where it was unbound
    ("    return x\n", "    return x, pad_b\n"),
])
def test_pad_amounts_one_a_line_left_alone(change: tuple[str, str]) -> None:
    assert change[0] in ONE_AMOUNT_A_LINE
    assert "TRT717" not in rules_found(ONE_AMOUNT_A_LINE.replace(*change), select=("TRT717",))


def test_pad_amounts_one_a_line_export_pads_at_every_size(tmp_path: Path) -> None:
    """Traced at whole windows (8×8: the original pads nothing), the rewritten graph pads each other
    size as eager mode does; the original's view into windows fails there."""
    import warnings

    import onnxruntime as ort

    after = rewrite(ONE_AMOUNT_A_LINE, unsafe=True, select=("TRT717",))
    matches = {}
    for side, source in (("before", ONE_AMOUNT_A_LINE), ("after", after)):
        f = import_source(source, tmp_path)["f"]
        path = tmp_path / f"{side}.onnx"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(_Wrap(f), (torch.randn(1, 2, 8, 8),), str(path), dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {2: "h", 3: "w"}})
        session = ort.InferenceSession(str(path))
        for h, w in [(8, 8), (9, 6), (6, 13)]:
            for x in _values((1, 2, h, w)):
                want = f(x).numpy()
                try:
                    [got] = session.run(None, {"x": x.numpy()})
                except Exception:  # noqa: BLE001 - a graph that cannot run at this size does not match
                    matches[side, h, w] = False
                    continue
                same = got.shape == want.shape and bool(
                    torch.allclose(torch.from_numpy(got), torch.from_numpy(want), atol=1e-5, equal_nan=True))
                matches[side, h, w] = matches.get((side, h, w), True) and same
    assert all(v for (side, _, _), v in matches.items() if side == "after"), matches
    assert not any(matches["before", h, w] for h, w in [(9, 6), (6, 13)]), matches


# --- a size stepped to a multiple by a `while` loop: `while h % 8 != 0: h += 1` --------------------

LOOPS = {  # name → (original function, a fragment of the rewrite)
    # ccvfi's `resize`: the scaled size a multiple of 64 (here 8), a Python float scale.
    "scaled_up": ('''
def f(x: torch.Tensor, scale: float = 0.5):
    _, _, h, w = x.shape
    while h * scale % 8 != 0:
        h += 1
    return F.pad(x, (0, 0, 0, h - x.shape[2]))
''', "    h = _trt_size_stepped(h, 1, 8, scale, 0)\n"),
    "truth_of_the_remainder": ('''
def f(x: torch.Tensor):
    w = x.shape[-1]
    while w % 4:
        w = w + 1
    return F.pad(x, (0, w - x.shape[-1]))
''', "    w = _trt_size_stepped(w, 1, 4, 1.0, 0)\n"),
    "whole_multiple_down": ('''
def f(x: torch.Tensor):
    w = x.shape[-1]
    while (w // 4) * 4 != w:
        w -= 1
    return x[..., :w]
''', "    w = _trt_size_stepped(w, -1, 4, 1.0, 0)\n"),
    "offset_minus": ('''
def f(x: torch.Tensor):
    h = x.shape[2]
    while (h - 1) % 4 != 0:
        h += 1
    return F.pad(x, (0, 0, 0, h - x.shape[2]))
''', "    h = _trt_size_stepped(h, 1, 4, 1.0, -1)\n"),
    "scale_on_the_left": ('''
def f(x: torch.Tensor):
    h = x.shape[2]
    while 2 * h % 6:
        h += 1
    return F.pad(x, (0, 0, 0, h - x.shape[2]))
''', "    h = _trt_size_stepped(h, 1, 6, 2, 0)\n"),
    # Grad-TTS's `fix_len_compatibility`: `while True:`, the test that ends it, the size returned.
    "while_true_return": ('''
def size(x: torch.Tensor):
    h = x.shape[2]
    while True:
        if not (h + 2) % 4:
            return h
        h += 1


def f(x: torch.Tensor):
    return F.pad(x, (0, 0, 0, size(x) - x.shape[2]))
''', "    return _trt_size_stepped(h, 1, 4, 1.0, 2)\n"),
}

LOOPS_LEFT_ALONE = {
    "a step of two": '''
def f(x: torch.Tensor):
    h = x.shape[2]
    while h % 8 != 0:
        h += 2
    return h
''',
    "stepped while divisible": '''
def f(x: torch.Tensor):
    h = x.shape[2]
    while h % 8 == 0:
        h += 1
    return h
''',
    "more in the body": '''
def f(x: torch.Tensor):
    h = x.shape[2]
    n = 0
    while h % 8 != 0:
        h += 1
        n += 1
    return h, n
''',
    "a period that moves": '''
def f(x: torch.Tensor):
    h = x.shape[2]
    while h % (h // 3 + 1) != 0:
        h += 1
    return h
''',
    "a scale read from a tensor": '''
def f(x: torch.Tensor):
    h = x.shape[2]
    while h * x.mean() % 8 != 0:
        h += 1
    return h
''',
    "an else": '''
def f(x: torch.Tensor):
    h = x.shape[2]
    while h % 8 != 0:
        h += 1
    else:
        h = 0
    return h
''',
    "a while True returning something else": '''
def f(x: torch.Tensor):
    h = x.shape[2]
    while True:
        if h % 8 == 0:
            return h + 1
        h += 1
''',
    "not a size": '''
def f(x: torch.Tensor, n: int):
    while n % 8 != 0:
        n += 1
    return x * n
''',
}


@pytest.mark.parametrize("name", list(LOOPS_LEFT_ALONE))
def test_loop_left_alone(name: str) -> None:
    assert "TRT717" not in rules_found(HEADER + LOOPS_LEFT_ALONE[name])


@pytest.mark.parametrize("name", list(LOOPS))
def test_loop_rewrite_and_run(name: str, tmp_path: Path) -> None:
    after, f_before, f_after = _rewritten(*LOOPS[name], tmp_path)
    user_code = after[after.index("\ndef size(" if "\ndef size(" in after else "\ndef f("):]
    assert "while" not in user_code, after
    # Eager mode: the same values, sizes and dtypes, at sizes on and off the multiple, empty axes too.
    shapes = [(1, 2, 8, 8), (1, 2, 9, 7), (2, 3, 13, 5), (1, 1, 0, 6), (1, 1, 5, 0)]
    for shape in shapes:
        for x in _values(shape) if 0 not in shape else [torch.zeros(shape)]:
            assert_same(f_before(x), f_after(x))
    # Traced at one size, the rewritten function follows every other size (the loop's graph keeps
    # the example's); the original's trace does not.
    traced_after = torch.jit.trace(f_after, (torch.randn(1, 2, 9, 7),), check_trace=False)
    traced_before = torch.jit.trace(f_before, (torch.randn(1, 2, 9, 7),), check_trace=False)
    for shape in [(1, 2, 8, 8), (1, 2, 13, 11), (1, 2, 30, 3)]:
        x = torch.randn(shape)
        assert_same(traced_after(x), f_before(x))
    assert any(traced_before(torch.randn(s)).shape != f_before(torch.randn(s)).shape
               for s in [(1, 2, 8, 8), (1, 2, 13, 11), (1, 2, 30, 3)])


def _loop(value, step, period, scale, offset):
    """The loop the helper stands for, as the user wrote it."""
    while (value + offset) * scale % period != 0:
        value += step
    return value


@pytest.mark.parametrize("scale", [1.0, 2.0, 0.5, 1.5, 0.25, 3])
@pytest.mark.parametrize("step", [1, -1])
def test_stepped_helper_is_the_loop(scale: float, step: int) -> None:
    from trtcodemod.helpers.sizes import _trt_size_stepped, _trt_size_test_period

    for period, offset in [(64, 0), (8, 3), (7, -2), (-8, 0)]:
        m = _trt_size_test_period(step, period, scale, offset)
        assert m > 0
        # The size as the graph's output (0 * the input keeps it a traced value, negative ones too).
        traced = torch.jit.trace(lambda x: x.sum() * 0 + _trt_size_stepped(x.shape[0], step, period, scale, offset),
                                 (torch.zeros(5),), check_trace=False)
        for n in [-9, -1, 0, 1, 5, 31, 64, 65, 127, 200]:
            want = _loop(n, step, period, scale, offset)
            assert _trt_size_stepped(n, step, period, scale, offset) == want
            assert (want + offset) % m == 0  # the closed form's period, checked against the loop
            if n >= 0:  # a size the trace can take: the traced closed form, at every size
                assert int(traced(torch.zeros(n))) == want


def test_stepped_helper_takes_the_loop_where_products_are_inexact() -> None:
    from trtcodemod.helpers.sizes import _trt_size_test_period

    # 0.1 is no short binary fraction: `n * 0.1 % 64` meets rounding, the closed form would not be the
    # loop's; no period, so a trace runs the loop itself (and warns, as the original did).
    assert _trt_size_test_period(1, 64, 0.1, 0) == 0
    for bad in [(2, 64, 1.0, 0), (1, 0, 1.0, 0), (1, 64, 0.0, 0), (1, 64, float("nan"), 0),
                (1, 64, float("inf"), 0), (1, 64, 1.0, 0.5), (1, 64.0, 1.0, 0)]:
        assert _trt_size_test_period(*bad) == 0
    with pytest.raises(ZeroDivisionError):  # what the user's loop raises
        from trtcodemod.helpers.sizes import _trt_size_stepped
        _trt_size_stepped(3, 1, 0, 1.0, 0)


def test_stepped_rewrite_scripts(tmp_path: Path) -> None:
    """The rewritten function scripts as the original does (the scale is written as a float)."""
    code, _ = LOOPS["truth_of_the_remainder"]
    after, f_before, f_after = _rewritten(*LOOPS["truth_of_the_remainder"], tmp_path)
    scripted_before, scripted_after = torch.jit.script(f_before), torch.jit.script(f_after)
    for shape in [(1, 2, 3, 8), (1, 2, 3, 9), (1, 1, 1, 0)]:
        x = torch.randn(shape)
        assert_same(scripted_before(x), scripted_after(x))


def test_stepped_helper_with_a_traced_offset() -> None:
    """``pad = 0`` then ``while (h + pad) % 4 != 0: pad += 1``: the count is a Python int, the size beside
    it the traced one; the closed form follows the size."""
    from trtcodemod.helpers.sizes import _trt_size_stepped

    traced = torch.jit.trace(lambda x: x.sum() * 0 + _trt_size_stepped(0, 1, 4, 1.0, x.shape[0]),
                             (torch.zeros(5),), check_trace=False)
    for n in [0, 1, 4, 5, 6, 7, 8, 33]:
        assert int(traced(torch.zeros(n))) == _loop(0, 1, 4, 1.0, n) == (-n) % 4

# --- A pad written into a filled tensor under a size test ------------------------------------------------
# TRT717: a pad to a multiple written as a filled tensor with the input in its corner, under a size test.
#
# CascadePSP's ``safe_forward`` (hkchengrex/CascadePSP@481847c8f20d11e036c2b29d0be290aa8fa26071
# eval_helper.py:11-30), ViTMatte's ``preprocess_inputs`` (hustvl/ViTMatte@8cd7ef068380977c3962c4cb733cb1fe7f2241a5
# modeling/meta_arch/vitmatte.py:72-79) and DiFFMatte's (YihanHu-2022/DiffMatte@12082fdbad2ccc319e411ac4a4f3d208780f2961
# modeling/meta_arch/difmodel.py:109-123) pad with ``torch.zeros`` of the padded sizes, a write into
# ``[:, :, :h, :w]`` and the name rebound, only where a side is not a multiple. The forms below are our own
# small functions of that construct. Each rewrite is shown as text; eager mode is compared bit for bit with
# the original on sizes that are and are not multiples, with zeros, negatives and inf/NaN; scripted code too;
# and the exported graph (dynamic height and width) is compared with eager mode in ONNX Runtime at sizes
# where the test flips, where the original's graph keeps the example's branch.

FILL_CASES = {  # name → (original function, a fragment of the rewrite)
    # CascadePSP's form: a tensor padded with -1 (zeros, then - 1), an optional map under a test on None.
    "zeros_and_minus_one": ('''
def f(x: torch.Tensor, extra: torch.Tensor | None = None):
    b, _, ph, pw = x.shape
    if (ph % 8 != 0) or (pw % 8 != 0):
        newW = ((pw//8+1)*8)
        newH = ((ph//8+1)*8)
        if extra is not None:
            p_extra = torch.zeros(b, 1, newH, newW)
            p_extra[:,:,0:ph,0:pw] = extra
            extra = p_extra
        p_x = torch.zeros(b, 3, newH, newW, device=x.device) - 1
        p_x[:,:,0:ph,0:pw] = x
        x = p_x
    return x if extra is None else x * extra
''', "    b, _, ph, pw = x.shape\n"
     "    _trt_size_choice = (ph % 8 != 0) | (pw % 8 != 0)\n"
     "    if _trt_size_taken(_trt_size_choice):\n"
     "        newW = _trt_size_where(_trt_size_choice, (pw//8+1)*8, pw)\n"
     "        newH = _trt_size_where(_trt_size_choice, (ph//8+1)*8, ph)\n"
     "        if extra is not None:\n"),
    # ViTMatte's form: the sizes in a tuple, `.to(...)` after, the input written whole, `del`, and a side that
    # is a multiple grows by a whole 32 when the other is not (the test chooses, not each side's remainder).
    "tuple_to_and_del": ('''
def f(x: torch.Tensor):
    images = x * 2
    B, C, H, W = images.shape
    if images.shape[-1] % 4 != 0 or images.shape[-2] % 4 != 0:
        new_H = (4 - images.shape[-2] % 4) + H
        new_W = (4 - images.shape[-1] % 4) + W
        new_images = torch.zeros((images.shape[0], images.shape[1], new_H, new_W)).to(x.device)
        new_images[:, :, :H, :W] = images[:, :, :, :]
        del images
        images = new_images
    return images
''', "        new_H = _trt_size_where(_trt_size_choice, (4 - images.shape[-2] % 4) + H, H)\n"
     "        new_W = _trt_size_where(_trt_size_choice, (4 - images.shape[-1] % 4) + W, W)\n"
     "        new_images = torch.zeros((images.shape[0], images.shape[1], new_H, new_W)).to(x.device)\n"),
    # `new_full` with the sizes written in place and the corner after `...`: each chosen where it stands.
    "new_full_inline_sizes": ('''
def f(x: torch.Tensor):
    _, _, h, w = x.shape
    if h % 4 or w % 4:
        out = x.new_full((x.shape[0], x.shape[1], (h + 3) // 4 * 4, (w + 3) // 4 * 4), -2.5)
        out[..., :h, :w] = x
        x = out
    return x
''', "    _trt_size_choice = (h % 4 != 0) | (w % 4 != 0)\n    if _trt_size_taken(_trt_size_choice):\n"
     "        out = x.new_full((x.shape[0], x.shape[1], _trt_size_where(_trt_size_choice, (h + 3) // 4 * 4, h), "
     "_trt_size_where(_trt_size_choice, (w + 3) // 4 * 4, w)), -2.5)\n"),
    # A pad up to a smallest size (not a multiple): `max` of a size (TRT712's, beside), `torch.full` with a list.
    "full_to_a_smallest_size": ('''
def f(x: torch.Tensor):
    b, c, h, w = x.shape
    if h < 8 or w < 8:
        hh = max(h, 8)
        ww = max(w, 8)
        big = torch.full([b, c, hh, ww], 0.5, dtype=x.dtype)
        big[:, :, :h, :w] = x
        x = big
    return x
''', "        hh = _trt_size_where(_trt_size_choice, _trt_size_max(h, 8), h)\n"),
}

#: The rules beside TRT717 a form needs for a graph that follows every size.
RULES = {"full_to_a_smallest_size": ("TRT712", "TRT717")}

#: Shapes whose height and width are both multiples of 8 and 4 (the test false), and shapes that are not.
SHAPES = [(1, 3, 8, 16), (2, 3, 16, 8), (1, 3, 9, 6), (2, 3, 7, 5), (1, 3, 12, 13), (1, 3, 3, 16)]

def _pad(before: str = "", fill: str = "torch.zeros(b, c, new_h, w)", write: str = "big[:, :, :h, :] = x",
         rebind: str = "x = big", more: str = "", test: str = "h % 8 != 0", after: str = "x") -> str:
    """A function padding ``x``'s height to a multiple of 8 through a filled tensor, with one part changed."""
    lines = ["def f(x: torch.Tensor):", "    b, c, h, w = x.shape",
             *(f"    {line}" for line in before.split(";") if line),
             f"    if {test}:", "        new_h = (h // 8 + 1) * 8", f"        big = {fill}", f"        {write}",
             f"        {rebind}", *(f"{line}" for line in more.split(";") if line), f"    return {after}"]
    return "\n".join(lines) + "\n"


FILL_LEFT_ALONE = {
    # A mask of ones in the corner: the value written is no input the branch then stands for.
    "a_mask_written": _pad(before="mask = x[:, :1]", fill="torch.zeros(b, 1, new_h, w)", write="big[:, :, :h, :] = 1",
                           rebind="mask = big", after="mask"),
    # Written away from the corner: where the test is false a fill of the input's size cannot hold it there.
    "not_the_corner": _pad(fill="torch.zeros(b, c, new_h + 1, w)", write="big[:, :, 1:h + 1, :] = x"),
    # The filled tensor read after the `if`: where the test is false the original never bound it.
    "filled_read_after": _pad(before="big = x", after="x + big"),
    # The padded size is read for something else too (a crop's bound after the branch).
    "size_read_elsewhere": _pad(before="new_h = h", after="x[:, :, :new_h]"),
    # A body name sizing a whole axis: where the test is false nothing says it is the input's.
    "body_size_on_a_whole_axis": _pad(fill="torch.zeros(b, c + new_h // 8, new_h, w)"),
    # Not rebound to the name written: the original's `x` stays as it was.
    "not_rebound": _pad(before="y = x", rebind="y = big", after="y"),
    # A bound counted from the end.
    "bound_from_the_end": _pad(write="big[:, :, :-1, :] = x[:, :, 1:]"),
    # Other work in the branch.
    "other_work": _pad(more='        print("padded")'),
    # An `else` doing its own work.
    "with_an_else": _pad(more="    else:;        x = x * 2"),
    # A test on values, not sizes (TRT101's).
    "a_value_test": _pad(test="x.sum() > 0"),
}


@pytest.mark.parametrize("name", list(FILL_LEFT_ALONE))
def test_fill_left_alone(name: str) -> None:
    compile(HEADER + FILL_LEFT_ALONE[name], name, "exec")  # each a valid function, one part away from the form
    assert "TRT717" not in rules_found(HEADER + FILL_LEFT_ALONE[name])


def test_the_form_the_left_alone_cases_change_is_found() -> None:
    assert rules_found(HEADER + _pad()).count("TRT717") == 1


def _fill_rewritten(name: str, tmp_path: Path) -> tuple[str, str, Any, Any]:
    code, fragment = FILL_CASES[name]
    before = HEADER + code.lstrip("\n")
    assert rules_found(before).count("TRT717") == 1
    after = rewrite(before, unsafe=True, select=RULES.get(name, ("TRT717",)))
    assert fragment in after, after
    return before, after, import_source(before, tmp_path)["f"], import_source(after, tmp_path)["f"]


@pytest.mark.parametrize("name", list(FILL_CASES))
def test_fill_rewrite_and_run(name: str, tmp_path: Path) -> None:
    """Eager mode and scripted code decide as before: the same values, dtype and shape, bit for bit."""
    before, after, f_before, f_after = _fill_rewritten(name, tmp_path)
    # The `if` stays (eager mode takes it as written), its test the choice's.
    assert after.split("\ndef f", 1)[1].count("if ") == before.split("\ndef f", 1)[1].count("if "), after
    try:
        scripted = (torch.jit.script(f_before), torch.jit.script(f_after))
    except RuntimeError:  # `del` of a name read after the `if` (ViTMatte's): TorchScript refuses the original
        assert name == "tuple_to_and_del"
        scripted = None
    for shape in SHAPES:
        for x in _values(shape):
            assert_same(f_before(x), f_after(x))
            if scripted is not None:
                assert_same(scripted[0](x), scripted[1](x))
    if name == "zeros_and_minus_one":
        x, extra = torch.randn(2, 3, 7, 5), torch.randn(2, 1, 7, 5)  # the optional map padded too
        assert_same(f_before(x, extra), f_after(x, extra))
    empty = torch.zeros(1, 3, 0, 5)  # an empty axis is a multiple: nothing to pad in either
    assert_same(f_before(empty), f_after(empty))


def _exported(f: Any, shape: tuple[int, ...], path: Path) -> tuple[Any, int]:
    """The TorchScript export with dynamic batch, height and width, loaded in ONNX Runtime, and how many
    TracerWarnings it raised."""
    import onnxruntime as ort

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        torch.onnx.export(_Wrap(f), (torch.randn(shape),), str(path), dynamo=False, opset_version=17,
                          input_names=["x"], dynamic_axes={"x": {0: "n", 2: "h", 3: "w"}})
    traced = sum(1 for w in caught if type(w.message).__name__ == "TracerWarning")
    return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]), traced


def _matches(session: Any, f: Any, shape: tuple[int, ...]) -> bool:
    x = torch.randn(shape, generator=torch.Generator().manual_seed(sum(shape) + 1))
    want = f(x).numpy()
    try:
        [got] = session.run(None, {"x": x.numpy()})
    except Exception:  # noqa: BLE001 - a graph that cannot run at this size does not match
        return False
    return got.shape == want.shape and bool((abs(got - want) <= 1e-6).all())


@pytest.mark.parametrize("name, wrong_both_ways", [("zeros_and_minus_one", True), ("tuple_to_and_del", True),
                                                    ("new_full_inline_sizes", False),
                                                    ("full_to_a_smallest_size", True)])
def test_the_graph_follows_every_size(name: str, wrong_both_ways: bool, tmp_path: Path) -> None:
    """Exported where the test holds and where it does not, the rewritten graph (no TracerWarning) equals
    eager mode at every size, the test flipping or not; the original's graph keeps the example's branch:
    exported at a size that does not pad, it pads nothing anywhere; exported at a size that pads, it pads
    sizes that are multiples already where the padded size is one more multiple (CascadePSP's and ViTMatte's
    formulas: a whole 8 or 4 more) or baked (``max(h, 8)``: 8 at every size), not where it rounds up exactly
    (``(h + 3) // 4 * 4``)."""
    _, _, f_before, f_after = _fill_rewritten(name, tmp_path)
    padded, kept = (2, 3, 7, 5), (1, 3, 16, 8)
    others = [(1, 3, 9, 6), (2, 3, 8, 16), (1, 3, 12, 13), (1, 3, 24, 10), (3, 3, 13, 32)]
    for example in (padded, kept):
        session, traced = _exported(f_after, example, tmp_path / "after.onnx")
        assert traced == 0
        assert all(_matches(session, f_before, shape) for shape in [padded, kept, *others]), example
    for example, wrong in ((padded, kept), (kept, padded)):
        session, traced = _exported(f_before, example, tmp_path / "before.onnx")
        assert traced > 0 and _matches(session, f_before, example)
        assert _matches(session, f_before, wrong) is (example == padded and not wrong_both_ways), (example, wrong)


def test_taken_is_the_condition_outside_a_trace() -> None:
    """``_trt_size_taken`` gives the condition itself (the same object) in eager mode, scripted and for a
    tensor outside a trace; while a trace passes a tensor condition it is True, so the branch is recorded."""
    from trtcodemod.helpers.sizes import _trt_size_taken

    for condition in (True, False, 0, 3, torch.tensor(False), torch.tensor([True, False])):
        assert _trt_size_taken(condition) is condition
    scripted = torch.jit.script(_trt_size_taken)
    assert [scripted(c) for c in (True, False)] == [True, False]

    def branch(x: torch.Tensor) -> torch.Tensor:
        if _trt_size_taken(x.shape[0] > 100):
            return x + 1
        return x

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        traced = torch.jit.trace(branch, (torch.zeros(3),))
    assert torch.equal(traced(torch.zeros(3)), torch.ones(3))  # taken while tracing, at a size where it is false
    assert torch.equal(branch(torch.zeros(3)), torch.zeros(3))  # eager mode: as the test says


# --- a pad to a fixed count, with an early return where the rows already reach it -------------------
# lucid_yolo 0.5.0.dev2's `pad_detections` / `pad_anchor_indices` (lucid_yolo/decode/common.py:96-102 and
# 133-139): a detection output padded to `max_det` rows; the variant is tests/recipe_variants/trt717/.

PAD_TO_COUNT = {  # name → (original function, a fragment of the rewrite)
    "new_zeros_on_the_rows_axis": ('''
def f(x: torch.Tensor, max_det: int):
    kept = x.shape[-2]
    if kept >= max_det:
        return x
    pad_shape = list(x.shape)
    pad_shape[-2] = max_det - kept
    padding = x.new_zeros(pad_shape)
    return torch.cat((x, padding), dim=-2)
''', "    pad_shape[-2] = _trt_size_where(kept < max_det, max_det - kept, 0)\n"),
    "full_of_a_pad_index_in_the_dtype": ('''
def f(x: torch.Tensor, max_det: int):
    kept = x.shape[-1]
    if max_det <= kept:
        return x
    pad_shape = list(x.shape)
    pad_shape[-1] = max_det - kept
    padding = torch.full(pad_shape, -1, dtype=x.dtype, device=x.device)
    return torch.cat([padding, x], -1)
''', "    pad_shape[-1] = _trt_size_where(kept < max_det, max_det - kept, 0)\n"),
    "strict_test_and_a_functional_pad": ('''
def f(x: torch.Tensor, max_det: int):
    kept = x.size(0)
    if kept > max_det:
        return x
    return F.pad(x, (0, 0, 0, max_det - kept), value=-2.0)
''', "    return F.pad(x, (0, 0, 0, _trt_size_where(kept < max_det, max_det - kept, 0)), value=-2.0)\n"),
    # effdet 0.4.1's `generate_detections` (effdet/anchors.py:154-161): the pad is the `if`'s own assignment,
    # done only below the count (there `num_det = len(top_detection_idx)`, which TRT704 makes a traced size).
    "cat_of_zeros_only_below_the_count": ('''
def f(x: torch.Tensor, max_det: int):
    num_det = x.shape[0]
    if num_det < max_det:
        x = torch.cat([
            x,
            torch.zeros((max_det - num_det, 6), device=x.device, dtype=x.dtype)
        ], dim=0)
    return x
''', "        torch.zeros((_trt_size_where(num_det < max_det, max_det - num_det, 0), 6), device=x.device, "
    "dtype=x.dtype)\n    ], dim=0)\n"),
}

PAD_TO_COUNT_LEFT_ALONE = {
    # A fill of another dtype: `cat` of `x` and an empty float tensor promotes an integer `x`.
    "a fill in the default dtype": '''
def f(x: torch.Tensor, max_det: int):
    kept = x.shape[0]
    if kept >= max_det:
        return x
    pad_shape = list(x.shape)
    pad_shape[0] = max_det - kept
    padding = torch.zeros(pad_shape)
    return torch.cat((x, padding), dim=0)
''',
    # The pad along another axis than the amount's: at amount 0 the `cat` raises where the `if` returned.
    "the cat along another axis": '''
def f(x: torch.Tensor, max_det: int):
    kept = x.shape[0]
    if kept >= max_det:
        return x
    pad_shape = list(x.shape)
    pad_shape[0] = max_det - kept
    padding = x.new_zeros(pad_shape)
    return torch.cat((x, padding), dim=1)
''',
    # A pad below the count whose fill is in another dtype than the rows'.
    "a pad below the count in the default dtype": '''
def f(x: torch.Tensor, max_det: int):
    num_det = x.shape[0]
    if num_det < max_det:
        x = torch.cat([x, torch.zeros((max_det - num_det, 6))], dim=0)
    return x
''',
    # More work after the `if` than the pad: done every time, it would change what the early return gave.
    "other work after the if": '''
def f(x: torch.Tensor, max_det: int):
    kept = x.shape[0]
    if kept >= max_det:
        return x
    x = x * 2
    pad_shape = list(x.shape)
    pad_shape[0] = max_det - kept
    return torch.cat((x, x.new_zeros(pad_shape)), dim=0)
''',
}


@pytest.mark.parametrize("name", list(PAD_TO_COUNT_LEFT_ALONE))
def test_pad_to_count_left_alone(name: str) -> None:
    assert "TRT717" not in rules_found(HEADER + PAD_TO_COUNT_LEFT_ALONE[name])


@pytest.mark.parametrize("name", list(PAD_TO_COUNT))
def test_pad_to_count_rewrite_and_run(name: str, tmp_path: Path) -> None:
    """The `if` goes; rows below, at and above the count give the original's values, dtype and shape
    (above: the rows as they are), also integer rows, special values and gradients."""
    code, fragment = PAD_TO_COUNT[name]
    before = HEADER + code.lstrip("\n")
    assert rules_found(before).count("TRT717") == 1
    after = rewrite(before, unsafe=True, select=("TRT717",))
    assert fragment in after, after
    assert "if " not in after.split("def f", 1)[1]
    f_before, f_after = import_source(before, tmp_path)["f"], import_source(after, tmp_path)["f"]
    shape_of = {"full_of_a_pad_index_in_the_dtype": lambda n: (2, n)}.get(name, lambda n: (n, 6))
    for rows in (0, 1, 4, 5, 9):
        shape = shape_of(rows)
        values = _values(shape) if rows * 2 >= 3 else [torch.zeros(shape), torch.randn(shape).double()]
        for x in values + [torch.arange(shape[0] * shape[1]).reshape(shape).long(), torch.ones(shape, dtype=torch.bool)]:
            assert_same(f_before(x, 5), f_after(x, 5))
        leaf_before = torch.randn(shape_of(rows), generator=torch.Generator().manual_seed(rows), requires_grad=True)
        leaf_after = leaf_before.detach().clone().requires_grad_(True)
        out_before, out_after = f_before(leaf_before, 5), f_after(leaf_after, 5)
        assert out_before.requires_grad == out_after.requires_grad
        (out_before * torch.arange(out_before.numel()).reshape(out_before.shape)).sum().backward()
        (out_after * torch.arange(out_after.numel()).reshape(out_after.shape)).sum().backward()
        assert_same(leaf_before.grad, leaf_after.grad)


def test_pad_to_count_exports_for_every_count(tmp_path: Path) -> None:
    """Traced where the rows reach the count, the original graph keeps the early return (fewer rows than the
    count elsewhere); the rewritten graph pads to the count at every number of rows."""
    code, _ = PAD_TO_COUNT["new_zeros_on_the_rows_axis"]
    before = HEADER + code.lstrip("\n")
    after = rewrite(before, unsafe=True, select=("TRT717",))
    graphs = {}
    for label, source in (("before", before), ("after", after)):
        f = import_source(source, tmp_path)["f"]

        class Kept(torch.nn.Module):
            def forward(self, x: torch.Tensor) -> torch.Tensor:
                return f(x[x[:, 4] > 0][:5], 5)

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            graphs[label] = torch.jit.trace(Kept(), torch.ones(8, 6))
        reference = Kept()
        for n in (0, 3, 7):
            x = torch.randn(n + 2, 6, generator=torch.Generator().manual_seed(n))
            if label == "after":
                assert_same(graphs[label](x), reference(x))
    few = torch.full((3, 6), 1.0)
    assert graphs["before"](few).shape == (3, 6)
    assert graphs["after"](few).shape == (5, 6)


def _exported_sides(before: str, after: str, example: torch.Tensor, axes: dict[int, str], tmp_path: Path) -> dict:
    """``f`` of each source exported with the TorchScript exporter at ``example`` (input ``x``, ``axes`` dynamic):
    side -> (its ONNX Runtime session, ``f``)."""
    import onnxruntime as ort

    sessions = {}
    for side, source in (("before", before), ("after", after)):
        f = import_source(source, tmp_path)["f"]
        path = tmp_path / f"{side}.onnx"
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(_Wrap(f), (example,), str(path), dynamo=False, input_names=["x"],
                              dynamic_axes={"x": axes})
        sessions[side] = (ort.InferenceSession(str(path)), f)
    return sessions


@pytest.mark.parametrize("name,wrong_before", [
    ("trim_written_negative", (4, 8, 12)),  # traced at 7 (pad 3): the original keeps `:-pad`, empty where pad is 0
    ("trim_of_both_ends", (6, 9, 12)),  # traced at 7 (delta 1): Demucs' trim, empty where delta is 0
])
def test_a_trim_written_negative_follows_every_width(tmp_path: Path, name: str,
                                                      wrong_before: tuple[int, ...]) -> None:
    """Exported at a width that takes the branch, the original's graph keeps ``:-e`` with ``e`` traced: where
    ``e`` is 0 it takes nothing. The rewritten graph counts the end from the start and gives eager mode's
    result at every width."""
    before = HEADER + CASES[name][0].lstrip("\n")
    after = rewrite(before, unsafe=True, select=("TRT717",))
    sessions = _exported_sides(before, after, torch.randn(2, 3, 7), {0: "b", 2: "w"}, tmp_path)
    widths = (1, 2, 3, 4, 5, 6, 7, 8, 9, 12)
    matches = {}
    for w in widths:
        x = torch.randn(2, 3, w, generator=torch.Generator().manual_seed(w))
        for side, (session, f) in sessions.items():
            want = f(x).numpy()
            [got] = session.run(None, {"x": x.numpy()})
            matches[side, w] = got.shape == want.shape and bool((abs(got - want) <= 1e-6).all())
    assert all(matches["after", w] for w in widths), matches
    assert not any(matches["before", w] for w in wrong_before), matches


# braindecode's U-Sleep encoder (braindecode 1.8.1, braindecode/models/usleep.py:352-372), our own small model: a
# padding module the class builds pads an odd length before a pooling of 2. The test reads the parity of a size.
MODULE_PAD = '''import torch
from torch import nn


class Encoder(nn.Module):
    def __init__(self, pad):
        super().__init__()
        self.pad = pad
        self.edge = nn.{kind}
        self.pool = nn.MaxPool1d(2, 2)

    def forward(self, x: torch.Tensor):
        if x.shape[-1] % 2:
            x = self.edge(x)
        return self.pool(x)
'''
PAD_KINDS = ["ConstantPad1d(padding=1, value=0.0)", "ConstantPad1d((0, 1), -2.5)", "ReflectionPad1d((1, 0))",
             "ReplicationPad1d(1)", "ZeroPad1d((2, 1))"]


@pytest.mark.parametrize("kind", PAD_KINDS)
def test_a_padding_module_the_class_builds_is_padded_by_the_test_while_tracing(tmp_path, kind) -> None:
    import io

    import onnxruntime as ort

    source = MODULE_PAD.replace("{kind}", kind)
    assert rules_found(source, select=("TRT717",)) == ["TRT717"]
    assert rewrite(source, select=("TRT717",)) == source  # unsafe: only with --unsafe (or migrate's proof)
    after = rewrite(source, select=("TRT717",), unsafe=True)
    assert ("        if not torch.jit.is_scripting() and _trt_tracing():\n"
            "            x = _trt_pad_where(self.edge, x, x.shape[-1] % 2 != 0)\n"
            "        elif x.shape[-1] % 2:\n            x = self.edge(x)\n") in after
    before_m, after_m = import_source(source, tmp_path), import_source(after, tmp_path)
    original, rewritten = before_m["Encoder"](None).eval(), after_m["Encoder"](None).eval()
    for length in (8, 9, 1, 2, 3):
        for x in (torch.randn(2, 3, length), torch.zeros(1, 3, length), -torch.rand(2, 3, length),
                  torch.randn(0, 3, length)):
            outcomes = []
            for model in (original, rewritten):
                try:
                    outcomes.append(model(x))
                except RuntimeError as error:  # a reflection of a length-1 axis: torch's own error, both times
                    outcomes.append(type(error))
            if isinstance(outcomes[0], torch.Tensor):
                assert_same(outcomes[1], outcomes[0])
            else:
                assert outcomes[1] is outcomes[0]
    scripted = torch.jit.script(rewritten)  # the `if` scripts as before: the tracing branch is not compiled
    x = torch.randn(2, 3, 9)
    assert_same(scripted(x), original(x))
    buffers = {}
    for name, model in (("before", original), ("after", rewritten)):
        buffers[name] = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.onnx.export(model, (torch.randn(2, 3, 8),), buffers[name], dynamo=False, input_names=["x"],
                              dynamic_axes={"x": {0: "batch", 2: "time"}}, opset_version=17)
    before_graph = ort.InferenceSession(buffers["before"].getvalue())
    after_graph = ort.InferenceSession(buffers["after"].getvalue())
    wrong = 0
    for length in (8, 9, 13, 4, 7):
        x = torch.randn(3, 3, length)
        want = original(x)
        got = torch.from_numpy(after_graph.run(None, {"x": x.numpy()})[0])
        assert_same(got, want)
        baked = before_graph.run(None, {"x": x.numpy()})[0]
        wrong += baked.shape != tuple(want.shape) or not torch.equal(torch.from_numpy(baked), want)
    assert wrong  # the original's graph kept the even example's branch


@pytest.mark.parametrize("source", [
    MODULE_PAD.replace("{kind}", "Identity()"),  # not a padding module
    MODULE_PAD.replace("{kind}", "CircularPad1d(1)"),  # its ONNX symbolic takes constant amounts only
    MODULE_PAD.replace("{kind}", "ConstantPad1d(1, 0.0)").replace("x = self.edge(x)", "x = self.pool(x)"),
    MODULE_PAD.replace("{kind}", "ConstantPad1d(1, 0.0)").replace("x = self.edge(x)", "y = self.edge(x)"),
    MODULE_PAD.replace("{kind}", "ConstantPad1d(1, 0.0)").replace(
        "            x = self.edge(x)\n", "            x = self.edge(x)\n        else:\n            x = x + 1\n"),
])
def test_a_guarded_module_call_that_is_no_pad_of_the_name_is_left_alone(source) -> None:
    assert rewrite(source, select=("TRT717",), unsafe=True) == source
