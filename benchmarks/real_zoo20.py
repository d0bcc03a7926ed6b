"""A twentieth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo20.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the nineteenth zoo's first contact, so what it gives after them is no longer a figure for models
nobody tuned for. This zoo is the next check: the nineteenth zoo's libraries and pins and two more libraries by other
authors, whose code no earlier zoo or sweep ran (``PINS20``: unpacked wheels like the others, never pip-installed):
glasses 0.0.6 (Zuppichini and Cicala's "compact, concise and customizable" vision library: classification families built
from its own blocks, and UNet, FPN and panoptic FPN segmentation models whose encoders are its ResNets; it imports
torch, torchvision, numpy, einops and ``torchsummary``, the last now in the ``bench`` extra) and
efficientnet-lite-pytorch 0.1.0 (ML Illustrated's EfficientNet-Lite: TensorFlow-style "same" padding computed from the
image size given at build time; it imports torch only). 18 of the 24 models come from the two new libraries. Considered
and dropped before any model was chosen (by the wheel's files and metadata): efficientnet-pytorch 0.7.1 (source
distribution only), depth-anything-v2 0.1.0 (no distribution in this workplace's index), lightly 1.6.0 (hydra-core and
pytorch-lightning), geffnet (by timm's author, whose library is pinned already); the libraries zoos 15 to 19 dropped, as
they found.

24 models, chosen by family before any was run, none of them (library, architecture and variant) in zoos 1 to 19 or in
the library sweeps (benchmarks/sweep_*.py). This session was short (about twenty minutes), so the new libraries were
taken from what installs at once, and they are mostly backbones and segmentation: about ten models, fewer than the usual
fourteen, are of the kinds that most often need work (segmentation, fixed-size transformers, RoI pooling, box
post-processing and NMS, matching, peak picking). Segmentation, from glasses, random weights, 2 classes, 64 px: UNet
(its own encoder and decoder, skip connections concatenated), FPN and panoptic FPN (ResNet encoders, top-down pathway,
upsampled and merged). Transformers from glasses at their fixed 224 px: ViT-S/16 and DeiT-T/16 (class and distillation
tokens). Backbones from glasses: ResNeSt-14d (split attention), FishNet-99 (a tail, body and head that downsample,
upsample and concatenate), RegNetY-200MF, channel-SE ResNet-18, EfficientNet-B0, EfficientNet-Lite0, DenseNet-121,
ResNet-26d, ResNeXt-50 32x4d, MobileNetV2, VGG-11 with batch norm and Wide ResNet-50-2. From efficientnet-lite-pytorch:
EfficientNet-Lite0 at its 224 px (padding fixed by the size it was built for). From the pinned libraries: torchvision's
MultiScaleRoIAlign (a Faster R-CNN second stage: FPN levels from a small network, boxes regressed from the image, each
box pooled from the level its size picks, a linear head) and torchvision's box post-processing on a small one-stage head
(``box_convert``, ``clip_boxes_to_image``, ``remove_small_boxes``, a score threshold, ``batched_nms``; every image's
rows in one tensor with its index); from kornia, ``match_mnn`` (mutual nearest neighbours between dense descriptors of
an image and its mirror image), ``conv_soft_argmax3d`` (sub-pixel peaks in a 4-level response stack), the HardNet8 patch
descriptor (32x32 patches, random weights) and ``nms2d`` on heatmaps from a small network followed by a top-k of the
kept peaks.

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the images (multiples of
32 for the segmentation models and backbones); batch alone where the size is part of the model (the ViT and DeiT
position embeddings, efficientnet-lite-pytorch's padding, HardNet8's 32x32 patches). Machinery, table and counts are
real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite
outputs) at two sizes (the spec's, and a batch of two, 32 px larger where height and width are dynamic) before the first
migrate run: with one thread on the shared two cores, a forward at the spec's size took 0.001 to 0.10 s for 22 of them,
0.14 to 0.16 s for Wide ResNet-50-2 and 0.45 to 0.52 s for ViT-S/16 at 224 px (0.73 to 0.99 s for two), over two full
runs; builds took up to 5.0 s. Changed after the first eager runs, before any migrate run: the plain FPN returns its
segmentation branch's list of per-level maps, so its wrapper returns them as a tuple; kornia's HardNet8 is built with
``pretrained=False`` (by default it downloads weights, which this machine cannot); transformers' TimeSformer, first in
the list, was in zoo 6 (the held-out test caught it), and PP-OCRv5's server text detector, tried in its place, needs the
intra-class block settings of its released config, so glasses' EfficientNet-Lite0 took the place; then, to raise the
share of models that need work, glasses' RegNetX-200MF, SE-ResNet-18 and AlexNet gave their places to the torchvision
box post-processing, ``match_mnn`` and ``conv_soft_argmax3d`` models.
"""

from __future__ import annotations

from real_zoo import DYNAMIC_B, DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo19 import PINS19

#: The nineteenth zoo's pins and two libraries by other authors, unpacked wheels like the others (never
#: pip-installed): glasses (classification families, UNet, FPN and panoptic FPN; it imports torch, torchvision,
#: numpy, einops and ``torchsummary``, which the ``bench`` extra adds) and efficientnet-lite-pytorch (EfficientNet-Lite
#: with "same" padding fixed at build time; it imports torch only).
PINS20 = {**PINS19, "glasses": "0.0.6", "efficientnet_lite_pytorch": "0.1.0"}

_G = "from glasses.models import {}"


def _glasses(name: str, cls: str, what: str, construct: str, shape: str = "1, 3, 64, 64",
             config: str = DYNAMIC_BHW, forward: str = "return self.m(x)", **kw: str) -> Spec:
    return Spec(f"glasses_{name}", f"glasses {what}", _G.format(cls), construct, forward, shape, config,
                calibrate="self.m(xb)", **kw)


MODELS20 = [
    # glasses: segmentation.
    _glasses("unet", "UNet", "UNet (its own encoder and decoder, skip connections concatenated)",
             "UNet(in_channels=3, n_classes=2)"),
    _glasses("fpn", "FPN", "FPN segmentation (ResNet encoder, top-down pathway; the plain FPN's output is its "
             "segmentation branch's list of per-level maps, returned as a tuple)",
             "FPN(in_channels=3, n_classes=2)", forward="return tuple(self.m(x))"),
    _glasses("pfpn", "PFPN", "panoptic FPN segmentation (each level's branch upsampled to a quarter, summed)",
             "PFPN(in_channels=3, n_classes=2)"),
    # glasses: transformers at their fixed size.
    _glasses("vit_small_patch16_224", "ViT", "ViT-S/16 (class token, learned position embeddings for 224 px)",
             "ViT.vit_small_patch16_224(n_classes=10)", "1, 3, 224, 224", DYNAMIC_B),
    _glasses("deit_tiny_patch16_224", "DeiT", "DeiT-T/16 (class and distillation tokens, two heads averaged)",
             "DeiT.deit_tiny_patch16_224(n_classes=10)", "1, 3, 224, 224", DYNAMIC_B),
    # glasses: backbones.
    _glasses("resnest14d", "ResNeSt", "ResNeSt-14d (split attention over radix groups)",
             "ResNeSt.resnest14d(n_classes=10)"),
    _glasses("fishnet99", "FishNet", "FishNet-99 (tail, body and head: downsampling, upsampling, concatenation)",
             "FishNet.fishnet99(n_classes=10)"),
    _glasses("regnety_002", "RegNet", "RegNetY-200MF (grouped bottlenecks with squeeze-excitation)",
             "RegNet.regnety_002(n_classes=10)"),
    _glasses("cse_resnet18", "SEResNet", "cSE-ResNet-18 (channel squeeze-excitation variant)",
             "SEResNet.cse_resnet18(n_classes=10)"),
    _glasses("efficientnet_b0", "EfficientNet", "EfficientNet-B0 (its own MBConv blocks, SiLU, squeeze-excitation)",
             "EfficientNet.efficientnet_b0(n_classes=10)"),
    _glasses("densenet121", "DenseNet", "DenseNet-121 (dense blocks, transitions)",
             "DenseNet.densenet121(n_classes=10)"),
    _glasses("resnet26d", "ResNet", "ResNet-26d (deep stem, average-pool shortcuts)",
             "ResNet.resnet26d(n_classes=10)"),
    _glasses("resnext50_32x4d", "ResNetXt", "ResNeXt-50 32x4d (grouped bottlenecks)",
             "ResNetXt.resnext50_32x4d(n_classes=10)"),
    _glasses("mobilenet_v2", "MobileNet", "MobileNetV2 (inverted residuals)", "MobileNet.mobilenet_v2(n_classes=10)"),
    _glasses("vgg11_bn", "VGG", "VGG-11 with batch norm (adaptive pooling before the classifier)",
             "VGG.vgg11_bn(n_classes=10)"),
    _glasses("wide_resnet50_2", "WideResNet", "Wide ResNet-50-2", "WideResNet.wide_resnet50_2(n_classes=10)"),
    _glasses("efficientnet_lite0", "EfficientNetLite", "EfficientNet-Lite0 (its own blocks: ReLU6, no "
             "squeeze-excitation, fixed stem and head)", "EfficientNetLite.efficientnet_lite0(n_classes=10)"),
    # efficientnet-lite-pytorch: padding fixed by the size the model is built for.
    Spec("effl_lite0", "efficientnet-lite-pytorch EfficientNet-Lite0 (ReLU6, no squeeze-excitation, "
         "TensorFlow-style same padding computed for 224 px at build time)",
         "from efficientnet_lite_pytorch import EfficientNet",
         'EfficientNet.from_name("efficientnet-lite0", num_classes=10)', "return self.m(x)", "1, 3, 224, 224",
         DYNAMIC_B, calibrate="self.m(xb)"),
    # torchvision: a two-stage detector's RoI pooling over FPN levels.
    Spec("tv_multiscale_roi_align", "torchvision MultiScaleRoIAlign (a Faster R-CNN second stage: three FPN levels "
         "from a small network, four boxes an image regressed from the image, each pooled 7x7 from the level its "
         "size picks, a linear head)",
         "import torchvision",
         "torch.nn.ModuleDict({'c1': torch.nn.Conv2d(3, 16, 3, 2, 1), 'c2': torch.nn.Conv2d(16, 16, 3, 2, 1), "
         "'c3': torch.nn.Conv2d(16, 16, 3, 2, 1), 'box': torch.nn.Sequential(torch.nn.AdaptiveAvgPool2d(1), "
         "torch.nn.Flatten(), torch.nn.Linear(3, 16), torch.nn.Sigmoid()), 'head': torch.nn.Linear(16 * 49, 5)})",
         "h, w = x.shape[2], x.shape[3]\n        "
         "p1 = torch.relu(self.m['c1'](x))\n        p2 = torch.relu(self.m['c2'](p1))\n        "
         "p3 = torch.relu(self.m['c3'](p2))\n        "
         "r = self.m['box'](x).reshape(-1, 4, 4)\n        "
         "scale = torch.tensor([w, h, w, h], dtype=x.dtype)\n        "
         "lo = r[..., :2] * 0.5\n        hi = lo + 0.1 + r[..., 2:] * 0.4\n        "
         "boxes = torch.cat([lo, hi], -1) * scale\n        "
         "pooled = self.pool({'p1': p1, 'p2': p2, 'p3': p3}, list(boxes.unbind(0)), [(h, w)] * x.shape[0])\n        "
         "return self.m['head'](pooled.flatten(1)), boxes",
         "1, 3, 64, 64", DYNAMIC_BHW,
         init="self.pool = torchvision.ops.MultiScaleRoIAlign(['p1', 'p2', 'p3'], 7, 2)"),
    # torchvision: a one-stage head's box post-processing.
    Spec("tv_box_postprocess", "torchvision box post-processing on a small one-stage head (centre-size boxes on the "
         "stride-8 grid converted by box_convert, clipped by clip_boxes_to_image, small ones dropped by "
         "remove_small_boxes, score threshold, batched_nms per class; kept boxes, scores, classes and image index)",
         "import torchvision",
         "torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, 2, 1), torch.nn.ReLU(), torch.nn.Conv2d(16, 16, 3, 2, 1), "
         "torch.nn.ReLU(), torch.nn.Conv2d(16, 7, 3, 2, 1))",
         "b, h, w = x.shape[0], x.shape[2], x.shape[3]\n        "
         "out = self.m(x)\n        gh, gw = out.shape[2], out.shape[3]\n        "
         "ys, xs = torch.meshgrid(torch.arange(gh), torch.arange(gw), indexing='ij')\n        "
         "centre = torch.stack([xs, ys], -1).reshape(1, -1, 2).to(x.dtype) * 8 + 4\n        "
         "out = out.flatten(2).transpose(1, 2)\n        "
         "boxes = torch.cat([centre + out[..., :2] * 8, out[..., 2:4].exp() * 8], -1)\n        "
         "boxes = torchvision.ops.box_convert(boxes, 'cxcywh', 'xyxy')\n        "
         "scores, labels = out[..., 4:].sigmoid().max(-1)\n        rows = []\n        "
         "for i in range(b):\n            "
         "bx = torchvision.ops.clip_boxes_to_image(boxes[i], (h, w))\n            "
         "keep = torchvision.ops.remove_small_boxes(bx, 2.0)\n            "
         "keep = keep[scores[i][keep] > 0.3]\n            "
         "keep = keep[torchvision.ops.batched_nms(bx[keep], scores[i][keep], labels[i][keep], 0.5)]\n            "
         "rows.append(torch.cat([bx[keep], scores[i][keep, None], labels[i][keep, None].to(x.dtype), "
         "torch.full_like(scores[i][keep, None], i)], 1))\n        "
         "return torch.cat(rows)", "1, 3, 64, 64", DYNAMIC_BHW),
    # kornia: descriptor matching and scale-space peak localisation.
    Spec("kornia_match_mnn", "kornia match_mnn (mutual nearest neighbours between dense descriptors of the batch's "
         "first image and of its mirror image, from a small network on the stride-4 grid, L2-normalised; match "
         "distances and "
         "index pairs)", "import kornia",
         "torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, 2, 1), torch.nn.ReLU(), torch.nn.Conv2d(16, 32, 3, 2, 1))",
         "d1 = torch.nn.functional.normalize(self.m(x[:1]).flatten(2)[0].t(), dim=1)\n        "
         "d2 = torch.nn.functional.normalize(self.m(x[:1].flip(3)).flatten(2)[0].t(), dim=1)\n        "
         "dists, idx = kornia.feature.match_mnn(d1, d2)\n        return dists, idx", "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("kornia_conv_soft_argmax3d", "kornia conv_soft_argmax3d (local soft-argmax over a 4-level response stack "
         "from a small network: sub-pixel coordinates and scale, and their soft-max values)", "import kornia",
         "torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(8, 4, 3, "
         "padding=1))",
         "coords, values = kornia.geometry.subpix.conv_soft_argmax3d(self.m(x)[:, None], (3, 3, 3), (1, 2, 2), "
         "(1, 1, 1), output_value=True)\n        return coords, values", "1, 3, 64, 64", DYNAMIC_BHW),
    # kornia: a patch descriptor and heatmap peak picking.
    Spec("kornia_hardnet8", "kornia HardNet8 (a local patch descriptor: 32x32 grey patches to 128-d, whitened "
         "and normalised)", "import kornia", "kornia.feature.HardNet8(pretrained=False)", "return self.m(x)",
         "1, 1, 32, 32",
         DYNAMIC_B, calibrate="self.m(xb)"),
    Spec("kornia_nms2d_topk", "kornia nms2d (3x3 max-pool non-maximum suppression) on 4 heatmaps from a small "
         "network, then the 16 strongest peaks of each with their coordinates", "import kornia",
         "torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(), torch.nn.Conv2d(8, 4, 3, "
         "padding=1), torch.nn.Sigmoid())",
         "heat = self.m(x)\n        "
         "kept = kornia.geometry.subpix.nms2d(heat, (3, 3))\n        "
         "scores, idx = kept.flatten(2).topk(16, dim=-1)\n        "
         "w = x.shape[3]\n        "
         "return scores, torch.stack([idx % w, idx // w], -1)", "1, 3, 64, 64", DYNAMIC_BHW),
]

if __name__ == "__main__":
    main(MODELS20, "real_zoo20", PINS20)
