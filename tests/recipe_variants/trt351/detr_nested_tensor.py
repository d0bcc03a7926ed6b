"""DETR's packing of the input images into a padded batch and a mask, as the model calls it on a batch.

Reduced from facebookresearch/detr (commit 29901c5), util/misc.py: ``nested_tensor_from_tensor_list``
(lines 307-329) hands over to ``_onnx_nested_tensor_from_tensor_list`` (lines 335-360) while tracing;
that one takes the largest size of each axis with ``torch.max(torch.stack([img.shape[i] for img in
tensor_list]).to(torch.float32)).to(torch.int64)``, then loops ``for img in tensor_list:`` padding each
image with ``F.pad`` and its mask (zeros padded with ones) and stacks both lists. ``DETR.forward``
calls it on a ``torch.Tensor`` input. Written here in our own words; the backbone is one convolution.
"""

import torch
from torch import nn


def _max_by_axis(the_list):
    maxes = the_list[0]
    for sublist in the_list[1:]:
        for index, item in enumerate(sublist):
            maxes[index] = max(maxes[index], item)
    return maxes


def nested_tensor_from_tensor_list(tensor_list):
    if torch.jit.is_tracing():
        return _onnx_nested_tensor_from_tensor_list(tensor_list)
    max_size = _max_by_axis([list(img.shape) for img in tensor_list])
    b, c, h, w = [len(tensor_list)] + max_size
    tensor = torch.zeros((b, c, h, w), dtype=tensor_list[0].dtype)
    mask = torch.ones((b, h, w), dtype=torch.bool)
    for img, pad_img, m in zip(tensor_list, tensor, mask):
        pad_img[: img.shape[0], : img.shape[1], : img.shape[2]].copy_(img)
        m[: img.shape[1], : img.shape[2]] = False
    return tensor, mask


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
    return tensor, mask


class Detr(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.backbone = nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, samples):
        tensor, mask = nested_tensor_from_tensor_list(samples)
        features = self.backbone(tensor)
        return features.masked_fill(mask[:, None], 0.0)


def build() -> nn.Module:
    torch.manual_seed(0)
    return Detr().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 12, 10, generator=generator),)


DYNAMIC = {"samples": {0: "batch", 2: "height", 3: "width"}}
