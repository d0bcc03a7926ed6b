"""A forty-eighth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo48.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on image restoration and low-level vision beyond super-resolution in pure
PyTorch: the thirty-first zoo's pins and three more libraries by three other authors, whose code no earlier zoo or sweep
ran (``PINS48``: unpacked wheels like the others, never pip-installed): deepinv 0.5.0 (the DeepInverse maintainers:
Julián Tachella, Dongdong Chen, Samuel Hurault, Matthieu Terris, Andrew Wang and others; restoration networks and
denoisers: SCUNet, which pads the bottom and right by ``nn.ReplicationPad2d`` of ``int(np.ceil(h / 64) * 64 - h)``, runs
conv and Swin blocks with 8 x 8 windows shifted with masks and crops back; Restormer's transposed (channel) attention
and PromptIR behind ``test_pad`` (``np.ceil`` of each side over the modulo, a replication pad, a crop back); DRUNet's
noise-level map of the image's size and its branch on the size between no pad, ``test_pad`` to 16 and ``test_onesplit``
(four overlapping quarters); MPRNet's multi-patch hierarchy split at ``int(H / 2)`` and at half the width in Python
lists; PromptIR's prompts weighted by a softmax and ``F.interpolate``-d to each feature map's size and its "safe shape"
branch; the median filter by ``F.pad`` computed from the size, ``Tensor.unfold`` and ``median``; einops, matplotlib,
tqdm and requests from the venv), guided-filter-pytorch 3.7.5 (Huikai Wu: the deep guided filter; box filters by
``cumsum`` along each axis and shifted differences, the pixel counts from ``x.data.new().resize_((1, 1, h,
w)).fill_(1.0)`` under ``torch.autograd.Variable``, size asserts, the fast filter's coefficients ``F.interpolate``-d to
the full image's size) and demosaicnet 0.0.14 (Michaël Gharbi: deep joint demosaicking and denoising; the Bayer mosaic's
mask made with strided index writes and taken through NumPy and back in the forward "for ONNX conversion", the X-Trans 6
x 6 cell built in a Python loop of index writes and repeated over the batch and ``np.ceil`` of the size over 6, valid
convolutions, and ``_crop_like``, which crops the mosaic to the features' size computed in NumPy behind a branch on the
NumPy crop).

Considered and dropped before any model was chosen (by the wheel's files and metadata, or a first look at the code):
FBA_Matting 1.0.1 (Marco Forte and François Pitié: FBA matting, the network carvekit's FBA already brought to zoo 24; it
pins numpy 1.24 and opencv-python 4.7), light-side 0.1.0 (Oguzcan Turan: Zero-DCE low-light enhancement in a Lightning
module, pinning torch 1.9, pytorch-lightning 1.7 and scikit-learn; zoo 39 dropped zero-dce for having nothing
size-dependent), uformer-pytorch 0.0.8 (Phil Wang, whose libraries earlier zoos pin: not read further, three other
authors were found), distilaide (not downloaded: by its summary a training front end for deepinv's models),
guided-filter-tf (TensorFlow), the ONNX-only and VapourSynth plug-ins the index lists (photo-s-plugin-scunet, vsswinir,
vsdenoise: no PyTorch modules), and the libraries zoos 15 to 46 dropped or used, as they found (zero-dce, nafnetlib,
lama-cleaner, IOPaint, simple-lama-inpainting, codeformer-pip and compressai dropped; ccrestoration, spandrel, torchsr,
dblur, carvekit and segmentation_refinement pinned); within the chosen libraries: deepinv's TVDenoiser (it keeps its
last primal and dual variables and warm-starts the next call of the same shape: two forwards of one input differ),
WaveletDenoiser and WaveletDictDenoiser (they import ptwt, not in the venv), BM3D (the bm3d package, compiled), SwinIR,
FFDNet, DnCNN, GSDRUNet, EPLL and the diffusion networks (not chosen: six deepinv models were enough, SCUNet's windows
standing for SwinIR's), every ``pretrained="download"`` default (set to ``None``: random weights, no download);
guided-filter-pytorch's ConvGuidedFilter (not chosen: two of its filters were enough; its BatchNorm would need
calibrating); demosaicnet's shipped weights (``pretrained=False``: random weights like the rest).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 46 or
in the library sweeps (benchmarks/sweep_*.py), all 10 of the kinds that most often need work for an ONNX or TensorRT
deployment (pads to a multiple computed with ``np.ceil`` and crops back, branches on the size, windows and masks from
the padded size, patches split at ``int(H / 2)``, interpolation to sizes read from the input, ``unfold``, box filters by
``cumsum``, tensors made by ``new().resize_().fill_()``, masks through NumPy in the forward, NumPy crops and repeats
from the size). Restoration with deepinv (random weights): SCUNet (2 blocks a stage, width 64) as a blind denoiser,
Restormer (width 16, one block a level), DRUNet (widths 32 to 256, 2 blocks a scale) at noise level 0.05, MPRNet (16
features, 2 channel-attention blocks a group) for deblurring and deraining, PromptIR (its default width 48, one block a
level) for all-in-one restoration, a 5 x 5 median filter; the deep guided filter with guided-filter-pytorch:
GuidedFilter (radius 4, eps 0.01) smoothing the image under its grey level as the guide, and FastGuidedFilter (radius 2,
eps 0.01) upsampling a small seeded network's enhancement of the image average-pooled by 4 (the user's low-resolution
network, as Deep Guided Filtering trains one); demosaicking and denoising with demosaicnet: BayerDemosaick (depth 15,
width 64, the released architecture, unpadded) and XTransDemosaick (depth 11, width 64, unpadded) on mosaics made in the
forward from the user's RGB image, their outputs smaller than the input (valid convolutions, as released).

Each is small and has the dynamic axes a deploying user declares: batch, height and width for all 10. The inputs are the
user's images in [0, 1); the sizes are ones each network takes: MPRNet raises for sides not a multiple of 8; the X-Trans
mosaic needs multiples of 6 (as the library's demo makes them); the unpadded Bayer network needs sides of at least 64;
PromptIR's "safe shape" test (even and over 31) lets 60 x 52 through to a pixel-unshuffle that fails, so its spec is 48
x 48. No BatchNorm calibration (none of the 10 has BatchNorm). Machinery, table and counts are real_zoo2.py's. The
wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs) at five
sizes (the spec's, a batch of 2, the height 24 larger, the width 24 larger, both 24 larger; for DRUNet the last is past
64 a side, its test_onesplit branch) before the first migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS48`` and ``make_zoo``: with one thread on the shared two cores, each in its own process, in the last round (with
this file; load averages of 2.2 to 2.4 from other sessions), the best of two forwards at the spec's size took 0.010 to
0.219 s for deepinv (0.010 the median filter, 0.031 DRUNet, 0.044 Restormer, 0.059 MPRNet, 0.106 SCUNet, 0.219
PromptIR), 0.001 and 0.002 s for the guided filters and 0.018 and 0.033 s for the Bayer and X-Trans networks; at the
larger sizes at most 0.44 s (PromptIR, a batch of 2; SCUNet 0.407 s at 80 x 72, padded to 128 x 128); builds (imports
included) took 3.3 to 6.5 s. An earlier round with a stand-in tree holding only torchvision and the three new libraries,
at load averages near 2, gave 0.211 s for SCUNet and 0.121 s for PromptIR at the spec's size and at most 0.80 s at the
larger sizes (SCUNet at 80 x 72). Changed after the first eager runs (in a scratch script before the zoo file was
written), before any migrate run: SCUNet at width 64 (at 32 its transformer half of 16 channels is under its head size
of 32 and the attention's rearrange fails); PromptIR at its default width 48 (its prompt blocks' linear sizes are fixed
for 48: width 16 fails) and at 48 x 48 (0.287 s at 64 x 64; 60 x 52 fails as said); DRUNet widened to 32 to 256 with 2
blocks a scale (the first, 16 to 128 with one, took 0.007 s); the X-Trans network at its released width 64 (the first
probe used 32). Warnings seen, left as they are: ``pkg_resources is deprecated`` at demosaicnet's import (setuptools is
under 81 in the ``bench`` extra). Odd, left as the wheel has it: deepinv's wheel also installs top-level ``docs`` and
``examples`` folders (99 Python files of its documentation and demos) into the user's checkout."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): deepinv (the DeepInverse maintainers, Julián Tachella, Dongdong Chen, Samuel Hurault, Matthieu
#: Terris, Andrew Wang and others: restoration networks in pure PyTorch; SCUNet's replication pad to a multiple of 64
#: by ``np.ceil`` of the size and Swin windows with shifted masks, Restormer's transposed (channel) attention behind a
#: pad to a multiple of 8 and a crop back, DRUNet's noise-level map from the size and its branch on the size between
#: no pad, a pad to 16 and a split into four overlapping quarters, MPRNet's multi-patch hierarchy split at
#: ``int(H / 2)``, PromptIR's prompts interpolated to the feature size, the median filter by ``unfold``),
#: guided-filter-pytorch (Huikai Wu: the deep guided filter, box filters by ``cumsum`` and shifted differences, the
#: count map from ``x.data.new().resize_(...).fill_(1)``, the fast filter's coefficients interpolated to the full
#: size) and demosaicnet (Michaël Gharbi: deep joint demosaicking and denoising; Bayer and X-Trans mosaics made in
#: the forward, the Bayer mask through NumPy and back, the X-Trans cell tiled by ``np.ceil`` of the size, valid
#: convolutions and a crop of the mosaic to the features' size computed in NumPy).
PINS48 = {**PINS31, "deepinv": "0.5.0", "guided_filter_pytorch": "3.7.5", "demosaicnet": "0.0.14"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'

# ---------------------------------------------------------------------------------------------------------------
# deepinv: its package imports natsort (its datasets' file lists) and h5py (its HDF5 datasets) at import, neither
# in the venv: the user's module stands in empty ones before importing it, as one without them would.
_DI = '''import sys
import types

sys.modules.setdefault("natsort", types.ModuleType("natsort")).natsorted = sorted
sys.modules.setdefault("h5py", types.ModuleType("h5py"))
from deepinv.models import DRUNet, MPRNet, MedianFilter, PromptIR, Restormer, SCUNet'''

# guided-filter-pytorch: the deep guided filter's layers.
_GF = '''import torch.nn.functional as F
from guided_filter_pytorch.guided_filter import FastGuidedFilter, GuidedFilter'''
#: The user's low-resolution enhancement network for the fast guided filter (seeded random weights): a curve map in
#: (0, 1) a pixel from the downsampled image, as Deep Guided Filtering trains one.
_GF_NET = ("self.net = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), "
           "torch.nn.Conv2d(16, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(16, 3, 3, padding=1), "
           "torch.nn.Sigmoid()).eval()")

# demosaicnet: its package imports its dataset module, which imports imageio (not in the venv) for its readers:
# the user's module stands in an empty one before importing it.
_DM = '''import sys
import types

sys.modules.setdefault("imageio", types.ModuleType("imageio")).imread = None
import demosaicnet'''

MODELS48 = [
    # deepinv: restoration networks (random weights, pretrained=None: no download).
    Spec("dinv_scunet", "deepinv SCUNet (Swin-Conv UNet blind denoiser: a replication pad of the image to a multiple "
         "of 64 by np.ceil of its size, conv and Swin transformer blocks split by channels, 8 x 8 windows shifted by "
         "half a window with masks, 2 blocks a stage, cropped back to the input's size)", _DI,
         "SCUNet(config=(2, 2, 2, 2, 2, 2, 2), dim=64, input_resolution=64, pretrained=None)",
         "return self.m(x)", "1, 3, 56, 48", _BHW),
    Spec("dinv_restormer", "deepinv Restormer (multi-Dconv head transposed attention over channels, gated-Dconv "
         "feed-forward, pixel-unshuffle down and pixel-shuffle up over 4 levels of one block each, behind test_pad: "
         "a replication pad to a multiple of 8 and a crop back)", _DI,
         "Restormer(dim=16, num_blocks=(1, 1, 1, 1), num_refinement_blocks=1, pretrained=None)",
         "return self.m(x)", "1, 3, 60, 52", _BHW),
    Spec("dinv_drunet", "deepinv DRUNet (the DPIR denoiser: a noise-level map of the size of the image concatenated "
         "to it, a residual UNet of 4 scales with strided convolutions and transposed convolutions; a branch on the "
         "size between no pad (multiples of 8 over 31), test_pad to 16 (a side under 64) and a split into four "
         "overlapping quarters), noise level 0.05", _DI,
         "DRUNet(nc=(32, 64, 128, 256), nb=2, pretrained=None)",
         "return self.m(x, 0.05)", "1, 3, 60, 52", _BHW),
    Spec("dinv_mprnet", "deepinv MPRNet (multi-stage progressive restoration for deblurring and deraining: the image "
         "split at int(H / 2) and each half at half its width, stage-1 encoders on the 4 patches merged back, "
         "supervised attention modules, an original-resolution subnetwork; the size checked to be a multiple of 8)",
         _DI, "MPRNet(n_feat=16, scale_unetfeats=8, scale_orsnetfeats=8, num_cab=2, pretrained=None)",
         "return self.m(x)", "1, 3, 64, 64", _BHW),
    Spec("dinv_promptir", "deepinv PromptIR (all-in-one restoration: a Restormer of one block a level with prompt "
         "blocks in the decoder, 5 learned prompts weighted by a softmax of the pooled features and interpolated to "
         "the feature map's size; a branch on the size to test_pad to 16)", _DI,
         "PromptIR(num_blocks=(1, 1, 1, 1), num_refinement_blocks=1, pretrained=None)",
         "return self.m(x)", "1, 3, 48, 48", _BHW),
    Spec("dinv_median", "deepinv MedianFilter (a 5 x 5 median: a reflect pad computed from the size for the same "
         "size, Tensor.unfold over both axes, median over each patch)", _DI,
         "MedianFilter(kernel_size=5)", "return self.m(x)", "1, 3, 64, 64", _BHW),
    # guided-filter-pytorch: the deep guided filter (no weights of its own; the user's low-resolution network seeded).
    Spec("gf_guided_filter", "guided-filter-pytorch GuidedFilter (radius 4, eps 0.01: the image smoothed under its "
         "grey level as the guide; box filters by cumsum and shifted differences, the pixel counts from "
         "x.data.new().resize_((1, 1, h, w)).fill_(1))", _GF, "GuidedFilter(4, 1e-2)",
         "return self.m(x.mean(1, keepdim=True), x)", "1, 3, 64, 64", _BHW),
    Spec("gf_fast_guided_filter", "guided-filter-pytorch FastGuidedFilter (Deep Guided Filtering: a small network's "
         "enhancement of the image average-pooled by 4, radius 2 and eps 0.01 at the low resolution, the linear "
         "coefficients interpolated bilinearly to the full size and applied to the full image)", _GF,
         "FastGuidedFilter(2, 1e-2)",
         "low = F.avg_pool2d(x, 4)\n        return self.m(low, self.net(low), x)", "1, 3, 64, 64", _BHW,
         init=_GF_NET),
    # demosaicnet: deep joint demosaicking and denoising (random weights, pretrained=False: its shipped weights
    # are not read).
    Spec("dm_bayer", "demosaicnet BayerDemosaick (the released network of depth 15 and width 64 on a Bayer mosaic "
         "made in the forward with a mask through NumPy: a 2 x 2 packing convolution, valid convolutions at a "
         "quarter of the resolution, a filter-mask product, a transposed-convolution upsampler, the mosaic cropped "
         "to the residual's size computed with NumPy)", _DM,
         "demosaicnet.BayerDemosaick(pretrained=False)", "return self.m(demosaicnet.bayer(x))", "1, 3, 96, 96",
         _BHW),
    Spec("dm_xtrans", "demosaicnet XTransDemosaick (the released network of depth 11 and width 64 on an X-Trans "
         "mosaic made in the forward: the 6 x 6 cell repeated over the batch and np.ceil of the size over 6, valid "
         "convolutions at full resolution, the mosaic cropped to the features' size computed with NumPy)", _DM,
         "demosaicnet.XTransDemosaick(pretrained=False)", "return self.m(demosaicnet.xtrans(x))", "1, 3, 72, 72",
         _BHW),
]

if __name__ == "__main__":
    main(MODELS48, "real_zoo48", PINS48)
