"""A fifty-fourth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo54.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on optical flow (RAFT-style correlation volumes and iterative refinement,
PWC-style warping and cost volumes, flow upsampling, occlusion and confidence maps): the thirty-first zoo's pins and two
libraries by two other authors, whose code no earlier zoo or sweep ran, with the training framework one of them builds
its models on (``PINS54``: unpacked wheels like the others, never pip-installed): ptlflow 0.4.2 (Henrique Morimitsu,
github.com/hmorimitsu/ptlflow: some forty-five optical flow architectures (90 registered variants) ported from their
authors' code behind one BaseModel, which pads (InputPadder) or resizes (InputScaler, sizes by ``math.ceil`` of Python
floats) the (batch, 2, 3, H, W) frames to the model's stride and undoes it on the outputs, adding and multiplying colour
constants made tensors by ``bgr_val_as_tensor``; correlation without the compiled spatial-correlation-sampler and
alt_cuda_corr, which it falls back from in pure PyTorch: IterSpatialCorrelationSampler, a Python loop over the patch's
displacements, and IterativeCorrBlock, ``grid_sample`` of every patch offset around translated coordinates; PWC-Net's,
IRR-PWC's and FastFlowNet's cost volumes and warps with validity masks; GMFlow's global matching softmax, swin attention
with shifted-window masks built from the size by slice assignment and its forward-backward consistency check; RAFT's
``forward_interpolate`` (NumPy and SciPy's ``griddata`` on the flow's values) for warm starts; HD3's match densities
decoded by max-pool indices and ``gather``; LiteFlowNet3's confidences and unfold-based regularisation) with lightning
2.6.6, lightning-utilities 0.15.3 and torchmetrics 1.9.0 (Lightning AI, github.com/Lightning-AI/lightning,
github.com/Lightning-AI/utilities and github.com/Lightning-AI/torchmetrics: ptlflow's BaseModel is a LightningModule,
calls ``save_hyperparameters`` and keeps torchmetrics metrics, so every model imports and builds them) and jsonargparse
4.53.0 (Mauricio Villegas, github.com/mauvilsa/jsonargparse: ptlflow imports it at package import), and sstm-flow 0.1.4
(Fisseha A. Ferede, github.com/Fisseha21/SSTM-torch and github.com/Computational-Ocularscience/SSTM: SSTM, multi-frame
flow on three frames; RAFT's encoder over the frames stacked in the batch and split back, two all-pairs correlation
pyramids sampled by a ``bilinear_sampler`` normalising by the size, GMA attention, a 3D separable ConvGRU over both
flows' states, an error block warping features by ``grid_sample`` with validity masks set by boolean index assignment,
convex upsampling, its InputPadder padding by replication to multiples of 8 from Python on the sizes). ptlflow asks for
einops below 0.9, loguru below 0.8, opencv-python, pandas below 3.1, h5py, plotly, kaleido, pypng, tabulate, tensorboard
and timm below 1.1; it runs here with the venv's einops 0.8.2, loguru 0.7.3, opencv-python-headless and pandas 3.1.1,
the pinned timm 1.0.31 and torchvision 0.29.1 of the earlier zoos, and without h5py, plotly, kaleido, pypng, tabulate
and tensorboard, which nothing these models run imports; lightning's fsspec, PyYAML and packaging come from the venv;
sstm-flow's NumPy, OpenCV, SciPy and einops too. Nothing new in the ``bench`` extra, and no stand-in module: everything
imports as shipped.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): ezflow 0.2.5
(neu-vig: PWC-Net, RAFT, DICL, VCN; its config module subclasses fvcore's CfgNode, which its models are built with, and
fvcore has no wheel on the index, as zoo 28 found), localcorr 0.1.1 (Henrique Morimitsu again: correlation kernels for
Triton, CUDA and TensorRT), scalenet 0.1.0 (Sergiy Popovych: a generic multiscale module, SpyNet among its examples, no
flow networks of its own), flownets 0.0.6 (Tommaso Giacometti: U-Nets, not optical flow); fastflownet and
inverse-optical-flow (pip finds no distribution); and, in the package index only, not downloaded: mmflow (OpenMMLab, on
mmcv's compiled ops), tf-raft (TensorFlow), pwcnet (its correlation is a CuPy kernel, as zoo 28 found) and
bucketed-scene-flow-eval (an evaluation toolkit, no networks). No pure-Python scene-flow network library with a wheel
turned up in the index, so scene flow is represented only by SSTM's flows over three frames. Already pinned or used:
torchvision's RAFT (zoo 2), pytorchcv's RAFT (zoo 14), transformers' Perceiver IO flow (zoo 16), ccrestoration's SpyNet
and ccvfi's IFNet (zoo 24), oflibpytorch (zoo 26). ptlflow was dropped by zoos 14 and 21 for lightning, jsonargparse and
loguru: loguru is in the venv now, and the other two (with lightning's own two) are unpacked wheels here, as zoo 53 did
for gymnasium. Within ptlflow: SCV (faiss or the compiled torch-scatter), SplatFlow (its softmax splatting is a CuPy
kernel), MaskFlowNet and MaskFlowNet-S (torchvision's compiled deform_conv2d, which the torchvision stand-in does not
define), the models whose size or weights do not fit a CPU zoo (VideoFlow, MemFlow and MemFOF over many frames, WAFT,
FlowSeek and DPFlow on large pretrained backbones, FlowFormer), RAFT itself (in zoos 2 and 14), ptlflow's own
``warm_start`` (it keeps the previous prediction in ``self.prev_preds``, so two forwards on the same input differ: the
warm starts here take the previous flow as an input instead); VCN-small was chosen first and replaced by FastFlowNet
after its first eager run, before any migrate run: its PSPNet's pyramid pooling fails below 256 pixels a side (a zero
pooled size: an OverflowError at 64 px, a size mismatch at 128x128, 128x192 and 192x256) and one forward at 256 px took
3.1 s on one thread.

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 53 or
in the library sweeps (benchmarks/sweep_*.py), all 10 from the two new libraries and all of the kinds that most often
need work for an ONNX or TensorRT deployment (Python loops over displacements, levels and iterations, sizes read as
Python ints and floats for padding, resizing and flow scales, ``grid_sample`` warps with validity masks, masks set by
index assignment, all-pairs correlation volumes reshaped by the size, shifted-window masks built by slice assignment,
max-pool indices and gathers, ``index_select``, NumPy and SciPy's ``griddata`` on tensors' values, per-batch-element
Python loops). From ptlflow, random weights, each called as ptlflow's models are called (a dict with "images", a dict of
outputs back): PWC-Net (PWCDCNet); IRR-PWC with forward and backward flows and occlusion maps; GMFlow with refinement
(64 channels, 2 transformer layers) predicting both directions, occlusions by GMFlow's forward-backward consistency
check; SEA-RAFT-S with smaller widths and the pure-PyTorch IterativeCorrBlock (``alternate_corr``); RAPIDFlow (smaller
widths, 4 iterations) warm-started from the user's previous flow (``prev_flows``: resized, rescaled and
forward-interpolated by SciPy per batch element); HD3 with context on its VGG encoder; FastFlowNet; LiteFlowNet3 with
its confidence map. From sstm-flow, random weights, as its inference module runs it (frames times 255, its InputPadder,
test mode, the flows unpadded): SSTM on three frames (both flows, full size and 1/8, 3 iterations); SSTM on a pair as
``infer_flow_pair`` runs it (the second frame repeated as the third) warm-started by ``flow_init`` from the user's
previous flow pooled to 1/8.

Each has the dynamic axes a deploying user of a flow network declares: batch, height and width (the models pad or resize
to their strides inside). The inputs are the user's (batch, channels, height, width) tensors in [0, 1): two frames as 6
channels (three as 9 for the SSTM triplet), and for the warm starts a previous flow as two more channels, scaled to +-4
pixels. The sizes are the smallest the architectures take with every pyramid level at least two pixels: at 64 px the
stride-64 models (PWC-Net, HD3) and SSTM (its coarsest correlation level 1/64) give non-finite flows (the correlation
samplers of both libraries normalise coordinates by the size minus one, zero there), so PWC-Net, HD3 and FastFlowNet run
at 96x128 (resized to 128x128), SSTM at 124x140 and 126x132 (padded to 128x144 and 128x136), SEA-RAFT with 3 correlation
levels at 64x96, the others at 64x64. No BatchNorm calibration (no top-k, sort or NMS over the outputs, no ties: the
BatchNorms of HD3, SEA-RAFT and SSTM run with their default statistics); no output set-valued. The wrappers were checked
only for building and running eagerly (deterministic over two forwards, finite outputs) before the first migrate run,
with a source tree unpacked by ``fetch_sources`` from ``PINS54`` and ``make_zoo``: at the spec's size, one more in the
batch, 16 more rows and 32 more columns, and both; with one thread on the shared two cores, each in its own process
(load average 2.5 to 4.2 from other sessions), the best of two forwards at the spec's size took 0.15 to 1.9 s (RAPIDFlow
0.15, SEA-RAFT 0.20, GMFlow 0.36, FastFlowNet 0.40, LiteFlowNet3 0.41, HD3 0.46, PWC-Net 0.56, IRR-PWC 1.05, the SSTM
pair 1.06 and triplet 1.87) and at most 4.1 s at the larger sizes (IRR-PWC at a batch of 2 of 80x96); builds (imports
included) took 7.8 and 10.7 s for SSTM and 20 to 49 s for ptlflow, whose package import brings in all of its model
modules, lightning, torchmetrics and timm. Changed after the first eager runs, before any migrate run: the sizes above
(from 64 px for all, non-finite or failing as said), SEA-RAFT's ``block_dims`` a list (its encoder scales them in place,
so a tuple raises), its correlation levels from 4 to 3 (IterativeCorrBlock pools the 1/8 features once a level: the
fourth pooling of an 8-row map is empty) and its size from 64x80 to 64x96, VCN-small replaced by FastFlowNet as said.
Odd, left as the libraries have them: ptlflow prints "xFormers not available" four times and "[!!alt_cuda_corr is not
compiled!!]" once at import, timm warns that ``timm.models.layers`` is deprecated (imported by ptlflow's models);
SEA-RAFT's encoder scales the ``block_dims`` it is given in place; ptlflow's registry imports every model module at
package import, so one model's build pays for all; with random weights GMFlow's flows are tens of pixels at 64 px and
its consistency check marks nearly every pixel occluded (mean 0.999), LiteFlowNet3's confidences are all close to 0.5
and HD3's flows are hundreds of pixels; SSTM's ``if itr+1%4==0`` is never true (``%`` binds first), so the context
features it keeps every fourth iteration are never added back."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and two libraries by two other authors, unpacked wheels like the others (never
#: pip-installed), with the training framework one of them builds its models on: ptlflow (Henrique Morimitsu's
#: PyTorch Lightning Optical Flow: some forty-five optical flow architectures behind one BaseModel, each padding or
#: resizing its frames to its stride and back; PWC-Net's, IRR-PWC's and FastFlowNet's warping and cost volumes,
#: GMFlow's global matching, SEA-RAFT's and RAPIDFlow's recurrent refinement over correlation volumes, HD3's discrete
#: distributions, LiteFlowNet3's confidences, occlusion maps), lightning, lightning-utilities and torchmetrics (the
#: Lightning AI team: ptlflow's BaseModel is a LightningModule and keeps torchmetrics metrics), jsonargparse (Mauricio
#: Villegas: ptlflow imports it at package import) and sstm-flow (Fisseha Ferede's SSTM: spatio-temporal recurrent
#: multi-frame optical flow on three frames, RAFT-style correlation pyramids, GMA attention, a warping error block,
#: a 3D separable ConvGRU).
PINS54 = {**PINS31, "lightning_utilities": "0.15.3", "torchmetrics": "1.9.0", "lightning": "2.6.6",
          "jsonargparse": "4.53.0", "ptlflow": "0.4.2", "sstm_flow": "0.1.4"}

#: The user's frames: (batch, channels, height, width) in [0, 1), two or three RGB frames as channel thirds, some
#: with a previous flow as two more channels; batch, height and width are what a deploying user declares dynamic.
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'

# ---------------------------------------------------------------------------------------------------------------
# ptlflow: optical flow networks built from its model classes (random weights, some with smaller widths), called as
# its infer script calls them: a dict with "images" of (batch, 2, 3, H, W) frames in [0, 1), a dict of outputs back.
_PTL = '''import torch.nn.functional as F
from ptlflow.models.pwcnet.pwcnet import pwcnet
from ptlflow.models.irr.irr_pwc import irr_pwc
from ptlflow.models.gmflow.gmflow import gmflow_refine
from ptlflow.models.gmflow.geometry import forward_backward_consistency_check
from ptlflow.models.sea_raft.sea_raft import sea_raft_s
from ptlflow.models.rapidflow.rapidflow import rapidflow
from ptlflow.models.hd3.hd3 import hd3_ctxt
from ptlflow.models.fastflownet.fastflownet import fastflownet
from ptlflow.models.liteflownet.liteflownet3 import liteflownet3


def frame_pair(x):
    """The user's two frames, the first six channels of x, as ptlflow's (batch, 2, 3, H, W) images."""
    return torch.stack([x[:, :3], x[:, 3:6]], dim=1)


class GMFlowOcclusions(torch.nn.Module):
    """GMFlow with refinement (global matching at 1/8, local matching of radius 4 at 1/4 after warping, swin
    attention over 2 and 8 splits, flow propagation by self-attention, convex upsampling) predicting forward and
    backward flows; occlusion masks of both by GMFlow's forward-backward consistency check."""

    def __init__(self):
        super().__init__()
        self.flow = gmflow_refine(feature_channels=64, num_transformer_layers=2, ffn_dim_expansion=2,
                                  pred_bidir_flow=True)

    def forward(self, x):
        flows = self.flow({"images": frame_pair(x)})["flows"][:, 0]
        forward_flow, backward_flow = flows.chunk(2, dim=0)
        forward_occ, backward_occ = forward_backward_consistency_check(forward_flow, backward_flow)
        return forward_flow, backward_flow, forward_occ, backward_occ


class RAPIDFlowWarmStart(torch.nn.Module):
    """RAPIDFlow (NeXt1D encoders, pyramid refinement from 1/32 to 1/8, all-pairs correlation) warm-started from the
    flow of the previous frame pair, which the user keeps and passes as its two last channels (pixels, +-4)."""

    def __init__(self):
        super().__init__()
        self.flow = rapidflow(iters=4, enc_hidden_chs=32, enc_out_chs=64, enc_depth=2, dec_net_chs=32,
                              dec_inp_chs=32, dec_motion_chs=64, dec_depth=1)

    def forward(self, x):
        previous = (x[:, 6:8] * 8 - 4)[:, None]
        return self.flow({"images": frame_pair(x), "prev_flows": previous})["flows"][:, 0]'''

_PTL_FLOW = 'return self.m({"images": frame_pair(x)})["flows"][:, 0]'

# ---------------------------------------------------------------------------------------------------------------
# sstm-flow: SSTM (random weights) as its inference module runs it: frames in [0, 255], padded by its InputPadder to
# multiples of 8, test mode, the upsampled flows unpadded.
_SSTM = '''import argparse
import torch.nn.functional as F
from sstm.core.sstm import SSTM
from sstm.core.utils.utils import InputPadder


def sstm_model():
    """SSTM with the arguments sstm.inference gives by default (one attention head, no mixed precision)."""
    return SSTM(argparse.Namespace(mixed_precision=False, alternate_corr=False, num_heads=1, position_only=False,
                                   position_and_content=False))


class SSTMTriplet(torch.nn.Module):
    """SSTM on three frames (the 9 channels of x): the flows from the first to the second frame and from the second
    to the third, at full size and at 1/8, after 3 iterations."""

    def __init__(self):
        super().__init__()
        self.flow = sstm_model()

    def forward(self, x):
        frames = [x[:, 3 * i:3 * i + 3] * 255 for i in range(3)]
        padder = InputPadder(frames[0].shape)
        low12, low23, up12, up23 = self.flow(*padder.pad(*frames), iters=3, test_mode=True)
        return padder.unpad(up12), padder.unpad(up23), low12[-1], low23[-1]


class SSTMPairWarmStart(torch.nn.Module):
    """SSTM on a pair as sstm.inference.infer_flow_pair runs it (the second frame repeated as the third), warm-started
    from the previous pair's flow the user passes as x's two last channels (pixels, +-4), pooled to 1/8 as SSTM's
    flow_init; the flow at full size and at 1/8 after 3 iterations."""

    def __init__(self):
        super().__init__()
        self.flow = sstm_model()

    def forward(self, x):
        first, second, previous = x[:, :3] * 255, x[:, 3:6] * 255, x[:, 6:8] * 8 - 4
        padder = InputPadder(first.shape)
        first, second, previous = padder.pad(first, second, previous)
        flow_init = F.avg_pool2d(previous, 8) / 8
        low, _, up, _ = self.flow(first, second, second, iters=3, flow_init=flow_init, test_mode=True)
        return padder.unpad(up), low[-1]'''

MODELS54 = [
    # ptlflow: two-frame optical flow networks (random weights).
    Spec("ptl_pwcnet_dc_cost_volume", "ptlflow PWC-Net (PWCDCNet): frames resized to a multiple of 64 and back, "
         "six-level feature pyramid, cost volumes by IterSpatialCorrelationSampler (a loop over the 81 "
         "displacements), the second features warped by grid_sample with a validity mask, dense decoders, dilated "
         "context network", _PTL, "pwcnet()", _PTL_FLOW, "1, 6, 96, 128", _BHW),
    Spec("ptl_irr_pwc_bidirectional_occlusion", "ptlflow IRR-PWC: one shared decoder applied iteratively over the "
         "pyramid, forward and backward flows, cost volumes over 81 shifts (a Python loop of slices), warping with "
         "validity masks, flow scales from the sizes as Python floats, occlusion estimators, bilateral refinement of "
         "flows and occlusions, occlusions upsampled by a residual network; flows and occlusion maps both ways",
         _PTL, "irr_pwc()",
         'out = self.m({"images": frame_pair(x)})\n        '
         'return out["flows"][:, 0], out["occs"][:, 0], out["flows_b"][:, 0], out["occs_b"][:, 0]',
         "1, 6, 64, 64", _BHW),
    Spec("ptl_gmflow_refine_fb_occlusion", "ptlflow GMFlow with refinement (64 channels, 2 transformer layers): "
         "global matching softmax at 1/8, local matching at 1/4 after warping, swin attention with shifted-window "
         "masks built from the size, bidirectional flows and GMFlow's forward-backward consistency check for "
         "occlusions", _PTL, "GMFlowOcclusions()", "return self.m(x)", "1, 6, 64, 64", _BHW),
    Spec("ptl_sea_raft_iterative_corr", "ptlflow SEA-RAFT (small widths, 3 correlation levels, 3 iterations) with "
         "alternate_corr and no compiled alt_cuda_corr: IterativeCorrBlock's translated correlation (grid_sample of "
         "every patch offset per pyramid level), ResNet encoders, convex upsampling of the flow and its "
         "mixture-of-Laplace parameters; the full-size and 1/8 flows", _PTL,
         "sea_raft_s(dim=64, initial_dim=32, block_dims=[32, 48, 64], corr_levels=3, corr_radius=3, iters=3, "
         "alternate_corr=True)",
         'out = self.m({"images": frame_pair(x)})\n        return out["flows"][:, 0], out["flow_small"]',
         "1, 6, 64, 96", _BHW),
    Spec("ptl_rapidflow_warm_start", "ptlflow RAPIDFlow (NeXt1D encoders, 4 iterations from 1/32 to 1/8) warm-"
         "started from the user's previous flow: resized, rescaled and forward-interpolated by RAFT's "
         "forward_interpolate (NumPy, SciPy griddata) per batch element", _PTL, "RAPIDFlowWarmStart()",
         "return self.m(x)", "1, 8, 64, 64", _BHW),
    Spec("ptl_hd3_context_discrete", "ptlflow HD3 with context (VGG encoder): per-level cost volumes as 9x9 "
         "match densities, decoded to flow by density2vector (max-pool indices, gathers of the four corner "
         "probabilities), the target features warped by the upsampled flow", _PTL,
         'hd3_ctxt(encoder="vgg")', _PTL_FLOW, "1, 6, 96, 128", _BHW),
    Spec("ptl_fastflownet_center_dense_corr", "ptlflow FastFlowNet: frames centred by their mean colour (a tensor "
         "added through preprocess_images) and resized to a multiple of 64, head-enhanced pooling pyramid, center "
         "dense dilated correlation (an 81-shift cost volume narrowed by index_select to 53 channels), warping by "
         "grid_sample, shuffle-block decoders", _PTL, "fastflownet()", _PTL_FLOW, "1, 6, 96, 128", _BHW),
    Spec("ptl_liteflownet3_confidence", "ptlflow LiteFlowNet3: cascaded flow inference with cost volume "
         "modulation by confidence, flow field deformation by self-correlation, feature-driven local convolution "
         "regularisation (unfold of the flow), flows and confidence maps", _PTL, "liteflownet3()",
         'out = self.m({"images": frame_pair(x)})\n        return out["flows"][:, 0], out["confs"][:, 0]',
         "1, 6, 64, 64", _BHW),
    # sstm-flow: multi-frame SSTM (random weights).
    Spec("sstm_triplet_padded", "sstm-flow SSTM on three frames (RAFT's encoders over the frames stacked "
         "in the batch, two all-pairs correlation pyramids, GMA attention, a 3D separable ConvGRU over both flows' "
         "states, the error block warping features with validity masks set by index assignment), padded to "
         "multiples of 8 by its InputPadder and unpadded", _SSTM, "SSTMTriplet()", "return self.m(x)",
         "1, 9, 124, 140", _BHW),
    Spec("sstm_pair_warm_start", "sstm-flow SSTM on a pair as infer_flow_pair runs it (the second frame as the "
         "third) warm-started from the user's previous flow pooled to 1/8 as flow_init, padded by its InputPadder",
         _SSTM, "SSTMPairWarmStart()", "return self.m(x)", "1, 8, 126, 132", _BHW),
]

if __name__ == "__main__":
    main(MODELS54, "real_zoo54", PINS54)
