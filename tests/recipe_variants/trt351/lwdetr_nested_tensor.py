"""LW-DETR's packed batch, taken apart again with ``decompose()``.

Reduced from Atten4Vis/LW-DETR (commit d5e6e6c), util/misc.py: ``_onnx_nested_tensor_from_tensor_list``
(lines 345-370), the tracing form of ``nested_tensor_from_tensor_list`` (lines 317-339): the largest size of
each axis over the images, a loop padding each image and its mask into two lists, ``torch.stack`` of both,
returned as a ``NestedTensor`` whose ``decompose()`` the model reads (models/lwdetr.py). Written here in
our own words, with a small ``NestedTensor`` class of our own.
"""

import torch
from torch import nn


class NestedTensor:
    def __init__(self, tensors, mask):
        self.tensors = tensors
        self.mask = mask

    def decompose(self):
        return self.tensors, self.mask


def nested_tensor_from_tensor_list(tensor_list):
    if torch.jit.is_tracing():
        return _onnx_nested_tensor_from_tensor_list(tensor_list)
    c = max(img.shape[0] for img in tensor_list)
    h = max(img.shape[1] for img in tensor_list)
    w = max(img.shape[2] for img in tensor_list)
    tensor = torch.zeros((len(tensor_list), c, h, w), dtype=tensor_list[0].dtype)
    mask = torch.ones((len(tensor_list), h, w), dtype=torch.bool)
    for img, pad_img, m in zip(tensor_list, tensor, mask):
        pad_img[: img.shape[0], : img.shape[1], : img.shape[2]].copy_(img)
        m[: img.shape[1], : img.shape[2]] = False
    return NestedTensor(tensor, mask)


def _onnx_nested_tensor_from_tensor_list(tensor_list):
    max_size = []
    for i in range(tensor_list[0].dim()):
        max_size_i = torch.max(torch.stack([img.shape[i] for img in tensor_list]).to(torch.float32)).to(torch.int64)
        max_size.append(max_size_i)
    max_size = tuple(max_size)
    padded_imgs = []
    padded_masks = []
    for img in tensor_list:
        padding = [(s1 - s2) for s1, s2 in zip(max_size, tuple(img.shape))]
        padded_img = torch.nn.functional.pad(img, (0, padding[2], 0, padding[1], 0, padding[0]))
        padded_imgs.append(padded_img)
        m = torch.zeros_like(img[0], dtype=torch.int, device=img.device)
        padded_mask = torch.nn.functional.pad(m, (0, padding[2], 0, padding[1]), "constant", 1)
        padded_masks.append(padded_mask.to(torch.bool))
    tensor = torch.stack(padded_imgs)
    mask = torch.stack(padded_masks)
    return NestedTensor(tensor, mask=mask)


class LwDetr(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, samples):
        tensors, mask = nested_tensor_from_tensor_list(samples).decompose()
        return self.conv(tensors).sum(1) - mask.float()


def build() -> nn.Module:
    torch.manual_seed(0)
    return LwDetr().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 12, 12, generator=generator),)


DYNAMIC = {"samples": {0: "batch", 2: "height", 3: "width"}}
