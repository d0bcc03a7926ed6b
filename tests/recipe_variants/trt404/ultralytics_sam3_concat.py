"""SAM 3's prompt encoder joins two right-padded sequences: positions repeated over the batch.

Reduced from ultralytics 8.4.190 (the PyPI wheel), ultralytics/models/sam/sam3/geometry_encoders.py,
``concat_padded_sequences`` (lines 17-69): the padding mask of the joined sequence compares
``torch.arange(max_length)[None].repeat(batch_size, 1)`` with each row's length (line 51), and the
second sequence is scattered after the first one's real tokens through
``torch.arange(seq2_length)[:, None].repeat(1, batch_size)`` plus those lengths (line 61). Written
here in our own words without the right-padding assertions; the mask is returned as the last
feature. The ``[None]`` form was taken before; the ``[:, None]`` one (a new second axis) was not.
"""

import torch
from torch import nn


class ConcatPadded(nn.Module):
    def forward(self, seq1, mask1, seq2, mask2):
        seq1_length, batch_size, hidden_size = seq1.shape
        seq2_length, batch_size, hidden_size = seq2.shape
        actual_seq1_lengths = (~mask1).sum(dim=-1)
        actual_seq2_lengths = (~mask2).sum(dim=-1)
        final_lengths = actual_seq1_lengths + actual_seq2_lengths
        max_length = seq1_length + seq2_length
        concatenated_mask = (
            torch.arange(max_length, device=seq2.device)[None].repeat(batch_size, 1) >= final_lengths[:, None]
        )
        concatenated_sequence = torch.zeros((max_length, batch_size, hidden_size), device=seq2.device, dtype=seq2.dtype)
        concatenated_sequence[:seq1_length, :, :] = seq1
        index = torch.arange(seq2_length, device=seq2.device)[:, None].repeat(1, batch_size)
        index = index + actual_seq1_lengths[None]
        concatenated_sequence = concatenated_sequence.scatter(0, index[:, :, None].expand(-1, -1, hidden_size), seq2)
        flags = concatenated_mask.transpose(0, 1)[:, :, None].to(seq2.dtype)
        return torch.cat((concatenated_sequence, flags), dim=-1)


def build() -> nn.Module:
    return ConcatPadded()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    mask1 = torch.tensor([[False, False, True], [False, False, False]])
    mask2 = torch.tensor([[False, True], [False, False]])
    return (torch.randn(3, 2, 4, generator=generator), mask1, torch.randn(2, 2, 4, generator=generator), mask2)


DYNAMIC = {"seq1": {0: "len1", 1: "batch"}, "mask1": {0: "batch", 1: "len1"}, "seq2": {0: "len2", 1: "batch"},
           "mask2": {0: "batch", 1: "len2"}}
