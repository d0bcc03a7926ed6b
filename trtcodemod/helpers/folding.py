"""``F.fold`` (col2im), exported as shifted block images added up (Reshape, Pad, Add, Slice).

The TorchScript exporter writes ``F.fold`` only from opset 18, as ONNX ``Col2Im``, which no
TensorRT release parses. Folding adds every block's values back at its place in the image. With a
stride ``s`` and no dilation, kernel row ``i = q * s + r`` of block ``n`` lands on image row
``(n + q) * s + r``: the kernel rows ``q * s`` to ``q * s + s - 1`` of all blocks, laid out block
after block, are one image shifted down by ``q * s``. So fold is a sum of ``ceil(k / s)`` such
images per axis, made by reshapes and zero pads alone, with no multiplication (a convolution's
zero weights would turn an infinity into NaN elsewhere). ``_trt_fold`` is ``F.fold`` itself
everywhere except inside ``torch.onnx.export``, where it takes that sum.
"""

import torch

from trtcodemod.helpers.onnx_export import _trt_onnx_exporting


def _trt_fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """``F.fold(input, output_size, kernel_size, dilation, padding, stride)``; while exporting to
    ONNX, the same sums as shifted block images added up.

    Inputs ``fold`` refuses or that the sum does not take (integer dtypes, which ``F.fold`` has no
    kernel for, a rank other than 2 or 3, a dilation other than 1) keep ``F.fold`` while exporting too.
    """
    if torch.jit.is_scripting():
        return torch.nn.functional.fold(input, output_size, kernel_size, dilation, padding, stride)
    if _trt_onnx_exporting() and isinstance(input, torch.Tensor) and input.dim() in (2, 3) \
            and input.is_floating_point() and _trt_fold_pair(dilation) == (1, 1):
        return _trt_fold_shifted(input, output_size, kernel_size, padding, stride)
    return torch.nn.functional.fold(input, output_size, kernel_size, dilation, padding, stride)


@torch.jit.unused
def _trt_fold_pair(value):
    """An ``int`` or a pair of them as a pair (fold's own convention; never runs when scripted)."""
    return (value, value) if isinstance(value, int) or not hasattr(value, "__len__") else tuple(value)


@torch.jit.unused
def _trt_fold_shifted(input, output_size, kernel_size, padding, stride):
    """The blocks of ``input`` added into the image as shifted block images (never runs when scripted)."""
    # fold's own checks (block count, channels a multiple of the kernel's size): the same error as
    # ``F.fold``; the result is never used, so the exported graph drops the node.
    torch.nn.functional.fold(input, output_size, kernel_size, 1, padding, stride)
    (kh, kw), (ph, pw), (sh, sw) = _trt_fold_pair(kernel_size), _trt_fold_pair(padding), _trt_fold_pair(stride)
    height, width = _trt_fold_pair(output_size)
    columns = input if input.dim() == 3 else input.unsqueeze(0)
    batch, channels = columns.shape[0], columns.shape[1] // (kh * kw)
    rows = (height + 2 * ph - kh) // sh + 1
    cols = (width + 2 * pw - kw) // sw + 1
    # batch, channel, kernel row, kernel column, block row, block column -> rows of blocks first.
    blocks = columns.reshape(batch, channels, kh, kw, rows, cols).permute(0, 1, 4, 2, 5, 3)
    # ceil(k / s) on non-negative numbers only: with a size traced from a shape (nnAudio's `n_fft = X.shape[1]`)
    # the TorchScript exporter writes `//` as ONNX Div, which truncates, so `-(-k // s)` came out one short
    # where the stride does not divide the kernel, and the last part's pad turned negative (a crop).
    shifts_h, shifts_w = (kh + sh - 1) // sh, (kw + sw - 1) // sw
    # Starting from zeros, as fold does: a lone -0.0 sums to 0.0 there too.
    image = torch.zeros((), dtype=input.dtype, device=input.device)
    for qh in range(shifts_h):
        for qw in range(shifts_w):
            part = blocks[:, :, :, qh * sh:(qh + 1) * sh, :, qw * sw:(qw + 1) * sw]
            # A short last part (the kernel is not a multiple of the stride) and kernel rows
            # past it (the stride is longer than the kernel) hold nothing: zeros.
            part = torch.nn.functional.pad(part, (0, sw - part.shape[-1], 0, 0, 0, sh - part.shape[-3]))
            part = part.reshape(batch, channels, rows * sh, cols * sw)
            image = image + torch.nn.functional.pad(
                part, (qw * sw, (shifts_w - 1 - qw) * sw, qh * sh, (shifts_h - 1 - qh) * sh))
    # Cut the output out: fold drops the padding, and leaves rows and columns past the last block zero.
    image = torch.nn.functional.pad(image, (0, pw + width, 0, ph + height))
    image = image[:, :, ph:ph + height, pw:pw + width]
    return image if input.dim() == 3 else image.squeeze(0)
