"""RF-DETR's packing, its sizes read through ``torch.as_tensor`` and rounded up to a block size.

Reduced from rfdetr 1.11.2 (roboflow/rf-detr), rfdetr/utilities/tensors.py: ``nested_tensor_from_tensor_list``
(lines 125-193) hands over to ``_onnx_nested_tensor_from_tensor_list`` (lines 196-245) while tracing. That
one binds ``dim_sizes = torch.stack([torch.as_tensor(img.shape[i]) for img in tensor_list]).to(torch.float32)``
and takes ``torch.max(dim_sizes)``, rounds the height and width up to ``block_size`` with tensor arithmetic,
then pads each image and a mask in a loop and stacks both. ``LWDETR.forward`` passes its 4-D input tensor.
Written here in our own words; the eager path pads into zeros as rfdetr's does.
"""

import torch
import torch.nn.functional as F
from torch import Tensor, nn


def nested_tensor_from_tensor_list(tensor_list, block_size=None):
    if torch.jit.is_tracing():
        return _onnx_nested_tensor_from_tensor_list(tensor_list, block_size=block_size)
    c = tensor_list[0].shape[0]
    h = max(img.shape[1] for img in tensor_list)
    w = max(img.shape[2] for img in tensor_list)
    if block_size is not None:
        h = (h + block_size - 1) // block_size * block_size
        w = (w + block_size - 1) // block_size * block_size
    tensor = torch.zeros((len(tensor_list), c, h, w), dtype=tensor_list[0].dtype)
    mask = torch.ones((len(tensor_list), h, w), dtype=torch.bool)
    for img, pad_img, m in zip(tensor_list, tensor, mask):
        pad_img[: img.shape[0], : img.shape[1], : img.shape[2]].copy_(img)
        m[: img.shape[1], : img.shape[2]] = False
    return tensor, mask


def _onnx_nested_tensor_from_tensor_list(tensor_list, block_size=None):
    max_size: list[Tensor] = []
    for i in range(tensor_list[0].dim()):
        dim_sizes = torch.stack([torch.as_tensor(img.shape[i]) for img in tensor_list]).to(torch.float32)
        max_size_i = torch.max(dim_sizes).to(torch.int64)
        max_size.append(max_size_i)
    if block_size is not None:
        bs = torch.as_tensor(block_size, dtype=torch.int64)
        max_size[1] = ((max_size[1] + bs - 1) // bs) * bs
        max_size[2] = ((max_size[2] + bs - 1) // bs) * bs
    max_size_tuple = tuple(max_size)

    padded_imgs = []
    padded_masks = []
    for img in tensor_list:
        padding = [(s1 - s2) for s1, s2 in zip(max_size_tuple, tuple(img.shape))]
        padded_img = F.pad(img, (0, padding[2], 0, padding[1], 0, padding[0]))
        padded_imgs.append(padded_img)

        m = torch.zeros_like(img[0], dtype=torch.int, device=img.device)
        padded_mask = F.pad(m, (0, padding[2], 0, padding[1]), "constant", 1)
        padded_masks.append(padded_mask.to(torch.bool))

    tensor = torch.stack(padded_imgs)
    mask = torch.stack(padded_masks)
    return tensor, mask


class RfDetr(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.patch = nn.Conv2d(3, 4, 4, stride=4)

    def forward(self, samples):
        tensor, mask = nested_tensor_from_tensor_list(samples, block_size=8)
        return self.patch(tensor), mask


def build() -> nn.Module:
    torch.manual_seed(0)
    return RfDetr().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 13, 18, generator=generator),)


DYNAMIC = {"samples": {0: "batch", 2: "height", 3: "width"}}
