"""sr-project models how spike-timing-dependent plasticity in hippocampal CA3 can learn a successor
representation. ``STDP_CA3`` keeps the recent activity of every state unit in ``self.x_queue`` (states,
20 steps), oldest first. Each ``forward`` computes the recurrent activity for the current input, then rolls
the queue one step left, ``self.x_queue[:, :-1] = self.x_queue[:, 1:]``, and puts the new activity in the
last column; the plasticity update then convolves the queue with an exponential STDP kernel
(``_update_B_pos``). The roll is a slice assignment whose source is an overlapping view of the same tensor:
PyTorch leaves the result undefined (the ONNX exporters read the queue as it was), although a left shift
copied in ascending order happens to read each element before it is overwritten.

Reduced from chingf/sr-project @ 43320e9b8c15927c67849f768d2a9bf17f68a0ea, src/sr_model/models/ca3.py
lines 246-265 (``STDP_CA3.forward``) and 454-475 (``_update_B_pos``, the convolution branch), with the
queue from ``_init_constants`` (lines 509-515). What is reduced: the recurrent output (an inverse of the
learned transition matrix, or an iterated network) becomes one linear map and a clamp; the queue is a
forward input instead of state kept across steps (cloned first so the input stays untouched); the kernel's
amplitude and time constant are fixed parameters; and ``forward`` returns the activity stacked with the
potentiation trace so the rolled queue reaches the output. Written here in our own words.
"""

import torch
from torch import nn


class TinySTDPCA3(nn.Module):
    def __init__(self, num_states: int = 16, queue_length: int = 20) -> None:
        super().__init__()
        self.x_queue_length = queue_length
        self.J = nn.Linear(num_states, num_states, bias=False)
        self.A_pos = nn.Parameter(torch.rand(1))
        self.tau_pos = nn.Parameter(1 + torch.rand(1))
        self.x_queue = torch.empty(0)

    def forward(self, _input: torch.Tensor, x_queue: torch.Tensor) -> torch.Tensor:
        self.x_queue = x_queue.clone()
        _input = torch.squeeze(_input)
        activity = torch.clamp(self.J(_input), 0, 1)
        self.x_queue[:, :-1] = self.x_queue[:, 1:]
        self.x_queue[:, -1] = activity
        exp_function = torch.exp(torch.arange(-self.x_queue_length, 0) / self.tau_pos)
        B_pos = self.A_pos * (torch.relu(self.x_queue) @ exp_function)
        return torch.stack((activity, B_pos))


def build() -> nn.Module:
    torch.manual_seed(0)
    return TinySTDPCA3().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    # One unbatched step of a 16-state model (the original squeezes its input); batch/height/width do not apply.
    return torch.rand(1, 16, generator=generator), torch.rand(16, 20, generator=generator)


DYNAMIC: dict = {}
CALL = "self.x_queue[:, :-1] = self.x_queue[:, 1:]"
