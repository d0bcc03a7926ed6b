"""fairseq's MMPT (VideoCLIP / VLM) text masking: in the ``"mask"`` modality the processor masks the
tokens and gives every position the ignored label, ``labels = torch.full(inputs.shape, -100)``: no
dtype, a negative ``int`` literal (eager mode infers int64), and the size is the whole ``.shape`` of
the token ids, not a tuple written out. With the token axes traced, the TorchScript exporter makes
that ``full`` a float ``ConstantOfShape``: the labels leave the graph as floats where eager mode has
int64 (the ``-100`` that the masked-language-model loss ignores), and ONNX Runtime refuses the loss's index
node (``GatherElements``) float indices.

Reduced from facebookresearch/fairseq @ 3d262bb25690e4eb2e7d3c1309b1e9c406ca4b99,
examples/MMPT/mmpt/processors/how2processor.py: ``TextMaskingProcessor.__call__`` (lines 522-600; the
``"mask"`` branch at lines 553-556) and ``mask_input`` (lines 602-634). Written here in our own words:
the processor is a module whose ``forward`` takes the ``"mask"`` branch; ``mask_input``'s random choice
(``torch.bernoulli`` on 15%, then 80/10/10) is replaced by a fixed one, every non-special token becomes
the mask id, so that eager mode and the graph can be compared; the tokenizer is two ids; the masked
tokens and labels go on, as in MMPT's masked-language-model training, into a small embedding, a linear
head and the per-token cross-entropy with ``ignore_index=-100``, written with ``log_softmax``, ``gather``
and ``where`` (TensorRT has no ``SoftmaxCrossEntropyLoss``; here every label is ignored: zeros).
"""

import torch
import torch.nn.functional as F
from torch import nn


class TextMaskingProcessor(nn.Module):
    def __init__(self, mask_token_id: int = 103, cls_token_id: int = 101, vocab: int = 200, width: int = 8) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, width)
        self.head = nn.Linear(width, vocab)
        self.mask_token_id = mask_token_id
        self.cls_token_id = cls_token_id

    def mask_input(self, inputs, special_tokens_mask):
        special_tokens_mask = special_tokens_mask.bool()
        masked_indices = ~special_tokens_mask
        return inputs.masked_fill(masked_indices, self.mask_token_id)

    def forward(self, inputs):
        special_tokens_mask = inputs == self.cls_token_id
        inputs = self.mask_input(inputs, special_tokens_mask)
        labels = torch.full(inputs.shape, -100)
        logits = self.head(self.embed(inputs))
        log_probs = F.log_softmax(logits, dim=-1)
        picked = log_probs.gather(-1, labels.clamp(min=0)[..., None])[..., 0]
        return torch.where(labels == -100, torch.zeros_like(picked), -picked)


def build() -> nn.Module:
    return TextMaskingProcessor()


def inputs(generator: torch.Generator, batch: int = 2, tokens: int = 6) -> tuple[torch.Tensor, ...]:
    """``batch`` rows of ``tokens`` ids, the first of each the ``[CLS]`` id (101)."""
    ids = torch.randint(0, 200, (batch, tokens), generator=generator)
    if tokens:
        ids[:, 0] = 101
    return (ids,)


DYNAMIC = {"inputs": {0: "batch", 1: "tokens"}}
CALL = "labels = torch.full(inputs.shape, -100)"
