"""MotorNet's ``ModularPolicyGRU`` is a GRU policy split into modules (brain areas) whose hidden states reach
each other with per-pair delays. When any delay is nonzero, ``forward`` keeps the last ``max_delay + 1``
hidden states in ``self.h_buffer`` (batch, hidden, delay), newest at index 0: each step it shifts the buffer
one slot along the delay axis, ``self.h_buffer[:, :, 1:] = self.h_buffer[:, :, 0:-1]``, stores the previous
hidden state in slot 0, and then each module reads the other modules' states at their delays. The shift's
source is an overlapping view of the buffer it writes, so eager PyTorch copies slot by slot and the older
slots receive values already overwritten this step (the delays collapse), while the ONNX exporters read the
buffer as it was. MotorNet later replaced the line with a ``th.cat`` (``update_buffer``).

Reduced from motornet-org/MotorNet @ 1f84334b2e7cd01c508fed76faa854b0ca9f8191, motornet/policy.py lines
251-287 (``ModularPolicyGRU.forward``, delayed branch) and 289-295 (``init_hidden``). What is reduced: two
modules of 6 and 4 units with delays ((0, 2), (1, 0)); the masks, Dale's law, spectral scaling and gradient
hooks of ``__init__`` are left out; module index arrays become slices; the GRU weights are plain
``nn.Linear`` layers; and four steps of the policy are unrolled in one ``forward`` (as the MotorNet training
loop calls it step by step), starting from ``init_hidden``. Written here in our own words.
"""

import numpy as np
import torch as th
import torch.nn.functional as F
from torch import nn


class TinyModularPolicyGRU(nn.Module):
    def __init__(self, input_size: int = 5, module_size=(6, 4), output_size: int = 3, steps: int = 4) -> None:
        super().__init__()
        hidden_size = sum(module_size)
        self.hidden_size = hidden_size
        self.num_modules = len(module_size)
        starts = np.cumsum((0,) + tuple(module_size))
        self.module_dims = [slice(int(a), int(b)) for a, b in zip(starts[:-1], starts[1:])]
        self.connectivity_delay = np.array([[0, 2], [1, 0]])
        self.max_delay = int(np.max(self.connectivity_delay))
        self.steps = steps
        self.h0 = nn.Parameter(th.randn(1, hidden_size))
        self.Wz = nn.Linear(input_size + hidden_size, hidden_size)
        self.Wr = nn.Linear(input_size + hidden_size, hidden_size)
        self.Wh = nn.Linear(input_size + hidden_size, hidden_size)
        self.Y = nn.Linear(hidden_size, output_size)
        self.h_buffer = th.empty(0)

    def init_hidden(self, batch_size: int) -> th.Tensor:
        h0 = th.tile(th.tanh(self.h0), (batch_size, 1))
        self.h_buffer = th.tile(h0.unsqueeze(dim=2), (1, 1, self.max_delay + 1))
        return h0

    def step(self, x: th.Tensor, h_prev: th.Tensor):
        self.h_buffer[:, :, 1:] = self.h_buffer[:, :, 0:-1]
        self.h_buffer[:, :, 0] = h_prev
        h_new = th.zeros_like(h_prev)
        for i in range(self.num_modules):
            rows = self.module_dims[i]
            h_prev_delayed = th.zeros_like(h_prev)
            for j in range(self.num_modules):
                cols = self.module_dims[j]
                h_prev_delayed[:, cols] = self.h_buffer[:, cols, int(self.connectivity_delay[i, j])]
            concat = th.cat((x, h_prev_delayed), dim=1)
            z = th.sigmoid(F.linear(concat, self.Wz.weight[rows], self.Wz.bias[rows]))
            r = th.sigmoid(self.Wr(concat))
            h_tilda = th.tanh(F.linear(th.cat((x, r * h_prev_delayed), dim=1), self.Wh.weight[rows], self.Wh.bias[rows]))
            h_new[:, rows] = (1 - z) * h_prev_delayed[:, rows] + z * h_tilda
        y = th.sigmoid(self.Y(h_new))
        return y, h_new

    def forward(self, x_seq: th.Tensor) -> th.Tensor:
        h = self.init_hidden(x_seq.shape[0])
        ys = []
        for t in range(self.steps):
            y, h = self.step(x_seq[:, t], h)
            ys.append(y)
        return th.stack(ys, dim=1)


def build() -> nn.Module:
    th.manual_seed(0)
    return TinyModularPolicyGRU().eval()


def inputs(generator: th.Generator, batch: int = 2, height: int = 32, width: int = 32) -> tuple[th.Tensor, ...]:
    # A policy takes a sequence of observation vectors; height and width do not apply.
    return (th.rand(batch, 4, 5, generator=generator),)


DYNAMIC = {"x_seq": {0: "batch"}}
CALL = "self.h_buffer[:, :, 1:] = self.h_buffer[:, :, 0:-1]"
