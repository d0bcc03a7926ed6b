"""A seventy-seventh real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo77.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, in computer vision as a TensorRT user deploys it: one-stage object
detection with the library's own post-processing (decoding against prior shapes on grids made from the feature sizes,
score thresholds, class-wise NMS, a cap per image), semantic segmentation, and instance segmentation by contour
proposals (microscopy cell segmentation, whose post-processing is the hard part of an export). The thirty-first zoo's
pins, pytorch-lightning 2.6.6 with lightning-utilities and torchmetrics as dependencies only (the YOLO module is a
``LightningModule`` and the CPNs mix in its ``HyperparametersMixin``; zoo 68 unpacked the same wheels) and two libraries
by authors whose code no earlier zoo or sweep ran (``PINS77``: unpacked wheels like the others, never pip-installed):
lightning-bolts 0.7.0 (Lightning AI and contributors, github.com/Lightning-AI/lightning-bolts, Apache-2.0; its
YOLO module and networks are Seppo Enarvi's: YOLOv3/v4/v5/v7/X-style networks written in PyTorch with one detection
layer and one post-processing) and CellDetection 0.4.9 (Eric Upschulte, Forschungszentrum Juelich,
celldetection.org, Apache-2.0: Contour Proposal Networks, which regress Fourier contour descriptors
per pixel, sample and refine them and keep the best by box NMS; the wheel is named ``CellDetection``, so that is its
key, as ``fetch_sources`` finds wheels by key).

What the packages import beyond their networks: lightning-bolts 0.7.0 was written for pytorch-lightning 1.x. Its
``pl_bolts`` ``__init__`` imports every datamodule, dataset and model (gym, scikit-learn and more): ``pl_bolts`` and the
subpackages on the way are registered from their import specs without running them (as zoos 72, 74 and 76 did) and the
YOLO module's ``from pl_bolts.datamodules import VOCDetectionDataModule`` is answered by that datamodule's own file.
The YOLO module imports ``LightningCLI`` from ``pytorch_lightning.utilities.cli`` (gone in 2.0; named only for the
module's command line): a placeholder class; its callbacks import ``apply_to_collection`` from
``pytorch_lightning.utilities.apply_func`` (gone in 2.0): lightning-utilities' function under that name, which the
1.x module re-exported. CellDetection's ``__init__`` imports its data, visualisation, MPI and callback modules and
``celldetection.models`` every family (its smp and timm wrappers, Mamba); ``celldetection.util``'s ``__init__`` imports
albumentations for training schedules: all three registered without running them; ``celldetection.util.util`` imports
pynvml (GPU monitoring) and h5py (saving), neither in the venv nor called: empty modules. The wheels have no compiled
code. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the index, the wheels' files and metadata and a first reading of
the imports): saldet 0.6.1 (Riccardo Musmeci's salient object detection: zoo 29 dropped it; its U^2-Net is carvekit's
refactored network of zoo 24, its PFAN downloads VGG-16 weights at construction), fastface 0.1.4 (Omer Borhan's LFFD
face detector on pytorch-lightning 1.8: zoo 36 dropped it, LFFD is zoo 14's), backgroundremover 0.4.5 (U^2-Net again),
anime-face-detector 0.1.0 and depth-anything-v2 0.1.0 (no wheel the venv's pip accepts), fcos 0.9.8 (no wheel), dpt
1.2.3 (a deployment tool, no model), detecto 1.2.2 (torchvision's Faster R-CNN), cellseg-models-pytorch (zoo 29: NumPy
and SciPy post-processing). Within lightning-bolts: the Faster R-CNN and RetinaNet modules (torchvision's, zooed), the
Darknet-configuration network (it reads a ``.cfg`` file the wheel does not ship), the GAN, VAE, self-supervised and RL
models, and, after the first eager runs, YOLOv4-P6 and YOLOv7 (dropped before any migrate run: with random weights
some of their detection layers' box logits reach 150 to 370, and ``torch.exp`` of them gives infinite boxes; the
library's other YOLO networks stay finite). Within CellDetection: the backbone families wrapping smp, timm and Mamba,
the large ResNet/ResNeXt/ConvNeXt variants (one of each design kept), the 3-D models, and CpnMobileNetV3SmallFPN
(dropped after its first eager run: its constructor's ``update_model_hparams_`` reads ``hparams`` from the
MobileNetV3 backbone, which has none, an ``AttributeError``).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 76 or
in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(lightning-bolts' ``DetectionLayer``: the anchors per cell by ``int(torch.div(...))`` of the channel count and a Python
``if`` raising when it differs from the prior shapes, ``view`` by the feature sizes, ``global_xy`` (a
``torch.jit.script`` function, decorated so for the library's own ONNX export) making grids from the feature size and
the image size (a tensor made from the input's shape), ``torch.tensor`` of the prior shapes on every call, ``torch.exp``
box sizes and torchvision's ``box_convert``; the YOLO module's ``validate_batch`` (``isinstance`` checks, a raise in
training), ``torch.cat`` of the layers' outputs, and ``process_detections``: per image a ``nonzero`` of the scores above
the threshold (a box duplicated per class above it), advanced indexing, torchvision's ``batched_nms`` (the stand-in) and
a slice to the cap, then the service's Python loop over the images concatenating rows with ``torch.full_like`` image
indices; YOLOX's decoupled head; the U-Net's ``F.pad`` of the upsampled features by the size difference to the skip,
computed in Python from the shapes. CellDetection's CPN: the score map by sigmoid or softmax, a Python ``if`` chain on
the score channels, ``view`` of the Fourier map by its shape, ``downsample_labels`` by the feature size,
``rel_location2abs_location`` and ``fouriers2contours`` with caches keyed by the sizes' strings (and trimmed when full),
``torch.where`` on the foreground mask and advanced indexing by its indices (the number of proposals is data-dependent),
contours rescaled by the ratio of Python sizes, ``local_refinement`` iterating four times (a Python loop over
``torch.arange``) with the contour points rounded, clamped in place and cast to ``long`` to index the refinement map,
boxes from contour minima and maxima behind an ``if numel() > 0``, ``resolve_batch_index`` splitting the flat proposals
per image by a mask in a Python loop, and ``batched_box_nmsi`` calling ``torch.ops.torchvision.nms`` per image in
another). lightning-bolts (3 classes, say person, car and bicycle; the YOLO module's thresholds: confidence 0.2, IoU
0.45, at most 100 detections per image): YOLOv4-tiny (width 16; 1.28 M parameters), YOLOv4 (CSPDarknet and PAN at widths
16 to 512; 20.7 M) and YOLOv5 (width 16, depth 1; 1.77 M), each with the module's post-processing, rows of (x1, y1, x2,
y2, score, class, image) for the batch; YOLOX (width 16, depth 1; 2.23 M) with its raw decoded detections (images,
anchors, 4 + 1 + 3) as a service that runs its own NMS exports it; the U-Net (5 levels from 16 features,
transposed-convolution upsampling, 4 classes, softmax; 1.94 M). CellDetection (order 5, 32 contour samples, NMS at IoU
0.2, score threshold 0.55 rather than the library's default 0.9, so that random weights give proposals; 2 classes,
refinement on): CPNs on its U-Net 22 (31.6 M), slim U-Net 22 (7.9 M), residual U-Net (33.0 M), ResNet-18 FPN (27.2 M)
and ResNet-18 U-Net (20.1 M) backbones; each returns the refined contours (instances, 32, 2), boxes (instances, 4),
scores and the image index of each instance, the images' instances concatenated.

Each has the dynamic axes a deploying user declares: batch, height and width (the networks take any size; the YOLO
networks' strides are 32, sizes checked are multiples of 32). Inputs are RGB in [0, 1): (2, 3, 128, 128) for the
detectors, (2, 3, 96, 96) for the U-Net and the CPNs. Set-valued outputs: the detection rows and the CPN instances are
sets (their order follows scores, ties possible); not declared ``unordered`` since their count varies.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS77`` and ``make_zoo``, each model in its own process with one thread on the two cores shared with other sessions:
at the spec's size, one more in the batch and larger sizes (detectors and U-Net at 3x128x128, 2x256x192 and
1x320x320; CPNs at 3x96x96, 2x192x160 and 1x256x256). All passed: the first image's detection rows or instance boxes
differ from the second's, the raw detectors' and the U-Net's batch rows differ. Imports take 3.9 to 7.7 s (load
varying); builds 0.01 to 1.1 s for lightning-bolts, 0.9 to 6.3 s for the CPNs (the calibration pass included).
Forwards (the second full run of the check): YOLOX 0.02 to 0.04 s, the U-Net 0.05 to 0.17 s, the NMS detectors 0.10 to
0.34 s at the spec's size and one more in the batch but 0.6 to 2.6 s at the larger sizes (the stand-in NMS over the
thousands of boxes above the confidence threshold; the first run, under more load, 0.2 to 5.7 s); the CPNs 0.2 to 1 s
at the spec's size, 0.6 to 5.2 s at 192x160 and 0.7 to 14 s at 256x256 (the slim U-Net 22 CPN with 1154 instances
the slowest). Peak memory 0.5 to 1.3 GB a process for lightning-bolts; 0.8 to 2.1 GB for the CPNs, except the slim
U-Net 22 and residual U-Net CPNs at 256x256 (5.1 and 4.7 GB: the proposals' pairwise NMS and refinement; below 2 GB
at the spec's size). Parameters: the CPNs on the U-Net 22 31.6 M, slim U-Net 22 7.9 M, residual U-Net 33.0 M,
ResNet-18 FPN 27.2 M and ResNet-18 U-Net 20.1 M.
Changed after the first eager runs, before any migrate run: the stand-ins for pynvml and h5py and
``celldetection.util`` registered without its ``__init__``, YOLOv4-P6, YOLOv7 and the MobileNetV3 CPN dropped, the
residual U-Net CPN added in its place. Odd, left as the libraries have them: with random weights every image fills
the 100-detection cap (thousands of boxes pass confidence 0.2), the CPNs propose hundreds of cells in a 96-pixel
image, and every detector's BatchNorm statistics come from the calibration pass (``Spec.calibrate``); the YOLO module
calls ``self.eval()``/``train()`` only in ``infer``, which the service does not use."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins, pytorch-lightning with lightning-utilities and torchmetrics as dependencies only (both
#: libraries' models subclass or mix in its classes; zoo 68 unpacked the same wheels) and two libraries by authors no
#: earlier zoo or sweep ran, all unpacked wheels like the others (never pip-installed): lightning-bolts (the YOLO
#: detectors with their post-processing, and a U-Net) and CellDetection (contour proposal networks).
PINS77 = {**PINS31, "lightning_utilities": "0.15.3", "torchmetrics": "1.9.0", "pytorch_lightning": "2.6.6",
          "lightning_bolts": "0.7.0", "CellDetection": "0.4.9"}

#: The user's inputs: RGB images in [0, 1), (images, 3, height, width).
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'

#: What both import blocks share: registering packages without running their ``__init__`` and empty modules.
_SHARED = '''
import importlib.machinery
import importlib.util
import sys


def _module(name):
    """A module with nothing in it, registered under ``name`` (imported by code the service never calls)."""
    if name not in sys.modules:
        sys.modules[name] = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(name, None))
    return sys.modules[name]


def _without_init(name):
    """The package ``name`` registered from its import spec, its ``__init__`` not run."""
    if name not in sys.modules:
        sys.modules[name] = importlib.util.module_from_spec(importlib.util.find_spec(name))
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, sys.modules[name])
    return sys.modules[name]'''

# ---------------------------------------------------------------------------------------------------------------
# lightning-bolts 0.7.0 was written for pytorch-lightning 1.x: its YOLO module imports ``LightningCLI`` from
# ``pytorch_lightning.utilities.cli`` (for its command line; the module moved in 2.0) and its callbacks import
# ``apply_to_collection`` from ``pytorch_lightning.utilities.apply_func`` (since 2.0 in lightning-utilities, where
# the 1.x module re-exported it from). ``pl_bolts``' own ``__init__`` imports every datamodule, dataset and model
# (gym, scikit-learn and more): it and the subpackages on the way are registered without running them, and the
# YOLO module's ``from pl_bolts.datamodules import VOCDetectionDataModule`` is answered by that datamodule's file.
_BOLTS = _SHARED + '''


import pytorch_lightning
from lightning_utilities.core.apply_func import apply_to_collection


class LightningCLI:
    """pytorch-lightning 1.x's command-line class, which the YOLO module names only for its ``__main__``."""


_module("pytorch_lightning.utilities.cli").LightningCLI = LightningCLI
_module("pytorch_lightning.utilities.apply_func").apply_to_collection = apply_to_collection
for _package in ("pl_bolts", "pl_bolts.callbacks", "pl_bolts.datamodules", "pl_bolts.models",
                 "pl_bolts.models.detection", "pl_bolts.models.vision"):
    _without_init(_package)
from pl_bolts.datamodules.vocdetection_datamodule import VOCDetectionDataModule

sys.modules["pl_bolts.datamodules"].VOCDetectionDataModule = VOCDetectionDataModule
from pl_bolts.models.detection.yolo.torch_networks import YOLOV4Network, YOLOV4TinyNetwork, YOLOV5Network, YOLOXNetwork
from pl_bolts.models.detection.yolo.yolo_module import YOLO
from pl_bolts.models.vision.unet import UNet

#: A small detector's classes (say, person, car, bicycle) and the YOLO module's thresholds as a service sets them.
CLASSES, CONFIDENCE, IOU, KEEP = 3, 0.2, 0.45, 100


def detector(network):
    """The YOLO LightningModule around one of the library's networks, with the service's thresholds."""
    return YOLO(network, confidence_threshold=CONFIDENCE, nms_threshold=IOU, detections_per_image=KEEP)


class Detections(torch.nn.Module):
    """A detection service as the YOLO module's ``predict_step`` runs it: the network's boxes, confidences and class
    probabilities for the batch, then ``process_detections`` (scores above the threshold, class-wise NMS, the
    best ``KEEP``) per image; the images' rows concatenated as (x1, y1, x2, y2, score, class, image)."""

    def __init__(self, yolo):
        super().__init__()
        self.yolo = yolo

    def forward(self, images):
        rows = []
        for index, found in enumerate(self.yolo.process_detections(self.yolo(images))):
            image = torch.full_like(found["scores"], index)
            rows.append(torch.cat([found["boxes"], found["scores"][:, None],
                                   found["labels"][:, None].to(found["boxes"].dtype), image[:, None]], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# CellDetection 0.4.9: the package ``__init__`` imports its data, visualisation, MPI and callback modules
# (scikit-image, h5py, seaborn, mpi4py, albumentations) and ``celldetection.models`` every model family (its
# segmentation-models-pytorch and timm wrappers, Mamba): both registered without running them, and the CPN module
# imported directly (it imports the U-Net, FPN, ResNet, MobileNetV3 and MA-Net backbones it builds on).
_CELLS = _SHARED + '''


# The utilities module imports NVML's bindings (GPU monitoring) and h5py (saving): empty modules.
for _absent in ("pynvml", "h5py"):
    _module(_absent)
for _package in ("celldetection", "celldetection.models", "celldetection.util"):
    _without_init(_package)
from celldetection.models import cpn

#: A contour proposal network as its inference script runs it: contours of order 5 sampled at 32 points, NMS at
#: IoU 0.2, and a score threshold that keeps proposals from random weights (the library's default is 0.9).
CPN_SETTINGS = dict(order=5, samples=32, nms_thresh=0.2, score_thresh=0.55)


class Instances(torch.nn.Module):
    """A cell segmentation service: the CPN's refined contours, their boxes and scores per image after NMS, the images'
    instances concatenated with the image index beside them."""

    def __init__(self, network):
        super().__init__()
        self.network = network

    def forward(self, images):
        out = self.network(images)
        index = torch.cat([torch.full_like(scores, i) for i, scores in enumerate(out["scores"])])
        return (torch.cat(list(out["contours"])), torch.cat(list(out["boxes"])), torch.cat(list(out["scores"])),
                index)'''

MODELS77 = [
    # lightning-bolts: YOLO detectors (the module's post-processing) and a U-Net.
    Spec("bolts_yolov4_tiny_nms", "lightning-bolts YOLOv4-tiny with the YOLO module's NMS (3 classes)", _BOLTS,
         "Detections(detector(YOLOV4TinyNetwork(num_classes=CLASSES, width=16)))", "return self.m(x)",
         "2, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    Spec("bolts_yolov4_nms", "lightning-bolts YOLOv4 (CSPDarknet, PAN) with the YOLO module's NMS", _BOLTS,
         "Detections(detector(YOLOV4Network(num_classes=CLASSES, widths=(16, 32, 64, 128, 256, 512))))",
         "return self.m(x)", "2, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    Spec("bolts_yolov5_nms", "lightning-bolts YOLOv5 with the YOLO module's NMS", _BOLTS,
         "Detections(detector(YOLOV5Network(num_classes=CLASSES, width=16, depth=1)))", "return self.m(x)",
         "2, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    Spec("bolts_yolox", "lightning-bolts YOLOX (decoupled anchor-free head), raw detections", _BOLTS,
         "detector(YOLOXNetwork(num_classes=CLASSES, width=16, depth=1))", "return self.m(x)", "2, 3, 128, 128",
         _BHW, calibrate="self.m(xb)"),
    Spec("bolts_unet", "lightning-bolts U-Net (5 levels, transposed-convolution upsampling, 4 classes)", _BOLTS,
         "UNet(num_classes=4, num_layers=5, features_start=16)", "return self.m(x).softmax(1)", "2, 3, 96, 96",
         _BHW),
    # CellDetection: contour proposal networks (instance segmentation of cells).
    Spec("celldetection_cpn_u22", "CellDetection CPN with its U-Net 22 backbone (contours, refinement, NMS)", _CELLS,
         "Instances(cpn.CpnU22(in_channels=3, **CPN_SETTINGS))", "return self.m(x)", "2, 3, 96, 96", _BHW,
         calibrate="self.m(xb)"),
    Spec("celldetection_cpn_resnet18_fpn", "CellDetection CPN with a ResNet-18 FPN backbone", _CELLS,
         "Instances(cpn.CpnResNet18FPN(in_channels=3, **CPN_SETTINGS))", "return self.m(x)", "2, 3, 96, 96", _BHW,
         calibrate="self.m(xb)"),
    Spec("celldetection_cpn_resnet18_unet", "CellDetection CPN with a ResNet-18 U-Net backbone", _CELLS,
         "Instances(cpn.CpnResNet18UNet(in_channels=3, **CPN_SETTINGS))", "return self.m(x)", "2, 3, 96, 96", _BHW,
         calibrate="self.m(xb)"),
    Spec("celldetection_cpn_slim_u22", "CellDetection CPN with its slim U-Net 22 backbone", _CELLS,
         "Instances(cpn.CpnSlimU22(in_channels=3, **CPN_SETTINGS))", "return self.m(x)", "2, 3, 96, 96", _BHW,
         calibrate="self.m(xb)"),
    Spec("celldetection_cpn_resunet", "CellDetection CPN with its residual U-Net backbone", _CELLS,
         "Instances(cpn.CpnResUNet(in_channels=3, **CPN_SETTINGS))", "return self.m(x)", "2, 3, 96, 96", _BHW,
         calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS77, "real_zoo77", PINS77)
