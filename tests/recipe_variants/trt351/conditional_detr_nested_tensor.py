"""Conditional DETR's packing of a batch into padded images and a mask, the mask resized to the features.

Reduced from Atten4Vis/ConditionalDETR (commit 8ea7c3f), util/misc.py: ``_onnx_nested_tensor_from_tensor_list``
(lines 342-367, the tracing form of ``nested_tensor_from_tensor_list``, lines 314-336): the largest size of
each axis over the images, then a loop padding each image and a mask of zeros padded with ones into two lists
that are stacked. ``ConditionalDETR.forward`` passes its ``torch.Tensor`` input; the backbone
(models/backbone.py) resizes the mask to each feature map with ``F.interpolate(m[None].float(),
size=x.shape[-2:]).to(torch.bool)[0]``. Written here in our own words, with a strided convolution as the
backbone and the packing function returning the pair the NestedTensor holds.
"""

import torch
import torch.nn.functional as F
from torch import nn


def pack_images(tensor_list):
    if torch.jit.is_tracing():
        return pack_images_for_onnx(tensor_list)
    sizes = [list(img.shape) for img in tensor_list]
    c, h, w = (max(s[k] for s in sizes) for k in range(3))
    tensor = torch.zeros((len(tensor_list), c, h, w), dtype=tensor_list[0].dtype)
    mask = torch.ones((len(tensor_list), h, w), dtype=torch.bool)
    for img, pad_img, m in zip(tensor_list, tensor, mask):
        pad_img[: img.shape[0], : img.shape[1], : img.shape[2]].copy_(img)
        m[: img.shape[1], : img.shape[2]] = False
    return tensor, mask


def pack_images_for_onnx(tensor_list):
    max_size = []
    for i in range(tensor_list[0].dim()):
        max_size.append(torch.max(torch.stack([img.shape[i] for img in tensor_list]).to(torch.float32)).to(torch.int64))
    max_size = tuple(max_size)
    padded_imgs = []
    padded_masks = []
    for img in tensor_list:
        padding = [(s1 - s2) for s1, s2 in zip(max_size, tuple(img.shape))]
        padded_imgs.append(F.pad(img, (0, padding[2], 0, padding[1], 0, padding[0])))
        m = torch.zeros_like(img[0], dtype=torch.int, device=img.device)
        padded_masks.append(F.pad(m, (0, padding[2], 0, padding[1]), "constant", 1).to(torch.bool))
    tensor = torch.stack(padded_imgs)
    mask = torch.stack(padded_masks)
    return tensor, mask


class ConditionalDetr(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.body = nn.Conv2d(3, 4, 3, stride=2, padding=1)

    def forward(self, samples):
        tensor, mask = pack_images(samples)
        x = self.body(tensor)
        small = F.interpolate(mask[None].float(), size=x.shape[-2:]).to(torch.bool)[0]
        return x, small


def build() -> nn.Module:
    torch.manual_seed(0)
    return ConditionalDetr().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 16, 12, generator=generator),)


DYNAMIC = {"samples": {0: "batch", 2: "height", 3: "width"}}
