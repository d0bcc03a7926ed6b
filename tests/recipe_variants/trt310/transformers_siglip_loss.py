"""SigLIP's pairwise sigmoid loss: ``torch.eye(logits_per_text.size(0))`` marks the matching pairs.

Reduced from transformers 5.24.0 (the PyPI wheel), transformers/models/siglip/modeling_siglip.py,
``SiglipModel.forward`` (lines 795-815): the embeddings normalized, the logits of texts against
images, scaled and shifted, ``eye = torch.eye(logits_per_text.size(0),
device=logits_per_text.device)`` (the batch size from ``.size(0)``, the default float type),
``m1_diag1 = -torch.ones_like(logits_per_text) + 2 * eye`` and the mean negative log-sigmoid.
Written here in our own words as a module over the two batches of embeddings, whose learned
scale and bias start at 1.4 and -2: at 2.3 and -10, logits near -20 make the exported Log of
Sigmoid lose digits in ONNX Runtime, with or without the rewrite (measured 11.21 against eager's
11.35).
"""

import torch
from torch import nn


class SiglipLoss(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.logit_scale = nn.Parameter(torch.tensor(1.4))
        self.logit_bias = nn.Parameter(torch.tensor(-2.0))

    def forward(self, text_embeds, image_embeds):
        image_embeds = image_embeds / image_embeds.norm(p=2, dim=-1, keepdim=True)
        text_embeds = text_embeds / text_embeds.norm(p=2, dim=-1, keepdim=True)
        logits_per_text = torch.matmul(text_embeds, image_embeds.t().to(text_embeds.device))
        logits_per_text = logits_per_text * self.logit_scale.exp() + self.logit_bias
        eye = torch.eye(logits_per_text.size(0), device=logits_per_text.device)
        m1_diag1 = -torch.ones_like(logits_per_text) + 2 * eye
        loglik = torch.nn.functional.logsigmoid(m1_diag1 * logits_per_text)
        nll = -torch.sum(loglik, dim=-1)
        return nll.mean()


def build() -> nn.Module:
    return SiglipLoss()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return torch.randn(4, 6, generator=generator), torch.randn(4, 6, generator=generator)


DYNAMIC = {"text_embeds": {0: "batch"}, "image_embeds": {0: "batch"}}
