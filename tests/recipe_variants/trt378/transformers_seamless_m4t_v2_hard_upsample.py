"""transformers' SeamlessM4T v2 ``_hard_upsample``: a batch of items repeated by their durations, then padded.

Reduced from huggingface/transformers @ 54ff88969020b8ae579605144f43f658a1d84776 (the same method is at lines
1460-1486 of models/seamless_m4t_v2/modeling_seamless_m4t_v2.py in the transformers 5.24.0 wheel),
src/transformers/models/seamless_m4t_v2/modeling_seamless_m4t_v2.py, ``SeamlessM4Tv2PreTrainedModel._hard_upsample
(self, hidden_states, durations)`` (the text-to-unit model's upsampling of character states by their durations): for
one sample it repeats along axis 1 with ``durations.view(-1)``; for a batch it builds ``[torch.repeat_interleave(
hidden_state, duration, dim=0) for (hidden_state, duration) in zip(hidden_states, durations)]`` and returns
``nn.utils.rnn.pad_sequence(hidden_states, batch_first=True)`` (``from torch import nn``). Kept: the Python
decision on ``hidden_states.size(0) == 1`` (the example's batch of 2 takes the padded branch; the batch is static),
the comprehension over ``zip``, the ``nn.utils.rnn`` spelling with ``batch_first`` by keyword and the default
padding value. Reduced: the durations rounded from a linear predictor's output and clamped at 0 (so an item can be
empty), no training-mode warning, a projection in front. The TorchScript exporter stops at ``aten::pad_sequence``.
Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {1: "chars"}}
CALL = "hidden_states = nn.utils.rnn.pad_sequence(hidden_states, batch_first=True)"


class Upsampler(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.proj = nn.Linear(3, 5)
        self.duration = nn.Linear(3, 1)

    def _hard_upsample(self, hidden_states, durations):
        if hidden_states.size(0) == 1:
            hidden_states = torch.repeat_interleave(hidden_states, durations.view(-1), dim=1)
        else:
            hidden_states = [
                torch.repeat_interleave(hidden_state, duration, dim=0)
                for (hidden_state, duration) in zip(hidden_states, durations)
            ]

            hidden_states = nn.utils.rnn.pad_sequence(hidden_states, batch_first=True)

        return hidden_states

    def forward(self, x):
        durations = torch.clamp(torch.round(self.duration(x).squeeze(-1) * 2), min=0).long()
        return self._hard_upsample(self.proj(x), durations)


def build():
    torch.manual_seed(0)
    model = Upsampler().eval()
    with torch.no_grad():
        model.duration.weight.copy_(torch.tensor([[0.7, 0.4, -0.5]]))
        model.duration.bias.fill_(0.6)
    return model


def inputs(generator=None, batch=2, chars=5):
    return (torch.randn(batch, chars, 3, generator=generator),)
