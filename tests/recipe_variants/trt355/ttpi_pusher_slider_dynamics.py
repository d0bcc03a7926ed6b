"""A pusher-slider's explicit dynamics: the state's velocity in the pushed face's frame, rotated into place.

Reduced from the planar-pushing dynamics of TTPI (tensor-train policy iteration), as kept in
Echo-1120/ttpi_iclr at 699c8946f43cfbadc462f916aa6f71df7239178a, pushing_dyn_explicit_double.py:
``pusher_slider_sys.dynamics`` (lines 112-199) builds, for a batch of states and pushes, the rotation of
the pushed face and of the slider and the limit-surface matrix (``torch.empty`` filled element by
element), the friction-cone edges ``gama_t``/``gama_b`` (lines 71-81), the velocity maps of the four
contact modes (sticking, sliding up, sliding down, separated) chosen by masks, and then turns the
planar part of the velocity from the left face's frame into the pushed face's in place through a view of
a view with a new axis: ``f[:, :2][:, :, None] = torch.einsum('ijk,ikl -> ijl', R_mat, f[:, :2][:, :,
None])`` (line 192), before the Euler step. Here in float32 (the original sets float64 as the default),
the face index read from the push, and ``b1``-``b3`` (lines 90-110) written as stacks. Written here in
our own words.
"""

import torch
from torch import nn


class PusherSlider(nn.Module):
    def __init__(self, dt: float = 0.01) -> None:
        super().__init__()
        self.dt = dt
        self.px = -0.06 - 0.005  # the pusher's x on the left face: minus the slider's and the pusher's radii
        self.c = 0.0459  # the limit surface's characteristic length for a 0.12 m square
        self.u_ps = 0.3
        self.contact_tol = 5e-3

    def cone(self, py, sign: float):
        c, mu, px = self.c, self.u_ps, self.px
        return ((sign * mu * c ** 2 - px * py + sign * mu * px ** 2)
                / (c ** 2 + py ** 2 - sign * mu * px * py)).view(-1, 1)

    def forward(self, xs, us):
        faceid = us[:, :1]
        vn, vt = us[:, 1:2], us[:, 2:3]
        u = us[:, 1:3]
        p_x, p_y = xs[:, 3], xs[:, 4]
        bs = xs.size(0)
        face_beta = torch.abs(faceid + 1) * torch.pi / 2
        R_mat = torch.empty(bs, 2, 2)
        R_mat[:, 0, 0] = torch.cos(face_beta).squeeze(-1)
        R_mat[:, 1, 1] = torch.cos(face_beta).squeeze(-1)
        R_mat[:, 0, 1] = -torch.sin(face_beta).squeeze(-1)
        R_mat[:, 1, 0] = torch.sin(face_beta).squeeze(-1)
        theta = xs[:, 2:3]
        R_theta = torch.stack([torch.cat([torch.cos(theta), -torch.sin(theta)], 1),
                               torch.cat([torch.sin(theta), torch.cos(theta)], 1)], 1)
        norm = (self.c ** 2 + p_x ** 2 + p_y ** 2)[:, None, None]
        Q_mat = torch.stack([torch.stack([self.c ** 2 + p_x ** 2, p_x * p_y], 1),
                             torch.stack([p_x * p_y, self.c ** 2 + p_y ** 2], 1)], 1) / norm
        gama_t, gama_b = self.cone(p_y, 1.0), self.cone(p_y, -1.0)
        zero = torch.zeros_like(gama_t)
        P1 = torch.eye(2)[None].expand(bs, -1, -1)
        P2 = torch.cat([P1[:, :1], torch.cat([gama_t, zero], -1)[:, None]], 1)
        P3 = torch.cat([P1[:, :1], torch.cat([gama_b, zero], -1)[:, None]], 1)
        b1 = torch.stack([-p_y, torch.full_like(p_y, self.px)], -1)[:, None] / norm
        b2 = torch.cat([(-p_y[:, None] + gama_t * self.px), zero], -1)[:, None] / norm
        b3 = torch.cat([(-p_y[:, None] + gama_b * self.px), zero], -1)[:, None] / norm
        D = torch.zeros(bs, 1, 2)
        one = torch.ones_like(gama_t)
        c2, c3 = torch.cat([-gama_t, one], -1)[:, None], torch.cat([-gama_b, one], -1)[:, None]
        dyn1 = torch.cat([torch.einsum('ijk,ikl,ilm -> ijm', R_theta, Q_mat, P1), b1, D, D], 1)
        dyn2 = torch.cat([torch.einsum('ijk,ikl,ilm -> ijm', R_theta, Q_mat, P2), b2, D, c2], 1)
        dyn3 = torch.cat([torch.einsum('ijk,ikl,ilm -> ijm', R_theta, Q_mat, P3), b3, D, c3], 1)
        dyn4 = torch.cat([torch.zeros(bs, 3, 2), torch.eye(2)[None].expand(bs, -1, -1)], 1)
        touch = (torch.abs(p_x - self.px) <= self.contact_tol)[:, None]
        cond1 = 1 * torch.logical_and(torch.logical_and(vt >= gama_b * vn, vt <= gama_t * vn), touch)
        cond2 = 1 * torch.logical_and(vt > gama_t * vn, touch)
        cond3 = 1 * torch.logical_and(vt < gama_b * vn, touch)
        cond4 = 1 - cond1 - cond2 - cond3
        f = cond1 * torch.einsum('ijk,ikl -> ijl', dyn1, u[:, :, None])[..., 0]
        f += cond2 * torch.einsum('ijk,ikl -> ijl', dyn2, u[:, :, None])[..., 0]
        f += cond3 * torch.einsum('ijk,ikl -> ijl', dyn3, u[:, :, None])[..., 0]
        f += cond4 * torch.einsum('ijk,ikl -> ijl', dyn4, u[:, :, None])[..., 0]
        # from the left face's frame to the pushed face's, in place
        f[:, :2][:, :, None] = torch.einsum('ijk,ikl -> ijl', R_mat, f[:, :2][:, :, None])
        return torch.cat((xs[:, :5] + f * self.dt, faceid), dim=1)


def build() -> nn.Module:
    return PusherSlider().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    low = torch.tensor([-0.25, -0.25, -3.14, -0.07, -0.06, -2.0])
    high = torch.tensor([0.25, 0.25, 3.14, -0.06, 0.06, 2.0])
    xs = low + (high - low) * torch.rand(6, 6, generator=generator)
    faces = torch.tensor([-2.0, -1.0, 1.0, 2.0])[torch.randint(0, 4, (6,), generator=generator)]
    push = torch.stack([torch.rand(6, generator=generator) * 0.05, (torch.rand(6, generator=generator) - 0.5) * 0.1], 1)
    return xs, torch.cat([faces[:, None], push], 1)


DYNAMIC = {"xs": {0: "batch"}, "us": {0: "batch"}}
