"""An eighty-fifth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo85.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, in models a deploying engineer ships to TensorRT from small libraries,
after a zoo of Detectron2-style R-CNNs and NMS-free detectors: a YOLO-NAS detector with its confidence filter, top-k
and batched NMS (as trained, and with its re-parameterisable blocks fused the way its exporter does), two MobileNetV3
semantic-segmentation networks, a handwritten-word recogniser with attention decoding and a crowd counter. The
thirty-first zoo's pins and four libraries by authors whose code no earlier zoo or sweep ran a model of (``PINS85``:
unpacked wheels like the others, never pip-installed): modern-yolonas 0.5.0 (Luis Condados and Alan Neves,
github.com/CondadosAI/modern-yolonas, Apache-2.0: a re-implementation of Deci's YOLO-NAS without super-gradients, an
earlier zoo's library, whose code is not used here), fastseg 0.1.2 (Eric Zhang, github.com/ekzhang/fast-semantic-seg,
MIT) with its backbone package geffnet 1.0.2 (Ross Wightman, github.com/rwightman/gen-efficientnet-pytorch,
Apache-2.0; a dependency only, no model of its own), lafhterlearn 0.7.1 (Evgenii Dolotov,
github.com/X-rayLaser/label-free-handwritten-text-recognition-learner; its wheel ships a LICENSE file and its metadata
names no licence: the code is read and run here, not copied) and ezcrowdcount 1.0.0 (Ahmed Heakl,
github.com/ahmedheakl/crowdcount; likewise a LICENSE file and no licence named: an implementation of Sindagi and
Patel's CMTL).

What the packages import beyond their networks: modern-yolonas's package ``__init__`` and its ``inference``
``__init__`` import ``YoloNASDetector``, whose module imports supervision (not in the venv; its ``sv.Detections`` is
the detector's result type): both packages are registered from their import specs without running their ``__init__``
(``_without_init`` of real_zoo.py's ``STAND_INS``, as zoos 72 to 84 did) and the network built by
``YoloNAS.from_config`` (what ``yolo_nas_s(pretrained=False)`` does), the post-processing imported from its module
(torchvision's ``batched_nms``: the zoo's pure-PyTorch stand-in); lightning, albumentations and pycocotools are
imported only by its training and evaluation code. fastseg imports geffnet (pinned) and torchvision's transforms; its
``get_trunk`` always builds the MobileNetV3 trunks with ``pretrained=True``, which geffnet loads with
``torch.hub.load_state_dict_from_url``: the wrapper points ``torch.hub.set_dir`` at a fresh temporary folder and writes
there a random checkpoint of geffnet's own layout under the release file's name (``model_urls``), which the library
then loads (no download; nothing under the user's home; the folder is left in the temporary directory).
lafhterlearn's package ``__init__`` opens a log file (``lafhterlearn.log``) in the working folder: registered without
running it, the networks imported from ``lafhterlearn.models`` (torchvision's ``vgg19_bn``, ``weights`` not asked
for). ezcrowdcount's ``network`` module imports h5py (its weight-file helpers, not called; not in the venv): an empty
stand-in module (``_not_installed``). No weights are downloaded; nothing writes under the user's home. Nothing new in
the ``bench`` extra.

Considered and dropped (by the package index, the wheels' files and metadata and a first reading of the imports):
sleap-nn 0.3.5 (Talmo Pereira's lab, github.com/talmolab/sleap-nn, BSD-3-Clause: animal pose, a U-Net with single-
instance and centroid confidence-map heads and its ``find_global_peaks``/``find_local_peaks`` with integral
refinement; chosen and written first, then dropped before any migrate run: its peak finder's module chain imports
sleap-io, skia, omegaconf and loguru, which took five stand-ins to import, and with random weights the confidence maps
stay within about 0.14 of zero, so most parts fall below any threshold and come back NaN (not deterministic under
comparison, not finite); no model of it was kept), pero-ocr 0.7.0 (its OCR and layout engines ``torch.jit.load``
exported models: no network code), asterocr and easyhtr (ONNX Runtime only), fast-plate-ocr (Keras models), mtcnn-
pytorch 1.0.0 (its three networks' constructors load the released NumPy weights, and the detector's cascade runs in
NumPy), egoblur 2.0.1 (TorchScript Detectron2 exports), visionface 1.0.0 (wraps other libraries' detectors),
anime-face-detector 0.0.9 (mmcv-full, mmdet and mmpose), aja-pose 0.0.1 (pinned training stack, compiled NMS),
masdetr 0.1.1 (transformers, an earlier zoo's library), depthlib 0.1.1 (transformers), trackers 2.6.1 and adaspun
0.2.1 (no network: SORT-style association and SGBM stereo), byotrack 2.0.7 (numba, torch-kf and other earlier zoos'
libraries), pyolov3 0.1.2 (pins torch 1.4), 3dsem 0.2.9 (a command-line front end), and, with no wheel for this
Python, yolor, yolov9pip, yogo, dreem-track, eseg, multiformer and cotracker. Within the chosen libraries: YOLO-NAS M
and L (over the size budget), its Frigate export graph surgery and quantisation; fastseg's Lite R-ASPP head (its 49x49
average pool with stride (16, 20) needs a Cityscapes-sized input, over 1568 pixels tall: the library's ``use_aspp``
head is used instead) and its EfficientNet trunks; lafhterlearn's teacher-forced training path; ezcrowdcount's
``CrowdCounter`` wrapper (NumPy in, CUDA-only loss weights).

6 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 84 or
in the library sweeps (benchmarks/sweep_*.py; YOLO-NAS was zooed from super-gradients, here in modern-yolonas's own
code; MobileNetV3 segmentation heads appear in torchvision, here fastseg's over geffnet's TF-ported trunks), of the
kinds that often need work for an ONNX or TensorRT deployment (YOLO-NAS: QARepVGG blocks with parallel branches,
BatchNorm with the library's eps and momentum set in a loop, CSP stages, an SPP of three max pools, a PAN neck with
transposed convolutions, DFL heads with ``softmax`` over 17 bins times a projection buffer, anchors generated from the
feature sizes in the forward (``_generate_anchors``: Python loops, ``arange``, ``meshgrid``), distances to boxes
scaled by strides; ``postprocess`` per image: ``(scores > conf).nonzero(as_tuple=True)`` anchor-class pairs (a
data-dependent count) or the best class and a boolean mask, a ``topk`` of 1024 behind a Python size check,
``batched_nms`` and ``[:max_detections]``, rows concatenated over the batch; fused: ``fuse_block_residual_branches``
folding each block's 3x3, 1x1 and identity branches into one convolution after calibration. fastseg: geffnet's
TF-"same" convolutions (``Conv2dSame``: padding computed in the forward from the input's size, stride and dilation,
``F.pad`` then ``conv2d``), dilated inverted residuals with squeeze-excitation and hard-swish, an ASPP of 1x1 and
dilated (12 and 36) branches and an image-pool branch resized back with ``interpolate`` to the feature size, bilinear
up-sampling to the stride-4 and stride-2 skips and to the input's size, ``argmax``. lafhterlearn: a VGG19-BN trunk on
a grayscale image repeated to three channels, the feature map ``transpose(1, 3)`` and ``Tensor.resize`` (deprecated,
non-inplace) to a sequence whose width is the image's, two bidirectional GRUs, then 15 greedy decoding steps in a
Python loop: initial attention weights built from a Python list and ``torch.tensor``, hybrid attention with a 1D
convolution over the previous weights, ``repeat`` of the decoder state by the sequence length, a sigmoid normalised
by its sum, ``bmm`` context vectors, a GRU cell step, ``argmax`` and a one-hot ``torch.zeros`` filled by advanced
indexing with a Python ``range`` of the batch, ``stack`` of the steps. CMTL: 9x9 and 7x7 PReLU convolutions on
0..255 grayscale, max pooling, ``AdaptiveMaxPool2d((32, 32))`` over a quarter-resolution map whose size is not a
multiple of 32, ``view`` to 4096 features, fully connected layers with ``F.dropout(training=self.training)``,
concatenation of the prior and density stages, two transposed convolutions back to full resolution, a final ReLU).

modern-yolonas (4 classes, say person, car, bicycle and dog; letterboxed 320x320 images in [0, 1], the library's
preprocessing scale): YOLO-NAS S (19.0 M parameters as trained, 12.2 M fused), ``postprocess`` at a confidence of 0.05
(the detector's 0.25 keeps few boxes with random weights), IoU 0.7, at most 100 detections an image; multi-label
(``YoloNASDetector``'s default) as trained, best-class on the fused network. fastseg (Cityscapes' 19 classes, RGB
images normalised as ``predict`` does): MobileV3Large (3.88 M) and MobileV3Small (1.63 M) with the ASPP head of 128
filters. lafhterlearn: the layout of ``build_networks_spec`` (image height 64, encoder GRUs of 128, decoder of 128,
attention of 10 filters of 5) over the printable ASCII characters (97 tokens with its start, end and unknown; 21.5 M).
ezcrowdcount: CMTL as ``CrowdCounter`` builds it (no BatchNorm, ten density classes; 2.45 M).

Each has the dynamic axes a deploying user declares: batch, height and width for the detectors (multiples of 32), the
segmentation networks (multiples of 32) and the crowd counter (multiples of 4, at least 128); batch and width for the
word recogniser (its height is fixed by the GRU's input size). Inputs are all in [0, 1): images (2, 3, 320, 320) for
YOLO-NAS and (2, 3, 256, 320) for fastseg, word images (2, 1, 64, 256), grayscale scenes (2, 1, 256, 320) for CMTL.
Outputs: detection rows (n, 7) of (image, x1, y1, x2, y2, score, class) in pixels, compared as sets (``unordered``);
logits (batch, 19, H, W) and classes (batch, H, W) (int64); step scores (batch, 16, 97) and token ids (batch, 16)
(int64); density maps (batch, 1, H, W), counts (batch,) and class scores (batch, 10).

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS85`` and ``make_zoo``, each model in its own process with one thread, one or two processes at a time on a
two-core machine: at the spec's size, one more in the batch and a larger size (YOLO-NAS 3x320x320 and 1x480x640,
fastseg 3x256x320 and 1x384x512, words 3x64x256 and 1x64x512, CMTL 3x256x320 and 1x384x512). All passed after three
changes made before any migrate run: the fused YOLO-NAS is calibrated before fusing (``Spec.finish``: fused first,
the calibration would have nothing to set); fastseg's head is the ASPP one (above); and CMTL's last convolution bias
is zeroed (its random value lay below the whole range of the pre-activations, about -0.077 to -0.054, so the final
ReLU made every density exactly zero and every count the same). YOLO-NAS and fastseg calibrate BatchNorm as
real_zoo.py's detectors do (``Spec.calibrate``), as does the word recogniser's VGG19-BN (through the encoder alone);
CMTL has no BatchNorm. Imports take 2.9 to 14.4 s (the larger figures beside another process); builds 0.0 to 7.7 s with
calibration. Forwards at the spec's size (two runs each, alone or beside another process): YOLO-NAS 0.35 to 0.53 s (21
and 6 rows for the two images, scores 0.05 to 0.20; 0.47 to 0.78 s for three, 0.49 to 0.84 s for one at 480x640) and
fused 0.45 to 0.76 s (the same row counts, scores within 1e-6; 0.69 to 1.00 and 0.70 to 1.08 s); fastseg MobileV3Large
0.40 to 0.80 s (0.75 to 1.88 and 0.66 to 1.08 s) and MobileV3Small 0.26 to 0.63 s (0.50 to 1.03 and 0.48 to 1.10 s); the
word recogniser 0.33 to 0.63 s (0.97 to 1.52 and 0.62 to 0.69 s); CMTL 0.9 to 3.7 s (1.05 to 2.54 s for three, 0.73 to
2.03 s for one at 384x512). Peak memory 0.46 to 0.89 GB a process. Odd, left as the libraries have them: with random
weights the multi-label and best-class decodes keep the same row counts and score range (checked, not
explained); the recogniser's
15 steps always run (the loop has no early stop, whatever token comes); CMTL's counts are near 617 for every random
image (a spread of 0.2 over the batch), its densities about 0.0075 a pixel with a spread of 0.0025; ``Tensor.resize``
warns that its non-inplace form is deprecated.
"""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and four libraries by authors no earlier zoo or sweep ran, all unpacked wheels like the
#: others (never pip-installed): modern-yolonas (YOLO-NAS detection with NMS), fastseg with its backbone package
#: geffnet (semantic segmentation), lafhterlearn (handwritten word recognition) and ezcrowdcount (crowd counting).
PINS85 = {**PINS31, "modern_yolonas": "0.5.0", "fastseg": "0.1.2", "geffnet": "1.0.2", "lafhterlearn": "0.7.1",
          "ezcrowdcount": "1.0.0"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_BW = 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# modern-yolonas: the package's and ``inference``'s ``__init__`` import the detector class, whose module imports
# supervision (not in the venv) for its result type: both are registered without running their ``__init__`` and the
# model built from its hard-coded configuration (``YoloNAS.from_config``, what ``yolo_nas_s(pretrained=False)``
# does), random weights.
_YOLONAS = _SHARED + '''
_without_init("modern_yolonas")
_without_init("modern_yolonas.inference")
from modern_yolonas.inference.postprocess import postprocess
from modern_yolonas.model import YoloNAS

#: A small detector's classes (say, person, car, bicycle and dog).
CLASSES = 4


def yolo_nas_s():
    """YOLO-NAS S for ``CLASSES`` classes (QARepVGG blocks with their training-time branches)."""
    return YoloNAS.from_config("yolo_nas_s", num_classes=CLASSES)


def fuse(model):
    """What the library's ``export`` command does before ``torch.onnx.export``: every QARepVGG block's branches
    folded into one convolution (``fuse_block_residual_branches``)."""
    for module in model.modules():
        if hasattr(module, "fuse_block_residual_branches"):
            module.fuse_block_residual_branches()


class Detections(torch.nn.Module):
    """``YoloNASDetector.detect_batch``'s tensor path on letterboxed images in [0, 1]: the network's decoded boxes
    (pixels, x1y1x2y2) and sigmoid scores, then the library's ``postprocess`` per image (score threshold, the
    per-anchor class pairs or the best class, top 1024, torchvision's ``batched_nms``, ``[:max_detections]``);
    rows of (image, x1, y1, x2, y2, score, class) concatenated over the batch."""

    def __init__(self, model, multi_label=True, conf=0.05, iou=0.7, max_detections=100):
        super().__init__()
        self.model = model
        self.multi_label, self.conf, self.iou, self.max_detections = multi_label, conf, iou, max_detections

    def forward(self, images):
        boxes, scores = self.model(images)
        rows = []
        for index, (kept, score, label) in enumerate(postprocess(boxes, scores, self.conf, self.iou,
                                                                 self.max_detections, self.multi_label)):
            image = torch.full((kept.shape[0], 1), float(index))
            rows.append(torch.cat([image, kept, score[:, None], label[:, None].to(kept.dtype)], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# fastseg: its trunks always ask geffnet for the ImageNet weights (``pretrained=True``), which geffnet fetches with
# ``torch.hub.load_state_dict_from_url``: a random checkpoint of geffnet's own layout is written under a temporary
# hub folder with the release file's name, and the library loads it from there (no download, nothing under home).
_FASTSEG = '''
import os
import tempfile

import geffnet
from geffnet.mobilenetv3 import model_urls
from fastseg import MobileV3Large, MobileV3Small

#: Cityscapes' classes.
CLASSES = 19


def _random_trunk(variant):
    """A random ``variant`` checkpoint (geffnet's layout) where ``load_state_dict_from_url`` looks for it."""
    folder = tempfile.mkdtemp(prefix="zoo85-hub-")
    torch.hub.set_dir(folder)
    os.makedirs(os.path.join(folder, "checkpoints"))
    trunk = getattr(geffnet, variant)(pretrained=False, norm_layer=torch.nn.BatchNorm2d)
    torch.save(trunk.state_dict(), os.path.join(folder, "checkpoints", os.path.basename(model_urls[variant])))


def lraspp(large):
    """fastseg's MobileNetV3 segmentation network (``use_aspp=True``: the DeepLabV3+-style head; the Lite R-ASPP
    head's 49x49 average pool needs a Cityscapes-sized image, over 1568 pixels tall)."""
    _random_trunk("tf_mobilenetv3_large_100" if large else "tf_mobilenetv3_small_100")
    return (MobileV3Large if large else MobileV3Small)(num_classes=CLASSES, use_aspp=True, num_filters=128)


class Segment(torch.nn.Module):
    """The network on normalised RGB images, as ``BaseSegmentation.predict`` prepares them (ImageNet mean and
    standard deviation): the class logits at the input's size and the per-pixel class (``argmax``)."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, images):
        logits = self.model((images - self.mean) / self.std)
        return logits, logits.argmax(1)'''

# ---------------------------------------------------------------------------------------------------------------
# lafhterlearn: the package ``__init__`` opens a log file in the working folder: registered without running it. The
# networks come from the library's own ``build_networks_spec``/``build_from_spec`` (its English charset's layout).
_LAFHTER = _SHARED + '''
import string

_without_init("lafhterlearn")
from lafhterlearn.models import build_from_spec, build_networks_spec

#: The printable ASCII characters (letters, digits and punctuation) a word recogniser for English reads.
CHARSET = string.ascii_letters + string.digits + string.punctuation


class ReadWords(torch.nn.Module):
    """The library's recogniser (``recognition.WordRecognitionPipeline``'s tensor step) on grayscale word images
    (batch, 1, 64, width) in [0, 1], repeated to three channels for the VGG19-BN encoder: two bidirectional GRUs,
    then the attending decoder's closed-loop inference (15 greedy steps of hybrid attention, one-hot feedback
    built by advanced indexing); the per-step scores (batch, 16, charset) and the token ids (``argmax``)."""

    def __init__(self):
        super().__init__()
        self.encoder, self.decoder = build_from_spec(build_networks_spec(CHARSET, image_height=64))

    def forward(self, images):
        scores = self.decoder(self.encoder(images.repeat(1, 3, 1, 1)))
        return scores, scores.argmax(-1)'''

# ---------------------------------------------------------------------------------------------------------------
# ezcrowdcount: ``network`` imports h5py (its weight-file helpers, not called; not in the venv): an empty stand-in.
_CROWD = _SHARED + '''
_not_installed("h5py")
from ezcrowdcount.models import CMTL


class Count(torch.nn.Module):
    """CMTL as ``CrowdCounter`` runs it, on grayscale images in [0, 1] scaled to 0..255 as the library's reader
    gives them: the density map (batch, 1, H, W), the count (its sum) and the ten crowd-density classes. The last
    convolution's random bias is zeroed: it lay below the whole range of its pre-activations (about -0.077 to
    -0.054), so the final ReLU gave every pixel of every image a density of exactly zero."""

    def __init__(self):
        super().__init__()
        self.model = CMTL()
        with torch.no_grad():
            self.model.de_stage_2[-1].conv.bias.zero_()

    def forward(self, images):
        density, classes = self.model(images * 255.0)
        return density, density.sum((1, 2, 3)), classes'''

MODELS85 = [
    # modern-yolonas: YOLO-NAS S with the library's NMS post-processing.
    Spec("yolonas_s_nms", "modern-yolonas YOLO-NAS S (4 classes) with postprocess (multi-label, batched NMS)",
         _YOLONAS, "Detections(yolo_nas_s())", "return self.m(x)", "2, 3, 320, 320",
         _BHW + '\nunordered = ["output"]', calibrate="self.m.model(xb)"),
    Spec("yolonas_s_fused_nms", "modern-yolonas YOLO-NAS S fused for export, best-class NMS", _YOLONAS,
         "Detections(yolo_nas_s(), multi_label=False)", "return self.m(x)", "2, 3, 320, 320",
         _BHW + '\nunordered = ["output"]', calibrate="self.m.model(xb)", finish="fuse(self.m.model)"),
    # fastseg: MobileNetV3 semantic segmentation.
    Spec("fastseg_mv3large", "fastseg MobileV3Large (ASPP head, 19 classes)", _FASTSEG, "Segment(lraspp(True))",
         "return self.m(x)", "2, 3, 256, 320", _BHW, calibrate="self.m(xb)"),
    Spec("fastseg_mv3small", "fastseg MobileV3Small (ASPP head, 19 classes)", _FASTSEG, "Segment(lraspp(False))",
         "return self.m(x)", "2, 3, 256, 320", _BHW, calibrate="self.m(xb)"),
    # lafhterlearn: handwritten word recognition.
    Spec("lafhter_words", "lafhterlearn VGG19-BN + BiGRU encoder, attending decoder (greedy)", _LAFHTER,
         "ReadWords()", "return self.m(x)", "2, 1, 64, 256", _BW, calibrate="self.m.encoder(xb.repeat(1, 3, 1, 1))"),
    # ezcrowdcount: crowd counting.
    Spec("crowd_cmtl", "ezcrowdcount CMTL (density map, count, density class)", _CROWD, "Count()", "return self.m(x)",
         "2, 1, 256, 320", _BHW),
]

if __name__ == "__main__":
    main(MODELS85, "real_zoo85", PINS85)
