"""Time-Series-Library's WPMixer: a coefficient series extended by its last value, then patched by keyword.

Reduced from thuml/Time-Series-Library at commit 4e938a1767106324dd753b2a44832bf870a0252e,
models/WPMixer.py: ``ResolutionBranch.__init__`` (lines 93-140, the patch count, the norms, the
patch embedding and the head), ``ResolutionBranch.forward`` (lines 142-163) and
``ResolutionBranch.do_patching`` (lines 165-170). ``do_patching`` takes the last step of the
``(batch, channel, length)`` series, repeats it ``patch_stride`` times, concatenates it on the right
and calls ``x_new.unfold(dimension=-1, size=self.patch_len, step=self.patch_stride)``; the patches
are batch-normalized per channel, embedded by a linear layer, and a head flattens the last two
axes into the prediction. Written here in our own words; the two token/embedding mixers between
the embedding and the head are left out (a residual ``GELU`` stands for them).
"""

import torch
from torch import nn


class ResolutionBranch(nn.Module):
    def __init__(self, input_seq: int = 16, pred_seq: int = 5, channel: int = 3, d_model: int = 6,
                 patch_len: int = 4, patch_stride: int = 2) -> None:
        super().__init__()
        self.patch_len = patch_len
        self.patch_stride = patch_stride
        self.patch_num = int((input_seq - patch_len) / patch_stride + 2)
        self.patch_norm = nn.BatchNorm2d(channel)
        self.patch_embedding_layer = nn.Linear(patch_len, d_model)
        self.norm = nn.BatchNorm2d(channel)
        self.dropoutLayer = nn.Dropout(0.1)
        self.head = nn.Sequential(nn.Flatten(start_dim=-2, end_dim=-1), nn.Linear(self.patch_num * d_model, pred_seq))

    def forward(self, x):
        x_patch = self.do_patching(x)
        x_patch = self.patch_norm(x_patch)
        x_emb = self.dropoutLayer(self.patch_embedding_layer(x_patch))
        out = x_emb + nn.functional.gelu(x_emb)
        out = self.norm(out)
        return self.head(out)

    def do_patching(self, x):
        x_end = x[:, :, -1:]
        x_padding = x_end.repeat(1, 1, self.patch_stride)
        x_new = torch.cat((x, x_padding), dim=-1)
        x_patch = x_new.unfold(dimension=-1, size=self.patch_len, step=self.patch_stride)
        return x_patch


def build() -> nn.Module:
    torch.manual_seed(0)
    model = ResolutionBranch()
    with torch.no_grad():  # running statistics other than the defaults, so the norms do something
        for norm in (model.patch_norm, model.norm):
            norm.running_mean.uniform_(-0.5, 0.5)
            norm.running_var.uniform_(0.5, 2.0)
    return model.eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 3, 16, generator=generator),)


DYNAMIC = {"x": {0: "batch"}}
