"""Occupancy Networks' mesh generator: the occupancy of query points evaluated a fixed number of points at a time.

Reduced from autonomousvision/occupancy_networks @ b72f6fcd5f3f4761d261805edab0262604f967ae,
im2mesh/onet/generation.py lines 137-157 (``Generator3D.eval_points``: binds ``p_split = torch.split(p,
self.points_batch_size)`` and an empty list ``occ_hats``, then for each piece ``pi`` gives it a batch axis and moves
it to the device, decodes it under ``torch.no_grad()`` with the latent code ``z`` and the conditioning code ``c``
(``self.model.decode(pi, z, c, **kwargs).logits``), appends the logits without their batch axis, detached and on the
CPU, and concatenates the list on axis 0; ``generate_from_latent`` calls it on the grid points of every MISE round).
Written here in our own words: the generator is a module whose ``forward`` is ``eval_points``; ``decode`` is a small
ONet-style decoder (the point, ``z`` and ``c`` each projected, added, a ReLU and a linear head) returning a
``Bernoulli`` whose ``logits`` are read as the original does; ``points_batch_size`` is 5 points so that a dozen
points take three pieces. ``eval_points`` is the original's, as it spells it (the pieces bound to a name before the
list, the loop's name rebound in the body, the ``with`` block, the concatenation bound to ``occ_hat`` and returned).

Traced with 12 points, the graph splits them into fixed pieces of 5, 5 and 2: 17 points, or 3, no longer match the
split. The decoder scores every point on its own, so the whole call follows the points.
"""

import torch
from torch import distributions as dist
from torch import nn


class Decoder(nn.Module):
    def __init__(self, z_dim: int = 4, c_dim: int = 8, hidden: int = 16) -> None:
        super().__init__()
        self.fc_p = nn.Linear(3, hidden)
        self.fc_z = nn.Linear(z_dim, hidden)
        self.fc_c = nn.Linear(c_dim, hidden)
        self.fc_out = nn.Linear(hidden, 1)

    def forward(self, p, z, c):
        net = self.fc_p(p) + self.fc_z(z).unsqueeze(1) + self.fc_c(c).unsqueeze(1)
        return self.fc_out(torch.relu(net)).squeeze(-1)


class OccupancyNetwork(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.decoder = Decoder()

    def decode(self, p, z, c, **kwargs):
        logits = self.decoder(p, z, c, **kwargs)
        return dist.Bernoulli(logits=logits, validate_args=False)


class Generator3D(nn.Module):
    def __init__(self, points_batch_size: int = 5) -> None:
        super().__init__()
        self.model = OccupancyNetwork()
        self.points_batch_size = points_batch_size
        self.device = torch.device("cpu")

    def forward(self, p, z, c):
        return self.eval_points(p, z, c)

    def eval_points(self, p, z, c=None, **kwargs):
        p_split = torch.split(p, self.points_batch_size)
        occ_hats = []

        for pi in p_split:
            pi = pi.unsqueeze(0).to(self.device)
            with torch.no_grad():
                occ_hat = self.model.decode(pi, z, c, **kwargs).logits

            occ_hats.append(occ_hat.squeeze(0).detach().cpu())

        occ_hat = torch.cat(occ_hats, dim=0)

        return occ_hat


def build() -> nn.Module:
    torch.manual_seed(0)
    return Generator3D().eval()


def inputs(generator: torch.Generator, points: int = 12) -> tuple[torch.Tensor, ...]:
    return (torch.rand(points, 3, generator=generator) - 0.5, torch.randn(1, 4, generator=generator),
            torch.randn(1, 8, generator=generator))


DYNAMIC = {"p": {0: "points"}}
#: The finding runs from the split (where the graph makes its fixed pieces) to the loop over them.
CALL = "p_split = torch.split(p, self.points_batch_size)"
