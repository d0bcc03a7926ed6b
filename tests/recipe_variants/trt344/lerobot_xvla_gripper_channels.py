"""X-VLA's end-effector action space in LeRobot: the gripper channels, held by a class attribute, masked and squashed.

Reduced from huggingface/lerobot at commit 7427f31801f944f5ec9ce53cda02862ce7d1638b,
src/lerobot/policies/xvla/action_hub.py, ``EE6DActionSpace`` (lines 114-172): the class names its two
gripper channels in its body, ``gripper_idx = (9, 19)`` (line 118), a tuple; ``preprocess`` zeroes them in
a clone of the proprioception, ``proprio_m[..., self.gripper_idx] = 0.0`` (line 164), and
``postprocess`` applies the sigmoid to the predicted gripper logits in place,
``action[..., self.gripper_idx] = torch.sigmoid(action[..., self.gripper_idx])`` (line 171), where the
action is wide enough (line 170). Kept: the positions read through ``self`` from a tuple the class body
binds, a number and a tensor written through them. Here a linear layer stands in for the policy: it
maps the masked proprioception (20 channels: xyz, 6-D rotation and a gripper per arm) and a feature
vector to a chunk of actions. Written here in our own words.
"""

import torch
from torch import nn

DIM_ACTION = 20
HORIZON = 4


class EE6DActionHead(nn.Module):
    gripper_idx = (9, 19)

    def __init__(self, features: int = 12) -> None:
        super().__init__()
        self.proj = nn.Linear(DIM_ACTION + features, HORIZON * DIM_ACTION)

    def preprocess(self, proprio):
        proprio_m = proprio.clone()
        proprio_m[..., self.gripper_idx] = 0.0
        return proprio_m

    def postprocess(self, action: torch.Tensor) -> torch.Tensor:
        if action.size(-1) > max(self.gripper_idx):
            action[..., self.gripper_idx] = torch.sigmoid(action[..., self.gripper_idx])
        return action

    def forward(self, proprio, features):
        state = self.preprocess(proprio)
        action = self.proj(torch.cat([state, features], -1)).view(proprio.shape[0], HORIZON, DIM_ACTION)
        return self.postprocess(action), state


def build() -> nn.Module:
    return EE6DActionHead().eval()


def inputs(generator: torch.Generator) -> tuple[torch.Tensor, ...]:
    return (torch.randn(3, DIM_ACTION, generator=generator) * 2, torch.randn(3, 12, generator=generator))


DYNAMIC = {"proprio": {0: "batch"}, "features": {0: "batch"}}
