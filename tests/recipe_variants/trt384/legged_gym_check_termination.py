"""legged_gym's termination check: an environment resets on a body contact or when its episode runs out.

Reduced from leggedrobotics/legged_gym @ 8fa29acc6fd1910c3d9659eef6310bdd301cde0a, legged_gym/envs/base/
legged_robot.py: ``LeggedRobot.check_termination`` writes ``self.reset_buf = torch.any(torch.norm(
self.contact_forces[:, self.termination_contact_indices, :], dim=-1) > 1., dim=1)``, ``self.time_out_buf =
self.episode_length_buf > self.max_episode_length`` and then ``self.reset_buf |= self.time_out_buf`` (line 143);
``post_physics_step`` reads ``self.reset_buf`` to pick the environments to reset. Kept: the buffers as attributes of
the environment written in the check, the contact norm over the termination bodies, the time-out and the augmented
or of the attribute. Reduced: the simulator's contact forces and episode lengths are the forward's inputs (set as
the attributes the simulator would refresh), the reset flags its output. Written here in our own words. The target
is an attribute, which the rule takes only where a recorded run saw a tensor in it (``migrate``), not from the code
alone.
"""

import torch
from torch import nn

DYNAMIC = {"contact_forces": {0: "envs"}, "episode_length_buf": {0: "envs"}}
#: The line of the augmented or (the rule's finding).
CALL = "self.reset_buf |= self.time_out_buf"


class LeggedTermination(nn.Module):
    def __init__(self, max_episode_length: int = 20) -> None:
        super().__init__()
        self.max_episode_length = max_episode_length
        self.termination_contact_indices = [0, 2]

    def check_termination(self):
        """ Check if environments need to be reset
        """
        self.reset_buf = torch.any(torch.norm(self.contact_forces[:, self.termination_contact_indices, :], dim=-1) > 1., dim=1)
        self.time_out_buf = self.episode_length_buf > self.max_episode_length # no terminal reward for time-outs
        self.reset_buf |= self.time_out_buf

    def forward(self, contact_forces, episode_length_buf):
        self.contact_forces = contact_forces
        self.episode_length_buf = episode_length_buf
        self.check_termination()
        return self.reset_buf


def build() -> nn.Module:
    return LeggedTermination().eval()


def inputs(generator: torch.Generator, envs: int = 6) -> tuple[torch.Tensor, ...]:
    """Contact forces on 4 bodies (x, y, z) and episode lengths around the limit."""
    return torch.rand(envs, 4, 3, generator=generator) * 1.2, torch.randint(0, 40, (envs,), generator=generator)
