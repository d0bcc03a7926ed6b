"""A twenty-first real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo21.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the twentieth zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the twentieth zoo's libraries and pins and three more libraries by other
authors, whose code no earlier zoo or sweep ran (``PINS21``: unpacked wheels like the others, never pip-installed):
rtmdet 0.3.0 (Alessio Arcara's RTMDet in plain PyTorch: a CSPNeXt backbone, a CSPNeXt PAFPN, a head decoded on grid
priors made for the square size given at build time, boxes clamped in place, and class-wise NMS image by image; it
imports torch, torchvision, pydantic and PyYAML), pytorch-toolbelt 0.8.0 (Eugene Khvedchenya's encoders, decoders, heads
and test-time augmentation for segmentation; it imports torch, torchvision, timm, numpy, scipy and OpenCV) and
sixdrepnet 0.1.6 (Thorsten Hempel's 6DRepNet head-pose regression: RepVGG backbones, a 6-D output turned into a rotation
matrix and Euler angles, with branches on the tensor's device; its package appends its own folder to ``sys.path`` and
imports ``model``, ``utils`` and ``backbone`` as top-level modules, so the wrappers do too; it imports torch,
torchvision, numpy, scipy, OpenCV and Pillow). All three import with the environment's packages: the ``bench`` extra is
unchanged. 23 of the 24 models come from the three new libraries. Considered and dropped before any model was chosen (by
the wheel's files, metadata and imports): basicsr 1.4.2, pytorchvideo 0.1.5, torchreid 0.2.5 and openpifpaf (no wheel in
this workplace's index), yolov5 7.0.14 (benchmarks/sweep_yolo.py swept it and its idioms were fixed for; by ultralytics'
author), ptlflow 0.4.2 (its base model imports lightning, and the package jsonargparse and loguru), romatch 0.1.2
(loguru at import; RoMa needs DINOv2 weights and TinyRoMa an XFeat network from torch.hub), easyocr 1.7.2 (its package
imports scikit-image and python-bidi, compiled), neuflow 0.1.4 (not the optical-flow NeuFlow: a fluid reconstruction
package on lightning and phiflow), dsntnn 0.5.3 (functions only; three libraries were enough); effdet is pinned since
the first zoo; the libraries zoos 15 to 20 dropped, as they found.

24 models, chosen by family before any was run, none of them (library, architecture and variant) in zoos 1 to 20 or in
the library sweeps (benchmarks/sweep_*.py), 18 of them of the kinds that most often need work for an ONNX or TensorRT
deployment (the four RTMDet models that decode, the twelve segmentation models, the keypoint peaks, the mask boxes).
Detection, from rtmdet, random weights, 3 classes, batch alone dynamic (the priors are made for the size the model is
built for): RTMDet-tiny at 128 px (every prior's decoded box, score and class), RTMDet-s with its per-prior class
logits, RTMDet-m at 96 px, RTMDet-tiny followed by the library's ``nms`` image by image (every image's kept boxes,
score, class and index as rows in one tensor; the scores' last axis is dropped first, since the library's export mode
passes them as (N, 1), which its own score filter rejects), and the raw per-level head maps of a small ``RTMDetConfig``
of its own at any size. Segmentation, from pytorch-toolbelt, composed from its parts as its users do (an encoder's maps
through a decoder, a head resized to the input), 2 classes, 64 px: FPN on its ResNet-18 encoder, its own UNet encoder
and decoder, DeepLabV3+ on its MobileNetV3-small encoder, SegFormer (its MiT-B0 encoder and head), its HRNetV2-W18
encoder with a hypercolumn head, BiFPN on its SK-ResNet-18 encoder (timm's), the CAN decoder on its ResNet-34 encoder,
its Swin-T encoder (2-2-2-2 blocks, 48 wide) with a UNet decoder; an input of any size padded to a multiple of 32 by
``pad_image_tensor`` and unpadded by ``unpad_image_tensor`` around an FPN on its EfficientNet-B0 encoder (timm's) at 72
px; and test-time augmentation: D4 (``d4_image2mask``, the 8 rotations and flips, square input: batch alone dynamic)
around a small UNet, multi-scale (``MultiscaleTTA``, -16, 0 and +16 px) around an FPN on its MobileNetV3-large encoder,
left-right flips (``fliplr_image2mask``) around DeepLabV3 on its WiderResNet-16 encoder. Pose, from pytorch-toolbelt: a
stacked-hourglass network (2 stacks) with 8 keypoint heatmaps whose peaks are picked by argmax and scaled to the input's
pixels. Head pose, from sixdrepnet, 64 px, any size: 6DRepNet on RepVGG-A0 in its training form, on RepVGG-B1g2 in the
deploy form its detector class builds, on RepVGG-A1 with the detector's Euler angles in degrees, on RepVGG-B0 converted
by ``repvgg_model_convert``, and 6DRepNet2 (a ResNet-18 of torchvision's blocks whose average pool of 7 fixes its 224
px). From torchvision: ``masks_to_boxes`` on four instance masks of the first image (a small network's maps above their
own mean) and the boxes' pairwise ``box_iou``.

Each is small and has the dynamic axes a deploying user declares: batch, height and width where the model takes any
size; batch alone where the size is part of the model (RTMDet's priors, 6DRepNet2's pool, D4's square input). Machinery,
table and counts are real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over
two forwards, finite outputs) at two sizes (the spec's, and a batch of two, 32 px larger where height and width are
dynamic) before the first migrate run: with one thread on the shared two cores, a forward at the spec's size took 0.005
to 0.11 s for 23 of them and 0.28 to 0.47 s for DeepLabV3 with flips on WiderResNet-16 (0.41 to 0.72 s for two at 96
px), over two full runs; builds (imports included) took 1.5 to 7.5 s. Changed after the first eager runs, before any
migrate run: none of the 23 first chosen failed to build or run; torchvision's ``masks_to_boxes`` model's small network
had the constructor of zoo 20's ``conv_soft_argmax3d`` model (the held-out test compares constructors), so it is 12
channels wide; a deep-homography model of kornia (``get_perspective_transform`` and ``warp_perspective`` on corners a
small network moves) had the name, and nearly the form, of zoo 18's homography model, so pytorch-toolbelt's padding
model took its place; and the list had 23 models, so the flips model was added.
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo20 import PINS20

#: The twentieth zoo's pins and three libraries by other authors, unpacked wheels like the others (never
#: pip-installed): rtmdet (Alessio Arcara's RTMDet: CSPNeXt backbone and PAFPN, a head decoded on grid priors made
#: for the square size given at build time, in-place clamps, per-image NMS; it imports torch, torchvision, pydantic
#: and PyYAML), pytorch-toolbelt (Eugene Khvedchenya's encoders, decoders, heads and test-time augmentation for
#: segmentation; it imports torch, torchvision, timm, numpy, scipy and OpenCV) and sixdrepnet (Thorsten Hempel's
#: 6DRepNet head-pose regression: RepVGG backbones, a 6-D rotation turned into a matrix and Euler angles, with
#: branches on the tensor's device; its package puts its own folder on ``sys.path`` and imports ``model`` and
#: ``utils`` as top-level modules; it imports torch, torchvision, numpy, scipy, OpenCV and Pillow).
PINS21 = {**PINS20, "rtmdet": "0.3.0", "pytorch_toolbelt": "0.8.0", "sixdrepnet": "0.1.6"}

_RTM = "from rtmdet import RTMDet"
_RTM_SHAPE = "1, 3, 128, 128"
_SIXD = "import sixdrepnet  # noqa: F401  (puts the package's folder on sys.path, as its users rely on)\n" \
        "from model import SixDRepNet"
_PTB = "from pytorch_toolbelt import modules as ptb"
#: An encoder's maps through a decoder, then a head resized to the input (pytorch-toolbelt's segmentation recipe).
_PTB_SEG = "return self.head(self.dec(self.m(x)), x.shape[2:])"


def _rtmdet(name: str, what: str, construct: str, forward: str = "return self.m(x)", shape: str = _RTM_SHAPE,
            config: str = DYNAMIC_B, **kw: str) -> Spec:
    return Spec(f"rtmdet_{name}", f"rtmdet {what}", _RTM, construct, forward, shape, config, calibrate="self.m(xb)",
                **kw)


def _sixd(name: str, what: str, construct: str, forward: str = "return self.m(x)", shape: str = "1, 3, 64, 64",
          config: str = DYNAMIC_BHW, imports: str = _SIXD, **kw: str) -> Spec:
    return Spec(f"sixdrepnet_{name}", f"sixdrepnet {what}", imports, construct, forward, shape, config,
                calibrate="self.m(xb)", **kw)


def _ptb(name: str, what: str, construct: str, init: str, forward: str = _PTB_SEG, shape: str = "1, 3, 64, 64",
         config: str = DYNAMIC_BHW, imports: str = _PTB) -> Spec:
    return Spec(f"ptb_{name}", f"pytorch-toolbelt {what}", imports, construct, forward, shape, config, init=init)


MODELS21 = [
    # rtmdet: detection with its decoding and NMS.
    _rtmdet("tiny", "RTMDet-tiny at 128 px (grid priors for the built size, boxes decoded and clamped in place; "
            "boxes, scores and classes of every prior)",
            'RTMDet.from_preset("tiny", img_size=128, num_classes=3, pretrained=False)'),
    _rtmdet("small_logits", "RTMDet-s at 128 px with its per-prior class logits (return_logits)",
            'RTMDet.from_preset("small", img_size=128, num_classes=3, pretrained=False)',
            "return self.m(x, return_logits=True)"),
    _rtmdet("medium", "RTMDet-m at 96 px", 'RTMDet.from_preset("medium", img_size=96, num_classes=3, pretrained=False)',
            shape="1, 3, 96, 96"),
    _rtmdet("tiny_nms", "RTMDet-tiny at 128 px followed by its class-wise NMS, image by image (the scores' last "
            "axis dropped: the library's export mode passes them as (N, 1), which its own score filter rejects); "
            "every image's kept boxes, score, class and image index as rows",
            'RTMDet.from_preset("tiny", img_size=128, num_classes=3, pretrained=False)',
            "boxes, scores, classes = self.m(x)\n        rows = []\n        "
            "for i in range(x.shape[0]):\n            "
            "b, s, c = self.m.nms(boxes[i:i + 1], scores[i:i + 1, :, 0], classes[i:i + 1])\n            "
            "rows.append(torch.cat([b[0], s[0], c[0, :, None].to(b.dtype), torch.full_like(s[0], i)], 1))\n        "
            "return torch.cat(rows)"),
    Spec("rtmdet_raw_head", "rtmdet raw head outputs from a small config of its own (RTMDetConfig: 0.33 deep, "
         "0.25 wide, a 64-channel PAFPN, one stacked convolution, 5 classes): per-level class and box maps, any size",
         "from rtmdet import RTMDet, RTMDetConfig",
         "RTMDet(RTMDetConfig(deepen_factor=0.33, widen_factor=0.25, neck_out_channels=64, head_num_stacked_convs=1, "
         "num_classes=5, img_size=96))",
         "cls, box = self.m._forward_raw(x)\n        return tuple(cls) + tuple(box)", "1, 3, 96, 96", DYNAMIC_BHW,
         calibrate="self.m(xb)"),
    # sixdrepnet: head pose from a 6-D rotation.
    _sixd("repvgg_a0", "6DRepNet on RepVGG-A0 in its training form (three branches a block): rotation matrices from "
          "the 6-D output (Gram-Schmidt with an epsilon made on the input's device)",
          'SixDRepNet(backbone_name="RepVGG-A0", backbone_file="", deploy=False, pretrained=False)'),
    _sixd("b1g2_deploy", "6DRepNet on RepVGG-B1g2 in its deploy form (one convolution a block), as its detector "
          "class builds it",
          'SixDRepNet(backbone_name="RepVGG-B1g2", backbone_file="", deploy=True, pretrained=False)'),
    _sixd("euler", "6DRepNet on RepVGG-A1 with its detector's Euler angles in degrees "
          "(compute_euler_angles_from_rotation_matrices: a singular-case blend written into a zeros tensor made on "
          "the input's device)",
          'SixDRepNet(backbone_name="RepVGG-A1", backbone_file="", deploy=False, pretrained=False)',
          "return utils.compute_euler_angles_from_rotation_matrices(self.m(x)) * 180 / math.pi",
          imports=f"{_SIXD}\nimport utils\nimport math"),
    _sixd("b0_converted", "6DRepNet on RepVGG-B0 converted for deployment by repvgg_model_convert (each block's "
          "branches and batch norms fused into one convolution after calibration)",
          'SixDRepNet(backbone_name="RepVGG-B0", backbone_file="", deploy=False, pretrained=False)',
          imports=f"{_SIXD}\nfrom backbone.repvgg import repvgg_model_convert",
          finish="self.m = repvgg_model_convert(self.m.eval(), do_copy=False)"),
    _sixd("resnet18_224", "6DRepNet2 (a ResNet-18 of torchvision's blocks, average pool of 7 for its 224 px crops)",
          "SixDRepNet2(torchvision.models.resnet.BasicBlock, [2, 2, 2, 2])", shape="1, 3, 224, 224", config=DYNAMIC_B,
          imports="import torchvision\nimport sixdrepnet  # noqa: F401  (puts its folder on sys.path)\n"
          "from model import SixDRepNet2"),
    # pytorch-toolbelt: encoders, decoders and heads composed for segmentation.
    _ptb("fpn_resnet18", "FPN segmentation: its ResNet-18 encoder (torchvision's, random weights), FPNDecoder (sums "
         "upsampled to each lateral's size), ResizeHead (finest map resized to the input)",
         "ptb.Resnet18Encoder(pretrained=False)",
         "self.dec = ptb.FPNDecoder(self.m.get_output_spec(), 64)\n        "
         "self.head = ptb.ResizeHead(self.dec.get_output_spec(), 2)"),
    _ptb("unet", "UNet: its own UnetEncoder (16 channels, 4 levels) and UNetDecoder, ResizeHead",
         "ptb.UnetEncoder(3, 16, 4)",
         "self.dec = ptb.UNetDecoder(self.m.get_output_spec(), [16, 32, 64])\n        "
         "self.head = ptb.ResizeHead(self.dec.get_output_spec(), 2)"),
    _ptb("deeplabv3plus", "DeepLabV3+ on its MobileNetV3-small encoder (ASPP with image pooling, coarse features "
         "resized to the low-level map's size, concatenated), ResizeHead",
         "ptb.MobileNetV3Small(pretrained=False)",
         "self.dec = ptb.DeeplabV3PlusDecoder(self.m.get_output_spec(), 64, 64, atrous_rates=(2, 4, 6))\n        "
         "self.head = ptb.ResizeHead(self.dec.get_output_spec(), 2)"),
    _ptb("segformer", "SegFormer: its MiT-B0 encoder (overlapping patch embeddings, efficient attention with a "
         "spatial reduction) and SegFormerHead (every level resized to the finest, fused, resized to the input)",
         "ptb.MitB0Encoder(pretrained=False)",
         "self.head = ptb.SegFormerHead(self.m.get_output_spec(), 2, 64, False, None)",
         "return self.head(self.m(x), x.shape[2:])"),
    _ptb("hrnet18_hypercolumn", "its HRNetV2-W18 encoder (parallel branches fused by upsampling to each other's "
         "size) with a HypercolumnHead (every map resized to the input and concatenated)",
         "ptb.HRNetV2Encoder18(pretrained=None)",
         "self.head = ptb.HypercolumnHead(self.m.get_output_spec(), 2, 'relu', 'batch_norm', 32)",
         "return self.head(self.m(x), x.shape[2:])"),
    _ptb("hourglass_keypoints", "a stacked-hourglass pose network (StackedHGEncoder, 2 stacks of depth 3, 64 "
         "features) with a 1x1 convolution to 8 keypoint heatmaps on the last stack, peaks picked by argmax "
         "(coordinates in the input's pixels, peak values)",
         "ptb.StackedHGEncoder(3, stack_level=2, depth=3, features=64)",
         "self.heat = torch.nn.Conv2d(64, 8, 1)",
         "heat = self.heat(self.m(x)[-1])\n        "
         "peak, idx = heat.flatten(2).max(-1)\n        w = heat.shape[3]\n        "
         "xy = torch.stack([idx % w, idx // w], -1).to(x.dtype) * (x.shape[3] / w)\n        "
         "return xy, peak"),
    _ptb("bifpn", "BiFPN on its SK-ResNet-18 encoder (timm's, random weights): two BiFPN layers (weighted fusion "
         "of maps resized to each other), ResizeHead",
         "ptb.SKResNet18Encoder(pretrained=False, layers=[1, 2, 3, 4])",
         "self.dec = ptb.BiFPNDecoder(self.m.get_output_spec(), 64, 2)\n        "
         "self.head = ptb.ResizeHead(self.dec.get_output_spec(), 2)"),
    _ptb("can", "CAN decoder (context aggregation: global pooling branch, feature fusion upsampled level by level) "
         "on its ResNet-34 encoder, ResizeHead",
         "ptb.Resnet34Encoder(pretrained=False)",
         "self.dec = ptb.CANDecoder(self.m.get_output_spec(), 64)\n        "
         "self.head = ptb.ResizeHead(self.dec.get_output_spec(), 2)"),
    _ptb("d4_tta", "D4 test-time augmentation (d4_image2mask: the 8 rotations and flips batched, run, undone and "
         "averaged; square input) around a UNet of its blocks at 64 px",
         "ptb.UnetEncoder(3, 8, 3)",
         "self.dec = ptb.UNetDecoder(self.m.get_output_spec(), [8, 16])\n        "
         "self.head = ptb.ResizeHead(self.dec.get_output_spec(), 2)",
         "return d4_image2mask(lambda t: self.head(self.dec(self.m(t)), t.shape[2:]), x)", config=DYNAMIC_B,
         imports=f"{_PTB}\nfrom pytorch_toolbelt.inference.tta import d4_image2mask"),
    _ptb("multiscale_tta", "multi-scale test-time augmentation (MultiscaleTTA: the input resized by -16, 0 and +16 "
         "px, each prediction resized back and averaged) around an FPN on its MobileNetV3-large encoder",
         "ptb.MobileNetV3Large(pretrained=False)",
         "self.dec = ptb.FPNDecoder(self.m.get_output_spec(), 32)\n        "
         "self.head = ptb.ResizeHead(self.dec.get_output_spec(), 2)\n        "
         "self.tta = MultiscaleTTA(SegNet(self.m, self.dec, self.head), [-16, 0, 16])",
         "return self.tta(x)",
         imports=f"{_PTB}\nfrom pytorch_toolbelt.inference.tta import MultiscaleTTA\n\n\n"
         "class SegNet(torch.nn.Module):\n    def __init__(self, enc, dec, head):\n        super().__init__()\n"
         "        self.enc, self.dec, self.head = enc, dec, head\n\n    def forward(self, x):\n"
         "        return self.head(self.dec(self.enc(x)), x.shape[2:])"),
    _ptb("deeplabv3_fliplr", "left-right flip test-time augmentation (fliplr_image2mask: the image and its mirror "
         "batched, the mirror's prediction flipped back, averaged) around DeepLabV3 (ASPP with image pooling, "
         "rates 2, 4 and 6) on its WiderResNet-16 encoder (in-place activated batch norm blocks), ResizeHead",
         "ptb.WiderResnet16Encoder(layers=[2, 3, 4])",
         "self.dec = ptb.DeeplabV3Decoder(self.m.get_output_spec(), 64, 64, atrous_rates=(2, 4, 6))\n        "
         "self.head = ptb.ResizeHead(self.dec.get_output_spec(), 2)",
         "return fliplr_image2mask(lambda t: self.head([self.dec(self.m(t))], t.shape[2:]), x)",
         imports=f"{_PTB}\nfrom pytorch_toolbelt.inference.tta import fliplr_image2mask"),
    _ptb("swin_unet", "its Swin-T encoder (windows of 7 padded, shifted; 2-2-2-2 blocks, 48 wide) with a UNet "
         "decoder, ResizeHead",
         "ptb.SwinT(depths=(2, 2, 2, 2), embed_dim=48, num_heads=(3, 6, 12, 24), pretrained=None)",
         "self.dec = ptb.UNetDecoder(self.m.get_output_spec(), [32, 48, 96])\n        "
         "self.head = ptb.ResizeHead(self.dec.get_output_spec(), 2)"),
    _ptb("pad_unpad_efficientnet_b0", "an input of any size padded to a multiple of 32 by pad_image_tensor (pads "
         "from the size's remainders, split top and bottom), an FPN on its timm EfficientNet-B0 encoder, ResizeHead, "
         "the padding taken off again by unpad_image_tensor; at 72 px",
         "ptb.TimmB0Encoder(pretrained=False)",
         "self.dec = ptb.FPNDecoder(self.m.get_output_spec(), 32)\n        "
         "self.head = ptb.ResizeHead(self.dec.get_output_spec(), 2)",
         "padded, pad = pad_image_tensor(x, 32)\n        "
         "return unpad_image_tensor(self.head(self.dec(self.m(padded)), padded.shape[2:]), pad)",
         shape="1, 3, 72, 72",
         imports=f"{_PTB}\nfrom pytorch_toolbelt.inference.functional import pad_image_tensor, unpad_image_tensor"),
    # torchvision: instance masks to boxes and their overlaps.
    Spec("tv_masks_to_boxes_iou", "torchvision masks_to_boxes and box_iou on 4 instance masks of the batch's first "
         "image (a small network's maps above their own mean), the boxes' pairwise IoU",
         "import torchvision",
         "torch.nn.Sequential(torch.nn.Conv2d(3, 12, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(12, 4, 3, "
         "padding=1))",
         "heat = self.m(x[:1])[0]\n        masks = heat > heat.mean((1, 2), keepdim=True)\n        "
         "boxes = torchvision.ops.masks_to_boxes(masks)\n        "
         "return boxes, torchvision.ops.box_iou(boxes, boxes)", "1, 3, 64, 64", DYNAMIC_BHW),
]

if __name__ == "__main__":
    main(MODELS21, "real_zoo21", PINS21)
