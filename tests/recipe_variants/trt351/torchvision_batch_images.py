"""torchvision's detection transform batching its images, rounded up to ``size_divisible``, with no mask.

Reduced from pytorch/vision (commit 01fdb48; the same text in torchvision 0.29.1 from PyPI, lines 209-228
and 237-255), torchvision/models/detection/transform.py: ``GeneralizedRCNNTransform.batch_images`` hands
over to ``_onnx_batch_images`` while tracing; that method
takes the largest size of each axis with ``torch.max(torch.stack([img.shape[i] for img in
images]).to(torch.float32)).to(torch.int64)``, rounds the height and width up with ``torch.ceil(... /
stride) * stride``, pads each image in a loop and returns ``torch.stack(padded_imgs)`` directly. Written here
in our own words as a module whose forward batches its input tensor.
"""

import math

import torch
from torch import nn


class BatchImages(nn.Module):
    def __init__(self, size_divisible: int = 8) -> None:
        super().__init__()
        self.size_divisible = size_divisible
        self.head = nn.Conv2d(3, 2, 3, padding=1)

    def batch_images(self, images, size_divisible: int = 32):
        if torch.jit.is_tracing():
            return self._onnx_batch_images(images, size_divisible)
        max_size = [max(s) for s in zip(*[img.shape for img in images])]
        stride = float(size_divisible)
        max_size[1] = int(math.ceil(float(max_size[1]) / stride) * stride)
        max_size[2] = int(math.ceil(float(max_size[2]) / stride) * stride)
        batched_imgs = images[0].new_full([len(images)] + max_size, 0)
        for i in range(batched_imgs.shape[0]):
            img = images[i]
            batched_imgs[i, : img.shape[0], : img.shape[1], : img.shape[2]].copy_(img)
        return batched_imgs

    def _onnx_batch_images(self, images, size_divisible: int = 32):
        max_size = []
        for i in range(images[0].dim()):
            max_size_i = torch.max(torch.stack([img.shape[i] for img in images]).to(torch.float32)).to(torch.int64)
            max_size.append(max_size_i)
        stride = size_divisible
        max_size[1] = (torch.ceil((max_size[1].to(torch.float32)) / stride) * stride).to(torch.int64)
        max_size[2] = (torch.ceil((max_size[2].to(torch.float32)) / stride) * stride).to(torch.int64)
        max_size = tuple(max_size)
        padded_imgs = []
        for img in images:
            padding = [(s1 - s2) for s1, s2 in zip(max_size, tuple(img.shape))]
            padded_img = torch.nn.functional.pad(img, (0, padding[2], 0, padding[1], 0, padding[0]))
            padded_imgs.append(padded_img)
        return torch.stack(padded_imgs)

    def forward(self, x):
        return self.head(self.batch_images(x, self.size_divisible))


def build() -> nn.Module:
    torch.manual_seed(0)
    return BatchImages().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(1, 3, 13, 10, generator=generator),)


DYNAMIC = {"x": {0: "batch", 2: "height", 3: "width"}}
