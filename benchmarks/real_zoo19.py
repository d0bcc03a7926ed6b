"""A nineteenth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo19.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the eighteenth zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the eighteenth zoo's libraries and pins and two more libraries by other
authors, whose code no earlier zoo or sweep ran (``PINS19``: unpacked wheels like the others, never pip-installed):
yolov7-package 0.0.13 (WongKinYiu's YOLOv7 repository packaged as a library: its ``Model`` builds a network from a layer
list; the IDetect, IAuxDetect, IKeypoint and IBin heads decode anchors on grids made in the forward; Swin and Swin V2
CSP blocks, RepConv, Ghost and ResX CSP modules; the repository's ``non_max_suppression`` and
``non_max_suppression_kpt``; it imports torch, torchvision, numpy, PyYAML, OpenCV, requests, tqdm and wget, the last now
in the ``bench`` extra) and deep-sort-realtime 1.3.2 (a Deep SORT tracker; its appearance embedder is its own
MobileNetV2; it imports numpy, scipy and OpenCV). 13 of the 24 models come from the two new libraries. The package ships
no model files, so the YOLOv7 models are built by its ``Model`` from small layer lists written here in its own format
(``_cfg``), as a user with their own yaml would. Considered and dropped before any model was chosen (by the wheel's
metadata and imports): pytorch-ssd 1.8.0 (its package imports its Lightning CLI: pytorch-lightning and wandb),
pytorchyolo 1.8.0 (imgaug, which needs scikit-image; and no model cfg files in the wheel), craft-text-detector 0.4.3
(gdown, for two models), face-detection 0.2.2 (source distribution only); the libraries zoos 15 to 18 dropped, as they
found.

24 models, chosen by family before any was run, none of them (library, architecture and variant) in zoos 1 to 18 or in
the library sweeps (benchmarks/sweep_*.py), most of them of kinds that often need work for an ONNX or TensorRT
deployment. Detection and pose, from yolov7-package, random weights, 3 classes, 128 px: a YOLOv7-tiny-like network (an
ELAN block, max-pool downsampling, SPPCSPC, a small neck to strides 8, 16 and 32) with the IDetect head (implicit add
and multiply around the output convolutions, boxes decoded on grids); the same followed by the repository's
``non_max_suppression`` (confidence filter, class-offset boxes, torchvision's NMS, at most 300 an image), every image's
rows in one tensor with its index; the plain Detect head set as the repository's export script sets it for
``--include-nms`` (boxes turned to corners by a matrix product, scores times objectness) and, separately, followed by
``non_max_suppression`` with multi-label boxes and class-agnostic NMS; a neck of RepConv blocks re-parameterised into
single convolutions by ``Model.fuse`` (parameters frozen first: IDetect's fuse folds the implicit terms into the output
convolutions in place); a pose model (IKeypoint: 17 keypoints an anchor decoded on the grids, one class as its decoding
assumes) followed by ``non_max_suppression_kpt``; the IBin head (width and height as soft bins); Swin CSP blocks
(windows of 8, padded, shifted every other layer) and Swin V2 CSP blocks (scaled cosine attention and a continuous
position bias) at P3 and P5; a W6-like network (ReOrg space-to-depth stem, DownC, four levels to stride 64, the
IAuxDetect head, lead outputs decoded); a Ghost network (Stem, Ghost CSP blocks, Ghost SPP-CSP); a YOLOR-CSP-like
network (grouped ResX CSP blocks). Re-identification, from deep-sort-realtime: its MobileNetV2 embedder at half width on
128x64 person crops. Depth, lens and warps, from kornia: ``warp_frame_depth`` (a small network's depth back-projected
with intrinsics made from the input's size, moved by a relative pose, projected and sampled), ``undistort_image``
(radial and tangential distortion, then a convolution), ``elastic_transform2d`` (a displacement field from a small
network, Gaussian-smoothed, grid-sampled), ``crop_and_resize`` (a box from a small regression network, cropped and
resized to 32x32), scale-space keypoint refinement (a difference-of-Gaussians stack, ``ConvQuadInterp3d``) and heatmap
keypoint decoding (``spatial_soft_argmax2d`` over 8 heatmaps, ``render_gaussian2d`` back at the points). Backbones from
timm families no zoo ran: CrossViT tiny at 240 px (two patch sizes, cross-attention through the class tokens),
CSPDarkNet-53, HardCoRe-NAS A and MobileNetV5-300M (Gemma 3n's vision encoder: universal inverted residuals, mobile
multi-query attention with downsampled keys and values). From monai: Regressor (3-D residual units to a linear head).

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the images (the YOLOv7
models at multiples of their largest stride, the crops and warps at any size); batch alone where the size is part of the
model (CrossViT's position embeddings for 240 px, monai's Regressor whose linear head fixes its 16^3 input). Machinery,
table and counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over
three forwards, finite outputs), at two sizes (the spec's and a batch of two 32 px larger, 64 for the W6-like model, 16
for the rest with height and width dynamic), before the first migrate run: with one thread on the shared two cores, the
best of three forwards at the spec's size took under 0.01 s for 19 of them, 0.03 s for CSPDarkNet-53, 0.04 to 0.07 s for
the two NMS models that keep 300 boxes an image (0.16 to 0.32 s for two at 160 px), 0.04 s for CrossViT and 0.25 to 0.44
s for MobileNetV5 (0.67 to 1.52 s for two at 80 px), over two full runs; builds took 1.2 to 4.5 s (MobileNetV5 5.7 to
11.2 s). Changed after the first eager runs: the pose model has one class (IKeypoint's decoding takes the first six
channels as box, objectness and class); the Ghost network's second layer has stride 1 (``Stem`` already halves twice; P3
did not meet its upsampled neighbour); the YOLOR-like network's ResX CSP blocks are 128 wide (grouped convolutions of 32
groups need it); ``non_max_suppression`` has no ``max_det`` argument here (300 is fixed); the RepConv model's parameters
are frozen before ``fuse``; the four kornia warps first wrapped ``torch.nn.Identity()``, which zoo 18's kornia models
already build (the held-out test compares constructors), so each now takes its depth, field, box or output convolution
from a small network; and the list had 23 models, so the multi-label NMS model was added.
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo18 import PINS18

#: The eighteenth zoo's pins and two libraries by other authors, unpacked wheels like the others (never
#: pip-installed): yolov7-package (WongKinYiu's YOLOv7 repository packaged by another author: its ``Model`` built
#: from a layer list, the IDetect, IAuxDetect, IKeypoint and IBin heads that decode anchors in the forward, Swin
#: blocks, RepConv, and the repository's NMS functions; it imports torch, torchvision, numpy, PyYAML, OpenCV,
#: requests, tqdm and ``wget``, which the ``bench`` extra adds) and deep-sort-realtime (a Deep SORT tracker whose
#: appearance embedder is its own MobileNetV2; it imports numpy, scipy and OpenCV).
PINS19 = {**PINS18, "yolov7_package": "0.0.13", "deep_sort_realtime": "1.3.2"}

_Y7 = "from yolov7_package.models.yolo import Model"
_Y7_NMS = f"{_Y7}\nfrom yolov7_package.utils.general import non_max_suppression"
_ANCHORS = [[10, 13, 16, 30, 33, 23], [30, 61, 62, 45, 59, 119], [116, 90, 156, 198, 373, 326]]
_DETECT_SHAPE = "1, 3, 128, 128"


def _stem(block: str = "Conv", spp: str = "SPPCSPC") -> list:
    """A YOLOv7-tiny-like backbone: an ELAN block (four branches concatenated), max-pool downsampling, an SPP."""
    return [[-1, 1, "Conv", [16, 3, 2]], [-1, 1, "Conv", [32, 3, 2]],
            [-1, 1, "Conv", [16, 1, 1]], [-2, 1, "Conv", [16, 1, 1]], [-1, 1, "Conv", [16, 3, 1]],
            [-1, 1, "Conv", [16, 3, 1]], [[-1, -2, -3, -4], 1, "Concat", [1]], [-1, 1, "Conv", [32, 1, 1]],
            [-1, 1, "MP", []], [-1, 1, block, [64, 3, 1] if block == "Conv" else [64]],  # 9: P3
            [-1, 1, "MP", []], [-1, 1, "Conv", [64, 3, 1]],  # 11: P4
            [-1, 1, "MP", []], [-1, 1, "Conv", [128, 3, 1]], [-1, 1, spp, [64]]]  # 14: P5


def _neck(out: str = "Conv") -> list:
    """A small PAN-free neck: P5 upsampled onto P4, then onto P3; the three outputs are layers 22, 18 and 14."""
    return [[-1, 1, "Conv", [32, 1, 1]], [-1, 1, "nn.Upsample", [None, 2, "nearest"]], [[-1, 11], 1, "Concat", [1]],
            [-1, 1, out, [64, 3, 1]], [-1, 1, "Conv", [32, 1, 1]], [-1, 1, "nn.Upsample", [None, 2, "nearest"]],
            [[-1, 9], 1, "Concat", [1]], [-1, 1, out, [32, 3, 1]]]


def _cfg(head: list, backbone: list | None = None, neck: list | None = None) -> dict:
    return {"nc": 3, "depth_multiple": 1.0, "width_multiple": 1.0, "anchors": _ANCHORS,
            "backbone": backbone if backbone is not None else _stem(), "head": (neck if neck is not None else _neck())
            + head}


_IDETECT = _cfg([[[22, 18, 14], 1, "IDetect", ["nc", "anchors"]]])
_DETECT = _cfg([[[22, 18, 14], 1, "Detect", ["nc", "anchors"]]])
_REPCONV = _cfg([[[22, 18, 14], 1, "IDetect", ["nc", "anchors"]]], neck=_neck("RepConv"))
#: One class (the person), as the head's decoding assumes: box, objectness and class are its first 6 channels.
_KEYPOINT = {**_cfg([[[22, 18, 14], 1, "IKeypoint", ["nc", "anchors", 17]]]), "nc": 1}
_IBIN = _cfg([[[22, 18, 14], 1, "IBin", ["nc", "anchors"]]])
#: Swin blocks (windows of 8, shifted every other layer) in CSP wrappers at P3 and P5.
_SWIN = _cfg([[[22, 18, 14], 1, "IDetect", ["nc", "anchors"]]], backbone=_stem("STCSPA", "STCSPA"))
_SWIN2 = _cfg([[[22, 18, 14], 1, "IDetect", ["nc", "anchors"]]], backbone=_stem("ST2CSPA", "ST2CSPA"))
#: YOLOv7-W6 in little: a space-to-depth stem (ReOrg), DownC downsampling, four levels (strides 8 to 64), and the
#: auxiliary head's second set of outputs on the lead head's inputs' neighbours (IAuxDetect).
_AUX_P6 = {"nc": 3, "depth_multiple": 1.0, "width_multiple": 1.0,
           "anchors": [[19, 27, 44, 40, 38, 94], [96, 68, 86, 152, 180, 137], [140, 301, 303, 264, 238, 542],
                       [436, 615, 739, 380, 925, 792]],
           "backbone": [[-1, 1, "ReOrg", []], [-1, 1, "Conv", [16, 3, 1]],  # 1: /2
                        [-1, 1, "DownC", [32]], [-1, 1, "Conv", [32, 3, 1]],  # 3: /4
                        [-1, 1, "DownC", [48]], [-1, 1, "Conv", [48, 3, 1]],  # 5: /8
                        [-1, 1, "DownC", [64]], [-1, 1, "Conv", [64, 3, 1]],  # 7: /16
                        [-1, 1, "DownC", [80]], [-1, 1, "Conv", [80, 3, 1]],  # 9: /32
                        [-1, 1, "DownC", [96]], [-1, 1, "SPPCSPC", [48]]],  # 11: /64
           "head": [[-1, 1, "Conv", [40, 1, 1]], [-1, 1, "nn.Upsample", [None, 2, "nearest"]],
                    [[-1, 9], 1, "Concat", [1]], [-1, 1, "Conv", [40, 3, 1]],  # 15
                    [-1, 1, "Conv", [32, 1, 1]], [-1, 1, "nn.Upsample", [None, 2, "nearest"]],
                    [[-1, 7], 1, "Concat", [1]], [-1, 1, "Conv", [32, 3, 1]],  # 19
                    [-1, 1, "Conv", [24, 1, 1]], [-1, 1, "nn.Upsample", [None, 2, "nearest"]],
                    [[-1, 5], 1, "Concat", [1]], [-1, 1, "Conv", [24, 3, 1]],  # 23
                    [23, 1, "Conv", [32, 3, 1]], [19, 1, "Conv", [48, 3, 1]], [15, 1, "Conv", [64, 3, 1]],
                    [11, 1, "Conv", [80, 3, 1]],  # 24-27: lead outputs
                    [23, 1, "Conv", [32, 3, 1]], [19, 1, "Conv", [48, 3, 1]], [15, 1, "Conv", [64, 3, 1]],
                    [11, 1, "Conv", [80, 3, 1]],  # 28-31: auxiliary outputs
                    [[24, 25, 26, 27, 28, 29, 30, 31], 1, "IAuxDetect", ["nc", "anchors"]]]}
#: Ghost modules: a stem, Ghost CSP blocks and a Ghost SPP-CSP.
_GHOST = _cfg([[[22, 18, 14], 1, "Detect", ["nc", "anchors"]]], backbone=[
    [-1, 1, "Stem", [32, 3, 2]], [-1, 1, "GhostConv", [32, 3, 1]], [-1, 1, "GhostCSPA", [32]],
    [-1, 1, "Conv", [32, 1, 1]], [-1, 1, "Conv", [32, 1, 1]], [-1, 1, "Conv", [32, 1, 1]],
    [-1, 1, "Conv", [32, 1, 1]], [-1, 1, "Conv", [32, 1, 1]],
    [-1, 1, "GhostConv", [64, 3, 2]], [-1, 1, "GhostCSPA", [64]],  # 9: P3
    [-1, 1, "GhostConv", [64, 3, 2]], [-1, 1, "GhostCSPB", [64]],  # 11: P4
    [-1, 1, "GhostConv", [128, 3, 2]], [-1, 1, "GhostCSPC", [128]], [-1, 1, "GhostSPPCSPC", [64]]])  # 14: P5
#: YOLOR-CSP-X in little: grouped ResX CSP blocks, implicit knowledge in the IDetect head.
_YOLOR = _cfg([[[22, 18, 14], 1, "IDetect", ["nc", "anchors"]]], backbone=[
    [-1, 1, "Conv", [16, 3, 1]], [-1, 1, "Conv", [32, 3, 2]], [-1, 1, "Conv", [32, 3, 2]],
    [-1, 1, "ResXCSPC", [128]], [-1, 1, "Conv", [32, 1, 1]], [-1, 1, "Conv", [32, 1, 1]],
    [-1, 1, "Conv", [32, 1, 1]], [-1, 1, "Conv", [32, 1, 1]],
    [-1, 1, "Conv", [64, 3, 2]], [-1, 1, "ResXCSPC", [128]],  # 9: P3
    [-1, 1, "Conv", [64, 3, 2]], [-1, 1, "BottleneckCSPC", [64]],  # 11: P4
    [-1, 1, "Conv", [128, 3, 2]], [-1, 1, "ResCSPB", [128]], [-1, 1, "SPPCSPC", [64]]])  # 14: P5


def _y7(name: str, what: str, cfg: dict, forward: str = "return self.m(x)[0]", imports: str = _Y7,
        config: str = DYNAMIC_BHW, shape: str = _DETECT_SHAPE, **kw: str) -> Spec:
    """A YOLOv7 model built by the package's ``Model`` from a layer list, random weights, 3 classes (pose: 1)."""
    return Spec(f"y7_{name}", f"yolov7-package {what}", imports, f"Model({cfg!r}, ch=3)", forward, shape,
                config, calibrate="self.m(xb)", **kw)


#: Each image's kept detections as rows (x1, y1, x2, y2, score, class, image index), all images in one tensor.
_ROWS = ("torch.cat([torch.cat([d, torch.full_like(d[:, :1], i)], 1) for i, d in enumerate(out)])")

_K = "import kornia"
_VOLUME_B = "1, 1, 16, 16, 16"


def _timm(name: str, what: str, args: str = "", shape: str = "1, 3, 64, 64", config: str = DYNAMIC_BHW,
          **kw: str) -> Spec:
    return Spec(f"timm_{name}", f"timm {name} ({what})", "import timm",
                f'timm.create_model("{name}", pretrained=False, num_classes=10{args})', "return self.m(x)", shape,
                config, **kw)


MODELS19 = [
    # yolov7-package: YOLOv7's own heads, decoding and NMS.
    _y7("idetect", "YOLOv7-tiny-like model with the IDetect head (implicit add and multiply around the output "
        "convolutions, anchors decoded on grids made in the forward)", _IDETECT),
    _y7("idetect_nms", "IDetect model and the repository's non_max_suppression (confidence filter, "
        "class-offset boxes, torchvision NMS, at most 300 an image) on its decoded output", _IDETECT,
        "out = non_max_suppression(self.m(x)[0], conf_thres=0.001, iou_thres=0.65)\n        "
        f"return {_ROWS}", _Y7_NMS),
    _y7("detect_include_nms", "Detect head set up as the repository's export script does for --include-nms "
        "(boxes converted to corners by a matrix product, scores multiplied by objectness)", _DETECT,
        "boxes, scores = self.m(x)[0]\n        return boxes, scores",
        init="self.m.model[-1].include_nms = True"),
    _y7("detect_nms_multilabel", "plain Detect model and the repository's non_max_suppression with multi_label "
        "(every class above the threshold a box of its own) and class-agnostic NMS", _DETECT,
        "out = non_max_suppression(self.m(x)[0], conf_thres=0.01, iou_thres=0.5, agnostic=True, multi_label=True)"
        f"\n        return {_ROWS}", _Y7_NMS),
    _y7("repconv_fused", "model whose neck ends in RepConv blocks (3x3, 1x1 and identity branches), "
        "re-parameterised into single convolutions by Model.fuse as before deployment (parameters frozen first: "
        "IDetect's fuse folds the implicit add and multiply into the output convolutions in place)", _REPCONV,
        finish="self.m.requires_grad_(False)\n        self.m.fuse()"),
    _y7("keypoint_nms", "YOLOv7-pose-like model: the IKeypoint head (17 keypoints an anchor decoded on the grids) "
        "and the repository's non_max_suppression_kpt", _KEYPOINT,
        "out = non_max_suppression_kpt(self.m(x)[0], conf_thres=0.001, iou_thres=0.65, kpt_label=True, nc=1, nkpt=17)"
        f"\n        return {_ROWS}",
        f"{_Y7}\nfrom yolov7_package.utils.general import non_max_suppression_kpt"),
    _y7("ibin", "model with the IBin head (width and height predicted as soft bins by SigmoidBin)", _IBIN),
    _y7("swin", "model with Swin transformer CSP blocks (windows of 8 over the P3 and P5 maps, padded, shifted "
        "every other layer)", _SWIN),
    _y7("swinv2", "model with Swin V2 CSP blocks (scaled cosine attention, continuous position bias from a "
        "log-spaced table)", _SWIN2),
    _y7("aux_p6", "YOLOv7-W6-like model: ReOrg space-to-depth stem, DownC, four levels to stride 64, the "
        "IAuxDetect head (lead outputs decoded)", _AUX_P6),
    _y7("ghost", "model of Ghost modules (a stem, Ghost CSP blocks, a Ghost SPP-CSP) and the plain Detect head",
        _GHOST),
    _y7("yolor_csp", "YOLOR-CSP-like model: grouped ResX CSP blocks, CSP bottlenecks and an IDetect head",
        _YOLOR),
    # deep-sort-realtime: the tracker's appearance embedder.
    Spec("dsrt_mobilenetv2_embedder", "deep-sort-realtime MobileNetV2_bottle (Deep SORT's appearance embedder: "
         "MobileNetV2 features averaged over the crop)",
         "from deep_sort_realtime.embedder.mobilenetv2_bottle import MobileNetV2_bottle",
         "MobileNetV2_bottle(input_size=128, width_mult=0.5)", "return self.m(x)", "1, 3, 128, 64", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    # kornia: depth reprojection, lens distortion, elastic warps, box crops and keypoint refinement.
    Spec("kornia_warp_frame_depth", "kornia warp_frame_depth (the destination's depth back-projected with the "
         "intrinsics, moved by a relative pose, projected into the source and sampled; the depth from a small "
         "network, as a depth model's)", _K,
         "torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(8, 1, 3, "
         "padding=1), torch.nn.Softplus())",
         "b, h, w = x.shape[0], x.shape[2], x.shape[3]\n        "
         "k = torch.tensor([[w / 2.0, 0.0, w / 2.0], [0.0, h / 2.0, h / 2.0], [0.0, 0.0, 1.0]])[None].expand(b, -1, -1)"
         "\n        depth = 0.5 + self.m(x)\n        "
         "return kornia.geometry.depth.warp_frame_depth(x, depth, self.pose.expand(b, -1, -1), k)",
         "1, 3, 64, 64", DYNAMIC_BHW,
         init='self.register_buffer("pose", torch.tensor([[[0.995, -0.0998, 0.0, 0.05], [0.0998, 0.995, 0.0, '
              '-0.02], [0.0, 0.0, 1.0, 0.1], [0.0, 0.0, 0.0, 1.0]]]))'),
    Spec("kornia_undistort", "kornia undistort_image (radial and tangential lens distortion compensated: points "
         "undistorted iteratively, the image remapped, then a 3x3 convolution over it)", _K,
         "torch.nn.Conv2d(3, 4, 3, padding=1)",
         "b, h, w = x.shape[0], x.shape[2], x.shape[3]\n        "
         "k = torch.tensor([[w * 0.8, 0.0, w / 2.0], [0.0, h * 0.8, h / 2.0], [0.0, 0.0, 1.0]])[None].expand(b, -1, -1)"
         "\n        return self.m(kornia.geometry.calibration.undistort_image(x, k, self.dist.expand(b, -1)))",
         "1, 3, 64, 64", DYNAMIC_BHW,
         init='self.register_buffer("dist", torch.tensor([[-0.2, 0.05, 0.001, -0.001, 0.0]]))'),
    Spec("kornia_elastic", "kornia elastic_transform2d (a displacement field from noise the size of the image, "
         "smoothed by a Gaussian, applied by grid sampling; the noise from a small network)", _K,
         "torch.nn.Sequential(torch.nn.Conv2d(3, 2, 3, padding=1), torch.nn.Tanh())",
         "noise = self.m(x)\n        "
         "return kornia.geometry.transform.elastic_transform2d(x, noise, (15, 15), (4.0, 4.0), (1.0, 1.0))",
         "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("kornia_crop_and_resize", "kornia crop_and_resize (each image's box cropped "
         "and resized to 32x32 through a perspective transform; the box's corner from a small regression "
         "network)", _K,
         "torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, stride=2, padding=1), torch.nn.ReLU(), "
         "torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(8, 2), torch.nn.Sigmoid())",
         "b, h, w = x.shape[0], x.shape[2], x.shape[3]\n        "
         "c = self.m(x) * torch.tensor([w / 2.0, h / 2.0])\n        "
         "lo, hi = c, c + torch.tensor([w / 2.0, h / 2.0])\n        "
         "boxes = torch.stack([lo, torch.stack([hi[:, 0], lo[:, 1]], 1), hi, torch.stack([lo[:, 0], hi[:, 1]], 1)], 1)"
         "\n        return kornia.geometry.transform.crop_and_resize(x, boxes, (32, 32))", "1, 3, 64, 64",
         DYNAMIC_BHW),
    Spec("kornia_quad_interp3d", "kornia scale-space keypoint refinement (a difference-of-Gaussians stack, "
         "ConvQuadInterp3d's sub-pixel extrema by quadratic interpolation)", _K,
         "kornia.geometry.subpix.ConvQuadInterp3d(strict_maxima_bonus=10.0)",
         "g = kornia.color.rgb_to_grayscale(x)\n        "
         "blurred = [kornia.filters.gaussian_blur2d(g, (9, 9), (s, s)) for s in (1.0, 1.6, 2.2, 3.0)]\n        "
         "dog = torch.stack([b - a for a, b in zip(blurred, blurred[1:])], 2)\n        "
         "coords, values = self.m(dog)\n        return coords, values", "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("kornia_heatmap_keypoints", "kornia heatmap keypoint decoding (spatial soft-argmax over 8 heatmaps from "
         "a small network, Gaussians rendered back at the found coordinates)", _K,
         "torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(16, 8, 3, "
         "padding=1))",
         "heat = self.m(x)\n        "
         "points = kornia.geometry.subpix.spatial_soft_argmax2d(heat, torch.tensor(4.0))\n        "
         "std = torch.full_like(points, 0.1)\n        "
         "return points, kornia.geometry.subpix.render_gaussian2d(points, std, (x.shape[2], x.shape[3]))",
         "1, 3, 64, 64", DYNAMIC_BHW),
    # timm: backbones from families no zoo ran.
    _timm("crossvit_tiny_240", "CrossViT: two branches of patch sizes 12 and 16, cross-attention through their "
          "class tokens", shape="1, 3, 240, 240", config=DYNAMIC_B),
    _timm("cspdarknet53", "CSPDarkNet-53: cross-stage partial darknet stages", calibrate="self.m(xb)"),
    _timm("hardcorenas_a", "HardCoRe-NAS A: a latency-constrained searched MobileNetV3-like network",
          calibrate="self.m(xb)"),
    _timm("mobilenetv5_300m", "MobileNetV5-300M (Gemma 3n's vision encoder): universal inverted residuals, "
          "mobile multi-query attention with downsampled keys and values, multi-scale fusion",
          calibrate="self.m(xb)"),
    # monai: a 3-D regression network.
    Spec("monai_regressor", "monai Regressor (3-D residual units down to a fixed-size linear head)",
         "from monai.networks.nets import Regressor",
         "Regressor(in_shape=(1, 16, 16, 16), out_shape=(3,), channels=(8, 16, 32), strides=(2, 2, 2))",
         "return self.m(x)", _VOLUME_B, DYNAMIC_B),
]

if __name__ == "__main__":
    main(MODELS19, "real_zoo19", PINS19)
