"""RT-DETRv2's hybrid encoder: a 2-D sine-cosine position embedding built at run time for the
feature map's size, its frequencies and grid computed in a float64 ``compute_dtype`` chosen by a
conditional (float32 only on MPS), then cast to the features' dtype.

Reduced from transformers 5.24.0 (the PyPI release the second zoo unpacks),
transformers/models/rt_detr_v2/modeling_rt_detr_v2.py:955-1002 (``build_2d_sinusoidal_position_embedding``,
the same in D-FINE, ViT-MAE, AIMv2 and PP-DocLayout) and 1062-1082 (the encoder layer that calls
it with the map's height and width): ``compute_dtype = torch.float64 if device is None or
device.type != "mps" else torch.float32``, ``torch.arange(pos_dim, dtype=compute_dtype) /
pos_dim``, ``1.0 / temperature**omega``, ``torch.arange(height, dtype=compute_dtype)`` and the
same for the width, a meshgrid, outer products, sin/cos concatenated, ``.to(dtype)``. Written here
in our own words; the LRU cache around the builder and the ``cls_token`` row are left out, and
the embedding is added to the flattened map.
"""

import torch
from torch import nn


def sincos_embedding(height, width, embed_dim: int, temperature: float, device, dtype) -> torch.Tensor:
    pos_dim = embed_dim // 4
    compute_dtype = torch.float64 if device is None or device.type != "mps" else torch.float32
    omega = torch.arange(pos_dim, dtype=compute_dtype, device=device) / pos_dim
    omega = 1.0 / temperature**omega
    grid_h = torch.arange(height, dtype=compute_dtype, device=device)
    grid_w = torch.arange(width, dtype=compute_dtype, device=device)
    grid_h, grid_w = torch.meshgrid(grid_h, grid_w, indexing="ij")
    emb_h = grid_h.flatten().outer(omega)
    emb_w = grid_w.flatten().outer(omega)
    return torch.cat([emb_h.sin(), emb_h.cos(), emb_w.sin(), emb_w.cos()], dim=1).to(dtype)


class EncoderPositions(nn.Module):
    def __init__(self, embed_dim: int = 8, temperature: float = 10000.0) -> None:
        super().__init__()
        self.embed_dim = embed_dim
        self.temperature = temperature

    def forward(self, hidden_states: torch.Tensor) -> torch.Tensor:
        height, width = hidden_states.shape[2:]
        flat = hidden_states.flatten(2).transpose(1, 2)
        pos_embed = sincos_embedding(height, width, self.embed_dim, self.temperature,
                                     hidden_states.device, hidden_states.dtype)
        return flat + pos_embed.unsqueeze(0)


def build() -> nn.Module:
    return EncoderPositions()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 8, 4, 5, generator=generator),)


DYNAMIC = {"hidden_states": {0: "batch", 2: "height", 3: "width"}}
