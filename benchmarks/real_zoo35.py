"""A thirty-fifth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo35.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, in tracking, medical volumes and video: the thirty-first zoo's pins and
four libraries by four other authors, whose code no earlier zoo or sweep ran (``PINS35``: unpacked wheels like the
others, never pip-installed): torch-kf 0.4.3 (Raphael Reme's batched Kalman filters in PyTorch, after filterpy:
``GaussianState``, ``KalmanFilter`` with predict, project, update, a filter loop over time that skips NaN measurements
by boolean masks and index writes, RTS smoothing, steady-state covariance, Mahalanobis distances and likelihoods through
matrix inverses, and constant-derivative motion models built by block_diag and interleaving; torch alone, its package
reads its own version from its metadata at import), torchreg 0.1.3 (codingfisch's image registration: affine matrices
composed from translation, rotation, zoom and shear with slice writes, applied by affine_grid and grid_sample in 2-D or
3-D, SyN's symmetric diffeomorphic flows by scaling and squaring with a sampling grid cached on the object, Gaussian
smoothing with kernel sizes computed from the shape by NumPy, Jacobian determinants and local NCC by conv3d; torch,
NumPy, tqdm), self-attention-cv 1.2.3 (Nikolas Adaloglou's attention blocks: UNETR for 3-D volumes, the convolution-free
Transformer3dSeg, a divided space-time Timesformer with an optional Linformer spatial attention; torch, einops, NumPy,
and torchvision for its ResNet-50 ViT) and timesformer-pytorch 0.4.1 (Phil Wang's TimeSformer: clips of any length and
size, rotary frame and axial image embeddings, frame masks repeated into attention masks; torch and einops). Nothing new
in the ``bench`` extra (einops, NumPy and tqdm are in the environment already; torchvision is pinned). transformers'
TimeSformer (zoo 6) and monai's 2-D UNETR (zoo 4) are other code: these are the two libraries' own modules. Considered
and dropped before any model was chosen (by the wheel's files, metadata and a first look at its code): voxelmorph 0.3.4
(3-D registration networks, but scikit-image, h5py and nibabel, compiled, and neurite), pointnext 0.0.5 (no wheel in
this workplace's index), unet3d 0.1.0 (torchreg's author again: plain 3-D U-Nets), byotrack 2.0.7 (biological tracking
around torch-kf, by its author, with many more dependencies), bytetracker 0.3.2 and the Kalman packages in NumPy
(kalman-py, kalmankit; no torch model to deploy); the libraries zoos 15 to 33 dropped, as they found.

20 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 33 or
in the library sweeps (benchmarks/sweep_*.py), all 20 from the four new libraries and at least 15 of the kinds that most
often need work for an ONNX or TensorRT deployment (a Python loop over the time axis of predict and update, matrix
inverses, ``if mask.any()`` on data with boolean-mask gathers and index writes into the state, results written into
``torch.empty`` tensors by a time index, a backward smoothing loop, a gating step with ``min`` and ``where``, 3-D
grid_sample with border and reflection padding, a sampling grid cached on the object and set per size, kernel sizes from
the shape through NumPy and ``tolist()`` into F.pad, kernels written element by element, affine matrices built by
``diag_embed`` and slice writes, rotary tables and attention masks built for the clip's frames and patch grid).
Tracking, from torch-kf, in the user's ``Tracks`` module (a constant-derivative filter from ``constant_kalman_filter``,
tracks that start at the first frame's input times 100 px and move by the later inputs times 4 px, a prior from the
first measurement): the constant-velocity filter over the sequence, constant acceleration with ``return_all`` and RTS
smoothing, the filter with missed detections (NaN measurements over a threshold, never on the first frame), a SORT-like
step on boxes (4-D: filter, predict, project, squared Mahalanobis cost of every detection to every track, nearest
detection gated by chi-square, update, unmatched tracks kept; detections reversed and some moved 50 px away), the
log-likelihood of every detection under every track's prediction, and the steady-state covariance per sensor with the
measurement noise from the input. Registration, from torchreg, as a user applies a fitted registration (parameters
random, fixed seed): a 3-D affine at the input's size, a 2-D nearest affine resampled to a 40x40 template, SyN's
``apply_flows`` from a pair of velocity fields resized to the volumes, the scaling-and-squaring exponential alone, one
pyramid level of SyNRegistration (half-size resize and ``gauss_smoothing`` with sigmas from that size), the Jacobian
determinant of a displacement field and the local NCC of two volumes. Medical volumes and video, from self-attention-cv:
UNETR on 32-voxel volumes with instance norm and with batch norm (calibrated: ``Spec.calibrate``), Transformer3dSeg on
24-voxel sub-volumes, Timesformer and Timesformer with Linformer spatial attention on 4 frames of 32 px. Video, from
timesformer-pytorch: TimeSformer with rotary embeddings on clips of any length and size, and with learned positions and
a frame mask from zero-padded frames.

Each is small and has the dynamic axes a deploying user declares: time and tracks for the trackers, sensors for the
steady state; batch, depth, height and width for the affine, exponential and smoothing; depth, height and width for the
flows, the Jacobian and NCC (a pair of volumes on the batch axis, a field of batch one); batch, height and width for the
2-D affine; batch for UNETR, Transformer3dSeg and self-attention-cv's Timesformer (their positions are for one size);
batch, frames, height and width for the rotary TimeSformer; batch and frames for the masked one. Machinery, table and
counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over two
forwards, finite outputs) at two sizes (the spec's, and a larger one: one more item on the batch axis, 2 more time
steps, 3 more tracks, 2 more sensors or frames, 8 more voxels or pixels on each spatial axis, 16 px for TimeSformer's 16
px patches) before the first migrate run: with one thread on the shared two cores, each in its own process, a forward at
the spec's size took 0.001 to 0.13 s (UNETR with batch norm 0.13 s, UNETR 0.11 s, SyN's flows 0.03 s, every other under
0.015 s) and at most 0.21 s at the larger size (UNETR at batch 3); builds (imports included) took 1.8 to 6.4 s, 5 to 13
s per process with the checks; the machine's load made each of these vary by up to two times. Changed after the first
eager runs, before any migrate run: torch-kf's package reads its version from its metadata, so the first runs, from
copied packages without their ``dist-info``, failed at import (the zoo's unpacking keeps it); the tracks were first the
inputs times 100 px, independent per frame, and no detection passed the gate (every track unmatched), so they now move
by small steps and some detections are moved away (a mix of matched and unmatched tracks); both UNETRs now run at batch
2 (at batch 1 a forward took 0.4 to 0.66 s, slower than at batch 2 or 3, about 0.2 s, on the loaded machine)."""

from __future__ import annotations

from real_zoo import DYNAMIC_B, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and four libraries by four other authors, unpacked wheels like the others (never
#: pip-installed): torch_kf (batched Kalman filters: predict, update, a filter loop skipping NaN measurements, RTS
#: smoothing), torchreg (affine and SyN registration applied by grid_sample, Gaussian smoothing, Jacobians, NCC),
#: self_attention_cv (UNETR, Transformer3dSeg, Timesformer) and timesformer_pytorch (TimeSformer with rotary embeddings
#: and frame masks).
PINS35 = {**PINS31, "torch_kf": "0.4.3", "torchreg": "0.1.3", "self_attention_cv": "1.2.3",
          "timesformer_pytorch": "0.4.1"}


_KF = '''from torch_kf import GaussianState
from torch_kf.ckf import constant_kalman_filter


class Tracks(torch.nn.Module):
    """The user's tracker around torch-kf: a constant-derivative Kalman filter over (time, tracks, dim) positions in
    pixels (tracks start at the first frame's input times 100 and move by the later inputs times 4 per frame), each
    track's prior from its first measurement with a wide covariance."""

    def __init__(self, mode, dim=2, order=1, missing=0.0, gate=9.21):
        super().__init__()
        self.kf = constant_kalman_filter(2.0, 0.5, dim=dim, order=order)
        self.mode, self.missing, self.gate = mode, missing, gate

    def prior(self, first):
        mean = first.new_zeros(first.shape[0], self.kf.state_dim, 1)
        mean[:, : self.kf.measure_dim, 0] = first
        covariance = (torch.eye(self.kf.state_dim) * 100.0).repeat(first.shape[0], 1, 1)
        return GaussianState(mean, covariance)

    def forward(self, x):
        z = x[:1] * 100.0 + (x * 4.0).cumsum(0)
        if self.missing:
            # Detections missed on some frames (never the first): NaN measurements, which filter() skips.
            lost = torch.cat([torch.zeros_like(x[:1, :, 0], dtype=torch.bool), x[1:, :, 0] > self.missing])
            z = z.masked_fill(lost[..., None], float("nan"))
        if self.mode == "filter":
            state = self.kf.filter(self.prior(z[0]), z[..., None])
            return state.mean[..., 0], state.covariance.diagonal(dim1=-2, dim2=-1)
        if self.mode == "smooth":
            states = self.kf.filter(self.prior(z[0]), z[..., None], return_all=True)
            return self.kf.rts_smooth(states).mean[..., 0]
        if self.mode == "likelihood":
            # Every detection of the last frame scored under every track's projected prediction.
            state = self.kf.predict(self.kf.filter(self.prior(z[0]), z[:-1, ..., None]))
            projection = self.kf.project(state)
            return projection.log_likelihood(z[-1][:, None, :, None])
        if self.mode == "associate":
            # One SORT-like step: filter the past frames, predict, gate the last frame's detections (reversed, some
            # moved 50 px away: lost tracks) by squared Mahalanobis distance, update each track with its nearest
            # gated detection, keep the others.
            state = self.kf.predict(self.kf.filter(self.prior(z[0]), z[:-1, ..., None]))
            projection = self.kf.project(state)
            detections = torch.where(x[-1, :, :1] > 0.8, z[-1] + 50.0, z[-1]).flip(0)
            cost = projection.mahalanobis_squared(detections[:, None, :, None])  # (detections, tracks)
            best, index = cost.min(0)
            matched = best < self.gate
            updated = self.kf.update(state, detections[index][..., None], projection=projection)
            mean = torch.where(matched[:, None, None], updated.mean, state.mean)
            return mean[..., 0], torch.where(matched, index, torch.full_like(index, -1))
        if self.mode == "steady":
            # A steady-state covariance per sensor: measurement noise from the input's per-axis standard deviations.
            self.kf.measurement_noise = torch.diag_embed((x[0] * 4.0 + 0.5) ** 2)
            return self.kf.steady_state_covariance(n=8)
        raise ValueError(self.mode)
'''
_KF_DYNAMIC = 'dynamic_axes = { x = { 0 = "time", 1 = "tracks" } }'

_REG = '''import math

import torch.nn.functional as F
from torchreg.affine import affine_transform, compose_affine, init_parameters
from torchreg.metrics import NCC
from torchreg.syn import SyNBase, gauss_smoothing
from torchreg.utils import INTERP_KWARGS, create_grid, jacobi_determinant


class FittedAffine(torch.nn.Module):
    """An affine registration the user fitted once (the library's translation, rotation, zoom and shear as
    parameters), applied to new images or volumes of any size: composed by compose_affine, sampled by
    affine_transform, to the input's size or to a fixed template size."""

    def __init__(self, is_3d, mode, shape=None):
        super().__init__()
        n = 2 + is_3d
        g = torch.Generator().manual_seed(0)
        angle = 0.2
        rotation = torch.eye(n)
        rotation[0, 0] = rotation[1, 1] = math.cos(angle)
        rotation[0, 1], rotation[1, 0] = -math.sin(angle), math.sin(angle)
        self.params = torch.nn.ParameterList(init_parameters(
            is_3d, 1, "cpu", True, True, True, True, init_translation=0.1 * torch.randn(1, n, generator=g),
            init_rotation=rotation[None], init_zoom=1 + 0.1 * torch.randn(1, n, generator=g),
            init_shear=0.05 * torch.randn(1, n, generator=g)))
        self.mode, self.shape = mode, shape

    def forward(self, x):
        affine = compose_affine(*self.params).type(x.dtype).expand(len(x), -1, -1)
        return affine_transform(x, affine, self.shape, self.mode, "border", True)


class SyNFlows(torch.nn.Module):
    """The library's symmetric diffeomorphic flows (SyNBase) from a fitted pair of stationary velocity fields,
    resized to the pair of volumes given (moving and static on the batch axis), with the sampling grid built for
    their size as SyNRegistration does before applying them."""

    def __init__(self, time_steps=7, size=8):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.syn = SyNBase(time_steps)
        self.v_xy = torch.nn.Parameter(0.05 * torch.randn(1, 3, size, size, size, generator=g))
        self.v_yx = torch.nn.Parameter(0.05 * torch.randn(1, 3, size, size, size, generator=g))

    def forward(self, x):
        shape = x.shape[2:]
        self.syn._grid = create_grid(shape, x.device)
        v_xy = F.interpolate(self.v_xy, shape, **INTERP_KWARGS)
        v_yx = F.interpolate(self.v_yx, shape, **INTERP_KWARGS)
        images, flows = self.syn.apply_flows(x[:1], x[1:], v_xy, v_yx)
        return images["xy_full"], images["yx_full"], flows["xy_full"], flows["yx_full"]


class Exponential(torch.nn.Module):
    """SyNBase.diffeomorphic_transform (scaling and squaring: the velocity halved time_steps times, then composed
    with itself by grid_sample) on a batch of velocity fields; the grid built for their size."""

    def __init__(self, time_steps=7):
        super().__init__()
        self.syn = SyNBase(time_steps)

    def forward(self, x):
        self.syn._grid = create_grid(x.shape[2:], x.device)
        return self.syn.diffeomorphic_transform(x * 0.2 - 0.1)


class Pyramid(torch.nn.Module):
    """One level of SyNRegistration's pyramid: the volume resized to 1/scale of its size and smoothed by
    gauss_smoothing with sigmas from that size (kernel sizes from the shape by NumPy, padded by a list)."""

    def __init__(self, scale=2, sigma=0.2):
        super().__init__()
        self.scale, self.sigma = scale, sigma

    def forward(self, x):
        shape = [int(round(s / self.scale)) for s in x.shape[2:]]
        small = F.interpolate(x, shape, **INTERP_KWARGS)
        return gauss_smoothing(small, self.sigma * 200 / torch.tensor(shape).int())


class Jacobian(torch.nn.Module):
    """jacobi_determinant of a displacement field (1, D, H, W, 3): the fold check after registration."""

    def forward(self, x):
        return jacobi_determinant((x - 0.5) * 0.2)


class LocalNCC(torch.nn.Module):
    """The library's local normalised cross-correlation between two volumes given on the batch axis (box sums by
    conv3d with a kernel of ones shaped from the target)."""

    def __init__(self, kernel_size=5):
        super().__init__()
        self.ncc = NCC(kernel_size)

    def forward(self, x):
        return self.ncc(x[:1], x[1:])
'''
_DYNAMIC_DHW = 'dynamic_axes = { x = { 2 = "depth", 3 = "height", 4 = "width" } }'
_DYNAMIC_BDHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'

_SACV = '''from self_attention_cv import Timesformer, UNETR
from self_attention_cv.Transformer3Dsegmentation.tranf3Dseg import Transformer3dSeg'''

_TSF = '''from timesformer_pytorch import TimeSformer


class PaddedClips(torch.nn.Module):
    """TimeSformer on clips padded with all-zero frames: the frame mask from the frames themselves."""

    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x, mask=x.flatten(2).abs().sum(-1) > 0)
'''
_TSF_CFG = 'dim=64, num_classes=5, depth=2, heads=4, dim_head=16'
_DYNAMIC_VIDEO = 'dynamic_axes = { x = { 0 = "batch", 1 = "frames", 3 = "height", 4 = "width" } }'

MODELS35 = [
    # torch_kf: batched Kalman filters for tracking (the user's Tracks module around the library's filter).
    Spec("kf_cv_filter", "torch_kf constant_kalman_filter (constant velocity, 2-D) and KalmanFilter.filter over a "
         "sequence: a Python loop over time of predict and update (matrix inverses of the innovation covariance, "
         "a NaN mask check per step); the last posterior mean and variances per track", _KF,
         'Tracks("filter")', "return self.m(x)", "6, 5, 2", _KF_DYNAMIC),
    Spec("kf_ca_smooth", "torch_kf constant acceleration (order 2, 2-D) filter with return_all (posteriors written "
         "into empty tensors by time index) and rts_smooth (a backward Rauch-Tung-Striebel loop)", _KF,
         'Tracks("smooth", order=2)', "return self.m(x)", "6, 4, 2", _KF_DYNAMIC),
    Spec("kf_cv_missing", "torch_kf filter with missed detections: NaN measurements, states updated only where the "
         "measure is present (boolean-mask indexing and index writes into the state per step)", _KF,
         'Tracks("filter", missing=0.7)', "return self.m(x)", "6, 5, 2", _KF_DYNAMIC),
    Spec("kf_sort_associate", "torch_kf SORT-like step on boxes (constant velocity, 4-D: x, y, w, h): filter the "
         "past frames, predict, project, squared Mahalanobis cost of every detection to every track, nearest "
         "detection gated by chi-square, update by gathered detections, unmatched tracks kept by torch.where", _KF,
         'Tracks("associate", dim=4)', "return self.m(x)", "5, 6, 4", _KF_DYNAMIC),
    Spec("kf_likelihood", "torch_kf GaussianState.log_likelihood of the last frame's detections under every track's "
         "projected prediction (log-determinant, inverse, broadcast over detections and tracks)", _KF,
         'Tracks("likelihood")', "return self.m(x)", "5, 6, 2", _KF_DYNAMIC),
    Spec("kf_steady_state", "torch_kf KalmanFilter.steady_state_covariance (8 predict and update rounds from a wide "
         "prior) per sensor, the measurement noise set from the input", _KF, 'Tracks("steady", order=2)',
         "return self.m(x)", "1, 3, 2", 'dynamic_axes = { x = { 1 = "sensors" } }'),
    # torchreg: applying fitted registrations to volumes and images (random fitted parameters).
    Spec("reg_affine_3d", "torchreg compose_affine (diag_embed zoom, shear written into slices, rotation) and "
         "affine_transform (affine_grid and trilinear grid_sample, border padding) on volumes at their size",
         _REG, "FittedAffine(True, \"trilinear\")", "return self.m(x)", "1, 1, 16, 20, 24", _DYNAMIC_BDHW),
    Spec("reg_affine_2d_template", "torchreg 2-D affine (nearest sampling, for label maps) resampled to a fixed "
         "40x40 template", _REG, "FittedAffine(False, \"nearest\", (40, 40))", "return self.m(x * 4)",
         "1, 1, 48, 64", 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'),
    Spec("reg_syn_flows", "torchreg SyNBase.apply_flows: four velocity fields exponentiated by scaling and squaring "
         "(7 grid_sample rounds), half-way images, flows composed, full images, reflection padding", _REG,
         "SyNFlows()", "return self.m(x)", "2, 1, 16, 16, 16", _DYNAMIC_DHW),
    Spec("reg_exponential", "torchreg SyNBase.diffeomorphic_transform on a batch of velocity fields", _REG,
         "Exponential()", "return self.m(x)", "1, 3, 12, 16, 16", _DYNAMIC_BDHW),
    Spec("reg_pyramid_smooth", "torchreg SyNRegistration's pyramid level: trilinear resize to half size and "
         "gauss_smoothing (a Gaussian kernel built by meshgrid, sizes from the shape by NumPy, replicate padding, "
         "grouped conv3d)", _REG, "Pyramid()", "return self.m(x)", "1, 2, 16, 20, 24", _DYNAMIC_BDHW),
    Spec("reg_jacobian", "torchreg jacobi_determinant (finite differences by conv3d with a kernel written element by "
         "element, permutes, crop and replicate padding)", _REG, "Jacobian()", "return self.m(x)",
         "1, 12, 16, 20, 3", 'dynamic_axes = { x = { 1 = "depth", 2 = "height", 3 = "width" } }'),
    Spec("reg_local_ncc", "torchreg NCC (local normalised cross-correlation by box sums) between two volumes", _REG,
         "LocalNCC()", "return self.m(x)", "2, 1, 16, 16, 20", _DYNAMIC_DHW),
    # self_attention_cv: 3-D medical segmentation and video transformers.
    Spec("sacv_unetr", "self_attention_cv UNETR on 32-voxel volumes (16-voxel patches, 12 transformer layers of "
         "width 64, four extracted layers rearranged to volumes, transposed-conv decoder, instance norm)", _SACV,
         "UNETR(img_shape=(32, 32, 32), input_dim=1, output_dim=2, embed_dim=64, patch_size=16, num_heads=4, "
         "ext_layers=[3, 6, 9, 12], norm='instance', base_filters=8, dim_linear_block=128)", "return self.m(x)",
         "2, 1, 32, 32, 32", DYNAMIC_B),
    Spec("sacv_unetr_batchnorm", "self_attention_cv UNETR with batch norm on 2-channel 32-voxel volumes", _SACV,
         "UNETR(img_shape=(32, 32, 32), input_dim=2, output_dim=3, embed_dim=48, patch_size=16, num_heads=4, "
         "ext_layers=[3, 6, 9, 12], norm='batch', base_filters=8, dim_linear_block=96)", "return self.m(x)",
         "2, 2, 32, 32, 32", DYNAMIC_B, calibrate="self.m(xb)"),
    Spec("sacv_transformer3dseg", "self_attention_cv Transformer3dSeg (convolution-free: 8-voxel 3-D patches of a "
         "24-voxel sub-volume, a transformer, the middle token's head rearranged to a 3x3x3 class cube)", _SACV,
         "Transformer3dSeg(subvol_dim=24, patch_dim=8, num_classes=2, in_channels=1, dim=64, blocks=2, heads=4, "
         "dim_linear_block=128)", "return self.m(x)", "1, 1, 24, 24, 24", DYNAMIC_B),
    Spec("sacv_timesformer", "self_attention_cv Timesformer (divided space-time attention on 4 frames of 8 px "
         "patches, the class token repeated per frame and per patch and averaged back)", _SACV,
         "Timesformer(img_dim=32, frames=4, num_classes=5, in_channels=3, patch_dim=8, dim=64, blocks=2, heads=4, "
         "dim_linear_block=128)", "return self.m(x)", "1, 4, 3, 32, 32", DYNAMIC_B),
    Spec("sacv_timesformer_linformer", "self_attention_cv Timesformer with Linformer spatial attention (keys and "
         "values projected to k=8)", _SACV,
         "Timesformer(img_dim=32, frames=4, num_classes=5, in_channels=3, patch_dim=8, dim=64, blocks=2, heads=4, "
         "dim_linear_block=128, linear_spatial_attention=True, k=8)", "return self.m(x)", "2, 4, 3, 32, 32",
         DYNAMIC_B),
    # timesformer_pytorch: lucidrains' TimeSformer on clips of any length and size.
    Spec("tsf_rotary", "timesformer_pytorch TimeSformer with rotary embeddings (frame and axial image rotary "
         "tables built for the clip's frames and patch grid; attention with the class token handled apart)", _TSF,
         f"TimeSformer({_TSF_CFG}, num_frames=8, image_size=64, patch_size=16)", "return self.m(x)",
         "1, 3, 3, 32, 48", _DYNAMIC_VIDEO),
    Spec("tsf_masked_frames", "timesformer_pytorch TimeSformer with learned positions (an embedding of arange over the "
         "tokens) and a frame mask from zero-padded frames, repeated into time and class-token attention masks",
         _TSF, f"PaddedClips(TimeSformer({_TSF_CFG}, num_frames=8, image_size=64, patch_size=16, rotary_emb=False))",
         "return self.m(x)", "2, 4, 3, 32, 32", 'dynamic_axes = { x = { 0 = "batch", 1 = "frames" } }'),
]

if __name__ == "__main__":
    main(MODELS35, "real_zoo35", PINS35)
