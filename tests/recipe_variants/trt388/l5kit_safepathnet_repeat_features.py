"""l5kit's SafePathNet: each agent's features written into every one of its trajectory queries.

Reduced from woven-planet/l5kit @ f554545ecb6249616c58dc469ae9b9cf69c24c13,
l5kit/l5kit/prediction/vectorized/safepathnet.py: ``MultimodalTransformerGlobalGraph.forward`` takes the agents'
polyline embeddings and their invalid mask and repeats both ``agent_num_trajectories`` times with
``repeat_features``, which makes ``torch.empty`` of the features' shape with the repeats inserted as axis 2 and
writes ``repeated_features[:, :, :] = features.unsqueeze(2)`` (line 159: a ``(B, A, 1, D)`` value into the
``(B, A, R, D)`` part, "avoiding the usage of repeat_interleave"), then views the result as ``(B, A * R, D)``; the
repeated embeddings get a learned embedding per trajectory and become the decoder's queries. Kept:
``repeat_features`` in its form, called on the embeddings and on the mask (as a column), the learned
per-trajectory embeddings repeated per agent and their sum. Reduced: the agents are the polylines after the ego
up to ``max_num_agents`` (a slice, where the original selects them with a mask and ``.item()``), and a linear
layer with the repeated mask zeroing the invalid queries stands for the transformer. Written here in our own
words. The batch and the number of agents are dynamic: the TorchScript export broadcasts the features to the
example's ``(B, A, R, D)``.
"""

import torch
from torch import nn

DYNAMIC = {"polys_embed": {0: "batch", 1: "polylines"}, "invalid_mask": {0: "batch", 1: "polylines"}}
#: The line of the broadcast write (the rule's finding).
CALL = "repeated_features[:, :, :] = features.unsqueeze(2)"


class MultimodalAgentQueries(nn.Module):
    def __init__(self, dim_in: int = 8, agent_num_trajectories: int = 3, max_num_agents: int = 4) -> None:
        super().__init__()
        self.agent_num_trajectories = agent_num_trajectories
        self.max_num_agents = max_num_agents
        self.register_parameter("agents_embedding", nn.Parameter(torch.randn(agent_num_trajectories, dim_in)))
        self.head = nn.Linear(dim_in, dim_in)

    def repeat_features(self, features: torch.Tensor, num_repeats: int) -> torch.Tensor:
        assert features.ndim == 3
        tmp_new_shape = list(features.shape)
        tmp_new_shape.insert(2, num_repeats)
        repeated_features = torch.empty(tmp_new_shape, dtype=features.dtype, device=features.device)
        repeated_features[:, :, :] = features.unsqueeze(2)
        new_shape = list(features.shape)
        new_shape[1] *= num_repeats
        repeated_features = repeated_features.view(new_shape)
        return repeated_features

    def repeat_agent_features(self, features: torch.Tensor) -> torch.Tensor:
        return self.repeat_features(features, self.agent_num_trajectories)

    def forward(self, polys_embed, invalid_mask):
        polys_embed_agents = polys_embed[:, 1:1 + self.max_num_agents]
        invalid_mask_agents = invalid_mask[:, 1:1 + self.max_num_agents]
        num_agents = polys_embed_agents.shape[1]
        invalid_mask_agents_repeated = self.repeat_agent_features(invalid_mask_agents.unsqueeze(-1)).squeeze(-1)
        agents_embedding_repeated = self.agents_embedding.repeat((num_agents, 1))
        repeated_agents = self.repeat_agent_features(polys_embed_agents) + agents_embedding_repeated
        return self.head(repeated_agents).masked_fill(invalid_mask_agents_repeated.unsqueeze(-1), 0.0)


def build() -> nn.Module:
    return MultimodalAgentQueries().eval()


def inputs(generator: torch.Generator, batch: int = 2, polylines: int = 4) -> tuple[torch.Tensor, ...]:
    """``batch`` scenes of ``polylines`` embeddings (the ego first) and a mask of the invalid ones."""
    return (torch.randn(batch, polylines, 8, generator=generator),
            torch.rand(batch, polylines, generator=generator) > 0.7)
