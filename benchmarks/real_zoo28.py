"""A twenty-eighth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo28.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the twenty-seventh zoo's first contact, so what it gives after them is no longer a figure for
models nobody tuned for. This zoo is the next check: the twenty-seventh zoo's libraries and pins and three more
libraries by three other authors, whose code no earlier zoo or sweep ran (``PINS28``: unpacked wheels like the others,
never pip-installed): cjm-yolox-pytorch 0.2.0 (cj-mills' (Christian Mills') YOLOX after mmdetection's: CSPDarknet,
PAFPN, a decoupled head, and an inference wrapper that normalises, flattens the three strides and decodes boxes on
grids built from the input's size; its one import outside torch, torchvision and NumPy is cjm-psl-utils 0.0.4, the same
author's pure-Python download helper, pinned with it), pointnet 0.1.1 (Kaidi Shen's PointNet and PointNet++ in torch
and einops: spatial transformers, farthest point sampling in a Python loop over the samples, ball query by sorting
distances, k-NN interpolation; its Taichi ball query is imported only when enabled, never here) and e2cnn 0.2.3
(Gabriele Cesa and Maurice Weiler's E(2)-equivariant CNNs: steerable convolutions whose filters are expanded from a
basis, fields of group representations, equivariant batch norms, non-linearities, pooling and upsampling; NumPy, SciPy
and SymPy, all in the venv). Nothing new in the ``bench`` extra: everything they import is there. Considered and
dropped before any model was chosen (by the wheel's files, metadata and a first import): ezflow 0.2.5 (optical flow:
RAFT, PWC-Net, DICL, VCN; its config imports fvcore, with yacs and iopath behind it), pwcnet 0.2 (PWC-Net whose
correlation is a CuPy kernel), pytorch-ssd 1.8.0 (albumentations, h5py, pytorch-lightning, wandb), anime-face-detector
0.1.0 and ellipse-rcnn 0.2.2 and pytorch-hed 0.5 (no wheel on the index), anime-seg 0.3.8 (peft and DINOv2 weights),
pytorch-msssim 1.0.0 (SSIM and MS-SSIM again, as piq's in zoo 25); the libraries zoos 15 to 27 dropped, as they found.

16 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 27
or in the library sweeps (benchmarks/sweep_*.py), all 16 from the three new libraries and at least 11 of the kinds that
most often need work for an ONNX or TensorRT deployment (grids built in Python loops from the image size, pixels sliced
into channels, channels-last input permuted, scores picked by a mask and NMS, farthest point sampling writing indices
in place in a loop, ball query by sort, k-NN by topk, gathers with einops-built indices, the global feature repeated
to the number of points, interpolation by a scale factor, group pooling by reshapes). Detection, from
cjm-yolox-pytorch, random weights: YOLOX-tiny's raw maps at 96x128, its inference wrapper with box decoding at 128x96,
YOLOX-s in the wrapper for channels-last 0-255 frames without decoding at 64x96, and YOLOX-tiny with NMS per image
(scores over 0.2, class-aware batched_nms, the best 20 rows with the image index, order not compared) at 96 px.
Point clouds, from pointnet, random weights, 256 random points in the unit cube (6 channels where normals are
given): PointNetCls with both transformers, PointNetSeg on points with normals, PointNet2ClsSSG and ClsMSG,
PointNet2PartSegSSG with a category, PointNet2SegSSG and SegMSG, all with fewer centres than the library's defaults
(128 and 32, or 128 to 16 over four levels). Equivariant CNNs, from e2cnn, random weights, cyclic groups only (its
dihedral and SO(2) bases hash ``ndarray.tostring``, gone in NumPy 2, so they fail to build with the venv's NumPy): C8
with group pooling at 48x64, C6 with antialiased pooling and a linear classifier at 64 px, C16 on frequency-1 and
frequency-2 fields with norm non-linearities at 56 px, C4 with R2Upsampling as a segmenter at 64x80, and a C8 network
exported to plain torch modules (the library's ``export``) at 64x48.

Each is small and has the dynamic axes a deploying user declares: batch, height and width for the convolutional image
models (YOLOX's grids are built from the size), batch and the number of points for the point-cloud models (farthest
point sampling takes a fixed number of centres from any number of points). Machinery, table and counts are
real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over two forwards,
finite outputs) at two sizes (the spec's, and a batch of two 32 px larger, or 64 points more) before the first migrate
run: with one thread on the shared two cores, a forward at the spec's size took 0.004 to 0.1 s (PointNet2ClsMSG the
slowest) and at most 0.2 s at the larger size; builds (imports included) took 1.4 to 4.2 s (e2cnn's basis expansion the
longest). Changed after the first eager runs, before any migrate run: e2cnn's D4, D8 and SO(2) networks were replaced
by C6, C8 and C16 ones (their bases fail on NumPy 2, above), and PointNetSeg on points with normals lost its 3x3
transformer (the library applies the xyz transformer to all six channels: a shape error)."""

from __future__ import annotations

from real_zoo import DYNAMIC_BHW, Spec
from real_zoo2 import main
from real_zoo27 import PINS27

#: The twenty-seventh zoo's pins and three libraries by three other authors, unpacked wheels like the others (never
#: pip-installed): cjm_yolox_pytorch (cj-mills' YOLOX with its inference wrapper: normalisation, the strides
#: flattened and concatenated, boxes decoded on grids built in a Python loop from the input's size; torch, torchvision,
#: NumPy) with cjm_psl_utils (the same author's pure-Python download helper, which its model module imports), pointnet
#: (Kaidi Shen's PointNet and PointNet++: farthest point sampling, ball query, k-NN interpolation; torch and einops)
#: and e2cnn (Gabriele Cesa and Maurice Weiler's E(2)-equivariant steerable CNNs; torch, NumPy, SciPy, SymPy).
PINS28 = {**PINS27, "cjm_yolox_pytorch": "0.2.0", "cjm_psl_utils": "0.0.4", "pointnet": "0.1.1", "e2cnn": "0.2.3"}

_YOLOX = "from cjm_yolox_pytorch.model import build_model, NORM_STATS"
_YOLOX_WRAP = _YOLOX + "\nfrom cjm_yolox_pytorch.inference import YOLOXInferenceWrapper"


def _yolox(kind: str, **wrapper: str) -> str:
    """A randomly initialised YOLOX of ``kind`` (4 classes), in the library's inference wrapper when ``wrapper``."""
    model = f'build_model("{kind}", 4, pretrained=False)'
    if not wrapper:
        return model
    stats = (f'mean=torch.tensor(NORM_STATS["{kind}"]["mean"]).view(1, 3, 1, 1), '
             f'std=torch.tensor(NORM_STATS["{kind}"]["std"]).view(1, 3, 1, 1)')
    args = "".join(f", {key}={value}" for key, value in wrapper.items())
    return (f"(lambda mean, std: YOLOXInferenceWrapper({model}, normalize_mean=mean, normalize_std=std{args}))"
            f"({stats})")


#: YOLOX-tiny in the wrapper, its strides given as the library's docs write them.
_YOLOX_TINY = _yolox("yolox_tiny", strides="[8, 16, 32]")

#: Boxes (x0, y0, w, h) to corners, class-aware NMS per image on the scores over 0.2, the 20 best rows kept with the
#: image's index (zoo 19's rows, whose order is not compared).
_YOLOX_ROWS = (
    "det = self.m(x)\n        rows = []\n        for i in range(det.shape[0]):\n            "
    "d = det[i][det[i, :, 5] > 0.2]\n            "
    "boxes = torch.cat([d[:, :2], d[:, :2] + d[:, 2:4]], 1)\n            "
    "keep = torchvision.ops.batched_nms(boxes, d[:, 5], d[:, 4].long(), 0.45)[:20]\n            "
    "rows.append(torch.cat([boxes[keep], d[keep, 4:6], torch.full_like(d[keep, :1], i)], 1))\n        "
    "return torch.cat(rows)")

_POINTS = 'dynamic_axes = { x = { 0 = "batch", 2 = "points" } }'


def _pn(name: str, what: str, classes: str, construct: str, forward: str, channels: int = 3) -> Spec:
    """A pointnet model on 256 points of ``channels`` (xyz, then normals), the batch and the points dynamic."""
    return Spec(name, f"pointnet {what}", f"from pointnet import {classes}",
                construct, forward, f"1, {channels}, 256", _POINTS)

_E2 = "from e2cnn import gspaces\nfrom e2cnn import nn as enn"
#: The equivariant network runs on a GeometricTensor of its input type; the tensor comes back out.
_E2_FORWARD = "return self.m(enn.GeometricTensor(x, self.m.in_type)).tensor"


def _e2_regular(gspace: str, fields: tuple[int, int], pool: str, tail: str) -> str:
    """An equivariant CNN on ``gspace``: RGB as trivial fields, two steerable convolutions to regular fields with
    equivariant batch norms and ReLUs, ``pool`` between them, then ``tail`` on the last field type ``t2``."""
    first, second = fields
    return (f"(lambda g: (lambda t0, t1, t2: enn.SequentialModule(enn.R2Conv(t0, t1, 5, padding=2), "
            f"enn.InnerBatchNorm(t1), enn.ReLU(t1), {pool}, enn.R2Conv(t1, t2, 3, padding=1), enn.InnerBatchNorm(t2), "
            f"enn.ReLU(t2), {tail}))(enn.FieldType(g, 3 * [g.trivial_repr]), "
            f"enn.FieldType(g, {first} * [g.regular_repr]), enn.FieldType(g, {second} * [g.regular_repr])))({gspace})")


MODELS28 = [
    # cjm_yolox_pytorch: YOLOX (random weights, nothing downloaded) alone and in the library's inference wrapper.
    Spec("cjm_yolox_tiny_heads", "cjm_yolox_pytorch YOLOX-tiny (Focus stem slicing pixels into channels, CSPDarknet "
         "with an SPP bottleneck, PAFPN upsampling by 2, decoupled heads): class, box and objectness maps of the "
         "three strides", _YOLOX, _yolox("yolox_tiny"), "cls, box, obj = self.m(x)\n        return (*cls, *box, *obj)",
         "1, 3, 96, 128", DYNAMIC_BHW),
    Spec("cjm_yolox_tiny_decode", "cjm_yolox_pytorch YOLOXInferenceWrapper on YOLOX-tiny: normalised, the strides' "
         "maps flattened and concatenated, grids of (x, y, stride) built in a Python loop from the input's size, "
         "boxes decoded, the best class and its probability per proposal", _YOLOX_WRAP, _YOLOX_TINY, "return self.m(x)",
         "1, 3, 128, 96", DYNAMIC_BHW),
    Spec("cjm_yolox_s_channels_last", "cjm_yolox_pytorch YOLOXInferenceWrapper on YOLOX-s for channels-last 0-255 "
         "frames (scaled by 1/255, permuted to channels first, ImageNet-normalised), the flattened raw proposals "
         "without decoding", _YOLOX_WRAP, _yolox("yolox_s", scale_inp="True", channels_last="True",
                                                  run_box_and_prob_calculation="False"),
         "return self.m(x * 255)", "1, 64, 96, 3", 'dynamic_axes = { x = { 0 = "batch", 1 = "height", 2 = "width" } }'),
    Spec("cjm_yolox_tiny_nms", "cjm_yolox_pytorch YOLOXInferenceWrapper on YOLOX-tiny and NMS per image: proposals "
         "over a score threshold picked by a mask, boxes to corners, torchvision batched_nms by class, the best 20 "
         "rows with the image index concatenated", _YOLOX_WRAP + "\nimport torchvision", _YOLOX_TINY, _YOLOX_ROWS,
         "1, 3, 96, 96", DYNAMIC_BHW + '\nunordered = ["output"]'),
    # pointnet: PointNet and PointNet++ on random point clouds in the unit cube (random weights).
    _pn("pointnet_cls", "PointNetCls (a 3x3 spatial transformer predicted from the points and applied by bmm, a 64x64 "
        "feature transformer, max over the points, a classifier)", "PointNetCls, STN",
        "PointNetCls(3, 10, stn_3d=STN(in_dim=3))", "return self.m(x)"),
    _pn("pointnet_seg_normals", "PointNetSeg on points with normals, without the 3x3 transformer (the library "
        "builds it for xyz but applies it to all six channels): the 64x64 feature transformer, the global feature "
        "repeated over the points and concatenated per point", "PointNetSeg", "PointNetSeg(6, 8, stn_3d=None)",
        "return self.m(x)", channels=6),
    _pn("pointnet2_cls_ssg", "PointNet2ClsSSG (farthest point sampling in a Python loop over 128 and 32 centres, "
        "ball query by sorting masked distances, grouped features max-pooled)", "PointNet2ClsSSG",
        "PointNet2ClsSSG(3, 10, downsample_points=(128, 32), ks=(16, 32))", "return self.m(x, x)"),
    _pn("pointnet2_cls_msg", "PointNet2ClsMSG on points with normals (multi-scale grouping: three radii and neighbour "
        "counts per level)", "PointNet2ClsMSG", "PointNet2ClsMSG(6, 10, downsample_points=(128, 32), base_k=8)",
        "return self.m(x, x[:, :3])", channels=6),
    _pn("pointnet2_partseg_ssg", "PointNet2PartSegSSG (set abstraction, a global feature at the centroid, feature "
        "propagation by inverse-distance k-NN interpolation, a category embedding added per point)",
        "PointNet2PartSegSSG", "PointNet2PartSegSSG(3, 6, n_category=4, downsample_points=(128, 32))",
        "return self.m(x, x, torch.full((x.shape[0],), 2, dtype=torch.long))"),
    _pn("pointnet2_seg_ssg", "PointNet2SegSSG (four set abstractions down to 16 centres, four k-NN interpolations "
        "back to every point)", "PointNet2SegSSG", "PointNet2SegSSG(3, 5, k=16, downsample_points=(128, 64, 32, 16))",
        "return self.m(x, x)"),
    _pn("pointnet2_seg_msg", "PointNet2SegMSG on points with normals (multi-scale grouping at four levels, k-NN "
        "interpolation back)", "PointNet2SegMSG",
        "PointNet2SegMSG(6, 5, ks=(8, 16), downsample_points=(128, 64, 32, 16))", "return self.m(x, x[:, :3])",
        channels=6),
    # e2cnn: equivariant CNNs (random weights; filters expanded from the steerable basis, cached in eval mode).
    Spec("e2cnn_c8_gpool", "e2cnn C8-equivariant CNN (rotations by 45 degrees: steerable 5x5 and 3x3 convolutions "
         "to regular fields, inner batch norms, ReLUs, pointwise max pooling, group pooling to invariant maps)", _E2,
         _e2_regular("gspaces.Rot2dOnR2(N=8)", (4, 8), "enn.PointwiseMaxPool(t1, 2)", "enn.GroupPooling(t2)"),
         _E2_FORWARD, "1, 3, 48, 64", DYNAMIC_BHW),
    Spec("e2cnn_c6_classifier", "e2cnn C6-equivariant classifier (rotations by 60 degrees, not a symmetry of the pixel "
         "grid: antialiased average pooling by a Gaussian blur with stride 2, group pooling, a global max and a linear "
         "layer)", _E2,
         "torch.nn.ModuleDict(dict(e=" + _e2_regular(
             "gspaces.Rot2dOnR2(N=6)", (3, 6), "enn.PointwiseAvgPoolAntialiased(t1, sigma=0.66, stride=2)",
             "enn.GroupPooling(t2)") + ", fc=torch.nn.Linear(6, 10)))",
         "y = self.m['e'](enn.GeometricTensor(x, self.m['e'].in_type)).tensor\n        "
         "return self.m['fc'](y.amax((2, 3)))", "1, 3, 64, 64", DYNAMIC_BHW),
    Spec("e2cnn_c16_norm", "e2cnn C16-equivariant CNN on fields of the rotation frequencies 1 and 2 (norm batch "
         "norms, norm ReLUs with a learned bias, norm pooling to invariant maps)", _E2,
         "(lambda g: (lambda t0, t1: enn.SequentialModule(enn.R2Conv(t0, t1, 7, padding=3), enn.NormBatchNorm(t1), "
         "enn.NormNonLinearity(t1, 'n_relu'), enn.R2Conv(t1, t1, 5, padding=2), enn.NormBatchNorm(t1), "
         "enn.NormNonLinearity(t1, 'n_relu'), enn.NormPool(t1)))(enn.FieldType(g, 3 * [g.trivial_repr]), "
         "enn.FieldType(g, 4 * [g.irrep(1)] + 4 * [g.irrep(2)])))(gspaces.Rot2dOnR2(N=16))",
         _E2_FORWARD, "1, 3, 56, 56", DYNAMIC_BHW),
    Spec("e2cnn_c4_upsample_seg", "e2cnn C4-equivariant segmenter (a strided steerable convolution, R2Upsampling "
         "by 2 with bilinear interpolation, a steerable convolution to two invariant class maps)", _E2,
         "(lambda g: (lambda t0, t1, t2: enn.SequentialModule(enn.R2Conv(t0, t1, 3, padding=1, stride=2), "
         "enn.InnerBatchNorm(t1), enn.ReLU(t1), enn.R2Upsampling(t1, scale_factor=2), enn.R2Conv(t1, t2, 3, "
         "padding=1)))(enn.FieldType(g, 3 * [g.trivial_repr]), enn.FieldType(g, 6 * [g.regular_repr]), "
         "enn.FieldType(g, 2 * [g.trivial_repr])))(gspaces.Rot2dOnR2(N=4))", _E2_FORWARD, "1, 3, 64, 80",
         DYNAMIC_BHW),
    Spec("e2cnn_c8_exported", "e2cnn C8-equivariant CNN exported to plain torch modules (SequentialModule.export: "
         "the expanded filters in Conv2d layers, batch norms, max pools and group pooling as modules), the "
         "library's route to deployment", _E2,
         "(lambda m: m.eval().export())(" + _e2_regular("gspaces.Rot2dOnR2(N=8)", (2, 4),
                                                          "enn.PointwiseMaxPool(t1, 2)", "enn.GroupPooling(t2)") + ")",
         "return self.m(x)", "1, 3, 64, 48", DYNAMIC_BHW),
]

if __name__ == "__main__":
    main(MODELS28, "real_zoo28", PINS28)
