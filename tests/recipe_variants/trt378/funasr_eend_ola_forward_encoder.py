"""FunASR's EEND-OLA speaker diarization: each utterance's features padded with ``-1`` and a mask of ones padded with
``0``, a masked self-attention encoder over the batch, and each utterance's frames cut back to its length.

Reduced from funasr==1.4.16 (PyPI; modelscope/FunASR), funasr/models/eend/e2e_diar_eend_ola.py:
``DiarEENDOLAModel.forward_encoder(self, xs, ilens)`` (lines 129-145) writes ``xs = nn.utils.rnn.pad_sequence(xs,
batch_first=True, padding_value=-1)`` (line 136; ``from torch import nn``), keeps ``pad_shape = xs.shape``, builds
``[torch.ones(ilen).to(xs.device) for ilen in ilens]`` and pads it with ``torch.nn.utils.rnn.pad_sequence(xs_mask,
batch_first=True, padding_value=0).unsqueeze(-2)`` (lines 139-141, the call over three lines), runs ``self.enc``,
splits ``emb.view(pad_shape[0], pad_shape[1], -1)`` by utterance and returns ``[e[0][:ilen] for e, ilen in zip(emb,
ilens)]`` (lines 142-145); ``estimate_sequential`` (line 253) calls it on the utterances at inference.
funasr/models/eend/encoder.py: ``EENDOLATransformerEncoder`` (lines 125-179) flattens the batch, and
``MultiHeadSelfAttention`` (lines 8-45) masks the scores with ``masked_fill(x_mask == 0, -1e9)``. Kept: both calls
as written (the ``nn.utils.rnn`` and ``torch.nn.utils.rnn`` spellings, integer padding values by keyword, the second
call's ``.unsqueeze(-2)``), the mask of ones, the encoder's masked attention on the flattened batch, the cut back to
each length. Reduced: one layer and two heads, no feed-forward block or dropout, two utterances given as two
inputs (the batch is static, each utterance's frames dynamic); ``ilens`` are the utterances' traced sizes where
``estimate_sequential`` builds ``torch.tensor([len(sph) for sph in speech])``. The TorchScript exporter stops at
``aten::pad_sequence``. Written here in our own words.
"""

import math

import torch
import torch.nn.functional as F
from torch import nn

DYNAMIC = {"x0": {0: "frames0"}, "x1": {0: "frames1"}}
CALL = "xs = nn.utils.rnn.pad_sequence(xs, batch_first=True, padding_value=-1)"


class MultiHeadSelfAttention(nn.Module):
    def __init__(self, n_units: int, h: int = 2) -> None:
        super().__init__()
        self.linearQ = nn.Linear(n_units, n_units)
        self.linearK = nn.Linear(n_units, n_units)
        self.linearV = nn.Linear(n_units, n_units)
        self.linearO = nn.Linear(n_units, n_units)
        self.d_k = n_units // h
        self.h = h

    def forward(self, x, batch_size, x_mask):
        q = self.linearQ(x).view(batch_size, -1, self.h, self.d_k)
        k = self.linearK(x).view(batch_size, -1, self.h, self.d_k)
        v = self.linearV(x).view(batch_size, -1, self.h, self.d_k)
        scores = torch.matmul(q.permute(0, 2, 1, 3), k.permute(0, 2, 3, 1)) / math.sqrt(self.d_k)
        if x_mask is not None:
            x_mask = x_mask.unsqueeze(1)
            scores = scores.masked_fill(x_mask == 0, -1e9)
        att = F.softmax(scores, dim=3)
        x = torch.matmul(att, v.permute(0, 2, 1, 3))
        x = x.permute(0, 2, 1, 3).contiguous().view(-1, self.h * self.d_k)
        return self.linearO(x)


class Encoder(nn.Module):
    def __init__(self, idim: int, n_units: int) -> None:
        super().__init__()
        self.linear_in = nn.Linear(idim, n_units)
        self.lnorm1 = nn.LayerNorm(n_units)
        self.self_att = MultiHeadSelfAttention(n_units)
        self.lnorm_out = nn.LayerNorm(n_units)

    def forward(self, x, x_mask=None):
        bt_size = x.shape[0] * x.shape[1]
        e = self.linear_in(x.reshape(bt_size, -1))
        e = self.lnorm1(e)
        e = e + self.self_att(e, x.shape[0], x_mask)
        return self.lnorm_out(e)


class Diarizer(nn.Module):
    def __init__(self, idim: int = 5, n_units: int = 8) -> None:
        super().__init__()
        self.enc = Encoder(idim, n_units)

    def forward_encoder(self, xs, ilens):
        xs = nn.utils.rnn.pad_sequence(xs, batch_first=True, padding_value=-1)
        pad_shape = xs.shape
        xs_mask = [torch.ones(ilen).to(xs.device) for ilen in ilens]
        xs_mask = torch.nn.utils.rnn.pad_sequence(
            xs_mask, batch_first=True, padding_value=0
        ).unsqueeze(-2)
        emb = self.enc(xs, xs_mask)
        emb = torch.split(emb.view(pad_shape[0], pad_shape[1], -1), 1, dim=0)
        emb = [e[0][:ilen] for e, ilen in zip(emb, ilens)]
        return emb

    def forward(self, x0, x1):
        speech = [x0, x1]
        return self.forward_encoder(speech, [x.shape[0] for x in speech])


def build():
    torch.manual_seed(0)
    return Diarizer().eval()


def inputs(generator=None, frames0=6, frames1=3):
    return torch.randn(frames0, 5, generator=generator), torch.randn(frames1, 5, generator=generator)
