"""The invertible matrix product of ikostrikov's pytorch-flows: one log-determinant repeated for every row.

Reduced from ikostrikov/pytorch-flows @ bf12ed91b86867b38d74982f5e2d44c248604df9, flows.py: ``InvertibleMM``
(lines 292-311) multiplies the rows by a square parameter ``W`` and returns
``torch.slogdet(self.W)[-1].unsqueeze(0).unsqueeze(0).repeat(inputs.size(0), 1)`` (lines 305-307): the weight's
log-determinant as a ``(batch, 1)`` column; ``FlowSequential.forward`` (lines 467-488) records the feature count on
``self``, starts a zero column per row and adds each flow's column in place; ``log_probs`` (lines 490-494) adds the
standard normal's log-density of the output, which main.py trains on. Kept: the direct mode of both (the inverse mode
calls ``torch.inverse``), the repeat over the batch, the in-place sum, ``log_probs`` as the model's output. Reduced: two
``InvertibleMM`` around a reversal of the features (its permutation a torch buffer, there a numpy array); no MADE
blocks, no batch norm, no conditioning inputs. Written here in our own words.
"""

import math

import torch
import torch.nn as nn

DYNAMIC = {"inputs": {0: "b"}}
#: The line of the log-determinant (the rule's finding).
CALL = "return inputs @ self.W, torch.slogdet("
FEATURES = 5


class InvertibleMM(nn.Module):
    def __init__(self, num_inputs):
        super().__init__()
        self.W = nn.Parameter(torch.empty(num_inputs, num_inputs))
        nn.init.orthogonal_(self.W)

    def forward(self, inputs, cond_inputs=None, mode='direct'):
        if mode == 'direct':
            return inputs @ self.W, torch.slogdet(
                self.W)[-1].unsqueeze(0).unsqueeze(0).repeat(
                    inputs.size(0), 1)
        return inputs @ torch.inverse(self.W), -torch.slogdet(
            self.W)[-1].unsqueeze(0).unsqueeze(0).repeat(
                inputs.size(0), 1)


class Reverse(nn.Module):
    def __init__(self, num_inputs):
        super().__init__()
        self.register_buffer("perm", torch.arange(num_inputs - 1, -1, -1))

    def forward(self, inputs, cond_inputs=None, mode='direct'):
        return inputs[:, self.perm], torch.zeros(inputs.size(0), 1, device=inputs.device)


class FlowSequential(nn.Sequential):
    def forward(self, inputs, cond_inputs=None, mode='direct', logdets=None):
        self.num_inputs = inputs.size(-1)
        if logdets is None:
            logdets = torch.zeros(inputs.size(0), 1, device=inputs.device)
        for module in self._modules.values():
            inputs, logdet = module(inputs, cond_inputs, mode)
            logdets += logdet
        return inputs, logdets

    def log_probs(self, inputs, cond_inputs=None):
        u, log_jacob = self(inputs, cond_inputs)
        log_probs = (-0.5 * u.pow(2) - 0.5 * math.log(2 * math.pi)).sum(-1, keepdim=True)
        return (log_probs + log_jacob).sum(-1, keepdim=True)


class Density(nn.Module):
    def __init__(self):
        super().__init__()
        self.flow = FlowSequential(InvertibleMM(FEATURES), Reverse(FEATURES), InvertibleMM(FEATURES))

    def forward(self, inputs):
        return self.flow.log_probs(inputs)


def build() -> nn.Module:
    return Density().eval()


def inputs(generator: torch.Generator, b: int = 3) -> tuple[torch.Tensor, ...]:
    """A batch of feature rows."""
    return (torch.randn(b, FEATURES, generator=generator),)
