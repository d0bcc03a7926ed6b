"""A seventy-fifth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo75.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, back in computer vision as a TensorRT user deploys it: semantic
segmentation of street scenes (whole-image, sliding-window and test-time-augmented inference) and keypoint pose
estimation on crops and short clips. The thirty-first zoo's pins, lightning, lightning-utilities, torchmetrics and
jaxtyping as dependencies only (lightning-pose's trackers are LightningModules annotated with jaxtyping; zoos 51, 54, 57
and 70 unpacked the same wheels) and two libraries by authors whose code no earlier zoo or sweep ran (``PINS75``:
unpacked wheels like the others, never pip-installed): SSSegmentation 1.5.3 (Zhenchao Jin,
github.com/SegmentationBLWX/sssegmentation, Apache-2.0: a supervised semantic segmentation toolbox with its own
backbones, heads and test-time inference; the wheel is named ``SSSegmentation``, so that is its key, as
``fetch_sources`` finds wheels by key; 1.5.3 is the newest on the index) and lightning-pose 2.4.3 (Dan Biderman, Matthew
Whiteway and colleagues in Liam Paninski's lab at Columbia, github.com/paninski-lab/lightning-pose, MIT: animal and
human pose estimation, heatmap and regression trackers and a temporal-context tracker, with its own ONNX and TensorRT
export).

What the packages import beyond their networks: ``ssseg.modules``'s ``__init__`` imports its datasets (chainercv,
cityscapesscripts, pycocotools' evaluation), so the user's module registers ``ssseg`` and ``ssseg.modules`` from their
import specs without running them (as zoos 69, 72 and 74 did) and imports the segmentor builder; on the way, the config
parser imports dill, MCIBI's memory initialisation scikit-learn and MaskFormer's predictor fvcore, none of them used by
the chosen models and none in the venv: empty modules of placeholders (as zoos 66, 71 and 74 did). The wheel ships no
configs: the user writes each segmentor's dictionary as the repository's configs lay it out (``type``, ``backbone``,
``head``, ``auxiliary``, ``inference``; BatchNorm2d for SyncBatchNorm in one process; ``pretrained: False``).
lightning-pose's ``models`` package ``__init__`` imports every tracker and its model factory: registered from its import
spec too; its ``data`` package (which the trackers import for coordinate transforms and batch types) imports imgaug
(training augmentation), aniposelib (multi-camera calibration, a base class: the placeholders are classes, so that
``CameraGroup`` can subclass one) and scikit-learn's PCA (the PCA losses), stood in the same way. lightning-pose asks
for lightning below 2.6; the zoos' lightning 2.6.6 builds and runs its trackers. The wheels have no compiled code.
Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheels' files, metadata and a first reading of the imports):
pyfacer 0.0.5 (FacePerceiver's facer: its RetinaFace is biubug6's network again, whose post-processing ends in Python
lists of ``.item()`` values; the FaRL face parser ships only as downloaded TorchScript; FaRL alignment's non-TorchScript
path needs mmseg's ``UPerHead``; the FaRL attribute model calls ``.cuda()`` while it is built), facexformer-pipeline
0.2.8 (FaceXFormer's Swin-B is built with ``weights='IMAGENET1K_V1'``, a download at construction), vitpose-infer 0.2.0
(gpastal24's ViTPose without mmcv: only the ViT backbone and the simple heatmap head import without mmcv and mmpose, and
transformers' ViTPose was zooed), anime-face-detector 0.0.9 (mmdet, mmpose, mmcv-full), libreface 0.2.0 (pins dlib and
mediapipe, compiled), face-parsing 0.2 (BiSeNet face parsing, facexlib's family), mobilesam-lite 0.1.2 (MobileSAM with a
vendored copy of ultralytics: families earlier zoos ran), table-transformer 1.0.6 (facebookresearch's DETR again, with
pycocotools) and the libraries earlier zoos dropped, as they found. Within SSSegmentation: PointRend, Mask2Former, CCNet
and PSANet (their test-time point sampling, deformable attention, criss-cross attention and PSA mask come from
``mmcv.ops``, imported in ``try`` blocks that leave ``None`` without mmcv), SAM, SAM-HQ, MobileSAM and EdgeSAM (families
zooed), MCIBI and MCIBI++ (their memory is initialised by k-means over the training set), MaskFormer and the segmentors
of the chosen kinds (FCN, DeepLabV3, DANet, GCNet, ISNet, UPerNet, SETR and more: eight were enough), the training
losses, samplers and schedulers. Within lightning-pose: the ViT backbones (transformers' ``from_pretrained`` downloads),
the multiview transformer tracker (several cameras), the semi-supervised trackers (their extra parts are training
losses), and the streaming form of the context tracker (a 4-D clip tiled into 5-frame windows by
``get_context_from_sequence``'s Python loop, its first and last two frames dropped): the library's own export traces the
context tracker on (batch, 5, 3, height, width) stacks, which the user's service takes too. Zoo 76 (chosen at the same
time) takes the non-vision domains.

12 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 74 or
in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(ssseg's ``inference``: ``images.type(torch.cuda.FloatTensor if torch.cuda.is_available() else torch.FloatTensor)``, and
in ``slide`` mode the number of crops computed from the image size with ``max`` and ``//`` in Python, nested loops
slicing crops, ``F.pad`` with Python ``int`` offsets from the shapes, a count map filled by slice assignment, an
``assert`` on it and a division; ``auginference``'s scales by ``F.interpolate(scale_factor=...)`` and the mirror image
made by ``np.flip`` on ``.cpu().numpy()`` and back by ``torch.from_numpy``, with ``.cpu()`` on every output; PSPNet's
adaptive average pooling to 1, 2, 3 and 6 bins resized back to the feature size; DeepLabV3+'s ASPP with an image-pooling
branch; OCRNet's soft object regions gathered by a batched matmul of softmax weights, HRNet's branches resized to the
first; SegFormer's overlapping patch embedding passing the feature size on as a tuple read from the shape, attention
over keys reduced by strided convolution; ICNet's cascade of the image at 1/2 and 1/4 scale by ``F.interpolate``, a
``ceil_mode`` max pool; DMNet's filters generated per image by adaptive pooling and applied as a grouped convolution
whose groups are the batch folded into channels, with asymmetric padding chosen by the filter size's parity; EMANet's
expectation-maximisation attention, bases repeated over the batch and refined by three iterations of ``bmm``, softmax
and L2 normalisation; LR-ASPP's fixed ``AvgPool2d(49, stride=(16, 20))`` on the 1/8 features; lightning-pose's heatmaps
from ``PixelShuffle`` and transposed convolutions, kornia's ``spatial_softmax2d`` and ``spatial_expectation2d``,
sub-pixel upsampling by bicubic ``interpolate`` to twice the shape and a Gaussian ``filter2d`` per pass in a Python
loop, confidences pooled around each soft-argmax location (``evaluate_heatmaps_at_location``: a zero-padded copy, the
locations cast to int64 and advanced indexing at each offset in nested Python loops over a NumPy ``arange``), an
``if``/``elif`` chain on the downsample factor for the grid offset, ``model_to_frame_batch``'s ``keys()`` checks,
in-place division of a reshaped view by the image size and a multiplication by the bounding box; the context tracker's
frames reshaped into the batch, the single-frame and multi-frame heads, ``torch.gt`` of their confidences and
boolean-mask assignment keeping the more confident). SSSegmentation (Cityscapes' 19 classes; 0-1 RGB images turned into
the pipeline's normalised 0-255 pixels; the class scores resized to the image, as ``ssseg/inference.py`` does before its
arg-max): PSPNet (ResNet-18, output stride 8, pyramid pooling 1/2/3/6; with the library's test-time augmentation at
scales 0.75, 1 and 1.25 and flips, the outputs averaged; 12.6 M parameters), DeepLabV3+ (ResNet-18; sliding-window
inference over 64-pixel crops at stride 48 with probabilities averaged; 12.3 M), OCRNet (HRNetV2-W18-small; 6.5 M),
SegFormer (MiT-B0; 3.7 M), ICNet (ResNet-50 with the 3x3 stem; 47.5 M), DMNet (ResNet-18, filter sizes 1/3/5/7; 12.9 M),
EMANet (ResNet-18, 32 bases, 3 stages; 12.7 M) and LR-ASPP (MobileNetV3-large; 3.3 M). lightning-pose (17 keypoints; 0-1
RGB crops normalised by ImageNet's statistics as its datasets do; the tracker's ``predict_step`` with the whole crop as
the bounding box: keypoints in crop pixels and their confidences): HeatmapTracker with ResNet-50 (heatmaps at 1/4 of the
crop, two sub-pixel passes; 23.6 M) and with EfficientNet-B0 (heatmaps at 1/8, three passes; 4.1 M), RegressionTracker
with ResNet-50 (keypoints from a linear layer; its ``predict_step`` adds confidences that are all zero, which the
service leaves out; 23.6 M), and HeatmapTrackerMHCRNN with ResNet-18 on 5-frame stacks (the middle frame's keypoints;
11.2 M).

Each has the dynamic axes a deploying user declares: batch, height and width for the segmentors (any size: the crops,
scales and pools follow it; LR-ASPP's fixed 49-pixel pool needs 392 pixels or more, so its spec size is 448) and for the
trackers (multiples of 32; the library's own export declares the batch alone, at the size its config resizes to); batch,
height and width of (batch, 5, 3, height, width) stacks for the context tracker. Inputs are all in [0, 1). Set-valued
outputs: none. Outputs: class scores (batch, 19, height, width) (probabilities averaged over the crops for DeepLabV3+'s
sliding window); keypoints (batch, 17, 2) and confidences (batch, 17); keypoints alone for the regression tracker. Every
model takes BatchNorm statistics from the zoo's calibration pass (``Spec.calibrate``), as a checkpoint brings them.
lightning-pose's heatmap heads start their transposed convolutions at Xavier gain 0.01 for training, which leaves every
random heatmap flat and every keypoint at the crop's centre: the user's module re-initialises them at gain 1
(``sharpen``) before the calibration.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS75`` and ``make_zoo``, each model in its own process with one thread on the two cores shared with other sessions:
at the spec's size, one more in the batch and a larger size (2x3x160x224 for the segmentors, 2x3x640x768 for LR-ASPP,
2x3x192x256 for the trackers, 2x5x3x192x256 for the context tracker). All passed. Imports take 1.6 to 2.9 s for
SSSegmentation and 4.2 to 4.5 s for lightning-pose. Builds (with the calibration): 0.15 to 2.0 s, LR-ASPP 6.4 s (its
calibration batches are 448 pixels). Forwards at the spec's size: 0.02 to 0.31 s (PSPNet's six passes the slowest),
LR-ASPP 0.42 s, trackers 0.03 to 0.09 s; at the larger sizes 0.07 to 1.35 s, LR-ASPP 3.3 s, trackers 0.12 to 0.45 s.
Peak memory 0.45 to 0.71 GB a process, LR-ASPP 1.57 GB. Changed after the first eager runs, before any migrate run:
SegFormer's ``drop_path_rate`` (0.1: the ``mit-b0`` structure type asserts the card's values), ICNet's backbone (its
encoder calls the backbone's 3x3 ``stem``, which ``use_conv3x3_stem`` builds, and takes three stages), LR-ASPP's size
(96x128 failed in the fixed pool), the heatmap heads' initialisation (above), the regression tracker's output (above),
and the context tracker's input (a streaming clip of 8 frames first: the library then drops the first and last two
frames, so the bounding boxes no longer matched the keypoints; the 5-frame stacks the library exports instead). Odd,
left as the libraries have them: DeepLabV3+'s averaged probabilities stay near 1/19 (standard deviation 0.014); ICNet's
scores grow with the image (standard deviation 0.38 at 96x128, 1.0 at 128x160, 9.8 at 160x224, 18 at 192x256: the
calibration saw 96x128); the trackers' keypoints stay within about a pixel of the crop's centre for ResNet-50 and the
ResNet-18 context tracker (6 pixels for EfficientNet-B0) and their confidences differ by 1e-4 to 1e-1; ``auginference``
moves every output to the CPU and flips through NumPy, so a model exported from it flips nothing unless the flip is
rewritten."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins, lightning and jaxtyping as dependencies (lightning-pose's trackers are
#: LightningModules with jaxtyping annotations; zoos 51, 54, 57 and 70 unpacked the same wheels) and two libraries by
#: authors no earlier zoo or sweep ran, unpacked wheels like the others (never pip-installed): SSSegmentation (Zhenchao
#: Jin's semantic segmentation toolbox; the wheel's name is capitalised) and lightning-pose (Dan Biderman and the
#: Paninski lab's animal pose estimation).
PINS75 = {**PINS31, "lightning_utilities": "0.15.3", "torchmetrics": "1.9.0", "lightning": "2.6.6",
          "jaxtyping": "0.2.36", "SSSegmentation": "1.5.3", "lightning_pose": "2.4.3"}

#: The user's inputs, all in [0, 1): RGB images (batch, 3, height, width) and, for the video model, a clip of frames
#: (frames, 3, height, width).
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_CONTEXT = 'dynamic_axes = { x = { 0 = "batch", 3 = "height", 4 = "width" } }'

# ---------------------------------------------------------------------------------------------------------------
# Packages whose ``__init__`` pulls in training, data and evaluation code: registered from their import specs so that
# importing a submodule does not run them; absent training-side dependencies stood in by modules of placeholders
# (classes, so that a library class may subclass one).
_QUIET_IMPORTS = '''
import importlib.util
import sys
import types


class _AbsentType(type):
    """The class of a placeholder class: any attribute of the class is another placeholder class."""

    def __getattr__(cls, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return type(name, (Placeholder,), {})


class Placeholder(metaclass=_AbsentType):
    """What the models never use of an absent package: attributes and calls give placeholders back."""

    def __init__(self, *args, **kwargs):
        pass

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return Placeholder()

    def __call__(self, *args, **kwargs):
        return Placeholder()


def stand_in(name):
    """An empty module (a package, so that submodules can be stood in too) whose attributes are placeholder classes;
    registered on its parent as an import would."""
    if name not in sys.modules:
        module = types.ModuleType(name)
        module.__path__ = []
        module.__getattr__ = lambda attribute: type(attribute, (Placeholder,), {})
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent in sys.modules:
            setattr(sys.modules[parent], child, module)
    return sys.modules[name]


def bare_package(name):
    """The package registered from its import spec, its ``__init__`` not run."""
    if name not in sys.modules:
        parent, _, child = name.rpartition(".")
        spec = importlib.util.find_spec(name)
        sys.modules[name] = importlib.util.module_from_spec(spec)
        if parent:
            setattr(sys.modules[parent], child, sys.modules[name])
    return sys.modules[name]'''

# ---------------------------------------------------------------------------------------------------------------
# SSSegmentation: the segmentors built from config dictionaries the user writes (the wheel ships no configs), past
# ``ssseg.modules``'s ``__init__`` (datasets: chainercv, cityscapesscripts). ``dill`` (the config parser), scikit-learn
# (MCIBI's memory initialisation) and fvcore (MaskFormer's weight init) are imported by modules on the way, not used.
_SEG = _QUIET_IMPORTS + '''

for _absent in ("dill", "sklearn", "sklearn.cluster", "sklearn.preprocessing", "sklearn.metrics",
                "sklearn.metrics.pairwise", "fvcore", "fvcore.nn", "fvcore.nn.weight_init"):
    stand_in(_absent)
for _package in ("ssseg", "ssseg.modules"):
    bare_package(_package)

import torch.nn.functional as F
from ssseg.modules.models.segmentors.builder import BuildSegmentor

#: Cityscapes' 19 classes; the library's data pipelines normalise 0-255 pixels by ImageNet's mean and deviation.
CLASSES = 19
MEAN, STD = (123.675, 116.28, 103.53), (58.395, 57.12, 57.375)
#: The library's test-time settings: the whole image at once, or overlapping crops averaged (``slide``).
WHOLE = {"mode": "whole", "opts": {}, "tricks": {"multiscale": [1], "flip": False, "use_probs_before_resize": False}}


def resnet(depth, **extra):
    """ssseg's dilated ResNet (output stride 8, no ImageNet checkpoint)."""
    return {"type": "ResNet", "depth": depth, "structure_type": f"resnet{depth}", "pretrained": False, "outstride": 8,
            "use_conv3x3_stem": False, **extra}


def segmentor(kind, backbone, head, auxiliary=None, inference=WHOLE):
    """A segmentor of ``kind`` in test mode from the dictionary the library's configs hold (BatchNorm for SyncBatchNorm:
    one process)."""
    cfg = {"type": kind, "num_classes": CLASSES, "benchmark": True, "align_corners": False,
           "norm_cfg": {"type": "BatchNorm2d"}, "act_cfg": {"type": "ReLU", "inplace": True}, "backbone": backbone,
           "head": head, "auxiliary": auxiliary, "inference": inference,
           "losses": {"loss_cls": {"type": "CrossEntropyLoss", "scale_factor": 1.0, "ignore_index": 255,
                                   "reduction": "mean"}},
           "dataset": {"train": {"data_pipelines": []}}}
    return BuildSegmentor(cfg, mode="TEST")


class Segment(torch.nn.Module):
    """A segmentation service as ssseg's ``inference.py`` runs one image: normalised as the data pipeline does, the
    segmentor's ``inference`` (whole or sliding window, per its config), the class scores resized to the image."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.register_buffer("mean", torch.tensor(MEAN).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(STD).view(1, 3, 1, 1))

    def forward(self, x):
        images = (x * 255 - self.mean) / self.std
        scores = self.model.inference(images)
        return F.interpolate(scores, size=x.shape[2:], mode="bilinear", align_corners=self.model.align_corners)


class SegmentTTA(Segment):
    """The library's test-time augmentation (``auginference``: each scale, and its mirror image flipped by NumPy),
    every output resized to the image and averaged, as ``inference.py`` does."""

    def forward(self, x):
        images = (x * 255 - self.mean) / self.std
        outputs = self.model.auginference(images)
        outputs = [F.interpolate(o, size=x.shape[2:], mode="bilinear", align_corners=self.model.align_corners)
                   for o in outputs]
        return sum(outputs) / len(outputs)'''

_R18 = "resnet(18)"
_SLIDE = ('{"mode": "slide", "opts": {"cropsize": (64, 64), "stride": (48, 48)}, '
          '"tricks": {"multiscale": [1], "flip": False, "use_probs_before_resize": True}}')
_TTA = ('{"mode": "whole", "opts": {}, '
        '"tricks": {"multiscale": [0.75, 1.0, 1.25], "flip": True, "use_probs_before_resize": False}}')

# ---------------------------------------------------------------------------------------------------------------
# lightning-pose: the trackers (LightningModules) and their ``predict_step``, past ``lightning_pose.models``'s
# ``__init__``; its data package imports imgaug, aniposelib and scikit-learn's PCA (training augmentation, multi-camera
# calibration, the PCA losses), stood in.
_POSE = _QUIET_IMPORTS + '''

for _absent in ("imgaug", "imgaug.augmenters", "imgaug.augmenters.size", "imgaug.augmentables",
                "imgaug.augmentables.kps", "aniposelib", "aniposelib.cameras", "sklearn", "sklearn.decomposition",
                "sklearn.decomposition._pca", "sklearn.utils", "sklearn.utils._array_api", "sklearn.utils.extmath"):
    stand_in(_absent)
bare_package("lightning_pose.models")

from lightning_pose.models.heatmap_tracker import HeatmapTracker
from lightning_pose.models.heatmap_tracker_mhcrnn import HeatmapTrackerMHCRNN
from lightning_pose.models.regression_tracker import RegressionTracker

#: The library's image normalisation (ImageNet statistics on 0-1 pixels); 17 keypoints (a COCO-style body).
KEYPOINTS = 17
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


class Track(torch.nn.Module):
    """A pose service on crops: normalised images, the tracker's ``predict_step`` on a labeled-style batch whose
    bounding box is the whole crop (x, y, height, width), keypoints in crop pixels and their confidences."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.register_buffer("mean", torch.tensor(MEAN).view(3, 1, 1))
        self.register_buffer("std", torch.tensor(STD).view(3, 1, 1))

    def forward(self, x):
        images = (x - self.mean) / self.std
        height, width = x.shape[-2], x.shape[-1]
        bbox = torch.tensor([0.0, 0.0, height, width]).repeat(x.shape[0], 1)
        keypoints, confidence = self.model.predict_step({"images": images, "bbox": bbox}, 0)
        return keypoints.reshape(x.shape[0], -1, 2), confidence


def sharpen(tracker):
    """The heatmap head's deconvolutions re-initialised with gain 1: the library starts them at gain 0.01 for
    training, which leaves every random heatmap flat and every keypoint at the crop's centre; a trained head peaks."""
    for layer in tracker.head.modules():
        if isinstance(layer, torch.nn.ConvTranspose2d):
            torch.nn.init.xavier_uniform_(layer.weight)
    return tracker'''

MODELS75 = [
    # SSSegmentation: semantic segmentation, Cityscapes' 19 classes, 96x128 images.
    Spec("ssseg_pspnet_tta", "SSSegmentation PSPNet (ResNet-18, pyramid pooling 1/2/3/6) with multi-scale and flip "
         "test-time augmentation", _SEG,
         f'SegmentTTA(segmentor("PSPNet", {_R18}, {{"in_channels": 512, "feats_channels": 128, '
         f'"pool_scales": [1, 2, 3, 6], "dropout": 0.1}}, inference={_TTA}))',
         "return self.m(x)", "1, 3, 96, 128", _BHW, calibrate="self.m(xb)"),
    Spec("ssseg_deeplabv3plus_slide", "SSSegmentation DeepLabV3+ (ResNet-18, ASPP) with sliding-window inference "
         "(64-pixel crops, stride 48)", _SEG,
         f'Segment(segmentor("Deeplabv3Plus", {_R18}, {{"in_channels": [64, 512], "feats_channels": 128, '
         f'"shortcut_channels": 48, "dilations": [1, 12, 24, 36], "dropout": 0.1}}, inference={_SLIDE}))',
         "return self.m(x)", "1, 3, 96, 128", _BHW, calibrate="self.m(xb)"),
    Spec("ssseg_ocrnet_hrnet", "SSSegmentation OCRNet (HRNetV2-W18-small, object-contextual representations)", _SEG,
         'Segment(segmentor("OCRNet", {"type": "HRNet", "structure_type": "hrnetv2_w18_small", '
         '"arch": "hrnetv2_w18_small", "pretrained": False, "selected_indices": (0, 0)}, {"in_channels": 270, '
         '"feats_channels": 256, "transform_channels": 128, "scale": 1, "dropout": 0}, '
         '{"in_channels": 270, "out_channels": 256, "dropout": 0}))',
         "return self.m(x)", "1, 3, 96, 128", _BHW, calibrate="self.m(xb)"),
    Spec("ssseg_segformer_mitb0", "SSSegmentation SegFormer (MiT-B0, efficient self-attention)", _SEG,
         'Segment(segmentor("Segformer", {"type": "MixVisionTransformer", "structure_type": "mit-b0", '
         '"embed_dims": 32, "num_layers": [2, 2, 2, 2], "num_heads": [1, 2, 5, 8], "drop_path_rate": 0.1, '
         '"pretrained": False, "norm_cfg": {"type": "LayerNorm", "eps": 1e-6}, "selected_indices": (0, 1, 2, 3)}, '
         '{"in_channels_list": [32, 64, 160, 256], "feats_channels": 256, "dropout": 0.1}))',
         "return self.m(x)", "1, 3, 96, 128", _BHW, calibrate="self.m(xb)"),
    Spec("ssseg_icnet", "SSSegmentation ICNet (ResNet-50, image cascade at 1, 1/2 and 1/4 scale)", _SEG,
         'Segment(segmentor("ICNet", resnet(50, use_conv3x3_stem=True, selected_indices=(0, 1, 2)), {"encoder": {}, '
         '"in_channels_list": (64, 256, 256), "feats_channels": 128, "dropout": 0.1}))',
         "return self.m(x)", "1, 3, 96, 128", _BHW, calibrate="self.m(xb)"),
    Spec("ssseg_dmnet", "SSSegmentation DMNet (ResNet-18, dynamic filters generated per image)", _SEG,
         f'Segment(segmentor("DMNet", {_R18}, {{"in_channels": 512, "feats_channels": 128, '
         '"filter_sizes": [1, 3, 5, 7], "is_fusion": False, "dropout": 0.1}))',
         "return self.m(x)", "1, 3, 96, 128", _BHW, calibrate="self.m(xb)"),
    Spec("ssseg_emanet", "SSSegmentation EMANet (ResNet-18, expectation-maximisation attention, 3 stages)", _SEG,
         f'Segment(segmentor("EMANet", resnet(18, selected_indices=(2, 3)), {{"in_channels": 512, '
         '"feats_channels": 128, "momentum": 0.1, "num_stages": 3, "num_bases": 32, "dropout": 0.1}))',
         "return self.m(x)", "1, 3, 96, 128", _BHW, calibrate="self.m(xb)"),
    Spec("ssseg_lraspp_mobilenetv3", "SSSegmentation LR-ASPP (MobileNetV3-large)", _SEG,
         'Segment(segmentor("LRASPPNet", {"type": "MobileNetV3", "structure_type": "mobilenetv3_large", '
         '"pretrained": False, "outstride": 8, "arch_type": "large", "selected_indices": (0, 1, 2)}, '
         '{"in_channels_list": [16, 24, 960], "branch_channels_list": [32, 64], "feats_channels": 128, '
         '"dropout": 0.1}))',
         "return self.m(x)", "1, 3, 448, 448", _BHW, calibrate="self.m(xb)"),
    # lightning-pose: keypoints on crops (17 keypoints), random weights.
    Spec("lp_heatmap_resnet50", "lightning-pose HeatmapTracker (ResNet-50, heatmaps at 1/4, soft-argmax with "
         "sub-pixel upsampling and confidences)", _POSE,
         'Track(sharpen(HeatmapTracker(num_keypoints=KEYPOINTS, backbone="resnet50", downsample_factor=2, '
         'pretrained=False)))',
         "return self.m(x)", "1, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    Spec("lp_heatmap_efficientnet_b0", "lightning-pose HeatmapTracker (EfficientNet-B0, heatmaps at 1/8, three "
         "upsampling passes)", _POSE,
         'Track(sharpen(HeatmapTracker(num_keypoints=KEYPOINTS, backbone="efficientnet_b0", downsample_factor=3, '
         'pretrained=False)))',
         "return self.m(x)", "1, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    Spec("lp_regression_resnet50", "lightning-pose RegressionTracker (ResNet-50, keypoints by a linear layer)", _POSE,
         'Track(RegressionTracker(num_keypoints=KEYPOINTS, backbone="resnet50", pretrained=False))',
         "keypoints, _ = self.m(x)\n        return keypoints", "1, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    Spec("lp_mhcrnn_video", "lightning-pose HeatmapTrackerMHCRNN (ResNet-18, single-frame and 5-frame context heads, "
         "the more confident kept) on a video clip", _POSE,
         'Track(sharpen(HeatmapTrackerMHCRNN(num_keypoints=KEYPOINTS, backbone="resnet18", downsample_factor=2, '
         'pretrained=False)))',
         "return self.m(x)", "1, 5, 3, 128, 128", _CONTEXT, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS75, "real_zoo75", PINS75)
