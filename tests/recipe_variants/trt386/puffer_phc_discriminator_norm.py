"""puffer-phc's PHC policy: scripted ``RunningNorm`` observation and AMP-observation normalisers.

Reduced from howird/puffer-phc @ edcd6b4e11e0e9cc32850f80daa322cb26a49083,
puffer_phc/policies/discriminator_policy.py:21 and :45: ``DiscriminatorPolicy.__init__`` builds ``self.obs_norm =
torch.jit.script(RunningNorm(self.input_size))`` and, when the environment has AMP observations, ``self.amp_obs_norm =
torch.jit.script(RunningNorm(amp_obs_size))``; ``PHCPolicy.encode_observations`` (puffer_phc/policies/phc_policy.py)
normalises the observation, keeps it for the critic and runs the actor MLP, and ``discriminate`` normalises the AMP
observation before the discriminator. ``RunningNorm`` (puffer_phc/policies/running_norm.py) keeps ``(1, n)`` float32
statistics as buffers and clamps the normalised value to +-clip; its ``update`` is ``@torch.jit.ignore``d, so the
scripted module still runs it as Python. Kept: the two scripted normalisers, the ignored update, the actor, critic and
discriminator heads on the normalised inputs, the ``expand_as`` of the statistics. Reduced: smaller MLPs, no
``pufferlib`` layer init, the action mean and value and the discriminator logit as outputs instead of a
distribution. Written here in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"obs": {0: "batch"}, "amp_obs": {0: "batch"}}
#: The line of the observation normaliser forward calls first (the rule's finding the failing call needs).
CALL = "self.obs_norm = torch.jit.script(RunningNorm(self.input_size))"
OBS, AMP_OBS, ACTIONS = 7, 5, 3


class RunningNorm(nn.Module):
    def __init__(self, shape: int, epsilon: float = 1e-5, clip: float = 10.0):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros((1, shape), dtype=torch.float32))
        self.register_buffer("running_var", torch.ones((1, shape), dtype=torch.float32))
        self.register_buffer("count", torch.ones(1, dtype=torch.float32))
        self.epsilon = epsilon
        self.clip = clip

    def forward(self, x):
        scale = torch.sqrt(self.running_var.expand_as(x) + self.epsilon)
        return torch.clamp((x - self.running_mean.expand_as(x)) / scale, -self.clip, self.clip)

    @torch.jit.ignore
    def update(self, x):
        with torch.no_grad():
            x = x.float()
            weight = 1 / self.count
            self.running_mean = self.running_mean * (1 - weight) + x.mean(0, keepdim=True) * weight
            self.running_var = self.running_var * (1 - weight) + x.var(0, unbiased=False, keepdim=True) * weight
            self.count += 1


class PHCPolicy(nn.Module):
    def __init__(self, input_size, amp_obs_size, action_size, hidden_size=16):
        super().__init__()
        self.input_size = input_size
        self.obs_norm = torch.jit.script(RunningNorm(self.input_size))
        self.amp_obs_norm = torch.jit.script(RunningNorm(amp_obs_size))
        self.actor_mlp = nn.Sequential(nn.Linear(input_size, hidden_size), nn.SiLU(), nn.LayerNorm(hidden_size))
        self.mu = nn.Linear(hidden_size, action_size)
        self.critic_mlp = nn.Sequential(nn.Linear(input_size, hidden_size), nn.SiLU(), nn.Linear(hidden_size, 1))
        self._disc_mlp = nn.Sequential(nn.Linear(amp_obs_size, hidden_size), nn.ReLU())
        self._disc_logits = nn.Linear(hidden_size, 1)
        self.obs_pointer = None

    def encode_observations(self, obs):
        self.obs_pointer = self.obs_norm(obs)
        return self.actor_mlp(self.obs_pointer)

    def discriminate(self, amp_obs):
        return self._disc_logits(self._disc_mlp(self.amp_obs_norm(amp_obs)))

    def forward(self, obs, amp_obs):
        hidden = self.encode_observations(obs)
        return self.mu(hidden), self.critic_mlp(self.obs_pointer), self.discriminate(amp_obs)


def build() -> nn.Module:
    model = PHCPolicy(OBS, AMP_OBS, ACTIONS)
    generator = torch.Generator().manual_seed(11)
    for _ in range(4):  # what the trainer's update_obs_rms calls leave in the statistics
        model.obs_norm.update(torch.randn(16, OBS, generator=generator) * 2.0 - 0.5)
        model.amp_obs_norm.update(torch.randn(16, AMP_OBS, generator=generator) * 0.5 + 1.0)
    return model.eval()


def inputs(generator: torch.Generator, batch: int = 4) -> tuple[torch.Tensor, ...]:
    """Observations and AMP observations of ``batch`` environments."""
    return (torch.randn(batch, OBS, generator=generator) * 2.0 - 0.5,
            torch.randn(batch, AMP_OBS, generator=generator) * 0.5 + 1.0)
