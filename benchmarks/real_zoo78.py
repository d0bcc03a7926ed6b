"""A seventy-eighth real-model zoo, held out: chosen and written before migrate ran on any of them.

    python benchmarks/real_zoo78.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, outside computer vision's usual detectors: chest radiograph reading as a
hospital's triage or PACS service runs it (pathology scores with the library's operating points, anatomy segmentation,
an autoencoder, a demographic classifier) and music beat tracking as an audio service runs it (a whole piece from the
waveform, cut into overlapping chunks and stitched back). The thirty-first zoo's pins, torchaudio's Python packages
(beat_this computes its log-mel spectrogram with ``torchaudio.transforms.MelSpectrogram``; the wheel zoos 64 to 76
unpacked, its compiled extension not loaded), two libraries by authors whose code no earlier zoo or sweep ran, and one
small pure-Python library beat_this imports (``PINS78``: unpacked wheels like the others, never pip-installed):
torchxrayvision 1.5.7 (Joseph Paul Cohen and the mlmed contributors, github.com/mlmed/torchxrayvision, Apache-2.0:
chest X-ray classifiers trained for the library on pooled public datasets, with baselines from other papers adapted to
the same input scaling), beat_this 1.1.0 (Francesco Foscarin, Jan Schlüter and Gerhard Widmer, Johannes Kepler
University Linz, github.com/CPJKU/beat_this, MIT: the "Beat This!" beat and downbeat tracker of ISMIR 2024) and
rotary_embedding_torch 0.9.1 (Phil Wang: the rotary position embedding beat_this's transformers share; a helper, no
model of its own is used).

What the packages import beyond their networks: torchxrayvision's package ``__init__`` imports its datasets module,
which imports scikit-image (``skimage``, ``skimage.transform``, ``skimage.io.imread``) and imageio at module level, for
reading and resizing image files only: none of them is in the venv, all stood in by empty modules (``imread`` a name
that is never called), as zoo 73 did for brambox; pandas, requests, tqdm and torchvision are in the venv or the pins.
Every torchxrayvision model loads its released weights from a file in its cache folder and downloads it when the file
is missing: the wrappers write a random checkpoint of the right layout under the name the library looks for, in a
temporary folder passed as ``cache_dir`` (the library then loads it as it loads the release, and nothing is fetched),
or pass ``weights=False`` where the constructor offers it. beat_this's ``inference`` module imports soxr (compiled,
resampling only when the sample rate is not 22050 Hz; not in the venv): an empty stand-in; the service feeds 22050 Hz.
einops is in the venv. Nothing new in the ``bench`` extra.

Considered and dropped before any model was chosen (by the index, the wheels' files and metadata and a first reading of
the imports): learning3d 0.2.2 (Vinit Sarode's point-cloud registration and classification models: DCP, RPMNet, PCN,
DeepGMR, DGCNN; the wheel installs ``models``, ``ops``, ``utils`` and ``losses`` as top-level packages whose modules
import each other with ``from .. utils import``, beyond the top-level package, so nothing in it imports as published;
it also pins torch 2.0.1 and needs open3d), denoiser 0.1.5 (Meta's DEMUCS speech enhancement: an sdist only, and
``fetch_sources`` unpacks wheels), panns_inference with torchlibrosa (audio tagging: the log-mel front end builds its
filters with librosa, which needs numba; not in the venv), pytorch-forecasting (time series: scikit-learn among its
imports, not in the venv). Within torchxrayvision: the dataset classes and transforms (file reading with NumPy and
scikit-image, before the model), the jfhealthcare DenseNet, the Emory HITI race model, the RIKEN age model and the
xinario view model (their weights paths are fixed under the user's home folder, with no ``cache_dir``: a zoo must not
write there), the CheXpert ensemble (thirty networks from a weights ZIP file that must be fetched by hand), the
ieee8023 VQGAN (its configuration is a YAML file of the release) and the ResNet-101 ``features2`` paths (the same
networks). Within beat_this: the DBN post-processing (madmom, not on PyPI for this Python), the Lightning module and
losses (training), the dataset and augmentation code, the NumPy half of the minimal post-processing (peak
deduplication and moving downbeats to the nearest beat with ``np.argmin``, in a thread pool: after the tensors, on the
host).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 76
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(torchxrayvision's ``fix_resolution``: a Python ``raise`` when height and width differ, a Python ``if`` comparing the
size with the native resolution, a warning printed once per model by ``hash(model)`` in a module-level dictionary,
and an antialiased bilinear ``interpolate`` to the native size; ``warn_normalization``: ``x.min()``, ``x.max()`` and a
``torch.logical_or`` of comparisons used as a Python ``bool`` on the first call only (a module-level flag); the
operating-point normalisation ``op_norm``: thresholds with NaN for targets a dataset lacks, ``expand`` to the batch,
``torch.isnan`` masks and boolean-mask assignments ``out[mask] = ...`` on a tensor made by ``torch.zeros(...) + 0.5``;
``repeat`` of the grey channel to three, torchvision's ``Normalize`` inside the forward; PSPNet's pyramid pooling and
upsampling; the CXAS U-Net's ResNet-50 encoder with dilations and bilinear ``Up`` blocks padding skips by their size
difference, its dict output; the autoencoder's size check raising for non-native inputs and its last transposed
convolution given ``output_size=x.size()``; beat_this's chunked inference: ``np.arange`` over the frame count for the
chunk starts, the last start moved by a Python ``if`` on the length, a list of slices of the spectrogram with bounds
from ``max``/``min`` of Python ints and ``F.pad`` behind an ``if`` on the pad sizes, one model call per chunk, the
chunks' borders cut, a ``torch.full`` of -1000 filled by slice assignment in reverse order; the log-mel spectrogram by
``torch.stft`` inside torchaudio's ``MelSpectrogram`` and a ``.T``; the BeatThis network itself: a stem and three
frontend blocks with transformers alternately across frequency and across time (einops ``rearrange`` with batch sizes
from ``len(x)``), rotary embeddings whose cos/sin tables are computed from the sequence length at run time, the main
transformer, a sum head that disables autocast by a Python test on the device; the minimal
post-processing's tensor half: ``masked_fill`` of padding, a max-pool of width 7 compared with the logits to keep local
maxima, a threshold at 0).

torchxrayvision (a grey-scale radiograph in [0, 1], 8-bit pixels over 255, scaled by the service to the library's
[-1024, 1024] as its ``datasets.normalize`` does; square images, as the library's ``XRayCenterCrop`` makes them; each
model resizes to its native size inside its forward): the core DenseNet-121 with the weights trained on all the pooled
datasets (``densenet121-res224-all``: 18 pathologies, native 224, the release's operating points; 6.97 M parameters)
and with the NIH ChestX-ray14 weights (``densenet121-res224-nih``: the same 18 outputs, four of them NaN-thresholded
and fixed at 0.5), the core ResNet-50 at 512 (``resnet50-res512-all``: 18 outputs with operating points; 23.5 M), the
ChestX-Det PSPNet segmenting 14 anatomical structures at 512, the CXAS U-Net (ResNet-50 encoder) segmenting 159
anatomical structures at 512 (``weights=False``), the ResNet-101 autoencoder ``101-elastic`` (latent and
reconstruction at 224) and the MIRA sex classifier (ResNet-34 at 224, ``weights=False``). beat_this (music at
22050 Hz): the full-size BeatThis (the release's ``final0`` architecture: 512-wide, 6 layers; 20.3 M parameters) and a
small BeatThis (128-wide: the release has small models too, but their hyper-parameters are in the checkpoints, not
the code, so 128 is this zoo's choice) run on a whole stereo piece as the library's ``Audio2Frames``
does (the channels averaged, the log-mel spectrogram, ``split_predict_aggregate`` with chunks of 1500 frames, borders
of 6, ``keep_first``; beat and downbeat logits per frame out), and the full-size BeatThis on a batch of spectrogram
excerpts with the tensor half of the ``minimal`` post-processing (beat and downbeat probabilities and their peak
masks).

Each has the dynamic axes a deploying user declares: batch, height and width for the torchxrayvision models that resize
any input (the library refuses height different from width: the service crops to a square first), batch alone for the
autoencoder (its encoder raises for any size but 224); time alone for the whole-piece beat trackers (one piece a call,
as the library's inference takes it: samples, channels), batch and time for the excerpt batch. Inputs are all in
[0, 1): radiographs (2, 1, 256, 256), (1, 1, 448, 448), (1, 1, 384, 384) and (2, 1, 224, 224); stereo audio (88200, 2),
4 s; spectrogram excerpts (2, 400, 128). Set-valued outputs: none. Outputs: scores (batch, 18) or (batch, 2);
segmentation logits (batch, 14 or 159, 512, 512); latent (batch, 512, 3, 3) and image (batch, 1, 224, 224); beat and
downbeat logits (frames,); probabilities and peak masks (batch, frames) each.

The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite outputs,
outputs differing across the batch) before any migrate run, with a source tree unpacked by ``fetch_sources`` from
``PINS78`` and ``make_zoo``, each model in its own process with one thread on the two cores shared with other sessions:
at the spec's size, one more in the batch and larger sizes (radiographs of 384, 512 or 640 pixels and batches of 3 or
4; the autoencoder only at 224, its native size; whole pieces of 88201 samples, 35 s and 45 s, two chunks; excerpt
batches of 3x400 and 4x1500 frames). All passed but one first: the ResNet-50 at 512 gave the same 18 scores for every
image (random weights with BatchNorm's default statistics saturate the sigmoid, and the operating-point normalisation
maps 0 and 1 to themselves), so its wrapper calibrates BatchNorm as real_zoo.py's detectors do (``calibrate``), which
made them differ (standard deviation 0.18). Imports take 1.3 to 3.6 s (load varying); builds 0.1 to 1.6 s (6.7 s for
the ResNet-50 with its calibration; writing and reading each random checkpoint included). Parameters: DenseNets
6.97 M, ResNet-50 23.5 M, PSPNet 68.1 M, CXAS U-Net 73.4 M, autoencoder 31.1 M, MIRA 21.3 M, BeatThis 20.3 M, the small
BeatThis 2.1 M. Forwards: the DenseNets and MIRA 0.2 to 0.5 s, the ResNet-50 0.5 to 1.5 s, the autoencoder 0.5 to
1.4 s, PSPNet 4 s for one image and 12 s for two (the slowest), the CXAS U-Net 2 to 5 s, the whole-piece trackers 0.2 s
for 4 s of audio (one chunk) and 5 s for 35 to 45 s (two chunks), the excerpt batch 1.8 s for 2x400 frames and 13 s for
4x1500. Peak memory 0.5 to 1.2 GB a process, 2.1 GB for the CXAS U-Net (159 maps of 512x512 per image). Odd, left as
the libraries have them: every torchxrayvision model resizes to its native size inside its forward, so the output
size does not follow the input's (segmentations are 512x512 whatever comes in) and a non-square input raises; the
resolution warning is printed once per model object and the normalisation check runs on the first call of the process
only (module-level state); the MIRA model's scores have a standard deviation near 5000 (it scales to [0, 255] before a
randomly initialised ResNet-34 with BatchNorm's default statistics) while they differ across the batch; the DenseNets'
operating-point outputs spread towards 0 and 1 (standard deviation 0.43 to 0.48), the four NaN-thresholded NIH
outputs exactly 0.5; with beat_this's
random initialisation (normal, standard deviation 0.02) the logits stay within about 0.05 of 0, and on the checked
excerpts every beat logit was below 0, so the beat peak mask was all zeros while the downbeat mask and both
probabilities differed across the batch (the threshold at 0 is the library's; a trained network crosses it); the
whole-piece trackers return one sequence per call (frames = samples // 441 + 1) and their chunk count grows with the
length (one model call per 29.76 s of audio).
"""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins, torchaudio's Python packages (beat_this's log-mel front end is torchaudio's
#: ``MelSpectrogram``; zoos 64 to 76 unpacked the same wheel, its compiled extension not loaded), two libraries by
#: authors no earlier zoo or sweep ran and one small pure-Python library beat_this imports, all unpacked wheels like the
#: others (never pip-installed): torchxrayvision (chest X-ray models), beat_this (beat and downbeat tracking) and
#: rotary_embedding_torch (the rotary embedding beat_this's transformers share).
PINS78 = {**PINS31, "torchaudio": "2.11.1", "torchxrayvision": "1.5.7", "beat_this": "1.1.0",
          "rotary_embedding_torch": "0.9.1"}

_B = 'dynamic_axes = { x = { 0 = "batch" } }'
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_T = 'dynamic_axes = { x = { 0 = "time" } }'
_BT = 'dynamic_axes = { x = { 0 = "batch", 1 = "time" } }'

# ---------------------------------------------------------------------------------------------------------------
# torchxrayvision: the package ``__init__`` imports its datasets, which import scikit-image and imageio for reading
# and resizing image files: empty stand-ins. The released weights are files in a cache folder: a random checkpoint
# of the layout each loader expects is written under the release's file name in a temporary folder, passed as
# ``cache_dir``, so the library's own loading code runs and nothing is downloaded.
_XRV = '''
import importlib.machinery
import importlib.util
import os
import sys
import tempfile


def _not_installed(name):
    """An empty module registered under ``name``: imported by file-reading code the service never calls."""
    if name not in sys.modules:
        sys.modules[name] = importlib.util.module_from_spec(importlib.machinery.ModuleSpec(name, None))
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, sys.modules[name])
    return sys.modules[name]


for _name in ("imageio", "skimage", "skimage.transform", "skimage.io"):
    _not_installed(_name)
sys.modules["skimage.io"].imread = None

import torchvision
import torchxrayvision as xrv
from torchxrayvision.baseline_models.chestx_anatomy import UNetResNet50
from torchxrayvision.baseline_models.chestx_det import PSPNet
from torchxrayvision.baseline_models.chestx_det.ptsemseg.pspnet import pspnet
from torchxrayvision.baseline_models.mira import SexModel


def released(url, checkpoint, load):
    """``load(cache_dir)`` with ``checkpoint`` saved where the library looks for the release behind ``url``."""
    with tempfile.TemporaryDirectory(prefix="xrv-weights-") as folder:
        torch.save(checkpoint, os.path.join(folder, os.path.basename(url)))
        return load(folder)


def densenet(weights):
    """The core DenseNet-121 with the named release: its loader unpickles a whole module and takes its state."""
    url = xrv.models.model_urls[weights]["weights_url"]
    labels = len(xrv.models.model_urls[weights]["labels"])
    return released(url, xrv.models.DenseNet(num_classes=labels),
                    lambda folder: xrv.models.DenseNet(weights=weights, cache_dir=folder))


def resnet(weights):
    """The core ResNet-50 with the named release: a torchvision ResNet-50 state with a one-channel stem."""
    url = xrv.models.model_urls[weights]["weights_url"]
    network = torchvision.models.resnet50(num_classes=len(xrv.models.model_urls[weights]["labels"]))
    network.conv1 = torch.nn.Conv2d(1, 64, kernel_size=7, stride=2, padding=3, bias=False)
    return released(url, network.state_dict(), lambda folder: xrv.models.ResNet(weights=weights, cache_dir=folder))


def chestx_det():
    """ChestX-Det's PSPNet: the release is a DataParallel state (keys prefixed with ``module.``)."""
    state = {"module." + key: value for key, value in pspnet(len(PSPNet.targets)).state_dict().items()}
    return released("pspnet_chestxray_best_model_4.pth", state, lambda folder: PSPNet(cache_dir=folder))


def autoencoder(weights):
    """The ResNet autoencoder with the named release (a plain state of the ResNet-101 autoencoder)."""
    url = xrv.autoencoders.model_urls[weights]["weights_url"]
    return released(url, xrv.autoencoders.ResNetAE101().state_dict(),
                    lambda folder: xrv.autoencoders.ResNetAE(weights=weights, cache_dir=folder))


class Radiograph(torch.nn.Module):
    """The reading service: a grey-scale radiograph in [0, 1] (8-bit pixels over 255) scaled to the library's
    [-1024, 1024], as ``xrv.datasets.normalize(image, 255)`` does before the model."""

    def __init__(self, model):
        super().__init__()
        self.model = model

    def forward(self, x):
        return self.model(x * 2048.0 - 1024.0)'''

# ---------------------------------------------------------------------------------------------------------------
# beat_this: ``beat_this.inference`` imports soxr (compiled; resampling when the rate is not 22050 Hz): an empty
# stand-in. ``load_model(None)`` builds the network without a checkpoint; a small network is built with the width
# given here.
_BEAT = '''
import importlib.machinery
import importlib.util
import sys

import torch.nn.functional as F

if "soxr" not in sys.modules:
    sys.modules["soxr"] = importlib.util.module_from_spec(importlib.machinery.ModuleSpec("soxr", None))
from beat_this.inference import load_model, split_predict_aggregate
from beat_this.model.beat_tracker import BeatThis
from beat_this.preprocessing import LogMelSpect

#: The library's inference settings: 22050 Hz audio, 50 frames a second, chunks of 1500 frames (30 s) with borders
#: of 6 frames, the earlier chunk kept where two overlap.
CHUNK, BORDER = 1500, 6


class Piece(torch.nn.Module):
    """A whole piece in, as ``Audio2Frames`` takes it (samples, channels) at 22050 Hz: the channels averaged, the
    log-mel spectrogram, chunked inference stitched back; beat and downbeat logits per frame out."""

    def __init__(self, network):
        super().__init__()
        self.spect = LogMelSpect()
        self.network = network.eval()

    def forward(self, signal):
        spect = self.spect(signal.mean(1))
        frames = split_predict_aggregate(spect=spect, chunk_size=CHUNK, border_size=BORDER,
                                         overlap_mode="keep_first", model=self.network)
        return frames["beat"].float(), frames["downbeat"].float()


class Excerpts(torch.nn.Module):
    """A batch of log-mel excerpts (batch, frames, 128) in: the network, then the tensor half of the library's
    ``minimal`` post-processing (local maxima within +/- 3 frames, 70 ms, kept where the logit is above 0);
    beat and downbeat probabilities and peak masks out."""

    def __init__(self, network):
        super().__init__()
        self.network = network.eval()

    def forward(self, spect):
        out = self.network(spect)
        logits = torch.stack([out["beat"], out["downbeat"]], 1)  # (batch, 2, frames)
        local_max = F.max_pool1d(logits, 7, 1, 3)
        peaks = logits.masked_fill(logits != local_max, -1000) > 0
        probabilities = torch.sigmoid(logits)
        return probabilities[:, 0], probabilities[:, 1], peaks[:, 0].to(spect.dtype), peaks[:, 1].to(spect.dtype)'''

_SCALE = "return self.m(x)"

MODELS78 = [
    # torchxrayvision: chest radiographs.
    Spec("xrv_densenet_all", "torchxrayvision DenseNet-121 densenet121-res224-all (18 pathologies, operating points)",
         _XRV, 'Radiograph(densenet("densenet121-res224-all"))', _SCALE, "2, 1, 256, 256", _BHW),
    Spec("xrv_densenet_nih", "torchxrayvision DenseNet-121 densenet121-res224-nih (NIH thresholds, NaN for four)",
         _XRV, 'Radiograph(densenet("densenet121-res224-nih"))', _SCALE, "2, 1, 256, 256", _BHW),
    Spec("xrv_resnet50_512", "torchxrayvision ResNet-50 resnet50-res512-all (18 pathologies at 512)", _XRV,
         'Radiograph(resnet("resnet50-res512-all"))', _SCALE, "1, 1, 448, 448", _BHW, calibrate="self.m(xb)"),
    Spec("xrv_chestx_det_pspnet", "torchxrayvision ChestX-Det PSPNet (14 anatomical structures at 512)", _XRV,
         "Radiograph(chestx_det())", _SCALE, "1, 1, 384, 384", _BHW),
    Spec("xrv_cxas_unet", "torchxrayvision CXAS U-Net ResNet-50 (159 anatomical structures at 512)", _XRV,
         "Radiograph(UNetResNet50(weights=False))", _SCALE, "1, 1, 384, 384", _BHW),
    Spec("xrv_autoencoder", "torchxrayvision ResNet-101 autoencoder 101-elastic (latent and reconstruction)", _XRV,
         'Radiograph(autoencoder("101-elastic"))', 'out = self.m(x)\n        return out["z"], out["out"]',
         "2, 1, 224, 224", _B),
    Spec("xrv_mira_sex", "torchxrayvision MIRA sex classifier (ResNet-34 at 224)", _XRV,
         "Radiograph(SexModel(weights=False))", _SCALE, "2, 1, 256, 256", _BHW),
    # beat_this: music beat and downbeat tracking.
    Spec("beat_this_piece", "beat_this BeatThis final0 architecture (a whole stereo piece, chunked inference)", _BEAT,
         "Piece(load_model(None))", "return self.m(x)", "88200, 2", _T),
    Spec("beat_this_small_piece", "beat_this BeatThis small (128 wide; a whole stereo piece, chunked inference)",
         _BEAT, "Piece(BeatThis(transformer_dim=128))", "return self.m(x)", "88200, 2", _T),
    Spec("beat_this_excerpts", "beat_this BeatThis final0 architecture (spectrogram excerpts, minimal peak picking)",
         _BEAT, "Excerpts(load_model(None))", "return self.m(x)", "2, 400, 128", _BT),
]

if __name__ == "__main__":
    main(MODELS78, "real_zoo78", PINS78)
