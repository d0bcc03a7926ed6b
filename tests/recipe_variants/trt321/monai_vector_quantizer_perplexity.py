"""MONAI's vector quantizer: after the codebook lookup, the codes' usage is counted with
``torch.histc(encoding_indices.float(), bins=self.quantizer.num_embeddings,
max=self.quantizer.num_embeddings)`` (``min`` left at its default 0), divided by the number of
codes, and turned into the perplexity.

Reduced from MONAI 1.6.1 (the PyPI wheel the zoo unpacks), monai/networks/layers/vector_quantizer.py,
``VectorQuantizer.forward`` lines 214-225 (the histc at line 218) around ``EMAQuantizer``'s
lookup (``quantize`` and ``forward``). Written here in our own words: the EMA codebook update
(training only) is left out, the lookup is an argmin of squared distances and an embedding,
and the perplexity, which MONAI stores on the module, is also returned so the count is part of
the exported graph.
"""

import torch
from torch import nn
from torch.nn import functional as F


class EMAQuantizer(nn.Module):
    def __init__(self, num_embeddings: int = 6, embedding_dim: int = 4, commitment_cost: float = 0.25) -> None:
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding = nn.Embedding(num_embeddings, embedding_dim)
        self.commitment_cost = commitment_cost

    def forward(self, inputs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        flat = inputs.permute(0, 2, 3, 1).reshape(-1, inputs.shape[1])
        distances = ((flat ** 2).sum(1, keepdim=True) + (self.embedding.weight ** 2).sum(1)
                     - 2 * flat @ self.embedding.weight.t())
        encoding_indices = distances.argmin(1).reshape(inputs.shape[0], inputs.shape[2], inputs.shape[3])
        quantized = self.embedding(encoding_indices).permute(0, 3, 1, 2)
        loss = self.commitment_cost * F.mse_loss(quantized.detach(), inputs)
        quantized = inputs + (quantized - inputs).detach()
        return quantized, loss, encoding_indices


class VectorQuantizer(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.quantizer = EMAQuantizer()
        self.perplexity = torch.rand(1)

    def forward(self, inputs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        quantized, loss, encoding_indices = self.quantizer(inputs)
        avg_probs = (
            torch.histc(encoding_indices.float(), bins=self.quantizer.num_embeddings, max=self.quantizer.num_embeddings)
            .float()
            .div(encoding_indices.numel())
        )
        self.perplexity = torch.exp(-torch.sum(avg_probs * torch.log(avg_probs + 1e-10)))
        return loss, quantized, self.perplexity


def build() -> nn.Module:
    return VectorQuantizer()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 4, 5, 3, generator=generator),)


DYNAMIC = {"inputs": {0: "batch", 2: "height", 3: "width"}}
