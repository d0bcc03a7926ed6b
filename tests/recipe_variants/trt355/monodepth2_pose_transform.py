"""monodepth2's pose decoding: axis-angle and translation from a network, made a 4x4 camera transform.

Reduced from nianticlabs/monodepth2 at commit b676244e5a1ca55564eb5d16ab521a48f823af31, layers.py,
``transformation_from_parameters`` and ``get_translation_matrix`` (lines 28-59): the translation is
negated for the inverse transform, and written into the last column of an identity built in place
with ``T[:, :3, 3, None] = t`` (line 59), ``t`` a ``(b, 3, 1)`` view; the same function is in
nianticlabs/manydepth at a36212bda725438c0b96ce0793a92f9c148914bf, manydepth/layers.py:57. The
rotation here is a small one of our own (about the z axis only) so that the model stays short; a
linear layer stands in for the pose decoder. Written here in our own words.
"""

import torch
from torch import nn


def translation_matrix(shift):
    out = torch.zeros(shift.shape[0], 4, 4).to(device=shift.device)
    column = shift.contiguous().view(-1, 3, 1)
    out[:, 0, 0] = 1
    out[:, 1, 1] = 1
    out[:, 2, 2] = 1
    out[:, 3, 3] = 1
    out[:, :3, 3, None] = column
    return out


def z_rotation(angle):
    c, s = torch.cos(angle), torch.sin(angle)
    zero, one = torch.zeros_like(angle), torch.ones_like(angle)
    rows = [torch.stack([c, -s, zero, zero], -1), torch.stack([s, c, zero, zero], -1),
            torch.stack([zero, zero, one, zero], -1), torch.stack([zero, zero, zero, one], -1)]
    return torch.stack(rows, -2)


class PoseHead(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.decode = nn.Linear(16, 4)

    def forward(self, features):
        pose = 0.01 * self.decode(features)
        rotation = z_rotation(pose[:, 0]).transpose(1, 2)
        shift = pose[:, 1:].clone()
        shift *= -1
        return torch.matmul(rotation, translation_matrix(shift))


def build() -> nn.Module:
    return PoseHead().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 16, generator=generator) * 50,)


DYNAMIC = {"features": {0: "batch"}}
