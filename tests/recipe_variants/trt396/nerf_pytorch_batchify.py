"""NeRF's network query: the points of every ray embedded and run through the MLP a chunk of points at a time.

Reduced from yenchenlin/nerf-pytorch @ 223fe62d87d641e2bb0fb5bdbbcb6dad5efb2af3, run_nerf.py lines 27-51
(``batchify`` builds a function that concatenates ``fn`` over slices of ``chunk`` rows, ``range(0, inputs.shape[0],
chunk)``; ``run_network`` flattens the rays' sample points, embeds them with the positional encoding and calls
``batchify(fn, netchunk)(embedded)``, then gives the output back its ray and sample axes). Written here in our own
words: a small MLP stands in for NeRF's eight-layer one, the embedding is NeRF's sine and cosine encoding at two
frequencies, and ``netchunk`` is 8 points so that a few rays already take several chunks. The comprehension is the
original's, as it spells it.

Traced with 3 rays of 4 samples (12 points, two chunks), the graph holds two MLP calls on the slices [0:8] and
[8:16]: at 4 rays of 5 samples it drops the points past the sixteenth. The MLP treats every point on its own, so the
whole call follows the rays and the samples.
"""

import torch
from torch import nn


def batchify(fn, chunk):
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


class TinyNeRF(nn.Module):
    def __init__(self, width: int = 16, netchunk: int = 8) -> None:
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(15, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                                 nn.Linear(width, 4))
        self.netchunk = netchunk

    def forward(self, pts):
        inputs_flat = torch.reshape(pts, [-1, pts.shape[-1]])
        embedded = embed(inputs_flat)
        outputs_flat = batchify(self.mlp, self.netchunk)(embedded)
        return torch.reshape(outputs_flat, list(pts.shape[:-1]) + [outputs_flat.shape[-1]])


def build() -> nn.Module:
    torch.manual_seed(0)
    return TinyNeRF().eval()


def inputs(generator: torch.Generator, rays: int = 3, samples: int = 4) -> tuple[torch.Tensor, ...]:
    return (torch.randn(rays, samples, 3, generator=generator),)


DYNAMIC = {"pts": {0: "rays", 1: "samples"}}
CALL = "return torch.cat([fn(inputs[i:i+chunk]) for i in range(0, inputs.shape[0], chunk)], 0)"
