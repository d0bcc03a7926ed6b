"""MaskGIT's class-conditional image-token generator (TiTok's ``ImageBert``) starts decoding from a canvas of mask
tokens: ``ids = torch.full((condition.shape[0], self.image_seq_len), self.mask_token_id, device=device)``, no dtype,
the batch read from the class labels (traced) and the fill an attribute, the mask token's id (``codebook_size``, an
``int``: eager mode infers int64). The ids are compared with the mask id, joined after the shifted class token by
``torch.cat`` and looked up in the token embedding, and the sampled ids replace them with ``torch.where``. With the
batch traced, the TorchScript exporter makes the ``full`` a float ``ConstantOfShape`` and casts the int64 class
token to float to join them: ONNX Runtime refuses the embedding's ``Gather`` on the joined float ids.

Reduced from bytedance/1d-tokenizer @ 942a96fbdd873780179d1b78d5462911528bf8c8 (Apache-2.0),
modeling/maskgit.py: ``ImageBert.forward`` (lines 88-108) and the first step of ``ImageBert.generate`` (lines
111-193; the ``full`` at lines 125-126, the guided logits at lines 141-154, the sampled ids at lines 170-173).
Written here in our own words with a small configuration (a codebook of 16 tokens, 10 classes, 6 image tokens,
width 8): the Hugging Face ``BertModel`` is a token and a position embedding, one single-head self-attention, one
GELU layer and the linear ``lm_head``; the class drop of ``forward`` keeps the two settings ``generate`` calls it
with (``cond_drop_prob`` 0 and 1) without ``rand_like``; one decoding step is kept, its Gumbel noise (random) left
out, so the sampled ids are the arg-max of the guided logits.
"""

import torch
from torch import nn


class ImageBert(nn.Module):
    def __init__(self, codebook_size: int = 16, num_classes: int = 10, image_seq_len: int = 6,
                 width: int = 8, guidance_scale: float = 3.0) -> None:
        super().__init__()
        self.target_codebook_size = codebook_size
        self.condition_num_classes = num_classes
        self.image_seq_len = image_seq_len
        self.mask_token_id = codebook_size
        self.guidance_scale = guidance_scale
        self.word_embeddings = nn.Embedding(codebook_size + num_classes + 2, width)
        self.position_embeddings = nn.Embedding(image_seq_len + 1, width)
        self.query_key_value = nn.Linear(width, 3 * width)
        self.scale = width ** -0.5
        self.hidden = nn.Linear(width, width)
        self.lm_head = nn.Linear(width, codebook_size)

    def logits(self, input_ids, condition, drop_condition: bool):
        condition = condition + self.target_codebook_size + 1
        if drop_condition:
            condition = condition * 0 + (self.condition_num_classes + self.target_codebook_size + 1)
        tokens = torch.cat((condition.reshape(-1, 1), input_ids.reshape(input_ids.shape[0], -1)), dim=1)
        hidden = self.word_embeddings(tokens) + self.position_embeddings.weight[None, :tokens.shape[1]]
        query, key, value = self.query_key_value(hidden).chunk(3, dim=-1)
        hidden = hidden + (query @ key.transpose(1, 2) * self.scale).softmax(dim=-1) @ value
        hidden = nn.functional.gelu(self.hidden(hidden))
        return self.lm_head(hidden[:, 1:])

    def forward(self, condition):
        ids = torch.full((condition.shape[0], self.image_seq_len),
                         self.mask_token_id, device=condition.device)
        is_mask = ids == self.mask_token_id
        cond_logits = self.logits(ids, condition, drop_condition=False)
        uncond_logits = self.logits(ids, condition, drop_condition=True)
        logits = cond_logits + (cond_logits - uncond_logits) * self.guidance_scale
        sampled_ids = logits.argmax(dim=-1)
        sampled_ids = torch.where(is_mask, sampled_ids, ids)
        return logits, sampled_ids


def build() -> nn.Module:
    return ImageBert()


def inputs(generator: torch.Generator, batch: int = 2) -> tuple[torch.Tensor, ...]:
    """``batch`` ImageNet-style class labels (here 10 classes)."""
    return (torch.randint(0, 10, (batch,), generator=generator),)


DYNAMIC = {"condition": {0: "batch"}}
CALL = "ids = torch.full((condition.shape[0], self.image_seq_len),"
