"""DINO's packed batch and the valid ratios its deformable encoder reads from the mask.

Reduced from IDEA-Research/DINO (commit faa8520), util/misc.py: ``_onnx_nested_tensor_from_tensor_list``
(lines 403-428), the traced form of ``nested_tensor_from_tensor_list`` (lines 375-397): the largest size
of each axis over the images, then a loop padding each image and a mask (zeros padded with ones) into lists
that are stacked. The deformable transformer (models/dino/deformable_transformer.py,
``get_valid_ratio``) then takes ``torch.sum(~mask[:, :, 0], 1)`` and ``torch.sum(~mask[:, 0, :], 1)`` over
the height and width. Written here in our own words; the packing returns the mask alone beside the padded
batch it scales.
"""

import torch
from torch import nn


def nested_from_list(tensor_list):
    if torch.jit.is_tracing():
        return onnx_nested_from_list(tensor_list)
    h = max(img.shape[1] for img in tensor_list)
    w = max(img.shape[2] for img in tensor_list)
    tensor = tensor_list[0].new_zeros((len(tensor_list), tensor_list[0].shape[0], h, w))
    mask = torch.ones((len(tensor_list), h, w), dtype=torch.bool)
    for img, pad_img, m in zip(tensor_list, tensor, mask):
        pad_img[: img.shape[0], : img.shape[1], : img.shape[2]].copy_(img)
        m[: img.shape[1], : img.shape[2]] = False
    return tensor, mask


def onnx_nested_from_list(tensor_list):
    max_size = []
    for i in range(tensor_list[0].dim()):
        biggest = torch.max(torch.stack([img.shape[i] for img in tensor_list]).to(torch.float32)).to(torch.int64)
        max_size.append(biggest)
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


class Dino(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Conv2d(3, 2, 1)

    def forward(self, samples):
        tensor, mask = nested_from_list(samples)
        _, height, width = mask.shape
        valid_h = torch.sum(~mask[:, :, 0], 1)
        valid_w = torch.sum(~mask[:, 0, :], 1)
        ratio = torch.stack([valid_w.float() / width, valid_h.float() / height], -1)
        return self.proj(tensor).mean((2, 3)) * ratio


def build() -> nn.Module:
    torch.manual_seed(0)
    return Dino().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 10, 14, generator=generator),)


DYNAMIC = {"samples": {0: "batch", 2: "height", 3: "width"}}
