"""A twenty-sixth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo26.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the twenty-fifth zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the twenty-fifth zoo's libraries and pins and three more libraries by
three other authors, whose code no earlier zoo or sweep ran (``PINS26``: unpacked wheels like the others, never
pip-installed): oflibpytorch 2.1.1 (Claudio Ravasio's optical flow toolbox: warping by flows referenced to the target or
to the source, inversion, combination and reference switching by inverse bilinear splatting, flows from matrices,
validity areas, point tracking; it imports NumPy, SciPy and OpenCV, and uses SciPy's griddata only when its pure-PyTorch
mode, the default, is unset), julius 0.2.8 (Alexandre Défossez's fractional resampling, FFT convolution and
windowed-sinc low, high and band passes; torch alone) and deformable-attention 0.0.20 (Phil Wang's deformable attention
in one, two and three dimensions; torch and einops). Nothing new in the ``bench`` extra: everything they import is
there. Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import):
super-image 0.2.0 (its package imports its data module, which imports h5py, compiled), pytorch-wavelets 1.3.0 (imports
PyWavelets, compiled), sam2 1.1.0 and dbnet 0.2.5 (no wheel in this index), x-unet 0.5.0 (imports torch-einops-utils,
not in the venv), stylegan2-pytorch 1.9.0 (imports fire and more), DISTS-pytorch 0.1 (a metric like piq's; one of its
files does not parse), colorization 0.1.1 (an ANSI terminal-colour package of that name, not Zhang's models),
segmentation-models-pytorch-3d 1.0.2 (by timm-3d's author, zooed in zoo 18); importable but not taken, to keep to three
libraries: torchdiffeq 0.2.5, e2cnn 0.2.3, pytorch-msssim 1.0.0 (SSIM, as piq's), nnaudio 0.3.4 and kornia-moons 0.3.0;
the libraries zoos 15 to 25 dropped, as they found.

20 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 25 or
in the library sweeps (benchmarks/sweep_*.py), all of them of the kinds that most often need work for an ONNX or
TensorRT deployment (pixel meshes from the size and grid_sample, coordinates normalised in place by the size, forward
splatting by scatter-adds into zero tensors of the size with indices clamped to it, writes through boolean masks,
branches on the flow's values, interpolation by scale factors with in-place rescaling, padding and cuts by lengths
computed from the size, some as tensors, blocks unfolded from the length, FFTs, einops rearranges by the size). Optical
flow, from oflibpytorch: each flow comes from a small convolutional estimator on two frames (random weights, tanh, 8 px
at most), as a user's network feeds the toolbox: apply_flow with a target flow at 48x64 and a source flow (pure PyTorch
splatting) at 40x56, invert_flow from the target to the source reference with the inverse applied to the first frame at
44x52, combine_flows in mode 3 (target flows) at 48 px and mode 1 (source flows) at 40x44, resize_flow to half height
and three quarters width and back at 48x64, valid_target and valid_source of a source flow at 40x48, track_pts of 5
points placed at fractions of the size with a target flow at 48x56, and from_matrix as a spatial transformer (an affine
correction predicted from the image, about the centre from the size, the matrix given as the inverse) with apply_flow at
50x66. Audio, from julius, batch, channels, samples: ResampleFrac 4 to 5 at 400 samples and 6 to 4 with ``full=True`` at
366, LowPassFilters at three cutoffs by FFT at 600, SplitBands into 4 mel bands at 800, HighPassFilters with stride 2 by
direct convolution at 301, an unpadded BandPassFilter by FFT at 700, FFTConv1d (4 to 8 channels, kernel 64, stride 2,
padding 16) at 300. Deformable attention, from deformable-attention, random weights: DeformableAttention2D on a
32-channel map at 32x40, the same with 2 offset groups for 4 heads, ungrouped queries and downsampling by 2, returning
its sampling grid too, at 28x36, DeformableAttention1D on 100 steps, DeformableAttention3D with downsampling 2, 4, 4 on
4x24x24 voxels.

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the images and feature
maps, batch and samples for the audio, batch and length for the sequence, batch, depth, height and width for the volume.
Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly
(deterministic over two forwards, finite outputs) at two sizes (the spec's, and a batch of two 32 px larger, 64 samples
longer, 4 slices and 8 px larger for the volume) before the first migrate run: with one thread on the shared two cores
(load average 1.1 to 1.5), a forward at the spec's size took 0.001 to 0.04 s, and 0.001 to 0.01 s at the larger size but
for the 2-d deformable attentions (1.8 and 3.0 s: every query attends to every sampled key) and the 3-d one (0.85 s);
builds (imports included) took under 2 s. Changed after the first eager runs, before any migrate run: track_pts gets its
points with a batch axis (as a (5, 2) tensor they come back without one for a batch of one and with one for more); the
spatial transformer builds one batched matrix instead of looping over the batch; the flows are scaled to 8 px instead of
4 (with 4 the source flow's valid target area was the whole image); reference switching alone (switch_flow_ref) was
dropped for the inversion, which runs the same splatting, to keep the zoo at 20."""

from __future__ import annotations

from real_zoo import DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo25 import PINS25

#: The twenty-fifth zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): oflibpytorch (Claudio Ravasio's optical flow toolbox: warping with flows of either reference, flow
#: inversion and combination by inverse bilinear splatting, flows from matrices, validity areas, point tracking; torch,
#: NumPy, SciPy and OpenCV), julius (Alexandre Défossez's resampling, FFT convolution and windowed-sinc filters; torch
#: alone) and deformable_attention (Phil Wang's deformable attention in 1, 2 and 3 dimensions; torch and einops).
PINS26 = {**PINS25, "oflibpytorch": "2.1.1", "julius": "0.2.8", "deformable_attention": "0.0.20"}

#: Audio: a batch of multi-channel signals of any length.
_DYNAMIC_SAMPLES = 'dynamic_axes = { x = { 0 = "batch", 2 = "samples" } }'
#: A sequence of feature vectors of any length (channels first).
_DYNAMIC_LENGTH = 'dynamic_axes = { x = { 0 = "batch", 2 = "length" } }'
_DYNAMIC_VOLUME = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'

_OFL = "from oflibpytorch import {}"


def _flow_net(width: int, kernel: int, out: int = 2) -> str:
    """A small flow estimator on two frames (6 channels): the network a user puts in front of the flow toolbox."""
    pad = kernel // 2
    return (f"torch.nn.Sequential(torch.nn.Conv2d(6, {width}, {kernel}, padding={pad}), torch.nn.ReLU(), "
            f"torch.nn.Conv2d({width}, {out}, {kernel}, padding={pad}), torch.nn.Tanh())")


#: The estimated flow in pixels (at most 8 px each way) and the second frame it warps.
_FLOW = "flow = self.m(x) * 8\n        frame = x[:, 3:]\n        "


def _ofl(name: str, what: str, names: str, construct: str, forward: str, shape: str, **kw: str) -> Spec:
    return Spec(f"ofl_{name}", f"oflibpytorch {what}", _OFL.format(names), construct, _FLOW + forward, shape,
                DYNAMIC_BHW, **kw)


_JULIUS = "import julius"
_DEFORM = "from deformable_attention import {}"

MODELS26 = [
    # oflibpytorch: flows from a small estimator on two frames, then the toolbox's operations (random weights).
    _ofl("apply_target", "apply_flow with a target-referenced flow (a pixel mesh from the size, coordinates "
         "normalised in place by the size, grid_sample with aligned corners; skipped when the flow is zero)",
         "apply_flow", _flow_net(16, 3), "return apply_flow(flow, frame, 't')", "1, 6, 48, 64"),
    _ofl("apply_source", "apply_flow with a source-referenced flow, pure PyTorch (forward splatting: the four "
         "neighbours of each end point clamped to the size, weights and values scatter-added into zero tensors of "
         "the size, zero-flow pixels written back by a boolean mask)", "apply_flow", _flow_net(12, 5),
         "return apply_flow(flow, frame, 's')", "1, 6, 40, 56"),
    _ofl("invert", "invert_flow from a target to a source reference (inverse bilinear splatting of the negated "
         "flow), then the inverse flow applied to the first frame", "apply_flow, invert_flow", _flow_net(8, 3),
         "inverse = invert_flow(flow, 't', 's')\n        return inverse, apply_flow(inverse, x[:, :3], 's')",
         "1, 6, 44, 52"),
    _ofl("combine_sequential", "combine_flows, mode 3 (two target-referenced flows chained: the first warped by "
         "the second, added)", "combine_flows", _flow_net(16, 3, 4),
         "return combine_flows(flow[:, :2], flow[:, 2:], 3, 't')", "1, 6, 48, 48"),
    _ofl("combine_difference", "combine_flows, mode 1 with source references (the first flow recovered from the "
         "second and their composition: an inversion and a warp)", "combine_flows", _flow_net(12, 3, 4),
         "return combine_flows(flow[:, :2], flow[:, 2:], 1, 's')", "1, 6, 40, 44"),
    _ofl("resize", "resize_flow (bilinear interpolation by scale factors, the vectors scaled in place per "
         "component) at half height and three quarters width, and back to the input's size", "resize_flow",
         _flow_net(8, 5), "small = resize_flow(flow, [0.5, 0.75])\n        "
         "return small, resize_flow(small, [2.0, 4.0 / 3.0])", "1, 6, 48, 64"),
    _ofl("valid_areas", "valid_target and valid_source of a source-referenced flow (splatting ones, thresholded; the "
         "source area through the target area warped back), as floats", "valid_source, valid_target",
         _flow_net(6, 3), "return valid_target(flow, 's').float(), valid_source(flow, 's').float()", "1, 6, 40, 48"),
    _ofl("track_points", "track_pts with a target-referenced flow, pure PyTorch (the flow switched to the source "
         "reference by splatting, then sampled at 5 points placed at fractions of the size by grid_sample; NaNs "
         "written to zero by a mask)", "track_pts", _flow_net(14, 3),
         "h, w = x.shape[2:]\n        frac = torch.tensor([[0.1, 0.2], [0.5, 0.5], [0.25, 0.8], [0.9, 0.6], "
         "[0.7, 0.1]])\n        pts = (frac * torch.tensor([h - 1, w - 1], dtype=torch.float))[None]\n        "
         "return track_pts(flow, 't', pts)", "1, 6, 48, 56"),
    Spec("ofl_affine_from_matrix", "oflibpytorch from_matrix (a spatial transformer: a small network predicts an "
         "affine correction about the image centre, the 3x3 matrix is built with the centre from the size, the "
         "flow from the matrix on a homogeneous pixel mesh) and apply_flow on the image", _OFL.format(
             "apply_flow, from_matrix"),
         "torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, stride=2, padding=1), torch.nn.ReLU(), "
         "torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 6), torch.nn.Tanh())",
         "h, w = x.shape[2:]\n        p = self.m(x) * 0.1\n        n = x.shape[0]\n        "
         "a = torch.eye(3).expand(n, 3, 3).clone()\n        a[:, :2] = a[:, :2] + p.view(n, 2, 3)\n        "
         "c = torch.tensor([[1.0, 0, w / 2], [0, 1.0, h / 2], [0, 0, 1.0]])\n        "
         "c_inv = torch.tensor([[1.0, 0, -w / 2], [0, 1.0, -h / 2], [0, 0, 1.0]])\n        "
         "flow = from_matrix(c @ a @ c_inv, (h, w), 't', matrix_is_inverse=True)\n        "
         "return apply_flow(flow, x, 't')", "1, 3, 50, 66",
         DYNAMIC_BHW),
    # julius: resampling and filters on audio (batch, channels, samples).
    Spec("julius_resample_4_5", "julius ResampleFrac from 4 to 5 (windowed-sinc kernels, replicate padding, a "
         "strided convolution, the output cut to the floor of the new length as a tensor)", _JULIUS,
         "julius.ResampleFrac(4, 5)", "return self.m(x)", "1, 2, 400", _DYNAMIC_SAMPLES),
    Spec("julius_resample_full", "julius ResampleFrac from 6 to 4 with full=True (the output cut to the ceiling of "
         "the new length)", _JULIUS, "julius.ResampleFrac(6, 4, zeros=16)", "return self.m(x, full=True)",
         "1, 1, 366", _DYNAMIC_SAMPLES),
    Spec("julius_lowpass_fft", "julius LowPassFilters at three cutoffs by FFT convolution (replicate padding, "
         "blocks unfolded from the padded length, rfft, conjugate product, irfft, the tail cut to the length)",
         _JULIUS, "julius.LowPassFilters([0.02, 0.1, 0.2], fft=True)", "return self.m(x)", "1, 2, 600",
         _DYNAMIC_SAMPLES),
    Spec("julius_split_bands", "julius SplitBands into 4 mel-spaced bands at 8 kHz (low passes by FFT convolution, "
         "differences of neighbours, the rest of the signal)", _JULIUS, "julius.SplitBands(8000, n_bands=4)",
         "return self.m(x)", "1, 1, 800", _DYNAMIC_SAMPLES),
    Spec("julius_highpass_strided", "julius HighPassFilters at two cutoffs with stride 2 by direct convolution (the "
         "input subsampled by a slice with a step to match the low passes)", _JULIUS,
         "julius.HighPassFilters([0.1, 0.25], stride=2, fft=False)", "return self.m(x)", "1, 2, 301",
         _DYNAMIC_SAMPLES),
    Spec("julius_bandpass_unpadded", "julius BandPassFilter without padding (the output shorter by the filter's "
         "width, the input cut by the half size on both ends)", _JULIUS,
         "julius.BandPassFilter(0.05, 0.2, pad=False, fft=True)", "return self.m(x)", "1, 1, 700", _DYNAMIC_SAMPLES),
    Spec("julius_fft_conv1d", "julius FFTConv1d, 4 to 8 channels, kernel 64, stride 2, padding 16 (random "
         "weights; block size from the length, unfold, rfft, irfft, strided and cut to the convolution's length, "
         "bias added in place)", _JULIUS, "julius.FFTConv1d(4, 8, 64, stride=2, padding=16)", "return self.m(x)",
         "1, 4, 300", _DYNAMIC_SAMPLES),
    # deformable_attention: deformable attention (random weights) on feature maps, sequences and volumes.
    Spec("deform_attn_2d", "deformable_attention DeformableAttention2D (offsets from a strided grouped "
         "convolution, a pixel mesh from the size normalised by max(size - 1, 1), grid_sample of the keys and "
         "values, a continuous position bias MLP on log relative positions, the output reshaped by the size)",
         _DEFORM.format("DeformableAttention2D"),
         "DeformableAttention2D(dim=32, dim_head=8, heads=4, downsample_factor=4, offset_kernel_size=6)",
         "return self.m(x)", "1, 32, 32, 40", DYNAMIC_BHW),
    Spec("deform_attn_2d_grouped", "deformable_attention DeformableAttention2D with 2 offset groups for 4 heads, "
         "ungrouped queries, downsampling by 2, the output and the sampling grid", _DEFORM.format(
             "DeformableAttention2D"),
         "DeformableAttention2D(dim=16, dim_head=8, heads=4, offset_groups=2, downsample_factor=2, "
         "offset_kernel_size=4, group_queries=False)", "return self.m(x, return_vgrid=True)", "1, 16, 28, 36",
         DYNAMIC_BHW),
    Spec("deform_attn_1d", "deformable_attention DeformableAttention1D (offsets by a strided 1-d convolution, "
         "positions normalised by the length, sampling by grid_sample on a height-1 image)",
         _DEFORM.format("DeformableAttention1D"),
         "DeformableAttention1D(dim=32, dim_head=8, heads=4, downsample_factor=4, offset_kernel_size=6)",
         "return self.m(x)", "1, 32, 100", _DYNAMIC_LENGTH),
    Spec("deform_attn_3d", "deformable_attention DeformableAttention3D (per-axis downsampling 2, 4, 4, a voxel "
         "mesh from the size, 3-d grid_sample, position bias over all query and key voxels)",
         _DEFORM.format("DeformableAttention3D"),
         "DeformableAttention3D(dim=16, dim_head=8, heads=2, downsample_factor=(2, 4, 4), "
         "offset_kernel_size=(4, 6, 6))", "return self.m(x)", "1, 16, 4, 24, 24", _DYNAMIC_VOLUME),
]

if __name__ == "__main__":
    main(MODELS26, "real_zoo26", PINS26)
