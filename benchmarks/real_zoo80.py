"""An eightieth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo80.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, outside computer vision's usual detectors: audio and scientific feature
extraction by wavelet scattering (an audio classifier's front end, a molecular-density read-out), image generation by a
diffusion model run through its sampler, robot state estimation (IMU preintegration and an extended Kalman filter on a
wheeled robot), neural network potentials for molecules (a graph built from the positions at run time, energies and
forces by autograd), and demand forecasting (a Temporal Fusion Transformer and N-BEATS). The thirty-first zoo's pins
(torchdiffeq 0.2.5 among them, which k-diffusion's sampling module imports: a dependency only), six libraries by authors
whose code no earlier zoo or sweep ran, and four small pure-Python libraries they import (``PINS80``: unpacked wheels
like the others, never pip-installed): kymatio 0.3.0 (Edouard Oyallon, Eugene Belilovsky, Sergey Zagoruyko, Michael
Eickenberg, Mathieu Andreux, Vincent Lostanlen, Joakim Andén and the kymatio developers, github.com/kymatio/kymatio,
BSD-3-Clause: wavelet scattering transforms in 1-D, 2-D and 3-D with NumPy, torch, TensorFlow and JAX frontends),
k-diffusion 0.1.1.post1 (Katherine Crowson, github.com/crowsonkb/k-diffusion, MIT: the Karras et al. (2022)
preconditioned denoisers, her U-Net and image-transformer models, and the samplers many image-generation front ends
reuse), pypose 0.9.5 (Chen Wang and the PyPose team, Carnegie Mellon University and contributors,
github.com/pypose/pypose, Apache-2.0: Lie groups as a ``torch.Tensor`` subclass, IMU preintegration, Kalman filters,
LQR/MPC), schnetpack 2.1.1 (Kristof Schütt, Michael Gastegger, Stefaan Hessmann, Niklas Gebauer, Jonas Lederer and
contributors, github.com/atomistic-machine-learning/schnetpack, MIT: SchNet, PaiNN, SO3net and FieldSchNet potentials),
tft-torch 0.0.6 (Dvir Ben Or, Playtika Research, github.com/PlaytikaOSS/tft-torch, MIT: the Temporal Fusion Transformer
of Lim et al.), nbeats-pytorch 1.8.0 (Philippe Remy, github.com/philipperemy/n-beats, MIT: N-BEATS of Oreshkin et al.,
the PyTorch half of a PyTorch/Keras package); and, as dependencies only: torchsde 0.2.6 (Xuechen Li and Patrick Kidger,
github.com/google-research/torchsde, Apache-2.0; k-diffusion's sampling module imports it for its Brownian-tree noise
sampler, not used here) with trampoline 0.1.2 (ferreum, gitlab.com/ferreum/trampoline, MIT; torchsde imports it),
dctorch 0.1.2 (Jack Gallagher, MIT; k-diffusion's layers import it for the multi-scale loss) and ASE 3.29.0 (the Atomic
Simulation Environment, gitlab.com/ase/ase, LGPL-2.1-or-later; schnetpack's units and transforms import it).

What the packages import beyond their networks: kymatio's 3-D filter bank imports ``scipy.special.sph_harm``, which
SciPy 1.17 (the venv's) removed for ``sph_harm_y`` (degree first, polar angle before azimuth): the wrapper sets
``sph_harm`` to ``sph_harm_y`` with the arguments reordered before importing kymatio (``kymatio.torch`` imports all
three frontends, so the 1-D model needs it too); NumPy and SciPy build the filter banks at construction. k-diffusion's
package ``__init__`` imports its augmentation (scikit-image), evaluation (clean-fid, CLIP) and config (jsonmerge)
modules: the package is registered from its import spec without running it (as zoos 72 to 77 did), and ``layers``,
``sampling`` and the two model modules are imported directly; its ``K_DIFFUSION_USE_COMPILE`` switch (on by default:
``torch.compile`` of GEGLU, RMSNorm and the axial RoPE) and ``K_DIFFUSION_USE_FLASH_2`` are set to 0, the library's way
to run without a compiler or flash-attn. pypose imports cleanly (its optional sparse backend ``bae`` is looked up only
when used). schnetpack's package ``__init__`` imports its data, datasets, training (pytorch-lightning, hydra), MD and
ASE-interface modules: registered without running it, with ``__version__`` set as its ``__init__`` sets it
(``NeuralNetworkPotential`` records it); ``schnetpack.transform`` imports matscipy (a compiled neighbour list), dirsync
and fasteners (the cached neighbour list's file handling), none in the venv: empty stand-in modules (``neighbour_list``
and ``sync`` names that are never called); ASE is pinned. tft-torch's model module imports OmegaConf (in the venv); its
``visualize`` module (IPython, matplotlib) is not imported. nbeats-pytorch's model module imports NumPy and torch only.
No weights are downloaded or loaded: every model is built with random weights from its constructor. Nothing new in the
``bench`` extra.

Considered and dropped before any model was chosen (by the wheels' files, metadata and a first reading of the imports):
pytorchvideo (video: no wheel, an sdist only), torch-harmonics 0.9.3 (spherical harmonic transforms and SFNO: its wheel
is compiled, cp311 manylinux, and needs torch 2.14), moshi 0.2.13 (Kyutai's Mimi codec: pins torch below 2.10 and
imports sphn, sentencepiece and sounddevice), deepfilternet 0.5.6 (its feature extraction is the compiled Rust libdf),
Resemblyzer 0.1.4 (webrtcvad and librosa at import), tsai 1.0.1 (fastai and scikit-learn), xlstm 2.0.6 (its kernels
package mlstm_kernels and ninja builds), pytorch-kinematics 0.10.0 (lxml, mujoco, arm_pytorch_utilities; pypose covers
robotics), audio-diffusion-pytorch with a-unet (a second diffusion library: one was kept), torchcde (a second library of
Patrick Kidger's; torchdiffeq is an earlier zoo's), pykan 0.2.8 (not read further: ten models were chosen). Within the
chosen libraries: kymatio's 2-D scattering (image textures, the usual vision domain) and its NumPy/TensorFlow/JAX
frontends; k-diffusion's ancestral and SDE samplers (fresh noise at every step: two forwards would differ unless seeded,
and the SDE ones build a torchsde Brownian tree), the adaptive DPM-Solver (``torchdiffeq``-style step control) and the
HDiT model of later releases (not in 0.1.1.post1); pypose's particle filter (random resampling), the UKF (a second
filter) and the LQR/MPC solvers; schnetpack's SO3net and FieldSchNet, the MD integrators and the ASE calculator (a host
loop around the same model); tft-torch's loss and visualisation; N-BEATS's generic stacks (the trend and seasonality
stacks are the interpretable model it is known for).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 78 or
in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(kymatio's 1-D scattering: the filters kept as buffers and loaded back into dictionaries of lists on every call, reflect
padding by sizes computed at construction behind a Python ``if`` that raises when the signal is shorter than the pad,
``torch.view_as_complex``/``view_as_real`` around ``torch.fft.fft`` and ``ifft``, complex products, the modulus,
subsampling in the Fourier domain by a ``view`` to (k, N // k) and a mean, unpadding by index slices, Python loops over
the first- and second-order wavelets; its 3-D harmonic scattering: a Python size check raising ``RuntimeError``, 3-D
FFTs of the density with solid-harmonic filters built by SciPy, the rotation-covariant modulus (the square root of a sum
over the harmonic orders), ``compute_integrals`` of ``|x| ** p`` for three powers; the read-outs' standardisation and
linear layers. k-diffusion: ``get_sigmas_karras`` (``linspace``, powers and an appended zero made in the forward), the
samplers' Python loop over the sigmas with ``x.new_ones([x.shape[0]])`` per-image sigmas, DPM-Solver++(2M)'s
``log``/``expm1`` step sizes and a Python ``if`` on ``sigmas[i + 1] == 0`` (a tensor compared as a bool) and on the
previous denoised image; LMS: ``sigmas.detach().cpu().numpy()`` and, at every step, ``scipy.integrate.quad`` of a
Lagrange basis polynomial for each of up to four coefficients (host-side numbers fed back into the tensor arithmetic), a
Python list of derivatives popped when longer than the order; the Karras preconditioner's ``c_skip``/``c_out``/``c_in``
from sigma; the U-Net's Fourier-feature timestep embedding and mapping network, group norms conditioned on it (AdaGN),
self-attention at the two lower levels, downsampling by a fixed filter with reflect padding whose per-channel weight is
made in the forward (``new_zeros`` of channels x channels filled on the diagonal by advanced-index assignment),
upsampling likewise, and skips; the image transformer's patching by ``rearrange`` with sizes from the input, axial RoPE
positions made from the height and width at run time (``make_axial_pos``), QK-norm (RMS-normalised queries and keys with
a learnable per-head scale that its forward clamps in place, ``proj_`` under ``torch.no_grad``), GEGLU, adaptive
RMSNorm. pypose's IMU preintegration: ``so3(...).Exp()`` on a LieTensor (a ``torch.Tensor`` subclass dispatching through
``__torch_function__``), ``cumprod`` of rotations by a Python loop over powers of two made with ``torch.pow(2,
torch.arange(math.log2(L) + 1))`` (the step count as a float and a tensor iterated in Python) with ``index_copy_`` in
place, ``cumsum`` of velocity and position increments, the covariance propagation's matrices filled by slice assignment,
``Jr()`` (the right Jacobian of SO(3)), ``einsum``, a flipped cumulative product and a sum over the window, ``1 / dt``;
its EKF: the system linearised at each estimate by ``torch.autograd.functional.jacobian`` (``set_refpoint``), the Kalman
gain through ``torch.linalg.pinv`` (an SVD), a Python loop over the log's steps, the beacons' range model with ``norm``.
schnetpack: the library's ``TorchNeighborList`` per cluster (``torch.all(pbc == 0)`` as a Python ``if``,
``torch.combinations`` of the atom indices, ``torch.nonzero`` of the distances below the cutoff, a data-dependent number
of pairs, ``argsort`` of the doubled index lists), the clusters collated by offsetting indices in a Python loop,
``PairwiseDistances`` by advanced indexing, SchNet's Gaussian radial basis, cosine cutoff and continuous-filter
convolutions summed by ``scatter_add`` (a ``torch.jit.script`` function: ``torch.zeros`` of a size given as an int, then
``index_add``), PaiNN's equivariant vector features and gated updates, ``Atomwise`` sums per cluster by ``scatter_add``
with ``dim_size=int(idx_m[-1]) + 1``, the forces as ``-dE/dR`` by ``torch.autograd.grad`` (under ``enable_grad`` inside
the service's forward, ``requires_grad_`` set on the positions by the model's ``initialize_derivatives``),
``AddOffsets`` adding the mean times the atom count and atom references gathered by atomic number, a dictionary in and
out. tft-torch: the batch dictionary with ``.get(key, torch.empty((0, 0)))`` defaults and a Python ``if`` on
``nelement()``, per-variable embeddings (``nn.Embedding`` of ``long`` categoricals the service computes by ``(fraction *
cardinality).long()``) and linear projections concatenated, variable selection networks (softmax weights over the
inputs), gated residual networks with GLUs, two LSTMs (past and future) whose initial states come from the static
encoders, a causal attention mask made from the sequence lengths on every call
(``torch.zeros``/``torch.triu(torch.ones(...))`` concatenated), interpretable multi-head attention sharing the value
projection, slicing the output window by the history length. nbeats-pytorch: a Python loop over stacks and blocks,
``torch.zeros`` of the forecast sized by the batch on every call, ``squeeze_last_dim`` (a Python ``if`` on the rank),
the trend and seasonality bases built on every call with NumPy (``np.array`` of powers and of ``cos``/``sin`` over a
``linspace``) and ``torch.tensor``, ``.to(self.device)`` moves, ``assert`` on the theta sizes, residual backcast
subtraction).

kymatio: a spoken-digit classifier as its ``classify_spoken_digits`` example builds it (8192 samples of audio in [0, 1)
moved to [-1, 1), ``Scattering1D(J=6, Q=8)``: 126 paths, the zeroth order dropped, ``log(|S| + 1e-6)`` averaged over
time, standardised by stored statistics, a linear layer to 10 digits) and a molecular-energy read-out as its QM7 example
computes features (a 32x32x32 density, ``HarmonicScattering3D(J=2, L=2)`` with integral powers 0.5, 1 and 2 and the
zeroth-order integrals: 57 features, and a linear energy). k-diffusion (32x32 RGB, sigma_data 0.5, Karras sigmas from 80
to 0.01 in 6 steps; the service's input is the latent noise as uniform numbers, centred and scaled to unit variance,
then to sigma_max): the U-Net ``ImageDenoiserModelV1`` (depths 2, 2, 4; widths 64, 128, 256; self-attention at the two
lower levels; 14.7 M parameters) run by ``sample_dpmpp_2m``, and the image transformer
``ImageTransformerDenoiserModelV1`` (4 layers, width 256, 4x4 patches; 5.3 M) run by ``sample_lms`` (order 4); the
layers both zero-initialise (output projections, adaptive-norm and residual projections) are given random weights
(``trained_like``), since with zeros the denoiser returns ``c_skip * x`` whatever the network computes. pypose: IMU
preintegration of 200 Hz windows (accelerometer around gravity, gyroscope; ``reset=True``, so every call starts from the
identity state, covariance propagation on) and an EKF tracking a unicycle robot (state x, y, heading; inputs speed and
turn rate; observations its ranges to three beacons; Q 0.01 I, R 0.25 I) over a log. schnetpack (water clusters: O, H, H
repeated, positions in a 6 Angstrom box, a 5 Angstrom cutoff; 64 features, 3 interactions, 20 Gaussians): SchNet with
the energy (60 k parameters) and PaiNN with the energy and forces (162 k); both add a mean energy per atom and atom
references (H -0.5, O -75) as the training data module sets them (``AddOffsets``; passing them to its constructor
raises: ``atomrefs or torch.zeros(...)`` on a tensor). tft-torch: a retail forecast (4 observed series, a known-future
promotion flag, day of week and hour as categoricals in the past and the future, two static numbers and a region out of
20; 12 steps ahead, quantiles 0.1, 0.5 and 0.9; width 64, 4 heads, 2 LSTM layers; 0.57 M), the service packing its
features into one tensor. nbeats-pytorch: trend (degree 3) and seasonality stacks of three blocks each, 256 units, 96
steps back and 24 ahead (1.35 M).

Each has the dynamic axes a deploying user declares: batch alone for the scattering models (kymatio builds its filters
for the signal size given at construction: a 4096-sample input raises ``ValueError`` for the padding, and the 3-D
transform checks its grid size) and for N-BEATS (its backcast length is fixed); batch, height and width for the
diffusion samplers (sizes multiples of 4); batch and time for the IMU windows and the forecast (history plus the 12
future steps); time alone for the EKF (one robot's log a call); batch and atoms for the clusters (atoms a multiple of
3). Inputs are all in [0, 1): audio (2, 8192), densities (2, 32, 32, 32), noise (2, 3, 32, 32), IMU windows (2, 200, 6),
a robot log (50, 5), clusters (2, 12, 3), feature tensors (2, 60, 7) and windows (2, 96). Set-valued outputs: none.
Outputs: digit logits (batch, 10); scattering features (batch, 57) and energies (batch, 1); images (batch, 3, H, W);
quaternions (batch, steps, 4), velocities and positions (batch, steps, 3) and covariances (batch, 9, 9); states (steps,
3) and covariances (steps, 3, 3); energies (batch,) and forces (batch, atoms, 3); quantiles (batch, 12, 3), attention
scores (batch, 12, steps) and static weights (batch, 3); backcast (batch, 96) and forecast (batch, 24).

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS80`` and ``make_zoo``, each model in its own process with one thread on the cores shared with other sessions: at
the spec's size, one more in the batch and larger sizes (audio 3x8192 and 1x8192; densities 3 and 1 at 32^3; noise
3x32x32, 2x64x48 and 1x64x64; IMU windows 3x200 and 2x1000; robot logs of 51 and 200 steps; clusters 3x12, 2x30 and 1x60
atoms; feature tensors 3x60 and 2x200; windows 3x96 and 8x96). All passed at the first full run, after three fixes to
the wrappers found by their first builds (the ``sph_harm`` shim, schnetpack's ``__version__`` and the offsets set after
construction) and the transformer's patch size given as a pair (its ``Patching`` indexes it). Imports take 2.5 to 3.3 s
(load varying); builds 0.0 to 0.2 s. Parameters: the U-Net 14.7 M, the image transformer 5.3 M, N-BEATS 1.35 M, the TFT
0.57 M, PaiNN 0.16 M, SchNet 0.06 M, the scattering read-outs 1.3 k and 58 (the transforms have buffers only), pypose
none (its modules hold buffers; the EKF's system is written out). Forwards: the U-Net sampler 0.5 s at 2x32x32, 0.7 s at
3x32x32, 1.4 to 1.8 s at 64x64 and 64x48 (the slowest); the transformer sampler 0.15 to 0.3 s; the scattering models
0.03 to 0.1 s; the EKF 0.07 s for 50 steps and 0.3 s for 200; the potentials, the TFT, the IMU preintegration and
N-BEATS below 0.05 s. Peak memory 0.32 to 0.50 GB a process (the U-Net sampler the most). Odd, left as the libraries
have them: N-BEATS prints its stacks and blocks at construction and keeps its parameters in a ``ParameterList``
attribute named ``parameters`` (a submodule shadowing nothing: ``Module.parameters()`` still resolves to the method);
its seasonality stacks take ``thetas_dim`` from the forecast length (24), not from the given 8, when ``nb_harmonics`` is
unset; the IMU covariances of two windows differ by about 1e-6 at 200 steps (the covariance starts at zero and grows
with the window: at 1000 steps they differ by 3e-3); the scattering features of the densities are in the thousands
(integrals over 32^3 voxels); the schnetpack energies include the atom references (about -76 per water), so they vary
little relative to their size across the batch.
"""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchdiffeq among them, which k-diffusion's sampling imports), six libraries by authors
#: no earlier zoo or sweep ran and four small pure-Python libraries they import, all unpacked wheels like the others
#: (never pip-installed): kymatio (scattering), k-diffusion (diffusion models and samplers) with torchsde, trampoline
#: and dctorch, pypose (robotics), schnetpack (neural network potentials) with ASE, tft-torch (Temporal Fusion
#: Transformer) and nbeats-pytorch (N-BEATS).
PINS80 = {**PINS31, "trampoline": "0.1.2", "torchsde": "0.2.6", "dctorch": "0.1.2", "k_diffusion": "0.1.1.post1",
          "kymatio": "0.3.0", "pypose": "0.9.5", "ase": "3.29.0", "schnetpack": "2.1.1", "tft_torch": "0.0.6",
          "nbeats_pytorch": "1.8.0"}

_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'
_BA = 'dynamic_axes = { x = { 0 = "batch", 1 = "atoms" } }'
_T = 'dynamic_axes = { x = { 0 = "time" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# kymatio: wavelet scattering transforms (torch frontend). The filter banks are built with NumPy and SciPy for the
# signal size given at construction.
_KYM = '''
import scipy.special

if not hasattr(scipy.special, "sph_harm"):
    # SciPy 1.17 removed ``sph_harm`` (azimuth before polar angle), which kymatio's 3-D filter bank imports; its
    # replacement ``sph_harm_y`` takes the degree first and the polar angle first.
    scipy.special.sph_harm = lambda m, n, theta, phi: scipy.special.sph_harm_y(n, m, phi, theta)
from kymatio.torch import HarmonicScattering3D, Scattering1D
from kymatio.scattering3d.backend.torch_backend import TorchBackend3D


class SpokenDigits(torch.nn.Module):
    """kymatio's spoken-digit classifier: a waveform in [0, 1) moved to [-1, 1), the 1-D scattering transform, the
    zeroth order dropped, ``log(|S| + eps)`` averaged over time, standardised and a linear layer to ten digits."""

    def __init__(self, samples, J=6, Q=8, classes=10):
        super().__init__()
        self.scattering = Scattering1D(J=J, shape=samples, Q=Q)
        paths = self.scattering.output_size()
        self.register_buffer("mean", torch.randn(paths - 1) * 0.1 - 8.0)
        self.register_buffer("std", torch.rand(paths - 1) + 0.5)
        self.classifier = torch.nn.Linear(paths - 1, classes)

    def forward(self, waveform):
        s = self.scattering(waveform * 2 - 1)[:, 1:, :]
        s = torch.log(torch.abs(s) + 1e-6).mean(-1)
        return self.classifier((s - self.mean) / self.std)


class MoleculeDensity(torch.nn.Module):
    """kymatio's QM7 regression features: an electron density on a grid (batch, M, N, O) in [0, 1), the zeroth-order
    integrals ``|x|^p`` (the library's ``compute_integrals``) and the solid-harmonic scattering coefficients,
    concatenated; then a linear energy read-out."""

    def __init__(self, size, J=2, L=2, powers=(0.5, 1.0, 2.0)):
        super().__init__()
        self.powers = powers
        self.scattering = HarmonicScattering3D(J=J, shape=(size, size, size), L=L, integral_powers=powers)
        with torch.no_grad():  # the feature count, from the library's own output shape
            features = self.scattering(torch.zeros(1, size, size, size)).numel() + len(powers)
        self.readout = torch.nn.Linear(features, 1)

    def forward(self, density):
        order_0 = TorchBackend3D.compute_integrals(density, self.powers)
        scattering = self.scattering(density)
        features = torch.cat([order_0.flatten(1), scattering.flatten(1)], 1)
        return features, self.readout(features)'''

# ---------------------------------------------------------------------------------------------------------------
# k-diffusion: the package ``__init__`` imports its augmentation (scikit-image), evaluation (clean-fid, CLIP) and
# config (jsonmerge) modules: registered without running it. ``K_DIFFUSION_USE_COMPILE=0`` is the library's switch
# for its ``torch.compile`` wrappers (on by default).
_KD = _SHARED + '''
import os

os.environ.setdefault("K_DIFFUSION_USE_COMPILE", "0")
os.environ.setdefault("K_DIFFUSION_USE_FLASH_2", "0")
_without_init("k_diffusion")
from k_diffusion import layers, sampling
from k_diffusion.models.image_transformer_v1 import ImageTransformerDenoiserModelV1
from k_diffusion.models.image_v1 import ImageDenoiserModelV1

#: The noise levels of the library's CIFAR-10 configurations and a short Karras schedule.
SIGMA_DATA, SIGMA_MIN, SIGMA_MAX, STEPS = 0.5, 0.01, 80.0, 6


def trained_like(model):
    """The layers the library zero-initialises (its output projections) get random weights, as a trained checkpoint
    has: with zeros the denoiser returns ``c_skip * x`` whatever the network computes."""
    for module in model.modules():
        if isinstance(module, (torch.nn.Linear, torch.nn.Conv2d)) and not module.weight.any():
            module.reset_parameters()
    return model


class Sampler(torch.nn.Module):
    """An image generation service: latent noise in (the input in [0, 1) centred and scaled to unit variance),
    the Karras-preconditioned denoiser run by one of the library's samplers over ``get_sigmas_karras``; images out."""

    def __init__(self, network, sample):
        super().__init__()
        self.denoiser = layers.Denoiser(trained_like(network), sigma_data=SIGMA_DATA).eval()
        self.sample = sample

    def forward(self, noise):
        sigmas = sampling.get_sigmas_karras(STEPS, SIGMA_MIN, SIGMA_MAX, device=noise.device)
        x = (noise - 0.5) * 12 ** 0.5 * sigmas[0]
        return self.sample(self.denoiser, x, sigmas, disable=True)'''

# ---------------------------------------------------------------------------------------------------------------
# pypose: Lie groups and robotics modules (its LieTensor is a torch.Tensor subclass). The package imports cleanly.
_PP = '''
import pypose as pp

#: The IMU's rate (200 Hz) and the robot's filter step (10 Hz).
IMU_DT, FILTER_DT = 0.005, 0.1


class Preintegration(torch.nn.Module):
    \"\"\"An inertial odometry front end: IMU windows (batch, steps, 6) in [0, 1) scaled to accelerometer readings
    around gravity (m/s^2) and gyroscope rates (rad/s), then pypose's ``IMUPreintegrator`` with covariance
    propagation from the identity state; rotations (as quaternions), velocities and positions per step and the
    window's 9x9 covariance out.\"\"\"

    def __init__(self):
        super().__init__()
        self.imu = pp.module.IMUPreintegrator(prop_cov=True, reset=True)

    def forward(self, x):
        acc = (x[..., :3] - 0.5) * 4 + self.imu.gravity
        gyro = (x[..., 3:] - 0.5) * 2
        dt = torch.full_like(x[..., :1], IMU_DT)
        out = self.imu(dt=dt, gyro=gyro, acc=acc)
        return out["rot"].tensor(), out["vel"], out["pos"], out["cov"]


class Unicycle(pp.module.NLS):
    \"\"\"A wheeled robot: state (x, y, heading), input (speed, turn rate), observed by its ranges to three
    beacons.\"\"\"

    def __init__(self):
        super().__init__()
        self.register_buffer("beacons", torch.tensor([[0.0, 0.0], [10.0, 0.0], [0.0, 10.0]]))

    def state_transition(self, state, input, t=None):
        heading = state[..., 2]
        step = torch.stack([input[..., 0] * heading.cos(), input[..., 0] * heading.sin(), input[..., 1]], -1)
        return state + step * FILTER_DT

    def observation(self, state, input, t=None):
        return (state[..., None, :2] - self.beacons).norm(dim=-1)


class Tracker(torch.nn.Module):
    \"\"\"A robot localisation service: a log of (steps, 5) in [0, 1): speed (m/s), turn rate (rad/s) and three beacon
    ranges (m), run through pypose's extended Kalman filter step by step (the system linearised by autograd at each
    estimate); the estimated states and covariances per step out.\"\"\"

    def __init__(self):
        super().__init__()
        self.ekf = pp.module.EKF(Unicycle(), Q=torch.eye(3) * 0.01, R=torch.eye(3) * 0.25)
        self.register_buffer("start", torch.tensor([5.0, 5.0, 0.0]))

    def forward(self, log):
        controls = torch.stack([log[:, 0] * 2, (log[:, 1] - 0.5) * 2], -1)
        ranges = 2 + log[:, 2:] * 8
        state, covariance = self.start, torch.eye(3, device=log.device)
        states, covariances = [], []
        for step in range(log.shape[0]):
            state, covariance = self.ekf(state, ranges[step], controls[step], covariance)
            states.append(state)
            covariances.append(covariance)
        return torch.stack(states), torch.stack(covariances)'''

# ---------------------------------------------------------------------------------------------------------------
# schnetpack: the package ``__init__`` imports its data, datasets, training (pytorch-lightning, hydra), MD and
# ASE-interface modules: registered without running it. Its transforms module imports matscipy (compiled neighbour
# lists), dirsync and fasteners (file caching for the cached neighbour list): empty stand-ins; ASE is pinned.
_SPK = _SHARED + '''


for _name in ("matscipy", "matscipy.neighbours", "dirsync", "fasteners"):
    _not_installed(_name)
sys.modules["matscipy.neighbours"].neighbour_list = None
sys.modules["dirsync"].sync = None
_without_init("schnetpack").__version__ = "2.1.1"  # what its ``__init__`` sets; models record it
import schnetpack.atomistic
import schnetpack.model
import schnetpack.nn
import schnetpack.properties as P
import schnetpack.representation
import schnetpack.transform

#: Water clusters: oxygen, hydrogen, hydrogen repeated; a 5 Angstrom cutoff in a box of 6 Angstrom.
CUTOFF, BOX = 5.0, 6.0


def potential(representation, forces):
    \"\"\"A neural network potential as the library's configurations build it: pairwise distances in, a
    representation, an atomwise energy (with the response module for forces when asked), the dataset's mean
    energy per atom and atom references added back.\"\"\"
    outputs = [schnetpack.atomistic.Atomwise(n_in=representation.n_atom_basis, output_key=P.energy)]
    if forces:
        outputs.append(schnetpack.atomistic.Forces(energy_key=P.energy, force_key=P.forces))
    # The statistics come from the training data module (``datamodule``); here they are set as it sets them (passing
    # them to the constructor fails there: ``atomrefs or torch.zeros(...)`` on a tensor).
    offsets = schnetpack.transform.AddOffsets(P.energy, add_mean=True, add_atomrefs=True)
    offsets.atomref[1], offsets.atomref[8] = -0.5, -75.0
    offsets.mean.fill_(-0.1)
    return schnetpack.model.NeuralNetworkPotential(
        representation=representation, input_modules=[schnetpack.atomistic.PairwiseDistances()],
        output_modules=outputs, postprocessors=[offsets])


def schnet():
    return schnetpack.representation.SchNet(
        n_atom_basis=64, n_interactions=3, radial_basis=schnetpack.nn.GaussianRBF(n_rbf=20, cutoff=CUTOFF),
        cutoff_fn=schnetpack.nn.CosineCutoff(CUTOFF))


def painn():
    return schnetpack.representation.PaiNN(
        n_atom_basis=64, n_interactions=3, radial_basis=schnetpack.nn.GaussianRBF(n_rbf=20, cutoff=CUTOFF),
        cutoff_fn=schnetpack.nn.CosineCutoff(CUTOFF))


class Clusters(torch.nn.Module):
    \"\"\"An energy (and force) service for water clusters: positions (clusters, atoms, 3) in [0, 1) scaled to the
    box; each cluster's neighbour list by the library's ``TorchNeighborList`` (no periodic cell), the clusters
    collated into one graph as its data loader does (indices offset by the atoms before them), the potential;
    energies per cluster (and forces per atom) out.\"\"\"

    def __init__(self, model, forces):
        super().__init__()
        self.model = model
        self.forces = forces
        self.neighbours = schnetpack.transform.TorchNeighborList(cutoff=CUTOFF)
        self.register_buffer("elements", torch.tensor([8, 1, 1]))

    def forward(self, x):
        clusters, atoms = x.shape[:2]
        numbers = self.elements[torch.arange(atoms, device=x.device) % 3]
        positions = x * BOX
        idx_i, idx_j, offsets = [], [], []
        for m in range(clusters):
            one = self.neighbours({P.Z: numbers, P.R: positions[m], P.cell: torch.zeros(3, 3, device=x.device),
                                   P.pbc: torch.zeros(3, dtype=torch.bool, device=x.device)})
            idx_i.append(one[P.idx_i] + m * atoms)
            idx_j.append(one[P.idx_j] + m * atoms)
            offsets.append(one[P.offsets])
        inputs = {P.Z: numbers.repeat(clusters), P.R: positions.reshape(-1, 3),
                  P.idx_m: torch.arange(clusters, device=x.device).repeat_interleave(atoms),
                  P.n_atoms: torch.full((clusters,), atoms, device=x.device),
                  P.idx_i: torch.cat(idx_i), P.idx_j: torch.cat(idx_j), P.offsets: torch.cat(offsets),
                  P.cell: torch.zeros(clusters, 3, 3, device=x.device),
                  P.pbc: torch.zeros(clusters, 3, dtype=torch.bool, device=x.device)}
        with torch.enable_grad():
            out = self.model(inputs)
        if self.forces:
            return out[P.energy].detach(), out[P.forces].detach().reshape(clusters, atoms, 3)
        return out[P.energy]'''

# ---------------------------------------------------------------------------------------------------------------
# tft-torch: the Temporal Fusion Transformer, configured by an OmegaConf dictionary (OmegaConf is in the venv).
_TFT = '''
from omegaconf import OmegaConf
from tft_torch.tft import TemporalFusionTransformer

#: A retail demand forecast: 4 observed series, a known-future promotion flag, day of week and hour (calendar,
#: known in the future too), a store's two static numbers and its region; 12 steps ahead, three quantiles.
HORIZON, CALENDAR = 12, [7, 24]
CONFIG = {"task_type": "regression", "target_window_start": None,
          "data_props": {"num_historical_numeric": 4, "num_historical_categorical": 2,
                         "historical_categorical_cardinalities": CALENDAR, "num_static_numeric": 2,
                         "num_static_categorical": 1, "static_categorical_cardinalities": [20],
                         "num_future_numeric": 1, "num_future_categorical": 2,
                         "future_categorical_cardinalities": CALENDAR},
          "model": {"attention_heads": 4, "dropout": 0.05, "lstm_layers": 2, "output_quantiles": [0.1, 0.5, 0.9],
                    "state_size": 64}}


class Forecast(torch.nn.Module):
    \"\"\"A forecasting service whose feature store hands over one tensor (series, steps, 7) in [0, 1): columns 0-3 the
    observed series, 4 the promotion flag, 5 and 6 day of week and hour as fractions; the last ``HORIZON`` steps are
    the future window. The static features are the first step's columns 0-2. The batch dictionary the TFT takes is
    built from it; quantiles, attention scores and static variable weights out.\"\"\"

    def __init__(self):
        super().__init__()
        self.tft = TemporalFusionTransformer(OmegaConf.create(CONFIG))
        self.register_buffer("cardinalities", torch.tensor(CALENDAR))

    def forward(self, x):
        history, future = x[:, :-HORIZON], x[:, -HORIZON:]
        batch = {"historical_ts_numeric": history[..., :4],
                 "historical_ts_categorical": (history[..., 5:] * self.cardinalities).long(),
                 "future_ts_numeric": future[..., 4:5],
                 "future_ts_categorical": (future[..., 5:] * self.cardinalities).long(),
                 "static_feats_numeric": x[:, 0, :2],
                 "static_feats_categorical": (x[:, 0, 2:3] * 20).long()}
        out = self.tft(batch)
        return out["predicted_quantiles"], out["attention_scores"], out["static_weights"]'''

# ---------------------------------------------------------------------------------------------------------------
# nbeats-pytorch: its model module imports NumPy and torch only (Keras is another package of the same project).
_NB = '''
from nbeats_pytorch.model import NBeatsNet


class Forecast(torch.nn.Module):
    \"\"\"A forecasting service: a window of the series (series, 96) in [0, 1), N-BEATS's residual backcast and
    forecast (24 steps ahead).\"\"\"

    def __init__(self, network):
        super().__init__()
        self.network = network

    def forward(self, x):
        return self.network(x)'''

MODELS80 = [
    # kymatio: wavelet scattering (audio and a molecular density).
    Spec("kymatio_scattering1d_digits", "kymatio Scattering1D (J=6, Q=8, 8192 samples), spoken-digit classifier",
         _KYM, "SpokenDigits(8192)", "return self.m(x)", "2, 8192", _B),
    Spec("kymatio_harmonic3d_density", "kymatio HarmonicScattering3D (J=2, L=2, 32^3 grid), QM7-style read-out",
         _KYM, "MoleculeDensity(32)", "return self.m(x)", "2, 32, 32, 32", _B),
    # k-diffusion: Karras-preconditioned denoisers run by the library's samplers.
    Spec("kdiff_unet_dpmpp_2m", "k-diffusion ImageDenoiserModelV1 U-Net, DPM-Solver++(2M) over 6 Karras sigmas", _KD,
         "Sampler(ImageDenoiserModelV1(3, 128, [2, 2, 4], [64, 128, 256], [False, True, True]), "
         "sampling.sample_dpmpp_2m)", "return self.m(x)", "2, 3, 32, 32", _BHW),
    Spec("kdiff_transformer_lms", "k-diffusion ImageTransformerDenoiserModelV1, LMS (order 4) over 6 Karras sigmas",
         _KD, "Sampler(ImageTransformerDenoiserModelV1(n_layers=4, d_model=256, d_ff=768, in_features=3, "
         "out_features=3, patch_size=[4, 4], sigma_data=SIGMA_DATA), sampling.sample_lms)", "return self.m(x)",
         "2, 3, 32, 32", _BHW),
    # pypose: IMU preintegration and an extended Kalman filter.
    Spec("pypose_imu_preintegration", "pypose IMUPreintegrator (covariance propagation, 200 Hz windows)", _PP,
         "Preintegration()", "return self.m(x)", "2, 200, 6", _BT),
    Spec("pypose_ekf_unicycle", "pypose EKF on a unicycle robot with three range beacons", _PP, "Tracker()",
         "return self.m(x)", "50, 5", _T),
    # schnetpack: neural network potentials on water clusters.
    Spec("schnetpack_schnet_energy", "schnetpack SchNet potential (energy, offsets and atom references)", _SPK,
         "Clusters(potential(schnet(), forces=False), forces=False)", "return self.m(x)", "2, 12, 3", _BA),
    Spec("schnetpack_painn_forces", "schnetpack PaiNN potential (energy and forces by autograd)", _SPK,
         "Clusters(potential(painn(), forces=True), forces=True)", "return self.m(x)", "2, 12, 3", _BA),
    # tft-torch: Temporal Fusion Transformer.
    Spec("tft_retail_quantiles", "tft-torch Temporal Fusion Transformer (quantiles 12 steps ahead)", _TFT,
         "Forecast()", "return self.m(x)", "2, 60, 7", _BT),
    # nbeats-pytorch: interpretable N-BEATS.
    Spec("nbeats_trend_seasonality", "nbeats-pytorch NBeatsNet (trend and seasonality stacks, 96 to 24 steps)", _NB,
         "Forecast(NBeatsNet(stack_types=(NBeatsNet.TREND_BLOCK, NBeatsNet.SEASONALITY_BLOCK), nb_blocks_per_stack=3, "
         "forecast_length=24, backcast_length=96, thetas_dim=(4, 8), hidden_layer_units=256))", "return self.m(x)",
         "2, 96", _B),
]

if __name__ == "__main__":
    main(MODELS80, "real_zoo80", PINS80)
