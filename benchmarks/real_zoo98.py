"""A ninety-eighth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo98.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh to ninety-seventh, every model keeps the library's own tensor pre- and post-processing or
control flow inside the wrapper's forward: nemotron-ocr's FOTS detector read up to its compiled NMS (per-image square
padding, a float16 prior grid built from the map's size and cached per size, ``tanh``/``relu``/``hardtanh`` box heads,
the ``sigmoid`` confidence and the cells over a threshold by ``nonzero``) and its transformer recogniser with the
pipeline's ``logsumexp``/``argmax``/``gather`` read-out; tiatoolbox's SCCNN (a spatially constrained regression
layer that tiles a ``meshgrid`` buffer per batch and thresholds distances) and its ResNet-50 U-Net read as their
``infer_batch`` reads a batch (channels-last permutes, ``softmax``, a bilinear upsampling and a ``centre_crop`` whose
slices come from the sizes); x_dgcnn's dynamic-graph point networks (``cdist``/``topk`` neighbour tables rebuilt per
block, ``repeat`` and ``gather`` into (B, D, N, k) tables, a spatial transformer applied by ``bmm``) and its
differentiable ``subset_topk`` (a ``triu`` mask written by ``scatter_``, a straight-through hard k-hot); and WAPR's
render-and-compare pose networks with the estimator's pose algebra (``depth2xyzmap_batch`` on a ``meshgrid``,
``normalize_xyz_maps`` with in-place masked writes, ``so3_exp`` with a ``torch.where`` for small angles,
``egocentric_delta_pose_to_pose`` with an item write, ``poses_centered_to_original``, the WBPS group reshape checked
against ``L``, ``argmax`` selection by fancy indexing). The thirty-first zoo's pins (torchvision among them:
nemotron-ocr's RegNet imports its ``_internally_replaced_utils``, tiatoolbox's U-Net its ResNet ``Bottleneck``) and
four libraries no earlier zoo or sweep unpacked (``PINS98``: unpacked wheels like the others, never pip-installed):

- nemotron_ocr 2.0.2 ("NVIDIA Nemotron", nvidia.com; weights at huggingface.co/nvidia/nemotron-ocr-v1 and -v2, not
  used; Apache-2.0: Nemotron OCR, a FOTS-style text detector on a RegNet-Y trunk, a transformer recogniser and a
  relational model for reading order; imports as ``nemotron_ocr``).
- tiatoolbox 2.1.3 (TIA Centre, University of Warwick, github.com/TissueImageAnalytics/tiatoolbox, BSD-3-Clause for
  the code: the computational-pathology toolbox, with its own PyTorch ports of SCCNN, HoVer-Net, MicroNet, MapDe,
  NuClick and a ResNet-50 U-Net). Zoo 79 passed over it in the package list for its imports; here its ``models``
  packages are registered without their ``__init__`` and the rest stood in (below).
- x_dgcnn 0.3.0 (Kaidi Shen, github.com/kentechx/x-dgcnn, MIT: "X-DGCNN - Pytorch", DGCNN classification and
  segmentation with a pykeops or a torch k-NN and a differentiable subset top-k).
- wapr 0.0.11 (Yulin Wang, Southeast University, github.com/WangYuLin-SEU/WAPR, LGPL-2.1-only for the code, its
  weights under their own licence and not used: "Wide-angle pose refinement for unseen object 6D pose estimation",
  render-and-compare refinement of object poses and hypothesis scoring).

What the packages import beyond their networks: nemotron_ocr has no top-level ``__init__`` (a namespace package) and
its sub-package ``__init__`` files hold only licence headers; the detector and recogniser modules import torch and the
RegNet torchvision's ``_internally_replaced_utils``; the pipeline, the relational model, the quad rectifier and the
indirect grid sampler import the compiled ``nemotron_ocr_cpp`` (dropped by ``fetch_sources``) and are not imported;
``extractor`` builds its RegNet with ``pretrained=True`` (an ImageNet download), so the wrapper registers beside the
library's RegNet constructors one that passes ``pretrained=False`` and names it as the backbone. tiatoolbox's
``__init__`` imports PyYAML and sets up logging (used as published); ``tiatoolbox.models``' ``__init__`` (every
engine: WSI readers, zarr, dask, the annotation store) and ``models.architecture``' (timm, huggingface_hub, the
dataset module) are registered without them; ``architecture.utils`` imports scikit-image's ``peak_local_max``,
``label`` and ``regionprops`` (scikit-image is not installed; they serve the NumPy peak detection, not run): empty
``skimage`` modules holding those names as None (the dropped HoVer-Net and MicroNet also needed dask, more of
scikit-image and ``tiatoolbox.utils.misc``, stood in while they were tried).
x_dgcnn's ``dgcnn`` imports pykeops' ``LazyTensor``
(not installed; it compiles kernels at run time): an empty ``pykeops.torch`` with a None ``LazyTensor``, and the
library's own ``disable_keops()`` switches ``knn`` to its torch path. wapr's ``__init__`` resolves ``WAPREstimator``
lazily; ``wapr.nets`` imports torch and the light ``recipe``, ``model_metadata`` and ``pose_groups``; ``wapr.estimator``
imports NumPy, torch, ``nets`` and ``ogl``, whose module level imports NumPy and torch only (OpenGL, trimesh, cv2 and
kornia are imported inside the rendering functions, not called); the estimator object (an OpenGL renderer on CUDA)
is not built, its module-level pose functions are used as ``_refine`` and the WBPS selection use them. No weights are
downloaded or loaded (every network is built from its constructor: the RegNet as above, ``RefineNet`` and
``WbpsNet`` directly rather than by ``load_net``); nothing writes under the user's home. Nothing new in the ``bench``
extra.

Considered and dropped (by the package index, the wheels' files and metadata, a first reading of the code and, for
three tiatoolbox models, a first build): tiatoolbox's MapDe (MicroNet inside: 184.4 M parameters, 11 s for two
252x252 patches), HoVer-Net fast mode (37.6 M, 14 to 15.6 s for two 256x256 patches; zoo 9 ran MONAI's
HoVerNet), NuClick (66.8 M) and KongNet (an EfficientNetV2-L encoder); the watershed, peak-detection and
morphology post-processing of all of them (NumPy, SciPy, scikit-image, dask blocks). Within nemotron_ocr: the quad
NMS, ``rrect_to_quads``, the quad rectifier, the indirect grid sampler and the relational model (all calling the
compiled ``nemotron_ocr_cpp``), and ``interpolate_and_pad`` (it moves the batch to ``'cuda'`` unless the pad colour is
a CUDA tensor). Within wapr: the renderer, the crop-pair construction (``make_crop_pair``: OpenGL rendering, CUDA),
the 2-D detector (GroundingDINO Swin-B, SAM 2.1-L and DINOv2-L: far over 40 M) and the TensorRT engines.
efficientvit-gml 0.1.10 (a re-packaging of MIT Han Lab's EfficientViT, whose SAM variant zoo 67's efficientsam ran),
nemotron-graphic-elements-v1 1.0.0 (a YOLOX, banned), spinepose 2.1.0 and scrfd 0.3.0 (ONNX Runtime), segcraft 0.1.7
(segmentation-models-pytorch and transformers backends), solovision 0.0.1 (trackers with ReID models fetched by gdown),
rsisa 0.1.1 (GDAL and OpenCV, no network), tailcyclenet 0.4.1 (tracktail, dropped by zoo 97, and a YOLOX detector),
perceptra-detector 0.2.0 (wrappers of YOLO, DETR and RF-DETR), napari-nuclephaser 0.5.0 (ultralytics and yolov5),
mnfinder 1.2.3, morphodeep 0.1, midap 1.0.1 and deepvog 1.1.4 (TensorFlow), micronuclai 0.1.3 (Lightning; its top
package is named ``src``), fluospotter 0.2 (MONAI), muke 0.4.0 and dwposes 0.1.0 (MediaPipe; ONNX Runtime), nely-df3d
1.0.1 (PyQt5 and its own pose packages), dustrack 1.3.2 (a napari tool around DeepLabCut), hcsegment 0.1.4 (SciPy
and scikit-image, no network), hbb2obb 1.12.0
(ultralytics), pointtree 1.0.1 (compiled), x_dgcnn's pykeops path. DGCNN itself is not new to the project (zoo 50
ran torch-geometric's ``EdgeConv`` and DGCNN's sort aggregation): x_dgcnn is another implementation (a 4-D ``gather`` of
neighbour tables, a spatial transformer, a dynamic graph per block and ``subset_topk``), taken because no other new
point-cloud library with a pure-PyTorch path was found; it is the weaker test here.

8 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 97
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT
deployment:

nemotron_ocr (scene-text detection and recognition; BatchNorm, calibrated): "nemotron_fots": ``FOTSDetector`` in
``BOTH`` coordinate mode (the pipeline builds ``RBOX``; ``BOTH`` adds the quad head and its prior grid) on a
RegNet-Y-800MF trunk (the published config's RegNet-Y-8GF is 39 M alone), the FOTS merge branch to stride 4 (512, 256
and 128 channels), two ASPP blocks and the output convolution; RGB in [0, 1) padded per image to a square by
``pad_to_square`` (white, bottom-right) as ``_process_tensor`` does, the detector's own ImageNet normalisation with
float16 buffers, the quad offsets ``tanh`` times the 512 scope plus the float16 prior grid of
``output.get_prior_offsets`` (``arange``, ``repeat``, cached in a dict keyed by the map's size, moved with
``.to(y)``), the rotated boxes by ``relu`` and ``hardtanh`` times pi, the ``sigmoid`` confidence, then the cells over
the threshold (``nonzero`` and fancy indexing: the first step of the compiled ``quad_non_maximal_suppression``).
Threshold 0.525: random weights put the confidences between 0.50 and 0.54 (median 0.505), and the pipeline's 0.5
kept 5787 of 8192 cells; 0.525 keeps 229 (114 and 115). Outputs the confidence map (B, H/4, W/4), the quads (B, H/4,
W/4, 4, 2), the rotated boxes (B, H/4, W/4, 5) and the kept rows (n, 15) of quad, box, confidence and image, a set
(``unordered = ["output.3"]``). 15.82 M. Batch, height and width dynamic (multiples of 32). "nemotron_recognizer":
``TransformerRecognizer`` (``nic`` 128, the detector's last feature depth; depth 128, 3 post-norm encoder layers of 8
heads; 858 output tokens, a charset size of this zoo's choosing, the published one being read from the checkpoint;
``max_width`` -128, so that the position encoding is sliced to the region's width as for variable-width regions) on
rectified region features (N, 128, 8, W) as the indirect grid sampler hands them over, then the pipeline's read-out:
``logsumexp`` over the tokens, the ``argmax`` ids, their probabilities by ``gather``, subtraction and ``exp``.
Outputs the ids (N, T) and probabilities (N, T). 4.97 M. Regions and width dynamic.

tiatoolbox (nucleus detection and tissue segmentation on H&E patches): "tia_sccnn": ``SCCNN`` (the CRCHisto/CoNIC
layout: four valid convolutions, two max-pools and a 1x1 from a 31x31 patch to one cell, a 1x1 sigmoid layer giving
a centre (row, column) and a height, then ``spatially_constrained_layer2``: the registered 13x13 ``meshgrid`` buffers
tiled to the batch with ``torch.tile``, squared distances, a ``lt`` mask against the radius 12 cast to float, the
height over 1 + d/2; no BatchNorm) read as ``infer_batch`` reads it: channels-last patches (N, 31, 31, 3) in [0, 1)
(``preproc``'s scaling by 255 done), permuted to NCHW and the map back to channels last; 2.89 M. Outputs the
detection map (N, 13, 13, 1). Only the batch is dynamic (the grid's 13x13 is fixed at construction).
"tia_unet_tissue": ``UNetModel`` with the ``resnet50`` encoder (torchvision's ``ResNet`` and ``Bottleneck``, the
default decoder blocks, skips added; 5 classes as the BCSS tissue model; BatchNorm, calibrated) read as
``UNetModel.infer_batch`` reads it: channels-last patches in [0, 1) scaled to the reader's 0-255 (the network's
``_transform`` divides by 255 again), permuted to NCHW, ``softmax`` over the classes, a bilinear upsampling by 2 and
``centre_crop`` to half the patch (slices from the sizes), permuted back; the NumPy ``argmax`` of ``postproc`` left
out. Outputs the class probabilities (N, H/2, W/2, 5). 36.77 M. Batch, height and width dynamic (multiples of 32),
declared on the channels-last axes 1 and 2.

x_dgcnn (point clouds, (B, 3, N) coordinates in [0, 1) as both features and positions; BatchNorm, calibrated):
"dgcnn_part_topk": ``DGCNN_Seg`` (k 16, embedding 512, depth 3, a ``SpatialTransformNet``, dynamic graph, global
pooling; 8 part classes) and the library's ``subset_topk`` (hard, tau 0.5, k 32) over each point's best part score:
a ``topk``, a (k, k) ``triu`` boolean mask scattered over the ranks by ``scatter_``, ``masked_fill`` with the dtype's
lowest value, a softmax summed to a soft k-hot, then the straight-through hard k-hot (a second ``topk`` and
``scatter_`` into zeros, minus the detached soft one plus the soft one). Outputs the part logits (B, 8, N) and the
k-hot (B, N). 1.45 M. "dgcnn_cls": ``DGCNN_Cls`` (k 20, EdgeConv widths 64, 64, 128, 256, embedding 1024, dynamic
graph; 40 classes) with max and mean pooling and the MLP head, then ``softmax``. Outputs (B, 40). 1.81 M. Both:
``knn`` by ``cdist`` and ``topk(largest=False)``, ``EdgeConv.route``'s ``repeat`` and ``gather`` of (B, D, N, k)
tables and the max over the neighbours. Batch and points dynamic.

wapr (6-D object pose refinement and hypothesis selection; BatchNorm in the encoder, calibrated): both take packed
crop pairs (N, 8, H, W): observed RGB, observed depth, rendered RGB, rendered depth (depths scaled to 0.3 to 0.8 m),
turned into what ``make_crop_pair`` hands the networks by ``depth2xyzmap_batch`` (a crop intrinsics buffer, focal
200, principal point 80, 80, expanded per row) and ``normalize_xyz_maps`` (mesh diameter 0.4 m) about a hypothesis
pose with the identity rotation at the rendered crop's mean depth (the renderer's pose stands in: the wrapper's own
choice). "wapr_refine": ``RefineNet`` with 6 channels (the ``wapr_wo_mask``/``sapr`` kind: a dual-view residual
encoder with pair fusion, a sinusoidal position table interpolated to the map's size, a 2-layer post-norm token
stack, learned-query pools, translation and rotation heads) and one step of ``_refine``'s update: ``tanh`` times
``recipe.wapr_max_rot_rad`` (0.70), ``so3_exp``, the translation times the radius, ``egocentric_delta_pose_to_pose``
and ``poses_centered_to_original`` about a fixed mesh centre. Outputs the refined poses (N, 4, 4). 21.56 M. Batch,
height and width dynamic (the recipe's crop is 160x160). "wapr_wbps": ``WbpsNet`` (the same encoder and token stack,
pose and rotation pools, two post-norm rank blocks over each group's hypotheses, two scalar heads) on (count, L, 8, H,
W) hypotheses flattened to crop pairs, ``WbpsNet(A, B, L)`` (it checks the batch against L and reshapes to (N / L,
L)), then what ``estimate_many_categories_many_instances`` does: ``argmax`` of the within-group score, the picked
hypothesis pose by ``arange`` and fancy indexing, ``score_6d`` = (100 - max between-group) / 200. L 3 (in
``wbps_group_sizes``), 112x112 crops (160 cost 3 s for eight). Outputs the poses (count, 4, 4), the picked indices
(count,) and the scores (count,). 21.56 M. Only the batch (objects) is dynamic.

Inputs: (2, 3, 256, 256) for nemotron_fots, (4, 128, 8, 64) for nemotron_recognizer, (16, 31, 31, 3) for tia_sccnn,
(2, 256, 256, 3) for tia_unet_tissue, (2, 3, 1024) for both DGCNNs, (2, 8, 160, 160) for wapr_refine and (2, 3, 8, 112,
112) for wapr_wbps.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS98`` and ``make_zoo``, each model in its own process with one thread, one process at a time on a two-core
machine beside a test suite: at the spec's size, one more in the batch and, where more axes are dynamic, a larger
size. Changes made before any migrate run: nemotron_fots' threshold (above), the recogniser's ``max_width`` (-64
refused a width of 96: the encoding is sliced, never extended), wapr_wbps' crop size and group (160 and 4 took about
3 s), tia_unet_tissue's input scaling; MapDe, HoVer-Net and NuClick dropped after a build (above). Imports 4.5 to 6.3
s, builds 0.03 to 6.8 s with calibration. Forwards at the spec's size (two runs), one more in the batch, the larger
size: nemotron_fots 1.18 to 1.27 s (229 rows: 114 and 115; 1.72 to 1.79 s for three, 308; 2.49 to 2.83 s at 320x384,
1734 rows, the threshold set at 256), nemotron_recognizer 0.10 to 0.22 s (0.12 to 0.16 s for five; 0.16 to 0.19 s at
width 96), tia_sccnn 0.02 to 0.04 s (0.02 s for 17), tia_unet_tissue 0.78 to 0.99 s (1.14 to 1.47 s for three; 1.00
to 1.62 s at 320x288), dgcnn_part_topk 0.26 to 0.28 s (0.40 to 0.45 s for three; 0.45 to 0.46 s at 1536 points, 32
picked per cloud), dgcnn_cls 0.55 to 0.68 s (0.74 to 0.86 s; 0.74 to 0.88 s), wapr_refine 0.78 s (1.31 to 1.32 s for
three; 1.46 to 1.50 s at 192x224), wapr_wbps 0.94 to 1.24 s (1.51 to 1.57 s for three objects). Peak memory 0.37 to
0.81 GB a process.

Odd, left as the libraries have them: FOTS builds its prior grid in float16 and caches it in a Python dict keyed by
the map's size, normalises with float16 buffers and pads each image in a Python loop; the recogniser slices its
position encoding by the input's width; SCCNN tiles fixed-size grid buffers by the batch size and casts a comparison
to float; the U-Net's ``centre_crop`` computes its slices from the sizes in Python; x_dgcnn writes its rank mask with
``scatter_`` into a boolean tensor and indexes ``triu(1)`` with ``arange(k - 1)``, ``subset_topk``'s hard path
scatters into zeros; WAPR writes invalid xyz to zero by a boolean mask in place, ``so3_exp`` chooses the identity by
``torch.where`` on the angle, ``egocentric_delta_pose_to_pose`` writes one element of a ``zeros_like`` row in place,
``_right_multiply_center`` reads the centre's ``numel`` and shapes with ``int`` and raises on a mismatch, and
``WbpsNet`` checks the batch against L with ``int`` and raises ``ValueError``."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchvision among them: nemotron-ocr's RegNet imports its
#: ``_internally_replaced_utils``, tiatoolbox's U-Net its ResNet) and four libraries no earlier zoo or sweep unpacked,
#: unpacked wheels like the others (never pip-installed): nemotron_ocr (NVIDIA's FOTS text detector and transformer
#: recogniser), tiatoolbox (TIA Centre's SCCNN nucleus detector and ResNet-50 U-Net), x_dgcnn (DGCNN point networks
#: with a differentiable subset top-k) and wapr (render-and-compare 6-D pose refinement and hypothesis scoring).
PINS98 = {**PINS31, "nemotron_ocr": "2.0.2", "tiatoolbox": "2.1.3", "x_dgcnn": "0.3.0", "wapr": "0.0.11"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_BW = 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }'
#: Channels-last patches, as tiatoolbox's ``infer_batch`` takes them.
_NHWC = 'dynamic_axes = { x = { 0 = "batch", 1 = "height", 2 = "width" } }'
_POINTS = 'dynamic_axes = { x = { 0 = "batch", 2 = "points" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# nemotron_ocr: no top-level ``__init__`` (a namespace package); the ``inference``, ``models`` and ``detector``
# ``__init__`` files hold only a licence header. The detector and recogniser modules import torch and, for the RegNet,
# torchvision's ``_internally_replaced_utils`` (its ``load_state_dict_from_url``, called only for pretrained weights);
# ``pre_processing`` imports torch. The pipeline, the relational model, the quad rectifier and the indirect grid sampler
# import the compiled ``nemotron_ocr_cpp`` (dropped by fetch_sources): not imported. ``extractor`` builds its RegNet
# with ``pretrained=True`` (an ImageNet download): the wrapper registers beside the library's RegNet constructors one
# that passes ``pretrained=False`` and names it as the backbone (random weights).
_NEMOTRON = _SHARED + '''
from nemotron_ocr.inference.models.detector import regnet
from nemotron_ocr.inference.models.detector.fots_detector import FOTSDetector
from nemotron_ocr.inference.models.recognizer import TransformerRecognizer
from nemotron_ocr.inference.pre_processing import pad_to_square


def _random_backbone(name):
    """A RegNet constructor under a new name in the library's module that ignores ``pretrained`` (no download)."""
    build = getattr(regnet, name)
    setattr(regnet, "random_" + name, lambda pretrained=False, **kwargs: build(pretrained=False, **kwargs))
    return "random_" + name


class TextDetector(torch.nn.Module):
    """nemotron-ocr's ``FOTSDetector`` (a RegNet-Y trunk, the FOTS merge branch to stride 4, two ASPP blocks and the
    output convolutions; random weights) read as ``NemotronOCR._process_tensor`` reads it up to the compiled NMS: per
    image ``pad_to_square`` (bottom-right, white), the detector (the ImageNet normalisation with its float16 buffers,
    the quad offsets ``tanh``-scaled and shifted by the float16 prior grid that ``output.get_prior_offsets`` builds
    from the map's size with ``arange``/``repeat`` and caches per size, the rotated boxes by ``relu`` and ``hardtanh``
    times pi), the ``sigmoid`` confidence; then the cells over the pipeline's probability threshold, the first step of
    ``quad_non_maximal_suppression`` (C++, not run). Outputs the confidence map (B, H/4, W/4), the quads (B, H/4,
    W/4, 4, 2), the rotated boxes (B, H/4, W/4, 5) and the rows (n, 15) of the kept cells: quad, box, confidence,
    image."""

    def __init__(self, backbone="regnet_y_800mf", threshold=0.525, scope=512):
        super().__init__()
        self.net = FOTSDetector(verbose=False, coordinate_mode="BOTH", backbone=_random_backbone(backbone),
                                scope=scope)
        self.threshold = threshold

    def forward(self, images):
        side = max(images.shape[2], images.shape[3])
        padded = torch.stack([pad_to_square(image, side, how="bottom_right") for image in images])
        conf, quads, rboxes, _ = self.net(padded)
        prob = torch.sigmoid(conf)
        keep = torch.nonzero(prob > self.threshold)
        rows = torch.cat([quads[keep[:, 0], keep[:, 1], keep[:, 2]].flatten(1).float(),
                          rboxes[keep[:, 0], keep[:, 1], keep[:, 2]].float(),
                          prob[keep[:, 0], keep[:, 1], keep[:, 2]][:, None],
                          keep[:, :1].float()], 1)
        return prob, quads.float(), rboxes, rows


class TextRecognizer(torch.nn.Module):
    """nemotron-ocr's ``TransformerRecognizer`` (a convolutional encoder pooling the 8 rows of a rectified region to
    one, a learned position encoding, a transformer encoder and the token classifier; random weights) on rectified
    region features (N, 128, 8, W) as the pipeline's indirect grid sampler hands them over, then the pipeline's read-out
    on tensors: ``logsumexp`` over the tokens, the ``argmax`` ids and their probabilities by ``gather`` and ``exp``.
    With a negative ``max_width`` the position encoding is sliced to the region's width (``fixed_width`` False).
    Outputs the token ids (N, T) and their probabilities (N, T); the character table and the relational model
    (compiled) are left out."""

    def __init__(self, max_width=-128, num_tokens=858, depth=128, num_layers=3, nhead=8, norm_first=False,
                 use_pre_norm=False, use_final_norm=False):
        super().__init__()
        self.net = TransformerRecognizer(nic=128, num_tokens=num_tokens, max_width=max_width, depth=depth,
                                         num_layers=num_layers, nhead=nhead, norm_first=norm_first,
                                         use_pre_norm=use_pre_norm, use_final_norm=use_final_norm)

    def forward(self, regions):
        rec_output, _ = self.net(regions)
        rec_logits = rec_output.float()
        log_norm = rec_logits.logsumexp(dim=2, keepdim=True)
        seq_ids = rec_logits.argmax(dim=2)
        seq_probs = (rec_logits.gather(2, seq_ids.unsqueeze(2)) - log_norm).squeeze(2).exp()
        return seq_ids, seq_probs'''

# ---------------------------------------------------------------------------------------------------------------
# tiatoolbox: the package ``__init__`` imports PyYAML and sets up logging (used as published). ``tiatoolbox.models``'
# ``__init__`` imports every engine (WSI readers, zarr, dask, the annotation store) and ``models.architecture``'s
# timm, huggingface_hub and the dataset module: both registered without their ``__init__``. ``architecture.utils``
# imports scikit-image's ``peak_local_max``, ``label`` and ``regionprops`` (scikit-image is not installed; they serve
# the NumPy peak detection, not run): empty modules with those names set to None. ``sccnn`` and ``unet`` import torch,
# NumPy, ``architecture.utils``, ``models_abc`` and, for the U-Net, torchvision's ResNet.
_TIA = _SHARED + '''
for _name in ["skimage", "skimage.feature", "skimage.measure"]:
    _not_installed(_name)
sys.modules["skimage.feature"].peak_local_max = None
sys.modules["skimage.measure"].label = sys.modules["skimage.measure"].regionprops = None
import tiatoolbox  # noqa: F401  (its ``__init__`` sets up the ``logger`` the modules import)
_without_init("tiatoolbox.models")
_without_init("tiatoolbox.models.architecture")
from tiatoolbox.models.architecture.sccnn import SCCNN
from tiatoolbox.models.architecture.unet import UNetModel
from tiatoolbox.models.architecture.utils import centre_crop


class Nuclei(torch.nn.Module):
    """A tiatoolbox nucleus detector (random weights) read as its ``infer_batch`` reads a batch: channels-last patches
    (N, H, W, 3) in [0, 1) (the ``preproc`` scaling by 255 done), permuted to NCHW, the network, the map permuted back
    to channels last. The NumPy peak detection (``peak_detection_map_overlap``: scikit-image's ``peak_local_max`` in
    dask blocks) is left out. Outputs the detection map (N, h, w, C)."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, patches):
        pred = self.net(patches.permute(0, 3, 1, 2).contiguous())
        return pred.permute(0, 2, 3, 1).contiguous()


class Tissue(torch.nn.Module):
    """tiatoolbox's ``UNetModel`` (the ``fcn_resnet50_unet`` kind: a ResNet-50 encoder from torchvision's ``ResNet``
    and ``Bottleneck``, a 1x1 bottleneck, decoder blocks that upsample by 2 and add the encoder's skips; random
    weights) read as ``UNetModel.infer_batch`` reads a batch: channels-last patches (here in [0, 1), scaled to the
    reader's 0-255) permuted to NCHW, the network (its ``_transform`` divides by 255 again), ``softmax`` over the
    classes, a bilinear upsampling by 2, ``centre_crop`` to half the patch (slices computed from the sizes) and the
    permute to channels last. The NumPy ``argmax`` of ``postproc`` is left out. Outputs the class probabilities (N,
    H/2, W/2, C)."""

    def __init__(self, classes=5):
        super().__init__()
        self.net = UNetModel(num_input_channels=3, num_output_channels=classes, encoder="resnet50")

    def forward(self, patches):
        imgs = (patches * 255.0).permute(0, 3, 1, 2)
        h, w = imgs.shape[2], imgs.shape[3]
        probs = torch.nn.functional.softmax(self.net(imgs), 1)
        probs = torch.nn.functional.interpolate(probs, scale_factor=2, mode="bilinear", align_corners=False)
        return centre_crop(probs, [h // 2, w // 2]).permute(0, 2, 3, 1)'''

# ---------------------------------------------------------------------------------------------------------------
# x_dgcnn: the package ``__init__`` imports ``dgcnn`` and ``route``; ``dgcnn`` imports pykeops' ``LazyTensor``
# (pykeops compiles its kernels at run time; not installed): an empty ``pykeops.torch`` module holding a None
# ``LazyTensor``, and the library's own ``disable_keops()`` switches ``knn`` to its torch path (``cdist`` and ``topk``).
_DGCNN = _SHARED + '''
_not_installed("pykeops")
_not_installed("pykeops.torch").LazyTensor = None
import x_dgcnn
from x_dgcnn import DGCNN_Cls, DGCNN_Seg, SpatialTransformNet, subset_topk

x_dgcnn.disable_keops()


class PartPoints(torch.nn.Module):
    """x_dgcnn's ``DGCNN_Seg`` (random weights): k-nearest neighbours of the coordinates (``cdist`` and ``topk``), a
    spatial transformer (an EdgeConv, a max over the points, an MLP to a 3x3 matrix applied by ``bmm``), EdgeConv
    blocks that rebuild the neighbour graph from each block's features (``repeat`` and ``gather`` of (B, D, N, k)
    neighbour tables, a max over the neighbours), a global max-pooled feature added back to every point and the
    per-point head; then the points picked by the library's ``subset_topk`` (a ``topk``, a ``triu`` mask written by
    ``scatter_`` over the ranks, ``masked_fill``, a softmax, a straight-through hard k-hot by ``topk`` and
    ``scatter_``) over each point's best part score. Outputs the per-point part logits (B, P, N) and the k-hot
    (B, N)."""

    def __init__(self, parts=8, k=16, picked=32, emb_dim=512):
        super().__init__()
        self.net = DGCNN_Seg(3, parts, k, emb_dim=emb_dim, stn=SpatialTransformNet(k))
        self.picked = picked

    def forward(self, points):
        logits = self.net(points, points)
        return logits, subset_topk(logits.max(1).values, self.picked, tau=0.5, hard=True)


class Shapes(torch.nn.Module):
    """x_dgcnn's ``DGCNN_Cls`` (random weights): the neighbour graph of the coordinates once, EdgeConv blocks on
    a static graph (``dynamic=False``) or rebuilt per block, max and mean pooling and the MLP head; then the class
    probabilities. Outputs the class probabilities (B, C)."""

    def __init__(self, classes=40, k=20, dynamic=True, dims=(64, 64, 128, 256), emb_dim=1024):
        super().__init__()
        self.net = DGCNN_Cls(3, classes, k, dims=dims, emb_dim=emb_dim, dynamic=dynamic)

    def forward(self, points):
        return self.net(points, points).softmax(-1)'''

# ---------------------------------------------------------------------------------------------------------------
# wapr: the package ``__init__`` imports ``sys`` and resolves ``WAPREstimator`` lazily. ``wapr.nets`` imports torch and
# the light ``recipe``, ``model_metadata`` and ``pose_groups`` modules; ``wapr.estimator`` imports NumPy, torch,
# ``nets`` and ``ogl`` (its module level imports NumPy and torch; OpenGL, trimesh, cv2 and kornia are imported inside
# the rendering functions, not called). The estimator object (OpenGL renderer, CUDA) is not built; its module-level
# pose functions are used as ``_refine`` and the WBPS selection use them. No weights are loaded (the networks are
# built from their constructors, not ``load_net``).
_WAPR = _SHARED + """
from wapr import recipe
from wapr.estimator import egocentric_delta_pose_to_pose, poses_centered_to_original, so3_exp
from wapr.nets import RefineNet, WbpsNet
from wapr.ogl import depth2xyzmap_batch, normalize_xyz_maps


class CropPairs(torch.nn.Module):
    \"\"\"What ``make_crop_pair`` hands the networks, from a packed crop pair (N, 8, H, W): observed RGB and depth (in
    metres, here 0.3 to 0.8), rendered RGB and depth. Both depths go through ``depth2xyzmap_batch`` (an
    ``arange``/``meshgrid`` pixel grid, the crop intrinsics ``K`` expanded per row, ``< 0.001`` invalid, an in-place
    masked write) and ``normalize_xyz_maps`` (minus the hypothesis translation, over the mesh radius, ``|xyz| >= 2``
    invalid and zeroed in place); the hypothesis pose is the identity rotation at the rendered crop's mean depth.\"\"\"

    def __init__(self, diameter=0.4, focal=200.0):
        super().__init__()
        self.diameter = diameter
        self.register_buffer("K", torch.tensor([[focal, 0.0, 80.0], [0.0, focal, 80.0], [0.0, 0.0, 1.0]]))

    def pair(self, crops):
        n = crops.shape[0]
        Ks = self.K.expand(n, 3, 3)
        depth_a, depth_b = 0.3 + 0.5 * crops[:, 3], 0.3 + 0.5 * crops[:, 7]
        pose = torch.eye(4, dtype=crops.dtype).repeat(n, 1, 1)
        pose[:, 2, 3] = depth_b.flatten(1).mean(1)
        xyz_a = normalize_xyz_maps(depth2xyzmap_batch(depth_a, Ks).permute(0, 3, 1, 2), pose, self.diameter)
        xyz_b = normalize_xyz_maps(depth2xyzmap_batch(depth_b, Ks).permute(0, 3, 1, 2), pose, self.diameter)
        return torch.cat([crops[:, :3], xyz_a], 1), torch.cat([crops[:, 4:7], xyz_b], 1), pose


class Refine(CropPairs):
    \"\"\"wapr's ``RefineNet`` (6 channels: the ``wapr_wo_mask``/``sapr`` kind; random weights: a dual-view residual
    encoder with pair fusion, sinusoidal position encoding interpolated to the map's size, a post-norm token stack,
    learned-query pools, translation and rotation heads) and one step of ``WAPREstimator._refine`` on tensors: the
    rotation head through ``tanh`` times ``recipe.wapr_max_rot_rad``, ``so3_exp`` (Rodrigues with a ``torch.where``
    for near-zero angles), the translation head times the radius, ``egocentric_delta_pose_to_pose`` (an in-place item
    write of the homogeneous row) and ``poses_centered_to_original`` (a shift matrix built by ``eye``, ``expand``,
    ``clone`` and a slice write). Outputs the refined poses (N, 4, 4).\"\"\"

    def __init__(self, center=(0.01, -0.02, 0.005), **kwargs):
        super().__init__(**kwargs)
        self.net = RefineNet(recipe.channels["sapr"])
        self.center = center

    def forward(self, crops):
        A, B, pose = self.pair(crops)
        pred = self.net(A, B)
        rot_mat = so3_exp(torch.tanh(pred["rot"]) * float(recipe.wapr_max_rot_rad))
        dia = torch.full((crops.shape[0],), self.diameter, dtype=crops.dtype)
        trans = pred["trans"] * (dia.reshape(-1, 1) / 2.0)
        poses = egocentric_delta_pose_to_pose(pose, trans, rot_mat)
        return poses_centered_to_original(poses, torch.tensor(self.center, dtype=crops.dtype))


class Select(CropPairs):
    \"\"\"wapr's ``WbpsNet`` (random weights: the same encoder and token stack, two learned-query pools, two post-norm
    rank blocks over each group's L hypotheses, two scalar heads) read as ``estimate_many_categories_many_instances``
    reads it: the hypotheses of each object (count, L, 8, H, W) flattened to crop pairs, ``WbpsNet(A, B, L)`` (which
    checks the batch against L and reshapes to (N / L, L)), the best hypothesis by ``argmax`` of the within-group
    score, its pose picked by fancy indexing, and ``score_6d`` = (100 - max between-group) / 200. Outputs the picked
    poses (count, 4, 4), the picked indices (count,) and the scores (count,).\"\"\"

    def __init__(self, group=4, **kwargs):
        super().__init__(**kwargs)
        self.net = WbpsNet(recipe.channels["wbps"])
        self.group = group

    def forward(self, hypotheses):
        count, group = hypotheses.shape[0], hypotheses.shape[1]
        A, B, poses = self.pair(hypotheses.flatten(0, 1))
        out = self.net(A, B, L=group)
        within_group = out["within_group"].reshape(count, group)
        between_group = out["between_group"].reshape(count, group)
        best = within_group.argmax(dim=1)
        selected = poses.reshape(count, group, 4, 4)[torch.arange(count), best]
        return selected, best, (100.0 - between_group.max(dim=1).values) / 200.0"""

MODELS98 = [
    # nemotron_ocr: FOTS text detection up to the compiled NMS; the transformer recogniser with its greedy read-out.
    Spec("nemotron_fots", "nemotron_ocr FOTSDetector (RegNet-Y-800MF, ASPP, quads and rboxes) with cell threshold",
         _NEMOTRON, "TextDetector()", "return self.m(x)", "2, 3, 256, 256",
         _BHW + '\nunordered = ["output.3"]', calibrate="self.m.net(xb)"),
    Spec("nemotron_recognizer", "nemotron_ocr TransformerRecognizer (variable width) with logsumexp/argmax read-out",
         _NEMOTRON, "TextRecognizer()", "return self.m(x)", "4, 128, 8, 64", _BW, calibrate="self.m.net(xb)"),
    # tiatoolbox: nucleus detection maps.
    Spec("tia_unet_tissue", "tiatoolbox UNetModel (ResNet-50 encoder) with infer_batch's softmax, upsampling and crop",
         _TIA, "Tissue()", "return self.m(x)", "2, 256, 256, 3", _NHWC,
         calibrate="self.m.net(xb.permute(0, 3, 1, 2) * 255.0)"),
    Spec("tia_sccnn", "tiatoolbox SCCNN (spatially constrained regression on a meshgrid)", _TIA,
         "Nuclei(SCCNN())", "return self.m(x)", "16, 31, 31, 3", _B),
    # x_dgcnn: dynamic-graph point networks.
    Spec("dgcnn_part_topk", "x_dgcnn DGCNN_Seg (STN, dynamic kNN graph) with subset_topk point picking", _DGCNN,
         "PartPoints()", "return self.m(x)", "2, 3, 1024", _POINTS, calibrate="self.m.net(xb, xb)"),
    Spec("dgcnn_cls", "x_dgcnn DGCNN_Cls (dynamic kNN graph, max and mean pooling)", _DGCNN,
         "Shapes()", "return self.m(x)", "2, 3, 1024", _POINTS, calibrate="self.m.net(xb, xb)"),
    # wapr: render-and-compare 6-D pose refinement and hypothesis selection with the estimator's pose algebra.
    Spec("wapr_refine", "wapr RefineNet (dual-view encoder, token stack) with so3_exp and the egocentric pose update",
         _WAPR, "Refine()", "return self.m(x)", "2, 8, 160, 160", _BHW,
         calibrate="self.m.net(*self.m.pair(xb)[:2])"),
    Spec("wapr_wbps", "wapr WbpsNet (grouped hypothesis ranking) with argmax selection and score_6d", _WAPR,
         "Select()", "return self.m(x)", "2, 3, 8, 112, 112", _B,
         calibrate="self.m.net(*self.m.pair(xb.flatten(0, 1))[:2], L=xb.shape[1])"),
]

if __name__ == "__main__":
    main(MODELS98, "real_zoo98", PINS98)
