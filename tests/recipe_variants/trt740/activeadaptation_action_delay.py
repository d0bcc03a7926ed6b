"""Active-adaptation (btx0424's Isaac Lab legged-robot framework) simulates actuator latency in its
``JointPosition`` action manager: ``self.action_buf`` (envs, joints, history) holds recent policy actions,
newest at index 0. Each control step shifts the history one slot,
``self.action_buf[:, :, 1:] = self.action_buf[:, :, :-1]``, writes the new action to slot 0, picks each
environment's delayed action with ``take_along_dim`` by its random ``delay``, low-pass filters it with
``lerp_`` and adds the scaled result to the default joint positions as the position target. The shift's
source overlaps its target in the same tensor: eager PyTorch copies slot by slot and every older slot ends
up holding the previous slot-0 action (the delay line collapses), while the ONNX exporters read the history
as it was. The repository later switched to ``torch.roll``.

Reduced from Agent-3154/active-adaptation @ a166091e45c94ef9daee1c2dcb5095ec63f6c44f (commit by Axellwppr,
2024-12-15), active_adaptation/envs/mdp/action.py lines 664-690 (``JointPosition.__call__``, substep 0) with
the buffer layout of lines 620-624. The same line also appears in btx0424/active-adaptation (same file,
``JointPosition.__call__``); both are the one project, counted here as one owner. What is reduced: the policy
is a small MLP from an observation to the action; the action history, per-env delay and filter alpha are
forward inputs instead of state kept since ``reset`` (the history is cloned first so the inputs stay
untouched); the motor-failure mask, alpha jitter, custom commands, target clipping and the Isaac Lab
articulation are left out, the position target is returned, and ``take_along_dim`` (which the TorchScript
ONNX exporter does not support) is written as the equivalent ``gather`` with the index expanded over the
joints. Written here in our own words.
"""

import torch
from torch import nn


class TinyDelayedJointPosition(nn.Module):
    def __init__(self, obs_dim: int = 10, action_dim: int = 6) -> None:
        super().__init__()
        self.policy = nn.Sequential(nn.Linear(obs_dim, 32), nn.ELU(), nn.Linear(32, action_dim))
        self.register_buffer("default_joint_pos", torch.randn(1, action_dim) * 0.1)
        self.action_scaling = 0.5
        self.action_buf = torch.empty(0)

    def forward(self, obs: torch.Tensor, action_hist: torch.Tensor, delay: torch.Tensor, alpha: torch.Tensor) -> torch.Tensor:
        self.action_buf = action_hist.clone()
        applied_action = torch.zeros_like(action_hist[:, :, 0])
        action = self.policy(obs).clamp(-10, 10)
        self.action_buf[:, :, 1:] = self.action_buf[:, :, :-1]
        self.action_buf[:, :, 0] = action
        index = delay.unsqueeze(1).expand(-1, self.action_buf.shape[1], -1)
        action = self.action_buf.gather(-1, index)
        applied_action = applied_action.lerp(action.squeeze(-1), alpha)
        return self.default_joint_pos + applied_action * self.action_scaling


def build() -> nn.Module:
    torch.manual_seed(0)
    return TinyDelayedJointPosition().eval()


def inputs(generator: torch.Generator, batch: int = 2, height: int = 32, width: int = 32) -> tuple[torch.Tensor, ...]:
    # Robot observations and actions; height and width do not apply. History of 5 slots (max_delay 4).
    obs = torch.randn(batch, 10, generator=generator)
    action_hist = torch.randn(batch, 6, 5, generator=generator)
    delay = torch.randint(2, 5, (batch, 1), generator=generator)  # delays of 2-4 steps read shifted slots
    alpha = 0.5 + 0.5 * torch.rand(batch, 1, generator=generator)
    return obs, action_hist, delay, alpha


DYNAMIC = {"obs": {0: "batch"}, "action_hist": {0: "batch"}, "delay": {0: "batch"}, "alpha": {0: "batch"}}
CALL = "self.action_buf[:, :, 1:] = self.action_buf[:, :, :-1]"
