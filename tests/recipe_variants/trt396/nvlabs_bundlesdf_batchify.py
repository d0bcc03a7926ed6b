"""BundleSDF's neural object field: the SDF network queried over the sampled points a chunk of points at a time.

Reduced from NVlabs/BundleSDF @ 31ed49ec8d06f426e0914f79239f285ec6e0c0bb, nerf_runner.py lines 29-36 (``batchify``,
NeRF's helper as this code base carries it, in its two-space indentation: ``ret`` concatenates ``fn`` over the slices
``inputs[i:i+chunk]`` for ``i`` in ``range(0, inputs.shape[0], chunk)`` on axis 0; ``NerfRunner`` queries its
``NeRFSmall`` SDF-and-colour network through it, the points of every ray flattened and embedded first). Written here in
our own words: a two-layer MLP with a softplus stands in for ``NeRFSmall`` (an SDF value and three colour channels a
point), the embedding is a fixed random Fourier feature map of the points, and the chunk is 6 points so that a few
rays already take several chunks. ``batchify`` is the original's, as it spells it (two-space indentation, the
``chunk is None`` early return, ``i+chunk`` without spaces); the octree sampling, the frame features and the pose
array are left out.

Traced with 3 rays of 4 samples (12 points, two chunks), the graph holds two MLP calls on the slices [0:6] and
[6:12]: at 5 rays it drops the points past the twelfth. The MLP treats every point on its own, so the whole call
follows the rays and the samples.
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


class SDFField(nn.Module):
  def __init__(self, features=8, hidden=16, chunk=6):
    super().__init__()
    self.register_buffer("B", torch.randn(3, features))
    self.net = nn.Sequential(nn.Linear(3 + 2 * features, hidden), nn.Softplus(beta=10), nn.Linear(hidden, 4))
    self.chunk = chunk

  def forward(self, pts):
    flat = pts.reshape(-1, 3)
    proj = flat @ self.B
    embedded = torch.cat([flat, torch.sin(proj), torch.cos(proj)], -1)
    raw = batchify(self.net, self.chunk)(embedded)
    return raw.reshape(pts.shape[0], pts.shape[1], 4)


def build() -> nn.Module:
  torch.manual_seed(0)
  return SDFField().eval()


def inputs(generator: torch.Generator, rays: int = 3, samples: int = 4) -> tuple[torch.Tensor, ...]:
  return (torch.randn(rays, samples, 3, generator=generator),)


DYNAMIC = {"pts": {0: "rays", 1: "samples"}}
CALL = "return torch.cat([fn(inputs[i:i+chunk]) for i in range(0, inputs.shape[0], chunk)], 0)"
