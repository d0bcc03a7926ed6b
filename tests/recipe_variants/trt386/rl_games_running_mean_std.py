"""rl-games' observation and value normalisers: two scripted ``RunningMeanStd`` submodules of the model network.

Reduced from Denys88/rl_games @ 36edd38823197e6e20c6cc4531765e654d13b80f (the v1.6.5 release),
rl_games/algos_torch/models.py:47-52: ``BaseModelNetwork.__init__`` builds ``self.value_mean_std =
torch.jit.script(RunningMeanStd((self.value_size,)))`` and ``self.running_mean_std =
torch.jit.script(RunningMeanStd(obs_shape))``; ``norm_obs`` and ``denorm_value`` call them under ``torch.no_grad()``,
and ``ModelA2CContinuousLogStd.Network.forward`` normalises the observation, runs the actor-critic network and, out
of training, denormalises the value. ``RunningMeanStd`` (rl_games/algos_torch/running_mean_std.py) keeps float64
running statistics as buffers, updates them from a batch's moments in training mode and normalises (clamped to
+-5) or denormalises. Kept: the two scripted normalisers, the float64 buffers and their training-mode update, the
clamp, the ``denorm`` flag. Reduced: no per-channel or masked statistics, no dict observations, a two-layer MLP for
the actor-critic network, the deterministic outputs (mean, sigma, value) instead of a sampled action. Written here
in our own words.
"""

import torch
from torch import nn

DYNAMIC = {"obs": {0: "batch"}}
#: The line of the observation normaliser (the rule's finding that the failing call needs).
CALL = "self.running_mean_std = torch.jit.script(RunningMeanStd(obs_shape))"
OBS, ACTIONS = 6, 2


class RunningMeanStd(nn.Module):
    def __init__(self, insize, epsilon: float = 1e-05):
        super().__init__()
        self.epsilon = epsilon
        self.register_buffer("running_mean", torch.zeros(insize, dtype=torch.float64))
        self.register_buffer("running_var", torch.ones(insize, dtype=torch.float64))
        self.register_buffer("count", torch.ones((), dtype=torch.float64))

    def _merge(self, mean, var, count, batch_mean, batch_var, batch_count: int):
        delta = batch_mean - mean
        total = count + batch_count
        merged_mean = mean + delta * batch_count / total
        second = var * count + batch_var * batch_count + delta ** 2 * count * batch_count / total
        return merged_mean, second / total, total

    def forward(self, x, denorm: bool = False):
        if self.training:
            mean = x.mean(0)
            var = x.var(0, unbiased=False)
            self.running_mean, self.running_var, self.count = self._merge(
                self.running_mean, self.running_var, self.count, mean, var, x.size(0))
        mean = self.running_mean.float()
        var = self.running_var.float()
        if denorm:
            y = torch.clamp(x, min=-5.0, max=5.0)
            return torch.sqrt(var + self.epsilon) * y + mean
        y = (x - mean) / torch.sqrt(var + self.epsilon)
        return torch.clamp(y, min=-5.0, max=5.0)


class ActorCritic(nn.Module):
    def __init__(self, obs, actions, hidden=16):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(obs, hidden), nn.ELU(), nn.Linear(hidden, hidden), nn.ELU())
        self.mu = nn.Linear(hidden, actions)
        self.value = nn.Linear(hidden, 1)
        self.logstd = nn.Parameter(torch.full((actions,), -0.5))

    def forward(self, obs):
        h = self.trunk(obs)
        return self.mu(h), self.logstd.expand(obs.shape[0], -1), self.value(h)


class BaseModelNetwork(nn.Module):
    def __init__(self, obs_shape, normalize_value, normalize_input, value_size):
        nn.Module.__init__(self)
        self.normalize_value = normalize_value
        self.normalize_input = normalize_input
        if normalize_value:
            self.value_mean_std = torch.jit.script(RunningMeanStd((value_size,)))
        if normalize_input:
            self.running_mean_std = torch.jit.script(RunningMeanStd(obs_shape))

    def norm_obs(self, observation):
        with torch.no_grad():
            return self.running_mean_std(observation) if self.normalize_input else observation

    def denorm_value(self, value):
        with torch.no_grad():
            return self.value_mean_std(value, denorm=True) if self.normalize_value else value


class ContinuousLogStdNetwork(BaseModelNetwork):
    def __init__(self, a2c_network, **kwargs):
        BaseModelNetwork.__init__(self, **kwargs)
        self.a2c_network = a2c_network

    def forward(self, obs):
        obs = self.norm_obs(obs)
        mu, logstd, value = self.a2c_network(obs)
        sigma = torch.exp(logstd)
        if self.training:
            return mu, sigma, value
        return mu, sigma, self.denorm_value(value)


def build() -> nn.Module:
    model = ContinuousLogStdNetwork(ActorCritic(OBS, ACTIONS), obs_shape=(OBS,), normalize_value=True,
                                    normalize_input=True, value_size=1)
    generator = torch.Generator().manual_seed(7)
    model.train()
    for _ in range(3):  # statistics of a few rollouts, as training leaves them
        model(torch.randn(32, OBS, generator=generator) * 3.0 + 1.0)
        model.value_mean_std(torch.randn(32, 1, generator=generator) * 10.0)
    return model.eval()


def inputs(generator: torch.Generator, batch: int = 5) -> tuple[torch.Tensor, ...]:
    """A batch of observations on the scale the statistics were gathered at."""
    return (torch.randn(batch, OBS, generator=generator) * 3.0 + 1.0,)
