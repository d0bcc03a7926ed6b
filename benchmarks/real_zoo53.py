"""A fifty-third real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo53.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on reinforcement-learning policies and world models (actor-critic policies
with their action distributions, recurrent policies reset by episode flags, masked and quantile heads, model-based world
models and a planner's rollout): the thirty-first zoo's pins and three libraries by three other authors, whose code no
earlier zoo or sweep ran, with the environment API two of them import (``PINS53``: unpacked wheels like the others,
never pip-installed): stable-baselines3 2.9.2 with its sb3-contrib 2.9.2 (Antonin Raffin and the DLR-RM and
Stable-Baselines teams, github.com/DLR-RM/stable-baselines3 and
github.com/Stable-Baselines-Team/stable-baselines3-contrib: policies built from gymnasium spaces; observations
preprocessed by space (one-hot of a Discrete, float of a MultiBinary, images divided by 255, a Dict through
CombinedExtractor); gSDE's StateDependentNoiseDistribution (std by expln, a ``where`` on the sign of the log std, the
variance by a product with the latent features, tanh squashing by its TanhBijector with an atanh clamped by ``eps``);
SAC's squashed actor and twin critics; RecurrentActorCriticPolicy's ``_process_sequence`` (the sequence reshaped by the
states' env count, a Python ``if th.all(episode_starts == 0.0)`` on tensor values, else a Python loop over the steps
multiplying the states by ``1 - episode_start``); MaskableActorCriticPolicy's MaskableCategorical (masks made tensors by
``as_tensor``, split per categorical of a MultiDiscrete, applied by ``where``, entropies masked); QR-DQN's quantile
network and greedy ``argmax``), rl-games 1.6.5 (Denys Makoviichuk, github.com/Denys88/rl_games: models and networks
built from the config dictionaries of its yaml files by ModelBuilder; RnnWithDones (the steps after a done found by
``nonzero``, moved to the CPU, made a Python list by ``.numpy().tolist()`` or ``.item()``, the LSTM run segment by
segment with the states zeroed at each); input and value normalisation by RunningMeanStd modules made TorchScript by
``torch.jit.script`` with float64 buffers; the conv2d_spatial_softargmax CNN (a softmax over each map times a
``linspace`` meshgrid); multi-discrete heads masked by CategoricalMasked after ``np.split`` of the mask tensor; SAC's
DiagGaussianActor with a SquashedNormal, a TransformedDistribution whose Normal validates its arguments; DoubleQCritic),
mbrl 0.2.0 (Luis Pineda, Brandon Amos, Amy Zhang, Nathan Lambert, Roberto Calandra and Facebook AI Research,
github.com/facebookresearch/mbrl-lib: GaussianMLP ensembles of EnsembleLinearLayer with soft-bounded log-variances and
propagation methods (fixed-model: particles gathered to members by index, a Python ``raise`` when the batch is no
multiple of the ensemble, the predictions unshuffled by index assignment); OneDTransitionRewardModel (input Normalizer,
deltas added to the observations); ModelEnv's ``evaluate_action_sequences`` (the initial state tiled by ``np.tile`` and
cast by NumPy, actions repeated per particle by ``repeat_interleave``, a Python loop over the horizon, rewards after a
termination zeroed by boolean-mask assignment); it imports hydra (not in the venv) at package import for instantiating
configs, used by no model here, so the user's module stands in an empty ``hydra`` as zoo 50's does for xxhash; it asks
for hydra-core 1.0.3, omegaconf below 2.1 and gymnasium 0.26.3, and runs here with the venv's omegaconf 2.4.0 and
gymnasium 1.4.0) and gymnasium 1.4.0 (the Farama Foundation, github.com/Farama-Foundation/Gymnasium: the spaces;
stable-baselines3, rl-games and mbrl import it at package import, so it is unpacked with them as the user's checkout;
its optional farama-notifications is absent and it imports without it). NumPy, cloudpickle, pandas and matplotlib, which
stable-baselines3 imports, come from the venv; nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): skrl 2.1.1
(Toni-SM: it imports, but its Gaussian and categorical mixins' ``act`` samples the distribution in the forward, so a
deterministic output means reaching past the library's API; three libraries by three authors were enough), pfrl
(Preferred Networks: only its 0.1.0 has a wheel); and, in the package index only, not downloaded: tianshou, torchrl,
tensordict, d3rlpy, sheeprl, rsl-rl-lib, lightzero, dreamerv3, q-transformer, robotic-transformer-pytorch, elegantrl,
autonomous-learning-library, cherry-rl, mushroom-rl, rlberry, machin and garage. Within the chosen libraries: sampled
actions (``deterministic=False``, rl-games' ``is_train=False`` sampling, mbrl's ``sample=True`` with a stochastic
ensemble, the "random_model" propagation, ``sample_propagation_indices`` and the CEM, iCEM and MPPI optimisers, all
random by design): the wrappers take the deterministic paths (means, argmaxes, the log-probabilities of actions the user
gives, fixed-model propagation with the user's indices, a deterministic world model under ModelEnv); mbrl's PlaNet (its
RSSM samples in the forward); sb3's ``predict`` (NumPy in and out, around the tensors' forward the wrappers call);
rl-games' A2CResnetBuilder (a plain Impala CNN; the spatial soft-argmax network was the more unusual CNN).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 50 or
in the library sweeps (benchmarks/sweep_*.py), all 10 from the three new libraries and all of the kinds that most often
need work for an ONNX or TensorRT deployment (Python branches on tensor values, Python loops over time steps and over
segments found by ``nonzero`` and turned into Python lists, NumPy on tensors (``np.split`` of a mask tensor, ``np.tile``
of the initial state), float64 TorchScript normalisers, one-hot encodings, masks applied by ``where``, argmaxes, gathers
and index assignments by a permutation, boolean-mask assignment, distributions that validate their arguments). From
stable-baselines3 and sb3-contrib: PPO's actor-critic with gSDE, squashed, through ``_predict`` and
``evaluate_actions``; SAC's MultiInputPolicy on a Dict observation, actor and twin critics; recurrent PPO's policy on
sequences with episode starts; maskable PPO over a MultiDiscrete action space with the user's masks; QR-DQN's CnnPolicy.
From rl-games: continuous_a2c_logstd with an LSTM reset at dones and running-mean/std normalisation; multi_discrete_a2c
with the spatial soft-argmax CNN and masks; soft_actor_critic's squashed normal actor and double Q critic. From mbrl: a
PETS ensemble of 5 with fixed-model propagation; a random-shooting planner's evaluation of the user's candidate action
sequences by ModelEnv over a deterministic transition-reward model, with the best first action by ``argmax``.

Each is small (hidden sizes 32 to 64, random weights, nothing downloaded) and has the dynamic axes a deploying user
declares: the batch (of observations, frames or five-particle sets); the envs and steps of a recurrent rollout; the
batch, height and width of rl-games' frames (its soft-argmax CNN takes any size); the population and horizon of the
planner's candidates; QR-DQN's NatureCNN and the vector policies take the batch only. The inputs are the user's tensors
in [0, 1): observations scaled to the spaces, given actions, episode-start and done flags by thresholds (0.8 and 0.7),
action masks by thresholds (0.3, 0.2), discrete values by ``floor``; the planner's observation from its first
candidate's first step, passed to ``evaluate_action_sequences`` as a NumPy array as its signature asks. No BatchNorm
calibration (no model here has BatchNorm); no output set-valued. The wrappers were checked only for building and running
eagerly (deterministic over two forwards, finite outputs) before the first migrate run, with a source tree unpacked by
``fetch_sources`` from ``PINS53`` and ``make_zoo``: at the spec's size, one more in the batch (or envs or population),
10 more steps (5 more for the planner's horizon, 16 more rows and 8 more columns for the frames) and both; with one
thread on the shared two cores, each in its own process (load average 2.7 from other sessions), the best of two forwards
at the spec's size took 0.001 to 0.022 s (the recurrent PPO 0.022, the gSDE, QR-DQN, spatial soft-argmax and planner
0.006 to 0.008, the others 0.001 to 0.005) and at most 0.017 s at the larger sizes (the planner over 10 steps); builds
(imports included) took 3.2 to 8.8 s. At the spec's sizes and seed 0 the recurrent PPO's episode starts and rl-games'
dones both occur after the first step (so the loops run), some actions are masked, and no planner rollout terminated.
Changed after the first eager runs, before any migrate run: rl-games' done threshold from 0.8 to 0.7 (no done after the
first step at the spec's size with seed 0, so RnnWithDones ran a single segment). Odd, left as the libraries have them:
rl-games prints (``RunningMeanStd:`` with the shape, ``conv_name:``, ``Building Actor``) to stdout while building; its
spatial soft-argmax calls ``torch.meshgrid`` without ``indexing`` (a UserWarning); mbrl's Normalizer keeps its
statistics as plain tensor attributes, not buffers; rl-games' multi-discrete masks must split into equal parts
(``np.split``), so both heads have 4 actions."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed), with the environment API two of them import: stable-baselines3 and its sb3-contrib (Antonin Raffin
#: and the DLR-RM and Stable-Baselines teams: actor-critic policies over gymnasium spaces with their action
#: distributions, observation preprocessing by space, gSDE, SAC's squashed actor and twin critics, recurrent PPO's LSTM
#: with episode starts, maskable PPO's masked categoricals, QR-DQN), rl-games (Denys Makoviichuk: config-built
#: actor-critic networks, recurrent layers reset at dones, a spatial soft-argmax CNN, running mean/std normalisers,
#: masked multi-discrete heads, a SAC actor with a squashed normal), mbrl (Facebook AI Research's mbrl-lib: Gaussian MLP
#: ensemble world models with propagation, the one-dimensional transition-reward wrapper, ModelEnv's rollouts of
#: action sequences for planners) and gymnasium (the Farama Foundation: the spaces the policies are built from).
PINS53 = {**PINS31, "gymnasium": "1.4.0", "stable_baselines3": "2.9.2", "sb3_contrib": "2.9.2", "rl_games": "1.6.5",
          "mbrl": "0.2.0"}

_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_ET = 'dynamic_axes = { x = { 0 = "envs", 1 = "steps" } }'
_BHW = 'dynamic_axes = { x = { 0 = "batch", 1 = "height", 2 = "width" } }'
_PH = 'dynamic_axes = { x = { 0 = "population", 1 = "horizon" } }'

# ---------------------------------------------------------------------------------------------------------------
# stable-baselines3 and sb3-contrib: policies built from gymnasium spaces (random weights), called as the libraries'
# own predict and evaluate paths call them, on tensors.
_SB3 = '''import numpy as np
from gymnasium import spaces
from stable_baselines3.common.policies import ActorCriticPolicy
from stable_baselines3.sac.policies import MultiInputPolicy as SACMultiInputPolicy
from sb3_contrib.common.recurrent.policies import RecurrentActorCriticPolicy
from sb3_contrib.common.recurrent.type_aliases import RNNStates
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from sb3_contrib.qrdqn.policies import CnnPolicy as QRDQNCnnPolicy


def constant_lr(progress):
    return 3e-4


class GSDEPolicy(torch.nn.Module):
    """PPO's actor-critic with gSDE (full std, expln, tanh-squashed): the deterministic action, and the values and
    log-probabilities of the user's given actions (evaluate_actions)."""

    def __init__(self):
        super().__init__()
        self.policy = ActorCriticPolicy(spaces.Box(-1, 1, (8,)), spaces.Box(-1, 1, (3,)), constant_lr,
                                        net_arch=dict(pi=[32, 32], vf=[32, 32]), use_sde=True, use_expln=True,
                                        squash_output=True)

    def forward(self, x):
        obs, actions = x[:, :8] * 2 - 1, x[:, 8:11] * 1.8 - 0.9
        values, log_prob, _ = self.policy.evaluate_actions(obs, actions)
        return self.policy._predict(obs, deterministic=True), values, log_prob


class DictSAC(torch.nn.Module):
    """SAC's MultiInputPolicy on a Dict observation (a Box, a Discrete one-hot encoded, a MultiBinary): the
    deterministic squashed action and both critics' values of it."""

    def __init__(self):
        super().__init__()
        obs = spaces.Dict({"joints": spaces.Box(-1, 1, (6,)), "mode": spaces.Discrete(4),
                           "flags": spaces.MultiBinary(3)})
        self.policy = SACMultiInputPolicy(obs, spaces.Box(-2, 2, (2,)), constant_lr, net_arch=[32, 32])

    def forward(self, x):
        obs = {"joints": x[:, :6] * 2 - 1, "mode": torch.floor(x[:, 6] * 4), "flags": (x[:, 7:10] > 0.5).float()}
        actions = self.policy.actor(obs, deterministic=True)
        return actions, torch.cat(self.policy.critic(obs, actions), dim=1)


class RecurrentPPO(torch.nn.Module):
    """sb3-contrib's recurrent actor-critic (separate actor and critic LSTMs of 32) on (envs, steps, 9): eight
    observations and an episode-start flag a step; the deterministic actions, values, log-probabilities and the
    final actor and critic states."""

    def __init__(self):
        super().__init__()
        self.policy = RecurrentActorCriticPolicy(spaces.Box(-1, 1, (8,)), spaces.Box(-1, 1, (2,)), constant_lr,
                                                 net_arch=dict(pi=[32], vf=[32]), lstm_hidden_size=32)

    def forward(self, x):
        envs = x.shape[0]
        obs = (x[..., :8] * 2 - 1).reshape(-1, 8)
        starts = (x[..., 8] > 0.8).float().reshape(-1)
        zeros = torch.zeros(1, envs, 32)
        states = RNNStates((zeros, zeros), (zeros, zeros))
        actions, values, log_prob, states = self.policy(obs, states, starts, deterministic=True)
        return actions, values, log_prob, states.pi[0], states.vf[1]


class MaskablePPO(torch.nn.Module):
    """sb3-contrib's maskable actor-critic over a MultiDiscrete([4, 3, 5]) action space: the user's action masks
    (12 flags) applied to each categorical; the deterministic actions, values, log-probabilities and entropies."""

    def __init__(self):
        super().__init__()
        self.policy = MaskableActorCriticPolicy(spaces.Box(-1, 1, (6,)), spaces.MultiDiscrete([4, 3, 5]),
                                                constant_lr, net_arch=dict(pi=[32, 32], vf=[32, 32]))

    def forward(self, x):
        obs, masks = x[:, :6] * 2 - 1, x[:, 6:18] > 0.3
        actions, values, log_prob = self.policy(obs, deterministic=True, action_masks=masks)
        entropy = self.policy.get_distribution(obs, action_masks=masks).entropy()
        return actions, values, log_prob, entropy


class QRDQN(torch.nn.Module):
    """sb3-contrib's QR-DQN CnnPolicy (NatureCNN on 40x40 RGB frames, 16 quantiles, 5 actions): the quantiles and
    the greedy action."""

    def __init__(self):
        super().__init__()
        self.policy = QRDQNCnnPolicy(spaces.Box(0, 255, (3, 40, 40), dtype=np.uint8), spaces.Discrete(5),
                                     constant_lr, n_quantiles=16, features_extractor_kwargs=dict(features_dim=64))

    def forward(self, x):
        frames = torch.floor(x * 255)
        return self.policy.quantile_net(frames), self.policy._predict(frames, deterministic=True)'''

# ---------------------------------------------------------------------------------------------------------------
# rl-games: networks and models built from the same config dictionaries as its yaml files (random weights), called
# with the input dictionaries its players and trainers pass.
_RLG = '''from rl_games.algos_torch.model_builder import ModelBuilder


def rl_games_model(model, network, **config):
    """An rl-games model as its runner builds it: the model and network sections of a config, then build()."""
    return ModelBuilder().load({"model": {"name": model}, "network": network}).build(config)


_MLP = {"activation": "elu", "initializer": {"name": "default"}}


class LSTMDones(torch.nn.Module):
    """continuous_a2c_logstd over actor_critic with an LSTM of 32 after the MLP (layer norm), the observations and
    values normalised by running mean/std: (envs, steps, 14) is ten observations, a done flag and three previous
    actions a step; the means, sigmas, values, the previous actions' negative log-probabilities, entropies and
    the final LSTM states."""

    def __init__(self):
        super().__init__()
        network = {"name": "actor_critic", "separate": False,
                   "space": {"continuous": {"mu_activation": "None", "sigma_activation": "None",
                                            "mu_init": {"name": "default"},
                                            "sigma_init": {"name": "const_initializer", "val": 0.0},
                                            "fixed_sigma": True}},
                   "mlp": {"units": [64, 32], **_MLP},
                   "rnn": {"name": "lstm", "units": 32, "layers": 1, "before_mlp": False, "layer_norm": True}}
        self.model = rl_games_model("continuous_a2c_logstd", network, input_shape=(10,), actions_num=3,
                                    num_seqs=2, value_size=1, normalize_input=True, normalize_value=True)

    def forward(self, x):
        envs, steps = x.shape[0], x.shape[1]
        zeros = torch.zeros(1, envs, 32)
        out = self.model({"is_train": True, "obs": x[..., :10].reshape(-1, 10), "rnn_states": (zeros, zeros),
                          "dones": (x[..., 10] > 0.7).float().reshape(-1), "seq_length": steps,
                          "prev_actions": (x[..., 11:14] * 2 - 1).reshape(-1, 3)})
        h, c = out["rnn_states"]
        return (out["mus"], out["sigmas"], self.model.denorm_value(out["values"]), out["prev_neglogp"],
                out["entropy"], h, c)


class SoftArgmaxMultiDiscrete(torch.nn.Module):
    """multi_discrete_a2c over actor_critic with a conv2d_spatial_softargmax CNN (two convolutions, soft-argmax
    keypoints) on (batch, height, width, 3) frames; two heads of 4 actions, masks from the first row's red values
    and previous actions from the second's: logits, values, negative log-probabilities and entropies."""

    def __init__(self):
        super().__init__()
        network = {"name": "actor_critic", "separate": False, "space": {"multi_discrete": {}},
                   "cnn": {"type": "conv2d_spatial_softargmax", "activation": "relu",
                           "initializer": {"name": "default"}, "permute_input": True,
                           "convs": [{"filters": 16, "kernel_size": 3, "strides": 2, "padding": 1},
                                     {"filters": 16, "kernel_size": 3, "strides": 1, "padding": 1}]},
                   "mlp": {"units": [32], **_MLP}}
        self.model = rl_games_model("multi_discrete_a2c", network, input_shape=(24, 24, 3), actions_num=[4, 4],
                                    num_seqs=1, value_size=1)

    def forward(self, x):
        masks = x[:, 0, :8, 0] > 0.2
        prev_actions = torch.floor(x[:, 1, :2, 0] * 4)
        out = self.model({"is_train": True, "obs": x, "action_masks": masks, "prev_actions": prev_actions})
        return torch.cat(out["logits"], dim=1), out["values"], out["prev_neglogp"], out["entropy"]


class SACActorCritic(torch.nn.Module):
    """soft_actor_critic: its DiagGaussianActor's SquashedNormal (log std bounded by tanh) and DoubleQCritic on ten
    observations; the mean action, the log-probabilities of the user's given actions and both critics' values
    of the mean action."""

    def __init__(self):
        super().__init__()
        network = {"name": "soft_actor_critic", "separate": True, "log_std_bounds": [-5, 2],
                   "mlp": {"units": [64, 64], "activation": "relu", "initializer": {"name": "default"}}}
        self.model = rl_games_model("soft_actor_critic", network, input_shape=(10,), actions_num=2, obs_dim=10,
                                    action_dim=2, normalize_input=False)

    def forward(self, x):
        obs, actions = x[:, :10] * 2 - 1, x[:, 10:12] * 1.8 - 0.9
        dist = self.model.actor(obs)
        mean = dist.mean
        q1, q2 = self.model.critic(obs, mean)
        return mean, dist.log_prob(actions).sum(-1), q1, q2'''

# ---------------------------------------------------------------------------------------------------------------
# mbrl: world models built from its classes (random weights). mbrl.models imports hydra (not in the venv) at
# package import for instantiating configs, which no model here uses: the user's module stands in an empty ``hydra``.
_MBRL = '''import types
sys.modules.setdefault("hydra", types.ModuleType("hydra"))
from gymnasium import spaces
from mbrl.models import GaussianMLP, ModelEnv, OneDTransitionRewardModel


def transition_model(ensemble, deterministic, propagation):
    """A PETS-style transition and reward model: a Gaussian MLP ensemble on (6 observations, 2 actions) predicting
    the observation's change and the reward, its inputs normalised by statistics the user fixes."""
    mlp = GaussianMLP(8, 7, "cpu", num_layers=3, ensemble_size=ensemble, hid_size=64, deterministic=deterministic,
                      propagation_method=propagation)
    model = OneDTransitionRewardModel(mlp, target_is_delta=True, normalize=True, learned_rewards=True)
    model.input_normalizer.update_stats(torch.rand(64, 8, generator=torch.Generator().manual_seed(1)))
    return model


class PETSFixedModel(torch.nn.Module):
    """An ensemble of 5 with fixed-model propagation (TS-inf): (batch, 5, 8) is five particles of a state and an
    action, each particle given to a member by the user's propagation indices (an argsort of its first value);
    the next observations and rewards (each member's mean)."""

    def __init__(self):
        super().__init__()
        self.dynamics = transition_model(5, False, "fixed_model")

    def forward(self, x):
        rows = x.reshape(-1, 8)
        state = {"obs": rows[:, :6] * 2 - 1, "propagation_indices": torch.argsort(rows[:, 0])}
        next_obs, rewards, _, _ = self.dynamics.sample(rows[:, 6:] * 2 - 1, state, deterministic=True)
        return next_obs, rewards


def leaves_arena(actions, next_obs):
    return next_obs[:, :1].abs() > 1.5


class ShootingPlanner(torch.nn.Module):
    """A random-shooting planner over mbrl's ModelEnv: (population, horizon, 8) holds each candidate's action
    sequence (two actions a step) and the current observation (the first candidate's first step, 6 values);
    ModelEnv.evaluate_action_sequences rolls the deterministic world model over the horizon (rewards after a
    termination zeroed); the returns and the best candidate's first action."""

    def __init__(self):
        super().__init__()
        self.dynamics = transition_model(1, True, None)
        env = types.SimpleNamespace(observation_space=spaces.Box(-1, 1, (6,)), action_space=spaces.Box(-1, 1, (2,)))
        self.env = ModelEnv(env, self.dynamics, leaves_arena)

    def forward(self, x):
        actions = x[..., :2] * 2 - 1
        returns = self.env.evaluate_action_sequences(actions, x[0, 0, 2:].numpy() * 2 - 1, num_particles=1)
        return returns, actions[returns.argmax(), 0]'''

MODELS53 = [
    # stable-baselines3 and sb3-contrib: actor-critic, SAC, recurrent, maskable and quantile policies (random weights).
    Spec("sb3_ppo_gsde_squashed_evaluate", "stable-baselines3 ActorCriticPolicy with gSDE (StateDependentNoise"
         "Distribution: full std by expln, tanh-squashed through its TanhBijector), net_arch pi/vf [32, 32]: the "
         "deterministic action by _predict and evaluate_actions' values and log-probabilities of given actions",
         _SB3, "GSDEPolicy()", "return self.m(x)", "4, 11", _B),
    Spec("sb3_sac_dict_obs_twin_critic", "stable-baselines3 SAC MultiInputPolicy on a Dict observation (Box, "
         "Discrete one-hot, MultiBinary through CombinedExtractor): the deterministic squashed action of the actor "
         "and both critics' Q values of it", _SB3, "DictSAC()", "return self.m(x)", "4, 10", _B),
    Spec("sb3c_recurrent_ppo_episode_starts", "sb3-contrib RecurrentActorCriticPolicy (actor and critic LSTMs of "
         "32): the sequence reshaped by the states' env count, a Python branch on whether any episode starts, else "
         "a loop over the steps resetting states by the episode starts; actions, values, log-probabilities, final "
         "states", _SB3, "RecurrentPPO()", "return self.m(x)", "2, 6, 9", _ET),
    Spec("sb3c_maskable_ppo_multidiscrete", "sb3-contrib MaskableActorCriticPolicy over MultiDiscrete([4, 3, 5]): "
         "the user's 12 mask flags split per categorical and applied by where (MaskableCategorical), deterministic "
         "argmax actions, values, log-probabilities and masked entropies", _SB3, "MaskablePPO()", "return self.m(x)",
         "4, 18", _B),
    Spec("sb3c_qrdqn_nature_cnn", "sb3-contrib QR-DQN CnnPolicy (NatureCNN on 3x40x40 uint8-space frames normalised "
         "by 255, 16 quantiles, 5 actions): the quantiles and the greedy action by the mean quantile's argmax",
         _SB3, "QRDQN()", "return self.m(x)", "2, 3, 40, 40", _B),
    # rl-games: config-built networks and models (random weights).
    Spec("rlg_lstm_dones_logstd_runningnorm", "rl-games continuous_a2c_logstd over actor_critic with an LSTM after "
         "the MLP (RnnWithDones: done steps found by nonzero, moved to the CPU and listed, the LSTM run segment by "
         "segment with states zeroed), inputs and values normalised by TorchScript RunningMeanStd (float64 "
         "buffers), the previous actions' negative log-probabilities", _RLG, "LSTMDones()", "return self.m(x)",
         "2, 6, 14", _ET),
    Spec("rlg_softargmax_multidiscrete_masks", "rl-games multi_discrete_a2c over actor_critic with a "
         "conv2d_spatial_softargmax CNN (frames permuted from HWC, keypoints by a softmax over a linspace meshgrid), "
         "two heads of 4 actions masked by CategoricalMasked after np.split of the user's mask tensor", _RLG,
         "SoftArgmaxMultiDiscrete()", "return self.m(x)", "2, 24, 24, 3", _BHW),
    Spec("rlg_sac_squashed_normal_double_q", "rl-games soft_actor_critic: DiagGaussianActor's SquashedNormal "
         "(a TransformedDistribution with its TanhTransform, arguments validated), the mean action, the "
         "log-probabilities of given actions and DoubleQCritic's two Q values", _RLG, "SACActorCritic()",
         "return self.m(x)", "4, 12", _B),
    # mbrl: world models and a planner's evaluation (random weights).
    Spec("mbrl_pets_ensemble_fixed_model", "mbrl OneDTransitionRewardModel over a GaussianMLP ensemble of 5 "
         "(EnsembleLinearLayer, soft-bounded log-variance) with fixed-model propagation: particles shuffled to "
         "members by the given indices and the predictions unshuffled by index assignment, the input normaliser, "
         "deltas added to the observations", _MBRL, "PETSFixedModel()", "return self.m(x)", "2, 5, 8", _B),
    Spec("mbrl_model_env_shooting_planner", "mbrl ModelEnv.evaluate_action_sequences over a deterministic "
         "GaussianMLP transition-reward model: the initial state tiled by NumPy, actions repeated per particle, a "
         "Python loop over the horizon, rewards after the user's termination function zeroed by a boolean mask; "
         "the best candidate's first action by argmax", _MBRL, "ShootingPlanner()", "return self.m(x)", "8, 5, 8",
         _PH),
]

if __name__ == "__main__":
    main(MODELS53, "real_zoo53", PINS53)
