"""TRT351 (images padded one by one to the batch's largest size): the whole batch at once while tracing.

The rewrite text (DETR's two loops, a mask, `return torch.stack(...)`, a name read only by `torch.max`),
the loops left alone (a number per image, an unknown call on an image, a list read after the loop, a
reduction along an axis), eager mode (the code as written, a list of images of different sizes included),
and the export: the original's graph refuses another batch size; the rewritten graph equals eager mode at
other batch sizes, heights and widths, on zeros, negatives and extreme values.
"""

from __future__ import annotations

import io
import textwrap
import warnings
from types import SimpleNamespace

import numpy as np
import onnxruntime as ort
import pytest
import torch
from safety import import_source
from support import rewrite, rules_found, strip_helpers

SELECT = ("TRT351",)

PACK = '''
import torch
import torch.nn.functional as F
from torch import nn


def pack(tensor_list, block=None):
    max_size = []
    for i in range(tensor_list[0].dim()):
        sizes = torch.stack([torch.as_tensor(img.shape[i]) for img in tensor_list]).to(torch.float32)
        max_size.append(torch.max(sizes).to(torch.int64))
    if block is not None:
        max_size[1] = (max_size[1] + block - 1) // block * block
        max_size[2] = (max_size[2] + block - 1) // block * block
    padded_imgs = []
    padded_masks = []
    for img in tensor_list:
        padding = [(s1 - s2) for s1, s2 in zip(max_size, tuple(img.shape))]
        padded_img = F.pad(img, (0, padding[2], 0, padding[1], 0, padding[0]))
        padded_imgs.append(padded_img)
        m = torch.zeros_like(img[0], dtype=torch.int, device=img.device)
        padded_masks.append(F.pad(m, (0, padding[2], 0, padding[1]), "constant", 1).to(torch.bool))
    tensor = torch.stack(padded_imgs)
    mask = torch.stack(padded_masks, dim=0)
    return tensor, mask


class Net(nn.Module):
    def __init__(self, block=None):
        super().__init__()
        self.block = block

    def forward(self, x):
        tensor, mask = pack(x, self.block)
        return tensor * 2.0, mask
'''

EXPECTED_LOOP = '''\
    if _trt_tracing() and isinstance(tensor_list, torch.Tensor) and tensor_list.dim() > 3:
        padding = [(s1 - s2) for s1, s2 in zip(max_size, tuple(tensor_list.shape[1:]))]
        padded_img = F.pad(tensor_list, (0, padding[2], 0, padding[1], 0, padding[0]))
        padded_imgs = padded_img
        m = torch.zeros_like(tensor_list[:, 0], dtype=torch.int, device=tensor_list.device)
        padded_masks = F.pad(m, (0, padding[2], 0, padding[1]), "constant", 1).to(torch.bool)
        tensor = padded_imgs
        mask = padded_masks
    else:
        for img in tensor_list:
            padding = [(s1 - s2) for s1, s2 in zip(max_size, tuple(img.shape))]
            padded_img = F.pad(img, (0, padding[2], 0, padding[1], 0, padding[0]))
            padded_imgs.append(padded_img)
            m = torch.zeros_like(img[0], dtype=torch.int, device=img.device)
            padded_masks.append(F.pad(m, (0, padding[2], 0, padding[1]), "constant", 1).to(torch.bool))
        tensor = torch.stack(padded_imgs)
        mask = torch.stack(padded_masks, dim=0)
    return tensor, mask
'''


def test_rewrite_text() -> None:
    assert rules_found(PACK, select=SELECT) == ["TRT351", "TRT351"]
    out = strip_helpers(rewrite(PACK, select=SELECT))
    assert ("sizes = torch.stack([torch.as_tensor(img.shape[i]) for img in (tensor_list[:1].unbind(0) if _trt_tracing() and "
            "isinstance(tensor_list, torch.Tensor) else tensor_list)]).to(torch.float32)") in out
    assert EXPECTED_LOOP in out, out


def test_return_of_the_stack_and_a_reduction_written_directly() -> None:
    code = '''
    import torch

    def batch_images(images):
        biggest = [torch.max(torch.stack([img.shape[i] for img in images])) for i in range(3)]
        padded = []
        for img in images:
            padded.append(torch.nn.functional.pad(img, (0, biggest[2] - img.shape[2], 0, biggest[1] - img.shape[1])))
        return torch.stack(padded)
    '''
    out = strip_helpers(rewrite(code, select=SELECT))
    assert "for img in (images[:1].unbind(0) if _trt_tracing() and isinstance(images, torch.Tensor) else images)" in out
    assert ("    if _trt_tracing() and isinstance(images, torch.Tensor) and images.dim() > 3:\n"
            "        padded = torch.nn.functional.pad(images, (0, biggest[2] - images.shape[3], 0, "
            "biggest[1] - images.shape[2]))\n"
            "        return padded\n"
            "    else:\n") in out, out


@pytest.mark.parametrize("code", [
    # a number per image appended: the list is not the batch's rows
    '''
    import torch
    def f(images):
        heights = []
        for img in images:
            heights.append(img.shape[1])
        return torch.stack(heights)
    ''',
    # a call on an image this rule does not know to act row by row
    '''
    import torch
    def f(images):
        out = []
        for img in images:
            out.append(torch.flip(img, [0]))
        return torch.stack(out)
    ''',
    # the list is read after its stack
    '''
    import torch
    def f(images):
        out = []
        for img in images:
            out.append(torch.nn.functional.pad(img, (0, 1)))
        tensor = torch.stack(out)
        return tensor, len(out)
    ''',
    # stacked along another axis
    '''
    import torch
    def f(images):
        out = []
        for img in images:
            out.append(torch.nn.functional.pad(img, (0, 1)))
        return torch.stack(out, dim=1)
    ''',
    # a name bound in the loop is read after it
    '''
    import torch
    def f(images):
        out = []
        for img in images:
            p = torch.nn.functional.pad(img, (0, 1))
            out.append(p)
        tensor = torch.stack(out)
        return tensor + p
    ''',
    # the image itself appended (the branch would hand out the input, where the stack copies it)
    '''
    import torch
    def f(images):
        out = []
        for img in images:
            out.append(img.float())
        return torch.stack(out)
    ''',
    # a view of the image appended
    '''
    import torch
    def f(images):
        out = []
        for img in images:
            view = img[0]
            out.append(view)
        return torch.stack(out)
    ''',
    # a tensor index on an image
    '''
    import torch
    def f(images, keep):
        out = []
        for img in images:
            out.append(torch.nn.functional.pad(img[keep], (0, 1)))
        return torch.stack(out)
    ''',
    # the sizes are summed along an axis, not reduced over all of them
    '''
    import torch
    def f(images):
        return torch.max(torch.stack([img.shape[1] for img in images]), 0)
    ''',
    # the stacked values depend on each image's values, not only its size
    '''
    import torch
    def f(images):
        return torch.max(torch.stack([img.sum() for img in images]))
    ''',
])
def test_left_alone(code: str) -> None:
    assert rules_found(code, select=SELECT) == []


def _nets(tmp_path):
    before = import_source(textwrap.dedent(PACK), tmp_path)
    after = import_source(rewrite(PACK, select=SELECT), tmp_path)
    return SimpleNamespace(**before), SimpleNamespace(**after)


def _export(net, example):
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(net, example, buffer, dynamo=False, input_names=["x"], output_names=["tensor", "mask"],
                          dynamic_axes={"x": {0: "b", 2: "h", 3: "w"}})
    return ort.InferenceSession(buffer.getvalue(), providers=["CPUExecutionProvider"])


def _sets() -> dict[str, torch.Tensor]:
    g = torch.Generator().manual_seed(3)
    return {
        "batch-3": torch.rand(3, 3, 12, 10, generator=g),
        "batch-2-taller": torch.rand(2, 3, 17, 9, generator=g),
        "one-pixel": torch.rand(4, 3, 1, 1, generator=g),
        "zeros": torch.zeros(2, 3, 8, 8),
        "negatives": -torch.rand(2, 3, 6, 7, generator=g),
        "extremes": torch.tensor([torch.finfo(torch.float32).max, torch.finfo(torch.float32).min, 0.0, -0.0,
                                  1e-38]).repeat(2, 3, 5, 1),
    }


@pytest.mark.parametrize("block", [None, 4])
def test_eager_unchanged(tmp_path, block) -> None:
    before, after = _nets(tmp_path)
    for label, x in _sets().items():
        a, b = before.Net(block)(x), after.Net(block)(x)
        assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1]), label
    g = torch.Generator().manual_seed(5)
    images = [torch.rand(3, 5, 7, generator=g), torch.rand(3, 8, 4, generator=g)]  # a list: different sizes
    a, b = before.pack(images, block), after.pack(images, block)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert a[1].sum() > 0  # the list's smaller images are padded, their masks set there


@pytest.mark.parametrize("block", [None, 4])
def test_export_follows_the_batch(tmp_path, block) -> None:
    before, after = _nets(tmp_path)
    example = (torch.rand(1, 3, 6, 5, generator=torch.Generator().manual_seed(0)),)
    original = _export(before.Net(block).eval(), example)
    with pytest.raises(Exception, match="split"):  # the unrolled rows: a Split into the example's one row
        original.run(None, {"x": _sets()["batch-3"].numpy()})
    session = _export(after.Net(block).eval(), example)
    for label, x in {"example": example[0], **_sets()}.items():
        tensor, mask = session.run(None, {"x": x.numpy()})
        want = before.Net(block)(x)
        np.testing.assert_array_equal(tensor, want[0].numpy(), err_msg=label)
        np.testing.assert_array_equal(mask, want[1].numpy(), err_msg=label)
        if block is not None:
            assert tensor.shape[2] % block == 0 and tensor.shape[3] % block == 0, label
