"""A forty-sixth real-model zoo, held out: chosen and committed before migrate ran on any of them.

    python benchmarks/real_zoo46.py [--jobs N] [--models a,b] [--work DIR] [--output FILE] [--render JSON]

Fixes were made after the earlier zoos' first contact, so what they give after them is no longer a figure for models
nobody tuned for. This zoo is the next check, on 3-D detection from point clouds and bird's-eye-view perception in pure
PyTorch: the thirty-first zoo's pins and two more libraries by two other authors, whose code no earlier zoo or sweep ran
(``PINS46``: unpacked wheels like the others, never pip-installed): opencoodx 0.1.19 (Runsheng Xu, Hao Xiang and
Zhaoliang Zheng, module ``opencood``: OpenCOOD, cooperative 3-D detection from the LiDARs of several vehicles;
PointPillars' pillar feature net (per-pillar linear, BatchNorm, max over the points, the padded points masked from their
counts, offsets from the cells' centres) and a scatter of the pillars onto the bird's-eye-view grid by flat index, in a
Python loop over ``coords[:, 0].max().int().item() + 1`` samples; BEV backbones with transposed-convolution upsampling;
anchor class and box heads; the vehicles of each scene regrouped by ``tensor_split`` at the ``cumsum`` of their counts
(``record_len``, moved to the CPU), then fused per scene in Python loops by attention at every cell, by max (F-Cooper)
or by V2VNet's messages (transforms discretised to the grid, rotated ROI masks and affine warps by ``grid_sample``, a
ConvGRU); PIXOR's residual FPN; anchors made with numpy ``linspace``/``meshgrid`` and boxes decoded from them by ``exp``
and index assignment; PIXOR's boxes from an ``arange`` grid, ``atan2`` and a boolean mask; einops and matplotlib, in the
venv) and g3ms-pcp 0.1.1 (Kittipong Tapyou, module ``pcp``: PointNet and PointNet++ in pure PyTorch; farthest point
sampling by a Python loop of ``argmax`` and index writes, ball queries by ``cdist`` and ``topk`` over chunks of 128
centroids in a Python loop, the misses replaced by the first neighbour, gathers by index with padding masks,
inverse-distance interpolation of the 3 nearest, T-Nets applied by ``bmm``).

Considered and dropped before any model was chosen (by the wheel's files and metadata, or a first look at the code):
det3d 0.0.7 and bev-toolbox 0.1 and lidarlens 0.2.0 (no wheel, only source archives: det3d's fails pip's metadata step;
bev-toolbox is data augmentation around mmdet3d; lidarlens is registration, filtering and export helpers), learning3d
0.2.2 (Vinit Sarode: PointNet, DGCNN, PCN, DCP, RPMNet and more, but the wheel installs ``models``, ``utils`` and
``ops`` as top-level packages whose relative imports reach above them, and its PRNet, transformer and PointConv import
h5py and scikit-learn, not in the venv), openpoints 0.1.2 (Guocheng Qian: PointNeXt, PointMLP, PointTransformer and
more; its layers import the compiled ``pointnet2_batch`` ops at module level), grid-fusion-pytorch 0.1.2 (Jan Nogga:
voxel grid fusion; compiles CUDA extensions by ``cpp_extension.load`` at import), mmdet3d 1.4.0 (not downloaded:
voxelization and NMS in mmcv's compiled ops, mmengine and mmdet), myria3d 3.9.1 (not downloaded: lightning and
torch-geometric), and the libraries zoos 15 to 45 dropped or used, as they found (pointtorch, dropped by zoos 29 and 38;
pointnet and point-transformer-pytorch, pinned by earlier zoos); within the chosen libraries: OpenCOOD's VoxelNet (its
``voxel_indexing`` calls ``.cuda()`` and takes the coordinates through numpy), SECOND (spconv, compiled), the
intermediate-fusion PIXOR and VoxelNet (not chosen: two PIXORs were enough) and both post-processors' ``post_process``
(rotated NMS through shapely polygons in numpy, and the Cython box overlaps, not built); g3ms-pcp's PointNetCls (not
chosen: three models from it were enough).

10 models, chosen by family before any migrate run, none of them (library, architecture and variant) in zoos 1 to 45 or
in the library sweeps (benchmarks/sweep_*.py), 8 of them of the kinds that most often need work for an ONNX or TensorRT
deployment (scatters onto a grid by index in a loop over a count read by ``.item()``, grids and anchors made with numpy,
boxes decoded by index assignment, boolean-mask selection with a data-dependent count, regrouping by ``tensor_split`` at
a ``cumsum`` moved to the CPU, per-scene and per-vehicle Python loops, warps by ``grid_sample``, farthest point sampling
and ball queries by Python loops, ``topk``); the other two (PIXOR's detector and PointNet's segmenter with T-Nets) are
plain networks with dynamic sizes. PointPillars with opencoodx (random weights; a 25.6 m square around the vehicle, 0.4
m pillars, a 64 x 64 grid, 2 anchors a cell; a backbone of one convolution a block, 32, 64 and 64 channels, upsampled to
3 x 128): the single-vehicle PointPillar's class and box maps, and the same with the VoxelPostprocessor's anchors and
``delta_to_boxes3d`` giving the 20 best-scored boxes (7 values and the score) a sample, compared as a set; cooperative
detection over each scene's vehicles (a count from each scene's first value, from half the padded count, rounded up, to
all of them, so that the vehicles kept are a data-dependent selection): PointPillarIntermediate (attentive fusion at the
backbone's three scales), PointPillarFCooper (max fusion after a 1x1 shrink to 256 channels) and PointPillarV2VNet (two
3x3 shrinks of stride 2 to an 8 x 8 grid, 2 rounds of messages, each vehicle's pose a yaw and a shift from its first
pillar's points, the pairwise transforms by ``torch.linalg.inv``); PIXOR on a BEV occupancy-like grid of 17 slices (the
class and box maps), and PIXOR with its BevPostprocessor's denormalised box map turned into the corners of the boxes at
the scene's 16 best-scored cells (a mask from the 16th largest class logit; compared as a set). PointNet++ and PointNet
with g3ms-pcp (random weights): a single-scale PointNet2Cls (64 then 16 centroids, radii 0.2 and 0.4, 8 classes:
log-probabilities and the global feature), a multi-scale PointNet2Seg with the intensity as a feature (radii 0.1 and 0.2
at the first level, feature propagation back to every point: 5 classes' log-probabilities and the global feature) and a
PointNetSeg with T-Nets on xyz and intensity (6 classes' logits, channels first).

Each is small and has the dynamic axes a deploying user declares: batch and pillars for the single-vehicle PointPillars
(the pillars as the library takes them, 32 points of 4 features each, padded; each pillar's cell drawn from its rank
within its sample, so that cells are distinct as a voxelizer gives them, its points placed inside the cell and zeroed
after its point count, the count from its first intensity); batch, vehicles and pillars for the cooperative three;
batch, height and width for PIXOR; none for PIXOR's corners (its box grid is the configured range's); batch and points
for g3ms-pcp's three. The inputs are the user's values in [0, 1). PIXOR's constructor zeroes its box head and sets its
class head's weights to one constant (a prior for training): the user's trained heads stand in as small seeded random
ones. No BatchNorm calibration (no scores tie with the running statistics' defaults). Machinery, table and counts are
real_zoo2.py's. The wrappers were checked only for building and running eagerly (deterministic over two forwards, finite
outputs) at three sizes (the spec's, a larger batch, and more pillars, vehicles, points or a larger grid: 600 pillars
for 256; 5 vehicles of 200 pillars for 3 of 128, and 3 vehicles or 200 pillars for V2VNet's 2 of 128; a 96 x 80 grid for
64 x 64; 512 or 1000 points for 256) before the first migrate run, with a stand-in source tree holding only torchvision
and the two new libraries: with one thread on the shared two cores, each in its own process, in the last round (with
this file; load averages of 4.7 to 5.3 from other sessions), the best of two forwards at the spec's size took 0.017 to
0.172 s for opencoodx (0.018 the anchor boxes, 0.022 PointPillar, 0.102 attentive fusion, 0.017 and 0.025 the PIXORs,
0.107 V2VNet, 0.172 F-Cooper at a batch of two scenes) and 0.007 to 0.009 s for g3ms-pcp; at the larger sizes at most
0.317 s (F-Cooper, two scenes of 5 vehicles and 200 pillars; V2VNet at most 0.171 s); builds (imports included) took 2.0
to 12.2 s (12.2 the first, on a cold file cache). An earlier round at load averages up to 6.4 gave up to 0.222 s at the
spec's size (V2VNet, its final settings) and 0.130 s (F-Cooper). Changed after the first eager runs (in a scratch script
before the zoo file was committed), before any migrate run: V2VNet at 2 vehicles a scene (not 3) with two shrinks to an
8 x 8 grid (not one to 16 x 16): the first took 0.37 s at the spec's size; the vehicle count from half the padded count
up (not from one up: the spec's input could keep a single vehicle, leaving nothing to fuse); the shrink header's
settings inside the user's module (the first build referred to a name of this file); PIXOR's heads re-drawn (the first
runs gave an all-zero box map); the models named ``cood_`` (``oc_`` is open_clip's in zoo 16); PointNetSeg's output
described as logits (it returns no log-probabilities). Warnings seen, left as they are: ``torch.meshgrid`` without
``indexing`` in BevPostprocessor.reg_map_to_bbx_corners."""

from __future__ import annotations

from real_zoo import Spec
from real_zoo2 import main
from real_zoo31 import PINS31

#: The thirty-first zoo's pins and two libraries by two other authors, unpacked wheels like the others (never
#: pip-installed): opencoodx (Runsheng Xu, Hao Xiang and Zhaoliang Zheng: OpenCOOD, cooperative 3-D detection from
#: LiDAR point clouds; PointPillars' pillar feature net and a scatter onto the bird's-eye-view grid by index in a loop
#: over ``int(coords[:, 0].max().item()) + 1`` samples, BEV backbones and anchor heads, the vehicles of a scene
#: regrouped by ``tensor_split`` at a ``cumsum`` of their counts, attention, max and V2VNet fusion (ConvGRU, affine
#: warps by ``grid_sample``, rotated ROI masks, Python loops over scenes and vehicles), PIXOR, anchors made with
#: numpy and boxes decoded from them; einops and matplotlib from the venv) and g3ms-pcp (Kittipong Tapyou: PointNet
#: and PointNet++ in pure PyTorch; farthest point sampling by a Python loop of ``argmax``, ball queries by chunked
#: ``cdist`` and ``topk``, gathers by index with padding masks, inverse-distance interpolation, a T-Net).
PINS46 = {**PINS31, "opencoodx": "0.1.19", "g3ms_pcp": "0.1.1"}

#: Pillars: (batch, pillars, 32 points, 4 features) in [0, 1): the points of each pillar (x and y inside its cell, z,
#: intensity), the pillar's point count from its first point's intensity.
_BP = 'dynamic_axes = { x = { 0 = "batch", 1 = "pillars" } }'
#: A scene's vehicles: (batch, vehicles, pillars, 32 points, 4 features), each scene's vehicle count from its first
#: value.
_BVP = 'dynamic_axes = { x = { 0 = "batch", 1 = "vehicles", 2 = "pillars" } }'
#: A BEV occupancy grid: (batch, height slices, height, width).
_BHW = 'dynamic_axes = { x = { 0 = "batch", 2 = "height", 3 = "width" } }'
#: Points: (batch, points, features) in [0, 1), the first three the coordinates.
_BN = 'dynamic_axes = { x = { 0 = "batch", 1 = "points" } }'

# ---------------------------------------------------------------------------------------------------------------
# opencoodx: PointPillars and cooperative fusion (random weights) on a 25.6 m square around the vehicle, 0.4 m
# pillars (a 64 x 64 grid), 2 anchors a cell. Its post-processors import the Cython box overlaps (not built here),
# its visualisation (open3d and cv2) and, through common_utils, shapely and gdown (none in the venv): the user's
# module stands in empty ones before importing them, as one without them would.
_OC = '''import sys
import types

for _name, _attrs in {"opencood.utils.box_overlaps": ["bbox_overlaps"], "opencood.visualization.vis_utils": [],
                      "shapely": [], "shapely.geometry": ["Polygon"], "gdown": []}.items():
    _stub = sys.modules.setdefault(_name, types.ModuleType(_name))
    for _attr in _attrs:
        setattr(_stub, _attr, object)
from opencood.models.point_pillar import PointPillar
from opencood.models.point_pillar_intermediate import PointPillarIntermediate
from opencood.models.point_pillar_fcooper import PointPillarFCooper
from opencood.models.point_pillar_v2vnet import PointPillarV2VNet
from opencood.models.pixor import PIXOR
from opencood.data_utils.post_processor.voxel_postprocessor import VoxelPostprocessor
from opencood.data_utils.post_processor.bev_postprocessor import BevPostprocessor

_RANGE = [-12.8, -12.8, -3, 12.8, 12.8, 1]
_BEV = {"layer_nums": [1, 1, 1], "layer_strides": [2, 2, 2], "num_filters": [32, 64, 64],
        "upsample_strides": [1, 2, 4], "num_upsample_filter": [128, 128, 128]}
#: A 1x1 shrink header from the backbone's 384 channels to the fusion's 256.
_SHRINK = {"kernal_size": [1], "stride": [1], "padding": [0], "dim": [256], "input_dim": 384}


def _args(**extra):
    return {"voxel_size": [0.4, 0.4, 4], "lidar_range": _RANGE, "anchor_number": 2, "anchor_num": 2, "max_cav": 5,
            "compression": 0, "backbone_fix": False,
            "pillar_vfe": {"use_norm": True, "with_distance": False, "use_absolute_xyz": True, "num_filters": [64]},
            "point_pillar_scatter": {"num_features": 64, "grid_size": [64, 64, 1]},
            "base_bev_backbone": dict(_BEV), **extra}


def _lidar(x):
    """The library's pillar tensors from the user's pillars (batch, pillars, 32, 4), each sample's pillars one
    sample: the points, the (sample, z, y, x) cells, the point counts.

    Each pillar's cell comes from its rank by its first value within its sample (distinct cells, as a voxelizer gives
    them), its points lie inside that cell, the points after its count are zeros (padding, as the library expects)."""
    b, p, t = x.shape[0], x.shape[1], x.shape[2]
    cell = x[:, :, 0, 0].argsort(1) * 61 % 4096
    iy, ix = cell // 64, cell % 64
    count = (x[:, :, 0, 3] * t).long().clamp(min=1)
    valid = (torch.arange(t) < count[..., None]).to(x.dtype)
    px = (ix[..., None] + x[..., 0]) * 0.4 - 12.8
    py = (iy[..., None] + x[..., 1]) * 0.4 - 12.8
    pts = torch.stack([px, py, x[..., 2] * 4 - 3, x[..., 3]], -1) * valid[..., None]
    sample = torch.arange(b)[:, None].expand(b, p)
    coords = torch.stack([sample, torch.zeros_like(ix), iy, ix], -1).reshape(b * p, 4)
    return {"processed_lidar": {"voxel_features": pts.reshape(b * p, t, 4), "voxel_coords": coords,
                                "voxel_num_points": count.reshape(-1)}}


def _scene(x):
    """The vehicles of each scene (batch, vehicles, pillars, 32, 4): the count of each scene's vehicles from its first
    value (from half the padded count, rounded up, to all of them), their pillars one sample each, record_len the
    counts."""
    b, v = x.shape[0], x.shape[1]
    counts = v - (x[:, 0, 0, 0, 0] * v / 2).long()
    keep = torch.arange(v)[None, :] < counts[:, None]
    data = _lidar(x[keep])
    data["record_len"] = counts
    return data
'''
#: PIXOR's constructor sets its box head's weights and bias to zero and its class head's weights to one constant (a
#: prior for training): the user's trained heads stand in as small random ones (seeded), so that the boxes and
#: scores depend on the input.
_PIXOR_HEADS = ("for _head in (self.m.header.clshead, self.m.header.reghead):\n            "
                "torch.nn.init.normal_(_head.weight, std=0.05)\n            "
                "torch.nn.init.normal_(_head.bias, std=0.05)")
_OC_SCENE = 'out = self.m(_scene(x))\n        return out["psm"], out["rm"]'
#: Each vehicle's pose in the scene from its first point (yaw within a quarter turn, 4 m either way), the pairwise
#: transforms from vehicle i to j as the library takes them: (batch, vehicles, vehicles, 4, 4).
_OC_POSES = ('v = x.shape[1]\n        p = x[:, :, 0, 0, 0]\n        yaw = (x[:, :, 0, 1, 0] - 0.5) * 1.5\n        '
             "c, s, o, z = yaw.cos(), yaw.sin(), torch.ones_like(yaw), torch.zeros_like(yaw)\n        "
             "pose = torch.stack([c, -s, z, (p - 0.5) * 8, s, c, z, (x[:, :, 0, 1, 1] - 0.5) * 8, z, z, o, z, "
             "z, z, z, o], -1).reshape(*yaw.shape, 4, 4)\n        "
             "pairwise = torch.linalg.inv(pose)[:, None] @ pose[:, :, None]\n        "
             "data = _scene(x)\n        data['pairwise_t_matrix'] = pairwise\n        ")

# ---------------------------------------------------------------------------------------------------------------
# g3ms-pcp: PointNet and PointNet++ (random weights). Its package imports polars and laspy for its csv and laz
# readers (neither in the venv): the user's module stands in empty ones before importing it.
_PCP = '''import sys
import types

for _name in ("polars", "laspy"):
    sys.modules.setdefault(_name, types.ModuleType(_name))
from pcp.nn.PointNet import PointNetSeg
from pcp.nn.PointNet2 import PointNet2, PointNet2Cls, PointNet2Seg, SALayerConfig'''

MODELS46 = [
    # opencoodx: PointPillars and cooperative perception (random weights).
    Spec("cood_pointpillar", "opencoodx PointPillar (pillar feature net of 64, a scatter onto the 64 x 64 BEV grid by "
         "index in a loop over int(coords[:, 0].max().item()) + 1 samples, a BEV backbone of 3 blocks upsampled "
         "to 384 channels, anchor class and box heads of 2 anchors a cell)", _OC,
         "PointPillar(_args())", 'out = self.m(_lidar(x))\n        return out["psm"], out["rm"]',
         "1, 256, 32, 4", _BP),
    Spec("cood_pointpillar_anchor_boxes", "opencoodx PointPillar with its VoxelPostprocessor's anchors (numpy "
         "linspace and meshgrid over the range, 2 yaws a cell) and delta_to_boxes3d (boxes from the regression "
         "map and the anchors, sizes by exp): the 20 best-scored boxes and their scores per sample", _OC,
         "PointPillar(_args())",
         'out = self.m(_lidar(x))\n        '
         'boxes = VoxelPostprocessor.delta_to_boxes3d(out["rm"], self.anchors)\n        '
         'scores = torch.sigmoid(out["psm"].permute(0, 2, 3, 1)).reshape(x.shape[0], -1)\n        '
         "top, idx = scores.topk(20, dim=1)\n        "
         "return torch.cat([boxes.gather(1, idx[..., None].expand(-1, -1, 7)), top[..., None]], -1)",
         "1, 256, 32, 4", _BP + '\nunordered = ["output"]',
         init="post = VoxelPostprocessor({'anchor_args': {'cav_lidar_range': _RANGE, 'l': 3.9, 'w': 1.6, 'h': 1.56, "
              "'r': [0, 90], 'num': 2, 'W': 64, 'H': 64, 'vw': 0.4, 'vh': 0.4, 'feature_stride': 2}, "
              "'order': 'hwl'}, False)\n        "
              "self.register_buffer('anchors', torch.from_numpy(post.generate_anchor_box()).float())"),
    Spec("cood_attentive_fusion", "opencoodx PointPillarIntermediate (attentive intermediate fusion: each scene's "
         "vehicles regrouped by tensor_split at the cumsum of record_len, scaled dot-product attention over the "
         "vehicles at each BEV cell in a loop over scenes, at each of the backbone's 3 scales)", _OC,
         "PointPillarIntermediate(_args())", _OC_SCENE, "1, 3, 128, 32, 4", _BVP),
    Spec("cood_fcooper", "opencoodx PointPillarFCooper (F-Cooper: the BEV features of each scene's vehicles regrouped "
         "by tensor_split at the cumsum of record_len and max-fused in a loop over scenes, a 1x1 shrink header to "
         "256 channels)", _OC,
         "PointPillarFCooper(_args(shrink_header=_SHRINK))", _OC_SCENE, "2, 3, 128, 32, 4", _BVP),
    Spec("cood_v2vnet", "opencoodx PointPillarV2VNet (V2VNet: pairwise vehicle transforms discretised to the 8 x 8 "
         "feature grid, rotated ROI masks and affine warps by grid_sample, 2 rounds of messages in Python loops over "
         "scenes and each scene's vehicles, averaged, a ConvGRU update)", _OC,
         "PointPillarV2VNet(_args(shrink_header={**_SHRINK, 'kernal_size': [3, 3], 'stride': [2, 2], "
         "'padding': [1, 1], 'dim': [256, 256]}, "
         "v2vfusion={'voxel_size': [0.4, 0.4, 4], 'downsample_rate': 8, 'num_iteration': 2, 'in_channels': 256, "
         "'gru_flag': True, 'agg_operator': 'avg', 'conv_gru': {'H': 8, 'W': 8, 'num_layers': 1, "
         "'kernel_size': [[3, 3]]}}))",
         _OC_POSES + 'out = self.m(data)\n        return out["psm"], out["rm"]', "1, 2, 128, 32, 4", _BVP),
    Spec("cood_pixor", "opencoodx PIXOR (a BEV occupancy grid of 16 height slices and intensity, a residual "
         "backbone of 3, 6, 6, 3 bottlenecks, an FPN-like decoder with transposed convolutions, class and box "
         "maps at a quarter of the grid)", _OC,
         "PIXOR({'geometry_param': {'input_shape': [64, 64, 17], 'label_shape': [16, 16, 7]}, 'use_bn': True})",
         'out = self.m({"processed_lidar": {"bev_input": x}})\n        return out["cls"], out["reg"]',
         "1, 17, 64, 64", _BHW,
         init=_PIXOR_HEADS),
    Spec("cood_pixor_corners", "opencoodx PIXOR with its BevPostprocessor: the regression map denormalised, box "
         "centres from an arange grid over the range, yaw by atan2, sizes by exp, corners by boxes2d_to_corners2d "
         "for the cells selected by a mask (the 16 best-scored cells of the scene)", _OC,
         "PIXOR({'geometry_param': {'input_shape': [64, 64, 17], 'label_shape': [16, 16, 7]}, 'use_bn': True})",
         'out = self.m({"processed_lidar": {"bev_input": x}})\n        '
         'logit = out["cls"][0, 0]\n        '
         "mask = logit >= logit.flatten().topk(16).values[-1]\n        "
         'reg = self.post.denormalize_reg_map(out["reg"][0].permute(1, 2, 0))\n        '
         "return BevPostprocessor.reg_map_to_bbx_corners(self.post, reg, mask)",
         "1, 17, 64, 64", 'unordered = ["output"]',
         init=_PIXOR_HEADS + "\n        self.post = BevPostprocessor({'geometry_param': {'L1': -12.8, 'L2': 12.8, "
              "'W1': -12.8, 'W2': 12.8, "
              "'res': 0.4, 'downsample_rate': 4}}, False)"),
    # g3ms-pcp: PointNet++ and PointNet on the user's points (random weights).
    Spec("pcp_pointnet2_ssg_cls", "g3ms-pcp PointNet2Cls (single-scale grouping: farthest point sampling of 64 "
         "then 16 centroids by a Python loop of argmax, ball queries of radius 0.2 and 0.4 by cdist and topk with "
         "the misses replaced by the first neighbour, a global PointNet), 8 classes, log-probabilities and the "
         "global feature", _PCP,
         "PointNet2Cls(8, backbone=PointNet2([SALayerConfig(64, 0.2, 16, [32, 64]), SALayerConfig(16, 0.4, 16, "
         "[64, 128]), SALayerConfig(None, None, None, [128, 256], group_all=True)]), classifier_channels=(64, 32))",
         "return self.m(x)", "1, 256, 3", _BN),
    Spec("pcp_pointnet2_msg_seg", "g3ms-pcp PointNet2Seg (multi-scale grouping at radii 0.1 and 0.2 with the "
         "intensity as a feature, feature propagation by inverse-distance weighting of the 3 nearest by cdist and "
         "topk), per-point log-probabilities of 5 classes", _PCP,
         "PointNet2Seg(5, backbone=PointNet2([SALayerConfig(64, [0.1, 0.2], [8, 16], [[16, 32], [16, 32]]), "
         "SALayerConfig(16, 0.4, 16, [64, 128]), SALayerConfig(None, None, None, [128, 256], group_all=True)], "
         "input_feature_channels=1), fp_channels=((128, 128), (128, 64), (64, 64)))",
         "return self.m(x)", "1, 256, 4", _BN),
    Spec("pcp_pointnet_seg_tnet", "g3ms-pcp PointNetSeg with T-Nets (input and feature transforms predicted and "
         "applied by bmm, a global max-pooled feature concatenated to every point), per-point logits "
         "of 6 classes from xyz and intensity", _PCP,
         "PointNetSeg(4, 6, use_tnet=True, backbone_channels=((32, 32), (32, 64, 256)), "
         "segmentation_channels=(128, 64))",
         "return self.m(x)", "1, 256, 4", _BN),
]

if __name__ == "__main__":
    main(MODELS46, "real_zoo46", PINS46)
