"""A convolutional GRU cell whose first state is zeros of the input's batch and spatial sizes.

Reduced from Helens1997/Group-WSSS, models/ConvGRU.py: ``ConvGRUCell.forward`` reads
``batch_size = input_.data.size()[0]`` and ``spatial_size = input_.data.size()[2:]``, builds a zero
state of ``[batch_size, self.hidden_size] + list(spatial_size)`` when none is given, then the update,
reset and output gates as convolutions of the concatenated input and state. Written here in our own
words: the cell's first step, where no state is given (the deprecated ``Variable`` and ``.cuda()``
left out; the state starts on the input's device).
"""

import torch
from torch import nn


class ConvGRUCell(nn.Module):
    def __init__(self, input_size: int = 3, hidden_size: int = 4, kernel_size: int = 3) -> None:
        super().__init__()
        self.hidden_size = hidden_size
        padding = (kernel_size - 1) // 2
        self.reset_gate = nn.Conv2d(input_size + hidden_size, hidden_size, kernel_size, padding=padding)
        self.update_gate = nn.Conv2d(input_size + hidden_size, hidden_size, kernel_size, padding=padding)
        self.out_gate = nn.Conv2d(input_size + hidden_size, hidden_size, kernel_size, padding=padding)

    def forward(self, input_):
        batch_size = input_.data.size()[0]
        spatial_size = input_.data.size()[2:]
        state_size = [batch_size, self.hidden_size] + list(spatial_size)
        prev_state = torch.zeros(state_size, device=input_.device)
        stacked = torch.cat([input_, prev_state], dim=1)
        update = torch.sigmoid(self.update_gate(stacked))
        reset = torch.sigmoid(self.reset_gate(stacked))
        out = torch.tanh(self.out_gate(torch.cat([input_, prev_state * reset], dim=1)))
        return prev_state * (1 - update) + out * update


def build() -> nn.Module:
    return ConvGRUCell().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 9, 11, generator=generator),)


DYNAMIC = {"input_": {0: "batch", 2: "height", 3: "width"}}
