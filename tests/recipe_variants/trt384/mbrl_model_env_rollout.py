"""mbrl-lib's model environment: a batch of action sequences rolled out through a learned model, the ended ones kept.

Reduced from facebookresearch/mbrl-lib @ 3f93cccfc8d635f74e335a2f07aab6e9a48fc021, mbrl/models/model_env.py:
``ModelEnv.evaluate_action_sequences`` tiles the initial state, starts ``terminated = torch.zeros(batch_size, 1,
dtype=bool)``, and per step of the horizon calls ``self.step`` (the model's next observation and reward, and the
user's termination function's ``dones``), zeroes the rewards of the particles that ended (``rewards[terminated] =
0``), marks the newly ended ones with ``terminated |= dones`` (line 187) and sums the rewards. Kept: the tiled
initial state, the horizon loop, ``step``'s four results unpacked, the reward mask, the augmented or and the sum.
Reduced: a two-layer MLP for the model, no particles (``repeat_interleave`` by one), no NumPy initial state (a
buffer), a termination function that ends a particle whose observation leaves a box. Written here in our own words.
``dones`` comes from ``self.step``'s unpacked result, which the code alone does not show to be a tensor: the rule
takes the line with a recorded run's facts (``migrate``), not from the code alone.
"""

import torch
from torch import nn

DYNAMIC = {"action_sequences": {0: "population"}}
#: The line of the augmented or (the rule's finding).
CALL = "terminated |= dones"


class ModelEnv(nn.Module):
    def __init__(self, obs_dim: int = 4, action_dim: int = 2, hidden: int = 16) -> None:
        super().__init__()
        self.dynamics = nn.Sequential(nn.Linear(obs_dim + action_dim, hidden), nn.SiLU(),
                                      nn.Linear(hidden, obs_dim + 1))
        self.register_buffer("initial_state", torch.linspace(-0.5, 0.5, obs_dim))

    def termination_fn(self, actions, next_obs):
        """A particle ends when its observation leaves the box (a bool column, as mbrl's termination functions)."""
        return (next_obs.abs() > 1.5).any(-1, keepdim=True)

    def step(self, actions, model_state):
        out = self.dynamics(torch.cat([model_state, actions], -1))
        next_obs = model_state + out[:, :-1]
        rewards = out[:, -1:]
        dones = self.termination_fn(actions, next_obs)
        return next_obs, rewards, dones, next_obs

    def forward(self, action_sequences):
        population_size, horizon, action_dim = action_sequences.shape
        model_state = self.initial_state.expand(population_size, -1)
        total_rewards = torch.zeros(population_size, 1)
        terminated = torch.zeros(population_size, 1, dtype=bool)
        for time_step in range(horizon):
            action_batch = action_sequences[:, time_step, :]
            _, rewards, dones, model_state = self.step(action_batch, model_state)
            rewards[terminated] = 0
            terminated |= dones
            total_rewards += rewards
        return total_rewards.reshape(-1)


def build() -> nn.Module:
    return ModelEnv().eval()


def inputs(generator: torch.Generator, population: int = 6) -> tuple[torch.Tensor, ...]:
    """Candidate action sequences: ``population`` x a horizon of 5 x 2 action dimensions, some large enough to end."""
    return (torch.randn(population, 5, 2, generator=generator) * 2.0,)
