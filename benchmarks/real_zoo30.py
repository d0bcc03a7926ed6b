"""A thirtieth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo30.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the twenty-ninth zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the twenty-ninth zoo's libraries and pins and three more libraries by
three other authors, whose code no earlier zoo or sweep ran (``PINS30``: unpacked wheels like the others, never
pip-installed): torch-yolo3 0.1.1 (Erik Linder-Noren's PyTorch-YOLOv3 as Jirka Borda forked and packaged it: Darknet
built from a cfg file, YOLO layers whose grids and scaled anchors are built with the legacy ``FloatTensor`` constructors
and cached per input size, boxes written into an uninitialised tensor, and a non-maximum suppression that merges
overlapping boxes of a class in a Python loop; NumPy, tqdm, Pillow and torchvision on its import path, its tensorboard,
terminaltables, pathos and torch-optimizer only by its training scripts), pytorch-filters 0.1.1 (Mason's edge filters in
torch: Canny with scripted helpers and a hysteresis repeated until nothing changes, Sobel with ``atan2``,
difference-of-Gaussians kernels built in Python loops, an XDoG whose kernel sizes follow the image's size; torch and
NumPy) and nnaudio 0.3.4 (Kin Wai Cheuk's nnAudio: STFT, iSTFT, mel, MFCC, gammatone, CQT and VQT spectrograms as
convolutions with kernels built in NumPy and SciPy). Nothing new in the ``bench`` extra. Considered and dropped before
any model was chosen (by the wheel's metadata and a first import): pytorchyolo 1.8.0 (the same PyTorch-YOLOv3 as
packaged upstream; imports imgaug and terminaltables), detr 0.1.4 (facebookresearch's DETR as a wheel: its ``util.misc``
reads torchvision 0.29's version as the float 0.2 and takes the old-torchvision imports, which fail; it also unpacks
top-level ``models``, ``util`` and ``datasets`` packages), pyolov3 0.1.2 (pins torch 1.4; OpenCV, wget), retina-face
0.0.19 (Sefik Serengil's PyTorch RetinaFace: its top-level ``retinaface`` package is retinaface-pytorch's (zoo 27) name;
OpenCV, gdown, onnxruntime), findcrack 0.1.8 (albumentations, onnxruntime, scikit-image), acaua 0.1.0.dev0 (supervision;
adapters over transformers' RT-DETR and Mask2Former), pytorch-rdc-net 0.1.0 (lightning, pytorch-ignite, torchist),
meyelens 2.0.2 (PyQt6, OpenCV), and pw-pytorch-yolov4, anime-face-detector, earsegmentationai and fcos (no wheel here);
the libraries zoos 15 to 29 dropped, as they found.

20 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 29 or
in the library sweeps (benchmarks/sweep_*.py), all 20 from the three new libraries, 11 of them vision, and at least 11
of the kinds that most often need work for an ONNX or TensorRT deployment (grids and anchors built per input size with
legacy tensor constructors and cached on the module, decode written into an uninitialised tensor, rows picked by a mask
and merged in a data-dependent loop, a loop run until a fixed point, ``atan2``, ``fmod`` and ``round`` to a long, kernel
sizes from the image's size, an output size computed in Python from the input's, overlap-add by ``fold`` cut to the
input's length, octave loops of downsampling convolutions). Detection, from torch-yolo3, random weights, the cfgs
written by the user's wrapper to a temporary file (the library reads a path): yolov3-tiny's layout (widths divided by
16, 3 classes) decoded at 96 px, the same with the library's ``non_max_suppression`` at 128 px (rows over an objectness
logit of 0.5, the library keeps objectness a logit, with the image index, order not compared), and yolov3's layout
(Darknet-53 stages of one residual block, three heads) decoded at 64 px and with the library's NMS at 96 px. Edge
filters, from pytorch-filters, nothing learned, each function in the user's small ``EdgeFilter`` module on one-channel
images: Canny, the scripted 5x5 Gaussian blur, difference of Gaussians, XDoG (sigma 2, a boolean mask), Sobel magnitude
and angle, Sobel with ``angle_rounder`` and ``non_maximum_suppression``, and ``scale`` by 2 with ``invert``.
Spectrograms, from nnaudio, on waveforms of 4096 or 8192 samples moved to [-1, 1): STFT magnitude, MelSpectrogram, MFCC,
CQT1992v2, CQT2010v2, VQT, Gammatonegram, CQT1992 and an STFT with its inverse.

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the edge filters; batch
and length for the spectrograms; batch alone for the Darknets, whose YOLO layers view a map as square (grid by grid:
height and width cannot be declared apart). The Darknets' BatchNorm statistics come from a calibration pass
(``Spec.calibrate``, as zoo 1's detectors). Machinery, table and counts are real_zoo2.py's. The wrappers were checked
only for building and running eagerly (deterministic over two forwards, finite outputs) at two sizes (the spec's, and
one 32 px larger where height and width are dynamic, 1024 samples longer where the length is, a batch of two where the
batch is) before the first migrate run: with one thread on the shared two cores, each in its own process, a forward at
the spec's size took 0.00 to 0.15 s (Canny the slowest, CQT1992 0.07 s, yolov3 with NMS 0.06 s) and at most 0.24 s at
the larger size (CQT1992 at a batch of two); builds (imports included) took 1.3 to 10.7 s (an earlier, busier run: up to
0.22 s, 0.61 s and 13.2 s). Changed after the first eager runs, before any migrate run: nnaudio's CFP was dropped (it
calls ``scipy.signal.blackmanharris``, which SciPy no longer has) and CQT1992, the STFT round trip, yolov3's layout with
NMS and the Gaussian blur were added; the filters were first called on a ``torch.nn.Identity`` (a constructor zoo 18
already has) and now run in the ``EdgeFilter`` module. Canny's output is two rows shorter than its input (the library
pads the width by one and crops both axes), as the library gives it."""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo29 import PINS29

#: The twenty-ninth zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): torch_yolo3 (Jirka Borda's packaging of Erik Linder-Noren's PyTorch-YOLOv3: Darknet built from a
#: cfg, YOLO layers with grids cached per size; torch and NumPy), pytorch_filters (Canny, Sobel and difference-of-
#: Gaussians edge filters in torch; torch and NumPy) and nnaudio (Kin Wai Cheuk's nnAudio: STFT, mel, MFCC, CQT, VQT
#: and gammatone spectrograms as convolutions; torch, NumPy and SciPy).
PINS30 = {**PINS29, "torch_yolo3": "0.1.1", "pytorch_filters": "0.1.1", "nnaudio": "0.3.4"}


def _darknet_cfg(blocks: list[str], size: int) -> str:
    """A Darknet cfg (the format the library parses) with 3 channels and ``size`` as its image size."""
    return "\n".join([f"[net]\nchannels=3\nheight={size}\nwidth={size}", *blocks]) + "\n"


def _conv(filters: int, size: int = 3, stride: int = 1, bn: bool = True) -> str:
    """A cfg convolution block: leaky with BatchNorm, or linear with a bias (the heads)."""
    if bn:
        return f"[convolutional]\nbatch_normalize=1\nfilters={filters}\nsize={size}\nstride={stride}\nactivation=leaky"
    return f"[convolutional]\nfilters={filters}\nsize={size}\nstride={stride}\nactivation=linear"


#: Anchors for 3 classes at about 96 px, six of them as in the tiny cfg and nine in the full one.
_ANCHORS6 = "5,7, 9,14, 14,11, 20,24, 32,30, 60,50"
_ANCHORS9 = "3,4, 5,8, 8,6, 8,15, 15,11, 14,22, 28,21, 30,45, 60,50"


def _yolo(mask: str, anchors: str) -> str:
    return f"[yolo]\nmask={mask}\nanchors={anchors}\nclasses=3\nnum={anchors.count(',') // 2 + 1}"


#: yolov3-tiny's layout (max-pool backbone, the 2x2 stride-1 pool padded by one, two YOLO heads joined by a route and
#: an upsample), its widths divided by 16.
_TINY = _darknet_cfg([
    _conv(8), "[maxpool]\nsize=2\nstride=2", _conv(16), "[maxpool]\nsize=2\nstride=2", _conv(32),
    "[maxpool]\nsize=2\nstride=2", _conv(32), "[maxpool]\nsize=2\nstride=2", _conv(64),
    "[maxpool]\nsize=2\nstride=2", _conv(64), "[maxpool]\nsize=2\nstride=1", _conv(128), _conv(64, 1), _conv(128),
    _conv(24, 1, bn=False), _yolo("3,4,5", _ANCHORS6), "[route]\nlayers=-4", _conv(32, 1), "[upsample]\nstride=2",
    "[route]\nlayers=-1, 8", _conv(64), _conv(24, 1, bn=False), _yolo("0,1,2", _ANCHORS6)], 96)


def _residual(filters: int) -> list[str]:
    return [_conv(filters // 2, 1), _conv(filters), "[shortcut]\nfrom=-3\nactivation=linear"]


#: yolov3's layout (Darknet-53's strided convolutions and residual shortcuts, one block a stage, three YOLO heads
#: joined by routes and upsamples), its widths divided by 16.
_FULL = _darknet_cfg([
    _conv(8), _conv(16, stride=2), *_residual(16), _conv(32, stride=2), *_residual(32),
    _conv(64, stride=2), *_residual(64),  # 9: stride 8
    _conv(128, stride=2), *_residual(128),  # 13: stride 16
    _conv(256, stride=2), *_residual(256),  # 17: stride 32
    _conv(128, 1), _conv(256), _conv(128, 1), _conv(256), _conv(24, 1, bn=False), _yolo("6,7,8", _ANCHORS9),
    "[route]\nlayers=-4", _conv(64, 1), "[upsample]\nstride=2", "[route]\nlayers=-1, 13",
    _conv(64, 1), _conv(128), _conv(24, 1, bn=False), _yolo("3,4,5", _ANCHORS9),
    "[route]\nlayers=-4", _conv(32, 1), "[upsample]\nstride=2", "[route]\nlayers=-1, 9",
    _conv(32, 1), _conv(64), _conv(24, 1, bn=False), _yolo("0,1,2", _ANCHORS9)], 96)


def _darknet_imports(cfg: str) -> str:
    """The user's cfg written where the library reads it (a file path), and its Darknet class."""
    return ("import tempfile\nfrom torch_yolo3.models import Darknet\nfrom torch_yolo3.evaluate import "
            "non_max_suppression\nwith tempfile.NamedTemporaryFile('w', suffix='.cfg', delete=False) as _cfg:\n"
            f"    _cfg.write({cfg!r})")


#: The library's detection step on tensors: per image, rows over an objectness logit of 0.5, sorted by score,
#: overlapping boxes of one class merged (weighted by objectness) by its NMS; rows with the image's index.
_YOLO_ROWS = (
    "rows = [torch.zeros(0, 8)]\n        "
    "for i, det in enumerate(non_max_suppression(self.m(x), conf_thres=0.5, nms_thres=0.4)):\n            "
    "if det is not None:\n                rows.append(torch.cat([det, torch.full_like(det[:, :1], i)], 1))\n        "
    "return torch.cat(rows)")

#: The library's filters are functions: the user's module calls one with its keyword arguments.
_PF = ("from pytorch_filters.main import {}\n\n\nclass EdgeFilter(torch.nn.Module):\n"
       "    def __init__(self, fn, **kwargs):\n        super().__init__()\n"
       "        self.fn, self.kwargs = fn, kwargs\n\n"
       "    def forward(self, x):\n        return self.fn(x, **self.kwargs)\n")
#: nnAudio takes a batch of waveforms (batch, samples): batch and length are dynamic; the input is moved to [-1, 1).
_DYNAMIC_BL = 'dynamic_axes = { x = { 0 = "batch", 1 = "length" } }'
_NA = "from nnAudio.features import {}"
_WAVE = "return self.m(x * 2 - 1)"

MODELS30 = [
    # torch_yolo3: Darknet from a cfg (random weights), the YOLO layers' decode on grids built per input size.
    Spec("ty3_yolov3_tiny_decode", "torch_yolo3 Darknet yolov3-tiny layout (widths / 16, 3 classes): two YOLO "
         "layers decoding boxes on grids and anchors built (and cached) for the input's size, stride from the "
         "image size", _darknet_imports(_TINY), "Darknet(_cfg.name)", "return self.m(x)", "1, 3, 96, 96", DYNAMIC_B,
         calibrate="self.m(xb)"),
    Spec("ty3_yolov3_tiny_nms", "torch_yolo3 Darknet yolov3-tiny layout with the library's non_max_suppression: "
         "per image rows over an objectness of 0.5, sorted, same-class overlaps merged in a loop, rows with the "
         "image index", _darknet_imports(_TINY), "Darknet(_cfg.name, img_size=128)", _YOLO_ROWS, "1, 3, 128, 128",
         DYNAMIC_B + '\nunordered = ["output"]', calibrate="self.m(xb)"),
    Spec("ty3_yolov3_decode", "torch_yolo3 Darknet yolov3 layout (Darknet-53 stages with residual shortcuts, "
         "widths / 16, three YOLO layers joined by routes and upsamples)", _darknet_imports(_FULL),
         "Darknet(_cfg.name)", "return self.m(x)", "1, 3, 64, 64", DYNAMIC_B, calibrate="self.m(xb)"),
    Spec("ty3_yolov3_nms", "torch_yolo3 Darknet yolov3 layout with the library's non_max_suppression (rows over an "
         "objectness of 0.5, same-class overlaps merged in a loop, rows with the image index)", _darknet_imports(_FULL),
         "Darknet(_cfg.name, img_size=96)", _YOLO_ROWS, "1, 3, 96, 96", DYNAMIC_B + '\nunordered = ["output"]',
         calibrate="self.m(xb)"),
    # pytorch_filters: edge filters on one-channel images (nothing learned).
    Spec("pf_canny", "pytorch_filters canny (replicate padding, a scripted 5x5 Gaussian, Sobel magnitude over the "
         "batch's maximum and angle, angles rounded to 45 degrees, non-maximum suppression by neighbour slices, "
         "hysteresis repeated until nothing changes)", _PF.format("canny"), "EdgeFilter(canny)",
         "return self.m(x)", "1, 1, 96, 128", DYNAMIC_BHW),
    Spec("pf_difference_of_gaussians", "pytorch_filters difference_of_gaussians (two Gaussian kernels built in "
         "Python loops from sigma, a 7x7 and a 13x13 convolution)", _PF.format("difference_of_gaussians"),
         "EdgeFilter(difference_of_gaussians)", "return self.m(x)", "1, 1, 96, 96", DYNAMIC_BHW),
    Spec("pf_xdog", "pytorch_filters ex_difference_of_gaussians (sigma and so the kernel sizes scaled by the image's "
         "size, the image over its maximum, a tanh soft threshold, the result thresholded to a mask)",
         _PF.format("ex_difference_of_gaussians"), "EdgeFilter(ex_difference_of_gaussians, sigma=2.0)",
         "return self.m(x)", "1, 1, 128, 96", DYNAMIC_BHW),
    Spec("pf_sobel", "pytorch_filters sobel_edge_detection (Sobel convolutions, magnitude over its maximum, angle in "
         "degrees modulo 180)", _PF.format("sobel_edge_detection"), "EdgeFilter(sobel_edge_detection)",
         "return self.m(x)", "1, 1, 64, 96", DYNAMIC_BHW),
    Spec("pf_edge_nms", "pytorch_filters Sobel, angle_rounder (scripted, fmod of the rounded angle to a long) and "
         "non_maximum_suppression (neighbours sliced from a padded map, per-direction masks, torch.where)",
         _PF.format("sobel_edge_detection, angle_rounder, non_maximum_suppression"), "EdgeFilter(sobel_edge_detection)",
         "magnitude, angle = self.m(x)\n        "
         "return non_maximum_suppression(magnitude, angle_rounder(angle))", "1, 1, 96, 96", DYNAMIC_BHW),
    Spec("pf_gaussian_blur", "pytorch_filters gaussian_blur (a torch.jit.script function: its 3x3 and 5x5 kernels "
         "built as tensors on each call, the 5x5 one chosen by a flag)", _PF.format("gaussian_blur"),
         "EdgeFilter(gaussian_blur, big_blur=True)", "return self.m(x)", "1, 1, 96, 64", DYNAMIC_BHW),
    Spec("pf_scale_invert", "pytorch_filters scale by 2 (the size multiplied in Python, bilinear interpolate) and "
         "invert", _PF.format("scale, invert"), "EdgeFilter(scale, scaler=2)", "return invert(self.m(x))",
         "1, 1, 64, 64", DYNAMIC_BHW),
    # nnaudio: spectrogram front ends (fixed kernels, random waveforms).
    Spec("na_stft", "nnaudio STFT (reflect padding, Fourier kernels as conv1d, magnitude)", _NA.format("STFT"),
         'STFT(n_fft=256, hop_length=64, sr=16000, output_format="Magnitude", verbose=False)', _WAVE, "1, 4096",
         _DYNAMIC_BL),
    Spec("na_melspectrogram", "nnaudio MelSpectrogram (STFT power through a mel filter bank)",
         _NA.format("MelSpectrogram"), "MelSpectrogram(sr=16000, n_fft=256, n_mels=32, hop_length=64, verbose=False)",
         _WAVE, "1, 4096", _DYNAMIC_BL),
    Spec("na_mfcc", "nnaudio MFCC (mel power to decibels clamped to the top 80 dB of each item, a DCT)",
         _NA.format("MFCC"), "MFCC(sr=16000, n_mfcc=13, n_fft=256, n_mels=32, hop_length=64, verbose=False)", _WAVE,
         "1, 4096", _DYNAMIC_BL),
    Spec("na_cqt1992v2", "nnaudio CQT1992v2 (constant-Q kernels as one conv1d, reflect padding by half the "
         "longest kernel, magnitude)", _NA.format("CQT1992v2"),
         "CQT1992v2(sr=16000, hop_length=128, fmin=110, n_bins=36, verbose=False)", _WAVE, "1, 4096", _DYNAMIC_BL),
    Spec("na_cqt2010v2", "nnaudio CQT2010v2 (early downsampling by a low-pass conv, one octave's kernels applied "
         "to the signal halved octave by octave, hop lengths halved, octaves concatenated)",
         _NA.format("CQT2010v2"), "CQT2010v2(sr=16000, hop_length=128, fmin=110, n_bins=36, verbose=False)", _WAVE,
         "1, 8192", _DYNAMIC_BL),
    Spec("na_vqt", "nnaudio VQT (variable-Q: per octave its kernels with the gamma-widened bandwidths, the signal "
         "downsampled between octaves)", _NA.format("VQT"),
         "VQT(sr=16000, hop_length=128, fmin=110, n_bins=36, gamma=5, verbose=False)", _WAVE, "1, 8192",
         _DYNAMIC_BL),
    Spec("na_gammatonegram", "nnaudio Gammatonegram (STFT power through a gammatone filter bank)",
         _NA.format("Gammatonegram"), "Gammatonegram(sr=16000, n_fft=256, n_bins=32, hop_length=64, verbose=False)",
         _WAVE, "1, 4096", _DYNAMIC_BL),
    Spec("na_cqt1992", "nnaudio CQT1992 (an STFT by conv1d, then the constant-Q kernels' spectra multiplied in, "
         "real and imaginary parts stacked, scaled by the kernels' lengths, magnitude)", _NA.format("CQT1992"),
         "CQT1992(sr=16000, hop_length=128, fmin=110, n_bins=36)", _WAVE, "1, 4096", _DYNAMIC_BL),
    Spec("na_stft_roundtrip", "nnaudio STFT with iSTFT=True: the complex spectrogram and its inverse (overlap-add "
         "by fold, divided by the window's square sum recomputed for the frames, cut to the input's length)",
         _NA.format("STFT"), 'STFT(n_fft=256, hop_length=64, sr=16000, iSTFT=True, output_format="Complex", '
         "verbose=False)", "y = x * 2 - 1\n        return self.m.inverse(self.m(y), length=y.shape[-1])", "1, 4096",
         _DYNAMIC_BL),
]

if __name__ == "__main__":
    main(MODELS30, "real_zoo30", PINS30)
