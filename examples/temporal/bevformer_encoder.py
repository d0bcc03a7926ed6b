"""BEVFormer's temporal input as the repository writes it: ``prev_bev=None`` on a scene's first frame.

Reduced (my own code, tiny sizes, no mmcv) from github.com/fundamentalvision/BEVFormer at 66b65f3:
``projects/mmdet3d_plugin/bevformer/modules/encoder.py`` lines 185-215 (``BEVFormerEncoder.forward``:
the 2-D reference points shifted by the ego motion, and ``if prev_bev is not None:`` stacking the
previous and the current BEV into the temporal self-attention's two queues) and
``temporal_self_attention.py`` lines 177-180 (the layer's ``if value is None:``, the current
query twice where no previous BEV exists), with the attention reduced to a projection and the
mean over the two queues that ``TemporalSelfAttention`` ends with. The layer is inlined into
forward: there, ``value`` is the ``prev_bev`` the encoder passes on.
"""

import torch
from torch import nn


class BEVFormerTemporalEncoder(nn.Module):
    def __init__(self, bev_h: int = 4, bev_w: int = 4, embed_dims: int = 8) -> None:
        super().__init__()
        self.bev_h, self.bev_w = bev_h, bev_w
        self.value_proj = nn.Linear(embed_dims, embed_dims)
        self.sampling_offsets = nn.Linear(2, embed_dims)
        self.output_proj = nn.Linear(embed_dims, embed_dims)

    def get_reference_points(self, bs: int, dtype: torch.dtype) -> torch.Tensor:
        """encoder.py lines 73-84: cell centres of the BEV grid, (bs, H*W, 1, 2)."""
        h, w = self.bev_h, self.bev_w
        ref_y, ref_x = torch.meshgrid(torch.linspace(0.5, h - 0.5, h, dtype=dtype),
                                      torch.linspace(0.5, w - 0.5, w, dtype=dtype), indexing="ij")
        ref_2d = torch.stack((ref_x.reshape(-1)[None] / w, ref_y.reshape(-1)[None] / h), -1)
        return ref_2d.repeat(bs, 1, 1).unsqueeze(2)

    def forward(self, bev_query: torch.Tensor, shift: torch.Tensor, prev_bev: torch.Tensor | None = None):
        # bev_query: (num_query, bs, embed_dims), as the encoder takes it
        ref_2d = self.get_reference_points(bev_query.size(1), bev_query.dtype)
        shift_ref_2d = ref_2d.clone()
        shift_ref_2d += shift[:, None, None, :]
        bev_query = bev_query.permute(1, 0, 2)
        bs, len_bev, num_bev_level, _ = ref_2d.shape
        if prev_bev is not None:
            prev_bev = prev_bev.permute(1, 0, 2)
            prev_bev = torch.stack([prev_bev, bev_query], 1).reshape(bs * 2, len_bev, -1)
            hybird_ref_2d = torch.stack([shift_ref_2d, ref_2d], 1).reshape(bs * 2, len_bev, num_bev_level, 2)
        else:
            hybird_ref_2d = torch.stack([ref_2d, ref_2d], 1).reshape(bs * 2, len_bev, num_bev_level, 2)
        # the temporal self-attention layer, called with value=prev_bev
        value = prev_bev
        if value is None:
            value = torch.stack([bev_query, bev_query], 1).reshape(bs * 2, len_bev, -1)
        sampled = self.value_proj(value) + self.sampling_offsets(hybird_ref_2d[:, :, 0])
        output = sampled.reshape(bs, 2, len_bev, -1).mean(1)
        return self.output_proj(output).permute(1, 0, 2)


def build() -> nn.Module:
    return BEVFormerTemporalEncoder().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # A later frame: the detector hands in the last frame's BEV, (num_query, bs, embed_dims).
    return (torch.randn(16, 2, 8, generator=generator), torch.randn(2, 2, generator=generator),
            torch.randn(16, 2, 8, generator=generator))
