"""A seventy-third real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo73.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, in computer vision as a TensorRT user deploys it: YOLO-family detectors
with their box decoding and NMS, an oriented-box and an instance-segmentation variant, a corner-pair detector, and a
face pipeline (face detection with anchor priors, landmarks and gaze). The thirty-first zoo's pins and two libraries by
authors whose code no earlier zoo or sweep ran (``PINS73``: unpacked wheels like the others, never pip-installed):
lightnet 4.0.0 (EAVISE, KU Leuven: Tanguy Ophoff and others, gitlab.com/EAVISE/lightnet, MIT: Darknet-style detectors
rebuilt in PyTorch with their post-processing as ``nn.Module`` transforms) and py-feat 2.1.5 (Jin Hyun Cheong, Tiankang
Xie, Sophie Byrne, Eshin Jolly and Luke Chang, Dartmouth's Cosan lab, github.com/cosanlab/py-feat, MIT: facial
expression analysis, with its own copies of RetinaFace, L2CS-Net, MobileFaceNet and PFLD). lightnet's anchor module
imports brambox (EAVISE's box toolkit, used there only to fit anchors to annotations) at import: the user's module
stands it in with an empty module, as zoo 66 did for its optional imports. py-feat's package ``__init__`` imports
xgboost (compiled, not in the venv) and its whole detector: the user's module registers the package from its import spec
without running ``__init__``, as zoos 69 and 72 did, and imports the model modules, which need huggingface_hub (their
hub mixin), NumPy and torchvision (the pinned wheel's Python code; ``batched_nms`` is the zoo's stand-in). pandas
(lightnet's transforms) comes from the venv. The wheels have no compiled code. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files and metadata and a first reading of the
imports): torchseg (a fork of segmentation_models_pytorch, the library zoo 2 unpacked); from lightnet, Yolact
(experimental, and the library has no post-processing for its output: the user would write the decode), YoloV3 and Yolt,
DYolo and the ResNet YOLO (the same anchor head and transforms as the chosen ones), its classification backbones,
losses, engine, pruning and brambox conversion (``TensorToBrambox``, pandas data frames: not tensor code); YoloV4's
DIoU-NMS (``NMS(diou_nms=True)``, its per-image cluster NMS: 63 s for 1743 boxes on one image of 192x256 with random
weights and uncalibrated BatchNorm in a first eager run, so the user's YoloV4 uses the library's plain NMS, as the other
detectors do); from py-feat, img2pose (its constructor wants the released pose mean, deviation and 3-D reference points,
files the package downloads), FaceBoxes and MTCNN (their post-processing moves the boxes to NumPy: FaceBoxes' NMS is
``py_cpu_nms``), the multitask MEGraph model (not read further), ResMaskNet and the StatLearning and xgboost heads
(classifiers behind a detector rather than what a service exports alone), the identity models (embeddings; not read
further), and its ``Detector`` classes (data loaders, pandas ``Fex`` frames, downloads).

11 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 72 or
in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(lightnet's anchor decoding: a ``meshgrid`` of ``arange`` from the output's height and width, the output viewed by
anchors and rewritten in place slice by slice with ``sigmoid_``, ``add_``, ``clamp_`` and ``exp_``, a ``max_value`` from
the log of 1e35 over the anchors, the class softmax under ``no_grad``, a Python ``if`` on ``score_thresh.sum() == 0``
returning an empty tensor, boolean-mask selection of the boxes above the threshold, the batch number of each box from a
mask multiplied by an ``arange`` and indexed by itself; the multi-scale variant running that per output in a Python loop
that sets the scale's stride and anchors as attributes, then combining; the oriented head's angle from ``tanh`` and its
NMS computing axis-aligned extents from ``sin``/``cos`` of the angles; the masked head's mask coefficients, prototypes
gathered by the boxes' batch numbers, a batched matmul, the masks cropped to the boxes and thresholded to bool, the
coefficient columns dropped by a bool column mask; NMS as ``torchvision.ops.batched_nms`` behind ``numel`` checks and a
``memory_limit`` branch on the box count; the corner detector's top-k over the heatmaps, ``//`` and ``%`` of the
indices, ``gather`` of offsets and embeddings, a 100x100 pair grid filtered by class, embedding distance, corner order
and confidence, the batch numbers from a ``uint8`` ``arange``; py-feat's RetinaFace priors made in nested Python loops
over the feature-map sizes, which are ``int(torch.ceil(torch.tensor(size / step)))`` of the input's height and width,
then ``torch.tensor`` of the Python list; box and landmark decoding by slices written in place, ``repeat_interleave`` of
image indices, a confidence mask, a Python ``if`` on the count against a top-k with ``argsort``, ``batched_nms`` and a
final threshold; L2CS's ``if x.max() > 1.5`` rescale and a resize to 224 behind a Python check of the input's size, a
softmax expectation over 90 bins). lightnet (images in [0, 1], random weights, each network behind the user's detector
module, which applies the library's own post-processing modules in sequence: a confidence floor of 0.005, as for
evaluation, so that random weights give detections, then ``NMS(0.45)``; the output is a (boxes, 7) tensor of [image, x,
y, w, h, score, class] rows, variable in length): YoloV2 (VOC anchors, 20 classes; 50.7 M parameters), TinyYoloV3 (COCO
anchors, 80 classes, two scales; 8.85 M), YoloV4 (CSPDarknet53, 80 classes, three scales; 64.4 M), MobilenetYolo
(MobileNet v1 backbone, 20 classes; 15.2 M), the oriented YoloV2 ``O_YoloV2`` (rows of 8 with the angle; 50.7 M), the
masked YoloV2 ``M_YoloV2`` (32 prototypes at stride 16, ``GetMasks(0.5)``: the rows and (boxes, H/16, W/16) bool masks;
58.7 M) and CornerNet-Squeeze (``inference_only``, 20 classes, stride 8, ``GetCornerBoxes`` with an embedding threshold
of 0.5, a confidence floor of 0.05 and the top 100 corners; 28.2 M). py-feat (the face side of an expression or
driver-monitoring service): RetinaFace with the ResNet-34 backbone as its ``Retinaface.forward`` runs it (images in [0,
1] scaled to [0, 255] less the RGB mean, priors for the input's size, boxes and 5-point landmarks decoded to pixels, the
confidence floor of 0.02, the top 5000 times the batch over the whole batch, ``batched_nms`` at 0.4 and the detection
threshold of 0.5; the user returns the kept boxes, scores, landmarks and image indices as tensors where the library
turns them into Python lists; 22.1 M), L2CS-Net with ResNet-50 as ``L2CSPipeline`` runs it on face crops (pitch and yaw
in radians; 23.9 M), and the 68-point landmark regressors on 112-pixel crops, MobileFaceNet (GDC head; 1.01 M) and PFLD
(0.73 M), their outputs reshaped to (faces, 68, 2) and scaled to crop pixels as the detector does.

Each has the dynamic axes a deploying user declares: batch, height and width for the detectors (any multiple of the
network's largest stride: 32, and 128 for CornerNet-Squeeze) and for the gaze model (crops of any size, resized inside
to 224), batch alone for the landmark regressors (their crops are 112 pixels by construction). All inputs are in [0, 1).
Set-valued outputs: the detectors' rows (their count depends on the scores; NMS returns them by descending score).
Outputs: (boxes, 7) rows, (boxes, 8) for the oriented model, rows and bool masks for the masked one; boxes (n, 4),
scores (n,), landmarks (n, 10) and int64 image indices (n,) for RetinaFace; (faces,) pitch and yaw; (faces, 68, 2)
points. Random weights with BatchNorm's default statistics blew up in four models (YoloV4's Mish stages saturated every
score at 1.0 and widths at 1e34; RetinaFace's decoded boxes overflowed to inf and NaN, so two forwards did not compare
equal; L2CS's yaw and PFLD's points were the same across the batch to 1e-5; CornerNet-Squeeze kept no pair): those, and
MobileFaceNet (points within 2e-4 pixels), take BatchNorm statistics from the zoo's calibration pass
(``Spec.calibrate``) on the network alone, before the post-processing. The wrappers were checked only for building and
running eagerly (deterministic over two forwards, finite outputs, outputs differing across the batch) before any migrate
run, with a source tree unpacked by ``fetch_sources`` from ``PINS73`` and ``make_zoo``, each model in its own process
with one thread on the two cores shared with other sessions: at the spec's size, one more in the batch, and a larger
size (192x256 for the detectors, 256x256 for CornerNet-Squeeze, 160x128 crops for the gaze model). Imports take 1.3 to
4.8 s (lightnet imports pandas); builds 0.11 to 2.1 s (calibration included). Forwards: 0.04 to 0.37 s for the lightnet
YOLOs at 128x128 and 192x256, YoloV4 0.20 to 0.58 s, CornerNet-Squeeze 0.11 to 0.36 s, RetinaFace 0.06 to 0.27 s, L2CS
0.19 to 0.59 s, the landmark regressors 0.02 to 0.04 s. Peak memory 0.36 to 0.70 GB a process (0.96 GB in the
uncalibrated YoloV4 run with DIoU-NMS). Detections at the spec's size: 68 (YoloV2), 210 (TinyYoloV3), 979 (YoloV4), 39
(MobilenetYolo), 58 (oriented and masked YoloV2), 17 (CornerNet-Squeeze), 161 (RetinaFace). Odd, left as the libraries
have them: lightnet's transforms rewrite the network's output tensor in place; with random weights the decoded widths
and heights reach thousands of pixels (the ``exp`` of the raw outputs; YoloV4 at 192x256, beyond the size its BatchNorm
was calibrated at, saturates again: scores of 1.0 and sizes up to 4e20) and CornerNet-Squeeze keeps no pair at 256x256
(an empty (0, 7) output); ``GetCornerBoxes`` and ``CornernetSqueeze`` warn that they are "still in development" (a
FutureWarning); RetinaFace's decoded landmarks are computed and discarded by the library, and the user returns them;
py-feat's ``Retinaface.__init__`` calls ``torch.set_grad_enabled(False)`` globally, which the user's module avoids by
building ``RetinaFace`` itself; many RetinaFace boxes extend past the image (not clipped, as in the library)."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and two libraries by authors no earlier zoo or sweep ran, unpacked wheels like the
#: others (never pip-installed): lightnet (EAVISE's Darknet-style detectors with their post-processing modules) and
#: py-feat (Cosan lab's facial expression toolkit: face detection, landmarks and gaze).
PINS73 = {**PINS31, "lightnet": "4.0.0", "py_feat": "2.1.5"}

#: The user's inputs, all in [0, 1): images (batch, 3, height, width) for the detectors and the gaze model, 112-pixel
#: face crops (faces, 3, 112, 112) for the landmark regressors.
_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'

# ---------------------------------------------------------------------------------------------------------------
# lightnet's anchor utilities import brambox at module level (used only to fit anchors to annotations): the user's
# module stands it in with an empty module. pandas and NumPy come from the venv; torchvision's ``batched_nms`` is the
# zoo's stand-in.
_LN = '''
import importlib.machinery
import importlib.util
import sys


def _stand_in(name):
    """An empty module with a spec, registered under ``name``: a library that may be imported but not used."""
    if name not in sys.modules:
        sys.modules[name] = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(name, None))
    return sys.modules[name]


_stand_in("brambox")
import lightnet as ln

#: The post-processing thresholds: a low confidence floor (random weights score low) and the NMS overlap.
CONF, IOU = 0.005, 0.45


class Detector(torch.nn.Module):
    """The user's detector: the lightnet network, then the library's own post-processing chain on its output."""

    def __init__(self, network, *post):
        super().__init__()
        self.network = network
        self.post = torch.nn.Sequential(*post)

    def forward(self, x):
        return self.post(self.network(x))


class MaskedDetector(torch.nn.Module):
    """A masked (instance segmentation) YOLO: boxes with mask coefficients, NMS, then the masks from the prototypes."""

    def __init__(self, network):
        super().__init__()
        self.network = network
        self.boxes = ln.data.transform.GetMaskedAnchorBoxes(CONF, network.num_masks, network.stride, network.anchors)
        self.nms = ln.data.transform.NMS(IOU)
        self.masks = ln.data.transform.GetMasks(0.5, network.mask_stride)

    def forward(self, x):
        output, prototypes = self.network(x)
        return self.masks(self.nms(self.boxes(output)), prototypes)


def single_scale(network):
    return Detector(network, ln.data.transform.GetAnchorBoxes(CONF, network.stride, network.anchors),
                    ln.data.transform.NMS(IOU))


def multi_scale(network):
    return Detector(network, ln.data.transform.GetMultiScaleAnchorBoxes(CONF, network.stride, network.anchors),
                    ln.data.transform.NMS(IOU))


def oriented(network):
    return Detector(network, ln.data.transform.GetOrientedAnchorBoxes(CONF, network.stride, network.anchors),
                    ln.data.transform.NMS(IOU))


def corners(network):
    return Detector(network, ln.data.transform.GetCornerBoxes(0.5, 0.05, network.stride, topk=100),
                    ln.data.transform.NMS(IOU))'''

# ---------------------------------------------------------------------------------------------------------------
# py-feat's package ``__init__`` imports xgboost (compiled, not in the venv) and its whole detector: the user's module
# registers the package from its import spec without running ``__init__`` and imports the model modules
# (huggingface_hub's mixin, NumPy and torchvision's Python code).
_FEAT = '''
import importlib.util
import math
import sys

import torch.nn.functional as F

if "feat" not in sys.modules:
    _package = importlib.util.find_spec("feat")
    sys.modules["feat"] = importlib.util.module_from_spec(_package)
from feat.face_detectors.Retinaface.Retinaface_model import (RETINAFACE_R34_CFG, RetinaFace, decode_boxes,
                                                             decode_landmarks, generate_priors)
from feat.gaze_detectors.l2cs.l2cs_model import l2cs_resnet50
from feat.landmark_detectors.mobilefacenet_test import MobileFaceNet
from feat.landmark_detectors.pfld_compressed_test import PFLDInference


class FaceDetector(torch.nn.Module):
    """RetinaFace as py-feat's ``Retinaface.forward`` runs it, on images in [0, 1]."""

    def __init__(self, confidence=0.02, nms=0.4, detection=0.5, top_k=5000):
        super().__init__()
        self.net = RetinaFace(RETINAFACE_R34_CFG)
        self.cfg = RETINAFACE_R34_CFG
        self.confidence, self.nms, self.detection, self.top_k = confidence, nms, detection, top_k
        self.register_buffer("mean", torch.tensor([123.0, 117.0, 104.0]).view(1, 3, 1, 1))

    def forward(self, x):
        img = x * 255.0 - self.mean
        batch, _, height, width = img.shape
        loc, conf, landms = self.net(img)
        priors = generate_priors(self.cfg["min_sizes"], self.cfg["steps"], (height, width), clip=self.cfg["clip"],
                                 device=img.device)
        boxes = decode_boxes(loc, priors, self.cfg["variance"])
        points = decode_landmarks(landms, priors, self.cfg["variance"])
        scale = torch.tensor([width, height, width, height], dtype=torch.float32, device=img.device)
        boxes = boxes * scale
        points = points * scale[:2].repeat(5)
        count = boxes.shape[1]
        image = torch.arange(batch, device=img.device).repeat_interleave(count)
        boxes, points, scores = boxes.view(batch * count, 4), points.view(batch * count, 10), conf[..., 1].reshape(-1)
        keep = scores > self.confidence
        boxes, points, scores, image = boxes[keep], points[keep], scores[keep], image[keep]
        if scores.numel() > self.top_k * batch:
            order = torch.argsort(scores, descending=True)[: self.top_k * batch]
            boxes, points, scores, image = boxes[order], points[order], scores[order], image[order]
        keep = torchvision.ops.batched_nms(boxes, scores, image, self.nms)
        boxes, points, scores, image = boxes[keep], points[keep], scores[keep], image[keep]
        final = scores >= self.detection
        return boxes[final], scores[final], points[final], image[final]


class GazeService(torch.nn.Module):
    """L2CS-Net as py-feat's ``L2CSPipeline`` runs it on face crops in [0, 1]: the pitch and yaw in radians."""

    def __init__(self, bin_size=4.0, bin_offset=180.0):
        super().__init__()
        self.net = l2cs_resnet50()
        self.register_buffer("centers", torch.arange(self.net.num_bins, dtype=torch.float32) * bin_size - bin_offset)
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, crops):
        x = crops.float()
        if x.max() > 1.5:
            x = x / 255.0
        if x.shape[-1] != 224 or x.shape[-2] != 224:
            x = F.interpolate(x, size=(224, 224), mode="bilinear", align_corners=False)
        yaw_logits, pitch_logits = self.net((x - self.mean) / self.std)
        yaw = (F.softmax(yaw_logits, dim=1) * self.centers[None]).sum(dim=1)
        pitch = (F.softmax(pitch_logits, dim=1) * self.centers[None]).sum(dim=1)
        return pitch * math.pi / 180.0, yaw * math.pi / 180.0


class Landmarks(torch.nn.Module):
    """A 68-point landmark regressor on 112-pixel face crops in [0, 1]: the points in crop pixels, (faces, 68, 2)."""

    def __init__(self, net, size=112):
        super().__init__()
        self.net = net
        self.size = size

    def forward(self, crops):
        out = self.net(crops)
        out = out[0] if isinstance(out, (tuple, list)) else out
        return out.reshape(out.shape[0], -1, 2) * self.size'''

MODELS73 = [
    # lightnet: Darknet-style detectors with the library's decoding and NMS.
    Spec("ln_yolov2", "lightnet YoloV2 (VOC anchors, anchor decode and NMS)", _LN,
         "single_scale(ln.models.YoloV2(20))", "return self.m(x)", "1, 3, 128, 128", _BHW),
    Spec("ln_tiny_yolov3", "lightnet TinyYoloV3 (two scales, multi-scale decode and NMS)", _LN,
         "multi_scale(ln.models.TinyYoloV3(80))", "return self.m(x)", "1, 3, 128, 128", _BHW),
    Spec("ln_yolov4", "lightnet YoloV4 (CSPDarknet53, three scales, multi-scale decode and NMS)", _LN,
         "multi_scale(ln.models.YoloV4(80))", "return self.m(x)", "1, 3, 128, 128", _BHW,
         calibrate="self.m.network(xb)"),
    Spec("ln_mobilenet_yolo", "lightnet MobilenetYolo (anchor decode and NMS)", _LN,
         "single_scale(ln.models.MobilenetYolo(20))", "return self.m(x)", "1, 3, 128, 128", _BHW),
    Spec("ln_o_yolov2", "lightnet O_YoloV2 (oriented boxes, oriented decode and NMS)", _LN,
         "oriented(ln.models.O_YoloV2(20))", "return self.m(x)", "1, 3, 128, 128", _BHW),
    Spec("ln_m_yolov2", "lightnet M_YoloV2 (instance masks from prototypes, NMS)", _LN,
         "MaskedDetector(ln.models.M_YoloV2(20))", "return self.m(x)", "1, 3, 128, 128", _BHW),
    Spec("ln_cornernet_squeeze", "lightnet CornernetSqueeze (corner pairs and NMS)", _LN,
         "corners(ln.models.CornernetSqueeze(20, inference_only=True))", "return self.m(x)", "1, 3, 128, 128", _BHW,
         calibrate="self.m.network(xb)"),
    # py-feat: the face side of an expression-analysis service.
    Spec("feat_retinaface", "py-feat RetinaFace ResNet-34 (priors, decode, batched NMS)",
         "import torchvision\n" + _FEAT, "FaceDetector()", "return self.m(x)", "1, 3, 128, 128", _BHW,
         calibrate="self.m.net(xb * 255.0 - self.m.mean)"),
    Spec("feat_l2cs_gaze", "py-feat L2CS-Net ResNet-50 gaze (pitch and yaw)", _FEAT, "GazeService()",
         "return self.m(x)", "2, 3, 96, 96", _BHW, calibrate="self.m(xb)"),
    Spec("feat_mobilefacenet", "py-feat MobileFaceNet 68-point landmarks", _FEAT,
         "Landmarks(MobileFaceNet([112, 112], 136))", "return self.m(x)", "2, 3, 112, 112", _B,
         calibrate="self.m(xb)"),
    Spec("feat_pfld", "py-feat PFLD 68-point landmarks", _FEAT, "Landmarks(PFLDInference())", "return self.m(x)",
         "2, 3, 112, 112", _B, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS73, "real_zoo73", PINS73)
