"""An eighty-first real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo81.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, in models a deploying engineer ships to TensorRT from small libraries: a
transformer detector with its query post-processor (RT-DETR, eager and after its export recipe's ``deploy``), top-down
human pose (ViTPose base and large with the library's heat-map decoding), text-line recognition as an OCR service runs
it (greedy autoregressive decoding), salient-object segmentation for background removal (U^2-Net and its small variant,
mask resized back to the image), audio tagging from the waveform (YAMNet) and multivariate forecasting (TSMixer). The
thirty-first zoo's pins, torchaudio's Python packages (the YAMNet front end is torchaudio's ``MelSpectrogram`` and
``Resample``; zoos 64 to 78 unpacked the same wheel, its compiled extension not loaded) and six libraries by authors
whose code no earlier zoo or sweep ran (``PINS81``: unpacked wheels like the others, never pip-installed):
sparrow-rtdetr 0.1.0 (Sparrow Computing; a packaging of lyuwenyu's RT-DETR PyTorch code, github.com/lyuwenyu/RT-DETR,
Apache-2.0), vitpose-infer 0.2.0 (gpastal24, github.com/gpastal24/ViTPose-Pytorch, GPL-3.0: ViTPose's backbone and heads
from github.com/ViTAE-Transformer/ViTPose, Apache-2.0, with mmcv removed), vietocr 0.3.13 (pbcquoc,
github.com/pbcquoc/vietocr, Apache-2.0: a CNN plus Transformer or seq2seq text recogniser), backgroundremover 0.4.5
(Johnathan Nader, github.com/nadermx/backgroundremover, MIT: U^2-Net of Qin et al., github.com/xuebinqin/U-2-Net,
Apache-2.0), torch-vggish-yamnet 0.2.1 (Stefano Giacomelli, github.com/StefanoGiacomelli/torch_vggish_yamnet, MIT:
PyTorch ports of Google's VGGish and YAMNet) and pytorch-tsmixer 0.2.0 (Konstantin Ditschuneit,
github.com/ditschuk/pytorch-tsmixer, MIT: TSMixer of Chen et al.).

What the packages import beyond their networks: sparrow-rtdetr imports NumPy, SciPy and torchvision (``box_convert``)
only; ``RTDETR`` always builds its PResNet-50-vd with ``pretrained=True``, which fetches the Paddle-converted ImageNet
state through ``torch.hub.load_state_dict_from_url`` into the hub folder under the user's home: the wrapper saves a
random state of the same layout under the release's file name in a temporary folder, points ``torch.hub`` there for the
construction and restores it (the library then loads it as it would the download). vitpose-infer's package ``__init__``
imports its video demo (OpenCV, ffmpeg-python, matplotlib, the ByteTrack tracker, YOLOv5 through ``torch.hub``):
registered from its import spec without running it (as zoos 72 to 80 did); its ``build_model`` imports the named
configuration relative to ``src.vitpose_infer`` (the repository's layout before packaging): the builder package is
registered under that name too (with an empty ``src``) so the library's builder runs as written for the base model; only
the base configuration imports as Python (the others keep mmcv's ``{{_base_.dataset_info}}`` placeholders in their data
settings, an ``AttributeError`` at import), so for the large model the statements up to ``model = dict(...)`` are read
from the file's syntax tree and run, and the model assembled from the library's ``ViT`` and ``TopdownHeatmapSimpleHead``
as ``build_model`` assembles it; timm is used for ``drop_path``/``trunc_normal_`` only. vietocr downloads its YAML
configurations by name (``Cfg.load_config_from_name``): the wrappers give the released ``vgg-transformer.yml`` and
``vgg-seq2seq.yml`` network settings as dictionaries to the library's ``build_model``, with ``pretrained: False`` for
the torchvision VGG19-BN backbone and the printable Latin characters as the vocabulary (the release's is the Vietnamese
alphabet); the wheel also installs an empty top-level ``config`` package (nothing else in the tree has one).
backgroundremover's ``u2net.detect`` imports hsh (a file hasher; ``load_model`` constructs ``Hasher()``) and its data
loader imports scikit-image (``color``, ``io``, ``transform``, for the NumPy resizing and colour conversion): empty
stand-ins, ``Hasher`` a placeholder class; ``load_model`` reads the weights from ``U2NET_PATH``/``U2NETP_PATH`` (else
from the user's home, downloading them first): a random state of the network's layout is written into a temporary folder
and the variable set to it for the call. torch-vggish-yamnet's YAMNet is built with ``pretrained=False`` (the release
comes through ``torch.hub`` otherwise); its input processing imports torchaudio (pinned). pytorch-tsmixer imports torch
only. No weights are downloaded. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the package index, the wheels' files and metadata and a first
reading of the imports): depth-anything-v2, torch-u2net, dbnet, deepsort, sam2, encodec, openai-whisper and
groundingdino-py (no pure-Python wheel: sdists only), aura-sr 0.0.4 (GigaGAN upsampler: its configuration is only on the
Hugging Face hub, about 600 M parameters, and fresh noise in every call), pyyolov9 0.0.2 (no model YAML in the wheel and
YOLOv5-style top-level ``models``/``utils`` imports), trackers 2.6.1 and the ByteTrack/OC-SORT packages (NumPy trackers,
no network), det3d 0.0.4 (CenterPoint needing the compiled IoU-3D NMS), penn (torbi and torchutil at import),
descript-audio-codec (descript-audiotools), pyiqa, gfpgan and codeformer (basicsr/facexlib, earlier zoos' libraries),
openpoints (compiled point ops), pix2tex (x-transformers, an earlier zoo's). Within the chosen libraries:
sparrow-rtdetr's training path (multi-scale resizing by ``np.random.choice``, denoising queries, the Hungarian matcher
and losses) and ResNet-18/34/101 backbones (``Config`` fixes the encoder's input channels for ResNet-50);
vitpose-infer's YOLOv5 person detector (``torch.hub``), ByteTrack and the crop/pad/letterbox NumPy code before the
model, the huge model (632 M parameters) and the ``*_simple`` heads (their bilinear upsampling calls mmpose's
``resize``, whose import the port comments out: a ``NameError`` in the first forward), the other mmpose backbones and
heads (mmcv imports); vietocr's beam search (``batch_translate_beam_search``, a Python priority queue per line), the
ResNet and FPN backbones, the convolutional seq2seq and the PIL resizing in ``process_image``; backgroundremover's
``u2net_human_seg`` (U^2-Net with other weights), the alpha matting and the video/ffmpeg pipeline; torch-vggish-yamnet's
VGGish (a second tagger; YAMNet was kept); TSMixerExt (several inputs: past, future covariates and static features).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 80 or
in the library sweeps (benchmarks/sweep_*.py; RT-DETR was zooed in transformers' port, U^2-Net and ViTPose in other
libraries, here each in its own library's code and post-processing), of the kinds that often need work for an ONNX or
TensorRT deployment (RT-DETR: the PResNet's frozen BatchNorm, the hybrid encoder's sine position embedding and anchors
precomputed for the fixed ``eval_spatial_size`` behind ``if self.training or self.eval_spatial_size is None``, the
CCFM's RepVGG blocks (``deploy`` fuses their two branches into one convolution), the decoder's top-k query selection,
``grid_sample``-based multi-scale deformable attention in pure PyTorch, iterative box refinement with
``inverse_sigmoid``, the post-processor's ``box_convert``, ``topk`` over the flattened class scores, ``%`` and ``//``
for labels and query indices and ``gather``, a dict or a tuple behind a Python flag. ViTPose: a patch embedding whose
grid comes from the input, the position embedding added as ``pos_embed[:, 1:] + pos_embed[:, :1]``, a ``reshape`` to the
patch grid by Python sizes, transposed-convolution deconvolution head; the library's decoding: two ``torch.max``
reductions per axis, ``torch.empty`` filled by a Python loop over persons with indices scaled by 1/64 and 1/48 and the
box. VietOCR: ``translate``'s ``while`` loop on a NumPy test of the generated tokens (``np.any(... == eos)``), a
``torch.LongTensor`` built from a Python list of lists every step, ``softmax``, ``topk``, ``.tolist()`` and NumPy
post-processing of the probabilities (a mask of real tokens, a mean by division of sums); the Transformer's no-peek mask
built for the growing target every step and its sine position encodings sliced to it; the seq2seq's bidirectional GRU
encoder and GRU decoder with additive attention over the width; average pooling in VGG with rectangular kernels.
U^2-Net: nested residual U-blocks with dilated convolutions and ``_upsample_like`` (bilinear ``interpolate`` to a
tensor's size) at every level, seven side outputs with sigmoid, the library's ``norm_pred`` (global ``max``/``min`` per
image) in a per-image loop and the resizes to 320 and back to the input's size. YAMNet: the library's
``WaveformToInput``: channel mean, torchaudio ``Resample`` (an identity at 16 kHz), ``MelSpectrogram`` (``stft``) with
VGGish's log offset, a ``.T``, the patch count ``frames // 96`` from the length and a ``reshape`` into patches;
TF-"SAME" padding computed in Python from the input size with an asymmetric ``F.pad`` in every convolution, depthwise
separable convolutions, an embedding ``clone``. TSMixer: time-mixing by transposes around a ``Linear`` over time,
``TimeBatchNorm2d`` (BatchNorm1d over flattened time and features through ``reshape``)).

sparrow-rtdetr (3 classes, say person, car and bicycle; the fixed 320x320 input the service exports, RT-DETR's anchors
and position embeddings being precomputed for it): RT-DETR with PResNet-50-vd, the hybrid encoder and a 6-layer decoder
with 300 queries (42.7 M parameters), eager with its post-processor (boxes, labels and scores of the top 300, a dict),
and after ``deploy()`` with the post-processor in its deploy mode (a tuple; 49.8 M parameters counted, the fused
convolutions beside the branches). vitpose-infer (COCO's 17 keypoints; person crops of 256x192 in [0, 1], ImageNet
normalisation as its transform does): ViTPose-B (the library's ``build_model``, 90.0 M) and ViTPose-L (308.5 M), each
with two deconvolutions to 64x48 heat maps and the library's arg-max decoding to (x, y, score) in the crop. vietocr
(lines of height 32 in [0, 1], the library's ``Predictor.predict_batch`` on equal-width lines): VGG19-BN with the
6+6-layer Transformer (37.6 M) and with the GRU attention seq2seq (22.2 M), greedy decoding to at most 128 steps (token
ids and the mean character probability per line). backgroundremover: U^2-Net (44.0 M) and U^2-Net-P (1.13 M) masks in
[0, 1] at the image's size. torch-vggish-yamnet: YAMNet (3.74 M) on a clip at 16 kHz (per-patch 1024-wide embeddings and
521 AudioSet probabilities). pytorch-tsmixer: TSMixer for 7 series (ETT-like), 96 steps in, 24 out, 4 mixer blocks of
width 64 (0.04 M).

Each has the dynamic axes a deploying user declares: batch alone for RT-DETR (its size is fixed at construction), the
pose models (fixed crop size, the persons of a frame as the batch) and TSMixer (its time-mixing layers are sized by the
window); batch and width for the text lines (height 32 fixed); batch, height and width for the background remover (any
image in, resized inside); time for YAMNet (one clip a call, channels first). Inputs are all in [0, 1): images (2, 3,
320, 320), crops (2, 3, 256, 192), lines (2, 3, 32, 160), photographs (1 or 2, 3, 240, 320), a mono clip (1, 32000), 2
s; series (2, 96, 7). Set-valued outputs: the detector's 300 rows are ordered by score (ties possible with random
weights; not declared ``unordered``). Outputs: boxes (batch, 300, 4), labels and scores (batch, 300); keypoints
(persons, 17, 3) and heat maps (persons, 17, 64, 48); token ids (lines, 130) (int64) and probabilities (lines,); masks
(batch, 1, height, width); embeddings (patches, 1024) and probabilities (patches, 521); forecasts (batch, 24, 7).

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS81`` and ``make_zoo``, each model in its own process with one thread on a machine shared with other sessions: at
the spec's size, one more in the batch and larger sizes (the background removers at 480x640, text lines of width 320,
clips of 3 s and 2x5 s, two channels). All passed after three changes made before any migrate run: YAMNet gave the same
probabilities for every patch and an all-zero embedding (random weights with BatchNorm's default statistics), and
vietocr's VGG the same tokens for every line, so their wrappers calibrate BatchNorm as real_zoo.py's detectors do
(``Spec.calibrate``; the RT-DETR and U^2-Net wrappers do too); the simple-head ViTPose was replaced by ViTPose-L (see
above). Imports take 1.5 to 3.5 s; builds 0.0 to 3 s, 10 to 11 s for RT-DETR and 14 to 28 s for the U^2-Nets (their
calibration passes and the random checkpoints written and read included). Forwards: TSMixer and YAMNet 0.01 to 0.16 s;
RT-DETR 1.5 to 1.7 s for two images, 2.3 to 3.0 s for three; ViTPose-B 1.4 to 2.4 s and ViTPose-L 3.0 to 4.5 s for two
and three crops; the VGG-Transformer OCR 5 to 7.7 s (130 decoding steps: no line reaches <eos> with random weights) and
the seq2seq 0.4 to 0.9 s; U^2-Net-P 2.9 to 4.4 s for two or three photographs and 1.1 s at 480x640, U^2-Net 1.5 to 3.6 s
(both run at 320x320 inside). Peak memory 0.3 to 1.0 GB a process, 1.4 to 1.7 GB for the U^2-Nets and ViTPose-L. Odd,
left as the libraries have them: the OCR models always decode 128 steps on random weights, and the greedy tokens of two
lines can coincide (the seq2seq's at width 160, the Transformer's at width 320) while their probabilities differ;
RT-DETR's scores stay near 0.5 (standard deviation 0.006) and its boxes are scaled by the size given at construction,
not the input's; ViTPose's decoding puts the row index times 1/64 of the box height in the first coordinate and the
column index in the second (the library's order); the U^2-Net mask is min-max normalised per image, so every mask spans
[0, 1] whatever the image.
"""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins, torchaudio's Python packages (torch-vggish-yamnet's front end is torchaudio's
#: ``MelSpectrogram`` and ``Resample``; zoos 64 to 78 unpacked the same wheel, its compiled extension not loaded) and
#: six libraries by authors no earlier zoo or sweep ran, all unpacked wheels like the others (never pip-installed):
#: sparrow-rtdetr (RT-DETR with its post-processor), vitpose-infer (ViTPose top-down keypoints), vietocr (text-line
#: recognition), backgroundremover (U^2-Net salient-object masks), torch-vggish-yamnet (YAMNet audio tagging) and
#: pytorch-tsmixer (TSMixer forecasting).
PINS81 = {**PINS31, "torchaudio": "2.11.1", "sparrow_rtdetr": "0.1.0", "vitpose_infer": "0.2.0", "vietocr": "0.3.13",
          "backgroundremover": "0.4.5", "torch_vggish_yamnet": "0.2.1", "pytorch_tsmixer": "0.2.0"}

_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_BW = 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }'
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_T = 'dynamic_axes = { x = { 1 = "time" } }'

#: The stand-ins of real_zoo.py, and the modules the blocks that build temporary checkpoints use.
_SHARED = '\nimport os\nimport tempfile' + STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# sparrow-rtdetr: ``RTDETR`` always builds its PResNet-50 with ``pretrained=True``, which fetches the Paddle-converted
# ImageNet weights through ``torch.hub.load_state_dict_from_url`` into the hub folder (under the user's home). A random
# state of the same layout is saved under the release's file name in a temporary hub folder, which the library then
# loads as it would the download.
_RTDETR = _SHARED + '''
from sparrow_rtdetr import RTDETR
from sparrow_rtdetr.backbone import presnet

#: A small detector's classes (say, person, car, bicycle) and the fixed input size the service exports.
CLASSES, SIZE = 3, 320


def rtdetr():
    """RT-DETR on PResNet-50-vd, its backbone state read from a random "download" in a temporary hub folder."""
    backbone = presnet.PResNet(depth=50, freeze_at=0, return_idx=(1, 2, 3), pretrained=False)
    hub = torch.hub.get_dir()
    with tempfile.TemporaryDirectory(prefix="rtdetr-hub-") as folder:
        os.makedirs(os.path.join(folder, "checkpoints"))
        name = os.path.basename(presnet.donwload_url[50])
        torch.save(backbone.state_dict(), os.path.join(folder, "checkpoints", name))
        torch.hub.set_dir(folder)
        try:
            return RTDETR(num_classes=CLASSES, image_size=(SIZE, SIZE))
        finally:
            torch.hub.set_dir(hub)


class Detections(torch.nn.Module):
    """The detector as its eval path runs it: backbone, hybrid encoder, decoder and the post-processor's top 300
    queries (boxes scaled to the input size); boxes, labels and scores out."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def deploy(self):
        # RT-DETR's export recipe: re-parameterise the RepVGG blocks, the post-processor's tuple output.
        self.model.deploy()
        self.model.postprocessor.deploy()
        return self

    def forward(self, images):
        out = self.model(images)
        if isinstance(out, dict):
            return out["boxes"], out["labels"].to(out["boxes"].dtype), out["scores"]
        labels, boxes, scores = out
        return boxes, labels.to(boxes.dtype), scores'''

# ---------------------------------------------------------------------------------------------------------------
# vitpose-infer: the package ``__init__`` imports its demo (OpenCV, ffmpeg-python, matplotlib, the ByteTrack tracker
# and YOLOv5 through ``torch.hub``): registered without running it. ``build_model`` imports the named configuration
# relative to ``src.vitpose_infer`` (the repository's layout before packaging); the builder package is registered
# under that name as well, so the library's own builder finds its configurations.
_VITPOSE = _SHARED + '''
import ast

_without_init("vitpose_infer")
import vitpose_infer.builder as _builder

_not_installed("src")
sys.modules["src.vitpose_infer"] = _builder
from vitpose_infer.builder.backbones import ViT
from vitpose_infer.builder.heads.topdown_heatmap_simple_head import TopdownHeatmapSimpleHead
from vitpose_infer.builder.model_builder import build_model

#: ImageNet normalisation of the person crops, as the library's ``pose_points_yolo5`` transform does.
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def model_settings(name):
    """The ``model = dict(...)`` of a configuration file, read as mmcv's ``Config`` would: only the base
    configuration imports as Python (the others keep mmcv's ``{{_base_.dataset_info}}`` placeholders in their data
    settings), so the statements up to the ``model`` assignment are taken from the file's syntax tree and run."""
    path = os.path.join(os.path.dirname(_builder.__file__), "configs", "coco", name + ".py")
    with open(path) as file:
        tree = ast.parse(file.read())
    names = [[getattr(target, "id", None) for target in node.targets] if isinstance(node, ast.Assign) else []
             for node in tree.body]
    namespace = {}
    exec(compile(ast.Module(tree.body[:names.index(["model"]) + 1], []), path, "exec"), namespace)
    return namespace["model"]


def vitpose(name):
    """A configuration's model assembled from the library's ``ViT`` and ``TopdownHeatmapSimpleHead`` as
    ``build_model`` assembles the base one (which alone imports as a module, see ``model_settings``)."""
    config = model_settings(name)
    backbone = {key: value for key, value in config["backbone"].items() if key not in ("type", "use_checkpoint")}
    head = {key: value for key, value in config["keypoint_head"].items()
            if key in ("in_channels", "out_channels", "num_deconv_layers", "num_deconv_filters",
                       "num_deconv_kernels", "extra")}
    return torch.nn.Sequential(ViT(**backbone), TopdownHeatmapSimpleHead(**head))


class Keypoints(torch.nn.Module):
    """A top-down pose service: person crops (persons, 3, 256, 192) in [0, 1], normalised; the heatmaps decoded by
    the library's arg-max (``torch.max`` over each axis, scaled by 1/64 and 1/48 to the crop's box, here the whole
    crop, per person in a loop); keypoints (persons, 17, 3) and the heatmaps out."""

    def __init__(self, pose):
        super().__init__()
        self.pose = pose
        self.register_buffer("mean", torch.tensor(MEAN).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(STD).view(1, 3, 1, 1))

    def forward(self, crops):
        out = self.pose((crops - self.mean) / self.std)
        boxes = torch.tensor([0, 0, crops.shape[3], crops.shape[2]]).repeat(out.shape[0], 1)
        pts = torch.empty((out.shape[0], out.shape[1], 3), dtype=torch.float32)
        (b, indices) = torch.max(out, dim=2)
        (b, indices) = torch.max(b, dim=2)
        (c, indicesc) = torch.max(out, dim=3)
        (c, indicesc) = torch.max(c, dim=2)
        dim1 = torch.tensor(1. / 64)
        dim2 = torch.tensor(1. / 48)
        for i in range(0, out.shape[0]):
            pts[i, :, 0] = indicesc[i, :] * dim1 * (boxes[i][3] - boxes[i][1]) + boxes[i][1]
            pts[i, :, 1] = indices[i, :] * dim2 * (boxes[i][2] - boxes[i][0]) + boxes[i][0]
            pts[i, :, 2] = c[i, :]
        return pts, out'''

# ---------------------------------------------------------------------------------------------------------------
# vietocr: the configurations are YAML files the library downloads by name (``Cfg.load_config_from_name``); the
# wrappers give the released ``vgg-transformer.yml`` and ``vgg-seq2seq.yml`` settings as dictionaries with
# ``pretrained: False`` for the VGG backbone (else torchvision's ImageNet weights are fetched). The vocabulary is the
# printable Latin characters (the release's is the Vietnamese alphabet).
_VIETOCR = _SHARED + '''
import string

import numpy as np
from vietocr.tool.translate import build_model, translate

VOCAB = string.digits + string.ascii_letters + string.punctuation + " "
CNN = {"pretrained": False, "ss": [[2, 2], [2, 2], [2, 1], [2, 1], [1, 1]],
       "ks": [[2, 2], [2, 2], [2, 1], [2, 1], [1, 1]], "hidden": 256}
SEQUENCE = {
    "transformer": {"d_model": 256, "nhead": 8, "num_encoder_layers": 6, "num_decoder_layers": 6,
                    "dim_feedforward": 2048, "max_seq_length": 1024, "pos_dropout": 0.1, "trans_dropout": 0.1},
    "seq2seq": {"encoder_hidden": 256, "decoder_hidden": 256, "img_channel": 256, "decoder_embedded": 256,
                "dropout": 0.1},
}


def vietocr(seq_modeling):
    """The library's ``build_model`` with a released configuration's settings (VGG19-BN backbone)."""
    config = {"vocab": VOCAB, "device": "cpu", "backbone": "vgg19_bn", "cnn": CNN,
              "transformer": SEQUENCE[seq_modeling], "seq_modeling": seq_modeling}
    model, vocab = build_model(config)
    return model


class Recognizer(torch.nn.Module):
    """A text-line service as the library's ``Predictor.predict_batch`` runs it: lines resized to height 32 in
    [0, 1], then ``translate``: the CNN and encoder once, greedy decoding step by step (top-k of the softmax, the
    tokens kept in a Python list) until every line has produced <eos> or 128 steps; token ids (lines, steps) and
    the mean character probability per line out."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, lines):
        tokens, probabilities = translate(lines, self.model)
        return torch.from_numpy(np.asarray(tokens)), torch.from_numpy(np.asarray(probabilities, dtype=np.float32))'''

# ---------------------------------------------------------------------------------------------------------------
# backgroundremover: ``u2net.detect`` imports hsh (a file hasher; ``Hasher()`` is constructed in ``load_model``) and
# its data loader imports scikit-image (``color``, ``io``, ``transform``: resizing and colour conversion of the
# NumPy image): empty stand-ins, ``Hasher`` a placeholder class. ``load_model`` reads the weights from the path in
# ``U2NET_PATH``/``U2NETP_PATH`` (else from the user's home, downloading them): a random state of the network's layout
# is written into a temporary folder and the variable set to it, so the library's loader reads it.
_U2NET = _SHARED + '''
import torch.nn.functional as F

for _name in ("hsh", "hsh.library", "hsh.library.hash", "skimage", "skimage.color", "skimage.io",
              "skimage.transform"):
    _not_installed(_name)


class Hasher:
    """The hasher ``load_model`` constructs (its MD5 check is commented out in the library)."""


sys.modules["hsh.library.hash"].Hasher = Hasher
sys.modules["skimage"].color = sys.modules["skimage.color"]
sys.modules["skimage"].io = sys.modules["skimage.io"]
sys.modules["skimage"].transform = sys.modules["skimage.transform"]
from backgroundremover.u2net import detect, u2net

#: The library's ``RescaleT(320)`` and ``ToTensorLab(flag=0)``: the image over its maximum, ImageNet statistics.
SIZE, MEAN, STD = 320, (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def u2net_model(name):
    """``detect.load_model(name)`` with a random state written where its environment variable points."""
    network = u2net.U2NETP(3, 1) if name == "u2netp" else u2net.U2NET(3, 1)
    variable = "U2NETP_PATH" if name == "u2netp" else "U2NET_PATH"
    with tempfile.TemporaryDirectory(prefix="u2net-weights-") as folder:
        path = os.path.join(folder, name + ".pth")
        torch.save(network.state_dict(), path)
        before = os.environ.get(variable)
        os.environ[variable] = path
        try:
            return detect.load_model(name)
        finally:
            if before is None:
                del os.environ[variable]
            else:
                os.environ[variable] = before


class Matte(torch.nn.Module):
    """The background remover's mask per image as ``detect.predict`` makes it: resized to 320x320 and normalised,
    U^2-Net's first side output, ``norm_pred`` (min-max over the image), resized back to the image's size."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.register_buffer("mean", torch.tensor(MEAN).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(STD).view(1, 3, 1, 1))

    def forward(self, images):
        x = F.interpolate(images, size=(SIZE, SIZE), mode="bilinear", align_corners=False)
        x = (x / x.amax((1, 2, 3), keepdim=True) - self.mean) / self.std
        d1, d2, d3, d4, d5, d6, d7 = self.net(x)
        masks = torch.stack([detect.norm_pred(d1[i, 0]) for i in range(d1.shape[0])])[:, None]
        return F.interpolate(masks, size=images.shape[2:], mode="bilinear", align_corners=False)'''

# ---------------------------------------------------------------------------------------------------------------
# torch-vggish-yamnet: YAMNet built with ``pretrained=False`` (the release is fetched through ``torch.hub``
# otherwise); the input processing is the library's ``WaveformToInput``.
_YAMNET = '''
from torch_vggish_yamnet.input_proc import WaveformToInput
from torch_vggish_yamnet.yamnet.model import yamnet

RATE = 16000


class Tagger(torch.nn.Module):
    """An audio-tagging service: a clip (channels, samples) at 16 kHz; the library's ``WaveformToInput`` (channels
    averaged, resampled to 16 kHz, VGGish log-mel by torchaudio, cut into 0.96 s patches, as many as fit) and YAMNet's
    embedding and 521 AudioSet class probabilities per patch."""

    def __init__(self, network):
        super().__init__()
        self.frontend = WaveformToInput()
        self.network = network

    def forward(self, clip):
        patches = self.frontend(clip, RATE)
        embedding, scores = self.network(patches, to_prob=True)
        return embedding.flatten(1), scores'''

_TSMIXER = '''
from torchtsmixer import TSMixer'''

MODELS81 = [
    # sparrow-rtdetr: RT-DETR (PResNet-50-vd) with its post-processor.
    Spec("sparrow_rtdetr_r50", "sparrow-rtdetr RT-DETR PResNet-50 with its top-300 post-processor (3 classes)",
         _RTDETR, "Detections(rtdetr())", "return self.m(x)", "2, 3, 320, 320", _B, calibrate="self.m(xb)"),
    Spec("sparrow_rtdetr_r50_deploy", "sparrow-rtdetr RT-DETR PResNet-50 after deploy() (re-parameterised)", _RTDETR,
         "Detections(rtdetr())", "return self.m(x)", "2, 3, 320, 320", _B, calibrate="self.m(xb)",
         finish="self.m.deploy()"),
    # vitpose-infer: ViTPose top-down keypoints with its arg-max decoding.
    Spec("vitpose_infer_base", "vitpose-infer ViTPose-B (classic deconvolution head, arg-max keypoints)", _VITPOSE,
         'Keypoints(build_model("ViTPose_base_coco_256x192"))', "return self.m(x)", "2, 3, 256, 192", _B),
    Spec("vitpose_infer_large", "vitpose-infer ViTPose-L (classic deconvolution head, arg-max keypoints)", _VITPOSE,
         'Keypoints(vitpose("ViTPose_large_coco_256x192"))', "return self.m(x)", "2, 3, 256, 192", _B),
    # vietocr: text-line recognition with greedy decoding.
    Spec("vietocr_vgg_transformer", "vietocr VGG19-BN + Transformer (greedy translate)", _VIETOCR,
         'Recognizer(vietocr("transformer"))', "return self.m(x)", "2, 3, 32, 160", _BW,
         calibrate="self.m.model.cnn(xb)"),
    Spec("vietocr_vgg_seq2seq", "vietocr VGG19-BN + GRU attention seq2seq (greedy translate)", _VIETOCR,
         'Recognizer(vietocr("seq2seq"))', "return self.m(x)", "2, 3, 32, 160", _BW,
         calibrate="self.m.model.cnn(xb)"),
    # backgroundremover: U^2-Net salient-object masks.
    Spec("backgroundremover_u2net", "backgroundremover U^2-Net (mask at the image's size)", _U2NET,
         'Matte(u2net_model("u2net"))', "return self.m(x)", "1, 3, 240, 320", _BHW, calibrate="self.m(xb)"),
    Spec("backgroundremover_u2netp", "backgroundremover U^2-Net-P (small; mask at the image's size)", _U2NET,
         'Matte(u2net_model("u2netp"))', "return self.m(x)", "2, 3, 240, 320", _BHW, calibrate="self.m(xb)"),
    # torch-vggish-yamnet: audio tagging from the waveform.
    Spec("yamnet_tagger", "torch-vggish-yamnet YAMNet (log-mel patches, 521 AudioSet classes)", _YAMNET,
         "Tagger(yamnet(pretrained=False))", "return self.m(x)", "1, 32000", _T,
         calibrate="self.m(xb)"),
    # pytorch-tsmixer: multivariate forecasting.
    Spec("tsmixer_forecast", "pytorch-tsmixer TSMixer (96 steps of 7 series in, 24 out)", _TSMIXER,
         "TSMixer(sequence_length=96, prediction_length=24, input_channels=7, num_blocks=4, ff_dim=64)",
         "return self.m(x)", "2, 96, 7", _B),
]

if __name__ == "__main__":
    main(MODELS81, "real_zoo81", PINS81)
