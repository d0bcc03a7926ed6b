"""RoboOrchardSim's IK post-processing: each goal's IK solutions reordered, successes first, then by distance.

Reduced from HorizonRobotics/RoboOrchardSim at 51281815b920fb85348bf504ad255bef6f94e7b8,
robo_orchard_sim/controllers/curobo_planner/curobo_ext.py: ``MotionGenEx._plan_from_solve_state_batch``
(lines 97-153: the distance of every solution from the start pose, the successful ones sorted first by
distance, then the failed ones, and ``batch_gather`` at lines 138-143 applied to the solutions, the success
flags and both errors). Written here in our own words, as a model: the solver's outputs are the inputs, and
the per-goal sort of the original (``torch.where`` on each goal's mask, two ``argsort`` and a ``cat``) is one
``argsort`` of a key that puts failures after successes. Form kept: ``batch_gather`` names the batch size
first (``B = data.shape[0]``), loops ``for b in range(B)`` appending ``data[b][idx[b]]`` and stacks the
list: a trace unrolls it with the example's number of goals.
"""

import torch
from torch import nn


def batch_gather(data, idx):
    B = data.shape[0]
    out = []
    for b in range(B):
        out.append(data[b][idx[b]])
    return torch.stack(out, dim=0)


class IKSelection(nn.Module):
    def forward(self, solution, success, position_error, start):
        batch_dim, ik_dim, dof = solution.shape
        start_pos = start[:, None, :].expand(batch_dim, ik_dim, dof)
        delta_norm = torch.norm(solution - start_pos, dim=2)
        failed = (success <= 0.5).to(delta_norm.dtype)
        sorted_indices = torch.argsort(failed * (delta_norm.max() + 1.0) + delta_norm, dim=1)
        return (batch_gather(solution, sorted_indices), batch_gather(success, sorted_indices),
                batch_gather(position_error, sorted_indices))


def build() -> nn.Module:
    return IKSelection().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(2, 6, 7, generator=generator), torch.rand(2, 6, generator=generator).round(),
            torch.rand(2, 6, generator=generator), torch.randn(2, 7, generator=generator))


DYNAMIC = {"solution": {0: "goals"}, "success": {0: "goals"}, "position_error": {0: "goals"}, "start": {0: "goals"}}
