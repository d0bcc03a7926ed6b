"""NCRF++'s CRF Viterbi decoding: after the forward max-product pass, the best path is traced back into
a buffer made with a typed legacy constructor from sizes read off the emissions,
``decode_idx = autograd.Variable(torch.LongTensor(seq_len, batch_size))`` (``batch_size =
feats.size(0)``, ``seq_len = feats.size(1)``), its last row set to the best final tag and the rows before
it filled from the back-pointers, then transposed to (batch, seq_len).

Reduced from jiesutd/NCRFpp at 105a53a321eca9c1280037c473967858e01aaa43, model/crf.py,
``CRF._viterbi_decode`` (lines 105-198; the buffer at line 188). Written here in our own words as the
CRF module's forward over emissions and a mask: the transitions are a parameter drawn at random (the
original starts from zeros and learns them), three tags plus START and STOP, and the ``self.gpu``
branches are not taken (``.cuda()`` of the buffers).
"""

import torch
import torch.autograd as autograd
import torch.nn as nn

START_TAG = -2
STOP_TAG = -1


class CRF(nn.Module):
    def __init__(self, tagset_size=3):
        super().__init__()
        self.tagset_size = tagset_size
        self.transitions = nn.Parameter(torch.randn(tagset_size + 2, tagset_size + 2))

    def forward(self, feats, mask):
        batch_size = feats.size(0)
        seq_len = feats.size(1)
        tag_size = feats.size(2)
        length_mask = torch.sum(mask.long(), dim=1).view(batch_size, 1).long()
        mask = mask.transpose(1, 0).contiguous()
        ins_num = seq_len * batch_size
        feats = feats.transpose(1, 0).contiguous().view(ins_num, 1, tag_size).expand(ins_num, tag_size, tag_size)
        scores = feats + self.transitions.view(1, tag_size, tag_size).expand(ins_num, tag_size, tag_size)
        scores = scores.view(seq_len, batch_size, tag_size, tag_size)

        seq_iter = enumerate(scores)
        back_points = list()
        partition_history = list()
        mask = (1 - mask.long()).bool()
        _, inivalues = next(seq_iter)
        partition = inivalues[:, START_TAG, :].clone().view(batch_size, tag_size)
        partition_history.append(partition)
        for idx, cur_values in seq_iter:
            cur_values = cur_values + partition.contiguous().view(batch_size, tag_size, 1).expand(
                batch_size, tag_size, tag_size)
            partition, cur_bp = torch.max(cur_values, 1)
            partition_history.append(partition)
            cur_bp.masked_fill_(mask[idx].view(batch_size, 1).expand(batch_size, tag_size), 0)
            back_points.append(cur_bp)
        partition_history = torch.cat(partition_history, 0).view(seq_len, batch_size, -1).transpose(1, 0).contiguous()
        last_position = length_mask.view(batch_size, 1, 1).expand(batch_size, 1, tag_size) - 1
        last_partition = torch.gather(partition_history, 1, last_position).view(batch_size, tag_size, 1)
        last_values = last_partition.expand(batch_size, tag_size, tag_size) + self.transitions.view(
            1, tag_size, tag_size).expand(batch_size, tag_size, tag_size)
        _, last_bp = torch.max(last_values, 1)
        pad_zero = autograd.Variable(torch.zeros(batch_size, tag_size)).long()
        back_points.append(pad_zero)
        back_points = torch.cat(back_points).view(seq_len, batch_size, tag_size)

        pointer = last_bp[:, STOP_TAG]
        insert_last = pointer.contiguous().view(batch_size, 1, 1).expand(batch_size, 1, tag_size)
        back_points = back_points.transpose(1, 0).contiguous()
        back_points.scatter_(1, last_position, insert_last)
        back_points = back_points.transpose(1, 0).contiguous()
        decode_idx = autograd.Variable(torch.LongTensor(seq_len, batch_size))
        decode_idx[-1] = pointer.detach()
        for idx in range(len(back_points) - 2, -1, -1):
            pointer = torch.gather(back_points[idx], 1, pointer.contiguous().view(batch_size, 1))
            decode_idx[idx] = pointer.detach().view(batch_size)
        decode_idx = decode_idx.transpose(1, 0)
        return decode_idx


def build() -> nn.Module:
    return CRF().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    feats = torch.randn(2, 4, 5, generator=generator)
    mask = torch.tensor([[1, 1, 1, 1], [1, 1, 0, 0]], dtype=torch.uint8)
    return feats, mask


DYNAMIC = {"feats": {0: "batch"}, "mask": {0: "batch"}}
