"""A fifty-eighth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo58.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on OCR: scene-text detection (segmentation maps, their binarisation and
morphology, reparameterised convolutions) and recognition (CTC readers, attention decoders whose greedy loops run inside
the forward, a permuted autoregressive transformer), and the orientation classifier an OCR pipeline runs on crops: the
thirty-first zoo's pins and one library by other authors, whose code no earlier zoo or sweep ran, with two pure-Python
packages it imports (``PINS58``: unpacked wheels like the others, never pip-installed): python-doctr 1.1.0 (Mindee's
docTR, maintained by François-Guillaume Fernandez, Charles Gaillard, Olivier Dulcy and Felix Dittrich,
github.com/mindee/doctr: PyTorch only since 1.0; DBNet, LinkNet and FAST detectors over torchvision-style backbones cut
by ``IntermediateLayerGetter``, FAST's ``reparameterize`` folding RepConvLayer branches and BatchNorm into single
convolutions, erode and dilate by max pooling; CRNN and VIPTR with CTC heads over the width's steps, SAR's Python loop
of LSTMCells with 2-D attention and each step's argmax fed back one-hot, MASTER's greedy loop that rebuilds its masks
each step, writes the argmax into the sequence by index and breaks once every sequence has emitted EOS, ViTSTR, PARSeq's
autoregressive loop with per-step query masks and one refinement pass whose padding mask comes from a cumulative sum
of EOS; MobileNetV3 orientation classifiers; its PreProcessor's normalisation), anyascii 0.3.3 (Hunter WB,
github.com/anyascii/anyascii: transliteration tables; docTR's vocabulary mapping imports it) and validators 0.36.0
(Konsta Vesterinen and the python-validators contributors, github.com/python-validators/validators: docTR's weight
loader imports it to tell URLs from paths). docTR also imports, at package import, shapely, pyclipper, pypdfium2, h5py
and rapidfuzz (compiled, none in the venv) and langdetect (no wheel) for its polygon post-processing, PDF reading,
datasets, string metrics and language detection: used by no model here, so the user's module stands in those 8
modules with one placeholder class (an Exception subclass, since docTR catches langdetect's exception) for each of the
10 names docTR imports from them, as zoo 55's does for rasterio; OpenCV, SciPy, Pillow, tqdm and huggingface_hub come
from the venv (OpenCV is imported but called by no forward here). Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): a second OCR
library: the PyPI OCR libraries with plain PyTorch models are in earlier zoos (craft_detector, legere in zoo 32,
easypaddleocr, captix and arabicocr-khatt in zoo 37) or were dropped by them for their imports (easyocr, cnocr, cnstd,
toddleocr), and docTR alone gives ten architectures no zoo ran; docTR's older wheels (0.x: TensorFlow and PyTorch
backends; 1.1.0 is the newest and needs only torch 2 and torchvision). Earlier zoos (17, 27, 34, 37) dropped docTR for
its compiled imports; the stand-ins above are what changed. Within docTR: its predictors (``ocr_predictor``,
``detection_predictor``, ``recognition_predictor``, ``crop_orientation_predictor``: NumPy pages in, resizing, box
extraction and crop rotation by OpenCV, strings out) and the detectors' post-processors (OpenCV contours, pyclipper's
unclip, shapely polygons): only their torch halves are here; the models' non-exportable forward paths (they run the
string post-processors inside the forward), so every model is built with ``exportable=True``, docTR's own ONNX path,
and returns logits; DBNet with ``deform_conv`` (torchvision's compiled ``deform_conv2d``, which the torchvision stand-in
does not define); DBNet on ResNet-34 and ResNet-50, LinkNet on ResNet-34 and ResNet-50, FAST-small and FAST-base,
crnn_vgg16_bn and crnn_mobilenet_v3_large, ViTSTR-base and the page orientation classifier (the same code as the chosen
ones, larger); LW-DETR (document layout, not text: its ViTDet backbone's position embeddings are built for 1024-pixel
pages), TableCenterNet (table structure; SciPy's ``griddata`` and shapely in its post-processing) and the reading-order
and KIE predictors (NumPy and SciPy graphs); PARSeq's training permutations.

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 56 or
in the library sweeps (benchmarks/sweep_*.py), all 10 from docTR and all of the kinds that often need work for an ONNX
or TensorRT deployment (Python decoding loops with argmax fed back, index writes into a sequence tensor, a
data-dependent ``break`` on ``.all()`` of a comparison, masks sliced per step and built from cumulative sums,
interpolation to ``x.shape[-2:]``, convolutions folded at construction, max-pool morphology, comparisons to Python
thresholds, gathers, lookups by argmax, reshapes of feature maps into sequences by their sizes). Detection, on page
images: DBNet on MobileNetV3-Large with an FPN of 64 (the probability map and the binary map at its post-processor's
threshold, 0.3); LinkNet on ResNet-18 (the probability map, binarised at the user's 0.5 and opened by docTR's ``erode``
and ``dilate``); FAST-tiny reparameterised after calibration (``Spec.finish``), its max-pool kernel dilation, sigmoid
and binary map at 0.1. Recognition, on word crops: CRNN on MobileNetV3-small and VIPTR-tiny with CTC logits and the
tensor half of docTR's CTC best path (each step's class, the collapse as a mask: not blank, not a repeat; the least
confident step's probability); SAR on ResNet-31 (16 characters, 128 attention units: its LSTM widths must equal the
backbone's 512), MASTER (one decoder layer of 512, 4 heads, a feed-forward of 512, 16 characters), ViTSTR-small and
PARSeq (16 characters each), each with its logits, each step's class and the word's confidence as docTR's MASTER
post-processor computes them. Orientation: the crop orientation classifier (MobileNetV3-small) with the class, the angle
looked up in its classes (0, -90, 180, 90) and the confidence, as OrientationPredictor reads them. Every model gets the
normalisation of docTR's PreProcessor with its own mean and std (torchvision's ``Normalize``); vocabularies are docTR's
defaults (French, 126 characters).

Each is small where the constructors let it be and has the dynamic axes a deploying user declares: batch, height and
width for the detectors (64x96 pages; multiples of 32) and the orientation classifier (128x128 crops: its pooling takes
any size); batch and width for CRNN, VIPTR, SAR and MASTER on (batch, 3, 32, 128) crops (recognisers have a fixed
height); the batch only for ViTSTR and PARSeq, whose ViT on 4x8 patches adds a position embedding of the 32x128 grid
(docTR interpolates it only for square patches: a 160-pixel crop fails with 161 tokens against 129). All inputs are in
[0, 1). BatchNorm statistics come from the calibration pass for the eight models with BatchNorm (ViTSTR and PARSeq have
LayerNorm only). No output is set-valued. The wrappers were checked only for building and running eagerly
(deterministic over two forwards, finite outputs, outputs differing across the batch) before the first migrate run,
with a source tree unpacked by ``fetch_sources`` from ``PINS58`` and ``make_zoo``: at the spec's size, one more in the
batch, larger dynamic sizes (pages 96x128, orientation crops 160x144, word crops 32x160; ViTSTR and PARSeq the batch
alone) and both; with one thread on the shared two cores, each model and size in its own process (load average 0.4 to
0.8), the best of two forwards at the spec's size took 0.016 s for DBNet, 0.033 s LinkNet, 0.026 s FAST, 0.010 s CRNN,
0.029 s VIPTR, 0.40 s SAR, 0.44 s MASTER, 0.17 s ViTSTR, 0.25 s PARSeq and 0.009 s the orientation classifier; at the
larger sizes with a batch of 3 at most 0.029, 0.058, 0.064, 0.012, 0.044, 0.74, 0.73, 0.29 (batch 3), 0.44 (batch 3) and
0.016 s; builds (docTR's package import, about 1.6 s, and the calibration included) took 2.5 to 5.3 s. Changed after
the first eager run, before any migrate run: LinkNet's threshold from its default 0.1 (every pixel of the opened map was
1 with random weights) to 0.5 (3 % of the pixels, differing across the batch), the orientation crops from 64x64 to
128x128, and MASTER's axes from the batch alone to batch and width once it ran at 32x160 (its positional encoding is a
table longer than the feature map). Odd, left as the library has it: with random weights MASTER picks class 50 at every
step for every crop (its logits differ across the batch by 2e-3 only) and the orientation classifier's four
probabilities are all near 0.25 (the same class for every crop at 128x128; confidences differ by 1e-3 to 5e-3);
MASTER's early ``break`` never fires here (no crop emits EOS at every position), nor does PARSeq's, which docTR skips
anyway when ``exportable`` is set; SAR's ``rnn_units`` and ``embedding_units`` must stay 512 (smaller fail in its
LSTMCells); DBNet's constructor runs its backbone once on a 224x224 zero image to size its FPN."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and one library by other authors, with the two pure-Python packages it imports that the
#: venv lacks, unpacked wheels like the others (never pip-installed): python-doctr (Mindee's docTR: DBNet, LinkNet and
#: FAST text detectors, CRNN, SAR, MASTER, ViTSTR, PARSeq and VIPTR recognisers, orientation classifiers, PyTorch),
#: anyascii (Hunter WB: transliteration tables, which docTR's vocabulary mapping imports) and validators (Konsta
#: Vesterinen and contributors: URL checks, which docTR's weight loader imports).
PINS58 = {**PINS31, "python_doctr": "1.1.0", "anyascii": "0.3.3", "validators": "0.36.0"}

#: The user's inputs: page images (batch, 3, height, width) and word crops (batch, 3, 32, width), all in [0, 1).
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_BW = 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }'
_B = 'dynamic_axes = { x = { 0 = "batch" } }'

# ---------------------------------------------------------------------------------------------------------------
# docTR imports shapely, pyclipper, pypdfium2, h5py, rapidfuzz and langdetect at package import (compiled, or no wheel:
# none in the venv) for its polygon post-processing, PDF reading, datasets, string metrics and language detection. No
# model here calls them: the user's module stands in those modules with one placeholder class for every name docTR
# imports from them (as zoo 55's does for rasterio and the others). OpenCV, SciPy, Pillow, tqdm and huggingface_hub
# come from the venv.
_DT = '''import types


class OCRStandIn(Exception):
    """A shapely, pyclipper, pypdfium2, h5py, rapidfuzz or langdetect name that docTR imports at package import (no
    model here uses it; an exception class, since docTR catches langdetect's)."""

    def __init__(self, *args, **kwargs):
        super().__init__()


for _name, _attrs in {"shapely": ["STRtree", "area", "contains_xy", "intersection", "polygons", "prepare"],
                      "shapely.geometry": ["Polygon"], "pyclipper": [], "pypdfium2": [], "h5py": [],
                      "rapidfuzz": [], "rapidfuzz.distance": ["Hamming"],
                      "langdetect": ["LangDetectException", "detect_langs"]}.items():
    _stub = sys.modules.setdefault(_name, types.ModuleType(_name))
    for _attr in _attrs:
        setattr(_stub, _attr, OCRStandIn)

import doctr.models as dm
from doctr.models.detection._utils import dilate, erode
from doctr.models.detection.fast import reparameterize
from doctr.models.preprocessor import PreProcessor

#: What every docTR model here is built with: random weights, nothing downloaded, the ONNX path (logits only).
RANDOM = dict(pretrained=False, pretrained_backbone=False, exportable=True)


def normalize(model):
    """The normalisation docTR's predictors apply before the model: its PreProcessor's, with the model's mean and
    std."""
    cfg = model.cfg
    return PreProcessor(cfg["input_shape"][1:], 1, mean=cfg["mean"], std=cfg["std"]).normalize


def greedy(logits):
    """The tensor half of docTR's attention post-processors: each step's class and the word's confidence (the least
    confident step's probability, MASTER's rule)."""
    idx = logits.argmax(-1)
    probs = torch.gather(torch.softmax(logits, -1), -1, idx.unsqueeze(-1)).squeeze(-1)
    return idx, probs.min(dim=1).values.clamp(0, 1)


class DBNetMaps(torch.nn.Module):
    """DBNet (MobileNetV3-Large through IntermediateLayerGetter, an FPN of 64 channels) with the torch half of its
    post-processing: the probability map and the binary map at its post-processor's threshold."""

    def __init__(self):
        super().__init__()
        self.db = dm.db_mobilenet_v3_large(**RANDOM, head_chans=64)
        self.norm = normalize(self.db)

    def forward(self, x):
        prob = torch.sigmoid(self.db(self.norm(x))["logits"])
        return prob, (prob >= self.db.postprocessor.bin_thresh).float()


class LinkNetOpened(torch.nn.Module):
    """LinkNet (ResNet-18, the user's binarisation threshold of 0.5): the probability map and its binary map opened by
    docTR's torch morphology (erode, then dilate, by max pooling of 3) where its post-processor uses OpenCV's."""

    def __init__(self):
        super().__init__()
        self.net = dm.linknet_resnet18(**RANDOM, bin_thresh=0.5)
        self.norm = normalize(self.net)

    def forward(self, x):
        prob = torch.sigmoid(self.net(self.norm(x))["logits"])
        binary = (prob >= self.net.postprocessor.bin_thresh).float()
        return prob, dilate(erode(binary, 3), 3)


class FASTKernels(torch.nn.Module):
    """FAST-tiny (TextNet-tiny with its RepConvLayers, the neck, the head; logits resized to the input by bilinear
    interpolation), reparameterised as docTR does for inference (branches folded into one conv, BatchNorm fused); its
    kernel dilation by max pooling and sigmoid, and the binary map."""

    def __init__(self):
        super().__init__()
        self.fast = dm.fast_tiny(**RANDOM)
        self.norm = normalize(self.fast)

    def forward(self, x):
        prob = torch.sigmoid(self.fast.pooling(self.fast(self.norm(x))["logits"]))
        return prob, (prob >= self.fast.postprocessor.bin_thresh).float()


class CTCReader(torch.nn.Module):
    """A CTC recogniser's logits and the tensor half of docTR's CTC best path: each step's class, which steps the
    collapse keeps (not the blank, not a repeat of the step before) and the word's confidence (the least confident
    step's maximum probability)."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.norm = normalize(model)
        self.blank = len(model.vocab)

    def forward(self, x):
        logits = self.model(self.norm(x))["logits"]
        path = logits.argmax(-1)
        repeat = torch.cat([torch.zeros_like(path[:, :1], dtype=torch.bool), path[:, 1:] == path[:, :-1]], 1)
        keep = (path != self.blank) & ~repeat
        confidence = torch.softmax(logits, -1).max(-1).values.min(1).values
        return logits, path, keep, confidence


class AttentionReader(torch.nn.Module):
    """An attention recogniser (its decoding loop inside the forward): logits, each step's class and the word's
    confidence."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        self.norm = normalize(model)

    def forward(self, x):
        logits = self.model(self.norm(x))["logits"]
        idx, confidence = greedy(logits)
        return logits, idx, confidence


class CropOrientation(torch.nn.Module):
    """docTR's crop orientation classifier (MobileNetV3-small) as its OrientationPredictor reads it: the class, the
    angle from the model's classes (0, -90, 180, 90) and the confidence."""

    def __init__(self):
        super().__init__()
        self.net = dm.mobilenet_v3_small_crop_orientation(pretrained=False)
        self.norm = normalize(self.net)
        self.register_buffer("angles", torch.tensor(self.net.cfg["classes"], dtype=torch.float32))

    def forward(self, x):
        logits = self.net(self.norm(x))
        idx = logits.argmax(1)
        return idx, self.angles[idx], torch.softmax(logits, 1).max(1).values'''

MODELS58 = [
    # Text detection: segmentation maps and the torch half of their post-processing.
    Spec("doctr_db_mobilenet_v3_large_maps", "docTR DBNet (MobileNetV3-Large through torchvision's "
         "IntermediateLayerGetter, FPN of 64 with bilinear upsampling by scale factors, transposed-conv head) "
         "behind its PreProcessor's normalisation: probability map and binary map at bin_thresh", _DT, "DBNetMaps()",
         "return self.m(x)", "2, 3, 64, 96", _BHW, calibrate="self.m(xb)"),
    Spec("doctr_linknet_resnet18_opened", "docTR LinkNet (ResNet-18, LinkNet decoders with transposed convs): "
         "probability map and its binary map opened by docTR's erode and dilate (max pooling)", _DT,
         "LinkNetOpened()", "return self.m(x)", "2, 3, 64, 96", _BHW, calibrate="self.m(xb)"),
    Spec("doctr_fast_tiny_reparameterized", "docTR FAST-tiny (TextNet-tiny of RepConvLayers, logits resized to the "
         "input by F.interpolate to x.shape[-2:]) after docTR's reparameterize (branches folded, BatchNorm fused into "
         "the convs): kernel dilation by max pooling, probability and binary maps", _DT, "FASTKernels()",
         "return self.m(x)", "2, 3, 64, 96", _BHW, calibrate="self.m(xb)", finish="reparameterize(self.m.fast)"),
    # Text recognition: CTC readers (any width) and attention readers with their decoding loops.
    Spec("doctr_crnn_mobilenet_v3_small_ctc", "docTR CRNN (MobileNetV3-small, features reshaped to a sequence over "
         "the width, a two-layer BiLSTM) with CTC best path as tensors: classes, the collapse mask, confidence", _DT,
         "CTCReader(dm.crnn_mobilenet_v3_small(**RANDOM))", "return self.m(x)", "2, 3, 32, 128", _BW,
         calibrate="self.m(xb)"),
    Spec("doctr_viptr_tiny_ctc", "docTR VIPTR-tiny (VIP blocks of local and global mixing, docTR's AdaptiveAvgPool2d "
         "pooling the height away, a linear CTC head over the width's steps) with CTC best path as tensors", _DT,
         "CTCReader(dm.viptr_tiny(**RANDOM))", "return self.m(x)", "2, 3, 32, 128", _BW, calibrate="self.m(xb)"),
    Spec("doctr_sar_resnet31_attention_loop", "docTR SAR (ResNet-31, vertical max, LSTM holistic encoder; the decoder "
         "a Python loop of 17 steps: two LSTMCells, 2-D attention over the feature map, each step's argmax one-hot "
         "embedded as the next input) with classes and confidence", _DT,
         "AttentionReader(dm.sar_resnet31(**RANDOM, attention_units=128, max_length=16))", "return self.m(x)",
         "2, 3, 32, 128", _BW, calibrate="self.m(xb)"),
    Spec("doctr_master_greedy_decode", "docTR MASTER (MAGC-ResNet-31 with global-context attention, a transformer "
         "decoder of one layer; greedy decoding in a Python loop that rebuilds the masks each step, writes the argmax "
         "into the sequence by index and breaks once every sequence has emitted EOS) with classes and confidence",
         _DT, "AttentionReader(dm.master(**RANDOM, dff=512, num_layers=1, num_heads=4, max_length=16))",
         "return self.m(x)", "2, 3, 32, 128", _BW, calibrate="self.m(xb)"),
    Spec("doctr_vitstr_small", "docTR ViTSTR-small (ViT-S on 4x8 patches of the 32x128 crop, a linear head on the "
         "first 17 tokens) with classes and confidence", _DT, "AttentionReader(dm.vitstr_small(**RANDOM, "
         "max_length=16))", "return self.m(x)", "2, 3, 32, 128", _B),
    Spec("doctr_parseq_ar_refine", "docTR PARSeq (ViT-S on 4x8 patches; autoregressive decoding in a Python loop of "
         "17 steps with position queries and a causal query mask sliced per step, argmax written into the sequence, "
         "then one refinement pass with a padding mask from the cumulative sum of EOS) with classes and confidence",
         _DT, "AttentionReader(dm.parseq(**RANDOM, max_length=16))", "return self.m(x)", "2, 3, 32, 128", _B),
    # Orientation: the classifier docTR runs on crops before recognition.
    Spec("doctr_crop_orientation_mobilenet", "docTR mobilenet_v3_small_crop_orientation as OrientationPredictor "
         "reads it: class, angle looked up in the model's classes, confidence", _DT, "CropOrientation()",
         "return self.m(x)", "2, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS58, "real_zoo58", PINS58)
