"""AD-NeRF's head NeRF: the points of every ray, with the frame's audio code, run through the MLP a chunk at a time.

Reduced from YudongGuo/AD-NeRF @ 14ad9835135a6b92491f47c5fd2e36e7174ef7d0, NeRFs/HeadNeRF/run_nerf.py lines 22-49
(``batchify``, lines 22-30, concatenates ``fn`` over the slices ``inputs[i:i+chunk]`` for ``i`` in ``range(0,
inputs.shape[0], chunk)`` on axis 0; ``run_network``, lines 33-49, flattens the sample points, embeds them, expands
the frame's audio feature ``aud_para`` to every point with ``aud_para.unsqueeze(0).expand(inputs_flat.shape[0], -1)``
and concatenates it, does the same with the embedded view directions of each ray, and calls ``batchify(fn,
netchunk)(embedded)`` before giving the output its ray and sample axes back). Written here in our own words: a small
MLP stands in for ``FaceNeRF`` (colour from the point, the audio code and the view direction, density from the point
and the audio code), the embedding is NeRF's sine and cosine encoding at two frequencies, the audio code has 4
entries and ``netchunk`` is 8 points. ``batchify`` and the order of ``run_network``'s steps are the original's, as
it spells them; the coarse-to-fine sampling and the audio attention network are left out.

Traced with 3 rays of 4 samples (12 points, two chunks), the graph holds two MLP calls on the slices [0:8] and
[8:16]: at 5 rays of 4 samples it drops the points past the sixteenth. The MLP treats every point on its own (the
audio code is the same for every point of the frame), so the whole call follows the rays and the samples.
"""

import torch
from torch import nn


def batchify(fn, chunk):
    """Constructs a version of 'fn' that applies to smaller batches.
    """
    if chunk is None:
        return fn

    def ret(inputs):
        return torch.cat([fn(inputs[i:i+chunk]) for i in range(0, inputs.shape[0], chunk)], 0)
    return ret


def embed(x, frequencies: int = 2):
    parts = [x]
    for k in range(frequencies):
        parts += [torch.sin(x * 2.0 ** k), torch.cos(x * 2.0 ** k)]
    return torch.cat(parts, -1)


class FaceNeRF(nn.Module):
    def __init__(self, dim_aud: int = 4, width: int = 16) -> None:
        super().__init__()
        self.dim_aud = dim_aud
        self.pts_linears = nn.Sequential(nn.Linear(15 + dim_aud, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.alpha_linear = nn.Linear(width, 1)
        self.views_linear = nn.Sequential(nn.Linear(width + 15, width // 2), nn.ReLU(), nn.Linear(width // 2, 3))

    def forward(self, x):
        pts_aud, views = x[:, :15 + self.dim_aud], x[:, 15 + self.dim_aud:]
        h = self.pts_linears(pts_aud)
        return torch.cat([self.views_linear(torch.cat([h, views], -1)), self.alpha_linear(h)], -1)


class HeadNeRFQuery(nn.Module):
    def __init__(self, netchunk: int = 8) -> None:
        super().__init__()
        self.fn = FaceNeRF()
        self.netchunk = netchunk

    def forward(self, inputs, viewdirs, aud_para):
        inputs_flat = torch.reshape(inputs, [-1, inputs.shape[-1]])
        embedded = embed(inputs_flat)
        aud = aud_para.unsqueeze(0).expand(inputs_flat.shape[0], -1)
        embedded = torch.cat((embedded, aud), -1)
        input_dirs = viewdirs[:, None].expand(inputs.shape)
        input_dirs_flat = torch.reshape(input_dirs, [-1, input_dirs.shape[-1]])
        embedded_dirs = embed(input_dirs_flat)
        embedded = torch.cat([embedded, embedded_dirs], -1)

        outputs_flat = batchify(self.fn, self.netchunk)(embedded)
        outputs = torch.reshape(outputs_flat, list(
            inputs.shape[:-1]) + [outputs_flat.shape[-1]])
        return outputs


def build() -> nn.Module:
    torch.manual_seed(0)
    return HeadNeRFQuery().eval()


def inputs(generator: torch.Generator, rays: int = 3, samples: int = 4) -> tuple[torch.Tensor, ...]:
    viewdirs = torch.randn(rays, 3, generator=generator)
    return (torch.randn(rays, samples, 3, generator=generator), viewdirs / viewdirs.norm(dim=-1, keepdim=True),
            torch.randn(4, generator=generator))


DYNAMIC = {"inputs": {0: "rays", 1: "samples"}, "viewdirs": {0: "rays"}}
CALL = "return torch.cat([fn(inputs[i:i+chunk]) for i in range(0, inputs.shape[0], chunk)], 0)"
