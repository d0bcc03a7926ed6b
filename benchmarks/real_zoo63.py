"""A sixty-third real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo63.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on vision models deployed for inference: single-image super-resolution
(residual, cascading, pixel-attention, attention-in-attention, holistic-attention and sparse-mask networks) and YOLOv5
detectors with their letterbox pre-processing, anchor decoding and per-image NMS: the thirty-first zoo's pins and two
libraries by other authors, whose models no earlier zoo or sweep ran (``PINS63``: unpacked wheels like the others,
never pip-installed): super-image 0.2.0 (Eugene Siow, github.com/eugenesiow/super-image: PyTorch ports of published
super-resolution networks with Hugging Face-style configs) and yolort 0.6.3 (Zhiqiang Wang and contributors,
github.com/zhiqwang/yolov5-rt-stack: YOLOv5 re-written as torchvision-style modules, with the transform, anchor
generator, head and post-processing as separate modules). Zoos 17, 26 and 27 looked at both and dropped them for their
imports; the two blockers are stood in here, in the user's module, as zoo 60 stood in soundfile. super-image's package
imports its HDF5 dataset module, which imports h5py (compiled, not in the venv): an empty module with a module spec,
since no model here reads a dataset. yolort's package imports its copy of the YOLOv5 utilities, whose plotting module
checks for Arial.ttf in YOLOv5's config folder at import and downloads it when missing (no network here): the user
sets ``YOLOV5_CONFIG_DIR`` to a folder under the temporary directory holding matplotlib's DejaVu Sans under that name.
And ``yolort/version.py`` asks torchvision's compiled extension for its CUDA version at import
(``torch.ops.torchvision._cuda_version``; its ``try`` catches only ImportError, and the op's absence raises
AttributeError), which the CPU stand-in for torchvision's ops (nms and roi_align) does not define: the user's module
defines it beside them with ``torch.library`` (no CUDA: -1). The rest of what they import (OpenCV, tqdm,
huggingface_hub; matplotlib, pandas, seaborn, PyYAML and setuptools' pkg_resources) comes from the venv; torchvision
(yolort's batched NMS and box conversions, its MobileNetV3 backbone) is in ``PINS31``. Nothing new in the ``bench``
extra.

Considered and dropped before any model was chosen (by the wheel's files, metadata and a first import):
depth-anything-v2 0.1.0 (its only release requires Python 3.12; the venv's is 3.11); seen in the package list only and
not downloaded: efficientsam (promptable segmentation: prompts as a second input), torchseg and segformer-pytorch
(semantic segmentation of the encoder-decoder kinds segmentation_models_pytorch's zoo covered), mmocr (OpenMMLab's
compiled mmcv) and openpifpaf (a compiled decoder). Within super-image: JIIF (guided depth upsampling: a guide image
as a second input, and ``.cuda()`` in its coordinate code), MASA (reference-based: a second image), DRN (dual
regression: a list of outputs per scale, trained with its own trainer), DDBPN, RNAN, RCAN, MDSR, MSRN, DRLN, AWSRN and
PhysicsSR (residual and channel-attention networks of the same kinds as the chosen ones), its ``Trainer`` and
``ImageLoader`` (files and NumPy). Within yolort: the larger variants (YOLOv5m, l, x, s6, m6: the same modules wider
and deeper) and r3.1 (r4.0's layout with other activations), ``yolort.relay`` and ``yolort.runtime`` (ONNX graph
surgery with TensorRT's EfficientNMS plugin, and engine and ONNX Runtime runners: a deployment path of its own, not a
PyTorch model), ``yolort.v5`` (the upstream YOLOv5 code built from YAML: the yolov5 library's, zooed) and its trainer.

11 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 62
or in the library sweeps (benchmarks/sweep_*.py), of the kinds that often need work for an ONNX or TensorRT deployment
(mean shifts by constant buffers, pixel shuffle, nearest and bilinear interpolation by scale factors, layer attention
by ``bmm`` over the groups' outputs reshaped from the sizes, 3-D convolution over channels, softmax weighting of
attention branches; SMSR's eval path: spatial masks by a comparison, ``torch.nonzero`` over them, indices and kernels
kept as module attributes on each call, gathers of the sparse positions and a sparse convolution by matrix products,
the batch taken as one by ``[0]`` and ``squeeze``; YOLOv5's letterbox resize to a target size from the image's size,
padding to a multiple of the stride with a fill colour, anchors and grids from the feature maps' sizes by
``meshgrid``, sigmoid decoding, a score threshold by ``torch.where``, per-image batched NMS in a Python loop over the
batch, boxes scaled back to each image's size; Focus slicing, a transformer block in the neck). super-image, on RGB
images in [0, 1) (as its ``ImageLoader`` gives them), upscaled 2x or 4x: EDSR x2 (4 residual blocks of 32; 0.12 M
parameters), CARN x2 (its fixed 64-channel cascading network; 1.59 M), PAN x4 (its default 16 SC-PA blocks of 40; 0.27
M), A2N x2 (its default 16 attention-in-attention blocks of 40; 1.04 M), HAN x2 (10 residual groups of one block of
16, layer attention and channel-spatial attention; 0.11 M) and SMSR x2 (its five sparse mask modules of 64, channel
masks rounded and spatial masks thresholded at inference; 0.99 M), each the library's model class on its config, its
forward as the deployment's: SMSR after ``SMB._prepare()`` on each sparse block (upstream SMSR prepares the dense and
sparse kernel splits before testing; super-image's port never calls it, and its eval forward fails without it: the
user's ``prepared_smsr`` does it once after building). yolort, 3 classes, a score threshold of 0.005 (the library's
default), NMS at 0.45 and 20 detections per image: YOLOv5n r6.0 and YOLOv5n6 r6.0 (four levels to stride 64) as
``YOLOv5`` (the ``yolov5n`` and ``yolov5n6`` builders: YOLOTransform's letterbox to 128 and a multiple of 32 or 64,
then the model, then boxes scaled back to each input's size; 1.77 M and 3.10 M) on the batch as a list of images, as
its ``predict`` does; YOLOv5s r4.0 (Focus stem; 7.07 M), YOLOv5-TS (r4.0 with C3TR transformer blocks in the neck,
``yolov5ts``'s model; 7.07 M) and YOLOv5 on torchvision's MobileNetV3-Small FPN (four levels to stride 64, random
backbone; 2.89 M) as ``YOLO`` (the model without the transform, on a batch tensor whose sides are multiples of the
largest stride). Each detector returns one tensor of rows (image index, x1, y1, x2, y2, score, class) for the whole
batch, up to 20 per image, the user's ``detection_rows`` concatenating the library's list of per-image dicts; the rows
are compared as a set (``unordered``).

Each has the dynamic axes a deploying user declares: batch, height and width for the super-resolution networks (32x32
inputs for EDSR and CARN, 24x24 for PAN, A2N and HAN; any size) and for the detectors (96x128 and 128x96 images for
the letterbox models, which take any size; 128x128 for the YOLO models, multiples of 32, or 64 for the MobileNetV3
FPN); height and width alone for SMSR (24x24, batch 1: its sparse path indexes the batch's first image). All inputs
are in [0, 1). BatchNorm statistics come from the calibration pass for the five detectors (without it YOLOv5n, built
and run before the zoo was written, gave no detection at all); the super-resolution networks have no BatchNorm. The
detectors' outputs are set-valued and their row counts depend on the data (fewer than 20 per image where NMS leaves
fewer). The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite
outputs, outputs differing across the batch: each image's rows for the detectors) before the first migrate run, with a
source tree unpacked by ``fetch_sources`` from ``PINS63`` and ``make_zoo``: at the spec's size, one more in the batch,
and larger dynamic sizes with batches of 2 and 3 (super-resolution inputs of 48x64 and 40x56, or 32x48 and 30x42 for
PAN, A2N and HAN; SMSR 32x48 and 30x42 at batch 1; letterbox images of 150x200 and 200x130, or 200x150 and 130x200 for
YOLOv5n6; YOLO images of 192x256 and 256x192). With one thread on the shared two cores (load average 3.6 to 4.7 from
other sessions), each model in its own process, the best of two forwards at the spec's size took 0.010 s EDSR, 0.043 s
CARN, 0.023 s PAN, 0.069 s A2N, 0.010 s HAN, 0.053 s SMSR, 0.008 s YOLOv5n, 0.028 s YOLOv5n6, 0.019 s YOLOv5s r4.0,
0.036 s YOLOv5-TS and 0.014 s the MobileNetV3 YOLO; at the larger sizes at most 0.027, 0.154, 0.069, 0.240, 0.027,
0.170, 0.014, 0.017, 0.110, 0.326 and 0.054 s; builds took 1.1 to 4.3 s (calibration included). Changed after the
first eager runs, before any migrate run: LIIF dropped (super-image's ``LiifModel.forward`` only prints the input's
shape, and ``query_rgb``, which the user would call, builds its coordinates with ``.cuda()``: it cannot run on this
CPU-only torch) and A2N taken in its place; HAN from 2 residual groups to 10 (its last convolution takes 11 times the
features, 10 groups and the head, whatever ``n_resgroups`` says); SMSR at its default 64 features (its fusion
convolution takes 5 times 64 channels whatever ``n_feats`` says) and prepared by ``prepared_smsr``; the detectors'
score threshold from 0.25 to the library's 0.005 (with random weights no box passed 0.25 at the larger letterbox
sizes). Odd, left as the libraries have them: super-image's configs default to ``rgb_range=255`` (the mean shift
subtracts 255 times the DIV2K mean) while its ``ImageLoader`` feeds images in [0, 1]; SMSR keeps its masks and gather
indices as attributes written by every forward, and about half of each module's positions are sparse with these
weights; PAN and A2N add a bilinear upsampling of the input to the output; yolort's ``PostProcess`` loops over the
batch in Python and calls torchvision's ``batched_nms`` (the stand-in's kernel); YOLOTransform resizes each image by
its own scale factor and pads with 114/255, so the letterbox models' rows are in each input's coordinates; the yolort
font is copied into the temporary directory at import when missing."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins (torchvision among them, whose detection ops yolort calls) and two libraries by other
#: authors, unpacked wheels like the others (never pip-installed): super-image (Eugene Siow: image super-resolution)
#: and yolort (Zhiqiang Wang and Fidel Guo: a YOLOv5 runtime with its pre- and post-processing in PyTorch).
PINS63 = {**PINS31, "super_image": "0.2.0", "yolort": "0.6.3"}

#: The user's inputs: RGB images (batch, 3, height, width) in [0, 1).
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
_HW = 'dynamic_axes = { x = { 2 = "height", 3 = "width" } }'
#: The detectors' rows: (image index, x1, y1, x2, y2, score, class), compared as a set of rows.
_ROWS = _BHW + '\nunordered = ["output"]'

# ---------------------------------------------------------------------------------------------------------------
# super-image imports its data module at package import (``super_image.data``, for training sets in HDF5 files), and
# that imports h5py (compiled, not in the venv); no model here reads a dataset, so the user's module stands it in
# with an empty module that has a module spec. Its trainers' imports (tqdm, torchvision's transforms, OpenCV and
# huggingface_hub) come from the venv and the earlier pins.
_SI = '''import importlib.machinery
import importlib.util

# h5py: super-image's package imports its HDF5 dataset classes; nothing here reads a dataset.
if "h5py" not in sys.modules:
    sys.modules["h5py"] = importlib.util.module_from_spec(importlib.machinery.ModuleSpec("h5py", None))

from super_image import (A2nConfig, A2nModel, CarnConfig, CarnModel, EdsrConfig, EdsrModel, HanConfig, HanModel,
                         PanConfig, PanModel, SmsrConfig, SmsrModel)


def prepared_smsr(model):
    """SMSR's sparse inference path reads each sparse mask block's rounded channel masks, kernels split into dense
    and sparse parts and channel counts, which ``SMB._prepare`` computes from the learned channel masks: upstream
    SMSR prepares them before testing, super-image's port never calls it, so the user does once after building."""
    for block in model.modules():
        if hasattr(block, "_prepare"):
            block._prepare()
    return model'''

# ---------------------------------------------------------------------------------------------------------------
# yolort's package imports its copy of the YOLOv5 utilities (``yolort.v5``), whose plotting module makes sure of a
# TrueType font at import and downloads Arial.ttf into YOLOv5's config folder when it has none (there is no network
# here): the user points ``YOLOV5_CONFIG_DIR`` at a folder holding matplotlib's DejaVu Sans under that name.
# ``yolort/version.py`` asks torchvision's compiled extension for its CUDA version (``torch.ops.torchvision.
# _cuda_version``), which the CPU stand-in for torchvision's ops does not define: the user's module defines it
# (no CUDA: -1) beside the stand-in's nms and roi_align. pandas, seaborn and matplotlib (v5's plots) and the
# pkg_resources of setuptools come from the venv.
_YR = '''import shutil
import tempfile
from pathlib import Path

import matplotlib

# YOLOv5's font: a folder with a TrueType font where yolort's plotting utilities look for Arial.ttf.
_FONTS = Path(tempfile.gettempdir()) / "yolort-config"
if not (_FONTS / "Arial.ttf").exists():
    _FONTS.mkdir(exist_ok=True)
    shutil.copyfile(Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf", _FONTS / "Arial.ttf")
os.environ.setdefault("YOLOV5_CONFIG_DIR", str(_FONTS))

# torchvision's compiled extension reports its CUDA version; yolort/version.py asks for it at import.
try:
    torch.ops.torchvision._cuda_version
except (AttributeError, RuntimeError):
    _CUDA_VERSION = torch.library.Library("torchvision", "FRAGMENT")  # noqa: TOR901
    _CUDA_VERSION.define("_cuda_version() -> int")
    _CUDA_VERSION.impl("_cuda_version", lambda: -1, "CompositeExplicitAutograd")

from yolort.models import yolov5n, yolov5n6
from yolort.models.yolo import yolov5_darknet_pan_s_r40, yolov5_darknet_tan_s_r40
from yolort.models.yolo_lite import yolov5_mobilenet_v3_small_fpn


def detection_rows(detections):
    """Every image's detections as rows of (image index, x1, y1, x2, y2, score, class): one tensor for the batch,
    as an exported detector with NMS returns them."""
    rows = []
    for index, det in enumerate(detections):
        boxes = det["boxes"]
        rows.append(torch.cat([boxes.new_full((boxes.shape[0], 1), index), boxes, det["scores"][:, None],
                               det["labels"][:, None].to(boxes.dtype)], 1))
    return torch.cat(rows)'''

_LETTERBOX = "return detection_rows(self.m(list(x)))"
_TENSOR = "return detection_rows(self.m(x))"
_POST = "score_thresh=0.005, nms_thresh=0.45, detections_per_img=20"

MODELS63 = [
    # super-image: single-image super-resolution of RGB images of any size.
    Spec("superimage_edsr_x2", "super-image EDSR x2 (small: 4 residual blocks of 32, mean shift in and out, "
         "pixel shuffle)", _SI, "EdsrModel(EdsrConfig(scale=2, n_resblocks=4, n_feats=32))", "return self.m(x)",
         "2, 3, 32, 32", _BHW),
    Spec("superimage_carn_x2", "super-image CARN x2 (cascading residual blocks with 1x1 fusions, mean shift, pixel "
         "shuffle upsampler)", _SI, "CarnModel(CarnConfig(scale=2))", "return self.m(x)", "2, 3, 32, 32", _BHW),
    Spec("superimage_pan_x4", "super-image PAN x4 (pixel attention: SC-PA blocks, nearest upsampling with "
         "U-PA, bilinear skip of the input)", _SI, "PanModel(PanConfig(scale=4))", "return self.m(x)",
         "2, 3, 24, 24", _BHW),
    Spec("superimage_han_x2", "super-image HAN x2 (small: 10 groups of one block of 16; layer "
         "attention over the groups' outputs by bmm, channel-spatial attention by 3-D convolution)", _SI,
         "HanModel(HanConfig(scale=2, n_resgroups=10, n_resblocks=1, n_feats=16, reduction=4))", "return self.m(x)",
         "2, 3, 24, 24", _BHW),
    Spec("superimage_a2n_x2", "super-image A2N x2 (attention in attention: each block weighs an attention branch "
         "against a plain one by a softmax over pooled features; nearest upsampling, bilinear skip)", _SI,
         "A2nModel(A2nConfig(scale=2))", "return self.m(x)", "2, 3, 24, 24", _BHW),
    Spec("superimage_smsr_x2", "super-image SMSR x2 (five sparse mask modules of 64: the eval path's "
         "spatial masks by a comparison, rounded channel masks, sparse 3x3 convolutions over the nonzero positions)",
         _SI,
         "prepared_smsr(SmsrModel(SmsrConfig(scale=2)))", "return self.m(x)", "1, 3, 24, 24", _HW),
    # yolort: YOLOv5 detectors with their anchors, decoding and batched NMS.
    Spec("yolort_yolov5n_letterbox", "yolort YOLOv5n r6.0 (YOLOv5 with YOLOTransform: letterbox resize to 128 and "
         "padding to a multiple of 32, anchor decoding, batched NMS, boxes scaled back)", _YR,
         f"yolov5n(num_classes=3, size=(128, 128), {_POST})", _LETTERBOX, "2, 3, 96, 128", _ROWS,
         calibrate="self.m(list(xb))"),
    Spec("yolort_yolov5n6_letterbox", "yolort YOLOv5n6 r6.0 (four levels to stride 64; YOLOTransform to 128 and a "
         "multiple of 64, anchor decoding, batched NMS)", _YR, f"yolov5n6(num_classes=3, size=(128, 128), {_POST})",
         _LETTERBOX, "2, 3, 128, 96", _ROWS, calibrate="self.m(list(xb))"),
    Spec("yolort_yolov5s_r40", "yolort YOLO with the YOLOv5s r4.0 darknet (Focus stem, PAN; anchors from the "
         "feature sizes, decoding, score threshold and batched NMS per image)", _YR,
         f"yolov5_darknet_pan_s_r40(num_classes=3, {_POST})", _TENSOR, "2, 3, 128, 128", _ROWS,
         calibrate="self.m(xb)"),
    Spec("yolort_yolov5ts", "yolort YOLO with YOLOv5s r4.0 and a transformer attention network (TAN) in the neck, "
         "decoding and batched NMS", _YR, f"yolov5_darknet_tan_s_r40(num_classes=3, {_POST})", _TENSOR,
         "2, 3, 128, 128", _ROWS, calibrate="self.m(xb)"),
    Spec("yolort_mobilenetv3_fpn", "yolort YOLO with torchvision's MobileNetV3-Small FPN backbone (four levels to "
         "stride 64), decoding and batched NMS", _YR,
         f"yolov5_mobilenet_v3_small_fpn(num_classes=3, pretrained_backbone=False, {_POST})", _TENSOR,
         "2, 3, 128, 128", _ROWS, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS63, "real_zoo63", PINS63)
