"""Grounding DINO's packing of the image batch, its largest size written over three lines.

Reduced from IDEA-Research/GroundingDINO (commit 856dde2), groundingdino/util/misc.py:
``_onnx_nested_tensor_from_tensor_list`` (lines 502-529), which ``nested_tensor_from_tensor_list`` (lines
474-496) calls while tracing: ``max_size_i = torch.max(`` / ``torch.stack([img.shape[i] for img in
tensor_list]).to(torch.float32)`` / ``).to(torch.int64)``, then ``for img in tensor_list:`` with ``F.pad`` of
the image and of a mask of zeros (padded with ones), stacked after the loop. ``GroundingDINO.forward`` packs
its ``samples`` tensor so. Written here in our own words; the mask feeds a sine position embedding's running
sums (models/GroundingDINO/backbone/position_encoding.py: ``not_mask.cumsum(1)``).
"""

import torch
from torch import nn


def to_nested(tensor_list):
    if torch.jit.is_tracing():
        return to_nested_onnx(tensor_list)
    shape = [max(sizes) for sizes in zip(*[img.shape for img in tensor_list])]
    tensor = torch.zeros([len(tensor_list)] + shape, dtype=tensor_list[0].dtype)
    mask = torch.ones((len(tensor_list), shape[1], shape[2]), dtype=torch.bool)
    for img, pad_img, m in zip(tensor_list, tensor, mask):
        pad_img[: img.shape[0], : img.shape[1], : img.shape[2]].copy_(img)
        m[: img.shape[1], : img.shape[2]] = False
    return tensor, mask


def to_nested_onnx(tensor_list):
    max_size = []
    for i in range(tensor_list[0].dim()):
        max_size_i = torch.max(
            torch.stack([img.shape[i] for img in tensor_list]).to(torch.float32)
        ).to(torch.int64)
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


class GroundingDino(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 3, 3, padding=1)

    def forward(self, samples):
        tensor, mask = to_nested(samples)
        not_mask = ~mask
        y_embed = not_mask.cumsum(1, dtype=torch.float32)
        x_embed = not_mask.cumsum(2, dtype=torch.float32)
        return self.stem(tensor) + (y_embed + 2 * x_embed)[:, None]


def build() -> nn.Module:
    torch.manual_seed(0)
    return GroundingDino().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 9, 11, generator=generator),)


DYNAMIC = {"samples": {0: "batch", 2: "height", 3: "width"}}
