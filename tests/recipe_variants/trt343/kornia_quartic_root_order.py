"""kornia's quartic solver: its roots ordered largest first, the spurious ones last.

Reduced from kornia 0.9.0 (the pinned wheel), kornia/geometry/solvers/polynomial_solver.py, the
end of ``solve_quartic`` (lines 1303-1310): a root is genuine where the polynomial's value there
is within a tolerance of zero; the roots are scaled back and the spurious ones set to 0, then
ordered by ``torch.where(genuine, roots, -torch.inf).argsort(dim=-1, descending=True, stable=True)``
(line 1309) and gathered. Spurious roots all sort as -inf (ties), a double root ties with itself.
Here the four candidate roots per row come in as an input with the monic quartic's coefficients;
the Newton refinement and the cubic fallback of the original are left out. Written here in our own
words.
"""

import torch
from torch import nn


class QuarticRootOrder(nn.Module):
    def __init__(self, tolerance=1e-3) -> None:
        super().__init__()
        self.tolerance = tolerance

    def forward(self, roots, coeffs, scale):
        a, b, c, d = coeffs.unbind(-1)
        value = (((roots + a[:, None]) * roots + b[:, None]) * roots + c[:, None]) * roots + d[:, None]
        genuine = value.abs() <= self.tolerance * (1 + roots.abs() ** 4)
        roots = torch.where(genuine, roots * scale[:, None], 0.0)
        order = torch.where(genuine, roots, -torch.inf).argsort(dim=-1, descending=True, stable=True)
        roots = roots.gather(1, order)
        return roots, order


def build() -> nn.Module:
    return QuarticRootOrder().eval()


def quartic(roots: torch.Tensor) -> torch.Tensor:
    """The monic quartic's a, b, c, d whose roots are the four columns of ``roots``."""
    r1, r2, r3, r4 = roots.unbind(-1)
    a = -(r1 + r2 + r3 + r4)
    b = r1 * r2 + r1 * r3 + r1 * r4 + r2 * r3 + r2 * r4 + r3 * r4
    c = -(r1 * r2 * r3 + r1 * r2 * r4 + r1 * r3 * r4 + r2 * r3 * r4)
    return torch.stack([a, b, c, r1 * r2 * r3 * r4], -1)


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    # Six rows: true roots, some candidates replaced by spurious values, a double root, scales of both signs.
    true = torch.randint(-3, 4, (6, 4), generator=generator).float()
    true[0, 1] = true[0, 0]  # a double root
    candidates = true.clone()
    candidates[1, 2:] = torch.tensor([10.5, -7.25])  # two spurious
    candidates[2] = torch.tensor([5.5, 6.5, 7.5, 8.5])  # all spurious
    scale = torch.tensor([1.0, -2.0, 0.5, 3.0, -1.0, 1.0])
    return (candidates, quartic(true), scale)


DYNAMIC = {"roots": {0: "rows"}, "coeffs": {0: "rows"}, "scale": {0: "rows"}}
