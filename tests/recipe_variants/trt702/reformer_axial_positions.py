"""Reformer's axial position encodings at inference: the largest position id read with ``.item()``,
checked against the axial shape, and turned into the number of columns to keep.

Reduced from transformers 5.24.0 (the PyPI release the second zoo unpacks),
transformers/models/reformer/modeling_reformer.py:223-296 (``AxialPositionEmbeddings.forward``,
the branch that is not training): ``max_position_id = position_ids.max().item()``, two
``torch_compilable_check(max_position_id >= 0, ...)`` / ``(max_position_id < axial_h * axial_w,
...)`` calls, ``required_pos_encodings_columns = (max_position_id + axial_w) // axial_w``, the
expanded weights cut to that many columns, reshaped and indexed per sample with the position
ids. Written here in our own words; the checker is a stand-in that raises ``ValueError`` when the
condition is false, and the lengths check before the branch is left out.
"""

import torch
from torch import nn


def _check(cond, message: str) -> None:
    if not cond:
        raise ValueError(message)


class AxialPositions(nn.Module):
    def __init__(self, axial_pos_shape: tuple[int, int] = (4, 6), dims: tuple[int, int] = (2, 3)) -> None:
        super().__init__()
        self.axial_pos_shape = axial_pos_shape
        self.weights = nn.ParameterList([
            nn.Parameter(torch.randn(axial_pos_shape[0], 1, dims[0])),
            nn.Parameter(torch.randn(1, axial_pos_shape[1], dims[1])),
        ])

    def forward(self, position_ids: torch.Tensor) -> torch.Tensor:
        batch_size = position_ids.shape[0]
        broadcasted = [w.expand((batch_size,) + self.axial_pos_shape + w.shape[-1:]) for w in self.weights]
        max_position_id = position_ids.max().item()
        axial_h, axial_w = self.axial_pos_shape
        _check(max_position_id >= 0, "Axial position id underflow.")
        _check(max_position_id < axial_h * axial_w, "Position id exceeds the axial shape.")
        columns = (max_position_id + axial_w) // axial_w
        encodings = torch.cat([w[:, :columns] for w in broadcasted], dim=-1)
        encodings = torch.reshape(encodings, (batch_size, -1, encodings.shape[-1]))
        return torch.cat([torch.index_select(encodings[i], 0, position_ids[i]).unsqueeze(0)
                          for i in range(batch_size)], dim=0)


def build() -> nn.Module:
    return AxialPositions()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.arange(10).expand(2, 10).contiguous(),)


DYNAMIC = {"position_ids": {1: "sequence"}}
