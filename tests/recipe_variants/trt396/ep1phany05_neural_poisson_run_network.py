"""Neural Poisson Solver's NeRF query: typed ``batchify`` over the encoded points and view directions of every ray.

Reduced from ep1phany05/NeuralPoissonSolver @ 6f797277720d580c05860ad36a62e5a6abb401f5,
src/models/nerf/utils/network_utils.py lines 6-38 (``batchify``, lines 6-16, annotated ``(network: nn.Module, chunk:
Optional[int] = None) -> Callable[[torch.Tensor], torch.Tensor]``, returns ``ret`` that concatenates ``network`` over
``inputs[i:i + chunk]`` for ``i`` in ``range(0, inputs.shape[0], chunk)`` with ``dim=0``; ``run_network``, lines 19-38,
flattens the coordinates with ``view``, encodes them, expands each ray's view direction to its samples with
``expand_as``, encodes and concatenates it, calls ``batchify(network, net_chunk)(coords_encoded)`` and gives the output
its ray and sample axes back with ``view``; src/blending/blend_3d.py lines 76-77 binds it as the renderer's
``network_query_fn`` for the 3D scene blending). Written here in our own words: a small MLP stands in for the NeRF
network, both encoders are NeRF's sine and cosine encoding at two frequencies, and ``net_chunk`` is 8 points.
``batchify`` and ``run_network`` are the original's, as they spell them (annotations, ``i:i + chunk`` with spaces,
``dim=0``, ``view`` and ``expand_as``).

Traced with 3 rays of 4 samples (12 points, two chunks), the graph holds two network calls on the slices [0:8] and
[8:16]: at 5 rays of 4 samples it drops the points past the sixteenth. The network treats every point on its own, so
the whole call follows the rays and the samples.
"""

from typing import Callable, Optional

import torch
import torch.nn as nn


def batchify(
        network: nn.Module,
        chunk: Optional[int] = None
) -> Callable[[torch.Tensor], torch.Tensor]:
    if chunk is None:
        return network

    def ret(inputs: torch.Tensor) -> torch.Tensor:
        return torch.cat([network(inputs[i:i + chunk]) for i in range(0, inputs.shape[0], chunk)], dim=0)

    return ret


def run_network(
        coords: torch.Tensor,
        viewdirs: Optional[torch.Tensor],
        network: nn.Module,
        coords_encoder: Callable[[torch.Tensor], torch.Tensor],
        viewdirs_encoder: Callable[[torch.Tensor], torch.Tensor],
        net_chunk: int = 1024 * 64
) -> torch.Tensor:

    coords_flat = coords.view(-1, coords.shape[-1])
    coords_encoded = coords_encoder(coords_flat)

    if viewdirs is not None:
        viewdirs_ = viewdirs[:, None].expand_as(coords)
        viewdirs_flat = viewdirs_.reshape(-1, viewdirs_.shape[-1])
        viewdirs_encoded = viewdirs_encoder(viewdirs_flat)
        coords_encoded = torch.cat([coords_encoded, viewdirs_encoded], dim=-1)

    outputs_flat = batchify(network, net_chunk)(coords_encoded)
    return outputs_flat.view(*coords.shape[:-1], outputs_flat.shape[-1])


def encode(x: torch.Tensor, frequencies: int = 2) -> torch.Tensor:
    parts = [x]
    for k in range(frequencies):
        parts += [torch.sin(x * 2.0 ** k), torch.cos(x * 2.0 ** k)]
    return torch.cat(parts, -1)


class NeRFQuery(nn.Module):
    def __init__(self, width: int = 16, net_chunk: int = 8) -> None:
        super().__init__()
        self.network = nn.Sequential(nn.Linear(30, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                                     nn.Linear(width, 4))
        self.net_chunk = net_chunk

    def forward(self, coords, viewdirs):
        return run_network(coords, viewdirs, self.network, encode, encode, self.net_chunk)


def build() -> nn.Module:
    torch.manual_seed(0)
    return NeRFQuery().eval()


def inputs(generator: torch.Generator, rays: int = 3, samples: int = 4) -> tuple[torch.Tensor, ...]:
    viewdirs = torch.randn(rays, 3, generator=generator)
    return (torch.randn(rays, samples, 3, generator=generator), viewdirs / viewdirs.norm(dim=-1, keepdim=True))


DYNAMIC = {"coords": {0: "rays", 1: "samples"}, "viewdirs": {0: "rays"}}
CALL = "return torch.cat([network(inputs[i:i + chunk]) for i in range(0, inputs.shape[0], chunk)], dim=0)"
