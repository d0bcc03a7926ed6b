"""l5kit's Urban Driver: the type of every polyline of a scene (ego, agents, lanes, crosswalks, boundaries), embedded.

Reduced from woven-planet/l5kit @ f554545ecb6249616c58dc469ae9b9cf69c24c13,
l5kit/l5kit/planning/vectorized/global_graph.py: ``VectorizedEmbedding.forward`` fills a (batch, polylines) index
tensor with ``torch.full``, marks the ego, sets the lanes' types from their traffic-light state with
``indices[:, lanes_start_idx:crosswalks_start_idx].copy_(data_batch["lanes_mid"][:, :, 0, -1]).add_(...)`` (line 88),
fills the crosswalks and the left and right lane boundaries, and embeds the indices. Kept: the type table, the
offsets computed from the polylines' counts, the chain and the fills around it, under ``torch.no_grad()``. Reduced:
the batch dict becomes four tensors, and the agents keep the "no type" index (l5kit sets them by their perception
label through boolean masks). Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"agents": {0: "batch", 1: "agents"}, "lanes_mid": {0: "batch", 1: "lanes"},
           "crosswalks": {0: "batch", 1: "crosswalks"}, "lanes": {0: "batch", 1: "boundaries"}}
#: The first line of the chained in-place calls (the rule's finding).
CALL = "indices[:, lanes_start_idx:crosswalks_start_idx].copy_(lanes_mid[:, :, 0, -1]).add_("


class VectorizedEmbedding(nn.Module):
    def __init__(self, embedding_dim: int = 8) -> None:
        super().__init__()
        self.polyline_types = {
            "AGENT_OF_INTEREST": 0, "AGENT_NO": 1, "AGENT_CAR": 2, "AGENT_BIKE": 3, "AGENT_PEDESTRIAN": 4,
            "TL_UNKNOWN": 5, "TL_RED": 6, "TL_YELLOW": 7, "TL_GREEN": 8, "TL_NONE": 9, "CROSSWALK": 10,
            "LANE_BDRY_LEFT": 11, "LANE_BDRY_RIGHT": 12,
        }
        self.embedding = nn.Embedding(len(self.polyline_types), embedding_dim)

    def forward(self, agents, lanes_mid, crosswalks, lanes):
        with torch.no_grad():
            other_agents_len = agents.shape[1]
            lanes_len = lanes_mid.shape[1]
            crosswalks_len = crosswalks.shape[1]
            lanes_bdry_len = lanes.shape[1]
            total_len = 1 + other_agents_len + lanes_len + crosswalks_len + lanes_bdry_len

            other_agents_start_idx = 1
            lanes_start_idx = other_agents_start_idx + other_agents_len
            crosswalks_start_idx = lanes_start_idx + lanes_len
            lanes_bdry_start_idx = crosswalks_start_idx + crosswalks_len

            indices = torch.full(
                (agents.shape[0], total_len),
                fill_value=self.polyline_types["AGENT_NO"],
                dtype=torch.long,
            )
            indices[:, 0].fill_(self.polyline_types["AGENT_OF_INTEREST"])
            # the lanes' types from their traffic-light state
            indices[:, lanes_start_idx:crosswalks_start_idx].copy_(lanes_mid[:, :, 0, -1]).add_(
                self.polyline_types["TL_UNKNOWN"]
            )
            indices[:, crosswalks_start_idx:lanes_bdry_start_idx].fill_(self.polyline_types["CROSSWALK"])
            indices[:, lanes_bdry_start_idx::2].fill_(self.polyline_types["LANE_BDRY_LEFT"])
            indices[:, lanes_bdry_start_idx + 1::2].fill_(self.polyline_types["LANE_BDRY_RIGHT"])
        return self.embedding(indices)


def build() -> nn.Module:
    return VectorizedEmbedding().eval()


def inputs(generator: torch.Generator, batch: int = 2, count: int = 3) -> tuple[torch.Tensor, ...]:
    """``count`` agents, lanes and crosswalks and ``2 count`` boundaries of 4 points (x, y, yaw, a last feature);
    a lane's last feature is its traffic-light state, 0 to 4."""
    points = lambda n: torch.randn(batch, n, 4, 4, generator=generator)  # noqa: E731
    lanes_mid = points(count)
    lanes_mid[..., -1] = torch.randint(0, 5, (batch, count, 4), generator=generator).float()
    return points(count), lanes_mid, points(count), points(2 * count)
