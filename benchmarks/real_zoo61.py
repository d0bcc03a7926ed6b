"""A sixty-first real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo61.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on text recognition, pose keypoints, line-segment detection and dense edge
and normal maps deployed for inference, each with the tensor half of the post-processing its library runs in its own
inference call: the thirty-first zoo's pins and two libraries by other authors, whose code no earlier zoo or sweep ran
(``PINS61``: unpacked wheels like the others, never pip-installed): easyocr 1.7.2 (Jaided AI's EasyOCR, by Rakpong
Kittinaradorn and contributors, github.com/JaidedAI/EasyOCR, Apache-2.0: the generation-1 and generation-2 CRNN
recognisers with CTC heads, its CRAFT and DBNet detectors) and controlnet-aux 0.0.10 (the Hugging Face team's packaging
of the ControlNet annotators that Lvmin Zhang collected, github.com/huggingface/controlnet_aux, Apache-2.0: OpenPose
body, hand and face, M-LSD, HED, TEED, PiDiNet, NormalBae, LeReS, MiDaS, ZoeDepth, LineArt, MobileSAM). easyocr imports
python-bidi (``get_display``), scikit-image (``io``), shapely and pyclipper (its DBNet's polygons) at package import,
and controlnet-aux imports scikit-image's ``morphology`` (Anyline) and ``measure.label`` (the OpenPose hand): all
compiled and none in the venv, and no forward here calls them, so the user's module stands in those modules with one
placeholder class for every name imported from them (an Exception subclass, as zoo 58's does for docTR). OpenCV, SciPy,
einops, Pillow, PyYAML and huggingface_hub come from the venv; torchvision and timm from the pins. controlnet-aux's
MediaPipe face detector warns at import that mediapipe is missing, and its MobileSAM module re-registers timm's TinyViT
names (five warnings); both are left as they are. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import): yolov5 (pinned
by earlier zoos and swept by benchmarks/sweep_yolo.py); yolov6 0.0.1 and yolov8 0.0.2 (placeholders, by their index
summaries); nanodet and rtdetr_pytorch (no such distributions in the index's list); the trackers norfair, motpy,
bytetracker and ocsort (by their index summaries, NumPy trackers around a user's detector, no torch module to export).
Earlier zoos dropped easyocr (zoos 21, 34, 37, 58) and controlnet-aux (zoos 17, 32) for their compiled imports; the
stand-ins above are what changed. Within easyocr: CRAFT (its network is zooed through craft-detector); its DBNet (the
configs it deploys, ``DBNet_inference.yaml``, build deformable ResNet-18 and ResNet-50 backbones whose ``DeformConv`` is
a C++/CUDA extension the user compiles; a plain ResNet is not what it deploys, and docTR's DBNet is zoo 58's); the CPU
path's ``quantize_dynamic`` (int8 LSTM and Linear, CPU only: a TensorRT user runs the float model, as easyocr's GPU path
does); the beam-search and word-beam-search decoders, the contrast-adjusted second pass and the crop extraction (NumPy
and OpenCV); user-defined recognition networks (YAML and a module of the user's). Within controlnet-aux: the OpenPose
face network (its ``Face`` resizes every crop to 384x384 before a VGG trunk and six stages: by far the heaviest here,
dropped for time); MobileSAM (TinyViT's ``view(B, 64, 64, C)`` fixes the input at 1024 pixels, and its encoder alone
took 1.5 s per image with one thread; the mask decoder is segment-anything's, zooed); ZoeDepth and MiDaS (BEiT and
ViT-L/hybrid backbones from timm, large), LeReS (a ResNeXt-101 backbone and a pix2pix merging network), LineArt,
LineArt-anime and LineArt-standard (plain CNN generators or a Gaussian filter, nothing beyond scaling after them);
DWPose (mmcv, mmdet and mmpose), Anyline (TEED with scikit-image morphology), MediaPipe face (mediapipe), Canny and
content shuffle (OpenCV and NumPy); every detector's ``from_pretrained`` (downloads) and its OpenCV resizing, drawing
and NumPy assembly of people from part affinity fields.

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 60 or
in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(index writes into a probability tensor by a Python list, products over masked steps and powers by a square root of a
count, padding to the stride from the input's sizes, upsampling by scale factors and cropping to the input's sizes,
separable Gaussian blurs by depthwise convolutions with reflection padding, local maxima by shifted comparisons and by
max pooling, top-k with flat indices turned into rows and columns by floor division and remainder, gathers at those
indices, integer truncation by casts, convolution kernels built from the weights by index writes on every call, a module
whose ``__call__`` is overridden instead of ``forward``, a backbone built by ``torch.hub.load`` from a local repo).
easyocr, on grey word crops (batch, 1, 64, width) as its ``recognizer_predict`` runs them: the generation-1 recogniser
in latin_g1's layout (ResNet feature extractor of 512, two BiLSTMs of 512, 168 classes; 53.8 M parameters) and the
generation-2 recogniser in english_g2's layout (VGG feature extractor of 256, two BiLSTMs of 256, 97 classes; 3.8 M)
read with a digits allowlist (the other 86 characters' probabilities zeroed by index and the rest renormalised, as
``readtext(allowlist=...)`` makes it), each with NormalizePAD's scaling, the softmax, greedy decoding (each step's class
and probability), decode_greedy's keep mask (not blank, not a repeat) and ``custom_mean``'s confidence written as
tensors (0 when every step is blank), the unused ``text`` argument a zero tensor as easyocr passes it. controlnet-aux,
on RGB images: the OpenPose body model (VGG-19 trunk and six two-branch stages; 52.3 M) at one scale as ``Body`` runs it
(BGR over 256 minus 0.5, padding to the stride of 8, heatmaps and PAFs upsampled by 8 and cropped, then its peak finding
as tensors: a Gaussian blur of sigma 3, a peak at least its four neighbours and above 0.1; the user's top 4 peaks per
part as (x, y, score) rows padded with (0, 0, -1), and the peak count per part); the OpenPose hand model (36.8 M) as
``Hand`` runs it at one scale (OpenCV's blur of sigma 0.8 first, the 22 maps upsampled, cropped and resized to its
128x128 working size, blurred, each part's argmax where the blurred map is above 0.05, the tensor stand-in for its
largest connected component, scaled to the crop; (0, 0) when nothing is above); M-LSD large (1.5 M) and tiny (0.6 M)
with ``pred_lines``' input (a channel of ones, scaled to [-1, 1]) and its ``deccode_output_score_and_ptss``, which
asserts a batch of one and converts to NumPy, written for a batch (sigmoid, 3x3 max-pool suppression, top 200 centres,
displacement gathered, segments scaled by 2, the validity of score and length above 0.1, invalid segments zeroed); HED
(ControlNetHED_Apache2, 14.7 M) and TEED (0.06 M) with their detectors' side outputs resized to the image, averaged,
sigmoid and ``safe_step``; PiDiNet (carv4 with dilation 24 and spatial attention, 0.7 M) on BGR with the fused map
binarised at 0.5 (``apply_filter``); NormalBae (72.4 M: geffnet's EfficientNet-B5-AP and its decoder in test mode, every
pixel refined) with ImageNet normalisation and the normals mapped to [0, 1].

Each has the dynamic axes a deploying user declares: batch and width for the recognisers (64-pixel crops of any width;
easyocr resizes every crop to height 64); batch, height and width for the rest (96x128 and 96x96 for body and hand,
128x128 for M-LSD large, 256x256 for M-LSD tiny, 64x96 for the edge detectors and NormalBae). All inputs are in [0, 1).
BatchNorm statistics come from the calibration pass for the five models with BatchNorm (both recognisers, both M-LSDs
and NormalBae); OpenPose, HED, TEED and PiDiNet have none. No output is set-valued. The wrappers were checked only for
building and running eagerly (deterministic over two forwards, finite outputs, outputs differing across the batch)
before the first migrate run, with a source tree unpacked by ``fetch_sources`` from ``PINS61`` and ``make_zoo``: at the
spec's size, one more in the batch, and a batch of 3 at larger sizes (crops 64x160, body and hand 128x160, M-LSD large
160x192, M-LSD tiny 320x384, edge detectors and NormalBae 96x128); with one thread on the shared two cores, each model
in its own process (load average 0.6 to 1.2), the best of two forwards at the spec's size took 0.31 s for the
generation-1 recogniser, 0.021 s generation 2, 0.29 s the body, 0.17 s the hand, 0.046 s M-LSD large, 0.054 s M-LSD
tiny, 0.052 s HED, 0.009 s TEED, 0.047 s PiDiNet and 0.21 s NormalBae; at the larger sizes with a batch of 3 at most
0.54, 0.034, 0.68, 0.51, 0.14, 0.20, 0.15, 0.022, 0.12 and 0.47 s; builds (both libraries' package imports and the
calibration included) took 2.0 to 3.4 s and each process peaked at 0.44 to 0.87 GB. Changed after the first eager runs,
before any migrate run: the OpenPose body and hand networks get He's normal init and zero biases (``he_init``: with
PyTorch's default init their 92 and 52 unnormalised convolutions gave every image the same heatmaps to the last digit);
the body's padding rows get (0, 0) coordinates (their positions were ties among the -1 fill); M-LSD's invalid segments
are zeroed and M-LSD tiny's input went from 128x128 to 256x256 (at 128 its 64x64 map had fewer than 200 local maxima, so
the top 200 ended in zero-score ties; at 256 all 200 scores are distinct, as are M-LSD large's at 128 and the body's 130
valid peaks); TEED's calibration was dropped (it has no BatchNorm). Odd, left as the libraries have them:
ControlNetHED_Apache2 and its blocks override ``__call__`` and define no ``forward`` (calling the module works;
``module.forward`` is ``nn.Module``'s unimplemented one); ``bodypose_model`` lists ``Mconv7_stage6_L1`` twice among its
layers without ReLU and not ``Mconv7_stage6_L2``, so the final heatmaps pass through a ReLU; ``Body`` accumulates
``heatmap_avg += heatmap_avg + heatmap / len(multiplier)`` (one scale here, so the same); PiDiNet's radial kernels are
scattered into a 5x5 buffer by index writes on every call; NormalBae's encoder is built by ``torch.hub.load(...,
source="local")`` from the packaged repo and prints two lines; with random weights both recognisers pick the same
classes for every crop (generation 1 one class at every step; their probabilities differ across the batch by 3e-5 to
2e-4 only), so the keep masks are the same and the confidences tiny (6e-26 and 5e-12); PiDiNet's fused map stays within
0.49 to 0.51 (its pixel-difference convolutions are its own ``Conv2d`` class, left at its init), so its binary map (1 at
69 % of the pixels) flips across the batch at a third of them; HED's ``safe_step`` map is 1 at 97 % of the pixels."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and two libraries by other authors, unpacked wheels like the others (never
#: pip-installed): easyocr (Jaided AI: CRNN-style text recognisers with CTC heads) and controlnet-aux (Hugging Face's
#: packaging of the ControlNet annotators: OpenPose body and hand, M-LSD, HED, TEED, PiDiNet and NormalBae).
PINS61 = {**PINS31, "easyocr": "1.7.2", "controlnet_aux": "0.0.10"}

#: The user's inputs: images (batch, 3, height, width) and grey word crops (batch, 1, 64, width), all in [0, 1).
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_BW = 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }'

# ---------------------------------------------------------------------------------------------------------------
# easyocr imports python-bidi (its ``get_display`` for right-to-left text), scikit-image (``io`` for reading images),
# shapely and pyclipper (its DBNet's polygon post-processing) at package import; controlnet-aux imports scikit-image's
# ``morphology`` (Anyline) and ``measure.label`` (the OpenPose hand's connected components) at package import. All are
# compiled and none is in the venv; no forward here calls them, so the user's module stands them in with one
# placeholder class for every name the two libraries import. controlnet-aux's MediaPipe face detector warns that
# mediapipe is missing and goes on. OpenCV, SciPy, einops, Pillow and huggingface_hub come from the venv.
_OCR_POSE = '''import types


class AnnotatorStandIn(Exception):
    """A python-bidi, scikit-image, shapely or pyclipper name that easyocr or controlnet-aux imports at package import
    (no model here calls it)."""

    def __init__(self, *args, **kwargs):
        super().__init__()


for _name, _attrs in {"bidi": ["get_display"], "skimage": [], "skimage.io": [], "skimage.measure": ["label"],
                      "skimage.morphology": [], "shapely": [], "shapely.geometry": ["Polygon"],
                      "pyclipper": []}.items():
    _stub = sys.modules.setdefault(_name, types.ModuleType(_name))
    for _attr in _attrs:
        setattr(_stub, _attr, AnnotatorStandIn)
    if "." in _name:
        _parent, _, _child = _name.rpartition(".")
        setattr(sys.modules[_parent], _child, _stub)

import torch.nn.functional as F
from easyocr.config import recognition_models
from easyocr.model import model as generation1
from easyocr.model import vgg_model as generation2
from controlnet_aux.hed import ControlNetHED_Apache2
from controlnet_aux.mlsd.models.mbv2_mlsd_large import MobileV2_MLSD_Large
from controlnet_aux.mlsd.models.mbv2_mlsd_tiny import MobileV2_MLSD_Tiny
from controlnet_aux.open_pose.model import bodypose_model, handpose_model
from controlnet_aux.normalbae.nets.NNET import NNET
from controlnet_aux.pidi.model import pidinet
from controlnet_aux.teed.ted import TED


class CTCRecognizer(torch.nn.Module):
    """An easyocr recogniser as its ``recognizer_predict`` runs it on grey word crops: NormalizePAD's scaling to
    [-1, 1], the model (its ``text`` argument unused), the softmax with the ignored characters' probabilities zeroed
    and the rest renormalised, greedy decoding (each step's class and probability), the steps that decode_greedy
    keeps (not the blank, not a repeat) and the word's confidence (``custom_mean``: the product of the non-blank
    steps' probabilities to the power 2 / sqrt(their count), 0 when there are none)."""

    def __init__(self, generation, network, params, allowlist=""):
        super().__init__()
        characters = recognition_models[generation][network]["characters"]
        package = generation1 if generation == "gen1" else generation2
        self.model = package.Model(num_class=len(characters) + 1, **params)
        ignore = sorted(set(characters) - set(allowlist)) if allowlist else []
        self.ignore_idx = [characters.index(char) + 1 for char in ignore]
        self.max_length = 25

    def forward(self, x):
        image = (x - 0.5) / 0.5
        text = torch.zeros(x.shape[0], self.max_length + 1, dtype=torch.long)
        preds = self.model(image, text)
        prob = F.softmax(preds, dim=2)
        if self.ignore_idx:
            prob[:, :, self.ignore_idx] = 0.0
            prob = prob / prob.sum(dim=2).unsqueeze(-1)
        value, index = prob.max(dim=2)
        repeat = torch.cat([torch.zeros_like(index[:, :1], dtype=torch.bool), index[:, 1:] == index[:, :-1]], 1)
        keep = (index != 0) & ~repeat
        counted = (index != 0).float()
        n = counted.sum(1)
        log_prod = (torch.log(value) * counted).sum(1)
        confidence = torch.where(n > 0, torch.exp(log_prod * 2.0 / torch.sqrt(n.clamp(min=1.0))),
                                 torch.zeros_like(n))
        return index, value, keep, confidence


def he_init(model):
    """He's normal init (fan-in, ReLU gain) and zero biases for every convolution: PyTorch's default init shrinks the
    signal layer by layer in a network without normalisation, so every image gives the same maps (the biases alone);
    trained weights keep the activations alive, and so does this."""
    for module in model.modules():
        if isinstance(module, torch.nn.Conv2d):
            torch.nn.init.kaiming_normal_(module.weight, nonlinearity="relu")
            if module.bias is not None:
                torch.nn.init.zeros_(module.bias)
    return model


def gaussian_kernel(sigma, radius):
    """SciPy's ``gaussian_filter`` kernel (truncate 4.0: radius 4 sigma) or OpenCV's (radius 3 sigma) as a 1-D
    tensor."""
    offsets = torch.arange(-radius, radius + 1, dtype=torch.float32)
    kernel = torch.exp(-0.5 * (offsets / sigma) ** 2)
    return kernel / kernel.sum()


def blur(maps, kernel):
    """A separable Gaussian blur of every channel (depthwise), reflecting at the borders."""
    channels, radius = maps.shape[1], kernel.numel() // 2
    rows = kernel.view(1, 1, -1, 1).expand(channels, 1, -1, 1)
    cols = kernel.view(1, 1, 1, -1).expand(channels, 1, 1, -1)
    maps = F.conv2d(F.pad(maps, (0, 0, radius, radius), mode="reflect"), rows, groups=channels)
    return F.conv2d(F.pad(maps, (radius, radius, 0, 0), mode="reflect"), cols, groups=channels)


def openpose_input(x, stride=8):
    """OpenPose's input: the RGB image as BGR 0-255, over 256 minus 0.5, padded right and down to the stride with
    the pad value 128 (0 after the scaling)."""
    image = x.flip(1) * 255.0 / 256.0 - 0.5
    pad_h, pad_w = (-x.shape[2]) % stride, (-x.shape[3]) % stride
    return F.pad(image, (0, pad_w, 0, pad_h), value=0.0)


class OpenPoseBody(torch.nn.Module):
    """The OpenPose body model (VGG-19 and six two-branch stages) as controlnet-aux's ``Body`` runs it at one scale:
    the heatmaps and part affinity fields upsampled by the stride and cropped to the image, then its peak finding per
    part written as tensors (Gaussian blur of sigma 3; a peak is at least its four neighbours and above 0.1) and the
    user's top 4 peaks of each of the 18 parts (x, y, score; a part with fewer peaks pads with (0, 0, -1)) with how
    many peaks each part has."""

    def __init__(self, top=4):
        super().__init__()
        self.model = he_init(bodypose_model())
        self.register_buffer("kernel", gaussian_kernel(3.0, 12))
        self.top = top

    def forward(self, x):
        height, width = x.shape[2], x.shape[3]
        paf, heat = self.model(openpose_input(x))
        heat = F.interpolate(heat, scale_factor=8, mode="bicubic", align_corners=False)[:, :, :height, :width]
        paf = F.interpolate(paf, scale_factor=8, mode="bicubic", align_corners=False)[:, :, :height, :width]
        parts = heat[:, :18]
        smooth = blur(parts, self.kernel)
        left = F.pad(smooth, (0, 0, 1, 0))[:, :, :-1]
        right = F.pad(smooth, (0, 0, 0, 1))[:, :, 1:]
        up = F.pad(smooth, (1, 0))[:, :, :, :-1]
        down = F.pad(smooth, (0, 1))[:, :, :, 1:]
        peaks = (smooth >= left) & (smooth >= right) & (smooth >= up) & (smooth >= down) & (smooth > 0.1)
        score = torch.where(peaks, parts, torch.full_like(parts, -1.0)).flatten(2)
        top_score, index = score.topk(self.top, dim=2)
        found = (top_score >= 0).float()
        xs = (index % width).float() * found
        ys = torch.div(index, width, rounding_mode="floor").float() * found
        return heat, paf, torch.stack([xs, ys, top_score], -1), peaks.flatten(2).sum(2)


class OpenPoseHand(torch.nn.Module):
    """The OpenPose hand model as controlnet-aux's ``Hand`` runs it at one scale on a hand crop: OpenCV's Gaussian
    blur of sigma 0.8 first, the 22 heatmaps upsampled by the stride, cropped and resized to its 128x128 working
    size, blurred (sigma 3), and each of the 21 parts' keypoint as tensors: the argmax of the heatmap where the blurred
    map is above 0.05 (the tensor stand-in for its largest connected component), scaled to the crop, (0, 0) when
    nothing is above."""

    def __init__(self):
        super().__init__()
        self.model = he_init(handpose_model())
        self.register_buffer("small", gaussian_kernel(0.8, 3))
        self.register_buffer("kernel", gaussian_kernel(3.0, 12))

    def forward(self, x):
        height, width = x.shape[2], x.shape[3]
        image = blur(x, self.small)
        heat = self.model(openpose_input(image))
        heat = F.interpolate(heat, scale_factor=8, mode="bicubic", align_corners=False)[:, :, :height, :width]
        heat = F.interpolate(heat, size=(128, 128), mode="bilinear", align_corners=False)[:, :21]
        found = blur(heat, self.kernel) > 0.05
        masked = torch.where(found, heat, torch.zeros_like(heat)).flatten(2)
        score, index = masked.max(2)
        ys = torch.div(index, 128, rounding_mode="floor").float() * height / 128
        xs = (index % 128).float() * width / 128
        any_found = found.flatten(2).any(2)
        keypoints = torch.stack([xs.floor(), ys.floor()], -1) * any_found.unsqueeze(-1)
        return heat, keypoints, score, any_found


class MLSDLines(torch.nn.Module):
    """An M-LSD line detector as controlnet-aux's ``pred_lines`` runs it: the image with a channel of ones, scaled to
    [-1, 1]; then its ``deccode_output_score_and_ptss`` written for a batch (sigmoid of the centre map, 3x3 max-pool
    suppression, the top 200 centres, row and column from the flat index) and the segments from the displacement map
    at those centres, scaled by 2 to input pixels, with the user's validity mask (score above 0.1, length above
    0.1) and the segments that fail it zeroed (the library drops them: a fixed-size output pads)."""

    def __init__(self, model, top=200, score_thr=0.1, dist_thr=0.1):
        super().__init__()
        self.model = model
        self.top, self.score_thr, self.dist_thr = top, score_thr, dist_thr

    def forward(self, x):
        image = torch.cat([x * 255.0, torch.ones_like(x[:, :1])], 1) / 127.5 - 1.0
        tp = self.model(image)
        width = tp.shape[3]
        heat = torch.sigmoid(tp[:, 0:1])
        keep = (F.max_pool2d(heat, 3, stride=1, padding=1) == heat).float()
        scores, index = (heat * keep).flatten(1).topk(self.top, dim=1)
        ys = torch.div(index, width, rounding_mode="floor").float()
        xs = (index % width).float()
        disp = tp[:, 1:5].flatten(2).gather(2, index.unsqueeze(1).expand(-1, 4, -1)).transpose(1, 2)
        start, end = disp[..., :2], disp[..., 2:]
        dist = torch.sqrt(((start - end) ** 2).sum(-1))
        lines = 2 * torch.stack([xs + disp[..., 0], ys + disp[..., 1], xs + disp[..., 2], ys + disp[..., 3]], -1)
        valid = (scores > self.score_thr) & (dist > self.dist_thr)
        return lines * valid.unsqueeze(-1), scores, valid


def safe_step(edge, step=2):
    """controlnet-aux's ``safe_step``: the edge map quantised to ``step`` levels (truncation to an integer)."""
    return (edge * float(step + 1)).to(torch.int32).float() / float(step)


class SideOutputEdges(torch.nn.Module):
    """An edge detector with side outputs (HED, TEED) as controlnet-aux's detectors run it on 0-255 RGB: every side
    output resized to the image, their mean through a sigmoid, and its ``safe_step`` quantisation."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        size = (x.shape[2], x.shape[3])
        edges = [F.interpolate(e, size=size, mode="bilinear", align_corners=False) for e in self.model(x * 255.0)]
        edge = torch.sigmoid(torch.stack(edges, 0).mean(0))
        return edge, safe_step(edge)


class PiDiNetEdges(torch.nn.Module):
    """PiDiNet (controlnet-aux's ``pidinet()``: the carv4 pixel-difference convolutions, dilation 24, spatial
    attention) as its detector runs it: BGR in [0, 1], the last (fused) sigmoid map and its ``apply_filter``
    binarisation at 0.5."""

    def __init__(self):
        super().__init__()
        self.model = pidinet()

    def forward(self, x):
        edge = self.model(x.flip(1))[-1]
        return edge, (edge > 0.5).float()


class NormalBaeNormals(torch.nn.Module):
    """NormalBae (Bae et al.'s surface-normal network: geffnet's EfficientNet-B5-AP from the packaged hub repo, a
    decoder of four upsampling blocks and per-pixel MLP refinement at 1/4 and 1/2 resolution and full size, each
    output's normal made unit length and its concentration positive by ``norm_normalize``) as controlnet-aux's
    NormalBaeDetector runs it: ImageNet normalisation, the last prediction's three normal channels mapped to [0, 1]."""

    def __init__(self):
        super().__init__()
        args = types.SimpleNamespace(mode="client", architecture="BN", pretrained="scannet", sampling_ratio=0.4,
                                     importance_ratio=0.7)
        self.model = NNET(args)
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, x):
        normal = self.model((x - self.mean) / self.std)[0][-1][:, :3]
        return ((normal + 1) * 0.5).clamp(0, 1)'''

MODELS61 = [
    # easyocr: the recognisers of its two generations, with its greedy CTC decoding as tensors.
    Spec("easyocr_gen1_resnet_bilstm_ctc", "easyocr generation-1 recogniser (latin_g1 layout: ResNet feature "
         "extractor of 512 (BasicBlocks 1-2-5-3), adaptive pooling of the height, two BiLSTMs of 512, 168 "
         "classes) with its softmax, greedy decoding, decode_greedy's keep mask and custom_mean confidence", _OCR_POSE,
         'CTCRecognizer("gen1", "latin_g1", dict(input_channel=1, output_channel=512, hidden_size=512))',
         "return self.m(x)", "2, 1, 64, 128", _BW, calibrate="self.m(xb)"),
    Spec("easyocr_gen2_vgg_bilstm_ctc_allowlist", "easyocr generation-2 recogniser (english_g2 layout: VGG feature "
         "extractor of 256, two BiLSTMs of 256, 97 classes) read with a digits allowlist: the other characters' "
         "probabilities zeroed and renormalised, greedy decoding, keep mask and confidence", _OCR_POSE,
         'CTCRecognizer("gen2", "english_g2", dict(input_channel=1, output_channel=256, hidden_size=256), '
         'allowlist="0123456789")', "return self.m(x)", "2, 1, 64, 128", _BW, calibrate="self.m(xb)"),
    # controlnet-aux: pose keypoints.
    Spec("cnaux_openpose_body_peaks", "controlnet-aux OpenPose body (bodypose_model: VGG-19 and six two-branch "
         "stages) at one scale: stride padding, heatmaps and PAFs upsampled and cropped, Gaussian-blurred peak "
         "finding and the top 4 peaks of each part as tensors", _OCR_POSE, "OpenPoseBody()", "return self.m(x)",
         "2, 3, 96, 128", _BHW),
    Spec("cnaux_openpose_hand_keypoints", "controlnet-aux OpenPose hand (handpose_model: six stages, 22 maps) at one "
         "scale: input blur, stride padding, heatmaps resized to 128x128, blurred threshold and argmax keypoints "
         "scaled to the crop as tensors", _OCR_POSE, "OpenPoseHand()", "return self.m(x)", "2, 3, 96, 96", _BHW),
    # controlnet-aux: line segment detection with its tensor decoding.
    Spec("cnaux_mlsd_large_lines", "controlnet-aux M-LSD large (MobileNetV2 to the 1/16 level, BlockTypeA/B/C "
         "fusion up to the 1/2 level with dilated convs, the last 9 of 16 channels as the TP map) with its centre-map "
         "decoding for a batch: max-pool suppression, top 200, displacement gather, segments and validity", _OCR_POSE,
         "MLSDLines(MobileV2_MLSD_Large())", "return self.m(x)", "2, 3, 128, 128", _BHW, calibrate="self.m(xb)"),
    Spec("cnaux_mlsd_tiny_lines", "controlnet-aux M-LSD tiny (MobileNetV2 to the 1/16 level, fusion up to the 1/4 "
         "level, the TP map upsampled by 2 bilinearly with align_corners) with the same decoding", _OCR_POSE,
         "MLSDLines(MobileV2_MLSD_Tiny())", "return self.m(x)",
         "2, 3, 256, 256", _BHW, calibrate="self.m(xb)"),
    # controlnet-aux: edge maps with their post-processing.
    Spec("cnaux_hed_safe_edges", "controlnet-aux ControlNetHED_Apache2 (VGG-style blocks with side projections, a "
         "learned input offset; its forward is a __call__ override) with side outputs resized, averaged, sigmoid and "
         "safe_step", _OCR_POSE, "SideOutputEdges(ControlNetHED_Apache2())", "return self.m(x)", "2, 3, 64, 96",
         _BHW),
    Spec("cnaux_teed_safe_edges", "controlnet-aux TEED (tiny dense blocks with Smish activations, transposed-conv "
         "upsampling, DoubleFusion of the three side outputs) with side outputs resized, averaged, sigmoid and "
         "safe_step", _OCR_POSE, "SideOutputEdges(TED())", "return self.m(x)", "2, 3, 64, 96", _BHW),
    Spec("cnaux_pidinet_edges", "controlnet-aux PiDiNet (carv4: central, angular and radial pixel-difference "
         "convolutions whose kernels are built from the weights on every call, CDCM dilations, CSAM attention, "
         "side maps interpolated to x.size()[2:]) with the fused map binarised at 0.5", _OCR_POSE, "PiDiNetEdges()",
         "return self.m(x)", "2, 3, 64, 96", _BHW),
    Spec("cnaux_normalbae_normals", "controlnet-aux NormalBae (EfficientNet-B5-AP encoder built by torch.hub.load "
         "from the packaged local repo, upsampling decoder with per-pixel refinement over every pixel and "
         "norm_normalize) with ImageNet normalisation and the normals mapped to [0, 1]", _OCR_POSE,
         "NormalBaeNormals()", "return self.m(x)", "2, 3, 64, 96", _BHW, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS61, "real_zoo61", PINS61)
