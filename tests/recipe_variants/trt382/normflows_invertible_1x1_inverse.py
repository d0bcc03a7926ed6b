"""normflows' invertible 1x1 convolution: the log-determinant in ``inverse``, which the density evaluation calls.

Reduced from VincentStimper/normalizing-flows @ c6616b1a9f04c0e894b9e045e66bd504db17ef5e,
normflows/flows/mixing.py: ``Invertible1x1Conv`` (lines 57-133) keeps an orthogonal matrix ``W`` (or LU factors);
``forward`` (lines 106-121, the generative direction) inverts ``W`` in float64 and takes ``-torch.slogdet(self.W)[1]``
(line 117), ``inverse`` (lines 123-133, data to latent) takes ``torch.slogdet(self.W)[1]`` (line 129); both
convolve and multiply the log-determinant by ``z.size(2) * z.size(3)``. normflows/core.py's
``NormalizingFlow.inverse_and_log_det`` (lines 70-85) runs the flows backwards through ``inverse`` and sums their
log-determinants, as ``log_prob`` and ``forward_kld`` do. Kept: both methods without LU (``forward`` is not what the
model runs here; its ``torch.inverse`` has no ONNX symbolic either), the sum over the flows in reverse order. Reduced:
two such layers and no base distribution; the sum starts from zeros of ``x.shape[0]`` where core.py writes
``torch.zeros(len(x))`` (``len`` of a traced tensor is a Python number: the TorchScript graph would keep the example's
batch, a finding of its own). Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"x": {0: "b", 2: "h", 3: "w"}}
#: The line of the log-determinant ``inverse`` computes (the rule's finding on the path the model runs).
CALL = "log_det = torch.slogdet(self.W)[1]"
CHANNELS = 3


class Invertible1x1Conv(nn.Module):
    def __init__(self, num_channels):
        super().__init__()
        self.num_channels = num_channels
        Q, _ = torch.linalg.qr(torch.randn(self.num_channels, self.num_channels))
        self.W = nn.Parameter(Q)

    def forward(self, z):
        W_dtype = self.W.dtype
        if W_dtype == torch.float64:
            W = torch.inverse(self.W)
        else:
            W = torch.inverse(self.W.double()).type(W_dtype)
        log_det = -torch.slogdet(self.W)[1]
        W = W.view(self.num_channels, self.num_channels, 1, 1)
        z_ = torch.nn.functional.conv2d(z, W)
        log_det = log_det * z.size(2) * z.size(3)
        return z_, log_det

    def inverse(self, z):
        W = self.W
        log_det = torch.slogdet(self.W)[1]
        W = W.view(self.num_channels, self.num_channels, 1, 1)
        z_ = torch.nn.functional.conv2d(z, W)
        log_det = log_det * z.size(2) * z.size(3)
        return z_, log_det


class NormalizingFlow(nn.Module):
    def __init__(self, flows):
        super().__init__()
        self.flows = nn.ModuleList(flows)

    def inverse_and_log_det(self, x):
        log_det = torch.zeros(x.shape[0], device=x.device)
        for i in range(len(self.flows) - 1, -1, -1):
            x, log_d = self.flows[i].inverse(x)
            log_det += log_d
        return x, log_det

    def forward(self, x):
        return self.inverse_and_log_det(x)


def build() -> nn.Module:
    return NormalizingFlow([Invertible1x1Conv(CHANNELS), Invertible1x1Conv(CHANNELS)]).eval()


def inputs(generator: torch.Generator, b: int = 2, h: int = 5, w: int = 4) -> tuple[torch.Tensor, ...]:
    """A batch of images with the flow's channels."""
    return (torch.randn(b, CHANNELS, h, w, generator=generator),)
