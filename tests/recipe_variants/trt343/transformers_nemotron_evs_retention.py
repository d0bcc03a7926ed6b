"""transformers' Nemotron-H Omni Efficient Video Sampling: which video tokens a tubelet keeps.

Reduced from transformers 5.24.0 (the pinned wheel),
transformers/models/nemotron_h_omni/modeling_nemotron_h_omni.py, ``compute_retention_mask``
(lines 92-127): the cosine dissimilarity of each token to the same place in the previous
tubelet, 255 for every token of the first tubelet (always kept), and the tokens ranked by
``torch.argsort(dissimilarity_flat, dim=-1, descending=True, stable=True)`` (line 123), the first
``max(tokens per tubelet, int(tokens * (1 - q)))`` of them kept. A still scene repeats tokens
exactly: their dissimilarity is 0 (or the same value for the same pair), and the stable order keeps
the earliest of the tied tokens. Here the embeddings come from one linear layer (no bias) over patch
features, so the model has weights, and a blank patch embeds to zeros: its cosine similarity to any
token is 0, its dissimilarity exactly 1 (in eager mode and in the graph), so blank regions tie. The
mask is returned as floats.
Written here in our own words.
"""

import torch
import torch.nn.functional as F
from torch import nn


def compute_retention_mask(video_embeds, num_tubelets, q):
    video_embeds = video_embeds.reshape(num_tubelets, -1, video_embeds.size(-1))
    similarity = F.cosine_similarity(video_embeds[1:], video_embeds[:-1], dim=-1)
    dissimilarity = 1 - similarity
    dissimilarity = torch.cat([255 * torch.ones_like(video_embeds[:1, :, 0]), dissimilarity], dim=0)
    dissimilarity_flat = dissimilarity.view(-1)

    min_num_tokens = video_embeds.shape[1]
    evs_num_tokens = int(num_tubelets * min_num_tokens * (1 - q))
    num_tokens_to_keep = max(min_num_tokens, evs_num_tokens)

    order = torch.argsort(dissimilarity_flat, dim=-1, descending=True, stable=True)
    retention_mask = torch.zeros_like(dissimilarity_flat, dtype=torch.bool)
    retention_mask[order[:num_tokens_to_keep]] = True
    return retention_mask


class VideoTokenPruning(nn.Module):
    def __init__(self, features=6, hidden=8, num_tubelets=4, q=0.4) -> None:
        super().__init__()
        self.embed = nn.Linear(features, hidden, bias=False)
        self.num_tubelets = num_tubelets
        self.q = q

    def forward(self, patches):
        video_embeds = self.embed(patches)
        mask = compute_retention_mask(video_embeds, self.num_tubelets, self.q)
        return mask.float()


def build() -> nn.Module:
    return VideoTokenPruning().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Four tubelets of 5 tokens; blank patches (zeros) in the last two tubelets tie at dissimilarity 1, across the
    # cut: 12 tokens of 20 are kept, 5 of them the first tubelet's, 6 of the 8 blank ones.
    tubelets = torch.randn(4, 5, 6, generator=generator)
    tubelets[2, :3] = 0.0
    tubelets[3, 1:] = 0.0
    return (tubelets.reshape(20, 6),)


DYNAMIC = {"patches": {0: "tokens"}}
