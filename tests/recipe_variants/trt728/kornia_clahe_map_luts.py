"""kornia's CLAHE: the lookup-table indices of the interpolation tiles, built from a Python list in
the forward pass and then shifted in place.

Reduced from kornia 0.9.0 (the wheel pinned in the zoo), kornia/enhance/equalization.py,
``_map_luts`` (lines 287-344), which ``equalize_clahe`` runs on every call. For the border and
inner interpolation tiles it binds ``j_idxs`` to ``torch.tensor`` of ``[[0, 0, 1, 1], [-1, -1, 0, 0]]
* ((gh - 2) // 2)`` (lines 312-313), then adds the tile row of each pair in place, ``j_idxs += j_floor``
(the same for the columns, ``i_idxs``, lines 316-319), and gathers the four neighbouring lookup
tables of every tile with those indices into a tensor filled with -1 (lines 328-344). Written here
in our own words: the histogram and lookup-table computation before it and the interpolation after
it are left out; the model takes the tiles' lookup tables and returns the gathered ones. The tile
grid is 4 x 6 (as ``grid_size`` fixes it); the batch and the channels vary.
"""

import torch
from torch import nn


class ClaheLutMapper(nn.Module):
    def forward(self, luts: torch.Tensor) -> torch.Tensor:
        # luts: (B, GH, GW, C, bins) -> (B, 2GH, 2GW, 4, C, bins)
        images, tiles_h, tiles_w, channels, bins = luts.shape
        gh, gw = 2 * tiles_h, 2 * tiles_w

        j_idxs = torch.empty(0, 4, dtype=torch.long)
        if gh > 2:
            j_floor = torch.arange(1, gh - 1).view(gh - 2, 1).div(2, rounding_mode="trunc")
            j_idxs = torch.tensor([[0, 0, 1, 1], [-1, -1, 0, 0]] * ((gh - 2) // 2))
            j_idxs += j_floor

        i_idxs = torch.empty(0, 4, dtype=torch.long)
        if gw > 2:
            i_floor = torch.arange(1, gw - 1).view(gw - 2, 1).div(2, rounding_mode="trunc")
            i_idxs = torch.tensor([[0, 1, 0, 1], [-1, 0, -1, 0]] * ((gw - 2) // 2))
            i_idxs += i_floor

        mapped = torch.full((images, gh, gw, 4, channels, bins), -1, dtype=luts.dtype, device=luts.device)
        row_step, col_step = max(gh // 2 - 1, 1), max(gw // 2 - 1, 1)
        mapped[:, 0 :: gh - 1, 0 :: gw - 1, 0] = luts[:, 0::row_step, 0::col_step]
        mapped[:, 1:-1, 0 :: gw - 1, 0] = luts[:, j_idxs[:, 0], 0::col_step]
        mapped[:, 1:-1, 0 :: gw - 1, 1] = luts[:, j_idxs[:, 2], 0::col_step]
        mapped[:, 0 :: gh - 1, 1:-1, 0] = luts[:, 0::row_step, i_idxs[:, 0]]
        mapped[:, 0 :: gh - 1, 1:-1, 1] = luts[:, 0::row_step, i_idxs[:, 1]]
        mapped[:, 1:-1, 1:-1, :] = luts[:, j_idxs.repeat(max(gw - 2, 1), 1, 1).permute(1, 0, 2),
                                        i_idxs.repeat(max(gh - 2, 1), 1, 1)]
        return mapped


def build() -> nn.Module:
    return ClaheLutMapper().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.rand(2, 4, 6, 3, 16, generator=generator),)


DYNAMIC = {"luts": {0: "batch", 3: "channels"}}
